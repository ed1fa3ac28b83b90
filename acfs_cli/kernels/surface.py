"""A quadratic response surface pooled over several common samples (DESIGN.md section 4).

A local search on a common sample evaluates many decisions near its end, and a sequence of
such searches on independent samples (retrospective approximation) leaves several clouds of
evaluations around the optimum. Each sample's values are one function of x, offset from the
others by that sample's own error; a least-squares fit with one intercept per sample and a
shared separable quadratic in x pools them all, so the model's minimiser carries the
information of every evaluation at once. Where common random numbers hold (a transform, or a
simulator whose use of its stream does not depend on x) the clouds are smooth and the fit is
close to each sample's own minimiser; where they fail (a simulator whose stream drifts with
x, so that values at two decisions are nearly independent), the regression still averages
the noise of every evaluation, which no single comparison can (a stochastic response surface,
Kleijnen 2008, "Design and Analysis of Simulation Experiments", Section 6.2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def pooled_quadratic_minimiser(
    groups: Sequence[tuple[np.ndarray, np.ndarray]],
    centre: np.ndarray,
    scale: np.ndarray,
    project: Callable[[np.ndarray], np.ndarray],
    radius: float,
    iterations: int = 500,
) -> np.ndarray | None:
    """The minimiser over X, within ``radius`` (units of ``scale``) of ``centre``, of
    ``a_k + g . u + 1/2 sum_j h_j u_j^2`` (u = (x - centre) / scale) fitted by least squares
    to the evaluations ``groups`` = [(X_k, y_k), ...] (one intercept a_k per group).

    Points farther than ``radius`` are left out; None when fewer than twice as many points as
    parameters remain. Curvatures below a small floor are raised to it, so a flat or concave
    direction sends the minimiser to the edge of the trust region rather than to infinity.
    The minimiser is found by projected gradient steps on X (the model is cheap).
    """
    d = centre.size
    rows, ys, ids = [], [], []
    for k, (X, y) in enumerate(groups):
        if len(X) == 0:
            continue
        U = (np.asarray(X, dtype=float) - centre) / scale
        near = np.max(np.abs(U), axis=1) <= radius
        rows.append(U[near])
        ys.append(np.asarray(y, dtype=float)[near])
        ids.append(np.full(int(near.sum()), k))
    if not rows:
        return None
    U, y, gid = np.concatenate(rows), np.concatenate(ys), np.concatenate(ids)
    used = np.unique(gid)
    if len(y) < 2 * (len(used) + 2 * d):
        return None
    onehot = (gid[:, None] == used[None, :]).astype(float)
    A = np.hstack([onehot, U, 0.5 * U**2])
    spread = float(np.std(y)) or 1.0
    coef, *_ = np.linalg.lstsq(A, y / spread, rcond=None)
    g = coef[len(used):len(used) + d]
    h = coef[len(used) + d:]
    h = np.maximum(h, 1e-3 * max(float(np.max(np.abs(h))), 1e-12))
    lo, hi = centre - radius * scale, centre + radius * scale
    x = project(centre)
    eta = 1.0 / float(np.max(h / scale**2))
    for _ in range(iterations):
        grad = (g + h * (x - centre) / scale) / scale
        x_new = project(np.clip(x - eta * grad, lo, hi))
        done = np.max(np.abs(x_new - x) / scale) < 1e-9
        x = x_new
        if done:
            break
    return x
