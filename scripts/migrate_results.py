"""Rewrite result tables of older versions in today's form (acfs_cli.results.schema).

    python scripts/migrate_results.py            # every parquet file under results/
    python scripts/migrate_results.py DIR ...    # or under the given folders

What older versions wrote, and what it becomes:

* a decision per coordinate (``x1``..``x6``) -> the decision whole, ``x`` and ``dim_x`` (a
  decision's trailing missing coordinates are not part of it; none at all is no decision);
* the problem's name in results as ``dgp`` and the problem as built as ``problem`` ->
  ``problem`` and ``problem_name`` (results, reference optima and regret floors);
* every method setting as a ``p_<name>`` column -> one ``settings`` column (JSON) and its hash,
  a ``p_<name>`` column kept only for the parameter a one-at-a-time study varies, with that
  parameter's value at the study's base point in ``varied_default`` (the most common value
  among the rows that vary another parameter);
* no display name -> ``method_display``.

Results tables (a consolidated ``results.parquet`` and cell files) are rewritten through the
store, so they come out exactly as a run writes them today; their key-value metadata (status,
configuration hash, code) is kept. Every row is re-read after the rewrite and checked against
the original (identity, evaluation and decision unchanged).

Idempotent: files in today's form are left untouched. Atomic: each file is written to a
temporary name beside it, flushed and renamed over it. Exit status 1 when a file cannot be
read or does not check out (that file is not replaced).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from acfs_cli.results.files import write_bytes_atomic  # noqa: E402
from acfs_cli.results.parquet import parquet_bytes, rows_table  # noqa: E402
from acfs_cli.results.schema import PARAM_PREFIX, upgrade  # noqa: E402

_COORDINATE = re.compile(r"x([1-9][0-9]*)")
#: Columns whose values must survive the rewrite unchanged.
_KEPT = ("cell_id", "lam", "alpha", "method", "rep", "seed", "J", "EC", "CVaR", "J_true",
         "oracle_draws", "status")


def coordinate_columns(names: list[str]) -> list[str]:
    """The old per-coordinate columns among ``names``: ``x1``, ``x2``, ... in order."""
    found = sorted((int(m[1]), n) for n in names if (m := _COORDINATE.fullmatch(n)))
    return [n for _, n in found]


def whole(values: list) -> list[float] | None:
    coords = [math.nan if v is None else float(v) for v in values]
    while coords and math.isnan(coords[-1]):
        coords.pop()
    return coords or None


def with_whole_decisions(records: list[dict]) -> list[dict]:
    """Records with ``x1``..``xk`` folded into ``x`` and ``dim_x``."""
    if not records:
        return records
    columns = coordinate_columns(list(records[0]))
    if not columns or "x" in records[0]:
        return records
    out = []
    for record in records:
        x = whole([record[c] for c in columns])
        kept = {k: v for k, v in record.items() if k not in columns}
        out.append({**kept, "x": x, "dim_x": 0 if x is None else len(x)})
    return out


def varied_defaults(records: list[dict]) -> dict[str, float]:
    """The base value of each varied parameter: the most common ``p_<p>`` among the rows that
    vary another parameter (how the report of the old version read it)."""
    out = {}
    for parameter in {r.get("varied") for r in records} - {"", None}:
        column = PARAM_PREFIX + parameter
        values = [r.get(column) for r in records if r.get("varied") != parameter]
        values = [float(v) for v in values if v is not None and not _nan(v)]
        if values:
            out[parameter] = Counter(values).most_common(1)[0][0]
    return out


def _nan(value) -> bool:
    return isinstance(value, float) and math.isnan(value)


def migrate_results(path: Path, table: pa.Table) -> str:
    records = with_whole_decisions(table.to_pylist())
    defaults = varied_defaults(records)
    rows = []
    for record in records:
        row = upgrade(record)
        if row.get("varied") and _nan(row.get("varied_default", math.nan)):
            row["varied_default"] = defaults.get(row["varied"], math.nan)
        rows.append(row)
    new = rows_table(rows).replace_schema_metadata(table.schema.metadata)
    check(table, records, new)
    write_bytes_atomic(parquet_bytes(new), path)
    return f"{len(rows)} rows in today's form"


def check(old: pa.Table, records: list[dict], new: pa.Table) -> None:
    """Every row's identity, evaluation and decision survived the rewrite."""
    after = new.to_pylist()
    if len(after) != len(records):
        raise ValueError(f"{len(records)} rows became {len(after)}")
    for a, b in zip(records, after, strict=True):
        for key in _KEPT:
            if key in a and not _same(a[key], b[key]):
                raise ValueError(f"{key} changed in cell {a.get('cell_id')}")
        if not _same(a.get("x"), b["x"]):
            raise ValueError(f"the decision changed in cell {a.get('cell_id')}")
        label = a.get("dgp", a.get("problem"))
        if label != b["problem"]:
            raise ValueError(f"the problem changed in cell {a.get('cell_id')}")


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return bool(np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                               equal_nan=True)) if not isinstance(a, str) else a == b


def migrate_plain(path: Path, table: pa.Table) -> str:
    """A reference table or a regret floor: ``dgp`` -> ``problem``, decisions whole."""
    records = with_whole_decisions(table.to_pylist())
    for record in records:
        if "dgp" in record:
            record["problem"] = record.pop("dgp")
    new = pa.Table.from_pylist(records).replace_schema_metadata(table.schema.metadata)
    write_bytes_atomic(parquet_bytes(new), path)
    return f"{len(records)} rows: dgp -> problem"


def migrate(path: Path) -> str:
    """Convert one file in place; return what was done, in a few words."""
    names = pq.read_schema(path).names
    is_results = "cell_id" in names and "status" in names
    old_form = "dgp" in names or bool(coordinate_columns(names))
    if not old_form:
        return "already in today's form"
    table = pq.read_table(path)
    if is_results:
        return migrate_results(path, table)
    return migrate_plain(path, table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[ROOT / "results"])
    args = parser.parse_args(argv)
    code = 0
    for folder in args.folders:
        for path in sorted(Path(folder).rglob("*.parquet")):
            try:
                print(f"{path}: {migrate(path)}")
            except Exception as exc:  # one file's failure is reported; the others go on
                print(f"{path}: FAILED ({type(exc).__name__}: {exc})")
                code = 1
    return code


if __name__ == "__main__":
    raise SystemExit(main())

