"""The decision-weighted Gaussian KDE sampler and the surrogate objective built on it."""

from __future__ import annotations

import numpy as np
import pytest
from toys import BENCH_X

from acfs_cli.core.risk import spectral_risk
from acfs_cli.core.task import Task
from acfs_cli.problems import PROBLEMS, get_problem
from acfs_cli.problems.feasible import design_map, project
from acfs_cli.surrogates import KDESampler, surrogate_objective


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(1)
    problem = PROBLEMS["dgp1"]()
    X = BENCH_X.space_filling(500, rng)
    W = problem.sample_batch(X, 1, rng)[:, 0, :]
    return KDESampler().fit(X, W), X, W


def test_weights_rows_sum_to_one(fitted):
    kde, X, _ = fitted
    w = kde.weights(BENCH_X.space_filling(85, np.random.default_rng(2)))
    assert w.shape == (85, len(X))
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(w >= 0)


def test_weights_equal_a_direct_computation(fitted):
    kde, X, _ = fitted
    Xq = BENCH_X.space_filling(4, np.random.default_rng(3))
    b = kde.bandwidth_x_
    expected = np.empty((len(Xq), len(X)))
    for q in range(len(Xq)):
        for i in range(len(X)):
            expected[q, i] = np.exp(-0.5 * sum(((Xq[q, k] - X[i, k]) / b[k]) ** 2
                                               for k in range(6)))
        expected[q] /= expected[q].sum()
    np.testing.assert_allclose(kde.weights(Xq), expected, rtol=1e-9, atol=1e-300)


def test_default_bandwidth_is_scotts_rule_times_the_constant(fitted):
    kde, X, _ = fitted
    N, d = X.shape
    expected = X.std(axis=0, ddof=1) * N ** (-1 / (d + 4)) * kde.x_scale
    np.testing.assert_allclose(kde.bandwidth_x_, expected, rtol=1e-12)
    custom = KDESampler(bandwidth_x=0.1, x_scale=3.0).fit(X, fitted[2])
    np.testing.assert_array_equal(custom.bandwidth_x_, np.full(6, 0.1))


def test_a_narrow_kernel_puts_the_weight_on_the_nearest_design_point(fitted):
    _, X, W = fitted
    kde = KDESampler(bandwidth_x=1e-3).fit(X, W)
    Xq = X[[3, 17, 40]] + 1e-4
    w = kde.weights(Xq)
    np.testing.assert_array_equal(w.argmax(axis=1), [3, 17, 40])
    assert np.all(w.max(axis=1) > 0.99)


def test_a_far_query_still_gets_finite_normalised_weights(fitted):
    kde, X, _ = fitted
    w = kde.weights(np.array([[50.0, -50.0, 50.0, 0.0, 0.0, 80.0]]))
    assert np.all(np.isfinite(w))
    assert w.sum() == pytest.approx(1.0)


def test_samples_reproduce_conditional_means_on_a_dense_design():
    """DGP2, 20,000 design points near x0: KDE draws at x0 against 200,000 true draws.

    The tolerance is four standard errors of a weighted mean with the kernel's effective
    sample size (a Gaussian kernel in 6-D keeps only a few hundred effective points).
    """
    problem = PROBLEMS["dgp2"]()
    rng = np.random.default_rng(4)
    x0 = np.array([0.1, 0.2, 0.1, 0.15, 0.1, 0.6])
    X = project(x0 + 0.05 * rng.standard_normal((20_000, 6)))
    W = problem.sample_batch(X, 1, rng)[:, 0, :]
    kde = KDESampler().fit(X, W)
    w = kde.weights(x0[None, :])[0]
    ess = 1.0 / np.sum(w**2)
    assert ess > 100
    S = kde.sample(x0[None, :], 20_000, rng, crn=False)[0]
    T = problem.sample(x0, 200_000, rng)
    sd = T.std(axis=0)
    tol = 4.0 * sd / np.sqrt(ess)
    np.testing.assert_array_less(np.abs(S.mean(axis=0) - T.mean(axis=0)), tol)
    np.testing.assert_array_less(np.abs(np.median(S, axis=0) - np.median(T, axis=0)), tol)
    np.testing.assert_array_less(np.abs(S.std(axis=0) - sd), 0.25 * sd)


def test_weighting_tracks_how_the_law_moves_with_x():
    """Two decisions whose true means of W_1 differ a lot: the KDE sees the difference."""
    problem = PROBLEMS["dgp2"]()
    rng = np.random.default_rng(5)
    X = design_map(rng.random((20_000, 6)))  # uniform on X (a maximin design is costly here)
    W = problem.sample_batch(X, 1, rng)[:, 0, :]
    kde = KDESampler().fit(X, W)
    lo = np.array([0.0, 0.3, 0.1, 0.3, 0.1, 0.05])  # mu_1 small: x6 and x1 low
    hi = np.array([0.5, 0.0, 0.1, 0.1, 0.1, 0.95])  # mu_1 large
    S = kde.sample(np.vstack([lo, hi]), 20_000, rng, crn=True)
    m_true = [problem.sample(x, 100_000, rng)[:, 0].mean() for x in (lo, hi)]
    m_kde = S[:, :, 0].mean(axis=1)
    assert m_true[1] > 1.5 * m_true[0]
    # the KDE recovers most of the true difference, and far more than a pooled sample would
    assert m_kde[1] - m_kde[0] > 0.6 * (m_true[1] - m_true[0])


def test_kernel_noise_has_silverman_scale_and_is_shared_under_crn(fitted):
    kde, X, W = fitted
    h = kde.bandwidth
    N = len(W)
    sd = W.std(axis=0, ddof=1)
    q75, q25 = np.percentile(W, [75, 25], axis=0)
    silverman = 0.9 * np.minimum(sd, (q75 - q25) / 1.34) * N ** (-0.2)
    np.testing.assert_allclose(h, silverman * kde.bandwidth_scale, rtol=1e-12)
    Xq = np.vstack([X[5], X[5], X[9]])
    S = kde.sample(Xq, 300, np.random.default_rng(8), crn=True)
    np.testing.assert_array_equal(S[0], S[1])


def test_crn_surrogate_is_a_deterministic_function_of_x(fitted):
    kde, X, _ = fitted
    task = Task.from_problem(get_problem("dgp1"), 0.7, 0.95)
    f = surrogate_objective(kde, task, 100, np.random.default_rng(5))
    Xq = BENCH_X.space_filling(20, np.random.default_rng(6))
    a = f(Xq)
    assert a.shape == (20,)
    np.testing.assert_array_equal(a, f(Xq))  # every call, same numbers
    # a candidate's value does not depend on the batch it is scored in
    np.testing.assert_array_equal(f(Xq[7:8]), a[7:8])
    np.testing.assert_array_equal(f(Xq[::-1]), a[::-1])
    # fresh numbers without CRN
    g = surrogate_objective(kde, task, 100, np.random.default_rng(5), crn=False)
    assert not np.array_equal(g(Xq), g(Xq))


def test_surrogate_objective_is_the_projects_risk_of_the_sampler_draws(fitted):
    kde, X, _ = fitted
    problem = PROBLEMS["dgp1"]()
    task = Task.from_problem(problem, 0.5, 0.9)
    Xq = BENCH_X.space_filling(3, np.random.default_rng(7))
    f = surrogate_objective(kde, task, 64, np.random.default_rng(9))
    rng = np.random.default_rng(9)
    u, z = rng.random(), rng.standard_normal((64, 5))
    S = kde.sample_with(Xq, u, z)
    expected = [spectral_risk(problem.cost(S[i], Xq[i]), 0.5, 0.9)[0] for i in range(3)]
    np.testing.assert_allclose(f(Xq), expected, rtol=1e-12)
