"""A study as pandas tables: every decision one search evaluated
(:meth:`acfs_cli.api.Solution.trials_dataframe`), and one row per cell of a results folder
(:func:`read_results`, also :func:`acfs_cli.api.read_results`).

Kept apart from :mod:`acfs_cli.api` so that importing the API does not import pandas. A
decision is spread over columns ``x_0`` ... ``x_{d-1}`` (as Optuna's ``params_*``), so that
a table filters, groups and plots without unpacking lists.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from acfs_cli.core.oracle import Best, Request
from acfs_cli.results.read import read_results as read_rows

#: The columns of a search's table besides the decision's, in order.
TRIAL_COLUMNS = ("draws", "phase", "rows", "sample", "value", "incumbent")

#: A results folder's columns a researcher reads first (all of them with ``all_columns``),
#: each under the name the trials table gives it: the store's ``oracle_draws`` is ``draws``.
RESULT_COLUMNS = {
    "problem": "problem", "method": "method", "label": "label", "lam": "lam",
    "alpha": "alpha", "budget": "budget", "rep": "rep", "status": "status",
    "oracle_draws": "draws", "J": "J", "J_lo": "J_lo", "J_hi": "J_hi", "J_true": "J_true",
}


def x_columns(dim: int) -> list[str]:
    """The names of a decision's coordinates: ``x_0`` ... ``x_{dim-1}``."""
    return [f"x_{i}" for i in range(dim)]


def trials_frame(history: Sequence[Request | Best], dim_x: int) -> pd.DataFrame:
    """One row per decision of each request of the search, in order, and one per incumbent
    recorded at a decision the request just drawn did not hold.

    Columns: ``draws`` (the search's draws once the request was drawn: the decisions of one
    request are drawn together and share it), ``phase``, ``x_0`` ... ``x_{d-1}``, ``rows``
    (scenarios drawn at the decision by this request; 0 on a row that only records an
    incumbent), ``sample`` (the common sample the rows come from, NA for independent draws:
    decisions of one sample see the same random numbers), ``value`` (the method's own
    estimate of J, where it made the decision its incumbent; NaN elsewhere: a method does not
    tell the oracle what it makes of the other rows) and ``incumbent``.

    An incumbent recorded at the draws count of the last request, at one of its decisions,
    marks that decision's row; two incumbents at one draws count are one, the later (as
    the trajectory keeps them). So the incumbent rows are the solution's trajectory, and
    ``rows`` sums to its draws.
    """
    blocks: list[np.ndarray] = []  # decisions, a block per request or incumbent
    draws: list[int] = []
    phases: list[str] = []
    rows: list[int] = []
    samples: list[int | None] = []
    sizes: list[int] = []
    value: dict[int, float] = {}  # row index -> the method's value, for incumbent rows
    dropped: set[int] = set()
    last = None  # (first row, decisions, draws) of the last request
    previous = None  # (row index, own row) of the last incumbent and its draws count
    n = 0
    for event in history:
        if isinstance(event, Request):
            m = len(event.X)
            blocks.append(np.asarray(event.X, dtype=float).reshape(m, dim_x))
            draws.append(event.draws)
            phases.append(event.phase)
            rows.append(event.rows)
            samples.append(event.sample)
            sizes.append(m)
            last = (n, blocks[-1], event.draws)
            n += m
            continue
        if previous is not None and previous[2] == event.draws:  # merged, as the trajectory
            index, own, _ = previous
            if own:
                dropped.add(index)
            value.pop(index, None)
        index = None
        if last is not None and last[2] == event.draws:
            start, X, _ = last
            same = np.flatnonzero(np.all(X == event.x, axis=1))
            if len(same):
                index = start + int(same[-1])
        own = index is None
        if own:
            blocks.append(np.asarray(event.x, dtype=float).reshape(1, dim_x))
            draws.append(event.draws)
            phases.append(event.phase)
            rows.append(0)
            samples.append(None)
            sizes.append(1)
            index = n
            n += 1
        value[index] = float(event.value)
        previous = (index, own, event.draws)
    X = np.concatenate(blocks) if blocks else np.empty((0, dim_x))
    counts = np.asarray(sizes, dtype=int)
    frame = pd.DataFrame({
        "draws": np.repeat(np.asarray(draws, dtype=np.int64), counts),
        "phase": np.repeat(np.asarray(phases, dtype=str), counts),
    })
    for name, column in zip(x_columns(dim_x), X.T, strict=True):
        frame[name] = column
    frame["rows"] = np.repeat(np.asarray(rows, dtype=np.int64), counts)
    frame["sample"] = pd.array(np.repeat(np.asarray(samples, dtype=object), counts).tolist(),
                               dtype="Int64")
    values = np.full(n, np.nan)
    marked = np.zeros(n, dtype=bool)
    for index, v in value.items():
        values[index], marked[index] = v, True
    frame["value"] = values
    frame["incumbent"] = marked
    if dropped:
        frame = frame.drop(index=sorted(dropped)).reset_index(drop=True)
    return frame


def results_frame(rows: pd.DataFrame, all_columns: bool = False) -> pd.DataFrame:
    """One row per cell of a results table: problem, method, label, lam, alpha, budget, rep,
    status, draws, J with its interval, the large-sample J_true and x* as ``x_0`` ...
    ``x_{d-1}`` (NaN past a problem's dimension, or where a cell failed before it had an
    answer); every stored column besides with ``all_columns``."""
    rows = rows.drop(columns="method_order", errors="ignore")  # the reader's, not stored
    out = rows.rename(columns={"oracle_draws": "draws"}) if all_columns else \
        rows[list(RESULT_COLUMNS)].rename(columns=RESULT_COLUMNS)
    decisions = [np.asarray(x, dtype=float) if x is not None else np.empty(0)
                 for x in rows["x"]]
    dim = max((len(x) for x in decisions), default=0)
    X = np.full((len(decisions), dim), np.nan)
    for i, x in enumerate(decisions):
        X[i, :len(x)] = x
    out = out.reset_index(drop=True)
    for name, column in zip(x_columns(dim), X.T, strict=True):
        out[name] = column
    return out


def read_results(folder, *, all_columns: bool = False) -> pd.DataFrame:
    """One row per cell of a results folder (``acfs run``'s output, or one of its parquet
    files) as a pandas DataFrame: the cells of the folder's current configuration, as the
    report reads them.

    Columns: ``problem``, ``method``, ``label`` (the configuration's name), ``lam``,
    ``alpha``, ``budget``, ``rep``, ``status`` (``"ok"`` or ``"error"``), ``draws`` (the
    search's), ``J`` with its bootstrap interval ``J_lo``, ``J_hi`` (on the replication's
    common pool), ``J_true`` (the large-sample J, NaN without ``precise_draws``) and x* as
    ``x_0`` ... ``x_{d-1}`` (as :meth:`acfs_cli.api.Solution.trials_dataframe`; NaN past a
    problem's dimension, or where a cell failed before it had an answer). ``all_columns=True``
    keeps every stored column besides (DESIGN.md section 5). A folder with nothing to read is a
    :class:`~acfs_cli.results.read.ResultsError` (a ``ValueError``) in one line.
    """
    return results_frame(read_rows(folder), all_columns=all_columns)
