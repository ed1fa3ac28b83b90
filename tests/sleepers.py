"""Sample-only simulators that take time (a sleep per row) and ones that fail in a worker,
for the tests of parallel draws; importable by name, so worker processes find them."""

from __future__ import annotations

import os
import time

import numpy as np


class Sleeper:
    """A 2-D newsvendor-like black box whose every row sleeps ``pause`` seconds:
    W = x_1 - 1 + (0.5 + 0.3 x_2) Z, C = W^2 + 0.2 x_2^2 - 0.3 x_2."""

    dim_x, dim_w = 2, 1
    bounds = [(0.0, 4.0), (0.0, 4.0)]

    def __init__(self, pause: float = 0.0):
        self.pause = float(pause)

    def sample(self, x, n, rng):
        if self.pause:
            time.sleep(self.pause * n)
        return (x[0] - 1.0 + (0.5 + 0.3 * x[1]) * rng.standard_normal(n))[:, None]

    def cost(self, W, x):
        return W[:, 0] ** 2 + 0.2 * x[1] ** 2 - 0.3 * x[1]


class FailsFar(Sleeper):
    """Raises for decisions with x_1 > 2.5 (never at the probes' decisions): a search that
    goes there fails in the middle of a request."""

    def sample(self, x, n, rng):
        if x[0] > 2.5:
            raise ZeroDivisionError("no demand model beyond x_1 = 2.5")
        return super().sample(x, n, rng)


class NaNFar(Sleeper):
    """Returns NaN rows for decisions with x_1 > 2.5."""

    def sample(self, x, n, rng):
        W = super().sample(x, n, rng)
        return W * np.nan if x[0] > 2.5 else W


class DiesFar(Sleeper):
    """Ends its own process for decisions with x_1 > 2.5 (a crash in native code)."""

    def sample(self, x, n, rng):
        if x[0] > 2.5:
            os._exit(7)
        return super().sample(x, n, rng)


class OneAtATime:
    """A transform problem called one decision at a time (no transform_batch, not
    vectorised): its decisions can be drawn apart with the same calls."""

    dim_x, dim_w = 2, 2
    bounds = [(0.0, 2.0), (0.0, 2.0)]

    def transform(self, x, z):
        return np.exp(0.3 * x + (0.2 + 0.1 * x) * z)

    def cost(self, W, x):
        return float(x @ x) - W @ np.array([1.0, 0.5]) + 0.5 * W[:, 0] * W[:, 1]
