"""A corpus of hostile plugins: simulators and methods that break the rules a result depends
on, each in one line of its own. ``tests/system/test_hostile.py`` runs them through the paths a user
takes and checks that every one ends in a correct result or a one-line failure, with the
rest of the grid unharmed.

``Quad`` is the honest problem they vary: W ~ N(x, I) in two dimensions on [-1, 1]^2, cost
|W - t|^2 with target t = (0.3, -0.2), so J(x) = E|W - t|^2 + lam CVaR is smallest at x = t.
``HONEST`` is the honest method: the best of a few space-filling decisions on one common
sample.
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time

import numpy as np

from acfs_cli.methods import Method, MethodResult, Settings

TARGET = np.array([0.3, -0.2])


class Quad:
    dim_x, dim_w = 2, 2
    bounds = [(-1.0, 1.0), (-1.0, 1.0)]

    def sample(self, x, n, rng):
        return x + rng.standard_normal((n, 2))

    def cost(self, W, x):
        return ((W - TARGET) ** 2).sum(axis=-1)


class Vectorised(Quad):
    """Honest, and vectorised: cost broadcasts x[..., None, :] against the rows of W."""

    vectorized = True

    def cost(self, W, x):
        return ((np.asarray(W) - TARGET) ** 2).sum(axis=-1) + 0.0 * np.asarray(x)[..., None, 0]


# -- simulators -----------------------------------------------------------------------------------
class ExitsProcess(Quad):
    def sample(self, x, n, rng):
        sys.exit(3)


class RaisesKeyboardInterrupt(Quad):
    def sample(self, x, n, rng):
        raise KeyboardInterrupt


class KillsItsProcess(Quad):
    def sample(self, x, n, rng):
        os._exit(7)


class NumpyGlobalRandom(Quad):
    def sample(self, x, n, rng):
        return x + np.random.standard_normal((n, 2))  # noqa: NPY002 - the fault under test


class PythonRandom(Quad):
    def sample(self, x, n, rng):
        return x + np.array([[random.gauss(0, 1), random.gauss(0, 1)] for _ in range(n)])


class OwnSeed(Quad):
    """Draws from a generator of its own, seeded the same at every call."""

    def sample(self, x, n, rng):
        return x + np.random.default_rng(42).standard_normal((n, 2))


class KeepsState(Quad):
    """Draws only from the rng it is given, but carries a clock from one call to the next
    (an inventory, a queue left as the last call ended)."""

    def __init__(self):
        self.clock = 0.0

    def sample(self, x, n, rng):
        self.clock += 1.0
        return x + self.clock + rng.standard_normal((n, 2))


class WrongAxis(Vectorised):
    """Declares a vectorised cost, and sums over the rows instead of the components."""

    def cost(self, W, x):
        W = np.asarray(W)
        x = np.asarray(x)
        if W.ndim == 2 and x.ndim == 1:  # one decision: right
            return ((W - TARGET) ** 2).sum(axis=-1)
        return np.broadcast_to(((W - TARGET) ** 2).sum(axis=-2)[..., :1],
                               (*np.broadcast_shapes(W.shape[:-2], x.shape[:-1]),
                                W.shape[-2])).copy()


class WritesDecision(Quad):
    def sample(self, x, n, rng):
        x[0] = 0.0
        return x + rng.standard_normal((n, 2))


class ProjectsOutsideItsBounds(Quad):
    def project(self, x):
        return np.clip(x, -1.0, 1.0) * 2.0


class NotIdempotent(Quad):
    bounds = None

    def project(self, x):
        return np.clip(x, -1.0, 1.0) * 0.5


class WrongShapeProject(Quad):
    bounds = None

    def project(self, x):
        return np.concatenate([np.clip(x, -1.0, 1.0), [0.0]])


class ProjectsBelowItsBounds(Quad):
    """Idempotent, but onto a box that reaches below the declared lower bounds."""

    def project(self, x):
        return np.clip(x, -2.0, 1.0)


class TransformOfItsOwn:
    """A transform that ignores the normals it is handed and draws its own."""

    dim_x, dim_w = 2, 2
    bounds = [(-1.0, 1.0), (-1.0, 1.0)]

    def transform(self, x, z):
        return x + np.random.default_rng().standard_normal(np.shape(z))

    def cost(self, W, x):
        return ((W - TARGET) ** 2).sum(axis=-1)


class FailsWhileFlagged(Quad):
    """A fault fixed between two runs: fails while a file FLAG is in the working folder."""

    def sample(self, x, n, rng):
        if os.path.exists("FLAG"):
            raise RuntimeError("the input data are being updated")
        return super().sample(x, n, rng)


class Versioned(Quad):
    """Declares the version of its code (a test changes it)."""

    version = "1"


class OverflowsOnLargeSamples(Quad):
    """Finite costs near 1e307 in calls of more than 100 rows: the mean of a large sample
    overflows. A sample-only simulator is called once per seeded block of a stream, a
    sixteenth of it (acfs_cli.core.sample.STREAM_BLOCKS): a 2,000-row sample's blocks hold
    125 rows, a 200-row pool's 13."""

    def sample(self, x, n, rng):
        W = super().sample(x, n, rng)
        return W if n <= 100 else 2.2e153 * (1.0 + 0.01 * W)


class StartsOutside(Quad):
    x0 = np.array([2.0, 0.0])


class Hangs(Quad):
    def cost(self, W, x):
        time.sleep(3600)
        return super().cost(W, x)


class ReturnsNaN(Quad):
    def sample(self, x, n, rng):
        W = x + rng.standard_normal((n, 2))
        W[0, 0] = np.nan
        return W


class Edited(Quad):
    """The simulator a user edits between two runs: its code (this module's source) or its
    declared version is the fingerprint."""


# -- methods --------------------------------------------------------------------------------------
def honest(task, oracle, s, rng) -> MethodResult:
    X = task.space_filling(4, rng)
    sample = oracle.common_sample(20)
    J = task.objective(oracle.draw_common(X, sample), X)
    i = int(np.argmin(J))
    oracle.record_best(X[i], float(J[i]))
    return MethodResult(x=X[i], value=float(J[i]))


def around_the_oracle(task, oracle, s, rng):
    from acfs_cli.problems import get_problem

    get_problem("hostile:Quad").sample(np.zeros(2), 100_000, rng)  # 100,000 uncounted draws
    return honest(task, oracle, s, rng)


def through_the_task(task, oracle, s, rng):
    task.cost.__self__.sample(np.zeros(2), 100_000, rng)
    return honest(task, oracle, s, rng)


def rewinds_the_counter(task, oracle, s, rng):
    result = honest(task, oracle, s, rng)
    object.__setattr__(oracle, "_used", 0)
    return result


def sets_the_counter(task, oracle, s, rng):
    oracle._used = 0
    return honest(task, oracle, s, rng)


def returns_none(task, oracle, s, rng):
    honest(task, oracle, s, rng)
    return None


def returns_a_string_value(task, oracle, s, rng):
    result = honest(task, oracle, s, rng)
    return MethodResult(x=result.x, value="cheap")


def global_numpy(task, oracle, s, rng):
    np.random.rand()  # noqa: NPY002 - the fault under test
    return honest(task, oracle, s, rng)


def never_returns(task, oracle, s, rng):
    time.sleep(3600)


def leaves_a_thread(task, oracle, s, rng):
    threading.Thread(target=time.sleep, args=(3600,), name="left-behind").start()
    return honest(task, oracle, s, rng)


def stays_at_the_start(task, oracle, s, rng) -> MethodResult:
    """Answers with the problem's start x0, drawing nothing (an honest, useless method)."""
    oracle.record_best(task.x0, 0.0)
    return MethodResult(x=task.x0, value=0.0)


def python_random(task, oracle, s, rng):
    random.random()  # the fault under test: Python's global random state
    return honest(task, oracle, s, rng)


def exits(task, oracle, s, rng):
    sys.exit(5)


def interrupts(task, oracle, s, rng):
    raise KeyboardInterrupt


def kills_its_process(task, oracle, s, rng):
    os._exit(9)


HONEST = Method("honest", Settings, honest, version="1")
AROUND = Method("around", Settings, around_the_oracle)
THROUGH_TASK = Method("through-task", Settings, through_the_task)
REWIND = Method("rewind", Settings, rewinds_the_counter)
SET_COUNTER = Method("set-counter", Settings, sets_the_counter)
NONE = Method("none", Settings, returns_none)
STRING_VALUE = Method("string-value", Settings, returns_a_string_value)
GLOBAL_NUMPY = Method("global-numpy", Settings, global_numpy)
NEVER = Method("never", Settings, never_returns)
THREAD = Method("thread", Settings, leaves_a_thread)
START = Method("start", Settings, stays_at_the_start, version="1")
PYTHON_RANDOM = Method("python-random", Settings, python_random)
EXITS = Method("exits", Settings, exits)
INTERRUPTS = Method("interrupts", Settings, interrupts)
KILLS = Method("kills", Settings, kills_its_process)
