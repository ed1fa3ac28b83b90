"""Higham's nearest correlation matrix, the fallback when DGP1's raw R(x) is not PD.

Checked against Higham's (2002) published example, statsmodels' ``corr_nearest``, a naive
eigenvalue clip-and-rescale, and random correlation matrices (none may be closer).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from statsmodels.stats.correlation_tools import corr_nearest

from acfs_cli.problems import PROBLEMS
from acfs_cli.problems.feasible import is_feasible
from acfs_cli.problems.nearcorr import cholesky_or_nearest, nearest_correlation

# DGP1's raw R(x) at this vertex of X has its most negative eigenvalue, about -0.042
# (x1 = 0.7, x4 = 0.15, x6 = 0: DESIGN.md section 2).
NON_PD_X = np.array([0.7, 0.0, 0.0, 0.15, 0.0, 0.0])


def raw_dgp1_R(x):
    return PROBLEMS["dgp1"]().correlation(np.atleast_2d(x))[0]


def is_correlation(C, tol=1e-12):
    return (
        np.allclose(C, C.T, atol=0, rtol=0)
        and np.allclose(np.diag(C), 1.0, atol=tol)
        and np.linalg.eigvalsh(C)[0] > 0
    )


def clip_and_rescale(A, floor=1e-8):
    w, Q = np.linalg.eigh(A)
    B = (Q * np.maximum(w, floor)) @ Q.T
    d = np.sqrt(np.diag(B))
    B = B / np.outer(d, d)
    return 0.5 * (B + B.T)


def test_the_chosen_decision_is_feasible_and_its_raw_r_is_not_positive_definite():
    assert is_feasible(NON_PD_X)
    w = np.linalg.eigvalsh(raw_dgp1_R(NON_PD_X))
    assert -0.045 < w[0] < -0.035
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(raw_dgp1_R(NON_PD_X))


def test_nearest_correlation_of_a_non_pd_dgp1_matrix_is_a_correlation_matrix():
    A = raw_dgp1_R(NON_PD_X)
    C = nearest_correlation(A)
    assert is_correlation(C)
    np.linalg.cholesky(C)  # factors without trouble
    # Not on the edge: the smallest eigenvalue is well above the 1e-15 of a bare clip.
    assert np.linalg.eigvalsh(C)[0] > 1e-9


def test_nearest_correlation_is_closer_than_clip_and_rescale():
    A = raw_dgp1_R(NON_PD_X)
    C = nearest_correlation(A)
    naive = clip_and_rescale(A)
    assert is_correlation(naive)
    assert np.linalg.norm(A - C) < np.linalg.norm(A - naive)


def test_nearest_correlation_agrees_with_statsmodels():
    rng = np.random.default_rng(0)
    X = np.column_stack(
        [
            rng.uniform(0.175, 0.7, 20_000),
            rng.uniform(0, 0.08, 20_000),
            rng.uniform(0, 0.7, (20_000, 3)),
            rng.uniform(0, 0.17, 20_000),
        ]
    )
    X = X[is_feasible(X)]
    R = PROBLEMS["dgp1"]().correlation(X)
    bad = np.linalg.eigvalsh(R)[:, 0] < 0
    cases = np.concatenate([R[bad][:5], raw_dgp1_R(NON_PD_X)[None]])
    assert len(cases) >= 4
    ours = nearest_correlation(cases)
    for A, C in zip(cases, ours, strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = corr_nearest(A, threshold=1e-15, n_fact=1000)
        np.testing.assert_allclose(C, ref, atol=1e-4)
        # And ours is at least as near as statsmodels' (both in Frobenius norm).
        assert np.linalg.norm(A - C) <= np.linalg.norm(A - ref) + 1e-6


def test_nearest_correlation_reproduces_highams_example():
    # Higham (2002), IMA J. Numer. Anal. 22, Section 4: the nearest correlation matrix to
    # [[1, 1, 0], [1, 1, 1], [0, 1, 1]] has off-diagonals 0.7607 and 0.1573.
    A = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]])
    C = nearest_correlation(A, conv_tol=1e-12, max_iter=2000)
    expected = np.array([[1, 0.7607, 0.1573], [0.7607, 1, 0.7607], [0.1573, 0.7607, 1]])
    np.testing.assert_allclose(C, expected, atol=1e-4)


def test_no_random_correlation_matrix_is_nearer():
    A = raw_dgp1_R(NON_PD_X)
    d = np.linalg.norm(A - nearest_correlation(A))
    rng = np.random.default_rng(1)
    C = nearest_correlation(A)
    for _ in range(200):
        # Perturb the answer towards A and back onto the correlation matrices.
        B = C + rng.normal(scale=0.01, size=(5, 5))
        B = 0.5 * (B + B.T)
        np.fill_diagonal(B, 1.0)
        if np.linalg.eigvalsh(B)[0] > 0:
            assert np.linalg.norm(A - B) >= d - 1e-6


def test_a_positive_definite_matrix_is_returned_unchanged():
    R = raw_dgp1_R(np.array([0.1, 0.2, 0.3, 0.1, 0.1, 0.5]))
    np.testing.assert_allclose(nearest_correlation(R), R, atol=1e-12)
    L = cholesky_or_nearest(R[None])[0]
    np.testing.assert_allclose(L @ L.T, R, atol=1e-14)


def test_batched_fallback_only_replaces_the_non_pd_matrices():
    good = raw_dgp1_R(np.array([0.1, 0.2, 0.3, 0.1, 0.1, 0.5]))
    bad = raw_dgp1_R(NON_PD_X)
    L = cholesky_or_nearest(np.stack([good, bad, good]))
    np.testing.assert_allclose(L[0] @ L[0].T, good, atol=1e-14)
    np.testing.assert_allclose(L[2] @ L[2].T, good, atol=1e-14)
    np.testing.assert_allclose(L[1] @ L[1].T, nearest_correlation(bad), atol=1e-14)


def test_transform_at_a_non_pd_decision_gives_finite_scenarios_with_the_nearest_copula():
    problem = PROBLEMS["dgp1"]()
    W = problem.sample(NON_PD_X, 100_000, np.random.default_rng(2))
    assert np.isfinite(W).all()
    # The copula correlation of the scenarios is the nearest correlation matrix (Spearman's
    # rho of a Gaussian copula: (6 / pi) asin(r / 2)).
    from scipy.stats import spearmanr

    C = nearest_correlation(raw_dgp1_R(NON_PD_X))
    rho = spearmanr(W).statistic
    np.testing.assert_allclose(rho, 6 / np.pi * np.arcsin(C / 2), atol=0.01)
    costs = problem.cost(W, NON_PD_X)
    assert np.isfinite(costs).all()


def vertices_of_x() -> np.ndarray:
    """All vertices of X: five active constraints among the 11 of x1..x5, times x6 in {0, 1}."""
    import itertools

    A = np.vstack([-np.eye(5), np.eye(5), np.ones((1, 5))])
    b = np.r_[np.zeros(5), np.full(5, 0.7), 0.85]
    found = set()
    for S in itertools.combinations(range(11), 5):
        M = A[list(S)]
        if abs(np.linalg.det(M)) < 1e-12:
            continue
        v = np.linalg.solve(M, b[list(S)])
        if np.all(A @ v <= b + 1e-12):
            found.add(tuple(np.round(v, 12) + 0.0))
    V = np.array(sorted(found))
    return np.vstack([np.c_[V, np.zeros(len(V))], np.c_[V, np.ones(len(V))]])


def test_dgp1_smallest_eigenvalue_over_x_is_minus_0_042_at_a_vertex():
    # R(x) is affine in x and the smallest eigenvalue is concave in R, so its minimum over
    # the polytope X is attained at a vertex: enumerating them gives the exact minimum.
    V = vertices_of_x()
    assert len(V) == 52 and is_feasible(V).all()
    w = np.linalg.eigvalsh(PROBLEMS["dgp1"]().correlation(V))[:, 0]
    assert w.min() == pytest.approx(-0.04203, abs=1e-5)
    np.testing.assert_allclose(V[np.argmin(w)], NON_PD_X, atol=1e-12)
    # About 0.05 % of X (uniform points through the design map) is not positive definite.
    X = PROBLEMS["dgp1"]().design(np.random.default_rng(3).random((400_000, 6)))
    share = (np.linalg.eigvalsh(PROBLEMS["dgp1"]().correlation(X))[:, 0] <= 0).mean()
    assert 0.0002 < share < 0.001


def test_dgp2_correlation_is_positive_definite_on_all_of_x():
    # Same concavity argument: the smallest eigenvalue over X is the smallest over vertices.
    w = np.linalg.eigvalsh(PROBLEMS["dgp2"]().correlation(vertices_of_x()))[:, 0]
    assert w.min() > 0.08
