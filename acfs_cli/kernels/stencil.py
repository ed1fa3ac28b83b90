"""Finite differences on common random numbers, feasible at the faces of X (DESIGN.md 4).

The one implementation of the stencils, the CRN value-and-gradient and the sample-average
objective that the polishes of GP-BO, CEM-SO and SGD-CVaR and the Adam steps of SGD-CVaR
use. One common sample is drawn at x and at every point of the stencil (the same normals
through a transform, the same seeded stream for a sample-only simulator), so a difference
measures how both the cost *and* P_x move with x; every point is a new, counted draw, and
every point lies in X.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.sample import CommonSample
from acfs_cli.core.task import Task

_SHRINK = (1.0, 0.25, 0.0625)


@dataclass(frozen=True)
class Stencil:
    """Where to difference: direction ``V[j]`` with signed offsets ``d1[j]``, ``d2[j]``.

    ``V`` is the identity except for allocations that cannot move along their own axis (see
    :func:`fd_stencil`); a row with ``d1 = d2 = 0`` has no feasible move and a zero slope.
    """

    V: np.ndarray  # (d, d) directions, one per row
    d1: np.ndarray  # (d,)
    d2: np.ndarray  # (d,)

    def points(self, x: np.ndarray) -> np.ndarray:
        """The 2 d + 1 decisions: centre, then x + d1_j V_j, then x + d2_j V_j."""
        return np.vstack([x[None, :], x + self.d1[:, None] * self.V, x + self.d2[:, None] * self.V])

    def gradient(self, f: np.ndarray) -> np.ndarray:
        """The gradient from the values ``f`` at :meth:`points`.

        Per direction, the slope at x of the parabola through (0, f0), (d1, f1), (d2, f2):
        [d2^2 (f1 - f0) - d1^2 (f2 - f0)] / (d1 d2 (d2 - d1)) - the central difference for
        (h, -h), the second-order one-sided difference for (h, 2h). The gradient then solves
        V g = slopes.
        """
        d = self.d1.size
        f0, f1, f2 = f[0], f[1 : d + 1], f[d + 1 :]
        denom = self.d1 * self.d2 * (self.d2 - self.d1)
        valid = denom != 0
        num = self.d2**2 * (f1 - f0) - self.d1**2 * (f2 - f0)
        slopes = np.where(valid, num / np.where(valid, denom, 1.0), 0.0)
        return np.linalg.solve(self.V, slopes)


def _first_feasible(task: Task, x: np.ndarray, V: np.ndarray, h: float, patterns: np.ndarray):
    """Per row of V, the first (scale, pattern) whose two points lie in X: (found, d1, d2).

    Each candidate is checked only for the rows still without a stencil: away from the
    faces of X the first one serves every row, so a problem whose membership test costs a
    projection per point (a user's own ``project``, one decision at a time) pays for 2 d
    points, not for every candidate of every row.
    """
    offs = (np.asarray(_SHRINK)[:, None, None] * h) * patterns[None, :, :]  # (S, P, 2)
    rows = V.shape[0]
    d1, d2, found = np.zeros(rows), np.zeros(rows), np.zeros(rows, dtype=bool)
    for si in range(offs.shape[0]):
        for pi in range(offs.shape[1]):
            todo = np.flatnonzero(~found)
            if not todo.size:
                return found, d1, d2
            pts = x + offs[si, pi][:, None, None] * V[todo]  # (2, len(todo), d)
            take = todo[np.asarray(task.is_feasible(pts)).all(axis=0)]
            d1[take], d2[take] = offs[si, pi, 0], offs[si, pi, 1]
            found[take] = True
    return found, d1, d2


def fd_stencil(task: Task, x: np.ndarray, h: float) -> Stencil:
    """A feasible finite-difference stencil at ``x`` with step ``h``.

    Along each axis: central ``(+h, -h)`` when both points lie in X; otherwise the one-sided
    three-point ``(+h, +2h)`` or ``(-h, -2h)``; if neither fits, the same with h / 4 and
    h / 16. A coordinate x_j that cannot move along its axis at all (x_j = 0 on the face
    x_1 + ... + x_5 = 0.85, where DGP1's optimum lies) is differenced along the transfer
    e_j - mean of e_k over the coordinates k that can give way (:func:`_transfers`): the
    slope along that direction plus their mean partial is the partial in x_j of the smooth
    J, which is what a quasi-Newton polish or a projected step needs to decide whether x_j
    should leave its bound.
    Every point of the stencil lies in X, so the oracle never sees an infeasible decision.
    """
    x = np.asarray(x, dtype=float)
    d = x.size
    axis = np.array([[1.0, -1.0], [1.0, 2.0], [-1.0, -2.0]])  # central, forward, backward
    V = np.eye(d)
    found, d1, d2 = _first_feasible(task, x, V, h, axis)
    stuck, T = _transfers(task, x, found, h)
    if stuck.size:
        ok, t1, t2 = _first_feasible(task, x, T, h, np.array([[1.0, 2.0]]))
        V[stuck[ok]] = T[ok]
        d1[stuck[ok]], d2[stuck[ok]] = t1[ok], t2[ok]
    return Stencil(V=V, d1=d1, d2=d2)


def _transfers(task: Task, x: np.ndarray, found: np.ndarray, h: float):
    """The stuck coordinates and their transfer directions e_j - mean of the donors' e_k.

    With the problem's ``coupled`` coordinates (the benchmarks' x_1..x_5), the donors are the
    coupled coordinates that can move and lie above their lower bound. Without it, the
    donors of x_j are the coordinates that the projection of x + h e_j moves: the ones a
    constraint makes give way when x_j grows.
    """
    d = x.size
    if task.coupled is not None:
        coupled = np.array(task.coupled, dtype=int)
        stuck = coupled[~found[coupled]]
        if not stuck.size:
            return stuck, np.empty((0, d))
        lower = task.box()[0]
        donors = coupled[found[coupled] & (x[coupled] > lower[coupled])]
        if not donors.size:
            return donors, np.empty((0, d))
        T = np.eye(d)[stuck]
        T[:, donors] -= 1.0 / donors.size
        return stuck, T
    stuck = np.flatnonzero(~found)
    rows, kept = [], []
    for j in stuck:
        step = x + h * np.eye(d)[j]
        moved = np.abs(np.asarray(task.project(step)) - step) > 1e-12
        moved[j] = False
        donors = np.flatnonzero(moved & found)
        if donors.size:
            t = np.eye(d)[j]
            t[donors] -= 1.0 / donors.size
            rows.append(t)
            kept.append(j)
    return np.array(kept, dtype=int), np.array(rows).reshape(-1, d)


def fd_value_grad(
    task: Task, oracle: Oracle, x: np.ndarray, sample: CommonSample, h: float
) -> tuple[float, np.ndarray]:
    """Estimated J at ``x`` and its CRN finite-difference gradient: one oracle call.

    The common sample (n rows) is drawn at x and at the 2 d_x stencil points
    (:func:`fd_stencil`), so (2 d_x + 1) n draws are charged and the differences are
    common-random-number differences of a smooth function of x.
    """
    f, g, _ = _fd_eval(task, oracle, x, sample, h)
    return f, g


def _fd_eval(task: Task, oracle: Oracle, x: np.ndarray, sample: CommonSample, h: float):
    """:func:`fd_value_grad` plus the n costs at x itself."""
    st = fd_stencil(task, x, h)
    P = st.points(x)
    C = task.cost(oracle.draw_common(P, sample), P)
    f = np.asarray(task.risk(C)[0], dtype=float)
    return float(f[0]), st.gradient(f), np.asarray(C[0], dtype=float)



class CRNObjective:
    """J estimated on one common sample, as a function of x (sample-average approximation).

    Each evaluation charges the oracle for the scenarios at x and at the 2 d_x difference
    points (one call of (2 d_x + 1) n draws) and caches the gradient, which the polish asks
    for at the same point right after the value. A phase that caps its draws opens an
    allowance on the oracle (:meth:`~acfs_cli.core.oracle.Oracle.allowance`). Every new best
    value is recorded as the oracle's incumbent (the first one replacing whatever an earlier
    phase recorded on its own, noisier estimates).
    """

    def __init__(
        self,
        task: Task,
        oracle: Oracle,
        sample: CommonSample,
        *,
        h: float,
    ):
        self.task, self.oracle, self.sample, self.h = task, oracle, sample, h
        self.used = 0
        self.best_x: np.ndarray | None = None
        self.best_value = np.inf
        self.best_costs: np.ndarray | None = None
        self._cache: tuple[np.ndarray, float, np.ndarray, np.ndarray] | None = None

    def _note(self, x: np.ndarray, value: float, costs: np.ndarray) -> None:
        if value < self.best_value:
            first = self.best_x is None
            self.best_x, self.best_value, self.best_costs = x.copy(), value, costs
            self.oracle.record_best(x, value, replace=first)

    def costs(self, x: np.ndarray) -> np.ndarray:
        """The n costs behind the last evaluation, which must have been at ``x``."""
        if self._cache is None or not np.array_equal(self._cache[0], x):
            self.value(x)
        return self._cache[3]

    def value(self, x: np.ndarray) -> float:
        x = np.asarray(x, dtype=float)
        if self._cache is not None and np.array_equal(self._cache[0], x):
            return self._cache[1]
        n_points = 2 * x.size + 1
        f, g, c = _fd_eval(self.task, self.oracle, x, self.sample, self.h)
        self.used += n_points * self.sample.n
        self._cache = (x.copy(), f, g, c)
        self._note(x, f, c)
        return f

    def gradient(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if self._cache is None or not np.array_equal(self._cache[0], x):
            self.value(x)
        return self._cache[2]

    def face_gradient(self, x: np.ndarray) -> np.ndarray:
        """:meth:`gradient`, made tangential on the faces of X (the sum face of the
        benchmarks) when the descent direction points out of X (``task.tangent``): the
        gradient to hand the shared L-BFGS-B polish, whose iterates are projected onto X."""
        x = np.asarray(x, dtype=float)
        return self.task.tangent(x, self.gradient(x))

    def values(self, X: np.ndarray) -> np.ndarray:
        """Estimated J of several decisions on the same sample, one oracle call, no gradient."""
        X = np.atleast_2d(X)
        W = self.oracle.draw_common(X, self.sample)
        self.used += X.shape[0] * self.sample.n
        C = self.task.cost(W, X)
        J = np.asarray(self.task.risk(C)[0], dtype=float)
        for x, v, c in zip(X, J, C, strict=True):
            self._note(x, float(v), np.asarray(c, dtype=float))
        return J
