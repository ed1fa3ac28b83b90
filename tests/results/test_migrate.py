"""scripts/migrate_results.py: tables of older versions rewritten once, atomically, in today's
form, and read the same."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from acfs_cli.experiment.reference import read_references
from acfs_cli.results.parquet import row_table
from acfs_cli.results.schema import COLUMNS
from acfs_cli.results.store import read_stored

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "migrate_results.py"


@pytest.fixture(scope="module")
def migrate():
    spec = importlib.util.spec_from_file_location("migrate_results", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def old_row_table(cell_id: str, x: list[float], status: str = "ok", **changes) -> pa.Table:
    """A row of the first versions: x1..x6, "dgp", the problem as built in "problem", every
    setting a p_<name> column, no display name."""
    from test_store import make_row

    table = row_table(make_row(cell_id, status=status, **changes)).drop_columns(
        ["x", "dim_x", "settings", "settings_hash", "method_display", "varied_default",
         "problem_name", "p_n_iter"])
    table = table.rename_columns(["dgp" if n == "problem" else n for n in table.column_names])
    table = table.append_column("problem", pa.array(["dgp1"]))
    for name, value in (("p_n_iter", 12), ("p_smoothing", 0.6)):
        table = table.append_column(name, pa.array([value]))
    for i, v in enumerate(x):
        table = table.append_column(f"x{i + 1}", pa.array([v]))
    return table


def test_old_tables_are_converted_once_and_read_as_todays(tmp_path, migrate, capsys):
    (tmp_path / "exp").mkdir()
    (tmp_path / "reference").mkdir()
    table = pa.concat_tables([old_row_table("a", [0.1, 0.2, 0.3, 0.0, 0.05, 1.0]),
                              old_row_table("b", [math.nan] * 6, status="error")])
    pq.write_table(table.replace_schema_metadata({b"acfs.config_hash": b"h"}),
                   tmp_path / "exp" / "results.parquet")
    reference = pd.DataFrame([{"dgp": "dgp1", "lam": 0.7, "alpha": 0.95, "J_star": 1.0,
                               "J_star_se": 0.1, "EC_star": 0.5, "CVaR_star": 2.0,
                               **{f"x{i}": 0.1 * i for i in range(1, 7)}, "draws": 9}])
    reference.to_parquet(tmp_path / "reference" / "reference.parquet", index=False)

    assert migrate.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "results.parquet: 2 rows in today's form" in out
    assert "reference.parquet: 1 rows: dgp -> problem" in out
    written = pq.read_table(tmp_path / "exp" / "results.parquet")
    assert written.column_names[:len(COLUMNS)] == list(COLUMNS)
    assert written.schema.metadata[b"acfs.config_hash"] == b"h"
    after = read_stored(tmp_path / "exp" / "results.parquet").set_index("cell_id")
    assert after.loc["a", "x"].tolist() == [0.1, 0.2, 0.3, 0.0, 0.05, 1.0]
    assert after.loc["b", "x"] is None and after.loc["b", "dim_x"] == 0
    assert json.loads(after.loc["a", "settings"]) == {"n_iter": 12, "smoothing": 0.6}
    assert after.loc["a", "method_display"] == "CEM-SO"
    ref = read_references(tmp_path / "reference" / "reference.parquet")
    np.testing.assert_allclose(ref.loc[0, "x"], [0.1 * i for i in range(1, 7)])
    assert ref.loc[0, "problem"] == "dgp1"

    stamps = {p: p.read_bytes() for p in tmp_path.rglob("*.parquet")}
    assert migrate.main([str(tmp_path)]) == 0  # again: nothing left to do
    assert "already in today's form" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in tmp_path.rglob("*.parquet")} == stamps
    assert [p.name for p in tmp_path.rglob("*.tmp")] == []


def test_a_sensitivity_study_keeps_the_varied_column_and_learns_its_base_point(
        tmp_path, migrate):
    rows = []
    for varied, value in (("n_a", 800.0), ("n_a", 1600.0), ("k", 2.0), ("k", 6.0)):
        table = old_row_table(f"{varied}{value}", [0.1] * 6, kind="sensitivity",
                              varied=varied, varied_value=value)
        settings = {"p_n_a": 1200.0, "p_k": 4.0, f"p_{varied}": value}
        for name, v in settings.items():
            table = table.append_column(name, pa.array([v]))
        rows.append(table)
    pq.write_table(pa.concat_tables(rows), tmp_path / "results.parquet")
    assert migrate.main([str(tmp_path)]) == 0
    after = read_stored(tmp_path / "results.parquet").set_index("cell_id")
    assert after.loc["n_a800.0", "varied_default"] == 1200.0
    assert after.loc["k2.0", "varied_default"] == 4.0
    assert after.loc["k2.0", "p_k"] == 2.0 and np.isnan(after.loc["k2.0", "p_n_a"])


def test_an_unreadable_file_is_reported_and_nothing_is_replaced(tmp_path, migrate, capsys):
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 not a parquet file PAR1")
    assert migrate.main([str(tmp_path)]) == 1
    assert "broken.parquet: FAILED" in capsys.readouterr().out
    assert broken.read_bytes() == b"PAR1 not a parquet file PAR1"
