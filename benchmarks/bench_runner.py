"""Runner speed: per-cell dispatch overhead, the wall time of configs/quick.yaml, and an estimate
of the full configs/main.yaml on this machine.

    python benchmarks/bench_runner.py dispatch [--cells 40] [--repeats 3]
    python benchmarks/bench_runner.py quick [--repeats 1]
    python benchmarks/bench_runner.py estimate results/bench-quick

``dispatch`` runs cells of a deliberately cheap CEM-SO configuration four ways: ``run_cell`` in a
loop (the work itself), ``run_grid`` in-process (adds the atomic parquet write), ``run_grid`` on
two worker processes (adds pickling and inter-process transport), and the start-up of
the two workers on two cells. ``quick`` runs ``configs/quick.yaml`` into a scratch folder with
``--force`` and reports its wall time, then estimates ``configs/main.yaml`` from the measured
per-cell times of each method (the method's search plus the final evaluation), scaled to the
main grid's cells of that method and divided by the cores. Medians over repeats; the machine
is shared, so spreads are printed too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from acfs_cli.experiment.cell import run_cell  # noqa: E402
from acfs_cli.experiment.config import load, parse  # noqa: E402
from acfs_cli.experiment.grid import build_cells  # noqa: E402
from acfs_cli.experiment.runner import run_grid  # noqa: E402
from acfs_cli.results.store import ResultStore, read_stored  # noqa: E402

CHEAP = {"n_iter": 2, "population": 5, "n_mc": 10, "polish": False}


def cheap_cells(n: int):
    config = parse({
        "name": "bench-dispatch", "seed": 1, "budget": 1000, "replications": n,
        "final_eval": {"draws": 2000, "bootstrap": 400},
        "grid": {"problem": ["dgp2"], "lambda": [0.7], "method": ["cem-so"]},
        "methods": {"cem-so": CHEAP},
    })
    return build_cells(config)


def _median(values):
    return statistics.median(values), (min(values), max(values))


def bench_dispatch(n_cells: int, repeats: int) -> None:
    cells = cheap_cells(n_cells)
    run_cell(cells[0])  # imports and caches, outside the timings
    timings: dict[str, list[float]] = {"run_cell loop": [], "run_grid n_jobs=1": [],
                                       "run_grid n_jobs=2": [], "2 workers start-up": []}
    with tempfile.TemporaryDirectory() as scratch:
        for r in range(repeats):
            t = time.perf_counter()
            for cell in cells:
                run_cell(cell)
            timings["run_cell loop"].append((time.perf_counter() - t) / n_cells)

            t = time.perf_counter()
            run_grid(cells, ResultStore(Path(scratch) / f"seq{r}"), n_jobs=1)
            timings["run_grid n_jobs=1"].append((time.perf_counter() - t) / n_cells)

            t = time.perf_counter()
            run_grid(cells[:2], ResultStore(Path(scratch) / f"cold{r}"), n_jobs=2)
            timings["2 workers start-up"].append(time.perf_counter() - t)
            t = time.perf_counter()
            run_grid(cells, ResultStore(Path(scratch) / f"par{r}"), n_jobs=2)
            timings["run_grid n_jobs=2"].append((time.perf_counter() - t) / n_cells)
    base = statistics.median(timings["run_cell loop"])
    print(f"dispatch: {n_cells} cheap CEM-SO cells (DGP2, 100 draws, 2,000-row evaluation), "
          f"{repeats} repeats, {os.cpu_count()} cores")
    for name, values in timings.items():
        med, (lo, hi) = _median(values)
        unit = "s total" if name == "2 workers start-up" else "ms/cell"
        scale = 1 if unit == "s total" else 1000
        print(f"  {name:26s} median {med * scale:8.1f} {unit}  (range {lo * scale:.1f}-"
              f"{hi * scale:.1f})")
    seq = statistics.median(timings["run_grid n_jobs=1"])
    par = statistics.median(timings["run_grid n_jobs=2"])
    print(f"  storage overhead per cell (n_jobs=1 minus loop): {(seq - base) * 1000:.1f} ms")
    print(f"  process overhead per cell (2 x n_jobs=2 minus n_jobs=1): "
          f"{(2 * par - seq) * 1000:.1f} ms of worker time")


def bench_quick(repeats: int, n_jobs: int | None) -> Path:
    from typer.testing import CliRunner

    from acfs_cli.cli import app

    out = Path(tempfile.mkdtemp(prefix="bench-quick-"))
    walls = []
    for _ in range(repeats):
        args = ["run", str(ROOT / "configs" / "quick.yaml"), "--output", str(out), "--force",
                "--quiet"]
        if n_jobs is not None:
            args += ["--n-jobs", str(n_jobs)]
        t = time.perf_counter()
        result = CliRunner().invoke(app, args)
        walls.append(time.perf_counter() - t)
        if result.exit_code not in (0, 1):
            print(result.output)
            raise SystemExit(result.exit_code)
    med, (lo, hi) = _median(walls)
    print(f"quick.yaml: wall {med:.1f} s median of {repeats} (range {lo:.1f}-{hi:.1f}), "
          f"results in {out}")
    print(result.stdout)
    return out


def estimate(results: Path) -> None:
    """Main-grid wall time from measured per-cell CPU times: sum over methods of the per-dgp
    median CPU seconds of a cell (search plus final evaluation, ``cpu_s``) x cells of that
    method in main.yaml, divided by the cores. CPU time, not wall time, because the machine is
    shared: a loaded machine stretches wall time but hardly CPU time."""
    rows = read_stored(results)
    rows = rows[rows["status"] == "ok"]
    main = build_cells(load(ROOT / "configs" / "main.yaml"))
    cores = os.cpu_count() or 1
    print(f"estimate of configs/main.yaml ({len(main)} cells) on {cores} cores, from {results}:")
    total = total_wall = 0.0
    for method in dict.fromkeys(c.method for c in main):
        block = rows[rows["method"] == method]
        n_main = sum(c.method == method for c in main)
        if block.empty:
            print(f"  {method:10s} no measured cells")
            continue
        med = block.assign(cell_wall=block["wall_s"] + block["eval_s"]).groupby("problem")[
            ["cpu_s", "cell_wall", "eval_s"]].median()
        per_cell = float(med["cpu_s"].mean())  # main has as many cells of each dgp
        total += per_cell * n_main
        total_wall += float(med["cell_wall"].mean()) * n_main
        detail = ", ".join(f"{d} {r.cpu_s:.1f} s (eval {r.eval_s:.2f})" for d, r in med.iterrows())
        print(f"  {method:10s} {per_cell:6.2f} CPU-s/cell ({detail}) x {n_main} = "
              f"{per_cell * n_main / 60:6.1f} CPU-min")
    print(f"  total {total / 60:.1f} CPU-min -> about {total / cores / 60:.0f} min wall on "
          f"{cores} cores (perfect packing); from wall times instead: "
          f"{total_wall / cores / 60:.0f} min")


def methods_table(results: Path, budget: int | None = None) -> None:
    """Per method and DGP: search wall seconds (median [min-max]), cell CPU seconds (search
    plus final evaluation, median) and draws (median), as the Markdown table of BENCHMARKS.md.
    ``wall_s`` is the method's own search time; one worker process per core, so each figure is a
    one-core figure. ``budget`` keeps the cells of one budget (a study with a budget axis)."""
    rows = read_stored(results)
    rows = rows[rows["status"] == "ok"]
    if budget is not None:
        rows = rows[rows["budget"] == budget]
        if rows.empty:
            raise SystemExit(f"no completed cells with budget {budget} in {results}")
    print("| method | DGP | search wall s, median [min-max] | cell CPU s, median (search + "
          "final evaluation) | draws, median |")
    print("| --- | --- | ---: | ---: | ---: |")
    order = {m: i for i, m in enumerate(
        ["acfs", "acfs-plus", "saa-ps", "gp-bo", "cem-so", "sgd-cvar", "kde-so"])}
    rows = rows.assign(_o=rows["method"].map(order).fillna(len(order)))
    rows = rows.sort_values(["_o", "method", "problem"], kind="stable")
    for (method, dgp), b in rows.groupby(["method", "problem"], sort=False):
        w = b["wall_s"]
        print(f"| {method} | {dgp.upper()} | {w.median():.2f} [{w.min():.2f}-{w.max():.2f}] | "
              f"{b['cpu_s'].median():.2f} | {b['oracle_draws'].median():,.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    d = sub.add_parser("dispatch")
    d.add_argument("--cells", type=int, default=40)
    d.add_argument("--repeats", type=int, default=3)
    q = sub.add_parser("quick")
    q.add_argument("--repeats", type=int, default=1)
    q.add_argument("--n-jobs", type=int, default=None)
    e = sub.add_parser("estimate")
    e.add_argument("results", type=Path)
    m = sub.add_parser("methods")
    m.add_argument("results", type=Path)
    m.add_argument("--budget", type=int, default=None, help="only the cells of this budget")
    args = parser.parse_args()
    if args.what == "dispatch":
        bench_dispatch(args.cells, args.repeats)
    elif args.what == "quick":
        estimate(bench_quick(args.repeats, args.n_jobs))
    elif args.what == "methods":
        methods_table(args.results, args.budget)
    else:
        estimate(args.results)


if __name__ == "__main__":
    main()
