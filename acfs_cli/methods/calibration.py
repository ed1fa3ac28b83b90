"""The calibration of the default's answer under stochastic constraints (DESIGN.md section 4,
"The default under constraints and on whole numbers"): the draws left after the final check,
spent fresh at and near the answer, move it to a margin of those draws from the boundary.

The epochs keep each constraint two standard errors of their own samples inside the bound,
a margin of tens or hundreds of rows; the calibration's thousands of rows measure the
answer's levels far more closely, so the margin can shrink to a few standard errors of
those. Two ways to move, by what the constraints' outputs are:

* **many-valued outputs** (:func:`_on_models`): local linear models of J and of each level,
  fitted through the answer to the points the epochs drew near it on common rows, or where
  the simulator gives the gradients, the last sample's own gradients at the answer
  (:func:`local_models`), give the shortest move that closes the most nearly active slack or
  restores a violated level (:func:`_move`). Two rounds: a quarter of the draws measure the
  answer and move it; the rest measure it where it landed and correct the move, which is
  then short, so the models' error in it is small. The answer keeps two standard errors of
  the last round's draws along fitted planes; along one sample's gradients three, and two
  standard errors of those gradients' error along the move (declarations version 6).
* **few-valued outputs** (an indicator, as SimOpt states a chance constraint; a count;
  :func:`few_valued`): the level of the mean of an indicator stands still between nearby
  decisions on a sample, so no local model of it guides a move. :func:`_on_line` searches one
  line on common rows instead - J's descent where the answer holds, the segment back to the
  start where it fails - and keeps three standard errors of its fresh draws (two for their
  own error, one for the secant of the probes that placed the point).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from acfs_cli.core.feasibility import levels
from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.kernels.pattern import point_key
from acfs_cli.kernels.refine import even

#: A constraint output with at most this many distinct values (apart from its most common
#: one) is few-valued: its level's local model is no guide to a move.
FEW_VALUES = 20
#: Points the line search probes on common rows, and the standard errors of its fresh draws
#: it keeps from the bound: two for those draws' own error and one for the probes' secant.
PROBES, MARGIN = 4, 3.0
#: Share of the draws in the models' first round.
FIRST_ROUND = 0.25
#: Standard errors of a move's predicted change (a sampled gradient's error along the move)
#: each active level keeps from the bound beside its measured margin, and the rounds that
#: solve the move for that margin (a contraction where the gradient is resolved).
MODEL_Z, MODEL_ITERATIONS = 2.0, 20
#: Standard errors of the last round's draws the answer keeps from the bound along fitted
#: planes, and along one sample's gradients at the answer: two for those draws' own error,
#: and with gradients one more for the curvature a gradient at one point cannot see (a
#: longest path that changes along the move), as the line search keeps one for its secant.
PLANES_MARGIN, GRADIENTS_MARGIN = 2.0, 3.0


class Models(NamedTuple):
    """Local linear models at the answer (in the problem's steps, free coordinates)."""

    gJ: np.ndarray  #: J's gradient (d,)
    G: np.ndarray  #: the levels' gradients (m, d)
    reach: float  #: how far the points they were fitted on reach
    reliable: np.ndarray  #: which levels their models resolve (m,)
    cov: np.ndarray | None  #: the covariance (m, d, d) of the levels' gradients' error
    sampled: bool = False  #: the sample's own gradients (else planes fitted through points)


def calibrate(task: Task, oracle: Oracle, x: np.ndarray, problems: list, scale: np.ndarray,
              free: np.ndarray, start: np.ndarray | None) -> tuple[np.ndarray, float, dict]:
    """``x`` moved onto the constraints' boundary on every draw left (-> x, its J, a record
    with ``holds``: whether the answer holds as measured, or as its last move predicts).
    ``problems`` are the epochs' sample problems (their points on common rows), ``scale`` the
    constraints' units, ``free`` the coordinates that may move (the continuous ones) and
    ``start`` where a restoration may head (None: nowhere)."""
    N = even(oracle.available)
    m = even(N // (2 * (PROBES + 1)))
    sample = oracle.common_sample(m)
    c0, G0 = _measure(task, oracle, x, sample=sample)
    fit = local_models(task, x, problems, free)
    if few_valued(G0).any() or not _restores(task, G0, fit, scale):
        return _on_line(task, oracle, x, fit, scale, free, start, sample, c0, G0, N)
    more = even(N * FIRST_ROUND) - m
    if more > 0:  # the first round's rows: a quarter of the draws
        c1, G1 = _measure(task, oracle, x, n=more)
        c0, G0 = np.concatenate([c0, c1]), np.concatenate([G0, G1])
    return _on_models(task, oracle, x, fit, scale, free, c0, G0, N)


def _restores(task: Task, G: np.ndarray, fit: Models | None, scale: np.ndarray) -> bool:
    """Whether x holds on the rows ``G``, or the local models restore it within their
    reach: else the segment back to the start is searched on common rows (:func:`_on_line`),
    as for few-valued outputs. Where the epochs' last points crowd around x, their planes
    reach a thousandth of a step, and a violated answer would stay violated."""
    h = levels(G[None], task.constraints, margin_rows=len(G), z=PLANES_MARGIN)[0]
    if np.all(h <= 0):
        return True
    step = _move(h, fit, scale) if fit is not None else None
    return step is not None and bool(np.all(h + fit.G @ step[0] <= 1e-9 * scale))


def few_valued(G: np.ndarray) -> np.ndarray:
    """Per column of ``G`` (n, m), whether the output is few-valued: apart from its most
    common value (a censored output's zero), at most two distinct values, or at most
    ``FEW_VALUES`` and half as many as the rows that take them; an output that does not vary
    on the rows tells nothing and counts as few-valued."""
    out = np.ones(G.shape[1], dtype=bool)
    for j in range(G.shape[1]):
        values, counts = np.unique(G[:, j], return_counts=True)
        rest = len(G) - counts.max()
        out[j] = len(values) - 1 <= max(2, min(FEW_VALUES, rest / 2))
    return out


def _measure(task: Task, oracle: Oracle, y: np.ndarray, *, sample=None, n: int = 0):
    """The costs and the constraints' values at ``y`` on a common sample or ``n`` fresh
    rows."""
    W = oracle.draw_common(y, sample) if sample is not None else oracle.draw(y, n)
    return (np.asarray(task.cost(W, y), dtype=float),
            np.asarray(task.constraint_values(W, y), dtype=float))


def _on_models(task, oracle, x, fit, scale, free, c, G, N):
    """Two rounds along the local models ``fit``: the drawn rows (c, G) measure x and move
    it; the rest, fresh where it landed, correct the move - or, where it did not move,
    measure x with the first rows and move it once."""
    S = task.steps()
    record = {"rows": len(G), "moved": False, "holds": False, "how": "models"}
    sampled = fit is not None and fit.sampled
    z = GRADIENTS_MARGIN if sampled else PLANES_MARGIN
    here, name = x, None
    for last in (False, True):
        value = float(task.risk(c)[0])
        h = levels(G[None], task.constraints, margin_rows=len(G), z=z)[0]
        record.update(rows=len(G), levels=h.tolist(), holds=bool(np.all(h <= 0)))
        oracle.record_best(here, value, replace=True)
        step = _move(h, fit, scale) if fit is not None else None
        moved = None
        if step is not None:
            moved = here.copy()
            moved[free] = here[free] + S[free] * step[0]
            moved = task.project(moved)
            moved[~free] = here[~free]
            if bool(task.is_feasible(moved)):
                value += float(fit.gJ @ ((moved - here)[free] / S[free]))
                here, name = moved, task.constraints[step[1]]
                oracle.record_best(here, value, replace=True)
                # it holds as its move predicts only where the move reached the bound: a
                # move cut short by the models' reach leaves a violated level violated
                after = h + fit.G @ step[0]
                record.update(moved=True, holds=bool(np.all(after <= 1e-9 * scale)),
                              constraint=name.name)
            else:
                moved = None
        if last or oracle.available < 2:
            break
        c1, G1 = _measure(task, oracle, here, n=even(oracle.available))
        c, G = (c1, G1) if moved is not None else (np.concatenate([c, c1]),
                                                   np.concatenate([G, G1]))
    slope_note = (", and two of the sampled gradients' error along the move" if sampled else
                  ", and two of the fitted planes' error along the move")
    if name is not None:
        oracle.note(f"auto moved its answer onto the boundary of {name.describe()} as "
                    f"measured on {N:,} fresh draws, in two rounds ({_words(z)} standard errors of "
                    "the last round's draws from the bound"
                    f"{slope_note if fit.cov is not None else ''})")
    return here, value, record


def _words(z: float) -> str:
    return {2.0: "two", 3.0: "three"}.get(float(z), f"{z:g}")


def _move(h: np.ndarray, fit: Models, scale: np.ndarray):
    """The move (in the problem's steps, free coordinates) from a point whose levels are
    ``h`` along the local models ``fit``, with the constraint it closes; None for none. The
    shortest move that puts every violated level and the most nearly active one at zero on
    their models, where J falls along it, each of those models resolves its level (a plane
    that explains half of its change) and no other constraint's model passes zero, within
    the reach of the fitted points.

    A gradient estimated on a sample's few rows predicts the change along the move with an
    error of its own, which grows with the move: where the models carry their covariance,
    each active level is put ``MODEL_Z`` standard errors of its predicted change below zero
    as well (the move solved again for that margin, which shortens it; a model too noisy to
    restore a violated level within its reach moves no further than its reach)."""
    gJ, G, reach, reliable, cov, _ = fit
    a = int(np.argmax(h / scale))
    active = sorted({a, *np.flatnonzero(h > 0).tolist()})
    if not all(reliable[j] for j in active) or not np.any(G[active]):
        return None  # a level the epochs' points do not resolve: no move on such a model
    inverse = np.linalg.pinv(G[active])
    step = -inverse @ h[active]
    if cov is not None:
        for _ in range(MODEL_ITERATIONS):
            extra = MODEL_Z * np.sqrt(np.maximum(
                np.einsum("d,jde,e->j", step, cov[active], step), 0.0))
            nxt = -inverse @ (h[active] + extra)
            done = np.linalg.norm(nxt - step) <= 1e-9 * (np.linalg.norm(step) + 1e-300)
            step = nxt
            if done or np.linalg.norm(step) > reach:
                break
    if h[a] < 0 and gJ @ step >= 0:
        return None  # closing the slack would not lower J: no active constraint
    t = 1.0
    for k in range(len(h)):
        if k not in active and G[k] @ step > 0 and h[k] < 0:
            t = min(t, -h[k] / float(G[k] @ step))
    length = float(np.linalg.norm(t * step))
    if length > reach:
        t *= reach / length
    return t * step, a


def _on_line(task, oracle, x, fit, scale, free, start, sample, c0, G0, N):
    """One line searched on common rows, where a constraint's output is few-valued: J's
    descent (its local model) where x holds, the segment back to ``start`` where it fails.
    ``PROBES`` points on the common ``sample`` (x's rows, c0 and G0, drawn; common rows
    measure the level's change along the line free of the sample's noise) bracket the point
    whose level is ``MARGIN`` standard errors of the remaining draws below the bound; those
    draws, fresh at that point, measure it, and a last move along the probes' secant puts it
    at that margin of them (by at most the probes' span)."""
    m = len(G0)
    rest = N - (PROBES + 1) * m
    S, cons = task.steps(), task.constraints
    record = {"rows": rest, "moved": False, "holds": False, "how": "line", "line": None}

    def level(G, rows):
        return float(np.max(levels(G[None], cons, margin_rows=rows, z=MARGIN)[0] / scale))

    J0 = float(task.risk(c0)[0])
    holds = level(G0, rest) <= 0
    if holds and fit is not None and np.any(fit.gJ):
        d = -fit.gJ / np.linalg.norm(fit.gJ)
        t_good, t_bad, t = 0.0, None, max(fit.reach, 1e-3)
        record["line"] = "descent"
    elif not holds and start is not None:
        d = (start - x)[free] / S[free]
        t_good, t_bad, t = 1.0, 0.0, 1.0
        record["line"] = "restore"
    else:  # no line to follow: the answer, measured on every draw left
        c, G = _measure(task, oracle, x, n=even(oracle.available))
        c, G = np.concatenate([c0, c]), np.concatenate([G0, G])
        value = float(task.risk(c)[0])
        record.update(rows=len(G), holds=bool(level(G, len(G)) <= 0))
        oracle.record_best(x, value, replace=True)
        return x, value, record

    def point(t):
        y = x.copy()
        y[free] = x[free] + S[free] * t * d
        y = task.project(y)
        y[~free] = x[~free]
        return y

    descent = record["line"] == "descent"
    # t -> (J, level at the final margin) on the common rows
    seen = {0.0: (J0, level(G0, rest))}
    for _ in range(PROBES):
        y = point(t)
        if not bool(task.is_feasible(y)):
            break
        c, G = _measure(task, oracle, y, sample=sample)
        seen[t] = (float(task.risk(c)[0]), level(G, rest))
        good = [u for u, v in seen.items() if v[1] <= 0]
        bad = [u for u, v in seen.items() if v[1] > 0]
        if good:
            t_good = (max if descent else min)(good)
        t_bad = (min if descent else max)(bad) if bad else None
        if t_bad is None:
            t = 4.0 * t  # no bound met yet along the descent: reach further
        elif not good:
            t = 0.5 * (t_bad + t_good)
        else:
            a, b = seen[t_good][1], seen[t_bad][1]
            w = float(np.clip(-a / (b - a), 0.1, 0.9)) if b > a else 0.5
            t = t_good + w * (t_bad - t_good)
    bracket = t_bad is not None and t_good in seen and seen[t_good][1] <= 0
    if bracket:
        a, b = seen[t_good][1], seen[t_bad][1]
        t = t_good + (float(-a / (b - a)) if b > a else 0.0) * (t_bad - t_good)
    else:
        t = t_good
    y = point(t)
    c, G = _measure(task, oracle, y, n=rest)
    J, h = float(task.risk(c)[0]), level(G, rest)
    record.update(rows=rest, levels=[h], step=float(t), probes=len(seen) - 1)
    ends = (t_good, t_bad) if bracket else tuple(sorted(seen, key=abs)[-2:])
    if h > 0 and len(ends) == 2 and ends[0] != ends[1]:
        # it fails on the fresh draws: back along the probes' secant to the margin of those
        # draws, by at most the probes' span (past x on the descent: the probes' rows may
        # have flattered it too)
        u, v = ends
        slope = (seen[v][1] - seen[u][1]) / (v - u)
        if slope != 0:
            span = abs(v - u)
            back = float(np.clip(t - h / slope, t - span, t + span))
            if not descent:
                back = min(back, 1.0)
            J += (seen[v][0] - seen[u][0]) / (v - u) * (back - t)
            t, y, h = back, point(back), 0.0
            record.update(step=t)
    record.update(holds=bool(h <= 0), moved=bool(t != 0.0))
    oracle.record_best(y, J, replace=True)
    if record["moved"]:
        what = "onto the boundary of" if descent else "back inside"
        oracle.note(f"auto moved its answer {what} the stochastic constraints along a line "
                    f"searched on {PROBES} points on common rows, to three standard errors of "
                    f"{rest:,} fresh draws at it from the bound (few-valued outputs: no local "
                    "model of their levels)")
    return y, J, record


def local_models(task: Task, x: np.ndarray, problems: list, free: np.ndarray):
    """Gradients (in the problem's steps, free coordinates) of J and of each level at ``x``:
    least squares through x over its nearest points on the largest sample that drew x
    (common rows: differences free of the sample's noise), or where the simulator gives the
    gradients, that sample's own at x; None where they do not determine a model. Also the
    reach of those points (with gradients, a step where x has no neighbour), which models
    resolve their levels, and with gradients the covariance (m, d, d) of the levels'
    gradients (None for fitted planes, whose common rows difference the noise away)."""
    key = point_key(x)
    holding = [sp for sp in problems if key in sp.cache]
    if not holding:
        return None
    sp = max(holding, key=lambda p: p.sample.n)
    S = task.steps()[free]
    J0, L0 = sp.cache[key]
    pts = [(p[free] - x[free]) / S for p, _, _ in sp.points]
    dist = np.array([np.linalg.norm(v) for v in pts])
    order = [i for i in np.argsort(dist) if dist[i] > 0][: 2 * int(free.sum()) + 2]
    if sp.gradients is not None and key in sp.gradients:
        gJ, gL = sp.gradients[key]
        reach = float(dist[order].max()) if order else 1.0
        cov = sp.gradient_cov[key][:, free][:, :, free] * np.outer(S, S)
        return Models(gJ[free] * S, gL[:, free] * S, reach, np.ones(len(L0), dtype=bool), cov,
                      sampled=True)
    if len(order) < int(free.sum()) + 1:
        return None
    D = np.array([pts[i] for i in order])
    if np.linalg.matrix_rank(D) < D.shape[1]:
        return None
    dJ = np.array([sp.points[i][1] - J0 for i in order])
    dL = np.array([sp.points[i][2] - L0 for i in order])
    gJ = np.linalg.lstsq(D, dJ, rcond=None)[0]
    G = np.linalg.lstsq(D, dL, rcond=None)[0].T
    # a plane that explains most of a level's change near x
    resid = dL - D @ G.T
    explained = 1.0 - (resid**2).sum(axis=0) / np.maximum((dL**2).sum(axis=0), 1e-300)
    reliable = explained >= 0.5
    at = next(i for i, p in enumerate(sp.points) if point_key(p[0]) == key)
    return Models(gJ, G, float(dist[order].max()), reliable, planes_error(sp, order, at, D))


def planes_error(sp, order: list, at: int, D: np.ndarray) -> np.ndarray | None:
    """The covariance (m, d, d) of the expectation constraints' fitted planes as the error of
    the sample's slope (zeros for chance constraints; None where the sample kept no rows):
    the same least squares through each row's own outputs gives each row's plane, and the
    fitted plane is their mean. Common rows difference the sample's level away, not the
    error of its slope: a plane fitted on 40 rows of the library's staffing problem had 0.64
    and 0.51 of the true slopes, and a move that closed the slack along it overshot the bound
    (DESIGN.md section 4)."""
    if sp.mean_rows is None:
        return None
    R = np.stack([sp.mean_rows[i] - sp.mean_rows[at] for i in order])  # (k, n, m)
    n = R.shape[1]
    if n < 2:
        return None
    slopes = np.einsum("dk,knm->nmd", np.linalg.pinv(D), R)
    dev = slopes - slopes.mean(axis=0)
    return np.nan_to_num(np.einsum("nmd,nme->mde", dev, dev) / ((n - 1) * n))


