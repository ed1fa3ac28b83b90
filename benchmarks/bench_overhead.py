"""A method's own CPU time against the simulator's, on a 12-D user problem declared one
decision at a time, with its own one-point ``project`` (a bisection).

The problem is ``bench_vectorized``'s, declared as a user often writes it: ``transform(x, z)``,
``cost(W, x)`` and ``project(x)`` of one decision (``vectorized`` left False). Every call into
the user's functions is timed, so a replication's CPU splits into

* simulator: ``transform`` and ``cost``, for the draws the method asked for;
* projection: the user's ``project``, called once per point;
* method: everything else (the search, its surrogates, the oracle's bookkeeping and the
  normalisation that calls the user's functions decision by decision).

"sim alone" is the simulator's time to produce and cost the same number of draws at one
decision in batches of 1,000, measured apart: the floor a user's simulator costs anyway.

    .venv/bin/python benchmarks/bench_overhead.py [--budget 260000] [--dim 12] [--methods auto ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_vectorized import Vectorised  # noqa: E402


class Clock:
    def __init__(self):
        self.seconds = {"simulator": 0.0, "projection": 0.0}
        self.projected = 0

    def timed(self, kind, fn):
        def wrapper(*args, **kwargs):
            t = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[kind] += time.process_time() - t
        return wrapper


class OnePoint(Vectorised):
    """The simulator and the projection of one decision at a time, every call timed."""

    vectorized = False
    transform_batch = None

    def __init__(self, dim: int, clock: Clock):
        super().__init__(dim)
        self.clock = clock
        self.transform = clock.timed("simulator", super().transform)
        self.cost = clock.timed("simulator", super().cost)
        self.project = clock.timed("projection", self._project_one)

    def _project_one(self, x):
        x = np.asarray(x, dtype=float)
        if x.ndim != 1:
            raise TypeError("project takes one point")
        self.clock.projected += 1
        return Vectorised.project(self, x[None, :])[0]


def simulator_alone(dim: int, draws: int) -> float:
    problem = Vectorised(dim)
    rng = np.random.default_rng(0)
    x = np.full(dim, 0.2)
    t = time.process_time()
    for start in range(0, draws, 1000):
        n = min(1000, draws - start)
        W = problem.transform_batch(x[None, :], rng.standard_normal((1, n, problem.dim_w)))[0]
        problem.cost(W, x)
    return time.process_time() - t


def main(argv=None) -> None:
    from acfs_cli.core.oracle import Oracle
    from acfs_cli.core.task import Task
    from acfs_cli.methods import METHODS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=260_000)
    ap.add_argument("--dim", type=int, default=12)
    ap.add_argument("--methods", nargs="+", default=["auto", "saa-ps", "astro", "sgd-cvar"])
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"dim {args.dim}, budget {args.budget:,}, one decision at a time; CPU seconds, median of "
          f"{args.reps}")
    print(f"{'method':10s} {'total':>7s} {'simulator':>9s} {'project':>8s} {'calls':>8s} "
          f"{'method':>7s} {'sim alone':>9s} {'method/sim':>10s}")
    for name in args.methods:
        rows = []
        for rep in range(args.reps):
            clock = Clock()
            problem = OnePoint(args.dim, clock)
            task = Task.from_problem(problem, 0.7, 0.95)
            oracle = Oracle(problem, args.budget, np.random.default_rng(rep))
            with threadpool_limits(1):
                t = time.process_time()
                METHODS[name](task, oracle, np.random.default_rng(rep + 100))
                total = time.process_time() - t
                alone = simulator_alone(args.dim, oracle.used)
            sim, proj = clock.seconds["simulator"], clock.seconds["projection"]
            rows.append((total, sim, proj, clock.projected, total - sim - proj, alone))
        total, sim, proj, calls, own, alone = np.median(np.array(rows), axis=0)
        print(f"{name:10s} {total:7.2f} {sim:9.2f} {proj:8.2f} {calls:8.0f} {own:7.2f} "
              f"{alone:9.3f} {own / alone:10.1f}", flush=True)


if __name__ == "__main__":
    main()
