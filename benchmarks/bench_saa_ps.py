"""SAA-PS per-replication time and quality against the reference optima.

For every setting (dgp, lam) and replication, run ``saa-ps`` under a fresh oracle with the
budget (streams named as the experiment runner names them: ``(dgp, rep, "saa-ps")``), then
estimate the true J of its x* with :func:`acfs_cli.evaluate.evaluate_precise` on the common
large-sample stream of (dgp, rep) and report:

* ``regret``: 100 (J(x*) - J*) / J*, with J* from ``results/reference/reference.parquet``
  (its own fresh 1,000,000-draw estimate);
* ``paired regret``: 100 (J(x*) - J(x_ref)) / J*, with the reference minimiser x_ref
  estimated on the *same* normals as x*: the sampling error of the two estimates largely
  cancels, which matters on DGP1, where a 200,000-draw estimate still has an SE near 1 %;
* ``floor``: the regret of the reference minimiser itself on the same normals - the noise
  floor of the unpaired regret (``regret = paired regret + floor``);
* wall-clock and CPU seconds per replication (BLAS pinned to one thread), median and range.

Usage::

    .venv/bin/python benchmarks/bench_saa_ps.py --reps 10
    .venv/bin/python benchmarks/bench_saa_ps.py --dgps dgp1 --lams 0.7 --reps 20 --set n_ps=4000
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.evaluate import evaluate_precise, precise_stream
from acfs_cli.methods.saa_ps import SAA_PS
from acfs_cli.problems import get_problem
from acfs_cli.reference import read_references, reference_row
from acfs_cli.seeding import stream


def _value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def run_one(dgp: str, lam: float, alpha: float, rep: int, seed: int, budget: int,
            overrides: dict, ref: pd.Series, n_eval: int) -> dict:
    problem = get_problem(dgp)
    task = Task.from_problem(problem, lam, alpha)
    names = (dgp, rep, SAA_PS.name)
    oracle = Oracle(problem, budget, stream(seed, "oracle", *names))
    rng = stream(seed, "method", *names)
    with threadpool_limits(1):
        cpu0, wall0 = time.process_time(), time.perf_counter()
        result = SAA_PS(task, oracle, rng, overrides)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    x_ref = ref[[f"x{i}" for i in range(1, 7)]].to_numpy(dtype=float)
    est = evaluate_precise(problem, result.x, lam, alpha, n=n_eval,
                           rng=precise_stream(seed, dgp, rep))
    est_ref = evaluate_precise(problem, x_ref, lam, alpha, n=n_eval,
                               rng=precise_stream(seed, dgp, rep))
    j_star = float(ref["J_star"])
    return {
        "dgp": dgp, "lam": lam, "rep": rep, "wall_s": wall, "cpu_s": cpu,
        "draws": result.oracle_draws, "J_true": est["J_true"], "J_true_se": est["J_true_se"],
        "regret": 100 * (est["J_true"] - j_star) / j_star,
        "paired_regret": 100 * (est["J_true"] - est_ref["J_true"]) / j_star,
        "ref_regret": 100 * (est_ref["J_true"] - j_star) / j_star,
        **{f"x{i + 1}": float(v) for i, v in enumerate(result.x)},
    }


def main(argv: list[str] | None = None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dgps", nargs="+", default=["dgp1", "dgp2"])
    ap.add_argument("--lams", nargs="+", type=float, default=[0.5, 0.7, 0.9])
    ap.add_argument("--alpha", type=float, default=0.95)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=int, default=260_000)
    ap.add_argument("--n-eval", type=int, default=200_000)
    ap.add_argument("--reference", type=Path,
                    default=Path("results/reference/reference.parquet"))
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                    help="saa-ps setting overrides")
    ap.add_argument("--out", type=Path, default=None, help="write the per-replication rows (csv)")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)

    overrides = {k: _value(v) for k, v in (item.split("=", 1) for item in args.set)}
    SAA_PS.settings(overrides)  # fail early on a bad override
    refs = read_references(args.reference)
    rows = []
    for dgp in args.dgps:
        for lam in args.lams:
            ref = reference_row(refs, dgp, lam, args.alpha)
            if ref is None:
                raise SystemExit(f"no reference optimum for {dgp}, lam={lam} in {args.reference}")
            for rep in range(args.reps):
                row = run_one(dgp, lam, args.alpha, rep, args.seed, args.budget, overrides, ref,
                              args.n_eval)
                rows.append(row)
                if args.verbose:
                    x = np.round([row[f"x{i}"] for i in range(1, 7)], 3)
                    print(f"{dgp} lam={lam} rep={rep}: regret {row['regret']:6.2f} %, paired "
                          f"{row['paired_regret']:6.2f} %, {row['cpu_s']:.2f} s CPU, x={x}",
                          flush=True)
    df = pd.DataFrame(rows)
    if args.out is not None:
        df.to_csv(args.out, index=False)
    summary = df.groupby(["dgp", "lam"]).agg(
        reps=("rep", "size"),
        regret_med=("regret", "median"),
        regret_max=("regret", "max"),
        paired_med=("paired_regret", "median"),
        paired_max=("paired_regret", "max"),
        paired_min=("paired_regret", "min"),
        floor_max=("ref_regret", "max"),
        cpu_med=("cpu_s", "median"),
        cpu_min=("cpu_s", "min"),
        cpu_max=("cpu_s", "max"),
        wall_med=("wall_s", "median"),
        wall_min=("wall_s", "min"),
        wall_max=("wall_s", "max"),
        draws_max=("draws", "max"),
    )
    with pd.option_context("display.width", 200, "display.precision", 2):
        print(f"saa-ps, budget {args.budget}, overrides {overrides or 'none'}, "
              f"{args.n_eval}-draw precise evaluation; regret in % of J*")
        print(summary.to_string())
    return df


if __name__ == "__main__":
    main()
