"""Local models of J in a trust region: their fit, their design and the step they propose.

The pieces of ``astro``'s iteration that draw nothing:

* :class:`Region`: the centre, the unit of each coordinate and the radius of the region
  |x_j - x_c,j| <= delta u_j, with the decision set's projection: its coordinate
  :meth:`~Region.stencil` and the :meth:`~Region.candidate` step a model proposes;
* :class:`Model`: a quadratic (diagonal or full Hessian) or linear model of the change of J in
  scaled units, its value and its minimiser over the box region;
* :func:`fit`: the least-squares model through the centre from paired differences on common
  rows, with the per-row gradients whose spread is its standard error;
* :func:`design`: the sequential D-optimal choice of the stencil points a model lacks;
* :func:`damped_bfgs`: the curvature from gradient differences on common rows;
* :func:`norm_test`: the norm of the model's gradient that acts in X, and its standard error.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize as scipy_minimize


@dataclass
class Model:
    """The change of J from the centre at a scaled displacement y: g . y (+ y' h y / 2)."""

    g: np.ndarray  # gradient in scaled units
    h: np.ndarray | None  # diagonal curvature (d,), a matrix (d, d), or None (linear)

    def value(self, y: np.ndarray) -> float:
        v = float(self.g @ y)
        if self.h is None:
            return v
        if self.h.ndim == 1:
            return v + 0.5 * float(self.h @ (y * y))
        return v + 0.5 * float(y @ self.h @ y)

    def step(self, delta: float) -> np.ndarray:
        """The model's minimiser over the box |y_j| <= delta."""
        g, h = self.g, self.h
        big = float(np.max(np.abs(g))) if g.size else 0.0
        if h is None:
            return -delta * g / big if big > 0 else np.zeros_like(g)
        if h.ndim == 1:
            y = np.where(h > 0, -g / np.where(h > 0, h, 1.0), -np.sign(g) * delta)
            # a concave or flat coordinate goes to the end its slope points to (either end
            # when it has none: they tie)
            y = np.where((h <= 0) & (g == 0), delta, y)
            return np.clip(y, -delta, delta)
        start = np.clip(-delta * g / big, -delta, delta) if big > 0 else np.zeros_like(g)
        res = scipy_minimize(lambda y: (float(g @ y + 0.5 * y @ h @ y), g + h @ y), start,
                             jac=True, method="L-BFGS-B",
                             bounds=[(-delta, delta)] * g.size, options={"maxiter": 200})
        y = np.clip(res.x, -delta, delta)
        return y if self.value(y) <= self.value(start) else start

    def curvature(self) -> float:
        """The largest curvature of the model (0 for a linear one)."""
        if self.h is None:
            return 0.0
        if self.h.ndim == 1:
            return float(np.max(self.h))
        return float(np.max(np.linalg.eigvalsh(self.h)))


@dataclass
class Region:
    """The trust region around ``centre``: |x_j - centre_j| <= delta u_j, inside X."""

    centre: np.ndarray
    u: np.ndarray
    delta: float
    project: Callable[[np.ndarray], np.ndarray]
    box: tuple[np.ndarray, np.ndarray]

    def scaled(self, x: np.ndarray) -> np.ndarray:
        return (x - self.centre) / self.u

    def stencil(self, quadratic: bool) -> np.ndarray:
        """The coordinate stencil around the centre (x_c +- delta u_j e_j, or x_c + delta u_j
        e_j for a linear model), projected onto X, without the points the projection folds
        onto the centre or onto each other.

        Where a face of X folds one side of a coordinate onto the centre, the stencil takes
        a point on the other side instead: for a linear model the opposite point, for a
        quadratic one a second point at half the distance on the open side, so the
        coordinate's slope and curvature are still both determined (with one point the fit
        cannot tell them apart, and at a corner of X the search narrowed its region there
        for ever: DGP2 from the box centre, 12 % above the optimum at 65,000 draws)."""
        x, d = self.centre, self.centre.size
        E = np.diag(self.delta * self.u)
        P = self.project(np.vstack([x + E, x - E]) if quadratic else x + E)
        folded = np.max(np.abs(P - x) / self.u, axis=1) <= 1e-9 * self.delta
        if quadratic and np.any(folded):
            opposite = (np.arange(2 * d) + d) % (2 * d)
            lone = np.flatnonzero(folded & ~folded[opposite])  # its other side is open
            half = np.vstack([x + 0.5 * E, x - 0.5 * E])
            P[lone] = self.project(half[opposite[lone]])
        elif np.any(folded):  # a face in the way: the other side
            P[folded] = self.project(x - E[folded])
        out: list[np.ndarray] = []
        for p in P:
            if np.max(np.abs(p - x) / self.u) <= 1e-9 * self.delta:
                continue
            if any(np.array_equal(p, q) for q in out):
                continue
            out.append(p)
        return np.array(out).reshape(-1, d)

    def candidate(self, model: Model) -> tuple:
        """The candidate step: (scaled displacement, x, predicted decrease), or (None, None,
        0) when the model predicts no decrease.

        The model's minimiser over the box region, projected onto X, and the projected
        steepest-descent step compete on the model. Where the projection is more than
        clipping to the box (a constraint coupling the coordinates is active, as a budget
        face), the minimiser of the model over X within the region, by projected gradient
        steps on the model (cheap: no draws), joins them: minimising over the region and
        then projecting lands wherever the projection folds the step, often back near the
        centre.
        """
        x, u, delta = self.centre, self.u, self.delta
        tries = [model.step(delta)]
        big = float(np.max(np.abs(model.g)))
        if big > 0:
            tries.append(-delta * model.g / big)
        lo, hi = self.box
        best = (None, None, 0.0)
        coupled = False
        for y in tries:
            x_t = self.project(x + y * u)
            coupled |= not np.allclose(x_t, np.clip(x + y * u, lo, hi), rtol=0.0, atol=1e-12)
            best = self._better(model, x_t, best)
        if coupled and big > 0:
            best = self._better(model, self._projected_descent(model, best[1]), best)
        return best

    def _better(self, model: Model, x_t, best):
        if x_t is None:
            return best
        y_t = self.scaled(x_t)
        if np.max(np.abs(y_t)) <= 1e-9 * self.delta:
            return best
        pred = -model.value(y_t)
        return (y_t, x_t, pred) if pred > best[2] else best

    def _projected_descent(self, model: Model, x_start, iterations: int = 60):
        """Projected gradient steps on the model over X, each step's displacement clipped to
        the region (the last projection keeps the point in X)."""
        x_c, u, delta, h = self.centre, self.u, self.delta, model.h
        curv = model.curvature()
        big = float(np.max(np.abs(model.g)))
        eta = 1.0 / curv if curv > 0 else delta / big
        y = np.zeros_like(x_c) if x_start is None else (x_start - x_c) / u
        for _ in range(iterations):
            grad = model.g if h is None else model.g + (h * y if h.ndim == 1 else h @ y)
            x_new = self.project(x_c + u * np.clip(y - eta * grad, -delta, delta))
            y_new = (x_new - x_c) / u
            if np.max(np.abs(y_new - y)) <= 1e-6 * delta:
                y = y_new
                break
            y = y_new
        return x_c + u * y


def columns(Yh: np.ndarray, kind: str) -> np.ndarray:
    """Regression columns of scaled displacements Yh (k, d): y (linear), + y^2 / 2
    (diagonal), + y_i y_j for i < j (full)."""
    cols = [Yh]
    if kind != "linear":
        cols.append(0.5 * Yh**2)
    if kind == "full":
        i, j = np.triu_indices(Yh.shape[1], k=1)
        cols.append(Yh[:, i] * Yh[:, j])
    return np.hstack(cols)


def fit(Y: np.ndarray, D: np.ndarray, kind: str, delta: float) -> tuple[Model, np.ndarray]:
    """Least-squares model of the differences J(y_i) - J(centre) at the scaled displacements
    ``Y`` (k, d), through the centre: g . y (+ 1/2 sum h_j y_j^2, + the cross terms for
    ``kind`` "full"); a direction no point moves along gets 0. ``D`` (k, m) holds the rows'
    paired influence differences psi_i - psi_centre, whose means are those differences, so
    the model's coefficients are means of per-row coefficients: the per-row gradients (m, d)
    are returned with the model, for the standard error of its gradient (common rows and
    all). The columns are fitted in units of the radius, which keeps them of one size."""
    d = Y.shape[1]
    A = columns(Y / delta, kind)
    m = D.shape[1] if D.ndim == 2 else 0
    if not len(Y):
        return Model(g=np.zeros(d), h=None if kind == "linear" else np.zeros(d)), np.zeros(
            (max(m, 1), d))
    L = np.linalg.pinv(A, rcond=1e-10)
    rows = (L[:d] @ D / delta).T  # per-row gradients (m, d)
    g = rows.mean(axis=0)
    coef = L @ D.mean(axis=1)
    if kind == "linear":
        return Model(g=g, h=None), rows
    h = coef[d:2 * d] / delta**2
    if kind == "diagonal":
        return Model(g=g, h=h), rows
    H = np.diag(h)
    i, j = np.triu_indices(d, k=1)
    H[i, j] = H[j, i] = coef[2 * d:] / delta**2
    return Model(g=g, h=H), rows


def design(A: np.ndarray, C: np.ndarray, limit: float) -> list[int]:
    """Sequential D-optimal choice among the candidate rows ``C`` (regression columns) to add
    to the rows ``A`` already drawn: the candidate where the model's prediction is least
    determined (largest a^T (A^T A)^-1 a, its variance in units of one observation's) joins,
    until every remaining candidate is below ``limit``. An interpolation stencil scores 1
    at its own points; a direction no point moves along scores about 1e8."""
    p = C.shape[1]
    M = A.T @ A + 1e-8 * np.eye(p)
    Minv = np.linalg.inv(M)
    # Each choice is a rank-one update of the inverse (Sherman-Morrison), so the leverages
    # follow by the same update, O(k p) a choice: recomputing the quadratic forms every time
    # was 40 % of a 50-dimensional search.
    lev = np.einsum("ip,ip->i", C @ Minv, C)
    left = np.ones(len(C), dtype=bool)
    chosen: list[int] = []
    while left.any():
        i = int(np.argmax(np.where(left, lev, -np.inf)))
        if lev[i] <= limit:
            break
        left[i] = False
        chosen.append(i)
        v = Minv @ C[i]
        cv = C @ v
        denom = 1.0 + float(cv[i])
        Minv -= np.outer(v, v) / denom
        lev -= cv * cv / denom
    return chosen


def damped_bfgs(H: np.ndarray | None, step: np.ndarray, dg: np.ndarray
                ) -> np.ndarray | None:
    """Damped BFGS update (Powell 1978) of the curvature H from a step and the change of the
    gradient on common rows. The first pair with positive curvature sets a diagonal H: the
    secant y_j / s_j of each coordinate the step moved (exact for a separable quadratic, and
    the first step moves every coordinate), within a factor 100 of the scalar y.y / s.y
    that stands in where a coordinate did not move or curves down.

    scipy's ``BFGS`` update strategy (``scipy.optimize.BFGS``) damps the same way but starts
    from a scaled identity; the diagonal start is what a separable problem's first step
    tells, so it is kept here."""
    sy = float(step @ dg)
    if H is None:
        if sy <= 1e-300:
            return None
        gamma = float(dg @ dg) / sy
        moved = np.abs(step) > 1e-12 * max(float(np.max(np.abs(step))), 1e-300)
        ratio = np.where(moved, dg / np.where(moved, step, 1.0), 0.0)
        diag = np.where(moved & (ratio > 0), np.clip(ratio, 1e-2 * gamma, 1e2 * gamma), gamma)
        return np.diag(diag)
    Hs = H @ step
    sHs = float(step @ Hs)
    if sHs <= 1e-300:
        return H
    if sy < 0.2 * sHs:
        theta = 0.8 * sHs / (sHs - sy)
        dg = theta * dg + (1 - theta) * Hs
        sy = float(step @ dg)
    return H + np.outer(dg, dg) / sy - np.outer(Hs, Hs) / sHs


def norm_test(rows: np.ndarray, x: np.ndarray, u: np.ndarray,
              box: tuple[np.ndarray, np.ndarray], tangent) -> tuple[float, float]:
    """The norm of the gradient that can act in X at ``x`` and its standard error, from
    per-row gradients (m, d) in scaled units (units ``u``).

    The norm test (Byrd, Chin, Nocedal & Wu 2012) compares the two. At a face of X the part
    of the gradient pointing out of X is no use to a step, and at a constrained optimum it
    does not vanish: it is removed first - coordinates at a bound of the ``box`` whose
    descent leaves it, then the normal of a coupling face (``tangent(x, g)``, the slope of J
    along X's faces) - so that the rows keep growing as the search closes in on such an
    optimum."""
    g = rows.mean(axis=0)
    lo, hi = box
    tol = 1e-9 * np.maximum(1.0, np.abs(x))
    # blocked only where the outward slope stands out from its noise: a slope whose sign the
    # rows cannot tell might point inward, and stays in the test (so the rows grow)
    m = rows.shape[0]
    se_j = rows.std(axis=0, ddof=1) / math.sqrt(m) if m > 1 else np.full(g.shape, np.inf)
    blocked = (((x <= lo + tol) & (g > se_j)) | ((x >= hi - tol) & (g < -se_j)))
    R = np.where(blocked, 0.0, rows)
    g = R.mean(axis=0)
    if np.any(g != 0):
        out = g - np.asarray(tangent(x, g / u), dtype=float) * u
        size = float(np.linalg.norm(out))
        if size > 1e-9 * float(np.linalg.norm(g)):
            n = out / size
            R = R - np.outer(R @ n, n)
            g = R.mean(axis=0)
    se = float(np.sqrt(np.sum(R.var(axis=0, ddof=1)) / m)) if m > 1 else np.inf
    return float(np.linalg.norm(g)), se
