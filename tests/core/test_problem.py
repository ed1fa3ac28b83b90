"""The problem protocol: one normalisation for every object, and every simulator fault named.

A faulty simulator must stop a search with one :class:`SimulatorError` line naming the
problem, the decision and what was wrong - never return a decision computed from bad numbers.
"""

from __future__ import annotations

import numpy as np
import pytest

from acfs_cli.api import minimize
from acfs_cli.core.oracle import Oracle
from acfs_cli.core.problem import Problem, ProblemError, SimulatorError, as_problem
from acfs_cli.problems import get_problem


class Shifted:
    """Plain one-decision ``transform`` and ``cost``; X = [0, 1]^2 with x_1 + x_2 <= 0.8."""

    dim_x, dim_w = 2, 1
    bounds = [(0.0, 1.0), (0.0, 1.0)]
    A, b = np.array([[1.0, 1.0]]), np.array([0.8])

    def transform(self, x, z):
        return (0.2 + 0.1 * x[0]) * z

    def cost(self, W, x):
        return (x[0] - 0.3) ** 2 + (x[1] - 0.6) ** 2 + W[:, 0]


class Exponential:
    """Only ``sample`` and ``bounds``."""

    dim_x, dim_w = 3, 1
    bounds = [(0.0, 1.0)] * 3

    def sample(self, x, n, rng):
        return rng.exponential(0.5 + np.sum(x**2), size=(n, 1))

    def cost(self, W, x):
        return W[:, 0] + np.sum(x**2)


def test_a_one_decision_cost_is_batched_like_a_vectorised_one():
    p = as_problem(Shifted())
    rng = np.random.default_rng(1)
    W = rng.standard_normal((7, 1))
    X = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.1]])
    one = np.stack([Shifted().cost(W, x) for x in X])
    np.testing.assert_allclose(p.cost(W, X), one)  # k decisions on one W
    W3 = rng.standard_normal((3, 7, 1))
    np.testing.assert_allclose(p.cost(W3, X),
                               [Shifted().cost(w, x) for w, x in zip(W3, X, strict=True)])
    np.testing.assert_allclose(p.cost(W3, X[0]),  # one decision for many scenario sets
                               [Shifted().cost(w, X[0]) for w in W3])


def test_normalisation_is_idempotent_and_keeps_the_kind_of_sampler():
    p = as_problem(Shifted())
    assert as_problem(p) is p and isinstance(p, Problem)
    assert p.has_transform and not as_problem(Exponential()).has_transform
    # a transform problem samples by its transform: the same normals, the same scenarios
    W = p.sample(np.array([0.1, 0.2]), 5, np.random.default_rng(3))
    z = np.random.default_rng(3).standard_normal((5, 1))
    np.testing.assert_array_equal(W, p.transform(np.array([0.1, 0.2]), z))


def test_the_benchmarks_are_problems_of_the_same_protocol():
    p = get_problem("dgp1")
    assert isinstance(p, Problem) and (p.dim_x, p.dim_w) == (6, 5) and p.vectorized
    np.testing.assert_array_equal(p.space.box()[1], [0.7] * 5 + [1.0])
    assert p.space.exchange_coordinates() == (0, 1, 2, 3, 4)


@pytest.mark.parametrize(("attrs", "message"), [
    ({"dim_x": 1, "dim_w": 1, "cost": lambda W, x: W[:, 0], "bounds": [(0, 1)]},
     "transform"),
    ({"dim_x": 1, "dim_w": 1, "sample": lambda x, n, r: 0, "bounds": [(0, 1)]}, "cost"),
    ({"dim_x": 1, "dim_w": 1, "sample": lambda x, n, r: 0, "cost": lambda W, x: 0},
     "project"),
    ({"dim_x": 0, "dim_w": 1, "sample": lambda x, n, r: 0, "cost": lambda W, x: 0,
      "bounds": []}, "dim_x"),
    ({"dim_x": True, "dim_w": 1, "sample": lambda x, n, r: 0, "cost": lambda W, x: 0,
      "bounds": [(0, 1)]}, "dim_x"),
    ({"dim_x": 2, "dim_w": 1, "sample": lambda x, n, r: 0, "cost": lambda W, x: 0,
      "bounds": [(0, 1)]}, "dim_x is 2"),
])
def test_an_incomplete_problem_is_refused_in_one_line(attrs, message):
    obj = type("P", (), {k: (staticmethod(v) if callable(v) else v) for k, v in attrs.items()})()
    with pytest.raises(ProblemError, match=message):
        as_problem(obj)


# -- simulator faults --------------------------------------------------------------------------
class Faulty(Shifted):
    """Shifted with a fault switched on at decisions with x_1 > 0.25."""

    fault = ""

    def transform(self, x, z):
        W = super().transform(x, z)
        if x[0] > 0.25:
            if self.fault == "raises":
                raise ZeroDivisionError("the model divided by zero")
            if self.fault == "columns":
                return np.hstack([W, W, W])
            if self.fault == "nan-w":
                W = W.copy()
                W[:3] = np.nan
        return W

    def cost(self, W, x):
        c = super().cost(W, x)
        if x[0] > 0.25:
            if self.fault == "nan-cost":
                c = c.copy()
                c[:4] = np.nan
            if self.fault == "inf-cost":
                c = c.copy()
                c[-2:] = np.inf
            if self.fault == "shape":
                return np.tile(c, 2)
        return c


def _faulty(fault: str) -> Faulty:
    p = Faulty()
    p.fault = fault
    return p


@pytest.mark.parametrize(("fault", "message"), [
    ("nan-cost", r"cost returned NaN or infinite values in 4 of \d+ rows at x = \["),
    ("inf-cost", r"cost returned NaN or infinite values in 2 of \d+ rows at x = \["),
    ("columns", r"transform returned W of shape \(\d+, 3\), expected \(\d+, 1\) at x = \["),
    ("nan-w", r"transform returned NaN or infinite scenarios in 3 of \d+ rows at x = \["),
    ("shape", r"cost returned shape \(\d+,\), expected \(\d+,\) at x = \["),
    ("raises", r"transform raised ZeroDivisionError: the model divided by zero at x = \["),
])
def test_every_simulator_fault_stops_minimize_with_a_line_naming_it(fault, message):
    with pytest.raises(SimulatorError, match=message) as info:
        minimize(_faulty(fault), method="saa-ps", budget=20_000, seed=0, n_eval=1000)
    text = str(info.value)
    assert "\n" not in text and text.startswith("problem 'Faulty': ")
    x = np.array([float(v) for v in text.rsplit("[", 1)[1].rstrip("]").split(",")])
    assert x[0] > 0.25  # the decision named is one where the fault is on


def test_an_exception_inside_the_simulator_keeps_its_cause():
    p = as_problem(_faulty("raises"))
    with pytest.raises(SimulatorError) as info:
        p.transform(np.array([0.5, 0.1]), np.zeros((3, 1)))
    assert isinstance(info.value.__cause__, ZeroDivisionError)


class IgnoresN(Exponential):
    def sample(self, x, n, rng):
        return rng.exponential(1.0, size=(10, 1))


def test_a_sample_that_ignores_n_is_named():
    # 40 rows are drawn in 16 seeded blocks, the first of 3 rows (DESIGN.md section 3)
    oracle = Oracle(IgnoresN(), 1000, np.random.default_rng(0))
    with pytest.raises(SimulatorError, match=r"sample returned W of shape \(10, 1\), "
                                             r"expected \(3, 1\)"):
        oracle.draw(np.array([0.1, 0.2, 0.3]), 40)
    assert oracle.used == 0


def test_a_fault_is_found_before_the_draws_reach_a_method():
    # the oracle charges nothing for a request whose scenarios are unusable
    oracle = Oracle(_faulty("nan-w"), 1000, np.random.default_rng(0))
    with pytest.raises(SimulatorError):
        oracle.draw(np.array([0.5, 0.1]), 10)
    assert oracle.used == 0


def test_an_unbounded_coordinate_is_named_by_its_index_from_zero():
    class HalfLine(Shifted):
        dim_x = 3
        bounds = [(0.0, 1.0), (0.0, 1.0), (0.0, None)]  # x[2] has no upper bound
        A, b = np.array([[1.0, 1.0, 0.0]]), np.array([0.8])

        def cost(self, W, x):
            return super().cost(W, x) + x[2] ** 2

    with pytest.raises(ProblemError, match=r"X is unbounded \(x\[2\] has an infinite bound\): "
                       "give x0"):
        as_problem(HalfLine())
