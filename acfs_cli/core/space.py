"""The decision set X: what every method knows of it, for any problem (docs/DESIGN.md section 7).

A method learns X only through a :class:`DecisionSet`: a bounding box, the Euclidean
projection, a membership test, the design map from the unit cube, the slope of J o P along
the faces of X (:meth:`DecisionSet.tangent`) and which coordinates a constraint couples
(:meth:`DecisionSet.exchange_coordinates`). Two constructors cover the problem protocol:

* :func:`polyhedron` - ``bounds`` plus optional linear constraints ``A x <= b``: the
  projection is exact for a box and Dykstra's alternating projections otherwise;
* :func:`projected` - a problem's own ``project``: the box comes from the projection's
  support points, membership from the distance to the projection.

Every space-filling design of the project (ACFS's LHD and safety nets, GP-BO's initial
points, the screens of SAA-PS and of the reference search, KDE-SO's training set) is a
maximin Latin hypercube in the unit cube (:func:`maximin_lhs`) pushed through the design map
(:meth:`DecisionSet.space_filling`), never a box design clipped onto X: under the
benchmarks' constraints only about 2 % of their box is feasible.

A problem may replace any piece with its own closed form (``design``, ``is_feasible``,
``tangent``, ``coupled``, ``step_scale``); the benchmarks do (:mod:`acfs_cli.problems`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from acfs_cli.common.naming import short_array

#: Distance from X below which a point counts as feasible (rounding of projections).
FEAS_TOL = 1e-9

Array = np.ndarray


def maximin_lhs(n: int, d: int, rng: np.random.Generator, n_candidates: int = 5) -> Array:
    """Maximin Latin hypercube of ``n`` points in [0, 1]^d.

    As scikit-optimize's ``Lhs(criterion="maximin")``: draw ``n_candidates`` random
    (jittered) Latin hypercubes and keep the one with the largest minimum pairwise distance.
    A handful of candidates keeps a 1,200-point design to about 12 ms, where the optimised
    variants cost 0.6-5 s per replication; scipy's ``qmc.LatinHypercube`` is faster unoptimised
    but its designs have a 2-15 % shorter smallest distance, and its ``random-cd`` takes 3 s
    (BENCHMARKS.md, "Space-filling designs").
    """
    if n < 1:
        raise ValueError(f"n must be a positive integer, got {n}")
    from scipy.spatial import cKDTree  # imported when used: scipy is slow to load

    best, best_score = None, -np.inf
    for _ in range(max(1, n_candidates)):
        perms = np.argsort(rng.random((d, n)), axis=1).T  # (n, d) stratum of each point
        pts = (perms + rng.random((n, d))) / n
        # nearest-neighbour distances: O(n log n) and memory-light, unlike all pairwise ones
        score = cKDTree(pts).query(pts, k=2)[0][:, 1].min() if n > 1 else 0.0
        if score > best_score:
            best, best_score = pts, score
    return best


def tangent_gradient(x: Array, g: Array, project: Callable[[Array], Array],
                     step: float = 1e-6) -> Array:
    """The slope of J o P at a point ``x`` of X, seen along the steepest-descent direction.

    A search that evaluates J at the projection P(x) sees, at a point of a face of X where
    -g points out of X, a J o P that only changes along the face, so g overstates the
    available decrease (L-BFGS-B's line search then backtracks until it gives up without a
    step; Adam's normalised steps come out nearly equal and the projection cancels them).
    The projected-gradient map (x - P(x - t g)) / t for a small t is g where -g points into
    X and its component along the active faces where it points out: any X with a
    projection, no knowledge of its constraints needed.
    """
    g = np.asarray(g, dtype=float)
    size = float(np.max(np.abs(g)))
    if size == 0.0:
        return g
    t = step / size
    trial = x - t * g
    moved = project(trial)
    if np.allclose(moved, trial, rtol=0.0, atol=1e-12):
        return g
    return (x - moved) / t


@dataclass(frozen=True, eq=False)
class DecisionSet:
    """A convex decision set X, as the methods see it.

    ``project`` and ``contains`` are vectorised over leading axes. ``lower`` and ``upper``
    bound X; either may be infinite where X is unbounded, which needs a ``start`` (x0: where
    a search starts, and what its scale is learnt from). ``design_map`` is a problem's own
    map from the unit cube onto X (None: the box of :meth:`region` pushed through the
    projection); ``tangent_rule`` a closed form of :meth:`tangent` (None: the
    projected-gradient map); ``coupled`` the coordinates a constraint ties together (None:
    all, the searches then find the coupling through the projection); ``step_scale`` the unit
    of a local search's steps per coordinate (None: the rule of :meth:`steps`).
    """

    dim: int
    lower: Array
    upper: Array
    project: Callable[[Array], Array]
    contains: Callable[..., Array]
    design_map: Callable[[Array], Array] | None = None
    tangent_rule: Callable[[Array, Array], Array] | None = None
    coupled: tuple[int, ...] | None = None
    step_scale: tuple[float, ...] | None = None
    start: Array | None = None

    @property
    def bounded(self) -> bool:
        """Whether every bound of X is finite."""
        return bool(np.all(np.isfinite(self.lower)) and np.all(np.isfinite(self.upper)))

    def steps(self) -> Array:
        """Per-coordinate unit of a search's steps, designs and populations (DESIGN.md
        section 7): ``step_scale`` where the problem gives it; else, where a start x0 is known,
        |x0_j| (where x0_j is 0, the geometric mean of the other |x0_k|, and 1 where x0 = 0),
        but never more than the width of the box; else the widths of the box. So a box that
        holds the region x0 +- steps can be widened without changing any step, design or
        population."""
        if self.step_scale is not None:
            return np.asarray(self.step_scale, dtype=float)
        width = self.upper - self.lower
        if self.start is None:
            return np.where(width > 0, width, 1.0)
        size = np.abs(self.start)
        top = float(np.max(size))
        small = size <= 1e-8 * top if top > 0 else np.ones(size.shape, dtype=bool)
        fallback = float(np.exp(np.mean(np.log(size[~small])))) if np.any(~small) else 1.0
        size = np.where(small, fallback, size)
        return np.where(width > 0, np.minimum(size, width), 1.0)

    def region(self, radius: float = 1.0) -> tuple[Array, Array]:
        """A finite box (lower, upper) to search first: X's box, cut to x0 +- ``radius``
        steps where a start is known (:meth:`steps`). Space-filling designs, DE bounds and
        CEM populations live in it."""
        if self.start is None:
            if not self.bounded:
                raise ValueError("X is unbounded: a search needs a start x0")
            return self.lower.copy(), self.upper.copy()
        half = radius * self.steps()
        lo = np.maximum(self.lower, self.start - half)
        hi = np.minimum(self.upper, self.start + half)
        return lo, hi

    def design(self, u) -> Array:
        """Unit-cube points onto X: the problem's own map, else the point of the region's
        box, projected onto X."""
        if self.design_map is not None:
            return self.design_map(u)
        lo, hi = self.region()
        return self.project(lo + np.asarray(u, dtype=float) * (hi - lo))

    def box(self) -> tuple[Array, Array]:
        """A box (lower, upper) containing X, infinite where X is unbounded: the bounds
        L-BFGS-B gets."""
        return self.lower.copy(), self.upper.copy()

    def bounds(self) -> list[tuple[float, float]]:
        """:meth:`box` as the ``[(low, high), ...]`` list of scipy's L-BFGS-B (infinite
        bounds are no bounds)."""
        return [(float(a), float(b)) for a, b in zip(self.lower, self.upper, strict=True)]

    def region_bounds(self) -> list[tuple[float, float]]:
        """:meth:`region` as a list of finite ``(low, high)`` pairs (DE needs them)."""
        lo, hi = self.region()
        return [(float(a), float(b)) for a, b in zip(lo, hi, strict=True)]

    def tangent(self, x: Array, g: Array) -> Array:
        """The slope of J o P at ``x`` given the gradient ``g`` of J: g where the descent
        direction stays in X, its part along the active faces where it leaves X."""
        if self.tangent_rule is not None:
            return self.tangent_rule(x, g)
        return tangent_gradient(np.asarray(x, dtype=float), g, self.project)

    def exchange_coordinates(self) -> tuple[int, ...]:
        """Coordinates among which a local search polls exchange moves e_i - e_j when a
        constraint that couples them is active (``coupled``, else all: the search detects the
        coupling through the projection, so a box never triggers them)."""
        return self.coupled if self.coupled is not None else tuple(range(self.dim))

    def space_filling(self, n: int, rng: np.random.Generator, n_candidates: int = 5) -> Array:
        """``n`` decisions from a maximin Latin hypercube pushed through the design map; where
        the problem has a start, the first of them is x0 (every initial design and population
        holds the decision the user said to start from)."""
        if self.start is None:
            return self.design(maximin_lhs(n, self.dim, rng, n_candidates))
        if n == 1:
            return self.start[None, :].copy()
        return np.vstack([self.start[None, :],
                          self.design(maximin_lhs(n - 1, self.dim, rng, n_candidates))])

    def unit_of(self, x) -> Array | None:
        """The unit-cube point the design maps to ``x`` (clipped to the cube), or None where
        the problem's own design map has no inverse here."""
        if self.design_map is not None:
            return None
        lo, hi = self.region()
        width = np.where(hi > lo, hi - lo, 1.0)
        return np.clip((np.asarray(x, dtype=float) - lo) / width, 0.0, 1.0)

    def check(self, x, name: str = "x", tol: float = FEAS_TOL) -> Array:
        """``x`` as a float array (..., dim) inside X, or ``ValueError`` naming ``name``."""
        arr = np.asarray(x, dtype=float)
        if arr.ndim == 0 or arr.shape[-1] != self.dim:
            raise ValueError(f"{name} must have a last dimension of {self.dim}, "
                             f"got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or infinite values")
        inside = np.asarray(self.contains(arr, tol))
        if not np.all(inside):
            first = np.atleast_2d(arr)[np.flatnonzero(~np.atleast_1d(inside).ravel())[0]]
            raise ValueError(f"{name} lies outside the set X: {short_array(first)}")
        return arr


# -- X = {low <= x <= high, A x <= b} ------------------------------------------------------------
class _Polyhedron:
    """Projection and membership of {low <= x <= high, A x <= b}.

    The projection is Dykstra's alternating projections onto the box and each half-space,
    vectorised over a batch of points, which converges to the exact Euclidean projection; a
    final radial step toward a strictly interior point (the Chebyshev centre, by ``linprog``)
    removes the residual violation, so every returned point satisfies the constraints to
    rounding while lying within about the Dykstra tolerance of the exact projection.
    """

    def __init__(self, low: Array, high: Array, A: Array, b: Array, *, tol: float = 1e-12,
                 max_iter: int = 5000):
        self.low, self.high, self.A, self.b = low, high, A, b
        self.dim = len(low)
        self.tol, self.max_iter = tol, max_iter
        self._norm2 = np.einsum("ij,ij->i", A, A)
        self.centre = self._interior_point()

    def _interior_point(self) -> Array:
        """A strictly interior point of X: the centre of the largest ball inside the box and
        the half-spaces (Chebyshev), its radius capped at the widest finite half-width (or 1)
        so that an unbounded X has one too."""
        finite = np.isfinite(self.low) & np.isfinite(self.high)
        if len(self.b) == 0 and finite.all():
            return 0.5 * (self.low + self.high)
        d = self.dim
        norms = np.sqrt(self._norm2)
        rows = [np.hstack([self.A, norms[:, None]])]
        rhs = [self.b]
        for sign, bound in ((-1.0, self.low), (1.0, self.high)):
            keep = np.isfinite(bound)  # x_j - r >= low_j and x_j + r <= high_j, where finite
            rows.append(np.hstack([sign * np.eye(d)[keep], np.ones((int(keep.sum()), 1))]))
            rhs.append(sign * bound[keep])
        half = 0.5 * (self.high - self.low)[finite]
        cap = float(np.max(half)) if half.size else 1.0
        from scipy.optimize import linprog  # imported when used: scipy is slow to load

        res = linprog(np.r_[np.zeros(d), -1.0], A_ub=np.vstack(rows), b_ub=np.concatenate(rhs),
                      bounds=[(None, None)] * d + [(0, cap)], method="highs")
        if res.status != 0:
            raise ValueError("the constraints low <= x <= high, A x <= b admit no point")
        return res.x[:d]

    def contains(self, x, tol: float = FEAS_TOL) -> Array:
        x = np.asarray(x, dtype=float)
        ok = np.all((x >= self.low - tol) & (x <= self.high + tol), axis=-1)
        if len(self.b):
            ok &= np.all(x @ self.A.T <= self.b + tol, axis=-1)
        return ok

    def project(self, x) -> Array:
        x = np.asarray(x, dtype=float)
        if x.shape[-1] != self.dim:
            raise ValueError(f"x must have a last dimension of {self.dim}, got {x.shape}")
        shape = x.shape
        X = x.reshape(-1, self.dim)
        out = np.clip(X, self.low, self.high)
        if len(self.b) == 0:
            return out.reshape(shape)
        todo = ~self.contains(out, 0.0)  # a clipped point inside the half-spaces is exact
        if np.any(todo):
            out[todo] = self._dykstra(X[todo])
        return out.reshape(shape)

    def _dykstra(self, X: Array) -> Array:
        k = len(self.b)
        y = X.copy()
        corr = np.zeros((k + 1, *X.shape))
        for _ in range(self.max_iter):
            prev = y
            t = y + corr[0]
            y = np.clip(t, self.low, self.high)
            corr[0] = t - y
            for i in range(k):
                t = y + corr[i + 1]
                excess = np.maximum(t @ self.A[i] - self.b[i], 0.0) / self._norm2[i]
                y = t - excess[:, None] * self.A[i]
                corr[i + 1] = t - y
            if np.max(np.abs(y - prev)) <= self.tol:
                break
        return self._pull_inside(y)

    def _pull_inside(self, Y: Array) -> Array:
        """Move each point toward the interior centre just enough to satisfy every constraint."""
        c = self.centre
        D = Y - c
        aD = D @ self.A.T
        slack = self.b - self.A @ c
        with np.errstate(divide="ignore", invalid="ignore"):
            lim = np.where(aD > 0, slack / aD, np.inf)
            up = np.where(D > 0, (self.high - c) / D, np.inf)
            dn = np.where(D < 0, (self.low - c) / D, np.inf)
        t = np.minimum.reduce([np.ones(len(Y)), lim.min(axis=1), up.min(axis=1),
                               dn.min(axis=1)])
        return c + np.clip(t, 0.0, 1.0)[:, None] * D


def bound_pairs(bounds) -> Array:
    """``bounds`` ``[(low, high), ...]`` as a float array (d, 2), a ``None`` read as no bound
    (scipy's convention: ``(None, 5)``, ``(0, None)``), that is -inf below and +inf above;
    ``ValueError`` when they are not pairs of numbers."""
    given = bounds
    try:
        pairs = [tuple(pair) for pair in bounds]
    except TypeError:
        pairs = None
    if pairs is not None and all(len(p) == 2 for p in pairs):
        bounds = [(-np.inf if lo is None else lo, np.inf if hi is None else hi)
                  for lo, hi in pairs]
    try:
        return np.asarray(bounds, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"bounds must be (low, high) pairs of numbers (None: no bound), got "
                         f"{given!r:.80}") from None


def polyhedron(bounds, A=None, b=None) -> DecisionSet:
    """X = {low <= x <= high, A x <= b} from ``bounds`` ``[(low, high), ...]`` (None or an
    infinity where X is unbounded, :func:`bound_pairs`) and optional ``A`` (k, d), ``b``
    (k,); ``ValueError`` naming what is wrong."""
    B = bound_pairs(bounds)
    if B.ndim != 2 or B.shape[1] != 2 or B.shape[0] < 1:
        raise ValueError(f"bounds must be a sequence of (low, high) pairs, got shape {B.shape}")
    if np.any(np.isnan(B)) or np.any(B[:, 0] > B[:, 1]) or np.any(B[:, 0] == np.inf) or \
            np.any(B[:, 1] == -np.inf):
        raise ValueError("bounds must be pairs low <= high (None or infinite where X is "
                         "unbounded)")
    d = len(B)
    if (A is None) != (b is None):
        raise ValueError("give both A and b for the linear constraints A x <= b, or neither")
    if A is None:
        A_, b_ = np.zeros((0, d)), np.zeros(0)
    else:
        A_ = np.atleast_2d(np.asarray(A, dtype=float))
        b_ = np.atleast_1d(np.asarray(b, dtype=float))
        if A_.shape != (len(b_), d):
            raise ValueError(f"A must be (k, {d}) and b (k,), got {A_.shape} and {b_.shape}")
        if not (np.all(np.isfinite(A_)) and np.all(np.isfinite(b_))):
            raise ValueError("A and b must be finite")
    poly = _Polyhedron(B[:, 0].copy(), B[:, 1].copy(), A_, b_)
    return DecisionSet(dim=d, lower=poly.low.copy(), upper=poly.high.copy(),
                       project=poly.project, contains=poly.contains)


def support_box(project: Callable[[Array], Array], dim: int,
                far: float = 1e4) -> tuple[Array, Array]:
    """The bounding box of a convex X from its projection (support points along +-e_j).

    For a compact convex X the exact projection of ``t e_j`` tends, as t grows, to a maximiser
    of x_j over X; so that box contains X and is tight for a box-shaped X. A support point that
    follows the probe out to ``far`` means X is unbounded that way: the bound is infinite.
    """
    P = np.asarray(project(far * np.concatenate([np.eye(dim), -np.eye(dim)])), dtype=float)
    lo, hi = np.diag(P[dim:]).copy(), np.diag(P[:dim]).copy()
    lo[lo <= -0.5 * far] = -np.inf
    hi[hi >= 0.5 * far] = np.inf
    return lo, hi


def projected(project: Callable[[Array], Array], dim: int, bounds=None,
              remember: bool = False) -> DecisionSet:
    """X given by its Euclidean projection (vectorised over leading axes); the box is
    ``bounds`` when known (infinite where X is unbounded), else the projection's support
    points. ``remember`` keeps the latest projected points, so checking one of them costs no
    second projection (for a projection that takes one point at a time)."""
    if bounds is not None:
        B = bound_pairs(bounds)
        lo, hi = B[:, 0].copy(), B[:, 1].copy()
    else:
        lo, hi = support_box(project, dim)
    if np.any(np.isnan(lo)) or np.any(np.isnan(hi)) or np.any(lo > hi):
        raise ValueError("project(x) must map far points to points of X")

    # A point the projection returned lies in X: remembering the latest outputs spares a
    # second projection when the same point is checked (the oracle checks every decision a
    # method projected), which halves the calls of a user's one-point-at-a-time projection.
    recent: OrderedDict[bytes, None] = OrderedDict()

    def remembering(x) -> Array:
        out = np.asarray(project(x), dtype=float)
        for row in out.reshape(-1, dim):
            recent[row.tobytes()] = None
        while len(recent) > 4096:
            recent.popitem(last=False)
        return out

    def contains(x, tol: float = FEAS_TOL) -> Array:
        x = np.asarray(x, dtype=float)
        if not remember:
            return np.max(np.abs(project(x) - x), axis=-1) <= tol
        flat = x.reshape(-1, dim)
        known = np.array([row.tobytes() in recent for row in flat], dtype=bool)
        inside = known.copy()
        if not known.all():
            rest = flat[~known]
            inside[~known] = np.max(np.abs(project(rest) - rest), axis=-1) <= tol
        return inside.reshape(x.shape[:-1])

    return DecisionSet(dim=dim, lower=lo, upper=hi, project=remembering if remember else project,
                       contains=contains)
