"""Running cells: one row per cell, named streams, failures as rows, identical results whatever
the worker count, backend or order."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from exploding import ExplodingProblem  # noqa: F401 (named as test_runner:ExplodingProblem)

from acfs_cli.experiment.cell import run_cell
from acfs_cli.experiment.config import parse
from acfs_cli.experiment.dispatch import dispatch
from acfs_cli.experiment.grid import build_cells
from acfs_cli.experiment.runner import Progress, run_grid
from acfs_cli.problems import get_problem
from acfs_cli.problems.dgp2 import DGP2
from acfs_cli.problems.feasible import is_feasible
from acfs_cli.results.schema import COLUMNS
from acfs_cli.results.store import ResultStore, read_stored

#: Small settings: a cell takes a fraction of a second.
TINY = {
    # explicit small sizes, used as given (not scaled with the budget)
    "kde-so": {"n_train": 200, "n_c": 30, "de_maxiter": 3, "de_popsize": 5, "n_starts": 1,
               "polish_maxiter": 5, "scale_with_budget": False},
    "acfs": {"n_a": 150, "n_trees": 10, "cem_iters": 2, "cem_pop": 6, "cem_draws": 30,
             "de_iters": 3, "de_pop": 8, "n_c": 20, "n_f": 50, "n_b": 40, "pool_safety": 5,
             "pool_basin": 5, "n_d": 40, "maxiter": 3, "pathwise_n": 20,
             "scale_with_budget": False},
}
HAVE_SIMOPT = importlib.util.find_spec("simopt") is not None
#: Measured times, and warnings (recorded only when a cell runs in a main thread).
TIMING = ["wall_s", "eval_s", "cpu_s", "warnings"]


class WarningProblem(DGP2):
    """A user simulator that warns about every batch it costs."""

    name = "warning"

    def cost(self, W, x):
        warnings.warn("scenario outside the calibrated range", RuntimeWarning, stacklevel=2)
        return super().cost(W, x)


def tiny_config(**changes):
    data = {
        "name": "tiny",
        "seed": 3,
        "budget": 20_000,
        "replications": 1,
        "final_eval": {"draws": 400, "bootstrap": 50},
        "grid": {"problem": ["dgp1", "dgp2"], "lambda": [0.7], "method": ["kde-so"]},
        "methods": TINY,
    }
    data.update(changes)
    return parse(data)


def independent_J(costs: np.ndarray, lam: float, alpha: float) -> float:
    """Mean plus lam times CVaR, with tau the ceil(alpha n)-th order statistic."""
    c = np.sort(costs)
    tau = c[math.ceil(alpha * c.size) - 1]
    cvar = tau + np.mean(np.maximum(c - tau, 0.0)) / (1 - alpha)
    return float(c.mean() + lam * cvar)


def same_rows(a: pd.DataFrame, b: pd.DataFrame) -> None:
    a = a.drop(columns=TIMING).sort_values("cell_id").reset_index(drop=True)
    b = b.drop(columns=TIMING).sort_values("cell_id").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b[a.columns])


def test_row_matches_an_independent_evaluation_of_the_returned_decision():
    from acfs_cli.experiment.evaluate import final_pool

    config = tiny_config(final_eval={"draws": 3000, "bootstrap": 200, "precise_draws": 20_000},
                         grid={"problem": "dgp2", "lambda": 0.5, "method": "kde-so"})
    cell = build_cells(config)[0]
    row = run_cell(cell)
    assert row["status"] == "ok", row["error"]
    assert set(COLUMNS) <= set(row)
    x = np.array(row["x"])
    assert row["dim_x"] == x.size == 6
    assert bool(is_feasible(x))
    problem = get_problem("dgp2")
    costs = problem.cost(problem.transform(x, final_pool(3, "dgp2", 0, 3000).normals(5)), x)
    assert row["J"] == pytest.approx(independent_J(costs, 0.5, 0.95), rel=1e-12)
    assert row["EC"] == pytest.approx(costs.mean(), rel=1e-12)
    assert row["J_lo"] < row["J"] < row["J_hi"]
    # the precise estimate is another sample of the same J(x*): close, within a few SE
    assert abs(row["J_true"] - row["J"]) < 0.15 * row["J"]
    assert 0 < row["oracle_draws"] <= row["budget"] == 20_000
    assert row["oracle_draws"] == 200  # KDE-SO spends one draw per training point
    account = json.loads(row["draw_account"])
    assert sum(phase["draws"] for phase in account.values()) == row["oracle_draws"]
    settings = json.loads(row["settings"])
    assert settings["n_train"] == 200 and settings["n_c"] == 30
    assert (row["experiment"], row["kind"], row["label"], row["rep"]) == (
        "tiny", "comparison", "kde-so", 0
    )


def test_streams_are_named_by_dgp_rep_and_method_not_lambda(monkeypatch):
    import acfs_cli.common.seeding as seeding
    import acfs_cli.experiment.cell as cell_module

    calls = []
    real = seeding.stream

    def spy(seed, *names):
        calls.append((seed, *names))
        return real(seed, *names)

    monkeypatch.setattr(cell_module, "stream", spy)  # where the cell names its streams
    cell = build_cells(tiny_config(grid={"problem": "dgp1", "lambda": 0.9, "method": "kde-so"},
                                   replications=[4]))[0]
    assert run_cell(cell)["status"] == "ok"
    assert (3, "method", "dgp1", 4, "kde-so") in calls
    assert (3, "oracle", "dgp1", 4, "kde-so") in calls
    assert (3, "bootstrap", "dgp1", 0.9, 4, "kde-so") in calls


def test_replications_are_paired_across_lambda_through_the_method_stream():
    # With lambda out of the stream names, the design of KDE-SO (its first draws) is the same
    # at every lambda: the training draws, hence the oracle account, coincide.
    cells = build_cells(tiny_config(grid={"problem": "dgp2", "lambda": [0.5, 0.9],
                                          "method": "kde-so"}))
    a, b = (run_cell(c) for c in cells)
    assert a["status"] == b["status"] == "ok"
    assert a["draw_account"] == b["draw_account"]
    assert a["J"] != b["J"]


def test_failing_cell_is_recorded_as_an_error_and_the_others_finish(tmp_path):
    config = tiny_config(grid={"problem": ["dgp2", "test_runner:ExplodingProblem"],
                               "lambda": 0.7, "method": "kde-so"})
    store = ResultStore(tmp_path)
    summary = run_grid(build_cells(config), store)
    assert (summary.computed, summary.failed) == (2, 1)
    rows = read_stored(tmp_path).set_index("problem")
    bad = rows.loc["test_runner:ExplodingProblem"]
    assert bad["status"] == "error"
    assert bad["error"].startswith("SimulatorError: problem 'test_runner:ExplodingProblem': "
                                    "cost raised RuntimeError: simulator crashed on two lines "
                                    "at x = [")
    assert "Traceback" in bad["traceback"] and "simulator crashed" in bad["traceback"]
    assert math.isnan(bad["J"]) and bad["x"] is None and bad["dim_x"] == 0
    assert rows.loc["dgp2", "status"] == "ok" and np.isfinite(rows.loc["dgp2", "J"])
    assert (tmp_path / "results.parquet").is_file()


def test_budget_stop_returns_the_incumbent_within_the_budget():
    # ACFS's tiny pipeline needs about 6,700 draws; 1,000 stops it in its CEM warm-start.
    config = tiny_config(budget=1000, grid={"problem": "dgp2", "lambda": 0.7, "method": "acfs"})
    row = run_cell(build_cells(config)[0])
    assert row["status"] == "ok", row["error"]
    assert row["stopped_by_budget"] is True
    assert 0 < row["oracle_draws"] <= 1000
    assert bool(is_feasible(np.array(row["x"])))


def test_unknown_failure_before_the_method_runs_is_an_error_row():
    cell = build_cells(tiny_config())[0]
    broken = dataclasses.replace(cell, overrides=(("n_train", -1),))
    row = run_cell(broken)
    assert row["status"] == "error" and "n_train" in row["error"]
    assert "\n" not in row["error"] and row["oracle_draws"] == 0


def test_a_run_retries_errors_and_skips_finished_cells_unless_forced(tmp_path):
    cells = build_cells(tiny_config(replications=3))
    store = ResultStore(tmp_path)
    store.prepare()
    ok, failed, _ = (run_cell(c) for c in cells[:3])
    store.write_row(ok)
    failed.update(status="error", error="boom")
    store.write_row(failed)

    def planned(force: bool) -> list[str]:
        seen: list[str] = []

        def record(groups, **kwargs):
            seen.extend(c.id for g in groups for c in g)
            yield from dispatch(groups, **kwargs)

        run_grid(cells, store, force=force, dispatcher=record)
        return seen

    assert planned(False) == [c.id for c in cells if c.id != ok["cell_id"]]
    assert sorted(planned(True)) == sorted(c.id for c in cells)


def test_interrupt_keeps_finished_cells_and_a_rerun_completes_them(tmp_path):
    cells = build_cells(tiny_config(replications=2))
    store = ResultStore(tmp_path)
    seen = []

    def interrupted(groups, **kwargs):
        yield from dispatch(groups[:1], **kwargs)
        raise KeyboardInterrupt

    class Recorder(Progress):
        def advance(self, rows):
            seen.extend(rows)

    summary = run_grid(cells, store, dispatcher=interrupted, progress=Recorder())
    assert summary.interrupted and summary.computed == 1 and len(seen) == 1
    assert not store.results_path.exists()
    assert read_stored(tmp_path)["cell_id"].tolist() == [cells[0].id]
    summary = run_grid(cells, store)
    assert (summary.skipped, summary.computed, summary.interrupted) == (1, 3, False)
    assert store.results_path.exists()


def test_identical_sensitivity_points_are_computed_once_and_labelled_apart(tmp_path):
    config = parse({
        "name": "s", "kind": "sensitivity", "seed": 3, "budget": 20_000, "replications": 1,
        "final_eval": {"draws": 400, "bootstrap": 0},
        "grid": {"problem": "dgp2", "lambda": 0.7},
        "methods": {"kde-so": TINY["kde-so"]},
        "sensitivity": {"method": "kde-so", "params": {"n_train": [150, 200], "n_c": [30, 40]}},
    })
    cells = build_cells(config)
    calls = []

    def counting(groups, **kwargs):
        calls.extend(len(g) for g in groups)
        yield from dispatch(groups, **kwargs)

    run_grid(cells, ResultStore(tmp_path), dispatcher=counting)
    assert sorted(calls) == [1, 1, 2]
    rows = read_stored(tmp_path).set_index("label")
    assert len(rows) == 4
    default_a, default_b = rows.loc["kde-so n_train=200"], rows.loc["kde-so n_c=30"]
    assert default_a["J"] == default_b["J"] and default_a["cell_id"] != default_b["cell_id"]
    assert (default_a["varied"], default_a["varied_value"]) == ("n_train", 200.0)
    assert (default_b["varied"], default_b["varied_value"]) == ("n_c", 30.0)
    assert rows.loc["kde-so n_train=150", "J"] != default_a["J"]


def test_a_failing_worker_pool_stops_the_run_and_keeps_stored_cells(tmp_path):
    cells = build_cells(tiny_config(replications=2))
    store = ResultStore(tmp_path)

    def crashing(groups, **kwargs):
        yield from dispatch(groups[:1], **kwargs)
        raise RuntimeError("A worker process was killed\nby the OS")

    summary = run_grid(cells, store, dispatcher=crashing)
    assert summary.aborted == "RuntimeError: A worker process was killed by the OS"
    assert summary.computed == 1 and not summary.interrupted
    assert not store.results_path.exists()
    assert read_stored(tmp_path)["status"].tolist() == ["ok"]


def test_warnings_raised_in_a_cell_are_recorded_in_its_row():
    config = tiny_config(grid={"problem": "test_runner:WarningProblem", "lambda": 0.7,
                               "method": "kde-so"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing may leak out of the cell
        row = run_cell(build_cells(config)[0])
    assert row["status"] == "ok", row["error"]
    assert row["warnings"] == "RuntimeWarning: scenario outside the calibrated range"


#: Every registered method with settings small enough for a fraction of a second per cell.
_ACFS_TINY = TINY["acfs"]
EVERY_METHOD_TINY = {
    **{name: _ACFS_TINY for name in ("acfs", "acfs-noav", "acfs-nocem", "acfs-norerank",
                                     "acfs-noaug", "acfs-plus")},
    "gp-bo": {"n_init": 5, "n_iter": 3, "n_mc": 30, "n_points": 50, "acq_restarts": 1,
              "gp_restarts": 0, "polish_n": 20, "polish_draws": 400, "polish_maxiter": 3,
              "scale_with_budget": False},
    "cem-so": {"n_iter": 3, "population": 10, "n_mc": 30, "polish_n": 20, "polish_draws": 400,
               "polish_maxiter": 3, "scale_with_budget": False},
    "sgd-cvar": {"batch": 10, "warm_chains": 1, "warm_iters": 5, "fine_iters": 5,
                 "n_select": 50, "polish_n": 20, "polish_maxiter": 3, "scale_with_budget": False},
    "kde-so": TINY["kde-so"],
    "saa-ps": {"cem_iter": 2, "final_candidates": 2},
    "astro": {},
    "auto": {},
    # SimOpt's solvers at SimOpt's defaults, Nelder-Mead with fewer replications per point
    "simopt-astrodf": {}, "simopt-neldmd": {"r": 10}, "simopt-strong": {}, "simopt-spsa": {},
    "simopt-adam": {}, "simopt-aloe": {}, "simopt-rndsrch": {},
    # SimOpt's FCSA and DASSO refuse dgp2 (no stochastic constraints; continuous decisions)
    "simopt-fcsa": {}, "simopt-dasso": {},
}


def test_serial_two_workers_and_dask_give_identical_rows_for_every_registered_method(tmp_path):
    # Rows depend neither on the backend, the worker count nor the order of the cells.
    from distributed import Client, LocalCluster

    from acfs_cli.methods.registry import METHODS

    assert set(EVERY_METHOD_TINY) == set(METHODS), "a new method needs tiny settings here"
    names = [m for m in METHODS if (HAVE_SIMOPT or not m.startswith("simopt-"))
             and METHODS[m].refusal("dgp2", [False] * 6, ()) is None]
    # 5,000 draws: the rows' identity does not depend on the budget, and SimOpt's ASTRO-DF
    # (one replication per request) would take most of the test's time at 20,000
    config = tiny_config(budget=5_000, grid={"problem": "dgp2", "lambda": 0.7, "method": names},
                         methods={m: EVERY_METHOD_TINY[m] for m in names})
    cells = build_cells(config)
    serial, loky, dask = (ResultStore(tmp_path / name) for name in ("serial", "loky", "dask"))
    run_grid(cells, serial, n_jobs=1)
    run_grid(cells[::-1], loky, n_jobs=2)
    with LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        run_grid(cells, dask, backend="dask", client=client)
    a = read_stored(serial.root)
    assert len(a) == len(names) and (a["status"] == "ok").all(), a["error"].tolist()
    same_rows(a, read_stored(loky.root))
    same_rows(a, read_stored(dask.root))


def test_a_non_finite_j_is_an_error_row_not_a_success():
    config = tiny_config(grid={"problem": "dgp2", "lambda": 1e308, "method": "kde-so"})
    row = run_cell(build_cells(config)[0])
    assert row["status"] == "error"
    assert row["error"].startswith("NonFiniteResult: J = inf at x*")
    assert row["oracle_draws"] == 200  # the search ran; its result is not a result


def test_sigterm_inside_the_loop_stops_the_run_like_ctrl_c(tmp_path):
    from acfs_cli.experiment.signals import Terminated

    cells = build_cells(tiny_config(replications=2))
    store = ResultStore(tmp_path)

    def terminated(groups, **kwargs):
        yield from dispatch(groups[:1], **kwargs)
        raise Terminated()

    summary = run_grid(cells, store, dispatcher=terminated)
    assert summary.interrupted and summary.terminated and summary.computed == 1
    assert not store.results_path.exists()
    assert run_grid(cells, store).skipped == 1


def test_sigterm_handler_is_installed_only_inside_the_block():
    import signal

    from acfs_cli.experiment.signals import Terminated, sigterm_stops_the_run

    before = signal.getsignal(signal.SIGTERM)
    with sigterm_stops_the_run(), pytest.raises(Terminated):
        signal.raise_signal(signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_run_makes_its_grid_the_folders_current_configuration(tmp_path):
    store = ResultStore(tmp_path)
    first = build_cells(tiny_config(replications=[0]))
    run_grid(first, store)
    more = build_cells(tiny_config(replications=[1]))  # same settings, another replication
    run_grid(more, store)
    assert store.read_manifest().cells == {c.id for c in first + more}
    other = build_cells(tiny_config(replications=[0], seed=4))
    run_grid(other, store)
    assert store.read_manifest().cells == {c.id for c in other}


def test_checkpoints_evaluate_the_incumbent_like_x_star_and_exact_values_are_stored():
    config = tiny_config(
        budget=13_000, checkpoints=[0.2, 0.5, 1.0],
        final_eval={"draws": 400, "bootstrap": 0, "precise_draws": 4_000},
        grid={"problem": [{"problem": "performative-pricing", "params": {"dim": 3}}],
              "lambda": 0.7, "method": "saa-ps"})
    row = run_cell(build_cells(config)[0])
    assert row["status"] == "ok", row["error"]
    assert row["cp_fraction"] == [0.2, 0.5, 1.0]
    assert row["cp_draws"] == [2600.0, 6500.0, 13000.0]
    # the last checkpoint is x* itself, evaluated by the same protocol
    assert row["cp_J"][-1] == row["J"] and row["cp_J_true"][-1] == row["J_true"]
    from acfs_cli.problems import get_problem

    problem = get_problem("performative-pricing", dim=3)
    x_star, j_star = problem.optimum(0.7, 0.95)
    assert row["J_exact"] == pytest.approx(problem.exact_J(np.array(row["x"]), 0.7, 0.95))
    assert row["J_star_exact"] == j_star
    assert row["J_x0"] == pytest.approx(problem.exact_J(problem.x0, 0.7, 0.95))
    assert row["cp_J_exact"][-1] == row["J_exact"]
    assert all(v >= j_star - 1e-9 for v in row["cp_J_exact"])
    draws = [d for d, _ in json.loads(row["trajectory"])]
    assert draws == sorted(draws) and draws[-1] <= 13_000
    assert row["problem_name"] == "performative-pricing"
    assert json.loads(row["problem_params"]) == {"dim": 3}


def quad_config(**changes):
    """The hostile corpus's honest problem and method (tests/hostile.py): a cell in a blink."""
    data = {"name": "quad", "seed": 5, "budget": 600, "replications": 1, "alpha": 0.9,
            "final_eval": {"draws": 200, "bootstrap": 0},
            "grid": {"problem": ["hostile:Quad"], "lambda": [0.5],
                     "method": ["hostile:HONEST"]}}
    data.update(changes)
    return parse(data)


def test_cells_that_record_no_code_are_stale_not_fresh(tmp_path):
    from acfs_cli.experiment.runner import StaleCells, stale_cells

    cells = build_cells(quad_config(replications=2))
    store = ResultStore(tmp_path)
    run_grid(cells, store)
    ids = [c.id for c in cells]
    # cells as a version that did not record the code of a result wrote them
    store.accept_code(ids, dict.fromkeys(ids, ""), dict.fromkeys(ids, ""))
    assert {r.code for r in store.records(ids).values()} == {""}
    assert stale_cells(cells, store.records(ids)) == cells
    with pytest.raises(StaleCells, match="computed before acfs recorded the code of a result"):
        run_grid(cells, store)


@pytest.mark.parametrize("what", ["problem", "method"])
def test_a_cell_run_by_other_code_than_planned_fails_rather_than_mix_two_codes(what):
    cell = build_cells(quad_config())[0]
    planned = dataclasses.replace(cell, **{f"{what}_code": "version 0"})
    row = run_cell(planned)
    assert row["status"] == "error"
    assert (f"CodeChanged: the {what}'s code here ({getattr(cell, f'{what}_code')}) is not the "
            "code the run was planned with (version 0)") in row["error"]
    assert run_cell(cell)["status"] == "ok"


def test_x0_is_estimated_on_the_replications_precise_sample_beside_every_method():
    # lam = 0: J(x0) = E|W - t|^2 = |x0 - t|^2 + 2 for W ~ N(x0, I) in two dimensions
    x0, target = np.array([-0.5, 0.5]), np.array([0.3, -0.2])
    config = quad_config(final_eval={"draws": 200, "bootstrap": 0, "precise_draws": 20_000},
                         grid={"problem": [{"problem": "hostile:Quad", "x0": x0.tolist()}],
                               "lambda": [0.0],
                               "method": ["hostile:HONEST", "astro", "hostile:START"]})
    rows = [run_cell(c) for c in build_cells(config)]
    assert [r["status"] for r in rows] == ["ok"] * 3, [r["error"] for r in rows]
    assert len({r["J_x0_true"] for r in rows}) == 1  # one sample per replication: paired
    start = rows[2]
    np.testing.assert_array_equal(start["x"], x0)
    assert start["J_x0_true"] == start["J_true"]  # x0 on x*'s own precise sample
    shift = float(np.sum((x0 - target) ** 2))
    se = np.sqrt(4 + 4 * shift) / np.sqrt(20_000)  # a noncentral chi-square's SD over sqrt(n)
    assert abs(rows[0]["J_x0_true"] - (shift + 2)) < 4 * se
    assert rows[0]["J_x0_true"] != rows[0]["J_true"]


def test_a_large_sample_j_that_overflows_fails_the_cell_instead_of_storing_it():
    config = quad_config(final_eval={"draws": 200, "bootstrap": 0, "precise_draws": 2_000},
                         grid={"problem": ["hostile:OverflowsOnLargeSamples"], "lambda": [0.5],
                               "method": ["hostile:HONEST"]})
    row = run_cell(build_cells(config)[0])
    assert np.isfinite(row["J"])  # the 200-draw evaluation is finite
    assert row["status"] == "error"
    assert row["error"].startswith("NonFiniteResult: J_true = ")
