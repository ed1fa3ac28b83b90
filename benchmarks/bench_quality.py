"""Quality of methods against budget, judged by the worst replication (the tuning bench).

For every problem, lam, budget, method configuration and replication: run the method under a
fresh oracle (streams named as the runner names them), then score its x*:

* a benchmark (``dgp1``, ``dgp2``, also ``dgp1:sample_only``): the paired regret
  100 (J(x*) - J(x_ref)) / J*, both estimated on the replication's precise sample
  (``--n-eval`` draws), with x_ref and J* from ``results/reference/reference.parquet``;
* a library problem (exact optimum): the normalised gap 100 (J(x*) - J*) / (J(x0) - J*);
* a user's problem (``shop:Shop`` and ``depot:Depot`` of ``benchmarks/users``) or a SimOpt
  problem (``simopt:SAN-1``): the normalised gap 100 (J(x*) - J(x_ref)) / (J(x0) - J(x_ref)),
  all three on the replication's precise sample (common random numbers), with x_ref from
  ``benchmarks/users/reference`` or SimOpt's best found (``results/simopt_reference``).

Prints, per (problem, lam, budget, configuration): the median, 75 % quantile and worst score,
the replication of the worst, the share of the budget drawn, the median share of each oracle
phase, and the CPU seconds. Replications run in parallel (``--n-jobs``).

    .venv/bin/python benchmarks/bench_quality.py --methods auto astro --budgets 13000 26000 \\
        --problems dgp1 dgp2 --reps 10
    .venv/bin/python benchmarks/bench_quality.py --methods auto --problems shop:Shop \\
        --budgets 2000 20000 150000 --reps 10
    .venv/bin/python benchmarks/bench_quality.py --methods "saa-ps polish_share=0" ...
    .venv/bin/python benchmarks/bench_quality.py --methods auto --problems shop:Shop \\
        --budgets 20000 --reps 1 --first-rep 7 --trace      # every oracle call of one run

A configuration is a method name followed by ``key=value`` overrides, in one argument.
``--lams`` applies to every problem but the benchmarks (lam 0.7, their reference optima's)
and the users' problems (each its own: the shop 0.7 at alpha 0.95, the depot 0.5 at 0.9).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

ROOT = Path(__file__).resolve().parent.parent
USERS = ROOT / "benchmarks" / "users"
BENCHMARKS = ("dgp1", "dgp2")
#: The risk settings of the users' problems: each its own (a user brings them).
USER_RISK = {"shop:Shop": (0.7, 0.95), "depot:Depot": (0.5, 0.9)}


def _value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_config(text: str) -> tuple[str, dict]:
    name, *items = text.split()
    return name, {k: _value(v) for k, v in (item.split("=", 1) for item in items)}


def parse_problem(text: str) -> tuple[str, dict]:
    """``name``, ``name:key=value,key=value`` (``sample_only`` among the keys), an import
    path ``module:Class`` of ``benchmarks/users`` or ``simopt:ABBR``."""
    if text in USER_RISK or text.startswith("simopt:"):
        return text, {}
    name, _, rest = text.partition(":")
    params = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        params[key] = _value(value) if value else True
    return name, params


def risk_settings(problem_text: str, lams: list[float], alpha: float) -> list[tuple]:
    if problem_text in USER_RISK:
        return [USER_RISK[problem_text]]
    if parse_problem(problem_text)[0] in BENCHMARKS:
        return [(0.7, alpha)]
    return [(lam, alpha) for lam in lams]


def _reference(pname: str, lam: float, alpha: float):
    from acfs_cli.experiment.reference import read_references, reference_row

    folder = (USERS / "reference" if pname in USER_RISK else ROOT / "results" / (
        "simopt_reference" if pname.startswith("simopt:") else "reference"))
    row = reference_row(read_references(folder / "reference.parquet"), pname, lam, alpha)
    if row is None:
        raise SystemExit(f"no reference optimum of {pname} at lam {lam:g}, alpha {alpha:g} "
                         f"in {folder}")
    return row


def score(problem, pname: str, x: np.ndarray, lam: float, alpha: float, rep: int, seed: int,
          n_eval: int, raw: bool = False) -> float:
    """The replication's score of ``x`` (see the module's docstring); with ``raw``, J(x) on
    the replication's precise sample (a problem without a reference optimum)."""
    from acfs_cli.experiment.evaluate import evaluate_precise, precise_stream
    from acfs_cli.experiment.reference import decision

    if raw:
        return evaluate_precise(problem, x, lam, alpha, n=n_eval,
                                rng=precise_stream(seed, pname, rep))["J_true"]
    if problem.has_exact:
        x_star, j_star = problem.optimum(lam, alpha)
        j = problem.exact_J(x, lam, alpha)
        j0 = problem.exact_J(problem.x0, lam, alpha)
        return 100 * (j - j_star) / (j0 - j_star)
    ref = _reference(pname, lam, alpha)

    def J(z):
        return evaluate_precise(problem, z, lam, alpha, n=n_eval,
                                rng=precise_stream(seed, pname, rep))["J_true"]
    j, j_ref = J(x), J(decision(ref))
    if pname in BENCHMARKS:
        return 100 * (j - j_ref) / float(ref["J_star"])
    return 100 * (j - j_ref) / (J(problem.x0) - j_ref)


class Trace:
    """Every oracle call of one run: phase, decisions, rows, draws so far (``--trace``)."""

    calls: list[dict] = []

    @classmethod
    def oracle(cls):
        from acfs_cli.core.oracle import Oracle

        class TracedOracle(Oracle):
            __slots__ = ()

            def draw_common(self, X, sample):
                out = super().draw_common(X, sample)
                X = np.atleast_2d(np.asarray(X, dtype=float))
                cls.calls.append({"phase": self._phase, "decisions": len(X), "rows": sample.n,
                                  "used": self.used, "x": np.round(X[0], 4).tolist()})
                return out

            def draw_batch(self, X, n_each=1, *, antithetic=False):
                out = super().draw_batch(X, n_each, antithetic=antithetic)
                X = np.atleast_2d(np.asarray(X, dtype=float))
                cls.calls.append({"phase": self._phase, "decisions": len(X), "rows": n_each,
                                  "used": self.used, "x": np.round(X[0], 4).tolist()})
                return out

        return TracedOracle


def run_one(config: str, problem_text: str, lam: float, alpha: float, budget: int, rep: int,
            seed: int, n_eval: int, trace: bool = False, raw: bool = False) -> dict:
    from threadpoolctl import threadpool_limits

    from acfs_cli.common.seeding import stream
    from acfs_cli.core.oracle import Oracle
    from acfs_cli.core.task import Task
    from acfs_cli.methods import get_method
    from acfs_cli.methods.base import BudgetTooSmall
    from acfs_cli.problems import get_problem

    sys.path.insert(0, str(USERS))
    name, overrides = parse_config(config)
    pname, params = parse_problem(problem_text)
    problem = get_problem(pname, **params)
    method = get_method(name)
    task = Task.from_problem(problem, lam, alpha)
    names = (pname, rep, name)
    oracle = (Trace.oracle() if trace else Oracle)(problem, budget,
                                                    stream(seed, "oracle", *names))
    row = {"config": config, "problem": problem_text, "lam": lam, "budget": budget,
           "rep": rep}
    try:
        with threadpool_limits(1):
            cpu0 = time.process_time()
            result = method(task, oracle, stream(seed, "method", *names), overrides)
            cpu = time.process_time() - cpu0
    except BudgetTooSmall:
        return {**row, "score": np.nan}
    row.update(draws=result.oracle_draws / budget, cpu_s=cpu,
               chosen=result.info.get("chosen", name), stop=result.stop_reason,
               phases={k: v["draws"] / budget for k, v in result.account.items()},
               x=np.round(result.x, 4).tolist(),
               notes=" | ".join(result.notes),
               score=score(problem, pname, result.x, lam, alpha, rep, seed, n_eval, raw))
    if trace:
        row["calls"] = list(Trace.calls)
        row["trajectory"] = [(d, score(problem, pname, x, lam, alpha, rep, seed, n_eval), v)
                             for d, x, v in result.trajectory]
        row["info"] = result.info
    return row


def phase_shares(rows: pd.Series) -> str:
    """The median share of the budget each phase drew, largest first."""
    table = pd.DataFrame(list(rows)).fillna(0.0)
    med = table.median().sort_values(ascending=False)
    return " ".join(f"{k} {100 * v:.0f}" for k, v in med.items() if v >= 0.005)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    ok = df.dropna(subset=["score"])
    groups = ok.groupby(["problem", "lam", "budget", "config"], sort=False)
    return groups.apply(lambda g: pd.Series({
        "reps": len(g), "median": g["score"].median(), "q75": g["score"].quantile(0.75),
        "worst": g["score"].max(), "worst_rep": int(g.loc[g["score"].idxmax(), "rep"]),
        "drawn%": 100 * g["draws"].median(), "chosen": "/".join(sorted(set(g["chosen"]))),
        "phases %": phase_shares(g["phases"]), "cpu": g["cpu_s"].median()}),
        include_groups=False)


def print_trace(row: dict) -> None:
    print(f"{row['config']} on {row['problem']} at {row['budget']:,} draws, rep {row['rep']}: "
          f"score {row['score']:.2f}, stop {row['stop']!r}, x = {row['x']}")
    for note in filter(None, row["notes"].split(" | ")):
        print("  note:", note)
    print("  oracle calls (phase, decisions x rows, draws so far, first decision):")
    for c in row["calls"]:
        print(f"    {c['phase']:>10} {c['decisions']:>4} x {c['rows']:>6} "
              f"{c['used']:>8,}  {c['x']}")
    print("  incumbents (draws, score, the method's value):")
    for d, s, v in row["trajectory"]:
        print(f"    {d:>8,} {s:8.2f} {v:12.5g}")
    print("  info:", json.dumps(row["info"], default=str)[:3000])


def main(argv: list[str] | None = None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", nargs="+", default=["auto"])
    ap.add_argument("--problems", nargs="+", default=["dgp1", "dgp2"])
    ap.add_argument("--budgets", nargs="+", type=int, default=[260_000])
    ap.add_argument("--lams", nargs="+", type=float, default=[0.7])
    ap.add_argument("--alpha", type=float, default=0.95)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--first-rep", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-eval", type=int, default=None,
                    help="precise draws of a score (default: 200,000 on the benchmarks, "
                    "100,000 on the users' problems, 1,000 on SimOpt's)")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--trace", action="store_true", help="print every oracle call of each run")
    ap.add_argument("--raw", action="store_true", help="score by J(x) on the replication's "
                    "precise sample (a problem without a reference optimum)")
    ap.add_argument("--out", type=Path, default=None, help="CSV of every run")
    args = ap.parse_args(argv)

    def n_eval(p: str) -> int:
        if args.n_eval is not None:
            return args.n_eval
        return 1_000 if p.startswith("simopt:") else 100_000 if p in USER_RISK else 200_000

    jobs = [delayed(run_one)(c, p, lam, alpha, b, r, args.seed, n_eval(p), args.trace,
                             args.raw)
            for p in args.problems for lam, alpha in risk_settings(p, args.lams, args.alpha)
            for b in args.budgets for c in args.methods
            for r in range(args.first_rep, args.first_rep + args.reps)]
    rows = Parallel(n_jobs=args.n_jobs)(jobs)
    if args.trace:
        for row in rows:
            print_trace(row)
    df = pd.DataFrame(rows)
    if args.out is not None:
        df.drop(columns=["calls", "trajectory", "info"], errors="ignore").to_csv(
            args.out, index=False)
    with pd.option_context("display.width", 250, "display.precision", 2,
                           "display.max_colwidth", 90, "display.max_rows", 500):
        print(summary(df).to_string())
    return df


if __name__ == "__main__":
    main()
