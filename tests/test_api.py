"""The user entry point ``minimize`` on simulators defined here, with known optima.

Optima come from closed forms; projections are checked against scipy's SLSQP.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.stats import norm

from acfs_cli.api import Solution, default_method, minimize
from acfs_cli.methods.auto import SAA_PS_MAX_DIM, SMALL
from acfs_cli.problems import get_problem
from acfs_cli.problems.feasible import is_feasible

LAM, ALPHA = 0.7, 0.95
K_ALPHA = norm.pdf(norm.ppf(ALPHA)) / (1 - ALPHA)  # CVaR of N(0, 1) at ALPHA

FAST = dict(n_a=300, n_b=60, cem_iters=3, cem_pop=12, cem_draws=100, de_iters=10, de_pop=20,
            pool_safety=10, pool_basin=10, keep1=12, keep2=6, n_d=200, n_starts=3, maxiter=20,
            n_trees=10, n_f=200, min_leaf=10)


class Shifted:
    """W | x ~ N(0, s(x)^2), s = 0.2 + 0.1 x_1; C = q(x) + W, q = (x_1 - .3)^2 + (x_2 - .6)^2.

    Plain one-decision ``transform`` and ``cost``; X = [0, 1]^2 with x_1 + x_2 <= 0.8, which
    cuts off the unconstrained optimum, so the optimum lies on the constraint's face.
    """

    dim_x, dim_w = 2, 1
    bounds = [(0.0, 1.0), (0.0, 1.0)]
    A, b = np.array([[1.0, 1.0]]), np.array([0.8])

    def transform(self, x, z):
        return (0.2 + 0.1 * x[0]) * z

    def cost(self, W, x):
        return (x[0] - 0.3) ** 2 + (x[1] - 0.6) ** 2 + W[:, 0]

    @staticmethod
    def J(x):
        q = (x[0] - 0.3) ** 2 + (x[1] - 0.6) ** 2
        return (1 + LAM) * q + LAM * K_ALPHA * (0.2 + 0.1 * x[0])

    @staticmethod
    def optimum():
        # KKT on x_1 + x_2 = 0.8: 2 (1 + lam) (x_1 - x_2 + 0.3) + 0.1 lam k = 0
        d = 0.3 + 0.1 * LAM * K_ALPHA / (2 * (1 + LAM))
        return np.array([(0.8 - d) / 2, (0.8 + d) / 2])


class Exponential:
    """Only ``sample`` and ``bounds``: W | x ~ Exp(scale 0.5 + |x - c|^2), C = W + |x - c|^2.

    J = theta(x) (1 + lam (1 - log(1 - alpha))) + (1 + lam) |x - c|^2, minimised at c.
    """

    dim_x, dim_w = 3, 1
    bounds = [(0.0, 1.0)] * 3
    c = np.array([0.4, 0.7, 0.2])

    def sample(self, x, n, rng):
        return rng.exponential(0.5 + np.sum((x - self.c) ** 2), size=(n, 1))

    def cost(self, W, x):
        return W[:, 0] + np.sum((x - self.c) ** 2)

    @classmethod
    def J(cls, x):
        d2 = np.sum((np.asarray(x) - cls.c) ** 2)
        return (0.5 + d2) * (1 + LAM * (1 - np.log(1 - ALPHA))) + (1 + LAM) * d2


def test_minimize_reaches_a_constrained_optimum_known_in_closed_form():
    sol = minimize(Shifted(), lam=LAM, alpha=ALPHA, budget=60_000, seed=2, method="acfs",
                   **FAST)
    assert isinstance(sol, Solution) and sol.method == "acfs"
    x_star = Shifted.optimum()
    assert sol.x @ Shifted.A[0] <= 0.8 + 1e-9 and np.all((sol.x >= 0) & (sol.x <= 1))
    assert np.linalg.norm(sol.x - x_star) < 0.1
    assert Shifted.J(sol.x) <= 1.02 * Shifted.J(x_star)
    # the reported J is an unbiased large-sample estimate at x*, outside the budget
    assert sol.n_eval == 20_000 and sol.draws_used <= 60_000
    assert abs(sol.J - Shifted.J(sol.x)) < 4 * sol.J_se
    assert sol.EC == pytest.approx((sol.x[0] - 0.3) ** 2 + (sol.x[1] - 0.6) ** 2, abs=0.01)
    assert sum(p["draws"] for p in sol.phases.values()) == sol.draws_used
    assert {"lhd", "cem", "augment", "stage2", "phase4"} <= set(sol.phases)


def test_minimize_with_only_sample_and_bounds():
    sol = minimize(Exponential(), lam=LAM, alpha=ALPHA, budget=60_000, seed=0, method="acfs",
                   **FAST)
    # no common random numbers without transform: a looser neighbourhood (8 seeds: at most
    # 0.14 away and 5.5 % above J*; a uniform random decision is about 110 % above)
    assert np.linalg.norm(sol.x - Exponential.c) < 0.2
    assert Exponential.J(sol.x) <= 1.08 * Exponential.J(Exponential.c)
    assert abs(sol.J - Exponential.J(sol.x)) < 4 * sol.J_se
    # the pathwise gradient becomes finite differences on re-seeded common samples, said so
    sol = minimize(Exponential(), budget=60_000, method="acfs", gradient="pathwise", **FAST)
    assert any("pathwise" in note for note in sol.notes)
    assert any("antithetic" in note for note in sol.notes)


class Quadratic12:
    """12 decisions, W ~ N(x, 1): J = |x - c|^2 + lam * CVaR of a shifted normal."""

    dim_x, dim_w = 12, 1
    bounds = [(-1.0, 1.0)] * 12

    def transform(self, x, z):
        return z + x.sum()

    def cost(self, W, x):
        return W[:, 0] - x.sum() + np.sum((x - 0.3) ** 2)


def test_minimize_default_chooses_by_dimension_and_budget_and_says_so():
    assert default_method(SAA_PS_MAX_DIM, SMALL * SAA_PS_MAX_DIM) == "saa-ps"
    assert default_method(SAA_PS_MAX_DIM, SMALL * SAA_PS_MAX_DIM - 1) == "astro"
    assert default_method(SAA_PS_MAX_DIM + 1, 10**9) == "astro"
    sol = minimize(Shifted(), budget=20_000, seed=5)  # 2 dimensions: 10,000 draws each
    assert sol.method == "auto" and sol.info["chosen"] == "saa-ps"
    assert any(n.startswith("auto chose saa-ps") for n in sol.notes)
    sol = minimize(Exponential(), budget=20_000, seed=5)  # sample-only: the same rule
    assert sol.info["chosen"] == "saa-ps" and sol.draws_used <= 20_000
    sol = minimize(Quadratic12(), budget=20_000, seed=5, n_eval=2_000)
    assert sol.info["chosen"] == "astro" and sol.draws_used <= 20_000
    assert np.abs(sol.x - 0.3).max() < 0.1  # the cost's quadratic part alone varies with x


@pytest.mark.parametrize("shape", [Shifted, Quadratic12])
def test_minimize_answers_every_budget_from_ten_draws_per_dimension(shape):
    problem = shape()
    sol = minimize(problem, budget=10 * problem.dim_x, seed=1, n_eval=500)
    assert sol.draws_used <= 10 * problem.dim_x and sol.info["chosen"] == "astro"
    assert np.all(np.isfinite(sol.x))


def test_minimize_same_seed_same_solution_and_frozen_result():
    a = minimize(Shifted(), budget=20_000, seed=5, method="acfs", **FAST)
    b = minimize(Shifted(), budget=20_000, seed=5, method="acfs", **FAST)
    assert np.array_equal(a.x, b.x) and a.J == b.J and a.draws_used == b.draws_used
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.J = 0.0


def test_minimize_runs_a_benchmark_and_rejects_unknown_names():
    sol = minimize(get_problem("dgp2"), budget=5_000, seed=0, n_eval=2_000, method="acfs",
                   **FAST)
    assert sol.draws_used <= 5_000
    assert is_feasible(sol.x)
    with pytest.raises(ValueError, match="no parameter"):
        minimize(Shifted(), budget=5_000, not_a_setting=1)
    with pytest.raises(ValueError, match="unknown method"):
        minimize(Shifted(), budget=5_000, method="no-such-method")


def test_kde_so_runs_on_a_user_decision_set_with_its_own_bounds():
    sol = minimize(Shifted(), lam=LAM, alpha=ALPHA, budget=60_000, seed=3, method="kde-so",
                   n_train=400, de_maxiter=10, de_popsize=20, n_starts=2, polish_maxiter=10,
                   scale_with_budget=False)
    assert sol.draws_used == 400
    assert sol.x @ Shifted.A[0] <= 0.8 + 1e-9 and np.all((sol.x >= 0) & (sol.x <= 1))


@pytest.mark.parametrize("method, over", [
    ("saa-ps", {}),
    ("acfs-plus", FAST),
])
def test_pattern_searches_follow_a_user_constraint_face_to_the_optimum(method, over):
    # The optimum lies on the face x_1 + x_2 = 0.8 of a user's X, known to the search only
    # through the projection and the bounds.
    sol = minimize(Shifted(), lam=LAM, alpha=ALPHA, budget=60_000, seed=0, method=method, **over)
    x_star = Shifted.optimum()
    assert sol.draws_used <= 60_000
    assert sol.x @ Shifted.A[0] <= 0.8 + 1e-9 and np.all((sol.x >= 0) & (sol.x <= 1))
    assert np.linalg.norm(sol.x - x_star) < 0.05
    assert Shifted.J(sol.x) <= 1.01 * Shifted.J(x_star)


@pytest.mark.parametrize("method", ["gp-bo", "cem-so", "sgd-cvar"])
def test_competitors_follow_a_user_constraint_face_to_the_optimum(method):
    # Their polishes and Adam steps see the slope along the face x_1 + x_2 = 0.8 through the
    # projected-gradient map, and their difference stencils transfer along it.
    sol = minimize(Shifted(), lam=LAM, alpha=ALPHA, budget=60_000, seed=0, method=method)
    x_star = Shifted.optimum()
    assert sol.draws_used <= 60_000
    assert sol.x @ Shifted.A[0] <= 0.8 + 1e-9 and np.all((sol.x >= 0) & (sol.x <= 1))
    assert np.linalg.norm(sol.x - x_star) < 0.03
    assert Shifted.J(sol.x) <= 1.005 * Shifted.J(x_star)


def test_task_box_is_the_users_own_box_and_contains_x():
    from acfs_cli.core.problem import as_problem
    from acfs_cli.core.task import Task

    lo, hi = Task.from_problem(as_problem(Shifted()), LAM, ALPHA).box()
    np.testing.assert_array_equal(lo, [0.0, 0.0])
    np.testing.assert_array_equal(hi, [1.0, 1.0])
