"""Statistics of the comparison tables (paper Section 4.2, DESIGN.md section 6) against independent
computations: hand-worked cases, full enumeration, R's formulas, scipy, statsmodels, pingouin."""

from __future__ import annotations

import itertools

import numpy as np
import pingouin
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from acfs_cli.report.stats import (
    gap_pct,
    holm,
    median_curve_area,
    median_curve_area_ci,
    median_diff_ci,
    paired_differences,
    quantile,
    rank_biserial,
    sigma_ratio,
    signed_rank_sums,
    solved_share,
    stars,
    trapezoid,
    wilcoxon_paired_less,
    win_rate,
)


def exact_signed_rank_p_less(d: np.ndarray) -> float:
    """P(V <= v_observed) under H0 by enumerating all 2^n sign patterns of the ranks."""
    d = d[d != 0]
    ranks = sps.rankdata(np.abs(d))
    observed = ranks[d > 0].sum()
    sums = [
        sum(r for r, positive in zip(ranks, signs, strict=True) if positive)
        for signs in itertools.product([False, True], repeat=d.size)
    ]
    return float(np.mean(np.asarray(sums) <= observed + 1e-9))


def r_normal_approximation_p_less(d: np.ndarray) -> float:
    """R's wilcox.test normal approximation for alternative = "less" (stats:::wilcox.test.default):
    zeros dropped, tie-corrected variance, continuity correction -0.5."""
    d = d[d != 0]
    n = d.size
    ranks = sps.rankdata(np.abs(d))
    v = ranks[d > 0].sum()
    _, tie_counts = np.unique(ranks, return_counts=True)
    sigma = np.sqrt(n * (n + 1) * (2 * n + 1) / 24 - np.sum(tie_counts**3 - tie_counts) / 48)
    z = (v - n * (n + 1) / 4 + 0.5) / sigma
    return float(sps.norm.cdf(z))


# R's documented example (?wilcox.test, depression scale before/after therapy):
# wilcox.test(x, y, paired = TRUE, alternative = "greater") gives V = 40, p-value = 0.01953.
R_X = np.array([1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30])
R_Y = np.array([0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29])


def test_wilcoxon_reproduces_r_documented_example():
    # "y < x" is R's "x greater than y" with the roles swapped: V' = 45 - 40, p = 10 / 2^9.
    result = wilcoxon_paired_less(R_Y, R_X)
    assert result.exact
    assert result.statistic == 5
    assert result.pvalue == pytest.approx(10 / 512, abs=1e-12)
    assert round(result.pvalue, 5) == 0.01953


def test_wilcoxon_is_exact_for_small_samples_without_ties_or_zeros():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=12), rng.normal(size=12) + 0.3
    result = wilcoxon_paired_less(a, b)
    assert result.exact
    assert result.pvalue == pytest.approx(exact_signed_rank_p_less(a - b), abs=1e-12)


@pytest.mark.parametrize(
    ("d", "reason"),
    [
        (np.array([-3.0, -1.0, 2.0, -5.0, -4.0, -1.0, 6.0, -7.0, -8.0, -9.0]), "tie"),
        (np.array([-3.0, 0.0, 2.0, -5.0, -4.0, -1.5, 6.0, -7.0, -8.0, -9.0]), "zero"),
    ],
)
def test_wilcoxon_uses_r_normal_approximation_with_ties_or_zeros(d, reason):
    result = wilcoxon_paired_less(d, np.zeros_like(d))
    assert not result.exact, reason
    assert result.pvalue == pytest.approx(r_normal_approximation_p_less(d), rel=1e-12)


def test_wilcoxon_switches_to_normal_approximation_at_50_differences():
    rng = np.random.default_rng(2)
    d = rng.normal(0.2, 1.0, size=50)
    below = wilcoxon_paired_less(d[:49], np.zeros(49))
    at = wilcoxon_paired_less(d, np.zeros(50))
    assert below.exact and not at.exact
    assert at.pvalue == pytest.approx(r_normal_approximation_p_less(d), rel=1e-12)
    expected_exact = sps.wilcoxon(d[:49], alternative="less", method="exact").pvalue
    assert below.pvalue == pytest.approx(expected_exact, rel=1e-12)


def test_wilcoxon_counts_only_nonzero_differences():
    d = np.array([0.0, 0.0, -1.0, -2.0, 3.0])
    assert wilcoxon_paired_less(d, np.zeros(5)).n == 3


def test_wilcoxon_p_value_is_nan_when_every_difference_is_zero():
    assert np.isnan(wilcoxon_paired_less([1.0, 2.0], [1.0, 2.0]).pvalue)


def test_signed_rank_sums_by_hand():
    # d = [1, 2, 3, -4]: ranks of |d| are 1..4, R+ = 1 + 2 + 3 = 6, R- = 4.
    assert signed_rank_sums([1, 2, 3, -4], [0, 0, 0, 0]) == (6.0, 4.0)


def test_rank_biserial_by_hand_is_negative_when_competitor_mostly_lower():
    # R+ = 6, R- = 4: (R- - R+) / (R+ + R-) = -2 / 10; the reference is higher more often.
    assert rank_biserial([1, 2, 3, -4], [0, 0, 0, 0]) == pytest.approx(-0.2)


def test_rank_biserial_drops_zeros_and_averages_tied_ranks():
    # d = [0, 1, -1, 2] -> |d| = [1, 1, 2] after dropping 0, ranks [1.5, 1.5, 3]:
    # R+ = 1.5 + 3 = 4.5, R- = 1.5, r = (1.5 - 4.5) / 6 = -0.5.
    assert rank_biserial([0, 1, -1, 2], [0, 0, 0, 0]) == pytest.approx(-0.5)


def test_rank_biserial_is_one_when_reference_lower_in_every_replication():
    a = np.arange(10.0)
    assert rank_biserial(a, a + np.linspace(1, 3, 10)) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_rank_biserial_matches_pingouin(seed):
    rng = np.random.default_rng(seed)
    a = np.round(rng.normal(100, 10, 40))
    b = np.round(a + rng.normal(2, 6, 40))  # rounding makes ties and zeros
    # pingouin's RBC is (R- - R+) / sum with alternative="less", (R+ - R-) / sum otherwise.
    less = pingouin.wilcoxon(a, b, alternative="less")["RBC"].iloc[0]
    two_sided = pingouin.wilcoxon(a, b, alternative="two-sided")["RBC"].iloc[0]
    assert rank_biserial(a, b) == pytest.approx(less, abs=1e-12)
    assert rank_biserial(a, b) == pytest.approx(-two_sided, abs=1e-12)


def test_holm_by_hand():
    # Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> running max.
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm_matches_statsmodels_and_caps_at_one():
    p = np.array([0.2, 0.6, 0.01, 0.45, 0.9])
    assert holm(p) == pytest.approx(multipletests(p, method="holm")[1])
    assert holm(p).max() == 1.0


def test_holm_leaves_nan_out_of_the_family():
    adjusted = holm([0.01, np.nan, 0.04])
    assert np.isnan(adjusted[1])
    assert adjusted[[0, 2]] == pytest.approx([0.02, 0.04])


def test_median_diff_ci_gives_median_of_paired_differences():
    result = median_diff_ci([5.0, 1.0, 7.0, 3.0], [1.0, 2.0, 3.0, 4.0], rng=0)
    assert result.median == pytest.approx(np.median([4.0, -1.0, 4.0, -1.0]))
    assert result.lo <= result.median <= result.hi


def test_median_diff_ci_is_reproducible_from_the_seed():
    rng = np.random.default_rng(6)
    a, b = rng.normal(size=30), rng.normal(size=30)
    assert median_diff_ci(a, b, rng=11) == median_diff_ci(a, b, rng=np.random.default_rng(11))
    assert median_diff_ci(a, b, rng=11) != median_diff_ci(a, b, rng=12)


def test_median_diff_ci_collapses_for_constant_differences():
    assert median_diff_ci(np.arange(8.0), np.arange(8.0) + 2.5, rng=0) == (-2.5, -2.5, -2.5)


def test_median_diff_ci_agrees_with_scipy_percentile_bootstrap():
    rng = np.random.default_rng(7)
    d = rng.standard_t(3, size=80)
    ours = median_diff_ci(d, np.zeros_like(d), n_boot=20_000, rng=1)
    theirs = sps.bootstrap(
        (d,), np.median, method="percentile", n_resamples=20_000, random_state=2
    ).confidence_interval
    width = theirs.high - theirs.low
    assert ours.lo == pytest.approx(theirs.low, abs=0.05 * width)
    assert ours.hi == pytest.approx(theirs.high, abs=0.05 * width)


def test_win_rate_counts_strict_wins_only():
    assert win_rate([1, 2, 3, 4], [2, 2, 1, 5]) == pytest.approx(0.5)


def test_gap_pct_reproduces_paper_value():
    # Paper Table "results summary": GP-BO 147,284 vs ACFS 141,747 on DGP1, lambda 0.5: +3.91.
    assert round(float(gap_pct(147_284, 141_747)), 2) == 3.91


def test_gap_pct_is_positive_for_a_worse_method_also_when_j_is_negative():
    assert float(gap_pct(-90.0, -100.0)) == pytest.approx(10.0)  # -90 is worse than -100
    assert float(gap_pct(110.0, 100.0)) == pytest.approx(10.0)


def test_sigma_ratio_reproduces_paper_value():
    # Paper Table "Ablation": ACFS-NoAV SD 19,904 vs ACFS-Full 23,146 on DGP1: 0.860.
    assert round(float(sigma_ratio(19_904, 23_146)), 3) == 0.860


@pytest.mark.parametrize(
    ("p", "mark"),
    [(0.0009, "***"), (0.001, "**"), (0.0099, "**"), (0.01, "*"), (0.0499, "*"), (0.05, "ns")],
)
def test_stars_follow_the_paper_thresholds(p, mark):
    assert stars(p) == mark


def test_paired_differences_reject_unequal_lengths_and_missing_values():
    with pytest.raises(ValueError, match="length"):
        paired_differences([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="finite"):
        paired_differences([1, np.nan], [1, 2])


# ---------------------------------------------------------------------------------------------
# Progress curves, solvability and rankings


def test_quantile_is_r_type_7_and_reaches_infinity_only_when_interpolating_towards_it():
    values = [3.0, 1.0, 4.0, 1.5, 9.0]
    for q in (0.0, 0.25, 0.5, 0.75, 1.0):
        assert quantile(values, q) == pytest.approx(np.quantile(values, q))
    # sorted [1, 2, inf, inf]: the 25 % point (h = 0.75) lies between 1 and 2, the median
    # (h = 1.5) between 2 and inf
    assert quantile([np.inf, 1.0, 2.0, np.inf], 0.25) == pytest.approx(1.75)
    assert quantile([np.inf, 1.0, 2.0, np.inf], 0.5) == np.inf
    assert quantile([1.0, np.inf], 0.0) == 1.0  # not inf * 0 = NaN
    with pytest.raises(ValueError):
        quantile([1.0, np.nan], 0.5)


def test_solved_share_counts_by_hand_and_never_counts_a_missing_answer():
    values = [0.2, 1.0, 1.01, 4.9, 5.0, 7.0, np.inf, -0.3]
    assert solved_share(values, 1.0) == 3 / 8  # 0.2, 1.0, -0.3
    assert solved_share(values, 5.0) == 6 / 8
    assert solved_share([np.inf, np.inf], 1e9) == 0.0


def test_area_is_the_hand_computed_trapezoid_of_the_column_medians():
    x = [0.05, 0.1, 0.2, 0.5, 1.0]
    values = np.array([
        [90.0, 40.0, 10.0, 2.0, 0.5],
        [80.0, 50.0, 30.0, 1.0, 0.1],
        [np.inf, 60.0, 20.0, 4.0, 0.3],
    ])
    # column medians 90, 50, 20, 2, 0.3
    by_hand = (0.05 * (90 + 50) / 2 + 0.1 * (50 + 20) / 2 + 0.3 * (20 + 2) / 2
               + 0.5 * (2 + 0.3) / 2)
    assert median_curve_area(x, values) == pytest.approx(by_hand)
    assert trapezoid([0, 1, 3], [2, 4, 0]) == pytest.approx(3 + 4)
    assert trapezoid([0, 1], [1, np.inf]) == np.inf


def test_area_interval_holds_the_estimate_is_reproducible_and_narrows_with_replications():
    rng = np.random.default_rng(5)
    x = np.array([0.1, 0.2, 0.5, 1.0])

    def curves(n):
        start = rng.lognormal(np.log(50), 0.5, size=(n, 1))
        return start * np.array([1.0, 0.5, 0.1, 0.02]) * rng.lognormal(0, 0.3, (n, 4))

    small, large = curves(10), curves(400)
    for values in (small, large):
        ci = median_curve_area_ci(x, values, n_boot=800, rng=1)
        assert ci.lo <= ci.area <= ci.hi
        assert ci == median_curve_area_ci(x, values, n_boot=800, rng=1)
    wide = median_curve_area_ci(x, small, n_boot=800, rng=2)
    narrow = median_curve_area_ci(x, large, n_boot=800, rng=2)
    assert narrow.hi - narrow.lo < 0.5 * (wide.hi - wide.lo)


def test_area_interval_reaches_infinity_when_resamples_lack_answers():
    values = np.array([[np.inf, 1.0], [np.inf, 2.0], [5.0, 1.0]])
    ci = median_curve_area_ci([0.5, 1.0], values, n_boot=200, rng=0)
    assert ci.area == np.inf and ci.hi == np.inf
