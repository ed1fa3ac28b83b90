"""SAA-PS: budget honesty, feasibility, reproducibility, accuracy on a toy with a known optimum."""

from __future__ import annotations

import numpy as np
import pytest
from toys import GaussianToy

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.methods.saa_ps import SAA_PS, SAAPSSettings
from acfs_cli.problems import feasible, get_problem

SMALL = dict(n_screen=40, n_screen_draws=50, cem_iter=2, cem_pop=12, n_cem_draws=100,
             n_ps=400, n_final=1000)


def run(problem, budget, seed=0, lam=0.7, alpha=0.95, **overrides):
    task = Task.from_problem(problem, lam, alpha)
    oracle = Oracle(problem, budget, np.random.default_rng([seed, 1]))
    result = SAA_PS(task, oracle, np.random.default_rng([seed, 2]), overrides)
    return result, oracle


def test_settings_defaults_are_valid_and_unknown_keys_rejected():
    s = SAA_PS.settings()
    assert isinstance(s, SAAPSSettings)
    assert s.n_ps >= 2000
    assert all(f.description for f in SAAPSSettings.model_fields.values())  # all documented
    with pytest.raises(ValueError):
        SAA_PS.settings({"n_pss": 10})
    with pytest.raises(ValueError):
        SAA_PS.settings({"ps_step_min": 0.5, "ps_step0": 0.1})


@pytest.mark.parametrize("budget", [5_000, 12_345, 60_000])
def test_budget_never_exceeded_on_dgp2_with_small_budgets(budget):
    result, oracle = run(get_problem("dgp2"), budget)
    assert oracle.used <= budget
    assert result.oracle_draws == oracle.used
    assert bool(feasible.is_feasible(result.x))


@pytest.mark.parametrize("budget", [5_000, 40_000])
def test_budget_never_exceeded_with_small_settings(budget):
    result, oracle = run(GaussianToy(), budget, **SMALL)
    assert oracle.used <= budget
    assert oracle.used >= 0.9 * budget  # the pattern search takes what is left
    assert bool(feasible.is_feasible(result.x))


def test_returns_a_feasible_x_on_dgp1():
    result, oracle = run(get_problem("dgp1"), 30_000, **SMALL)
    assert result.x.shape == (6,)
    assert bool(feasible.is_feasible(result.x))
    assert oracle.used <= 30_000


def test_same_seed_same_x_and_other_seed_other_x():
    a, _ = run(get_problem("dgp2"), 30_000, seed=4, **SMALL)
    b, _ = run(get_problem("dgp2"), 30_000, seed=4, **SMALL)
    c, _ = run(get_problem("dgp2"), 30_000, seed=5, **SMALL)
    np.testing.assert_array_equal(a.x, b.x)
    assert a.info == b.info
    assert not np.array_equal(a.x, c.x)


def test_stage_accounting_reserves_the_final_pick():
    s = SAA_PS.settings(SMALL)
    result, oracle = run(GaussianToy(), 100_000, **SMALL)
    assert result.info["draws_per_decision"]["ps"] == s.n_ps  # the plan fits: no scaling
    acc = oracle.account
    assert set(acc) == {"screen", "cem", "pattern", "final"}
    assert acc["screen"]["draws"] == s.n_screen * s.n_screen_draws
    assert acc["cem"]["draws"] == s.cem_iter * s.cem_pop * s.n_cem_draws
    assert acc["final"]["draws"] == s.n_final_candidates * s.n_final
    # every decision of the pattern search is charged exactly n_ps draws
    assert acc["pattern"]["draws"] % s.n_ps == 0
    assert sum(a["draws"] for a in acc.values()) == oracle.used


def test_small_budget_scales_every_stage_down_together():
    result, oracle = run(GaussianToy(), 5_000)
    n = result.info["draws_per_decision"]
    s = SAA_PS.settings()
    assert n["ps"] < s.n_ps and n["final"] < s.n_final and n["screen"] <= s.n_screen_draws
    assert all(v % 2 == 0 and v >= 2 for v in n.values())
    assert oracle.used <= 5_000


@pytest.mark.parametrize(("lam", "seed"), [(0.5, 0), (0.7, 1), (0.9, 2)])
def test_gets_close_to_the_known_optimum_of_a_toy_problem(lam, seed):
    toy = GaussianToy()
    x_star = toy.argmin(lam, 0.95)
    assert x_star[:5].sum() == pytest.approx(feasible.SUM_CAP)  # optimum on the face
    result, oracle = run(toy, 100_000, seed=seed, lam=lam, n_ps=1000, n_final=4000)
    j, j_star = toy.J(result.x, lam, 0.95), toy.J(x_star, lam, 0.95)
    assert (j - j_star) / j_star < 0.005
    assert np.linalg.norm(result.x - x_star) < 0.05
    assert oracle.used <= 100_000


def test_incumbent_is_recorded_so_a_budget_stop_still_answers():
    toy = GaussianToy()
    task = Task.from_problem(toy, 0.7, 0.95)
    # A budget too small for the planned final pick after the search has started.
    oracle = Oracle(toy, 3_000, np.random.default_rng(0))
    result = SAA_PS(task, oracle, np.random.default_rng(1), SMALL)
    assert oracle.incumbent is not None
    assert bool(feasible.is_feasible(result.x))
    assert oracle.used <= 3_000


def test_default_settings_on_dgp2_land_on_its_optimal_face():
    # DGP2's optimum (reference search and the project's brief): x4 in about [0.35, 0.55],
    # every other coordinate at 0.
    result, oracle = run(get_problem("dgp2"), 260_000, seed=7)
    assert oracle.used <= 260_000
    assert 0.3 <= result.x[3] <= 0.6
    assert np.all(np.delete(result.x, 3) <= 0.02)


@pytest.mark.parametrize("budget", [700, 1_000, 2_000])
def test_tiny_budgets_still_return_a_feasible_incumbent(budget):
    # At 700 draws the screen and the CEM leave no room for any pattern search.
    result, oracle = run(GaussianToy(), budget)
    assert oracle.used <= budget
    assert bool(feasible.is_feasible(result.x))
    assert np.isfinite(result.value)


def test_median_of_means_is_the_median_of_the_batch_estimates_on_common_draws():
    from acfs_cli.methods.saa_ps import median_of_means
    from acfs_cli.risk import spectral_risk

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
