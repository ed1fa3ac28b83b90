"""Paired statistics of the comparison tables (paper Section 4.2, DESIGN.md section 6).

Pure functions on numpy arrays. ``a`` is always the reference method (ACFS in the paper, ACFS-Full
in the ablation) and ``b`` the method it is compared with; ``a[i]`` and ``b[i]`` come from the same
replication, evaluated on the same random numbers, so the differences ``a - b`` are paired.
Lower J is better, hence "the reference wins" means ``a < b``.

The second part summarises quality measures (% from the optimum, lower is better) over
replications and problems: quantiles that allow +inf (no answer yet), the share solved within a
threshold, the area under the median progress curve with its bootstrap interval, mean ranks.
"""

from __future__ import annotations

import gc
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

#: R's ``wilcox.test`` computes the exact null distribution below this many non-zero differences.
EXACT_MAX_N = 50

#: Significance stars, strictest first (paper Table "Wilcoxon").
STAR_LEVELS: tuple[tuple[float, str], ...] = ((0.001, "***"), (0.01, "**"), (0.05, "*"))
#: The level below which a p-value earns a star at all.
SIGNIFICANCE = STAR_LEVELS[-1][0]


def paired_differences(a, b) -> np.ndarray:
    """``a - b`` as a 1-D float array; ``ValueError`` unless both are finite and equally long."""
    a = np.asarray(a, dtype=float).ravel()
    b = np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired samples differ in length: {a.size} vs {b.size}")
    d = a - b
    if not np.all(np.isfinite(d)):
        raise ValueError("paired samples must be finite; drop incomplete pairs first")
    return d


@dataclass(frozen=True)
class SignedRankTest:
    """Result of :func:`wilcoxon_paired_less`.

    ``statistic`` is R's V, the sum of the ranks of the positive differences ``a - b`` (zeros
    dropped); ``n`` counts the non-zero differences; ``exact`` tells which null distribution gave
    ``pvalue``.
    """

    statistic: float
    pvalue: float
    n: int
    exact: bool


def wilcoxon_paired_less(a, b) -> SignedRankTest:
    """One-sided paired Wilcoxon signed-rank test of H1: ``a < b`` (DESIGN.md section 6).

    Reproduces R's ``wilcox.test(a, b, paired = TRUE, alternative = "less")``, which produced the
    paper's numbers: zero differences are dropped (Wilcoxon's convention); the exact null
    distribution is used when fewer than 50 differences remain and there are neither ties nor
    zeros; otherwise the normal approximation with tie-corrected variance and a continuity
    correction of 0.5. With no non-zero difference the p-value is NaN.
    """
    d = paired_differences(a, b)
    nonzero = d[d != 0]
    n = nonzero.size
    if n == 0:
        return SignedRankTest(statistic=0.0, pvalue=float("nan"), n=0, exact=False)
    has_zeros = n < d.size
    has_ties = np.unique(np.abs(nonzero)).size < n
    exact = n < EXACT_MAX_N and not has_ties and not has_zeros
    result = sps.wilcoxon(
        d,
        alternative="less",
        zero_method="wilcox",
        correction=True,
        method="exact" if exact else "asymptotic",
    )
    return SignedRankTest(
        statistic=float(result.statistic), pvalue=float(result.pvalue), n=n, exact=exact
    )


def holm(pvalues) -> np.ndarray:
    """Holm-adjusted p-values (paper Section 4.2: Holm within each DGP-lambda block).

    Uses ``statsmodels.stats.multitest.multipletests(method="holm")``. NaN entries (tests that
    could not be computed) stay NaN and do not count as comparisons.
    """
    p = np.asarray(pvalues, dtype=float).ravel()
    adjusted = np.full(p.shape, np.nan)
    finite = np.isfinite(p)
    if finite.any():
        # multipletests runs gc.collect() for Holm, which walks every live object (about 60 ms
        # per call in a report); freezing the existing heap leaves it only the new objects.
        gc.freeze()
        try:
            adjusted[finite] = multipletests(p[finite], method="holm")[1]
        finally:
            gc.unfreeze()
    return adjusted


class MedianDiffCI(NamedTuple):
    """Median paired difference with its percentile bootstrap interval."""

    median: float
    lo: float
    hi: float


def median_diff_ci(
    a, b, n_boot: int = 400, rng: np.random.Generator | int | None = None, level: float = 0.95
) -> MedianDiffCI:
    """Median of ``a - b`` and a percentile bootstrap interval (DESIGN.md section 6).

    The paired differences are resampled with replacement ``n_boot`` times (400 in the paper) in
    one vectorised draw; the interval holds the central ``level`` share of the resampled
    medians. ``rng`` is a Generator or a seed, so the interval is reproducible.
    """
    d = paired_differences(a, b)
    if d.size == 0:
        return MedianDiffCI(float("nan"), float("nan"), float("nan"))
    rng = np.random.default_rng(rng)
    resampled = np.median(d[rng.integers(0, d.size, size=(n_boot, d.size))], axis=1)
    tail = 50.0 * (1.0 - level)
    lo, hi = np.percentile(resampled, [tail, 100.0 - tail])
    return MedianDiffCI(float(np.median(d)), float(lo), float(hi))


def signed_rank_sums(a, b) -> tuple[float, float]:
    """``(R+, R-)``: sums of the average ranks of ``|a - b|`` over positive and negative
    differences, zeros dropped (the ingredients of the signed-rank statistic)."""
    d = paired_differences(a, b)
    d = d[d != 0]
    ranks = sps.rankdata(np.abs(d), method="average")
    return float(ranks[d > 0].sum()), float(ranks[d < 0].sum())


def rank_biserial(a, b) -> float:
    """Matched-pairs rank-biserial correlation, Kerby's simple difference (DESIGN.md section 6).

    ``(R- - R+) / (R+ + R-)`` on the ranks of ``|a - b|``: positive values favour the
    reference ``a`` (it is lower), 1 when it wins every non-tied replication. NaN when every
    difference is zero.
    """
    r_plus, r_minus = signed_rank_sums(a, b)
    total = r_plus + r_minus
    return (r_minus - r_plus) / total if total > 0 else float("nan")


def win_rate(a, b) -> float:
    """Share (0 to 1) of replications in which the reference is strictly lower, ``a < b``."""
    d = paired_differences(a, b)
    return float(np.mean(d < 0)) if d.size else float("nan")


def gap_pct(med_method, med_ref):
    """Gap% = ``100 * (J_med(method) - J_med(reference)) / |J_med(reference)|`` (DESIGN.md section
    6; the paper's objectives are positive): positive when the method is worse, also where J
    is negative (problems that maximise a profit as a negative cost)."""
    med_method = np.asarray(med_method, dtype=float)
    med_ref = np.asarray(med_ref, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):  # no reference: NaN, not a warning
        return 100.0 * (med_method - med_ref) / np.abs(med_ref)


def sigma_ratio(sd_variant, sd_ref):
    """SD of a variant over the SD of the reference (paper Table "Ablation": below 1 is tighter)."""
    with np.errstate(divide="ignore", invalid="ignore"):  # a constant reference has SD 0
        return np.asarray(sd_variant, dtype=float) / np.asarray(sd_ref, dtype=float)


def smallest_p(n: int, exact: bool = True) -> float:
    """The smallest p-value :func:`wilcoxon_paired_less` can give on ``n`` non-zero
    differences, every one favouring ``a``: 1 / 2**n under the exact null; under the normal
    approximation (ties or zeros), with the variance the strongest tie correction leaves
    (every difference tied) and the continuity correction - a bound below any tie pattern."""
    if n < 1:
        return float("nan")
    if exact:
        return 0.5**n
    variance = n * (n + 1) * (2 * n + 1) / 24 - (n**3 - n) / 48
    if variance <= 0:  # one difference: no spread to test
        return 0.5
    return float(sps.norm.cdf((0.5 - n * (n + 1) / 4) / math.sqrt(variance)))


def pairs_for_significance(m: int, level: float = SIGNIFICANCE) -> int:
    """The fewest pairs, without ties, with which one of ``m`` Holm-corrected tests can fall
    below ``level`` (Holm multiplies the smallest p by the number of tests)."""
    n = 1
    while not m * smallest_p(n) < level:
        n += 1
    return n


def stars(p: float) -> str:
    """``***`` for p < 0.001, ``**`` < 0.01, ``*`` < 0.05, ``ns`` otherwise, ``""`` for NaN."""
    if not np.isfinite(p):
        return ""
    for threshold, mark in STAR_LEVELS:
        if p < threshold:
            return mark
    return "ns"


# -- progress curves, solvability and rankings (quality measures in %, lower is better) -------
#
# A quality value is +inf where a method had no answer (no incumbent yet at a checkpoint): it
# is worse than any number, never solved, and a median or quantile that reaches it is +inf.


def _sorted_quality(values) -> np.ndarray:
    v = np.sort(np.asarray(values, dtype=float).ravel())
    if np.isnan(v).any() or np.isneginf(v).any():
        raise ValueError("quality values must be numbers or +inf (no answer)")
    return v


def quantile(values, q: float) -> float:
    """The ``q`` quantile (R's type 7, linear between order statistics) of quality values
    that may hold +inf: a quantile that interpolates towards +inf is +inf. NaN for no
    values."""
    v = _sorted_quality(values)
    if v.size == 0:
        return float("nan")
    h = (v.size - 1) * float(q)
    lo = int(np.floor(h))
    hi = min(lo + 1, v.size - 1)
    frac = h - lo
    if frac == 0.0 or v[lo] == v[hi]:
        return float(v[lo])
    if np.isinf(v[hi]):
        return float("inf")
    return float(v[lo] + frac * (v[hi] - v[lo]))


def solved_share(values, threshold: float) -> float:
    """Share (0 to 1) of quality values at most ``threshold`` (a +inf is never solved); NaN
    for no values."""
    v = np.asarray(values, dtype=float).ravel()
    return float(np.mean(v <= threshold)) if v.size else float("nan")


def trapezoid(x, y) -> float:
    """Area under the polyline through (x, y) by the trapezoid rule; +inf where a y is."""
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y differ in length: {x.size} vs {y.size}")
    if x.size < 2:
        return float("nan")
    if np.isinf(y).any():
        return float("inf")
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))


def median_curve_area(x, values) -> float:
    """Area under the median progress curve: ``values`` holds one replication per row and one
    checkpoint (at ``x``) per column; the medians of the columns are joined by trapezoids."""
    values = np.asarray(values, dtype=float)
    medians = np.median(values, axis=0)  # +inf stays +inf: no -inf, no NaN
    return trapezoid(x, medians)


class AreaCI(NamedTuple):
    """Area under the median progress curve with its percentile bootstrap interval."""

    area: float
    lo: float
    hi: float


def median_curve_area_ci(
    x, values, n_boot: int = 1000, rng: np.random.Generator | int | None = None,
    level: float = 0.95,
) -> AreaCI:
    """:func:`median_curve_area` and a percentile bootstrap interval over replications: the
    rows of ``values`` (whole replications, so a resample keeps each one's curve) are drawn
    with replacement ``n_boot`` times in one vectorised draw."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or values.shape[0] == 0:
        return AreaCI(float("nan"), float("nan"), float("nan"))
    _sorted_quality(values)
    x = np.asarray(x, dtype=float).ravel()
    rng = np.random.default_rng(rng)
    n = values.shape[0]
    resampled = values[rng.integers(0, n, size=(n_boot, n))]  # (n_boot, n, k)
    medians = np.median(resampled, axis=1)  # (n_boot, k)
    with np.errstate(invalid="ignore"):
        widths = np.diff(x)
        areas = np.sum(widths * (medians[:, 1:] + medians[:, :-1]) / 2.0, axis=1)
    tail = 0.5 * (1.0 - level)
    return AreaCI(median_curve_area(x, values), quantile(areas, tail),
                  quantile(areas, 1.0 - tail))
