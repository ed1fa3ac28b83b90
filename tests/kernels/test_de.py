"""Differential Evolution on a surrogate (the routine shared by ACFS Phase 1 and KDE-SO)."""

from __future__ import annotations

import numpy as np
from toys import BENCH_X

from acfs_cli.core.task import Task
from acfs_cli.kernels.de import surrogate_de
from acfs_cli.problems import get_problem
from acfs_cli.problems.feasible import is_feasible, project

TASK = Task.from_problem(get_problem("dgp2"), 0.7, 0.95)


class Quadratic:
    """A vectorised surrogate ``sum_k a_k (x_k - c_k)^2 + 1000`` that records its calls."""

    def __init__(self, c, a=None):
        self.c = np.asarray(c, dtype=float)
        self.a = np.ones(6) if a is None else np.asarray(a, dtype=float)
        self.batch_sizes: list[int] = []
        self.feasible = True

    def __call__(self, X):
        X = np.asarray(X)
        self.batch_sizes.append(X.shape[0])
        self.feasible &= bool(np.all(is_feasible(X)))
        return 1000.0 + ((X - self.c) ** 2 * self.a).sum(axis=1)


def test_finds_an_interior_minimiser():
    c = np.array([0.1, 0.2, 0.05, 0.15, 0.1, 0.6])
    f = Quadratic(c, a=[3, 1, 2, 1, 1, 0.5])
    res = surrogate_de(f, BENCH_X.space_filling(40, np.random.default_rng(0)), TASK,
                       np.random.default_rng(1), maxiter=150)
    np.testing.assert_allclose(res.x_best, c, atol=5e-3)
    assert res.f_best == f(res.x_best[None, :])[0]


def test_minimiser_outside_x_ends_at_its_projection():
    """min ||x - c||^2 over X is the Euclidean projection of c (sum constraint active)."""
    c = np.array([0.4, 0.3, 0.3, 0.1, 0.1, 0.5])  # x1 + ... + x5 = 1.2 > 0.85
    res = surrogate_de(Quadratic(c), BENCH_X.space_filling(40, np.random.default_rng(2)), TASK,
                       np.random.default_rng(3), maxiter=200)
    np.testing.assert_allclose(res.x_best, project(c), atol=1e-2)
    assert res.x_best[:5].sum() <= 0.85 + 1e-9


def test_one_surrogate_call_per_generation_on_feasible_points():
    f = Quadratic(np.full(6, 0.1))
    init = BENCH_X.space_filling(85, np.random.default_rng(4))
    res = surrogate_de(f, init, TASK, np.random.default_rng(5), maxiter=12)
    # the initial population, then one call per generation; all 12 generations run (tol = 0)
    assert f.batch_sizes == [85] * 13
    assert res.nit == 12
    assert f.feasible  # every point the surrogate saw is in X


def test_returned_population_is_feasible_with_its_surrogate_values():
    f = Quadratic(np.array([0.5, 0.5, 0.1, 0.0, 0.0, 0.9]))
    res = surrogate_de(f, BENCH_X.space_filling(30, np.random.default_rng(6)), TASK,
                       np.random.default_rng(7), maxiter=20)
    assert res.population.shape == (30, 6)
    assert np.all(is_feasible(res.population))
    np.testing.assert_allclose(res.population_values, f(res.population), rtol=1e-12)
    assert res.f_best == res.population_values.min()
    np.testing.assert_array_equal(res.x_best, res.population[np.argmin(res.population_values)])


def test_same_seed_gives_the_same_result():
    init = BENCH_X.space_filling(20, np.random.default_rng(8))
    f = Quadratic(np.full(6, 0.12))
    a = surrogate_de(f, init, TASK, np.random.default_rng(9), maxiter=10)
    b = surrogate_de(f, init, TASK, np.random.default_rng(9), maxiter=10)
    np.testing.assert_array_equal(a.population, b.population)
    np.testing.assert_array_equal(a.x_best, b.x_best)
