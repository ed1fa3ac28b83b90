"""The threshold of the nearest-correlation fallback in ``cholesky_or_nearest``: in a batch
that needs the fallback, a matrix whose smallest eigenvalue is below 1e-8 of its largest is
replaced by its nearest correlation matrix, one just above keeps its exact R."""

from __future__ import annotations

import numpy as np

from acfs_cli.problems.nearcorr import cholesky_or_nearest, nearest_correlation


def equicorrelation(rho: float, d: int = 5) -> np.ndarray:
    """Unit diagonal, ``rho`` elsewhere: eigenvalues 1 + (d - 1) rho once, 1 - rho d - 1 times."""
    return np.full((d, d), rho) + (1.0 - rho) * np.eye(d)


def spectrum_ratio(R: np.ndarray) -> float:
    w = np.linalg.eigvalsh(R)
    return w[0] / w[-1]


def test_only_the_matrix_below_the_threshold_is_replaced_in_a_batch_that_needs_the_fallback():
    not_pd = equicorrelation(-0.3)  # smallest eigenvalue 1 - 4 * 0.3 = -0.2
    below = equicorrelation(1 - 2.5e-8)  # ratio about 5e-9
    above = equicorrelation(1 - 1e-7)  # ratio about 2e-8
    assert np.linalg.eigvalsh(not_pd)[0] < 0
    assert 0 < spectrum_ratio(below) < 1e-8 < spectrum_ratio(above) < 1e-7
    np.linalg.cholesky(below)  # positive definite: only the threshold sends it to nearPD
    L = cholesky_or_nearest(np.stack([above, below, not_pd]))
    assert np.isfinite(L).all()
    np.testing.assert_allclose(L[0] @ L[0].T, above, rtol=0, atol=1e-12)
    repaired = nearest_correlation(below)
    np.testing.assert_allclose(L[1] @ L[1].T, repaired, rtol=0, atol=1e-12)
    assert not np.allclose(repaired, below, rtol=0, atol=1e-12)
    assert spectrum_ratio(L[1] @ L[1].T) >= 0.9e-8  # floored at posd_tol of the largest
    np.testing.assert_allclose(L[2] @ L[2].T, nearest_correlation(not_pd), rtol=0, atol=1e-12)


def test_a_near_singular_matrix_alone_is_factored_as_it_is():
    # Without a non-PD matrix in the batch, Cholesky succeeds and nothing is replaced.
    below = equicorrelation(1 - 2.5e-8)
    L = cholesky_or_nearest(below[None])[0]
    np.testing.assert_allclose(L @ L.T, below, rtol=0, atol=1e-12)
