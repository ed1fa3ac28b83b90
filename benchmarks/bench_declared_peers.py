"""The default under a stochastic constraint beside general-purpose optimisers that take
constraints, at the same draw budget, on a held-out problem (BENCHMARKS.md, "The default
under constraints beside general-purpose optimisers").

The problem is ``benchmarks/heldout/assortment.py``: six prices and six stocks (open above)
under a joint service level P(every product in stock) >= 0.9, decision-dependent lognormal
demand, a start that breaks the service level; its optimum is found by scipy's SLSQP on the
closed forms, without acfs. Written for this benchmark and never used to tune the default.

Every method gets ``budget`` simulator draws at lam = 0 (the mean cost, whose closed form
scores the answers exactly). ``auto`` is ``minimize(problem, lam=0, budget=B, seed=s)``. The
peers minimise the sample average of the cost on one fixed common sample of
``round(sqrt(budget / 2))`` rows (32, 100 and 274 at 2,000, 20,000 and 150,000 draws), the
service level on the same rows (the share of rows with a stock-out at most 0.1), so
``budget // rows`` evaluations: ``ngopt`` (nevergrad's NGOpt, told each point's violation,
``constraint_violation``) and ``tpe`` (optuna's TPE on constrained trials,
``Trial.set_constraint``; its answer the best point feasible on its rows, else the least
violating). They search the box whose stocks
are closed at 3 x0; each starts at x0 (its first evaluation).

Every answer is scored by the closed forms: its gap 100 (E[C](x) - J*) / |J*| in % and
whether it keeps the service level under the exact law. Results are cached per (method,
budget, seed) in ``benchmarks/peers/declared.json``, the default's with its code version.

    nice -n 10 .venv/bin/python benchmarks/bench_declared_peers.py --seeds 8
    nice -n 10 .venv/bin/python benchmarks/bench_declared_peers.py --seeds 8 --box
    .venv/bin/python benchmarks/bench_declared_peers.py --table [--box]

``--box`` offers the problem as a sample-only simulator (:class:`BlackBox`): the default
draws through ``sample`` (no antithetic pairs, common rows by re-seeding), the peers' fixed
sample is the generator started afresh from one seed at every decision.

Needs the ``bench`` extra (nevergrad, optuna).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks" / "heldout")]

import assortment  # noqa: E402

RESULTS = ROOT / "benchmarks" / "peers" / "declared.json"
METHODS = ("auto", "ngopt", "tpe")
BUDGETS = (2_000, 20_000, 150_000)


def rows_for(budget: int) -> int:
    return max(10, round(np.sqrt(budget / 2)))


class BlackBox:
    """The assortment offered as a sample-only simulator, as a user's simulator that draws its
    own random numbers would be: ``sample(x, n, rng)`` draws the normals from the generator
    it is given (the same law; no supplied normals, no antithetic pairs)."""

    vectorized = True
    name = "assortment-box"

    def __init__(self, problem):
        self.problem = problem
        self.dim_x, self.dim_w = problem.dim_x, problem.dim_w
        self.bounds, self.x0 = problem.bounds, problem.x0
        self.stochastic_constraints = problem.stochastic_constraints

    def sample(self, x, n, rng):
        return self.problem.transform(x, rng.standard_normal((n, self.dim_w)))

    def cost(self, W, x):
        return self.problem.cost(W, x)

    def constraint_values(self, W, x):
        return self.problem.constraint_values(W, x)


class SampleProblem:
    """The cost's mean and the stock-out share on one fixed sample of ``rows`` scenarios:
    fixed normals, or for a black box its generator started afresh from the same seed at
    every decision."""

    def __init__(self, problem, rows: int, seed: int):
        self.problem, self.rows, self.calls, self.seed = problem, rows, 0, [seed, 7]
        self.z = (np.random.default_rng(self.seed).standard_normal((rows, problem.dim_w))
                  if hasattr(problem, "transform") else None)

    def __call__(self, x) -> tuple[float, float]:
        self.calls += 1
        x = np.asarray(x, dtype=float)
        W = (self.problem.transform(x, self.z) if self.z is not None else
             self.problem.sample(x, self.rows, np.random.default_rng(self.seed)))
        share = float((self.problem.constraint_values(W, x)[:, 0] > 0).mean())
        return float(self.problem.cost(W, x).mean()), share - (1 - assortment.SERVICE)


def peer_box(problem):
    low = np.array([b[0] for b in problem.bounds])
    high = np.array([3 * x if b[1] is None else b[1]
                     for b, x in zip(problem.bounds, problem.x0, strict=True)])
    return low, high


def run_auto(problem, budget, seed):
    from acfs_cli.api import minimize

    sol = minimize(problem, lam=0.0, budget=budget, seed=seed, n_eval=2_000)
    return np.asarray(sol.x, float), int(sol.draws_used)


def run_ngopt(problem, budget, seed):
    import nevergrad as ng

    rows = rows_for(budget)
    f = SampleProblem(problem, rows, seed)
    low, high = peer_box(problem)
    param = ng.p.Array(init=np.clip(problem.x0, low, high), lower=low, upper=high)
    param.random_state = np.random.RandomState(seed)
    opt = ng.optimizers.NGOpt(parametrization=param, budget=budget // rows, num_workers=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(budget // rows):
            cand = opt.ask()
            value, excess = f(cand.value)
            opt.tell(cand, value, constraint_violation=[max(excess, 0.0)])
        x = np.asarray(opt.recommend().value, float)
    return x, f.calls * rows


def run_tpe(problem, budget, seed):
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    rows = rows_for(budget)
    f = SampleProblem(problem, rows, seed)
    low, high = peer_box(problem)
    names = [f"x{i}" for i in range(problem.dim_x)]
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed))
    study.enqueue_trial(dict(zip(names, np.clip(problem.x0, low, high).tolist(), strict=True)))

    def objective(trial):
        x = np.array([trial.suggest_float(n, lo, hi)
                      for n, lo, hi in zip(names, low, high, strict=True)])
        value, excess = f(x)
        trial.set_constraint("service", excess)  # optuna 5's constrained trials
        trial.set_user_attr("excess", excess)
        return value

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study.optimize(objective, n_trials=budget // rows)
    trials = study.trials
    ok = [t for t in trials if t.user_attrs["excess"] <= 0]
    best = min(ok, key=lambda t: t.value) if ok else min(
        trials, key=lambda t: t.user_attrs["excess"])
    return np.array([best.params[n] for n in names]), f.calls * rows


RUNNERS = {"auto": run_auto, "ngopt": run_ngopt, "tpe": run_tpe}


def auto_code() -> str:
    from acfs_cli.core.problem import as_problem
    from acfs_cli.methods.auto import AUTO

    return AUTO.code_for(as_problem(assortment.Assortment()))


def load() -> dict:
    return json.loads(RESULTS.read_text()) if RESULTS.exists() else {}


def table(results: dict, J_star: float, box: bool = False) -> str:
    lines = ["| method | " + " | ".join(f"{b:,}" for b in BUDGETS) + " |",
             "| --- |" + " ---: |" * len(BUDGETS)]
    for method in METHODS:
        cells = []
        for budget in BUDGETS:
            runs = [r for k, r in results.items()
                    if k.startswith(f"{'box:' if box else ''}{method}|{budget}|")]
            if not runs:
                cells.append("-")
                continue
            gaps = np.array([100 * (r["J"] - J_star) / abs(J_star) for r in runs])
            kept = sum(r["in_stock"] >= assortment.SERVICE - 1e-12 for r in runs)
            cells.append(f"{np.median(gaps):.2f} / {gaps.max():.2f} [{kept}/{len(runs)}]")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--methods", nargs="+", default=list(METHODS))
    ap.add_argument("--budgets", nargs="+", type=int, default=list(BUDGETS))
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--table", action="store_true", help="print the table only")
    ap.add_argument("--box", action="store_true",
                    help="offer the problem as a sample-only simulator (sample(x, n, rng))")
    args = ap.parse_args()
    x_star, J_star = assortment.optimum()
    results = load()
    if not args.table:
        code = auto_code()
        problem = assortment.Assortment()
        if args.box:
            problem = BlackBox(problem)
        for method in args.methods:
            for budget in args.budgets:
                for seed in range(args.seeds):
                    key = f"{'box:' if args.box else ''}{method}|{budget}|{seed}"
                    if key in results and (method != "auto" or results[key]["code"] == code):
                        continue
                    t = time.process_time()
                    x, draws = RUNNERS[method](problem, budget, seed)
                    assert draws <= budget, (method, budget, seed, draws)
                    results[key] = {"x": x.tolist(), "draws": draws,
                                    "J": assortment.expected_cost(x),
                                    "in_stock": assortment.in_stock(x),
                                    "cpu_s": time.process_time() - t,
                                    "code": code if method == "auto" else ""}
                    RESULTS.parent.mkdir(parents=True, exist_ok=True)
                    RESULTS.write_text(json.dumps(results, indent=1, sort_keys=True))
                    print(key, f"{100 * (results[key]['J'] - J_star) / abs(J_star):.2f} %",
                          f"in stock {results[key]['in_stock']:.4f}", flush=True)
    print(f"J* = {J_star:.4f} (closed forms, SLSQP), x* = {np.round(x_star, 3).tolist()}")
    print("gap % median / worst [answers keeping the service level by the exact law]")
    print(table(results, J_star, args.box))


if __name__ == "__main__":
    main()
