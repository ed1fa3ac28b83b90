"""``acfs report``: results -> tables (terminal, LaTeX, CSV) and figures (paper Section 5).

The kind of each experiment (comparison, ablation, sensitivity) is read from its ``kind``
column and decides which tables and figures it gets. Tables are built on the paper's 2,000-draw
J and, when the results hold a large-sample ``J_true``, again on it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import warnings
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd
from rich.console import Console

from acfs_cli.report.baseline import (
    OptimaSource,
    choose_baseline,
    find_optima,
    settings_without_optimum,
)
from acfs_cli.report.freshness import Checked, check_references
from acfs_cli.report.layout import Layout, number, problem_name
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
from acfs_cli.results.files import StoreError
from acfs_cli.results.manifest import read_manifest
from acfs_cli.results.read import (
    FLOOR_FILE,
    REFERENCE_DIR,
    SETTING,
    CellCount,
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

#: Failed cells listed by name before the rest are only counted.
_FAILURES_SHOWN = 5


@dataclass(frozen=True)
class ReportOptions:
    latex: bool = False
    csv: bool = False
    figures: bool = True
    baseline: str | None = None  # None: chosen per study (acfs_cli.report.baseline)
    results_root: Path = Path("results")
    optima: Path | None = None  # None: looked for beside the experiment, then under results


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
    console = console or Console()
    errors = errors or console
    options = ReportOptions(latex, csv, figures, baseline, Path(results_root), optima)
    directories = experiment_paths(paths, options.results_root)
    prefix = "error: " if errors is not console else ""
    if not directories:
        _say(errors, f"{prefix}no results under {options.results_root}/ (run an experiment "
             "first)")
        return EXIT_NO_RESULTS
    code = EXIT_OK
    for directory in directories:
        try:
            with quiet_pandas():
                report_experiment(directory, options, console)
        except ResultsError as exc:
            _say(errors, prefix + " ".join(str(exc).split()))
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


def _say(console: Console, message: str) -> None:
    console.print(message, markup=False, highlight=False, soft_wrap=True)


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
        _say(console, f"note: {note}")
    if not read.foreign.empty:
        _say(console, f"note: {read.foreign_summary()}")
    if results.empty:
        _say(console, f"{counts.summary()}: nothing to tabulate")
        return []
    kinds = sorted(results["kind"].unique())
    results = _with_floor(results, checked.floor)
    _say(console, f"{_design(results)}; {counts.summary()}")
    if optima is not None and "J_ref_true" not in results.columns and (
            "J_true" in results.columns and results["J_true"].notna().any()):
        _say(console, f"note: no paired regret yet: `acfs reference --floor {folder}` estimates "
             "each replication's reference minimiser on its precise sample")
    _list_failures(console, counts)
    _say_optima(console, source, results, found)
    _say_without_precise(console, results, optima, folder)
    _say_stale(console, checked, source, found, folder)
    written = []
    for kind in kinds:
        frame = results[results["kind"] == kind]
        prefix = f"{kind}_" if len(kinds) > 1 else ""
        if usable(frame).empty:
            _say(console, f"no complete cells in the {kind} study: nothing to tabulate")
            continue
        baseline = None
        if kind != "sensitivity":
            chosen = choose_baseline(frame, options.baseline)
            baseline = chosen.method
            shown = _display_of(frame, baseline)
            if baseline is None:
                _say(console, f"no baseline ({chosen.reason}): no Diff% or tests")
            else:
                _say(console, chosen.describe(shown))
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
                _say(console, "no quality measure (no exact optimum, and no large-sample J with "
                     "reference optima): no progress or budget tables")
            continue
        tables = quality_tables(rated)
        unrated = _unrated(frame, rated)
        if tables and unrated:
            _say(console, f"no quality measure for {unrated} (no exact optimum, and no "
                 "large-sample J with a reference optimum): left out of the quality tables")
        for layout, table in tables:
            written += _show_table(console, folder, experiment, prefix, layout, table, options)
        if options.figures:
            written += draw_quality_figures(rated, folder / FIGURES_DIR, prefix)
    if written:
        _say(console, f"wrote {len(written)} files under {folder}/ ({_kinds_of(written)})")
    return written


def _display_of(frame: pd.DataFrame, method: str | None) -> str:
    shown = frame.loc[frame["method"] == method, "method_display"]
    name = shown.iloc[0] if len(shown) else ""
    return configuration_name(method or "", name if isinstance(name, str) else "",
                              str(frame["kind"].iloc[0]))


def _say_optima(console: Console, source: OptimaSource, results: pd.DataFrame,
                optima: pd.DataFrame | None) -> None:
    """Which reference optima the report rates on, or where it looked and what is lost."""
    lost = settings_without_optimum(results, optima)
    if source.path is None and not lost:
        return  # nothing needs them: exact optima, or no large-sample J
    _say(console, source.describe())
    if lost:
        names = [f"{problem_name(d)} lambda={lam:.2f}" for d, lam, _ in lost]
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        where = "" if source.path is None else f" in {source.path}"
        _say(console, f"no reference optimum{where} for {shown}: no regret, progress or "
             "solvability tables there (`acfs reference CONFIG` computes them; --optima "
             "names the file)")


def _say_stale(console: Console, checked: Checked, source: OptimaSource,
               found: pd.DataFrame | None, folder: Path) -> None:
    """Name the reference optima and floor rows made for other code than the cells' (left
    out), and those that do not say what made them, each with the command that computes
    them again."""
    where = source.path.parent if source.path is not None else Path("results") / REFERENCE_DIR
    floor_file = folder / FLOOR_FILE
    floor_again = shlex.join(["acfs", "reference", "--floor", str(folder), "-o", str(where)])
    if checked.stale_optima:
        stale = checked.stale_optima
        first = stale[0]
        _say(console, f"warning: {source.path}: the reference optima of {_settings(stale)} "
             f"were computed by other code of the problem than the cells' ({first.made_with}"
             f" -> {first.cells_have}): left out (no regret or gap against them); "
             f"`{_optima_again(found, [s.setting for s in stale], folder, where)}` computes "
             "them again")
    if checked.stale_floor:
        stale = checked.stale_floor
        rows = sum(s.count for s in stale)
        _say(console, f"warning: {floor_file}: {rows} replication(s) of {_settings(stale)} "
             "were estimated for another reference optimum or other code of the problem: "
             f"left out (no paired regret there); `{floor_again}` computes them again")
    if checked.unknown_optima:
        names = _settings([_Named(s) for s in checked.unknown_optima])
        _say(console, f"note: {source.path}: the reference optima of {names} do not record "
             "the problem's code (an older version wrote them), so whether they fit the cells "
             f"is not known; `{_optima_again(found, checked.unknown_optima, folder, where)} "
             "--force` computes them again with the record")
    if checked.unknown_floor:
        _say(console, f"note: {floor_file} does not record the reference optimum and the code "
             "it was computed for (an older version wrote it), so whether it fits the cells is "
             f"not known; `{floor_again}` computes it again with the record")


def _say_without_precise(console: Console, results: pd.DataFrame,
                         optima: pd.DataFrame | None, folder: Path) -> None:
    """Reference optima rate a setting through the large-sample J of its cells: where the
    cells have none (and the problem no exact J), say why there is no regret or quality table
    there and what gives one."""
    if optima is None:
        return
    done = usable(results)
    values = done[SETTING].assign(**{c: pd.to_numeric(done[c], errors="coerce").notna()
                                     for c in ("J_true", "J_exact") if c in done.columns})
    rated = values.groupby(SETTING).any()
    known = set(optima[SETTING].itertuples(index=False, name=None))
    without = [s for s, r in rated.iterrows() if s in known and not r.any()]
    if not without:
        return
    config = _configuration(folder)
    _say(console, f"no regret or quality table for {_settings([_Named(s) for s in without])}: "
         "their cells have no large-sample J to rate against the reference optimum; give "
         f"final_eval a precise_draws (200,000 in the paper's studies) in {config} and run "
         f"`acfs run {config}` again (every cell is computed anew with it)")


@dataclass(frozen=True)
class _Named:
    setting: tuple


def _settings(items) -> str:
    """``dgp1 lambda=0.70, dgp2 lambda=0.70 and 3 more``."""
    names = [f"{problem_name(s.setting[0])} lambda={s.setting[1]:.2f}" for s in items]
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _optima_again(found: pd.DataFrame | None, settings: list[tuple], folder: Path,
                  where: Path) -> str:
    """The command that computes the reference optima of ``settings`` again: the best answers
    of the experiment's cells where that is how they were found, else the reference search
    of the experiment's configuration (named where it lies beside the results)."""
    rows = pd.DataFrame() if found is None else found[
        [tuple(s) in set(settings) for s in found[SETTING].itertuples(index=False, name=None)]]
    if len(rows) and "source" in rows.columns and (rows["source"] == "best found").any():
        command = ["acfs", "reference", "--best-found", str(folder), "-o", str(where)]
        draws = _best_draws(rows)
        return shlex.join(command + (["--best-draws", str(draws)] if draws else []))
    return shlex.join(["acfs", "reference", _configuration(folder), "-o", str(where)])


def _best_draws(rows: pd.DataFrame) -> int | None:
    """The common sample's size a best-found optimum was compared on, where it says."""
    for text in rows.get("settings", pd.Series(dtype=object)):
        if isinstance(text, str) and text:
            n = json.loads(text).get("n")
            if n:
                return int(n)
    return None


def _configuration(folder: Path) -> str:
    """The configuration of an experiment where its manifest says where it lies (its folder,
    and a file named after the experiment), else CONFIG."""
    try:
        manifest = read_manifest(folder)
    except StoreError:
        manifest = None
    if manifest is not None and manifest.source:
        path = os.path.normpath(folder / manifest.source / f"{manifest.experiment}.yaml")
        if Path(path).is_file():
            return path
    return "CONFIG"


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


def _list_failures(console: Console, counts: CellCount) -> None:
    failures = counts.failures
    for row in failures.head(_FAILURES_SHOWN).itertuples(index=False):
        message = row.error.strip().splitlines()[0] if row.error.strip() else "no error message"
        where = (f"{problem_name(row.problem)} lambda={row.lam:.2f} "
                 f"{configuration_name(row.method, row.method_display, row.kind)}")
        if row.varied:
            where += f" {row.varied}={row.varied_value:g}"
        _say(console, f"failed: {where} rep {row.rep}: {message}")
    if len(failures) > _FAILURES_SHOWN:
        _say(console, f"... and {len(failures) - _FAILURES_SHOWN} more failed cells")


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
        _say(console, note)
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
