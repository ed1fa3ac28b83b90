"""The budgeted oracle: the only path from a method to the true simulator (DESIGN.md section 3).

One counter per replication; a *draw* is one scenario row W generated at a decision x. A
request that would pass the cap raises :class:`BudgetExhausted` and nothing is drawn, so the
counter can never pass the cap. Re-costing an already drawn W at another x is free (that is
the cost function, which methods hold); any new W is charged.

The oracle keeps the problem's sampler in closures and exposes no attribute that returns the
problem, so a method holding an oracle cannot sample without being charged. What the
simulator returns is checked on every call by the problem's normalised interface
(:mod:`acfs_cli.core.problem`). The oracle also keeps

* the method's incumbent - its current recommendation - and the trajectory of incumbents
  against the draws used (so a method stopped by the budget still has an answer, and a run
  shows how quality grows with draws);
* a per-phase account of draws and calls (where the budget goes);
* allowances and reservations (:meth:`Oracle.allowance`, :meth:`Oracle.reserve`): a phase
  capped at its share, or draws kept back for a later phase, without arithmetic in methods.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from acfs_cli.core.problem import Problem, as_problem, check_count
from acfs_cli.core.space import FEAS_TOL, short_array


def _hide(fn):
    """``fn`` wrapped in a closure, or None."""
    if fn is None:
        return None

    def call(*args):
        return fn(*args)

    return call


class BudgetExhausted(RuntimeError):
    """A request would pass the oracle's cap (or a reservation); nothing was drawn."""


class AllowanceSpent(BudgetExhausted):
    """A request would pass a phase's allowance: the phase ends as planned, the cap is not hit."""


def antithetic_normals(n: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` standard-normal rows as antithetic pairs: z_1..z_{n/2}, then -z_1..-z_{n/2}.

    For odd ``n`` the last row is an unpaired draw. Pairs (Z, -Z) pushed through a monotone
    transform induce negative covariance between costs.
    """
    n = check_count(n)
    half = rng.standard_normal((n // 2, dim))
    parts = [half, -half]
    if n % 2:
        parts.append(rng.standard_normal((1, dim)))
    return np.concatenate(parts, axis=0)


def normals(n: int, dim: int, rng: np.random.Generator, antithetic: bool = False) -> np.ndarray:
    """``n`` standard-normal rows, as antithetic pairs when asked."""
    return antithetic_normals(n, dim, rng) if antithetic else rng.standard_normal((n, dim))


@dataclass
class Limit:
    """An allowance or a reservation: draws up to ``stop`` (an absolute count of the oracle)."""

    stop: int
    error: type[BudgetExhausted]
    reason: str
    hit: bool = False


class Oracle:
    """Counted access to W ~ P_x for one replication.

    Parameters
    ----------
    problem : problem
        The true simulator (normalised with :func:`acfs_cli.core.problem.as_problem`); only
        its sampling functions are kept, inside closures.
    budget : int
        The hard cap on draws.
    rng : numpy.random.Generator
        Source of the randomness of requests that do not supply their own normals.
    """

    __slots__ = (
        "_transform",
        "_transform_batch",
        "_sample",
        "_contains",
        "_rng",
        "_budget",
        "_used",
        "_phase",
        "_account",
        "_best_x",
        "_best_value",
        "_trajectory",
        "_limits",
        "dim_x",
        "dim_w",
        "supports_normals",
    )

    def __init__(self, problem, budget: int, rng: np.random.Generator):
        budget = check_count(budget, "budget")
        if budget <= 0:
            raise ValueError(f"budget must be a positive integer, got {budget}")
        problem: Problem = as_problem(problem)
        self._budget = budget
        self._used = 0
        self._rng = rng
        self.dim_x = problem.dim_x
        self.dim_w = problem.dim_w
        self.supports_normals = problem.has_transform
        # Plain closures rather than bound methods: a bound method's ``__self__`` would hand
        # the problem to anyone holding the oracle.
        self._transform = _hide(problem.transform if problem.has_transform else None)
        self._transform_batch = _hide(problem.transform_batch if problem.has_transform
                                      else None)
        self._sample = _hide(problem.sample)
        self._contains = _hide(problem.space.contains)
        self._phase = "main"
        self._account: dict[str, dict[str, int]] = {}
        self._best_x: np.ndarray | None = None
        self._best_value = np.inf
        self._trajectory: list[tuple[int, np.ndarray, float]] = []
        self._limits: list[Limit] = []

    # -- budget ----------------------------------------------------------------------------------
    @property
    def budget(self) -> int:
        return self._budget

    @property
    def used(self) -> int:
        return self._used

    @property
    def remaining(self) -> int:
        """Draws left under the cap (ignoring allowances and reservations)."""
        return self._budget - self._used

    @property
    def available(self) -> int:
        """Draws the current phase may still make: the cap, or the tightest allowance or
        reservation in force."""
        stop = min([self._budget, *(lim.stop for lim in self._limits)])
        return max(stop - self._used, 0)

    def can_draw(self, n: int) -> bool:
        """Would a request of ``n`` draws fit in what is available?"""
        return n <= self.available

    def _check_budget(self, n: int) -> None:
        for lim in sorted(self._limits, key=lambda lim: lim.stop):
            if self._used + n > lim.stop:
                lim.hit = True
                raise lim.error(f"request of {n} draws exceeds {lim.reason} "
                                f"({max(lim.stop - self._used, 0)} left)")
        if n > self.remaining:
            raise BudgetExhausted(
                f"request of {n} draws exceeds the {self.remaining} left of {self._budget}"
            )

    @contextlib.contextmanager
    def allowance(self, n: int) -> Iterator[Limit]:
        """Cap the draws made inside the block at ``n``: a request past it raises
        :class:`AllowanceSpent` (the phase's planned end, not a budget stop)."""
        lim = Limit(self._used + check_count(n, "allowance"), AllowanceSpent,
                    f"the phase allowance of {n}")
        self._limits.append(lim)
        try:
            yield lim
        finally:
            self._limits.remove(lim)

    @contextlib.contextmanager
    def reserve(self, n: int) -> Iterator[Limit]:
        """Keep ``n`` draws back for after the block: a request that would eat into them
        raises :class:`BudgetExhausted` (for the block, the budget is spent)."""
        n = check_count(n, "reserve")
        lim = Limit(self._budget - n, BudgetExhausted, f"the {n} draws kept for later")
        self._limits.append(lim)
        try:
            yield lim
        finally:
            self._limits.remove(lim)

    def _commit(self, n: int) -> None:
        self._used += n
        acc = self._account.setdefault(self._phase, {"draws": 0, "calls": 0})
        acc["draws"] += n
        acc["calls"] += 1

    def _check_x(self, x, ndim: int) -> np.ndarray:
        """``x`` as a float array of ``ndim`` dimensions, finite and feasible, or ValueError."""
        X = np.asarray(x, dtype=float)
        if X.ndim != ndim or X.shape[-1] != self.dim_x:
            want = f"({self.dim_x},)" if ndim == 1 else f"(m, {self.dim_x})"
            raise ValueError(f"x must have shape {want}, got {X.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("x contains NaN or infinite values")
        inside = np.asarray(self._contains(X, FEAS_TOL))
        if not np.all(inside):
            first = np.atleast_2d(X)[np.flatnonzero(~np.atleast_1d(inside))[0]]
            raise ValueError(f"x = {short_array(first)} is outside the feasible set; project "
                             "it before asking the oracle")
        return X

    def _check_z(self, z, shape: tuple) -> np.ndarray:
        z = np.asarray(z, dtype=float)
        if z.ndim != len(shape) or any(
            a is not None and a != b for a, b in zip(shape, z.shape, strict=True)
        ):
            want = ", ".join("n" if a is None else str(a) for a in shape)
            raise ValueError(f"z must have shape ({want}), got {z.shape}")
        return z

    # -- draws -----------------------------------------------------------------------------------
    def draw(self, x, n: int, *, antithetic: bool = False) -> np.ndarray:
        """``n`` scenarios at decision ``x`` (shape (n, d_W)); charges ``n``.

        With ``antithetic`` the rows are n/2 pairs (z, -z) mapped through the transform.
        """
        n = check_count(n)
        x = self._check_x(x, 1)
        self._check_budget(n)
        if antithetic:
            if not self.supports_normals:
                raise TypeError("this problem has no transform(x, z); it cannot pair normals")
            W = self._transform(x, antithetic_normals(n, self.dim_w, self._rng))
        else:
            W = self._sample(x, n, self._rng)
        self._commit(n)
        return W

    def draw_with(self, x, z) -> np.ndarray:
        """Scenarios at ``x`` from caller-supplied standard normals ``z`` (n, d_W); charges n.

        This is how methods use common random numbers across decisions: the same ``z`` at two
        decisions gives two *different*, counted sets of scenarios.
        """
        if not self.supports_normals:
            raise TypeError("this problem has no transform(x, z); it cannot take supplied normals")
        x = self._check_x(x, 1)
        z = self._check_z(z, (None, self.dim_w))
        n = z.shape[0]
        self._check_budget(n)
        W = self._transform(x, z)
        self._commit(n)
        return W

    def draw_batch(self, X, n_each: int = 1, *, z=None) -> np.ndarray:
        """``n_each`` scenarios at each of many decisions X (m, d_x): W (m, n_each, d_W).

        Charges m * n_each. ``z`` (m, n_each, d_W) optionally supplies the normals.
        """
        n_each = check_count(n_each, "n_each")
        X = np.asarray(X, dtype=float)
        X = self._check_x(X[None, :] if X.ndim == 1 else X, 2)
        m = X.shape[0]
        total = m * n_each
        if z is not None:
            if not self.supports_normals:
                raise TypeError("this problem has no transform(x, z); it cannot take normals")
            z = self._check_z(z, (m, n_each, self.dim_w))
        self._check_budget(total)
        if z is None and self.supports_normals:
            z = self._rng.standard_normal((m, n_each, self.dim_w))
        if z is not None:
            W = self._transform_batch(X, z)
        else:
            W = np.stack([self._sample(xi, n_each, self._rng) for xi in X])
        self._commit(total)
        return W

    # -- bookkeeping -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Account the draws made inside the block to phase ``name``."""
        previous, self._phase = self._phase, name
        try:
            yield
        finally:
            self._phase = previous

    @property
    def account(self) -> dict[str, dict[str, int]]:
        """Draws and calls per phase, for example ``{"lhd": {"draws": 1200, "calls": 1}}``."""
        return {k: dict(v) for k, v in self._account.items()}

    def record_best(self, x, value: float, *, replace: bool = False) -> None:
        """Log the method's incumbent: kept when ``value`` is lower, or always with ``replace``.

        ``x`` must be a feasible decision (``ValueError`` otherwise): it is what a method
        stopped by the budget returns, and each change joins the trajectory.
        """
        x = self._check_x(x, 1)
        value = float(value)
        # NaN ranks last: it never displaces an incumbent and any number displaces it.
        better = value < self._best_value or (np.isnan(self._best_value) and not np.isnan(value))
        if replace or self._best_x is None or better:
            changed = (self._best_x is None or not np.array_equal(self._best_x, x)
                       or not (value == self._best_value))
            self._best_x = x.copy()
            self._best_value = value
            if changed:
                if self._trajectory and self._trajectory[-1][0] == self._used:
                    self._trajectory[-1] = (self._used, self._best_x, value)
                else:
                    self._trajectory.append((self._used, self._best_x, value))

    @property
    def incumbent(self) -> tuple[np.ndarray, float] | None:
        if self._best_x is None:
            return None
        return self._best_x.copy(), self._best_value

    @property
    def trajectory(self) -> list[tuple[int, np.ndarray, float]]:
        """The incumbents in order, each with the draws used when it was recorded: (draws,
        x, the method's own value); one entry per count of draws (the last one recorded)."""
        return [(d, x.copy(), v) for d, x, v in self._trajectory]

    def summary(self) -> dict[str, Any]:
        return {"used": self._used, "budget": self._budget, "account": self.account}
