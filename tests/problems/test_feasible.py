"""The decision set X: projection, design map T and maximin Latin hypercubes (DESIGN.md section 2).

The projection is checked against scipy's SLSQP on the same quadratic programme; the design
map against rejection sampling from the box (uniform on X by construction); the Latin
hypercubes against their defining stratification and a random Latin hypercube from scipy.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, stats
from scipy.spatial.distance import pdist
from scipy.stats import qmc
from toys import BENCH_X

from acfs_cli.core.space import FEAS_TOL, maximin_lhs
from acfs_cli.problems.feasible import (
    SUM_CAP,
    UPPER,
    check_x,
    design_map,
    is_feasible,
    project,
)

BOUNDS = [(0.0, float(u)) for u in UPPER]


def slsqp_projection(v):
    """Nearest point of X to v by SLSQP with a tight tolerance, from a feasible start."""
    cons = [
        {
            "type": "ineq",
            "fun": lambda y: SUM_CAP - y[:5].sum(),
            "jac": lambda y: -np.r_[np.ones(5), 0.0],
        }
    ]
    res = optimize.minimize(
        lambda y: 0.5 * np.sum((y - v) ** 2),
        np.clip(v, 0, UPPER) * np.r_[np.full(5, 0.5), 1.0],
        jac=lambda y: y - v,
        bounds=BOUNDS,
        constraints=cons,
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 500},
    )
    assert res.success, res.message
    return res.x


def random_points(n, rng):
    """A mix of far, near-boundary and feasible points."""
    wide = rng.uniform(-0.5, 1.5, size=(n, 6))
    near = rng.uniform(0.0, 0.7, size=(n, 6)) * np.r_[np.full(5, 0.35), 1.0]  # sums near 0.85
    near += rng.normal(scale=0.05, size=near.shape)
    return np.concatenate([wide, near])


def test_projection_is_feasible_and_as_close_as_slsqp():
    rng = np.random.default_rng(0)
    V = random_points(60, rng)
    P = project(V)
    assert is_feasible(P, 1e-12).all()
    for v, p in zip(V, P, strict=True):
        q = slsqp_projection(v)
        assert is_feasible(q, 1e-9)
        # No feasible point found by scipy is closer by more than 1e-7.
        assert np.linalg.norm(v - p) <= np.linalg.norm(v - q) + 1e-7
        np.testing.assert_allclose(p, q, atol=1e-6)


def test_projection_satisfies_the_kkt_conditions():
    # p is the projection iff p_k = clip(v_k - mu, 0, 0.7) (k = 1..5) for a multiplier
    # mu >= 0 that vanishes unless the sum constraint is active, and p_6 = clip(v_6, 0, 1).
    # Free coordinates fix mu = v_k - p_k; a coordinate at 0 needs mu >= v_k, one at 0.7
    # needs mu <= v_k - 0.7.
    rng = np.random.default_rng(1)
    V = random_points(500, rng)
    P = project(V)
    tol = 1e-12
    for v, p in zip(V, P, strict=True):
        at_bottom = p[:5] <= tol
        at_top = p[:5] >= UPPER[:5] - tol
        free = ~(at_bottom | at_top)
        lo = max([0.0, *v[:5][at_bottom]])
        hi = min([np.inf, *(v[:5][at_top] - UPPER[:5][at_top])])
        if free.any():
            mu = v[:5][free] - p[:5][free]
            np.testing.assert_allclose(mu, mu[0], atol=tol)
            lo = hi = mu[0]
            assert mu[0] >= -tol
        assert lo <= hi + tol
        np.testing.assert_allclose(p[:5], np.clip(v[:5] - lo, 0, UPPER[:5]), atol=1e-10)
        if abs(p[:5].sum() - SUM_CAP) > tol:  # inactive sum constraint: mu = 0 allowed
            assert lo <= tol
        assert p[5] == np.clip(v[5], 0, 1)


def test_projection_is_idempotent_and_keeps_feasible_points():
    rng = np.random.default_rng(2)
    P = project(random_points(500, rng))
    np.testing.assert_allclose(project(P), P, rtol=0, atol=1e-14)
    inside = design_map(rng.random((500, 6)))
    assert np.array_equal(project(inside), inside)
    # A vertex and the origin stay where they are.
    for x in ([0.7, 0.15, 0, 0, 0, 1.0], [0.0] * 6):
        assert np.array_equal(project(np.array(x)), np.array(x))


def test_projection_is_vectorised_over_leading_axes():
    rng = np.random.default_rng(3)
    V = random_points(24, rng).reshape(4, 12, 6)
    P = project(V)
    assert P.shape == V.shape
    for idx in np.ndindex(4, 12):
        np.testing.assert_array_equal(P[idx], project(V[idx]))
    assert project(V[0, 0]).shape == (6,)


def test_projection_rejects_a_wrong_width():
    with pytest.raises(ValueError, match=r"\bx\b"):
        project(np.zeros(5))


def test_feasibility_check_uses_the_tolerance_and_names_the_argument():
    x = np.array([0.7, 0.15, 0, 0, 0, 1.0])
    assert is_feasible(x)
    assert is_feasible(x + np.r_[0, 0.5 * FEAS_TOL, 0, 0, 0, 0])
    assert not is_feasible(x + np.r_[0, 10 * FEAS_TOL, 0, 0, 0, 0])
    assert not is_feasible(np.r_[0, 0, 0, 0, 0, -1e-8])
    assert is_feasible(np.stack([x, x * 2])).tolist() == [True, False]
    with pytest.raises(ValueError, match=r"\bxstar\b"):
        check_x(x * 2, "xstar")
    with pytest.raises(ValueError, match=r"\bxstar\b"):
        check_x(np.zeros(4), "xstar")
    with pytest.raises(ValueError, match=r"\bxstar\b"):
        check_x(np.full(6, np.nan), "xstar")
    with pytest.raises(ValueError, match=r"\bxstar\b"):
        check_x(3.0, "xstar")


# ---------------------------------------------------------------------------------------------
# The design map T.
# ---------------------------------------------------------------------------------------------


def rejection_sample(n, rng):
    """Uniform points on X: uniform on the box, kept when the sum constraint holds."""
    out = []
    total = 0
    while total < n:
        B = rng.random((200_000, 6)) * UPPER
        B = B[B[:, :5].sum(axis=1) <= SUM_CAP]
        out.append(B)
        total += len(B)
    return np.concatenate(out)[:n]


def test_design_map_outputs_are_feasible_including_cube_corners():
    rng = np.random.default_rng(4)
    U = np.concatenate(
        [rng.random((10_000, 6)), np.array(np.meshgrid(*[[0.0, 1.0]] * 6)).reshape(6, -1).T]
    )
    X = design_map(U)
    assert X.shape == U.shape
    assert is_feasible(X, 1e-12).all()


def test_design_map_sends_uniform_points_to_the_uniform_law_on_x():
    rng = np.random.default_rng(5)
    n = 20_000
    X = design_map(rng.random((n, 6)))
    Y = rejection_sample(n, rng)
    # Two-sample KS on each coordinate and on the sum, Bonferroni over 7 tests at 1e-3.
    for k in range(6):
        assert stats.ks_2samp(X[:, k], Y[:, k]).pvalue > 1e-3 / 7, k
    assert stats.ks_2samp(X[:, :5].sum(1), Y[:, :5].sum(1)).pvalue > 1e-3 / 7

    # Chi-square homogeneity on a coarse partition: the largest of x1..x5, the sum in
    # thirds of [0, 0.85] and x6 in halves (5 * 3 * 2 = 30 cells).
    def cells(A):
        s = np.minimum((A[:, :5].sum(1) / SUM_CAP * 3).astype(int), 2)
        return A[:, :5].argmax(1) * 6 + s * 2 + (A[:, 5] > 0.5)

    table = np.stack([np.bincount(cells(X), minlength=30), np.bincount(cells(Y), minlength=30)])
    table = table[:, table.sum(0) > 0]
    assert stats.chi2_contingency(table).pvalue > 1e-3


def test_design_map_moves_exactly_the_simplex_corners_beyond_0_7():
    # Uniform on the corner simplex {y >= 0, sum y <= 0.85}: P(y_k > 0.7) = (0.15 / 0.85)^5
    # for each k (a scaled copy of the simplex), and two such events are disjoint; those
    # points are projected onto the face x_k = 0.7, all others land inside X.
    rng = np.random.default_rng(6)
    n = 400_000
    X = design_map(rng.random((n, 6)))
    on_face = (X[:, :5] == 0.7).any(axis=1)
    p = 5 * (0.15 / 0.85) ** 5
    assert abs(on_face.mean() - p) < 5 * np.sqrt(p * (1 - p) / n)
    # x6 = u6 untouched.
    U = rng.random((10, 6))
    np.testing.assert_array_equal(design_map(U)[:, 5], U[:, 5])


def test_design_map_matches_the_rosenblatt_formula_written_out():
    u = np.array([0.3, 0.6, 0.1, 0.9, 0.5, 0.25])
    s = 0.85
    y1 = s * (1 - (1 - 0.3) ** (1 / 5))
    y2 = (s - y1) * (1 - (1 - 0.6) ** (1 / 4))
    y3 = (s - y1 - y2) * (1 - (1 - 0.1) ** (1 / 3))
    y4 = (s - y1 - y2 - y3) * (1 - (1 - 0.9) ** (1 / 2))
    y5 = (s - y1 - y2 - y3 - y4) * 0.5
    np.testing.assert_allclose(design_map(u), [y1, y2, y3, y4, y5, 0.25], rtol=1e-14)


@pytest.mark.parametrize("u", [np.full(6, 1.1), np.full(6, -0.1), np.full(6, np.nan)])
def test_design_map_rejects_points_outside_the_unit_cube(u):
    with pytest.raises(ValueError, match=r"\bu\b"):
        design_map(u)


def test_design_map_rejects_a_wrong_width():
    with pytest.raises(ValueError, match=r"\bu\b"):
        design_map(np.zeros((3, 5)))


# ---------------------------------------------------------------------------------------------
# Maximin Latin hypercubes.
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "d"), [(1, 6), (7, 6), (1200, 6), (50, 2)])
def test_maximin_lhs_has_one_point_per_stratum_in_every_column(n, d):
    pts = maximin_lhs(n, d, np.random.default_rng(7))
    assert pts.shape == (n, d)
    assert np.all((pts >= 0) & (pts < 1))
    for j in range(d):
        assert np.array_equal(np.sort(np.floor(pts[:, j] * n).astype(int)), np.arange(n))


def test_maximin_lhs_spreads_points_better_than_a_random_lhs():
    ours, random = [], []
    for seed in range(30):
        ours.append(pdist(maximin_lhs(60, 6, np.random.default_rng(seed))).min())
        random.append(
            pdist(qmc.LatinHypercube(d=6, rng=np.random.default_rng(1000 + seed)).random(60)).min()
        )
    assert np.median(ours) > np.median(random)
    assert np.mean(np.array(ours) > np.median(random)) > 0.7


def test_maximin_lhs_is_reproducible_from_the_rng():
    a = maximin_lhs(40, 6, np.random.default_rng(8))
    b = maximin_lhs(40, 6, np.random.default_rng(8))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, maximin_lhs(40, 6, np.random.default_rng(9)))


def test_space_filling_designs_are_feasible_and_reach_every_part_of_x():
    X = BENCH_X.space_filling(1200, np.random.default_rng(10))
    assert X.shape == (1200, 6)
    assert is_feasible(X, 1e-12).all()
    # The design covers the faces: some points with a tight sum, some near each zero bound.
    assert (X[:, :5].sum(1) > 0.8).any()
    assert all((X[:, k] < 0.02).any() for k in range(6))


def test_maximin_lhs_rejects_an_empty_design():
    with pytest.raises(ValueError, match=r"\bn\b"):
        maximin_lhs(0, 6, np.random.default_rng(0))
