"""Convert result tables from per-coordinate decisions (``x1``..``x6``) to the decision
whole: a list column ``x`` and its length ``dim_x``, the form of acfs_cli.results.schema.

    python scripts/migrate_results.py            # every parquet file under results/
    python scripts/migrate_results.py DIR ...    # or under the given folders

Every parquet file found that holds ``x1``..``xk`` (a consolidated ``results.parquet``, cell
files, the reference table ``reference/reference.parquet``) is rewritten with ``x`` and
``dim_x`` in their place; every other column, the row order and the file's key-value
metadata are kept (pandas' description of the columns is updated to match). A decision's
trailing missing coordinates are not part of it, and a row with none (a failed cell) has no
decision (null, ``dim_x`` 0).

Idempotent: files already in the new form, and files without decisions, are left untouched.
Atomic: each file is written to a temporary name beside it, flushed and renamed over it, and
re-read and checked against the original before the next one. Exit status 1 when a file
cannot be read or does not check out (nothing is replaced then).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from acfs_cli.results.schema import coordinate_columns  # noqa: E402
from acfs_cli.results.store import parquet_bytes, whole_decisions, write_bytes_atomic  # noqa: E402


def migrate(path: Path) -> str:
    """Convert one file in place; return what was done, in a few words."""
    names = pq.read_schema(path).names
    old = coordinate_columns(names)
    if "x" in names:
        return "already whole"
    if not old:
        return "no decisions"
    table = pq.read_table(path)
    new = whole_decisions(table)
    new = new.replace_schema_metadata(_metadata(table.schema.metadata or {}, old))
    data = parquet_bytes(new)
    _check(table, pq.read_table(pa.BufferReader(data)), old)
    write_bytes_atomic(data, path)
    _check(table, pq.read_table(path), old)
    return f"{table.num_rows:,} rows: {', '.join(old)} -> x, dim_x"


def _metadata(meta: dict[bytes, bytes], old: list[str]) -> dict[bytes, bytes]:
    """The key-value metadata with pandas' column list following the new columns."""
    meta = dict(meta)
    if b"pandas" not in meta:
        return meta
    pandas = json.loads(meta[b"pandas"])
    columns = []
    for column in pandas.get("columns", []):
        if column.get("name") == old[0]:
            columns.append({"name": "x", "field_name": "x", "pandas_type": "list[float64]",
                            "numpy_type": "object", "metadata": None})
            columns.append({"name": "dim_x", "field_name": "dim_x", "pandas_type": "int64",
                            "numpy_type": "int64", "metadata": None})
        elif column.get("name") not in old:
            columns.append(column)
    pandas["columns"] = columns
    meta[b"pandas"] = json.dumps(pandas).encode()
    return meta


def _check(before: pa.Table, after: pa.Table, old: list[str]) -> None:
    """Every other column equal, and each decision the old coordinates (trailing NaN off)."""
    kept = [n for n in before.column_names if n not in old]
    expected = [*kept[: before.column_names.index(old[0])], "x", "dim_x",
                *kept[before.column_names.index(old[0]):]]
    if after.column_names != expected:
        raise ValueError(f"columns {after.column_names} instead of {expected}")
    for name in kept:
        if not _same(after.column(name).to_pylist(), before.column(name).to_pylist()):
            raise ValueError(f"column {name!r} changed")
    coords = zip(*(before.column(c).to_pylist() for c in old), strict=True)
    for i, (values, x, dim) in enumerate(zip(coords, after.column("x").to_pylist(),
                                             after.column("dim_x").to_pylist(), strict=True)):
        values = [math.nan if v is None else v for v in values]
        n = len(x or [])
        if dim != n or any(a != b for a, b in zip(values[:n], x or [], strict=True)) or not all(
                math.isnan(v) for v in values[n:]):
            raise ValueError(f"row {i}: decision {x} (dim {dim}) is not {values}")


def _same(a: list, b: list) -> bool:
    """Equal lists, NaN equal to NaN."""
    return len(a) == len(b) and all(
        x == y or (isinstance(x, float) and isinstance(y, float) and math.isnan(x)
                   and math.isnan(y)) for x, y in zip(a, b, strict=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[ROOT / "results"])
    args = parser.parse_args(argv)
    failed = 0
    for folder in args.folders:
        for path in sorted(Path(folder).rglob("*.parquet")):
            try:
                outcome = migrate(path)
            except (OSError, ValueError, pa.ArrowException) as exc:
                outcome = f"FAILED: {' '.join(str(exc).split())[:200]}"
                failed += 1
            print(f"{path}: {outcome}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
