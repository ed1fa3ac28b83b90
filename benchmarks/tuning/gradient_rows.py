"""A measurement, not the default: astro's first sample in auto's searches on SimOpt problems
that carry the simulator's IPA gradient (SAN-1, FIXEDSAN-1, CNTNEWS-1, EXAMPLE-1 in the
committed SimOpt study), at auto's own n0 and at another.

Each replication is ``minimize("simopt:P", lam, budget=B, seed=s, n_eval=4000, **settings)``;
its normalised gap, SimOpt's ``100 (J(x) - J_ref) / (J(x0) - J_ref)``, takes J(x) and J(x0) on
the replication's 4,000 fresh evaluation draws and J_ref as the mean over replications of
the committed study's reference (``results/simopt/reference_floor.parquet``,
``acfs reference --floor``). Median / worst over the seeds; nothing is cached or written.

    nice -n 5 .venv/bin/python benchmarks/tuning/gradient_rows.py --problems SAN-1 --n0 10
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from acfs_cli.api import minimize

ROOT = Path(__file__).resolve().parents[2]
FLOOR = ROOT / "results" / "simopt" / "reference_floor.parquet"
BUDGETS = {"SAN-1": (1_000, 10_000), "FIXEDSAN-1": (1_000, 10_000),
           "CNTNEWS-1": (100, 1_000), "EXAMPLE-1": (100, 1_000)}


def references() -> dict[tuple[str, float], float]:
    floor = pd.read_parquet(FLOOR)
    means = floor.groupby(["problem", "lam"])["J_ref_true"].mean()
    return {(p.removeprefix("simopt:"), float(lam)): float(v) for (p, lam), v in means.items()}


def gaps(name: str, lam: float, budget: int, seeds: int, ref: float, **settings) -> np.ndarray:
    out = []
    for seed in range(seeds):
        r = minimize(f"simopt:{name}", lam=lam, budget=budget, seed=seed, n_eval=4_000,
                     **settings)
        out.append(100.0 * (r.J - ref) / (r.J_x0 - ref))
    return np.array(out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", nargs="+", choices=list(BUDGETS), default=list(BUDGETS))
    ap.add_argument("--n0", type=int, default=10, help="the other first sample")
    ap.add_argument("--seeds", type=int, default=10)
    args = ap.parse_args(argv)
    refs = references()
    print(f"| problem | budget | lambda | auto | auto, n0={args.n0} |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in args.problems:
        for budget in BUDGETS[name]:
            for lam in (0.0, 0.7):
                ref = refs[(name, lam)]
                a = gaps(name, lam, budget, args.seeds, ref)
                b = gaps(name, lam, budget, args.seeds, ref, n0=args.n0)
                print(f"| {name} | {budget:,} | {lam} | {np.median(a):.2f} / {a.max():.2f} | "
                      f"{np.median(b):.2f} / {b.max():.2f} |", flush=True)


if __name__ == "__main__":
    main()
