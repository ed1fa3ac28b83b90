"""The default on whole numbers, as a user's black box, beside nevergrad's NGOpt on a sample
average of the same draws.

A held-out problem of ``benchmarks/heldout`` (the hub by default, 12 decisions) with every
decision open above - stocks, fleets, staff, capacities - declared whole (``integrality``;
the simulator rounds what it is handed, so a peer's fractions cost what the nearest whole
plan costs), offered as a sample-only simulator. Gap in % of |J*| to the problem's continuous
optimum (``heldout/optima.json``; a whole plan cannot beat it), J on 20,000 common scoring
rows; median / worst over seeds.

    .venv/bin/python benchmarks/bench_integer_box.py --seeds 8 [--problems hub warehouse ...]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from bench_peers import PROBLEMS, load_problem, optima  # noqa: E402
from saa import SampleAverage, box  # noqa: E402


class WholeBox:
    """A held-out problem as a black box whose decisions open above are whole."""

    vectorized = True

    def __init__(self, name: str):
        self.problem = load_problem(name)
        self.name = f"{name}-whole-box"
        self.lam, self.alpha = self.problem.lam, self.problem.alpha
        self.dim_x, self.dim_w = self.problem.dim_x, self.problem.dim_w
        self.bounds, self.x0 = self.problem.bounds, self.problem.x0
        self.whole = np.array([hi is None or not np.isfinite(hi) for _, hi in self.bounds])
        self.integrality = self.whole.astype(int).tolist()

    def rounded(self, x):
        x = np.array(x, dtype=float)
        x[..., self.whole] = np.floor(x[..., self.whole] + 0.5)
        return x

    def sample(self, x, n, rng):
        return self.problem.transform(self.rounded(x), rng.standard_normal((n, self.dim_w)))

    def cost(self, W, x):
        return self.problem.cost(W, self.rounded(x))


def run_auto(problem, budget, seed):
    from acfs_cli.api import minimize

    sol = minimize(problem, lam=problem.lam, alpha=problem.alpha, budget=budget, seed=seed,
                   n_eval=1_000)
    return np.asarray(sol.x, float), int(sol.draws_used)


def run_ngopt(problem, budget, seed):
    import nevergrad as ng

    rows = max(10, round(np.sqrt(budget / 2)))
    f = SampleAverage(problem, problem.lam, problem.alpha, rows, [seed, 77])
    low, high = box(problem)
    param = ng.p.Array(init=np.clip(problem.x0, low, high), lower=low, upper=high)
    param.random_state = np.random.RandomState(seed)
    opt = ng.optimizers.registry["NGOpt"](parametrization=param, budget=budget // rows,
                                          num_workers=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(budget // rows):
            cand = opt.ask()
            opt.tell(cand, f(cand.value))
    return problem.rounded(opt.recommend().value), f.calls * rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", nargs="+", default=["hub"],
                    choices=[p for p in PROBLEMS if not p.endswith("-box")])
    ap.add_argument("--budgets", type=int, nargs="+", default=[2_000, 20_000, 150_000])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--methods", nargs="+", default=["auto", "ngopt"])
    args = ap.parse_args(argv)
    runners = {"auto": run_auto, "ngopt": run_ngopt}
    print("| problem | method | draws | median / worst gap % | whole | CPU s |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for name in args.problems:
        problem = WholeBox(name)
        score = SampleAverage(problem, problem.lam, problem.alpha, 20_000, [9_001, 5])
        optimum = optima()[name]
        J_star = score(np.asarray(optimum["x_star"], float))
        for method in args.methods:
            for budget in args.budgets:
                gaps, whole, cpu = [], True, []
                for seed in range(args.seeds):
                    t0 = time.process_time()
                    x, draws = runners[method](problem, budget, seed)
                    cpu.append(time.process_time() - t0)
                    if draws > budget:
                        raise SystemExit(f"{method} drew {draws} of a budget of {budget}")
                    w = problem.whole
                    whole &= bool(np.all(x[w] == np.round(x[w])))
                    gaps.append(100 * (score(x) - J_star) / abs(optimum["J_star"]))
                med, worst = float(np.median(gaps)), max(gaps)
                print(f"| {name} | {method} | {budget:,} | {med:.1f} / {worst:.1f} | "
                      f"{'yes' if whole else 'no'} | {np.median(cpu):.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
