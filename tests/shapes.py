"""Problems of several shapes, outside the benchmarks, named by import path in the tests.

Each counts the scenario rows it generates (per class), so a test can check that every row
the simulator made was charged by the oracle.
"""

from __future__ import annotations

import numpy as np


class Counted:
    """Counts the rows its simulator generates, per class."""

    rows = 0

    @classmethod
    def reset(cls) -> None:
        cls.rows = 0

    @classmethod
    def count(cls, n: int) -> None:
        cls.rows += int(n)


class Box2(Counted):
    """2-D, one decision at a time (not vectorised), X = [0, 1]^2 with x_1 + x_2 <= 0.8;
    W ~ N(0, (0.2 + 0.1 x_1)^2), C = (x_1 - .3)^2 + (x_2 - .6)^2 + W."""

    dim_x, dim_w = 2, 1
    bounds = [(0.0, 1.0), (0.0, 1.0)]
    A, b = np.array([[1.0, 1.0]]), np.array([0.8])

    def transform(self, x, z):
        type(self).count(len(z))
        return (0.2 + 0.1 * x[0]) * z

    def cost(self, W, x):
        return (x[0] - 0.3) ** 2 + (x[1] - 0.6) ** 2 + W[:, 0]


class Box2Stream(Box2):
    """Box2 as a black box: ``sample`` draws its normals from the generator first."""

    transform = None

    def sample(self, x, n, rng):
        type(self).count(n)
        return (0.2 + 0.1 * x[0]) * rng.standard_normal((n, 1))


class Ball3(Counted):
    """3-D with its own projection onto the ball |x - c| <= 1 (not vectorised);
    W ~ Exp(1) scaled by 1 + x_2^2, C = |x - t|^2 + W (x_3 + 2)."""

    dim_x, dim_w = 3, 1
    centre = np.array([0.5, 0.5, 0.5])
    target = np.array([1.4, 0.2, -0.3])

    def project(self, x):
        d = np.asarray(x, dtype=float) - self.centre
        r = np.linalg.norm(d)
        return self.centre + (d / r if r > 1 else d)

    def transform(self, x, z):
        type(self).count(len(z))
        from scipy.special import ndtr

        return -np.log(ndtr(-z)) * (1 + x[1] ** 2)

    def cost(self, W, x):
        return np.sum((x - self.target) ** 2) + W[:, 0] * (x[2] + 2.0)


class Wide12(Counted):
    """12-D, vectorised, X = [0, 1]^12 with sum(x) <= 4; W_j ~ N(m_j(x), 1) for three
    components whose means move with x; C = |x - t|^2 + W . u(x)."""

    dim_x, dim_w = 12, 3
    vectorized = True
    bounds = [(0.0, 1.0)] * 12
    A, b = np.ones((1, 12)), np.array([4.0])
    target = np.linspace(0.1, 0.9, 12)

    def transform_batch(self, X, Z):
        type(self).count(Z.shape[0] * Z.shape[1])
        means = np.stack([X[:, :4].mean(1), X[:, 4:8].mean(1), X[:, 8:].mean(1)], axis=1)
        return means[:, None, :] + Z

    def transform(self, x, z):
        return self.transform_batch(x[None], z[None])[0]

    def cost(self, W, x):
        x = np.asarray(x, dtype=float)
        weights = np.stack([x[..., 0], x[..., 5], x[..., 11]], axis=-1)
        quad = ((x - self.target) ** 2).sum(axis=-1)
        return quad[..., None] + (W * weights[..., None, :]).sum(axis=-1)


class PoissonQueue(Counted):
    """A sample-only simulator whose use of its stream depends on x: N ~ Poisson(4 x_1)
    arrivals with Exp(1) work each, W = total work; C = W - 3 x_1 + 2 x_2^2 - x_2."""

    dim_x, dim_w = 2, 1
    bounds = [(0.2, 2.0), (0.0, 1.0)]

    def sample(self, x, n, rng):
        type(self).count(n)
        counts = rng.poisson(4 * x[0], size=n)
        work = rng.exponential(1.0, size=int(counts.sum()))
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        totals = np.add.reduceat(np.append(work, 0.0), np.minimum(starts, len(work)))
        return np.where(counts > 0, totals, 0.0)[:, None]

    def cost(self, W, x):
        return W[:, 0] - 3.0 * x[0] + 2.0 * x[1] ** 2 - x[1]


SHAPES = {"Box2": Box2, "Ball3": Ball3, "Wide12": Wide12, "PoissonQueue": PoissonQueue}
