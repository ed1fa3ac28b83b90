"""The results row: one row per cell (DESIGN.md section 5).

This module is the only list of the columns a row has: the runner builds every row from it
(:func:`new_row`), the store writes exactly these columns in this order, and readers check
them. A method's settings are one column, ``settings`` (JSON, sorted keys), with its hash;
only the parameter a one-at-a-time study varies has a column of its own, ``p_<name>``.

Column types: "string", "float64", "int64", "bool", "list<float64>" (the decision ``x`` whole,
whatever its dimension; ``dim_x`` is its length, 0 where there is no decision).

Tables of older versions name the problem ``dgp`` (and the problem as built ``problem``),
hold the method's settings as ``p_<name>`` columns and have no ``method_display``:
:func:`upgrade` reads them into today's row; ``scripts/migrate_results.py`` rewrites a
table once.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

#: Identity of a cell. ``problem`` is the problem's name in results (its label);
#: ``problem_name`` and ``problem_params`` the problem as built (a registered name or import
#: path and its options, JSON), so it can be built again from its row. ``label`` is the
#: configuration's name (for a sensitivity grid point the varied parameter, "acfs n_a=800");
#: ``varied`` / ``varied_value`` that parameter and its value ("" and NaN elsewhere).
#: ``method_display`` is the method's display name, ``settings`` its effective settings.
ID_COLUMNS: dict[str, str] = {
    "experiment": "string",
    "kind": "string",  # "comparison", "ablation" or "sensitivity"
    "cell_id": "string",
    "problem": "string",
    "lam": "float64",
    "alpha": "float64",
    "method": "string",
    "method_display": "string",
    "label": "string",
    "varied": "string",
    "varied_value": "float64",
    "varied_default": "float64",  # the varied parameter's value at the study's base point
    "rep": "int64",
    "seed": "int64",
    "budget": "int64",
    "problem_name": "string",
    "problem_params": "string",
    "settings": "string",
    "settings_hash": "string",
    # the final evaluation's draws, bootstrap resamples and precise draws (0: none): with seed
    # and budget, what pairs two cells of a replication
    "final_draws": "int64",
    "bootstrap": "int64",
    "precise_draws": "int64",
}

#: Paired final evaluation on the common pool of (problem, rep), outside the budget.
EVAL_COLUMNS: dict[str, str] = {
    "J": "float64",
    "EC": "float64",
    "CVaR": "float64",
    "J_lo": "float64",  # percentile bootstrap 95 % interval for J
    "J_hi": "float64",
}

#: Optional large-sample ("precise") evaluation of the same x*; NaN when not requested.
PRECISE_COLUMNS: dict[str, str] = {
    "J_true": "float64",
    "EC_true": "float64",
    "CVaR_true": "float64",
    "J_true_se": "float64",
    # J of the problem's start x0 on the same sample (paired): what a normalised gap is
    # measured from where the problem knows no exact J
    "J_x0_true": "float64",
}

#: Exact values where the problem knows its optimum: J(x*), J* and J(x0).
EXACT_COLUMNS: dict[str, str] = {
    "J_exact": "float64",
    "J_star_exact": "float64",
    "J_x0": "float64",
}

#: J of the problem's start x0 on the common pool, paired with J: how x* compares with where
#: the search began (NaN where the problem has no x0; tables of older versions lack it).
START_COLUMNS: dict[str, str] = {"J_x0_pool": "float64"}

#: Where the problem declares stochastic constraints: the verdict on x* ("feasible",
#: "infeasible", "not established"; "" where there is none) and each constraint's estimate
#: with its 95 % interval (JSON), on the precise sample where there is one, else the pool.
FEASIBILITY_COLUMNS: dict[str, str] = {"feasible": "string", "constraints": "string"}

#: The decision x* whole (null where a cell failed before it had one) and its length.
DECISION_COLUMNS: dict[str, str] = {"x": "list<float64>", "dim_x": "int64"}

#: What the run did: draws, times, why it stopped, its fallbacks, the code that ran.
RUN_COLUMNS: dict[str, str] = {
    "status": "string",  # "ok" or "error"
    "error": "string",  # message when status == "error", "" otherwise
    "oracle_draws": "int64",
    "method_value": "float64",  # the method's own estimate of J at x*
    "stopped_by_budget": "bool",
    "stop_reason": "string",
    "draw_account": "string",  # draws and calls per phase (JSON)
    "notes": "string",  # what the run did differently from what was asked
    "trajectory": "string",  # the incumbents' values against draws (JSON [[draws, value]])
    "problem_kind": "string",  # "transform" or "sample-only"
    "wall_s": "float64",
    "eval_s": "float64",
    "cpu_s": "float64",  # the cell's thread's CPU time
    "warnings": "string",
    "traceback": "string",
    # the fingerprints of the code that computed the cell (acfs_cli.core.fingerprint)
    "problem_code": "string",
    "method_code": "string",
}

#: The incumbents at the checkpoints, evaluated like x* (lists aligned with cp_fraction).
CHECKPOINT_COLUMNS: dict[str, str] = {
    "cp_fraction": "list<float64>",
    "cp_draws": "list<float64>",
    "cp_J": "list<float64>",
    "cp_J_true": "list<float64>",
    "cp_J_exact": "list<float64>",
}

#: Every column of a row, in the order a row holds them.
COLUMNS: dict[str, str] = {
    **ID_COLUMNS,
    **EVAL_COLUMNS,
    **PRECISE_COLUMNS,
    **EXACT_COLUMNS,
    **START_COLUMNS,
    **FEASIBILITY_COLUMNS,
    **DECISION_COLUMNS,
    **RUN_COLUMNS,
    **CHECKPOINT_COLUMNS,
}

#: The columns a table must have to be read as results (older tables lack some others).
REQUIRED: tuple[str, ...] = (*ID_COLUMNS, *EVAL_COLUMNS, *PRECISE_COLUMNS, *DECISION_COLUMNS,
                             "status", "error", "oracle_draws", "wall_s")

#: The column of the parameter a one-at-a-time study varies: ``p_<name>``.
PARAM_PREFIX = "p_"

_EMPTY = {"string": "", "float64": math.nan, "int64": 0, "bool": False, "list<float64>": None}


def empty_value(kind: str) -> Any:
    """The value of a column of type ``kind`` in a row that has none yet."""
    return _EMPTY[kind]


def new_row(**identity: Any) -> dict[str, Any]:
    """A row with every column, empty but for ``identity`` (an unknown name is an error:
    this module is the list of columns); status "error" until a cell says otherwise."""
    unknown = sorted(k for k in identity if k not in COLUMNS and not k.startswith(PARAM_PREFIX))
    if unknown:
        raise KeyError(f"not a column of the results row: {', '.join(unknown)}")
    row = {name: empty_value(kind) for name, kind in COLUMNS.items()}
    row["status"] = "error"
    row.update(identity)
    return row


def settings_json(settings: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> str:
    """A method's settings as the ``settings`` column holds them (JSON, sorted keys)."""
    return json.dumps(dict(settings), sort_keys=True, separators=(",", ":"), default=str)


def settings_hash(text: str) -> str:
    """The ``settings_hash`` of a ``settings`` JSON text (16 hex digits of its sha256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


#: Display names of the methods of the tables of older versions (their rows do not say).
_OLD_DISPLAY = {"acfs": "ACFS", "acfs-plus": "ACFS+", "gp-bo": "GP-BO", "cem-so": "CEM-SO",
                "sgd-cvar": "SGD-CVaR", "kde-so": "KDE-SO", "saa-ps": "SAA-PS",
                "acfs-noav": "ACFS-NoAV", "acfs-nocem": "ACFS-NoCEM",
                "acfs-norerank": "ACFS-NoRerank", "acfs-noaug": "ACFS-NoAug"}


def upgrade(record: dict[str, Any]) -> dict[str, Any]:
    """A row of an older table as today's row: ``dgp`` -> ``problem`` (and ``problem`` ->
    ``problem_name``), the ``p_<name>`` settings folded into ``settings`` (the varied one
    kept), the display name added. A row of today is returned as it is."""
    if "dgp" not in record:
        return record
    row = dict(record)
    label = row.pop("dgp")
    row["problem_name"] = row.get("problem") or label
    row["problem"] = label
    params = {k[len(PARAM_PREFIX):]: v for k, v in row.items()
              if k.startswith(PARAM_PREFIX) and not _missing(v)}
    varied = row.get("varied") or ""
    for name in list(row):
        if name.startswith(PARAM_PREFIX) and name != PARAM_PREFIX + varied:
            row.pop(name)
    text = settings_json(params)
    row.setdefault("settings", text)
    row.setdefault("settings_hash", settings_hash(text))
    row.setdefault("method_display", _OLD_DISPLAY.get(row.get("method", ""), row.get("method")))
    return row


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


#: Reference optima (``results/reference/reference.parquet``), one row per (problem, lam,
#: alpha): a near-true minimiser and J, EC, CVaR re-estimated there on a fresh large sample.
REFERENCE_COLUMNS: dict[str, str] = {
    "problem": "string",
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
    # how it was found: "exact" (the problem's closed form), "search" (the reference search),
    # "best found" (the best answer of an experiment's cells, SimOpt's convention)
    "source": "string",
    # what else made it (JSON): the search's version, sizes and seed, or the best-found
    # sample's size, candidates and seed ("{}" for an exact optimum; "" where a table of an
    # older version does not say)
    "settings": "string",
}

#: The regret floor of an experiment (``<experiment>/reference_floor.parquet``), one row per
#: (problem, lam, alpha, seed, rep): the reference minimiser ``x_ref`` estimated on that
#: replication's ``n``-draw precise sample, and the problem's code it was computed with. A
#: row is current while the optimum's decision and the code are those the cells have.
FLOOR_COLUMNS: dict[str, str] = {
    "problem": "string",
    "lam": "float64",
    "alpha": "float64",
    "seed": "int64",
    "rep": "int64",
    "n": "int64",
    "J_ref_true": "float64",
    "code": "string",
    "x_ref": "list<float64>",
}

#: The pandas dtype of each column type (a decision is an object: an array per row).
PANDAS_TYPES: dict[str, str] = {"string": "string", "float64": "float64", "int64": "int64",
                                "bool": "bool", "list<float64>": "object"}


def pandas_types(columns: Mapping[str, str]) -> dict[str, str]:
    """``columns`` with their pandas dtypes, for ``DataFrame.astype``."""
    return {name: PANDAS_TYPES[kind] for name, kind in columns.items()}


def code_key(problem_code: str, method_code: str) -> str:
    """The code of a cell in one string: what a stored cell is compared by ("" : unknown)."""
    if not (problem_code or method_code):
        return ""
    return json.dumps({"problem": problem_code, "method": method_code}, sort_keys=True)
