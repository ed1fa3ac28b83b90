"""The shared L-BFGS-B polish (paper Section 2.3 Phase 4): moves along the faces of X."""

from __future__ import annotations

import numpy as np
import pytest

from acfs_cli.kernels.polish import polish, tangent_gradient
from acfs_cli.problems.feasible import is_feasible, project


def test_tangent_gradient_is_the_slope_along_the_sum_face_by_hand():
    # x on the face x1 + ... + x5 = 0.85 with x5 at its lower bound; -g points out of X.
    x = np.array([0.2, 0.2, 0.2, 0.25, 0.0, 0.5])
    g = np.array([-1.0, -2.0, -3.0, 0.0, 0.0, 0.5])
    # P(x - t g) lifts x1..x4 by (1, 2, 3, 0) t, then subtracts the multiplier 6 t / 4 from the
    # four free allocations (x5 stays at 0); x6 is a free box coordinate.
    expected = np.array([0.5, -0.5, -1.5, 1.5, 0.0, 0.5])
    np.testing.assert_allclose(tangent_gradient(x, g, project), expected, atol=1e-6)


def test_tangent_gradient_keeps_g_where_the_descent_stays_in_x():
    x = np.array([0.1, 0.1, 0.1, 0.1, 0.1, 0.5])
    g = np.array([1.0, -2.0, 0.5, 0.0, 3.0, -1.0])
    np.testing.assert_array_equal(tangent_gradient(x, g, project), g)
    np.testing.assert_array_equal(tangent_gradient(x, np.zeros(6), project), np.zeros(6))


def _linear():
    c = np.array([-1.0, -2.0, 0.0, 0.0, 0.0, 1.0])  # min over X: x2 = 0.7, x1 = 0.15, x6 = 0
    return (lambda x: float(c @ x)), (lambda x: c.copy())


@pytest.mark.parametrize("penalty, tol", [(1.0, 1e-6), (1e6, 5e-3)])
def test_polish_with_face_moves_reaches_the_vertex_along_the_sum_face(penalty, tol):
    f, jac = _linear()
    x0 = np.array([0.17, 0.17, 0.17, 0.17, 0.17, 0.5])  # on the face; descent points out
    bounds = [(0.0, 0.7)] * 5 + [(0.0, 1.0)]
    res = polish(f, x0, project, bounds, jac=jac, tangent=True, penalty=penalty, maxiter=50)
    assert is_feasible(res.x)
    # The steep penalty (the default 1e6) makes the line search stop a little short of the vertex.
    np.testing.assert_allclose(res.x, [0.15, 0.7, 0.0, 0.0, 0.0, 0.0], atol=tol)
    assert res.value == pytest.approx(-1.55, abs=tol)


def test_polish_without_face_moves_stalls_on_the_sum_face():
    f, jac = _linear()
    x0 = np.array([0.17, 0.17, 0.17, 0.17, 0.17, 0.5])
    bounds = [(0.0, 0.7)] * 5 + [(0.0, 1.0)]
    res = polish(f, x0, project, bounds, jac=jac, tangent=False, penalty=1.0, maxiter=50)
    # The raw gradient's outward part dominates: L-BFGS-B stops far from the vertex (-1.55).
    assert res.value > -1.4
