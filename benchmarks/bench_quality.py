"""Quality of methods against budget, on the benchmarks and the library (the tuning bench).

For every problem, budget, method configuration and replication: run the method under a
fresh oracle (streams named as the runner names them), then score its x*:

* a benchmark (``dgp1``, ``dgp2``, also ``dgp1:sample_only``): the paired regret
  100 (J(x*) - J(x_ref)) / J*, both estimated on the replication's precise sample
  (``--n-eval`` draws), with x_ref and J* from ``results/reference/reference.parquet``;
* a library problem (exact optimum): the normalised gap 100 (J(x*) - J*) / (J(x0) - J*).

Prints the median and worst per (problem, budget, configuration), and the CPU seconds.

    .venv/bin/python benchmarks/bench_quality.py --methods saa-ps --budgets 13000 26000 \\
        --problems dgp1 dgp2 --reps 10
    .venv/bin/python benchmarks/bench_quality.py --methods saa-ps "saa-ps n_ps=1000" ...

A configuration is a method name followed by ``key=value`` overrides, in one argument.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

ROOT = Path(__file__).resolve().parent.parent


def _value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_config(text: str) -> tuple[str, dict]:
    name, *items = text.split()
    return name, {k: _value(v) for k, v in (item.split("=", 1) for item in items)}


def parse_problem(text: str) -> tuple[str, dict]:
    """``name`` or ``name:key=value,key=value`` (``sample_only`` among the keys)."""
    name, _, rest = text.partition(":")
    params = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        params[key] = _value(value) if value else True
    return name, params


def run_one(config: str, problem_text: str, lam: float, alpha: float, budget: int, rep: int,
            seed: int, n_eval: int) -> dict:
    from threadpoolctl import threadpool_limits

    from acfs_cli.core.oracle import Oracle
    from acfs_cli.core.seeding import stream
    from acfs_cli.core.task import Task
    from acfs_cli.experiment.evaluate import evaluate_precise, precise_stream
    from acfs_cli.experiment.reference import decision, read_references, reference_row
    from acfs_cli.methods import get_method
    from acfs_cli.problems import get_problem

    name, overrides = parse_config(config)
    pname, params = parse_problem(problem_text)
    problem = get_problem(pname, **params)
    method = get_method(name)
    task = Task.from_problem(problem, lam, alpha)
    names = (pname, rep, name)
    oracle = Oracle(problem, budget, stream(seed, "oracle", *names))
    with threadpool_limits(1):
        cpu0 = time.process_time()
        result = method(task, oracle, stream(seed, "method", *names), overrides)
        cpu = time.process_time() - cpu0
    row = {"config": config, "problem": problem_text, "budget": budget, "rep": rep,
           "draws": result.oracle_draws, "cpu_s": cpu, "x": np.round(result.x, 4).tolist()}
    if problem.has_exact:
        x_star, j_star = problem.optimum(lam, alpha)
        j = problem.exact_J(result.x, lam, alpha)
        j0 = problem.exact_J(problem.x0, lam, alpha)
        row["score"] = 100 * (j - j_star) / (j0 - j_star)
    else:
        ref = reference_row(read_references(ROOT / "results/reference/reference.parquet"),
                            pname, lam, alpha)
        x_ref = decision(ref)
        est = evaluate_precise(problem, result.x, lam, alpha, n=n_eval,
                               rng=precise_stream(seed, pname, rep))
        est_ref = evaluate_precise(problem, x_ref, lam, alpha, n=n_eval,
                                   rng=precise_stream(seed, pname, rep))
        row["score"] = 100 * (est["J_true"] - est_ref["J_true"]) / float(ref["J_star"])
    return row


def main(argv: list[str] | None = None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", nargs="+", default=["saa-ps"])
    ap.add_argument("--problems", nargs="+", default=["dgp1", "dgp2"])
    ap.add_argument("--budgets", nargs="+", type=int, default=[260_000])
    ap.add_argument("--lam", type=float, default=0.7)
    ap.add_argument("--alpha", type=float, default=0.95)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--first-rep", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-eval", type=int, default=200_000)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)

    jobs = [delayed(run_one)(c, p, args.lam, args.alpha, b, r, args.seed, args.n_eval)
            for c in args.methods for p in args.problems for b in args.budgets
            for r in range(args.first_rep, args.first_rep + args.reps)]
    rows = Parallel(n_jobs=args.n_jobs)(jobs)
    df = pd.DataFrame(rows)
    if args.out is not None:
        df.to_csv(args.out, index=False)
    summary = df.groupby(["problem", "budget", "config"], sort=False).agg(
        reps=("rep", "size"), med=("score", "median"), q75=("score", lambda s: s.quantile(.75)),
        worst=("score", "max"), draws=("draws", "median"), cpu=("cpu_s", "median"))
    with pd.option_context("display.width", 250, "display.precision", 2,
                           "display.max_colwidth", 60, "display.max_rows", 500):
        print(summary.to_string())
    return df


if __name__ == "__main__":
    main()
