"""Whether the reference optima and the regret floor a report rates on were made for the code
that computed its cells (DESIGN.md section 6).

A reference optimum records the fingerprint of the problem's code that found it (``code``),
a floor row the fingerprint it was estimated with and the reference decision it estimated
(``code``, ``x_ref``); every cell records its problem's (``problem_code``). When a simulator
is edited after ``acfs reference`` and the cells are computed again, the old J* and floor
no longer describe the problem the cells solved, and a regret against them is wrong by as
much as the edit moved the optimum. So the report checks, per setting:

* an optimum is stale where its code and a completed cell's differ in the law of the
  scenarios (:func:`~acfs_cli.common.codes.law_code`: a sample-only variant of a problem,
  or a new sampling convention, solves the same problem);
* a floor row is stale where its code and its replication's cells' differ, where its
  decision is not the current optimum's, or where the optimum itself is stale.

Stale optima and floor rows are left out (the report then shows what it can rate without
them) and named, with the command that computes them again: a report never rates cells on a
yardstick made for other code, and never refuses the rest of a study for it. A fingerprint
that is not recorded (files and cells of older versions) cannot be compared: the file is
used as it is, and a note says how to record one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from acfs_cli.common.codes import law_code
from acfs_cli.results.read import SETTING, usable

FLOOR_KEYS = [*SETTING, "seed", "rep"]


@dataclass(frozen=True)
class Stale:
    """One setting's stale yardstick: what it was made with and what the cells have."""

    setting: tuple
    made_with: str
    cells_have: str
    count: int = 1  # floor rows (replications); 1 for an optimum


@dataclass(frozen=True)
class Checked:
    """Reference optima and floor rows current for the cells, and what was left out."""

    optima: pd.DataFrame | None
    floor: pd.DataFrame | None
    stale_optima: list[Stale] = field(default_factory=list)
    stale_floor: list[Stale] = field(default_factory=list)
    #: settings whose optimum records no code (an older table), where cells record theirs
    unknown_optima: list[tuple] = field(default_factory=list)
    #: whether the floor records neither code nor decision (an older file)
    unknown_floor: bool = False


def _known(values: pd.Series) -> pd.Series:
    return values.fillna("").astype(str).str.len() > 0


def _cell_codes(results: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The problem code of the completed cells per ``keys``, where they record one (one
    row per distinct code)."""
    if "problem_code" not in results.columns:
        return pd.DataFrame(columns=[*keys, "problem_code"])
    rows = usable(results)
    rows = rows[_known(rows["problem_code"])]
    return rows[[*keys, "problem_code"]].drop_duplicates()


def check_references(results: pd.DataFrame, optima: pd.DataFrame | None,
                     floor: pd.DataFrame | None) -> Checked:
    """The optima and floor rows that are current for ``results`` (see the module
    docstring), and the stale and unrecorded ones."""
    stale_optima: list[Stale] = []
    unknown_optima: list[tuple] = []
    stale_settings: set[tuple] = set()
    if optima is not None and len(optima):
        codes = _cell_codes(results, SETTING)
        first = optima.drop_duplicates(SETTING)
        recorded = first["code"] if "code" in first.columns else pd.Series("", first.index)
        for setting, made_with in zip(first[SETTING].itertuples(index=False, name=None),
                                      recorded.fillna("").astype(str), strict=True):
            have = codes[(codes[SETTING] == pd.Series(setting, index=SETTING)).all(axis=1)]
            # J* is the law's: another sampling convention leaves it current
            others = [c for c in have["problem_code"] if law_code(c) != law_code(made_with)]
            if not len(have):
                continue
            if not made_with:
                unknown_optima.append(setting)
            elif others:
                stale_optima.append(Stale(setting, made_with, others[0]))
                stale_settings.add(setting)
        if stale_settings:
            keep = [tuple(s) not in stale_settings
                    for s in optima[SETTING].itertuples(index=False, name=None)]
            optima = optima[keep]
    if floor is None or floor.empty:
        return Checked(optima, floor, stale_optima, [], unknown_optima)
    unknown_floor = "code" not in floor.columns and "x_ref" not in floor.columns
    bad = np.array([tuple(s) in stale_settings
                    for s in floor[SETTING].itertuples(index=False, name=None)], dtype=bool)
    reason = pd.Series("", index=floor.index, dtype=object)
    cells_have = pd.Series("", index=floor.index, dtype=object)
    if "code" in floor.columns:
        paired = floor[FLOOR_KEYS].reset_index().merge(
            _cell_codes(results, FLOOR_KEYS), on=FLOOR_KEYS, how="inner")
        made_with = floor.loc[paired["index"], "code"].fillna("").astype(str).to_numpy()
        differs = (made_with != "") & (made_with != paired["problem_code"].to_numpy())
        for index, code, now in zip(paired["index"][differs], made_with[differs],
                                    paired["problem_code"][differs], strict=True):
            bad[floor.index.get_loc(index)] = True
            reason[index], cells_have[index] = code, now
    if "x_ref" in floor.columns and optima is not None and "x" in optima.columns:
        star = {tuple(s): np.asarray(x, dtype=float) for s, x in zip(
            optima[SETTING].itertuples(index=False, name=None), optima["x"], strict=True)
            if x is not None}
        for i, (setting, x_ref) in enumerate(zip(
                floor[SETTING].itertuples(index=False, name=None), floor["x_ref"],
                strict=True)):
            x = star.get(tuple(setting))
            if x is not None and x_ref is not None and not np.array_equal(
                    np.asarray(x_ref, dtype=float), x):
                bad[i] = True
    stale_floor = []
    if bad.any():
        stale = floor[bad].assign(_made=reason[bad], _now=cells_have[bad])
        for setting, block in stale.groupby(SETTING, sort=True):
            made = next((m for m in block["_made"] if m), "")
            now = next((m for m in block["_now"] if m), "")
            stale_floor.append(Stale(tuple(setting), made, now, len(block)))
    return Checked(optima, floor[~bad], stale_optima, stale_floor, unknown_optima,
                   unknown_floor)
