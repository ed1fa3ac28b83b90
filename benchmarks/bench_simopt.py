"""SimOpt's testbed through acfs: what a replication costs, and SimOpt's solvers against acfs's
methods on SimOpt's problems (DESIGN.md section 8; needs the simopt extra).

``timing`` - per continuous SimOpt problem (``--declared``: per problem with integer
coordinates or stochastic constraints), the seconds per 1,000 replications at its initial
solution through the adapter (the best of ``--repeat`` runs: the machine may be shared).

``compare`` - for each problem and budget (SimOpt's default and a tenth of it unless
``--budgets`` says), lam 0: every method under a fresh acfs oracle (streams named as the
runner names them), ``--reps`` macroreplications. Each answer is scored by SimOpt's normalised
gap 100 (f(x) - f*) / (f(x0) - f*) with f the expected loss, estimated on one large common
sample (the same MRG32k3a stream at every decision, as SimOpt's post-replications); f* is the
closed form where one is known (CNTNEWS-1), the value at SimOpt's coded optimal solution
where it has one, else SimOpt's own convention - the best answer any method found, on the
same sample. A method whose minimum budget is above the budget is shown as refused.

    .venv/bin/python benchmarks/bench_simopt.py timing
    .venv/bin/python benchmarks/bench_simopt.py compare CNTNEWS-1 SAN-1 --reps 5
"""

from __future__ import annotations

import argparse
import time

import numpy as np

SIMOPT_SOLVERS = ["simopt-astrodf", "simopt-neldmd", "simopt-strong", "simopt-spsa",
                  "simopt-adam", "simopt-aloe"]
ACFS_METHODS = ["saa-ps", "sgd-cvar", "astro"]  # astro where it is registered
#: Seed of the evaluation's common stream (outside every search's streams).
EVAL_SEED = 20_251_126
#: Seconds of simulation one decision's evaluation may take: its replications follow.
EVAL_SECONDS = 1.0


def timing(repeat: int, declared: bool = False) -> None:
    from acfs_cli.integrations.simopt import continuous_problems, declared_problems
    from acfs_cli.problems.simopt import SimOptProblem, replications_per_second

    print(f"{'problem':17s} {'dim':>3s} {'s / 1,000 reps':>14s} {'default budget':>14s}")
    for abbr in declared_problems() if declared else continuous_problems():
        rate = max(replications_per_second(abbr, n=1000, seed=i) for i in range(repeat))
        problem = SimOptProblem(abbr, gradients=False)
        print(f"{abbr:17s} {problem.dim_x:3d} {1000 / rate:14.3f} "
              f"{problem.default_budget:14,d}", flush=True)


def cntnews_loss(q: float) -> float:
    """CNTNEWS-1's exact expected loss, minus the profit (Burr XII(2, 20) demand)."""
    from scipy.integrate import quad

    q = float(q)
    return -(8.0 * quad(lambda t: (1 + t * t) ** -20.0, 0, q)[0] - 4.0 * q)


class TrueLoss:
    """f(x), the expected loss, on one common sample of ``n`` replications (exact for
    CNTNEWS-1); each decision is estimated once."""

    def __init__(self, abbr: str, n: int):
        from acfs_cli.problems.simopt import SimOptProblem

        self.abbr, self.n = abbr, n
        self.problem = SimOptProblem(abbr, gradients=False)
        self.cache: dict[bytes, float] = {}

    def __call__(self, x) -> float:
        x = np.asarray(x, dtype=float)
        key = x.tobytes()
        if key not in self.cache:
            if self.abbr == "CNTNEWS-1":
                self.cache[key] = cntnews_loss(x[0])
            else:
                W = self.problem.sample(x, self.n, np.random.default_rng(EVAL_SEED))
                self.cache[key] = float(W[:, 0].mean())
        return self.cache[key]


def run_one(problem, method_name: str, budget: int, rep: int, seed: int) -> dict:
    """One search under a fresh oracle, checked as the runner checks it."""
    from acfs_cli.common.seeding import stream
    from acfs_cli.core.guard import SearchGuard
    from acfs_cli.core.oracle import Oracle
    from acfs_cli.core.task import Task
    from acfs_cli.methods.registry import get_method

    method = get_method(method_name)
    need = method.minimum_budget(problem.dim_x)
    if budget < need:
        return {"refused": need}
    task = Task.from_problem(problem, 0.0, 0.95)
    names = (problem.name, rep, method_name)
    oracle = Oracle(problem, budget, stream(seed, "oracle", *names))
    start = time.process_time()
    with SearchGuard() as guard:
        result = method(task, oracle, stream(seed, "method", *names))
    guard.verify(oracle.used, budget)
    return {"x": np.asarray(result.x, dtype=float), "draws": oracle.used,
            "cpu": time.process_time() - start, "notes": result.notes}


def compare(problems: list[str], methods: list[str], reps: int, budgets: list[int] | None,
            eval_reps: int | None, seed: int) -> None:
    from acfs_cli.methods.registry import METHODS
    from acfs_cli.problems import get_problem
    from acfs_cli.problems.simopt import SimOptProblem

    methods = [m for m in methods if m in METHODS]
    rows = []
    for abbr in problems:
        plain = SimOptProblem(abbr, gradients=False)
        problem = get_problem(f"simopt:{abbr}")
        default = plain.default_budget
        for_problem = budgets or [default, default // 10]
        if eval_reps is None:
            start = time.perf_counter()
            plain.sample(plain.x0, 200, np.random.default_rng(0))
            per_rep = (time.perf_counter() - start) / 200
            n = int(min(20_000, max(1_000, round(EVAL_SECONDS / per_rep, -2))))
        else:
            n = eval_reps
        f = TrueLoss(abbr, n)
        runs = []
        for budget in for_problem:
            for method in methods:
                for rep in range(reps):
                    out = run_one(problem, method, budget, rep, seed)
                    runs.append({"budget": budget, "method": method, "rep": rep, **out})
                    if "x" in out:
                        print(f"  {abbr} {budget:,} {method} rep {rep}: f = {f(out['x']):.6g}, "
                              f"{out['draws']:,} draws, {out['cpu']:.2f} s", flush=True)
        f0 = f(plain.x0)
        if abbr == "CNTNEWS-1":
            f_star, source = cntnews_loss((2 ** (1 / 20) - 1) ** 0.5), "closed form"
        elif plain.optimal_x is not None:
            f_star, source = f(plain.optimal_x), "SimOpt's optimal solution"
        else:
            found = [f(r["x"]) for r in runs if "x" in r]
            f_star, source = min(found), "best found"
        how = "exact" if abbr == "CNTNEWS-1" else f"on {n:,} common replications"
        print(f"== {abbr}: f(x0) = {f0:.6g}, f* = {f_star:.6g} ({source}); f {how}",
              flush=True)
        for r in runs:
            r["gap"] = 100 * (f(r["x"]) - f_star) / (f0 - f_star) if "x" in r else np.nan
            rows.append({"problem": abbr, **r})
    print()
    print(f"{'problem':13s} {'budget':>7s} {'method':15s} {'mean gap %':>10s} {'median':>7s} "
          f"{'worst':>7s} {'draws':>7s} {'s/run':>6s}  gaps per macroreplication")
    keys = dict.fromkeys((r["problem"], r["budget"], r["method"]) for r in rows)
    for abbr, budget, method in keys:
        group = [r for r in rows if (r["problem"], r["budget"], r["method"]) ==
                 (abbr, budget, method)]
        if "refused" in group[0]:
            print(f"{abbr:13s} {budget:7,d} {method:15s} refused: needs at least "
                  f"{group[0]['refused']:,} draws")
            continue
        gaps = np.array([r["gap"] for r in group])
        print(f"{abbr:13s} {budget:7,d} {method:15s} {gaps.mean():10.1f} "
              f"{np.median(gaps):7.1f} {gaps.max():7.1f} "
              f"{np.mean([r['draws'] for r in group]):7,.0f} "
              f"{np.mean([r['cpu'] for r in group]):6.2f}  "
              f"[{', '.join(f'{g:.1f}' for g in gaps)}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("timing", help="seconds per 1,000 replications of each problem")
    t.add_argument("--repeat", type=int, default=3)
    t.add_argument("--declared", action="store_true",
                   help="the problems with integer coordinates or stochastic constraints")
    c = sub.add_parser("compare", help="SimOpt's solvers and acfs's methods, normalised gaps")
    c.add_argument("problems", nargs="+")
    c.add_argument("--methods", nargs="+", default=SIMOPT_SOLVERS + ACFS_METHODS)
    c.add_argument("--reps", type=int, default=5)
    c.add_argument("--budgets", type=int, nargs="+", default=None)
    c.add_argument("--eval-reps", type=int, default=None,
                   help="replications of f's common sample (default: about 1 s of "
                   "simulation per decision, 1,000 to 20,000)")
    c.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.command == "timing":
        timing(args.repeat, args.declared)
    else:
        compare(args.problems, args.methods, args.reps, args.budgets, args.eval_reps,
                args.seed)


if __name__ == "__main__":
    main()
