"""The stochastic constraints measured on drawn rows (DESIGN.md section 1): one implementation
for the methods that search under them and for the statement that comes with every answer.

A constraint is E[g] <= 0 or P(g > 0) <= eps (:class:`~acfs_cli.core.declared
.StochasticConstraint`). On n rows of g:

* :func:`levels` is what a search keeps at or below zero: the sample mean for an expectation,
  and for a chance constraint the empirical (1 - eps)-quantile of g by the inverted CDF,
  which is at most zero exactly when at most eps n of the rows have g > 0. The quantile, not
  the share of rows, because it moves continuously with x where the share jumps by 1/n: a
  search comparing decisions on common rows sees how far a decision is from the boundary,
  not only on which side it lies. ``margin_rows`` tightens each constraint by ``z`` standard
  errors of an estimate on that many rows, so that the answer holds on a fresh check of the
  same size.
* :func:`measure` is the statement: each constraint's estimate with its 95 % interval (the
  normal interval of the mean; Wilson's score interval of the share, which keeps its level
  near 0 and 1) and a verdict: *feasible* when the whole interval lies at or below the
  bound, *infeasible* when it lies above, *not established* otherwise.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from acfs_cli.core.declared import StochasticConstraint

#: The two-sided 95 % normal quantile of the statement's intervals.
Z95 = 1.959963984540054

FEASIBLE, INFEASIBLE, UNDECIDED = "feasible", "infeasible", "not established"


def levels(G, constraints: tuple[StochasticConstraint, ...], margin_rows: int | None = None,
           z: float = 2.0) -> np.ndarray:
    """Each constraint's level on the rows of ``G`` (..., n, m), at most zero where the rows
    satisfy it (-> (..., m)); with ``margin_rows``, tightened by ``z`` standard errors of an
    estimate on that many rows (an expectation by z sd(g) / sqrt(margin_rows), a chance
    constraint's eps by z sqrt(eps (1 - eps) / margin_rows), at least to eps / 4)."""
    G = np.asarray(G, dtype=float)
    out = np.empty((*G.shape[:-2], len(constraints)))
    for j, c in enumerate(constraints):
        g = G[..., j]
        if c.chance is None:
            level = g.mean(axis=-1)
            if margin_rows:
                sd = g.std(axis=-1, ddof=1) if g.shape[-1] > 1 else np.zeros(level.shape)
                level = level + z * sd / np.sqrt(margin_rows)
        else:
            eps = c.chance
            if margin_rows:
                eps = max(eps - z * np.sqrt(eps * (1 - eps) / margin_rows), eps / 4)
            level = np.quantile(g, 1.0 - eps, axis=-1, method="inverted_cdf")
        out[..., j] = level
    return out


def violation(levels_: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The total positive level in units of each constraint's ``scale`` (-> levels' leading
    shape): zero exactly where every constraint holds."""
    return (np.maximum(np.asarray(levels_, dtype=float), 0.0) / scale).sum(axis=-1)


def spread(G) -> np.ndarray:
    """A unit for each constraint's level (m,): the standard deviation of g on the rows ``G``
    (n, m), or where g does not vary there, its size (or 1): a violation is measured in the
    problem's own units, never in the code's."""
    G = np.asarray(G, dtype=float)
    sd = G.std(axis=0)
    size = np.abs(G).mean(axis=0)
    # an sd at the rounding error of the values' size is no spread (a constant g - eps)
    return np.where(sd > 1e-9 * size, sd, np.where(size > 0, size, 1.0))


@dataclass(frozen=True)
class ConstraintEstimate:
    """One constraint measured on ``rows`` fresh rows: the mean of g (an expectation) or the
    share of rows with g > 0 (a chance constraint), its 95 % interval, the bound it must not
    pass (0, or eps) and the verdict."""

    name: str
    kind: str  # "mean" or "chance"
    estimate: float
    low: float
    high: float
    bound: float
    rows: int

    @property
    def verdict(self) -> str:
        if self.high <= self.bound:
            return FEASIBLE
        if self.low > self.bound:
            return INFEASIBLE
        return UNDECIDED

    def describe(self) -> str:
        what = f"E[{self.name}]" if self.kind == "mean" else f"P({self.name} > 0)"
        return (f"{what} = {self.estimate:.4g} (95 % interval {self.low:.4g} to "
                f"{self.high:.4g}; bound {self.bound:g}): {self.verdict}")

    def as_dict(self) -> dict:
        return {**asdict(self), "verdict": self.verdict}


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval of a share of k in n."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return float(max(centre - half, 0.0)), float(min(centre + half, 1.0))


def measure(G, constraints: tuple[StochasticConstraint, ...]) -> list[ConstraintEstimate]:
    """Each constraint estimated on the rows ``G`` (n, m), with its 95 % interval."""
    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    found = []
    for j, c in enumerate(constraints):
        g = G[:, j]
        if c.chance is None:
            mean = float(g.mean())
            half = Z95 * float(g.std(ddof=1)) / np.sqrt(n) if n > 1 else np.inf
            found.append(ConstraintEstimate(c.name, "mean", mean, mean - half, mean + half,
                                            0.0, n))
        else:
            k = int((g > 0).sum())
            low, high = wilson(k, n)
            found.append(ConstraintEstimate(c.name, "chance", k / n, low, high, c.chance, n))
    return found


def verdict(estimates: list[ConstraintEstimate]) -> str:
    """The answer's verdict: feasible when every constraint is shown to hold, infeasible when
    one is shown not to, not established otherwise (and feasible with no constraint)."""
    verdicts = {e.verdict for e in estimates}
    if INFEASIBLE in verdicts:
        return INFEASIBLE
    if UNDECIDED in verdicts:
        return UNDECIDED
    return FEASIBLE
