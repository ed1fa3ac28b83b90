"""The oracle's observer of the incumbent, the stop it may ask for, and the phases' clock."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import TABLE_X

from acfs_cli.core import oracle as oracle_module
from acfs_cli.core.oracle import BudgetExhausted, Oracle, SearchStopped
from acfs_cli.core.problem import as_problem
from acfs_cli.core.task import Task
from acfs_cli.methods.base import Method, MethodResult, Settings
from acfs_cli.problems import get_problem

X0 = np.array(TABLE_X[0])
X1 = np.array(TABLE_X[1])


class Counting:
    """DGP2 that counts the scenario rows it generates."""

    dim_x, dim_w = 6, 5

    def __init__(self):
        self.inner, self.rows = get_problem("dgp2"), 0

    def sample(self, x, n, rng):
        self.rows += n
        return self.inner.sample(x, n, rng)

    def cost(self, W, x):
        return self.inner.cost(W, x)

    def project(self, x):
        return self.inner.project(x)


def test_the_observer_sees_copies_of_each_new_incumbent_with_the_draws_used():
    seen = []
    oracle = Oracle(get_problem("dgp2"), 100, np.random.default_rng(0),
                    on_incumbent=lambda d, x, v: seen.append((d, x, v)))
    oracle.draw(X0, 5)
    oracle.record_best(X0, 2.0)
    oracle.record_best(X0, 2.0)  # no change: not seen again
    oracle.record_best(X1, 3.0)  # worse: not an incumbent
    oracle.draw(X0, 5)
    oracle.record_best(X1, 1.0)
    assert [(d, v) for d, _, v in seen] == [(5, 2.0), (10, 1.0)]
    seen[0][1][:] = 99.0
    assert np.array_equal(oracle.trajectory[0][1], X0)


def test_after_a_stop_nothing_is_drawn_and_no_incumbent_is_recorded():
    problem = Counting()
    oracle = Oracle(problem, 1_000, np.random.default_rng(0),
                    on_incumbent=lambda d, x, v: d >= 10)
    oracle.draw(X0, 4)
    oracle.record_best(X0, 2.0)  # 4 draws: the observer lets it go on
    oracle.draw(X0, 6)
    with pytest.raises(SearchStopped):
        oracle.record_best(X1, 1.0)
    assert oracle.stopped and oracle.incumbent[1] == 1.0
    rows, used = problem.rows, oracle.used
    sample = oracle.common_sample(4)
    for ask in (lambda: oracle.draw(X0, 1), lambda: oracle.draw_batch(np.stack([X0, X1]), 2),
                lambda: oracle.draw_common(X0, sample), lambda: oracle.record_best(X0, 0.0)):
        with pytest.raises(SearchStopped):
            ask()
    assert problem.rows == rows and oracle.used == used == 10
    assert oracle.incumbent[1] == 1.0 and len(oracle.trajectory) == 2


def test_a_stop_is_not_a_budget_end_that_kernels_would_catch():
    assert not issubclass(SearchStopped, BudgetExhausted)


def _method(search) -> Method:
    return Method(name="toy", settings_model=Settings, search=search)


def _task() -> Task:
    return Task.from_problem(as_problem(get_problem("dgp2")), 0.7, 0.95)


def _stubborn(task, oracle, settings, rng):
    """A method that treats every end of the budget as the end of a phase and goes on."""
    for k in range(100):
        try:
            oracle.draw(X0, 10)
            oracle.record_best(X0 if k % 2 else X1, -float(k))
        except BudgetExhausted:
            continue
    return MethodResult(x=X0, value=0.0)


def _swallowing(task, oracle, settings, rng):
    """A method that swallows every error of its loop."""
    for k in range(100):
        try:
            oracle.draw(X0, 10)
            oracle.record_best(X0 if k % 2 else X1, -float(k))
        except Exception:  # noqa: BLE001 - the point of the test
            continue
    return MethodResult(x=X0, value=0.0)


@pytest.mark.parametrize("search", [_stubborn, _swallowing])
def test_a_method_that_catches_the_budgets_end_still_stops_at_the_incumbent(search):
    oracle = Oracle(get_problem("dgp2"), 10_000, np.random.default_rng(0),
                    on_incumbent=lambda d, x, v: d >= 50)
    result = _method(search)(_task(), oracle, np.random.default_rng(1))
    assert result.stop_reason == "callback" and not result.stopped_by_budget
    assert oracle.used == result.oracle_draws == 50
    assert result.value == -4.0 and np.array_equal(result.x, X1)


def test_without_an_observer_the_budget_still_ends_a_search_as_before():
    oracle = Oracle(get_problem("dgp2"), 35, np.random.default_rng(0))
    result = _method(_stubborn)(_task(), oracle, np.random.default_rng(1))
    assert result.stop_reason == "plan complete" and oracle.used == 30


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_nested_phase_times_add_up_without_overlap(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(oracle_module.time, "perf_counter", clock)
    oracle = Oracle(get_problem("dgp2"), 100, np.random.default_rng(0))
    clock.now = 5.0  # before any phase: charged to none
    with oracle.phase("outer"):
        clock.now += 1.0
        with oracle.phase("inner"):
            clock.now += 2.0
            with oracle.phase("outer"):  # a phase re-entered inside another
                clock.now += 0.5
        clock.now += 3.0
    clock.now += 7.0  # after: charged to none
    assert oracle.phase_times == {"outer": 4.5, "inner": 2.0}
    assert sum(oracle.phase_times.values()) == 6.5
    # times are not part of the account that results store
    assert "time_s" not in str(oracle.account)


def test_every_search_is_timed_under_a_phase_even_when_the_method_names_none():
    def plain(task, oracle, settings, rng):
        oracle.draw(X0, 3)
        oracle.record_best(X0, 1.0)
        return MethodResult(x=X0, value=1.0)

    oracle = Oracle(get_problem("dgp2"), 100, np.random.default_rng(0))
    result = _method(plain)(_task(), oracle, np.random.default_rng(1))
    assert set(result.phase_times) == {"main"} == set(result.account)
    assert result.phase_times["main"] >= 0.0
