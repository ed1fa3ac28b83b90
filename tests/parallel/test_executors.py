"""Local draw workers: how many start (no more than the cores and the pieces of a request, past
the cores only while the simulator waits, never more than 8 a core), and their reuse by the
next run of minimize (DESIGN.md section 3)."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from sleepers import Recorder, Sleeper, children, pids

from acfs_cli.api import minimize
from acfs_cli.core.draws import Piece
from acfs_cli.core.problem import as_problem
from acfs_cli.parallel import close_workers, executors, process
from acfs_cli.parallel.executors import MAX_PER_CORE, LocalDraws, draw_workers, waited


@pytest.fixture(autouse=True)
def no_kept_workers():
    """Each test ends the draw workers minimize kept: a kept worker that ends when idle must
    not end in the middle of another test's count of this process's children."""
    yield
    close_workers()


def pieces(n: int, rows: int = 1, start: int = 0) -> list[Piece]:
    return [Piece(np.array([1.0, 1.0]), rows, np.random.SeedSequence(start + i))
            for i in range(n)]


def test_the_workers_a_run_may_have_are_the_cores_unless_more_are_asked_and_never_past_8_a_core():
    assert draw_workers(-1, cores=4) == (4, "")
    assert draw_workers(3, cores=4) == (3, "")
    assert draw_workers(2, cores=1)[0] == 2
    more, note = draw_workers(8, cores=2)
    assert more == 8
    assert note == ("parallel draws: n_jobs 8 is more than the 2 core(s) here: workers beyond "
                    "the cores start only while the simulator waits rather than computes")
    most, note = draw_workers(1000, cores=2)
    assert most == 2 * MAX_PER_CORE == 16
    assert note.endswith("computes, 16 at most (8 a core)")


def test_workers_wait_when_they_are_busy_a_small_part_of_a_long_request(monkeypatch):
    assert waited(busy=0.1, wall=4.0, workers=2, cores=2)
    assert not waited(busy=3.9, wall=4.0, workers=2, cores=2)  # they computed
    assert not waited(busy=0.0, wall=0.2, workers=2, cores=2)  # too short to pay for a start
    # CPU time alone (no schedstat): a loaded machine's waits for a core look the same
    monkeypatch.setattr(process, "machine_load", lambda: 3.0)
    assert waited(busy=0.1, wall=4.0, workers=2, cores=2)
    assert not waited(busy=0.1, wall=4.0, workers=2, cores=2, exact=False)
    monkeypatch.setattr(process, "machine_load", lambda: 0.5)
    assert waited(busy=0.1, wall=4.0, workers=2, cores=2, exact=False)


def test_a_thread_that_sleeps_is_not_busy_and_one_that_computes_is():
    start = process.busy_seconds()[0]
    time.sleep(0.3)
    slept = process.busy_seconds()[0] - start
    start, clock = process.busy_seconds()[0], time.perf_counter()
    while time.perf_counter() - clock < 0.3:
        pass
    computed = process.busy_seconds()[0] - start
    assert slept < 0.1 and computed > 0.25


def test_a_request_starts_no_more_workers_than_it_has_pieces(tmp_path):
    problem = as_problem(Recorder(tmp_path))
    before = children()
    with LocalDraws(problem, 4, cores=4) as draws:
        draws.run(pieces(1))
        assert draws.workers == 1 and len(children() - before) == 1
        draws.run(pieces(3, start=1))
        assert draws.workers == 3 and len(children() - before) == 3
    assert children() == before


@pytest.mark.timeout(300)
def test_past_the_cores_workers_start_only_while_the_simulator_waits(tmp_path):
    waits = tmp_path / "waits"
    waits.mkdir()
    # 16 pieces of a row that sleeps 0.1 s: a request keeps its workers busy 1.6 s in all
    with LocalDraws(as_problem(Recorder(waits, pause=0.1)), 4, cores=1) as draws:
        draws.run(pieces(16))
        assert draws.workers == 1
        draws.run(pieces(16, start=16))  # it waited: twice as many workers
        assert draws.workers == 2
        draws.run(pieces(16, start=32))
        assert draws.workers == 4
        draws.run(pieces(16, start=48))
        assert draws.workers == 4  # no more than asked
    assert len(pids(waits)) >= 3
    computes = tmp_path / "computes"
    computes.mkdir()
    # the same pieces of a simulator that does not wait (a row takes microseconds)
    with LocalDraws(as_problem(Recorder(computes)), 4, cores=1) as draws:
        for k in range(3):
            draws.run(pieces(16, start=16 * k))
        assert draws.workers == 1
    assert len(pids(computes)) == 1


@pytest.mark.timeout(300)
def test_a_large_n_jobs_starts_no_more_workers_than_the_cores_and_says_so():
    close_workers()
    cores = process.available_cores()
    seen = []

    def count(incumbent):
        seen.append(len(children()))

    before = len(children())
    sol = minimize(Sleeper(), lam=0.7, alpha=0.9, budget=1_200, seed=3, n_eval=400,
                   n_jobs=1000, callback=count)
    assert seen and max(seen) - before <= cores
    assert sol.notes[0] == (f"parallel draws: n_jobs 1000 is more than the {cores} core(s) "
                            "here: workers beyond the cores start only while the simulator "
                            f"waits rather than computes, {MAX_PER_CORE * cores} at most "
                            f"({MAX_PER_CORE} a core)")
    one = minimize(Sleeper(), lam=0.7, alpha=0.9, budget=1_200, seed=3, n_eval=400)
    np.testing.assert_array_equal(one.x, sol.x)
    assert one.J == sol.J
    close_workers()


@pytest.mark.timeout(300)
def test_the_next_run_reuses_the_workers_and_close_workers_ends_them(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "available_cores", lambda: 2)  # any machine: two workers
    close_workers()
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    before = children()
    minimize(Recorder(first, pause=0.002), budget=600, seed=1, n_eval=400, n_jobs=2)
    kept = children() - before
    assert kept and pids(first) <= kept  # the run's workers are alive after it
    minimize(Recorder(second, pause=0.002), lam=0.5, budget=600, seed=2, n_eval=400, n_jobs=2)
    assert pids(second) and pids(second) <= kept  # and drew the next run's rows
    close_workers()
    assert children() == before


def test_workers_that_loaded_another_code_of_the_problems_module_are_not_reused(tmp_path):
    close_workers()
    problem = as_problem(Recorder(tmp_path))
    draws = LocalDraws(problem, 1, keep=True)
    draws.run(pieces(1))
    old = set(draws.pids)
    draws.close()
    assert set(executors._KEPT[0].executor._processes) == old
    problem.code = "an edited simulator"  # what an edited sleepers.py would say
    again = LocalDraws(problem, 1, keep=True)
    again.run(pieces(1))
    assert set(again.pids).isdisjoint(old)
    again.close(now=True)
    assert not executors._KEPT
    assert os.getpid() not in pids(tmp_path)


def test_kept_workers_serve_a_small_first_request_but_never_more_than_a_run_may_have(tmp_path):
    problem = as_problem(Recorder(tmp_path))
    first = LocalDraws(problem, 3, cores=3, keep=True)
    first.run(pieces(3))
    old = set(first.pids)
    first.close()
    again = LocalDraws(problem, 3, cores=3, keep=True)
    again.run(pieces(1, start=3))  # one piece, but three workers run already: no start
    assert again.workers == 3 and set(again.pids) == old
    again.close()
    fewer = LocalDraws(problem, 2, cores=2, keep=True)
    fewer.run(pieces(2, start=4))  # the three kept are more than this run may have
    assert fewer.workers == 2 and set(fewer.pids).isdisjoint(old)
    fewer.close(now=True)
