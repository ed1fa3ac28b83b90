"""The conditional weighted forest sampler (paper Section 2.2) and systematic resampling."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from toys import BENCH_X

from acfs_cli.problems import PROBLEMS
from acfs_cli.problems.feasible import project
from acfs_cli.surrogates import ForestSampler, silverman_bandwidth, systematic_resample


def _design(problem, n, rng, center=None, sd=None):
    if center is None:
        X = BENCH_X.space_filling(n, rng)
    else:
        X = project(center + sd * rng.standard_normal((n, 6)))
    return X, problem.sample_batch(X, 1, rng)[:, 0, :]


@pytest.fixture(scope="module")
def small_forest():
    """Few, small trees with tiny leaves, so that some estimation leaves are empty."""
    rng = np.random.default_rng(11)
    X, W = _design(PROBLEMS["dgp2"](), 80, rng)
    return ForestSampler(n_trees=4, min_leaf=2, seed=5).fit(X, W), X, W


@pytest.fixture(scope="module")
def dgp2_forest():
    rng = np.random.default_rng(12)
    X, W = _design(PROBLEMS["dgp2"](), 600, rng)
    return ForestSampler(seed=3).fit(X, W), X, W


def _brute_force_weights(forest: ForestSampler, Xq: np.ndarray, N: int) -> np.ndarray:
    """Eq. (weights) by hand: loop over trees and training points, skipping empty leaves."""
    out = np.zeros((len(Xq), N))
    for q, x in enumerate(Xq):
        contributing = 0
        for tree, est in zip(forest.trees_, forest.estimation_sets_, strict=True):
            leaf_q = tree.apply(x[None, :].astype(np.float32))[0]
            leaf_train = tree.apply(forest.X_[est].astype(np.float32))
            members = [int(i) for i, leaf in zip(est, leaf_train, strict=True) if leaf == leaf_q]
            if not members:
                continue
            contributing += 1
            for i in members:
                out[q, i] += 1.0 / len(members)
        out[q] /= contributing
    return out


def test_weights_equal_brute_force_from_tree_apply(small_forest):
    forest, X, _ = small_forest
    Xq = np.vstack([BENCH_X.space_filling(25, np.random.default_rng(3)), X[:5]])
    w = forest.weights(Xq)
    assert sp.issparse(w) and w.shape == (30, len(X))
    expected = _brute_force_weights(forest, Xq, len(X))
    np.testing.assert_allclose(w.toarray(), expected, rtol=0, atol=1e-12)
    # the case the renormalisation exists for does occur here
    leaves = forest.leaves(Xq)
    assert np.any(forest.leaf_size_[leaves] == 0)


def test_weights_of_each_query_sum_to_one(dgp2_forest):
    forest, X, _ = dgp2_forest
    Xq = BENCH_X.space_filling(151, np.random.default_rng(4))
    w = forest.weights(Xq)
    np.testing.assert_allclose(np.asarray(w.sum(axis=1)).ravel(), 1.0, atol=1e-12)
    assert w.min() >= 0


def test_one_forest_of_n_trees_per_component_of_w(dgp2_forest):
    """Trees 70 j .. 70 j + 69 regress W_j on x: each leaf predicts the mean of W_j over the
    split-half points in it."""
    forest, X, W = dgp2_forest
    assert len(forest.trees_) == 70 * W.shape[1]
    for k in range(0, len(forest.trees_), 23):
        j = k // 70
        tree, split = forest.trees_[k], forest.split_sets_[k]
        leaf = tree.apply(X[split].astype(np.float32))
        pred = tree.predict(X[split].astype(np.float32))
        for node in np.unique(leaf):
            in_leaf = leaf == node
            assert in_leaf.sum() >= forest.min_leaf
            np.testing.assert_allclose(pred[in_leaf], W[split[in_leaf], j].mean(), rtol=1e-10)


def test_weights_concentrate_on_near_neighbours(dgp2_forest):
    forest, X, _ = dgp2_forest
    rng = np.random.default_rng(8)
    Xq = BENCH_X.space_filling(40, rng)
    w = forest.weights(Xq).toarray()
    dist = np.linalg.norm(Xq[:, None, :] - X[None, :, :], axis=-1)
    ranks = np.argsort(np.argsort(dist, axis=1), axis=1)
    near = ranks < len(X) // 10  # the nearest 10 % of the design
    far = ranks >= len(X) // 2  # the farther half
    mass_near = (w * near).sum(axis=1)
    mass_far = (w * far).sum(axis=1)
    assert np.median(mass_near) > 0.2  # twice the uniform share of 10 %
    assert np.all(mass_near / near.sum(axis=1) > mass_far / far.sum(axis=1))


def test_honest_leaf_populations_come_only_from_the_estimation_half():
    rng = np.random.default_rng(2)
    X, W = _design(PROBLEMS["dgp1"](), 200, rng)
    forest = ForestSampler(n_trees=3, min_leaf=5, seed=1).fit(X[:, :], W[:, :1])
    for split, est in zip(forest.split_sets_, forest.estimation_sets_, strict=True):
        assert len(split) == 50 and len(est) == 50  # half of the 0.5 subsample each
        assert not set(split) & set(est)
    # one tree: the weights live on that tree's estimation rows only
    single = ForestSampler(n_trees=1, min_leaf=5, seed=4).fit(X, W[:, :1])
    w = single.weights(BENCH_X.space_filling(50, rng)).toarray()
    support = np.flatnonzero(w.sum(axis=0) > 0)
    assert set(support) <= set(single.estimation_sets_[0])
    assert not set(support) & set(single.split_sets_[0])


def test_without_honesty_the_subsample_grows_and_populates_the_leaves():
    rng = np.random.default_rng(2)
    X, W = _design(PROBLEMS["dgp1"](), 200, rng)
    forest = ForestSampler(n_trees=2, min_leaf=5, honest=False, seed=1).fit(X, W[:, :2])
    for split, est in zip(forest.split_sets_, forest.estimation_sets_, strict=True):
        assert len(split) == 100
        np.testing.assert_array_equal(split, est)
    # every leaf holds its training points, so no leaf is empty
    assert np.all(forest.leaf_size_[forest.leaves(X)] > 0)


def test_leaves_agree_with_scikit_learn_apply(dgp2_forest):
    forest, _, _ = dgp2_forest
    Xq = BENCH_X.space_filling(30, np.random.default_rng(9))
    g = forest.leaves(Xq)
    offsets = np.concatenate([[0], np.cumsum([t.tree_.node_count for t in forest.trees_])[:-1]])
    for k, tree in enumerate(forest.trees_):
        np.testing.assert_array_equal(g[:, k] - offsets[k], tree.apply(Xq.astype(np.float32)))


def test_same_seed_same_forest_and_draws():
    rng = np.random.default_rng(5)
    X, W = _design(PROBLEMS["dgp2"](), 300, rng)
    a = ForestSampler(n_trees=5, seed=9).fit(X, W)
    b = ForestSampler(n_trees=5, seed=9).fit(X, W)
    Xq = X[:7]
    assert (a.weights(Xq) != b.weights(Xq)).nnz == 0
    np.testing.assert_array_equal(
        a.sample(Xq, 50, np.random.default_rng(1)), b.sample(Xq, 50, np.random.default_rng(1))
    )


def test_crn_draws_share_the_offset_and_the_kernel_normals(dgp2_forest):
    forest, X, W = dgp2_forest
    Xq = np.vstack([X[0], X[0], X[1]])
    S = forest.sample(Xq, 200, np.random.default_rng(3), crn=True)
    assert S.shape == (3, 200, W.shape[1])
    np.testing.assert_array_equal(S[0], S[1])  # same query, same common numbers
    # the kernel noise is the same for both queries: residuals from a training row
    # differ from query to query only through the resampled row
    res0 = (S[0][:, None, :] - W[None, :, :]) / forest.bandwidth
    res2 = (S[2][:, None, :] - W[None, :, :]) / forest.bandwidth
    # recover each draw's normals as the residual to its own resampled row
    idx = systematic_resample(forest.weights(Xq), 200, np.random.default_rng(3).random())
    z0 = res0[np.arange(200), idx[0]]
    z2 = res2[np.arange(200), idx[2]]
    np.testing.assert_allclose(z0, z2, atol=1e-9)
    # independent draws differ
    S_ind = forest.sample(Xq, 200, np.random.default_rng(3), crn=False)
    assert not np.allclose(S_ind[0], S_ind[1])


def test_bandwidth_is_silverman_rule_times_the_scale(dgp2_forest):
    forest, _, W = dgp2_forest
    N = len(W)
    sd = W.std(axis=0, ddof=1)
    q75, q25 = np.percentile(W, [75, 25], axis=0)
    expected = 0.9 * np.minimum(sd, (q75 - q25) / 1.34) * N ** (-0.2) * forest.bandwidth_scale
    np.testing.assert_allclose(forest.bandwidth, expected, rtol=1e-12)


def test_silverman_bandwidth_matches_a_hand_computed_value():
    # x = (1, 2, 3, 4, 100): sd = 43.6406..., IQR (type 7) = 4 - 2 = 2, so the IQR branch
    # wins: 0.9 * 2 / 1.34 * 5^(-1/5) = 0.9 * 1.492537 * 0.724780 = 0.973585
    h = silverman_bandwidth(np.array([[1.0], [2.0], [3.0], [4.0], [100.0]]))
    assert h[0] == pytest.approx(0.9 * (2 / 1.34) * 5 ** (-0.2), rel=1e-12)
    assert h[0] == pytest.approx(0.973585, abs=1e-6)
    # a constant column falls back on |x_1|, as R's bw.nrd0
    h = silverman_bandwidth(np.full((10, 1), -3.0))
    assert h[0] == pytest.approx(0.9 * 3.0 * 10 ** (-0.2))


def test_systematic_resampling_counts_are_floor_or_ceil_of_n_times_weight():
    rng = np.random.default_rng(6)
    w = rng.dirichlet(np.ones(40), size=25)
    w[:, ::7] = 0.0  # zero weights are never drawn
    w /= w.sum(axis=1, keepdims=True)
    n = 97
    idx = systematic_resample(w, n, rng.random(25))
    assert idx.shape == (25, n)
    assert np.all(np.diff(idx, axis=1) >= 0)
    counts = np.stack([np.bincount(row, minlength=40) for row in idx])
    assert np.all(np.abs(counts - n * w) < 1 + 1e-9)
    assert np.all(counts[w == 0] == 0)


def test_systematic_resampling_is_unbiased_over_the_offset():
    w = np.array([[0.05, 0.3, 0.0, 0.4, 0.25], [0.2, 0.2, 0.2, 0.2, 0.2]])
    n = 3
    us = (np.arange(4000) + 0.5) / 4000  # a fine grid over the offset
    mean = np.zeros_like(w)
    for u in us:
        idx = systematic_resample(w, n, u)
        mean += np.stack([np.bincount(r, minlength=5) for r in idx])
    np.testing.assert_allclose(mean / len(us), n * w, atol=2e-3)


def test_samples_reproduce_the_conditional_law_on_a_dense_design():
    """DGP2, 4,000 design points near x0: surrogate draws at x0 against 200,000 true draws."""
    problem = PROBLEMS["dgp2"]()
    rng = np.random.default_rng(21)
    x0 = np.array([0.15, 0.1, 0.2, 0.1, 0.15, 0.4])
    X, W = _design(problem, 4000, rng, center=x0, sd=0.05)
    forest = ForestSampler(seed=2).fit(X, W)
    S = forest.sample(x0[None, :], 20_000, rng, crn=False)[0]
    T = problem.sample(x0, 200_000, rng)
    sd = T.std(axis=0)
    np.testing.assert_array_less(np.abs(S.mean(axis=0) - T.mean(axis=0)), 0.1 * sd)
    np.testing.assert_array_less(np.abs(S.std(axis=0) - sd), 0.15 * sd)
    for q in (0.1, 0.5, 0.9):
        diff = np.abs(np.quantile(S, q, axis=0) - np.quantile(T, q, axis=0))
        np.testing.assert_array_less(diff, 0.15 * sd)
    # the dependence between components is kept (whole rows are resampled)
    np.testing.assert_allclose(np.corrcoef(S.T), np.corrcoef(T.T), atol=0.1)


def test_fit_rejects_a_training_set_too_small_for_honesty():
    with pytest.raises(ValueError, match="at least 4"):
        ForestSampler().fit(np.zeros((3, 6)), np.zeros((3, 5)))
    with pytest.raises(RuntimeError, match="not fitted"):
        ForestSampler().weights(np.zeros((1, 6)))
