"""Is a simulator's gradient the slope of J? A check against differences on common rows.

A user's pathwise gradient (``gradient(W, x)``, DESIGN.md section 1) may be the derivative of
another function, or of a cost with jumps where the pathwise derivative misses the jumps'
contribution: SimOpt's MM1-1 offers an IPA gradient of the mean sojourn time whose mean at
service rates 2.6 / 2.70 / 2.83 is +0.09 / +0.15 / +0.24 where central differences on common
random numbers give -0.29 / -0.17 / -0.01 (measured here on 320 replications). A search that
trusts it stalls where the gradient says the slope is flat.

:func:`disagreement` compares the two at a decision on the rows already drawn there: each
row's central-difference quotient of J's influence values against its gradient influence is
a paired difference whose mean is the gap between the difference quotient of J and the
gradient's prediction of it, with a standard error from the rows. A coordinate disagrees when
that gap exceeds its noise (a Student t at 1 % over the coordinates, two-sided) plus a
quarter of the larger of the two slopes (the curvature a central difference over a region
leaves).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import stdtrit

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.risk import search_level
from acfs_cli.core.task import Task
from acfs_cli.kernels.growing_sample import GrowingSample, Point, gradient_influence, values

#: Two-sided level of the check, shared by the coordinates (Bonferroni).
LEVEL = 0.01
#: Share of the larger slope a central difference may differ by (its curvature bias).
SLACK = 0.25


@dataclass(frozen=True)
class Disagreement:
    """Where the gradient and the differences disagree: the coordinate, the gradient's
    slope, the difference quotient and its standard error, on ``rows`` rows."""

    coordinate: int
    slope: float
    quotient: float
    se: float
    rows: int

    def describe(self, x: np.ndarray) -> str:
        return (f"the simulator's gradient disagrees with common-random-number differences "
                f"at x = {np.round(x, 4).tolist()}: dJ/dx{self.coordinate + 1} "
                f"{self.slope:.4g} against {self.quotient:.4g} +- {self.se:.2g} on "
                f"{self.rows} rows")


def stencil_points(task: Task, x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """The central-difference points x +- h_j e_j, projected onto X (2 d, d)."""
    return task.project(np.vstack([x + np.diag(h), x - np.diag(h)]))


def disagreement(task: Task, samples: GrowingSample, centre: Point, pts: list[Point],
                 u: np.ndarray, m: int, tail_rows: int = 0) -> Disagreement | None:
    """Compare the gradient at ``centre`` with the central differences of J between the
    points ``pts`` (the :func:`stencil_points`, covered on the first ``m`` rows); None where
    they agree along every coordinate a face of X does not fold."""
    d = task.dim_x
    P = np.array([p.x for p in pts])
    _, psi = values(task, [centre, *pts], m, tail_rows)
    gam = gradient_influence(centre.costs[:m], centre.grads[:m], task.lam,
                             search_level(task.alpha, m, tail_rows))
    k = samples.units(psi[0], m).size
    z = float(stdtrit(max(k - 1, 1), 1.0 - LEVEL / (2 * d)))
    for j in range(d):
        up, down = P[j], P[d + j]
        width = up[j] - down[j]
        others = np.delete(np.abs(up - down), j)
        if width <= 1e-12 * u[j] or np.any(others > 1e-9 * np.delete(u, j)):
            continue  # a face folds the difference: nothing to compare along j
        quotient = (psi[1 + j] - psi[1 + d + j]) / width
        gap = samples.units(quotient - gam[:, j], m)
        se = float(gap.std(ddof=1) / math.sqrt(gap.size)) if gap.size > 1 else np.inf
        slope, fd = float(gam[:, j].mean()), float(quotient.mean())
        if abs(float(gap.mean())) > z * se + SLACK * max(abs(slope), abs(fd)):
            return Disagreement(j, slope, fd, se, m)
    return None


class GradientCheck:
    """When a search checks its gradient: at the start, and where steps the gradient
    predicted to decrease J failed twice running (one failure is a trust region's ordinary
    overshoot), at a centre or on rows not checked yet, while the checks' 2 d points per row
    stay within ``share`` of the search's ``budget``."""

    def __init__(self, share: float, budget: int):
        self.share, self.budget = share, budget
        self.pending, self.last, self.draws, self.failures = True, None, 0, 0

    def step(self, moved: bool) -> None:
        """Count a gradient step that moved the centre or failed."""
        self.failures = 0 if moved else self.failures + 1
        self.pending = self.pending or self.failures >= 2

    def due(self, centre: Point, m: int) -> bool:
        if not self.pending or self.share <= 0 or m < 2 or self.last == (id(centre), m):
            return False
        return self.draws + 2 * centre.x.size * m <= self.share * self.budget

    def run(self, task: Task, oracle: Oracle, samples: GrowingSample, centre: Point,
            h: np.ndarray, u: np.ndarray, m: int, tol: float,
            tail_rows: int = 0) -> Disagreement | None:
        """Draw the central differences over ``h`` at ``centre`` on its first ``m`` rows
        (oracle phase ``gradient check``) and compare (:func:`disagreement`)."""
        self.last, self.pending = (id(centre), m), False
        self.draws += 2 * task.dim_x * m
        pts = [samples.point(p, tol) for p in stencil_points(task, centre.x, h)]
        with oracle.phase("gradient check"):
            samples.cover(pts, m)
        return disagreement(task, samples, centre, pts, u, m, tail_rows)
