"""The results as parquet: rows to arrow tables and back, files with a CRC of their data, and
reading and validating them (DESIGN.md section 5).

The parquet key-value metadata of each file carries the cell's status, the configuration hash,
the package version and the CRC-32 of the file's data pages, and every page has its own CRC:
a damaged file (a disk error, a copy cut short, zeroed pages behind an intact footer) is found
from the file's bytes at the cost of a footer read (:func:`verify_parquet`), and by any full
read, which verifies the pages.

Rows hold the schema's columns in their order (:mod:`acfs_cli.results.schema`); a table of an
older version is read as today's rows (:func:`~acfs_cli.results.schema.upgrade`).
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from acfs_cli import __version__
from acfs_cli.results.files import StoreError, first_line, write_bytes_atomic
from acfs_cli.results.schema import (
    COLUMNS,
    PARAM_PREFIX,
    REQUIRED,
    code_key,
    empty_value,
    upgrade,
)

META_STATUS = b"acfs.status"
META_CONFIG = b"acfs.config_hash"
META_VERSION = b"acfs.version"
META_CRC = b"acfs.data_crc32"
META_CODE = b"acfs.code"
_MAGIC = b"PAR1"

_ARROW_TYPES = {
    "string": pa.string(),
    "float64": pa.float64(),
    "int64": pa.int64(),
    "bool": pa.bool_(),
    "list<float64>": pa.list_(pa.float64()),
}


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
    meta = {META_STATUS: str(values["status"]).encode(), META_VERSION: __version__.encode(),
            META_CODE: code_key(values["problem_code"], values["method_code"]).encode()}
    for key, value in (metadata or {}).items():
        meta[f"acfs.{key}".encode()] = str(value).encode()
    return table.replace_schema_metadata(meta)


# -- files with a CRC ----------------------------------------------------------------------------
def write_parquet_atomic(table: pa.Table, path: Path) -> None:
    """Write ``table`` to ``path``: temporary file in the same folder, fsync, rename.

    The file carries page checksums and the CRC-32 of its data pages (see
    :func:`verify_parquet`) and the permissions the umask allows.
    """
    write_bytes_atomic(parquet_bytes(table), Path(path))


def parquet_bytes(table: pa.Table) -> bytes:
    """``table`` as parquet bytes with page checksums and the CRC-32 of its data pages in the
    key-value metadata (the footer is written after the pages, so the table is encoded twice:
    the second encoding's pages are those of the first, checked)."""
    first = _encode(table)
    crc = zlib.crc32(_data_pages(first))
    meta = {**(table.schema.metadata or {}), META_CRC: f"{crc:08x}".encode()}
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
        expected = (meta.metadata or {}).get(META_CRC)
        if expected is None:
            pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=True).read(
                use_threads=False)
        elif int(expected, 16) != zlib.crc32(pages):
            raise ValueError("its data pages do not match their CRC-32")
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise StoreError(f"{path}: damaged parquet file ({first_line(exc)})") from None
    return meta


def table_metadata(path: Path) -> dict[bytes, bytes] | None:
    """The key-value metadata of a parquet file, or None when it is not one."""
    try:
        return dict(pq.read_metadata(path).metadata or {})
    except (OSError, pa.ArrowException):
        return None


# -- reading -------------------------------------------------------------------------------------
def read_table(path: Path) -> pa.Table:
    # One row per file: arrow's internal threads cost more than they save (measured).
    try:
        table = pq.ParquetFile(path, page_checksum_verification=True).read(use_threads=False)
    except (OSError, pa.ArrowException) as exc:
        raise StoreError(f"{path}: unreadable parquet file ({first_line(exc)})") from None
    if "dgp" in table.column_names:  # a table of an older version: today's row
        meta = table.schema.metadata
        table = rows_table([upgrade(r) for r in table.to_pylist()]).replace_schema_metadata(meta)
    return table


def concat_tables(paths: list[Path]) -> pa.Table:
    # Serial reads: a thread pool was slower here (the footers are parsed under the GIL).
    tables = [read_table(p) for p in paths]
    # Methods have different p_<param> columns: missing ones become nulls.
    return pa.concat_tables(tables, promote_options="permissive")


def read_rows_of(paths: Iterable[Path]) -> tuple[pd.DataFrame, list[Path]]:
    """The validated rows of the given cell files, and the files that could not be read
    (left out of the rows)."""
    tables, read, damaged = [], [], []
    for path in paths:
        try:
            tables.append(read_table(path))
            read.append(Path(path))
        except StoreError:
            damaged.append(Path(path))
    if not tables:
        return read_tables([]), damaged
    frame = pa.concat_tables(tables, promote_options="permissive").to_pandas()
    return validate(frame, str(read[0].parent)), damaged


def read_tables(paths: list[Path]) -> pd.DataFrame:
    if not paths:
        return validate(pd.DataFrame({name: [] for name in COLUMNS}), "no cells")
    return validate(concat_tables(paths).to_pandas(), str(paths[0].parent))


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
