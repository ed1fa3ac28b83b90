"""SAA-PS: budget honesty, feasibility, reproducibility, accuracy on a toy with a known optimum."""

from __future__ import annotations

import numpy as np
import pytest
from toys import GaussianToy

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.methods.saa_ps import SAA_PS, SAAPSSettings, plan
from acfs_cli.problems import feasible, get_problem


def run(problem, budget, seed=0, lam=0.7, alpha=0.95, **overrides):
    task = Task.from_problem(problem, lam, alpha)
    oracle = Oracle(problem, budget, np.random.default_rng([seed, 1]))
    result = SAA_PS(task, oracle, np.random.default_rng([seed, 2]), overrides)
    return result, oracle


def test_settings_defaults_are_valid_and_unknown_keys_rejected():
    s = SAA_PS.settings()
    assert isinstance(s, SAAPSSettings)
    assert all(f.description for f in SAAPSSettings.model_fields.values())  # all documented
    with pytest.raises(ValueError):
        SAA_PS.settings({"n_pss": 10})
    with pytest.raises(ValueError):
        SAA_PS.settings({"step_min": 0.5, "step0": 0.1})
    with pytest.raises(ValueError, match="at least 10 %"):
        SAA_PS.settings({"screen_share": 0.4, "cem_share": 0.3, "final_share": 0.3})


@pytest.mark.parametrize("budget", [5_000, 26_000, 260_000, 2_600_000])
@pytest.mark.parametrize("dim", [2, 6, 50])
def test_the_plan_shares_the_budget_and_grows_its_samples_like_the_square_root(budget, dim):
    s = SAA_PS.settings()
    p = plan(s, budget, dim)
    assert p.screen_points >= 2 * dim + 2
    screen = p.screen_points * p.screen_rows
    assert screen <= max(s.screen_share * budget, p.screen_points * 2) + 2 * p.screen_points
    assert p.cem_iter * p.cem_pop * p.cem_rows <= s.cem_share * budget + 2 * p.cem_iter * p.cem_pop
    assert p.final_rows * s.final_candidates <= s.final_share * budget + 2 * s.final_candidates
    assert all(v % 2 == 0 for v in (p.screen_rows, p.cem_rows, p.final_rows, p.n_first))
    assert p.n_first <= s.n_max
    ten = plan(s, 10 * budget, dim)
    assert ten.final_rows == pytest.approx(10 * p.final_rows, rel=0.01, abs=2)
    assert ten.screen_points >= p.screen_points and ten.n_first >= p.n_first


@pytest.mark.parametrize("budget", [5_000, 12_345, 60_000])
def test_budget_never_exceeded_and_nearly_all_of_it_used_on_dgp2(budget):
    result, oracle = run(get_problem("dgp2"), budget)
    assert 0.97 * budget <= oracle.used <= budget
    assert result.oracle_draws == oracle.used
    assert bool(feasible.is_feasible(result.x))


def test_stage_accounting_follows_the_plan_and_reserves_the_final_pick():
    budget = 100_000
    s = SAA_PS.settings()
    p = plan(s, budget, 6)
    result, oracle = run(GaussianToy(), budget)
    acc = oracle.account
    assert set(acc) == {"screen", "cem", "search", "final"}
    assert acc["screen"]["draws"] == p.screen_points * p.screen_rows
    assert acc["cem"]["draws"] == p.cem_iter * min(p.cem_pop, p.screen_points) * p.cem_rows
    assert acc["final"]["draws"] == len(result.info["final_candidates"]) * p.final_rows
    runs = result.info["search"]
    sizes = [r["n"] for r in runs]
    assert sizes[0] == p.n_first
    assert all(b == 2 * a or b == s.n_max for a, b in zip(sizes, sizes[1:], strict=False))
    assert acc["search"]["draws"] == sum(r["n"] * r["evals"] for r in runs)
    assert sum(a["draws"] for a in acc.values()) == oracle.used


def test_same_seed_same_x_and_other_seed_other_x():
    a, _ = run(get_problem("dgp2"), 30_000, seed=4)
    b, _ = run(get_problem("dgp2"), 30_000, seed=4)
    c, _ = run(get_problem("dgp2"), 30_000, seed=5)
    np.testing.assert_array_equal(a.x, b.x)
    assert a.info == b.info
    assert not np.array_equal(a.x, c.x)


@pytest.mark.parametrize(("lam", "seed"), [(0.5, 0), (0.7, 1), (0.9, 2)])
def test_gets_close_to_the_known_optimum_of_a_toy_problem(lam, seed):
    toy = GaussianToy()
    x_star = toy.argmin(lam, 0.95)
    assert x_star[:5].sum() == pytest.approx(feasible.SUM_CAP)  # optimum on the face
    result, oracle = run(toy, 100_000, seed=seed, lam=lam)
    j, j_star = toy.J(result.x, lam, 0.95), toy.J(x_star, lam, 0.95)
    assert (j - j_star) / j_star < 0.005
    assert np.linalg.norm(result.x - x_star) < 0.05
    assert oracle.used <= 100_000


def test_a_budget_below_the_minimum_is_refused_naming_it():
    from acfs_cli.methods.base import BudgetTooSmall

    need = SAA_PS.minimum_budget(6)
    with pytest.raises(BudgetTooSmall, match=f"saa-ps needs at least {need:,} draws"):
        run(GaussianToy(), need - 1)
    result, oracle = run(GaussianToy(), need)
    assert oracle.used <= need and bool(feasible.is_feasible(result.x))
    assert np.isfinite(result.value)


def test_the_final_pick_keeps_the_averaged_solution_unless_another_is_clearly_better():
    from acfs_cli.kernels.refine import pick

    lam, alpha = 0.7, 0.95
    task = Task.from_problem(GaussianToy(), lam, alpha)
    rng = np.random.default_rng(0)
    base = rng.standard_normal(4000)
    noisy = base - 0.01 + 3.0 * rng.standard_normal(4000)  # better on average, very noisy
    far = base - 1.0 + 0.1 * rng.standard_normal(4000)  # clearly better

    def psi(c):  # influence values of J, written out
        tau = np.quantile(c, alpha, method="inverted_cdf")
        return c + lam * (tau + np.maximum(c - tau, 0) / (1 - alpha))

    for other, expect_switch in ((noisy, False), (far, True)):
        costs = np.stack([base, other])
        values = task.risk(costs)[0]
        d = psi(other) - psi(base)
        significant = d.mean() < -d.std(ddof=1) / np.sqrt(d.size)
        assert significant == expect_switch
        assert pick(task, values, costs, guard=1.0) == int(significant and values[1] < values[0])
        assert pick(task, values, costs, guard=0.0) == int(np.argmin(values))


def test_median_of_means_is_the_median_of_the_batch_estimates_on_common_draws():
    from acfs_cli.core.risk import spectral_risk
    from acfs_cli.kernels.refine import median_of_means

    problem = get_problem("dgp1")
    task = Task.from_problem(problem, 0.7, 0.95)
    X = np.array([[0.0, 0.3, 0.55, 0.0, 0.0, 1.0], [0.0, 0.55, 0.3, 0.0, 0.0, 1.0]])
    oracle = Oracle(problem, 10_000, np.random.default_rng(0))
    got = median_of_means(task, oracle, X, 4_000, batches=4)
    assert oracle.used == 2 * 4_000
    # by hand: the oracle's first common sample (antithetic normals), batches of 500 pairs
    z = Oracle(problem, 10, np.random.default_rng(0)).common_sample(4_000, antithetic=True
                                                                     ).normals(5)
    np.testing.assert_array_equal(z[:2_000], -z[2_000:])
    for x, value in zip(X, got, strict=True):
        costs = problem.cost(problem.transform(x, z), x)
        batch = [np.r_[costs[i:i + 500], costs[2_000 + i:2_000 + i + 500]]
                 for i in range(0, 2_000, 500)]
        expected = np.median([spectral_risk(c, 0.7, 0.95)[0] for c in batch])
        assert value == pytest.approx(expected, rel=1e-12)
