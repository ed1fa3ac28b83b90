"""scripts/migrate_results.py: x1..x6 become the decision whole, once, atomically."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from acfs_cli.experiment.reference import read_references
from acfs_cli.results.store import read_results, row_table

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "migrate_results.py"


@pytest.fixture(scope="module")
def migrate():
    spec = importlib.util.spec_from_file_location("migrate_results", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def old_results(path: Path) -> None:
    """A consolidated table of an older version: two cells, one failed, x1..x6."""
    from test_store import make_row

    tables = []
    for cell_id, x, status in (("a", [0.1, 0.2, 0.3, 0.0, 0.05, 1.0], "ok"),
                               ("b", [math.nan] * 6, "error")):
        table = row_table(make_row(cell_id, status=status)).drop_columns(["x", "dim_x"])
        at = table.column_names.index("J_true_se") + 1
        for i, v in enumerate(x):
            table = table.add_column(at + i, f"x{i + 1}", pa.array([v]))
        tables.append(table)
    table = pa.concat_tables(tables)
    pq.write_table(table.replace_schema_metadata({b"acfs.config_hash": b"h"}), path)


def test_old_tables_are_converted_once_and_read_the_same(tmp_path, migrate, capsys):
    (tmp_path / "exp").mkdir()
    (tmp_path / "reference").mkdir()
    old_results(tmp_path / "exp" / "results.parquet")
    reference = pd.DataFrame([{"dgp": "dgp1", "lam": 0.7, "alpha": 0.95, "J_star": 1.0,
                               "J_star_se": 0.1, "EC_star": 0.5, "CVaR_star": 2.0,
                               **{f"x{i}": 0.1 * i for i in range(1, 7)}, "draws": 9}])
    reference.to_parquet(tmp_path / "reference" / "reference.parquet", index=False)
    pd.DataFrame({"dgp": ["dgp1"], "J_ref_true": [1.0]}).to_parquet(tmp_path / "floor.parquet")
    before = read_results(tmp_path / "exp" / "results.parquet")  # read as the whole decision

    assert migrate.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "results.parquet: 2 rows: x1, x2, x3, x4, x5, x6 -> x, dim_x" in out
    assert "reference.parquet: 1 rows" in out and "floor.parquet: no decisions" in out
    table = pq.read_table(tmp_path / "exp" / "results.parquet")
    names = table.column_names
    assert "x1" not in names and names.index("x") == names.index("J_true_se") + 1
    assert table.schema.field("x").type == pa.list_(pa.float64())
    assert table.schema.metadata[b"acfs.config_hash"] == b"h"
    after = read_results(tmp_path / "exp" / "results.parquet")
    pd.testing.assert_frame_equal(after, before)
    assert after["x"][0].tolist() == [0.1, 0.2, 0.3, 0.0, 0.05, 1.0] and after["x"][1] is None
    assert after["dim_x"].tolist() == [6, 0]
    ref = read_references(tmp_path / "reference" / "reference.parquet")
    assert ref.loc[0, "x"] == pytest.approx([0.1 * i for i in range(1, 7)])
    assert pd.read_parquet(tmp_path / "reference" / "reference.parquet")["dim_x"].tolist() == [6]

    stamps = {p: p.read_bytes() for p in tmp_path.rglob("*.parquet")}
    assert migrate.main([str(tmp_path)]) == 0  # again: nothing left to do
    assert "already whole" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in tmp_path.rglob("*.parquet")} == stamps
    assert [p.name for p in tmp_path.rglob("*.tmp")] == []


def test_an_unreadable_file_is_reported_and_nothing_is_replaced(tmp_path, migrate, capsys):
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 not a parquet file PAR1")
    assert migrate.main([str(tmp_path)]) == 1
    assert "broken.parquet: FAILED" in capsys.readouterr().out
    assert broken.read_bytes() == b"PAR1 not a parquet file PAR1"
