"""The results table: one row per cell (DESIGN.md section 5).

This module is the single definition of the columns that the runner writes and the report
reads, so the two never drift apart. Method parameters are stored alongside as ``p_<name>``
columns; they vary by method and are not listed here.

Column types: "string", "float64", "int64" and "list<float64>" (the decision ``x``, whole,
whatever its dimension; ``dim_x`` is its length, 0 where there is no decision). Tables of
older versions held the decision as ``x1``..``x6``; :func:`decision_from_columns` reads
them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

#: Identity of a cell. ``label`` is the display name of the configuration (for the sensitivity
#: study it carries the varied parameter, for example ``"acfs n_a=800"``); ``varied`` and
#: ``varied_value`` name that parameter and its value ("" and NaN elsewhere).
ID_COLUMNS: dict[str, str] = {
    "experiment": "string",
    "kind": "string",  # "comparison", "ablation" or "sensitivity"
    "cell_id": "string",
    "dgp": "string",
    "lam": "float64",
    "alpha": "float64",
    "method": "string",
    "label": "string",
    "varied": "string",
    "varied_value": "float64",
    "rep": "int64",
    "seed": "int64",
}

#: Paired final evaluation on the common 2,000-row pool of (dgp, rep), outside the budget.
EVAL_COLUMNS: dict[str, str] = {
    "J": "float64",
    "EC": "float64",
    "CVaR": "float64",
    "J_lo": "float64",  # 400-resample percentile bootstrap 95 % interval for J
    "J_hi": "float64",
}

#: Optional large-sample ("precise") evaluation of the same x*; NaN when not requested.
PRECISE_COLUMNS: dict[str, str] = {
    "J_true": "float64",
    "EC_true": "float64",
    "CVaR_true": "float64",
    "J_true_se": "float64",
}

#: The decision x* whole (null where a cell failed before it had one) and its length.
DECISION_COLUMNS: dict[str, str] = {"x": "list<float64>", "dim_x": "int64"}

RUN_COLUMNS: dict[str, str] = {
    "oracle_draws": "int64",
    "budget": "int64",
    "wall_s": "float64",
    "status": "string",  # "ok" or "error"
    "error": "string",  # message when status == "error", "" otherwise
}

COLUMNS: dict[str, str] = {
    **ID_COLUMNS,
    **EVAL_COLUMNS,
    **PRECISE_COLUMNS,
    **DECISION_COLUMNS,
    **RUN_COLUMNS,
}

PARAM_PREFIX = "p_"

#: Display names used in tables and figures, in the paper's order.
DISPLAY_NAMES: dict[str, str] = {
    "acfs": "ACFS",
    "acfs-plus": "ACFS+",
    "gp-bo": "GP-BO",
    "cem-so": "CEM-SO",
    "sgd-cvar": "SGD-CVaR",
    "kde-so": "KDE-SO",
    "saa-ps": "SAA-PS",
    "acfs-noav": "ACFS-NoAV",
    "acfs-nocem": "ACFS-NoCEM",
    "acfs-norerank": "ACFS-NoRerank",
    "acfs-noaug": "ACFS-NoAug",
}


def display_name(method: str) -> str:
    """Human name of a registered method (the registered name itself when unknown)."""
    return DISPLAY_NAMES.get(method, method)


#: Reference optima (``results/reference/reference.parquet``), one row per (dgp, lam, alpha):
#: a near-true minimiser and J, EC, CVaR re-estimated there on a fresh large sample.
REFERENCE_COLUMNS: dict[str, str] = {
    "dgp": "string",
    "lam": "float64",
    "alpha": "float64",
    "J_star": "float64",
    "J_star_se": "float64",
    "EC_star": "float64",
    "CVaR_star": "float64",
    **DECISION_COLUMNS,
    "draws": "int64",
    # the fingerprint of the problem's code (acfs_cli.core.fingerprint): a row computed by
    # other code is computed again
    "code": "string",
}

#: The pandas dtype of each column type (a decision is an object: an array per row).
PANDAS_TYPES: dict[str, str] = {"string": "string", "float64": "float64", "int64": "int64",
                                "list<float64>": "object"}

_COORDINATE = re.compile(r"x([1-9][0-9]*)")


def pandas_types(columns: Mapping[str, str]) -> dict[str, str]:
    """``columns`` with their pandas dtypes, for ``DataFrame.astype``."""
    return {name: PANDAS_TYPES[kind] for name, kind in columns.items()}


def coordinate_columns(names: Sequence[str]) -> list[str]:
    """The old per-coordinate columns among ``names``: ``x1``, ``x2``, ... in order."""
    found = sorted((int(m[1]), n) for n in names if (m := _COORDINATE.fullmatch(n)))
    return [n for _, n in found]


def decision_from_columns(values: Sequence[Any]) -> list[float] | None:
    """A decision from its old per-coordinate values: trailing missing coordinates are not
    part of it (a problem of lower dimension), none at all means no decision."""
    coords = [math.nan if v is None else float(v) for v in values]
    while coords and math.isnan(coords[-1]):
        coords.pop()
    return coords or None


def pack_decision(row: Mapping[str, Any]) -> dict[str, Any]:
    """``row`` with its ``x1``..``xk`` entries replaced by ``x`` (a list) and ``dim_x``; a
    row that already holds ``x`` is returned with its ``dim_x``."""
    columns = coordinate_columns(list(row))
    if not columns and row.get("x") is not None:
        return {**row, "dim_x": len(row["x"])}
    out = {k: v for k, v in row.items() if k not in columns}
    x = decision_from_columns([row[c] for c in columns])
    out["x"] = x
    out["dim_x"] = 0 if x is None else len(x)
    return out
