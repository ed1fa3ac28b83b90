"""Figures of the paper's Section 5 (Figures "boxplot", "ablation", "sensitivity").

Built on ``matplotlib.figure.Figure`` without pyplot, so no global backend or figure registry is
touched; ``savefig`` renders with Agg. Each figure is written as PNG and PDF.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import ticker
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from acfs_cli.report.layout import problem_name
from acfs_cli.report.quality import THRESHOLDS
from acfs_cli.report.tables import (
    ORACLE,
    PRECISE,
    Protocol,
    prepare,
    sensitivity_table,
)
from acfs_cli.report.views import PARAMETER_LABELS
from acfs_cli.results.read import SETTING, usable

REFERENCE_COLOUR = "#1f77b4"
OTHER_COLOUR = "#d9d9d9"
DPI = 150

#: Panels across a figure at most: more do not fit a page's width.
MOST_ACROSS = 4
#: Below this many replications a panel shows the points: a box of so few says nothing.
FEWEST_FOR_BOXES = 5
#: Quality thresholds (%) drawn in every figure of quality, as the same labelled lines: the
#: solvability thresholds.
THRESHOLD_LINES = THRESHOLDS
#: Symmetric-log quality axes are linear within this many percent of 0.
LINEAR_WITHIN = 0.1

#: No dates or versions in the files: the same figure gives the same bytes on every run.
_PNG_METADATA = {"Software": None}
_PDF_METADATA = {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}


def panel_shape(n: int) -> tuple[int, int]:
    """Rows and columns of a near-square grid of ``n`` panels, at most
    :data:`MOST_ACROSS` across."""
    across = max(1, min(MOST_ACROSS, int(np.ceil(np.sqrt(n)))))
    return -(-n // across), across


def threshold_lines(ax, vertical: bool = False) -> None:
    """The 1 % and 5 % thresholds as dotted grey lines, each labelled at its end."""
    for level in THRESHOLD_LINES:
        if vertical:
            ax.axvline(level, color="grey", linewidth=0.8, linestyle=":", zorder=0)
            ax.text(level, 1.0, f" {level:g} %", transform=ax.get_xaxis_transform(),
                    fontsize=7, color="grey", ha="left", va="top")
        else:
            ax.axhline(level, color="grey", linewidth=0.8, linestyle=":", zorder=0)
            # at the left, where progress curves start high: the right end is where they meet
            ax.text(0.01, level, f"{level:g} %", transform=ax.get_yaxis_transform(),
                    fontsize=7, color="grey", ha="left", va="bottom")


def quality_scale(ax) -> None:
    """A symmetric-log quality axis, linear within :data:`LINEAR_WITHIN` % of 0, labelled
    at the powers of ten."""
    ax.set_yscale("symlog", linthresh=LINEAR_WITHIN, linscale=0.5)
    ax.yaxis.set_major_locator(ticker.SymmetricalLogLocator(
        base=10, linthresh=LINEAR_WITHIN, subs=(1.0,)))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())

#: Panel size and spacing in inches. Fixed margins instead of a layout engine: measuring every
#: tick label made constrained layout the slowest step of a report.
PANEL = (3.2, 2.3)
GAP = (0.75, 1.35)
MARGIN = {"left": 0.8, "right": 0.15, "bottom": 0.95, "top": 0.4}


def _panels(n_rows: int, n_cols: int, rotated_labels: bool = True) -> tuple[Figure, np.ndarray]:
    """A figure with an ``n_rows`` x ``n_cols`` grid of equal panels and fixed margins."""
    bottom = MARGIN["bottom"] if rotated_labels else 0.6
    width = MARGIN["left"] + MARGIN["right"] + n_cols * PANEL[0] + (n_cols - 1) * GAP[0]
    height = MARGIN["top"] + bottom + n_rows * PANEL[1] + (n_rows - 1) * GAP[1]
    fig = Figure(figsize=(width, height))
    fig.subplots_adjust(
        left=MARGIN["left"] / width,
        right=1 - MARGIN["right"] / width,
        bottom=bottom / height,
        top=1 - MARGIN["top"] / height,
        wspace=GAP[0] / PANEL[0],
        hspace=GAP[1] / PANEL[1],
    )
    return fig, fig.subplots(n_rows, n_cols, squeeze=False)


def _save(fig: Figure, stem: Path) -> list[Path]:
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".png"), stem.with_suffix(".pdf")]
    save(fig, paths)
    return paths


def save(fig: Figure, paths: list[Path]) -> None:
    """Write ``fig`` as PNG and PDF without dates or versions."""
    fig.savefig(paths[0], dpi=DPI, metadata=_PNG_METADATA)
    fig.savefig(paths[1], metadata=_PDF_METADATA)


def _panel_title(problem: str, lam: float, alpha: float, several_alphas: bool) -> str:
    # Unicode rather than mathtext: parsing TeX in every title is slow and adds nothing here.
    title = f"{problem_name(problem)}, λ = {lam:.2f}"
    return title + (f", α = {alpha:.2f}" if several_alphas else "")


def _compact(value: float, _position=None) -> str:
    """Tick labels such as 150k and 1.2M."""
    if value >= 1e6:
        return f"{value / 1e6:g}M"
    if value >= 1e3:
        return f"{value / 1e3:g}k"
    return f"{value:g}"


def _log_axis(axis) -> None:
    """A log scale labelled at 1, 2, 3 and 5 times each power of ten."""
    axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0)))
    axis.set_major_formatter(ticker.FuncFormatter(_compact))
    axis.set_minor_formatter(ticker.NullFormatter())


def _boxes(ax, block: pd.DataFrame, metric: str, reference: str | None) -> None:
    """One box per configuration of a panel, in the paper's method order; the points and a
    warning instead below :data:`FEWEST_FOR_BOXES` replications."""
    configs = block.drop_duplicates("config").sort_values("order")
    data = [block.loc[block["config"] == c, metric].to_numpy() for c in configs["config"]]
    if min(len(d) for d in data) < FEWEST_FOR_BOXES:
        _points(ax, data, configs, reference)
        return
    parts = ax.boxplot(
        data,
        tick_labels=list(configs["name"]),
        patch_artist=True,
        widths=0.6,
        medianprops={"color": "black"},
        flierprops={"marker": ".", "markersize": 3, "alpha": 0.5},
    )
    for patch, config in zip(parts["boxes"], configs["config"], strict=True):
        patch.set_facecolor(REFERENCE_COLOUR if config == reference else OTHER_COLOUR)
    _method_ticks(ax)


def _points(ax, data: list[np.ndarray], configs: pd.DataFrame, reference: str | None) -> None:
    """Each replication's value as a point, and a warning that there are too few for boxes."""
    for i, (values, config) in enumerate(zip(data, configs["config"], strict=True), start=1):
        colour = REFERENCE_COLOUR if config == reference else "dimgrey"
        ax.plot(np.full(len(values), i), values, "o", color=colour, markersize=4, alpha=0.8)
    ax.set_xticks(range(1, len(data) + 1), list(configs["name"]))
    ax.set_xlim(0.5, len(data) + 0.5)
    fewest = min(len(d) for d in data)
    ax.text(0.5, 0.98, f"only {fewest} replication{'s' if fewest != 1 else ''}: points, "
            "no boxes", transform=ax.transAxes, ha="center", va="top", fontsize=7,
            color="firebrick")
    _method_ticks(ax)


def _method_ticks(ax) -> None:
    ax.tick_params(axis="x", labelrotation=40, labelsize=8)
    for label in ax.get_xticklabels():
        label.set_horizontalalignment("right")
        label.set_rotation_mode("anchor")
    ax.grid(axis="y", alpha=0.3)


def _block(rows: pd.DataFrame, problem: str, lam: float, alpha: float) -> pd.DataFrame:
    return rows[(rows["problem"] == problem) & (rows["lam"] == lam) & (rows["alpha"] == alpha)]


def _metric_label(protocol: Protocol) -> str:
    return "J_true" if protocol.precise else "J"


def _setting_boxplots(
    rows: pd.DataFrame, metric: str, reference: str | None, style, ylabel: str
) -> Figure:
    """Box plots of ``metric`` per configuration, a panel per setting: rows problem and
    columns lambda (and alpha) when that grid is at most :data:`MOST_ACROSS` wide, else
    the settings wrapped into a near-square grid; ``style(ax)`` sets each panel's y-axis."""
    problems = sorted(rows["problem"].unique())
    columns = rows[["lam", "alpha"]].drop_duplicates().sort_values(["lam", "alpha"])
    several_alphas = rows["alpha"].nunique() > 1
    if len(columns) <= MOST_ACROSS and len(problems) <= MOST_ACROSS:
        places = [(i, j, problem, lam, alpha) for i, problem in enumerate(problems)
                  for j, (lam, alpha) in enumerate(columns.itertuples(index=False))]
        n_rows, n_cols = len(problems), len(columns)
    else:  # many problems (a library) or lambdas: one panel after another, page-shaped
        settings = rows[SETTING].drop_duplicates().sort_values(SETTING)
        n_rows, n_cols = panel_shape(len(settings))
        places = [(k // n_cols, k % n_cols, problem, lam, alpha)
                  for k, (problem, lam, alpha) in enumerate(settings.itertuples(index=False))]
    fig, axes = _panels(n_rows, n_cols)
    used = set()
    for i, j, problem, lam, alpha in places:
        ax = axes[i, j]
        block = _block(rows, problem, lam, alpha)
        if block.empty:
            continue
        used.add((i, j))
        _boxes(ax, block, metric, reference)
        style(ax)
        ax.set_title(_panel_title(problem, lam, alpha, several_alphas), fontsize=10)
        if j == 0:
            ax.set_ylabel(ylabel)
    for (i, j), ax in np.ndenumerate(axes):
        if (i, j) not in used:
            ax.set_axis_off()
    _baseline_key(fig, rows, reference)
    return fig


def _baseline_key(fig: Figure, rows: pd.DataFrame, reference: str | None) -> None:
    """A legend naming the coloured boxes' method as the baseline."""
    shown = rows.loc[rows["config"] == reference, "name"]
    if reference is None or shown.empty:
        return
    # a strip above the panels for the key, so that it covers no panel title
    width, height = fig.get_size_inches()
    strip = 0.3
    pars = fig.subplotpars
    fig.set_size_inches(width, height + strip)
    fig.subplots_adjust(top=1 - ((1 - pars.top) * height + strip) / (height + strip),
                        bottom=pars.bottom * height / (height + strip))
    fig.legend([Patch(facecolor=REFERENCE_COLOUR, edgecolor="black")],
               [f"{shown.iloc[0]} (baseline)"], loc="upper right", frameon=False, fontsize=9)


def comparison_boxplots(
    results: pd.DataFrame, stem: Path, protocol: Protocol = ORACLE,
    reference: str | None = None,
) -> list[Path]:
    """Box plots of J per method: rows DGP, columns lambda, log y-axis (paper Figure
    "boxplot"; a linear one when some J is not positive, as for a profit written as a
    negative cost); the reference method's boxes are coloured."""

    def log_scale(ax) -> None:
        ax.set_yscale("log")
        _log_axis(ax.yaxis)

    def linear(ax) -> None:
        pass

    rows = usable(prepare(results), protocol.J)
    positive = bool((rows[protocol.J] > 0).all())
    label = _metric_label(protocol) + (" (log scale)" if positive else "")
    style = log_scale if positive else linear
    return _save(_setting_boxplots(rows, protocol.J, reference, style, label), stem)


def regret_boxplots(
    results: pd.DataFrame, optima: pd.DataFrame | None, stem: Path,
    reference: str | None = None,
) -> list[Path]:
    """Box plots of the paired regret per method, 100 (J_true - J_ref_true) / J*: rows DGP,
    columns lambda, the quality figures' symmetric-log y-axis (linear within 0.1 %) with the
    labelled 1 % and 5 % thresholds. Nothing is drawn without ``J_ref_true`` (``acfs report``
    adds it) or reference optima."""
    if optima is None or "J_ref_true" not in results.columns:
        return []
    rows = usable(prepare(results), PRECISE.J)
    star = optima.drop_duplicates(SETTING)[[*SETTING, "J_star"]]
    rows = rows.merge(star, on=SETTING, how="inner")
    rows = rows.assign(paired=100.0 * (rows[PRECISE.J] - rows["J_ref_true"])
                       / rows["J_star"].abs())
    rows = rows[np.isfinite(rows["paired"])]
    if rows.empty:
        return []

    def symlog_with_lines(ax) -> None:
        quality_scale(ax)
        # symlog autoscaling may clip the highest flier; keep a margin above the data
        ax.set_ylim(top=max(1.6 * ax.dataLim.y1, 2.0 * max(THRESHOLD_LINES)))
        threshold_lines(ax)

    fig = _setting_boxplots(rows, "paired", reference, symlog_with_lines,
                            "paired regret, % of J*")
    return _save(fig, stem)


def ablation_boxplots(
    results: pd.DataFrame, stem: Path, protocol: Protocol = ORACLE,
    reference: str | None = None,
) -> list[Path]:
    """Box plots of J per ablation variant, one panel per DGP (and lambda), in a near-square
    grid (paper Figure "ablation"); the full method is coloured."""
    rows = usable(prepare(results), protocol.J)
    settings = rows[SETTING].drop_duplicates().sort_values(SETTING)
    several_alphas = rows["alpha"].nunique() > 1
    n_rows, n_cols = panel_shape(len(settings))
    fig, axes = _panels(n_rows, n_cols)
    flat = list(axes.ravel())
    for k, (problem, lam, alpha) in enumerate(settings.itertuples(index=False)):
        ax = flat[k]
        _boxes(ax, _block(rows, problem, lam, alpha), protocol.J, reference)
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(_compact))
        ax.set_title(_panel_title(problem, lam, alpha, several_alphas), fontsize=10)
        if k % n_cols == 0:
            ax.set_ylabel(_metric_label(protocol))
    for ax in flat[len(settings):]:
        ax.set_axis_off()
    _baseline_key(fig, rows, reference)
    return _save(fig, stem)


def sensitivity_plot(
    results: pd.DataFrame,
    stem: Path,
    protocol: Protocol = ORACLE,
) -> list[Path]:
    """Median J (dot) and interquartile range (bar) per grid value, one panel per parameter,
    a dashed vertical line at the default (paper Figure "sensitivity")."""
    table = sensitivity_table(results, protocol)
    settings = table[SETTING].drop_duplicates().sort_values(SETTING)
    parameters = list(dict.fromkeys(table["parameter"]))
    several_alphas = table["alpha"].nunique() > 1
    fig, axes = _panels(len(settings), len(parameters), rotated_labels=False)
    for i, (problem, lam, alpha) in enumerate(settings.itertuples(index=False)):
        in_setting = _block(table, problem, lam, alpha)
        for j, parameter in enumerate(parameters):
            ax = axes[i, j]
            panel = in_setting[in_setting["parameter"] == parameter]
            if panel.empty:
                ax.set_axis_off()
                continue
            _grid_point_bars(ax, panel)
            ax.set_xlabel(PARAMETER_LABELS.get(parameter, (parameter,))[0])
            ax.set_title(_panel_title(problem, lam, alpha, several_alphas), fontsize=10)
        axes[i, 0].set_ylabel(f"median {_metric_label(protocol)} and IQR")
    return _save(fig, stem)


def _grid_point_bars(ax, panel: pd.DataFrame) -> None:
    """Median dot and interquartile bar per grid value; dashed line at the default."""
    med = panel["J_med"].to_numpy()
    spread = np.vstack([med - panel["J_Q25"].to_numpy(), panel["J_Q75"].to_numpy() - med])
    values = panel["value"].to_numpy()
    ax.errorbar(values, med, yerr=spread, fmt="o", color=REFERENCE_COLOUR, capsize=4)
    default = panel["default"].iloc[0]
    if np.isfinite(default):
        ax.axvline(default, linestyle="--", color="grey", linewidth=1)
    ax.set_xticks(values)
    if len(values) > 1:
        pad = 0.15 * (values.max() - values.min())
        ax.set_xlim(values.min() - pad, values.max() + pad)
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,g}"))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(_compact))
    ax.grid(axis="y", alpha=0.3)
