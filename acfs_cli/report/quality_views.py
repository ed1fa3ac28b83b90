"""Layouts of the quality tables (:mod:`acfs_cli.report.quality`): quality at each checkpoint,
the area under the progress curve, quality against the budget, and the problem library's gaps
and ranking."""

from __future__ import annotations

import math

import pandas as pd

from acfs_cli.report.layout import (
    Column,
    Entry,
    Layout,
    Row,
    lam_key,
    latex_escape,
    number,
    problem_key,
    problem_name,
    text,
)
from acfs_cli.report.quality import MEASURE_NAMES, THRESHOLDS
from acfs_cli.report.views import KEY_LAM, KEY_PROBLEM

KEY_BUDGET = Column("budget", "Budget", "r")


def quality_value(value) -> Entry:
    """A quality (%) to two or three significant digits (``172``, ``52``, ``6.5``, ``0.11``);
    +inf (no incumbent yet) as ``inf``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return Entry("-", "---")
    value = float(value)
    if math.isinf(value):
        return Entry("inf", r"$\infty$")
    magnitude = abs(value)
    digits = 0 if magnitude >= 9.95 else 1 if magnitude >= 0.995 else 2
    plain = f"{value:,.{digits}f}"
    # Text digits (not math mode), so that \textbf reaches them; a math minus sign.
    latex = plain.replace(",", "{,}")
    return Entry(plain, "$-$" + latex[1:] if latex.startswith("-") else latex)


def median_worst(median, worst, style: str = "") -> Entry:
    """``median / worst`` of a method's quality over replications."""
    a, b = quality_value(median), quality_value(worst)
    if a.plain == "-":
        return Entry("-", "---", style)
    return Entry(f"{a.plain} / {b.plain}", f"{a.latex} / {b.latex}", style)


def _share(value) -> Entry:
    if value is None or not math.isfinite(float(value)):
        return Entry("-", "---")
    plain = f"{float(value):.0f}"
    return Entry(f"{plain}%", f"{plain}\\%")


def _fraction(value: float) -> str:
    return f"{100 * value:g}%"


def _several(frame: pd.DataFrame, column: str) -> bool:
    return frame[column].nunique() > 1


def _key_flags(frame: pd.DataFrame) -> tuple[bool, bool]:
    """Whether a table needs a lambda key (several lambdas or alphas) and a budget key."""
    lam = _several(frame, "lam") or _several(frame, "alpha")
    return lam, "budget" in frame.columns and _several(frame, "budget")


def _keys(frame: pd.DataFrame, r, lam: bool, budget: bool) -> tuple[Entry, ...]:
    keys = (problem_key(r["problem"]),)
    if lam:
        keys += (lam_key(r["lam"], r["alpha"] if _several(frame, "alpha") else None),)
    return (*keys, number(r["budget"])) if budget else keys


def _key_columns(lam: bool, budget: bool) -> tuple[Column, ...]:
    return (KEY_PROBLEM, *((KEY_LAM,) if lam else ()), *((KEY_BUDGET,) if budget else ()))


def _setting_text(frame: pd.DataFrame, lam: bool) -> str:
    """The lambda and alpha of a table whose rows do not show them (LaTeX)."""
    alphas = ", ".join(f"{a:.2f}" for a in sorted(frame["alpha"].unique()))
    if lam:
        return f"$\\alpha={alphas}$"
    return f"$\\lambda={frame['lam'].iloc[0]:.2f}$, $\\alpha={alphas}$"


def _measures_text(frame: pd.DataFrame) -> tuple[str, str]:
    """Which measure each problem's quality is, in words (plain, LaTeX)."""
    plain, latex = [], []
    by_measure = frame.drop_duplicates("problem").groupby("measure", sort=False)["problem"]
    for measure, problems in by_measure:
        names = ", ".join(problem_name(p) for p in sorted(problems))
        plain.append(f"{MEASURE_NAMES[measure][0]} for {names}")
        latex.append(f"{MEASURE_NAMES[measure][1]} for {latex_escape(names)}")
    return "; ".join(plain), "; ".join(latex)


def _measure_title(frame: pd.DataFrame, first: bool = True) -> str:
    """The measure a table's title names: ``Regret %`` where every problem has the same
    (regret, paired regret, normalised gap), else ``Quality (regret % for shop; normalised
    gap % for dgp1)`` - never one title for two measures; in lower case unless ``first``."""
    names: dict[str, list[str]] = {}
    for problem, measure in frame.drop_duplicates("problem")[["problem", "measure"]].itertuples(
            index=False):
        names.setdefault(MEASURE_NAMES[measure][0], []).append(problem_name(problem))
    if len(names) == 1:
        name = next(iter(names))
    else:
        name = "quality (" + "; ".join(f"{name} for {', '.join(sorted(problems))}"
                                      for name, problems in names.items()) + ")"
    return name[0].upper() + name[1:] if first else name


_MEASURE_CAPTION = (
    "The normalised gap is $100\\,(J(x) - J^{*}) / (J(x_0) - J^{*})$ on exact values ($x_0$ the "
    "problem's stated reference decision), the paired regret $100\\,(J^{\\mathrm{true}} - "
    "J^{\\mathrm{true}}_{\\mathrm{ref}}) / |J^{*}|$ with the reference minimiser estimated on the "
    "replication's own large sample, the regret $100\\,(J^{\\mathrm{true}} - J^{*}) / |J^{*}|$."
)


def _best_medians(table: pd.DataFrame, block: list[str], column: str = "median") -> pd.Series:
    """True where a row has the lowest median of its block."""
    lowest = table.groupby(block)[column].transform("min")
    return table[column] == lowest


def checkpoint_layout(table: pd.DataFrame) -> Layout:
    """Quality of each method's incumbent at each checkpoint: median / worst over replications,
    the lowest median of a block and checkpoint in bold."""
    lam, budget = _key_flags(table)
    fractions = sorted(table["fraction"].unique())
    best = _best_medians(table, ["problem", "lam", "alpha", "budget", "fraction"])
    table = table.assign(_best=best)
    rows = []
    for _, block in table.groupby(["problem", "lam", "alpha", "budget", "name"], sort=False):
        first = block.iloc[0]
        at = block.set_index("fraction")
        cells = [text(str(first["name"]))]
        for f in fractions:
            if f not in at.index:
                cells.append(Entry("-", "---"))
                continue
            r = at.loc[f]
            cells.append(median_worst(r["median"], r["worst"], "bold" if r["_best"] else ""))
        cells.append(text(str(int(block["n"].max()))))
        rows.append(Row(_keys(table, first, lam, budget), tuple(cells)))
    columns = [Column("Method", "Method", "l")]
    columns += [Column(_fraction(f), latex_escape(_fraction(f))) for f in fractions]
    columns.append(Column("n", "n", in_latex=False))
    plain_measures, latex_measures = _measures_text(table)
    caption = (
        "Quality of each method's incumbent at each checkpoint (the share of the budget spent), "
        f"evaluated like $x^*$ ({_setting_text(table, lam)}): median / worst over replications "
        f"of the {latex_measures}; lower is better, the lowest median of a block and checkpoint "
        "in bold. " + _MEASURE_CAPTION + " A replication without an incumbent yet counts as "
        "$x_0$ (100) under the normalised gap and as $\\infty$ under a regret."
    )
    notes = (f"Quality: {plain_measures}.",)
    if (table["no_incumbent"] > 0).any():
        notes += ("inf: no incumbent yet in that share of the replications.",)
    return Layout(
        name="quality_checkpoints",
        title=f"{_measure_title(table)} at each share of the budget: median / worst over "
              "replications",
        caption=caption,
        key_columns=_key_columns(lam, budget),
        columns=tuple(columns),
        rows=tuple(rows),
        notes=notes,
    )


def area_layout(table: pd.DataFrame) -> Layout:
    """Area under the median progress curve with its bootstrap interval, per method."""
    lam, budget = _key_flags(table)
    best = _best_medians(table, ["problem", "lam", "alpha", "budget"], "auc")
    rows = []
    for (_, r), is_best in zip(table.iterrows(), best, strict=True):
        lo, hi, auc = (quality_value(r[c]) for c in ("auc_lo", "auc_hi", "auc"))
        span = "-"
        if pd.notna(r["span_from"]):
            span = f"{_fraction(r['span_from'])}-{_fraction(r['span_to'])}"
        cells = (
            text(str(r["name"])),
            Entry(auc.plain, auc.latex, "bold" if is_best else ""),
            Entry(f"[{lo.plain}; {hi.plain}]", rf"[{lo.latex};\,{hi.latex}]"),
            Entry(span, latex_escape(span).replace("-", "--")),
            text(str(int(r["n"]))),
        )
        rows.append(Row(_keys(table, r, lam, budget), cells))
    plain_measures, latex_measures = _measures_text(table)
    caption = (
        f"Area under the median progress curve ({_setting_text(table, lam)}): the median over "
        f"replications of the {latex_measures} at each checkpoint, joined by trapezoids "
        "against the share of the budget (lower is better, the lowest of a block in bold), with "
        "a 95\\% percentile bootstrap interval over replications. Within a block every method "
        "is measured over the same span of checkpoints: from the first at which every median "
        "is finite."
    )
    return Layout(
        name="progress_auc",
        title=f"Area under the median progress curve of the {_measure_title(table, False)} "
              "against "
              "the share of the budget",
        caption=caption,
        key_columns=_key_columns(lam, budget),
        columns=(
            Column("Method", "Method", "l"),
            Column("AUC", "AUC"),
            Column("95% CI", r"95\% CI"),
            Column("span", "span"),
            Column("n", "n", in_latex=False),
        ),
        rows=tuple(rows),
        notes=(f"Quality: {plain_measures}; lower is better.",),
    )


def budget_quality_layout(table: pd.DataFrame) -> Layout:
    """Quality of the final x* against the budget (each method planned for its budget):
    median / worst per method and budget, the lowest median of a block and budget in bold."""
    lam, _ = _key_flags(table)
    budgets = sorted(table["budget"].unique())
    best = _best_medians(table, ["problem", "lam", "alpha", "budget"])
    table = table.assign(_best=best)
    rows = []
    for _, block in table.groupby(["problem", "lam", "alpha", "name"], sort=False):
        first = block.iloc[0]
        at = block.set_index("budget")
        cells = [text(str(first["name"]))]
        for b in budgets:
            if b not in at.index:
                cells.append(Entry("-", "---"))
                continue
            r = at.loc[b]
            cell = median_worst(r["median"], r["worst"], "bold" if r["_best"] else "")
            if r.get("constrained", 0):
                shown = f" [{int(r['shown_feasible'])}/{int(r['constrained'])}]"
                cell = Entry(cell.plain + shown, cell.latex + shown, cell.style)
            cells.append(cell)
        cells.append(text(str(int(block["n"].max()))))
        rows.append(Row(_keys(table, first, lam, False), tuple(cells)))
    columns = [Column("Method", "Method", "l")]
    columns += [Column(number(b).plain, number(b).latex) for b in budgets]
    columns.append(Column("n", "n", in_latex=False))
    plain_measures, latex_measures = _measures_text(table)
    caption = (
        "Quality of the final $x^*$ against the budget (columns, draws), each method planning "
        f"for its budget ({_setting_text(table, lam)}): median / worst over replications of the "
        f"{latex_measures}; lower is better, the lowest median of a block and budget in bold. "
        + _MEASURE_CAPTION
        + (" [k/n]: k of the n answers to a problem with stochastic constraints shown "
           "feasible on the evaluation's fresh draws (95 \\% intervals at or below their "
           "bounds); the others keep their gap and are counted."
           if "constrained" in table and table["constrained"].fillna(0).gt(0).any() else "")
    )
    return Layout(
        name="quality_budget",
        title=f"{_measure_title(table)} against the budget: median / worst over replications",
        caption=caption,
        key_columns=_key_columns(lam, False),
        columns=tuple(columns),
        rows=tuple(rows),
        notes=(f"Quality: {plain_measures}.",),
    )


def library_gap_layout(table: pd.DataFrame) -> Layout:
    """Per problem and method: median and worst normalised gap and the rank of the median."""
    lam, budget = _key_flags(table)
    lowest = table.groupby(["problem", "lam", "alpha", "budget"])["rank"].transform("min")
    rows = []
    for (_, r), is_best in zip(table.iterrows(), table["rank"] == lowest, strict=True):
        median = quality_value(r["median"])
        cells = (
            text(str(r["name"])),
            Entry(median.plain, median.latex, "bold" if is_best else ""),
            quality_value(r["worst"]),
            Entry(f"{r['rank']:g}", f"{r['rank']:g}"),
            text(str(int(r["n"]))),
        )
        rows.append(Row(_keys(table, r, lam, budget), cells))
    caption = (
        "Normalised gap $100\\,(J(x^*) - J^{*}) / (J(x_0) - J^{*})$ of each method on each "
        f"problem with a known optimum ({_setting_text(table, lam)}; exact values, $x_0$ the "
        "problem's stated reference decision): median and worst over replications, and the "
        "rank of the median among the methods of the problem (1 best, the best in bold)."
    )
    return Layout(
        name="library_gap",
        title="Normalised gap per problem (%, lower is better)",
        caption=caption,
        key_columns=_key_columns(lam, budget),
        columns=(
            Column("Method", "Method", "l"),
            Column("median", "Median"),
            Column("worst", "Worst"),
            Column("rank", "Rank"),
            Column("n", "n", in_latex=False),
        ),
        rows=tuple(rows),
    )


def library_ranking_layout(table: pd.DataFrame) -> Layout:
    """Across problems: mean rank of each method's median gap and the share of problems solved
    within each threshold, by the median and by the worst replication."""
    budget = table["budget"].nunique() > 1
    rows = []
    for _, r in table.iterrows():
        cells = [
            text(str(r["name"])),
            Entry(f"{r['mean_rank']:.2f}", f"{r['mean_rank']:.2f}"),
            text(f"{int(r['problems'])}/{int(r['of'])}"),
        ]
        cells += [_share(r[f"solved_{t:g}_{by}"]) for by in ("median", "worst")
                  for t in THRESHOLDS]
        rows.append(Row((number(r["budget"]),) if budget else (), tuple(cells)))
    within = [Column(f"<={t:g}% {by}", f"$\\le {t:g}\\%$ ({by})")
              for by in ("median", "worst") for t in THRESHOLDS]
    caption = (
        "Ranking across the problems with a known optimum: mean rank of each method's median "
        "normalised gap over the problems (1 best; average ranks for ties), the number of "
        "problems it ran on, and the share of problems solved within "
        + " and ".join(f"{t:g}\\%" for t in THRESHOLDS)
        + " by the median gap (median) and by the worst replication's gap (worst)."
    )
    return Layout(
        name="library_rank",
        title="Ranking across problems by normalised gap; share of problems solved",
        caption=caption,
        key_columns=(KEY_BUDGET,) if budget else (),
        columns=(Column("Method", "Method", "l"), Column("mean rank", "Mean rank"),
                 Column("problems", "Problems"), *within),
        rows=tuple(rows),
    )
