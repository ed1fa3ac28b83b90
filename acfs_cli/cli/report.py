"""``acfs report``: tables and figures of finished experiments."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from acfs_cli.cli.common import console, fail

RESULTS_ROOT = Path("results")


def report(
    experiments: Annotated[
        list[Path] | None,
        typer.Argument(help="Experiment folders (default: every experiment under results/).",
                       show_default=False),
    ] = None,
    latex: Annotated[bool, typer.Option("--latex", help="Also write LaTeX (booktabs) tables.")]
    = False,
    csv: Annotated[bool, typer.Option("--csv", help="Also write CSV tables.")] = False,
    no_figures: Annotated[bool, typer.Option("--no-figures", help="Skip the figures.")] = False,
    reference: Annotated[
        str, typer.Option("--reference", help="Method the others are compared with.")
    ] = "acfs",
    floor_draws: Annotated[
        int, typer.Option("--floor-draws", help="Draws of each replication's precise J "
                          "(the configs' precise_draws): the reference minimiser is estimated "
                          "on the same normals for the paired regret; 0 skips it.")
    ] = 200_000,
) -> None:
    """Tables (terminal, LaTeX, CSV) and figures of finished experiments.

    With precise evaluation and reference optima (acfs reference), the
    regret table also gives the paired regret: J(x*) minus J(x_ref) on the
    same large sample, cached in <experiment>/reference_floor.parquet (a few
    minutes the first time for a large study).

    Quality against the optimum - the normalised gap where a problem knows
    its optimum, else the paired regret, else the regret - gets its own
    tables and figures where the results have the data: with checkpoints,
    quality at each checkpoint, the area under the progress curve, progress
    curves and solvability against draws; with a budget axis, quality and
    solvability against the budget (and every other table per budget); over
    problems with exact optima, the gap per problem, a ranking and a
    solvability profile.

    [bold]Examples[/bold]

      acfs report

      acfs report results/main --latex --csv
    """
    try:
        from acfs_cli.report import ReportError, report_experiments
    except ImportError as exc:
        raise fail(f"the report module cannot be imported: {exc}") from None
    paths = list(experiments or [])
    if floor_draws > 0:
        update_floors(paths, floor_draws)
    try:
        code = report_experiments(
            paths,
            latex=latex,
            csv=csv,
            figures=not no_figures,
            reference=reference,
            results_root=RESULTS_ROOT,
            console=console(),
            errors=console(stderr=True),
        )
    except ReportError as exc:
        raise fail(str(exc)) from None
    raise typer.Exit(int(code or 0))


def update_floors(paths: list[Path], n: int) -> None:
    """Before the report, with a spinner: each replication's reference minimiser on its
    precise normals (:func:`acfs_cli.experiment.reference.update_floor`), for the paired regret.
    Silent where an experiment has no precise J, no reference optima or cannot be read (the
    report says why)."""
    try:
        from acfs_cli.experiment.reference import update_floor
        from acfs_cli.report.run import experiment_paths
    except ImportError:
        return  # the report itself says what is missing

    out = console()
    for folder in experiment_paths(paths, RESULTS_ROOT):
        message = (f"{folder.name}: reference minimisers on the replications' precise normals "
                   "(paired regret) ...")
        with out.status(message) as spinner:
            def progress(done: int, total: int, spinner=spinner, name=folder.name) -> None:
                spinner.update(f"{name}: reference minimisers on {done}/{total} replications' "
                               "precise normals (paired regret)")

            try:
                update_floor(folder, RESULTS_ROOT, n, progress=progress)
            except OSError as exc:
                out.print(f"no paired regret for {folder}: {exc}", markup=False)
