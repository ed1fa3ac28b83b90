"""KDE-SO (paper Section 3): budget use, feasibility, determinism and a known optimum."""

from __future__ import annotations

import numpy as np
import pytest
from toys import BENCH_X

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.risk import spectral_risk
from acfs_cli.core.task import Task
from acfs_cli.methods.kde_so import KDE_SO, KDESOSettings
from acfs_cli.problems import get_problem
from acfs_cli.problems.feasible import is_feasible, project

#: Small DE settings keep the budget tests fast; the search logic is the same.
QUICK = {"de_maxiter": 8, "de_popsize": 20, "n_starts": 2, "polish_maxiter": 10}


class ShiftedGaussian:
    """A toy decision-dependent problem on X with a closed-form minimiser.

    W ~ N(m(x), s^2 I_2) with m(x) = (x_1 - 0.2, x_6 - 0.5), and
    C(W, x) = a ||W||^2 + b sum_k (x_k - c_k)^2 with c = (0.2, 0.1, 0.1, 0.1, 0.1, 0.5).
    ||W||^2 / s^2 is non-central chi-square with non-centrality ||m(x)||^2 / s^2, so every
    quantile, the mean and the CVaR of the first term increase with ||m(x)||; both terms are
    minimised at x = c (inside X: x_1 + ... + x_5 = 0.6), which is the minimiser of J for any
    lam >= 0 and alpha.
    """

    name = "shifted-gaussian"
    dim_x = 6
    dim_w = 2
    c = np.array([0.2, 0.1, 0.1, 0.1, 0.1, 0.5])
    s, a, b = 0.05, 4000.0, 20000.0

    def _mean(self, X):
        X = np.atleast_2d(X)
        return np.stack([X[:, 0] - 0.2, X[:, 5] - 0.5], axis=-1)

    def transform_batch(self, X, Z):
        return self._mean(X)[:, None, :] + self.s * np.asarray(Z)

    def transform(self, x, z):
        return self.transform_batch(np.asarray(x)[None, :], np.asarray(z)[None])[0]

    def sample(self, x, n, rng):
        return self.transform(x, rng.standard_normal((n, self.dim_w)))

    def cost(self, W, x):
        W, x = np.asarray(W), np.asarray(x)
        if x.ndim >= 2 or (x.ndim == 1 and W.ndim == 3):
            x = x[..., None, :]
        return self.a * (W**2).sum(axis=-1) + self.b * ((x - self.c) ** 2).sum(axis=-1)

    def project(self, x):
        return project(x)


def _run(problem, budget, seed, settings=None, lam=0.7):
    task = Task.from_problem(problem, lam, 0.95)
    oracle = Oracle(problem, budget, np.random.default_rng(1000 + seed))
    return KDE_SO(task, oracle, np.random.default_rng(seed), settings), oracle


def test_settings_defaults_are_the_papers():
    s = KDESOSettings()
    assert (s.n_train, s.n_c, s.de_maxiter, s.de_popsize) == (2600, 100, 55, 85)
    assert s.de_strategy == "currenttobest1bin"
    assert KDE_SO.name == "kde-so"
    with pytest.raises(ValueError):
        KDE_SO.settings({"n_trees": 3})


@pytest.mark.parametrize("budget, scaling, expected", [
    (260_000, True, 2600), (26_000, True, 260), (6_500, True, 65), (1000, False, 1000),
    (7, False, 7)])
def test_the_design_follows_the_budget_or_is_cut_at_it_unscaled(budget, scaling, expected):
    res, oracle = _run(get_problem("dgp2"), budget, 0,
                       {**QUICK, "scale_with_budget": scaling})
    assert res.oracle_draws == expected == oracle.used
    assert oracle.account == {"design": {"draws": expected, "calls": 1}}
    assert res.x.shape == (6,) and bool(is_feasible(res.x))
    assert not res.stopped_by_budget


def test_returns_a_feasible_x_and_records_it_as_the_incumbent():
    res, oracle = _run(get_problem("dgp1"), 260_000, 3, QUICK)
    assert bool(is_feasible(res.x))
    x_inc, v_inc = oracle.incumbent
    np.testing.assert_array_equal(x_inc, res.x)
    assert v_inc == res.value
    assert res.value <= res.info["de_value"]  # the polish never returns a worse point


def test_same_seed_gives_the_same_x():
    a, _ = _run(get_problem("dgp2"), 260_000, 5, QUICK)
    b, _ = _run(get_problem("dgp2"), 260_000, 5, QUICK)
    c, _ = _run(get_problem("dgp2"), 260_000, 6, QUICK)
    np.testing.assert_array_equal(a.x, b.x)
    assert a.value == b.value
    assert not np.array_equal(a.x, c.x)


def test_gets_close_to_a_known_optimum():
    """Default settings on the toy problem: x* within a few hundredths of the minimiser."""
    problem = ShiftedGaussian()
    res, oracle = _run(problem, 260_000, 11)
    assert oracle.used == 2600
    err = np.abs(res.x - problem.c)
    assert err.max() < 0.04, (res.x, err)
    # independent large-sample check: the answer closes at least 98 % of the gap in true J
    # between a typical decision of X and the optimum
    rng = np.random.default_rng(0)
    z = rng.standard_normal((200_000, 2))

    def true_J(x):
        return spectral_risk(problem.cost(problem.transform(x, z), x), 0.7, 0.95)[0]

    typical = np.median([true_J(x) for x in BENCH_X.space_filling(50, rng)])
    assert true_J(res.x) - true_J(problem.c) < 0.02 * (typical - true_J(problem.c))


def test_without_starts_the_answer_is_the_de_best():
    res, _ = _run(get_problem("dgp2"), 260_000, 4, {**QUICK, "n_starts": 0})
    assert res.value == res.info["de_value"]
    assert res.info["polish_values"] == []


def test_polish_starts_are_the_best_distinct_members():
    from acfs_cli.methods.kde_so import _distinct_best

    pop = np.array([[0.1] * 6, [0.1] * 6, [0.2] * 6, [0.3] * 6, [0.2] * 6])
    values = np.array([1.0, 1.0, 2.0, 0.5, 2.0])
    np.testing.assert_array_equal(_distinct_best(pop, values, 3), [3, 0, 2])
    np.testing.assert_array_equal(_distinct_best(pop, values, 10), [3, 0, 2])
    assert _distinct_best(pop, values, 0).size == 0
