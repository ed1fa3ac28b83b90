"""The budgeted oracle: the only path from a method to the true DGP (paper Section 4.3, SPEC 3).

One counter per replication; a *draw* is one scenario row W generated at a decision x. A
request that would pass the cap raises :class:`BudgetExhausted` and nothing is drawn, so the
counter can never pass the cap. Re-costing an already drawn W at another x is free (that is
the cost function, which methods hold); any new W is charged.

The oracle keeps the problem's sampler in closures and exposes no attribute that returns the
problem, so a method holding an oracle cannot sample without being charged. It also keeps the
method's incumbent (so a method stopped by the budget still has an answer) and a per-phase
account of draws and calls (where the budget goes).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from acfs_cli.problems.base import check_n
from acfs_cli.problems.feasible import DIM_X, FEAS_TOL, is_feasible


def _hide(fn):
    """``fn`` wrapped in a closure, or None."""
    if fn is None:
        return None

    def call(*args):
        return fn(*args)

    return call


class BudgetExhausted(RuntimeError):
    """A request would pass the oracle's cap; nothing was drawn."""


def antithetic_normals(n: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` standard-normal rows as antithetic pairs: z_1..z_{n/2}, then -z_1..-z_{n/2}.

    For odd ``n`` the last row is an unpaired draw. Paper Section 2.4: pairs (Z, -Z) pushed
    through the copula induce negative covariance between costs.
    """
    n = check_n(n)
    half = rng.standard_normal((n // 2, dim))
    parts = [half, -half]
    if n % 2:
        parts.append(rng.standard_normal((1, dim)))
    return np.concatenate(parts, axis=0)


class Oracle:
    """Counted access to W ~ P_x for one replication.

    Parameters
    ----------
    problem : Problem
        The true simulator. Only its sampling functions are kept, inside closures.
    budget : int
        The hard cap on draws (paper: 260,000).
    rng : numpy.random.Generator
        Source of the normals for requests that do not supply their own.
    """

    __slots__ = (
        "_transform",
        "_transform_batch",
        "_sample",
        "_project_check",
        "_rng",
        "_budget",
        "_used",
        "_phase",
        "_account",
        "_best_x",
        "_best_value",
        "dim_x",
        "dim_w",
        "supports_normals",
    )

    def __init__(self, problem, budget: int, rng: np.random.Generator):
        budget = check_n(budget, "budget")
        if budget <= 0:
            raise ValueError(f"budget must be a positive integer, got {budget}")
        self._budget = budget
        self._used = 0
        self._rng = rng
        self.dim_x = int(getattr(problem, "dim_x", DIM_X))
        self.dim_w = int(problem.dim_w)
        transform = getattr(problem, "transform", None)
        batch = getattr(problem, "transform_batch", None)
        sample = getattr(problem, "sample", None)
        self.supports_normals = transform is not None
        # Plain closures rather than bound methods: a bound method's ``__self__`` would hand
        # the problem to anyone holding the oracle.
        self._transform = _hide(transform)
        self._transform_batch = _hide(batch)
        self._sample = _hide(sample)
        feasible = getattr(problem, "is_feasible", None) or is_feasible
        self._project_check = lambda X: np.asarray(feasible(X, FEAS_TOL))
        self._phase = "main"
        self._account: dict[str, dict[str, int]] = {}
        self._best_x: np.ndarray | None = None
        self._best_value = np.inf

    # -- budget ----------------------------------------------------------------------------------
    @property
    def budget(self) -> int:
        return self._budget

    @property
    def used(self) -> int:
        return self._used

    @property
    def remaining(self) -> int:
        return self._budget - self._used

    def can_draw(self, n: int) -> bool:
        """Would a request of ``n`` draws fit in what is left?"""
        return n <= self.remaining

    def _check_budget(self, n: int) -> None:
        if n > self.remaining:
            raise BudgetExhausted(
                f"request of {n} draws exceeds the {self.remaining} left of {self._budget}"
            )

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
        if not np.all(self._project_check(X)):
            raise ValueError("x is outside the feasible set; project it before asking the oracle")
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

        With ``antithetic`` the rows are n/2 pairs (z, -z) mapped through the copula.
        """
        n = check_n(n)
        x = self._check_x(x, 1)
        self._check_budget(n)
        if antithetic:
            if not self.supports_normals:
                raise TypeError("this problem has no transform(x, z); it cannot pair normals")
            W = self._transform(x, antithetic_normals(n, self.dim_w, self._rng))
        elif self._transform is not None:
            W = self._transform(x, self._rng.standard_normal((n, self.dim_w)))
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
        n_each = check_n(n_each, "n_each")
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
            if self._transform_batch is not None:
                W = self._transform_batch(X, z)
            else:
                W = np.stack([self._transform(xi, zi) for xi, zi in zip(X, z, strict=True)])
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
        stopped by the budget returns.

        The runner falls back on the last incumbent when the budget stops a method.
        """
        x = self._check_x(x, 1)
        value = float(value)
        # NaN ranks last: it never displaces an incumbent and any number displaces it.
        better = value < self._best_value or (np.isnan(self._best_value) and not np.isnan(value))
        if replace or self._best_x is None or better:
            self._best_x = x.copy()
            self._best_value = value

    @property
    def incumbent(self) -> tuple[np.ndarray, float] | None:
        if self._best_x is None:
            return None
        return self._best_x.copy(), self._best_value

    def summary(self) -> dict[str, Any]:
        return {"used": self._used, "budget": self._budget, "account": self.account}
