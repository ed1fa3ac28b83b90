"""What every method's run says of itself (:class:`acfs_cli.methods.base.Method`): why it
stopped with draws left, and a fallback only where the user's settings asked for it."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import Field

from acfs_cli.core.oracle import PAIRS_REFUSED, Oracle
from acfs_cli.core.task import Task
from acfs_cli.methods.base import EARLY_STOP, Method, MethodResult, Settings


class Quad:
    """A transform problem: W = z, C = (x - 0.3)^2 + W."""

    dim_x, dim_w = 1, 1
    bounds = [(0.0, 1.0)]

    def transform(self, x, z):
        return z

    def cost(self, W, x):
        return (x[0] - 0.3) ** 2 + W[:, 0]


class QuadStream(Quad):
    """The same law as a black box (no transform)."""

    transform = None

    def sample(self, x, n, rng):
        return rng.standard_normal((n, 1))


class StopSettings(Settings):
    rows: int = Field(100, ge=1)
    antithetic: bool = Field(True)  # pairs by default, as saa-ps asks for them


def _stop_after_rows(task, oracle, s, rng):
    x = np.array([0.5])
    sample = oracle.common_sample(s.rows, antithetic=s.antithetic)
    value = float(task.objective(oracle.draw_common(x[None, :], sample), x[None, :])[0])
    oracle.record_best(x, value)
    return MethodResult(x=x, value=value, info={"stop_reason": "converged: one look was enough"})


STOPS = Method("stops-early", StopSettings, _stop_after_rows)


def _run(problem, budget=1_000, **settings):
    oracle = Oracle(problem, budget, np.random.default_rng(0))
    task = Task.from_problem(problem, 0.5, 0.9)
    return STOPS(task, oracle, np.random.default_rng(1), settings)


def test_a_method_that_stops_by_its_own_rule_with_draws_left_says_why_in_its_notes():
    result = _run(Quad(), rows=100)
    assert result.oracle_draws == 100 and result.stop_reason == "converged: one look was enough"
    assert result.notes == ["stops-early stopped with 900 of 1,000 draws left: converged: one "
                            "look was enough"]


def test_a_stop_with_less_than_the_early_share_of_the_budget_left_is_not_noted():
    rows = int(1_000 * (1 - EARLY_STOP)) + 1  # fewer than 1 % of the draws left
    result = _run(Quad(), rows=rows)
    assert result.oracle_draws == rows and result.notes == []


@pytest.mark.parametrize(("settings", "noted"), [
    ({}, False),                      # the method asks by default; the user did not
    ({"antithetic": False}, False),
    ({"antithetic": True}, True),     # the user asked for pairs: plain samples are noted
])
def test_pairs_on_a_black_box_are_noted_only_where_the_settings_asked_for_them(settings, noted):
    result = _run(QuadStream(), rows=996, **settings)
    assert (PAIRS_REFUSED in result.notes) is noted
    assert result.notes == ([PAIRS_REFUSED] if noted else [])
    # the same pairs on a transform problem are served: no note
    assert _run(Quad(), rows=996, **settings).notes == []
