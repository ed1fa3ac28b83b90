"""Competitors (GP-BO, CEM-SO, SGD-CVaR): wall time, draws and quality per replication.

Examples (from the repository root)::

    # speed on one core and quality at lambda 0.7, 10 replications, both DGPs
    .venv/bin/python benchmarks/bench_methods.py --reps 10
    # one method, one DGP, no precise evaluation (timing only)
    .venv/bin/python benchmarks/bench_methods.py --methods gp-bo --dgp dgp1 --reps 5 --precise 0
    # a settings override, per method
    .venv/bin/python benchmarks/bench_methods.py --methods cem-so --set cem-so.crn=false

Every replication runs in this process, one after another, with BLAS and OpenMP pinned to
one thread (threadpoolctl): the times are one-core times. Wall time counts what the
scheduler gives to other processes on a shared machine; the CPU time (``thread_time``) does
not, so both are printed. Seeds follow the experiment runner (``acfs_cli.experiment.runner``): the
oracle and the method get ``stream(seed, "oracle" | "method", dgp, rep, method)``; the
paper's protocol number is the 2,000-draw estimate on ``final_pool(seed, dgp, rep)``, and the
true J is ``evaluate_precise`` with ``--precise`` draws on ``precise_stream(seed, dgp, rep)``
(paired across methods). The paper's medians are medians of noisy 2,000-draw estimates,
skewed low on DGP1, so both are printed beside the paper's median and SD (Table
"results_compact") and median draws (Table "budget", DGP1).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The paper's (median, SD) of J at lambda 0.7 (Table "results_compact", 2,000-draw protocol).
PAPER = {
    ("dgp1", "gp-bo"): (178_842, 38_294),
    ("dgp1", "cem-so"): (198_361, 30_500),
    ("dgp1", "sgd-cvar"): (218_659, 75_463),
    ("dgp1", "acfs"): (187_260, 20_623),
    ("dgp1", "kde-so"): (266_973, 237_362),
    ("dgp2", "gp-bo"): (370_213, 72_320),
    ("dgp2", "cem-so"): (385_170, 50_802),
    ("dgp2", "sgd-cvar"): (452_874, 140_107),
    ("dgp2", "acfs"): (340_990, 43_139),
    ("dgp2", "kde-so"): (580_007, 981_140),
}
#: The paper's median counted draws (Table "budget", DGP1, lambda 0.7).
PAPER_DRAWS = {"acfs": 254_725, "sgd-cvar": 259_860, "cem-so": 194_305, "gp-bo": 43_615,
               "kde-so": 2_600}
#: Speed targets per replication on one core, seconds.
TARGET_S = {"gp-bo": 6.0, "cem-so": 1.0, "sgd-cvar": 1.5}


def parse_overrides(items: list[str]) -> dict[str, dict]:
    """``method.key=value`` pairs -> {method: {key: value}}; values parsed as JSON if possible."""
    out: dict[str, dict] = {}
    for item in items:
        lhs, _, raw = item.partition("=")
        method, _, key = lhs.partition(".")
        if not key:
            raise SystemExit(f"override {item!r} must read method.key=value")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out.setdefault(method, {})[key] = value
    return out


def run_one(dgp: str, lam: float, rep: int, method: str, overrides: dict, seed: int,
            budget: int, precise: int) -> dict:
    """One replication: the method under the oracle, then both evaluations (not counted)."""
    from threadpoolctl import threadpool_limits

    from acfs_cli.common.seeding import stream
    from acfs_cli.core.oracle import Oracle
    from acfs_cli.core.task import Task
    from acfs_cli.experiment.evaluate import evaluate, evaluate_precise, final_pool, precise_stream
    from acfs_cli.methods.registry import get_method
    from acfs_cli.problems import get_problem

    problem = get_problem(dgp)
    task = Task.from_problem(problem, lam, 0.95)
    m = get_method(method)
    names = (dgp, rep, method)
    oracle = Oracle(problem, budget, stream(seed, "oracle", *names))
    with threadpool_limits(1):
        cpu0, wall0 = time.thread_time(), time.perf_counter()
        result = m(task, oracle, stream(seed, "method", *names), overrides)
        wall, cpu = time.perf_counter() - wall0, time.thread_time() - cpu0
    row = {"dgp": dgp, "lam": lam, "rep": rep, "method": method, "wall_s": wall, "cpu_s": cpu,
           "draws": result.oracle_draws, "value": result.value,
           "stopped": result.stopped_by_budget, "x": result.x.tolist(),
           "account": {k: v["draws"] for k, v in result.account.items()}}
    pool = final_pool(seed, dgp, rep, 2000, problem.dim_w)
    row["J2000"] = evaluate(problem, result.x, pool, lam, 0.95, n_boot=0)["J"]
    if precise:
        row["J_true"] = evaluate_precise(problem, result.x, lam, 0.95, n=precise,
                                         rng=precise_stream(seed, dgp, rep))["J_true"]
    return row


def _sd(values) -> float:
    return statistics.stdev(values) if len(values) > 1 else float("nan")


def print_table(rows: list[dict], args) -> None:
    print(f"lambda {args.lam}  budget {args.budget:,}  reps {args.reps}  seed {args.seed}  "
          f"precise draws {args.precise:,}")
    head = (f"{'dgp':5s} {'method':9s} {'wall med':>8s} {'min':>6s} {'max':>6s} {'cpu med':>7s} "
            f"{'target':>6s} {'draws':>8s} {'paper':>8s} {'J_true med':>10s} {'SD':>8s} "
            f"{'J2000 med':>10s} {'SD':>8s} {'paper med':>9s} {'SD':>8s} {'gap%':>6s}")
    print(head)
    print("-" * len(head))
    for dgp in args.dgp:
        for method in args.methods:
            sel = [r for r in rows if r["dgp"] == dgp and r["method"] == method]
            if not sel:
                continue
            wall = [r["wall_s"] for r in sel]
            jt = [r.get("J_true", np.nan) for r in sel]
            j2 = [r["J2000"] for r in sel]
            pm, psd = PAPER.get((dgp, method), (np.nan, np.nan))
            gap = 100 * (np.median(jt) / pm - 1) if args.precise else np.nan
            print(f"{dgp:5s} {method:9s} {np.median(wall):8.2f} {min(wall):6.2f} {max(wall):6.2f} "
                  f"{np.median([r['cpu_s'] for r in sel]):7.2f} "
                  f"{TARGET_S.get(method, np.nan):6.1f} "
                  f"{np.median([r['draws'] for r in sel]):8,.0f} "
                  f"{PAPER_DRAWS.get(method, 0):8,d} "
                  f"{np.median(jt):10,.0f} {_sd(jt):8,.0f} {np.median(j2):10,.0f} "
                  f"{_sd(j2):8,.0f} {pm:9,.0f} {psd:8,.0f} {gap:+6.1f}")
    print("gap% = median true J against the paper's median (of 2,000-draw estimates)")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", nargs="+", default=["gp-bo", "cem-so", "sgd-cvar"])
    ap.add_argument("--dgp", nargs="+", default=["dgp1", "dgp2"])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--lam", type=float, default=0.7)
    ap.add_argument("--precise", type=int, default=200_000,
                    help="draws of the precise J per replication (0: skip)")
    ap.add_argument("--set", nargs="*", default=[], help="overrides method.key=value")
    ap.add_argument("--seed", type=int, default=20240607)
    ap.add_argument("--budget", type=int, default=260_000)
    ap.add_argument("--out", help="write the per-replication rows as JSON")
    args = ap.parse_args(argv)
    overrides = parse_overrides(args.set)
    rows = []
    for dgp in args.dgp:
        for method in args.methods:
            for rep in range(args.reps):
                rows.append(run_one(dgp, args.lam, rep, method, overrides.get(method, {}),
                                    args.seed, args.budget, args.precise))
                r = rows[-1]
                print(f"  {dgp} {method} rep {rep}: wall {r['wall_s']:.2f} s, "
                      f"cpu {r['cpu_s']:.2f} s, draws {r['draws']:,}, "
                      f"J_true {r.get('J_true', float('nan')):,.0f}, J2000 {r['J2000']:,.0f}",
                      file=sys.stderr, flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    print_table(rows, args)


if __name__ == "__main__":
    main()
