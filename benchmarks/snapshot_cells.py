"""Recompute a fixed set of cells of a shipped study and keep, or compare, their rows.

A refactor that should not change a single number is checked in the same environment: take a
snapshot before, change the code, compare after. (Against the committed results, library
versions already move the last digits; ``tests/system/test_pins.py`` pins those with a tolerance.)

    python benchmarks/snapshot_cells.py take /tmp/before.parquet
    python benchmarks/snapshot_cells.py compare /tmp/before.parquet

By default: every method of configs/main.yaml on both benchmarks at lambda 0.7, replications
0 and 1, on the 2,000-draw protocol (28 cells, about a minute on one core).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
KEEP = ["dgp", "lam", "method", "rep", "J", "EC", "CVaR", "J_lo", "J_hi", "oracle_draws",
        "method_value", "status", "error"]


def _x(row) -> list[float]:
    if "x" in row and not isinstance(row["x"], float):
        return [float(v) for v in row["x"]]
    return [float(row[f"x{i}"]) for i in range(1, 7)]  # an older row


def compute(config: str, reps: list[int], lam: float) -> pd.DataFrame:
    sys.path.insert(0, str(ROOT))
    from acfs_cli.experiment.cell import run_cell
    from acfs_cli.experiment.config import load
    from acfs_cli.experiment.grid import build_cells

    cells = [c for c in build_cells(load(ROOT / config))
             if c.rep in reps and c.lam == lam]
    rows = []
    for cell in cells:
        row = run_cell(replace(cell, precise_draws=None))
        out = {k: row[k] for k in KEEP}
        out["x"] = _x(row)
        rows.append(out)
        print(f"{cell.describe():40s} J={row['J']:,.2f} draws={row['oracle_draws']}",
              flush=True)
    return pd.DataFrame(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["take", "compare"])
    parser.add_argument("path", type=Path)
    parser.add_argument("--config", default="configs/main.yaml")
    parser.add_argument("--reps", default="0,1")
    parser.add_argument("--lam", type=float, default=0.7)
    args = parser.parse_args()
    reps = [int(r) for r in args.reps.split(",")]
    now = compute(args.config, reps, args.lam)
    if args.action == "take":
        now.to_parquet(args.path, index=False)
        print(f"{len(now)} rows -> {args.path}")
        return 0
    before = pd.read_parquet(args.path)
    key = ["dgp", "lam", "method", "rep"]
    merged = before.merge(now, on=key, suffixes=("_before", "_now"))
    differ = 0
    for _, r in merged.iterrows():
        same = (np.array_equal(np.asarray(r["x_before"]), np.asarray(r["x_now"]))
                and all(r[f"{k}_before"] == r[f"{k}_now"] or (pd.isna(r[f"{k}_before"])
                        and pd.isna(r[f"{k}_now"])) for k in KEEP if k not in key))
        if not same:
            differ += 1
            print(f"DIFFERS: {r['dgp']} {r['method']} rep={r['rep']}: J {r['J_before']} -> "
                  f"{r['J_now']}, draws {r['oracle_draws_before']} -> {r['oracle_draws_now']}")
    print(f"{len(merged)} cells compared, {differ} differ, "
          f"{len(before) - len(merged)} missing now")
    return 1 if differ or len(merged) < len(before) else 0


if __name__ == "__main__":
    raise SystemExit(main())
