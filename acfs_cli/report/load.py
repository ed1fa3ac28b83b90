"""Reading an experiment's results table (ARCHITECTURE "Results layout", SPEC section 5).

An experiment folder holds ``cells/<cell_id>.parquet`` (one row each, written by the runner)
and ``results.parquet``, the consolidated table the runner writes after a run. The report reads
the consolidated table when it is at least as new as every cell and has one row per cell, and
the cells otherwise (a run in progress or interrupted). Files are read and validated by
:mod:`acfs_cli.store`; this module adds the choice between them and the report's view of the
rows (keys, duplicates, completeness).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from acfs_cli.store import CELLS_DIR, RESULTS_FILE, ResultStore, StoreError
from acfs_cli.store import read_results as read_store_file

REFERENCE_DIR = "reference"
REFERENCE_FILE = "reference.parquet"
#: Written by ``acfs report`` beside the results (acfs_cli.reference.reference_floor).
FLOOR_FILE = "reference_floor.parquet"
REQUIRED_REFERENCE_COLUMNS = ("dgp", "lam", "alpha", "J_star")

#: What makes a row one cell of the design: a setting, a configuration and a replication.
SETTING = ["dgp", "lam", "alpha"]
CONFIGURATION = ["kind", "method", "varied", "varied_value"]
IDENTITY = SETTING + CONFIGURATION + ["rep"]


class ReportError(Exception):
    """A problem with the user's input, reported as one line without a traceback."""


def cell_files(directory: Path) -> list[Path]:
    """The per-cell parquet files of an experiment folder, sorted by name."""
    return sorted((directory / CELLS_DIR).glob("*.parquet"))


def has_results(directory: Path) -> bool:
    """True when ``directory`` holds a consolidated table or at least one cell file."""
    return (directory / RESULTS_FILE).is_file() or bool(cell_files(directory))


def read_results(directory: Path) -> pd.DataFrame:
    """The validated results table of one experiment folder (or of one parquet file).

    Raises :class:`ReportError` when there is nothing to read or the table is not a results
    table (for example a missing column); duplicated cells keep their successful row.
    """
    directory = Path(directory)
    try:
        if directory.is_file():
            return normalise(read_store_file(directory))
        if not directory.is_dir():
            raise ReportError(f"{directory}: no such experiment folder")
        consolidated = directory / RESULTS_FILE
        cells = cell_files(directory)
        if not cells and not consolidated.is_file():
            raise ReportError(
                f"{directory}: no results yet (no {RESULTS_FILE} and no {CELLS_DIR}/*.parquet)"
            )
        if consolidated.is_file() and _is_current(consolidated, cells):
            return normalise(read_store_file(consolidated))
        return normalise(ResultStore(directory).read_rows(p.stem for p in cells))
    except StoreError as exc:
        raise ReportError(str(exc)) from None


def _is_current(consolidated: Path, cells: Sequence[Path]) -> bool:
    if not cells:
        return True
    newest_cell = max(f.stat().st_mtime_ns for f in cells)
    if consolidated.stat().st_mtime_ns < newest_cell:
        return False
    return pq.read_metadata(consolidated).num_rows == len(cells)


def normalise(frame: pd.DataFrame) -> pd.DataFrame:
    """Round the float keys, name unlabelled rows by their method, drop duplicated cells
    (keeping the successful row) and sort by cell identity."""
    frame = frame.copy()
    for column in ("lam", "alpha", "varied_value"):
        # Keys compare equal after a float round trip through YAML, parquet and arithmetic.
        frame[column] = frame[column].astype(float).round(10)
    frame["label"] = frame["label"].where(frame["label"] != "", frame["method"])
    ok_last = frame.assign(_ok=frame["status"] == "ok").sort_values("_ok", kind="stable")
    deduplicated = ok_last.drop_duplicates(IDENTITY, keep="last").drop(columns="_ok")
    return deduplicated.sort_values(IDENTITY, kind="stable").reset_index(drop=True)


def usable(frame: pd.DataFrame, metric: str = "J") -> pd.DataFrame:
    """Rows that ran to completion (``status == "ok"``) and have a finite ``metric``."""
    values = pd.to_numeric(frame[metric], errors="coerce")
    return frame[(frame["status"] == "ok") & np.isfinite(values)]


@dataclass(frozen=True)
class CellCount:
    """How complete an experiment is: the design seen in the data against the usable rows.

    The expected design of a setting (in one kind of study) is every configuration seen in it
    crossed with every replication seen in it; ``missing`` cells are absent from the table,
    ``failed`` cells are present but errored (or have no J).
    """

    expected: int
    complete: int
    failed: int
    missing: int
    failures: pd.DataFrame

    def summary(self) -> str:
        return (
            f"{self.expected:,} cells: {self.complete:,} complete, "
            f"{self.failed:,} failed, {self.missing:,} missing"
        )


def count_cells(frame: pd.DataFrame) -> CellCount:
    """Completeness of one experiment's results (see :class:`CellCount`)."""
    expected = 0
    for _, block in frame.groupby([*SETTING, "kind"], sort=False):
        configurations = block[CONFIGURATION].drop_duplicates().shape[0]
        expected += configurations * block["rep"].nunique()
    good = usable(frame)
    failures = frame.drop(index=good.index)
    return CellCount(
        expected=expected,
        complete=len(good),
        failed=len(failures),
        missing=expected - len(frame),
        failures=failures,
    )


def read_reference_optima(experiment_dir: Path, results_root: Path) -> pd.DataFrame | None:
    """Reference optima J* per (dgp, lam, alpha), or None when no reference file exists.

    Looked up beside the experiment (``<experiment>/../reference/reference.parquet``) first, then
    under ``results_root``.
    """
    candidates = [
        Path(experiment_dir).parent / REFERENCE_DIR / REFERENCE_FILE,
        Path(results_root) / REFERENCE_DIR / REFERENCE_FILE,
    ]
    for path in candidates:
        if path.is_file():
            try:
                optima = pd.read_parquet(path)
            except (OSError, ValueError) as exc:
                raise ReportError(f"{path}: unreadable parquet file ({exc})") from None
            missing = [c for c in REQUIRED_REFERENCE_COLUMNS if c not in optima.columns]
            if missing:
                raise ReportError(f"{path}: reference optima lack column(s): {', '.join(missing)}")
            optima = optima.copy()
            optima["dgp"] = optima["dgp"].astype(str)
            for column in ("lam", "alpha"):
                optima[column] = optima[column].astype(float).round(10)
            return optima
    return None


def read_floor(experiment_dir: Path) -> pd.DataFrame | None:
    """J_ref_true per (dgp, lam, alpha, seed, rep) - the reference minimiser on each
    replication's precise normals - or None when it was not computed or cannot be read."""
    path = Path(experiment_dir) / FLOOR_FILE
    if not path.is_file():
        return None
    try:
        floor = pd.read_parquet(path)
    except (OSError, ValueError):
        return None
    needed = {"dgp", "lam", "alpha", "seed", "rep", "J_ref_true"}
    if not needed <= set(floor.columns):
        return None
    floor = floor.copy()
    floor["dgp"] = floor["dgp"].astype(str)
    for column in ("lam", "alpha"):
        floor[column] = floor[column].astype(float).round(10)
    return floor.astype({"seed": int, "rep": int})
