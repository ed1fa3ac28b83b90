"""A search's history and its table: every decision evaluated, with its rows and draws, and
the incumbents marked (Solution.trials_dataframe); recording it changes nothing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from toys import GaussianToy

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.frames import trials_frame
from acfs_cli.methods import get_method


class Plane:
    """Two decisions, W = x_0 + Z: what is drawn matters here, not what it costs."""

    dim_x, dim_w = 2, 1
    bounds = [(0.0, 10.0), (0.0, 10.0)]

    def transform(self, x, z):
        return x[0] + z

    def cost(self, W, x):
        return W[:, 0]


def test_the_table_has_a_row_per_decision_drawn_and_marks_each_incumbent():
    oracle = Oracle(Plane(), 100, np.random.default_rng(0), record=True)
    x0, X, Y, other = [0.0, 0.0], [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], [[4.0, 4.0],
                                                                        [5.0, 5.0]], [9.0, 9.0]
    oracle.record_best(x0, 3.0)              # before any draw: a row of its own
    oracle.draw_batch(X, 5)                  # 3 decisions, 5 rows each: draws 15
    oracle.record_best(X[1], 2.0)            # drawn by the last request: its row is marked
    with oracle.phase("compare"):
        oracle.draw_common(Y, oracle.common_sample(4))  # 2 decisions on sample 0: draws 23
        oracle.record_best(other, 1.5)       # not in the last request: a row of its own ...
        oracle.record_best(Y[0], 1.0)        # ... replaced at the same draws count
    oracle.draw([6.0, 6.0], 7)               # draws 30
    got = trials_frame(oracle.history, 2)
    want = pd.DataFrame({
        "draws": [0, 15, 15, 15, 23, 23, 30],
        "phase": ["main", "main", "main", "main", "compare", "compare", "main"],
        "x_0": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "x_1": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "rows": [0, 5, 5, 5, 4, 4, 7],
        "sample": pd.array([None, None, None, None, 0, 0, None], dtype="Int64"),
        "value": [3.0, np.nan, 2.0, np.nan, 1.0, np.nan, np.nan],
        "incumbent": [True, False, True, False, True, False, False],
    })
    pd.testing.assert_frame_equal(got, want)
    assert got["rows"].sum() == oracle.used == 30
    marked = got[got["incumbent"]]
    assert [(d, list(x), v) for d, x, v in oracle.trajectory] == [
        (d, [a, b], v) for d, a, b, v in marked[["draws", "x_0", "x_1", "value"]].to_numpy()]


def test_a_request_that_fails_leaves_no_row():
    oracle = Oracle(Plane(), 10, np.random.default_rng(0), record=True)
    oracle.draw([1.0, 1.0], 6)
    with pytest.raises(Exception, match="exceeds"):
        oracle.draw([2.0, 2.0], 6)
    assert trials_frame(oracle.history, 2)["x_0"].tolist() == [1.0]
    assert Oracle(Plane(), 10, np.random.default_rng(0)).history is None  # not asked for


@pytest.mark.parametrize("name", ["astro", "saa-ps"])
def test_recording_the_history_changes_no_draw_of_the_search(name):
    toy, method = GaussianToy(), get_method(name)
    runs = []
    for record in (False, True):
        oracle = Oracle(toy, 6_000, np.random.default_rng(7), record=record)
        runs.append(method(Task.from_problem(toy, 0.7, 0.95), oracle,
                           np.random.default_rng(8)))
    plain, recorded = runs
    assert np.array_equal(plain.x, recorded.x) and plain.oracle_draws == recorded.oracle_draws
    assert [(d, x.tobytes(), v) for d, x, v in plain.trajectory] == [
        (d, x.tobytes(), v) for d, x, v in recorded.trajectory]


GRID = """\
name: two
seed: 1
budget: 600
replications: 2
n_jobs: 1
final_eval: {draws: 500, bootstrap: 20}
grid:
  problem: [dgp1, "shapes:Box2"]
  lambda: [0.7]
  method: [astro]
"""


def test_read_results_gives_a_row_per_cell_with_x_star_over_columns(tmp_path):
    from typer.testing import CliRunner

    from acfs_cli.api import read_results
    from acfs_cli.cli import app

    (tmp_path / "two.yaml").write_text(GRID)
    run = CliRunner().invoke(app, ["run", str(tmp_path / "two.yaml"), "-o",
                                   str(tmp_path / "two"), "-q"])
    assert run.exit_code == 0, run.output
    rows = pd.read_parquet(tmp_path / "two" / "results.parquet")  # the stored rows
    table = read_results(tmp_path / "two")
    assert list(table.columns) == ["problem", "method", "label", "lam", "alpha", "budget",
                                   "rep", "status", "draws", "J", "J_lo", "J_hi", "J_true",
                                   *[f"x_{i}" for i in range(6)]]
    assert len(table) == len(rows) == 4 and (table["status"] == "ok").all()
    for _, cell in rows.iterrows():  # x* whole in its first coordinates, NaN past them
        mine = table[(table["problem"] == cell["problem"]) & (table["rep"] == cell["rep"])]
        d = len(cell["x"])
        assert len(mine) == 1 and d == {"dgp1": 6, "shapes:Box2": 2}[cell["problem"]]
        assert mine[[f"x_{k}" for k in range(d)]].iloc[0].tolist() == list(cell["x"])
        assert mine[[f"x_{k}" for k in range(d, 6)]].isna().all(axis=None)
        assert mine["draws"].iloc[0] == cell["oracle_draws"] <= 600
        assert mine["J"].iloc[0] == cell["J"] and np.isnan(mine["J_true"].iloc[0])
    assert read_results(tmp_path / "two", all_columns=True).shape[1] == rows.shape[1] + 6
    with pytest.raises(ValueError, match="no such experiment folder"):
        read_results(tmp_path / "nowhere")
