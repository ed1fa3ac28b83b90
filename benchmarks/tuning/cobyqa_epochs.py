"""A prototype, not the default: auto with COBYQA's epochs on sample averages at every budget
from 10 dimensions without a gradient, where version 6 runs them only below astro's epochs.

Measured against the default beside general-purpose optimisers (BENCHMARKS.md), on the
problems of ``benchmarks/bench_peers.py`` and with its scoring (gap to the optimum in %,
median / worst of the seeds, J on the common scoring sample of 200,000 rows):

    nice -n 5 .venv/bin/python benchmarks/tuning/cobyqa_epochs.py --budgets 20000 150000

The route is changed by replacing ``AutoSettings.epochs_affordable`` for this process only:
the next version of the default would make it a rule of its own (REPRODUCTION.md, "Left
open"). Nothing is cached or written.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]

import bench_peers as bp  # noqa: E402

from acfs_cli.api import minimize  # noqa: E402
from acfs_cli.methods import auto  # noqa: E402

#: Dimensions from which the prototype runs COBYQA's epochs at every budget (auto's own).
MANY = auto.MANY


def cobyqa_everywhere() -> None:
    """astro's epochs only below ``MANY`` dimensions or with a gradient: from ``MANY``, every
    budget goes to auto's COBYQA epochs (above their own floor of 5 (d + 1) evaluations)."""
    affordable = auto.AutoSettings.epochs_affordable

    def epochs_affordable(self, budget: int, dim: int, gradient: bool) -> bool:
        return (dim < MANY or gradient) and affordable(self, budget, dim, gradient)

    auto.AutoSettings.epochs_affordable = epochs_affordable


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", nargs="+", choices=list(bp.PROBLEMS),
                    default=["hub", "clinic", "grid", "warehouse", "ward", "fleetlease",
                             "clinic-box", "fleetlease-box"])
    ap.add_argument("--budgets", nargs="+", type=int, default=[20_000, 150_000])
    ap.add_argument("--seeds", type=int, default=8)
    args = ap.parse_args(argv)
    cobyqa_everywhere()
    scorer = bp.Scorer(200_000)
    print("| problem | draws | median / worst | CPU s (median) | plan of seed 0 |")
    print("| --- | ---: | ---: | ---: | --- |")
    for name in args.problems:
        opt = bp.optima()[bp.optimum_of(name)]
        for budget in args.budgets:
            gaps, cpu, plan = [], [], ""
            for seed in range(args.seeds):
                problem = bp.load_problem(name)
                t0 = time.process_time()
                sol = minimize(problem, lam=opt["lam"], alpha=opt["alpha"], budget=budget,
                               method="auto", seed=seed, n_eval=4_000)
                cpu.append(time.process_time() - t0)
                gaps.append(scorer.gap(name, scorer.J(name, problem, sol.x)))
                rows = [e["rows"] for e in sol.info["epochs"]]
                plan = plan or f"{sol.info.get('plan')}, rows {rows}"
            print(f"| {name} | {budget:,} | {np.median(gaps):.1f} / {max(gaps):.1f} | "
                  f"{np.median(cpu):.1f} | {plan} |", flush=True)


if __name__ == "__main__":
    main()
