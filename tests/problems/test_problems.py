"""DGP1 and DGP2 (paper Section 4.1, Table "DGP1", Appendix B) against independent computations.

The expected parameter values come from a scalar transcription of the paper's tables written
out below (plain Python floats, one formula per entry), plus fully hand-evaluated numbers at
x = 0; moments are checked against closed forms on large samples with tolerances derived
from the sample size; costs against the agreement table of an independent implementation.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from conftest import TABLE, TABLE_ALPHA, TABLE_LAM, TABLE_X, TABLE_Z
from scipy import stats

from acfs_cli.core.problem import Problem
from acfs_cli.core.risk import spectral_risk
from acfs_cli.problems import DGP1, DGP2, PROBLEMS, get_problem

# ---------------------------------------------------------------------------------------------
# Scalar transcription of the paper's tables (independent of the vectorised module code).
# ---------------------------------------------------------------------------------------------


def _x0(x):
    return max(0.0, 1.0 - (x[0] + x[1] + x[2] + x[3] + x[4]))


def dgp1_reference(x):
    x1, x2, x3, x4, x5, x6 = x
    x0 = _x0(x)
    mu = [
        2.10 - 1.50 * x6 - 1.10 * x1 + 1.20 * x0 + 0.75 * x2 * x3 - 0.55 * x1 * x6 * x6,
        2.30 - 1.30 * x1 - 1.70 * x3 + 0.95 * x0 - 0.65 * x6 * x6 + 0.45 * x2 * x2,
        1.90 - 1.50 * x2 - 1.05 * x6 + 0.75 * x0 + 0.55 * x1 * x2 - 0.35 * x3 * x6,
        1.70 - 1.20 * x4 - 0.90 * x6 + 0.60 * x0 + 0.40 * x3 * x5 - 0.30 * x2 * x4,
        1.50 - 1.00 * x5 - 0.80 * x6 + 0.50 * x0 + 0.35 * x1 * x4 - 0.25 * x3 * x3,
    ]
    sigma = [
        0.20 + 0.75 * (1 - x6) * (1 - x1) + 0.30 * x0,
        0.24 + 0.65 * (1 - x3) + 0.28 * (1 - x6) + 0.22 * x0,
        0.22 + 0.60 * (1 - x2) + 0.20 * (1 - x6) + 0.16 * x0,
        0.18 + 0.50 * (1 - x4) + 0.18 * (1 - x6) + 0.14 * x0,
        0.16 + 0.45 * (1 - x5) + 0.15 * (1 - x6) + 0.12 * x0,
    ]
    nu = [3.0 + 2.5 * x6, 3.0 + 2.0 * x3, 3.0 + 1.5 * x2, 3.5 + 2.0 * x4, 3.5 + 1.5 * x5]
    R = {
        (1, 2): 0.55 + 0.28 * (1 - x6),
        (1, 3): 0.20 + 0.28 * (1 - x1),
        (1, 4): 0.15 + 0.20 * (1 - x2),
        (1, 5): 0.10 + 0.18 * (1 - x3),
        (2, 3): 0.50 + 0.32 * (1 - 2 * x2),
        (2, 4): 0.20 + 0.22 * (1 - x4),
        (2, 5): 0.15 + 0.18 * (1 - x5),
        (3, 4): 0.25 + 0.20 * (1 - x3),
        (3, 5): 0.18 + 0.16 * (1 - x4),
        (4, 5): 0.30 + 0.25 * (1 - 2 * x5),
    }
    return {"mu": mu, "sigma": sigma, "nu": nu}, R


def dgp2_reference(x):
    x1, x2, x3, x4, x5, x6 = x
    x0 = _x0(x)
    mu = [
        1.20 + 0.80 * x6 + 0.60 * x1 - 0.50 * x0 - 0.40 * x2 * x4 + 0.30 * x3 * x6,
        1.10 + 0.70 * x2 + 0.50 * x4 - 0.45 * x0 + 0.35 * x1 * x1 - 0.25 * x6 * x6,
        1.30 + 0.90 * x3 - 0.60 * x0 + 0.40 * x5 * x6 + 0.30 * x1 * x3 - 0.20 * x4 * x4,
        1.00 + 0.65 * x4 + 0.45 * x6 - 0.35 * x0 + 0.25 * x2 * x5 - 0.15 * x1 * x6,
        0.90 + 0.55 * x5 + 0.40 * x1 - 0.30 * x0 + 0.20 * x3 * x4 - 0.12 * x2 * x2,
    ]
    sigma = [
        0.25 + 0.50 * x6 * (1 - x1) + 0.20 * x0,
        0.22 + 0.45 * (1 - x4) + 0.18 * x6 + 0.15 * x0,
        0.20 + 0.40 * (1 - x3) + 0.15 * x6 + 0.12 * x0,
        0.18 + 0.35 * (1 - x5) + 0.12 * x6 + 0.10 * x0,
        0.15 + 0.30 * (1 - x2) + 0.10 * x6 + 0.08 * x0,
    ]
    sigma = [max(s, 0.05) for s in sigma]
    R = {
        (1, 2): 0.45 + 0.30 * x6,
        (1, 3): 0.25 + 0.25 * (1 - x1),
        (1, 4): 0.20 + 0.20 * (1 - x2),
        (1, 5): 0.15 + 0.15 * (1 - x3),
        (2, 3): 0.40 + 0.30 * (1 - 2 * x4),
        (2, 4): 0.25 + 0.20 * (1 - x5),
        (2, 5): 0.20 + 0.15 * (1 - x6),
        (3, 4): 0.30 + 0.25 * (1 - x3),
        (3, 5): 0.22 + 0.18 * (1 - x4),
        (4, 5): 0.35 + 0.28 * (1 - 2 * x5),
    }
    return {"mu": mu, "sigma": sigma}, R


REFERENCE = {"dgp1": dgp1_reference, "dgp2": dgp2_reference}

# Decisions for the parameter checks: the origin (x0 = 1), a vertex with an active sum
# constraint, and two interior points.
PARAM_X = [
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    (0.7, 0.15, 0.0, 0.0, 0.0, 1.0),
    (0.1, 0.2, 0.3, 0.1, 0.1, 0.5),
    TABLE_X[2],
]


@pytest.mark.parametrize("name", ["dgp1", "dgp2"])
@pytest.mark.parametrize("x", PARAM_X)
def test_every_parameter_matches_a_scalar_transcription_of_the_paper(name, x):
    problem = PROBLEMS[name]()
    ref, ref_R = REFERENCE[name](x)
    X = np.array([x])
    got = problem.params(X)
    assert set(got) == set(ref)
    for key, values in ref.items():
        np.testing.assert_allclose(got[key][0], values, rtol=0, atol=1e-13, err_msg=key)
    R = problem.correlation(X)[0]
    expected = np.eye(5)
    for (i, j), value in ref_R.items():
        expected[i - 1, j - 1] = expected[j - 1, i - 1] = value
    np.testing.assert_allclose(R, expected, rtol=0, atol=1e-13)


def test_dgp1_parameters_at_the_origin_match_hand_evaluated_numbers(dgp1):
    # x = 0: x0 = 1, so every intercept gains its x0 coefficient and (1 - x_k) = 1.
    got = dgp1.params(np.zeros((1, 6)))
    np.testing.assert_allclose(got["mu"][0], [3.30, 3.25, 2.65, 2.30, 2.00], atol=1e-13)
    np.testing.assert_allclose(got["sigma"][0], [1.25, 1.39, 1.18, 1.00, 0.88], atol=1e-13)
    np.testing.assert_allclose(got["nu"][0], [3.0, 3.0, 3.0, 3.5, 3.5], atol=1e-13)
    R = dgp1.correlation(np.zeros((1, 6)))[0]
    upper = R[np.triu_indices(5, 1)]  # (1,2) (1,3) (1,4) (1,5) (2,3) (2,4) (2,5) (3,4) ...
    np.testing.assert_allclose(
        upper, [0.83, 0.48, 0.35, 0.28, 0.82, 0.42, 0.33, 0.45, 0.34, 0.55], atol=1e-13
    )


def test_dgp2_parameters_at_the_origin_match_hand_evaluated_numbers(dgp2):
    got = dgp2.params(np.zeros((1, 6)))
    np.testing.assert_allclose(got["mu"][0], [0.70, 0.65, 0.70, 0.65, 0.60], atol=1e-13)
    np.testing.assert_allclose(got["sigma"][0], [0.45, 0.82, 0.72, 0.63, 0.53], atol=1e-13)
    R = dgp2.correlation(np.zeros((1, 6)))[0]
    upper = R[np.triu_indices(5, 1)]
    np.testing.assert_allclose(
        upper, [0.45, 0.50, 0.40, 0.30, 0.70, 0.45, 0.35, 0.55, 0.40, 0.63], atol=1e-13
    )


def test_dgp2_sigma_is_floored_at_0_05(dgp2):
    # The floor never binds on X (the smallest sigma there is 0.25 + ... for sigma_1, 0.3775
    # for sigma_2), so probe the closed forms just outside X, where the raw expressions go
    # below 0.05: x6 = -1 gives sigma_1 = 0.25 - 0.50 + 0.20 = -0.05; x4 = 2 gives
    # sigma_2 = 0.22 - 0.45 + 0.15 = -0.08; x = 0 elsewhere.
    X = np.array([[0, 0, 0, 0, 0, -1.0], [0, 0, 0, 2.0, 0, 0], [0, 0, 0, 0, 0, -0.3]])
    sigma = dgp2.params(X)["sigma"]
    assert sigma[0, 0] == 0.05
    assert sigma[1, 1] == 0.05
    # Above the floor the raw value stands: 0.25 - 0.15 + 0.20 = 0.30.
    assert sigma[2, 0] == pytest.approx(0.30, abs=1e-13)
    # And on X the floor is inert: every sigma on a wide design is above 0.2.
    X = dgp2.design(np.random.default_rng(0).random((5000, 6)))
    assert dgp2.params(X)["sigma"].min() > 0.2


# ---------------------------------------------------------------------------------------------
# Sample moments against closed forms.
# ---------------------------------------------------------------------------------------------

MOMENT_X = [(0.0, 0.0, 0.0, 0.0, 0.0, 0.0), TABLE_X[0], (0.1, 0.2, 0.3, 0.1, 0.1, 0.5)]
N_MOMENTS = 200_000


def _corr_se(r, n):
    """Large-sample SE of a Pearson correlation of bivariate normals."""
    return (1 - r**2) / math.sqrt(n)


@pytest.mark.parametrize("x", MOMENT_X)
def test_dgp2_marginals_are_lognormal_with_the_paper_parameters(dgp2, x):
    ref, ref_R = dgp2_reference(x)
    W = dgp2.sample(np.array(x), N_MOMENTS, np.random.default_rng(11))
    n = W.shape[0]
    for j in range(5):
        mu, s = ref["mu"][j], ref["sigma"][j]
        # Mean exp(mu + s^2/2), SE from the log-normal variance.
        mean = math.exp(mu + s * s / 2)
        sd = math.sqrt((math.exp(s * s) - 1) * math.exp(2 * mu + s * s))
        assert abs(W[:, j].mean() - mean) < 5 * sd / math.sqrt(n)
        # Median exp(mu); SE of the sample median = sqrt(1/4n) / f(median).
        median = math.exp(mu)
        f_med = stats.lognorm.pdf(median, s, scale=median)
        assert abs(np.median(W[:, j]) - median) < 5 * 0.5 / (math.sqrt(n) * f_med)
        # log W is normal: its SD is sigma.
        assert abs(np.log(W[:, j]).std() - s) < 5 * s / math.sqrt(2 * n)
    logW = np.log(W)
    C = np.corrcoef(logW.T)
    for (i, j), r in ref_R.items():
        assert abs(C[i - 1, j - 1] - r) < 5 * _corr_se(r, n), (i, j)


@pytest.mark.parametrize("x", MOMENT_X)
def test_dgp1_marginals_are_student_t_with_scale_sigma(dgp1, x):
    ref, ref_R = dgp1_reference(x)
    W = dgp1.sample(np.array(x), N_MOMENTS, np.random.default_rng(12))
    n = W.shape[0]
    qs = np.array([0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99])
    Zs = []
    for j in range(5):
        mu, s, nu = ref["mu"][j], ref["sigma"][j], ref["nu"][j]
        # Quantiles mu + s t_nu^{-1}(q); SE sqrt(q(1-q)/n) / f(x_q).
        expected = mu + s * stats.t.ppf(qs, nu)
        dens = stats.t.pdf(stats.t.ppf(qs, nu), nu) / s
        se = np.sqrt(qs * (1 - qs) / n) / dens
        got = np.quantile(W[:, j], qs)
        np.testing.assert_array_less(np.abs(got - expected), 5 * se)
        # Location mu: the variance s^2 nu/(nu - 2) is finite for nu > 2 (here nu >= 3).
        var = s * s * nu / (nu - 2)
        assert abs(W[:, j].mean() - mu) < 5 * math.sqrt(var / n)
        Zs.append(stats.norm.ppf(stats.t.cdf((W[:, j] - mu) / s, nu)))
    # The copula: Phi^{-1}(F_j(W_j)) recovers Z, whose correlation is R(x).
    C = np.corrcoef(np.array(Zs))
    for (i, j), r in ref_R.items():
        assert abs(C[i - 1, j - 1] - r) < 5 * _corr_se(r, n), (i, j)


def test_dgp1_variance_is_that_of_a_scaled_t_where_the_fourth_moment_is_finite(dgp1):
    # x6 = 1 gives nu_1 = 5.5 and x4 = 0.7 gives nu_4 = 4.9; with nu > 4 the sample variance
    # has finite variance, relative SE sqrt((kurt_excess + 2) / n), kurt_excess = 6 / (nu - 4).
    x = (0.0, 0.0, 0.0, 0.7, 0.0, 1.0)
    ref, _ = dgp1_reference(x)
    n = 400_000
    W = dgp1.sample(np.array(x), n, np.random.default_rng(13))
    for j in (0, 3):
        s, nu = ref["sigma"][j], ref["nu"][j]
        assert nu > 4
        var = s * s * nu / (nu - 2)
        rel_se = math.sqrt((6 / (nu - 4) + 2) / n)
        assert abs(W[:, j].var() / var - 1) < 5 * rel_se, j
        # The standard-deviation reading (sd = sigma) is far outside that band.
        assert abs(W[:, j].var() / (s * s) - 1) > 20 * rel_se


# ---------------------------------------------------------------------------------------------
# Transform conventions.
# ---------------------------------------------------------------------------------------------


def test_transform_uses_z_times_lower_cholesky_transpose(dgp2):
    # DGP2: log W = mu + sigma * (z @ L^T), L = numpy's lower Cholesky factor of R(x).
    x = TABLE_X[1]
    ref, ref_R = dgp2_reference(x)
    R = np.eye(5)
    for (i, j), r in ref_R.items():
        R[i - 1, j - 1] = R[j - 1, i - 1] = r
    L = np.linalg.cholesky(R)
    z = np.random.default_rng(3).standard_normal((7, 5))
    expected = np.exp(np.array(ref["mu"]) + np.array(ref["sigma"]) * (z @ L.T))
    np.testing.assert_allclose(dgp2.transform(np.array(x), z), expected, rtol=1e-13)


def test_dgp1_transform_matches_scipy_t_quantiles_far_in_both_tails(dgp1):
    # Working in the lower tail keeps precision where Phi(z) rounds to 1; compare each
    # component with mu + sigma t.ppf(Phi(Z)) computed via the symmetric lower tail in scipy.
    x = np.array(TABLE_X[0])
    ref, ref_R = dgp1_reference(TABLE_X[0])
    z = np.zeros((9, 5))
    z[:, 0] = [-8.0, -5.0, -1.0, -1e-9, 0.0, 1e-9, 1.0, 5.0, 8.0]
    W = dgp1.transform(x, z)
    # First row of L is (1, 0, ..., 0), so Z_1 = z_1.
    nu, mu, s = ref["nu"][0], ref["mu"][0], ref["sigma"][0]
    zz = z[:, 0]
    expected = mu + s * np.sign(zz) * -stats.t.ppf(stats.norm.cdf(-np.abs(zz)), nu)
    np.testing.assert_allclose(W[:, 0], expected, rtol=1e-12, atol=1e-15)
    assert W[4, 0] == pytest.approx(mu, abs=1e-15)
    # Away from the far tail the naive composition t^{-1}(Phi(z)) is accurate too.
    mid = np.abs(zz) <= 5
    naive = mu + s * stats.t.ppf(stats.norm.cdf(zz[mid]), nu)
    np.testing.assert_allclose(W[mid, 0], naive, rtol=1e-9, atol=1e-9)
    # Symmetry about mu.
    np.testing.assert_allclose(W[::-1, 0] - mu, -(W[:, 0] - mu), rtol=1e-12, atol=1e-15)


def test_sample_is_transform_of_the_rng_normals(problem):
    x = np.array(TABLE_X[1])
    W = problem.sample(x, 50, np.random.default_rng(5))
    z = np.random.default_rng(5).standard_normal((50, 5))
    np.testing.assert_array_equal(W, problem.transform(x, z))


def test_transform_batch_equals_one_transform_per_decision(problem):
    rng = np.random.default_rng(8)
    X = problem.design(rng.random((6, 6)))
    X[0] = (0.7, 0.0, 0.0, 0.15, 0.0, 0.0)  # a DGP1 decision with a non-PD raw R(x)
    Z = rng.standard_normal((6, 4, 5))
    W = problem.transform_batch(X, Z)
    assert W.shape == (6, 4, 5)
    for i in range(6):
        np.testing.assert_allclose(W[i], problem.transform(X[i], Z[i]), rtol=1e-13)
    Wb = problem.sample_batch(X, 4, np.random.default_rng(1))
    np.testing.assert_array_equal(
        Wb, problem.transform_batch(X, np.random.default_rng(1).standard_normal((6, 4, 5)))
    )


def test_transform_does_not_depend_on_earlier_calls(problem):
    x, y = np.array(TABLE_X[0]), np.array(TABLE_X[2])
    z = np.random.default_rng(4).standard_normal((10, 5))
    first = problem.transform(x, z)
    problem.transform(y, z)
    np.testing.assert_array_equal(problem.transform(x, z), first)


# ---------------------------------------------------------------------------------------------
# The agreement table.
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(TABLE))
def test_costs_agree_with_the_independent_implementation_table(key):
    name, i = key
    problem = get_problem(name)
    x = np.array(TABLE_X[i])
    costs = problem.cost(problem.transform(x, TABLE_Z), x)
    # The literals carry 10 significant digits (relative rounding below 5e-10).
    np.testing.assert_allclose(costs, TABLE[key][0], rtol=1e-8)


def _check_against_table(key, n, seed, n_se):
    name, i = key
    problem = get_problem(name)
    x = np.array(TABLE_X[i])
    _, ec_ref, ec_se_ref, j_ref, j_se_ref = TABLE[key]
    rng = np.random.default_rng(seed)
    costs = np.concatenate(
        [problem.cost(problem.sample(x, 250_000, rng), x) for _ in range(n // 250_000)]
    )
    J, ec, _ = spectral_risk(costs, TABLE_LAM, TABLE_ALPHA)
    # Own SEs: plain SD of costs for EC; influence values of J for J (independent of the
    # module's helper: tau + (c - tau)_+ / (1 - alpha) with tau the empirical quantile).
    tau = np.sort(costs)[math.ceil(TABLE_ALPHA * n) - 1]
    psi = costs + TABLE_LAM * (tau + np.maximum(costs - tau, 0) / (1 - TABLE_ALPHA))
    ec_se = costs.std() / math.sqrt(n)
    j_se = psi.std() / math.sqrt(n)
    assert abs(ec - ec_ref) < n_se * math.hypot(ec_se, ec_se_ref), (ec, ec_ref)
    assert abs(J - j_ref) < n_se * math.hypot(j_se, j_se_ref), (J, j_ref)


@pytest.mark.parametrize("key", sorted(TABLE))
def test_expected_cost_and_j_agree_with_the_table_on_a_large_sample(key):
    # 500k draws; DGP1's cost has infinite variance, so its sample SE understates the
    # spread and small samples are skewed low: allow 5 combined SEs.
    _check_against_table(key, 500_000, seed=2024, n_se=5)


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(TABLE))
def test_expected_cost_and_j_agree_with_the_table_on_ten_million_draws(key):
    _check_against_table(key, 10_000_000, seed=7, n_se=4)


# ---------------------------------------------------------------------------------------------
# Cost broadcasting and bad input.
# ---------------------------------------------------------------------------------------------


def test_cost_broadcasts_over_scenarios_and_decisions(problem):
    rng = np.random.default_rng(9)
    X = problem.design(rng.random((3, 6)))
    W = problem.sample(X[0], 20, rng)
    # k decisions re-costed on one W.
    C = problem.cost(W, X)
    assert C.shape == (3, 20)
    for k in range(3):
        np.testing.assert_allclose(C[k], problem.cost(W, X[k]), rtol=1e-14)
    # One scenario set per decision.
    Wm = problem.sample_batch(X, 20, rng)
    Cm = problem.cost(Wm, X)
    assert Cm.shape == (3, 20)
    for k in range(3):
        np.testing.assert_allclose(Cm[k], problem.cost(Wm[k], X[k]), rtol=1e-14)


def test_cost_of_a_single_scenario_matches_a_scalar_transcription():
    # Hand-written scalar cost at one W and x for each DGP (Appendix B).
    x1, x2, x3, x4, x5, x6 = 0.1, 0.2, 0.3, 0.1, 0.1, 0.5
    W1, W2, W3, W4, W5 = 1.3, -0.4, 2.2, 0.9, 1.7
    s = 0.8
    x0 = 0.2
    sp = lambda v: math.log1p(math.exp(v))  # noqa: E731
    k1, k2 = 0.45 + 0.80 * x2 + 0.18 * x0, 0.40 + 0.75 * x4 + 0.15 * x0
    dgp1 = (
        2800 * W2**2 * (1 + 0.65 * W1)
        + 1600 * W4**2 * (1 + 0.45 * W5)
        + 10000 * sp(W3 - k1) ** 2
        + 6000 * sp(W5 - k2) ** 2
        + 2500 * (1 - 0.38 * x3) * 0.0  # (W2)_+ = 0
        + 1800 * (1 - 0.30 * x5) * W4**1.6
        + 14000 * s * max(0.04, 0.22 - 0.12 * x6 + 0.06 * W1 + 0.04 * W5)
        + 9500 * (x1**2 + 0.85 * x2**2 + 0.72 * x3**2 + 0.68 * x4**2 + 0.60 * x5**2)
        + 6500 * x6**2
        + 2800 * (x1 + x2) * x6
        + 2200 * (x3 + x4) * x6
    )
    W = np.array([[W1, W2, W3, W4, W5]])
    x = np.array([x1, x2, x3, x4, x5, x6])
    assert DGP1().cost(W, x)[0] == pytest.approx(dgp1, rel=1e-13)
    V1, V2, V3, V4, V5 = 2.1, 1.4, 0.3, 1.1, 0.2
    kh1, kh2 = 0.50 + 0.70 * x1 + 0.20 * x0, 0.45 + 0.65 * x3 + 0.18 * x0
    ks1, ks2 = 0.60 + 0.80 * x2 + 0.25 * x0, 0.55 + 0.75 * x4 + 0.22 * x0
    dgp2 = (
        3500 * max(V1 - kh1, 0) ** 2
        + 2800 * max(V2 - kh2, 0) ** 2
        + 12000 * max(ks1 - V3, 0) ** 1.5
        + 9000 * max(ks2 - V5, 0) ** 1.5
        + 1800 * (1 - 0.40 * x1) * V1**1.6
        + 1400 * (1 - 0.35 * x3) * V4**1.4
        + 8000 * s * max(0.05, 0.18 - 0.10 * x6 + 0.05 * V2**2 + 0.03 * V5**2)
        + 7500 * (x1**2 + 0.80 * x2**2 + 0.65 * x3**2 + 0.60 * x4**2 + 0.55 * x5**2)
        + 5000 * x6**2
        + 2200 * (x1 + x2) * x6
    )
    V = np.array([[V1, V2, V3, V4, V5]])
    assert DGP2().cost(V, x)[0] == pytest.approx(dgp2, rel=1e-13)


BAD_X = [
    ((0.1, 0.1, 0.1, 0.1, 0.1), "x"),  # wrong shape
    ((0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1), "x"),
    ((0.8, 0.0, 0.0, 0.0, 0.0, 0.5), "x"),  # above the box
    ((0.5, 0.5, 0.0, 0.0, 0.0, 0.5), "x"),  # sum above 0.85
    ((-0.01, 0.0, 0.0, 0.0, 0.0, 0.5), "x"),
    ((0.1, 0.1, np.nan, 0.1, 0.1, 0.5), "x"),
    ((0.1, 0.1, 0.1, 0.1, 0.1, np.inf), "x"),
]


@pytest.mark.parametrize(("x", "name"), BAD_X)
def test_transform_and_sample_reject_bad_decisions_naming_x(problem, x, name):
    z = np.zeros((3, 5))
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        problem.transform(np.array(x), z)
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        problem.sample(np.array(x), 3, np.random.default_rng(0))


def test_transform_rejects_a_batch_of_decisions_and_bad_normals(problem):
    x = np.array(TABLE_X[0])
    with pytest.raises(ValueError, match=r"\bx\b"):
        problem.transform(np.stack([x, x]), np.zeros((3, 5)))
    with pytest.raises(ValueError, match=r"\bz\b"):
        problem.transform(x, np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"\bz\b"):
        problem.transform(x, np.zeros(5))
    with pytest.raises(ValueError, match=r"\bz\b"):
        problem.transform_batch(np.stack([x, x]), np.zeros((3, 4, 5)))
    with pytest.raises(ValueError, match=r"\bx\b"):
        problem.transform_batch(np.stack([x, x])[None], np.zeros((1, 4, 5)))


@pytest.mark.parametrize("n", [2.5, -1, "3", True, None])
def test_sample_rejects_counts_that_are_not_non_negative_integers(problem, n):
    x = np.array(TABLE_X[0])
    with pytest.raises(ValueError, match=r"\bn\b"):
        problem.sample(x, n, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"\bn_each\b"):
        problem.sample_batch(x[None], n, np.random.default_rng(0))


def test_sample_accepts_numpy_integers_and_zero(problem):
    x = np.array(TABLE_X[0])
    assert problem.sample(x, np.int64(3), np.random.default_rng(0)).shape == (3, 5)
    assert problem.sample(x, 0, np.random.default_rng(0)).shape == (0, 5)


def test_cost_rejects_nan_decisions_and_wrong_widths(problem):
    W = np.ones((4, 5))
    with pytest.raises(ValueError, match=r"\bx\b"):
        problem.cost(W, np.full(6, np.nan))
    with pytest.raises(ValueError, match=r"\bx\b"):
        problem.cost(W, np.zeros(5))
    with pytest.raises(ValueError, match=r"\bW\b"):
        problem.cost(np.ones((4, 4)), np.zeros(6))


def test_get_problem_rejects_unknown_names_and_loads_import_paths():
    with pytest.raises(ValueError, match="unknown problem"):
        get_problem("dgp3")
    by_path = get_problem("acfs_cli.problems.dgp2:DGP2")
    assert isinstance(by_path, Problem) and by_path.name == "acfs_cli.problems.dgp2:DGP2"
    x, z = np.full(6, 0.1), np.random.default_rng(0).standard_normal((4, 5))
    np.testing.assert_array_equal(by_path.transform(x, z), DGP2().transform(x, z))
    with pytest.raises(ValueError, match="cannot import"):
        get_problem("acfs_cli.problems.dgp2:Nope")
    with pytest.raises(ValueError, match="cannot be built: TypeError"):
        get_problem("dgp1", no_such_parameter=1)


def test_sampling_is_identical_in_a_fresh_process():
    # Nothing global: the same seed gives the same scenarios in another interpreter.
    code = (
        "import numpy as np; from acfs_cli.problems import get_problem;"
        "p = get_problem('dgp1');"
        "print(float(p.sample(np.array([0.1,0.2,0.3,0.1,0.1,0.5]), 3, "
        "np.random.default_rng(99)).sum()).hex())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    here = DGP1().sample(np.array([0.1, 0.2, 0.3, 0.1, 0.1, 0.5]), 3, np.random.default_rng(99))
    assert float.fromhex(out.stdout.strip()) == float(here.sum())
