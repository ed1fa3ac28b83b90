"""Results on disk: one parquet file per cell, written atomically, and a consolidated table.

Layout (DESIGN.md section 5)::

    results/<experiment>/cells/<cell_id>.parquet   one row each (schema columns + p_<param>)
    results/<experiment>/results.parquet           the consolidated table, rebuilt after a run
    results/<experiment>/manifest.json             the cells of the current configuration
    results/<experiment>/run.lock                  held while a run writes

Every file is written to a temporary name in its own folder, flushed to disk and then renamed
over the target (``os.replace`` is atomic on POSIX), so a reader or a killed run never sees a
half-written file: a cell file either holds a complete row or does not exist. Temporary names
end in ``.tmp``, never ``.parquet``, so readers that glob for cells never pick them up. Files
get the permissions the umask allows (0644 under umask 022), not those of a temporary file.

The parquet key-value metadata of each file carries the cell's status, the configuration hash,
the package version and the CRC-32 of the file's data pages, and every page has its own CRC:
a damaged file (a disk error, a copy cut short, zeroed pages behind an intact footer) is found
by :meth:`ResultStore.status` from the file's bytes at the cost of a footer read, and by any
full read, which verifies the pages.

The manifest names the cells of the folder's current configuration: the last run's grid,
together with the cells of earlier runs of the same settings (other replications). Cells of
other settings in the same folder (another seed, other method parameters) stay on disk, but a
report leaves them out (:mod:`acfs_cli.results.read`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import tempfile
import threading
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute  # noqa: F401 - pa.compute
import pyarrow.parquet as pq

from acfs_cli import __version__
from acfs_cli.results.schema import COLUMNS, PARAM_PREFIX, REQUIRED, empty_value, upgrade

CELLS_DIR = "cells"
RESULTS_FILE = "results.parquet"
LOCK_FILE = "run.lock"
MANIFEST_FILE = "manifest.json"
_TMP_SUFFIX = ".tmp"
_META_STATUS = b"acfs.status"
_META_CONFIG = b"acfs.config_hash"
_META_VERSION = b"acfs.version"
_META_CRC = b"acfs.data_crc32"
_META_CODE = b"acfs.code"
_MAGIC = b"PAR1"

#: What :meth:`ResultStore.status` says of a cell file that exists but cannot be trusted.
DAMAGED = "damaged"
#: What it says when a folder (or anything but a file) stands where a cell file belongs.
BLOCKED = "blocked"
#: Names acfs writes in an experiment folder (the report adds tables/ and figures/).
OWN_NAMES = frozenset({CELLS_DIR, RESULTS_FILE, LOCK_FILE, MANIFEST_FILE, "tables", "figures",
                       "reference_floor.parquet"})

_ARROW_TYPES = {
    "string": pa.string(),
    "float64": pa.float64(),
    "int64": pa.int64(),
    "bool": pa.bool_(),
    "list<float64>": pa.list_(pa.float64()),
}


class StoreError(RuntimeError):
    """A results folder that cannot be used (unwritable, locked, or not a results table)."""


def code_key(problem_code: str, method_code: str) -> str:
    """The code of a cell in one string: what a stored cell is compared by ("" : unknown)."""
    if not (problem_code or method_code):
        return ""
    return json.dumps({"problem": problem_code, "method": method_code}, sort_keys=True)


@dataclass(frozen=True)
class Record:
    """What the store knows of a finished cell without reading its row: its status ("ok",
    "error", :data:`DAMAGED`) and the code that computed it (:func:`code_key`; "" for cells
    of versions that did not record it); ``where`` is "file" or "table"."""

    status: str
    code: str = ""
    where: str = "file"


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


def _column_value(dtype: str, value: Any) -> Any:
    if dtype == "string":
        return "" if value is None else str(value)
    if dtype == "float64":
        return math.nan if value is None else float(value)
    if dtype == "int64":
        return 0 if value is None else int(value)
    if dtype == "bool":
        return bool(value)
    return None if value is None else [float(v) for v in value]  # list<float64>


def rows_table(rows: list[Mapping[str, Any]]) -> pa.Table:
    """Rows as an arrow table: the schema's columns in their order, then the ``p_<name>``
    column of a varied parameter."""
    fields = [pa.field(name, _ARROW_TYPES[dtype]) for name, dtype in COLUMNS.items()]
    data = {name: [_column_value(dtype, r.get(name)) for r in rows]
            for name, dtype in COLUMNS.items()}
    for name in sorted({k for r in rows for k in r if k.startswith(PARAM_PREFIX)}):
        values = [_param_value(r.get(name)) for r in rows]
        kinds = {_param_type(v) for v in values} - {pa.null()}
        kind = kinds.pop() if len(kinds) == 1 else pa.string() if kinds else pa.null()
        fields.append(pa.field(name, kind))
        data[name] = values if len(kinds) <= 1 else [None if v is None else str(v)
                                                      for v in values]
    return pa.Table.from_pydict(data, schema=pa.schema(fields))


def row_table(row: Mapping[str, Any], metadata: Mapping[str, str] | None = None) -> pa.Table:
    """A one-row arrow table (:func:`rows_table`) with the cell's status, code and the
    package version in its metadata."""
    table = rows_table([row])
    values = table.to_pylist()[0]
    meta = {_META_STATUS: str(values["status"]).encode(), _META_VERSION: __version__.encode(),
            _META_CODE: code_key(values["problem_code"], values["method_code"]).encode()}
    for key, value in (metadata or {}).items():
        meta[f"acfs.{key}".encode()] = str(value).encode()
    return table.replace_schema_metadata(meta)


def write_parquet_atomic(table: pa.Table, path: Path) -> None:
    """Write ``table`` to ``path``: temporary file in the same folder, fsync, rename.

    The file carries page checksums and the CRC-32 of its data pages (see
    :func:`verify_parquet`) and the permissions the umask allows.
    """
    write_bytes_atomic(parquet_bytes(table), Path(path))


def write_bytes_atomic(data: bytes, path: Path) -> None:
    """``data`` into ``path`` atomically, with the permissions the umask allows."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=_TMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), file_mode())
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


_UMASK_LOCK = threading.Lock()
_umask: int | None = None


def file_mode() -> int:
    """0666 less the process umask: what ``open()`` would give a new file (mkstemp's 0600
    would hide the results from the group)."""
    global _umask
    with _UMASK_LOCK:
        if _umask is None:
            _umask = _read_umask()
    return 0o666 & ~_umask


def _read_umask() -> int:
    """The umask, read without changing it where the system says it (Linux), else by
    setting and restoring it."""
    with contextlib.suppress(OSError, ValueError, StopIteration):
        status = Path("/proc/self/status").read_text().splitlines()
        return int(next(line for line in status if line.startswith("Umask:")).split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def parquet_bytes(table: pa.Table) -> bytes:
    """``table`` as parquet bytes with page checksums and the CRC-32 of its data pages in the
    key-value metadata (the footer is written after the pages, so the table is encoded twice:
    the second encoding's pages are those of the first, checked)."""
    first = _encode(table)
    crc = zlib.crc32(_data_pages(first))
    meta = {**(table.schema.metadata or {}), _META_CRC: f"{crc:08x}".encode()}
    data = _encode(table.replace_schema_metadata(meta))
    if zlib.crc32(_data_pages(data)) != crc:  # an encoder that is not deterministic
        return first  # still verifiable page by page on a full read
    return data


def _encode(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, write_page_checksum=True)
    return sink.getvalue().to_pybytes()


def _data_pages(data: bytes) -> bytes:
    """The bytes between the leading magic and the footer of a parquet file."""
    if len(data) < 12 or data[:4] != _MAGIC or data[-4:] != _MAGIC:
        raise ValueError("not a parquet file (no PAR1 magic at both ends)")
    footer = int.from_bytes(data[-8:-4], "little")
    if not 0 < footer <= len(data) - 12:
        raise ValueError("the footer length is out of range")
    return data[4 : len(data) - 8 - footer]


def verify_parquet(path: Path) -> pq.FileMetaData:
    """The footer of a parquet file whose pages are intact, or :class:`StoreError`.

    With a data CRC in the footer (every file this module writes) the check costs a read of
    the file's bytes and a CRC-32 of them (about as much as parsing the footer); without one
    (files of older versions) the whole file is decoded, verifying each page's checksum where
    it has one.
    """
    try:
        data = Path(path).read_bytes()
        pages = _data_pages(data)
        meta = pq.read_metadata(pa.BufferReader(data))
        expected = (meta.metadata or {}).get(_META_CRC)
        if expected is None:
            pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=True).read(
                use_threads=False)
        elif int(expected, 16) != zlib.crc32(pages):
            raise ValueError("its data pages do not match their CRC-32")
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise StoreError(f"{path}: damaged parquet file ({_first_line(exc)})") from None
    return meta


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__
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
        self._index: dict[str, Record] | None = None

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

    def record(self, cell_id: str) -> Record | None:
        """What the cell's own file says (:class:`Record`), None when it has no file;
        :data:`DAMAGED` when the file cannot be trusted (unreadable, pages that fail their
        checksum), :data:`BLOCKED` when something other than a file stands in its place."""
        path = self.cell_path(cell_id)
        if not path.exists():
            return None
        if not path.is_file():
            return Record(BLOCKED)
        try:
            meta = verify_parquet(path).metadata or {}
        except StoreError:
            return Record(DAMAGED)
        status = meta.get(_META_STATUS, b"").decode()
        if status not in ("ok", "error"):
            return Record(DAMAGED)
        return Record(status, meta.get(_META_CODE, b"").decode())

    def records(self, cell_ids: Iterable[str]) -> dict[str, Record | None]:
        """Every cell's :class:`Record`: its own file's, else its row's in the consolidated
        table (a fresh checkout holds the committed table and no cell files), else None."""
        out: dict[str, Record | None] = {}
        table = None
        for cell_id in cell_ids:
            rec = self.record(cell_id)
            if rec is None:
                if table is None:
                    table = self.table_index()
                rec = table.get(cell_id)
            out[cell_id] = rec
        return out

    def status(self, cell_id: str) -> str | None:
        """"ok" or "error" as stored, None when the cell has no file, and :data:`DAMAGED`
        when its file cannot be trusted (unreadable, or pages that fail their checksum)."""
        rec = self.record(cell_id)
        return None if rec is None else rec.status

    def statuses(self, cell_ids: Iterable[str]) -> dict[str, str | None]:
        """Status of many cells, from their files or the consolidated table (a footer and a
        CRC-32 each: under a millisecond)."""
        return {i: (None if r is None else r.status) for i, r in self.records(cell_ids).items()}

    def table_index(self) -> dict[str, Record]:
        """The cells of the consolidated table: id -> :class:`Record` (empty when there is no
        table or it cannot be read; the table is checked whole first)."""
        if self._index is None:
            self._index = {}
            if self.results_path.is_file():
                try:
                    verify_parquet(self.results_path)
                    names = pq.read_schema(self.results_path).names
                    wanted = [c for c in ("cell_id", "status", "problem_code", "method_code")
                              if c in names]
                    frame = pq.read_table(self.results_path, columns=wanted).to_pandas()
                except (StoreError, OSError, pa.ArrowException, KeyError):
                    frame = None
                if frame is not None and {"cell_id", "status"} <= set(frame.columns):
                    problem = frame.get("problem_code", pd.Series([""] * len(frame)))
                    method = frame.get("method_code", pd.Series([""] * len(frame)))
                    for cid, status, pc, mc in zip(frame["cell_id"], frame["status"],
                                                   problem.fillna(""), method.fillna(""),
                                                   strict=True):
                        if status in ("ok", "error"):
                            self._index[str(cid)] = Record(str(status), code_key(pc, mc),
                                                           "table")
        return self._index

    def read_rows(self, cell_ids: Iterable[str]) -> pd.DataFrame:
        """The stored rows of the given cells that exist on disk."""
        paths = [p for p in (self.cell_path(i) for i in cell_ids) if p.is_file()]
        return _read_tables(paths)

    def consolidate(self, cell_ids: Iterable[str]) -> Path | None:
        """Write ``results.parquet`` from the given cells (atomically): each from its own file,
        or from the table being replaced where it has none (a fresh checkout holds the
        committed table and no cell files), so the table never loses a cell it held. Not
        rewritten when it already holds exactly these cells and no cell file is newer; None
        when no cell exists.

        :class:`StoreError` (one line) when a cell cannot be read or the table cannot be
        written; the cells stay as they are.
        """
        ids = list(dict.fromkeys(cell_ids))
        paths = {i: self.cell_path(i) for i in ids if self.cell_path(i).is_file()}
        kept = [i for i in ids if i not in paths and i in self.table_index()]
        if not paths and not kept:
            return None
        if self._up_to_date(ids, paths):
            return self.results_path
        tables = [_concat(list(paths.values()))] if paths else []
        if kept:
            old = _read_one(self.results_path)
            mask = pa.compute.is_in(old.column("cell_id"), value_set=pa.array(kept))
            tables.append(old.filter(mask))
        table = pa.concat_tables(tables, promote_options="permissive") if len(tables) > 1 \
            else tables[0]
        meta = dict(table.schema.metadata or {})
        for key in (_META_STATUS, _META_CRC, _META_CODE):
            meta.pop(key, None)
        meta[_META_CONFIG] = self.config_hash.encode()
        meta[_META_VERSION] = __version__.encode()
        try:
            write_parquet_atomic(table.replace_schema_metadata(meta), self.results_path)
        except OSError as exc:
            raise StoreError(f"cannot write {self.results_path}: {exc.strerror or exc}; the "
                             f"{len(paths)} cells stay in {self.cells_dir}") from None
        self._index = None
        return self.results_path

    def _up_to_date(self, ids: list[str], paths: Mapping[str, Path]) -> bool:
        """Whether the table holds exactly ``ids`` and no cell file is newer than it."""
        if not self.results_path.is_file() or set(self.table_index()) != set(ids):
            return False
        stamp = self.results_path.stat().st_mtime_ns
        return all(p.stat().st_mtime_ns <= stamp for p in paths.values())

    def unpack(self, keep: Iterable[str]) -> int:
        """Write a cell file for every row of the consolidated table that has none and is
        not among ``keep`` (about to leave the table when it is rewritten for another
        configuration), so no result exists only in a file that is replaced. Returns how
        many were written."""
        keep = set(keep)
        missing = [i for i in self.table_index() if i not in keep
                   and not self.cell_path(i).exists()]
        if not missing:
            return 0
        table = _read_one(self.results_path)
        ids = table.column("cell_id").to_pylist()
        self.cells_dir.mkdir(parents=True, exist_ok=True)
        wanted = set(missing)
        for k, cell_id in enumerate(ids):
            if cell_id in wanted:
                row = {name: table.column(name)[k].as_py() for name in table.column_names}
                self.write_row(row)
        return len(missing)

    def accept_code(self, cell_ids: Iterable[str], problem_code: Mapping[str, str],
                    method_code: Mapping[str, str]) -> int:
        """Record the given code fingerprints in stored cells whose results are to be kept
        as they are (the user says the code change does not change them). Cells held only
        by the consolidated table get a file. Returns how many were rewritten."""
        ids = list(cell_ids)
        rows = self.read_rows([i for i in ids if self.cell_path(i).is_file()])
        frames = [rows]
        rest = [i for i in ids if not self.cell_path(i).is_file() and i in self.table_index()]
        if rest:
            old = _read_one(self.results_path)
            mask = pa.compute.is_in(old.column("cell_id"), value_set=pa.array(rest))
            frames.append(old.filter(mask).to_pandas())
        n = 0
        for frame in frames:
            for record in frame.to_dict("records"):
                cid = record["cell_id"]
                record["problem_code"] = problem_code[cid]
                record["method_code"] = method_code[cid]
                self.write_row({k: _plain(v) for k, v in record.items()})
                n += 1
        return n

    def check_folder(self, experiment: str) -> None:
        """Refuse (:class:`StoreError`, one line) a folder whose files acfs would overwrite
        but did not write, or which lies inside another experiment's folder.

        A folder is the results folder of ``experiment`` when it is new or empty, or holds an
        acfs manifest or consolidated table of that experiment; anything else is someone
        else's, and nothing in it is touched.
        """
        root = self.root
        for parent in list(root.absolute().parents)[:3]:
            if (parent / MANIFEST_FILE).is_file() or (parent / RESULTS_FILE).is_file():
                other = _folder_experiment(parent)
                if other is not None:
                    raise StoreError(
                        f"{root} lies inside the results folder of experiment {other!r} "
                        f"({parent}); give {experiment!r} a folder of its own (--output)")
        if root.exists() and not root.is_dir():
            raise StoreError(f"cannot write results to {root}: it is not a folder")
        if not root.is_dir():
            return
        manifest = read_manifest(root)  # StoreError when it is not one acfs wrote
        if self.results_path.exists():
            if not self.results_path.is_file():
                raise StoreError(f"{self.results_path} is not a file; move it away")
            meta = _table_metadata(self.results_path)
            if meta is None or _META_VERSION not in meta:
                raise StoreError(
                    f"{self.results_path} was not written by acfs; results go to a folder of "
                    "their own (--output), and nothing here is overwritten")
        if manifest is None and not self.results_path.exists():
            foreign = sorted(p.name for p in root.iterdir()
                             if p.name not in OWN_NAMES and not p.name.startswith("."))
            if foreign:
                raise StoreError(
                    f"{root} holds files acfs did not write ({', '.join(foreign[:3])}"
                    f"{', ...' if len(foreign) > 3 else ''}); give the results a folder of "
                    "their own (--output)")
        if self.cells_dir.exists() and not self.cells_dir.is_dir():
            raise StoreError(f"cannot write results to {root}: {self.cells_dir} is not a folder")

    # -- the current configuration -----------------------------------------------------------
    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST_FILE

    def read_manifest(self) -> Manifest | None:
        """The folder's manifest, or None when there is none or it cannot be read."""
        return read_manifest(self.root)

    def claim(self, experiment: str, settings: str, cell_ids: Iterable[str],
              source: str = "") -> Manifest:
        """Make the given cells the folder's current configuration (atomically).

        Cells of earlier runs with the same ``settings`` stay current beside them (other
        replications of one configuration); other settings are replaced. A folder that holds
        another experiment is refused (:class:`StoreError`): its ``results.parquet`` would be
        overwritten.
        """
        ids = set(cell_ids)
        previous = self.read_manifest()
        other = previous.experiment if previous is not None else self._stored_experiment()
        if other is not None and other != experiment:
            raise StoreError(
                f"{self.root} holds the results of experiment {other!r}; give {experiment!r} "
                "its own folder (--output)"
            )
        if previous is not None and previous.settings == settings:
            ids |= previous.cells
        # The table is rewritten for these cells at the end: rows it holds for others are
        # written out as cell files first, so none is lost.
        self.unpack(ids)
        if source:
            source = os.path.relpath(source, self.root.resolve())
        manifest = Manifest(experiment, settings, frozenset(ids), source)
        try:
            write_bytes_atomic(manifest.to_json().encode(), self.manifest_path)
        except OSError as exc:
            raise StoreError(f"cannot write {self.manifest_path}: {exc.strerror or exc}") from None
        return manifest

    def _stored_experiment(self) -> str | None:
        """The experiment of a consolidated table without a manifest (older folders)."""
        try:
            column = pq.read_table(self.results_path, columns=["experiment"]).column(0)
        except (OSError, KeyError, pa.ArrowException):
            return None
        names = set(column.to_pylist())
        return names.pop() if len(names) == 1 else None

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
        path = self.root / LOCK_FILE
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            handle = open(path, "a+")  # noqa: SIM115 - held for the whole run
        except OSError as exc:
            raise StoreError(f"cannot write to {self.root}: {exc.strerror or exc}") from None
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
        table = pq.ParquetFile(path, page_checksum_verification=True).read(use_threads=False)
    except (OSError, pa.ArrowException) as exc:
        raise StoreError(f"{path}: unreadable parquet file ({_first_line(exc)})") from None
    if "dgp" in table.column_names:  # a table of an older version: today's row
        meta = table.schema.metadata
        table = rows_table([upgrade(r) for r in table.to_pylist()]).replace_schema_metadata(meta)
    return table


def _concat(paths: list[Path]) -> pa.Table:
    # Serial reads: a thread pool was slower here (the footers are parsed under the GIL).
    tables = [_read_one(p) for p in paths]
    # Methods have different p_<param> columns: missing ones become nulls.
    return pa.concat_tables(tables, promote_options="permissive")


def read_rows_of(paths: Iterable[Path]) -> tuple[pd.DataFrame, list[Path]]:
    """The validated rows of the given cell files, and the files that could not be read
    (left out of the rows)."""
    tables, read, damaged = [], [], []
    for path in paths:
        try:
            tables.append(_read_one(path))
            read.append(Path(path))
        except StoreError:
            damaged.append(Path(path))
    if not tables:
        return _read_tables([]), damaged
    frame = pa.concat_tables(tables, promote_options="permissive").to_pandas()
    return validate(frame, str(read[0].parent)), damaged


def _read_tables(paths: list[Path]) -> pd.DataFrame:
    if not paths:
        return validate(pd.DataFrame({name: [] for name in COLUMNS}), "no cells")
    return validate(_concat(paths).to_pandas(), str(paths[0].parent))


def validate(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    """Check that ``frame`` has every required column of the row with its type; return it
    typed (columns of later versions that an older table lacks are added empty).

    :class:`StoreError` names the missing columns or the column that has the wrong type.
    """
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise StoreError(f"{source}: not a results table (missing {', '.join(missing)})")
    frame = frame.copy()
    for name, dtype in COLUMNS.items():
        if name not in frame.columns:
            frame[name] = _objects([None] * len(frame), frame.index) if (
                dtype == "list<float64>") else empty_value(dtype)
        try:
            if dtype == "string":
                frame[name] = frame[name].fillna("").astype(str)
            elif dtype == "int64":
                frame[name] = frame[name].astype("int64")
            elif dtype == "bool":
                frame[name] = frame[name].fillna(False).astype(bool)
            elif dtype == "list<float64>":
                frame[name] = _objects([_decision(v) for v in frame[name]], frame.index)
            else:
                frame[name] = frame[name].astype("float64")
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{source}: column {name!r} is not {dtype} ({exc})") from None
    sizes = np.array([0 if x is None else x.size for x in frame["x"]], dtype=np.int64)
    if (sizes != frame["dim_x"].to_numpy()).any():
        raise StoreError(f"{source}: dim_x is not the length of x in "
                         f"{int((sizes != frame['dim_x'].to_numpy()).sum())} row(s)")
    bad = sorted(set(frame["status"]) - {"ok", "error"})
    if bad:
        raise StoreError(f"{source}: unknown status value(s) {', '.join(map(repr, bad))}")
    return frame


def _objects(values: list, index: pd.Index) -> pd.Series:
    """A column of arbitrary objects (arrays stay one per row, never a 2-D block)."""
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return pd.Series(out, index=index, dtype=object)


def _decision(value: Any) -> np.ndarray | None:
    """A stored decision as a float array (None for none)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    x = np.asarray(value, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"a decision must be a list of numbers, got shape {x.shape}")
    return x


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
    # The folder itself takes results.parquet, the manifest and the lock; cells/ the cells.
    targets = [d for d in (path, path / CELLS_DIR) if d.is_dir()] or [probe_dir]
    for target in targets:
        try:
            fd, probe = tempfile.mkstemp(prefix=".acfs-probe-", suffix=_TMP_SUFFIX, dir=target)
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            raise StoreError(
                f"cannot write results to {path}: {target}: {exc.strerror or exc}") from None


@dataclass(frozen=True)
class Manifest:
    """The current configuration of a results folder: its experiment, a key of its settings
    (everything but the replications) and the ids of its cells."""

    experiment: str
    settings: str
    cells: frozenset[str]
    #: The configuration's folder relative to the results folder ("" when unknown): problems
    #: and methods named by import path are found there again (the reference floor).
    source: str = ""

    def to_json(self) -> str:
        return json.dumps({"format": 1, "experiment": self.experiment,
                           "settings": self.settings, "source": self.source,
                           "cells": sorted(self.cells)}, indent=0)


_CELL_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")  # the stem of a cell file's name


def read_manifest(root: Path | str) -> Manifest | None:
    """The manifest of a results folder, None when there is none; :class:`StoreError` (one
    line) when there is a file of that name that acfs did not write or that was damaged:
    nothing is read from it, and a run refuses the folder rather than replace it."""
    path = Path(root) / MANIFEST_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise StoreError(f"{path} cannot be read as an acfs manifest ({_first_line(exc)}); "
                         "move it away or choose another folder") from None
    problem = _manifest_problem(data)
    if problem:
        raise StoreError(f"{path} is not an acfs manifest ({problem}); move it away or choose "
                         "another folder")
    return Manifest(data["experiment"], data["settings"], frozenset(data["cells"]),
                    data.get("source", ""))


def _manifest_problem(data: Any) -> str:
    """What makes ``data`` something other than a manifest this module wrote ("" : nothing)."""
    if not isinstance(data, dict):
        return "not a JSON object"
    if data.get("format") != 1:
        return "no format 1"
    for key in ("experiment", "settings"):
        if not isinstance(data.get(key), str) or not data[key]:
            return f"{key} is not a name"
    if not isinstance(data.get("source", ""), str):
        return "source is not a path"
    cells = data.get("cells")
    if not isinstance(cells, list):
        return "cells is not a list"
    bad = [c for c in cells if not (isinstance(c, str) and _CELL_ID.fullmatch(c))]
    if bad:
        return f"cells holds {len(bad)} entries that are not cell ids, e.g. {bad[0]!r:.40}"
    return ""


def _folder_experiment(folder: Path) -> str | None:
    """The experiment of an acfs results folder (its manifest's, else its table's), or None
    when the folder is not one."""
    try:
        manifest = read_manifest(folder)
    except StoreError:
        manifest = None
    if manifest is not None:
        return manifest.experiment
    path = folder / RESULTS_FILE
    meta = _table_metadata(path) if path.is_file() else None
    if meta is None or _META_VERSION not in meta:
        return None
    try:
        names = set(pq.read_table(path, columns=["experiment"]).column(0).to_pylist())
    except (OSError, KeyError, pa.ArrowException):
        return None
    return names.pop() if len(names) == 1 else "(several)"


def _table_metadata(path: Path) -> dict[bytes, bytes] | None:
    """The key-value metadata of a parquet file, or None when it is not one."""
    try:
        return dict(pq.read_metadata(path).metadata or {})
    except (OSError, pa.ArrowException):
        return None


def _plain(value: Any) -> Any:
    """A value read back from pandas as the row writer takes it (lists, not arrays)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value
