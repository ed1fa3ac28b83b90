"""Lay the tidy tables out as the paper prints them (Section 5 and Appendix A).

Each function turns one frame of :mod:`acfs_cli.report.tables` into a :class:`Layout`: which rows
group under which problem and lambda, the column headers, the emphasis (the reference method in
bold, a method with a lower median than the reference in italics) and the caption.
"""

from __future__ import annotations

import pandas as pd

from acfs_cli.common.naming import short_array
from acfs_cli.report.layout import (
    Column,
    Entry,
    Layout,
    Row,
    Spanner,
    decimal,
    interval,
    lam_key,
    latex_escape,
    number,
    optional,
    percent,
    percent_gap,
    problem_key,
    problem_name,
    pvalue,
    se_decimals,
    signed_number,
    text,
)
from acfs_cli.report.stats import SIGNIFICANCE, pairs_for_significance
from acfs_cli.report.tables import Protocol
from acfs_cli.results.read import SETTING

#: Sensitivity parameters as the paper names them (Table "sensitivity").
PARAMETER_LABELS: dict[str, tuple[str, str]] = {
    "n_a": ("N_A (LHC size)", r"$N_A$ (LHC size)"),
    "n_f": ("n_f (GRF re-rank MC)", r"$n_f$ (GRF re-rank MC)"),
    "k": ("K (elite centres)", r"$K$ (elite centres)"),
    "n_d": ("n_d (direct-DGP MC)", r"$n_d$ (direct-DGP MC)"),
}

#: A long problem name (a user's, with parameters) folds onto further lines, never cut.
KEY_PROBLEM = Column("problem", "Problem", "l", wrap=True)
KEY_LAM = Column("lambda", r"$\lambda$", "l")


def _symbol(protocol: Protocol, quantity: str = "J") -> tuple[str, str]:
    """Plain and LaTeX symbols of J (or EC, CVaR) under a protocol."""
    latex = {"J": "J", "EC": r"\mathrm{EC}", "CVaR": r"\mathrm{CVaR}"}[quantity]
    if not protocol.precise:
        return quantity, latex
    return f"{quantity}true", latex + r"^{\mathrm{true}}"


def _stat_column(protocol: Protocol, subscript: str, quantity: str = "J") -> Column:
    plain, latex = _symbol(protocol, quantity)
    latex_subscript = r"\mathrm{" + subscript + "}" if subscript.isalpha() else subscript
    return Column(f"{plain}_{subscript}", f"${latex}_{{{latex_subscript}}}$")


def _quartile_column(protocol: Protocol, q: int) -> Column:
    plain, latex = _symbol(protocol)
    return Column(f"{plain}_Q{q}", f"${latex}_{{Q_{{{q}}}}}$")


def _iqr_column(protocol: Protocol) -> Column:
    plain, latex = _symbol(protocol)
    return Column(f"{plain}_Q25-{plain}_Q75", f"${latex}_{{Q_{{25}}}}$--${latex}_{{Q_{{75}}}}$")


def _several_alphas(frame: pd.DataFrame) -> bool:
    return frame["alpha"].nunique() > 1


def _setting_keys(frame: pd.DataFrame, problem: str, lam: float, alpha: float
                  ) -> tuple[Entry, ...]:
    shown_alpha = alpha if _several_alphas(frame) else None
    return problem_key(problem), lam_key(lam, shown_alpha)


def _replications(frame: pd.DataFrame, column: str = "n") -> str:
    low, high = int(frame[column].min()), int(frame[column].max())
    return f"{high} replications" if low == high else f"{low}--{high} replications"


def _alpha_text(frame: pd.DataFrame) -> str:
    alphas = sorted(frame["alpha"].unique())
    return ", ".join(f"{a:.2f}" for a in alphas)


def _digits(row) -> int | None:
    """Decimals of a row's J values: those its setting's standard error supports."""
    if "J_se" not in row.index:
        return None
    return se_decimals(row["J_se"], row["J_med"] if "J_med" in row.index else None)


def _compared_with(ref: str, what: str) -> str:
    """A caption's sentence on the baseline, empty when the study has none."""
    return what if ref else ""


def _emphasis(row) -> str:
    if row["is_reference"]:
        return "bold"
    return "italic" if bool(row["beats_reference"]) else ""


def summary_layout(stats: pd.DataFrame, protocol: Protocol, reference: str) -> Layout:
    """Compact summary (paper Table "results summary"): per lambda, the DGPs side by side with
    J median, SD and Diff%; rows in the order of every table (the configuration's, as
    :func:`~acfs_cli.report.tables.prepare` gives it). J shows the digits the setting's
    standard error supports, the same for every method."""
    problems = sorted(stats["problem"].unique())
    rows = []
    for (lam, alpha), block in stats.groupby(["lam", "alpha"], sort=True):
        medians = block.pivot(index="config", columns="problem", values="J_med")
        configs = list(dict.fromkeys(block["config"]))  # stats come in the tables' order
        medians = medians.reindex(index=configs, columns=problems)
        key = (lam_key(lam, alpha if _several_alphas(stats) else None),)
        for config in medians.index:
            by_problem = block[block["config"] == config].set_index("problem")
            first = by_problem.iloc[0]
            beats_somewhere = bool(by_problem["beats_reference"].any())
            name_style = "bold" if first["is_reference"] else "italic" if beats_somewhere else ""
            cells = [text(str(first["name"]), name_style)]
            for problem in problems:
                if problem not in by_problem.index:
                    cells += [number(None)] * 3
                    continue
                r = by_problem.loc[problem]
                style = _emphasis(r)
                gap_style = "bold" if r["is_reference"] else ""
                cells += [
                    number(r["J_med"], style, _digits(r)),
                    number(r["J_SD"], style, _digits(r)),
                    percent_gap(r["diff_pct"], bool(r["is_reference"]), gap_style),
                ]
            rows.append(Row(key, tuple(cells)))
    columns = [Column("Method", "Method", "l")]
    spanners = []
    for i, problem in enumerate(problems):
        columns += [
            _stat_column(protocol, "med"),
            _stat_column(protocol, "SD"),
            Column("Diff%", r"Diff\%"),
        ]
        spanners.append(Spanner(problem_key(problem), 1 + 3 * i, 3 + 3 * i))
    plain_j, latex_j = _symbol(protocol)
    ref = latex_escape(reference)
    caption = (
        f"Comparative results summary ({protocol.description}; {_replications(stats)} per "
        f"setting; $\\alpha={_alpha_text(stats)}$). For each $\\lambda$ the problems are shown "
        f"side by side: median ${latex_j}_{{\\mathrm{{med}}}}$, cross-replication standard "
        f"deviation ${latex_j}_{{\\mathrm{{SD}}}}$"
        + _compared_with(ref, f" and relative difference of the median to {ref} (Diff\\%). "
                         f"\\textbf{{Bold}} marks {ref}, the baseline; \\textit{{italics}} "
                         f"mark a method with a lower median than {ref} in that "
                         "problem--$\\lambda$ block")
        + ". $J$ is shown to the first significant digit of its standard error."
    )
    return Layout(
        name="summary" + protocol.suffix,
        title=f"Summary of {plain_j} ({protocol.description})",
        caption=caption,
        key_columns=(KEY_LAM,),
        columns=tuple(columns),
        rows=tuple(rows),
        spanners=tuple(spanners),
    )


def full_layout(stats: pd.DataFrame, protocol: Protocol, reference: str) -> Layout:
    """Full statistics (paper Table "full results", Appendix A): J median, SD, quartiles, EC
    and CVaR medians and Diff%, methods ordered by J median within each block; where a
    problem declares stochastic constraints, the share of replications shown feasible."""
    constrained = "feasible" in stats and bool(stats["feasible"].notna().any())
    rows = []
    for _, r in stats.iterrows():
        style = _emphasis(r)
        cells = [
            text(str(r["name"]), style),
            *(
                number(r[c], style, _digits(r))
                for c in ("J_med", "J_SD", "J_Q25", "J_Q75", "EC_med", "CVaR_med")
            ),
            percent_gap(r["diff_pct"], bool(r["is_reference"])),
        ]
        if constrained:
            cells.append(percent(r["feasible"], style))
        rows.append(Row(_setting_keys(stats, r["problem"], r["lam"], r["alpha"]), tuple(cells)))
    plain_j, latex_j = _symbol(protocol)
    columns = (
        Column("Method", "Method", "l"),
        _stat_column(protocol, "med"),
        _stat_column(protocol, "SD"),
        optional(_quartile_column(protocol, 25), 1),
        optional(_quartile_column(protocol, 75), 1),
        optional(_stat_column(protocol, "med", "EC"), 2),
        optional(_stat_column(protocol, "med", "CVaR"), 2),
        Column("Diff%", r"Diff\%"),
        *((Column("Feasible", r"Feasible"),) if constrained else ()),
    )
    ref = latex_escape(reference)
    caption = (
        f"Full statistics of ${latex_j}$ ({protocol.description}; $\\alpha={_alpha_text(stats)}$, "
        f"{_replications(stats)}): median, standard deviation, 25th and 75th percentiles, median "
        f"expected cost and CVaR"
        + _compared_with(ref, f", and relative difference of the median to {ref} (Diff\\%)")
        + ". Methods are ordered by the median within each block"
        + _compared_with(ref, f"; \\textbf{{bold}} marks {ref}, the baseline, "
                         f"\\textit{{italics}} a lower median than {ref}")
        + "."
        + (" Feasible: the share of replications whose answer's stochastic constraints were "
           "all shown to hold (95 \\% intervals at or below their bounds) on the evaluation's "
           "fresh draws; the others count in J as they are." if constrained else "")
    )
    return Layout(
        name="full" + protocol.suffix,
        title=f"Full statistics of {plain_j} ({protocol.description})",
        caption=caption,
        key_columns=(KEY_PROBLEM, KEY_LAM),
        columns=columns,
        rows=tuple(rows),
    )


def _unreachable(tests: pd.DataFrame) -> tuple[str, str] | None:
    """Where no test of a block can reach significance (too few pairs for Holm's
    correction), what to say instead of a column of "ns": a terminal note and a caption
    sentence; None where every block can."""
    if "p_floor" not in tests.columns:
        return None
    blocked = tests[tests["p_floor"] >= SIGNIFICANCE]
    if blocked.empty:
        return None
    first = blocked.iloc[0]
    m = int(tests[(tests[SETTING] == first[SETTING]).all(axis=1)]["p_holm"].notna().sum())
    n = int(first["n_pairs"])
    blocks = blocked[SETTING].drop_duplicates()
    names = [f"{problem_name(d)} lambda={lam:.2f}" for d, lam, _ in blocks.itertuples(
        index=False)]
    where = "any block" if len(blocks) == tests[SETTING].drop_duplicates().shape[0] else (
        ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else ""))
    text = (f"With {n} pairs and {m} comparison(s), no p_Holm can fall below "
            f"{first['p_floor']:.3g} in {where} (a one-sided signed-rank test on {n} pairs "
            f"gives at least {first['p_floor'] / m:.3g}, and Holm multiplies it by {m}): no "
            f"difference can be significant at {SIGNIFICANCE:.0%} there, so none is starred; "
            f"{pairs_for_significance(m)} replications without ties could show one.")
    return text, latex_escape(text).replace(r"p\_Holm", r"$p_{\mathrm{Holm}}$")


def wilcoxon_layout(
    tests: pd.DataFrame, protocol: Protocol, reference: str, other: str = "competitor"
) -> Layout:
    """Paired Wilcoxon tests (paper Table "Wilcoxon"), Holm-adjusted within each block."""
    rows = []
    for _, r in tests.iterrows():
        # a paired difference is as precise as its own interval says, not as J
        digits = se_decimals((r["ci_hi"] - r["ci_lo"]) / 3.92)
        cells = (
            text(str(r["name"])),
            signed_number(r["med_diff"], digits),
            interval(r["ci_lo"], r["ci_hi"], digits),
            pvalue(r["p_holm"], r["stars"]),
            decimal(r["r_rb"]),
            percent(r["win_pct"]),
            text(str(int(r["n_pairs"]))),
        )
        rows.append(Row(_setting_keys(tests, r["problem"], r["lam"], r["alpha"]), cells))
    plain_j, latex_j = _symbol(protocol)
    columns = (
        Column(other.capitalize(), other.capitalize(), "l"),
        Column("Med. diff", r"Med.\ diff"),
        Column("95% CI", r"95\% CI"),
        Column("p_Holm", r"$p_{\mathrm{Holm}}$"),
        optional(Column("r_rb", r"$r_{rb}$"), 1),
        optional(Column("Win%", r"Win\%"), 2),
        Column("pairs", "pairs", in_latex=False, optional=3),
    )
    ref = latex_escape(reference)
    vs = latex_escape(other)
    caption = (
        f"Paired one-sided Wilcoxon signed-rank tests of ${latex_j}$ ({protocol.description}; "
        f"$H_1$: {ref} $<$ {vs}), Holm-corrected within each problem--$\\lambda$ "
        f"block, on the replications complete for both methods. Med.\\ diff = {ref}$-${vs} "
        f"(negative values favour {ref}); 95\\% CI is a percentile bootstrap interval; "
        f"$r_{{rb}}$ is the rank-biserial correlation (positive values favour {ref}); "
        f"Win\\% is the per-replication win rate of {ref}."
    )
    notes = ()
    if len(tests) and tests["n_pairs"].nunique() > 1:
        notes = ("Comparisons differ in their number of complete pairs (column 'pairs').",)
    unreachable = _unreachable(tests)
    if unreachable:
        notes += (unreachable[0],)
        caption += " " + unreachable[1]
    return Layout(
        name="wilcoxon" + protocol.suffix,
        title=f"Wilcoxon signed-rank tests on {plain_j}: {reference} vs each {other}",
        caption=caption,
        key_columns=(KEY_PROBLEM, KEY_LAM),
        columns=columns,
        rows=tuple(rows),
        notes=notes,
    )


def budget_layout(budget: pd.DataFrame) -> Layout:
    """Median counted oracle draws (paper Table "oracle budget"): methods by settings."""
    settings = (
        budget[SETTING].drop_duplicates().sort_values(SETTING)
    )
    several_alphas = _several_alphas(budget)
    columns = [Column("Method", "Method", "l")]
    spanners = []
    for problem, group in settings.groupby("problem", sort=True):
        first = len(columns)
        for _, s in group.iterrows():
            label = lam_key(s["lam"], s["alpha"] if several_alphas else None)
            # the problem heads its block: a column says its lambda only
            columns.append(Column(f"lambda {label.plain}", f"$\\lambda={label.latex}$"))
        spanners.append(Spanner(problem_key(problem), first, len(columns) - 1))
    draws = budget.set_index(["config", "problem", "lam", "alpha"])["draws_med"]
    rows = []
    for config, name in budget[["config", "name"]].drop_duplicates().itertuples(index=False):
        cells = [text(str(name))]
        for s in settings.itertuples(index=False):
            cells.append(number(draws.get((config, s.problem, s.lam, s.alpha))))
        rows.append(Row((), tuple(cells)))
    caps = budget["budget"].dropna().unique()
    cap = f" under the common budget cap $B={number(caps[0]).latex}$" if len(caps) == 1 else ""
    return Layout(
        name="budget",
        title="Median counted oracle draws per replication",
        caption=f"Median counted oracle draws per replication{cap}.",
        key_columns=(),
        columns=tuple(columns),
        rows=tuple(rows),
        spanners=tuple(spanners),
    )


def ablation_layout(ablation: pd.DataFrame, protocol: Protocol, reference: str) -> Layout:
    """Ablation (paper Table "Ablation"): variants by J median with Diff%, SD ratio and the
    Holm-adjusted p-value against the full method."""
    several = ablation[["lam", "alpha"]].drop_duplicates().shape[0] > 1
    rows = []
    for _, r in ablation.iterrows():
        keys = _setting_keys(ablation, r["problem"], r["lam"], r["alpha"])
        is_ref = bool(r["is_reference"])
        cells = (
            text(str(r["name"])),
            number(r["J_med"], decimals=_digits(r)),
            number(r["J_SD"], decimals=_digits(r)),
            percent_gap(r["diff_pct"], is_ref),
            decimal(r["sigma_ratio"]),
            Entry("-", "---") if is_ref else pvalue(r["p_holm"], r["stars"]),
            text("" if is_ref or pd.isna(r["n_pairs"]) else str(int(r["n_pairs"]))),
        )
        rows.append(Row(keys if several else keys[:1], cells))
    plain_j, latex_j = _symbol(protocol)
    columns = (
        Column("Variant", "Variant", "l"),
        _stat_column(protocol, "med"),
        _stat_column(protocol, "SD"),
        Column("Diff%", r"Diff\%"),
        Column("sigma-ratio", r"$\sigma$-ratio"),
        Column("p_Holm", r"$p_{\mathrm{Holm}}$", "l"),
        Column("pairs", "pairs", in_latex=False, optional=3),
    )
    full = ablation.loc[ablation["is_reference"], "name"]
    full_name = str(full.iloc[0]) if len(full) else reference
    full = latex_escape(full_name)
    caption = (
        f"Ablation study of ${latex_j}$ ({protocol.description}; "
        f"$\\alpha={_alpha_text(ablation)}$, {_replications(ablation)}). "
        f"Diff\\% and $\\sigma$-ratio are relative to {full} "
        f"within each block; a $\\sigma$-ratio below 1 indicates a lower cross-replication SD. "
        f"$p_{{\\mathrm{{Holm}}}}$: one-sided paired Wilcoxon test of {full} $<$ variant, "
        f"Holm-corrected within each block; ns = not significant."
    )
    unreachable = _unreachable(ablation)
    if unreachable:
        caption += " " + unreachable[1]
    return Layout(
        name="ablation" + protocol.suffix,
        title=f"Ablation of {plain_j} ({protocol.description}) against {full_name}",
        caption=caption,
        key_columns=(KEY_PROBLEM, KEY_LAM) if several else (KEY_PROBLEM,),
        columns=columns,
        rows=tuple(rows),
        notes=(unreachable[0],) if unreachable else (),
    )


def parameter_label(parameter: str) -> Entry:
    plain, latex = PARAMETER_LABELS.get(parameter, (parameter, None))
    return Entry(plain, latex) if latex else text(plain)


def sensitivity_layout(table: pd.DataFrame, protocol: Protocol) -> Layout:
    """Sensitivity (paper Table "sensitivity"): per parameter value, J median, SD and the
    interquartile range; the default value in bold."""
    several = table[["problem", "lam", "alpha"]].drop_duplicates().shape[0] > 1
    rows = []
    for _, r in table.iterrows():
        style = "bold" if r["is_default"] else ""
        digits = _digits(r)
        lo, hi = number(r["J_Q25"], decimals=digits), number(r["J_Q75"], decimals=digits)
        cells = (
            number(r["value"], style),
            number(r["J_med"], style, digits),
            number(r["J_SD"], style, digits),
            Entry(f"{lo.plain}-{hi.plain}", f"{lo.latex}--{hi.latex}", style),
            text(str(int(r["n"]))),
        )
        keys = (parameter_label(r["parameter"]),)
        if several:
            problem, lam = _setting_keys(table, r["problem"], r["lam"], r["alpha"])
            keys = (Entry(f"{problem.plain} {lam.plain}",
                          f"{problem.latex}, $\\lambda={lam.latex}$"), *keys)
        rows.append(Row(keys, cells))
    plain_j, latex_j = _symbol(protocol)
    settings = ", ".join(
        f"{latex_escape(problem_name(d))} $\\lambda={lam:.2f}$"
        for d, lam in table[["problem", "lam"]].drop_duplicates().itertuples(index=False)
    )
    caption = (
        f"Hyperparameter sensitivity of ${latex_j}$ ({protocol.description}; {settings}, "
        f"$\\alpha={_alpha_text(table)}$; {_replications(table)} per grid point). Each parameter "
        f"is varied while the others are held at their defaults (in bold)."
    )
    key_columns = (Column("Parameter", "Parameter", "l"),)
    if several:
        key_columns = (Column("Setting", "Setting", "l"), *key_columns)
    return Layout(
        name="sensitivity" + protocol.suffix,
        title=f"Sensitivity of {plain_j} ({protocol.description})",
        caption=caption,
        key_columns=key_columns,
        columns=(
            Column("Value", "Value", "l"),
            _stat_column(protocol, "med"),
            _stat_column(protocol, "SD"),
            _iqr_column(protocol),
            Column("n", "n", in_latex=False, optional=3),
        ),
        rows=tuple(rows),
    )


def true_gap_layout(table: pd.DataFrame) -> Layout:
    """Large-sample J against the best known J of each setting: median, SD, IQR and regret%."""
    paired = "paired_med_pct" in table.columns and table["paired_med_pct"].notna().any()
    gap = "gap_med_pct" in table.columns and table["gap_med_pct"].notna().any()
    rows = []
    for _, r in table.iterrows():
        digits = _digits(r)
        lo, hi = number(r["J_Q25"], decimals=digits), number(r["J_Q75"], decimals=digits)
        source = "J*" if r["best_source"] == "J*" else "best med."
        cells = (
            text(str(r["name"])),
            number(r["J_med"], decimals=digits),
            number(r["J_SD"], decimals=digits),
            Entry(f"{lo.plain}-{hi.plain}", f"{lo.latex}--{hi.latex}"),
            number(r["best_known"], decimals=digits),
            Entry(source, "$J^{*}$" if source == "J*" else "best med."),
            decimal(r["regret_med_pct"], 2),
            decimal(r["regret_max_pct"], 2),
        )
        if paired:
            cells += (decimal(r["paired_med_pct"], 2), decimal(r["paired_max_pct"], 2))
        if gap:
            cells += (decimal(r["gap_med_pct"], 2), decimal(r["gap_max_pct"], 2))
        rows.append(Row(_setting_keys(table, r["problem"], r["lam"], r["alpha"]), cells))
    # in a narrow terminal the spreads and maxima go first, the medians stay
    columns = (
        Column("Method", "Method", "l"),
        Column("Jtrue_med", r"$J^{\mathrm{true}}_{\mathrm{med}}$"),
        optional(Column("Jtrue_SD", r"$J^{\mathrm{true}}_{\mathrm{SD}}$"), 2),
        optional(Column("Jtrue_Q25-Q75",
                        r"$J^{\mathrm{true}}_{Q_{25}}$--$J^{\mathrm{true}}_{Q_{75}}$"), 3),
        Column("Best known", "Best known"),
        optional(Column("from", "from", "l"), 2),
        Column("Regret% med", r"Regret\% med"),
        optional(Column("Regret% max", r"Regret\% max"), 1),
    )
    if paired:
        columns += (Column("Paired% med", r"Paired\% med"),
                    optional(Column("Paired% max", r"Paired\% max"), 1))
    if gap:
        columns += (Column("Gap% med", r"Gap\% med"),
                    optional(Column("Gap% max", r"Gap\% max"), 1))
    caption = (
        "Large-sample objective $J^{\\mathrm{true}}$ of each method's $x^*$ against the best "
        "known $J$ of its setting: the reference optimum $J^{*}$ when available, otherwise the "
        "lowest median $J^{\\mathrm{true}}$ of the block (best med.). Regret\\% $= 100\\,"
        "(J^{\\mathrm{true}} - J_{\\mathrm{best}}) / J_{\\mathrm{best}}$, median and maximum "
        f"over replications ({_replications(table)})."
    )
    if paired:
        caption += (
            " Paired\\% $= 100\\,(J^{\\mathrm{true}} - J^{\\mathrm{true}}_{\\mathrm{ref}})"
            " / J^{*}$, the reference minimiser estimated on the same large sample as $x^*$:"
            " the two estimates share their sampling error, which on DGP1's heavy tail is a"
            " large part of the spread of the unpaired regret."
        )
    if gap:
        caption += (
            " Gap\\% is SimOpt's normalised gap $100\\,(J^{\\mathrm{true}} - "
            "J^{\\mathrm{true}}_{\\mathrm{ref}}) / (J^{\\mathrm{true}}(x_0) - "
            "J^{\\mathrm{true}}_{\\mathrm{ref}})$ on the same sample: 0 at the reference "
            "minimiser, 100 no better than the start $x_0$."
        )
    return Layout(
        name="true_gap",
        title="Large-sample J against the best known J",
        caption=caption,
        key_columns=(KEY_PROBLEM, KEY_LAM),
        columns=columns,
        rows=tuple(rows),
    )


def answers_layout(table: pd.DataFrame) -> Layout:
    """Each method's median x* over replications and how its answers compare with the start
    x0: J of x* and of x0 (medians, on the most precise evaluation with both) and the
    replications no better than x0; a note counts those runs."""
    rows = []
    for _, r in table.iterrows():
        x = "-" if r["x_med"] is None else short_array(r["x_med"])
        flagged = r["no_better"] > 0
        cells = (
            text(str(r["name"])),
            Entry(x, latex_escape(x)),
            number(r["J_med"]),
            number(r["J_x0_med"]),
            text(f"{int(r['no_better'])}/{int(r['compared'])}" if r["compared"] else "-",
                 "bold" if flagged else ""),
        )
        rows.append(Row(_setting_keys(table, r["problem"], r["lam"], r["alpha"]), cells))
    evaluations = sorted(set(table["x0_on"]) - {""})
    compared = ", ".join(evaluations) if evaluations else "nowhere (no x0)"
    caption = (
        "What each method answered: the median over replications of each coordinate of "
        "$x^*$, and how the answers compare with the start $x_0$ - the medians $J(x^*)$ "
        "and $J(x_0)$ on the most precise evaluation that has both (exact values, the "
        "replication's large sample, else the common pool; here "
        f"{latex_escape(compared)}) and the replications whose answer is no better than "
        "$x_0$ there (no better: its $J$ not below $J(x_0)$, of the replications compared; "
        "in bold where there are some)."
    )
    notes = ()
    runs = int(table["no_better"].sum())
    if runs:
        which = table[table["no_better"] > 0]
        named = [f"{problem_name(r['problem'])} lambda={r['lam']:.2f} {r['name']} "
                 f"{int(r['no_better'])}/{int(r['compared'])}" for _, r in which.iterrows()]
        shown = ", ".join(named[:5]) + (f" and {len(named) - 5} more" if len(named) > 5 else "")
        notes = (f"{runs} of {int(table['compared'].sum())} runs ended no better than their "
                 f"start x0: {shown}.",)
    return Layout(
        name="answers",
        title="Answers: median x* over replications, J of x* and of the start x0",
        caption=caption,
        key_columns=(KEY_PROBLEM, KEY_LAM),
        columns=(
            Column("Method", "Method", "l"),
            Column("x* (median)", r"$x^*$ (median)", "l", wrap=True),
            optional(Column("J(x*)", r"$J(x^*)$"), 1),
            Column("J(x0)", r"$J(x_0)$"),
            Column("no better", r"no better"),
        ),
        rows=tuple(rows),
        notes=notes,
    )
