"""Results on disk: one parquet file per cell, written atomically, and a consolidated table.

Layout (ARCHITECTURE "Results layout")::

    results/<experiment>/cells/<cell_id>.parquet   one row each (schema columns + p_<param>)
    results/<experiment>/results.parquet           the consolidated table, rebuilt after a run
    results/<experiment>/run.lock                  held while a run writes

Every file is written to a temporary name in its own folder, flushed to disk and then renamed
over the target (``os.replace`` is atomic on POSIX), so a reader or a killed run never sees a
half-written file: a cell file either holds a complete row or does not exist. Temporary names
end in ``.tmp``, never ``.parquet``, so readers that glob for cells never pick them up. The
parquet key-value metadata of each file carries the cell's status, the configuration hash and
the package version.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from acfs_cli import __version__
from acfs_cli.schema import COLUMNS, PARAM_PREFIX

CELLS_DIR = "cells"
RESULTS_FILE = "results.parquet"
LOCK_FILE = "run.lock"
_TMP_SUFFIX = ".tmp"
_META_STATUS = b"acfs.status"
_META_CONFIG = b"acfs.config_hash"
_META_VERSION = b"acfs.version"

#: Columns the runner adds beside the schema: the method's own estimate of J at x*, whether the
#: budget stopped it, its per-phase draw account (JSON), the evaluation's wall time, the CPU time
#: of the whole cell (its thread's, which does not grow when other processes load the machine),
#: warnings raised during the cell and the traceback of a failure.
EXTRA_COLUMNS: dict[str, str] = {
    "method_value": "float64",
    "stopped_by_budget": "bool",
    "draw_account": "string",
    "eval_s": "float64",
    "cpu_s": "float64",
    "warnings": "string",
    "traceback": "string",
}

_ARROW_TYPES = {
    "string": pa.string(),
    "float64": pa.float64(),
    "int64": pa.int64(),
    "bool": pa.bool_(),
}


class StoreError(RuntimeError):
    """A results folder that cannot be used (unwritable, locked, or not a results table)."""


# -- rows <-> arrow ------------------------------------------------------------------------------
def _param_type(value: Any) -> pa.DataType:
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int64()
    if isinstance(value, float):
        return pa.float64()
    if value is None:
        return pa.null()
    return pa.string()


def _param_value(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def row_table(row: Mapping[str, Any], metadata: Mapping[str, str] | None = None) -> pa.Table:
    """A one-row arrow table: schema columns, extras, then ``p_*`` columns in name order."""
    fields, values = [], {}
    for name, dtype in {**COLUMNS, **EXTRA_COLUMNS}.items():
        fields.append(pa.field(name, _ARROW_TYPES[dtype]))
        value = row.get(name)
        if dtype == "string":
            value = "" if value is None else str(value)
        elif dtype == "float64":
            value = math.nan if value is None else float(value)
        elif dtype == "int64":
            value = 0 if value is None else int(value)
        elif dtype == "bool":
            value = bool(value)
        values[name] = value
    for name in sorted(k for k in row if k.startswith(PARAM_PREFIX)):
        value = _param_value(row[name])
        fields.append(pa.field(name, _param_type(value)))
        values[name] = value
    schema = pa.schema(fields)
    table = pa.Table.from_pylist([values], schema=schema)
    meta = {_META_STATUS: str(values["status"]).encode(), _META_VERSION: __version__.encode()}
    for key, value in (metadata or {}).items():
        meta[f"acfs.{key}".encode()] = str(value).encode()
    return table.replace_schema_metadata(meta)


def write_parquet_atomic(table: pa.Table, path: Path) -> None:
    """Write ``table`` to ``path``: temporary file in the same folder, fsync, rename."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=_TMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            pq.write_table(table, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    """Make the rename itself durable (POSIX); a no-op where folders cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# -- the store -----------------------------------------------------------------------------------
class ResultStore:
    """The results folder of one experiment."""

    def __init__(self, root: Path | str, *, config_hash: str = ""):
        self.root = Path(root)
        self.cells_dir = self.root / CELLS_DIR
        self.config_hash = config_hash

    @property
    def results_path(self) -> Path:
        return self.root / RESULTS_FILE

    def cell_path(self, cell_id: str) -> Path:
        return self.cells_dir / f"{cell_id}.parquet"

    def prepare(self) -> None:
        """Create the folders and remove temporary files left by a killed run."""
        self.cells_dir.mkdir(parents=True, exist_ok=True)
        for stale in self.cells_dir.glob(f".*{_TMP_SUFFIX}"):
            with contextlib.suppress(OSError):
                stale.unlink()

    def write_row(self, row: Mapping[str, Any]) -> Path:
        """Store one cell's row atomically (replacing an earlier attempt of the same cell)."""
        table = row_table(row, {"config_hash": self.config_hash})
        path = self.cell_path(str(row["cell_id"]))
        write_parquet_atomic(table, path)
        return path

    def status(self, cell_id: str) -> str | None:
        """"ok", "error", or None when the cell has no (readable) file."""
        path = self.cell_path(cell_id)
        try:
            meta = pq.read_metadata(path).metadata or {}
        except (OSError, pa.ArrowException):
            return None
        status = meta.get(_META_STATUS)
        return status.decode() if status is not None else None

    def statuses(self, cell_ids: Iterable[str]) -> dict[str, str | None]:
        """Status of many cells (footer reads only: well under a millisecond each)."""
        return {i: self.status(i) for i in cell_ids}

    def read_rows(self, cell_ids: Iterable[str]) -> pd.DataFrame:
        """The stored rows of the given cells that exist on disk."""
        paths = [p for p in (self.cell_path(i) for i in cell_ids) if p.is_file()]
        return _read_tables(paths)

    def consolidate(self, cell_ids: Iterable[str]) -> Path | None:
        """Write ``results.parquet`` from the given cells (atomically); None when none exist."""
        paths = [p for p in (self.cell_path(i) for i in cell_ids) if p.is_file()]
        if not paths:
            return None
        table = _concat(paths)
        meta = dict(table.schema.metadata or {})
        meta.pop(_META_STATUS, None)
        meta[_META_CONFIG] = self.config_hash.encode()
        meta[_META_VERSION] = __version__.encode()
        write_parquet_atomic(table.replace_schema_metadata(meta), self.results_path)
        return self.results_path

    def foreign_cells(self, cell_ids: Iterable[str]) -> list[Path]:
        """Cell files in the folder that the current grid does not define."""
        known = {f"{i}.parquet" for i in cell_ids}
        if not self.cells_dir.is_dir():
            return []
        return sorted(p for p in self.cells_dir.glob("*.parquet") if p.name not in known)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the folder's run lock: two runs never write to one folder at the same time.

        The operating system releases the lock when the process dies, even by SIGKILL.
        """
        try:
            import fcntl
        except ImportError:  # pragma: no cover - no advisory locks on this platform
            yield
            return
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / LOCK_FILE
        handle = open(path, "a+")  # noqa: SIM115 - held for the whole run
        try:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.seek(0)
                holder = handle.read().strip() or "another process"
                raise StoreError(
                    f"{self.root} is in use by another run ({holder}); wait for it to finish"
                ) from None
            handle.seek(0)
            handle.truncate()
            handle.write(f"pid {os.getpid()}")
            handle.flush()
            yield
        finally:
            handle.close()


def _read_one(path: Path) -> pa.Table:
    # One row per file: arrow's internal threads cost more than they save (measured).
    try:
        return pq.ParquetFile(path).read(use_threads=False)
    except (OSError, pa.ArrowException) as exc:
        raise StoreError(f"{path}: unreadable parquet file ({exc})") from None


def _concat(paths: list[Path]) -> pa.Table:
    # Serial reads: a thread pool was slower here (the footers are parsed under the GIL).
    tables = [_read_one(p) for p in paths]
    # Methods have different p_<param> columns: missing ones become nulls.
    return pa.concat_tables(tables, promote_options="permissive")


def _read_tables(paths: list[Path]) -> pd.DataFrame:
    if not paths:
        return validate(pd.DataFrame({name: [] for name in COLUMNS}), "no cells")
    return validate(_concat(paths).to_pandas(), str(paths[0].parent))


def validate(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    """Check that ``frame`` has every schema column with its type; return it typed.

    :class:`StoreError` names the missing columns or the column that has the wrong type.
    """
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise StoreError(f"{source}: not a results table (missing {', '.join(missing)})")
    frame = frame.copy()
    for name, dtype in COLUMNS.items():
        try:
            if dtype == "string":
                frame[name] = frame[name].fillna("").astype(str)
            elif dtype == "int64":
                frame[name] = frame[name].astype("int64")
            else:
                frame[name] = frame[name].astype("float64")
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{source}: column {name!r} is not {dtype} ({exc})") from None
    bad = sorted(set(frame["status"]) - {"ok", "error"})
    if bad:
        raise StoreError(f"{source}: unknown status value(s) {', '.join(map(repr, bad))}")
    return frame


def read_results(path: Path | str) -> pd.DataFrame:
    """The validated results of an experiment folder (its cells; else ``results.parquet``),
    or of a single parquet file."""
    path = Path(path)
    if path.is_file():
        return validate(_read_one(path).to_pandas(), str(path))
    cells = sorted((path / CELLS_DIR).glob("*.parquet")) if path.is_dir() else []
    if cells:
        return _read_tables(cells)
    if (path / RESULTS_FILE).is_file():
        return validate(_read_one(path / RESULTS_FILE).to_pandas(), str(path / RESULTS_FILE))
    raise StoreError(f"{path}: no results (no {CELLS_DIR}/*.parquet and no {RESULTS_FILE})")


def check_writable(path: Path | str) -> None:
    """Fail early (:class:`StoreError`) when results cannot be written under ``path``.

    Walks up to the nearest existing folder and creates (then removes) a probe file there,
    which is the only reliable test (permission bits say nothing for root, or on some mounts).
    """
    path = Path(path).absolute()
    probe_dir = path
    while not probe_dir.exists():
        if probe_dir.parent == probe_dir:
            break
        probe_dir = probe_dir.parent
    if not probe_dir.is_dir():
        raise StoreError(f"cannot write results to {path}: {probe_dir} is not a folder")
    for sub in (path, path / CELLS_DIR):
        if sub.exists() and not sub.is_dir():
            raise StoreError(f"cannot write results to {path}: {sub} is not a folder")
    target = path / CELLS_DIR if (path / CELLS_DIR).is_dir() else probe_dir
    try:
        fd, probe = tempfile.mkstemp(prefix=".acfs-probe-", suffix=_TMP_SUFFIX, dir=target)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise StoreError(f"cannot write results to {path}: {exc.strerror or exc}") from None
