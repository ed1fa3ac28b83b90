"""The library's problems with declarations: a chance constraint (service-newsvendor), an
expectation constraint (overtime-staffing) and integer coordinates (fleet-pricing).

Every number is checked against a computation written here: exact J and the exact constraint
values against Monte Carlo of the problem's own simulator (fixed seeds, 4.5 standard errors)
and against adaptive quadrature of scipy's lognormal; the stated constrained optima against
SLSQP and a fine grid with the constraints written independently (scipy's survival function,
the Black formula for the expected overtime); the integer optimum against enumeration of the
lattice, and its margin over its neighbours by quadrature.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from acfs_cli.core.declared import StochasticConstraint
from acfs_cli.core.problem import Problem, ProblemError, as_problem
from acfs_cli.core.risk import influence, spectral_risk
from acfs_cli.problems import PROBLEMS, get_problem
from acfs_cli.problems.library import (
    DECLARED,
    LIBRARY,
    FleetPricing,
    OvertimeStaffing,
    ServiceNewsvendor,
)

#: The default setting and the risk-neutral one.
SETTINGS = [(0.5, 0.9), (0.0, 0.9)]
CONSTRAINED = ["service-newsvendor", "overtime-staffing"]
NAMES = sorted(DECLARED)
INSTANCES = {name: cls() for name, cls in DECLARED.items()}


def _lognormal(mean, sigma):
    """scipy's lognormal with the given mean and log-standard deviation."""
    return stats.lognorm(s=sigma, scale=mean * np.exp(-0.5 * sigma**2))


def _law(name: str, p, x):
    """The law of W = (D,) at decisions x (..., 2), written from the docstrings' models."""
    x = np.asarray(x, dtype=float)
    if name == "overtime-staffing":
        return _lognormal(p.mu0 * np.exp(-x[..., 0] / p.e_scale), p.sigma)
    return _lognormal(p.intercept - p.slope * x[..., 0], p.sigma)


def _limit(name: str) -> float:
    """What the exact constraint value is compared with: the chance, or 0 for E[g]."""
    return INSTANCES[name].eps if name == "service-newsvendor" else 0.0


def _constraint(name: str, p, x):
    """The exact constraint value at decisions x (..., 2) by scipy: P(D > q), or
    E[(D - q)_+] - tau by the Black formula mu Phi(d1) - q Phi(d1 - sigma) of the lognormal
    stop-loss."""
    x = np.asarray(x, dtype=float)
    law, q = _law(name, p, x), x[..., 1]
    if name == "service-newsvendor":
        return law.sf(q)
    mu = law.mean()
    with np.errstate(divide="ignore"):  # q = 0 on the grid's edge: d1 = inf
        d1 = (np.log(mu / q) + 0.5 * p.sigma**2) / p.sigma
    return mu * stats.norm.cdf(d1) - q * stats.norm.cdf(d1 - p.sigma) - p.tau


def _slack(name: str, p, x):
    """The constraint as slack >= 0 of order one (SLSQP's form)."""
    if name == "service-newsvendor":
        return 1.0 - _constraint(name, p, x) / p.eps
    return -_constraint(name, p, x) / p.tau


def _loss_quantile(name: str, p, x):
    """u -> the u-quantile of the loss C(D, x), from the law's quantile function."""
    law = _law(name, p, x)
    if name == "overtime-staffing":  # increasing in D
        return lambda u: x[0] + p.c * x[1] + p.o * max(law.ppf(u) - x[1], 0.0), law.cdf(x[1])
    if name == "service-newsvendor":  # decreasing in D
        cap, margin, fixed = x[1], x[0] - p.s, (p.c - p.s) * x[1]
    else:
        cap, margin, fixed = p.kappa * x[1], x[0] - p.c, p.f * x[1]
    return lambda u: fixed - margin * min(law.ppf(1.0 - u), cap), law.sf(cap)


def _J_by_quadrature(name: str, p, x, lam, alpha) -> float:
    """E[C] + lam CVaR_alpha(C) as integrals of the loss quantile, (1 / (1 - alpha)) times
    its integral over (alpha, 1) for the CVaR; the kink of min / max is a break point."""
    quantile, kink = _loss_quantile(name, p, np.asarray(x, dtype=float))

    def integral(a):
        points = [kink] if a < kink < 1.0 else None
        return integrate.quad(quantile, a, 1.0, points=points, limit=200, epsabs=1e-11,
                              epsrel=1e-11)[0]

    return integral(0.0) + lam * integral(alpha) / (1.0 - alpha)


def _mc(p, x, n: int, seed: int, lam, alpha):
    """J, its standard error, and the constraint values g from n draws of the simulator."""
    W = p.transform(x, np.random.default_rng(seed).standard_normal((n, p.dim_w)))
    c = p.cost(W, x)
    J = spectral_risk(c, lam, alpha)[0]
    se = influence(c, lam, alpha).std(ddof=1) / np.sqrt(n)
    g = p.constraint_values(W, x) if hasattr(p, "constraint_values") else None
    return J, se, g


def _other(name: str) -> np.ndarray:
    """A third decision of X, away from x0 and the optima."""
    return {"service-newsvendor": np.array([5.0, 60.0]),
            "overtime-staffing": np.array([20.0, 120.0]),
            "fleet-pricing": np.array([6.0, 9.0])}[name]


# -- registry and declarations ---------------------------------------------------------------
def test_declared_problems_are_registered_apart_from_the_library():
    assert set(DECLARED) == {"service-newsvendor", "overtime-staffing", "fleet-pricing"}
    assert not set(DECLARED) & set(LIBRARY)
    for name, cls in DECLARED.items():
        assert PROBLEMS[name] is cls and cls.name == name
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name)
        assert re.search(r"\(\d{4}\)", cls.source) and isinstance(cls.version, str)
        assert "Exact J" in cls.__doc__ and "Optimum" in cls.__doc__
        assert "Parameters" in cls.__doc__
        built = get_problem(name)
        assert isinstance(built, Problem) and built.name == name and built.has_exact
        assert built.dim_x == 2 and built.has_transform and built.vectorized


def test_declarations_validate_through_as_problem_and_get_problem():
    service, staffing, fleet = (as_problem(cls()) for cls in
                                (ServiceNewsvendor, OvertimeStaffing, FleetPricing))
    assert service.constraints == (StochasticConstraint("stockout", 0.05),)
    assert staffing.constraints == (StochasticConstraint("overtime", None),)
    assert fleet.constraints == ()
    assert fleet.integrality.tolist() == [True, True]
    assert not service.integrality.any() and not staffing.integrality.any()
    assert np.all(fleet.x0 == np.round(fleet.x0))
    # the Problem's checked constraint_values: one column, the rows of the cost
    for problem in (service, staffing):
        W = problem.transform(problem.x0, np.random.default_rng(1).standard_normal((9, 1)))
        g = problem.constraint_values(W, problem.x0)
        assert g.shape == (9, 1) and np.all(np.isfinite(g))
    # a parameter passes through get_problem into the declaration
    assert get_problem("service-newsvendor", service=0.1).constraints[0].chance == 0.1
    # integrality is enforced on a start given from outside
    with pytest.raises(ProblemError, match=r"x0\[0\] = 8.5 is not a whole number"):
        as_problem(FleetPricing(), x0=[8.5, 8.0])
    assert as_problem(FleetPricing(), x0=[9.0, 2.0]).x0.tolist() == [9.0, 2.0]


@pytest.mark.parametrize("name", NAMES)
def test_scenarios_costs_and_constraint_values_follow_the_shape_and_broadcast_rules(name):
    p = INSTANCES[name]
    xs = np.stack([p.x0, p.optimum(0.5, 0.9)[0], _other(name)])
    n = 7
    Z = np.random.default_rng(2).standard_normal((3, n, 1))
    Wb = p.transform_batch(xs, Z)
    assert Wb.shape == (3, n, 1)
    for i in range(3):
        np.testing.assert_allclose(Wb[i], p.transform(xs[i], Z[i]), rtol=1e-13)
    cb = p.cost(Wb, xs)
    assert cb.shape == (3, n)
    assert p.cost(Wb[0], xs).shape == (3, n)  # k decisions re-costed on one W
    for i in range(3):
        np.testing.assert_allclose(cb[i], p.cost(Wb[i], xs[i]), rtol=1e-13)
    Jb = p.exact_J(xs.reshape(3, 1, 2), 0.5, 0.9)
    assert np.shape(Jb) == (3, 1)
    for i in range(3):
        assert Jb[i, 0] == pytest.approx(p.exact_J(xs[i], 0.5, 0.9), rel=1e-13)
    if name in CONSTRAINED:
        g = p.constraint_values(Wb, xs)
        assert g.shape == (3, n, 1)
        for i in range(3):
            np.testing.assert_allclose(g[i], p.constraint_values(Wb[i], xs[i]), rtol=1e-13)
        assert p.exact_constraints(xs).shape == (3, 1)
        assert p.exact_constraints(xs[0]).shape == (1,)
    z = np.array([[-30.0], [0.0], [30.0]])  # extreme normals stay finite
    assert np.all(np.isfinite(p.cost(p.transform(p.x0, z), p.x0)))


# -- exact values against Monte Carlo and quadrature -------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_exact_J_matches_monte_carlo_of_the_problems_own_simulator(name):
    p = INSTANCES[name]
    for lam, alpha in SETTINGS:
        for k, x in enumerate((p.x0, p.optimum(lam, alpha)[0], _other(name))):
            J_mc, se, _ = _mc(p, x, 100_000, seed=10 + k, lam=lam, alpha=alpha)
            assert abs(J_mc - p.exact_J(x, lam, alpha)) <= 4.5 * se, (name, lam, k)


@pytest.mark.parametrize("name", CONSTRAINED)
def test_exact_constraints_match_monte_carlo_of_the_constraint_values(name):
    p = INSTANCES[name]
    n = 100_000
    for k, x in enumerate((p.x0, p.optimum(0.5, 0.9)[0], p.optimum(0.0, 0.9)[0], _other(name))):
        _, _, g = _mc(p, x, n, seed=30 + k, lam=0.0, alpha=0.9)
        exact = p.exact_constraints(x)[0]
        if name == "service-newsvendor":
            share = float(np.mean(g[:, 0] > 0))
            se = np.sqrt(exact * (1.0 - exact) / n)  # binomial
            assert abs(share - exact) <= 4.5 * se, (k, share, exact)
        else:
            se = g[:, 0].std(ddof=1) / np.sqrt(n)
            assert abs(g[:, 0].mean() - exact) <= 4.5 * se, (k, g[:, 0].mean(), exact)


@pytest.mark.parametrize("name", NAMES)
def test_exact_J_and_constraints_agree_with_quadrature_of_scipys_lognormal(name):
    p = INSTANCES[name]
    for x in (p.x0, p.optimum(0.5, 0.9)[0], _other(name)):
        for lam, alpha in ((0.5, 0.9), (0.7, 0.95)):
            J = _J_by_quadrature(name, p, x, lam, alpha)
            assert p.exact_J(x, lam, alpha) == pytest.approx(J, rel=1e-8, abs=1e-8)
        if name in CONSTRAINED:
            assert p.exact_constraints(x)[0] == pytest.approx(_constraint(name, p, x),
                                                              rel=1e-10, abs=1e-12)
    if name == "overtime-staffing":  # the Black formula is the stop-loss integral of sf
        law = _law(name, p, p.x0)
        stop_loss = integrate.quad(law.sf, p.x0[1], np.inf, epsabs=1e-13)[0]
        assert _constraint(name, p, p.x0) + p.tau == pytest.approx(stop_loss, rel=1e-8)


# -- the optima --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_optimum_is_feasible_consistent_and_cached(name):
    p = INSTANCES[name]
    lo, hi = np.array(p.bounds).T
    assert np.all((p.x0 >= lo) & (p.x0 <= hi))
    for lam, alpha in SETTINGS:
        x_star, J_star = p.optimum(lam, alpha)
        assert x_star.shape == (2,) and np.all((x_star >= lo) & (x_star <= hi))
        assert J_star == p.exact_J(x_star, lam, alpha) < p.exact_J(p.x0, lam, alpha)
        x_again, J_again = p.optimum(lam, alpha)
        np.testing.assert_array_equal(x_again, x_star)
        assert J_again == J_star
        assert type(p)().optimum(lam, alpha)[1] == pytest.approx(J_star, rel=1e-12)
        if name in CONSTRAINED:
            assert _constraint(name, p, x_star) <= _limit(name) + 1e-12
            assert _constraint(name, p, p.x0) < _limit(name) - 0.01 * max(_limit(name), 1)
        else:
            assert np.all(x_star == np.round(x_star)) and np.all(p.x0 == np.round(p.x0))


def _feasible(name, p, x) -> bool:
    lo, hi = np.array(p.bounds).T
    return bool(np.all((x >= lo) & (x <= hi)) and _constraint(name, p, x) <= _limit(name))


def _independent_minimum(name, p, lam, alpha, constrained: bool):
    """Lowest J by SLSQP from spread starts (the constraint written here) and on a 601 x 601
    grid of X (its feasible points), whichever is lower, and where."""
    cons = [{"type": "ineq", "fun": lambda v: _slack(name, p, v)}] if constrained else []
    lo, hi = np.array(p.bounds).T
    starts = [p.x0, *(lo + np.array(u) * (hi - lo) for u in ([0.3, 0.6], [0.7, 0.4],
                                                              [0.5, 0.9]))]
    best_x, best_J = None, np.inf
    for start in starts:
        res = optimize.minimize(lambda v: p.exact_J(v, lam, alpha), start, method="SLSQP",
                                bounds=p.bounds, constraints=cons,
                                options={"ftol": 1e-14, "maxiter": 1000})
        x = np.clip(res.x, lo, hi)
        J = float(p.exact_J(x, lam, alpha))
        # SLSQP ends on the active constraint to ~1e-12 of its slack, either side
        if (not constrained or _slack(name, p, x) >= -1e-9) and J < best_J:
            best_x, best_J = x, J
    axes = [np.linspace(a, b, 601) for a, b in p.bounds]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 2)
    if constrained:
        grid = grid[_constraint(name, p, grid) <= _limit(name)]
    J = p.exact_J(grid, lam, alpha)
    k = int(np.argmin(J))
    return (best_x, best_J) if best_J <= J[k] else (grid[k], float(J[k]))


@pytest.mark.parametrize("name", CONSTRAINED)
@pytest.mark.parametrize(("lam", "alpha"), SETTINGS)
def test_constrained_optimum_matches_an_independent_slsqp_and_grid_search(name, lam, alpha):
    p = INSTANCES[name]
    x_star, J_star = p.optimum(lam, alpha)
    x_found, J_found = _independent_minimum(name, p, lam, alpha, constrained=True)
    assert J_found >= J_star - 1e-9 * abs(J_star)
    assert J_found <= J_star + 1e-6 * abs(J_star)  # the search reaches it
    span = np.ptp(np.array(p.bounds), axis=1)
    np.testing.assert_allclose(x_found / span, x_star / span, atol=2e-3)


@pytest.mark.parametrize("name", CONSTRAINED)
@pytest.mark.parametrize(("lam", "alpha"), SETTINGS)
def test_constraint_binds_at_the_optimum_and_the_unconstrained_optimum_violates_it(
        name, lam, alpha):
    p = INSTANCES[name]
    x_star, J_star = p.optimum(lam, alpha)
    assert _constraint(name, p, x_star) == pytest.approx(_limit(name), abs=1e-12)
    assert p.exact_constraints(x_star)[0] == pytest.approx(_limit(name), abs=1e-12)
    x_free, J_free = _independent_minimum(name, p, lam, alpha, constrained=False)
    assert J_free < J_star - 0.01 * abs(J_star)  # the constraint costs more than 1 %
    violated = {"service-newsvendor": 0.25, "overtime-staffing": 2.0}[name]  # vs 0.05, 0
    assert _constraint(name, p, x_free) > violated, _constraint(name, p, x_free)


@pytest.mark.parametrize("name", CONSTRAINED)
def test_no_feasible_perturbation_of_the_constrained_optimum_decreases_J(name):
    p = INSTANCES[name]
    rng = np.random.default_rng(5)
    span = np.ptp(np.array(p.bounds), axis=1)
    for lam, alpha in SETTINGS:
        x_star, J_star = p.optimum(lam, alpha)
        tried = 0
        for d in rng.standard_normal((60, 2)):
            for h in (1e-2, 1e-4, 1e-6):
                x = x_star + h * span * d / np.linalg.norm(d)
                if _feasible(name, p, x):
                    tried += 1
                    assert p.exact_J(x, lam, alpha) >= J_star - 1e-10 * abs(J_star), (d, h)
        assert tried >= 60  # about half the directions point into the feasible side


def test_stated_optima_at_the_default_settings():
    """The values quoted in the docstrings (lam 0.5, alpha 0.9; lam 0; lam 0.7, alpha 0.95)."""
    stated = {
        "service-newsvendor": [((8.951964, 25.295585), -61.138341),
                               ((8.564065, 28.061097), -60.883492),
                               ((9.138457, 23.965995), -57.341058)],
        "overtime-staffing": [((56.696045, 39.809108), 156.525889),
                              ((54.459847, 41.988932), 98.698779),
                              ((60.069957, 36.724888), 184.666981)],
        "fleet-pricing": [((10, 3), -57.101674), ((10, 4), -46.073297), ((10, 3), -58.079638)],
    }
    for name, optima in stated.items():
        for (lam, alpha), (x, J) in zip([*SETTINGS, (0.7, 0.95)], optima, strict=True):
            x_star, J_star = INSTANCES[name].optimum(lam, alpha)
            np.testing.assert_allclose(x_star, x, atol=1e-6)
            assert J_star == pytest.approx(J, abs=1e-6)


def test_integer_optimum_is_the_least_J_on_the_enumerated_lattice():
    p = INSTANCES["fleet-pricing"]
    fees = np.arange(p.bounds[0][0], p.bounds[0][1] + 1)
    vans = np.arange(p.bounds[1][0], p.bounds[1][1] + 1)
    assert fees.size * vans.size == 189
    for lam, alpha in [*SETTINGS, (0.7, 0.95)]:
        table = np.array([[p.exact_J([f, v], lam, alpha) for v in vans] for f in fees])
        i, j = np.unravel_index(np.argmin(table), table.shape)
        x_star, J_star = p.optimum(lam, alpha)
        assert x_star.tolist() == [fees[i], vans[j]] and J_star == table[i, j]
        # the continuous relaxation is lower: the whole decision is not the relaxed one
        res = optimize.minimize(lambda v, lam=lam, alpha=alpha: p.exact_J(v, lam, alpha),
                                x_star, method="L-BFGS-B", bounds=p.bounds)
        assert res.fun < J_star


@pytest.mark.parametrize(("lam", "alpha", "stated"), [(0.5, 0.9, 0.101), (0.0, 0.9, 0.064)])
def test_integer_optimum_beats_each_lattice_neighbour_by_the_stated_margin(lam, alpha, stated):
    p = INSTANCES["fleet-pricing"]
    x_star, _ = p.optimum(lam, alpha)
    J_star = _J_by_quadrature("fleet-pricing", p, x_star, lam, alpha)
    lo, hi = np.array(p.bounds).T
    gaps = []
    for dp in (-1, 0, 1):
        for ds in (-1, 0, 1):
            x = x_star + [dp, ds]
            if (dp, ds) != (0, 0) and np.all((x >= lo) & (x <= hi)):
                gaps.append((_J_by_quadrature("fleet-pricing", p, x, lam, alpha) - J_star)
                            / abs(J_star))
    assert len(gaps) == 8
    assert min(gaps) >= 0.005 and min(gaps) == pytest.approx(stated, abs=5e-4)
    assert p.margin(lam, alpha) == pytest.approx(min(gaps), rel=1e-6)


def test_integer_optimum_is_told_from_its_neighbours_at_20000_common_draws():
    p = INSTANCES["fleet-pricing"]
    lam, alpha = 0.5, 0.9
    x_star, _ = p.optimum(lam, alpha)
    z = np.random.default_rng(7).standard_normal((20_000, 1))
    psi_star = influence(p.cost(p.transform(x_star, z), x_star), lam, alpha)
    for x in p.neighbours(x_star):
        psi = influence(p.cost(p.transform(x, z), x), lam, alpha)
        diff = psi - psi_star
        assert diff.mean() > 5.0 * diff.std(ddof=1) / np.sqrt(z.shape[0]), x


# -- parameters ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("cls", "kwargs", "match"), [
    (ServiceNewsvendor, {"service": 0.0}, "service"),
    (ServiceNewsvendor, {"service": 1.0}, "service"),
    (ServiceNewsvendor, {"q_max": 60.0}, "q_max must reach the service quantity"),
    (ServiceNewsvendor, {"salvage": 3.0}, "salvage"),
    (OvertimeStaffing, {"overtime": 1.0}, "overtime"),
    (OvertimeStaffing, {"cap": 0.0}, "cap"),
    (OvertimeStaffing, {"q_max": 120.0}, "q_max must keep the expected overtime"),
    (OvertimeStaffing, {"spend_bounds": (5.0, 5.0)}, "spend_bounds"),
    (OvertimeStaffing, {"sigma": -0.1}, "sigma"),
    (FleetPricing, {"fee_bounds": (4.5, 12)}, "fee_bounds"),
    (FleetPricing, {"fee_bounds": (2, 12)}, "fee_bounds"),
    (FleetPricing, {"fee_bounds": (4, 13)}, "mean demand"),
    (FleetPricing, {"s_max": 0}, "s_max"),
    (FleetPricing, {"capacity": 0.0}, "capacity"),
])
def test_invalid_parameters_raise_a_clear_value_error(cls, kwargs, match):
    with pytest.raises(ValueError, match=match):
        cls(**kwargs)
