"""Figures of quality against the optimum (:mod:`acfs_cli.report.quality`): progress curves
and solvability against draws, quality and solvability against the budget, and the problem
library's solvability profile.

Methods are lines in one colour each (the same colour in every figure), the legend sits to the
right of the panels, outside the data. Quality axes are symmetric-log (linear within 0.1 %),
so gaps from 0.01 % to 100 % and a few negative paired regrets all show. Built on
``matplotlib.figure.Figure`` without pyplot, like :mod:`acfs_cli.report.figures`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import ticker
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from acfs_cli.report.figures import (
    LINEAR_WITHIN,
    MOST_ACROSS,
    _compact,
    panel_shape,
    quality_scale,
    save,
    threshold_lines,
)
from acfs_cli.report.layout import problem_name
from acfs_cli.report.quality import MEASURE_NAMES
from acfs_cli.results.read import SETTING

#: Colours of the methods in the paper's order (tab10), then further methods.
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
STYLES = ("-", "--", ":", "-.")
#: Markers of the methods, so that methods whose lines coincide stay apart.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")

PANEL = (3.4, 2.4)
GAP = (0.8, 0.85)
MARGIN = {"left": 0.85, "right": 0.2, "bottom": 0.7, "top": 0.45}
LEGEND_WIDTH = 1.7


def _grid(n_rows: int, n_cols: int) -> tuple[Figure, np.ndarray]:
    """A figure of equal panels, fixed margins and room for a legend on the right."""
    width = (MARGIN["left"] + MARGIN["right"] + LEGEND_WIDTH + n_cols * PANEL[0]
             + (n_cols - 1) * GAP[0])
    height = MARGIN["top"] + MARGIN["bottom"] + n_rows * PANEL[1] + (n_rows - 1) * GAP[1]
    fig = Figure(figsize=(width, height))
    fig.subplots_adjust(
        left=MARGIN["left"] / width,
        right=1 - (MARGIN["right"] + LEGEND_WIDTH) / width,
        bottom=MARGIN["bottom"] / height,
        top=1 - MARGIN["top"] / height,
        wspace=GAP[0] / PANEL[0],
        hspace=GAP[1] / PANEL[1],
    )
    return fig, fig.subplots(n_rows, n_cols, squeeze=False)


def _legend(fig: Figure, handles: list, labels: list[str]) -> None:
    right = fig.subplotpars.right
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(right + 0.01, 0.5),
               frameon=False, fontsize=9)


def _save(fig: Figure, stem: Path) -> list[Path]:
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".png"), stem.with_suffix(".pdf")]
    save(fig, paths)
    return paths


def method_colours(names: pd.DataFrame) -> dict[str, str]:
    """A colour per configuration (``config``, ``name`` rows), in the order the rows come:
    the tables' order (:func:`~acfs_cli.report.tables.prepare`), the one every table keeps."""
    order = list(names.drop_duplicates("config")["config"])
    return {c: COLOURS[i % len(COLOURS)] for i, c in enumerate(order)}


def method_markers(names: pd.DataFrame) -> dict[str, str]:
    """A marker per configuration, in the order of :func:`method_colours`."""
    order = list(names.drop_duplicates("config")["config"])
    return {c: MARKERS[i % len(MARKERS)] for i, c in enumerate(order)}


def _methods(table: pd.DataFrame) -> list[tuple[str, str]]:
    """(config, display name) pairs in the tables' order (the rows')."""
    pairs = table[["config", "name"]].drop_duplicates("config")
    return list(pairs.itertuples(index=False, name=None))


def _title(problem: str, lam: float, alpha: float, several_lam: bool, budget=None) -> str:
    title = problem_name(problem)
    if several_lam:
        title += f", λ = {lam:.2f}, α = {alpha:.2f}"
    if budget is not None:
        title += f", budget {_compact(float(budget))}"
    return title


def _quality_axis(ax, measure: str) -> None:
    quality_scale(ax)
    threshold_lines(ax)
    ax.set_ylabel(MEASURE_NAMES[measure][0])
    ax.grid(axis="x", alpha=0.3)


def _draws_axis(ax, label: str) -> None:
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(_compact))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_xlabel(label)


def _finite(values: pd.Series) -> np.ndarray:
    """Values for plotting: +inf (no incumbent yet) leaves a gap."""
    v = values.to_numpy(dtype=float)
    return np.where(np.isfinite(v), v, np.nan)


def _panel_grid(table: pd.DataFrame, by_budget: bool):
    """Panels of (setting, budget) in reading order and the figure: rows settings and columns
    budgets when ``by_budget``, every setting has every budget and they fit across, else
    wrapped into a near-square grid (panels fill the grid in order, so a setting without one
    of the budgets would shift the columns)."""
    keys = [*SETTING, "budget"] if by_budget else SETTING
    panels = table[keys].drop_duplicates().sort_values(keys)
    settings = table[SETTING].drop_duplicates().shape[0]
    budgets = table["budget"].nunique() if by_budget else 1
    if by_budget and 1 < budgets <= MOST_ACROSS and len(panels) == settings * budgets:
        n_rows, n_cols = settings, budgets
    else:
        n_rows, n_cols = panel_shape(len(panels))
    fig, axes = _grid(n_rows, n_cols)
    flat = list(axes.ravel())
    for ax in flat[len(panels):]:
        ax.set_axis_off()
    return panels, fig, flat


def _block(table: pd.DataFrame, key: dict) -> pd.DataFrame:
    mask = np.ones(len(table), dtype=bool)
    for column, value in key.items():
        mask &= (table[column] == value).to_numpy()
    return table[mask]


def _several_lam(table: pd.DataFrame) -> bool:
    return table[["lam", "alpha"]].drop_duplicates().shape[0] > 1


def _curves(table: pd.DataFrame, stem: Path, x: str, by_budget: bool, xlabel: str,
            draw) -> list[Path]:
    """One panel per (setting[, budget]), one line per method drawn by ``draw(ax, rows,
    colour)``; the x axis on a log scale."""
    colours, markers = method_colours(table), method_markers(table)
    panels, fig, axes = _panel_grid(table, by_budget)
    several = _several_lam(table)
    if by_budget and table["budget"].nunique() == 1:  # one budget: said once, on the x axis
        by_budget = False
        xlabel = f"{xlabel} (budget {table['budget'].iloc[0]:,})"
    for ax, key in zip(axes, panels.to_dict("records"), strict=False):
        block = _block(table, key)
        for config, _ in _methods(block):
            rows = block[block["config"] == config].sort_values(x)
            draw(ax, rows, colours[config], markers[config])
        _draws_axis(ax, xlabel)
        if x == "budget":  # a tick at each budget of the grid
            ax.set_xticks(sorted(block["budget"].unique()))
        ax.set_title(_title(key["problem"], key["lam"], key["alpha"], several,
                            key.get("budget") if by_budget else None), fontsize=10)
        draw.axis(ax, block["measure"].iloc[0], block)
    handles = [Line2D([], [], color=colours[c], marker=markers[c], markersize=5, linewidth=1.6,
                      markerfacecolor="none", markeredgewidth=1.3) for c, _ in _methods(table)]
    labels = [name for _, name in _methods(table)]
    handles += draw.key_handles
    labels += draw.key_labels
    _legend(fig, handles, labels)
    return _save(fig, stem)


class _Median:
    """Median line with markers and the 25-75 % band."""

    key_handles = [Line2D([], [], color="grey", linewidth=1.6),
                   Line2D([], [], color="grey", linewidth=8, alpha=0.2)]
    key_labels = ["median", "25-75 %"]

    def __init__(self, x: str):
        self.x = x

    def __call__(self, ax, rows: pd.DataFrame, colour: str, marker: str) -> None:
        xs = rows[self.x].to_numpy(dtype=float)
        ax.fill_between(xs, _finite(rows["q25"]), _finite(rows["q75"]), color=colour,
                        alpha=0.15, linewidth=0)
        ax.plot(xs, _finite(rows["median"]), color=colour, marker=marker, markersize=5,
                linewidth=1.6, markerfacecolor="none", markeredgewidth=1.3)

    @staticmethod
    def axis(ax, measure: str, block: pd.DataFrame) -> None:
        _quality_axis(ax, measure)
        values = block[["median", "q25", "q75"]].to_numpy(dtype=float)
        values = values[np.isfinite(values)]
        if values.size:
            # Symmetric log: a factor of 2 above the highest value, 0 (or twice the lowest
            # negative value) below.
            low, high = float(values.min()), float(values.max())
            bottom = 2 * low if low < 0 else -0.2 * LINEAR_WITHIN  # lines at 0 stay visible
            ax.set_ylim(bottom, max(2 * high, 2 * LINEAR_WITHIN))


class _Solved:
    """Share of replications solved within one threshold."""

    key_handles: list = []
    key_labels: list[str] = []

    def __init__(self, x: str, threshold: float):
        self.x, self.threshold = x, threshold

    def __call__(self, ax, rows: pd.DataFrame, colour: str, marker: str) -> None:
        ax.plot(rows[self.x].to_numpy(dtype=float), rows[f"solved_{self.threshold:g}"],
                color=colour, marker=marker, markersize=5, linewidth=1.6, alpha=0.85,
                markerfacecolor="none", markeredgewidth=1.3)

    def axis(self, ax, measure: str, block: pd.DataFrame) -> None:
        ax.set_ylim(-4, 104)
        ax.yaxis.set_major_locator(ticker.MultipleLocator(25))
        name = MEASURE_NAMES[measure][0].removesuffix(" %")
        ax.set_ylabel(f"% of replications\nwithin {self.threshold:g} % ({name})", fontsize=9)
        ax.grid(alpha=0.3)


def progress_curves(table: pd.DataFrame, stem: Path) -> list[Path]:
    """Median quality of each method's incumbent against draws with its 25-75 % band, one
    panel per setting (and budget), from :func:`~acfs_cli.report.quality.checkpoint_table`;
    dotted lines at the solvability thresholds."""
    return _curves(table, stem, "draws", True, "draws", _Median("draws"))


def solvability_draws(table: pd.DataFrame, stem: Path, threshold: float) -> list[Path]:
    """Share of replications whose incumbent is within ``threshold`` % against draws, one
    panel per setting (and budget)."""
    return _curves(table, stem, "draws", True, "draws", _Solved("draws", threshold))


def quality_budget(table: pd.DataFrame, stem: Path) -> list[Path]:
    """Median quality of the final x* against the budget with its 25-75 % band (each method
    planned for its budget), one panel per setting, from
    :func:`~acfs_cli.report.quality.budget_quality_table`."""
    return _curves(table, stem, "budget", False, "budget (draws)", _Median("budget"))


def solvability_budget(table: pd.DataFrame, stem: Path, threshold: float) -> list[Path]:
    """Share of replications within ``threshold`` % against the budget, one panel per
    setting."""
    return _curves(table, stem, "budget", False, "budget (draws)", _Solved("budget", threshold))


def library_profile(gaps: pd.DataFrame, stem: Path) -> list[Path]:
    """Solvability profile across problems: the share of problems whose median gap (left) and
    worst replication's gap (right) is at most τ, against τ on a log scale, a step line
    per method; dotted lines at 1 % and 5 %. One row of panels per budget. From
    :func:`~acfs_cli.report.quality.library_gap_table`."""
    budgets = sorted(gaps["budget"].unique())
    colours = method_colours(gaps)
    methods = _methods(gaps)
    positive = gaps[["median", "worst"]].to_numpy(dtype=float)
    positive = positive[np.isfinite(positive) & (positive > 0)]
    low = 10.0 ** np.clip(np.floor(np.log10(positive.min())), -4, -2) if positive.size else 1e-3
    high = 10.0 ** max(2.0, np.ceil(np.log10(positive.max() * 1.05))) if positive.size else 100
    fig, axes = _grid(len(budgets), 2)
    for i, budget in enumerate(budgets):
        block = gaps[gaps["budget"] == budget]
        n_problems = block[SETTING].drop_duplicates().shape[0]
        for j, by in enumerate(("median", "worst")):
            ax = axes[i, j]
            for k, (config, _) in enumerate(methods):
                values = np.sort(block.loc[block["config"] == config, by].to_numpy(dtype=float))
                values = np.clip(values, low, high)
                xs = np.concatenate([[low], values, [high]])
                ys = 100.0 * np.concatenate([[0], np.arange(1, values.size + 1),
                                             [values.size]]) / n_problems
                ax.step(xs, ys, where="post", color=colours[config],
                        linestyle=STYLES[k % len(STYLES)], linewidth=1.6)
            threshold_lines(ax, vertical=True)
            ax.set_xscale("log")
            ax.set_xlim(low, high)
            ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            ax.set_ylim(-4, 104)
            ax.yaxis.set_major_locator(ticker.MultipleLocator(25))
            ax.grid(alpha=0.3)
            ax.set_xlabel(f"normalised gap τ (%), {by} over replications")
            where = f", budget {_compact(float(budget))}" if len(budgets) > 1 else ""
            ax.set_title(f"{by.capitalize()} gap ≤ τ{where}", fontsize=10)
        axes[i, 0].set_ylabel(f"% of the {n_problems} problems")
    handles = [Line2D([], [], color=colours[c], linestyle=STYLES[k % len(STYLES)],
                      linewidth=1.6) for k, (c, _) in enumerate(methods)]
    _legend(fig, handles, [name for _, name in methods])
    return _save(fig, stem)
