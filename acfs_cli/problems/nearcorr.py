"""Cholesky factors of copula correlations, with Higham's nearest correlation as fallback.

The paper projects R(x) "to the nearest positive-definite correlation matrix when the raw
expression is not positive definite" (Table DGP1 caption; Appendix B). This happens on about
0.05 % of DGP1's feasible set (DESIGN.md section 2). We follow R's ``Matrix::nearPD(corr = TRUE)``:
Higham's (2002) alternating projections with Dykstra's correction, then a final eigenvalue
floor at ``posd_tol`` times the largest eigenvalue so the Cholesky factor is well away from
the edge (never a bare clip at 1e-15).
"""

from __future__ import annotations

import numpy as np


def nearest_correlation(
    A: np.ndarray,
    *,
    eig_tol: float = 1e-6,
    conv_tol: float = 1e-7,
    posd_tol: float = 1e-8,
    max_iter: int = 100,
) -> np.ndarray:
    """Nearest correlation matrix to each symmetric matrix in ``A`` (k, d, d), as nearPD.

    Defaults are those of ``Matrix::nearPD``. Vectorised over the leading axis.
    """
    A = np.asarray(A, dtype=float)
    single = A.ndim == 2
    X = np.atleast_3d(A).reshape(-1, A.shape[-1], A.shape[-1]).copy()
    d = X.shape[-1]
    dS = np.zeros_like(X)
    active = np.ones(len(X), dtype=bool)
    diag = np.arange(d)
    for _ in range(max_iter):
        if not active.any():
            break
        Y = X[active]
        R = Y - dS[active]
        w, Q = np.linalg.eigh(R)  # ascending
        keep = w > eig_tol * w[:, -1:]
        Xn = np.einsum("kij,kj,klj->kil", Q, np.where(keep, w, 0.0), Q)
        dS[active] = Xn - R
        Xn[:, diag, diag] = 1.0
        conv = np.abs(Y - Xn).sum(axis=2).max(axis=1) / np.abs(Y).sum(axis=2).max(axis=1)
        X[active] = Xn
        idx = np.flatnonzero(active)
        active[idx[conv <= conv_tol]] = False
    # Final step of nearPD(posd.tol): floor the spectrum, rescale to unit diagonal.
    w, Q = np.linalg.eigh(X)
    eps = posd_tol * np.abs(w[:, -1:])
    w = np.maximum(w, eps)
    X = np.einsum("kij,kj,klj->kil", Q, w, Q)
    D = np.sqrt(np.maximum(np.diagonal(X, axis1=1, axis2=2), eps))
    X = X / (D[:, :, None] * D[:, None, :])
    X[:, diag, diag] = 1.0
    X = 0.5 * (X + np.swapaxes(X, 1, 2))
    return X[0] if single else X


def cholesky_or_nearest(R: np.ndarray) -> np.ndarray:
    """Lower Cholesky factors of a batch of correlation matrices R (m, d, d).

    Cholesky first (the common case, one batched LAPACK call); only the matrices that are
    not positive definite go through :func:`nearest_correlation`.
    """
    try:
        return np.linalg.cholesky(R)
    except np.linalg.LinAlgError:
        pass
    R = R.copy()
    w = np.linalg.eigvalsh(R)
    # Matrices comfortably positive definite keep their exact R (a 5 x 5 matrix whose
    # spectrum is above 1e-8 of its largest eigenvalue factors without trouble); the rest are
    # replaced by nearPD's answer.
    bad = w[:, 0] <= 1e-8 * w[:, -1]
    R[bad] = nearest_correlation(R[bad])
    return np.linalg.cholesky(R)
