"""What cutting a sample-only simulator's streams into seeded blocks costs in one process.

Every stream of rows a sample-only simulator is asked for is cut into at most
``STREAM_BLOCKS`` seeded blocks (DESIGN.md section 3), so that the blocks can be simulated by
workers; in one process each block is one more call of the simulator. This times whole runs of
``minimize`` (search and a 2,000-row final estimate, one BLAS thread, CPU seconds of this
process, median of ``--reps``) on cheap vectorised sample-only simulators - the benchmarks as
black boxes, the library's tandem queue, SimOpt problems - with the rule's number of blocks
set to 1 (one call per decision and stream: the call pattern before blocks), 4, 16 (the
rule) and 64, and prints the ratio to 1 block.

    .venv/bin/python benchmarks/bench_blocks.py [--reps 3] [--blocks 1 4 16 64]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

from threadpoolctl import threadpool_limits

import acfs_cli.core.sample as sample_module
from acfs_cli.api import minimize
from acfs_cli.problems import get_problem

#: (label, problem name, options, budget, methods)
CASES = [
    ("dgp1 sample-only", "dgp1", {"sample_only": True}, 260_000, ["auto", "astro", "cem-so"]),
    ("dgp2 sample-only", "dgp2", {"sample_only": True}, 260_000, ["auto", "astro", "cem-so"]),
    ("tandem-mm1", "tandem-mm1", {}, 26_000, ["auto", "saa-ps", "sgd-cvar"]),
    ("simopt:SAN-1", "simopt:SAN-1", {}, 10_000, ["auto", "saa-ps", "simopt-astrodf"]),
    ("simopt:CNTNEWS-1", "simopt:CNTNEWS-1", {}, 1_000, ["auto", "saa-ps", "simopt-astrodf"]),
]


def cpu_seconds(problem, budget: int, method: str, seed: int) -> float:
    start = time.process_time()
    minimize(problem, lam=0.7, budget=budget, seed=seed, n_eval=2_000,
             method=None if method == "auto" else method)
    return time.process_time() - start


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--blocks", type=int, nargs="+", default=[1, 4, 16, 64])
    args = ap.parse_args(argv)
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.2f}; CPU s per run, median of {args.reps}")
    head = "".join(f"{f'{b} blocks':>11s}" for b in args.blocks)
    ratios = "".join(f"{f'x{b}/1':>8s}" for b in args.blocks[1:])
    print(f"{'problem':18s} {'budget':>8s} {'method':15s}{head}{ratios}")
    rule = sample_module.STREAM_BLOCKS
    with threadpool_limits(1):
        for label, name, options, budget, methods in CASES:
            try:
                problem = get_problem(name, **options)
            except ValueError as exc:  # SimOpt is an optional extra
                print(f"{label}: {exc}")
                continue
            for method in methods:
                times = []
                for blocks in args.blocks:
                    sample_module.STREAM_BLOCKS = blocks
                    try:
                        times.append(statistics.median(
                            cpu_seconds(problem, budget, method, seed) for seed in
                            range(args.reps)))
                    finally:
                        sample_module.STREAM_BLOCKS = rule
                cells = "".join(f"{t:11.2f}" for t in times)
                ratio = "".join(f"{t / times[0]:8.2f}" for t in times[1:])
                print(f"{label:18s} {budget:8,d} {method:15s}{cells}{ratio}", flush=True)


if __name__ == "__main__":
    main()
