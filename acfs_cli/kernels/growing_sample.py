"""One common sample that grows by chunks, and the decisions drawn on its first rows.

The trust region of ``astro`` solves a sample-average problem whose sample grows as its
region narrows (ASTRO-DF under SimOpt's ``crn_across_solns``): every comparison is paired on
the same rows, and a decision's rows carry over from one iteration to the next. The sample
grows by the oracle's ``extend`` (DESIGN.md section 3): a new chunk with its own seed, so the
first rows never change and a decision drawn chunk by chunk sees the random numbers it would
see drawn at once, by normals or by re-seeding.

* :class:`Point`: a decision and its costs (and the simulator's pathwise gradients, where the
  search uses them) on the first chunks of the sample;
* :class:`GrowingSample`: the chunks, the points, what covering them on more rows costs, and
  the independent units of a standard error (rows, or antithetic pairs);
* :func:`values`: J of points on the first rows, with the rows' influence values (the
  project's estimator, DESIGN.md section 1); :func:`gradient_influence`: the rows' pathwise
  gradients of J's influence values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.risk import influence, search_level, spectral_risk
from acfs_cli.core.sample import CommonSample
from acfs_cli.core.task import Task


@dataclass(eq=False)
class Point:
    """A decision and what is known of it: its costs on the first rows of the sample (and
    the pathwise gradients of those costs, or None), covering its first ``chunks`` chunks."""

    x: np.ndarray
    costs: np.ndarray  # (rows,)
    grads: np.ndarray | None  # (rows, d)
    chunks: int


class GrowingSample:
    """One common sample that grows by chunks, and the costs of decisions on its first rows.

    A decision covers a prefix of the chunks; covering more draws only the missing chunks
    (a sample made of those chunks: the same seeds, so the same random numbers as drawing the
    whole sample at once). ``gradient`` (the task's pathwise gradient, or None) is evaluated
    on every row drawn while it is set.
    """

    def __init__(self, task: Task, oracle: Oracle, gradient, antithetic: bool = False,
                 stratified: bool = False):
        self.task, self.oracle, self.gradient = task, oracle, gradient
        self.antithetic, self.stratified = antithetic, stratified
        self.sample: CommonSample | None = None
        self.ends: list[int] = []  # rows at the end of each chunk
        self.points: list[Point] = []

    @property
    def n(self) -> int:
        return self.ends[-1] if self.ends else 0

    def grow(self, n: int) -> None:
        """The sample holds at least ``n`` rows, an even count of new rows when they come in
        antithetic pairs (nothing is drawn)."""
        n = int(n)
        if self.antithetic:
            n += (n - self.n) % 2
        if self.sample is None:
            self.sample = self.oracle.common_sample(n, antithetic=self.antithetic,
                                                    stratified=self.stratified)
            self.ends = [n]
        elif n > self.n:
            self.sample = self.oracle.extend(self.sample, n - self.n)
            self.ends.append(n)

    def units(self, A: np.ndarray, m: int) -> np.ndarray:
        """``A`` (..., m) per row of the first ``m`` rows, as independent units along the last
        axis: the rows themselves, or the means of each antithetic pair (z, -z) - a chunk of
        r rows holds the pairs (i, r/2 + i) - whose spread is the right one for a standard
        error (a pair's two rows are not independent)."""
        if not self.antithetic:
            return A
        parts, start = [], 0
        for end in self.ends:
            if end > m:
                break
            half = (end - start) // 2
            parts.append(0.5 * (A[..., start:start + half] + A[..., start + half:end]))
            start = end
        return np.concatenate(parts, axis=-1)

    def chunks_for(self, m: int) -> int:
        """How many chunks make the first ``m`` rows (``m`` must be a chunk end)."""
        return self.ends.index(m) + 1

    def rows_of(self, p: Point) -> int:
        """The rows ``p`` covers."""
        return self.ends[p.chunks - 1] if p.chunks else 0

    def find(self, x: np.ndarray, tol: float) -> Point | None:
        for p in self.points:
            if np.max(np.abs(p.x - x)) <= tol:
                return p
        return None

    def point(self, x: np.ndarray, tol: float) -> Point:
        """The known point at ``x`` (within ``tol``), or a new one with no rows."""
        p = self.find(x, tol)
        if p is None:
            p = Point(x=np.array(x, dtype=float), costs=np.empty(0), grads=None, chunks=0)
            self.points.append(p)
        return p

    def cost_of(self, points: list[Point], m: int) -> int:
        """Draws needed for every point to cover the first ``m`` rows."""
        seen, total = set(), 0
        for p in points:
            if id(p) not in seen:
                seen.add(id(p))
                total += max(m - self.rows_of(p), 0)
        return total

    def cover(self, points: list[Point], m: int) -> None:
        """Draw what each point lacks of the first ``m`` rows: one oracle call per group of
        points that lack the same chunks."""
        k_to = self.chunks_for(m)
        groups: dict[int, list[Point]] = {}
        for p in {id(p): p for p in points}.values():
            if p.chunks < k_to:
                groups.setdefault(p.chunks, []).append(p)
        for k_from, group in sorted(groups.items()):
            part = CommonSample(self.sample.chunks[k_from:k_to], self.sample.antithetic,
                                self.sample.key, self.sample.stratified)
            X = np.array([p.x for p in group])
            W = self.oracle.draw_common(X, part)
            C = np.asarray(self.task.cost(W, X), dtype=float).reshape(len(group), part.n)
            for i, p in enumerate(group):
                p.costs = np.concatenate([p.costs, C[i]])
                if self.gradient is not None:
                    G = pathwise(self.gradient, W[i], p.x, self.task.dim_x)
                    p.grads = G if p.grads is None else np.vstack([p.grads, G])
                p.chunks = k_to

    def forget(self, keep: list[Point]) -> None:
        """Drop every point but ``keep`` (their costs are the memory of the search)."""
        ids = {id(p) for p in keep}
        self.points = [p for p in self.points if id(p) in ids]


def pathwise(gradient, W: np.ndarray, x: np.ndarray, d: int) -> np.ndarray:
    """The simulator's pathwise gradients of the costs of rows ``W`` at ``x``, checked."""
    G = np.asarray(gradient(W, x), dtype=float)
    if G.shape != (W.shape[0], d) or not np.all(np.isfinite(G)):
        raise ValueError(f"task.gradient(W, x) must return finite values of shape "
                         f"({W.shape[0]}, {d}), got {G.shape}")
    return G


def values(task: Task, points: list[Point], m: int,
           tail_rows: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """J of each point on the first ``m`` rows, and the rows' influence values (k, m), at the
    search's level on m rows (:func:`acfs_cli.core.risk.search_level`)."""
    C = np.stack([p.costs[:m] for p in points])
    a = search_level(task.alpha, m, tail_rows)
    return np.asarray(spectral_risk(C, task.lam, a)[0], dtype=float).reshape(
        len(points)), influence(C, task.lam, a)


def gradient_influence(costs: np.ndarray, grads: np.ndarray, lam: float,
                       alpha: float) -> np.ndarray:
    """Per-row pathwise gradients of J's influence values (m, d): their mean is the gradient
    of the estimator ``spectral_risk`` on these rows (the row at the alpha-quantile fixed),
    their standard deviation over sqrt(m) its standard error."""
    c = np.asarray(costs, dtype=float)
    tau = np.quantile(c, alpha, method="inverted_cdf")
    at = int(np.flatnonzero(c == tau)[0])
    above = (c > tau)[:, None]
    g_tau = grads[at]
    return grads + lam * (g_tau + above * (grads - g_tau) / (1.0 - alpha))
