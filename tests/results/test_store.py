"""Results storage: atomic per-cell parquet files, the consolidated table, validation, locking."""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from acfs_cli import __version__
from acfs_cli.results.files import StoreError
from acfs_cli.results.manifest import read_manifest
from acfs_cli.results.parquet import row_table, verify_parquet, write_parquet_atomic
from acfs_cli.results.schema import COLUMNS, new_row
from acfs_cli.results.store import (
    CELLS_DIR,
    DAMAGED,
    RESULTS_FILE,
    ResultStore,
    check_writable,
    read_stored,
)


def make_row(cell_id: str, **changes) -> dict:
    row = new_row(**{
        "experiment": "t", "kind": "comparison", "cell_id": cell_id, "problem": "dgp1",
        "method_display": "CEM-SO", "problem_name": "dgp1",
        "lam": 0.7, "alpha": 0.95, "method": "cem-so", "label": "cem-so", "varied": "",
        "varied_value": math.nan, "rep": 3, "seed": 11, "J": 1.5, "EC": 1.0, "CVaR": 0.5 / 0.7,
        "J_lo": 1.2, "J_hi": 1.8, "J_true": math.nan, "EC_true": math.nan,
        "CVaR_true": math.nan, "J_true_se": math.nan, "oracle_draws": 1234, "budget": 5000,
        "wall_s": 0.25, "status": "ok", "error": "", "method_value": 1.4,
        "stopped_by_budget": False, "draw_account": '{"main": {"calls": 1, "draws": 1234}}',
        "eval_s": 0.01, "cpu_s": 0.2, "warnings": "", "traceback": "", "p_n_iter": 12,
        "settings": '{"n_iter":12,"smoothing":0.6}', "x": [0.1 * i for i in range(1, 7)],
        "dim_x": 6,
    })
    row.update(changes)
    return row


def test_row_round_trips_through_a_cell_file_with_schema_types(tmp_path):
    store = ResultStore(tmp_path / "exp", config_hash="abc123")
    store.prepare()
    row = make_row("c1")
    path = store.write_row(row)
    assert path == tmp_path / "exp" / CELLS_DIR / "c1.parquet"
    frame = read_stored(tmp_path / "exp")
    assert len(frame) == 1
    got = frame.iloc[0]
    for name in COLUMNS:
        expected = row[name]
        if name == "x":
            assert got[name].tolist() == expected
        elif isinstance(expected, float) and math.isnan(expected):
            assert math.isnan(got[name]), name
        else:
            assert got[name] == expected, name
    assert got["p_n_iter"] == 12  # the varied parameter's own column
    schema = pq.read_schema(path)
    for name, dtype in COLUMNS.items():
        expected_type = {"string": pa.string(), "float64": pa.float64(), "int64": pa.int64(),
                         "bool": pa.bool_(), "list<float64>": pa.list_(pa.float64())}
        assert schema.field(name).type == expected_type[dtype], name
    assert schema.names[:len(COLUMNS)] == list(COLUMNS)  # the schema's order
    meta = schema.metadata
    assert meta[b"acfs.config_hash"] == b"abc123"
    assert meta[b"acfs.version"] == __version__.encode()
    assert store.status("c1") == "ok"


def test_status_is_none_for_a_missing_cell_and_damaged_for_an_unreadable_one(tmp_path):
    store = ResultStore(tmp_path)
    store.prepare()
    assert store.status("nothing") is None
    store.cell_path("broken").write_bytes(b"PAR1 not really parquet")
    assert store.status("broken") == DAMAGED
    store.write_row(make_row("bad", status="error", error="ValueError: boom"))
    assert store.statuses(["nothing", "broken", "bad"]) == {
        "nothing": None, "broken": DAMAGED, "bad": "error"
    }


def test_failed_write_leaves_the_previous_file_intact_and_no_temporary_files(tmp_path, monkeypatch):
    store = ResultStore(tmp_path)
    store.prepare()
    store.write_row(make_row("c1", J=1.0))
    before = store.cell_path("c1").read_bytes()

    def explode(table, where, **kwargs):
        where.write(b"partial garbage")
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", explode)
    with pytest.raises(OSError, match="disk full"):
        store.write_row(make_row("c1", J=2.0))
    monkeypatch.undo()
    assert store.cell_path("c1").read_bytes() == before
    assert sorted(p.name for p in store.cells_dir.iterdir()) == ["c1.parquet"]
    assert read_stored(tmp_path)["J"].tolist() == [1.0]


def test_temporary_files_never_look_like_cells_and_prepare_removes_them(tmp_path, monkeypatch):
    store = ResultStore(tmp_path)
    store.prepare()
    seen = []
    real_replace = os.replace

    def spy(src, dst):
        seen.append(os.path.basename(src))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    store.write_row(make_row("c1"))
    monkeypatch.undo()
    assert seen and not seen[0].endswith(".parquet") and seen[0].startswith(".")
    stale = store.cells_dir / ".c2.parquet.x1y2.tmp"
    stale.write_bytes(b"half written")
    assert [p.name for p in store.cells_dir.glob("*.parquet")] == ["c1.parquet"]
    store.prepare()
    assert not stale.exists()
    assert store.cell_path("c1").exists()


def test_consolidated_table_holds_the_given_cells_with_metadata(tmp_path):
    store = ResultStore(tmp_path, config_hash="h")
    store.prepare()
    store.write_row(make_row("a", J=1.0))
    store.write_row(make_row("b", J=2.0, method="kde-so", label="kde-so", p_n_iter=None,
                             p_smoothing=None, p_n_train=2600))
    store.write_row(make_row("other", J=3.0))
    path = store.consolidate(["a", "b", "missing"])
    assert path == tmp_path / RESULTS_FILE
    table = pq.read_table(path)
    assert sorted(table.column("cell_id").to_pylist()) == ["a", "b"]
    assert table.schema.metadata[b"acfs.config_hash"] == b"h"
    frame = read_stored(path)
    by_id = frame.set_index("cell_id")
    assert by_id.loc["b", "p_n_train"] == 2600 and np.isnan(by_id.loc["a", "p_n_train"])
    assert [p.name for p in store.foreign_cells(["a", "b"])] == ["other.parquet"]


def test_read_results_rejects_tables_that_are_not_results(tmp_path):
    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"J": [1.0]}), bad)
    with pytest.raises(StoreError, match="missing"):
        read_stored(bad)
    odd = tmp_path / "odd.parquet"
    pq.write_table(row_table(make_row("x", status="running")), odd)
    with pytest.raises(StoreError, match="status"):
        read_stored(odd)
    with pytest.raises(StoreError, match="no results"):
        read_stored(tmp_path / "empty")


def test_second_lock_on_one_folder_is_refused_until_the_first_is_released(tmp_path):
    store = ResultStore(tmp_path)
    with store.lock():
        with pytest.raises(StoreError, match="in use by another run"):
            with ResultStore(tmp_path).lock():
                pass
    with ResultStore(tmp_path).lock():
        pass


HOLDS_THE_LOCK = """
import sys, time
from acfs_cli.results.store import ResultStore
with ResultStore(sys.argv[1]).lock():
    print("held", flush=True)
    time.sleep(600)
"""


def test_a_run_holding_the_lock_is_named_and_its_lock_goes_with_its_process(tmp_path):
    import signal
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", HOLDS_THE_LOCK, str(tmp_path)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "held"
        with pytest.raises(StoreError, match=rf"in use by another run \(pid {child.pid}\)"):
            with ResultStore(tmp_path).lock():
                pass
    finally:
        child.send_signal(signal.SIGKILL)  # no clean exit: the system frees the lock
        child.wait()
        child.stdout.close()
    with ResultStore(tmp_path).lock():  # no lock file stands in the next run's way
        assert (tmp_path / "run.lock").read_text() == f"pid {os.getpid()}"


def test_check_writable_accepts_new_folders_without_creating_them(tmp_path):
    target = tmp_path / "a" / "b"
    check_writable(target)
    assert not (tmp_path / "a").exists()
    assert list(tmp_path.iterdir()) == []


def test_check_writable_refuses_a_path_below_a_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="not a folder"):
        check_writable(blocker / "out")
    with pytest.raises(StoreError, match="not a folder"):
        check_writable(blocker)


@pytest.mark.skipif(os.geteuid() == 0, reason="permission bits do not bind root")
def test_check_writable_refuses_a_read_only_folder(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(StoreError, match="cannot write"):
            check_writable(ro / "out")
    finally:
        ro.chmod(0o755)


def test_write_parquet_atomic_replaces_existing_file(tmp_path):
    path = tmp_path / "t.parquet"
    write_parquet_atomic(pa.table({"a": [1]}), path)
    write_parquet_atomic(pa.table({"a": [2]}), path)
    assert pq.read_table(path).column("a").to_pylist() == [2]
    assert [p.name for p in tmp_path.iterdir()] == ["t.parquet"]


def zero_data_pages(path) -> None:
    """Overwrite everything between the leading magic and the footer with zeros."""
    data = bytearray(path.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")
    data[4 : len(data) - 8 - footer] = bytes(len(data) - 12 - footer)
    path.write_bytes(bytes(data))


def test_a_cell_zeroed_behind_a_valid_footer_is_damaged(tmp_path):
    store = ResultStore(tmp_path)
    store.prepare()
    path = store.write_row(make_row("c1"))
    zero_data_pages(path)
    assert pq.read_metadata(path).metadata[b"acfs.status"] == b"ok"  # the footer is intact
    assert store.status("c1") == DAMAGED
    with pytest.raises(StoreError, match="damaged parquet file"):
        verify_parquet(path)
    with pytest.raises(StoreError, match="unreadable parquet file"):
        store.consolidate(["c1"])


def test_one_changed_byte_in_the_data_pages_is_found(tmp_path):
    store = ResultStore(tmp_path)
    store.prepare()
    path = store.write_row(make_row("c1"))
    data = bytearray(path.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")
    data[(4 + len(data) - 8 - footer) // 2] ^= 0x01  # the middle of the data pages
    path.write_bytes(bytes(data))
    assert store.status("c1") == DAMAGED


def test_files_of_older_versions_without_a_crc_are_checked_by_a_full_read(tmp_path):
    store = ResultStore(tmp_path)
    store.prepare()
    table = row_table(make_row("old"))
    pq.write_table(table, store.cell_path("old"))  # no CRC in the footer, no page checksums
    assert b"acfs.data_crc32" not in pq.read_metadata(store.cell_path("old")).metadata
    assert store.status("old") == "ok"
    zero_data_pages(store.cell_path("old"))
    assert store.status("old") == DAMAGED


def test_cells_results_and_manifest_are_readable_by_the_group_under_umask_022(tmp_path,
                                                                              monkeypatch):
    import acfs_cli.results.files as store_module

    monkeypatch.setattr(store_module, "_umask", None)  # read again, under the umask below
    previous = os.umask(0o022)
    try:
        store = ResultStore(tmp_path, config_hash="h")
        store.prepare()
        store.write_row(make_row("c1"))
        store.consolidate(["c1"])
        store.claim("t", "settings", ["c1"])
    finally:
        os.umask(previous)
    for path in (store.cell_path("c1"), store.results_path, store.manifest_path):
        assert path.stat().st_mode & 0o777 == 0o644, path.name


def test_file_mode_follows_the_umask(monkeypatch):
    import acfs_cli.results.files as store_module

    monkeypatch.setattr(store_module, "_umask", 0o077)
    assert store_module.file_mode() == 0o600
    monkeypatch.setattr(store_module, "_umask", 0o002)
    assert store_module.file_mode() == 0o664


def test_claim_keeps_other_replications_of_the_same_settings_and_replaces_other_settings(
        tmp_path):
    store = ResultStore(tmp_path)
    store.claim("t", "s1", ["a", "b"])
    assert store.claim("t", "s1", ["c"]).cells == {"a", "b", "c"}
    assert store.claim("t", "s2", ["d"]).cells == {"d"}
    assert read_manifest(tmp_path) == store.read_manifest()
    assert store.read_manifest().cells == {"d"} and store.read_manifest().settings == "s2"


def test_the_manifest_keeps_the_configurations_order_of_methods_and_older_ones_have_none(
        tmp_path):
    store = ResultStore(tmp_path)
    store.claim("t", "s1", ["a", "b", "c"], methods=["saa-ps", "acfs", "saa-ps", "mine:M"])
    assert read_manifest(tmp_path).methods == ("saa-ps", "acfs", "mine:M")
    data = json.loads((tmp_path / "manifest.json").read_text())
    del data["methods"]  # a manifest of an older version
    (tmp_path / "manifest.json").write_text(json.dumps(data))
    assert read_manifest(tmp_path).methods == () and read_manifest(tmp_path).cells == {
        "a", "b", "c"}


def test_claim_refuses_a_folder_of_another_experiment(tmp_path):
    store = ResultStore(tmp_path)
    store.claim("first", "s", ["a"])
    with pytest.raises(StoreError, match="holds the results of experiment 'first'"):
        store.claim("second", "s", ["b"])
    assert store.read_manifest().experiment == "first"
    # Without a manifest (a folder of an older version), the consolidated table says it.
    other = ResultStore(tmp_path / "old")
    other.prepare()
    other.write_row(make_row("c1", experiment="first"))
    other.consolidate(["c1"])
    with pytest.raises(StoreError, match="experiment 'first'"):
        other.claim("second", "s", ["b"])


@pytest.mark.parametrize(("text", "reason"), [
    ("{not json", "cannot be read"),
    ('{"format": 1, "experiment": "e", "settings": "s", "cells": "notalist"}',
     "cells is not a list"),
    ('{"format": 1, "experiment": "e", "settings": "s", "cells": [1, 2]}', "not cell ids"),
    ('{"experiment": "e", "settings": "s", "cells": []}', "no format 1"),
])
def test_a_manifest_acfs_did_not_write_is_an_error_never_a_guess(tmp_path, text, reason):
    (tmp_path / "manifest.json").write_text(text)
    with pytest.raises(StoreError, match=reason):
        read_manifest(tmp_path)
    assert read_manifest(tmp_path / "elsewhere") is None  # no manifest at all is no error


def test_consolidation_that_cannot_write_is_one_store_error_and_keeps_the_cells(tmp_path,
                                                                                monkeypatch):
    store = ResultStore(tmp_path)
    store.prepare()
    store.write_row(make_row("c1"))

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(StoreError, match=r"cannot write .*results.parquet: Permission denied"):
        store.consolidate(["c1"])
    monkeypatch.undo()
    assert store.status("c1") == "ok" and not store.results_path.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_check_writable_probes_the_experiment_folder_as_well_as_its_cells(tmp_path,
                                                                          monkeypatch):
    (tmp_path / "exp" / CELLS_DIR).mkdir(parents=True)
    real = tempfile.mkstemp
    probed = []

    def spy(*args, dir=None, **kwargs):
        probed.append(Path(dir))
        return real(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", spy)
    check_writable(tmp_path / "exp")
    assert probed == [tmp_path / "exp", tmp_path / "exp" / CELLS_DIR]


@pytest.mark.parametrize("dim", [1, 2, 6, 11])
def test_a_decision_of_any_dimension_is_stored_whole(tmp_path, dim):
    store = ResultStore(tmp_path)
    store.prepare()
    x = [0.5 / (i + 1) for i in range(dim)]
    store.write_row(make_row("c1", x=x, dim_x=dim))
    store.write_row(make_row("none", x=None, dim_x=0, status="error", error="boom"))
    store.consolidate(["c1", "none"])
    for source in (tmp_path, store.results_path):
        rows = read_stored(source).set_index("cell_id")
        assert rows.loc["c1", "x"].tolist() == x and rows.loc["c1", "dim_x"] == dim
        assert rows.loc["none", "x"] is None and rows.loc["none", "dim_x"] == 0
    assert pq.read_schema(store.results_path).field("x").type == pa.list_(pa.float64())


def test_cells_of_an_older_version_are_read_as_todays_rows(tmp_path):
    store = ResultStore(tmp_path)
    store.prepare()
    # the version that named the problem "dgp", held the problem as built in "problem" and
    # every method setting as a p_<name> column
    old = row_table(make_row("old")).drop_columns(
        ["settings", "settings_hash", "method_display", "varied_default", "problem_name"])
    old = old.rename_columns(["dgp" if n == "problem" else n for n in old.column_names])
    old = old.append_column("problem", pa.array(["dgp1"]))
    old = old.append_column("p_smoothing", pa.array([0.6]))
    pq.write_table(old, store.cell_path("old"))
    store.write_row(make_row("new"))
    rows = read_stored(tmp_path).set_index("cell_id")
    assert "dgp" not in rows.columns
    got = rows.loc["old"]
    assert (got["problem"], got["problem_name"], got["method_display"]) == (
        "dgp1", "dgp1", "CEM-SO")
    assert json.loads(got["settings"]) == {"n_iter": 12, "smoothing": 0.6}
    assert "p_smoothing" not in rows.columns  # only a varied parameter keeps its column
    store.consolidate(["old", "new"])  # the consolidated table has today's form
    names = pq.read_schema(store.results_path).names
    assert "dgp" not in names and names[:len(COLUMNS)] == list(COLUMNS)


def test_a_dim_x_that_is_not_the_length_of_x_is_refused(tmp_path):
    path = tmp_path / "bad.parquet"
    pq.write_table(row_table(make_row("c", dim_x=5)), path)
    with pytest.raises(StoreError, match="dim_x is not the length of x in 1 row"):
        read_stored(path)
