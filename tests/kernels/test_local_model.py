"""astro's damped BFGS update against scipy's: the same Powell-damped update from the same
curvature, and a first curvature read off the first step, which scipy's scaled identity is not
(kernels.local_model.damped_bfgs; why it is kept rather than scipy.optimize.BFGS)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import BFGS

from acfs_cli.kernels.local_model import damped_bfgs, design


def scipy_bfgs(H0: np.ndarray) -> BFGS:
    """scipy's BFGS Hessian update with Powell's damping (curvature kept above 0.2 s'Hs), started
    from ``H0``."""
    b = BFGS(exception_strategy="damp_update", min_curvature=0.2, init_scale=1.0)
    b.initialize(len(H0), "hess")
    b.B = H0.copy()
    return b


def test_from_the_same_curvature_each_update_is_scipys_damped_update():
    rng = np.random.default_rng(4)
    d = 4
    M = rng.standard_normal((d, d))
    H = M @ M.T + d * np.eye(d)  # positive definite
    ref = scipy_bfgs(H)
    damped = 0
    for k in range(12):
        s = rng.standard_normal(d)
        # every third pair curves the wrong way: the update must be damped, never indefinite
        y = -0.3 * s + 0.1 * rng.standard_normal(d) if k % 3 == 2 else (
            H @ s + 0.5 * rng.standard_normal(d))
        damped += float(s @ y) < 0.2 * float(s @ H @ s)
        H = damped_bfgs(H, s, y)
        ref.update(s, y)
        np.testing.assert_allclose(H, ref.get_matrix(), rtol=1e-10, atol=1e-12)
        assert np.all(np.linalg.eigvalsh(H) > 0)
    assert damped >= 4


def test_the_first_step_gives_a_separable_quadratics_exact_curvature_where_scipys_start_does_not():
    # f(x) = sum a_j x_j^2 / 2: its gradient changes by a_j s_j along a step s
    a = np.array([1.0, 10.0, 100.0])
    x0, x1 = np.array([1.0, -2.0, 0.5]), np.array([0.4, -1.1, 0.45])
    s, y = x1 - x0, a * (x1 - x0)
    ours = damped_bfgs(None, s, y)
    np.testing.assert_allclose(ours, np.diag(a), rtol=1e-12)
    ref = BFGS(exception_strategy="damp_update", min_curvature=0.2)  # scaled identity first
    ref.initialize(3, "hess")
    ref.update(s, y)
    # the model's Newton step from x1: exactly to the minimum at 0 with the curvature read
    # off the step, far from it with scipy's scaled identity updated once
    newton = x1 - np.linalg.solve(ours, a * x1)
    assert np.linalg.norm(newton) == pytest.approx(0.0, abs=1e-12)
    newton_scipy = x1 - np.linalg.solve(ref.get_matrix(), a * x1)
    assert np.linalg.norm(newton_scipy) > 0.5 * np.linalg.norm(x1)


def test_no_curvature_yet_where_the_first_pair_curves_down():
    assert damped_bfgs(None, np.array([1.0, 0.0]), np.array([-1.0, 0.0])) is None


@pytest.mark.parametrize("seed", range(5))
def test_the_design_adds_the_points_a_recomputed_inverse_finds_least_determined(seed):
    # The reference inverts A'A afresh after every choice: the updated leverages must pick
    # the same points in the same order, and stop at the same limit (A of full rank: where
    # it is not, the 1e-8 ridge makes the inverse ill-conditioned and either way of updating
    # it rounds differently).
    rng = np.random.default_rng(seed)
    p = 7
    A = rng.standard_normal((9, p))
    C = 2.0 * rng.standard_normal((12, p))
    limit = 0.6
    rows, left, expected = list(A), list(range(len(C))), []
    while left:
        Minv = np.linalg.inv(np.array(rows).T @ np.array(rows) + 1e-8 * np.eye(p))
        lev = [C[i] @ Minv @ C[i] for i in left]
        k = int(np.argmax(lev))
        if lev[k] <= limit:
            break
        expected.append(left.pop(k))
        rows.append(C[expected[-1]])
    assert design(A, C, limit) == expected
    assert 0 < len(expected) < len(C)


def test_an_interpolating_design_scores_its_own_points_at_one_and_adds_nothing():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((6, 6))
    assert design(A, A[:3], limit=1.0 + 1e-6) == []
    assert design(A, A[:3], limit=0.99) != []
