"""The final paired evaluation (paper Section 4.2, DESIGN.md section 5), outside the budget."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import TABLE, TABLE_ALPHA, TABLE_LAM, TABLE_X

from acfs_cli.experiment.evaluate import evaluate, evaluate_precise, final_pool, precise_stream
from acfs_cli.problems import get_problem


def independent_j(costs, lam, alpha):
    """J from sorted costs: mean + lam * (1/(1-alpha)) * integral_alpha^1 of the quantile."""
    s = np.sort(costs)
    n = len(s)
    lo, hi = np.arange(n) / n, np.arange(1, n + 1) / n
    cvar = float((s * np.clip(hi - np.maximum(lo, alpha), 0, None)).sum() / (1 - alpha))
    return float(s.mean() + lam * cvar), float(s.mean()), cvar


def test_final_pool_depends_on_seed_dgp_and_rep_only():
    a = final_pool(42, "dgp1", 3).normals(5)
    assert a.shape == (2000, 5)
    # Other streams, global numpy state and earlier pools change nothing.
    np.random.seed(0)  # noqa: NPY002 - proves that the global state is not used
    final_pool(42, "dgp2", 7).normals(5)
    np.random.default_rng(5).standard_normal(100)
    assert np.array_equal(final_pool(42, "dgp1", 3).normals(5), a)
    assert np.array_equal(final_pool(42, "dgp1", np.int64(3)).normals(5), a)
    for other in (final_pool(43, "dgp1", 3), final_pool(42, "dgp2", 3), final_pool(42, "dgp1", 4)):
        assert not np.allclose(other.normals(5), a)
    # The pool is standard normal.
    big = final_pool(1, "dgp1", 0, n=100_000).normals(5)
    assert abs(big.mean()) < 5 / math.sqrt(big.size)
    assert abs(big.std() - 1) < 5 / math.sqrt(2 * big.size)
    assert abs(np.corrcoef(big.T)[0, 1]) < 5 / math.sqrt(100_000)


def test_precise_stream_is_apart_from_the_final_pool():
    z1 = precise_stream(42, "dgp1", 3).standard_normal((2000, 5))
    assert not np.allclose(z1, final_pool(42, "dgp1", 3).normals(5))
    z2 = precise_stream(42, "dgp1", 3).standard_normal((2000, 5))
    assert np.array_equal(z1, z2)


@pytest.mark.parametrize("name", ["dgp1", "dgp2"])
def test_evaluate_j_equals_the_risk_of_the_independently_computed_costs(name):
    problem = get_problem(name)
    x = np.array(TABLE_X[1])
    z = final_pool(7, name, 0)
    out = evaluate(problem, x, z, TABLE_LAM, TABLE_ALPHA, rng=np.random.default_rng(0))
    costs = problem.cost(problem.transform(x, z.normals(problem.dim_w)), x)
    J, ec, cvar = independent_j(costs, TABLE_LAM, TABLE_ALPHA)
    assert out["J"] == pytest.approx(J, rel=1e-12)
    assert out["EC"] == pytest.approx(ec, rel=1e-12)
    assert out["CVaR"] == pytest.approx(cvar, rel=1e-12)
    assert out["J_lo"] <= out["J"] <= out["J_hi"]


def test_bootstrap_interval_is_reproducible_and_its_width_matches_the_standard_error():
    problem = get_problem("dgp2")
    x = np.array(TABLE_X[0])
    z = final_pool(11, "dgp2", 1)
    a = evaluate(problem, x, z, TABLE_LAM, TABLE_ALPHA, rng=np.random.default_rng(3))
    b = evaluate(problem, x, z, TABLE_LAM, TABLE_ALPHA, rng=np.random.default_rng(3))
    c = evaluate(problem, x, z, TABLE_LAM, TABLE_ALPHA, rng=np.random.default_rng(4))
    assert a == b
    assert (a["J_lo"], a["J_hi"]) != (c["J_lo"], c["J_hi"])
    assert a["J_lo"] < a["J"] < a["J_hi"]
    # A 95 % interval is about 2 * 1.96 asymptotic SEs wide (influence function of J).
    costs = problem.cost(problem.transform(x, z.normals(problem.dim_w)), x)
    tau = np.sort(costs)[math.ceil(TABLE_ALPHA * len(costs)) - 1]
    psi = costs + TABLE_LAM * (tau + np.maximum(costs - tau, 0) / (1 - TABLE_ALPHA))
    se = psi.std() / math.sqrt(len(costs))
    width = a["J_hi"] - a["J_lo"]
    assert 0.6 < width / (2 * 1.96 * se) < 1.5


def test_evaluate_without_bootstrap_leaves_the_interval_empty():
    problem = get_problem("dgp2")
    out = evaluate(problem, np.array(TABLE_X[0]), final_pool(1, "dgp2", 0), 0.5, 0.9, n_boot=0)
    assert math.isnan(out["J_lo"]) and math.isnan(out["J_hi"])


def test_evaluate_rejects_an_infeasible_decision():
    problem = get_problem("dgp2")
    with pytest.raises(ValueError, match=r"\bx\b"):
        evaluate(problem, np.full(6, 0.5), final_pool(1, "dgp2", 0), 0.7, 0.95)


@pytest.mark.parametrize("key", [("dgp2", 0), ("dgp2", 1), ("dgp2", 2), ("dgp1", 1)])
def test_evaluate_precise_agrees_with_the_table_within_its_standard_errors(key):
    name, i = key
    _, ec_ref, ec_se_ref, j_ref, j_se_ref = TABLE[key]
    out = evaluate_precise(
        get_problem(name),
        np.array(TABLE_X[i]),
        TABLE_LAM,
        TABLE_ALPHA,
        n=300_000,
        rng=np.random.default_rng(100 + i),
        chunk=70_000,
    )
    assert set(out) == {"J_true", "EC_true", "CVaR_true", "J_true_se"}
    assert abs(out["J_true"] - j_ref) < 5 * math.hypot(out["J_true_se"], j_se_ref)
    # The EC's SE is not returned; a generous bound from the table's SE scaled to n.
    assert abs(out["EC_true"] - ec_ref) < 5 * ec_se_ref * math.sqrt(1e7 / 300_000)
    assert out["J_true"] == pytest.approx(out["EC_true"] + TABLE_LAM * out["CVaR_true"])


def test_evaluate_precise_is_reproducible_and_chunking_does_not_change_it():
    problem = get_problem("dgp2")
    x = np.array(TABLE_X[2])
    a = evaluate_precise(problem, x, 0.7, 0.95, n=10_000, rng=np.random.default_rng(1))
    b = evaluate_precise(problem, x, 0.7, 0.95, n=10_000, rng=np.random.default_rng(1), chunk=777)
    assert a["J_true"] == pytest.approx(b["J_true"], rel=1e-12)
    assert a["J_true_se"] == pytest.approx(b["J_true_se"], rel=1e-9)


def test_standard_error_matches_the_spread_of_repeated_small_sample_estimates():
    # DGP2's tail is light enough for the asymptotic SE to hold at n = 2,000: the SD of 300
    # independent estimates (relative SE about 1 / sqrt(600), 4 %) matches the median SE.
    problem = get_problem("dgp2")
    x = np.array(TABLE_X[0])
    rng = np.random.default_rng(21)
    runs = [evaluate_precise(problem, x, 0.7, 0.95, n=2000, rng=rng) for _ in range(300)]
    J = np.array([r["J_true"] for r in runs])
    se = np.median([r["J_true_se"] for r in runs])
    assert 0.8 < J.std(ddof=1) / se < 1.25
