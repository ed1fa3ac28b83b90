"""Pieces shared by the two conditional samplers (paper Section 2.2, eq. (cwfs)).

Both samplers draw from a weighted empirical law of the training scenarios plus a small
Gaussian kernel: ``W~ = W_I + h * Z`` with ``I ~ w(x)`` and ``Z ~ N(0, I)``. What differs is
only how the weights ``w(x)`` are computed (forest leaves or a Gaussian kernel in x). This
module holds the common parts: the systematic resampling of whole W rows (Douc et al. 2005),
Silverman's bandwidth per component of W, and :func:`surrogate_objective`, which turns a
fitted sampler into a batch estimate of J.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np
import scipy.sparse as sp


class ConditionalSampler(Protocol):
    """What :func:`surrogate_objective` needs from a fitted sampler."""

    dim_w: int

    def sample_with(self, Xq: np.ndarray, u, z: np.ndarray) -> np.ndarray: ...


class ResamplingSampler:
    """Drawing from a weighted empirical law of the training W plus a Gaussian kernel.

    Subclasses fit, set ``W_``, ``dim_x``, ``dim_w`` and ``bandwidth``, and define
    ``weights(Xq)`` (rows summing to 1); drawing, with or without common random numbers, is
    the same for both samplers and lives here.
    """

    bandwidth: np.ndarray | None = None
    W_: np.ndarray
    dim_x: int
    dim_w: int

    def weights(self, Xq: np.ndarray):  # pragma: no cover - each sampler defines it
        raise NotImplementedError

    def _check_fitted(self) -> None:
        if self.bandwidth is None:
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit(X, W) first")

    def _queries(self, Xq: np.ndarray) -> np.ndarray:
        """Queries as a float array (m, d_x); the sampler must be fitted."""
        self._check_fitted()
        Xq = np.atleast_2d(np.asarray(Xq, dtype=float))
        if Xq.shape[1] != self.dim_x:
            raise ValueError(f"queries must have {self.dim_x} columns, got {Xq.shape}")
        return Xq

    def sample_with(self, Xq: np.ndarray, u, z: np.ndarray) -> np.ndarray:
        """Draws (m, n, d_W) at queries Xq from given offsets u and kernel normals z.

        ``u``: one systematic offset in [0, 1), shared, or one per query (m,). ``z``: the
        kernel normals, (n, d_W) shared by every query or (m, n, d_W).
        """
        Xq = self._queries(Xq)
        u, z = check_noise(u, z, Xq.shape[0], self.dim_w)
        idx = systematic_resample(self.weights(Xq), z.shape[1], u)
        return self.W_[idx] + self.bandwidth * z

    def sample(
        self, Xq: np.ndarray, n: int, rng: np.random.Generator, *, crn: bool = True
    ) -> np.ndarray:
        """``n`` synthetic scenarios at each query: shape (m, n, d_W) (paper eq. (cwfs)).

        With ``crn`` every query uses the same systematic offset and the same kernel normals,
        so candidates are compared on common random numbers.
        """
        m = self._queries(Xq).shape[0]
        if crn:
            return self.sample_with(Xq, rng.random(), rng.standard_normal((n, self.dim_w)))
        return self.sample_with(Xq, rng.random(m), rng.standard_normal((m, n, self.dim_w)))


def silverman_bandwidth(W: np.ndarray) -> np.ndarray:
    """Silverman's rule of thumb per column of W (n, d): ``0.9 min(sd, IQR/1.34) n^(-1/5)``.

    As R's ``bw.nrd0``: when ``min(sd, IQR/1.34)`` is zero the SD is used, then ``|W_1|``,
    then 1, so a degenerate column still gets a positive scale. A single row gets zero
    bandwidth (there is no spread to estimate).
    """
    W = np.asarray(W, dtype=float)
    n = W.shape[0]
    if n < 2:
        return np.zeros(W.shape[1])
    sd = W.std(axis=0, ddof=1)
    q75, q25 = np.quantile(W, [0.75, 0.25], axis=0)
    lo = np.minimum(sd, (q75 - q25) / 1.34)
    lo = np.where(lo > 0, lo, sd)
    lo = np.where(lo > 0, lo, np.abs(W[0]))
    lo = np.where(lo > 0, lo, 1.0)
    return 0.9 * lo * n ** (-0.2)


def systematic_resample(weights, n: int, u) -> np.ndarray:
    """Systematic resampling (Douc et al. 2005) of ``n`` column indices per row of ``weights``.

    Parameters
    ----------
    weights : ndarray or scipy sparse matrix (m, N)
        Non-negative rows, each with a positive sum (they are renormalised here).
    n : int
        Draws per row.
    u : float or ndarray (m,)
        The uniform offset(s) in [0, 1): the positions are ``(u + k) / n``, k = 0..n-1.
        One shared offset for every row gives common random numbers across rows.

    Returns
    -------
    ndarray (m, n) of int
        Indices in increasing order within each row. Index i is chosen
        ``ceil(n C_i - u) - ceil(n C_{i-1} - u)`` times, C the row's cumulative weights, which
        is exact per row (no searchsorted on a concatenation of rows, whose offsets would
        cost precision) and vectorised over all rows at once.
    """
    if sp.issparse(weights):
        weights = weights.toarray()
    w = np.asarray(weights, dtype=float)
    if w.ndim != 2:
        raise ValueError(f"weights must be a 2-D (m, N) array, got shape {w.shape}")
    m, N = w.shape
    if n < 1:
        raise ValueError(f"n must be a positive integer, got {n}")
    u = np.broadcast_to(np.asarray(u, dtype=float), (m,))
    if np.any((u < 0) | (u >= 1)):
        raise ValueError("the systematic offsets u must lie in [0, 1)")
    c = np.cumsum(w, axis=1)
    total = c[:, -1:]
    if np.any(~(total > 0)) or np.any(w < 0):
        raise ValueError("every row of weights must be non-negative with a positive sum")
    c /= total
    c[:, -1] = 1.0  # exactly, so every row yields exactly n draws
    counts = np.clip(np.ceil(n * c - u[:, None]), 0, n).astype(np.int64)
    mult = np.diff(counts, axis=1, prepend=0)
    idx = np.repeat(np.tile(np.arange(N), m), mult.ravel())
    return idx.reshape(m, n)


def surrogate_objective(
    sampler: ConditionalSampler,
    task,
    n: int,
    rng: np.random.Generator,
    *,
    crn: bool = True,
) -> Callable[[np.ndarray], np.ndarray]:
    """Batch surrogate of J: ``f(X (m, d_x)) -> (m,)`` from ``n`` sampler draws per decision.

    ``f(X) = task.risk(task.cost(sampler.sample(X, n), X))[0]``: the same spectral-risk
    estimator as every direct estimate, applied to synthetic scenarios.

    With ``crn=True`` (the default) the systematic offset and the ``n`` kernel normals are
    drawn once, here, and reused for every candidate and every call: the surrogate is then a
    deterministic function of x. DE selection compares candidates on common random numbers,
    and the finite differences of an L-BFGS-B polish measure the change of the surrogate,
    not fresh Monte Carlo noise (a 100-draw estimate of a CVaR has a noise of several per
    cent, far above any finite-difference step). The price is that the surrogate's own
    sampling error is frozen into one realisation; the final choice of every method is
    checked on true draws or reported as a surrogate value. With ``crn=False`` each call
    draws fresh offsets and normals for each candidate.
    """
    if n < 1:
        raise ValueError(f"n must be a positive integer, got {n}")
    dim_w = getattr(sampler, "dim_w", None)
    if dim_w is None:
        raise RuntimeError("the sampler is not fitted; call fit(X, W) first")
    if crn:
        u = float(rng.random())
        z = rng.standard_normal((n, dim_w))

        def objective(X: np.ndarray) -> np.ndarray:
            X = np.atleast_2d(np.asarray(X, dtype=float))
            W = sampler.sample_with(X, u, z)
            return np.atleast_1d(task.risk(task.cost(W, X))[0])

    else:

        def objective(X: np.ndarray) -> np.ndarray:
            X = np.atleast_2d(np.asarray(X, dtype=float))
            m = X.shape[0]
            W = sampler.sample_with(X, rng.random(m), rng.standard_normal((m, n, dim_w)))
            return np.atleast_1d(task.risk(task.cost(W, X))[0])

    return objective


def check_training(X, W) -> tuple[np.ndarray, np.ndarray]:
    """Validated training pairs: X (N, d_x), W (N, d_W), finite, N >= 1."""
    X = np.asarray(X, dtype=float)
    W = np.asarray(W, dtype=float)
    if X.ndim != 2 or W.ndim != 2 or X.shape[0] != W.shape[0]:
        raise ValueError(
            f"X and W must be 2-D with the same number of rows, got {X.shape} and {W.shape}"
        )
    if X.shape[0] < 1:
        raise ValueError("the training set is empty")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(W))):
        raise ValueError("training X and W must be finite")
    return X, W


def check_noise(u, z: np.ndarray, m: int, dim_w: int) -> tuple[np.ndarray, np.ndarray]:
    """Offsets u as (m,) and normals z as (m, n, d_W) (a shared (n, d_W) is broadcast)."""
    u = np.broadcast_to(np.asarray(u, dtype=float), (m,))
    z = np.asarray(z, dtype=float)
    if z.ndim == 2:
        z = z[None]
    if z.ndim != 3 or z.shape[-1] != dim_w or z.shape[0] not in (1, m):
        raise ValueError(f"z must have shape (n, {dim_w}) or (m, n, {dim_w})")
    return u, z
