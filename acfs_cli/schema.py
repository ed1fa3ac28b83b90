"""The results table: one row per cell (SPEC section 5).

This module is the single definition of the columns that the runner writes and the report
reads, so the two never drift apart. Method parameters are stored alongside as ``p_<name>``
columns; they vary by method and are not listed here.
"""

from __future__ import annotations

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

X_COLUMNS: dict[str, str] = {f"x{i}": "float64" for i in range(1, 7)}

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
    **X_COLUMNS,
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
    **X_COLUMNS,
    "draws": "int64",
}
