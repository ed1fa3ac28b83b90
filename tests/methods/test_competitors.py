"""GP-BO, CEM-SO and SGD-CVaR (paper Section 3) and their shared finite-difference polish.

The reference is a toy problem with a closed-form objective (:class:`Toy`): W ~ N(A x + b,
s(x)^2 I) with s(x) = 1 + g.x, cost C(W, x) = sum_j W_j + kappa ||x - t||^2. Then C is normal
with mean mu(x) = 1'(A x + b) + kappa ||x - t||^2 and SD sqrt(5) s(x), so

    J(x) = (1 + lam) mu(x) + lam sqrt(5) s(x) phi(Phi^-1(alpha)) / (1 - alpha),

an isotropic quadratic (Hessian 2 kappa (1 + lam) I) whose minimiser over X is the Euclidean
projection of its unconstrained minimiser. A method that ignored how W moves with x would
land on t instead, 0.1-0.2 away. On a fixed sample z the estimate is
J_z(x) = (1 + lam) mu(x) + s(x) (mean(e) + lam CVaR_z(e)), e_i = sum_j z_ij, whose gradient and
minimiser are also closed forms: the finite differences and the polish are checked on it.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.risk import spectral_risk
from acfs_cli.core.sample import CommonSample
from acfs_cli.core.task import Task
from acfs_cli.kernels.polish import direct_polish
from acfs_cli.kernels.stencil import CRNObjective, fd_stencil, fd_value_grad
from acfs_cli.methods.cem_so import CEM_SO
from acfs_cli.methods.gp_bo import GP_BO
from acfs_cli.methods.sgd_cvar import SGD_CVAR
from acfs_cli.problems import feasible, get_problem

LAM, ALPHA = 0.7, 0.95


#: Where the polishes start.
START = np.array([0.3, 0.05, 0.05, 0.3, 0.05, 0.2])


def _sample(seed: int, n: int):
    """A common sample of n rows and its normals (the toy's W takes them as they are)."""
    sample = CommonSample.of(np.random.SeedSequence(seed), n)
    return sample, sample.normals(5)


class Toy:
    """A cheap problem with a known minimiser ``project(x_u)`` (module docstring)."""

    name = "toy"
    dim_x = 6
    dim_w = 5

    def __init__(self, x_u, *, kappa: float = 200.0, g6: float = 5.0, seed: int = 0,
                 lam: float = LAM, alpha: float = ALPHA):
        rng = np.random.default_rng(seed)
        self.A = rng.uniform(5.0, 35.0, size=(5, 6))
        self.b = rng.uniform(1.0, 2.0, size=5)
        self.g = np.array([0.0, 0.0, 0.0, 0.0, 0.0, g6])
        self.kappa, self.lam, self.alpha = kappa, lam, alpha
        self.k = stats.norm.pdf(stats.norm.ppf(alpha)) / (1 - alpha)
        x_u = np.asarray(x_u, dtype=float)
        lin = (1 + lam) * self.A.sum(axis=0) + lam * np.sqrt(5) * self.k * self.g
        self.t = x_u + lin / (2 * kappa * (1 + lam))
        self.x_u = x_u
        self.x_star = feasible.project(x_u)
        self.rows = 0
        self.seen: list[np.ndarray] = []

    # -- sampling (counted, as a spy would) --
    def _scale(self, X):
        return 1.0 + X @ self.g

    def transform(self, x, z):
        x, z = np.asarray(x, float), np.asarray(z, float)
        self.rows += z.shape[0]
        self.seen.append(x[None, :].copy())
        return x @ self.A.T + self.b + self._scale(x) * z

    def transform_batch(self, X, Z):
        X, Z = np.asarray(X, float), np.asarray(Z, float)
        self.rows += Z.shape[0] * Z.shape[1]
        self.seen.append(X.copy())
        return (X @ self.A.T + self.b)[:, None, :] + self._scale(X)[:, None, None] * Z

    def sample(self, x, n, rng):
        return self.transform(x, rng.standard_normal((n, 5)))

    # -- known parts --
    def cost(self, W, x):
        W, x = np.asarray(W, float), np.asarray(x, float)
        q = self.kappa * ((x - self.t) ** 2).sum(axis=-1)
        s = W.sum(axis=-1)
        if W.ndim == 2 and x.ndim == 2:
            return s[None, :] + q[:, None]
        if W.ndim == 3:
            return s + q[:, None]
        return s + q

    def project(self, x):
        return feasible.project(x)

    def design(self, u):
        return feasible.design_map(u)

    def is_feasible(self, x, tol=feasible.FEAS_TOL):
        return feasible.is_feasible(x, tol)

    # -- closed forms --
    def J(self, x):
        x = np.asarray(x, float)
        mu = (x @ self.A.T + self.b).sum(-1) + self.kappa * ((x - self.t) ** 2).sum(-1)
        return (1 + self.lam) * mu + self.lam * np.sqrt(5) * self._scale(x) * self.k

    def saa_terms(self, z):
        e = z.sum(axis=1)
        return e.mean() + self.lam * spectral_risk(e, 0.0, self.alpha)[2]

    def saa_grad(self, x, z):
        """Gradient of J_z(x), the estimate on the fixed normals z."""
        mu_grad = self.A.sum(axis=0) + 2 * self.kappa * (x - self.t)
        return (1 + self.lam) * mu_grad + self.g * self.saa_terms(z)

    def saa_minimiser(self, z):
        lin = (1 + self.lam) * self.A.sum(axis=0) + self.g * self.saa_terms(z)
        return feasible.project(self.t - lin / (2 * self.kappa * (1 + self.lam)))


#: Interior optimum (sum 0.65) and an optimum on the face x_1 + ... + x_5 = 0.85 with
#: x_1 = x_4 = 0 and x_6 at its bound, like DGP1's.
INTERIOR = (0.10, 0.15, 0.20, 0.12, 0.08, 0.55)
FACE = (-0.10, 0.45, 0.60, -0.05, 0.10, 1.10)


def make(x_u=INTERIOR, **kw):
    toy = Toy(x_u, **kw)
    return toy, Task.from_problem(toy, LAM, ALPHA)


def test_toy_closed_form_matches_a_large_sample():
    toy, task = make()
    x = np.array([0.2, 0.1, 0.1, 0.1, 0.1, 0.3])
    z = np.random.default_rng(1).standard_normal((400_000, 5))
    J_mc = spectral_risk(toy.cost(toy.transform(x, z), x), LAM, ALPHA)[0]
    assert J_mc == pytest.approx(toy.J(x), rel=2e-3)


def test_face_toy_optimum_lies_on_the_face_with_zero_allocations():
    toy, _ = make(FACE)
    assert toy.x_star[:5].sum() == pytest.approx(feasible.SUM_CAP)
    assert toy.x_star[0] == 0.0 and toy.x_star[3] == 0.0 and toy.x_star[5] == 1.0
    # The KKT conditions of the isotropic quadratic: no feasible descent direction.
    rng = np.random.default_rng(0)
    for _ in range(200):
        y = feasible.project(toy.x_star + 0.05 * rng.standard_normal(6))
        assert toy.J(y) >= toy.J(toy.x_star) - 1e-6


# ---------------------------------------------------------------------------------------------
# Finite differences and the polish, against the closed forms of the toy
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x",
    [
        (0.2, 0.1, 0.1, 0.1, 0.1, 0.3),  # interior: central differences
        (0.0, 0.1, 0.1, 0.1, 0.1, 0.0),  # lower bounds: forward stencils
        (0.7, 0.05, 0.05, 0.0, 0.0, 1.0),  # upper bounds: backward stencils
        (0.0, 0.35, 0.5, 0.0, 0.0, 1.0),  # on the sum face with zero allocations: transfers
        (0.004, 0.35, 0.496, 0.0, 0.0, 0.5),  # near a corner of the face: shrunken steps
    ],
)
def test_fd_gradient_matches_the_exact_gradient_of_the_sample_estimate(x):
    toy, task = make()
    x = np.asarray(x)
    sample, z = _sample(2, 64)
    oracle = Oracle(toy, 10**6, np.random.default_rng(3))
    f, g = fd_value_grad(task, oracle, x, sample, h=0.01)
    expected = toy.saa_grad(x, z)
    # J_z is quadratic in x, so the three-point formulas are exact up to rounding.
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-6 * np.abs(expected).max())
    assert f == pytest.approx(spectral_risk(toy.cost(toy.transform(x, z), x), LAM, ALPHA)[0])
    assert oracle.used == 13 * 64
    for X in toy.seen:
        assert feasible.is_feasible(X).all()


def test_fd_stencil_is_central_inside_and_one_sided_at_bounds():
    toy, task = make()
    st = fd_stencil(task, np.array([0.2, 0.1, 0.1, 0.1, 0.1, 0.3]), 0.01)
    np.testing.assert_allclose(st.d1, 0.01)
    np.testing.assert_allclose(st.d2, -0.01)
    st = fd_stencil(task, np.array([0.0, 0.1, 0.1, 0.1, 0.1, 1.0]), 0.01)
    assert (st.d1[0], st.d2[0]) == pytest.approx((0.01, 0.02))
    assert (st.d1[5], st.d2[5]) == pytest.approx((-0.01, -0.02))


def test_sum_face_tangent_removes_only_the_outward_part():
    from acfs_cli.problems.feasible import sum_face_tangent

    x = np.array([0.0, 0.35, 0.5, 0.0, 0.0, 1.0])
    g = np.array([-5.0, -3.0, -1.0, 2.0, 4.0, -7.0])  # descent points out of the half-space
    t = sum_face_tangent(x, g)
    m = np.mean([-3.0, -1.0])  # the free allocations x_2, x_3
    np.testing.assert_allclose(t, g - np.r_[np.full(5, m), 0.0])
    g_in = np.array([1.0, 3.0, 1.0, 2.0, 4.0, -7.0])  # descent points into X
    np.testing.assert_array_equal(sum_face_tangent(x, g_in), g_in)
    inside = np.array([0.1, 0.1, 0.1, 0.1, 0.1, 0.5])
    np.testing.assert_array_equal(sum_face_tangent(inside, g), g)


def test_the_sum_face_closed_form_is_the_projected_gradient_map_where_all_are_free():
    from acfs_cli.kernels.polish import tangent_gradient
    from acfs_cli.problems.feasible import project, sum_face_tangent

    x = np.array([0.15, 0.2, 0.2, 0.2, 0.1, 0.5])  # on the face, every allocation free
    g = np.array([-5.0, -3.0, -1.0, -2.0, 4.0, -7.0])
    np.testing.assert_allclose(sum_face_tangent(x, g), tangent_gradient(x, g, project),
                               atol=1e-6)
    task = Task.from_problem(get_problem("dgp1"), 0.7, 0.95)
    np.testing.assert_array_equal(task.tangent(x, g), sum_face_tangent(x, g))


@pytest.mark.parametrize("x_u", [INTERIOR, FACE], ids=["interior", "face"])
def test_direct_polish_reaches_the_minimiser_of_the_sample_estimate(x_u):
    toy, task = make(x_u)
    sample, z = _sample(4, 200)
    oracle = Oracle(toy, 10**7, np.random.default_rng(5))
    objective = CRNObjective(task, oracle, sample, h=2e-3)
    res = direct_polish(task, oracle, START, n=200, maxiter=60, h=2e-3, objective=objective)
    np.testing.assert_allclose(res.x, toy.saa_minimiser(z), atol=2e-3)
    assert feasible.is_feasible(res.x)
    assert oracle.used == objective.used and oracle.used % (13 * 200) == 0
    assert oracle.incumbent[1] == pytest.approx(res.value)


def test_direct_polish_stops_at_its_allowance_and_keeps_its_best():
    toy, task = make()
    oracle = Oracle(toy, 10**7, np.random.default_rng(5))
    with oracle.allowance(2 * 1300 + 500) as allowance:
        res = direct_polish(task, oracle, START, n=100, maxiter=100, h=2e-3)
    assert oracle.used == 2 * 1300  # a third evaluation would pass the allowance
    assert allowance.hit and oracle.available == 10**7 - 2 * 1300
    assert not res.stopped_by_budget  # the allowance is the plan, not the cap
    assert toy.J(res.x) < toy.J(np.array([0.3, 0.05, 0.05, 0.3, 0.05, 0.2]))


def test_polish_guard_keeps_a_start_it_cannot_significantly_beat():
    toy, task = make()
    sample, z = _sample(7, 200)
    x0 = feasible.project(toy.saa_minimiser(z) + np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1e-3]))
    runs = {}
    for guard in (0.0, 2.0):
        oracle = Oracle(toy, 10**7, np.random.default_rng(8))
        objective = CRNObjective(task, oracle, sample, h=2e-3)
        runs[guard] = (direct_polish(task, oracle, x0, n=200,
                                     maxiter=20, h=2e-3, guard=guard, objective=objective),
                       oracle)
    unguarded, guarded = runs[0.0][0], runs[2.0][0]
    # The polish finds a point a hair better on its sample (gain ~ kappa (1 + lam) 1e-6) ...
    assert unguarded.value < toy.J(x0) + 1 and not np.array_equal(unguarded.x, x0)
    # ... far inside the noise of a paired difference (SD of the costs ~ sqrt(5) s(x)).
    np.testing.assert_array_equal(guarded.x, x0)
    np.testing.assert_array_equal(runs[2.0][1].incumbent[0], x0)


def test_polish_guard_accepts_a_significant_improvement():
    toy, task = make()
    sample, z = _sample(7, 200)
    oracle = Oracle(toy, 10**7, np.random.default_rng(8))
    res = direct_polish(task, oracle, START, n=200, maxiter=60, h=2e-3, guard=2.0,
                        objective=CRNObjective(task, oracle, sample, h=2e-3))
    np.testing.assert_allclose(res.x, toy.saa_minimiser(z), atol=2e-3)


# ---------------------------------------------------------------------------------------------
# Each competitor finds the toy optimum
# ---------------------------------------------------------------------------------------------


#: GP-BO with a cheaper EI maximiser and likelihood search, for the tests that are about
#: something else than the GP's fit (one run at the defaults below keeps the defaults tested).
GP_CHEAP = {"acq_optimizer": "sampling", "n_points": 500, "gp_restarts": 0}


@pytest.mark.parametrize(
    "method,x_u,settings",
    [
        (GP_BO, FACE, {}),
        (GP_BO, INTERIOR, GP_CHEAP),
        (CEM_SO, FACE, {}),
        (CEM_SO, INTERIOR, {}),
        (SGD_CVAR, FACE, {}),
        (SGD_CVAR, INTERIOR, {}),
    ],
    ids=["gp-bo-face", "gp-bo-interior-cheap", "cem-so-face", "cem-so-interior",
         "sgd-cvar-face", "sgd-cvar-interior"],
)
def test_competitor_finds_the_toy_optimum(method, x_u, settings):
    toy, task = make(x_u)
    oracle = Oracle(toy, 260_000, np.random.default_rng(11))
    res = method(task, oracle, np.random.default_rng(12), settings)
    assert feasible.is_feasible(res.x)
    assert np.abs(res.x - toy.x_star).max() < 0.02, (res.x, toy.x_star)
    # Optimality gap in units of the curvature: J(x) - J* = kappa (1 + lam) ||x - x*||^2
    # in the interior; on the face the first-order term is non-negative as well.
    assert toy.J(res.x) - toy.J(toy.x_star) < 0.5
    assert toy.rows == oracle.used <= 260_000


@pytest.mark.parametrize("method", [CEM_SO, SGD_CVAR], ids=lambda m: m.name)
def test_search_without_polish_gets_close_to_the_toy_optimum(method):
    toy, task = make()
    oracle = Oracle(toy, 260_000, np.random.default_rng(13))
    res = method(task, oracle, np.random.default_rng(14), {"polish": False})
    assert np.abs(res.x - toy.x_star).max() < 0.05, (res.x, toy.x_star)
    assert oracle.account.get("polish") is None


def test_gp_bo_without_polish_beats_the_naive_decision():
    toy, task = make()
    oracle = Oracle(toy, 260_000, np.random.default_rng(15))
    res = GP_BO(task, oracle, np.random.default_rng(16), {"polish": False, **GP_CHEAP})
    # t minimises the cost with W held fixed; a method blind to P_x would go there.
    naive = feasible.project(toy.t)
    assert toy.J(res.x) < toy.J(naive)
    assert oracle.used == (18 + 25) * 130


# ---------------------------------------------------------------------------------------------
# Draw accounting
# ---------------------------------------------------------------------------------------------


def test_gp_bo_draws_are_initial_design_bo_steps_and_polish():
    toy, task = make()
    oracle = Oracle(toy, 260_000, np.random.default_rng(21))
    res = GP_BO(task, oracle, np.random.default_rng(22))
    acc = res.account
    assert acc["init"] == {"draws": 18 * 130, "calls": 1}
    assert acc["bo"] == {"draws": 25 * 130, "calls": 25}
    s = GP_BO.settings()
    per_eval = 13 * s.polish_n
    assert acc["polish"]["draws"] % per_eval == 0
    assert 0 < acc["polish"]["draws"] <= s.polish_draws
    assert res.oracle_draws == (18 + 25) * 130 + acc["polish"]["draws"] == toy.rows
    # Every decision the oracle saw was feasible (the BO runs in the cube, mapped through T).
    assert all(feasible.is_feasible(X).all() for X in toy.seen)


def test_cem_so_draws_one_call_per_iteration_then_the_polish():
    toy, task = make()
    oracle = Oracle(toy, 260_000, np.random.default_rng(23))
    res = CEM_SO(task, oracle, np.random.default_rng(24))
    acc = res.account
    assert acc["cem"] == {"draws": 12 * 55 * 130, "calls": 12}
    s = CEM_SO.settings()
    # two starts on the polish's normals, then evaluations of 13 x 520 draws each
    pol = acc["polish"]["draws"]
    assert (pol - 2 * s.polish_n) % (13 * s.polish_n) == 0
    assert pol <= s.polish_draws
    assert res.oracle_draws == 85_800 + pol == toy.rows


def test_sgd_cvar_draws_are_counted_as_designed():
    toy, task = make()
    oracle = Oracle(toy, 260_000, np.random.default_rng(25))
    res = SGD_CVAR(task, oracle, np.random.default_rng(26))
    acc = res.account
    per_iter = 13 * 60  # the same 60 normals at x and at 12 perturbed decisions
    assert acc["warm"] == {"draws": 2 * 80 * per_iter, "calls": 2 * 80}
    assert acc["select"] == {"draws": 2 * 500, "calls": 1}
    assert acc["fine"] == {"draws": 160 * per_iter, "calls": 160}
    # the polish takes what is left, in evaluations of 13 x polish_n draws
    per_polish = 13 * SGD_CVAR.settings().polish_n
    assert acc["polish"]["draws"] % per_polish == 0
    assert 0 <= oracle.remaining < per_polish or not res.stopped_by_budget
    assert res.oracle_draws == toy.rows == oracle.used <= 260_000


def test_sgd_cvar_polish_stops_cleanly_on_the_cap():
    toy, task = make()
    planned = (2 * 80 + 160) * 13 * 60 + 2 * 500
    per_polish = 13 * SGD_CVAR.settings().polish_n
    budget = planned + per_polish + 100  # room for the polish's first evaluation only
    oracle = Oracle(toy, budget, np.random.default_rng(25))
    res = SGD_CVAR(task, oracle, np.random.default_rng(26), {"scale_with_budget": False})
    assert res.stopped_by_budget
    assert oracle.used == planned + per_polish == toy.rows
    np.testing.assert_array_equal(res.x, oracle.incumbent[0])


def test_sgd_cvar_stops_cleanly_in_a_warm_chain():
    toy, task = make()
    oracle = Oracle(toy, 5_000, np.random.default_rng(27))
    res = SGD_CVAR(task, oracle, np.random.default_rng(28), {"scale_with_budget": False})
    assert res.stopped_by_budget and oracle.used == 6 * 780  # six iterations fit in 5,000
    np.testing.assert_array_equal(res.x, oracle.incumbent[0])
    assert feasible.is_feasible(res.x)


def test_gp_bo_that_ends_its_plan_with_most_of_the_budget_left_says_why_and_what_spends_more():
    # GP-BO spends the paper's draws, not the budget's: 5 + 3 evaluations of 30 draws and a
    # polish of at most 260, here of a budget of 5,000.
    toy, task = make()
    oracle = Oracle(toy, 5_000, np.random.default_rng(23))
    settings = {**GP_CHEAP, "n_init": 5, "n_iter": 3, "n_mc": 30, "polish_n": 20,
                "polish_draws": 260, "scale_with_budget": False}
    res = GP_BO(task, oracle, np.random.default_rng(24), settings)
    assert res.oracle_draws <= 8 * 30 + 260 < 5_000 and not res.stopped_by_budget
    plan = "plan: 5 + 3 evaluations of 30 draws, then a polish of at most 260 draws"
    assert plan in res.stop_reason and "polish_draws" in res.stop_reason
    left = 5_000 - res.oracle_draws
    assert res.notes == [f"gp-bo stopped with {left:,} of 5,000 draws left: {res.stop_reason}"]
    off = GP_BO(task, Oracle(toy, 5_000, np.random.default_rng(23)), np.random.default_rng(24),
                {**settings, "polish": False})
    assert off.stop_reason == "plan complete: 5 + 3 evaluations of 30 draws, no polish"
    assert off.notes == [f"gp-bo stopped with {5_000 - 240:,} of 5,000 draws left: "
                         f"{off.stop_reason}"]
