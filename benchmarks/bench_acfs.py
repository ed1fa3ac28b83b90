"""ACFS: quality, draws, wall time and per-phase profile (paper Sections 2.3, 4.3, 5).

Examples (from the repository root)::

    # quality on both DGPs at lambda 0.5/0.7/0.9, 10 replications, both protocols
    .venv/bin/python benchmarks/bench_acfs.py quality --reps 10
    # the literal cached-W reading of phase 4 (or the pathwise rule) against the default 'crn'
    .venv/bin/python benchmarks/bench_acfs.py quality --reps 10 --lam 0.7 --set gradient=cached-w
    # L-BFGS-B iterations, message and draws of every phase-4 start, per replication
    .venv/bin/python benchmarks/bench_acfs.py starts --reps 10 --lam 0.7
    # ablation variants at lambda 0.7
    .venv/bin/python benchmarks/bench_acfs.py quality --reps 10 --lam 0.7 --method acfs-noaug
    # median wall / CPU time per replication on one core, draws used, per-phase split
    .venv/bin/python benchmarks/bench_acfs.py timing --reps 5
    # cProfile of one replication: the hottest functions
    .venv/bin/python benchmarks/bench_acfs.py profile --dgp dgp1
    # where ACFS gains and loses: forest ranking, stage 2, phase 4, regret at each stage
    .venv/bin/python benchmarks/bench_acfs.py diagnose --reps 10 --lam 0.7

Seeds follow the experiment runner (``acfs_cli.experiment.runner``): the oracle and the method get
``stream(seed, "oracle" | "method", dgp, rep, method)``; the final 2,000-draw pool is
``final_pool(seed, dgp, rep)`` (the paper's protocol) and the precise estimate uses
``evaluate_precise`` with 200,000 draws on ``precise_stream(seed, dgp, rep)``. The paper's
medians are medians of 2,000-draw estimates, which are noisy and skewed low on DGP1, so both
protocols are reported.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The paper's ACFS medians of J (Table "results_compact"), 2,000-draw protocol.
PAPER_MEDIANS = {
    ("dgp1", 0.5): 141_747, ("dgp1", 0.7): 187_260, ("dgp1", 0.9): 233_910,
    ("dgp2", 0.5): 263_935, ("dgp2", 0.7): 340_990, ("dgp2", 0.9): 429_811,
}


def parse_overrides(items: list[str]) -> dict:
    """``key=value`` pairs; values parsed as JSON when possible (numbers, true/false)."""
    out = {}
    for item in items:
        key, _, raw = item.partition("=")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def run_one(dgp: str, lam: float, rep: int, method: str, overrides: dict, seed: int,
            budget: int, precise: int, profile: bool = False) -> dict:
    """One replication: the method under the oracle, then both evaluations (not counted)."""
    from threadpoolctl import threadpool_limits

    from acfs_cli.common.seeding import stream
    from acfs_cli.core.oracle import Oracle
    from acfs_cli.core.task import Task
    from acfs_cli.experiment.evaluate import evaluate, evaluate_precise, final_pool, precise_stream
    from acfs_cli.methods.acfs import ACFS_METHODS
    from acfs_cli.problems import get_problem

    methods = {m.name: m for m in ACFS_METHODS}
    problem = get_problem(dgp)
    task = Task.from_problem(problem, lam, 0.95)
    names = (dgp, rep, method)
    oracle = Oracle(problem, budget, stream(seed, "oracle", *names))
    prof = cProfile.Profile() if profile else None
    with threadpool_limits(1):
        cpu0, wall0 = time.process_time(), time.perf_counter()
        if prof is not None:
            prof.enable()
        result = methods[method](task, oracle, stream(seed, "method", *names), overrides)
        if prof is not None:
            prof.disable()
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    row = {"dgp": dgp, "lam": lam, "rep": rep, "method": method, "wall_s": wall, "cpu_s": cpu,
           "draws": result.oracle_draws, "value": result.value,
           "stopped": result.stopped_by_budget, "x": result.x.tolist(),
           "phase_time": {k: v.get("time_s", 0.0) for k, v in result.info["phases"].items()},
           "phase_cpu": {k: v.get("cpu_s", 0.0) for k, v in result.info["phases"].items()},
           "phase_draws": result.account}
    p4 = result.info["phases"].get("phase4", {})
    row["phase4_fn_calls"] = p4.get("fn_calls", 0)
    row["phase4_starts"] = p4.get("n_starts", 0)
    row["phase4_time"] = p4.get("time_s", 0.0)
    row["starts"] = [{k: st[k] for k in ("nit", "nfev", "message", "value", "draws")}
                     for st in p4.get("starts", [])]
    pool = final_pool(seed, dgp, rep, 2000, problem.dim_w)
    row["J2000"] = evaluate(problem, result.x, pool, lam, 0.95, n_boot=0)["J"]
    if precise:
        row["J_true"] = evaluate_precise(problem, result.x, lam, 0.95, n=precise,
                                         rng=precise_stream(seed, dgp, rep))["J_true"]
        ref = _reference(dgp, lam)
        if ref is not None:
            # The reference minimiser on the same normals: the paired regret cancels most of
            # the sampling error of J_true (an SE near 1 % on DGP1 at 200,000 draws).
            j_ref = evaluate_precise(problem, ref[0], lam, 0.95, n=precise,
                                     rng=precise_stream(seed, dgp, rep))["J_true"]
            row["regret"] = 100 * (row["J_true"] / ref[1] - 1)
            row["paired_regret"] = 100 * (row["J_true"] - j_ref) / ref[1]
    if prof is not None:
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(35)
        row["profile"] = buf.getvalue()
    return row


def _reference(dgp: str, lam: float) -> tuple[np.ndarray, float] | None:
    """(x_ref, J*) of ``results/reference/reference.parquet``, or None without it."""
    from acfs_cli.experiment.reference import decision, read_references, reference_row

    path = ROOT / "results" / "reference" / "reference.parquet"
    if not path.exists():
        return None
    row = reference_row(read_references(path), dgp, lam, 0.95)
    if row is None:
        return None
    return decision(row), float(row["J_star"])


def _grid(args) -> list[tuple]:
    return [(dgp, lam, rep) for dgp in args.dgp for lam in args.lam for rep in range(args.reps)]


def _run_grid(args, overrides: dict) -> list[dict]:
    from joblib import Parallel, delayed

    cells = _grid(args)
    return Parallel(n_jobs=args.jobs, verbose=0)(
        delayed(run_one)(dgp, lam, rep, args.method, overrides, args.seed, args.budget,
                         args.precise)
        for dgp, lam, rep in cells
    )


def cmd_quality(args) -> None:
    overrides = parse_overrides(args.set)
    rows = _run_grid(args, overrides)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    print(f"method {args.method}  overrides {overrides}  reps {args.reps}  seed {args.seed}")
    print(f"{'dgp':5s} {'lam':>4s} {'paper':>9s} {'med J2000':>10s} {'gap%':>6s} "
          f"{'med J_true':>10s} {'gap%':>6s} {'95% CI of median':>19s} {'IQR J_true':>19s} "
          f"{'draws':>8s} {'wall':>6s} {'regret% med/max':>16s} {'paired% med/max':>16s} "
          f"{'nit/start':>12s}")
    for dgp in args.dgp:
        for lam in args.lam:
            sel = [r for r in rows if r["dgp"] == dgp and r["lam"] == lam]
            j2 = np.median([r["J2000"] for r in sel])
            jt = np.array([r.get("J_true", np.nan) for r in sel])
            paper = PAPER_MEDIANS[(dgp, lam)]
            q1, q3 = np.percentile(jt, [25, 75])
            boot = np.random.default_rng(0).choice(jt, size=(2000, len(jt)))
            lo, hi = np.percentile(np.median(boot, axis=1), [2.5, 97.5])
            print(f"{dgp:5s} {lam:4.1f} {paper:9,d} {j2:10,.0f} {100 * (j2 / paper - 1):+6.1f} "
                  f"{np.median(jt):10,.0f} {100 * (np.median(jt) / paper - 1):+6.1f} "
                  f"[{lo:8,.0f};{hi:8,.0f}] [{q1:8,.0f};{q3:8,.0f}] "
                  f"{np.median([r['draws'] for r in sel]):8,.0f} "
                  f"{np.median([r['wall_s'] for r in sel]):6.2f} "
                  f"{_med_max(sel, 'regret'):>16s} {_med_max(sel, 'paired_regret'):>16s} "
                  f"{_nit(sel):>12s}")


def _nit(rows: list[dict]) -> str:
    """Median [min-max] L-BFGS-B iterations per phase-4 start over all starts of ``rows``."""
    nit = [st["nit"] for r in rows for st in r.get("starts", [])]
    return f"{np.median(nit):.1f} [{min(nit)}-{max(nit)}]" if nit else "-"


def cmd_starts(args) -> None:
    """Every phase-4 start: its iterations, how it ended, its fn value and its draws.

    What L-BFGS-B does in phase 4 under a gradient rule: how many starts fit in the draws
    phases 1-3 leave, how many iterations each makes and whether it converged, hit the budget
    or failed in a line search ("ABNORMAL"). No evaluation of x* (``--precise 0`` implied).
    """
    overrides = parse_overrides(args.set)
    args.precise = 0
    rows = _run_grid(args, overrides)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    print(f"method {args.method}  overrides {overrides}  reps {args.reps}  seed {args.seed}")
    for dgp in args.dgp:
        for lam in args.lam:
            sel = [r for r in rows if r["dgp"] == dgp and r["lam"] == lam]
            for r in sel:
                print(f"{dgp} {lam:.1f} rep {r['rep']:3d}  draws {r['draws']:,}  phase 4 "
                      f"{r['phase4_time']:.2f} s  starts {len(r['starts'])}  nit "
                      f"{[st['nit'] for st in r['starts']]}")
            ends = {}
            for st in (st for r in sel for st in r["starts"]):
                key = st["message"].split(":")[0].strip() or "-"
                ends[key] = ends.get(key, 0) + 1
            first = [r["starts"][0]["nit"] for r in sel if r["starts"]]
            print(f"{dgp} {lam:.1f}: nit per start {_nit(sel)}, first start "
                  f"{np.median(first):.1f}, starts per replication "
                  f"{np.median([len(r['starts']) for r in sel]):.1f} "
                  f"[{min(len(r['starts']) for r in sel)}-{max(len(r['starts']) for r in sel)}], "
                  f"draws {np.median([r['draws'] for r in sel]):,.0f}, phase 4 "
                  f"{np.median([r['phase4_time'] for r in sel]):.2f} s; ends {ends}")


def _med_max(rows: list[dict], key: str) -> str:
    v = np.array([r.get(key, np.nan) for r in rows], dtype=float)
    if np.isnan(v).all():
        return "-"
    return f"{np.nanmedian(v):+.2f} / {np.nanmax(v):+.2f}"


def cmd_timing(args) -> None:
    """Replications one after another in this process (one core, BLAS pinned to 1 thread).

    CPU time (``time.process_time``) is reported beside wall time: on a shared machine the
    wall clock also counts the waits for a core.
    """
    overrides = parse_overrides(args.set)
    cells = _grid(args)
    run_one(cells[0][0], cells[0][1], 99, args.method, overrides, args.seed, args.budget, 0)
    rows = [run_one(dgp, lam, rep, args.method, overrides, args.seed, args.budget, 0)
            for dgp, lam, rep in cells]
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    for dgp in args.dgp:
        sel = [r for r in rows if r["dgp"] == dgp]
        wall = np.median([r["wall_s"] for r in sel])
        cpu = np.median([r["cpu_s"] for r in sel])
        print(f"{dgp}: {len(sel)} replications; median wall {wall:.2f} s, median CPU {cpu:.2f} s, "
              f"median draws {np.median([r['draws'] for r in sel]):,.0f}, median phase-4 fn "
              f"calls {np.median([r['phase4_fn_calls'] for r in sel]):.0f}")
        print(f"  {'phase':8s} {'wall s':>7s} {'CPU s':>7s} {'draws':>8s}")
        names = list(sel[0]["phase_time"])
        names += [p for p in sel[0]["phase_draws"] if p not in names]  # oracle-only phases
        for p in names:
            print(f"  {p:8s} {np.median([r['phase_time'].get(p, 0.0) for r in sel]):7.3f} "
                  f"{np.median([r['phase_cpu'].get(p, 0.0) for r in sel]):7.3f} "
                  f"{np.median([r['phase_draws'].get(p, {}).get('draws', 0) for r in sel]):8,.0f}")


def _true_values(problem, X: np.ndarray, lam: float, z: np.ndarray, chunk: int = 24):
    """J of each row of X on the same normals z (common random numbers across the rows)."""
    from acfs_cli.core.risk import spectral_risk

    out = []
    for i in range(0, len(X), chunk):
        P = X[i : i + chunk]
        W = problem.transform_batch(P, np.broadcast_to(z, (len(P), *z.shape)))
        out.append(spectral_risk(problem.cost(W, P), lam, 0.95)[0])
    return np.concatenate(out)


def diagnose_one(dgp: str, lam: float, rep: int, method: str, overrides: dict, seed: int,
                 budget: int, n_truth: int) -> dict:
    """Where one ACFS replication gains and loses, each point measured on common normals."""
    from scipy.stats import spearmanr

    from acfs_cli.common.seeding import stream
    from acfs_cli.core.oracle import Oracle
    from acfs_cli.core.task import Task
    from acfs_cli.methods.acfs import ACFS_METHODS
    from acfs_cli.problems import get_problem

    problem = get_problem(dgp)
    task = Task.from_problem(problem, lam, 0.95)
    names = (dgp, rep, method)
    oracle = Oracle(problem, budget, stream(seed, "oracle", *names))
    result = {m.name: m for m in ACFS_METHODS}[method](
        task, oracle, stream(seed, "method", *names), overrides)
    ph = result.info["phases"]
    z = stream(seed, "diagnose", dgp, rep).standard_normal((n_truth, problem.dim_w))
    ref = _reference(dgp, lam)
    pool = np.array(ph["stage1"]["candidates"])
    scores = np.array(ph["stage1"]["scores"])
    starts = ph.get("phase4", {}).get("starts", [])
    points = {"cem best": ph["cem"]["best_x"], "forest top-1": pool[np.argmin(scores)],
              "stage-2 top-1": ph["stage2"]["x"][0], "x*": result.x}
    if ref is not None:
        points["reference"] = ref[0]
    named = np.array(list(points.values()), dtype=float)
    X = np.vstack([pool, named] + ([np.array([st["x0"] for st in starts]),
                                    np.array([st["x"] for st in starts])] if starts else []))
    J = _true_values(problem, X, lam, z)
    j_pool, j_named = J[: len(pool)], J[len(pool) : len(pool) + len(named)]
    base = j_named[-1] if ref is not None else np.min(J)
    row = {"dgp": dgp, "lam": lam, "rep": rep,
           "spearman": float(spearmanr(scores, j_pool)[0]),
           "pool best": 100 * (j_pool.min() / base - 1),
           "forest rank of pool best": int(np.argsort(np.argsort(scores))[np.argmin(j_pool)]) + 1}
    for k, v in zip(points, j_named, strict=True):
        row[k] = 100 * (v / base - 1)
    row["stage 2 changed top-1"] = not np.allclose(points["forest top-1"],
                                                   points["stage-2 top-1"])
    if starts:
        n = len(starts)
        j0, j1 = J[-2 * n : -n], J[-n:]
        moved = [not np.allclose(st["x0"], st["x"]) for st in starts]
        row.update({"starts": n, "moved %": 100 * np.mean(moved),
                    "improved %": 100 * np.mean(j1 < j0 - 1e-9),
                    "median nit": float(np.median([st["nit"] for st in starts]))})
    return row


def cmd_diagnose(args) -> None:
    """Forest ranking, stage 2, phase 4 and regret at each stage, on common normals.

    Regrets are in % of J at the reference minimiser on the *same* ``--truth`` normals
    (paired), so they are not moved by the sampling error of the truth itself.
    """
    from joblib import Parallel, delayed

    overrides = parse_overrides(args.set)
    rows = Parallel(n_jobs=args.jobs)(
        delayed(diagnose_one)(dgp, lam, rep, args.method, overrides, args.seed, args.budget,
                              args.truth)
        for dgp, lam, rep in _grid(args))
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1, default=float))
    keys = [k for k in rows[0] if k not in ("dgp", "lam", "rep")]
    print(f"method {args.method}, {args.reps} replications, truth on {args.truth:,} common "
          "normals; paired regret in % of J(reference); medians [max] over replications")
    for dgp in args.dgp:
        for lam in args.lam:
            sel = [r for r in rows if r["dgp"] == dgp and r["lam"] == lam]
            print(f"{dgp} lambda {lam}:")
            for k in keys:
                v = np.array([float(r.get(k, np.nan)) for r in sel])
                print(f"  {k:26s} median {np.nanmedian(v):8.2f}   max {np.nanmax(v):8.2f}"
                      f"   mean {np.nanmean(v):8.2f}")


def cmd_profile(args) -> None:
    overrides = parse_overrides(args.set)
    row = run_one(args.dgp[0], args.lam[0], 0, args.method, overrides, args.seed, args.budget,
                  0, profile=True)
    print(f"wall {row['wall_s']:.2f} s, CPU {row['cpu_s']:.2f} s, draws {row['draws']:,}")
    print("phase times (s):", {k: round(v, 3) for k, v in row["phase_time"].items()})
    print(row["profile"])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["quality", "timing", "profile", "diagnose", "starts"])
    ap.add_argument("--dgp", nargs="+", default=["dgp1", "dgp2"])
    ap.add_argument("--lam", nargs="+", type=float, default=[0.5, 0.7, 0.9])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--method", default="acfs")
    ap.add_argument("--set", nargs="*", default=[], help="settings overrides key=value")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=int, default=260_000)
    ap.add_argument("--precise", type=int, default=200_000, help="draws of the precise J")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", help="write the per-replication rows as JSON")
    ap.add_argument("--truth", type=int, default=20_000,
                    help="diagnose: common normals of the true J of every candidate")
    args = ap.parse_args(argv)
    {"quality": cmd_quality, "timing": cmd_timing, "profile": cmd_profile,
     "diagnose": cmd_diagnose, "starts": cmd_starts}[args.command](args)


if __name__ == "__main__":
    main()
