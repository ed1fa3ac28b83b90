"""The project's maximin Latin hypercube against scipy's (``scipy.stats.qmc.LatinHypercube``).

Every space-filling design of the project is ``acfs_cli.core.space.maximin_lhs``: the best of
five jittered Latin hypercubes by their smallest pairwise distance. For each size it draws
designs from fresh seeds with

* ``acfs``: ``maximin_lhs(n, d, rng)`` (five candidates);
* ``qmc``: ``LatinHypercube(d, rng=...)`` (one jittered hypercube, no optimisation);
* ``qmc random-cd``: the same, optimised for the centred discrepancy by random coordinate
  swaps (scipy's ``optimization="random-cd"``);
* ``qmc lloyd``: the same, moved by Lloyd-Max iterations (``optimization="lloyd"``; small
  designs only: it takes seconds),

and reports the median over seeds of the smallest pairwise distance (what a maximin design
maximises: the larger, the fewer near-duplicate decisions a one-draw design wastes), the
median centred discrepancy (what ``random-cd`` minimises), and the median seconds per design.

    .venv/bin/python benchmarks/bench_lhd.py --repeats 21
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from scipy.spatial import cKDTree
from scipy.stats import qmc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from acfs_cli.core.space import maximin_lhs  # noqa: E402

#: (n, d): ACFS's 1,200-point LHD on the benchmarks, GP-BO's and SAA-PS's screens, a
#: 50-dimensional library problem.
SIZES = ((20, 6), (200, 6), (1200, 6), (100, 50))


def min_distance(points: np.ndarray) -> float:
    return float(cKDTree(points).query(points, k=2)[0][:, 1].min())


def designs(n: int, d: int):
    yield "acfs", lambda rng: maximin_lhs(n, d, rng)
    yield "qmc", lambda rng: qmc.LatinHypercube(d, rng=rng).random(n)
    yield "qmc random-cd", lambda rng: qmc.LatinHypercube(
        d, rng=rng, optimization="random-cd").random(n)
    if n * d <= 1_500:
        yield "qmc lloyd", lambda rng: qmc.LatinHypercube(
            d, rng=rng, optimization="lloyd").random(n)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    args = parser.parse_args()
    print("| n | d | design | min distance | centred discrepancy | ms per design |")
    print("| ---: | ---: | --- | ---: | ---: | ---: |")
    for n, d in SIZES:
        for name, make in designs(n, d):
            dist, disc, secs = [], [], []
            for seed in range(args.repeats):
                rng = np.random.default_rng(seed)
                start = time.perf_counter()
                points = make(rng)
                secs.append(time.perf_counter() - start)
                dist.append(min_distance(points))
                disc.append(qmc.discrepancy(points, method="CD"))
            print(f"| {n:,} | {d} | {name} | {statistics.median(dist):.4f} | "
                  f"{statistics.median(disc):.4g} | {1e3 * statistics.median(secs):.1f} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
