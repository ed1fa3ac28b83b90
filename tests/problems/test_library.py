"""The problem library: exact J against Monte Carlo from each problem's own simulator, the
stated optima against perturbations and independent optimisers, the protocol's shapes and
vectorisation rules, parameter validation, the sample-only simulator's stream use, the two
separated minima of huff-location and the 50-dimensional pricing problem.

Monte Carlo checks use fixed seeds and the influence-function standard error of
``acfs_cli.core.risk``; everything else compares against computations written independently here
(textbook formulas, adaptive quadrature, other scipy optimisers, grids).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from acfs_cli.core.risk import influence, spectral_risk
from acfs_cli.problems.library import (
    LIBRARY,
    ErlangA,
    HuffLocation,
    ImpactPortfolio,
    PerformativePricing,
    PriceNewsvendor,
    StrategicClassification,
    TandemMM1,
)

LAM, ALPHA = 0.7, 0.95
LAMS = (0.0, 0.5, 0.7, 0.9)
NAMES = sorted(LIBRARY)

#: One shared instance per problem, so optima are computed once per (lam, alpha).
PROBLEMS = {name: cls() for name, cls in LIBRARY.items()}


def _draw(problem, x, n: int, seed: int) -> np.ndarray:
    """W from the problem's own simulator: transform of normals, else sample."""
    rng = np.random.default_rng(seed)
    if hasattr(problem, "transform"):
        return problem.transform(x, rng.standard_normal((n, problem.dim_w)))
    return problem.sample(x, n, rng)


def _mc(problem, x, n: int, seed: int, lam=LAM, alpha=ALPHA) -> tuple[float, float]:
    c = problem.cost(_draw(problem, x, n, seed), x)
    J = spectral_risk(c, lam, alpha)[0]
    se = influence(c, lam, alpha).std(ddof=1) / np.sqrt(c.size)
    return J, se


def _other_decision(name: str, problem) -> np.ndarray:
    """A third feasible decision, away from x0 and the optimum."""
    fixed = {
        "tandem-mm1": [1.7, 6.0],  # station 1 near saturation: heavy sojourn tail
        "price-newsvendor": [10.0, 30.0],
        "strategic-classification": [3.0, -3.0, 0.5],
        "erlang-a": [2.0, 1.0],  # overloaded: abandonment keeps the queue finite
    }
    if name in fixed:
        return np.array(fixed[name])
    if name == "huff-location":
        return problem.local_minima(LAM, ALPHA)[1][0]
    u = np.linspace(0.15, 0.85, problem.dim_x)
    if hasattr(problem, "design"):
        return problem.design(u)
    lo, hi = np.array(problem.bounds).T
    return lo + u * (hi - lo)


def _random_feasible(problem, k: int, seed: int) -> np.ndarray:
    u = np.random.default_rng(seed).random((k, problem.dim_x))
    if hasattr(problem, "design"):
        return problem.design(u)
    lo, hi = np.array(problem.bounds).T
    return lo + u * (hi - lo)


def _feasible(problem, x, tol=1e-9) -> bool:
    lo, hi = np.array(problem.bounds).T
    ok = np.all(x >= lo - tol) and np.all(x <= hi + tol)
    if getattr(problem, "A", None) is not None:
        ok = ok and np.all(problem.A @ x <= problem.b + tol)
    return bool(ok)


# -- the registry and the protocol -------------------------------------------------------------
def test_registry_lists_six_documented_problems_under_their_names():
    assert len(LIBRARY) >= 6
    for name, cls in LIBRARY.items():
        p = PROBLEMS[name]
        assert cls.name == name and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name)
        assert isinstance(cls.source, str) and re.search(r"\(\d{4}\)", cls.source)
        assert cls.__doc__ and "Exact J" in cls.__doc__ and "Parameters" in cls.__doc__
        assert p.vectorized is True
        assert len(p.bounds) == p.dim_x and all(np.isfinite(p.bounds).ravel())
        assert hasattr(p, "transform") or hasattr(p, "sample")
        assert p.x0.shape == (p.dim_x,) and _feasible(p, p.x0)
    sample_only = [n for n in LIBRARY if not hasattr(PROBLEMS[n], "transform")]
    assert sample_only == ["tandem-mm1"]
    coupled = [n for n in LIBRARY if getattr(PROBLEMS[n], "A", None) is not None]
    assert coupled == ["impact-portfolio"]


@pytest.mark.parametrize("name", NAMES)
def test_scenarios_and_costs_follow_the_shape_and_broadcast_rules(name):
    p = PROBLEMS[name]
    xs = np.stack([p.x0, p.optimum(LAM, ALPHA)[0], _other_decision(name, p)])
    n = 7
    W = _draw(p, p.x0, n, seed=1)
    assert W.shape == (n, p.dim_w) and np.all(np.isfinite(W))
    c = p.cost(W, p.x0)
    assert c.shape == (n,) and np.all(np.isfinite(c))
    # k decisions re-costed on one W: (n, dim_w) with (k, dim_x) -> (k, n)
    ck = p.cost(W, xs)
    assert ck.shape == (3, n)
    for i in range(3):
        np.testing.assert_allclose(ck[i], p.cost(W, xs[i]), rtol=1e-13, atol=1e-12)
    # one scenario set per decision: (m, n, dim_w) with (m, dim_x) -> (m, n)
    if hasattr(p, "transform_batch"):
        Z = np.random.default_rng(2).standard_normal((3, n, p.dim_w))
        Wb = p.transform_batch(xs, Z)
        assert Wb.shape == (3, n, p.dim_w)
        for i in range(3):
            np.testing.assert_allclose(Wb[i], p.transform(xs[i], Z[i]), rtol=1e-13, atol=1e-12)
    else:
        Wb = np.stack([_draw(p, x, n, seed=3) for x in xs])
    cb = p.cost(Wb, xs)
    assert cb.shape == (3, n)
    for i in range(3):
        np.testing.assert_allclose(cb[i], p.cost(Wb[i], xs[i]), rtol=1e-13, atol=1e-12)
    # more leading axes
    assert p.cost(Wb[None], xs[None]).shape == (1, 3, n)
    # exact_J over leading axes
    Jb = p.exact_J(xs.reshape(3, 1, p.dim_x), LAM, ALPHA)
    assert np.shape(Jb) == (3, 1)
    for i in range(3):
        assert Jb[i, 0] == pytest.approx(p.exact_J(xs[i], LAM, ALPHA), rel=1e-12, abs=1e-12)
    assert (
        p.transform(p.x0, np.zeros((0, p.dim_w))).shape == (0, p.dim_w)
        if hasattr(p, "transform")
        else p.sample(p.x0, 0, np.random.default_rng(0)).shape == (0, p.dim_w)
    )


@pytest.mark.parametrize("name", sorted(set(NAMES) - {"tandem-mm1"}))
def test_transform_is_deterministic_and_finite_for_extreme_normals(name):
    p = PROBLEMS[name]
    z = np.array([np.full(p.dim_w, v) for v in (-30.0, -8.0, 0.0, 8.0, 30.0)])
    for x in (p.x0, p.optimum(LAM, ALPHA)[0]):
        W = p.transform(x, z)
        assert W.shape == z.shape and np.all(np.isfinite(W))
        assert np.all(np.isfinite(p.cost(W, x)))
        np.testing.assert_array_equal(W, p.transform(x, z.copy()))
    rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
    np.testing.assert_array_equal(p.sample(p.x0, 5, rng_a), p.sample(p.x0, 5, rng_b))


# -- exact J against Monte Carlo -------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_exact_J_matches_monte_carlo_of_the_problems_own_simulator(name):
    p = PROBLEMS[name]
    decisions = [p.x0, p.optimum(LAM, ALPHA)[0], _other_decision(name, p)]
    for k, x in enumerate(decisions):
        J_mc, se = _mc(p, x, 300_000, seed=100 + k)
        J = p.exact_J(x, LAM, ALPHA)
        assert abs(J_mc - J) <= 4.0 * se, (name, k, J_mc, J, se)


@pytest.mark.parametrize("lam", [0.0, 0.9])
def test_exact_J_matches_monte_carlo_at_other_risk_weights(lam):
    for name in NAMES:
        p = PROBLEMS[name]
        x = p.optimum(lam, ALPHA)[0]
        J_mc, se = _mc(p, x, 200_000, seed=7, lam=lam)
        assert abs(J_mc - p.exact_J(x, lam, ALPHA)) <= 4.0 * se, (name, lam)


def test_exact_J_matches_monte_carlo_at_a_low_alpha():
    for name in NAMES:
        p = PROBLEMS[name]
        J_mc, se = _mc(p, p.x0, 200_000, seed=11, lam=0.5, alpha=0.3)
        assert abs(J_mc - p.exact_J(p.x0, 0.5, 0.3)) <= 4.0 * se, name


# -- independent computations of the closed forms ------------------------------------------
def _cvar_by_quantile_integral(quantile, alpha):
    """CVaR_alpha = (1 / (1 - alpha)) int_alpha^1 Q(u) du, adaptive quadrature."""
    val, _ = integrate.quad(quantile, alpha, 1.0, limit=200, epsabs=1e-12, epsrel=1e-12)
    return val / (1.0 - alpha)


def test_tandem_cvar_agrees_with_textbook_hypoexponential_quadrature():
    p = PROBLEMS["tandem-mm1"]
    for x in ([1.7, 6.0], [3.0, 3.0], [3.0, 3.0 + 1e-9]):
        a, b = np.asarray(x) - p.arrival
        if abs(a - b) > 1e-6:

            def surv(t, a=a, b=b):
                return (b * np.exp(-a * t) - a * np.exp(-b * t)) / (b - a)
        else:

            def surv(t, a=a):
                return (1.0 + a * t) * np.exp(-a * t)

        t = optimize.brentq(lambda s: surv(s) - (1 - ALPHA), 0.0, 200.0, xtol=1e-14)
        tail, _ = integrate.quad(surv, t, np.inf, epsabs=1e-13)
        K = (p.cost_coef * np.asarray(x) ** 2).sum()
        J = (1 + LAM) * K + 1 / a + 1 / b + LAM * (t + tail / (1 - ALPHA))
        assert p.exact_J(x, LAM, ALPHA) == pytest.approx(J, rel=1e-10)


def test_tandem_risk_neutral_optimum_is_the_root_of_each_stations_cubic():
    # lam = 0 separates: c_i mu^2 + 1/(mu - lambda) has derivative 2 c_i mu - 1/(mu - lambda)^2.
    p = PROBLEMS["tandem-mm1"]
    x_star, _ = p.optimum(0.0, ALPHA)
    for i, c in enumerate(p.cost_coef):
        mu = optimize.brentq(lambda m, c=c: 2 * c * m - 1 / (m - p.arrival) ** 2, 1.5001, 8.0)
        assert x_star[i] == pytest.approx(mu, abs=1e-7)


def test_newsvendor_J_agrees_with_quantile_integration():
    p = PROBLEMS["price-newsvendor"]
    for price, q in ([8.0, 16.0], [10.0, 30.0], [5.0, 2.0]):
        y = p.intercept - p.slope * price
        dist = stats.lognorm(s=p.sigma, scale=y * np.exp(-0.5 * p.sigma**2))

        def loss_quantile(u, price=price, q=q, dist=dist):
            # the loss decreases in demand: its u-quantile is at demand level 1 - u
            return (p.c - p.s) * q - (price - p.s) * min(dist.ppf(1.0 - u), q)

        mean, _ = integrate.quad(loss_quantile, 0.0, 1.0, limit=200, epsabs=1e-11)
        J = mean + LAM * _cvar_by_quantile_integral(loss_quantile, ALPHA)
        assert p.exact_J([price, q], LAM, ALPHA) == pytest.approx(J, rel=1e-8, abs=1e-8)


def test_newsvendor_order_quantity_is_the_critical_fractile_at_each_price():
    p = PROBLEMS["price-newsvendor"]
    for price in (5.0, 8.0, 11.0):
        for lam in (0.0, LAM):
            q = p.best_quantity(price, lam, ALPHA)
            res = optimize.minimize_scalar(
                lambda v, price=price, lam=lam: p.exact_J([price, v], lam, ALPHA),
                bounds=(0.0, p.q_max),
                method="bounded",
                options={"xatol": 1e-10},
            )
            assert p.exact_J([price, q], lam, ALPHA) <= res.fun + 1e-10
            assert q == pytest.approx(res.x, abs=1e-4)
    # risk neutral: the classical fractile (p - c)/(p - s)
    q = p.best_quantity(8.0, 0.0, ALPHA)
    y = p.intercept - p.slope * 8.0
    frac = stats.lognorm(s=p.sigma, scale=y * np.exp(-0.5 * p.sigma**2)).cdf(q)
    assert frac == pytest.approx((8.0 - p.c) / (8.0 - p.s), rel=1e-12)


def test_gaussian_and_laplace_closed_forms_agree_with_scipy_distributions():
    pp = PROBLEMS["performative-pricing"]
    x = _other_decision("performative-pricing", pp)
    m = -((x - pp.unit_cost) * (pp.mu0 - pp.E @ x)).sum()
    s = np.sqrt((x - pp.unit_cost) @ pp.Sigma @ (x - pp.unit_cost))
    cvar = _cvar_by_quantile_integral(stats.norm(m, s).ppf, ALPHA)
    assert pp.exact_J(x, LAM, ALPHA) == pytest.approx(m + LAM * cvar, rel=1e-9)

    pf = PROBLEMS["impact-portfolio"]
    x = pf.x0
    m = -pf.risk_free - x @ (pf.mu - pf.risk_free) + x @ (pf.impact * x)
    s = np.sqrt(x @ pf.Sigma @ x)
    lap = stats.laplace(loc=m, scale=s / np.sqrt(2.0))
    for alpha in (0.3, ALPHA):
        J = m + LAM * _cvar_by_quantile_integral(lap.ppf, alpha)
        assert pf.exact_J(x, LAM, alpha) == pytest.approx(J, rel=1e-9)


def test_strategic_classification_J_agrees_with_adaptive_quadrature():
    p = PROBLEMS["strategic-classification"]
    for theta in (p.x0, np.array([3.0, -3.0, 0.5])):
        a_pos, a_neg, b = p.margin_law(theta)
        ridge = 0.5 * p.reg * theta @ theta
        comps = [(p.prior, a_pos), (1 - p.prior, a_neg)]

        def tail_prob(u, comps=comps, b=b):
            return sum(w * stats.norm.cdf(u, a, b) for w, a in comps)

        u_t = optimize.brentq(lambda u: tail_prob(u) - (1 - ALPHA), -200, 200, xtol=1e-13)
        t = np.logaddexp(0, -u_t)
        mean = excess = 0.0
        for w, a in comps:

            def loss_density(u, a=a, b=b):
                return np.logaddexp(0, -u) * stats.norm.pdf(u, a, b)

            def excess_density(u, a=a, b=b, t=t):
                return (np.logaddexp(0, -u) - t) * stats.norm.pdf(u, a, b)

            mean += w * integrate.quad(loss_density, -np.inf, np.inf)[0]
            excess += w * integrate.quad(excess_density, -np.inf, u_t)[0]
        J = mean + LAM * (t + excess / (1 - ALPHA)) + (1 + LAM) * ridge
        assert p.exact_J(theta, LAM, ALPHA) == pytest.approx(J, rel=1e-8)
    # theta = 0: every loss is log 2
    assert p.exact_J(np.zeros(3), LAM, ALPHA) == pytest.approx((1 + LAM) * np.log(2), rel=1e-14)


def test_huff_J_agrees_with_lognormal_quantile_integration():
    p = PROBLEMS["huff-location"]
    for x in ([5.0, 5.0], [7.0, 6.0], [1.0, 9.0]):
        mu = p.mean_demand(np.asarray(x))
        sig2 = np.log1p(p.theta / mu)
        dist = stats.lognorm(s=np.sqrt(sig2), scale=mu * np.exp(-0.5 * sig2))
        rent = p.rent(np.asarray(x))

        def loss_quantile(u, dist=dist, rent=rent):
            return rent - p.margin * dist.ppf(1.0 - u)

        assert dist.var() == pytest.approx(p.theta * mu, rel=1e-10)
        J = rent - p.margin * mu + LAM * _cvar_by_quantile_integral(loss_quantile, ALPHA)
        assert p.exact_J(x, LAM, ALPHA) == pytest.approx(J, rel=1e-9)


def test_erlang_a_law_agrees_with_the_generator_and_J_with_sorted_atoms():
    p = PROBLEMS["erlang-a"]
    for x in (p.x0, np.array([2.0, 1.0]), np.array([9.0, 3.5])):
        lam = p.arrival_rate(x[0])
        K = 400  # a far longer chain than the problem's

        def death(k, x=x):
            return min(k, p.s) * x[1] + max(k - p.s, 0) * p.theta

        # global balance pi G = 0 by least squares (accurate to ~1e-12 absolute)
        G = np.zeros((K + 1, K + 1))
        for k in range(K + 1):
            if k < K:
                G[k, k + 1] = lam
            if k > 0:
                G[k, k - 1] = death(k)
            G[k, k] = -G[k].sum()
        A = np.vstack([G.T, np.ones(K + 1)])
        pi_ls = np.linalg.lstsq(A, np.r_[np.zeros(K + 1), 1.0], rcond=None)[0]
        np.testing.assert_allclose(p.stationary(x), pi_ls[: p.K + 1], rtol=0, atol=1e-11)
        # cut equations pi_k lambda = pi_{k+1} d_{k+1}, in plain floats, for the J check
        w = [1.0]
        for k in range(1, K + 1):
            w.append(w[-1] * lam / death(k))
        pi = np.array(w) / sum(w)
        cost = np.array([p.cost(np.array([[float(k)]]), x)[0] for k in range(K + 1)])
        order = np.argsort(cost, kind="stable")
        c, w = cost[order], pi[order]
        # CVaR = (1/(1 - alpha)) * integral of the quantile function over (alpha, 1)
        upper = np.cumsum(w)
        lower = upper - w
        mass_above = np.clip(upper - ALPHA, 0, None) - np.clip(lower - ALPHA, 0, None)
        cvar = (mass_above * c).sum() / (1 - ALPHA)
        J = (w * c).sum() + LAM * cvar
        assert p.exact_J(x, LAM, ALPHA) == pytest.approx(J, rel=1e-11)


def test_erlang_a_transform_is_the_exact_inverse_cdf_for_many_decisions_at_once():
    p = PROBLEMS["erlang-a"]
    X = _random_feasible(p, 5, seed=4)
    Z = np.random.default_rng(5).standard_normal((5, 50, 1))
    Z[:, :3, 0] = (-40.0, 0.0, 40.0)
    Q = p.transform_batch(X, Z)[..., 0]
    for i in range(5):
        cdf = np.cumsum(p.stationary(X[i]))
        u = stats.norm.cdf(Z[i, :, 0])
        expected = np.minimum(np.searchsorted(cdf, u, side="left"), p.K)
        np.testing.assert_array_equal(Q[i], expected)
    assert Q.min() >= 0 and Q.max() <= p.K and np.all(Q == np.round(Q))


# -- optima ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_optimum_is_feasible_consistent_and_cached(name):
    p = PROBLEMS[name]
    for lam in LAMS:
        x_star, J_star = p.optimum(lam, ALPHA)
        assert x_star.shape == (p.dim_x,) and _feasible(p, x_star)
        assert J_star == p.exact_J(x_star, lam, ALPHA)
        assert J_star < p.exact_J(p.x0, lam, ALPHA)
        x_again, J_again = p.optimum(lam, ALPHA)
        np.testing.assert_array_equal(x_again, x_star)
        assert J_again == J_star
    # a fresh instance computes the same optimum (deterministic)
    x_new, J_new = type(p)().optimum(LAM, ALPHA)
    assert J_new == pytest.approx(p.optimum(LAM, ALPHA)[1], rel=1e-12, abs=1e-12)


def _feasible_directions(p, x_star, seed):
    """Unit directions d with x_star + h d feasible for small h: towards random points of X,
    random box directions with the active bounds respected, and for coupled constraints the
    exchanges e_j - e_i that keep A x <= b."""
    rng = np.random.default_rng(seed)
    dirs = list(_random_feasible(p, 20, seed) - x_star)
    lo, hi = np.array(p.bounds).T
    span = hi - lo
    for _ in range(20):
        d = rng.standard_normal(p.dim_x) * span
        d[(x_star <= lo + 1e-9 * span) & (d < 0)] *= -1
        d[(x_star >= hi - 1e-9 * span) & (d > 0)] *= -1
        dirs.append(d)
    if getattr(p, "A", None) is not None:
        eye = np.eye(p.dim_x)
        dirs += [eye[j] - eye[i] for i in range(p.dim_x) for j in range(p.dim_x) if i != j]
    return [d / np.linalg.norm(d) for d in dirs if np.linalg.norm(d) > 0]


@pytest.mark.parametrize("name", NAMES)
def test_no_feasible_perturbation_of_the_optimum_decreases_J(name):
    p = PROBLEMS[name]
    lo, hi = np.array(p.bounds).T
    scale = float(np.max(hi - lo))
    for lam in (0.0, LAM):
        x_star, J_star = p.optimum(lam, ALPHA)
        tol = 1e-10 * max(1.0, abs(J_star))
        for d in _feasible_directions(p, x_star, seed=5):
            for h in (1e-2, 1e-4, 1e-6):
                x = x_star + h * scale * d
                if not _feasible(p, x, tol=0.0):
                    continue
                assert p.exact_J(x, lam, ALPHA) >= J_star - tol, (name, lam, h, d)


def _independent_minimum(p, lam):
    """Lowest J found by optimisers other than the library's, from seeded feasible starts."""
    f = lambda v: p.exact_J(v, lam, ALPHA)  # noqa: E731
    best = np.inf
    starts = _random_feasible(p, 4, seed=21)
    if getattr(p, "A", None) is not None:
        cons = [optimize.LinearConstraint(p.A, -np.inf, p.b)]
        for s in starts[:2]:
            res = optimize.minimize(
                f, s, method="trust-constr", bounds=p.bounds, constraints=cons,
                options={"gtol": 1e-12, "xtol": 1e-14, "maxiter": 3000},
            )  # fmt: skip
            if _feasible(p, res.x, tol=1e-12):
                best = min(best, res.fun)
        return best
    if p.dim_x <= 3:
        for s in starts:
            res = optimize.minimize(
                f, s, method="Nelder-Mead", bounds=p.bounds,
                options={"xatol": 1e-10, "fatol": 1e-13, "maxiter": 6000},
            )  # fmt: skip
            best = min(best, res.fun)
    else:
        for s in starts[:2]:
            res = optimize.minimize(
                f, s, method="SLSQP", bounds=p.bounds, options={"ftol": 1e-14, "maxiter": 2000}
            )
            best = min(best, res.fun)
    if p.dim_x == 2:  # and a fine grid
        lo, hi = np.array(p.bounds).T
        g = [np.linspace(lo[i], hi[i], 301) for i in range(2)]
        G = np.stack(np.meshgrid(*g, indexing="ij"), axis=-1)
        best = min(best, float(np.min(p.exact_J(G, lam, ALPHA))))
    elif p.dim_x == 3:
        lo, hi = np.array(p.bounds).T
        g = [np.linspace(lo[i], hi[i], 17) for i in range(3)]
        G = np.stack(np.meshgrid(*g, indexing="ij"), axis=-1).reshape(-1, 3)
        best = min(best, float(np.min(p.exact_J(G, lam, ALPHA))))
    return best


@pytest.mark.filterwarnings("ignore:delta_grad == 0.0")
@pytest.mark.parametrize("name", NAMES)
def test_independent_optimisers_find_no_lower_J(name):
    p = PROBLEMS[name]
    x_star, J_star = p.optimum(LAM, ALPHA)
    found = _independent_minimum(p, LAM)
    assert found >= J_star - 1e-9 * max(1.0, abs(J_star))


def test_stated_optima_at_the_headline_setting():
    """The values quoted in the docstrings and the report (alpha 0.95, lam 0.7)."""
    expected = {
        "tandem-mm1": 10.066376855683464,
        "price-newsvendor": -81.32202762816887,
        "performative-pricing": -242.19824057262838,
        "impact-portfolio": -10.179162340925208,
        "strategic-classification": 1.0728645264010555,
        "huff-location": -37.80090501170585,
        "erlang-a": -49.2310422398772,
    }
    for name, J in expected.items():
        assert PROBLEMS[name].optimum(LAM, ALPHA)[1] == pytest.approx(J, rel=1e-8)


# -- the two-minima problem ----------------------------------------------------------------
def test_huff_location_has_two_separated_minima_and_the_global_one_is_clearly_better():
    p = PROBLEMS["huff-location"]
    minima = p.local_minima(LAM, ALPHA)
    assert len(minima) == 2
    (x_glob, J_glob), (x_loc, J_loc) = minima
    x_star, J_star = p.optimum(LAM, ALPHA)
    np.testing.assert_array_equal(x_glob, x_star)
    assert J_glob == J_star
    np.testing.assert_allclose(x_glob, [7.459, 6.967], atol=1e-3)
    np.testing.assert_allclose(x_loc, [2.606, 3.085], atol=1e-3)
    assert J_glob == pytest.approx(-37.801, abs=1e-3) and J_loc == pytest.approx(-26.493, abs=1e-3)
    assert J_loc - J_glob > 10.0  # clearly better
    assert np.linalg.norm(x_glob - x_loc) > 5.0  # far apart
    # a ridge: J along the segment between them rises well above both
    s = np.linspace(0.0, 1.0, 1001)[:, None]
    ridge = p.exact_J(x_loc + s * (x_glob - x_loc), LAM, ALPHA).max()
    assert ridge > J_loc + 10.0
    # both are strict local minima: a small circle around each is higher
    ang = np.linspace(0, 2 * np.pi, 64, endpoint=False)
    circle = 0.05 * np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    for x, J in minima:
        assert np.all(p.exact_J(x + circle, LAM, ALPHA) > J)
    # a local method started in the wrong basin stays there (and one in the right finds x*)
    starts = (([2, 2], x_loc), ([3, 4], x_loc), ([4, 3], x_loc), ([8, 8], x_glob), ([6, 8], x_glob))
    for start, target in starts:
        for method in ("L-BFGS-B", "Nelder-Mead", "SLSQP"):
            res = optimize.minimize(
                lambda v: p.exact_J(v, LAM, ALPHA), start, method=method, bounds=p.bounds
            )
            np.testing.assert_allclose(res.x, target, atol=1e-3)


# -- the sample-only simulator ---------------------------------------------------------------
class _CountingRNG:
    """A Generator proxy that counts the random numbers each method draws."""

    def __init__(self, seed):
        self._rng = np.random.default_rng(seed)
        self.counts: dict[str, int] = {}

    def __getattr__(self, attr):
        method = getattr(self._rng, attr)

        def counted(*args, size=None, **kwargs):
            out = method(*args, size=size, **kwargs)
            self.counts[attr] = self.counts.get(attr, 0) + int(np.size(out))
            return out

        return counted


def test_sample_only_simulator_uses_the_stream_according_to_the_decision():
    p = PROBLEMS["tandem-mm1"]
    assert not hasattr(p, "transform") and not hasattr(p, "transform_batch")
    n = 20_000
    slow, fast = np.array([1.6, 1.6]), np.array([6.0, 6.0])
    counts = {}
    for label, x in (("slow", slow), ("fast", fast)):
        rng = _CountingRNG(3)
        p.sample(x, n, rng)
        counts[label] = rng.counts
        # PASTA: an arrival finds Geometric(rho) customers; it waits for them and itself
        rho = p.arrival / x
        expected = n * (1.0 / (1.0 - rho)).sum()
        assert counts[label]["geometric"] == 2 * n
        assert counts[label]["exponential"] == pytest.approx(expected, rel=0.05)
    assert counts["slow"]["exponential"] > 10 * counts["fast"]["exponential"]
    # hence the same seed leaves the stream at different places after different decisions
    r1, r2 = np.random.default_rng(4), np.random.default_rng(4)
    p.sample(slow, 100, r1)
    p.sample(fast, 100, r2)
    assert r1.random() != r2.random()
    # same seed, same decision: same scenarios
    W1 = p.sample(slow, 500, np.random.default_rng(8))
    W2 = p.sample(slow, 500, np.random.default_rng(8))
    np.testing.assert_array_equal(W1, W2)


def test_sample_only_simulator_reproduces_the_exponential_sojourn_law():
    p = PROBLEMS["tandem-mm1"]
    x = np.array([1.8, 4.0])
    W = p.sample(x, 200_000, np.random.default_rng(12))
    for i in range(2):
        ks = stats.kstest(W[:, i], stats.expon(scale=1.0 / (x[i] - p.arrival)).cdf)
        assert ks.pvalue > 1e-3
    assert abs(np.corrcoef(W.T)[0, 1]) < 0.02  # independent stations


# -- the 50-dimensional problem ------------------------------------------------------------
def test_performative_pricing_at_dim_50_matches_monte_carlo_and_is_optimal():
    p = PerformativePricing(dim=50)
    assert p.dim_x == p.dim_w == 50 and len(p.bounds) == 50
    x_star, J_star = p.optimum(LAM, ALPHA)
    assert np.all((x_star >= 0) & (x_star <= p.price_cap))
    at_cap = np.isclose(x_star, p.price_cap)
    assert 0 < at_cap.sum() < 50  # a mix of face and interior coordinates
    for k, x in enumerate((p.x0, x_star)):
        J_mc, se = _mc(p, x, 100_000, seed=50 + k)
        assert abs(J_mc - p.exact_J(x, LAM, ALPHA)) <= 4.0 * se
    Z = np.random.default_rng(1).standard_normal((4, 30, 50))
    X = _random_feasible(p, 4, seed=2)
    assert p.cost(p.transform_batch(X, Z), X).shape == (4, 30)
    # KKT: the gradient vanishes on the free coordinates and points outwards at the cap
    h = 1e-4 * np.eye(50)
    g = np.array([p.exact_J(x_star + e, LAM, ALPHA) - p.exact_J(x_star - e, LAM, ALPHA) for e in h])
    g /= 2e-4  # central differences: error ~1e-6 here
    assert np.all(np.abs(g[~at_cap]) < 1e-4)
    assert np.all(g[at_cap] < -0.1)
    res = optimize.minimize(
        lambda v: p.exact_J(v, LAM, ALPHA), np.full(50, 5.0), method="SLSQP",
        bounds=p.bounds, options={"ftol": 1e-14, "maxiter": 3000},
    )  # fmt: skip
    assert res.fun >= J_star - 1e-9 * abs(J_star)


# -- parameter validation ------------------------------------------------------------------
BAD_PARAMETERS = [
    (TandemMM1, {"arrival": 0.0}, "arrival"),
    (TandemMM1, {"arrival": "fast"}, "arrival"),
    (TandemMM1, {"cost": (0.1, -1.0)}, "cost"),
    (TandemMM1, {"cost": (0.1, 0.2, 0.3)}, "cost"),
    (TandemMM1, {"mu_max": 1.55}, "mu_max"),
    (TandemMM1, {"min_gap": 0.0}, "min_gap"),
    (PriceNewsvendor, {"slope": -1.0}, "slope"),
    (PriceNewsvendor, {"sigma": 0.0}, "sigma"),
    (PriceNewsvendor, {"salvage": 3.0}, "salvage"),
    (PriceNewsvendor, {"price_bounds": (2.0, 12.0)}, "price_bounds"),
    (PriceNewsvendor, {"price_bounds": (3.0, 13.0)}, "mean demand"),
    (PriceNewsvendor, {"price_bounds": 5.0}, "price_bounds"),
    (PriceNewsvendor, {"q_max": float("nan")}, "q_max"),
    (PerformativePricing, {"dim": 0}, "dim"),
    (PerformativePricing, {"dim": 2.5}, "dim"),
    (PerformativePricing, {"dim": True}, "dim"),
    (PerformativePricing, {"cross": 1.0}, "cross"),
    (PerformativePricing, {"unit_cost": 8.0}, "unit_cost"),
    (PerformativePricing, {"noise": -1.0}, "noise"),
    (ImpactPortfolio, {"n_assets": 1}, "n_assets"),
    (ImpactPortfolio, {"n_sectors": 9}, "n_sectors"),
    (ImpactPortfolio, {"sector_cap": 0.0}, "sector_cap"),
    (ImpactPortfolio, {"max_weight": 1.5}, "max_weight"),
    (ImpactPortfolio, {"risk_free": float("inf")}, "risk_free"),
    (StrategicClassification, {"dim": 1}, "dim"),
    (StrategicClassification, {"n_strategic": 4}, "n_strategic"),
    (StrategicClassification, {"prior": 1.0}, "prior"),
    (StrategicClassification, {"epsilon": -0.1}, "epsilon"),
    (StrategicClassification, {"reg": 0.0}, "reg"),
    (HuffLocation, {"centres": ((2.0, 3.0), (11.0, 5.0))}, "centres"),
    (HuffLocation, {"centres": (1.0, 2.0)}, "centres"),
    (HuffLocation, {"power": (10.0, 0.0)}, "power"),
    (HuffLocation, {"theta": 0.0}, "theta"),
    (HuffLocation, {"rents": (1.0, -2.0)}, "rents"),
    (ErlangA, {"servers": 0}, "servers"),
    (ErlangA, {"patience": 0.0}, "patience"),
    (ErlangA, {"rate_bounds": (0.0, 2.0)}, "rate_bounds"),
    (ErlangA, {"price_bounds": (5.0, 5.0)}, "price_bounds"),
    (ErlangA, {"price_bounds": "cheap"}, "price_bounds"),
    (ErlangA, {"holding": -1.0}, "holding"),
]


@pytest.mark.parametrize(("cls", "kwargs", "match"), BAD_PARAMETERS)
def test_invalid_constructor_parameters_raise_a_clear_value_error(cls, kwargs, match):
    with pytest.raises(ValueError, match=match):
        cls(**kwargs)


@pytest.mark.parametrize("name", NAMES)
def test_invalid_arguments_raise_value_errors(name):
    p = PROBLEMS[name]
    with pytest.raises(ValueError, match="lam"):
        p.exact_J(p.x0, -0.1, ALPHA)
    with pytest.raises(ValueError, match="alpha"):
        p.exact_J(p.x0, LAM, 1.0)
    with pytest.raises(ValueError, match="alpha"):
        p.optimum(LAM, 0.0)
    with pytest.raises(ValueError):
        p.exact_J(np.zeros(p.dim_x + 1), LAM, ALPHA)
    with pytest.raises(ValueError):
        p.cost(np.zeros((3, p.dim_w + 1)), p.x0)
    with pytest.raises(ValueError):
        p.cost(np.zeros((3, p.dim_w)), np.zeros(p.dim_x + 1))
    with pytest.raises(ValueError):
        p.sample(p.x0, -1, np.random.default_rng(0))
    if hasattr(p, "transform"):
        with pytest.raises(ValueError):
            p.transform(p.x0, np.zeros((3, p.dim_w + 1)))
        with pytest.raises(ValueError):
            p.transform(np.full(p.dim_x, np.nan), np.zeros((3, p.dim_w)))
        with pytest.raises(ValueError):
            p.transform_batch(p.x0[None], np.zeros((2, 3, p.dim_w)))


def test_model_domain_violations_raise():
    with pytest.raises(ValueError, match="arrival"):
        PROBLEMS["tandem-mm1"].sample([1.5, 3.0], 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="arrival"):
        PROBLEMS["tandem-mm1"].exact_J([1.5, 3.0], LAM, ALPHA)
    with pytest.raises(ValueError, match="demand"):
        PROBLEMS["price-newsvendor"].transform([20.0, 5.0], np.zeros((2, 1)))
    for x in ([20.0, 5.0], [0.5, 5.0], [8.0, -1.0]):
        with pytest.raises(ValueError, match="demand"):
            PROBLEMS["price-newsvendor"].exact_J(x, LAM, ALPHA)


def test_portfolio_design_maps_the_cube_into_X_and_spreads_out():
    p = PROBLEMS["impact-portfolio"]
    u = np.random.default_rng(0).random((3, 200, p.dim_x))
    x = p.design(u)
    assert x.shape == u.shape
    assert np.all(x >= 0) and np.all(x <= p.max_weight + 1e-15)
    assert np.all(x @ p.A.T <= p.b + 1e-12)
    assert x.reshape(-1, p.dim_x).std(axis=0).min() > 0.02
    with pytest.raises(ValueError):
        p.design(np.full(p.dim_x, 1.5))
