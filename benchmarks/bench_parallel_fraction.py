"""How much of each method's simulator time can run in parallel, from its requests alone.

A run's requests are cut into pieces (DESIGN.md section 3: per decision, per seeded block of
a sample-only simulator's stream); workers share the pieces of one request and requests come
one after another. This records every request of a run - through the oracle and the final
estimate - in one process (the pieces are the same with workers) and reports, for a
simulator whose every row costs the same:

* ``>=4`` / ``>=16``: the share of the rows drawn in requests of at least 4 / 16 pieces;
* ``x4`` / ``x16``: the speed-up of the simulator's time on 4 / 16 workers if nothing but
  the pieces limited it - a request takes the longer of its largest piece and its rows over
  the workers - the search alone, then with the final estimate (``n_eval`` rows at x*).

    .venv/bin/python benchmarks/bench_parallel_fraction.py [--budget 2000] [--n-eval 20000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from acfs_cli.common.seeding import stream
from acfs_cli.core.oracle import Oracle
from acfs_cli.core.problem import as_problem
from acfs_cli.core.task import Task
from acfs_cli.methods.registry import get_method

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_parallel import Sleeper  # noqa: E402

METHODS = ["auto", "astro", "saa-ps", "acfs-plus", "acfs", "gp-bo", "cem-so", "sgd-cvar",
           "kde-so", "simopt-astrodf", "simopt-neldmd", "simopt-strong", "simopt-spsa",
           "simopt-adam", "simopt-aloe"]


class Requests:
    """A ``run`` that draws here, in order, and keeps the rows of each piece of each
    request."""

    def __init__(self, problem):
        self.problem, self.log = problem, []

    def __call__(self, pieces):
        self.log.append([p.rows for p in pieces])
        return [p.draw(self.problem) for p in pieces]


def speedup(requests: list[list[int]], workers: int) -> float:
    rows = sum(sum(r) for r in requests)
    time = sum(max(max(r), sum(r) / workers) for r in requests if r)
    return rows / time if time else float("nan")


def share(requests: list[list[int]], pieces: int) -> float:
    rows = sum(sum(r) for r in requests)
    return sum(sum(r) for r in requests if len(r) >= pieces) / rows if rows else float("nan")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, nargs="+", default=[2_000, 20_000])
    ap.add_argument("--n-eval", type=int, default=20_000)
    ap.add_argument("--methods", nargs="+", default=METHODS)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args(argv)
    problem = as_problem(Sleeper(0.0))
    task = Task.from_problem(problem, 0.7, 0.9)
    print(f"# the 2-D sample-only Sleeper, lam 0.7, alpha 0.9, seed {args.seed}; final "
          f"estimate {args.n_eval:,} rows")
    print(f"{'method':15s} {'budget':>7s} {'requests':>8s} {'rows':>7s} {'>=4':>6s} "
          f"{'>=16':>6s} {'x4':>6s} {'x16':>6s} {'x4 +final':>10s} {'x16 +final':>11s}")
    for budget in args.budget:
        for name in args.methods:
            method = get_method(name)
            if method.minimum_budget(task.dim_x) > budget:
                continue
            record = Requests(problem)
            oracle = Oracle(problem, budget, stream(args.seed, "oracle", name), draws=record)
            result = method(task, oracle, stream(args.seed, "method", name))
            search = list(record.log)
            problem.fresh_costs(result.x, args.n_eval, stream(args.seed, "evaluation"),
                                run=record)
            everything = record.log
            rows = sum(sum(r) for r in search)
            print(f"{name:15s} {budget:7,d} {len(search):8,d} {rows:7,d} "
                  f"{100 * share(search, 4):5.0f}% {100 * share(search, 16):5.0f}% "
                  f"{speedup(search, 4):6.2f} {speedup(search, 16):6.2f} "
                  f"{speedup(everything, 4):10.2f} {speedup(everything, 16):11.2f}", flush=True)


if __name__ == "__main__":
    main()
