"""Whole numbers of many units (``acfs_cli.methods.whole``): from 10 decisions the default
searches them as continuous coordinates, the simulator sees only whole plans, and the answer
is a whole plan next to the exact whole optimum."""

from __future__ import annotations

import numpy as np
import pytest

from acfs_cli.api import minimize
from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.methods import whole
from acfs_cli.methods.registry import METHODS

#: Ten stores' stocks coupled through a shared truck: E[C] = (|x - a|^2 + (sum(x - a))^2 / 2)
#: / 100, the noise's mean zero at every plan.
A = np.array([140.3, 90.6, 75.2, 160.8, 120.4, 60.7, 99.5, 130.1, 85.9, 110.35])
D = len(A)


class Stores:
    dim_x, dim_w = D, 1
    bounds = [(0.0, None)] * D
    integrality = [1] * D
    x0 = [100.0] * D

    def __init__(self):
        self.seen = []

    def transform(self, x, z):
        self.seen.append(np.array(x, dtype=float))
        return 1.0 + z

    def cost(self, W, x):
        self.seen.append(np.array(x, dtype=float))
        return self.mean(x) + (W[:, 0] - 1.0) * np.sum(x) / 10

    @staticmethod
    def mean(x):
        d = np.asarray(x, dtype=float) - A
        return float(d @ d + d.sum() ** 2 / 2) / 100


def whole_optimum() -> np.ndarray:
    """The exact whole optimum, total by total: among whole plans of one total the nearest
    to a is floor(a) with a unit added to the coordinates of the largest fractions, and the
    coupling term depends on the total alone."""
    base, order = np.floor(A), np.argsort(-(A - np.floor(A)))
    plans = []
    for k in range(-3 * D, 4 * D):
        x = base + k // D
        x[order[: k % D]] += 1
        plans.append(x)
    return min(plans, key=Stores.mean)


def test_whole_stocks_of_many_units_end_next_to_the_exact_whole_optimum():
    star = whole_optimum()
    J0, Js = Stores.mean(Stores.x0), Stores.mean(star)
    for seed in range(3):
        problem = Stores()
        sol = minimize(problem, budget=20_000, lam=0.0, alpha=0.9, seed=seed)
        assert np.array_equal(sol.x, np.round(sol.x))
        # a unit is a tenth of a percent of a step: within a unit of the whole optimum in
        # every store, and within 0.05 % of the way from x0 to it
        assert np.abs(sol.x - star).max() <= 1
        assert Stores.mean(sol.x) - Js <= 5e-4 * (J0 - Js)
        assert sol.draws_used <= 20_000
        assert any("as continuous ones" in note for note in sol.notes)


def test_the_simulator_sees_only_whole_plans_and_the_budget_holds():
    problem = Stores()
    oracle = Oracle(problem, 5_000, np.random.default_rng(3))
    result = METHODS["auto"](Task.from_problem(problem, 0.5, 0.9), oracle,
                             np.random.default_rng(4))
    seen = np.array(problem.seen)
    assert len(seen) > 100 and np.array_equal(seen, np.round(seen))
    assert oracle.used <= 5_000
    assert np.array_equal(result.x, np.round(result.x))


@pytest.mark.parametrize("x0, expected", [([100.0] * D, True), ([12.0] * D, True),
                                          ([8.0] * D, False), ([10, 5, 4, 2] + [1] * 6, False)])
def test_only_whole_coordinates_of_many_units_are_relaxed(x0, expected):
    problem = Stores()
    problem.x0 = x0
    assert whole.fine(Task.from_problem(problem, 0.0, 0.9), 10) is expected


def test_fewer_decisions_keep_the_lattice_search():
    assert not whole.fine(Task.from_problem(Stores(), 0.0, 0.9), D + 1)


def test_a_budget_too_small_for_a_step_answers_the_start_without_claiming_a_search():
    sol = minimize(Stores(), budget=10, lam=0.5, alpha=0.9, seed=0)
    assert sol.x.tolist() == Stores.x0 and sol.draws_used == 10
    assert any("too few for a step" in note for note in sol.notes)
    assert not any("as continuous ones" in note for note in sol.notes)


def test_a_stochastic_constraint_keeps_the_lattice_search():
    problem = Stores()
    problem.stochastic_constraints = [{"name": "over", "chance": 0.05}]
    problem.constraint_values = lambda W, x: W[:, :1] - 3.0
    assert not whole.fine(Task.from_problem(problem, 0.0, 0.9), 10)


def test_a_plan_no_rounding_keeps_in_x_falls_back_towards_the_start(monkeypatch):
    task = Task.from_problem(Stores(), 0.0, 0.9)
    # a rounding that leaves X wherever the second store holds more than 150
    outside = whole.rounded_projection(task)

    def leaving(X):
        P = outside(X)
        P[..., 1] = np.where(P[..., 1] > 150, -1.0, P[..., 1])
        return P

    monkeypatch.setattr(whole, "rounded_projection", lambda task: leaving)
    plan = whole.plans(task)
    X = np.array([[120.4, 180.2] + [75.0] * (D - 2), [120.4, 90.6] + [3.0] * (D - 2)])
    P = plan(X)
    assert np.array_equal(P, np.round(P)) and task.is_feasible(P).all()
    assert P[0, 1] <= 150 and P[1].tolist() == [120, 91] + [3] * (D - 2)
