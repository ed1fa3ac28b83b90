"""Parallel draws: the same answer, to the last bit, whoever simulates a run's requests - this
process, 2 or 4 local worker processes, a Dask cluster - with the oracle's count, the budget
and the row check exact, and a failing piece named with its worker (DESIGN.md section 3).

The simulators sleep for nothing (or microseconds): these tests prove identity and
bookkeeping; the speed-ups are measured in benchmarks/bench_parallel.py.
"""

from __future__ import annotations

import os
import re
import time

import numpy as np
import pytest
from sleepers import (
    Bowl12,
    DiesFar,
    FailsFar,
    Locked,
    NaNFar,
    OneAtATime,
    Recorder,
    Sleeper,
    children,
    spread,
)

from acfs_cli.api import PARALLEL_REFUSED, minimize
from acfs_cli.core.draws import Piece, task_groups
from acfs_cli.core.guard import SearchGuard
from acfs_cli.core.oracle import BudgetExhausted, Oracle
from acfs_cli.core.problem import SimulatorError, as_problem
from acfs_cli.core.sample import block_rows
from acfs_cli.parallel import close_workers, open_draws, process
from acfs_cli.parallel.executors import LocalDraws
from acfs_cli.problems import get_problem

X_FAR = np.array([[1.0, 1.0], [3.0, 1.0], [3.5, 0.5]])  # the second and third fail


@pytest.fixture(autouse=True)
def no_kept_workers():
    """Each test ends the draw workers minimize kept: a kept worker that ends when idle must
    not end in the middle of another test's count of this process's children."""
    yield
    close_workers()


def same_solution(a, b) -> None:
    np.testing.assert_array_equal(a.x, b.x)
    assert (a.J, a.EC, a.CVaR, a.J_se, a.value) == (b.J, b.EC, b.CVaR, b.J_se, b.value)
    assert a.draws_used == b.draws_used and a.stop_reason == b.stop_reason
    assert len(a.trajectory) == len(b.trajectory)
    for (da, xa, va), (db, xb, vb) in zip(a.trajectory, b.trajectory, strict=True):
        assert da == db and va == vb
        np.testing.assert_array_equal(xa, xb)
    assert {k: (v["draws"], v["calls"]) for k, v in a.phases.items()} == {
        k: (v["draws"], v["calls"]) for k, v in b.phases.items()}


# -- the rule and the grouping, by hand ----------------------------------------------------------
def test_a_stream_is_cut_by_its_number_of_rows_alone():
    assert block_rows(0) == []
    assert block_rows(1) == [1]
    assert block_rows(5) == [1] * 5
    assert block_rows(16) == [1] * 16
    assert block_rows(17) == [2] + [1] * 15
    assert block_rows(20_000) == [1250] * 16
    assert block_rows(10, per_stream=4) == [4, 4, 2]


def test_pieces_go_to_a_few_consecutive_tasks_per_worker():
    assert task_groups(0, 4) == []
    assert task_groups(3, 4) == [range(0, 1), range(1, 2), range(2, 3)]
    groups = task_groups(50, 4)  # 16 tasks: 2 of 4 pieces, 14 of 3
    assert len(groups) == 16 and [len(g) for g in groups] == [4, 4] + [3] * 14
    assert [i for g in groups for i in g] == list(range(50))


# -- the same answer -----------------------------------------------------------------------------
def test_the_answer_and_its_trajectory_do_not_depend_on_the_local_workers():
    runs = [minimize(Sleeper(), lam=0.7, alpha=0.9, budget=600, seed=3, n_eval=400, n_jobs=k)
            for k in (1, 2, 4)]
    for other in runs[1:]:
        same_solution(runs[0], other)
    assert runs[0].draws_used <= 600


def test_the_defaults_cobyqa_epochs_do_not_depend_on_the_local_workers():
    # 12 dimensions, 3,000 draws: below astro's epochs, COBYQA's epochs on sample averages
    runs = [minimize(Bowl12(), lam=0.7, alpha=0.9, budget=3_000, seed=3, n_eval=400, n_jobs=k)
            for k in (1, 2)]
    assert runs[0].info["chosen"] == "COBYQA" and runs[0].draws_used <= 3_000
    same_solution(runs[0], runs[1])


def test_a_dask_cluster_gives_the_answer_of_one_process():
    distributed = pytest.importorskip("distributed")
    one = minimize(Sleeper(), lam=0.7, alpha=0.9, budget=600, seed=5, n_eval=400)
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        spread = minimize(Sleeper(), lam=0.7, alpha=0.9, budget=600, seed=5, n_eval=400,
                          scheduler=client)
        capped = minimize(Sleeper(), lam=0.7, alpha=0.9, budget=600, seed=5, n_eval=400,
                          scheduler=client, n_jobs=1)
    same_solution(one, spread)
    same_solution(one, capped)


def test_a_transform_problem_called_one_decision_at_a_time_is_drawn_apart_alike():
    one = minimize(OneAtATime(), budget=2_400, seed=2, method="cem-so", n_eval=400)
    two = minimize(OneAtATime(), budget=2_400, seed=2, method="cem-so", n_eval=400, n_jobs=2)
    same_solution(one, two)
    assert not two.notes


def test_a_vectorised_transform_is_drawn_here_and_says_so():
    dgp2 = get_problem("dgp2")
    before = children()
    one = minimize(dgp2, budget=13_000, seed=1, method="cem-so", n_eval=400)
    asked = minimize(dgp2, budget=13_000, seed=1, method="cem-so", n_eval=400, n_jobs=4)
    np.testing.assert_array_equal(one.x, asked.x)
    assert one.J == asked.J and asked.notes == (PARALLEL_REFUSED, *one.notes)
    assert open_draws(dgp2, 4) is None and children() == before


def test_bad_worker_counts_are_one_line_errors():
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match=r"^n_jobs must be a positive count of workers "
                                             r"or -1"):
            minimize(Sleeper(), budget=600, n_jobs=bad)


# -- the count, the budget and the row check -----------------------------------------------------
def test_with_workers_the_count_and_the_rows_drawn_agree_and_the_cap_holds():
    problem = as_problem(Sleeper())
    with LocalDraws(problem, 2) as draws:
        oracle = Oracle(problem, 100, np.random.default_rng(1), draws=draws.run)
        with SearchGuard() as guard:
            sample = oracle.common_sample(30)
            W = oracle.draw_common(X_FAR[:1].repeat(2, axis=0), sample)
            oracle.draw_batch(X_FAR[:1], 35)
            with pytest.raises(BudgetExhausted):
                oracle.draw(X_FAR[0], 6)  # 95 used: nothing is drawn past the cap
        guard.verify(oracle.used, oracle.budget)
    assert oracle.used == guard.rows == 95
    np.testing.assert_array_equal(W[0], W[1])  # common random numbers at every decision
    here = Oracle(problem, 100, np.random.default_rng(1))
    np.testing.assert_array_equal(here.draw_common(X_FAR[:1], here.common_sample(30))[0],
                                  W[0])


def test_rows_drawn_around_the_oracle_are_caught_with_workers_too():
    problem = as_problem(Sleeper())
    with LocalDraws(problem, 2) as draws:
        oracle = Oracle(problem, 1_000, np.random.default_rng(1), draws=draws.run)
        with SearchGuard() as guard:
            oracle.draw(X_FAR[0], 20)
            problem.sample(X_FAR[0], 5, np.random.default_rng(0))  # around the oracle
        with pytest.raises(RuntimeError, match="produced 25 scenario rows but the oracle "
                                               "counted 20"):
            guard.verify(oracle.used, oracle.budget)


# -- failures ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("cls", "fault"), [
    (FailsFar, "sample raised ZeroDivisionError: no demand model beyond x_1 = 2.5"),
    (NaNFar, "sample returned NaN or infinite scenarios in 2 of 2 rows"),
])
def test_a_failing_piece_names_the_simulators_error_and_its_worker(cls, fault):
    problem = as_problem(cls())
    here = Oracle(problem, 1_000, np.random.default_rng(2))
    with pytest.raises(SimulatorError) as serial:
        here.draw_common(X_FAR, here.common_sample(32))
    before = children()
    with LocalDraws(problem, 2) as draws:
        oracle = Oracle(problem, 1_000, np.random.default_rng(2), draws=draws.run)
        with pytest.raises(SimulatorError) as parallel:
            oracle.draw_common(X_FAR, oracle.common_sample(32))
        assert oracle.used == here.used == 0  # a failed request charges nothing
    message = str(parallel.value)
    assert "\n" not in message and fault in message
    # the first failing piece in the request's order, as in one process, and its worker
    assert re.fullmatch(re.escape(str(serial.value)) + r" \(on local draw worker pid \d+\)",
                        message)
    assert children() == before


def test_a_search_that_fails_in_a_worker_fails_with_one_line_and_leaves_no_process():
    close_workers()  # none kept from an earlier run
    before = children()
    with pytest.raises(SimulatorError, match=r"^problem 'FailsFar': sample raised "
                       r"ZeroDivisionError: no demand model beyond x_1 = 2\.5 at x = \[.*\] "
                       r"\(on local draw worker pid \d+\)$"):
        minimize(FailsFar(), budget=2_400, method="cem-so", seed=1, n_jobs=2, n_eval=400)
    assert children() == before


def test_ctrl_c_during_a_search_stops_its_workers():
    def interrupt(incumbent):  # what Ctrl-C raises, at a point of the search we choose
        if incumbent.draws_used > 100:
            raise KeyboardInterrupt

    close_workers()  # none kept from an earlier run
    before = children()
    with pytest.raises(KeyboardInterrupt):
        minimize(Sleeper(), budget=600, seed=1, n_jobs=2, n_eval=400, callback=interrupt)
    assert children() == before


def test_a_worker_that_dies_fails_the_request_and_its_workers_end():
    problem = as_problem(DiesFar())
    before = children()
    draws = LocalDraws(problem, 2)
    oracle = Oracle(problem, 1_000, np.random.default_rng(3), draws=draws.run)
    oracle.draw(X_FAR[0], 10)  # the workers are up
    with pytest.raises(SimulatorError, match=r"^problem 'DiesFar': a local draw worker "
                                             r"process ended while simulating"):
        oracle.draw_common(X_FAR, oracle.common_sample(20))
    assert oracle.used == 10
    draws.close()
    assert children() == before


def test_a_benchmark_offered_as_a_black_box_reaches_the_workers_and_draws_alike():
    problem = get_problem("dgp2", sample_only=True)
    X = problem.design(np.random.default_rng(0).random((3, 6)))
    here = Oracle(problem, 10_000, np.random.default_rng(4))
    expected = here.draw_common(X, here.common_sample(40))
    with LocalDraws(problem, 2) as draws:
        oracle = Oracle(problem, 10_000, np.random.default_rng(4), draws=draws.run)
        np.testing.assert_array_equal(oracle.draw_common(X, oracle.common_sample(40)),
                                      expected)


def test_a_piece_is_what_one_process_would_draw():
    problem = as_problem(Sleeper())
    seed = np.random.SeedSequence(11)
    piece = Piece(np.array([1.0, 2.0]), 5, seed)
    expected = problem.sample(piece.x, 5, np.random.Generator(np.random.PCG64(seed)))
    with LocalDraws(problem, 1) as draws:
        (W,) = draws.run([piece])
    np.testing.assert_array_equal(W, expected)


def test_closing_the_workers_ends_their_processes():
    before = children()
    draws = LocalDraws(as_problem(Sleeper(pause=1e-4)), 3, cores=3)
    draws.run([Piece(np.array([1.0, 1.0]), 4, np.random.SeedSequence(i)) for i in range(6)])
    assert len(children() - before) == 3
    start = time.monotonic()
    draws.close()
    assert children() == before and time.monotonic() - start < 60


# -- the work is spread ----------------------------------------------------------------------------
def workers_of(folder) -> dict[str, int]:
    """Rows drawn by each worker of a run (:class:`sleepers.Recorder`), this process left
    out (it probes the simulator before the search)."""
    return {k: v for k, v in spread(folder).items() if k != f"pid-{os.getpid()}"}


@pytest.mark.timeout(300)
def test_local_workers_share_the_draws_of_the_search_and_of_the_estimate(tmp_path,
                                                                         monkeypatch):
    monkeypatch.setattr(process, "available_cores", lambda: 2)  # any machine: two workers
    close_workers()
    sol = minimize(Recorder(tmp_path, pause=0.01), lam=0.7, alpha=0.9, budget=600, seed=3,
                   n_eval=400, n_jobs=2)
    rows = workers_of(tmp_path)
    assert len(rows) == 2 and all(v > 0 for v in rows.values()), rows
    # every row of the search and of the final estimate was drawn by a worker
    assert sum(rows.values()) == sol.draws_used + 400
    close_workers()


@pytest.mark.timeout(300)
def test_a_dask_cluster_shares_the_draws_among_its_workers(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        sol = minimize(Recorder(tmp_path, pause=0.002), lam=0.7, alpha=0.9, budget=600,
                       seed=3, n_eval=400, scheduler=client)
    rows = workers_of(tmp_path)
    assert len(rows) == 2 and all(k.startswith("dask-") and v > 0 for k, v in rows.items()), rows
    assert sum(rows.values()) == sol.draws_used + 400


# -- what a user passes --------------------------------------------------------------------------
@pytest.mark.parametrize(("scheduler", "message"), [
    (42, r"^scheduler must be a dask distributed\.Client or a scheduler's address "
         r"\('tcp://HOST:8786'\), got int 42$"),
    ([], r"^scheduler must be a dask distributed\.Client .*, got list \[\]$"),
])
def test_a_scheduler_that_is_not_one_is_one_error_before_anything_is_sent(
        scheduler, message, caplog):
    before = children()
    with pytest.raises(ValueError, match=message):
        minimize(Sleeper(), budget=600, n_eval=400, scheduler=scheduler)
    assert not [r for r in caplog.records if r.levelname in ("WARNING", "ERROR")]
    assert children() == before


@pytest.mark.timeout(120)
def test_a_closed_client_is_one_error_naming_it(caplog):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        client = distributed.Client(cluster)
        client.close()
        with pytest.raises(ValueError, match=r"^scheduler: the dask Client is closed "
                                             r"\(status 'closed'\); pass a running Client "
                                             r"or the scheduler's address$"):
            minimize(Sleeper(), budget=600, n_eval=400, scheduler=client)
    assert not [r for r in caplog.records
                if r.name == "acfs" and r.levelname in ("WARNING", "ERROR")]


def test_a_simulator_that_cannot_be_pickled_draws_here_and_says_what_to_change(caplog):
    one = minimize(Locked(), budget=600, seed=4, n_eval=400)
    before = children()
    with caplog.at_level("WARNING", logger="acfs"):
        asked = minimize(Locked(), budget=600, seed=4, n_eval=400, n_jobs=2)
    assert children() == before  # no worker was started
    same_solution(one, asked)
    note = ("parallel draws: problem 'Locked' cannot be sent to another process (its "
            "attribute 'lock': cannot pickle '_thread.lock' object); drawn in this process "
            "- to draw in parallel, give its class __getstate__ and __setstate__ that leave "
            "the handle out and open a new one where it arrives")
    assert asked.notes == (note, *one.notes)  # the run's notes begin with it
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warned == [note] and "\n" not in note


@pytest.mark.timeout(120)
def test_a_simulator_that_cannot_be_pickled_is_not_sent_to_a_cluster_either(caplog):
    distributed = pytest.importorskip("distributed")
    one = minimize(Locked(), budget=600, seed=4, n_eval=400)
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=1,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client, caplog.at_level("WARNING"):
        asked = minimize(Locked(), budget=600, seed=4, n_eval=400, scheduler=client)
    same_solution(one, asked)
    assert asked.notes[0].startswith("parallel draws: problem 'Locked' cannot be sent to "
                                     "another process")
    assert [r.getMessage() for r in caplog.records
            if r.levelname in ("WARNING", "ERROR")] == [asked.notes[0]]


@pytest.mark.timeout(120)
def test_a_cluster_without_workers_is_one_error_instead_of_a_wait_for_ever(monkeypatch):
    distributed = pytest.importorskip("distributed")
    from acfs_cli.parallel import executors

    monkeypatch.setattr(executors, "WORKERS_TIMEOUT", 1.0)
    with distributed.LocalCluster(processes=False, n_workers=0, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as client:
        with pytest.raises(ValueError, match=r"^scheduler: the Dask cluster of inproc://\S+ "
                                             r"has no workers \(none joined within 1 s\); "
                                             r"start one \(dask worker inproc://\S+\) or pass "
                                             r"another scheduler$"):
            minimize(Sleeper(), budget=600, n_eval=400, scheduler=client)
