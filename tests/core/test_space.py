"""The decision set: projections against scipy's SLSQP, boxes, designs, faces and couplings."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize as scipy_minimize

from acfs_cli.core.space import maximin_lhs, polyhedron, projected, support_box, tangent_gradient

BOUNDS = [(0.0, 1.0), (-0.5, 1.0), (0.0, 2.0)]
A = np.array([[1.0, 1.0, 1.0], [1.0, -2.0, 0.5]])
B = np.array([1.5, 0.3])


def _slsqp_projection(y: np.ndarray) -> np.ndarray:
    low, high = np.array(BOUNDS).T
    cons = [{"type": "ineq", "fun": lambda x, i=i: B[i] - A[i] @ x, "jac": lambda x, i=i: -A[i]}
            for i in range(len(B))]
    res = scipy_minimize(lambda x: 0.5 * np.sum((x - y) ** 2), np.clip(y, low, high),
                         jac=lambda x: x - y, bounds=BOUNDS, constraints=cons, method="SLSQP",
                         options={"ftol": 1e-15, "maxiter": 500})
    return res.x


def test_polyhedron_projection_matches_slsqp_and_lands_in_x():
    rng = np.random.default_rng(0)
    X = polyhedron(BOUNDS, A, B)
    Y = rng.normal(0.5, 1.5, size=(60, 3))
    P = X.project(Y)
    assert np.all(X.contains(P, 1e-12))
    expect = np.array([_slsqp_projection(y) for y in Y])
    assert np.allclose(P, expect, atol=1e-6)
    assert np.allclose(X.project(P), P, atol=1e-9)  # idempotent
    assert X.project(Y[:4].reshape(2, 2, 3)).shape == (2, 2, 3)
    assert np.all(X.contains(X.design(rng.random((200, 3))), 1e-12))
    assert np.all(X.contains(X.space_filling(50, rng), 1e-12))


def test_polyhedron_rejects_an_empty_set_and_bad_shapes():
    with pytest.raises(ValueError, match="no point"):
        polyhedron([(0.0, 1.0), (0.0, 1.0)], [[1.0, 1.0]], [-1.0])
    with pytest.raises(ValueError, match="low <= high"):
        polyhedron([(1.0, 0.0)])
    with pytest.raises(ValueError, match="both A and b"):
        polyhedron([(0.0, 1.0)], [[1.0]], None)
    with pytest.raises(ValueError, match="A must be"):
        polyhedron([(0.0, 1.0)], [[1.0, 2.0]], [1.0])


def test_a_box_projects_by_clipping_and_its_box_is_itself():
    X = polyhedron([(0.0, 1.0), (2.0, 3.0)])
    np.testing.assert_array_equal(X.project(np.array([[-1.0, 5.0], [0.5, 2.5]])),
                                  [[0.0, 3.0], [0.5, 2.5]])
    np.testing.assert_array_equal(X.box()[0], [0.0, 2.0])
    np.testing.assert_array_equal(X.steps(), [1.0, 1.0])


def test_a_set_given_by_its_projection_finds_its_bounding_box():
    # the unit ball: support points along +-e_j are +-e_j
    def ball(x):
        x = np.asarray(x, dtype=float)
        r = np.linalg.norm(x, axis=-1, keepdims=True)
        return np.where(r > 1, x / np.maximum(r, 1e-300), x)

    lo, hi = support_box(ball, 3)
    np.testing.assert_allclose(lo, -1.0)
    np.testing.assert_allclose(hi, 1.0)
    X = projected(ball, 3)
    assert X.contains(np.array([0.5, 0.5, 0.5]))
    assert not X.contains(np.array([0.8, 0.8, 0.0]))
    assert np.all(X.contains(X.space_filling(30, np.random.default_rng(1)), 1e-12))


def test_the_tangent_keeps_a_descent_direction_that_stays_in_x_and_drops_the_outward_part():
    X = polyhedron([(0.0, 1.0), (0.0, 1.0)], [[1.0, 1.0]], [1.0])
    inside = np.array([0.2, 0.3])
    g = np.array([1.0, -2.0])
    np.testing.assert_array_equal(X.tangent(inside, g), g)
    face = np.array([0.5, 0.5])  # on x1 + x2 = 1; -g = (1, 1) points out of X
    t = X.tangent(face, np.array([-1.0, -1.0]))
    assert abs(t[0] + t[1]) < 1e-6  # no outward component left
    t2 = tangent_gradient(face, np.array([-2.0, 0.0]), X.project)
    np.testing.assert_allclose(t2, [-1.0, 1.0], atol=1e-6)  # the slope along the face


def test_exchange_coordinates_default_to_all_and_follow_a_declared_coupling():
    X = polyhedron([(0.0, 1.0)] * 3)
    assert X.exchange_coordinates() == (0, 1, 2)
    from dataclasses import replace

    assert replace(X, coupled=(0, 2)).exchange_coordinates() == (0, 2)


def test_check_names_an_infeasible_point_briefly_even_in_high_dimension():
    X = polyhedron([(0.0, 1.0)] * 50)
    with pytest.raises(ValueError, match=r"outside the set X: \[2, 0, 0, \.\.\., 0, 0, 0\]$"):
        X.check(np.r_[2.0, np.zeros(49)])
    with pytest.raises(ValueError, match="last dimension of 50"):
        X.check(np.zeros(3))


def test_maximin_lhs_is_a_latin_hypercube():
    U = maximin_lhs(40, 3, np.random.default_rng(2))
    for j in range(3):
        np.testing.assert_array_equal(np.sort(np.floor(U[:, j] * 40)), np.arange(40))
