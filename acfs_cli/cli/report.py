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
    baseline: Annotated[
        str | None,
        typer.Option("--baseline", help="Method the others are compared with: a name, an import "
                     "path or a display name (default: the first of auto, saa-ps, astro, "
                     "acfs-plus, acfs in the study, else the lowest median J).",
                     show_default=False),
    ] = None,
    optima: Annotated[
        Path | None,
        typer.Option("--optima", help="Reference optima: a file or the folder holding "
                     "reference.parquet (default: <experiment>/../reference/, then "
                     "results/reference/).", show_default=False),
    ] = None,
    html: Annotated[
        bool,
        typer.Option("--html", help="Write one self-contained web page of the experiments "
                     "(tables, figures, answers) instead of the terminal report."),
    ] = False,
    page: Annotated[
        Path | None,
        typer.Option("--page", help="Where --html writes the page (default: report.html in "
                     "the experiment's folder, or in the folder holding several).",
                     show_default=False),
    ] = None,
) -> None:
    """Tables (terminal, LaTeX, CSV) and figures of finished experiments.

    The report reads results and computes no simulation. It says which
    baseline the others are compared with (Diff%, tests) and which reference
    optima it rates them on, or where it looked for them. With precise
    evaluation and reference optima (acfs reference), the regret table also
    gives the paired regret, J(x*) minus J(x_ref) on the same large sample,
    once `acfs reference --floor EXPERIMENT` has estimated the reference
    minimisers there; the report says so when it is missing.

    Quality against the optimum - the normalised gap where a problem knows
    its optimum or x0 has a large-sample J beside the reference minimiser's,
    else the paired regret, else the regret - gets its own
    tables and figures where the results have the data: with checkpoints,
    quality at each checkpoint, the area under the progress curve, progress
    curves and solvability against draws; with a budget axis, quality and
    solvability against the budget (and every other table per budget); over
    problems with exact optima, the gap per problem, a ranking and a
    solvability profile.

    [bold]Examples[/bold]

      acfs report

      acfs report results/main --latex --csv

      acfs report results/mine --baseline saa-ps --optima elsewhere/reference

      acfs report results/simopt --html

      acfs report results/simopt results/main --html --page study.html

    With --html the report is one page that opens from disk in any browser, without a
    server or network: the study (grid, budgets, seeds, code, reference optima, failed
    cells), every table (sortable), progress curves, SimOpt's solvability profiles and
    area scatter, box plots of the final quality and each method's answers.
    """
    if page is not None and not html:
        raise fail("--page names where --html writes the page: give --html too")
    if html and (latex or csv or no_figures):
        raise fail("--html writes one page; --latex, --csv and --no-figures belong to the "
                   "terminal report: run it without --html for them")
    if html:
        _write_page(experiments, baseline, optima, page)
        return
    try:
        from acfs_cli.report import ResultsError, report_experiments
    except ImportError as exc:
        raise fail(f"the report module cannot be imported: {exc}") from None
    paths = list(experiments or [])
    try:
        code = report_experiments(
            paths,
            latex=latex,
            csv=csv,
            figures=not no_figures,
            baseline=baseline,
            results_root=RESULTS_ROOT,
            optima=optima,
            console=console(),
            errors=console(stderr=True),
        )
    except ResultsError as exc:
        raise fail(str(exc)) from None
    raise typer.Exit(int(code or 0))


def _write_page(experiments: list[Path] | None, baseline: str | None, optima: Path | None,
                page: Path | None) -> None:
    try:
        from acfs_cli.report import ResultsError
        from acfs_cli.report.page import write_page
    except ImportError as exc:
        raise fail(f"the report module cannot be imported: {exc}") from None
    try:
        out = write_page(list(experiments or []), page, results_root=RESULTS_ROOT,
                         baseline=baseline, optima=optima)
    except ResultsError as exc:
        raise fail(" ".join(str(exc).split())) from None
    except OSError as exc:
        raise fail(f"cannot write the page: {exc.strerror or exc}"
                   + (f": {exc.filename}" if exc.filename else "")) from None
    size = out.stat().st_size
    console().print(f"wrote {out} ({size / 1e6:.1f} MB): open it in a browser", markup=False,
                    highlight=False, soft_wrap=True)
