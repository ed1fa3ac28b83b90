"""A grid's cells with their draws on workers of their own (``draw_jobs:``, ``--draw-jobs``):
the same rows as in one process, and a setting that is not part of any cell's identity."""

from __future__ import annotations

import os

import pandas as pd
import pytest
from sleepers import spread
from typer.testing import CliRunner

from acfs_cli.cli import app
from acfs_cli.experiment.config import ConfigError, parse
from acfs_cli.experiment.dispatch import dispatch
from acfs_cli.experiment.grid import build_cells, work_groups
from acfs_cli.parallel import process
from acfs_cli.results.store import read_stored

#: Columns that differ from run to run: times, and the cell's own CPU (draw workers' is not).
TIMING = ["wall_s", "eval_s", "cpu_s", "created_at", "host"]


def grid(**changes):
    data = {"name": "sleepers", "seed": 2, "budget": 2_400, "replications": 1,
            "final_eval": {"draws": 300, "bootstrap": 20, "precise_draws": 500},
            "checkpoints": [0.5, 1],
            "grid": {"problem": ["sleepers:Sleeper", "sleepers:OneAtATime"],
                     "lambda": [0.7], "method": ["cem-so"]}}
    data.update(changes)
    return parse(data)


def rows(groups, **kwargs) -> pd.DataFrame:
    out = pd.DataFrame([r for rs in dispatch(groups, **kwargs) for r in rs])
    assert (out["status"] == "ok").all(), out["error"].tolist()
    keep = [c for c in out.columns if c not in TIMING]
    return out[keep].sort_values("cell_id").reset_index(drop=True)


def test_draw_jobs_are_not_part_of_a_cells_identity_nor_of_the_configuration():
    one, four = grid(), grid(draw_jobs=4)
    assert four.draw_jobs == 4 and one.draw_jobs == 1
    assert [c.id for c in build_cells(one)] == [c.id for c in build_cells(four)]
    assert one.config_hash() == four.config_hash() == grid(draw_jobs=-1).config_hash()
    for bad in (0, -3):
        with pytest.raises(ConfigError, match=r"draw_jobs must be a positive count or -1"):
            grid(draw_jobs=bad)


def test_cells_with_draw_workers_give_the_rows_of_one_process():
    groups = work_groups(build_cells(grid()))
    here = rows(groups)
    assert (here["oracle_draws"] <= 2_400).all()
    pd.testing.assert_frame_equal(here, rows(groups, draw_jobs=2))


@pytest.mark.slow  # two cell workers, each starting two draw workers: about 12 s
def test_cells_in_worker_processes_start_draw_workers_of_their_own():
    groups = work_groups(build_cells(grid(budget=600, grid={
        "problem": ["sleepers:Sleeper"], "lambda": [0.7, 0.9], "method": ["auto"]})))
    pd.testing.assert_frame_equal(rows(groups), rows(groups, n_jobs=2, draw_jobs=2))


def test_cells_on_a_dask_cluster_spread_their_draws_over_it_with_the_same_rows():
    distributed = pytest.importorskip("distributed")
    groups = work_groups(build_cells(grid()))[:2]
    here = rows(groups)
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        spread = rows(groups, backend="dask", client=client, draw_jobs=-1)
        # with a time limit the cell runs in a thread of its own, its draws still as tasks
        limited = rows(groups[:1], backend="dask", client=client, draw_jobs=2, timeout=600)
    pd.testing.assert_frame_equal(here, spread)
    pd.testing.assert_frame_equal(
        here[here["cell_id"].isin(limited["cell_id"])].reset_index(drop=True), limited)


def test_the_command_line_takes_draw_jobs_and_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "grid.yaml"
    config.write_text(
        "name: sleepers\nseed: 2\nbudget: 600\nreplications: 1\nn_jobs: 1\n"
        "final_eval: {draws: 300, bootstrap: 0}\n"
        "grid: {problem: ['sleepers:Sleeper', dgp2, 'sleepers:Locked'], lambda: [0.7], "
        "method: [auto]}\n")
    result = CliRunner().invoke(app, ["run", str(config), "-q", "--draw-jobs", "2"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "each cell's draws on 2 local process(es) of its own" in text
    assert "dgp2: draws every decision in one call (transform_batch)" in text
    assert ("sleepers:Locked: cannot be pickled, so it cannot be sent to another process"
            in text)
    assert "sleepers:Sleeper:" not in text
    again = CliRunner().invoke(app, ["run", str(config), "-q", "--draw-jobs", "0"])
    assert again.exit_code == 2
    assert "--draw-jobs: must be a positive count or -1 (every core), got 0" in again.output
    table = read_stored(tmp_path / "results" / "sleepers")
    assert (table["status"] == "ok").all()


def recorded_grid(folder, pause: float = 0.002):
    return grid(budget=600, grid={
        "problem": [{"problem": "sleepers:Recorder",
                     "params": {"folder": str(folder), "pause": pause}}],
        "lambda": [0.7], "method": ["auto"]})


@pytest.mark.timeout(300)
def test_a_cells_draw_jobs_spread_its_draws_over_its_workers(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "available_cores", lambda: 2)  # any machine: two workers
    groups = work_groups(build_cells(recorded_grid(tmp_path, pause=0.01)))
    out = rows(groups, draw_jobs=2)
    by = {k: v for k, v in spread(tmp_path).items() if k != f"pid-{os.getpid()}"}
    assert len(by) == 2 and all(v > 0 for v in by.values()), by
    # the search's rows and the evaluation's were drawn by the cell's workers
    assert sum(by.values()) >= int(out["oracle_draws"].sum()) + 300


@pytest.mark.timeout(300)
def test_a_cell_on_a_dask_cluster_spreads_its_draws_over_the_clusters_workers(tmp_path):
    distributed = pytest.importorskip("distributed")
    groups = work_groups(build_cells(recorded_grid(tmp_path)))
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        out = rows(groups, backend="dask", client=client, draw_jobs=-1)
    by = spread(tmp_path)
    assert sum(k.startswith("dask-") for k in by) == 2, by
    # the cell's own worker probes the simulator; every other row went as a task
    assert sum(by.values()) >= int(out["oracle_draws"].sum()) + 300


@pytest.mark.timeout(300)
def test_a_cell_whose_simulator_cannot_be_pickled_draws_in_its_process_and_says_so_in_its_row(
        caplog):
    groups = work_groups(build_cells(grid(budget=600, grid={
        "problem": ["sleepers:Locked"], "lambda": [0.7], "method": ["auto"]})))
    here = rows(groups)
    asked = rows(groups, draw_jobs=2)
    assert (asked["status"] == "ok").all()
    assert all("cannot be sent to another process" in n and "__getstate__" in n
               for n in asked["notes"])
    assert not any("cannot be sent" in n for n in here["notes"])  # nothing asked, nothing said
    # the same answer as drawn here: only the note differs, and nothing was printed per cell
    same = ["x", "J", "oracle_draws", "stop_reason"]
    pd.testing.assert_frame_equal(here[same], asked[same])
    assert not any("cannot be sent" in r.getMessage() for r in caplog.records)
