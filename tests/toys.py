"""Toy problems with closed-form optima, shared by the tests of the local-search methods."""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

from acfs_cli.problems import feasible, get_problem


class GaussianToy:
    """C(W, x) = c0 + Q ||x - a||^2 + W with W = s(x) Z, Z ~ N(0, 1), s(x) = s0 + b.x > 0 on X.

    Decision-dependent (the spread of W moves with x), and J has a closed form:
    E[C] = c0 + Q q(x) and CVaR_alpha(C) = E[C] + s(x) phi(Phi^-1(alpha)) / (1 - alpha), so
    J(x) = (1 + lam) (c0 + Q ||x - a||^2) + lam k_alpha s(x), whose minimiser over X is the
    Euclidean projection of a - lam k_alpha b / (2 (1 + lam) Q) onto X.
    """

    name = "gaussian-toy"
    dim_x = 6
    dim_w = 1
    c0, Q, s0 = 1.0, 50.0, 8.0
    a = np.array([0.45, 0.35, 0.2, 0.05, 0.0, 0.6])  # sum 1.05 > 0.85: the face binds
    b = np.array([5.0, -3.0, 2.0, 4.0, 1.0, 6.0])

    def spread(self, X):
        return self.s0 + np.asarray(X) @ self.b

    def transform(self, x, z):
        return self.spread(x) * np.asarray(z, dtype=float)

    def transform_batch(self, X, Z):
        return self.spread(X)[:, None, None] * np.asarray(Z, dtype=float)

    def sample(self, x, n, rng):
        return self.transform(x, rng.standard_normal((n, 1)))

    def cost(self, W, x):
        W, x = np.asarray(W, dtype=float), np.asarray(x, dtype=float)
        base = self.c0 + self.Q * ((x - self.a) ** 2).sum(axis=-1)
        w = W[..., 0]
        if x.ndim == 2 and w.ndim == 1:  # k decisions re-costed on one W
            return base[:, None] + w[None, :]
        return base[..., None] + w

    def project(self, x):
        return feasible.project(x)

    def design(self, u):
        return feasible.design_map(u)

    def J(self, x, lam, alpha):
        k = norm.pdf(norm.ppf(alpha)) / (1 - alpha)
        x = np.asarray(x, dtype=float)
        quad = self.c0 + self.Q * ((x - self.a) ** 2).sum(-1)
        return (1 + lam) * quad + lam * k * self.spread(x)

    def argmin(self, lam, alpha):
        k = norm.pdf(norm.ppf(alpha)) / (1 - alpha)
        return feasible.project(self.a - lam * k * self.b / (2 * (1 + lam) * self.Q))


#: The benchmarks' decision set as every method sees it (box, projection, design map, faces).
BENCH_X = get_problem("dgp1").space


#: A user's module (written to a file by the tests of a grid or ``acfs solve``): whole staff of
#: two shifts and a rate; the cost is a bowl whose whole-number minimiser is (7, 2), 7.3
#: rounding down, with the rate at its lower bound.
STAFF = '''
import numpy as np


class Staff:
    """Two shifts' staff (whole people) and a rate; the cost is a bowl."""

    dim_x, dim_w = 3, 1
    bounds = [(0, 20), (0, 20), (0.0, 5.0)]
    integrality = [1, 1, 0]
    x0 = [5, 5, 1.0]

    def transform(self, x, z):
        return 10.0 + 3.0 * z

    def cost(self, W, x):
        return (x[0] - 7.3) ** 2 + (x[1] - 2.0) ** 2 + x[2] * W[:, 0]
'''
