"""The stochastic constraints measured on rows (``acfs_cli.core.feasibility``): the sample
level a search keeps at or below zero, and the statement (estimate, 95 % interval, verdict)
that comes with an answer, checked against direct counts and scipy's intervals."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from acfs_cli.core.declared import StochasticConstraint
from acfs_cli.core.feasibility import (
    FEASIBLE,
    INFEASIBLE,
    UNDECIDED,
    levels,
    measure,
    spread,
    verdict,
)

CHANCE = (StochasticConstraint("wait", 0.05),)
MEAN = (StochasticConstraint("overtime"),)


def test_a_chance_level_is_at_most_zero_exactly_when_at_most_eps_of_the_rows_exceed_zero():
    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(20, 400))
        g = rng.normal(rng.uniform(-3, 0), 1.0, size=(n, 1))
        level = levels(g, CHANCE)[0]
        assert (level <= 0) == ((g > 0).sum() <= np.floor(0.05 * n + 1e-9))


def test_a_mean_level_is_the_sample_mean_and_its_margin_is_z_standard_errors():
    g = np.random.default_rng(4).normal(-1.0, 2.0, size=(500, 1))
    assert levels(g, MEAN)[0] == pytest.approx(g.mean())
    tightened = levels(g, MEAN, margin_rows=100, z=2.0)[0]
    assert tightened == pytest.approx(g.mean() + 2.0 * g.std(ddof=1) / 10.0)


def test_a_chance_margin_lowers_eps_by_z_standard_errors_of_a_share():
    g = np.random.default_rng(5).normal(size=(10_000, 1))
    eps = 0.05 - 2.0 * np.sqrt(0.05 * 0.95 / 400)
    assert levels(g, CHANCE, margin_rows=400)[0] == pytest.approx(
        np.quantile(g[:, 0], 1 - eps, method="inverted_cdf"))


def test_levels_are_vectorised_over_leading_axes():
    G = np.random.default_rng(6).normal(size=(3, 4, 50, 2))
    both = (CHANCE[0], MEAN[0])
    out = levels(G, both)
    assert out.shape == (3, 4, 2)
    assert out[1, 2, 1] == pytest.approx(G[1, 2, :, 1].mean())
    assert out[2, 0, 0] == levels(G[2, 0], both)[0]


def test_the_share_interval_is_wilsons_as_scipy_computes_it():
    g = np.r_[np.ones(7), -np.ones(193)][:, None]
    (found,) = measure(g, CHANCE)
    ci = stats.binomtest(7, 200).proportion_ci(confidence_level=0.95, method="wilson")
    assert found.estimate == pytest.approx(7 / 200)
    assert (found.low, found.high) == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_the_mean_interval_is_the_normal_interval_of_the_mean():
    g = np.random.default_rng(7).normal(-0.3, 1.5, size=(800, 1))
    (found,) = measure(g, MEAN)
    low, high = stats.norm.interval(0.95, loc=g.mean(), scale=g.std(ddof=1) / np.sqrt(800))
    assert (found.low, found.high) == pytest.approx((low, high), rel=1e-9)


def test_the_share_interval_covers_the_true_share_about_95_percent_of_the_time():
    # 1,000 samples of 400 rows at p = 0.05: the coverage's own SD is 0.7 points
    rng = np.random.default_rng(8)
    g = np.where(rng.random((1000, 400)) < 0.05, 1.0, -1.0)
    covered = [(e.low <= 0.05 <= e.high) for e in (measure(s[:, None], CHANCE)[0] for s in g)]
    assert 0.92 <= np.mean(covered) <= 0.98


def test_the_verdict_needs_the_whole_interval_on_one_side_of_the_bound():
    rows = np.r_[np.ones(2), -np.ones(998)][:, None]  # 0.2 %: well below 5 %
    assert measure(rows, CHANCE)[0].verdict == FEASIBLE
    rows = np.r_[np.ones(300), -np.ones(700)][:, None]  # 30 %
    assert measure(rows, CHANCE)[0].verdict == INFEASIBLE
    rows = np.r_[np.ones(5), -np.ones(95)][:, None]  # 5 % on 100 rows
    assert measure(rows, CHANCE)[0].verdict == UNDECIDED
    g = np.c_[np.r_[np.ones(2), -np.ones(998)], np.full(1000, -1.0)]
    both = measure(g, (CHANCE[0], MEAN[0]))
    assert verdict(both) == FEASIBLE and verdict([]) == FEASIBLE
    assert verdict([both[0], measure(np.r_[np.ones(300), -np.ones(700)][:, None],
                                     CHANCE)[0]]) == INFEASIBLE


def test_an_estimate_describes_itself_in_one_line():
    (found,) = measure(np.r_[np.ones(7), -np.ones(193)][:, None], CHANCE)
    text = found.describe()
    assert text.startswith("P(wait > 0) = 0.035 (95 % interval") and "bound 0.05" in text
    assert found.as_dict()["verdict"] == found.verdict


def test_spread_of_a_constant_is_its_size_not_its_rounding_error():
    # g = 0 - 0.05 in floating point: an sd of ~1e-17 is no unit for a violation
    G = (np.zeros((50, 1)) + 0.3 - 0.35) * np.ones((50, 1))
    G[::7] += 1e-17
    assert spread(G)[0] == pytest.approx(0.05, rel=1e-6)
