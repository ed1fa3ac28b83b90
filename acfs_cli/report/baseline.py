"""Which method a report compares the others with, and which reference optima it rates them on.

A study need not hold the paper's method: the baseline is the one asked for (by registered
name, import path or display name), else the first recommended method present, else the
method with the lowest median J across the study's settings. Reference optima come from the
file asked for, else from the usual folders; either way the report says which it used.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from acfs_cli.results.read import (
    SETTING,
    ResultsError,
    optima_candidates,
    read_optima_file,
    usable,
)

#: Methods a baseline defaults to, the first present in the study: the recommended one first.
PREFERRED_BASELINES = ("auto", "saa-ps", "astro", "acfs-plus", "acfs")


@dataclass(frozen=True)
class Baseline:
    """The method the others are compared with (None: no comparison) and why it was chosen."""

    method: str | None
    reason: str

    def describe(self, display: str) -> str:
        return f"baseline: {display} ({self.reason})"


def _displays(frame: pd.DataFrame) -> dict[str, str]:
    """Each method's display name (its name where rows have none)."""
    pairs = frame[["method", "method_display"]].drop_duplicates("method")
    return {m: (d if isinstance(d, str) and d else m)
            for m, d in pairs.itertuples(index=False, name=None)}


def method_names(frame: pd.DataFrame) -> str:
    """The study's methods, by display name, for a message."""
    return ", ".join(sorted(_displays(frame).values(), key=str.lower))


def _match(frame: pd.DataFrame, asked: str) -> str | None:
    """The method ``asked`` names: a registered name or import path, else a display name
    (case does not matter for the latter, as users type ``ACFS`` or ``acfs``)."""
    displays = _displays(frame)
    if asked in displays:
        return asked
    for method, display in displays.items():
        if display.lower() == asked.lower() or method.lower() == asked.lower():
            return method
    return None


def _lowest_median(frame: pd.DataFrame) -> tuple[str, float, int] | None:
    """The method with the lowest median J, by its mean rank over the settings it ran in;
    with that mean rank and the number of settings."""
    rows = usable(frame)
    if rows.empty:
        return None
    medians = rows.groupby([*SETTING, "method"], sort=True)["J"].median().reset_index()
    medians["rank"] = medians.groupby(SETTING)["J"].rank(method="average")
    mean_rank = medians.groupby("method", sort=True)["rank"].mean()
    best = mean_rank.sort_values(kind="stable").index[0]
    return best, float(mean_rank[best]), medians[SETTING].drop_duplicates().shape[0]


def choose_baseline(frame: pd.DataFrame, asked: str | None) -> Baseline:
    """The baseline of one study (rows of one kind)."""
    if asked:
        method = _match(frame, asked)
        if method is None:
            return Baseline(None, f"'{asked}' is not among this study's methods: "
                                  f"{method_names(frame)}")
        return Baseline(method, "--baseline")
    present = set(frame["method"])
    if "acfs" in present and (frame["kind"] == "ablation").all():
        return Baseline("acfs", "the full method; each variant leaves one part out")
    for method in PREFERRED_BASELINES:
        if method in present:
            return Baseline(method, "the recommended method present in the study; "
                                    "--baseline names another")
    best = _lowest_median(frame)
    if best is None:
        return Baseline(None, "no completed cells")
    method, rank, settings = best
    return Baseline(method, f"lowest median J, mean rank {rank:.1f} over {settings} "
                            "setting(s); --baseline names another")


@dataclass(frozen=True)
class OptimaSource:
    """Reference optima as read (None: none found), the file they came from and the places
    looked in."""

    optima: pd.DataFrame | None
    path: Path | None
    looked: tuple[Path, ...]

    def describe(self) -> str:
        if self.path is not None:
            return f"reference optima: {self.path}"
        return "no reference optima (looked for " + ", ".join(map(str, self.looked)) + ")"


def find_optima(folder: Path, results_root: Path, asked: Path | None = None) -> OptimaSource:
    """The reference optima of an experiment; a file asked for must exist."""
    candidates = optima_candidates(folder, results_root, asked)
    if asked is not None and not candidates[0].is_file():
        raise ResultsError(f"--optima: no reference optima at {candidates[0]} (write them with "
                           "`acfs reference CONFIG -o FOLDER`)")
    for path in candidates:
        if path.is_file():
            return OptimaSource(read_optima_file(path), path, tuple(candidates))
    return OptimaSource(None, None, tuple(dict.fromkeys(candidates)))


def settings_without_optimum(frame: pd.DataFrame, optima: pd.DataFrame | None) -> list[tuple]:
    """The settings with large-sample J but neither an exact optimum nor a reference J*:
    those that lose their regret, progress and solvability tables."""
    rows = usable(frame)
    if "J_true" not in rows.columns or rows.empty:
        return []
    rows = rows[np.isfinite(pd.to_numeric(rows["J_true"], errors="coerce"))]
    if "J_star_exact" in rows.columns:
        rows = rows[~np.isfinite(pd.to_numeric(rows["J_star_exact"], errors="coerce"))]
    settings = rows[SETTING].drop_duplicates()
    if optima is not None:
        known = optima.drop_duplicates(SETTING)[SETTING].assign(_known=True)
        settings = settings.merge(known, on=SETTING, how="left")
        settings = settings[settings["_known"].isna()].drop(columns="_known")
    return [tuple(s) for s in settings.sort_values(SETTING).itertuples(index=False)]
