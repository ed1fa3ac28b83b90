"""auto's search where a problem declares stochastic constraints or whole-number coordinates
(DESIGN.md section 4, "The default under constraints and on whole numbers"), and on a
problem without a simulator gradient whose budget is too small for astro's epochs (its COBYQA
epochs on sample averages; :mod:`acfs_cli.methods.auto`).

Retrospective approximation (Pasupathy 2010), as auto's epochs: each epoch solves the
sample problem of its own independent common sample - minimise J_n(x) subject to every
constraint's sample level (:func:`acfs_cli.core.feasibility.levels`) at most zero - from the
last epoch's end, the samples doubling in rows. Two solvers, by what the decisions are:

* **continuous decisions**: scipy's COBYQA (Ragonneau and Zhang), a derivative-free trust
  region that models the objective and each constraint by quadratics and keeps the bounds,
  in coordinates scaled by the problem's steps (so a step of 1 is the problem's own unit);
* **continuous decisions with the simulator's gradients** of the cost and of every
  constraint (all expectations; ``gradient`` and ``constraint_gradient``, as SimOpt's SAN-2
  gives them): scipy's SLSQP on the same sample problem with its exact gradients
  (:class:`~acfs_cli.methods.sample_problem.SampleProblem`), in COBYQA's coordinates. A step
  costs one evaluation where COBYQA's first model costs 2 d + 1, so its epochs plan
  ``GRADIENT_EVALS`` evaluations a dimension where COBYQA's plan ``EVALS``; J's sample CVaR
  weighs at least ``SEARCH_TAIL_ROWS`` rows (a one-row CVaR's gradient is one scenario's),
  and the calibration moves along the gradients at the answer instead of fitted planes;
* **some whole-number coordinates**: the project's pattern search
  (:mod:`acfs_cli.kernels.pattern`) on a mesh that is whole on those coordinates - every
  polled point is projected onto X and rounded there, so no simulator ever sees a fraction of
  a server - with an exact penalty on the constraints: the merit is J_n plus ``PENALTY``
  times (|J_n(x0)| + the sd of x0's costs) per unit of violation (each constraint in units of
  its own spread at x0), so a feasible point beats any infeasible one the sample can tell
  apart.

Whole numbers without stochastic constraints (declarations version 4) are planned as the
search without declarations: no margin needs the first sample's evaluations, so the first
epoch is capped to leave a second on twice the rows (:func:`first_allowance`,
:func:`second_epoch`), whose new sample corrects the first sample's optimum. Where
the epoch's sample tells its best point from its nearest polled neighbours
(:func:`resolved`: by two standard errors of the paired difference, or exactly where the
noise is the same for every decision, as SimOpt's EXAMPLE-2's), a larger sample would rank
them the same, so the next epoch keeps the rows and the region and the draws buy
evaluations instead.

On a sample of n rows each constraint is tightened by two standard errors of an estimate on
n rows: the epochs approach the boundary as their samples grow, and the answer of the last
holds on a fresh check. The final check weighs the last epochs' ends (without declarations
also their average weighted by rows, :func:`averaged`) and the start on fresh common rows
and keeps the lowest J the check does not show to fail (of none, the one that violates
least, and a note says feasibility is not established). Then the *calibration*
(:mod:`acfs_cli.methods.calibration`) spends what is left fresh at and near that answer and
moves it to a margin of those draws from the bound, along local linear models on the epochs'
common rows or, for few-valued outputs such as indicators, along one line searched on common
rows: a margin of the calibration's many rows instead of the epochs' few (DESIGN.md
section 4).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import Bounds, NonlinearConstraint, minimize

from acfs_cli.core.feasibility import levels, spread, violation
from acfs_cli.core.oracle import BudgetExhausted, Oracle
from acfs_cli.core.task import Task
from acfs_cli.kernels.pattern import PatternSettings, pattern_search
from acfs_cli.kernels.refine import distinct, even, paired_gain
from acfs_cli.methods.base import MethodResult
from acfs_cli.methods.calibration import calibrate
from acfs_cli.methods.sample_problem import SampleProblem, gradients_given

#: Weight of a unit of violation against the objective's own size (an exact penalty: it only
#: has to exceed the constraints' multipliers, which are of the objective's order).
PENALTY = 1e3
#: Evaluations per dimension plus one that the first epoch is sized for (it travels from x0).
EVALS = 15
#: ... and each later one (it starts at the last answer, in a smaller region).
LATER = 4
#: ... and the last (the largest sample: its rows set the margin the answer keeps).
LAST = 3
#: The same three with the simulator's gradients of J and of every constraint, where SLSQP
#: solves each sample problem: a step costs one evaluation, and from an answer of the last
#: sample a few steps reach the new one's (SAN-2 at 1,000 replications: on 20 rows SLSQP is
#: within 1 % of its sample's optimum after about 15 evaluations in 13 dimensions).
GRADIENT_EVALS = (2, 1, 1)
#: Fewest rows of a sample that hold a chance constraint's tail: this many rows above its
#: (1 - eps)-quantile.
TAIL_ROWS = 10
#: The first epoch's first radius, in the problem's steps (half of x0 where x0 sets them).
RADIUS = 0.5
#: Each epoch's first radius (in the problem's steps) over the last one's, and its floor.
SHRINK, FLOOR = 0.25, 0.005
#: Evaluations per dimension plus one that make a COBYQA epoch worth its rows: its first
#: model (2 d + 1) and as many steps again.
STEPS = 5
#: Without declarations (no gradient, a budget too small for astro's epochs), where no
#: margin to a bound needs the last epoch's rows: each epoch's first radius over the last
#: one's (a fresh region, as astro's epochs) and the most of the draws the first epoch takes
#: (unless that leaves it fewer than ``STEPS`` (d + 1) evaluations); the last plans ``STEPS``
#: (d + 1) evaluations, more steps on fewer rows than under constraints.
PLAIN_SHRINK, FIRST_CAP = 1.0, 0.5
#: The rows per evaluation of the lead of auto's astro epochs in many dimensions: its sample
#: has sqrt(``LEAD_ROWS`` draws) rows, so its evaluations are ten times its rows.
LEAD_ROWS = 0.1
#: Share of the budget for the calibration of the answer onto the boundary (constraints and a
#: continuous coordinate only).
CALIBRATE = 0.45
QUARTER = 0.25
#: Rows each search's sample CVaR weighs at least without declarations in auto's ``MANY``
#: dimensions or more (its COBYQA epochs, its lead and its astro epochs;
#: :func:`acfs_cli.core.risk.search_level`, version 12): on 20 rows at alpha 0.95 the sample
#: CVaR is one row, and a search minimises that one scenario. Under declarations the searches
#: keep alpha: their samples set the constraints' margins.
SEARCH_TAIL_ROWS = 3
#: Epoch ends the final comparison weighs (the last ones, distinct).
FINAL_CANDIDATES = 3
#: Decades a positive coordinate's range spans above its floor from which COBYQA steps in
#: its logarithm (a factor of the value is its unit).
DECADES = 2


def rounded_projection(task: Task):
    """X's projection with the whole-number coordinates rounded (half up, so a unit step
    polled at half a unit still moves); where that leaves X (a cap on a sum of whole
    coordinates), rounded down, then up; a point that no rounding keeps in X is left as
    rounded half up, and :class:`SampleProblem` prices it without drawing it."""
    whole = task.integrality

    def project(X):
        P = np.array(task.project(X), dtype=float)
        flat = P.reshape(-1, P.shape[-1])
        out = flat.copy()
        out[:, whole] = np.floor(flat[:, whole] + 0.5)
        # rows the rounding half up takes out of X: down, then up (one test for all rows first)
        left = np.flatnonzero(~np.atleast_1d(task.is_feasible(out)))
        for fn in (np.floor, np.ceil):
            if not left.size:
                break
            q = flat[left].copy()
            q[:, whole] = fn(q[:, whole])
            ok = np.atleast_1d(task.is_feasible(q))
            out[left[ok]] = q[ok]
            left = left[~ok]
        return out.reshape(P.shape)

    return project


def _cobyqa(task: Task, sp: SampleProblem, start: np.ndarray, radius: float,
            max_evals: int) -> None:
    """COBYQA on the sample problem from ``start`` in coordinates scaled by the task's steps
    (the best point is kept by ``sp``)."""
    S = task.steps()
    lo, hi = task.box()
    rel = relative(lo, hi, start)

    def to_x(u):  # the one change of variables
        return task.project(np.where(rel, start * np.exp(np.where(rel, u, 0.0)), start + S * u))

    def f(u):
        return float(sp(to_x(u))[0][0])

    constraints = ()
    if task.constraints:
        constraints = NonlinearConstraint(lambda u: sp(to_x(u))[1][0], -np.inf, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        bounds = Bounds(np.where(rel, np.log(np.where(rel, lo / start, 1.0)), (lo - start) / S),
                        np.where(rel, np.log(np.where(rel, hi / start, 1.0)), (hi - start) / S))
    minimize(f, np.zeros(task.dim_x), method="COBYQA", bounds=bounds, constraints=constraints,
             options={"maxfev": max(int(max_evals), task.dim_x + 2),
                      "initial_tr_radius": radius, "final_tr_radius": radius * 1e-4})


def _slsqp(task: Task, sp: SampleProblem, start: np.ndarray, max_evals: int) -> None:
    """SLSQP on the sample problem from ``start`` with the simulator's gradients of J and of
    the levels (:meth:`SampleProblem.gradient`), in COBYQA's coordinates (the best point is
    kept by ``sp``; the allowance ends it: on a sample of a piecewise cost it seldom stops)."""
    S = task.steps()
    lo, hi = task.box()
    rel = relative(lo, hi, start)

    def to_x(u):  # COBYQA's change of variables (onto X, where X is more than a box)
        return task.project(np.where(rel, start * np.exp(np.where(rel, u, 0.0)), start + S * u))

    def dx(u):  # d x / d u, coordinate by coordinate (the projection's taken as the identity)
        return np.where(rel, to_x(u), S)

    with np.errstate(invalid="ignore", divide="ignore"):
        bounds = Bounds(np.where(rel, np.log(np.where(rel, lo / start, 1.0)), (lo - start) / S),
                        np.where(rel, np.log(np.where(rel, hi / start, 1.0)), (hi - start) / S))
    minimize(lambda u: float(sp(to_x(u))[0][0]), np.zeros(task.dim_x), method="SLSQP",
             jac=lambda u: sp.gradient(to_x(u))[0] * dx(u), bounds=bounds,
             constraints={"type": "ineq", "fun": lambda u: -sp(to_x(u))[1][0],
                          "jac": lambda u: -sp.gradient(to_x(u))[1] * dx(u)},
             options={"maxiter": max(int(max_evals), 1), "ftol": 0.0})


def relative(lo: np.ndarray, hi: np.ndarray, start: np.ndarray) -> np.ndarray:
    """The coordinates whose unit is relative: a positive floor and a range above it of more
    than ``DECADES`` decades (to infinity included), where a step is a factor of the value,
    not an amount; the start is inside, so positive."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return (lo > 0) & (hi / np.where(lo > 0, lo, 1.0) > 10.0**DECADES) & (start > 0)


def _pattern(task: Task, sp: SampleProblem, start: np.ndarray, radius: float,
             max_evals: int, mu: float) -> None:
    """The pattern search on the penalised sample problem over the rounded mesh."""
    # a whole coordinate's first polls are unit steps at least (a half step rounds back onto
    # x when it goes down)
    scale = np.where(task.integrality, np.maximum(task.steps(), 1.0 / radius), task.steps())
    sv = sp.scale if sp.scale is not None else np.ones(0)

    def merit(X):
        J, L = sp(X)
        return J + (mu * violation(L, sv) if L.shape[-1] else 0.0)

    settings = PatternSettings(step0=radius, step_min=1e-4 * radius, batch_size=4)
    pattern_search(merit, start, rounded_projection(task), settings,
                   max_evals=max(int(max_evals), 1), scale=scale,
                   coupled=task.exchange_coordinates() or None)


def search(task: Task, oracle: Oracle, s, rng: np.random.Generator,
           moving=None, tail_rows: int = 0, stratified: bool = False) -> MethodResult:
    """auto's search on a problem with stochastic constraints or whole-number coordinates;
    ``s`` are auto's settings (the shares and the growth of the epochs, astro's ``n0``).
    ``moving(task, oracle, candidates, ends, costs)``, where given, says whether the epochs
    were still descending when the draws ran out (problems without declarations);
    ``tail_rows``, the rows each epoch's sample CVaR weighs at least there
    (:func:`acfs_cli.core.risk.search_level`); ``stratified``, whether the final check's
    rows are antithetic pairs that form a Latin hypercube there (auto's version 15: the
    epochs' own samples stay plain pairs)."""
    from acfs_cli.methods.astro import start_point

    budget, d = oracle.budget, task.dim_x
    x = start_point(task)
    if task.integer:
        x = rounded_projection(task)(x)
    start = x.copy()
    chances = [c.chance for c in task.constraints if c.chance is not None]
    floor = max(s.n0, math.ceil(TAIL_ROWS / min(chances)) if chances else 0)
    gradients = gradients_given(task) and not task.integer
    first, later, last = GRADIENT_EVALS if gradients else (EVALS, LATER, LAST)
    rows = even(max(floor, int(s.first_share * budget / (first * (d + 1)))))
    solver = ("pattern search on whole numbers" if task.integer else
              "SLSQP with the simulator's gradients" if gradients else "COBYQA")
    free = ~task.integrality if task.integer else np.ones(d, dtype=bool)
    # the calibration's draws only where the epochs keep a quarter of a first epoch without
    # them
    calibrating = float(np.clip(1 - s.final_share - QUARTER * first * (d + 1) * rows / budget,
                              0.0, CALIBRATE)) if task.constraints and free.any() else 0.0
    kept = s.final_share + calibrating
    need = math.ceil((d + 2) * rows / (1 - kept))
    small = budget < need
    if small:
        # a small budget: samples of fewer rows than n0 (down to a pair), as many as leave the
        # first epoch its evaluations; the start stays a candidate of the final check
        rows = even(max(2, math.ceil(TAIL_ROWS / min(chances)) if chances else 2,
                        int((1 - kept) * budget / (first * (d + 1)))))
        need = math.ceil((d + 2) * rows / (1 - kept))
    declares = bool(task.constraints) or task.integer
    under = " under the problem's declarations" if declares else ""
    if budget < need:
        return start_only(task, oracle, x, f"a search{under} (it needs {need:,})")
    ends, samples, problems = [], [], []
    scale, mu, radius = None, 0.0, RADIUS
    # without stochastic constraints no margin needs the first sample's evaluations: the
    # first epoch is capped so that a second on a new sample corrects its sample's optimum
    planned = not task.constraints
    steady = False  # the last sample told its best point apart: more rows would rank the same
    with oracle.reserve(int(kept * budget)):
        if planned:
            rows = second_epoch(rows, d, oracle.available, s.growth, model=not declares)
        # epochs while the draws left hold a few steps' evaluations on the next sample; a
        # solver that converges on its sample early leaves its draws to the next, larger one
        while oracle.available >= (d + 2) * rows:
            evals = (first if not ends else later) * (d + 1)
            allowance = rows * evals
            if not ends and planned:
                allowance = first_allowance(rows, d, oracle.available, s.growth)
            if ends and oracle.available - allowance < s.growth * allowance:
                # the last epoch: every draw left, on as many rows as its evaluations allow
                # (its sample sets the margin the answer keeps from the boundary)
                evals = (last if declares else STEPS) * (d + 1)
                rows = rows if steady else max(rows, even(oracle.available // evals))
                allowance = oracle.available
            sample = oracle.common_sample(rows, antithetic=True)
            sp = SampleProblem(task, oracle, sample, scale,
                               SEARCH_TAIL_ROWS if gradients else 0 if declares else tail_rows,
                               gradients=gradients)
            try:
                with oracle.phase(f"epoch {len(ends) + 1}"), oracle.allowance(int(allowance)):
                    if scale is None:
                        scale, mu = _units(task, sp, x)
                    if task.integer:
                        _pattern(task, sp, x, radius, allowance // rows, mu)
                    else:
                        (_slsqp(task, sp, x, allowance // rows) if gradients else
                         _cobyqa(task, sp, x, radius, allowance // rows))
            except BudgetExhausted:
                pass
            if sp.best is not None:
                x = sp.best[2]
            ends.append(x.copy())
            samples.append(rows)
            problems.append(sp)
            # whole numbers whose sample tells its best point from its neighbours (or shows
            # the differences exact): more rows would rank them the same, so the next epoch
            # goes on with the rows and the region it had, and the draws buy evaluations
            steady = planned and task.integer and sp.best is not None and resolved(
                task, sp, sp.best[2])
            if not steady:
                radius = max(radius * (SHRINK if declares else PLAIN_SHRINK), FLOOR)
                rows = even(int(rows * s.growth))
    candidates = np.array(ends[::-1])
    if not declares and len(ends) > 1:
        candidates = np.vstack([averaged(task, ends, samples), candidates])
    candidates = candidates[distinct(candidates, FINAL_CANDIDATES + (not declares), 1e-9,
                                     scale=task.steps())]
    if (task.constraints or small) and task.x0 is not None and not any(
            np.array_equal(c, start) for c in candidates):
        # the start stays a candidate: where the epochs' answers cannot be shown feasible on
        # the check's rows, a feasible start beats a cheaper answer that may not be
        candidates = np.vstack([candidates, start])
    per = even(oracle.available // len(candidates))
    info = {"plan": f"{_epochs(len(ends))} of {solver} and a final check", "chosen": solver,
            "epochs": [{"rows": r} for r in samples]}
    if per < 2:
        count = _epochs(len(ends))
        oracle.note(f"auto ran {solver} in {count} on independent samples{under}; no draws "
                    "were left for a final check")
        return MethodResult(x=ends[-1], value=oracle.incumbent[1], info=info)
    per = even(int(s.final_share * budget) // len(candidates)) if calibrating else per
    with oracle.phase("final"):
        # stratified rows hold their share of every tail, so a candidate that cut what only
        # a rare shock needs cannot look cheapest for want of the shock on a few rows
        strata = stratified and not declares
        sample = oracle.common_sample(per, antithetic=strata, stratified=strata)
        W = oracle.draw_common(candidates, sample)
        C = np.asarray(task.cost(W, candidates), dtype=float).reshape(len(candidates), -1)
        J = np.asarray(task.risk(C)[0], dtype=float).reshape(len(candidates))
        if moving is not None and not declares and len(ends) >= 2:
            moving(task, oracle, candidates, ends, C)
        ok = met = np.ones(len(candidates), dtype=bool)
        if task.constraints:
            G = np.stack([task.constraint_values(W[i], c) for i, c in enumerate(candidates)])
            # not shown to fail on the check's few rows (two standard errors of them below
            # the bound): the epochs kept their own margins, and the calibration below
            # measures the answer kept on many more rows
            L = levels(G, task.constraints)
            met = (L <= 0).all(axis=1)
            ok = (levels(G, task.constraints, margin_rows=per, z=-2.0) <= 0).all(axis=1)
    if ok.any():
        i = int(np.flatnonzero(ok)[np.argmin(J[ok])])
    else:
        i = int(np.argmin(violation(L, scale)))
        oracle.note(f"no answer of auto's search met the stochastic constraints on the final "
                    f"check's {per:,} fresh rows: feasibility is not established at "
                    f"{budget:,} draws")
    oracle.record_best(candidates[i], float(J[i]), replace=True)
    x, value = candidates[i], float(J[i])
    # the start's place among the candidates (None: not one of them)
    at_start = next((k for k in range(len(candidates))
                     if np.array_equal(candidates[k], start)), None)
    origin = x
    if np.array_equal(x, start):
        # no answer of the epochs met the constraints on the check: the calibration starts
        # from the cheapest of them, and a restoration heads back to the start
        others = [k for k in range(len(candidates)) if k != at_start]
        origin = candidates[min(others, key=lambda k: J[k])] if others else None
    if calibrating and oracle.available >= 2 * per and origin is not None:
        with oracle.phase("calibrate"):
            # the start is where a restoration heads, where it met the constraints on the
            # check
            held = at_start is not None and bool(met[at_start])
            x, value, moved = calibrate(task, oracle, origin, problems, scale, free,
                                        start if held else None)
        info["calibration"] = moved
        if not moved["holds"] and held:
            # the answer fails on the calibration's draws and no model restores it: the
            # start, which met the constraints on the check, is the safer answer
            x, value = start, float(J[at_start])
            oracle.record_best(x, value, replace=True)
            oracle.note(f"auto's answer failed the stochastic constraints on "
                        f"{moved['rows']:,} fresh draws and no local model could restore it: "
                        "the answer is the start, which met them on the final check")
    what = " and ".join(w for w, on in (("stochastic constraints", bool(task.constraints)),
                                        ("whole-number coordinates", task.integer)) if on)
    if declares:
        oracle.note(f"auto ran {solver} in {_epochs(len(ends))} on independent samples under the "
                    f"problem's {what}, and kept the best of {len(candidates)} answers that met "
                    f"them on {per:,} fresh common rows each")
    else:
        kept = (f"kept the best of {len(candidates)} answers on {per:,} fresh common rows "
                "each" if len(candidates) > 1 else f"estimated its answer on {per:,} fresh rows")
        oracle.note(f"auto ran {solver} in {_epochs(len(ends))} on independent sample averages "
                    f"({task.dim_x} dimensions, a budget too small for astro's epochs) and "
                    f"{kept}")
    info.update(final_values=J.tolist(), final_choice=i, final_candidates=candidates.tolist())
    return MethodResult(x=x, value=value, info=info)


def averaged(task: Task, ends: list, rows: list, last: int = FINAL_CANDIDATES) -> np.ndarray:
    """The average of the ``last`` epochs' ends, weighted by their ``rows``, on X: the first
    candidate of auto's final comparison of astro's epochs, and a candidate of the final check of
    COBYQA's epochs without declarations (version 11). Each end is its own independent sample's
    optimum, and the variance of an optimum about the true one falls as one over the rows (hence
    the weights): where a few tail rows own each sample's CVaR, the ends miss in different
    directions and their weighted average misses by less than either (the final check keeps it only
    where its fresh rows rank it first). Measured on the 46 seen cells of ``bench_peers.py``
    (REPRODUCTION.md, "Version 11"): at 5,000 draws the worst seed fell in 18 cells and rose in 4
    (the port 81.7 -> 41.9 %); at 2,000 it fell in 11 and rose in 7. Under declarations the ends
    approach a bound, where an average of points on either side of it may fail the constraints, so
    only the ends are weighed there."""
    w = np.array(rows[-last:], dtype=float)
    return task.project(np.average(np.array(ends[-last:]), axis=0, weights=w))


def first_allowance(rows: int, d: int, available: int, growth: float) -> int:
    """The first epoch's draws without declarations: ``EVALS`` (d + 1) evaluations on its
    rows, but at most ``FIRST_CAP`` of the draws the epochs may spend (and no fewer than
    ``STEPS`` (d + 1) evaluations) where what that leaves holds a second epoch on ``growth``
    times the rows. A first sample whose tail a few rows own (one row of 20 at alpha 0.95)
    must not spend the budget: a second epoch on a larger sample corrects its end; a cap that
    leaves no second epoch would only leave draws unused."""
    full = rows * EVALS * (d + 1)
    capped = min(full, max(rows * STEPS * (d + 1), int(FIRST_CAP * available)))
    return capped if available - capped >= (d + 2) * even(int(rows * growth)) else full


def second_epoch(rows: int, d: int, available: int, growth: float,
                 model: bool = False) -> int:
    """The first sample's rows without stochastic constraints: ``rows``, unless the first
    epoch on them would leave no second epoch on ``growth`` times as many
    (:func:`first_allowance`) and half as many would. One epoch's answer is its one sample's
    optimum, and a first sample whose tail a row or two own leads it astray; a second epoch on
    a new sample, from the first's end in a fresh region, corrects that, and the final check
    weighs both ends (in 12-17 dimensions at 2,000 draws: one epoch on 20 rows, or two on 10
    and 20). A second epoch is d + 2 evaluations (a step of the pattern search on whole
    numbers), or with ``model`` (COBYQA's epochs, auto's version 15) 2 d + 2: COBYQA's first
    model and a step. On fewer, COBYQA spends the epoch on its first model's points, steps of
    half x0 along a few coordinates, and keeps the best of them (in 11 dimensions at 2,000
    draws, 15 evaluations on 40 rows; REPRODUCTION.md, "Version 15")."""
    per = 2 * d + 2 if model else d + 2

    def leaves(r: int) -> bool:
        second = per * even(int(r * growth))
        return available - first_allowance(r, d, available, growth) >= second

    half = even(rows // 2)
    return half if not leaves(rows) and leaves(half) else rows


def resolved(task: Task, sp: SampleProblem, x: np.ndarray) -> bool:
    """Whether the sample ``sp`` tells its best point ``x`` from each of its ``2 d`` nearest
    polled points (in the problem's steps) by two standard errors of the paired difference,
    or shows a difference exact (the noise the same for both on every row, as SimOpt's
    EXAMPLE-2 adds it; a point that costs what ``x`` costs on every row is not told apart):
    then its ranking near its optimum is the truth's, and a larger sample would rank them
    the same. Whole-number searches only (``sp.costs``)."""
    X = np.array([p[0] for p in sp.points])
    at = [k for k, p in enumerate(X) if np.array_equal(p, x)]
    if not at or len(X) < 2:
        return False
    i = at[0]
    dist = np.abs((X - x) / task.steps()).max(axis=1)
    dist[i] = np.inf
    C = np.array(sp.costs)
    for j in np.argsort(dist)[:min(2 * task.dim_x, len(X) - 1)]:
        if np.array_equal(C[j], C[i]):
            return False  # the same cost on every row: these rows cannot tell the two apart
        gain, se = paired_gain(task, C[[j, i]], 0, 1)
        if se > 1e-12 * (abs(gain) + np.abs(C[i]).mean()) and gain <= 2 * se:
            return False
    return True


def _epochs(n: int) -> str:
    return "1 epoch" if n == 1 else f"{n} epochs"


def _units(task: Task, sp: SampleProblem, x: np.ndarray) -> tuple[np.ndarray, float]:
    """The constraints' units (their spread at x on the first sample) and the penalty per
    unit of violation, from x's J and costs: the problem's scale, never the code's."""
    J0 = float(sp(x[None])[0][0])
    scale = spread(sp.first_G) if task.constraints else np.ones(0)
    mu = PENALTY * ((abs(J0) + float(np.std(sp.first_costs))) or 1.0)
    sp.scale, sp.best = scale, None
    sp._consider(x, J0, sp(x[None])[1][0])
    return scale, mu


def start_only(task: Task, oracle: Oracle, x: np.ndarray, why: str) -> MethodResult:
    """``x`` (the start) on every draw of a budget too small for a search: an answer, and a
    note that begins with ``why`` and says so (auto's, with or without declarations)."""
    with oracle.phase("start"):
        value = float(task.objective(oracle.draw(x, oracle.budget), x))
    oracle.record_best(x, value, replace=True)
    oracle.note(f"{oracle.budget:,} draws are too few for {why}: the answer is x0, estimated "
                "on them")
    return MethodResult(x=x, value=value, info={"plan": "x0 only", "chosen": "x0"})


def lead(task: Task, oracle: Oracle, s, allowance: int, stratified: bool = False,
         tail_rows: int = 0) -> tuple[np.ndarray, dict]:
    """COBYQA from the start on one common sample within ``allowance`` draws (what it leaves,
    converged on its sample, goes to the epochs after it): the lead of auto's astro epochs in
    many dimensions, where astro's first models would cost a few thousand draws each before
    the search moves. Its sample is small, sqrt(``LEAD_ROWS`` allowance) rows and at least
    astro's ``n0`` (``s``: auto's settings): it travels, and the epochs after it correct its
    sample's errors on larger ones; ``stratified``: its antithetic pairs a Latin hypercube
    (auto's lead). Its end and a record of it."""
    from acfs_cli.methods.astro import start_point

    x = start_point(task)
    rows = even(max(s.n0, int(math.sqrt(LEAD_ROWS * allowance))))
    used = oracle.used
    sample = oracle.common_sample(rows, antithetic=True, stratified=stratified)
    sp = SampleProblem(task, oracle, sample, None, tail_rows)
    try:
        with oracle.phase("lead"), oracle.allowance(int(allowance)):
            _units(task, sp, x)
            _cobyqa(task, sp, x, RADIUS, int(allowance) // rows)
    except BudgetExhausted:
        pass
    if sp.best is not None:
        x = sp.best[2].copy()
    return x, {"draws": oracle.used - used, "rows": rows, "solver": "COBYQA",
               "evaluations": len(sp.cache)}
