"""Whole numbers of many units: the continuous search, asking only at whole plans
(declarations version 7, and 8 under auto's version 15; DESIGN.md section 4).

Where a problem's whole-number coordinates are stocks, fleets or capacities whose start is
tens or hundreds of units, a unit is a small part of any step the search takes, and the
pattern search on the lattice (:mod:`acfs_cli.methods.auto_declared`) spends 2 d polls of
one coordinate at a time where a continuous search moves along coupled directions (less
stock in every store, more express capacity). So, from ``auto.MANY`` decisions, where the
problem declares no stochastic constraint and the whole coordinates' steps span
:data:`FINE_UNITS` units or more (their geometric mean), auto runs its continuous search on
the *relaxation*: every decision it tries is rounded to the nearest whole plan in X before
the simulator sees it (:class:`RoundedOracle`), every re-costing of drawn rows prices that
plan (:func:`relaxed`), and its answer is the plan. The value the search sees at x is J of
round(x) on its rows, exact and common like any other, so its models see a staircase whose
treads are a unit wide, fine beside their steps. The draws are the oracle's, counted as
always.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from acfs_cli.core.task import Task
from acfs_cli.methods.auto_declared import rounded_projection

#: The geometric mean of the whole coordinates' steps (``task.steps()``: |x0| where a start
#: is known), in units, from which the continuous search on the relaxation runs.
FINE_UNITS = 10.0


def fine(task: Task, many: int) -> bool:
    """Whether ``task``'s whole numbers are searched as the continuous search's relaxation:
    ``many`` decisions or more, whole coordinates, no stochastic constraint, a start, and
    steps of :data:`FINE_UNITS` units or more in geometric mean. In fewer dimensions the
    lattice's 2 d polls a step are cheap, and on SimOpt's IRONORE-1 (4 decisions, a piecewise
    cost) its pattern search stays well ahead of the continuous one (REPRODUCTION.md)."""
    if task.dim_x < many or not task.integer or task.constraints or task.x0 is None:
        return False
    steps = np.maximum(task.steps()[task.integrality], 1e-300)
    return float(np.exp(np.mean(np.log(steps)))) >= FINE_UNITS


def plans(task: Task):
    """The whole plan the relaxation draws at for each decision (any leading shape): X's
    projection rounded (:func:`~acfs_cli.methods.auto_declared.rounded_projection`); where
    no rounding of it stays in X (a cap on a sum of whole coordinates that every rounding
    breaks), the rounding of the nearest point on the segment back to the start that does,
    the start itself at worst (whole and in X): the simulator never sees a plan outside X."""
    rnd, x0 = rounded_projection(task), task.x0

    def plan(X):
        X = np.asarray(X, dtype=float)
        P = rnd(X)
        flat = P.reshape(-1, task.dim_x)
        left = np.flatnonzero(~np.atleast_1d(task.is_feasible(flat)))
        if left.size:  # seldom: X projected again only for the rows no rounding kept in X
            inside = task.project(X.reshape(-1, task.dim_x)[left])
            for i, p in zip(left, inside, strict=True):
                for t in np.linspace(1.0, 0.0, 11)[1:]:
                    q = rnd(x0 + t * (p - x0))
                    if bool(task.is_feasible(q)) or t == 0.0:
                        break
                flat[i] = q if bool(task.is_feasible(q)) else x0
        return flat.reshape(P.shape)

    return plan


def relaxed(task: Task, rnd) -> Task:
    """``task`` with its whole coordinates relaxed: X's continuous set, and every cost of
    drawn rows priced at the whole plan ``rnd`` makes of the decision (no gradient: a
    staircase has none)."""
    cost = task.cost
    return replace(task, cost=lambda W, x: cost(W, rnd(np.asarray(x, dtype=float))),
                   gradient=None, integrality=None)


class RoundedOracle:
    """The oracle as the relaxation's search sees it: every decision drawn at or recorded is
    the whole plan the rounding makes of it; the counting, the samples and the notes are the
    oracle's own."""

    def __init__(self, oracle, rnd) -> None:
        self._oracle, self._round = oracle, rnd

    def _plan(self, x):
        return self._round(np.asarray(x, dtype=float))

    def draw(self, x, n: int, *, antithetic: bool = False):
        return self._oracle.draw(self._plan(x), n, antithetic=antithetic)

    def draw_batch(self, X, n_each: int = 1, *, antithetic: bool = False):
        return self._oracle.draw_batch(self._plan(X), n_each, antithetic=antithetic)

    def draw_common(self, X, sample):
        return self._oracle.draw_common(self._plan(X), sample)

    def record_best(self, x, value: float, *, replace: bool = False) -> None:
        self._oracle.record_best(self._plan(x), value, replace=replace)

    def __getattr__(self, name: str):
        return getattr(self._oracle, name)


def search(task: Task, oracle, continuous):
    """``continuous(task, oracle)`` (auto's search without declarations) on the relaxation of
    ``task``; its answer is the whole plan of the point it ends at."""
    rnd = plans(task)
    result = continuous(relaxed(task, rnd), RoundedOracle(oracle, rnd))
    result.x = rnd(np.asarray(result.x, dtype=float))
    if result.info.get("chosen") == "x0":
        return result  # no search ran: the note says why
    oracle.note("auto searched the whole-number coordinates as continuous ones (their steps "
                f"span {FINE_UNITS:g} units or more) and drew only at the nearest whole plans")
    return result
