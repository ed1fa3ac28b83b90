"""The spectral-risk estimator (paper eq. (1)-(2), DESIGN.md section 1) against brute force.

CVaR is checked against a direct minimisation of the Rockafellar-Uryasev objective
F(tau) = tau + mean((c - tau)_+) / (1 - alpha): exactly at every sample point (F is convex and
piecewise linear with kinks at the samples, so its minimum is attained at one of them), and
with scipy's bounded scalar minimiser; and against the spectral form
CVaR = (1 / (1 - alpha)) * integral_alpha^1 VaR_u du on the empirical distribution.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from acfs_cli.core.risk import check_risk_params, influence, search_level, spectral_risk


def ru_objective(c, tau, alpha):
    return tau + np.maximum(c[:, None] - np.atleast_1d(tau)[None, :], 0).mean(axis=0) / (1 - alpha)


def cvar_at_sample_points(c, alpha):
    """min over tau in {c_i} of the RU objective (the exact minimum)."""
    return float(ru_objective(c, np.unique(c), alpha).min())


def cvar_spectral(c, alpha):
    """(1 / (1 - alpha)) * integral_alpha^1 of the empirical quantile function."""
    s = np.sort(c)
    n = len(s)
    lo = np.arange(n) / n  # the i-th order statistic is the quantile on (i/n, (i+1)/n]
    hi = np.arange(1, n + 1) / n
    overlap = np.clip(hi - np.maximum(lo, alpha), 0, None)
    return float((s * overlap).sum() / (1 - alpha))


SAMPLES = {
    "n1": np.array([3.5]),
    "n2": np.array([1.0, 4.0]),
    "n3": np.array([2.0, -1.0, 7.0]),
    "n19": np.random.default_rng(1).normal(size=19),
    "n20": np.random.default_rng(2).normal(size=20),
    "n21": np.random.default_rng(3).normal(size=21),
    "ties": np.random.default_rng(4).integers(0, 4, size=37).astype(float),
    "all_equal": np.full(12, 2.5),
    "heavy": np.random.default_rng(5).standard_t(1.5, size=333) * 1e4,
    "n1000": np.random.default_rng(6).lognormal(size=1000),
}


@pytest.mark.parametrize("alpha", [0.5, 0.9, 0.95, 0.975, 0.99, 0.05])
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_cvar_is_the_minimum_of_the_rockafellar_uryasev_objective(name, alpha):
    c = SAMPLES[name]
    _, ec, cvar = spectral_risk(c, 0.7, alpha)
    exact = cvar_at_sample_points(c, alpha)
    scale = max(1.0, np.abs(c).max())
    assert cvar == pytest.approx(exact, rel=1e-12, abs=1e-12 * scale)
    assert cvar == pytest.approx(cvar_spectral(c, alpha), rel=1e-12, abs=1e-12 * scale)
    # No tau does better, by a continuous minimiser over the whole sample range.
    res = optimize.minimize_scalar(
        lambda t: float(ru_objective(c, t, alpha)[0]),
        bounds=(c.min() - 1, c.max() + 1),
        method="bounded",
        options={"xatol": 1e-12},
    )
    assert cvar <= res.fun + 1e-9 * scale
    assert ec == pytest.approx(c.mean(), rel=1e-14, abs=1e-14 * scale)


def test_j_is_mean_plus_lam_times_cvar():
    c = SAMPLES["n1000"]
    for lam in (0.0, 0.5, 0.7, 0.9, 3.0):
        J, ec, cvar = spectral_risk(c, lam, 0.95)
        assert J == pytest.approx(c.mean() + lam * cvar_at_sample_points(c, 0.95), rel=1e-13)


def test_cvar_of_the_largest_sample_when_the_tail_holds_one_point():
    # n (1 - alpha) = 1: CVaR is the maximum.
    c = np.random.default_rng(7).normal(size=20)
    assert spectral_risk(c, 1.0, 0.95)[2] == pytest.approx(c.max(), rel=1e-12)


@pytest.mark.parametrize("n", [4, 10, 20, 33, 59])
def test_the_search_level_weighs_the_costliest_tail_rows_where_alpha_holds_fewer(n):
    # 20 rows at alpha 0.95 hold one row beyond the quantile; at the search's level with
    # three tail rows, CVaR is the mean of the three costliest rows (sorted by hand)
    c = np.random.default_rng(n).lognormal(size=n)
    level = search_level(0.95, n, 3)
    assert level == pytest.approx(1 - 3 / n)
    assert spectral_risk(c, 0.7, level)[2] == pytest.approx(np.sort(c)[-3:].mean(), rel=1e-12)


def test_the_search_level_is_alpha_where_the_sample_already_holds_the_tail_rows():
    assert search_level(0.95, 60, 3) == 0.95  # three rows beyond 0.95 already
    assert search_level(0.95, 500, 3) == 0.95
    assert search_level(0.95, 20, 0) == 0.95  # no tail rows asked for
    assert search_level(0.9, 2, 3) == 0.5  # at most n - 1 rows: one of two


def test_batch_axis_gives_the_same_as_a_loop():
    rng = np.random.default_rng(8)
    C = rng.lognormal(size=(4, 3, 57))
    C[1, 2, :10] = C[1, 2, 0]  # ties in one row
    J, ec, cvar = spectral_risk(C, 0.7, 0.95)
    assert J.shape == ec.shape == cvar.shape == (4, 3)
    for i in range(4):
        for j in range(3):
            Jl, ecl, cvl = spectral_risk(C[i, j], 0.7, 0.95)
            assert (J[i, j], ec[i, j], cvar[i, j]) == (Jl, ecl, cvl)


def test_one_dimensional_input_returns_python_floats():
    out = spectral_risk([1.0, 2.0, 3.0], 0.7, 0.95)
    assert all(type(v) is float for v in out)


@pytest.mark.parametrize("alpha", [0.9, 0.95])
def test_large_sample_cvar_matches_closed_forms(alpha):
    n = 400_000
    rng = np.random.default_rng(9)
    # Normal: CVaR = mu + s phi(Phi^{-1}(alpha)) / (1 - alpha).
    mu, s = 2.0, 3.0
    c = rng.normal(mu, s, size=n)
    truth = mu + s * stats.norm.pdf(stats.norm.ppf(alpha)) / (1 - alpha)
    se = influence(c, 0.0, alpha).std() / math.sqrt(n)  # lam = 0: SE of the mean only
    cvar = spectral_risk(c, 1.0, alpha)[2]
    psi = influence(c, 1.0, alpha) - c  # influence values of CVaR alone
    assert abs(cvar - truth) < 5 * psi.std() / math.sqrt(n)
    assert se > 0
    # Exponential(1): VaR = -log(1 - alpha), CVaR = VaR + 1.
    e = rng.exponential(size=n)
    cvar = spectral_risk(e, 1.0, alpha)[2]
    psi = influence(e, 1.0, alpha) - e
    assert abs(cvar - (1 - math.log(1 - alpha))) < 5 * psi.std() / math.sqrt(n)


def test_influence_values_average_to_j():
    c = SAMPLES["heavy"]
    J = spectral_risk(c, 0.7, 0.95)[0]
    assert influence(c, 0.7, 0.95).mean() == pytest.approx(J, rel=1e-12)


@pytest.mark.parametrize("lam", [-0.1, -1, np.nan, np.inf, "abc", None])
def test_bad_lambda_raises_naming_lam(lam):
    with pytest.raises(ValueError, match=r"\blam\b"):
        spectral_risk([1.0, 2.0], lam, 0.95)
    with pytest.raises(ValueError, match=r"\blam\b"):
        check_risk_params(lam, 0.95)


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.5, 1.5, np.nan, "x", None])
def test_alpha_outside_the_open_unit_interval_raises_naming_alpha(alpha):
    with pytest.raises(ValueError, match=r"\balpha\b"):
        spectral_risk([1.0, 2.0], 0.7, alpha)
    with pytest.raises(ValueError, match=r"\balpha\b"):
        influence([1.0, 2.0], 0.7, alpha)


def test_empty_costs_raise():
    with pytest.raises(ValueError, match="costs"):
        spectral_risk(np.empty(0), 0.7, 0.95)
    with pytest.raises(ValueError, match="costs"):
        spectral_risk(np.empty((3, 0)), 0.7, 0.95)
