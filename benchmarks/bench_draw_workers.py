"""How many local draw workers a run starts, and what they cost, against ``n_jobs``.

Two simulators: DGP2 offered as a black box (``get_problem("dgp2", sample_only=True)``,
26,000 draws, microseconds a row: workers compute) and a sample-only simulator that sleeps
10 ms a row (``Sleeper(0.01)``: workers wait; budget 2,000, ``n_eval=2000``). For each
``n_jobs``: the wall seconds of ``minimize`` and the most worker processes alive during the
search (counted from a callback); for DGP2 also a second call in the same process, which
reuses the workers the first one kept. Every answer is compared with the first row's (the
same J to the last bit).

Command: ``python benchmarks/bench_draw_workers.py --compute 1 2 8 1000 --wait 1 2 8 16``
(and ``--compute 8 --wait 8`` on the version before the rule, which started every worker
asked for).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np


class Sleeper:
    """W = x_1 - 1 + (0.5 + 0.3 x_2) Z, C = W^2 + 0.2 x_2^2 - 0.3 x_2; ``pause`` s a row."""

    dim_x, dim_w = 2, 1
    bounds = [(0.0, 4.0), (0.0, 4.0)]

    def __init__(self, pause: float = 0.0):
        self.pause = float(pause)

    def sample(self, x, n, rng):
        time.sleep(self.pause * n)
        return (x[0] - 1.0 + (0.5 + 0.3 * x[1]) * rng.standard_normal(n))[:, None]

    def cost(self, W, x):
        return W[:, 0] ** 2 + 0.2 * x[1] ** 2 - 0.3 * x[1]


def workers() -> int:
    """Processes whose parent is this one (Linux's /proc), the resource trackers left out."""
    me, n = os.getpid(), 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        n += int(fields[1]) == me and fields[0] != "Z" and b"resource_tracker" not in command
    return n


def timed(make, n_jobs: int, **kwargs):
    from acfs_cli.api import minimize

    peak = [0]

    def count(incumbent):
        peak[0] = max(peak[0], workers())

    start = time.perf_counter()
    sol = minimize(make(), n_jobs=n_jobs, callback=count, **kwargs)
    return time.perf_counter() - start, peak[0], sol


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compute", type=int, nargs="*", default=[1, 2, 8, 1000])
    parser.add_argument("--wait", type=int, nargs="*", default=[1, 2, 8, 16])
    args = parser.parse_args()
    from acfs_cli.problems import get_problem

    try:
        from acfs_cli.parallel import close_workers
    except ImportError:  # a version that keeps no workers (for the before of a comparison)
        def close_workers():
            return None

    first = None
    for k in args.compute:
        close_workers()
        wall, peak, sol = timed(lambda: get_problem("dgp2", sample_only=True), k,
                                budget=26_000, seed=1)
        again, _, sol2 = timed(lambda: get_problem("dgp2", sample_only=True), k,
                               budget=26_000, seed=1)
        first = sol.J if first is None else first
        print(f"dgp2 black box, n_jobs {k}: {wall:.1f} s ({peak} worker processes at most), "
              f"a second call {again:.1f} s; same J {sol.J == sol2.J == first}; "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
    close_workers()
    first = None
    for k in args.wait:
        wall, peak, sol = timed(lambda: Sleeper(0.01), k, lam=0.7, alpha=0.9, budget=2000,
                                seed=3, n_eval=2000)
        first = sol.J if first is None else first
        print(f"sleeper 10 ms a row, n_jobs {k}: {wall:.1f} s ({peak} worker processes at "
              f"most during the search); same J {np.float64(sol.J) == first}; "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
    close_workers()


if __name__ == "__main__":
    main()
