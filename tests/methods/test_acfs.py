"""ACFS (paper Section 2.3): every phase, the draw accounting, budget stops, ablations, gradients.

Small settings keep each run to a fraction of a second; expected draws are computed by hand
from the settings (the paper's accounting), gradients against closed forms or against
differences of J computed here from the problem's own transform and the project's estimator.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.risk import spectral_risk
from acfs_cli.core.task import Task
from acfs_cli.kernels.drawn_objective import DrawnObjective
from acfs_cli.methods.acfs import (
    ACFS,
    ACFS_METHODS,
    ACFS_NOAUG,
    ACFS_NOAV,
    ACFS_NOCEM,
    ACFS_NORERANK,
    box_of,
    rank_weights,
    split_counts,
)
from acfs_cli.methods.acfs_settings import ACFSSettings
from acfs_cli.problems import PROBLEMS, get_problem
from acfs_cli.problems.feasible import is_feasible

LAM, ALPHA = 0.7, 0.95

SMALL = dict(n_a=150, n_b=60, cem_iters=2, cem_pop=10, cem_draws=40, de_iters=5, de_pop=20,
             pool_safety=10, pool_basin=10, keep1=12, keep2=6, n_d=60, n_starts=3, maxiter=5,
             n_trees=10, n_f=200, pathwise_n=30, scale_with_budget=False)


#: Draws of one phase-4 L-BFGS-B evaluation on a 6-dimensional benchmark under the default
#: 'crn' gradient: fn at x, then the same sample at the 2 d_x stencil points.
EVAL_POINTS = 2 * 6 + 1


def pre_phase4(s: dict) -> dict[str, int]:
    """Draws of each phase before phase 4, by the paper's rules."""
    return {"lhd": s["n_a"], "cem": s["cem_iters"] * s["cem_pop"] * s["cem_draws"],
            "augment": s["n_b"], "stage2": s["keep1"] * s["n_d"]}


def run(method=ACFS, dgp="dgp2", budget=260_000, seed=0, problem=None, **over):
    problem = problem if problem is not None else get_problem(dgp)
    task = Task.from_problem(problem, LAM, ALPHA)
    oracle = Oracle(problem, budget, np.random.default_rng(seed + 1000))
    result = method(task, oracle, np.random.default_rng(seed), {**SMALL, **over})
    return result, oracle, task


class Toy:
    """W | x ~ N(0, s(x)^2), s(x) = 0.2 + 0.1 x_1; C(W, x) = q(x) + W on X = [0, 1]^2.

    q(x) = (x_1 - 0.3)^2 + (x_2 - 0.6)^2, so J(x) = (1 + lam) q(x) + lam k s(x) with
    k = phi(z_alpha) / (1 - alpha): minimised at x_1 = 0.3 - 0.1 lam k / (2 (1 + lam)), x_2 = 0.6.
    """

    name, dim_x, dim_w = "toy", 2, 1

    @staticmethod
    def s(X):
        return 0.2 + 0.1 * np.asarray(X)[..., 0]

    def transform_batch(self, X, Z):
        return self.s(X)[:, None, None] * np.asarray(Z)

    def transform(self, x, z):
        return self.transform_batch(np.asarray(x)[None], np.asarray(z)[None])[0]

    def sample(self, x, n, rng):
        return self.transform(x, rng.standard_normal((n, 1)))

    def cost(self, W, x):
        W, x = np.asarray(W)[..., 0], np.asarray(x, dtype=float)
        q = (x[..., 0] - 0.3) ** 2 + (x[..., 1] - 0.6) ** 2
        return (q[..., None] if x.ndim >= 2 else q) + W

    def project(self, x):
        return np.clip(x, 0.0, 1.0)

    def design(self, u):
        return np.asarray(u, dtype=float)

    def is_feasible(self, x, tol=1e-9):
        x = np.asarray(x)
        return np.all((x >= -tol) & (x <= 1 + tol), axis=-1)

    @staticmethod
    def J(x, lam=LAM, alpha=ALPHA):
        k = norm.pdf(norm.ppf(alpha)) / (1 - alpha)
        x = np.asarray(x, dtype=float)
        q = (x[..., 0] - 0.3) ** 2 + (x[..., 1] - 0.6) ** 2
        return (1 + lam) * q + lam * k * (0.2 + 0.1 * x[..., 0])

    @staticmethod
    def optimum(lam=LAM, alpha=ALPHA):
        k = norm.pdf(norm.ppf(alpha)) / (1 - alpha)
        return np.array([0.3 - 0.1 * lam * k / (2 * (1 + lam)), 0.6])


# -- pieces ------------------------------------------------------------------------------------
def test_rank_weights_are_the_papers_46_28_17_10_split():
    w = rank_weights(4, 0.6)
    assert np.allclose(w, np.array([1, 0.6, 0.36, 0.216]) / 2.176)
    assert np.allclose(np.round(100 * w), [46, 28, 17, 10])
    counts = split_counts(700, w)
    assert counts.sum() == 700 and list(counts) == [322, 193, 116, 69]
    for k, n in [(1, 5), (3, 10), (6, 1)]:
        c = split_counts(n, rank_weights(k, 0.6))
        assert c.sum() == n and np.all(np.diff(c) <= 0)


def test_box_of_recovers_the_box_of_x():
    lo, hi = box_of(Task.from_problem(get_problem("dgp1"), LAM, ALPHA))
    assert np.array_equal(lo, np.zeros(6))
    assert np.allclose(hi, [0.7, 0.7, 0.7, 0.7, 0.7, 1.0])


def test_settings_defaults_are_the_papers_values():
    s = ACFSSettings()
    assert (s.n_a, s.n_b, s.k, s.radius, s.n_trees, s.min_leaf) == (1200, 700, 4, 0.025, 70, 15)
    assert (s.cem_iters, s.cem_pop, s.cem_draws, s.de_iters, s.de_pop) == (7, 35, 300, 55, 85)
    assert (s.n_c, s.n_f, s.keep1, s.keep2, s.n_d, s.n_starts, s.maxiter) == (
        100, 800, 60, 30, 450, 30, 80)
    assert s.de_pop + s.pool_safety + s.pool_basin == 151
    assert s.gradient == "crn" and s.cem and s.augment and s.rerank and s.antithetic
    with pytest.raises(ValueError):
        ACFSSettings(keep1=10, keep2=20)


def test_registered_variants_fix_one_switch_each_and_acfs_plus_its_phase_4():
    fixed = {m.name: dict(m.fixed) for m in ACFS_METHODS}
    assert fixed == {"acfs": {}, "acfs-noav": {"antithetic": False}, "acfs-nocem": {"cem": False},
                     "acfs-norerank": {"rerank": False}, "acfs-noaug": {"augment": False},
                     "acfs-plus": {"local": "pattern"}}
    with pytest.raises(ValueError, match="fixes"):
        ACFS_NOAV.settings({"antithetic": True})


# -- accounting and budget ---------------------------------------------------------------------
@pytest.mark.parametrize("gradient, grad_points", [("crn", 2 * 6), ("cached-w", 0)])
def test_draws_per_phase_follow_the_papers_accounting(gradient, grad_points):
    """Phase 4 charges n_d per fn call and, under 'crn', 2 d_x n_d per gradient (the same
    sample at the stencil points); the cached-W gradient re-costs W for free."""
    result, oracle, _ = run(dgp="dgp1", gradient=gradient)
    acc = result.account
    for phase, draws in pre_phase4(SMALL).items():
        assert acc[phase]["draws"] == draws, phase
    p4 = result.info["phases"]["phase4"]
    # every L-BFGS-B evaluation asks for the value and the gradient at the same point
    assert acc["phase4"]["draws"] == SMALL["n_d"] * (1 + grad_points) * p4["fn_calls"]
    assert sum(st["draws"] for st in p4["starts"]) == acc["phase4"]["draws"]
    assert all(st["grad_draws"] == grad_points * SMALL["n_d"] * st["fn_calls"]
               for st in p4["starts"])
    assert p4["n_starts"] == SMALL["n_starts"]
    assert oracle.used == sum(v["draws"] for v in acc.values()) == result.oracle_draws
    assert set(acc) == {"lhd", "cem", "augment", "stage2", "phase4"}
    assert not result.stopped_by_budget
    assert is_feasible(result.x)
    # x* is the best start by its fn value
    values = [st["value"] for st in p4["starts"]]
    assert result.value == pytest.approx(min(values))


@pytest.mark.parametrize("extra", [0, 130, 1000])
def test_budget_never_exceeded_when_phase4_is_cut(extra):
    budget = sum(pre_phase4(SMALL).values()) + extra
    result, oracle, _ = run(budget=budget, n_starts=6, maxiter=40)
    assert oracle.used <= budget
    assert result.stopped_by_budget
    assert is_feasible(result.x)
    incumbent = oracle.incumbent
    assert np.array_equal(result.x, incumbent[0]) and result.value == incumbent[1]
    # the phase-4 values replace the stage-2 incumbent once a start has finished
    stage2_best = result.info["phases"]["stage2"]["values"][0]
    done = [st["value"] for st in result.info["phases"]["phase4"]["starts"]
            if np.isfinite(st["value"])]
    assert result.value == pytest.approx(min(done) if done else stage2_best)
    # stopped because the next fn call or its gradient did not fit
    assert oracle.remaining < EVAL_POINTS * SMALL["n_d"]


def test_budget_stop_inside_cem_returns_the_cem_incumbent():
    budget = SMALL["n_a"] + SMALL["cem_pop"] * SMALL["cem_draws"] + 100
    result, oracle, task = run(dgp="dgp1", budget=budget)
    assert result.stopped_by_budget
    assert oracle.used == SMALL["n_a"] + SMALL["cem_pop"] * SMALL["cem_draws"]
    assert result.account["cem"] == {"draws": 400, "calls": 1}
    assert np.array_equal(result.x, oracle.incumbent[0]) and is_feasible(result.x)
    assert np.isfinite(result.value)


@pytest.mark.parametrize("budget, how", [(500, "kde-scored-lhd"), (30, "single-draw-lhd")])
def test_tiny_budget_still_returns_a_feasible_x(budget, how):
    problem = get_problem("dgp1")
    task = Task.from_problem(problem, LAM, ALPHA)
    oracle = Oracle(problem, budget, np.random.default_rng(1))
    # the paper's settings as given (scaled, such a budget is refused: below its minimum)
    result = ACFS(task, oracle, np.random.default_rng(0), {"scale_with_budget": False})
    assert oracle.used == budget and result.stopped_by_budget
    assert result.account["lhd"]["draws"] == budget
    assert result.info["fallback"] == how
    assert is_feasible(result.x) and np.isfinite(result.value)


def test_select_rescoring_spends_its_reserve_and_picks_a_phase4_result():
    # the cached-W gradient, whose fn calls are the only phase-4 draws, sizes the cut below
    over = dict(n_starts=4, select_top=3, select_draws=200, normals="per-call",
                gradient="cached-w")
    result, oracle, _ = run(**over)
    acc = result.account
    assert acc["select"] == {"draws": 3 * 200, "calls": 1}
    cands = result.info["phases"]["select"]["candidates"]
    ends = [st["x"] for st in result.info["phases"]["phase4"]["starts"]]
    assert any(np.allclose(result.x, c) for c in cands)
    assert all(any(np.allclose(c, e) for e in ends) for c in cands)
    # a budget cut in phase 4 still leaves the reserve for the selection
    budget = sum(pre_phase4(SMALL).values()) + 10 * SMALL["n_d"] + 600
    result, oracle, _ = run(budget=budget, **over)
    p4 = result.info["phases"]["phase4"]
    assert p4["stop_reason"] == "budget" and p4["n_starts"] >= 2
    assert result.account["phase4"]["draws"] <= 10 * SMALL["n_d"]
    n_cand = len(result.info["phases"]["select"]["candidates"])
    assert n_cand == min(3, p4["n_starts"])
    assert oracle.used <= budget and result.account["select"]["draws"] == 200 * n_cand


PATTERN = dict(local="pattern")


def test_pattern_phase4_sizes_the_refinement_from_the_draws_left_and_charges_all():
    from acfs_cli.kernels.refine import refine_sizes
    from acfs_cli.methods.saa_ps import SAA_PS

    budget = 60_000
    result, oracle, _ = run(dgp="dgp1", budget=budget, **PATTERN)
    acc = result.account
    before = pre_phase4(SMALL)
    for phase, draws in before.items():
        assert acc[phase]["draws"] == draws, phase
    assert set(acc) == {"lhd", "cem", "augment", "stage2", "search", "final"}
    ss = SAA_PS.settings()
    n_first, final_rows = refine_sizes(ss.refinement(), budget - sum(before.values()), 6)
    runs = result.info["phases"]["phase4"]["search"]
    sizes = [r["n"] for r in runs]
    assert sizes[0] == n_first and sizes == sorted(sizes)  # growing samples
    assert acc["search"]["draws"] == sum(r["n"] * r["evals"] for r in runs)
    final = result.info["phases"]["phase4"]["final_candidates"]
    assert acc["final"]["draws"] == len(final) * final_rows
    assert oracle.used == sum(v["draws"] for v in acc.values()) == result.oracle_draws <= budget
    assert is_feasible(result.x)


@pytest.mark.parametrize("extra", [0, 150, 2_000])
def test_pattern_phase4_never_exceeds_a_budget_cut_inside_it(extra):
    budget = sum(pre_phase4(SMALL).values()) + extra
    result, oracle, _ = run(budget=budget, **PATTERN)
    assert oracle.used <= budget
    assert is_feasible(result.x) and np.isfinite(result.value)
    assert np.array_equal(result.x, oracle.incumbent[0])


# -- determinism and ablations -----------------------------------------------------------------
def test_same_seed_gives_the_same_x_and_account():
    a, _, _ = run(seed=3)
    b, _, _ = run(seed=3)
    c, _, _ = run(seed=4)
    assert np.array_equal(a.x, b.x) and a.account == b.account
    assert not np.array_equal(a.x, c.x)


def test_noaug_draws_no_augmentation_and_does_not_refit():
    result, _, _ = run(ACFS_NOAUG)
    assert "augment" not in result.account
    assert "augment" not in result.info["phases"] and "refit" not in result.info["phases"]
    assert result.account["stage2"]["draws"] == SMALL["keep1"] * SMALL["n_d"]


def test_norerank_makes_no_stage2_calls_and_seeds_from_the_forest():
    result, _, _ = run(ACFS_NORERANK)
    assert "stage2" not in result.account
    p = result.info["phases"]
    x0s = [st["x0"] for st in p["phase4"]["starts"]]
    assert len(x0s) == SMALL["n_starts"]
    assert p["stage1"]["pool"]["total"] == 40


def test_nocem_makes_no_cem_draws_and_starts_de_space_filling():
    result, _, _ = run(ACFS_NOCEM)
    assert "cem" not in result.account
    p = result.info["phases"]
    assert p["de"]["n_cem_seeded"] == 0
    assert p["stage1"]["pool"] == {"de": 20, "safety": 20, "basin": 0, "total": 40}
    full, _, _ = run(ACFS)
    assert full.info["phases"]["de"]["n_cem_seeded"] == round(20 / 3)
    assert full.info["phases"]["stage1"]["pool"] == {"de": 20, "safety": 10, "basin": 10,
                                                     "total": 40}


class Recorder:
    """DGP2 that records every block of normals it is handed (to inspect antithetic pairs)."""

    def __init__(self):
        self.inner = PROBLEMS["dgp2"]()
        self.name, self.dim_x, self.dim_w = "dgp2", 6, 5
        self.single, self.batches = [], []

    def transform(self, x, z):
        return self.transform_batch(np.asarray(x)[None], np.asarray(z)[None])[0]

    def transform_batch(self, X, Z):
        # A block for one decision is a single draw (phase 4); more decisions, a batch.
        (self.single if len(X) == 1 else self.batches).append(np.array(Z[0] if len(X) == 1
                                                                       else Z))
        return self.inner.transform_batch(X, Z)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def _paired(z):
    h = len(z) // 2
    return np.array_equal(z[:h], -z[h: 2 * h])


@pytest.mark.parametrize("method, paired", [(ACFS, True), (ACFS_NOAV, False)])
def test_antithetic_switch_controls_the_pairs_in_cem_stage2_and_phase4(method, paired):
    rec = Recorder()
    result, _, _ = run(method, problem=rec)
    multi = [Z for Z in rec.batches if Z.shape[1] > 1]
    cem_stage2, gradients = multi[: SMALL["cem_iters"] + 1], multi[SMALL["cem_iters"] + 1:]
    assert all(_paired(Z[0]) == paired for Z in cem_stage2)
    assert rec.single and all(_paired(z) == paired for z in rec.single)
    # phase 4: each gradient draws the normals of its fn call again, at all 12 stencil points
    assert len(gradients) == result.info["phases"]["phase4"]["fn_calls"] == len(rec.single)
    assert all(Z.shape[0] == 2 * 6 and np.array_equal(Z[k], z)
               for Z, z in zip(gradients, rec.single, strict=True) for k in range(len(Z)))


@pytest.mark.parametrize("normals", ["per-call", "per-start", "common"])
def test_phase4_normals_are_fresh_per_call_per_start_or_common(normals):
    rec = Recorder()
    result, _, _ = run(problem=rec, normals=normals)
    p4 = result.info["phases"]["phase4"]
    sets = {z.tobytes() for z in rec.single}
    assert len(rec.single) == p4["fn_calls"] > p4["n_starts"]
    expect = {"per-call": p4["fn_calls"], "per-start": p4["n_starts"], "common": 1}[normals]
    assert len(sets) == expect


# -- phase 4 gradients -------------------------------------------------------------------------
def _objective(gradient, n_d=400, pathwise_n=200, antithetic=True, seed=0):
    toy = Toy()
    task = Task.from_problem(toy, LAM, ALPHA)
    oracle = Oracle(toy, 100_000, np.random.default_rng(seed))
    s = ACFSSettings(gradient=gradient, n_d=n_d, pathwise_n=pathwise_n, antithetic=antithetic,
                     fd_step=1e-4)
    return DrawnObjective(task, oracle, s, np.zeros(2), np.ones(2)), oracle


def _sample_J(problem, z):
    """J of a decision estimated on the normals z, straight from the problem's transform."""
    return lambda y: spectral_risk(problem.cost(problem.transform(y, z), y), LAM, ALPHA)[0]


def test_crn_gradient_is_the_central_difference_of_fn_on_its_own_normals():
    """The default gradient differences the very function fn evaluates: fn's normals pushed
    through the transform again at x +- h e_j, each of the 2 d_x points charged n_d draws."""
    problem = get_problem("dgp2")
    task = Task.from_problem(problem, LAM, ALPHA)
    oracle = Oracle(problem, 100_000, np.random.default_rng(5))
    s = ACFSSettings(n_d=200)
    obj = DrawnObjective(task, oracle, s, *box_of(task))
    x = np.array([0.10, 0.15, 0.20, 0.10, 0.10, 0.50])  # inside X, away from every face
    f = obj.fn(x)
    used = oracle.used
    g = obj.gradient(x)
    assert oracle.used - used == 2 * 6 * 200 == obj.n_grad_draws
    J = _sample_J(problem, obj.fn_sample.normals(problem.dim_w))
    assert f == pytest.approx(J(x), rel=1e-12)
    h, e = s.fd_step, np.eye(6)
    expect = np.array([(J(x + h * e[j]) - J(x - h * e[j])) / (2 * h) for j in range(6)])
    assert np.allclose(g, expect, rtol=1e-8, atol=1e-6 * np.abs(expect).max())
    # at the corner x = 0 each difference is one-sided, (h, 2h), and still on fn's normals
    x0 = np.zeros(6)
    obj.fn(x0)  # a new sample: the objective was made without phase 4's common one
    g0 = obj.gradient(x0)
    J = _sample_J(problem, obj.fn_sample.normals(problem.dim_w))
    one_sided = np.array([(4 * J(h * e[j]) - J(2 * h * e[j]) - 3 * J(x0)) / (2 * h)
                          for j in range(6)])
    assert np.allclose(g0, one_sided, rtol=1e-8, atol=1e-6 * np.abs(one_sided).max())


def test_crn_gradient_is_the_total_derivative_on_a_closed_form():
    obj, oracle = _objective("crn")
    x = np.array([0.5, 0.2])
    obj.fn(x)
    g = obj.gradient(x)
    # on normals z, W = s(x) z, so J_hat = (1 + lam) q + s(x) (mean z + lam CVaR_hat(z))
    z = obj.fn_sample.normals(1)[:, 0]
    _, ez, cz = spectral_risk(z, LAM, ALPHA)
    expect = (1 + LAM) * 2 * (x - [0.3, 0.6]) + np.array([0.1, 0.0]) * (ez + LAM * cz)
    assert np.allclose(g, expect, atol=1e-6)


def test_phase4_starts_are_recorded_and_take_several_iterations():
    """Each start reports its L-BFGS-B iterations, message, value and draws; on one sample fn
    and the 'crn' gradient agree, so the line searches succeed and the starts iterate
    (the cached-W gradient is not fn's slope: its first line search mostly fails)."""
    from acfs_cli.api import minimize

    over = {**SMALL, "maxiter": 40, "n_starts": 2}
    sol = minimize(get_problem("dgp1"), lam=LAM, budget=60_000, method="acfs", seed=3,
                   n_eval=2_000, **over)
    starts = sol.phases["phase4"]["starts"]
    assert len(starts) == 2
    assert {"start", "x0", "x", "nit", "nfev", "message", "value", "draws"} <= set(starts[0])
    assert sum(st["draws"] for st in starts) == sol.phases["phase4"]["draws"]
    assert all(st["nit"] >= 5 and "ABNORMAL" not in st["message"] for st in starts)
    assert sol.value == pytest.approx(min(st["value"] for st in starts))
    literal = minimize(get_problem("dgp1"), lam=LAM, budget=60_000, method="acfs", seed=3,
                       n_eval=2_000, **over, gradient="cached-w")
    assert max(st["nit"] for st in literal.phases["phase4"]["starts"]) <= 2


def test_a_start_cut_by_the_budget_reports_the_iterations_it_made():
    budget = sum(pre_phase4(SMALL).values()) + 8 * EVAL_POINTS * SMALL["n_d"]
    result, oracle, _ = run(dgp="dgp1", budget=budget, maxiter=40)
    last = result.info["phases"]["phase4"]["starts"][-1]
    assert last["stopped_by_budget"] and last["message"] == "oracle budget exhausted"
    assert last["nit"] >= 3 and oracle.used <= budget


def test_x_star_follows_n_d_through_phase_4():
    """Phase 4 moves x* off the stage-2 seeds, along a path that depends on its sample."""
    ends = []
    for n_d in (40, 80):
        result, _, _ = run(dgp="dgp1", budget=60_000, n_d=n_d, maxiter=40, n_starts=2)
        seeds = np.array(result.info["phases"]["stage2"]["x"])
        assert np.min(np.abs(seeds - result.x).max(axis=1)) > 0.01
        ends.append(result.x)
    assert np.abs(ends[0] - ends[1]).max() > 1e-3


def test_cached_w_gradient_sees_only_the_cost_in_x():
    obj, oracle = _objective("cached-w")
    x = np.array([0.5, 0.2])
    obj.fn(x)
    used = oracle.used
    g = obj.gradient(x)
    assert oracle.used == used  # free: re-costing cached W
    # with W fixed, J(x) = (1 + lam) q(x) + const, so the gradient is (1 + lam) grad q
    assert np.allclose(g, (1 + LAM) * 2 * (x - [0.3, 0.6]), atol=1e-6)


@pytest.mark.parametrize("antithetic", [True, False])
def test_pathwise_gradient_is_the_total_derivative_on_the_same_normals(antithetic):
    obj, oracle = _objective("pathwise", antithetic=antithetic)
    x = np.array([0.5, 0.2])
    obj.fn(x)
    used = oracle.used
    g = obj.gradient(x)
    # x and its d_x neighbours on one common sample of pathwise_n rows
    assert oracle.used - used == 3 * 200 == obj.n_grad_draws
    # on normals z, W = s(x) z, so J_hat = (1 + lam) q + s(x) (mean z + lam CVaR_hat(z))
    z = obj.grad_sample.normals(1)[:, 0]
    _, ez, cz = spectral_risk(z, LAM, ALPHA)
    expect = (1 + LAM) * 2 * (x - [0.3, 0.6]) + np.array([0.1, 0.0]) * (ez + LAM * cz)
    assert np.allclose(g, expect, atol=1e-3)


def test_pathwise_gradient_steps_backward_at_an_upper_bound():
    obj, _ = _objective("pathwise")
    x = np.array([1.0, 0.6])
    obj.fn(x)
    g = obj.gradient(x)
    z = obj.grad_sample.normals(1)[:, 0]
    _, ez, cz = spectral_risk(z, LAM, ALPHA)
    assert g[0] == pytest.approx((1 + LAM) * 2 * 0.7 + 0.1 * (ez + LAM * cz), abs=1e-3)


def test_cached_w_gradient_is_stationary_at_dgp2_corner_but_crn_and_pathwise_are_not():
    """At x = 0 on DGP2 every fixed-W partial derivative is >= 0, so L-BFGS-B stops there,
    although J decreases along x_4 (checked on a large common sample)."""
    problem = get_problem("dgp2")
    task = Task.from_problem(problem, LAM, ALPHA)
    x = np.zeros(6)
    lo, hi = box_of(task)
    grads = {"cached-w": [], "pathwise": [], "crn": []}
    for rule, seed in [(r, k) for r in grads for k in range(4)]:
        oracle = Oracle(problem, 100_000, np.random.default_rng(seed))
        s = ACFSSettings(gradient=rule, pathwise_n=450)
        obj = DrawnObjective(task, oracle, s, lo, hi)
        grads[rule].append(obj.gradient(x))
    assert np.all(np.array(grads["cached-w"]) >= 0)
    assert np.mean(grads["pathwise"], axis=0)[3] < 0  # 450 draws: negative in ~93 % of sets
    assert np.mean(grads["crn"], axis=0)[3] < 0
    z = np.random.default_rng(2).standard_normal((100_000, 5))
    step = np.zeros(6)
    step[3] = 0.05
    J0 = spectral_risk(problem.cost(problem.transform(x, z), x), LAM, ALPHA)[0]
    J1 = spectral_risk(problem.cost(problem.transform(step, z), step), LAM, ALPHA)[0]
    assert J1 < J0


# -- quality -----------------------------------------------------------------------------------
@pytest.mark.parametrize("phase4", [{"gradient": "crn"}, {"gradient": "cached-w"},
                                    {"gradient": "pathwise"}, {"local": "pattern"}])
def test_acfs_gets_close_to_a_known_optimum(phase4):
    over = dict(n_a=300, cem_iters=3, cem_pop=12, cem_draws=100, de_iters=10, n_d=200,
                pathwise_n=100, maxiter=20, min_leaf=10)
    result, oracle, _ = run(problem=Toy(), budget=60_000, **phase4, **over)
    x_star = Toy.optimum()
    assert oracle.used <= 60_000
    assert Toy.J(result.x) <= 1.02 * Toy.J(x_star)
    assert np.linalg.norm(result.x - x_star) < 0.1
    # far from every random decision: the optimum is a real finding
    u = np.random.default_rng(0).random((1000, 2))
    assert Toy.J(result.x) < np.quantile(Toy.J(u), 0.02)
