"""The decision set X of both benchmarks, with its closed forms (DESIGN.md section 2).

X = {x in R^6 : 0 <= x_k <= 0.70 (k = 1..5), 0 <= x_6 <= 1, x_1 + ... + x_5 <= 0.85}
(paper Section 4.1). The benchmarks hand these closed forms to the problem protocol; the
methods see them only through the task's decision set:

* :func:`project` - the Euclidean projection onto X (box plus one half-space), exact and
  vectorised over any leading axes;
* :func:`design_map` - the map T from the unit cube onto X that sends uniform points to
  uniform points of X (a Rosenblatt transform of the uniform law on the corner simplex);
* :func:`sum_face_tangent` - the slope of J o P along the face of the sum constraint.

Nothing outside :mod:`acfs_cli.problems` imports this module.
"""

from __future__ import annotations

import numpy as np

from acfs_cli.core.space import FEAS_TOL

DIM_X = 6
UPPER = np.array([0.70, 0.70, 0.70, 0.70, 0.70, 1.0])
LOWER = np.zeros(DIM_X)
SUM_CAP = 0.85
N_ALLOC = 5  # x_1..x_5 share the sum constraint; x_6 is a free box coordinate
COUPLED = tuple(range(N_ALLOC))  # the coordinates the sum constraint ties together


def check_x(x, name: str = "x", *, feasible: bool = True, tol: float = FEAS_TOL) -> np.ndarray:
    """Return ``x`` as a float array of shape (..., 6); raise ``ValueError`` naming ``name``.

    Rejects a wrong trailing dimension, non-finite entries and (when ``feasible``) points
    outside X by more than ``tol``.
    """
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 0 or arr.shape[-1] != DIM_X:
        raise ValueError(f"{name} must have a last dimension of {DIM_X}, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if feasible:
        bad = ~is_feasible(arr, tol)
        if np.any(bad):
            first = np.atleast_2d(arr)[np.flatnonzero(np.atleast_1d(bad).ravel())[0]]
            raise ValueError(
                f"{name} is outside the feasible set X (bounds [0, 0.7]^5 x [0, 1] and "
                f"x1+...+x5 <= {SUM_CAP}): {np.array2string(first, precision=4)}"
            )
    return arr


def is_feasible(x, tol: float = FEAS_TOL) -> np.ndarray:
    """Boolean array over the leading axes of ``x``: is each point in X (within ``tol``)?"""
    x = np.asarray(x, dtype=float)
    in_box = np.all((x >= LOWER - tol) & (x <= UPPER + tol), axis=-1)
    return in_box & (x[..., :N_ALLOC].sum(axis=-1) <= SUM_CAP + tol)


def sum_face_tangent(x: np.ndarray, g: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """The slope of J o P at a point ``x`` of the face sum(x_1..x_5) = cap, descent outward.

    A polish or a projected step that evaluates J at the projection P(x) sees, at a point of
    the face where -g points out of the half-space, a J o P that only changes along the face:
    g overstates the available decrease (L-BFGS-B's line search then backtracks without a
    step; Adam's normalised steps come out nearly equal in every allocation and the
    projection cancels them). The slope of J o P just outside the face is g minus its mean
    over the allocations free to move (0 < x_j < upper), subtracted from all of x_1..x_5:
    directions along the face keep their slope, the outward one is removed. Where the
    descent points into X (mean >= 0) or ``x`` is off the face, g is returned unchanged.
    The closed form, for this X, of :func:`acfs_cli.core.space.tangent_gradient`.
    """
    k = N_ALLOC
    if x[:k].sum() < SUM_CAP - tol:
        return g
    free = (x[:k] > tol) & (x[:k] < UPPER[:k] - tol)
    if not free.any():
        return g
    m = float(g[:k][free].mean())
    if m >= 0:
        return g
    out = g.copy()
    out[:k] -= m
    return out


def project(x) -> np.ndarray:
    """Exact Euclidean projection onto X, vectorised over leading axes.

    The problem separates: x_6 is clipped to [0, 1]; (x_1..x_5) solves
    min ||y - v||^2 s.t. 0 <= y <= 0.7, sum(y) <= 0.85, whose KKT solution is
    y = clip(v - mu, 0, 0.7) with the multiplier mu >= 0 the root of the piecewise-linear,
    non-increasing g(mu) = sum(clip(v - mu, 0, 0.7)) - 0.85. The root is found exactly on the
    sorted breakpoints {v_k, v_k - 0.7} rather than by bisection, so the result is exact.
    """
    x = np.asarray(x, dtype=float)
    if x.shape[-1] != DIM_X:
        raise ValueError(f"x must have a last dimension of {DIM_X}, got shape {x.shape}")
    out = np.clip(x, LOWER, UPPER)
    v = x[..., :N_ALLOC]
    over = out[..., :N_ALLOC].sum(axis=-1) > SUM_CAP
    if not np.any(over):
        return out
    vo = v[over]  # (m, 5)
    u = UPPER[:N_ALLOC]
    bps = np.sort(np.concatenate([vo, vo - u], axis=-1), axis=-1)  # (m, 10), ascending
    g = np.clip(vo[:, None, :] - bps[:, :, None], 0.0, u).sum(axis=-1) - SUM_CAP  # (m, 10)
    # g is non-increasing in mu; at mu = 0 (below every useful breakpoint) g > 0.
    # Take the last breakpoint with g >= 0 and interpolate to the next one.
    idx = np.maximum((g >= 0).sum(axis=-1) - 1, 0)
    rows = np.arange(len(vo))
    lo, glo = bps[rows, idx], g[rows, idx]
    nxt = np.minimum(idx + 1, bps.shape[1] - 1)
    hi, ghi = bps[rows, nxt], g[rows, nxt]
    denom = glo - ghi
    safe = denom > 0
    mu = np.where(safe, lo + glo * (hi - lo) / np.where(safe, denom, 1.0), lo)
    mu = np.maximum(mu, 0.0)
    out_over = out[over]
    out_over[:, :N_ALLOC] = np.clip(vo - mu[:, None], 0.0, u)
    out[over] = out_over
    return out


def design_map(u) -> np.ndarray:
    """The design map T: [0, 1]^6 -> X (DESIGN.md section 2), vectorised over leading axes.

    x_6 = u_6. For k = 1..5, y_k = (s - y_1 - ... - y_{k-1}) (1 - (1 - u_k)^{1/(6-k)}) is the
    conditional inverse CDF of the uniform law on the corner simplex {y >= 0, sum y <= s},
    s = 0.85: uniform u gives uniform y. The rare y_k > 0.7 corner is then projected onto X.
    T is continuous, so maximin designs in the cube stay well spread on X.
    """
    u = np.asarray(u, dtype=float)
    if u.shape[-1] != DIM_X:
        raise ValueError(f"u must have a last dimension of {DIM_X}, got shape {u.shape}")
    if np.any((u < 0) | (u > 1)) or not np.all(np.isfinite(u)):
        raise ValueError("u must lie in the unit cube [0, 1]^6")
    x = np.empty_like(u)
    remaining = np.full(u.shape[:-1], SUM_CAP)
    for k in range(N_ALLOC):  # five sequential conditionals; each step is vectorised
        y = remaining * (1.0 - (1.0 - u[..., k]) ** (1.0 / (N_ALLOC - k)))
        x[..., k] = y
        remaining = remaining - y
    x[..., N_ALLOC] = u[..., N_ALLOC]
    return project(x)
