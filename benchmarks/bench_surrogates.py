"""Speed and fidelity of the conditional samplers, and KDE-SO per replication.

Modes (run from the repository root with the project's Python):

    python benchmarks/bench_surrogates.py              # timings (default)
    python benchmarks/bench_surrogates.py --choose     # bandwidth comparison for the defaults
    python benchmarks/bench_surrogates.py --quality    # KDE-SO: 10 replications, true J

Timings: forest fit at N = 1,200 and 1,900 (ACFS fits twice per replication), forest
weights and 800-draw samples for 85 and 151 candidates, KDE weights and 100-draw surrogate
calls for a population of 85, and a whole KDE-SO replication. Each is repeated and the
median CPU time of the process reported (the machine is shared: wall times of single runs
measure the other jobs). BLAS is pinned to one thread.

``--choose`` compares the kernel constants on both benchmarks at lambda 0.7. The training
design mimics ACFS's refit (1,200 LHC points plus 700 around a good decision, one draw each)
for the forest and a 2,600-point LHC (KDE-SO) for the KDE. Candidates: 60 space-filling
decisions ("global") and 60 decisions around the good one ("local", sd 0.04). The true J of
every candidate comes from a large common-random-number sample; the surrogate J from
``n_f = 800`` (forest) or ``n_c = 100`` (KDE) draws. Reported per setting: Spearman rank
correlation of surrogate vs true J, median relative bias of the surrogate, and the regret of
the surrogate's top 5 (mean true J of the 5 best by surrogate over the best true J, minus 1).
The good decision is found by a cross-entropy search on the true DGP (outside any budget).
"""

from __future__ import annotations

import argparse
import ast
import statistics
import time

import numpy as np
from scipy.stats import spearmanr
from threadpoolctl import threadpool_limits

from acfs_cli.common.seeding import stream
from acfs_cli.core.oracle import Oracle
from acfs_cli.core.risk import spectral_risk
from acfs_cli.core.task import Task
from acfs_cli.experiment.evaluate import evaluate, evaluate_precise, final_pool, precise_stream
from acfs_cli.kernels.cem import cross_entropy
from acfs_cli.methods.kde_so import KDE_SO
from acfs_cli.problems import get_problem
from acfs_cli.surrogates import (
    ForestSampler,
    KDESampler,
    silverman_bandwidth,
    surrogate_objective,
)

LAM, ALPHA = 0.7, 0.95


def median_time(fn, repeats: int = 7) -> float:
    """Median CPU time of ``fn`` over ``repeats`` runs (seconds).

    CPU time of this process, not wall time: on a shared machine the wall time of a
    single-threaded call mostly measures the other jobs.
    """
    times = []
    for _ in range(repeats):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def design(problem, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    task = Task.from_problem(problem, LAM, ALPHA)
    X = task.space_filling(n, rng)
    return X, problem.sample_batch(X, 1, rng)[:, 0, :]


# -- timings -------------------------------------------------------------------------------------
def timings(repeats: int) -> None:
    rng = np.random.default_rng(0)
    for name in ("dgp1", "dgp2"):
        problem = get_problem(name)
        task = Task.from_problem(problem, LAM, ALPHA)
        print(f"== {name}")
        for N in (1200, 1900):
            X, W = design(problem, N, rng)
            t_fit = median_time(lambda X=X, W=W: ForestSampler(seed=1).fit(X, W), repeats)
            print(f"forest fit N={N}: {t_fit:.3f} s")
        forest = ForestSampler(seed=1).fit(X, W)
        for m in (85, 151):
            Xq = task.space_filling(m, rng)
            t_w = median_time(lambda Xq=Xq, fs=forest: fs.weights(Xq), repeats)
            f = surrogate_objective(forest, task, 800, rng)
            t_s = median_time(lambda Xq=Xq, f=f: f(Xq), repeats)
            print(f"forest weights m={m}: {t_w * 1e3:.1f} ms; J with n_f=800: {t_s * 1e3:.1f} ms")
        for N in (1200, 2600):
            X, W = design(problem, N, rng)
            kde = KDESampler().fit(X, W)
            Xq = task.space_filling(85, rng)
            f = surrogate_objective(kde, task, 100, rng)
            t_w = median_time(lambda Xq=Xq, kde=kde: kde.weights(Xq), repeats)
            t_s = median_time(lambda Xq=Xq, f=f: f(Xq), repeats)
            t_1 = median_time(lambda Xq=Xq, f=f: f(Xq[:1]), repeats)
            print(
                f"KDE N={N}: weights m=85 {t_w * 1e3:.1f} ms; J n_c=100 m=85 {t_s * 1e3:.1f} ms, "
                f"m=1 {t_1 * 1e3:.2f} ms"
            )
        cpu, wall = [], []
        for rep in range(repeats):
            oracle = Oracle(problem, 260_000, stream(0, "bench-oracle", name, rep))
            t, w = time.process_time(), time.perf_counter()
            KDE_SO(task, oracle, stream(0, "bench-kde-so", name, rep))
            cpu.append(time.process_time() - t)
            wall.append(time.perf_counter() - w)
        print(f"KDE-SO replication: CPU median {statistics.median(cpu):.2f} s "
              f"(min {min(cpu):.2f}, max {max(cpu):.2f}); wall median "
              f"{statistics.median(wall):.2f} s; {repeats} runs")


# -- bandwidth comparison ------------------------------------------------------------------------
def true_j(problem, X: np.ndarray, n: int, rng) -> np.ndarray:
    """J at each row of X on one common sample of n normals (chunks bound the memory)."""
    z = rng.standard_normal((n, problem.dim_w))
    out = np.empty(len(X))
    for i, x in enumerate(X):
        out[i] = spectral_risk(problem.cost(problem.transform(x, z), x), LAM, ALPHA)[0]
    return out


def good_decision(problem, rng) -> np.ndarray:
    """A near-optimal decision: CEM (12 x 55) on CRN estimates with 10,000 true draws."""
    task = Task.from_problem(problem, LAM, ALPHA)
    z = rng.standard_normal((10_000, problem.dim_w))

    def evaluate_pop(X):
        W = problem.transform_batch(X, np.broadcast_to(z, (len(X), *z.shape)))
        return task.risk(task.cost(W, X))[0]

    res = cross_entropy(evaluate_pop, task.space_filling(55, rng), task.project, rng, n_iter=12)
    return res.best_x


def metrics(J_hat: np.ndarray, J: np.ndarray) -> tuple[float, float, float]:
    rho = spearmanr(J_hat, J).statistic
    bias = float(np.median(J_hat / J - 1.0))
    top = np.argsort(J_hat)[:5]
    regret = float(J[top].mean() / J.min() - 1.0)
    return rho, bias, regret


def choose(n_designs: int) -> None:
    forest_scales = (0.0, 0.25, 0.5, 1.0)
    kde_grid = [(xs, hs) for xs in (0.5, 1.0, 1.5, 2.0) for hs in (0.0, 0.5, 1.0)]
    for name in ("dgp1", "dgp2"):
        problem = get_problem(name)
        task = Task.from_problem(problem, LAM, ALPHA)
        rng = stream(0, "bench-choose", name)
        x_good = good_decision(problem, rng)
        n_true = 100_000 if name == "dgp1" else 50_000
        print(f"== {name}: good decision {np.round(x_good, 3)}")
        rows_f = {s: [] for s in forest_scales}
        rows_k = {g: [] for g in kde_grid}
        for d in range(n_designs):
            drng = stream(0, "bench-choose", name, d)
            G = task.space_filling(60, drng)
            L = task.project(x_good + 0.04 * drng.standard_normal((60, task.dim_x)))
            JG, JL = true_j(problem, G, n_true, drng), true_j(problem, L, n_true, drng)
            # forest: ACFS's refit design (1,200 LHC + 700 around the good decision)
            XA, WA = design(problem, 1200, drng)
            XB = task.project(x_good + 0.025 * drng.standard_normal((700, task.dim_x)))
            WB = problem.sample_batch(XB, 1, drng)[:, 0, :]
            X, W = np.vstack([XA, XB]), np.vstack([WA, WB])
            forest = ForestSampler(seed=d).fit(X, W)
            base = silverman_bandwidth(W)
            obj_seed = int(drng.integers(2**31))
            for s in forest_scales:
                forest.bandwidth = base * s
                f = surrogate_objective(forest, task, 800, np.random.default_rng(obj_seed))
                rows_f[s].append(metrics(f(G), JG) + metrics(f(L), JL))
            # KDE: KDE-SO's 2,600-point LHC
            XK, WK = design(problem, 2600, drng)
            for xs, hs in kde_grid:
                kde = KDESampler(bandwidth_scale=hs, x_scale=xs).fit(XK, WK)
                f = surrogate_objective(kde, task, 100, np.random.default_rng(obj_seed))
                rows_k[(xs, hs)].append(metrics(f(G), JG) + metrics(f(L), JL))
        head = "rho_G  bias_G  regret_G | rho_L  bias_L  regret_L"
        print(f"forest (n_f=800, N=1,900)  bandwidth_scale: {head}")
        for s, rows in rows_f.items():
            print(f"  {s:5.2f}: " + fmt(np.mean(rows, axis=0)))
        print(f"KDE (n_c=100, N=2,600)  (x_scale, bandwidth_scale): {head}")
        for g, rows in rows_k.items():
            print(f"  {g}: " + fmt(np.mean(rows, axis=0)))


def fmt(v) -> str:
    return (f"{v[0]:+.3f} {v[1]:+.3f} {v[2]:.3f} | {v[3]:+.3f} {v[4]:+.3f} {v[5]:.3f}")


# -- KDE-SO quality ------------------------------------------------------------------------------
def quality(reps: int, overrides: dict) -> None:
    for name in ("dgp1", "dgp2"):
        problem = get_problem(name)
        task = Task.from_problem(problem, LAM, ALPHA)
        J_true, J_2000, times = [], [], []
        for rep in range(reps):
            oracle = Oracle(problem, 260_000, stream(0, "oracle", name, LAM, rep, "kde-so"))
            t = time.perf_counter()
            res = KDE_SO(task, oracle, stream(0, "method", name, LAM, rep, "kde-so"), overrides)
            times.append(time.perf_counter() - t)
            e = evaluate_precise(problem, res.x, LAM, ALPHA, 200_000,
                                 precise_stream(0, name, rep))
            e2 = evaluate(problem, res.x, final_pool(0, name, rep), LAM, ALPHA, n_boot=0)
            J_true.append(e["J_true"])
            J_2000.append(e2["J"])
            print(f"{name} rep {rep}: x = {np.round(res.x, 3)}  surrogate {res.value:,.0f}  "
                  f"J_true {e['J_true']:,.0f}  J_2000 {e2['J']:,.0f}  draws {res.oracle_draws}  "
                  f"{times[-1]:.2f} s", flush=True)
        print(f"{name} lambda {LAM}: J_true median {np.median(J_true):,.0f} SD "
              f"{np.std(J_true, ddof=1):,.0f}; 2,000-draw protocol median {np.median(J_2000):,.0f}"
              f" SD {np.std(J_2000, ddof=1):,.0f}; time median {np.median(times):.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--choose", action="store_true", help="bandwidth comparison")
    parser.add_argument("--quality", action="store_true", help="KDE-SO quality check")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--designs", type=int, default=3, help="designs per DGP for --choose")
    parser.add_argument("--reps", type=int, default=10, help="replications for --quality")
    parser.add_argument("--set", nargs="*", default=[], help="KDE-SO overrides key=value")
    args = parser.parse_args()
    overrides = {}
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key] = ast.literal_eval(value)
    with threadpool_limits(1):
        if args.choose:
            choose(args.designs)
        elif args.quality:
            quality(args.reps, overrides)
        else:
            timings(args.repeats)


if __name__ == "__main__":
    main()
