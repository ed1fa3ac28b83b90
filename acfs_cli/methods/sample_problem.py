"""The sample problem of one epoch of auto's search under declarations
(:mod:`acfs_cli.methods.auto_declared`): J and each stochastic constraint's level of decisions
on one common sample, and where the simulator gives them, their gradients.

The levels are :func:`acfs_cli.core.feasibility.levels` tightened by two standard errors of
an estimate on the sample's rows (an expectation by 2 sd(g) / sqrt(n)). Their gradients, where
the simulator gives the pathwise gradients of the cost and of every constraint (all
expectations), are the exact gradients of those sample functions: the mean of the rows'
gradients, plus 2 / sqrt(n) times the gradient of the rows' standard deviation,
cov(g, dg/dx) / sd(g); J's is the mean of the rows' gradient influence values
(:func:`acfs_cli.kernels.growing_sample.gradient_influence`, the row at the quantile held).
"""

from __future__ import annotations

import numpy as np

from acfs_cli.core.feasibility import levels, violation
from acfs_cli.core.oracle import Oracle
from acfs_cli.core.risk import search_level, spectral_risk
from acfs_cli.core.task import Task
from acfs_cli.kernels.growing_sample import gradient_influence
from acfs_cli.kernels.pattern import point_key

#: The standard errors each constraint is tightened by on the sample (``levels``' own z).
MARGIN_Z = 2.0
#: With gradients, a level above zero by at most this share of its margin (in the
#: constraint's unit) counts as met: SLSQP approaches the boundary of a sample's piecewise
#: levels from outside and ends there to a few hundredths of the margin, which the level
#: already holds from the bound.
GRADIENT_TOL = 0.05


def gradients_given(task: Task) -> bool:
    """Whether the simulator gives the pathwise gradient of J and of every stochastic
    constraint's level: the cost's and the constraints' gradients, and every constraint an
    expectation (a chance constraint's level is a quantile of an indicator's side)."""
    return (task.gradient is not None and task.constraint_gradient is not None
            and all(c.chance is None for c in task.constraints))


class SampleProblem:
    """J and the constraints' levels of decisions on one common sample, each decision drawn
    once (a cache keyed on the decision), with the best point seen: feasible on the sample
    and lowest J first, else the least violation. J is weighed at the search's level on the
    sample's rows (:func:`acfs_cli.core.risk.search_level`, ``tail_rows``). With
    ``gradients``, each decision's gradients of J and of the levels too (:meth:`gradient`)."""

    def __init__(self, task: Task, oracle: Oracle, sample, scale: np.ndarray | None,
                 tail_rows: int = 0, gradients: bool = False):
        self.task, self.oracle, self.sample = task, oracle, sample
        self.scale = scale
        self.level = search_level(task.alpha, sample.n, tail_rows)
        self.cache: dict[bytes, tuple[float, np.ndarray]] = {}
        self.best: tuple[float, float, np.ndarray] | None = None  # (violation, J, x)
        self.first_costs: np.ndarray | None = None
        self.first_G: np.ndarray | None = None
        #: each point's costs on the sample's rows, beside ``points`` (whole numbers only:
        #: :func:`resolved` weighs the best point against its neighbours on them)
        self.costs: list[np.ndarray] | None = [] if task.integer else None
        #: every decision drawn on the sample, with its J and levels (the local models' data)
        self.points: list[tuple[np.ndarray, float, np.ndarray]] = []
        #: each point's expectation constraints' outputs on the sample's rows (n, m; nan in
        #: the chance constraints' columns), beside ``points``: the rows' own planes, whose
        #: spread is the error of a plane fitted on the sample (the calibration's margin)
        self._chance = np.array([c.chance is not None for c in task.constraints], dtype=bool)
        self.mean_rows: list[np.ndarray] | None = (
            [] if not self._chance.all() and not gradients else None)
        #: each decision's gradients of J (d,) and of the levels (m, d), keyed as ``cache``
        self.gradients: dict[bytes, tuple[np.ndarray, np.ndarray]] | None = (
            {} if gradients else None)
        #: ... and the covariance (m, d, d) of each level's gradient as the mean of the
        #: sample's rows (the rows' covariance over n): the error of a move predicted by it
        self.gradient_cov: dict[bytes, np.ndarray] | None = {} if gradients else None
        self.tolerance = GRADIENT_TOL * MARGIN_Z / np.sqrt(sample.n) if gradients else 0.0

    def __call__(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        X = np.atleast_2d(np.asarray(X, dtype=float))
        keys = [point_key(x) for x in X]
        for x, k in zip(X, keys, strict=True):
            if k not in self.cache and not bool(self.task.is_feasible(x)):
                # outside X (a rounding no cap allows): never drawn, never chosen
                self.cache[k] = (np.inf, np.full(len(self.task.constraints), np.inf))
        new = [i for i, k in enumerate(keys) if k not in self.cache]
        new = [i for j, i in enumerate(new) if keys[i] not in {keys[k] for k in new[:j]}]
        if new:
            Xn = X[new]
            W = self.oracle.draw_common(Xn, self.sample)
            C = np.asarray(self.task.cost(W, Xn), dtype=float).reshape(len(new), -1)
            J = np.asarray(spectral_risk(C, self.task.lam, self.level)[0],
                           dtype=float).reshape(len(new))
            m = len(self.task.constraints)
            G = np.empty((len(new), C.shape[1], m))
            for i in range(len(new)):
                if m:
                    G[i] = self.task.constraint_values(W[i], Xn[i])
            L = levels(G, self.task.constraints, margin_rows=self.sample.n, z=MARGIN_Z)
            if self.first_costs is None:
                self.first_costs, self.first_G = C[0], G[0]
            for i, idx in enumerate(new):
                self.cache[keys[idx]] = (float(J[i]), L[i])
                self.points.append((Xn[i].copy(), float(J[i]), L[i]))
                if self.mean_rows is not None:
                    self.mean_rows.append(np.where(self._chance, np.nan, G[i]))
                if self.costs is not None:
                    self.costs.append(C[i])
                if self.gradients is not None:
                    self.gradients[keys[idx]], self.gradient_cov[keys[idx]] = (
                        self._gradients(W[i], Xn[i], C[i], G[i]))
                self._consider(Xn[i], float(J[i]), L[i])
        J = np.array([self.cache[k][0] for k in keys])
        L = np.array([self.cache[k][1] for k in keys]).reshape(len(keys), -1)
        return J, L

    def gradient(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The gradients of J (d,) and of the levels (m, d) at ``x`` on the sample (drawn
        first where ``x`` is new)."""
        self(x)
        return self.gradients[point_key(np.asarray(x, dtype=float))]

    def _gradients(self, W, x, costs, G):
        """((J's gradient, the levels'), the covariance of the levels' gradients)."""
        task, n = self.task, len(costs)
        gJ = gradient_influence(costs, task.gradient(W, x), task.lam, self.level).mean(axis=0)
        dG = np.asarray(task.constraint_gradient(W, x), dtype=float)  # (n, m, d)
        gL = dG.mean(axis=0)
        gcov = np.zeros((dG.shape[1], dG.shape[2], dG.shape[2]))
        if n > 1:
            sd = G.std(axis=0, ddof=1)  # (m,)
            dev = dG - gL
            cov = np.einsum("nm,nmd->md", G - G.mean(axis=0), dev) / (n - 1)
            gcov = np.einsum("nmd,nme->mde", dev, dev) / ((n - 1) * n)
            gL = gL + MARGIN_Z / np.sqrt(n) * cov / np.where(sd > 0, sd, np.inf)[:, None]
        return (gJ, gL), gcov

    def _consider(self, x: np.ndarray, J: float, L: np.ndarray) -> None:
        v = float(violation(L, self.scale)) if self.scale is not None and L.size else 0.0
        v = 0.0 if v <= self.tolerance * max(L.size, 1) else v
        if self.best is None or (v, J) < self.best[:2]:
            self.best = (v, J, x.copy())
            self.oracle.record_best(x, J)
