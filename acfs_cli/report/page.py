"""``acfs report --html``: the report of one or several experiments as one self-contained web
page (no server, no network: its script and style are the package's, copied into the page).

The page renders what the terminal report computes, never a second computation of it: the
report runs as it does for the terminal (:func:`~acfs_cli.report.run.report_experiment`)
with a :class:`Collector` told each piece - the study, every table with its layout, the frames
a figure is drawn from - and a :class:`Recorder` console that keeps every line it would have
printed, in order, for the page to show where the terminal shows it. The figures are drawn in
the browser, as SVG, from data the page carries: progress curves, SimOpt's solvability
profiles and area scatter (:mod:`acfs_cli.report.page_curves`), box plots of the final
quality and each method's answers. Where the data cannot make a figure honestly (no quality
measure, one replication, no checkpoints) the page says so instead of drawing it.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
from rich.console import Console

from acfs_cli.report.layout import Layout, problem_name
from acfs_cli.report.page_curves import (
    area_scatter,
    progress_table,
    replication_curves,
    solvability_profiles,
)
from acfs_cli.report.page_html import experiment_html, page_html
from acfs_cli.report.quality import FROM_X0, MEASURE_NAMES, checkpoint_quality
from acfs_cli.report.run import (
    ReportOptions,
    experiment_paths,
    quiet_pandas,
    report_experiment,
)
from acfs_cli.report.stats import quantile
from acfs_cli.report.tables import configuration_name, method_rank, prepare
from acfs_cli.results.read import SETTING, ResultsError, usable

PAGE_NAME = "report.html"


class Recorder(Console):
    """A console that prints nothing and keeps each message (a plain string) in ``events``,
    in the order the report says them."""

    def __init__(self, events: list, width: int = 160):
        super().__init__(file=io.StringIO(), width=width, color_system=None, highlight=False)
        self.events = events

    def print(self, *objects, **kwargs) -> None:
        if len(objects) == 1 and isinstance(objects[0], str):
            self.events.append(("note", objects[0]))

    def rule(self, *args, **kwargs) -> None:
        pass


@dataclass
class Collector:
    """What a report computed, as it computed it (see :class:`ReportOptions` ``sink``)."""

    events: list = field(default_factory=list)
    folder: Path | None = None
    results: pd.DataFrame | None = None
    counts: object = None
    source: object = None
    checked: object = None
    rated_frames: list = field(default_factory=list)

    def study(self, folder, results, counts, source, checked) -> None:
        self.folder, self.results, self.counts = folder, results, counts
        self.source, self.checked = source, checked

    def table(self, prefix: str, layout: Layout, table: pd.DataFrame) -> None:
        self.events.append(("table", prefix, layout))

    def rated(self, kind: str, rated: pd.DataFrame) -> None:
        self.rated_frames.append((kind, rated))


def write_page(paths: Sequence[Path], out: Path | None = None, *,
               results_root: Path = Path("results"), baseline: str | None = None,
               optima: Path | None = None) -> Path:
    """Write the page of the experiments at ``paths`` (every one under ``results_root`` when
    empty) to ``out`` (default: ``report.html`` in the experiment's folder, or in the folder
    that holds them all); return its path. Raises ResultsError, one line, for a folder
    without results."""
    directories = experiment_paths(paths, results_root)
    if not directories:
        raise ResultsError(f"no results under {results_root}/ (run an experiment first)")
    options = ReportOptions(figures=False, baseline=baseline, results_root=Path(results_root),
                            optima=optima)
    sections = [experiment_data(d, options) for d in directories]
    out = Path(out) if out is not None else default_page(directories)
    out.parent.mkdir(parents=True, exist_ok=True)
    title = " · ".join(s["name"] for s in sections)
    body = [experiment_html(s, i) for i, s in enumerate(sections)]
    data = {f"x{i}": s["figures"] for i, s in enumerate(sections)}
    out.write_text(page_html(title, body, data, [s["name"] for s in sections]),
                   encoding="utf-8")
    return out


def default_page(directories: Sequence[Path]) -> Path:
    """``report.html`` beside one experiment's results, or in the folder holding several."""
    folders = [d.parent if d.is_file() else d for d in directories]
    if len(folders) == 1:
        return folders[0] / PAGE_NAME
    common = Path(*_common_parts([f.resolve().parts for f in folders]))
    return common / PAGE_NAME


def _common_parts(parts: list[tuple[str, ...]]) -> tuple[str, ...]:
    common = []
    for items in zip(*parts, strict=False):
        if len(set(items)) != 1:
            break
        common.append(items[0])
    return tuple(common)


def experiment_data(directory: Path, options: ReportOptions) -> dict:
    """Everything the page shows of one experiment: its facts, the report's notes and tables
    in order, and the figures' data."""
    collector = Collector()
    console = Recorder(collector.events)
    with quiet_pandas():
        report_experiment(directory, replace(options, sink=collector), console)
    folder = directory.parent if directory.is_file() else directory
    data = {"name": folder.name, "folder": str(folder), "events": collector.events,
            "facts": [], "failures": [], "optima": [], "answers": [], "figures": {},
            "figure_notes": {}}
    if collector.results is None or collector.results.empty:
        data["figure_notes"]["all"] = "no completed cells: nothing to draw"
        return data
    with quiet_pandas():
        data["facts"] = study_facts(collector)
        data["failures"] = failures(collector.counts)
        data["optima"] = optima_rows(collector)
        data["answers"] = method_answers(collector)
        data["figures"], data["figure_notes"] = figure_data(collector)
    return data


# ---------------------------------------------------------------------------------------------
# What the study is


def _values(frame: pd.DataFrame, column: str) -> list:
    return sorted(frame[column].dropna().unique().tolist()) if column in frame else []


def _config_names(frame: pd.DataFrame) -> list[tuple[str, str]]:
    """(config, display name) of each configuration, in the report's method order."""
    prepared = prepare(frame)
    pairs = prepared[["config", "name"]].drop_duplicates("config")
    return sorted(pairs.itertuples(index=False, name=None),
                  key=lambda p: (method_rank(p[0]), p[0]))


def study_facts(collector: Collector) -> list[tuple[str, str]]:
    """(label, text) pairs: the grid, budgets, replications, seeds, code and optima."""
    results = collector.results
    settings = results[SETTING].drop_duplicates().sort_values(SETTING)
    problems = sorted({problem_name(p) for p in settings["problem"]})
    seeds = _values(results, "seed")
    facts = [
        ("kind", ", ".join(_values(results, "kind"))),
        ("problems", f"{len(problems)}: " + ", ".join(problems)),
        ("lambda, alpha", ", ".join(f"{lam:.2f}/{a:.2f}" for lam, a in
                                    results[["lam", "alpha"]].drop_duplicates()
                                    .sort_values(["lam", "alpha"]).to_numpy())),
        ("settings", f"{len(settings)} (problem x lambda x alpha)"),
        ("methods", f"{len(_config_names(results))}: "
         + ", ".join(n for _, n in _config_names(results))),
        ("budgets", ", ".join(f"{int(b):,}" for b in _values(results, "budget")) + " draws"),
        ("replications", f"{results['rep'].nunique()} per cell"),
        ("base seeds", ", ".join(str(int(s)) for s in seeds[:6])
         + (f" and {len(seeds) - 6} more" if len(seeds) > 6 else "")),
        ("cells", collector.counts.summary()),
    ]
    for column, label in (("method_code", "method code"), ("problem_code", "problem code")):
        if column in results:
            counts = results[column].fillna("").astype(str).replace("", "not recorded")
            counts = counts.value_counts()
            shown = "; ".join(f"{v} ({n:,} cells)" for v, n in counts.head(4).items())
            more = f"; and {len(counts) - 4} more" if len(counts) > 4 else ""
            facts.append((label, shown + more))
    facts.append(("reference optima", collector.source.describe()))
    return facts


def failures(counts) -> list[dict]:
    """Each failed cell with its one-line error (the first line of what it raised)."""
    rows = []
    for row in counts.failures.itertuples(index=False):
        error = str(row.error or "").strip()
        rows.append({
            "problem": problem_name(row.problem), "lam": f"{row.lam:.2f}",
            "method": configuration_name(row.method, row.method_display, row.kind)
            + (f" {row.varied}={row.varied_value:g}" if row.varied else ""),
            "budget": f"{int(row.budget):,}", "rep": int(row.rep),
            "error": error.splitlines()[0] if error else "no error message"})
    return rows


def optima_rows(collector: Collector) -> list[dict]:
    """Per setting, the yardstick it is rated on and whether it is current: an exact optimum,
    a reference optimum made for the cells' code, one made for other code (left out), one
    that records no code (used as it is), or none; the replications' reference floor where
    ``acfs reference --floor`` computed it; and the quality measure the figures use."""
    results, checked, source = collector.results, collector.checked, collector.source
    stale = {tuple(s.setting): s for s in checked.stale_optima}
    stale_floor = {tuple(s.setting): s for s in checked.stale_floor}
    unknown = {tuple(s) for s in checked.unknown_optima}
    current = set()
    if checked.optima is not None:
        current = set(checked.optima[SETTING].itertuples(index=False, name=None))
    floor = {}
    if checked.floor is not None:
        floor = checked.floor.groupby(SETTING).size().to_dict()
    stars = {}
    if source.optima is not None:
        for row in source.optima.itertuples(index=False):
            stars[(row.problem, row.lam, row.alpha)] = row.J_star
    exact = set()
    if "J_star_exact" in results:
        done = results[pd.to_numeric(results["J_star_exact"], errors="coerce").notna()]
        exact = set(done[SETTING].itertuples(index=False, name=None))
    measures = {}
    for _, rated in collector.rated_frames:
        for key, block in rated.groupby(SETTING):
            measures[key] = MEASURE_NAMES[block["measure"].iloc[0]][2]
    rows = []
    for setting in results[SETTING].drop_duplicates().sort_values(SETTING).itertuples(
            index=False, name=None):
        star = stars.get(setting, math.nan)
        if setting in exact:
            status = "exact optimum known to the problem"
        elif setting in stale:
            s = stale[setting]
            status = f"stale: made for {s.made_with}, cells have {s.cells_have} (left out)"
        elif setting in unknown:
            status = "records no code (older file): used as it is"
        elif setting in current:
            status = "current (made for the cells' code)"
        else:
            status = "none"
        if setting in stale_floor:
            on_floor = f"{stale_floor[setting].count} stale (left out)"
        else:
            on_floor = f"{floor[setting]} replications" if setting in floor else "-"
        rows.append({"problem": problem_name(setting[0]), "lam": f"{setting[1]:.2f}",
                     "alpha": f"{setting[2]:.2f}", "J_star": _fmt(star), "status": status,
                     "floor": on_floor,
                     "measure": measures.get(setting, "none: not in the quality tables")})
    return rows


def _fmt(value, digits: int = 4) -> str:
    if value is None or not np.isfinite(float(value)):
        return "-"
    value = float(value)
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}"


def _decision(x, shown: int = 8) -> str:
    """``(0.2, 0.5)``; a long decision's first coordinates and its dimension."""
    if x is None:
        return "-"
    head = ", ".join(_fmt(v, 3) for v in x[:shown])
    return f"({head}, ... {len(x)} coordinates)" if len(x) > shown else f"({head})"


def method_answers(collector: Collector) -> list[dict]:
    """Per configuration, what it answered in each setting and budget: median x*, the median
    J of x* with its 25-75 % range over replications (the most precise evaluation the cells
    have), x0's J, how many answers were no better than x0, and the cells' notes; and the
    settings where it has no answer (every cell failed)."""
    from acfs_cli.report.tables import answers_table

    results = collector.results
    prepared = prepare(results)
    done = usable(prepared)
    j_column = "J_true" if "J_true" in done and done["J_true"].notna().any() else "J"
    out = []
    for config, name in _config_names(results):
        mine = prepared[prepared["config"] == config]
        rows = []
        for budget, block in mine.groupby("budget", sort=True):
            answers = answers_table(block)
            good = usable(block)
            for a in answers.itertuples(index=False):
                cells = good[(good["problem"] == a.problem) & (good["lam"] == a.lam)
                             & (good["alpha"] == a.alpha)]
                j = pd.to_numeric(cells[j_column], errors="coerce").dropna().to_numpy()
                notes = cells["notes"].fillna("").astype(str) if "notes" in cells else []
                notes = pd.Series(notes)
                notes = notes[notes.str.len() > 0].value_counts()
                rows.append({
                    "setting": f"{problem_name(a.problem)} λ={a.lam:.2f}",
                    "budget": f"{int(budget):,}", "n": int(a.n),
                    "x": _decision(a.x_med),
                    "J": _fmt(quantile(j, 0.5)) if j.size else "-",
                    "J_range": (f"[{_fmt(quantile(j, 0.25))}; {_fmt(quantile(j, 0.75))}]"
                                if j.size > 1 else "one replication" if j.size else "-"),
                    "J_x0": _fmt(a.J_x0_med),
                    "no_better": f"{a.no_better}/{a.compared}" if a.compared else "-",
                    "notes": "; ".join(f"{t} ({k}/{a.n})" for t, k in notes.items())})
            missing = block[SETTING].drop_duplicates()
            answered = set(answers[SETTING].itertuples(index=False, name=None))
            for s in missing.itertuples(index=False, name=None):
                if s not in answered:
                    rows.append({"setting": f"{problem_name(s[0])} λ={s[1]:.2f}",
                                 "budget": f"{int(budget):,}", "n": 0, "x": "-", "J": "-",
                                 "J_range": "-", "J_x0": "-", "no_better": "-",
                                 "notes": "no answer: every cell failed"})
        out.append({"config": config, "name": name, "J_on": j_column, "rows": rows})
    return out


# ---------------------------------------------------------------------------------------------
# The figures' data


def _colours(configs: list[str]) -> dict[str, int]:
    return {c: i for i, c in enumerate(configs)}


def _num(value) -> float | None:
    """A JSON number: None for NaN, +inf kept as a large sentinel the script reads as +inf."""
    value = float(value)
    if math.isnan(value):
        return None
    if math.isinf(value):
        return 1e308 if value > 0 else -1e308
    return value


def figure_data(collector: Collector) -> tuple[dict, dict]:
    """The data of each figure and, for each figure that is not drawn, why."""
    results = collector.results
    methods = _config_names(results)
    figures: dict = {"methods": [{"config": c, "name": n} for c, n in methods]}
    notes: dict[str, str] = {}
    rated = pd.concat([r for _, r in collector.rated_frames]) if collector.rated_frames \
        else pd.DataFrame()
    if rated.empty:
        reason = ("no quality measure (no exact optimum, and no large-sample J with a current "
                  "reference optimum): no quality figures")
        if usable(results).empty:
            reason = "no completed cells (every cell failed or is missing): nothing to draw"
        for key in ("progress", "solvability", "area", "boxes"):
            notes[key] = reason
        return figures, notes
    left_out = _left_out(results, rated)
    if left_out:
        notes["left_out"] = f"not in the figures (no quality measure): {left_out}"
    figures["boxes"], notes_boxes = _boxes(rated)
    if notes_boxes:
        notes["boxes"] = notes_boxes
    points = checkpoint_quality(rated)
    if points.empty:
        reason = ("the cells recorded no checkpoints (quality of the incumbent during the "
                  "search): no progress curves, solvability profiles or area scatter")
        for key in ("progress", "solvability", "area"):
            notes[key] = reason
        return figures, notes
    table = progress_table(points)
    figures["progress"] = _progress(table)
    if np.isinf(table["median"].to_numpy(dtype=float)).any():
        notes["progress_left_out"] = ("a point is missing where half the replications had no "
                                      "incumbent yet (their regret is +inf: no x0 to measure "
                                      "from)")
    if points["rep"].nunique() < 2:
        notes["progress_band"] = "one replication: each line is that replication, no band"
    curves = replication_curves(points)
    if not curves:
        reason = ("no setting is rated on a normalised gap (measured from x0): SimOpt's "
                  "solvability profiles and areas need one")
        notes["solvability"] = notes["area"] = reason
        return figures, notes
    profiles = solvability_profiles(curves)
    figures["solvability"] = [
        {"budget": int(r.budget), "config": r.config, "tol": r.tol, "kind": r.kind,
         "problems": int(r.problems), "x": r.x, "y": r.y}
        for r in profiles.itertuples(index=False)]
    areas = area_scatter(curves)
    if (areas["n"] < 2).all():
        notes["area"] = ("one replication per problem: no spread of the area, no scatter "
                         "(the progress curves show the replication)")
    else:
        figures["area"] = [
            {"setting": _setting_name(r.problem, r.lam, r.alpha), "budget": int(r.budget),
             "config": r.config, "n": int(r.n), "mean": _num(r.mean), "sd": _num(r.sd)}
            for r in areas.itertuples(index=False) if r.n > 1]
    unrated = points[~points["measure"].isin(FROM_X0)][SETTING].drop_duplicates()
    if len(unrated):
        names = ", ".join(_setting_name(*s) for s in unrated.itertuples(index=False,
                                                                          name=None))
        notes["solvability_left_out"] = (f"rated on a regret, not a normalised gap, so not in "
                                         f"SimOpt's profiles and areas: {names}")
    return figures, notes


def _setting_name(problem: str, lam: float, alpha: float) -> str:
    return f"{problem_name(problem)} λ={lam:.2f}"


def _left_out(results: pd.DataFrame, rated: pd.DataFrame) -> str:
    done = usable(results)[SETTING].drop_duplicates()
    keys = set(rated[SETTING].drop_duplicates().itertuples(index=False, name=None))
    names = [_setting_name(*s) for s in done.itertuples(index=False, name=None)
             if s not in keys]
    return ", ".join(names)


def _boxes(rated: pd.DataFrame) -> tuple[list, str]:
    """Per setting and budget, each configuration's five numbers of the final quality (Tukey
    whiskers at 1.5 IQR) and its replications; a note when every method has one
    replication (a point, not a box)."""
    panels = []
    single = True
    for key, block in rated.groupby([*SETTING, "budget"], sort=True):
        measure = block["measure"].iloc[0]
        boxes = []
        for config, g in sorted(block.groupby("config"),
                                key=lambda p: (method_rank(p[0]), p[0])):
            v = np.sort(g["quality"].to_numpy(dtype=float))
            single &= v.size < 2
            q1, med, q3 = (quantile(v, q) for q in (0.25, 0.5, 0.75))
            reach = 1.5 * (q3 - q1)
            inside = v[(v >= q1 - reach) & (v <= q3 + reach)]
            outliers = v[(v < q1 - reach) | (v > q3 + reach)]
            boxes.append({"config": config, "n": int(v.size), "q1": _num(q1),
                          "med": _num(med), "q3": _num(q3),
                          "lo": _num(inside.min() if inside.size else q1),
                          "hi": _num(inside.max() if inside.size else q3),
                          "out": [_num(o) for o in outliers[:50]]})
        panels.append({"setting": _setting_name(*key[:3]), "budget": int(key[3]),
                       "measure": MEASURE_NAMES[measure][0], "boxes": boxes})
    note = ("one replication per method: each mark is that replication, not a box"
            if single else "")
    return panels, note


def _progress(table: pd.DataFrame) -> list:
    """Per setting and budget, each configuration's median and band against draws, from
    :func:`~acfs_cli.report.page_curves.progress_table`."""
    panels = []
    for key, block in table.groupby([*SETTING, "budget"], sort=True):
        measure = block["measure"].iloc[0]
        lines = []
        for config, g in sorted(block.groupby("config"),
                                key=lambda p: (method_rank(p[0]), p[0])):
            g = g.sort_values("fraction")
            lines.append({"config": config, "draws": [_num(v) for v in g["draws"]],
                          "fraction": [_num(v) for v in g["fraction"]],
                          "n": [int(v) for v in g["n"]],
                          "median": [_num(v) for v in g["median"]],
                          "lo": [_num(v) for v in g["lo"]],
                          "hi": [_num(v) for v in g["hi"]]})
        panels.append({"setting": _setting_name(*key[:3]), "budget": int(key[3]),
                       "measure": MEASURE_NAMES[measure][0], "lines": lines})
    return panels


__all__ = ["Collector", "Recorder", "write_page"]
