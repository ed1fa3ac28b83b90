"""Results on disk: one parquet file per cell, written atomically, and a consolidated table.

Layout (DESIGN.md section 5)::

    results/<experiment>/cells/<cell_id>.parquet   one row each (schema columns + p_<param>)
    results/<experiment>/results.parquet           the consolidated table, rebuilt after a run
    results/<experiment>/manifest.json             the cells of the current configuration
    results/<experiment>/run.lock                  held while a run writes

Files are written atomically (:mod:`acfs_cli.results.files`): a cell file either holds a
complete row or does not exist. Each file carries the cell's status, its code and the CRC of
its data (:mod:`acfs_cli.results.parquet`), so :meth:`ResultStore.record` tells a damaged
file from its bytes at the cost of a footer read. The manifest
(:mod:`acfs_cli.results.manifest`) names the cells of the folder's current configuration;
cells of other settings stay on disk, but a report leaves them out
(:mod:`acfs_cli.results.read`).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute  # noqa: F401 - pa.compute
import pyarrow.parquet as pq

from acfs_cli import __version__
from acfs_cli.results.files import TMP_SUFFIX, StoreError, hold_lock, write_bytes_atomic
from acfs_cli.results.manifest import MANIFEST_FILE, Manifest, read_manifest
from acfs_cli.results.parquet import (
    META_CODE,
    META_CONFIG,
    META_CRC,
    META_STATUS,
    META_VERSION,
    concat_tables,
    read_table,
    read_tables,
    row_table,
    table_metadata,
    validate,
    verify_parquet,
    write_parquet_atomic,
)
from acfs_cli.results.schema import code_key

CELLS_DIR = "cells"
RESULTS_FILE = "results.parquet"
LOCK_FILE = "run.lock"

#: What :meth:`ResultStore.status` says of a cell file that exists but cannot be trusted.
DAMAGED = "damaged"
#: What it says when a folder (or anything but a file) stands where a cell file belongs.
BLOCKED = "blocked"
#: Names acfs writes in an experiment folder (the report adds tables/ and figures/).
OWN_NAMES = frozenset({CELLS_DIR, RESULTS_FILE, LOCK_FILE, MANIFEST_FILE, "tables", "figures",
                       "reference_floor.parquet"})


@dataclass(frozen=True)
class Record:
    """What the store knows of a finished cell without reading its row: its status ("ok",
    "error", :data:`DAMAGED`) and the code that computed it (:func:`code_key`; "" for cells
    of versions that did not record it); ``where`` is "file" or "table"."""

    status: str
    code: str = ""
    where: str = "file"


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
        for stale in self.cells_dir.glob(f".*{TMP_SUFFIX}"):
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
        status = meta.get(META_STATUS, b"").decode()
        if status not in ("ok", "error"):
            return Record(DAMAGED)
        return Record(status, meta.get(META_CODE, b"").decode())

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
        return read_tables(paths)

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
        tables = [concat_tables(list(paths.values()))] if paths else []
        if kept:
            old = read_table(self.results_path)
            mask = pa.compute.is_in(old.column("cell_id"), value_set=pa.array(kept))
            tables.append(old.filter(mask))
        table = pa.concat_tables(tables, promote_options="permissive") if len(tables) > 1 \
            else tables[0]
        meta = dict(table.schema.metadata or {})
        for key in (META_STATUS, META_CRC, META_CODE):
            meta.pop(key, None)
        meta[META_CONFIG] = self.config_hash.encode()
        meta[META_VERSION] = __version__.encode()
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
        table = read_table(self.results_path)
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
            old = read_table(self.results_path)
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
            meta = table_metadata(self.results_path)
            if meta is None or META_VERSION not in meta:
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
              source: str = "", methods: Iterable[str] = ()) -> Manifest:
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
        manifest = Manifest(experiment, settings, frozenset(ids), source,
                            tuple(dict.fromkeys(methods)))
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

    def lock(self) -> contextlib.AbstractContextManager[None]:
        """The folder's run lock, held while a run writes: two runs never write to one folder
        at the same time (:func:`~acfs_cli.results.files.hold_lock`)."""
        return hold_lock(self.root / LOCK_FILE)


def read_stored(path: Path | str) -> pd.DataFrame:
    """Every validated row stored at ``path``: an experiment folder's cells (else its
    ``results.parquet``), or one parquet file. A report reads one configuration's rows
    instead (:func:`acfs_cli.results.read.read_results`)."""
    path = Path(path)
    if path.is_file():
        return validate(read_table(path).to_pandas(), str(path))
    cells = sorted((path / CELLS_DIR).glob("*.parquet")) if path.is_dir() else []
    if cells:
        return read_tables(cells)
    if (path / RESULTS_FILE).is_file():
        return validate(read_table(path / RESULTS_FILE).to_pandas(), str(path / RESULTS_FILE))
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
            fd, probe = tempfile.mkstemp(prefix=".acfs-probe-", suffix=TMP_SUFFIX, dir=target)
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            raise StoreError(
                f"cannot write results to {path}: {target}: {exc.strerror or exc}") from None


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
    meta = table_metadata(path) if path.is_file() else None
    if meta is None or META_VERSION not in meta:
        return None
    try:
        names = set(pq.read_table(path, columns=["experiment"]).column(0).to_pylist())
    except (OSError, KeyError, pa.ArrowException):
        return None
    return names.pop() if len(names) == 1 else "(several)"


def _plain(value: Any) -> Any:
    """A value read back from pandas as the row writer takes it (lists, not arrays)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value
