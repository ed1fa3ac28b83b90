"""Quality at small budgets: astro against saa-ps and sgd-cvar, from 10 draws per dimension up.

Every run goes through ``acfs_cli.api.minimize(problem, lam=..., budget=..., method=...,
seed=...)``, one seed per replication, and is scored

* on a library problem (exact J and optimum): by the normalised gap
  100 (J(x*) - J*) / (J(x0) - J*), x0 the problem's stated starting decision;
* on the benchmarks (``dgp1``, ``dgp2``, no x0, no exact J, lam 0.7 only): by the paired
  regret 100 (J(x*) - J(x_ref)) / |J*|, both on the replication's precise sample of
  ``--n-eval`` draws, with x_ref and J* from ``results/reference/reference.parquet``.

A method that refuses a budget (``BudgetTooSmall``) shows ``-``. Budgets are given per
dimension (``10d``, ``100d``, ``1000d``) or absolute (``26000``); the benchmarks run at the
absolute ones only. The table gives the median / worst replication per problem, lam and
budget, then the median CPU seconds of one run per method and budget.

Until the task carries the problem's starting decision (``Task.x0``), this script hands it
to ``minimize``'s task itself, so astro starts from the x0 the gap is measured against; the
other methods ignore it. ``--gradient`` adds astro with the pathwise cost gradients of two
library problems (``task.gradient``, a member the task does not have yet), run through the
method directly.

    .venv/bin/python benchmarks/bench_small_budget.py --reps 10 --out /tmp/small.csv
    .venv/bin/python benchmarks/bench_small_budget.py --problems price-newsvendor \\
        --budgets 10d 100d --methods astro --reps 20
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent

LIBRARY = ["price-newsvendor", "erlang-a", "huff-location", "strategic-classification",
           "impact-portfolio", "performative-pricing:dim=13", "tandem-mm1"]
BENCHMARKS = ["dgp1", "dgp2"]
METHODS = ["astro", "saa-ps", "sgd-cvar"]
BUDGETS = ["10d", "100d", "1000d", "26000", "260000"]
BENCHMARK_BUDGETS = [13_000, 26_000]


def parse_problem(text: str) -> tuple[str, dict]:
    """``name`` or ``name:key=value,...`` (integer values)."""
    name, _, rest = text.partition(":")
    params = {k: int(v) for k, v in (item.split("=") for item in filter(None, rest.split(",")))}
    return name, params


def budget_of(text: str, dim: int) -> int:
    return int(text[:-1]) * dim if text.endswith("d") else int(text)


@contextlib.contextmanager
def task_with_x0():
    """``minimize``'s task with the problem's x0, where the core's Task has no x0 yet."""
    from acfs_cli import api
    from acfs_cli.core.problem import as_problem
    from acfs_cli.core.task import Task

    if "x0" in Task.__dataclass_fields__:
        yield
        return

    @dataclass(frozen=True)
    class TaskX0(Task):
        x0: np.ndarray | None = None

        @classmethod
        def from_problem(cls, problem, lam, alpha):
            base = Task.from_problem(problem, lam, alpha)
            x0 = getattr(as_problem(problem), "x0", None)
            return cls(**{f: getattr(base, f) for f in Task.__dataclass_fields__},
                       x0=None if x0 is None else np.asarray(x0, dtype=float))

    with mock.patch.object(api, "Task", TaskX0):
        yield


def score(problem, pname: str, x: np.ndarray, lam: float, alpha: float, rep: int, seed: int,
          n_eval: int) -> float:
    if problem.has_exact:
        _, j_star = problem.optimum(lam, alpha)
        j0 = problem.exact_J(problem.x0, lam, alpha)
        return 100 * (problem.exact_J(x, lam, alpha) - j_star) / (j0 - j_star)
    from acfs_cli.experiment.evaluate import evaluate_precise, precise_stream
    from acfs_cli.experiment.reference import decision, read_references, reference_row

    ref = reference_row(read_references(ROOT / "results/reference/reference.parquet"),
                        pname, lam, alpha)
    if ref is None:
        return float("nan")
    est = evaluate_precise(problem, x, lam, alpha, n=n_eval, rng=precise_stream(seed, pname,
                                                                                 rep))
    est_ref = evaluate_precise(problem, decision(ref), lam, alpha, n=n_eval,
                               rng=precise_stream(seed, pname, rep))
    return 100 * (est["J_true"] - est_ref["J_true"]) / abs(float(ref["J_star"]))


def run_one(method: str, problem_text: str, lam: float, alpha: float, budget_text: str,
            rep: int, seed: int, n_eval: int) -> dict:
    from threadpoolctl import threadpool_limits

    from acfs_cli.api import minimize
    from acfs_cli.methods.base import BudgetTooSmall
    from acfs_cli.problems import get_problem

    pname, params = parse_problem(problem_text)
    problem = get_problem(pname, **params)
    budget = budget_of(budget_text, problem.dim_x)
    row = {"method": method, "problem": problem_text, "lam": lam, "budget": budget_text,
           "draws_cap": budget, "rep": rep}
    try:
        with threadpool_limits(1), task_with_x0():
            cpu0, wall0 = time.process_time(), time.perf_counter()
            sol = minimize(problem, lam=lam, alpha=alpha, budget=budget, method=method,
                           seed=seed * 10_000 + rep, n_eval=2)
            row["cpu_s"] = time.process_time() - cpu0
            row["wall_s"] = time.perf_counter() - wall0
    except BudgetTooSmall:
        row["score"] = np.nan
        return row
    row.update(draws=sol.draws_used, stop=sol.stop_reason,
               score=score(problem, pname, sol.x, lam, alpha, rep, seed, n_eval))
    return row


# -- the simulator's gradient (astro only) --------------------------------------------------------
def pathwise_gradients() -> dict[str, Callable]:
    """Pathwise cost gradients d/dx C(W(x, z), x) of two library problems, from (W, x)."""
    from acfs_cli.problems.library import PerformativePricing, PriceNewsvendor

    pricing, news = PerformativePricing(dim=13), PriceNewsvendor()

    def pricing_gradient(W, x):  # W = mu0 - E x + L z, C = -(x - c) . W
        return -W + (pricing.E.T @ (x - pricing.unit_cost))[None, :]

    def newsvendor_gradient(W, x):  # D = (a - b p) eps, C = (c - s) q - (p - s) min(D, q)
        p, q = x
        D = W[:, 0]
        dp = -np.minimum(D, q) + (p - news.s) * news.slope * D / news.mean_demand(p) * (D < q)
        dq = (news.c - news.s) - (p - news.s) * (D >= q)
        return np.stack([dp, dq], axis=1)

    return {"price-newsvendor": newsvendor_gradient,
            "performative-pricing:dim=13": pricing_gradient}


def run_gradient(problem_text: str, lam: float, alpha: float, budget_text: str, rep: int,
                 seed: int) -> dict:
    from threadpoolctl import threadpool_limits

    from acfs_cli.common.seeding import stream
    from acfs_cli.core.oracle import Oracle
    from acfs_cli.core.task import Task
    from acfs_cli.methods import get_method
    from acfs_cli.problems import get_problem

    @dataclass(frozen=True)
    class TaskG(Task):
        x0: np.ndarray | None = None
        gradient: Callable | None = None

    pname, params = parse_problem(problem_text)
    problem = get_problem(pname, **params)
    budget = budget_of(budget_text, problem.dim_x)
    base = Task.from_problem(problem, lam, alpha)
    task = TaskG(**{f: getattr(base, f) for f in Task.__dataclass_fields__},
                 x0=np.asarray(problem.x0, dtype=float),
                 gradient=pathwise_gradients()[problem_text])
    names = (pname, rep, "astro-gradient")
    oracle = Oracle(problem, budget, stream(seed, "oracle", *names))
    with threadpool_limits(1):
        cpu0 = time.process_time()
        result = get_method("astro")(task, oracle, stream(seed, "method", *names))
        cpu = time.process_time() - cpu0
    return {"method": "astro+gradient", "problem": problem_text, "lam": lam,
            "budget": budget_text, "draws_cap": budget, "rep": rep, "cpu_s": cpu,
            "draws": result.oracle_draws, "stop": result.stop_reason,
            "score": score(problem, pname, result.x, lam, alpha, rep, seed, 0)}


# -- the table -------------------------------------------------------------------------------------
def _cell(s: pd.Series) -> str:
    s = s.dropna()
    if s.empty:
        return "-"
    return f"{np.median(s):.2f} / {np.max(s):.2f}"


def _budget_order() -> dict[str, int]:
    """Budgets per dimension, then absolute ones, each in increasing order."""
    names = {*BUDGETS, *map(str, BENCHMARK_BUDGETS)}
    ranked = sorted(names, key=lambda b: (not b.endswith("d"), int(b.rstrip("d"))))
    return {b: i for i, b in enumerate(ranked)}


def table(df: pd.DataFrame) -> str:
    """Median / worst per problem, lam and budget (rows) and method (columns), markdown."""
    methods = list(dict.fromkeys(df["method"]))
    order = _budget_order()
    keys = sorted({(p, lam, b) for p, lam, b in zip(df["problem"], df["lam"], df["budget"],
                                                     strict=True)},
                  key=lambda k: (list(dict.fromkeys(df["problem"])).index(k[0]), k[1],
                                 order.get(k[2], 99)))
    lines = ["| problem | lam | budget | draws | " + " | ".join(methods) + " |",
             "| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in methods) + " |"]
    for p, lam, b in keys:
        sub = df[(df["problem"] == p) & (df["lam"] == lam) & (df["budget"] == b)]
        cells = [_cell(sub[sub["method"] == m]["score"]) for m in methods]
        lines.append(f"| {p} | {lam:g} | {b} | {int(sub['draws_cap'].iloc[0]):,} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def cpu_table(df: pd.DataFrame) -> str:
    """Median and largest CPU seconds of one run, per method and budget."""
    ok = df.dropna(subset=["score"])
    rows = ["| method | budget | median CPU s | max CPU s |", "| --- | ---: | ---: | ---: |"]
    order = _budget_order()
    for (m, b), g in sorted(ok.groupby(["method", "budget"]),
                            key=lambda kv: (kv[0][0], order.get(kv[0][1], 99))):
        rows.append(f"| {m} | {b} | {g['cpu_s'].median():.3f} | {g['cpu_s'].max():.3f} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", nargs="+", default=METHODS)
    ap.add_argument("--problems", nargs="+", default=[*LIBRARY, *BENCHMARKS])
    ap.add_argument("--budgets", nargs="+", default=BUDGETS)
    ap.add_argument("--lams", nargs="+", type=float, default=[0.0, 0.7])
    ap.add_argument("--alpha", type=float, default=0.95)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-eval", type=int, default=200_000,
                    help="precise draws of the benchmarks' paired regret")
    ap.add_argument("--gradient", action="store_true",
                    help="also astro with the simulator's gradient where the script has one")
    ap.add_argument("--out", type=Path, default=None,
                    help="CSV of every run; rows already there are not run again")
    args = ap.parse_args(argv)

    done = pd.read_csv(args.out) if args.out is not None and args.out.exists() else None
    seen = set() if done is None else set(zip(done["method"], done["problem"], done["lam"],
                                              done["budget"].astype(str), done["rep"],
                                              strict=True))
    jobs = []
    for p in args.problems:
        bench = parse_problem(p)[0] in BENCHMARKS
        budgets = [str(b) for b in BENCHMARK_BUDGETS] if bench else args.budgets
        lams = [0.7] if bench else args.lams
        for lam in lams:
            for b in budgets:
                for m in args.methods:
                    jobs += [(m, p, lam, b, r) for r in range(args.reps)]
                if args.gradient and p in pathwise_gradients() and "astro" in args.methods:
                    jobs += [("astro+gradient", p, lam, b, r) for r in range(args.reps)]
    rows = [] if done is None else done.to_dict("records")
    for m, p, lam, b, r in jobs:
        if (m, p, lam, b, r) in seen:
            continue
        if m == "astro+gradient":
            row = run_gradient(p, lam, args.alpha, b, r, args.seed)
        else:
            row = run_one(m, p, lam, args.alpha, b, r, args.seed, args.n_eval)
        rows.append(row)
        if args.out is not None:
            pd.DataFrame(rows).to_csv(args.out, index=False)
    df = pd.DataFrame(rows)
    df["budget"] = df["budget"].astype(str)
    print("Normalised gap % (library) or paired regret % (dgp1, dgp2): median / worst of "
          f"{args.reps} replications\n")
    print(table(df))
    print("\nCPU seconds of one run\n")
    print(cpu_table(df))
    return df


if __name__ == "__main__":
    main()
