"""Gaussian-copula benchmarks: scenarios from supplied normals (DESIGN.md section 2).

A benchmark maps *supplied* standard normals to scenarios, so callers control common random
numbers and antithetic pairs: ``transform(x, z)`` with ``z`` of shape (n, d_W) returns W of
shape (n, d_W), with the convention Z = z L^T, L the lower Cholesky factor of R(x);
``sample(x, n, rng)`` is ``transform(x, rng.standard_normal((n, d_W)))``. Batched forms over
many decisions exist for designs. Costs are vectorised over scenarios and decisions. The
class implements the problem protocol of :mod:`acfs_cli.core.problem`, with the closed
forms of its decision set (:mod:`acfs_cli.problems.feasible`).
"""

from __future__ import annotations

import numpy as np

from acfs_cli.core.problem import check_count
from acfs_cli.problems import feasible
from acfs_cli.problems.nearcorr import cholesky_or_nearest


class GaussianCopulaProblem:
    """A decision-dependent Gaussian-copula benchmark on the decision set X.

    Subclasses give the parameters of the marginals and the copula correlation ``R(x)`` as
    closed forms vectorised over a batch of decisions, and the marginal quantile map from
    copula normals to W. Z = z L^T with L the lower Cholesky factor of R(x) (Higham's nearest
    correlation matrix when R(x) is not positive definite), then W_j = F_j^{-1}(Phi(Z_j); x).
    Nothing that depends on x is cached across calls.
    """

    name: str = ""
    dim_x: int = feasible.DIM_X
    dim_w: int = 5
    #: cost, projection, design and feasibility accept batches of decisions.
    vectorized = True
    #: The box of X (the sum cap x_1 + ... + x_5 <= 0.85 is in the projection).
    bounds = tuple(zip(feasible.LOWER.tolist(), feasible.UPPER.tolist(), strict=True))
    #: The allocations x_1..x_5 share the sum cap: local searches poll their exchanges.
    coupled: tuple[int, ...] = feasible.COUPLED
    #: Local-search steps in the units of x itself (the boxes are [0, 0.7] and [0, 1]).
    step_scale: tuple[float, ...] = (1.0,) * feasible.DIM_X

    @staticmethod
    def tangent(x: np.ndarray, g: np.ndarray) -> np.ndarray:
        """The slope of J o P along the faces of X (closed form for the sum face)."""
        return feasible.sum_face_tangent(x, g)

    # -- parameters, implemented by each benchmark -------------------------------------------
    def params(self, X: np.ndarray) -> dict[str, np.ndarray]:
        """Marginal parameters at a batch of decisions X (m, 6): arrays of shape (m, 5)."""
        raise NotImplementedError

    def correlation(self, X: np.ndarray) -> np.ndarray:
        """Raw copula correlation R(x) at a batch of decisions X (m, 6): shape (m, 5, 5)."""
        raise NotImplementedError

    def marginal_quantile(self, Z: np.ndarray, params: dict[str, np.ndarray]) -> np.ndarray:
        """Map copula normals Z (m, n, 5) to W (m, n, 5); ``params`` arrays are (m, 1, 5)."""
        raise NotImplementedError

    def cost(self, W, x) -> np.ndarray:  # pragma: no cover - each benchmark defines it
        raise NotImplementedError

    # -- shared machinery ----------------------------------------------------------------------
    @staticmethod
    def _corr_from_offdiag(m: int, entries: dict[tuple[int, int], np.ndarray]) -> np.ndarray:
        R = np.broadcast_to(np.eye(5), (m, 5, 5)).copy()
        for (i, j), val in entries.items():
            R[:, i, j] = val
            R[:, j, i] = val
        return R

    def cholesky(self, X) -> np.ndarray:
        """Lower Cholesky factors of the copula correlation at a batch of decisions X (m, 6)."""
        return cholesky_or_nearest(self.correlation(np.atleast_2d(X)))

    def _check_batch(self, X) -> np.ndarray:
        """A validated batch of decisions of shape (m, 6) (a single decision becomes m = 1)."""
        X = feasible.check_x(X, "x")
        if X.ndim == 1:
            X = X[None, :]
        if X.ndim != 2:
            raise ValueError(f"x must be a batch of decisions of shape (m, 6), got {X.shape}")
        return X

    def _transform_checked(self, X: np.ndarray, Z: np.ndarray) -> np.ndarray:
        """The copula map on already validated X (m, 6) and Z (m, n, 5)."""
        L = self.cholesky(X)
        corr_normals = np.matmul(Z, np.swapaxes(L, 1, 2))  # row-wise z @ L^T
        par = {k: v[:, None, :] for k, v in self.params(X).items()}
        return self.marginal_quantile(corr_normals, par)

    def transform_batch(self, X, Z) -> np.ndarray:
        """Scenarios at many decisions: X (m, 6), Z (m, n, 5) iid N(0, 1) -> W (m, n, 5)."""
        X = self._check_batch(X)
        Z = np.asarray(Z, dtype=float)
        if Z.ndim != 3 or Z.shape[0] != X.shape[0] or Z.shape[2] != self.dim_w:
            raise ValueError(
                f"z must have shape (m, n, {self.dim_w}) with m = {X.shape[0]} decisions, "
                f"got {Z.shape}"
            )
        return self._transform_checked(X, Z)

    def transform(self, x, z) -> np.ndarray:
        """Scenarios at one decision: x (6,), z (n, 5) iid N(0, 1) -> W (n, 5), deterministic."""
        x = feasible.check_x(x, "x")
        if x.ndim != 1:
            raise ValueError(f"x must be a single decision of shape (6,), got {x.shape}")
        z = np.asarray(z, dtype=float)
        if z.ndim != 2 or z.shape[1] != self.dim_w:
            raise ValueError(f"z must have shape (n, {self.dim_w}), got {z.shape}")
        return self._transform_checked(x[None, :], z[None])[0]

    def sample(self, x, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` scenarios W ~ P_x, shape (n, 5)."""
        n = check_count(n)
        return self.transform(x, rng.standard_normal((n, self.dim_w)))

    def sample_batch(self, X, n_each: int, rng: np.random.Generator) -> np.ndarray:
        """``n_each`` scenarios at each of many decisions X (m, 6): W (m, n_each, 5)."""
        n_each = check_count(n_each, "n_each")
        X = self._check_batch(X)
        return self._transform_checked(X, rng.standard_normal((X.shape[0], n_each, self.dim_w)))

    def project(self, x) -> np.ndarray:
        return feasible.project(x)

    def design(self, u) -> np.ndarray:
        return feasible.design_map(u)

    @staticmethod
    def is_feasible(x, tol: float = feasible.FEAS_TOL) -> np.ndarray:
        return feasible.is_feasible(x, tol)

    @staticmethod
    def _cost_args(W, x) -> tuple[np.ndarray, np.ndarray]:
        """Align W (..., n, 5) and x (..., 6): a decision per leading index, one per scenario set.

        W (n, 5) with x (6,) or x (k, 6) (k decisions on one W, result (k, n));
        W (m, n, 5) with x (m, 6).
        """
        W = np.asarray(W, dtype=float)
        x = np.asarray(x, dtype=float)
        if W.shape[-1] != 5:
            raise ValueError(f"W must have a last dimension of 5, got shape {W.shape}")
        if x.shape[-1] != feasible.DIM_X:
            raise ValueError(f"x must have a last dimension of 6, got shape {x.shape}")
        if np.isnan(x).any():
            raise ValueError("x contains NaN")
        if x.ndim >= 2 or (x.ndim == 1 and W.ndim == 3):
            x = x[..., None, :]  # one decision per scenario set
        return W, x


def x0_of(x: np.ndarray) -> np.ndarray:
    """Residual allocation x_0 = max(0, 1 - (x_1 + ... + x_5)) (never binds on X)."""
    return np.maximum(0.0, 1.0 - x[..., :5].sum(axis=-1))
