"""The shared CEM loop and the CEM-SO competitor (paper Sections 2.3 and 3).

The loop is checked on deterministic objectives, where every update can be recomputed by
hand from the populations it evaluated; CEM-SO on the closed-form toy problem of
``test_competitors``.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_competitors import ALPHA, INTERIOR, LAM, Toy
from toys import BENCH_X

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.kernels.cem import cross_entropy
from acfs_cli.methods.cem_so import CEM_SO, CEMSOSettings
from acfs_cli.problems import feasible


class Recorder:
    """A deterministic batch objective that keeps every population it is asked about."""

    def __init__(self, centre):
        self.centre = np.asarray(centre, dtype=float)
        self.populations: list[np.ndarray] = []

    def __call__(self, X):
        self.populations.append(np.array(X, copy=True))
        return ((X - self.centre) ** 2).sum(axis=1)


def test_one_iteration_smooths_mean_and_sd_toward_the_lowest_elites():
    rng = np.random.default_rng(0)
    initial = BENCH_X.space_filling(40, rng)
    f = Recorder([0.1, 0.2, 0.1, 0.1, 0.1, 0.4])
    res = cross_entropy(f, initial, feasible.project, rng, n_iter=1, elite_frac=0.15,
                        smoothing=0.6)
    values = ((initial - f.centre) ** 2).sum(axis=1)
    elite = initial[np.sort(np.argsort(values)[:6])]  # round(0.15 * 40) = 6 lowest
    mean = 0.6 * elite.mean(axis=0) + 0.4 * initial.mean(axis=0)
    std = 0.6 * elite.std(axis=0) + 0.4 * initial.std(axis=0)
    np.testing.assert_allclose(res.mean, feasible.project(mean))
    np.testing.assert_allclose(res.std, np.maximum(std, 1e-3))
    np.testing.assert_array_equal(res.best_x, initial[np.argmin(values)])
    assert res.best_value == pytest.approx(values.min())


def test_later_populations_are_projected_gaussians_around_the_smoothed_mean():
    rng = np.random.default_rng(1)
    initial = BENCH_X.space_filling(55, rng)
    # The unconstrained minimiser lies far outside X: the Gaussian presses on the faces.
    f = Recorder([0.9, 0.9, 0.9, 0.9, 0.9, 1.5])
    cross_entropy(f, initial, feasible.project, rng, n_iter=6)
    assert len(f.populations) == 6
    for X in f.populations:
        assert X.shape == (55, 6)
        assert feasible.is_feasible(X).all()
    # Draws outside X are projected onto its faces (not rejected or clipped to the box).
    last = np.vstack(f.populations[1:])
    assert np.mean(np.isclose(last[:, :5].sum(axis=1), feasible.SUM_CAP)) > 0.25
    assert np.any(last[:, 5] == 1.0)


def test_population_of_each_iteration_is_drawn_from_the_updated_distribution():
    # Reconstruct iteration 2's population from the same generator state and the mean/SD
    # computed by hand from iteration 1.
    initial = BENCH_X.space_filling(30, np.random.default_rng(2))
    f = Recorder([0.2, 0.1, 0.1, 0.2, 0.1, 0.5])
    cross_entropy(f, initial, feasible.project, np.random.default_rng(3), n_iter=2,
                  elite_frac=0.2, smoothing=0.5)
    values = ((initial - f.centre) ** 2).sum(axis=1)
    elite = initial[np.argsort(values)[:6]]
    mean = 0.5 * elite.mean(axis=0) + 0.5 * initial.mean(axis=0)
    std = 0.5 * elite.std(axis=0) + 0.5 * initial.std(axis=0)
    expected = feasible.project(mean + std * np.random.default_rng(3).standard_normal((30, 6)))
    np.testing.assert_allclose(f.populations[1], expected)


def test_on_best_sees_each_strict_improvement_and_the_overall_minimum():
    rng = np.random.default_rng(4)
    f = Recorder([0.15, 0.1, 0.2, 0.1, 0.05, 0.6])
    seen = []
    res = cross_entropy(f, BENCH_X.space_filling(35, rng), feasible.project, rng, n_iter=7,
                        on_best=lambda x, v: seen.append((x.copy(), v)))
    vals = [v for _, v in seen]
    assert all(b < a for a, b in zip(vals, vals[1:], strict=False))
    everything = np.vstack(f.populations)
    all_values = ((everything - f.centre) ** 2).sum(axis=1)
    assert res.best_value == pytest.approx(all_values.min())
    np.testing.assert_array_equal(seen[-1][0], res.best_x)


def test_cem_converges_on_a_deterministic_quadratic_inside_X():
    rng = np.random.default_rng(5)
    centre = np.array([0.15, 0.1, 0.2, 0.1, 0.05, 0.6])
    res = cross_entropy(Recorder(centre), BENCH_X.space_filling(55, rng), feasible.project,
                        rng, n_iter=25)
    np.testing.assert_allclose(res.mean, centre, atol=0.01)
    assert res.best_value < 1e-3


def test_sd_never_falls_below_its_floor():
    rng = np.random.default_rng(6)
    res = cross_entropy(Recorder([0.1] * 5 + [0.5]), BENCH_X.space_filling(20, rng),
                        feasible.project, rng, n_iter=40, min_std=0.02)
    assert np.all(res.std >= 0.02)


# ---------------------------------------------------------------------------------------------
# CEM-SO
# ---------------------------------------------------------------------------------------------


class NormalsSpy(Toy):
    """The toy, keeping the normals of every batched request."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.Z: list[np.ndarray] = []

    def transform_batch(self, X, Z):
        self.Z.append(np.array(Z, copy=True))
        return super().transform_batch(X, Z)


def _run(settings=None, budget=260_000, seed=0):
    toy = NormalsSpy(INTERIOR)
    task = Task.from_problem(toy, LAM, ALPHA)
    oracle = Oracle(toy, budget, np.random.default_rng(seed))
    return toy, oracle, CEM_SO(task, oracle, np.random.default_rng(seed + 1), settings)


def test_cem_so_defaults_are_the_papers():
    s = CEMSOSettings()
    assert (s.n_iter, s.population, s.elite_frac, s.smoothing, s.n_mc) == (12, 55, 0.15, 0.6, 130)
    assert s.polish_n == 4 * s.n_mc


@pytest.mark.parametrize("crn", [True, False])
def test_cem_so_pairs_the_candidates_of_an_iteration_only_with_crn(crn):
    toy, oracle, _ = _run({"crn": crn, "n_iter": 3, "polish": False})
    assert len(toy.Z) == 3  # one oracle call per iteration
    for Z in toy.Z:
        assert Z.shape == (55, 130, 5)
        same = np.all(Z == Z[0])
        assert same == crn


def test_cem_so_without_polish_returns_its_best_candidate():
    toy, oracle, res = _run({"polish": False})
    assert oracle.used == 12 * 55 * 130 == toy.rows
    assert res.value == pytest.approx(res.info["cem_best_value"])
    np.testing.assert_array_equal(res.x, res.info["cem_best"])
    np.testing.assert_array_equal(oracle.incumbent[0], res.x)


@pytest.mark.parametrize("start,n_starts", [("mean", 1), ("best", 1), ("better", 2)])
def test_cem_so_polish_start_choices(start, n_starts):
    _, oracle, res = _run({"n_iter": 4, "polish_start": start, "polish_n": 100,
                           "polish_draws": 10_000})
    pol = res.account["polish"]["draws"]
    assert (pol - n_starts * 100) % 1300 == 0 and pol <= 10_000
    expected = {"mean": res.info["cem_mean"], "best": res.info["cem_best"]}
    if start in expected:
        np.testing.assert_allclose(res.info["polish_start"], expected[start])
    else:
        assert any(np.allclose(res.info["polish_start"], v) for v in expected.values())


def test_cem_so_stops_cleanly_on_the_cap_with_its_incumbent():
    toy, oracle, res = _run({"scale_with_budget": False}, budget=12 * 55 * 130 + 3_000)
    assert res.stopped_by_budget
    assert oracle.used <= oracle.budget and toy.rows == oracle.used
    np.testing.assert_array_equal(res.x, oracle.incumbent[0])
    assert feasible.is_feasible(res.x)
