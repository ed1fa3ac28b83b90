"""Wall time of ``minimize`` against the number of draw workers, for a simulator that takes 1,
10 or 100 ms a replication - the search and the final estimate, all the user waits for.

The simulator is the one of the issue that asked for parallel draws: ``sample`` sleeps
``pause * n`` seconds, then draws n rows of a 2-D newsvendor-like model; the cost is cheap.
A sleep frees its core, so on a 2-core machine more workers than cores still help, as they
would for a simulator that waits on a licence server or a remote model. Every run is
``minimize(Sleeper(pause), lam=0.7, alpha=0.9, budget=2000, seed=3)`` (default n_eval,
20,000 rows at x*), with ``n_jobs`` local workers or a Dask LocalCluster of one-thread worker
processes (``--dask``); each answer is checked against the one-process answer to the last
bit. Rows go to ``--out`` (CSV) and the figure to ``--figure``.

    .venv/bin/python benchmarks/bench_parallel.py                 # 1, 10, 100 ms (about 80 min)
    .venv/bin/python benchmarks/bench_parallel.py --pauses 0.01 --workers 1 4 --dask 4
    .venv/bin/python benchmarks/bench_parallel.py --cheap --workers 1 2 4

``--cheap`` times instead a simulator of microseconds a row: DGP2 offered as a black box,
``minimize(get_problem("dgp2", sample_only=True), budget=26_000, seed=1)``.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


class Sleeper:
    """A 2-D black box whose every replication takes ``pause`` seconds:
    W = x_1 - 1 + (0.5 + 0.3 x_2) Z, C = W^2 + 0.2 x_2^2 - 0.3 x_2."""

    dim_x, dim_w = 2, 1
    bounds = [(0.0, 4.0), (0.0, 4.0)]

    def __init__(self, pause: float = 0.01):
        self.pause = float(pause)

    def sample(self, x, n, rng):
        if self.pause:
            time.sleep(self.pause * n)
        return (x[0] - 1.0 + (0.5 + 0.3 * x[1]) * rng.standard_normal(n))[:, None]

    def cost(self, W, x):
        return W[:, 0] ** 2 + 0.2 * x[1] ** 2 - 0.3 * x[1]


def one_run(pause: float, args, **where):
    from acfs_cli.api import minimize

    start = time.perf_counter()
    sol = minimize(Sleeper(pause), lam=0.7, alpha=0.9, budget=args.budget, seed=args.seed,
                   n_eval=args.n_eval, **where)
    return sol, time.perf_counter() - start


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pauses", type=float, nargs="+", default=[0.001, 0.01, 0.1])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    ap.add_argument("--dask", type=int, nargs="*", default=[4, 16],
                    help="Dask LocalClusters of this many one-thread worker processes")
    ap.add_argument("--budget", type=int, default=2_000)
    ap.add_argument("--n-eval", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE / "figures" / "parallel_draws.csv")
    ap.add_argument("--figure", type=Path, default=HERE / "figures" / "parallel_draws.png")
    ap.add_argument("--cheap", action="store_true",
                    help="DGP2 as a black box (microseconds a row) instead of the sleeper")
    args = ap.parse_args(argv)
    if args.cheap:
        cheap(args.workers)
        return
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"budget {args.budget:,}, n_eval {args.n_eval:,}, seed {args.seed}")
    print(f"{'ms/row':>6s} {'where':>10s} {'workers':>7s} {'wall s':>8s} {'search s':>8s} "
          f"{'ratio':>6s} {'same x':>6s} {'load':>5s}")
    rows = []
    for pause in args.pauses:
        base = None
        runs = [("local", k) for k in args.workers] + [("dask", k) for k in args.dask]
        for kind, k in runs:
            load = os.getloadavg()[0]
            if kind == "local":
                sol, wall = one_run(pause, args, n_jobs=k)
            else:
                from distributed import Client, LocalCluster

                with LocalCluster(n_workers=k, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, Client(cluster) as c:
                    c.wait_for_workers(k)
                    sol, wall = one_run(pause, args, scheduler=c)
            if base is None:
                base = (sol, wall)
            same = bool(np.array_equal(sol.x, base[0].x) and sol.J == base[0].J)
            row = {"ms_per_row": 1000 * pause, "where": kind, "workers": k,
                   "wall_s": round(wall, 2), "search_s": round(sol.wall_s, 2),
                   "ratio": round(wall / base[1], 4), "same_x": same,
                   "draws": sol.draws_used, "load": round(load, 2)}
            rows.append(row)
            print(f"{row['ms_per_row']:6g} {kind:>10s} {k:7d} {wall:8.1f} {sol.wall_s:8.1f} "
                  f"{row['ratio']:6.3f} {str(same):>6s} {load:5.2f}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    plot(rows, args.figure)


def cheap(workers: list[int]) -> None:
    """Wall seconds of auto on DGP2 as a black box, 26,000 draws, against the workers."""
    from acfs_cli.api import minimize
    from acfs_cli.problems import get_problem

    problem = get_problem("dgp2", sample_only=True)
    base = None
    for k in workers:
        load = os.getloadavg()[0]
        start = time.perf_counter()
        sol = minimize(problem, budget=26_000, seed=1, n_jobs=k)
        wall = time.perf_counter() - start
        base = base or (sol, wall)
        same = bool(np.array_equal(sol.x, base[0].x) and sol.J == base[0].J)
        print(f"dgp2 black box, 26,000 draws, n_jobs {k:2d}: {wall:6.1f} s wall "
              f"({wall / base[1]:.2f}x), same answer {same}, load {load:.1f}", flush=True)


def plot(rows, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for pause in sorted({r["ms_per_row"] for r in rows}):
        local = [r for r in rows if r["ms_per_row"] == pause and r["where"] == "local"]
        line, = ax.plot([r["workers"] for r in local], [r["wall_s"] for r in local], "o-",
                        label=f"{pause:g} ms a replication")
        dask = [r for r in rows if r["ms_per_row"] == pause and r["where"] == "dask"]
        if dask:
            ax.plot([r["workers"] for r in dask], [r["wall_s"] for r in dask], "s",
                    color=line.get_color(), mfc="none", ms=9)
        if local:
            one = local[0]["wall_s"] * local[0]["workers"]
            w = np.array([r["workers"] for r in local], dtype=float)
            ax.plot(w, one / w, ":", color=line.get_color(), lw=1)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("draw workers (n_jobs; squares: Dask LocalCluster)")
    ax.set_ylabel("wall seconds of minimize (search + final estimate)")
    ax.set_title("budget 2,000, n_eval 20,000 on 2 cores; dotted: ideal", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    print(f"figure: {path}")


if __name__ == "__main__":
    main()
