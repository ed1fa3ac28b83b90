"""Conditional weighted forest sampler, CWFS (paper Section 2.2, eqs. (weights) and (cwfs)).

The decision x is the input of one regression forest per component of W (DESIGN.md section 4).
For a query x the forest weights of the training pairs (x_i, W_i) are

    w_i(x) = (1/K) sum_k 1[x_i in leaf_k(x)] / |leaf_k(x)|,

averaged over all K = d_W x n_trees trees of all component forests (eq. (weights)). A draw
from the approximation of P_x resamples a whole training row by these weights, so the
cross-component dependence of W is kept, and adds a small Gaussian kernel (eq. (cwfs)):
W~ = W_I + h * Z.

Trees follow R's ``grf`` defaults where the paper is silent:

* each tree grows on a subsample of ``sample_fraction = 0.5`` of the points, drawn without
  replacement;
* honesty (on by default): the subsample is split in halves; one half grows the splits (a
  scikit-learn ``DecisionTreeRegressor`` with ``min_samples_leaf``), the other half populates
  the leaves, so the weights never reuse the points that chose the splits;
* ``mtry = min(ceil(sqrt(d) + 20), d)`` candidate features per split: all six decisions;
* a leaf that receives no estimation point contributes nothing for a query that lands in it,
  and the weights are renormalised over the trees that do contribute (grf with
  ``honesty.prune.leaves = FALSE``; grf's default instead prunes such leaves into their
  sibling). With the default sizes an empty leaf is rare (its split half held at least
  ``min_leaf`` points); a query for which every tree is empty gets uniform weights.

grf groups trees in pairs sharing a half-sample (``ci.group.size = 2``) for its variance
estimates; the sampler needs no variances, so every tree draws its own subsample.

Implementation: the trees are fitted by scikit-learn, then their split arrays are stacked
into one flat table, so routing a batch of queries through all trees is a handful of
vectorised steps (one per tree level) instead of ``K`` calls to ``apply``. The comparison is
made on float32 inputs, exactly as scikit-learn's ``apply``. The weights are one sparse
product: ``Q @ A^T``, with A the (N x leaves) matrix of training memberships ``1/|leaf|`` and
Q the (m x leaves) indicator of the queries' leaves.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.tree import DecisionTreeRegressor

from acfs_cli.surrogates.resampling import (
    ResamplingSampler,
    check_training,
    silverman_bandwidth,
)

#: Default kernel scale on Silverman's bandwidth. Measured by ``benchmarks/bench_surrogates.py
#: --choose`` (lambda 0.7, 4 designs per DGP of 1,200 LHC + 700 points around a near-optimal
#: decision, n_f = 800, true J from 50,000-100,000 common draws), scales 0 / 0.25 / 0.5 / 1:
#: Spearman correlation of surrogate and true J over 60 space-filling candidates
#: 0.783 / 0.783 / 0.783 / 0.784 (DGP1) and 0.904 / 0.905 / 0.905 / 0.906 (DGP2), over 60
#: candidates near the optimum 0.266 / 0.265 / 0.267 / 0.270 and 0.660 / 0.657 / 0.657 / 0.658;
#: median relative bias near the optimum +6.8 / +6.8 / +6.9 / +7.5 % and +28.0 / +28.0 / +28.2
#: / +29.0 %. The constant moves the ranking by less than 0.005 and the bias by less than one
#: point (the forest's own pooling dominates both); 0.5 keeps the kernel of eq. (cwfs), so draws
#: are not exact copies of training rows, at half the variance inflation of the full rule.
DEFAULT_BANDWIDTH_SCALE = 0.5


class ForestSampler(ResamplingSampler):
    """Conditional weighted forest sampler (paper Section 2.2).

    Parameters
    ----------
    n_trees : int
        Trees per component forest (paper: 70); K = d_W * n_trees trees in all.
    min_leaf : int
        ``min_samples_leaf`` of each tree (paper: minimum node size 15).
    honest : bool
        GRF-style honesty: splits from one half of each tree's subsample, leaf populations
        from the other half.
    sample_fraction : float
        Share of the N points in each tree's subsample, drawn without replacement (grf: 0.5).
    mtry : int or None
        Candidate features per split; None is grf's ``min(ceil(sqrt(d) + 20), d)``.
    bandwidth_scale : float
        Multiplier of Silverman's bandwidth for the kernel noise h (eq. (cwfs)). The default
        comes from a measured comparison of {0, 0.25, 0.5, 1}: see
        :data:`DEFAULT_BANDWIDTH_SCALE`.
    seed : int
        Seed of the subsamples and of the trees' ``random_state``.

    Attributes (after :meth:`fit`)
    -------------------------------
    bandwidth : ndarray (d_W,)
        h_j = Silverman's rule on component j of the training W, times ``bandwidth_scale``.
    trees_ : list of DecisionTreeRegressor
        All K trees, component-major (trees of W_1 first).
    split_sets_, estimation_sets_ : list of ndarray
        Per tree, the training rows that grew the splits and those that populate the leaves
        (the same rows when not honest).
    """

    def __init__(
        self,
        n_trees: int = 70,
        min_leaf: int = 15,
        honest: bool = True,
        sample_fraction: float = 0.5,
        mtry: int | None = None,
        bandwidth_scale: float = DEFAULT_BANDWIDTH_SCALE,
        seed: int = 0,
    ):
        if n_trees < 1:
            raise ValueError(f"n_trees must be >= 1, got {n_trees}")
        if min_leaf < 1:
            raise ValueError(f"min_leaf must be >= 1, got {min_leaf}")
        if not 0.0 < sample_fraction <= 1.0:
            raise ValueError(f"sample_fraction must lie in (0, 1], got {sample_fraction}")
        if bandwidth_scale < 0:
            raise ValueError(f"bandwidth_scale must be >= 0, got {bandwidth_scale}")
        self.n_trees = int(n_trees)
        self.min_leaf = int(min_leaf)
        self.honest = bool(honest)
        self.sample_fraction = float(sample_fraction)
        self.mtry = mtry
        self.bandwidth_scale = float(bandwidth_scale)
        self.seed = int(seed)
        self.bandwidth: np.ndarray | None = None

    # -- fitting ---------------------------------------------------------------------------------
    def _subsample_sizes(self, N: int) -> tuple[int, int]:
        s = int(self.sample_fraction * N)
        if self.honest:
            n_split = s // 2
            n_est = s - n_split
            if n_split < 1:
                raise ValueError(f"an honest forest needs at least 4 training points, got {N}")
            return n_split, n_est
        if s < 1:
            raise ValueError(f"the subsample of {N} training points is empty")
        return s, s

    def fit(self, X: np.ndarray, W: np.ndarray) -> ForestSampler:
        """Fit the d_W component forests on decisions X (N, d_x) and scenarios W (N, d_W)."""
        X, W = check_training(X, W)
        N, d_x = X.shape
        d_w = W.shape[1]
        mtry = self.mtry if self.mtry is not None else min(int(np.ceil(np.sqrt(d_x) + 20)), d_x)
        n_split, n_est = self._subsample_sizes(N)
        X32 = np.ascontiguousarray(X, dtype=np.float32)
        rng = np.random.default_rng(self.seed)

        trees, split_sets, est_sets = [], [], []
        # The trees are small (a few hundred points), so scikit-learn's per-call checks are a
        # large share of their cost: inputs are validated once here (float32, contiguous,
        # finite) and the parameters are fixed, so both checks are skipped per tree.
        # One RandomState, seeded from ``seed`` and consumed by the trees in a fixed order,
        # is as reproducible as an integer seed per tree and saves seeding a Mersenne
        # twister 350 times. (With mtry = d it only orders the features a node visits.)
        tree_rs = np.random.RandomState(int(rng.integers(2**31 - 1)))
        with sklearn.config_context(skip_parameter_validation=True, assume_finite=True):
            for j in range(d_w):
                y = np.ascontiguousarray(W[:, j])
                for _ in range(self.n_trees):
                    sub = rng.permutation(N)[: n_split + (n_est if self.honest else 0)]
                    split = sub[:n_split]
                    est = sub[n_split:] if self.honest else split
                    tree = DecisionTreeRegressor(
                        min_samples_leaf=self.min_leaf, max_features=mtry, random_state=tree_rs
                    )
                    tree.fit(X32[split], y[split], check_input=False)
                    trees.append(tree)
                    split_sets.append(split)
                    est_sets.append(est)

        self._stack(trees)
        self.trees_ = trees
        self.split_sets_ = split_sets
        self.estimation_sets_ = est_sets
        self.X_ = X
        self.W_ = W
        self.dim_x, self.dim_w = d_x, d_w
        self.n_train = N

        # Leaf populations from the estimation rows only (honesty).
        tree_of = np.repeat(np.arange(len(trees)), [len(e) for e in est_sets])
        rows = np.concatenate(est_sets)
        leaves = self._route(X32, rows, tree_of)
        self.leaf_size_ = np.bincount(leaves, minlength=self._n_nodes).astype(float)
        self._AT = sp.csr_matrix(
            (1.0 / self.leaf_size_[leaves], (leaves, rows)), shape=(self._n_nodes, N)
        )
        self.bandwidth = silverman_bandwidth(W) * self.bandwidth_scale
        return self

    def _stack(self, trees: list[DecisionTreeRegressor]) -> None:
        """One flat node table for all trees; a leaf points to itself."""
        counts = np.array([t.tree_.node_count for t in trees])
        offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
        left = np.concatenate([t.tree_.children_left for t in trees]).astype(np.int64)
        right = np.concatenate([t.tree_.children_right for t in trees]).astype(np.int64)
        feat = np.concatenate([t.tree_.feature for t in trees]).astype(np.int64)
        thr = np.concatenate([t.tree_.threshold for t in trees])
        owner = np.repeat(offsets, counts)
        is_leaf = left < 0
        node = np.arange(len(left))
        self._left = np.where(is_leaf, node, left + owner)
        self._right = np.where(is_leaf, node, right + owner)
        self._feat = np.where(is_leaf, 0, feat)
        self._thr = np.where(is_leaf, np.inf, thr)
        self._roots = offsets
        self._n_nodes = int(counts.sum())
        self._depth = max(int(t.tree_.max_depth) for t in trees)

    def _route(self, X32: np.ndarray, rows: np.ndarray, trees: np.ndarray) -> np.ndarray:
        """Global leaf id of point ``X32[rows[p]]`` in tree ``trees[p]``, for every pair p."""
        Xd = X32.astype(np.float64)  # float32 values, compared as scikit-learn does
        node = self._roots[trees]
        for _ in range(self._depth):
            go_left = Xd[rows, self._feat[node]] <= self._thr[node]
            node = np.where(go_left, self._left[node], self._right[node])
        return node

    # -- weights and draws -----------------------------------------------------------------------
    def leaves(self, Xq: np.ndarray) -> np.ndarray:
        """Global leaf ids (m, K) of the queries in every tree."""
        Xq = self._queries(Xq)
        m, K = Xq.shape[0], len(self._roots)
        rows = np.repeat(np.arange(m), K)
        trees = np.tile(np.arange(K), m)
        return self._route(Xq.astype(np.float32), rows, trees).reshape(m, K)

    def weights(self, Xq: np.ndarray) -> sp.csr_matrix:
        """Forest weights (m, N) of the training points for queries Xq (m, d_x); rows sum to 1."""
        g = self.leaves(Xq)
        m, K = g.shape
        populated = self.leaf_size_[g] > 0
        q_rows = np.repeat(np.arange(m), K)[populated.ravel()]
        Q = sp.csr_matrix(
            (np.ones(q_rows.size), (q_rows, g.ravel()[populated.ravel()])),
            shape=(m, self._n_nodes),
        )
        k_eff = populated.sum(axis=1)
        out = (Q @ self._AT).tocsr()
        scale = np.where(k_eff > 0, 1.0 / np.maximum(k_eff, 1), 0.0)
        out = sp.diags(scale) @ out
        empty = k_eff == 0
        if np.any(empty):
            n = self.n_train
            rows = np.repeat(np.flatnonzero(empty), n)
            cols = np.tile(np.arange(n), int(empty.sum()))
            out = out + sp.csr_matrix((np.full(rows.size, 1.0 / n), (rows, cols)), shape=out.shape)
        return sp.csr_matrix(out)
