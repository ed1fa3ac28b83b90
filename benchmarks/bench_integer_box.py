"""The default on whole numbers, as a user's black box: the hub (``benchmarks/heldout/hub.py``,
12 decisions) with its hub stock, six store stocks, trucks and express capacity declared whole
(``integrality``; the simulator rounds what it is handed, so a peer's fractions cost what the
nearest whole plan costs), offered as a sample-only simulator, beside nevergrad's NGOpt on a
sample average of the same draws. Gap in % of |J*| to the hub's continuous optimum (a whole
plan cannot beat it), J on 20,000 common scoring rows; median / worst over seeds.

    .venv/bin/python benchmarks/bench_integer_box.py --seeds 8
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "heldout"))

from hub import Hub  # noqa: E402
from saa import SampleAverage, box  # noqa: E402

WHOLE = np.array([0, 0, 0] + [1] * 9, dtype=bool)


class WholeHubBox:
    """The hub as a black box whose stocks, trucks and express capacity are whole."""

    name = "hub-whole-box"
    vectorized = True

    def __init__(self):
        self.hub = Hub()
        self.dim_x, self.dim_w = self.hub.dim_x, self.hub.dim_w
        self.bounds, self.x0 = self.hub.bounds, self.hub.x0
        self.integrality = WHOLE.astype(int).tolist()

    def _whole(self, x):
        x = np.array(x, dtype=float)
        x[..., WHOLE] = np.floor(x[..., WHOLE] + 0.5)
        return x

    def sample(self, x, n, rng):
        return self.hub.transform(self._whole(x), rng.standard_normal((n, self.dim_w)))

    def cost(self, W, x):
        return self.hub.cost(W, self._whole(x))


def run_auto(problem, budget, seed):
    from acfs_cli.api import minimize

    sol = minimize(problem, lam=Hub.lam, alpha=Hub.alpha, budget=budget, seed=seed, n_eval=1_000)
    return np.asarray(sol.x, float), int(sol.draws_used)


def run_ngopt(problem, budget, seed):
    import nevergrad as ng

    rows = max(10, round(np.sqrt(budget / 2)))
    f = SampleAverage(problem, Hub.lam, Hub.alpha, rows, [seed, 77])
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
    return problem._whole(opt.recommend().value), f.calls * rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", type=int, nargs="+", default=[2_000, 20_000, 150_000])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--methods", nargs="+", default=["auto", "ngopt"])
    args = ap.parse_args(argv)
    optimum = json.loads((HERE / "heldout" / "optima.json").read_text())["hub"]
    problem = WholeHubBox()
    score = SampleAverage(problem, Hub.lam, Hub.alpha, 20_000, [9_001, 5])
    J_star = score(np.asarray(optimum["x_star"], float))
    runners = {"auto": run_auto, "ngopt": run_ngopt}
    print("| method | draws | median / worst gap % | whole | CPU s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for method in args.methods:
        for budget in args.budgets:
            gaps, whole, cpu = [], True, []
            for seed in range(args.seeds):
                t0 = time.process_time()
                x, draws = runners[method](problem, budget, seed)
                cpu.append(time.process_time() - t0)
                if draws > budget:
                    raise SystemExit(f"{method} drew {draws} of a budget of {budget}")
                whole &= bool(np.all(x[WHOLE] == np.round(x[WHOLE])))
                gaps.append(100 * (score(x) - J_star) / abs(optimum["J_star"]))
            med, worst = float(np.median(gaps)), max(gaps)
            print(f"| {method} | {budget:,} | {med:.1f} / {worst:.1f} | "
                  f"{'yes' if whole else 'no'} | {np.median(cpu):.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
