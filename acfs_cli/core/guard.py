"""What is checked around every search, so that a faulty simulator or method cannot produce a
result that looks right and is not (DESIGN.md section 3).

Two parts:

* :func:`probe` - cheap checks of a problem before its first search, on a few rows outside
  any budget: a simulator is a function of the randomness it is handed (two generators in
  the same state give the same scenarios, a transform gives the same scenarios for the same
  normals), a ``vectorized`` cost or projection agrees with the same function called one
  decision at a time, and a projection lands in the declared bounds and stays put when
  applied twice. Each fault is one :class:`~acfs_cli.core.problem.ProblemError` or
  :class:`~acfs_cli.core.problem.SimulatorError` line naming the problem and the fault.
* :class:`SearchGuard` - around a search: every scenario row the problems of the thread
  produced must have been counted by the oracle (a method that reaches the simulator around
  the oracle, or rewinds its counter, is caught by the difference), and numpy's global random
  state and Python's ``random`` must be untouched (a method or simulator drawing from them
  gives another answer for the same seed).

Python cannot sandbox a plugin: these checks close the one-line routes (the problem reached
through the task, the oracle's counter reset, global random numbers), not deliberate
introspection of closures.
"""

from __future__ import annotations

import random
import threading
from typing import Any

import numpy as np

from acfs_cli.common.naming import short_array
from acfs_cli.core.problem import Problem, ProblemError, SimulatorError, rows_drawn

#: Rows each probe draws: enough to see that rows differ, few for an expensive simulator.
PROBE_ROWS = 4
#: Seeds of the probes' generators (fixed: probes do not depend on any run's streams).
_PROBE_SEEDS = (0x5EED, 0xC0FFEE)


class SearchViolation(RuntimeError):
    """A search that broke a rule the result depends on (uncounted draws, global random
    state): the result is discarded."""


def _generator(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def probe_decisions(problem: Problem) -> np.ndarray:
    """A few decisions of X to probe at: x0 when the problem states one, then design points."""
    space = problem.space
    u = np.array([np.full(problem.dim_x, 0.5), np.full(problem.dim_x, 0.3),
                  np.linspace(0.2, 0.8, problem.dim_x)])
    points = space.design(u)
    if problem.x0 is not None:
        points = np.vstack([problem.x0[None, :], points[:2]])
    return points


def probe(problem: Problem) -> None:
    """Check ``problem`` on a few rows (see the module docstring); one error line or None."""
    X = probe_decisions(problem)
    _check_projection(problem, X)
    x = X[0]
    if problem.has_transform:
        z = _generator(_PROBE_SEEDS[0]).standard_normal((PROBE_ROWS, problem.dim_w))
        W = problem.transform(x, z)
        again = problem.transform(x, z.copy())
        if not np.array_equal(W, again):
            raise SimulatorError(
                f"problem {problem.name!r}: transform(x, z) gives other scenarios for the same "
                f"normals at x = {short_array(x)}: it keeps state between calls or draws random "
                "numbers of its own; it must be a function of (x, z) alone")
        if problem._transform_batch is not None:
            Z = np.broadcast_to(z, (len(X), *z.shape))
            batch = problem.transform_batch(X, Z)
            rows = np.stack([problem.transform_each(xi, z) for xi in X])
            _agree(problem, "transform_batch(X, Z)", batch, rows, "transform(x, z)")
    else:
        W = problem.sample(x, PROBE_ROWS, _generator(_PROBE_SEEDS[0]))
        again = problem.sample(x, PROBE_ROWS, _generator(_PROBE_SEEDS[0]))
        if not np.array_equal(W, again):
            raise SimulatorError(
                f"problem {problem.name!r}: sample(x, n, rng) gives other scenarios for "
                f"generators in the same state at x = {short_array(x)}: it keeps state between "
                "calls (a counter, a cache, an internal simulation clock) or draws from another "
                "source of randomness (numpy's global state, Python's random, a generator of "
                "its own); make each call a function of (x, n, rng) alone, drawing only from "
                "the rng it is given")
        other = problem.sample(x, PROBE_ROWS, _generator(_PROBE_SEEDS[1]))
        varies = not np.all(W == W[:1])
        if varies and np.array_equal(W, other):
            raise SimulatorError(
                f"problem {problem.name!r}: sample(x, n, rng) gives the same scenarios for "
                f"generators in different states at x = {short_array(x)}: it ignores the rng "
                "it is given")
    if problem.vectorized and len(X) > 1:
        _check_vectorized_cost(problem, W, X)


def _check_projection(problem: Problem, X: np.ndarray) -> None:
    """Points projected from outside the box land in the declared bounds, and a projected
    point projects onto itself."""
    space = problem.space
    lo, hi = space.box()
    # around the region searches start from (X's box, or x0 +- its steps where unbounded)
    r_lo, r_hi = space.region()
    width, centre = r_hi - r_lo, 0.5 * (r_lo + r_hi)
    outside = np.array([centre + 1.5 * width, centre - 1.5 * width,
                        centre + width * np.linspace(-1.5, 1.5, problem.dim_x)])
    P = space.project(np.vstack([X, outside]))
    tol = 1e-9 * np.maximum(1.0, np.abs(P))
    below = np.isfinite(lo) & (P < lo - tol)
    above = np.isfinite(hi) & (P > hi + tol)
    if np.any(below | above):
        i = int(np.flatnonzero((below | above).any(axis=1))[0])
        raise ProblemError(f"problem {problem.name!r}: project returned {short_array(P[i])}, "
                           "outside the declared bounds")
    again = space.project(P)
    if not np.allclose(again, P, rtol=1e-9, atol=1e-9):
        i = int(np.flatnonzero(~np.isclose(again, P, rtol=1e-9, atol=1e-9).all(axis=1))[0])
        raise ProblemError(f"problem {problem.name!r}: project is not idempotent: it moves "
                           f"its own output {short_array(P[i])} to {short_array(again[i])}")
    inside = np.asarray(space.contains(P))
    if not np.all(inside):
        i = int(np.flatnonzero(~inside)[0])
        raise ProblemError(f"problem {problem.name!r}: project returned {short_array(P[i])}, "
                           "which its own membership test rejects")


def _check_vectorized_cost(problem: Problem, W: np.ndarray, X: np.ndarray) -> None:
    """A cost declared ``vectorized`` gives, for a batch of decisions, what it gives for each
    decision alone (both batch forms the methods use)."""
    one = np.stack([problem.cost(W, xi) for xi in X])
    _agree(problem, "cost(W, X) with W (n, d_W)", problem.cost(W, X), one, "cost(W, x)")
    Wk = np.broadcast_to(W, (len(X), *W.shape))
    _agree(problem, "cost(W, X) with W (k, n, d_W)", problem.cost(Wk, X), one, "cost(W, x)")
    P = problem.space.project(X)
    rows = np.stack([problem.space.project(xi) for xi in X])
    _agree(problem, "project(X)", P, rows, "project(x)")


def _agree(problem: Problem, batch_name: str, batch: np.ndarray, rows: np.ndarray,
           one_name: str) -> None:
    scale = max(float(np.max(np.abs(rows))), 1e-300)
    if batch.shape != rows.shape or not np.allclose(batch, rows, rtol=1e-7,
                                                    atol=1e-12 * scale):
        raise ProblemError(
            f"problem {problem.name!r} is declared vectorized, but {batch_name} for a batch of "
            f"decisions differs from {one_name} called one decision at a time: check the axes "
            "it sums and broadcasts over (or drop vectorized = True)")


# -- around a search -----------------------------------------------------------------------------
def _global_random_state(python: bool = True) -> tuple[Any, Any]:
    """numpy's global state, and Python's ``random`` where the search owns the process (in
    the main thread: a thread of a Dask worker shares ``random`` with the worker's own
    machinery, which draws from it; ``python=False`` where a Dask cluster runs beside the
    search in this process)."""
    legacy = np.random.get_state(legacy=False)  # noqa: NPY002 - watched, never drawn from
    numpy_state = (legacy["state"]["key"].tobytes(), legacy["state"]["pos"],
                   legacy.get("has_gauss"), legacy.get("gauss"))
    own = python and threading.current_thread() is threading.main_thread()
    return numpy_state, random.getstate() if own else None


class SearchGuard:
    """Watch one search: ``with SearchGuard() as guard: ...; guard.verify(oracle)``.

    :meth:`verify` raises :class:`SearchViolation` (one line) when the rows the thread's
    problems produced differ from the draws the oracle counted, or when the global random
    state moved. Rows drawn by workers (:mod:`acfs_cli.core.draws`) are counted here, once,
    by the outer call of the problem that put them together. ``python_random=False`` leaves
    Python's ``random`` unwatched: a Dask scheduler or worker in this process draws from it.
    """

    def __init__(self, python_random: bool = True):
        self.python_random = python_random

    def __enter__(self) -> SearchGuard:
        self._rows = rows_drawn()
        self._state = _global_random_state(self.python_random)
        return self

    def __exit__(self, *exc) -> None:
        self.rows = rows_drawn() - self._rows
        self.moved = _global_random_state(self.python_random) != self._state

    def verify(self, counted: int, budget: int) -> None:
        """Raise unless the search drew exactly the ``counted`` rows and left global random
        state alone."""
        if self.rows != counted:
            beyond = f", {self.rows - budget:,} past the budget of {budget:,}" if (
                self.rows > budget) else ""
            raise SearchViolation(
                f"the search produced {self.rows:,} scenario rows but the oracle counted "
                f"{counted:,}{beyond}: the method reached the simulator around the oracle "
                "(or changed its counter); the result is discarded")
        if self.moved:
            raise SearchViolation(
                "the search drew from numpy's global random state or Python's random module, "
                "so the same seed would not give the same result; use the rng a method is "
                "given (and a simulator the rng it is called with)")
