"""ASTRO: an adaptive-sampling trust-region method on common random numbers, for small budgets.

ASTRO-DF (Shashaani, Hashemi & Pasupathy 2018, SIAM J. Optim. 28(4); Ha & Shashaani 2023)
rebuilt on the project's oracle and estimator: a start x0, a range that may be open, a budget
of a few thousand draws; it answers from ``2 (dim + 2)`` draws, steps in units of x0 (the
task's steps, DESIGN.md section 7), never of the box. Every J is estimated on one growing
common sample (:mod:`acfs_cli.kernels.growing_sample`); models and their steps draw nothing
(:mod:`acfs_cli.kernels.local_model`). An iteration (:meth:`TrustRegion.iterate`):

1. **Model** in the region |x_j - x_c,j| <= delta u_j: a quadratic with a diagonal Hessian
   (cross terms once the points outnumber a full quadratic's parameters) through the centre,
   fitted to the points already drawn within ``reach`` radii plus the stencil points a
   D-optimal criterion finds it short of; linear with a damped-BFGS curvature where the
   budget holds fewer than ``min_models`` quadratic models; with the simulator's pathwise
   gradient, the estimator's own gradient (Hong & Liu 2009 for the CVaR part) and BFGS.
2. **Adaptive sampling**: rows are added (the oracle's ``extend``) while the standard error
   of the model's gradient exceeds ``kappa`` times the norm of its part that acts in X (Byrd,
   Chin, Nocedal & Wu 2012), within ``growth_max`` an iteration and while the budget pays for
   ``future`` more iterations on the larger sample.
3. **Step**: the model's minimiser over the region and the steepest-descent step, projected
   onto X. A model in which no descent acts in X has converged on this sample: the sample
   grows (or the search ends) at once, not after narrowing the region for nothing.
4. **Ratio test** on the same rows; a drawn point better than the candidate replaces it.
   On a model the rows do not resolve a decrease must also be significant; one the model
   predicted but the rows cannot tell from noise asks for more rows, and where the budget
   allows none the sample problem's step is taken (narrowing only made the next test
   harder: at a corner of DGP2 the region narrowed to 1e-7 around a point 12 % above the
   optimum). A region narrowed below ``radius_min`` reopens on a larger sample.

The simulator's gradient is checked against central differences on common rows at the start
and where its steps fail (:mod:`acfs_cli.kernels.gradient_check`); where they disagree the
search notes it and goes on without it. The centre is the incumbent; a budget stop returns
it. ``auto`` runs this search in epochs (:mod:`acfs_cli.methods.auto`); DESIGN.md section 4
says why each rule, REPRODUCTION.md what it measures.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import stdtrit

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.risk import search_level
from acfs_cli.core.task import Task
from acfs_cli.kernels.gradient_check import GradientCheck
from acfs_cli.kernels.growing_sample import GrowingSample, Point, gradient_influence, values
from acfs_cli.kernels.local_model import (
    Model,
    Region,
    columns,
    damped_bfgs,
    design,
    fit,
    norm_test,
)
from acfs_cli.methods.astro_settings import AstroSettings
from acfs_cli.methods.base import Method, MethodResult

#: Standard errors of J by which the second half of a search's draws must lower it for a search
#: the budget ended to count as still moving (limited by the budget rather than by the noise).
MOVING = 2.0


def start_point(task: Task) -> np.ndarray:
    """``task.x0`` when the task has one (projected if it is not feasible), else the projection
    of the box centre, with 0 for a coordinate whose box is infinite on either side."""
    x0 = getattr(task, "x0", None)
    if x0 is not None:
        x0 = np.asarray(x0, dtype=float).reshape(task.dim_x)
        if np.all(np.isfinite(x0)) and bool(task.is_feasible(x0)):
            return x0.copy()
        return task.project(np.nan_to_num(x0, nan=0.0, posinf=0.0, neginf=0.0))
    lo, hi = (np.asarray(v, dtype=float) for v in task.box())
    finite = np.isfinite(lo) & np.isfinite(hi)
    centre = np.where(finite, 0.5 * (np.where(finite, lo, 0.0) + np.where(finite, hi, 0.0)), 0.0)
    return task.project(centre)


class Stop(Exception):  # noqa: N818 - the search's end, not an error
    """The search ends; the message says why."""


class TrustRegion:
    """One search: the sample and its points, the centre and the radius, and the steps."""

    def __init__(self, task: Task, oracle: Oracle, s: AstroSettings, start=None,
                 stratified: bool = False, tail_rows: int = 0):
        gradient = getattr(task, "gradient", None) if s.use_gradient else None
        self.gradient = gradient if callable(gradient) else None
        self.task, self.oracle, self.s, self.d = task, oracle, s, task.dim_x
        # rows the sample objective's CVaR weighs at least (core.risk.search_level)
        self.tail_rows = tail_rows
        self.x0 = start_point(task) if start is None else np.asarray(start, dtype=float)
        self.u, self.delta = task.steps(), s.radius0
        self.budget = budget = oracle.available
        self.quadratic = self.gradient is None and s.quadratic(budget, self.d)
        self.per_model = s.points_per_model(budget, self.d, self.gradient is not None)
        # four models on the first sample at least (centre included once)
        self.n0 = int(max(2, min(s.n0, (budget - 1) // (4 * self.per_model))))
        # pairs halve the independent units: on a first sample of fewer than eight rows they
        # would leave too few for a standard error
        pairs = s.antithetic and task.has_transform and self.n0 >= 8
        self.samples = GrowingSample(task, oracle, self.gradient, antithetic=pairs,
                                     stratified=pairs and stratified)
        self.centre: Point | None = None
        self.f_c = np.nan
        self.spent = self.rows_spent = self.grown = 0  # iterations' draws and rows; growth's
        self.iterations = self.accepted = self.direct = self.growths = self.restarts = 0
        self.halfway: tuple[float, float] | None = None  # (J, its SE) at half the draws
        self.H: np.ndarray | None = None  # BFGS curvature in scaled units
        self.last: tuple | None = None  # (centre, model gradient, rows) of the last model
        self.check = GradientCheck(s.gradient_check, budget)
        self.gradient_dropped = False

    # -- the search --------------------------------------------------------------------------
    def run(self) -> MethodResult:
        """Start at x0 and iterate until the budget, or the search, ends."""
        with self.oracle.phase("start"):
            self.samples.grow(self.n0)
            centre = self.samples.point(self.x0, self.tol())
            self.samples.cover([centre], self.samples.n)
            self.move(centre, values(self.task, [centre], self.samples.n,
                                     self.tail_rows)[0][0])
        # An iteration that draws nothing is a function of the search's state: meeting a
        # state again before the next draw means the search would cycle there for ever (on a
        # cost flat at the rows drawn, widening for lack of signal and narrowing for lack of
        # a decrease alternate), so it has converged on this sample.
        seen: set[tuple] = set()
        try:
            while True:
                before, grown = self.oracle.used, self.grown
                state = self.state()
                if state in seen:
                    seen.clear()
                    self.reopen("converged: the region cycles without drawing")
                    continue
                seen.add(state)
                self.iterate()
                if self.oracle.used > before:
                    seen.clear()
                    self.mark_halfway()
                    self.spent += self.oracle.used - before - (self.grown - grown)
                    self.rows_spent += self.samples.n
        except Stop as stop:
            reason = str(stop)
        return MethodResult(x=self.centre.x.copy(), value=self.f_c, info=self.summary(reason))

    def mark_halfway(self) -> None:
        """The centre's J and its standard error when half the search's draws are spent: what
        the second half gained, against that error, tells a search the budget ended while it
        still moved from one the noise held."""
        if self.halfway is None and self.oracle.available <= self.budget / 2:
            m = self.samples.rows_of(self.centre)
            f, psi = values(self.task, [self.centre], m, self.tail_rows)
            units = self.samples.units(psi[0], m)
            se = float(units.std(ddof=1) / math.sqrt(units.size)) if units.size > 1 else np.inf
            self.halfway = (float(f[0]), se)

    def iterate(self) -> None:
        if self.gradient is not None:
            self.gradient_iteration()
        else:
            self.model_iteration()

    def model_iteration(self) -> None:
        """A model on the points drawn in the region plus the stencil points it lacks,
        adaptive sampling, step, ratio test."""
        task, s, samples = self.task, self.s, self.samples
        with self.oracle.phase("model"):
            pts, m = self.affordable_model()
            samples.cover(pts, m)
            trusted = False
            for attempt in range(2):  # one extension per iteration at most (by growth_max)
                f, psi = values(task, pts, m, self.tail_rows)
                design_pts = pts[1:]
                Y = np.array([self.scaled(p.x) for p in design_pts]).reshape(-1, self.d)
                model, rows = fit(Y, samples.units(psi[1:] - psi[0], m),
                                  self.kind(len(design_pts)), self.delta)
                y_t, x_t, pred = self.region().candidate(model)
                norm, se = self.norm_test(rows)
                signal = max(pred, float(np.max(np.abs(f[1:] - f[0]))) if design_pts else 0.0)
                trusted = se <= s.kappa * norm and m >= s.trust_rows
                if trusted or m != samples.n or attempt:
                    break
                # more rows for the points a poised model needs; the others are left behind
                keep = self.poised(design_pts)
                ratio = (se / (s.kappa * norm)) ** 2 if norm > 0 else s.growth_max
                if not self.grow_to([self.centre, *keep], ratio, extra=1):
                    break
                pts, m = [self.centre, *keep], samples.n
            if not self.quadratic:
                model, (y_t, x_t, pred) = self.with_curvature(model, m, (y_t, x_t, pred))
        self.iterations += 1
        if signal == 0.0:
            # the region is below what the rows resolve (a discrete simulator: no row's cost
            # moved): more rows if they can be had, else a wider region
            if m == samples.n and self.grow_to(pts, s.growth_max, extra=1):
                return
            if self.delta >= s.radius_max:
                raise Stop("converged: no row's cost moves within the largest region")
            self.delta = min(self.delta * s.expand, s.radius_max)
            return
        with self.oracle.phase("candidate"):
            cand, psi_t, f_t = None, None, np.inf
            if pred > 0 and x_t is not None:
                cand = samples.point(x_t, self.tol())
                if samples.cost_of([cand], m) > self.oracle.available:
                    raise Stop("budget spent: what is left cannot pay for the candidate")
                samples.cover([cand], m)
                f_t, psi_t = (v[0] for v in values(task, [cand], m, self.tail_rows))
                y_t = self.scaled(cand.x)
            f_c = float(f[0])
            best = int(np.argmin(f[1:])) + 1 if design_pts else 0
            if s.direct_search and best and f[best] < f_c and (cand is None or f[best] < f_t):
                # a drawn point beats the candidate: taken as a step whose model decrease is
                # the model's value there
                cand, f_t, psi_t = design_pts[best - 1], float(f[best]), psi[best]
                y_t = self.scaled(cand.x)
                pred = max(-model.value(y_t), f_c - f_t)
                self.direct += 1
            if cand is None:
                if norm == 0.0:
                    self.reopen("converged: no descent acts in X on this sample")
                else:
                    self.narrow()
                return
            self.ratio_test(cand, float(f_t), f_c, pred, samples.units(psi_t - psi[0], m), y_t,
                            m, trusted)
            self.prune()

    def gradient_iteration(self) -> None:
        """A BFGS model on the simulator's gradient at the centre, the norm test for the
        rows, the step and the ratio test on common rows."""
        task, s, samples = self.task, self.s, self.samples
        with self.oracle.phase("model"):
            m = self.rows_for([self.centre], extra=1)
            if m is None:
                raise Stop("budget spent: what is left cannot pay for another candidate")
            samples.cover([self.centre], m)
            if self.check.due(self.centre, m) and not self.gradient_agrees(m):
                return
            trusted = False
            for attempt in range(2):  # one extension per iteration at most (by growth_max)
                gam = gradient_influence(self.centre.costs[:m], self.centre.grads[:m],
                                         task.lam, self.level(m)) * self.u
                g = gam.mean(axis=0)
                norm, se = self.norm_test(samples.units(gam.T, m).T)
                trusted = se <= s.kappa * norm and m >= s.trust_rows
                if trusted or m != samples.n or attempt:
                    break
                ratio = (se / (s.kappa * norm)) ** 2 if norm > 0 else s.growth_max
                if not self.grow_to([self.centre], ratio, extra=1):
                    break
                m = samples.n
            f_c = float(values(task, [self.centre], m, self.tail_rows)[0][0])
        self.iterations += 1
        model = Model(g=g, h=self.H)
        y_t, x_t, pred = self.region().candidate(model)
        if x_t is None:
            self.narrow()
            return
        with self.oracle.phase("candidate"):
            cand = samples.point(x_t, self.tol())
            if samples.cost_of([cand], m) > self.oracle.available:
                raise Stop("budget spent: what is left cannot pay for the candidate")
            samples.cover([cand], m)
            f_t = float(values(task, [cand], m, self.tail_rows)[0][0])
            g_t = (gradient_influence(cand.costs[:m], cand.grads[:m], task.lam, self.level(m))
                   * self.u).mean(axis=0)
            self.H = damped_bfgs(self.H, y_t, g_t - g)
            _, psi = values(task, [self.centre, cand], m, self.tail_rows)
            self.ratio_test(cand, f_t, f_c, pred, samples.units(psi[1] - psi[0], m), y_t, m,
                            trusted)
        self.check.step(moved=self.centre is cand)
        self.prune()

    # -- the model's points and rows -----------------------------------------------------------
    def affordable_model(self) -> tuple[list[Point], int]:
        """The points of the next model (centre, drawn points in reach, new stencil points)
        and its rows: the whole sample when the budget pays for them and a candidate, else
        the largest prefix it pays for down to ``tail_fraction`` of the sample."""
        samples = self.samples
        for m in reversed(samples.ends):
            if m < self.s.tail_fraction * samples.n and m != samples.n:
                break
            live, new = self.model_points(m)
            pts = [self.centre, *live, *new]
            if samples.cost_of(pts, m) + m <= self.oracle.available:
                return pts, m
            fresh = {id(p) for p in new}
            samples.forget([p for p in samples.points if id(p) not in fresh])
        raise Stop("budget spent: what is left cannot pay for another model")

    def model_points(self, m: int) -> tuple[list[Point], list[Point]]:
        """The points a model on the first ``m`` rows uses: those already drawn in the
        region, and the stencil points the design criterion adds (new, not yet drawn)."""
        live = [p for p in self.samples.points if p is not self.centre and p.chunks
                and self.samples.rows_of(p) >= m
                and np.max(np.abs(self.scaled(p.x))) <= self.s.reach * self.delta]
        kind = "diagonal" if self.quadratic else "linear"
        Yl = np.array([self.scaled(p.x) for p in live]).reshape(-1, self.d)
        S = self.region().stencil(self.quadratic)
        if not self.s.reuse:
            live, Yl = [], Yl[:0]
        Ys = (S - self.centre.x) / self.u
        chosen = design(columns(Yl / self.delta, kind), columns(Ys / self.delta, kind),
                        self.s.design_limit) if len(S) else []
        return live, [self.samples.point(S[i], self.tol()) for i in chosen]

    def rows_for(self, points: list[Point], extra: int) -> int | None:
        """The rows an iteration works on: the whole sample when the budget pays for covering
        ``points`` on it plus ``extra`` new points, else the largest prefix it pays for (down
        to ``tail_fraction`` of the sample), else None."""
        samples = self.samples
        for m in reversed(samples.ends):
            if m < self.s.tail_fraction * samples.n and m != samples.n:
                break
            if samples.cost_of(points, m) + extra * m <= self.oracle.available:
                return m
        return None

    def grow_to(self, points: list[Point], ratio: float, extra: int) -> bool:
        """Extend the sample by the factor the rule asks for (within [1.5, growth_max]) and
        cover ``points`` on it; False when it cannot grow.

        The budget bounds the growth: the new rows of ``points`` and ``future`` more
        iterations on the larger sample (at the draws per row an iteration has cost so far)
        must fit in what is left, so the sample ends as large as the budget allows and a few
        iterations still run on it.
        """
        s, samples = self.s, self.samples
        n = samples.n
        want = min(int(math.ceil(n * min(max(ratio, 1.5), s.growth_max))), s.n_max)
        k = len({id(p) for p in points})
        # an iteration's draws per row: as measured, but at least half a full model's,
        # since a larger sample leaves the drawn points behind and the stencil is drawn anew
        per_row = (self.spent / self.rows_spent if self.rows_spent
                   else self.per_model + 1.0)
        ahead = max(s.future * max(per_row, 0.5 * (self.per_model + 1)), extra)
        while want > n:
            if samples.cost_of(points, n) + k * (want - n) + ahead * want <= (
                    self.oracle.available):
                break
            want = n + (want - n) // 2 if want - n > 1 else n
        if want < 1.2 * n:
            return False
        before = self.oracle.used
        with self.oracle.phase("model"):
            samples.grow(want)
            samples.cover(points, samples.n)
        self.grown += self.oracle.used - before
        self.growths += 1
        return True

    def poised(self, design_pts: list[Point]) -> list[Point]:
        """A subset of the design that determines the model as well as the design criterion
        asks (the points worth extending to more rows)."""
        if not design_pts:
            return []
        kind = "diagonal" if self.quadratic else "linear"
        Y = np.array([self.scaled(p.x) for p in design_pts]) / self.delta
        chosen = design(np.zeros((0, columns(Y[:1], kind).shape[1])), columns(Y, kind),
                        self.s.design_limit)
        return [design_pts[i] for i in sorted(chosen)]

    def kind(self, points: int) -> str:
        """The richest model the points determine: the cross terms join a quadratic model
        when the points outnumber its parameters by ``cross_margin``."""
        if not self.quadratic:
            return "linear"
        full = self.d * (self.d + 3) // 2
        return "full" if self.d > 1 and points >= full + self.s.cross_margin else "diagonal"

    def with_curvature(self, model: Model, m: int, step: tuple) -> tuple[Model, tuple]:
        """A linear model's curvature: damped BFGS from the gradients of successive centres
        on the same rows, and the step the curved model proposes."""
        last = self.last
        if last is not None and last[0] is not self.centre and last[2] == m:
            self.H = damped_bfgs(self.H, (self.centre.x - last[0].x) / self.u,
                                 model.g - last[1])
        self.last = (self.centre, model.g, m)
        if self.H is None:
            return model, step
        model = Model(g=model.g, h=self.H)
        return model, self.region().candidate(model)

    def norm_test(self, rows: np.ndarray) -> tuple[float, float]:
        """The norm test on per-row gradients (m, d) at the centre (:func:`norm_test`)."""
        return norm_test(rows, self.centre.x, self.u, self.task.box(), self.task.tangent)

    # -- moves of the region ---------------------------------------------------------------------
    def ratio_test(self, cand: Point, f_t: float, f_c: float, pred: float, dpsi: np.ndarray,
                   y_t: np.ndarray, m: int, trusted: bool) -> None:
        """Move to ``cand`` when its decrease is at least ``eta1`` of the predicted one (and,
        on a model the rows do not resolve, significant at ``accept_level``), widen the
        region after a very successful step that reached its edge, narrow it otherwise.

        Widening does not wait for a model the rows resolve (ASTRO-DF's rule): at a few rows
        per point none is, and a region held at its first radius travels that radius a step
        (REPRODUCTION.md, SimOpt's testbed). A decrease the model predicted but the rows
        cannot tell from noise asks for more rows; where the budget allows none, the sample
        problem's step is taken (narrowing would only make the next test harder)."""
        s = self.s
        rho = (f_c - f_t) / pred if pred > 0 else -np.inf
        k = dpsi.size  # independent units: rows, or antithetic pairs
        se = float(dpsi.std(ddof=1) / math.sqrt(k)) if k > 1 else np.inf
        significant = trusted or (
            k > 1 and f_c - f_t >= float(stdtrit(k - 1, 1.0 - s.accept_level)) * se)
        if rho >= s.eta1 and not significant and m >= s.trust_rows:
            if m == self.samples.n and self.grow_to([self.centre, cand], s.growth_max, 1):
                return
            significant = True
        if rho >= s.eta1 and significant:
            self.accept(cand, f_t, m)
            if rho >= s.eta2:
                reach = float(np.max(np.abs(y_t)))
                self.delta = min(max(self.delta, s.expand * reach), s.radius_max)
        else:
            self.narrow()

    def accept(self, p: Point, value: float, m: int) -> None:
        self.accepted += 1
        if m != self.samples.n:
            # decided on a prefix: the new centre's value on every row it has
            value = float(values(self.task, [p], self.samples.rows_of(p),
                                 self.tail_rows)[0][0])
        self.move(p, value)

    def level(self, m: int) -> float:
        """The CVaR level the search weighs its first ``m`` rows at
        (:func:`acfs_cli.core.risk.search_level`)."""
        return search_level(self.task.alpha, m, self.tail_rows)

    def move(self, p: Point, value: float) -> None:
        self.centre, self.f_c = p, float(value)
        self.oracle.record_best(p.x, value, replace=True)

    def narrow(self) -> None:
        """Narrow the region; below ``radius_min`` the search has converged on this sample."""
        self.delta *= self.s.shrink
        if self.delta < self.s.radius_min:
            self.reopen("converged: the trust region narrowed below radius_min")

    def reopen(self, why: str) -> None:
        """The search has converged on this sample: with budget left, a larger sample (the
        optimum of a larger sample lies elsewhere, by its sampling error) and a region of a
        quarter of the first radius; without, the end (``why``)."""
        samples = self.samples
        if not (samples.n == samples.rows_of(self.centre) and self.grow_to(
                [self.centre], self.s.growth_max, extra=2 * self.d + 1)):
            raise Stop(why)
        self.f_c = float(values(self.task, [self.centre], samples.n, self.tail_rows)[0][0])
        self.delta = max(self.s.radius0 / 4, self.s.radius_min)
        self.restarts += 1

    def prune(self) -> None:
        """Keep the centre and the most recent points near it (their costs are the memory)."""
        near = [p for p in self.samples.points if p is not self.centre and np.max(
            np.abs(self.scaled(p.x))) <= 2 * self.s.reach * self.delta]
        self.samples.forget([self.centre, *near[-self.s.memory * (self.d + 1):]])

    # -- the simulator's gradient ------------------------------------------------------------
    def gradient_agrees(self, m: int) -> bool:
        """Check the gradient against central differences over the region at the centre
        (:mod:`acfs_cli.kernels.gradient_check`); where they disagree, note it and go on
        with derivative-free models, which the points drawn for the check then serve."""
        found = self.check.run(self.task, self.oracle, self.samples, self.centre,
                               self.delta * self.u, self.u, m, self.tol(), self.tail_rows)
        if found is None:
            return True
        self.oracle.note(f"{found.describe(self.centre.x)}; astro goes on without it")
        self.gradient = self.samples.gradient = None
        self.quadratic = self.s.quadratic(self.oracle.available, self.d)
        self.per_model = self.s.points_per_model(self.oracle.available, self.d, False)
        self.H, self.last, self.gradient_dropped = None, None, True
        return False

    # -- what the search reads -------------------------------------------------------------
    def tol(self) -> float:
        return 1e-12 * max(1.0, float(np.max(np.abs(self.u))))

    def scaled(self, x: np.ndarray) -> np.ndarray:
        return (x - self.centre.x) / self.u

    def region(self) -> Region:
        return Region(self.centre.x, self.u, self.delta, self.task.project, self.task.box())

    def state(self) -> tuple:
        """What a draw-free iteration reads: centre, radius, sample, curvature."""
        return (id(self.centre), self.centre.x.tobytes(), self.f_c, self.delta,
                self.samples.n, len(self.samples.points), self.oracle.used, self.restarts,
                self.quadratic, None if self.H is None else self.H.tobytes())

    def summary(self, reason: str) -> dict:
        return {
            "stop_reason": reason, "x0": self.x0.tolist(), "unit": self.u.tolist(),
            "model": "gradient" if self.gradient is not None else (
                "quadratic" if self.quadratic else "linear"),
            "gradient_dropped": self.gradient_dropped, "iterations": self.iterations,
            "accepted": self.accepted, "direct_search_steps": self.direct,
            "sample_growths": self.growths, "restarts": self.restarts,
            "rows": self.samples.n, "rows_first": self.n0, "radius": self.delta,
            "moving": reason.startswith("budget") and self.halfway is not None and (
                self.halfway[0] - self.f_c > MOVING * self.halfway[1]),
        }


def search(task: Task, oracle: Oracle, s: AstroSettings, rng: np.random.Generator | None = None,
           start: np.ndarray | None = None, stratified: bool = False,
           tail_rows: int = 0) -> MethodResult:
    """One ASTRO search from ``start`` (default: x0, :func:`start_point`) on the draws
    ``oracle`` makes available; ``stratified``: its antithetic pairs a Latin hypercube in
    each chunk (:func:`acfs_cli.core.sample.stratified_pairs`; auto's epochs);
    ``tail_rows``: rows its sample objective's CVaR weighs at least
    (:func:`acfs_cli.core.risk.search_level`; auto's epochs, 0 for astro itself). ``rng`` is
    unused: the search draws no random numbers of its own."""
    return TrustRegion(task, oracle, s, start, stratified, tail_rows).run()


def note_if_moving(oracle: Oracle, info: dict) -> None:
    """Say so where the budget, not the noise, ended a search: it still took steps when the
    draws ran out, so more of them would likely move the answer further."""
    if info.get("moving"):
        oracle.note(f"still moving when the draws ran out (its second half of the draws "
                    f"lowered J by more than {MOVING:g} standard errors of J): the answer is "
                    f"limited by the budget rather than by the noise, and more draws would "
                    f"likely improve it")


def _search(task: Task, oracle: Oracle, s: AstroSettings, rng: np.random.Generator | None = None
            ) -> MethodResult:
    result = search(task, oracle, s, rng)
    note_if_moving(oracle, result.info)
    return result


ASTRO = Method(
    name="astro",
    version="4",
    display="ASTRO",
    settings_model=AstroSettings,
    search=_search,
    summary="adaptive-sampling trust region on one growing common sample (ASTRO-DF): "
    "coordinate-stencil models (or the simulator's pathwise gradient with BFGS, checked "
    "against differences on common rows), rows added until the paired errors are small "
    "against the model's signal; starts from x0, steps in the task's units (|x0| where a "
    "start is known); answers from 2 (dim + 2) draws",
    sample_only="common samples by re-seeding, extended chunk by chunk; nothing else changes",
)
