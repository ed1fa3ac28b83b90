"""``acfs report``: results -> tables (terminal, LaTeX, CSV) and figures (paper Section 5).

The kind of each experiment (comparison, ablation, sensitivity) is read from its ``kind``
column and decides which tables and figures it gets. Tables are built on the paper's 2,000-draw
J and, when the results hold a large-sample ``J_true``, again on it.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd
from rich.console import Console

from acfs_cli.report.baseline import (
    choose_baseline,
    find_optima,
)
from acfs_cli.report.freshness import check_references
from acfs_cli.report.layout import Layout, number, problem_name
from acfs_cli.report.notes import (
    say,
    say_failures,
    say_optima,
    say_stale,
    say_without_precise,
)
from acfs_cli.report.quality import (
    THRESHOLDS,
    area_table,
    budget_quality_table,
    checkpoint_quality,
    checkpoint_table,
    library_gap_table,
    library_ranking_table,
    with_quality,
)
from acfs_cli.report.quality_views import (
    area_layout,
    budget_quality_layout,
    checkpoint_layout,
    library_gap_layout,
    library_ranking_layout,
)
from acfs_cli.report.render import fitted, to_latex
from acfs_cli.report.tables import (
    ablation_table,
    answers_table,
    budget_table,
    configuration_name,
    method_statistics,
    protocols_in,
    sensitivity_table,
    true_gap_table,
    wilcoxon_table,
)
from acfs_cli.report.views import (
    ablation_layout,
    answers_layout,
    budget_layout,
    full_layout,
    sensitivity_layout,
    summary_layout,
    true_gap_layout,
    wilcoxon_layout,
)
from acfs_cli.results.read import (
    REFERENCE_DIR,
    SETTING,
    ResultsError,
    count_cells,
    has_results,
    optima_for,
    read_experiment,
    read_floor,
    usable,
)

EXIT_OK = 0
EXIT_NO_RESULTS = 2

TABLES_DIR = "tables"
FIGURES_DIR = "figures"

SUMMARY_COLUMNS = [*SETTING, "config", "name", "n", "J_med", "J_SD", "diff_pct", "is_reference",
                   "J_se"]

@dataclass(frozen=True)
class ReportOptions:
    latex: bool = False
    csv: bool = False
    figures: bool = True
    baseline: str | None = None  # None: chosen per study (acfs_cli.report.baseline)
    results_root: Path = Path("results")
    optima: Path | None = None  # None: looked for beside the experiment, then under results
    #: Told each piece as it is computed (the study, each table, the rated rows the quality
    #: figures are drawn from): :class:`acfs_cli.report.page.Collector` builds a page of them.
    sink: object | None = None


def report_experiments(
    paths: Sequence[Path],
    *,
    latex: bool,
    csv: bool,
    figures: bool = True,
    baseline: str | None = None,
    results_root: Path = Path("results"),
    optima: Path | None = None,
    console: Console | None = None,
    errors: Console | None = None,
) -> int:
    """Report each experiment folder in ``paths`` (every one under ``results_root`` when
    empty); return the exit code: 0, or 2 when a folder has no results or cannot be read,
    after printing one line that says why on ``errors`` (default: ``console``)."""
    console = console or Console(emoji=False)
    errors = errors or console
    options = ReportOptions(latex, csv, figures, baseline, Path(results_root), optima)
    directories = experiment_paths(paths, options.results_root)
    prefix = "error: " if errors is not console else ""
    if not directories:
        say(errors, f"{prefix}no results under {options.results_root}/ (run an experiment "
             "first)")
        return EXIT_NO_RESULTS
    code = EXIT_OK
    for directory in directories:
        try:
            with quiet_pandas():
                report_experiment(directory, options, console)
        except ResultsError as exc:
            say(errors, prefix + " ".join(str(exc).split()))
            code = EXIT_NO_RESULTS
    return code


@contextmanager
def quiet_pandas():
    """Without pandas' PerformanceWarnings: advice on how a frame is stored, about tables of
    a few thousand rows, that tells a reader of the report nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pd.errors.PerformanceWarning)
        yield


def experiment_paths(paths: Sequence[Path], results_root: Path) -> list[Path]:
    """The experiments a report covers: ``paths`` resolved (folders, names under
    ``results_root`` or single parquet files), or every experiment under ``results_root``."""
    if paths:
        return [resolve_experiment(Path(p), results_root) for p in paths]
    return experiments_under(results_root)


def experiments_under(results_root: Path) -> list[Path]:
    """Experiment folders under ``results_root`` that hold results (the reference optima's
    folder excluded)."""
    if not results_root.is_dir():
        return []
    return [
        d
        for d in sorted(results_root.iterdir())
        if d.is_dir() and d.name != REFERENCE_DIR and has_results(d)
    ]


def resolve_experiment(path: Path, results_root: Path) -> Path:
    """A path as given, or an experiment name under ``results_root``."""
    if path.exists() or not (results_root / path).exists():
        return path
    return results_root / path


def report_experiment(directory: Path, options: ReportOptions, console: Console) -> list[Path]:
    """Print and write the report of one experiment; return the files written."""
    read = read_experiment(directory)
    results = read.rows
    folder = directory.parent if directory.is_file() else directory
    experiment = folder.name
    source = find_optima(folder, options.results_root, options.optima)
    found = optima_for(results, source.optima)
    # only optima and floor rows made for the cells' code: the rest is named and left out
    checked = check_references(results, found, read_floor(folder))
    optima = checked.optima
    counts = count_cells(results, read.expected)
    console.rule(f"[bold]{experiment}[/bold]")
    for note in read.notes:
        say(console, f"note: {note}")
    if not read.foreign.empty:
        say(console, f"note: {read.foreign_summary()}")
    if results.empty:
        say(console, f"{counts.summary()}: nothing to tabulate")
        return []
    kinds = sorted(results["kind"].unique())
    results = _with_floor(results, checked.floor)
    say(console, f"{_design(results)}; {counts.summary()}")
    if optima is not None and "J_ref_true" not in results.columns and (
            "J_true" in results.columns and results["J_true"].notna().any()):
        say(console, f"note: no paired regret yet: `acfs reference --floor {folder}` estimates "
             "each replication's reference minimiser on its precise sample")
    if options.sink is not None:
        options.sink.study(folder, results, counts, source, checked)
    say_failures(console, counts)
    say_optima(console, source, results, found)
    say_without_precise(console, results, optima, folder)
    say_stale(console, checked, source, found, folder)
    written = []
    for kind in kinds:
        frame = results[results["kind"] == kind]
        prefix = f"{kind}_" if len(kinds) > 1 else ""
        if usable(frame).empty:
            say(console, f"no complete cells in the {kind} study: nothing to tabulate")
            continue
        baseline = None
        if kind != "sensitivity":
            chosen = choose_baseline(frame, options.baseline)
            baseline = chosen.method
            shown = _display_of(frame, baseline)
            if baseline is None:
                say(console, f"no baseline ({chosen.reason}): no Diff% or tests")
            else:
                say(console, chosen.describe(shown))
        budgets = sorted(frame["budget"].unique())
        for budget in budgets:
            # A budget axis: each budget is a study of its own (each method planned for it).
            part, at = frame, prefix
            if len(budgets) > 1:
                part, at = frame[frame["budget"] == budget], f"{prefix}budget{budget}_"
                if usable(part).empty:
                    continue
            for layout, table in build_tables(part, kind, baseline, optima):
                if len(budgets) > 1:
                    layout = at_budget(layout, int(budget))
                written += _show_table(console, folder, experiment, at, layout, table, options)
            if options.figures:
                written += draw_figures(part, kind, folder / FIGURES_DIR, at,
                                        baseline, optima)
        rated = with_quality(frame, optima)
        if rated.empty:
            if _has_checkpoints(frame) or len(budgets) > 1:
                say(console, "no quality measure (no exact optimum, and no large-sample J with "
                     "reference optima): no progress or budget tables")
            continue
        tables = quality_tables(rated)
        if options.sink is not None:
            options.sink.rated(kind, rated)
        unrated = _unrated(frame, rated)
        if tables and unrated:
            say(console, f"no quality measure for {unrated} (no exact optimum, and no "
                 "large-sample J with a reference optimum): left out of the quality tables")
        for layout, table in tables:
            written += _show_table(console, folder, experiment, prefix, layout, table, options)
        if options.figures:
            written += draw_quality_figures(rated, folder / FIGURES_DIR, prefix)
    if written:
        say(console, f"wrote {len(written)} files under {folder}/ ({_kinds_of(written)})")
    return written


def _display_of(frame: pd.DataFrame, method: str | None) -> str:
    shown = frame.loc[frame["method"] == method, "method_display"]
    name = shown.iloc[0] if len(shown) else ""
    return configuration_name(method or "", name if isinstance(name, str) else "",
                              str(frame["kind"].iloc[0]))


def _with_floor(results: pd.DataFrame, floor: pd.DataFrame | None) -> pd.DataFrame:
    """``results`` with J_ref_true, each setting's reference minimiser on the replication's
    precise normals, where ``acfs reference --floor`` computed it
    (``reference_floor.parquet``) for the cells' code."""
    if floor is None or "J_true" not in results.columns:
        return results
    keys = ["problem", "lam", "alpha", "seed", "rep"]
    left = results.astype({"seed": int, "rep": int})
    if "n" in floor.columns and "precise_draws" in left.columns and left[
            "precise_draws"].gt(0).all():
        # Paired only on the same normals: the floor's sample size is the cells' precise one.
        left = left.assign(n=left["precise_draws"].astype(int))
        keys = [*keys, "n"]
    elif "n" in floor.columns:
        floor = floor.drop_duplicates(keys, keep="last")
    out = left.merge(floor[[*keys, "J_ref_true"]], on=keys, how="left")
    out = out.drop(columns=[c for c in ("n",) if c not in results.columns and c in out])
    out.index = results.index
    return out.copy()  # one block per dtype: later column assignments stay cheap


def _design(results: pd.DataFrame) -> str:
    kinds = "/".join(sorted(results["kind"].unique()))
    settings = results[SETTING].drop_duplicates().shape[0]
    configurations = results[["method", "varied", "varied_value"]].drop_duplicates().shape[0]
    reps = results["rep"].nunique()
    budgets = results["budget"].nunique()
    return (
        f"{kinds} study: {settings} setting(s) x {configurations} configuration(s) "
        + (f"x {budgets} budgets " if budgets > 1 else "")
        + f"x {reps} replication(s)"
    )


def build_tables(
    results: pd.DataFrame, kind: str, reference: str | None,
    optima: pd.DataFrame | None = None,
) -> list[tuple[Layout, pd.DataFrame]]:
    """Every table of one kind of study, as (layout, tidy frame) pairs in reading order, the
    better estimate first (the large-sample J where the results have it, with the regret
    against the best known J, then the paper's final evaluation); ``reference`` is the
    baseline (None: no Diff% or tests)."""
    reference_name = _display_of(results, reference) if reference else ""
    protocols = protocols_in(results)
    tables = []
    for protocol in protocols:
        if kind == "sensitivity":
            table = sensitivity_table(results, protocol)
            tables.append((sensitivity_layout(table, protocol), table))
        else:
            tables += _compared(results, kind, protocol, reference, reference_name)
        if protocol.precise:
            gaps = true_gap_table(results, optima)
            tables.append((true_gap_layout(gaps), gaps))
    if kind != "sensitivity":  # what each method answered (a grid point's x* says little)
        answers = answers_table(results)
        tables.append((answers_layout(answers), answers))
    return tables


def _compared(results: pd.DataFrame, kind: str, protocol, reference: str | None,
              reference_name: str) -> list[tuple[Layout, pd.DataFrame]]:
    """The tables of a comparison or an ablation under one protocol: the statistics, the
    tests against the baseline, and (the paper's protocol) the draws used."""
    tables = []
    tests = wilcoxon_table(results, protocol, reference)
    if kind == "ablation":
        table = ablation_table(results, protocol, reference, tests=tests)
        tables.append((ablation_layout(table, protocol, reference_name), table))
    else:
        stats = method_statistics(results, protocol, reference)
        tables.append((summary_layout(stats, protocol, reference_name), stats[SUMMARY_COLUMNS]))
        tables.append((full_layout(stats, protocol, reference_name), stats))
    if not tests.empty:
        other = "variant" if kind == "ablation" else "competitor"
        tables.append((wilcoxon_layout(tests, protocol, reference_name, other), tests))
    if not protocol.precise:
        budget = budget_table(results)
        tables.append((budget_layout(budget), budget))
    return tables


def _has_checkpoints(frame: pd.DataFrame) -> bool:
    return "cp_fraction" in frame.columns and bool(
        frame["cp_fraction"].map(lambda v: v is not None and len(v) > 0).any())


def _unrated(frame: pd.DataFrame, rated: pd.DataFrame) -> str:
    """The settings with completed cells but no quality measure, named."""
    done = usable(frame)[SETTING].drop_duplicates()
    rated_keys = set(map(tuple, rated[SETTING].drop_duplicates().to_numpy()))
    names = [f"{problem_name(d)} lambda={lam:.2f}" for d, lam, a in done.to_numpy()
             if (d, lam, a) not in rated_keys]
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def quality_tables(rated: pd.DataFrame) -> list[tuple[Layout, pd.DataFrame]]:
    """The tables of quality against the optimum (:mod:`acfs_cli.report.quality`) that the
    rows of ``rated`` (:func:`~acfs_cli.report.quality.with_quality`) have the data for:
    quality at each checkpoint and the area under the progress curve (results with
    checkpoints), quality against the budget (a budget axis), and the normalised gap per
    problem and the ranking across problems (problems with exact optima; the ranking from
    two problems on)."""
    tables = []
    points = checkpoint_quality(rated)
    if not points.empty:
        table = checkpoint_table(points)
        tables.append((checkpoint_layout(table), table))
        table = area_table(points)
        tables.append((area_layout(table), table))
    if rated["budget"].nunique() > 1:
        table = budget_quality_table(rated)
        tables.append((budget_quality_layout(table), table))
    gaps = library_gap_table(rated)
    if not gaps.empty:
        tables.append((library_gap_layout(gaps), gaps))
        if gaps[SETTING].drop_duplicates().shape[0] > 1:
            ranking = library_ranking_table(gaps)
            tables.append((library_ranking_layout(ranking), ranking))
    return tables


def draw_quality_figures(rated: pd.DataFrame, out: Path, prefix: str = "") -> list[Path]:
    """The figures of quality against the optimum that the rows of ``rated`` have the data
    for: progress curves and solvability against draws (checkpoints), quality and
    solvability against the budget (a budget axis), the library's solvability profile
    (problems with exact optima, from two problems on)."""
    from acfs_cli.report import quality_figures as figures

    written = []
    points = checkpoint_quality(rated)
    if not points.empty:
        table = checkpoint_table(points)
        written += figures.progress_curves(table, out / f"{prefix}progress_curves")
        for t in THRESHOLDS:
            written += figures.solvability_draws(table, out / f"{prefix}solvability_draws_{t:g}pct",
                                                 t)
    if rated["budget"].nunique() > 1:
        table = budget_quality_table(rated)
        written += figures.quality_budget(table, out / f"{prefix}quality_budget")
        for t in THRESHOLDS:
            written += figures.solvability_budget(
                table, out / f"{prefix}solvability_budget_{t:g}pct", t)
    gaps = library_gap_table(rated)
    if gaps[SETTING].drop_duplicates().shape[0] > 1:
        written += figures.library_profile(gaps, out / f"{prefix}library_profile")
    return written


def at_budget(layout: Layout, budget: int) -> Layout:
    """A table of one budget of a budget axis: the budget in its title and caption."""
    return replace(layout, title=f"{layout.title}, budget {budget:,}",
                   caption=f"{layout.caption} Budget: ${number(budget).latex}$ draws.")


def _show_table(
    console: Console,
    folder: Path,
    experiment: str,
    prefix: str,
    layout: Layout,
    table: pd.DataFrame,
    options: ReportOptions,
) -> list[Path]:
    """Print one table (and its notes) and write its files."""
    if options.sink is not None:
        options.sink.table(prefix, layout, table)
    shown, width = fitted(console, layout)
    if width is None:
        console.print(shown)
    else:
        # Too wide however laid out: printed whole at the width it needs, lines the terminal
        # folds being easier to read than cut names and numbers.
        usual, console.width = console.width, width
        try:
            console.print(shown, crop=False)
        finally:
            console.width = usual
    for note in layout.notes:
        say(console, note)
    return _write_table(folder, experiment, prefix, layout, table, options)


def _label(experiment: str, name: str) -> str:
    return "tbl:" + re.sub(r"[^A-Za-z0-9_.:-]", "-", f"{experiment}-{name}")


def _write_table(
    folder: Path,
    experiment: str,
    prefix: str,
    layout: Layout,
    table: pd.DataFrame,
    options: ReportOptions,
) -> list[Path]:
    if not (options.latex or options.csv):
        return []
    out = folder / TABLES_DIR
    out.mkdir(parents=True, exist_ok=True)
    stem = prefix + layout.name
    written = []
    if options.latex:
        path = out / f"{stem}.tex"
        path.write_text(to_latex(layout, _label(experiment, stem)), encoding="utf-8")
        written.append(path)
    if options.csv:
        path = out / f"{stem}.csv"
        table.to_csv(path, index=False)
        written.append(path)
    return written


def draw_figures(
    results: pd.DataFrame, kind: str, out: Path, prefix: str = "", reference: str | None = None,
    optima: pd.DataFrame | None = None,
) -> list[Path]:
    """The figures of one kind of study under both protocols, as PNG and PDF; for a
    comparison with reference optima and ``J_ref_true``, also the paired regret."""
    # matplotlib costs a noticeable import; load it only when figures are wanted.
    from acfs_cli.report import figures

    written = []
    for protocol in protocols_in(results):
        if kind == "sensitivity":
            stem = out / f"{prefix}sensitivity{protocol.suffix}"
            written += figures.sensitivity_plot(results, stem, protocol)
        elif kind == "ablation":
            stem = out / f"{prefix}ablation{protocol.suffix}"
            written += figures.ablation_boxplots(results, stem, protocol, reference)
        else:
            stem = out / f"{prefix}boxplot{protocol.suffix}"
            written += figures.comparison_boxplots(results, stem, protocol, reference)
    if kind == "comparison":
        written += figures.regret_boxplots(results, optima, out / f"{prefix}regret", reference)
    return written


def _kinds_of(paths: list[Path]) -> str:
    counts = pd.Series([p.suffix.lstrip(".") for p in paths]).value_counts(sort=False)
    return ", ".join(f"{n} {suffix}" for suffix, n in counts.items())
