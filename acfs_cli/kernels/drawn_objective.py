"""J estimated on fresh draws at x, and its gradient, for an L-BFGS-B start on the oracle
(ACFS's phase 4, DESIGN.md section 4).

Unlike a sample-average objective (:class:`~acfs_cli.kernels.stencil.CRNObjective`, value and
gradient in one call), ``fn`` draws only at x and each gradient rule draws (or not) on its
own: the rule is a setting (``crn``, ``cached-w``, ``pathwise``), and so is where the normals
come from (``common``, ``per-start``, ``per-call``).
"""

from __future__ import annotations

from typing import Literal, Protocol

import numpy as np

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.sample import CommonSample
from acfs_cli.core.task import Task
from acfs_cli.kernels.stencil import fd_stencil


class DrawnSettings(Protocol):
    """What the objective reads of its settings (ACFS's settings model has them)."""

    n_d: int  # rows drawn at x by each fn call
    antithetic: bool  # common samples as antithetic pairs (a transform problem)
    normals: Literal["common", "per-start", "per-call"]
    gradient: Literal["crn", "cached-w", "pathwise"]
    fd_step: float  # finite-difference step, in units of the task's steps
    pathwise_n: int  # rows of a pathwise difference point


class DrawnObjective:
    """``fn`` and gradient of one L-BFGS-B start (ACFS's phase 4); every new W comes from the
    oracle.

    ``fn(x)`` draws ``n_d`` scenarios at x on a common sample of the oracle (antithetic pairs
    when on; one sample for all of phase 4, one per start, or a new one per call, as
    ``normals`` says) and caches (x, W). The ``crn`` gradient (the default) draws the same
    sample at the 2 d_x points of the shared finite-difference stencil
    (:func:`~acfs_cli.kernels.stencil.fd_stencil`: x +- h e_j, one-sided or along a transfer
    at the faces of X, every point in X) and differences fn's values there: the gradient of
    the very function fn evaluates, dP_x/dx included, at 2 d_x n_d counted draws. The
    ``cached-w`` gradient takes central differences
    of C(W, x +- h e_j) on that W (free; one-sided at a bound of the box ``lo``/``hi``). The
    ``pathwise`` gradient draws a common sample of ``pathwise_n`` rows at x and at x + h e_j
    (x - h e_j where x + h e_j leaves X), one counted draw per row and point, and takes
    one-sided differences on it: the derivative of the estimate including dP_x/dx (for a
    sample-only simulator, by re-seeding: common streams rather than common normals). A
    direction in which both steps leave X keeps its fixed-W slope. Draws kept back for a later
    selection are the oracle's reservation (:meth:`~acfs_cli.core.oracle.Oracle.reserve`): a
    request that would eat into them raises :class:`~acfs_cli.core.oracle.BudgetExhausted`,
    which the shared polish turns into a clean stop.
    """

    def __init__(self, task: Task, oracle: Oracle, settings: DrawnSettings, lo: np.ndarray,
                 hi: np.ndarray, sample: CommonSample | None = None):
        self.task, self.oracle, self.s = task, oracle, settings
        self.lo, self.hi = lo, hi
        self.x: np.ndarray | None = None
        self.W: np.ndarray | None = None
        self.n_fn = 0
        self.n_grad_draws = 0
        self.grad_sample: CommonSample | None = None  # the last pathwise gradient's sample
        self.value: float = float("nan")  # fn at self.x
        self.fn_sample: CommonSample | None = None  # the sample of the last fn call
        if sample is None and settings.normals == "per-start":
            sample = self._sample()
        self.sample = sample

    def _sample(self) -> CommonSample:
        return self.oracle.common_sample(self.s.n_d, antithetic=self.s.antithetic)

    def fn(self, x: np.ndarray) -> float:
        """J estimated on ``n_d`` new scenarios at x (charged); caches them for the gradient."""
        sample = self.sample or self._sample()
        W = self.oracle.draw_common(x, sample)
        self.x, self.W, self.fn_sample = np.array(x, dtype=float), W, sample
        self.n_fn += 1
        self.value = float(self.task.objective(W, x))
        return self.value

    def gradient(self, x: np.ndarray) -> np.ndarray:
        """The gradient rule of the settings at x (``fn`` is called first if x is not cached)."""
        if self.x is None or not np.array_equal(self.x, x):
            self.fn(x)
        if self.s.gradient == "crn":
            return self.crn(x)
        if self.s.gradient == "pathwise":
            return self.pathwise(x)
        return self.cached(x)

    def crn(self, x: np.ndarray) -> np.ndarray:
        """Central differences of fn on its own sample, drawn at the 2 d_x stencil points."""
        h = self.s.fd_step * float(np.mean(self.task.steps()))
        stencil = fd_stencil(self.task, x, h)
        P = stencil.points(x)[1:]  # the centre is fn's own draw
        W = self.oracle.draw_common(P, self.fn_sample)
        self.n_grad_draws += len(P) * self.fn_sample.n
        J = np.asarray(self.task.objective(W, P), dtype=float)
        return stencil.gradient(np.concatenate([[self.value], J]))

    def cached(self, x: np.ndarray) -> np.ndarray:
        """Central differences on the cached W (free)."""
        h, d = self.s.fd_step * float(np.mean(self.task.steps())), len(x)
        step_up = np.minimum(x + h, self.hi) - x
        step_dn = x - np.maximum(x - h, self.lo)
        X = np.concatenate([x + np.diag(step_up), x - np.diag(step_dn)])
        J = self.task.objective(self.W, X)
        width = step_up + step_dn
        return np.where(width > 0, (J[:d] - J[d:]) / np.where(width > 0, width, 1.0), 0.0)

    def pathwise(self, x: np.ndarray) -> np.ndarray:
        """One-sided differences on a common sample drawn at x and at x +- h e_j."""
        h, d = self.s.fd_step * float(np.mean(self.task.steps())), len(x)
        up, dn = x + h * np.eye(d), x - h * np.eye(d)
        ok_up = np.asarray(self.task.is_feasible(up), dtype=bool)
        ok_dn = np.asarray(self.task.is_feasible(dn), dtype=bool)
        P = np.where(ok_up[:, None], up, dn)
        sign = np.where(ok_up, 1.0, -1.0)
        g = self.cached(x)
        idx = np.flatnonzero(ok_up | ok_dn)
        if len(idx):
            points = np.vstack([x[None, :], P[idx]])
            sub = self.oracle.common_sample(self.s.pathwise_n, antithetic=self.s.antithetic)
            self.grad_sample = sub
            W = self.oracle.draw_common(points, sub)
            self.n_grad_draws += len(points) * sub.n
            J = self.task.risk(self.task.cost(W, points))[0]
            g[idx] = sign[idx] * (J[1:] - J[0]) / h
        return g
