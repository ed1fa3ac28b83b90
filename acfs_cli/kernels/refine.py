"""Retrospective refinement: growing common samples, a projected pattern search on each, and
a guarded median-of-means pick among the ends.

Composed by ``saa-ps`` (after its screen and CEM), by phase 4 of ``acfs-plus`` (from the
stage-2 seeds) and, in part, by the reference optima (the screen, CEM from it and distinct
starts for their pattern searches). The pieces:

* :func:`screen`: a design estimated on one common sample and ranked;
  :func:`cem_from_screen`: the cross-entropy loop from the best screened decisions;
* :func:`distinct`: the first rows of a best-first list that lie far enough apart;
* :func:`refine_sizes`: the first search sample and the rows per final candidate for the
  draws left;
* :func:`stage`: one common sample, the best start on it, an L-BFGS-B polish on
  common-random-number differences, then the shared pattern search
  (:mod:`acfs_cli.kernels.pattern`);
* :func:`retrospective`: stages on independent samples of growing size n_1 < n_2 < ...,
  each started from the previous end (retrospective approximation, Pasupathy 2010, Oper.
  Res. 58(4)); the last stage takes what the budget has left, so no draw goes unused;
* :func:`final_candidates`: the weighted mean of the last ends (solution averaging across
  independent samples), the surface minimiser, the ends and the best other points;
* :func:`median_of_means` and :func:`pick`: the candidates compared on a fresh common sample
  by median of means over batches, the averaged solution kept unless another beats it
  clearly;
* :func:`refine`: distinct starts, the stages and the final pick, joined.

Why several samples: under DGP1's infinite-variance cost one fixed sample now and then holds
an extreme scenario that moves its sample-average minimiser far from the true one; a search
on a second, independent sample, started at the first end, walks back, and the final pick
separates the ends. Why growing samples: the precision of a stage's solution grows with its
sample, and the early stages, on small samples, only need to reach the neighbourhood.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.risk import influence
from acfs_cli.core.task import Task
from acfs_cli.kernels.cem import CEMResult, cross_entropy
from acfs_cli.kernels.pattern import EvalCache, PatternSettings, pattern_search
from acfs_cli.kernels.polish import polish
from acfs_cli.kernels.stencil import CRNObjective
from acfs_cli.kernels.surface import pooled_quadratic_minimiser

#: Ends averaged into the first final candidate: the last three stages' solutions.
AVERAGED_STAGES = 3


# -- settings ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Schedule:
    """The growing samples: ``stages`` planned (a fraction plans part of one more), each
    ``growth`` times the previous, ``evals_per_dim * d + 10`` evaluations each, samples
    within [``n_min``, ``n_max``]."""

    stages: float
    growth: float
    evals_per_dim: float
    n_min: int
    n_max: int

    @property
    def weight(self) -> float:
        """The planned draws over those of the first stage: 1 + g + ... + g^(k-1) for the
        k whole stages, plus the fraction of the next."""
        whole = int(self.stages)
        return (sum(self.growth**k for k in range(whole))
                + (self.stages - whole) * self.growth**whole)

    def evaluations(self, dim: int) -> float:
        """Evaluations a stage is planned for on a ``dim``-dimensional problem."""
        return self.evals_per_dim * dim + 10


@dataclass(frozen=True)
class StageSettings:
    """One stage: the pattern search's settings (``step0`` is the first stage's step; later
    stages take the step the previous one ended with), the share of the stage's evaluations
    for the polish (0: none) and the polish's finite-difference step (units of the step
    scale)."""

    pattern: PatternSettings
    polish_share: float
    polish_h: float


@dataclass(frozen=True)
class FinalPick:
    """The final pick: up to ``candidates`` decisions at least ``spacing`` apart (units of
    the step scale), compared by median of means over ``batches``; the first is kept unless
    another beats it by ``guard`` standard errors of the paired difference (0: plain argmin).
    A quadratic surface pooled over the last ``surface_stages`` stages' evaluations within
    ``surface_radius`` (0: none) gives a candidate at place ``surface_rank``."""

    candidates: int
    batches: int
    guard: float
    spacing: float
    surface_radius: float
    surface_stages: int
    surface_rank: int


@dataclass(frozen=True)
class Refinement:
    """Everything the refinement needs: how many distinct starts (``start_candidates``, at
    least ``start_spacing`` apart), the schedule, a stage, the final pick, and how the draws
    left are shared: the pick takes ``final_share`` of every ``planned_share`` of them (the
    shares of a whole budget of which the refinement was planned ``planned_share``)."""

    schedule: Schedule
    stage: StageSettings
    final: FinalPick
    start_candidates: int
    start_spacing: float
    final_share: float
    planned_share: float


# -- sizes ---------------------------------------------------------------------------------------
def even(n: float, low: int = 2) -> int:
    """``n`` rounded down to an even count of at least ``low`` (antithetic pairs)."""
    return max(low, int(n) // 2 * 2)


def refine_sizes(r: Refinement, draws: float, dim: int) -> tuple[int, int]:
    """The first search sample and the rows per final candidate when ``draws`` are left for
    the search and the final pick.

    The first sample is what the search's draws afford for the planned stages
    (:attr:`Schedule.weight`) of :meth:`Schedule.evaluations` each, within [n_min, n_max].
    """
    final = draws * r.final_share / r.planned_share
    final_rows = even(final / r.final.candidates)
    search = draws - final
    sch = r.schedule
    n_first = search / (sch.weight * sch.evaluations(dim))
    # n_min, unless the budget could not then hold a few polls of the first stage (a small
    # budget on a problem of many dimensions)
    n_low = min(sch.n_min, search / (4 * (2 * dim + 2)))
    return even(min(max(n_first, n_low), sch.n_max)), final_rows


# -- starts --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Screened:
    """A design estimated on one common sample: its points, their values and the order of
    the values (best first)."""

    X: np.ndarray
    values: np.ndarray
    order: np.ndarray

    @property
    def ranked(self) -> np.ndarray:
        return self.X[self.order]


def screen(X: np.ndarray, estimate: Callable[[np.ndarray], np.ndarray]) -> Screened:
    """The design ``X`` estimated by ``estimate`` (one common sample for all) and ranked."""
    values = estimate(X)
    return Screened(X, values, np.argsort(values))


def cem_from_screen(screened: Screened, estimate: Callable[[np.ndarray], np.ndarray], project,
                    rng: np.random.Generator, *, population: int, iterations: int,
                    **options) -> CEMResult:
    """The cross-entropy loop (:func:`~acfs_cli.kernels.cem.cross_entropy`) started from the
    ``population`` best screened decisions; ``options`` go to the loop."""
    initial = screened.X[screened.order[:population]]
    return cross_entropy(estimate, initial, project, rng, n_iter=iterations, **options)


def distinct(X: np.ndarray, k: int, min_dist: float, chosen: list | None = None,
             scale: np.ndarray | None = None) -> list[int]:
    """Indices of up to ``k`` rows of X (in order) at least ``min_dist`` from each other
    (distances in units of ``scale`` per coordinate; never closer than 1e-12)."""
    chosen = list(chosen or [])
    Y = X if scale is None else X / scale
    for i in range(len(X)):
        if len(chosen) >= k:
            break
        if all(np.linalg.norm(Y[i] - Y[j]) >= max(min_dist, 1e-12) for j in chosen):
            chosen.append(i)
    return chosen


# -- the stages ----------------------------------------------------------------------------------
@dataclass
class StageResult:
    """One stage: its end ``x`` and the step it ended with, its sample size, every point
    it evaluated and their values on its sample (best first), and its record."""

    x: np.ndarray
    step: float
    n: int
    pool: np.ndarray
    values: np.ndarray
    run: dict


def stage(task: Task, oracle: Oracle, settings: StageSettings, n: int, starts: np.ndarray,
          step: float, max_evals: int) -> StageResult:
    """One stage: a polish and a pattern search on a new common sample of ``n`` rows, from
    the best of ``starts`` at ``step``, for at most ``max_evals`` evaluations (the starts and
    the polish's included)."""
    sample = oracle.common_sample(n, antithetic=True)

    def sample_average(X: np.ndarray) -> np.ndarray:
        X = np.atleast_2d(X)
        return task.objective(oracle.draw_common(X, sample), X)

    cache = EvalCache()
    best = {"value": np.inf}

    def on_best(x: np.ndarray, value: float) -> None:
        # Values on this sample are compared with each other only; the first value on a new
        # sample replaces the incumbent of the previous stage.
        if value < best["value"]:
            best["value"] = value
            oracle.record_best(x, value, replace=True)

    v_start = sample_average(starts)
    for x, v in zip(starts, v_start, strict=True):
        cache.put(x, v)
    i = int(np.argmin(v_start))
    on_best(starts[i], v_start[i])
    x0, f0, evals = starts[i], float(v_start[i]), len(starts)
    if settings.polish_share > 0:
        # L-BFGS-B on the same sample with CRN differences (2 d + 1 points an evaluation):
        # on a smooth problem a few gradient steps do the work of many polls.
        per_eval = (2 * task.dim_x + 1) * n
        evals_polish = int(settings.polish_share * max_evals * n / per_eval)
        # at least three gradient evaluations where the stage holds six: in many
        # dimensions one evaluation costs many polls
        evals_polish = max(evals_polish, min(3, max_evals * n // (2 * per_eval)))
        allowance = evals_polish * per_eval
        if allowance >= per_eval:
            objective = CRNObjective(task, oracle, sample,
                                     h=settings.polish_h * float(np.mean(task.steps())))
            with oracle.allowance(allowance):
                res = polish(objective.value, x0, task.project, task.bounds(),
                             jac=objective.face_gradient, maxiter=50, penalty=1.0,
                             scale=max(abs(f0), 1.0))
            evals += objective.used // n
            if res.value < f0:
                x0, f0 = res.x, float(res.value)
                cache.put(x0, f0)
                on_best(x0, f0)
    res = pattern_search(
        sample_average, x0, task.project, replace(settings.pattern, step0=step),
        max_evals=max(max_evals - evals, 1),
        f0=f0, cache=cache, on_best=on_best, scale=task.steps(),
        coupled=task.exchange_coordinates(),
    )
    run = {"n": n, "evals": res.n_evals + evals, "polls": res.n_polls,
           "stopped_by": res.stopped_by, "value": res.value, "step": res.step}
    X, values = cache.points()
    return StageResult(x=res.x, step=res.step, n=n, pool=X, values=values, run=run)


def retrospective(task: Task, oracle: Oracle, schedule: Schedule, settings: StageSettings,
                  starts: np.ndarray, n_first: int) -> list[StageResult]:
    """Stages on independent common samples of growing size from ``n_first``, the first
    from the best of ``starts``, each later one from the previous end at its final step.

    Stops when the budget cannot hold a stage's starts and one poll; the last stage takes
    what is left, so no draw is left unused.
    """
    stages: list[StageResult] = []
    step_min = settings.pattern.step_min
    n, step, start = n_first, settings.pattern.step0, starts
    # Evaluations per stage: the plan's, or fewer when n_min made the first sample larger
    # than the budget planned for, so that the planned stages still happen (each
    # independent sample is another guard against one sample's extreme scenarios).
    per_stage = int(max(2 * task.dim_x + 4, min(schedule.evaluations(task.dim_x),
                                                 oracle.available / (schedule.weight * n))))
    while oracle.available >= n * (len(start) + 2 * task.dim_x + 1):
        n_next = even(min(n * schedule.growth, schedule.n_max))
        last = oracle.available - n * per_stage < n_next * per_stage
        cap = oracle.available // n if last else per_stage
        result = stage(task, oracle, settings, n, start, step, cap)
        stages.append(result)
        if last:
            break
        start, step, n = result.x[None, :], max(result.step, step_min), n_next
    return stages


# -- the final pick ------------------------------------------------------------------------------
def interleave(pools: list[np.ndarray]) -> np.ndarray:
    """Rows of several best-first lists taken in turn (values of different samples differ)."""
    pools = [p for p in pools if len(p)]
    if not pools:
        return np.empty((0, 0))
    rows = [p[i] for i in range(max(len(p) for p in pools)) for p in pools if i < len(p)]
    return np.array(rows)


def final_candidates(task: Task, stages: list[StageResult], final: FinalPick,
                     starts: np.ndarray, info: dict) -> np.ndarray:
    """The decisions the final pick compares, first the one it keeps unless beaten.

    In order: the weighted mean of the last ends (weights: their sample sizes), the ends
    latest first (largest sample first), then the best other points of every stage in turn;
    the surface's minimiser at place ``surface_rank`` (recorded in ``info["surface"]``).
    Without any stage, the ``starts``. Up to ``final.candidates`` of them, ``spacing`` apart.
    """
    ends = [(st.x, st.n) for st in stages]
    pool = [e for e, _ in ends[::-1]]
    if len(ends) > 1:
        # The ends minimise independent sample averages: their weighted mean has a smaller
        # sampling error than any one of them (solution averaging across samples).
        last = ends[-AVERAGED_STAGES:]
        w = np.array([n for _, n in last], dtype=float)
        pool.insert(0, task.project(np.average([e for e, _ in last], axis=0, weights=w)))
    if final.surface_radius > 0 and ends:
        clouds = [(st.pool, st.values) for st in stages]
        x_surface = pooled_quadratic_minimiser(clouds[-final.surface_stages:], ends[-1][0],
                                               task.steps(), task.project,
                                               final.surface_radius)
        if x_surface is not None:
            pool.insert(final.surface_rank, x_surface)
            info["surface"] = x_surface.tolist()
    others = interleave([st.pool for st in stages])
    pool = np.vstack([*pool, *others]) if pool else starts
    return pool[distinct(pool, final.candidates, final.spacing, scale=task.steps())]


def median_of_means(task: Task, oracle: Oracle, X: np.ndarray, n: int, batches: int,
                    with_costs: bool = False, stratified: bool = False):
    """J of each row of X on one common sample of ``n`` rows, as the median over ``batches``
    disjoint batches of the batch estimates (antithetic pairs kept in one batch; the pairs a
    Latin hypercube where ``stratified``).

    Under DGP1's infinite-variance cost one scenario of a large sample can dominate every
    candidate's estimate and decide the pick by how each candidate's allocation meets that
    one scenario (measured: a 10,000-draw pick chose a decision 17 % above the optimum over
    three 2-4 % ones). The median over batches ignores a batch that holds such a scenario
    (median of means, Lugosi & Mendelson 2019, Found. Comput. Math. 19(5)). The batch
    medians are biased low for a right-skewed cost, but alike for all candidates on common
    draws, so the ranking stands. Charges ``len(X) * n`` draws, one oracle call.
    """
    X = np.atleast_2d(X)
    sample = oracle.common_sample(n, antithetic=True, stratified=stratified)
    C = np.asarray(task.cost(oracle.draw_common(X, sample), X), dtype=float)
    if sample.antithetic:
        half = n // 2
        groups = [np.concatenate([g, g + half])
                  for g in np.array_split(np.arange(half), batches) if g.size]
    else:
        groups = [g for g in np.array_split(np.arange(n), batches) if g.size]
    values = np.median(np.stack([task.risk(C[:, g])[0] for g in groups]), axis=0)
    return (values, C) if with_costs else values


def pick(task: Task, values: np.ndarray, costs: np.ndarray, guard: float) -> int:
    """The final choice: the first candidate (the averaged solution) unless the lowest value
    belongs to another that beats it by ``guard`` standard errors of the paired difference
    of their per-scenario influence values (0: the lowest value, whatever the noise).

    Near the optimum the candidates differ by less than the pick's noise; a plain argmin then
    trades the averaged solution for the luckiest estimate.
    """
    i = int(np.argmin(values))
    if i == 0 or guard <= 0:
        return i
    gain, se = paired_gain(task, costs, 0, i)
    return i if gain > guard * se else 0


def paired_gain(task: Task, costs: np.ndarray, a: int, b: int) -> tuple[float, float]:
    """How much lower candidate ``b``'s J is than candidate ``a``'s on the same rows
    (``costs`` (k, n)), and the standard error of that paired difference of their per-row
    influence values."""
    d = influence(costs[a], task.lam, task.alpha) - influence(costs[b], task.lam, task.alpha)
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size))


def final_pick(task: Task, oracle: Oracle, final: FinalPick, candidates: np.ndarray,
               rows: int, info: dict) -> tuple[np.ndarray, float]:
    """The pick among ``candidates`` on a fresh common sample of ``rows`` per candidate
    (oracle phase ``final``), recorded in ``info``; the oracle's incumbent when there is
    only one candidate or no budget for the pick."""
    if len(candidates) == 1 or rows < 2 or not oracle.can_draw(len(candidates) * rows):
        x_inc, v_inc = oracle.incumbent
        return x_inc, v_inc
    with oracle.phase("final"):
        values, costs = median_of_means(task, oracle, candidates, rows, final.batches,
                                        with_costs=True)
    i = pick(task, values, costs, final.guard)
    oracle.record_best(candidates[i], values[i], replace=True)
    info.update(final_values=values.tolist(), final_choice=i,
                final_candidates=candidates.tolist())
    return candidates[i], float(values[i])


# -- the whole refinement ------------------------------------------------------------------------
def refine(task: Task, oracle: Oracle, settings: Refinement, candidates: np.ndarray,
           n_first: int, final_rows: int, info: dict) -> tuple[np.ndarray, float]:
    """Retrospective approximation from the distinct best of ``candidates``, then the final
    pick.

    ``candidates`` are start points, best first; up to ``start_candidates`` of them at least
    ``start_spacing`` apart (units of the step scale) start the first stage. The final pick's
    draws (``final.candidates * final_rows``) are reserved before the search starts (oracle
    phase ``search``). Records the stages' runs in ``info["search"]`` and the pick in
    ``info``. Returns the picked decision and its final estimate, or the oracle's incumbent
    when there is nothing to pick from or no budget for the pick.
    """
    starts = candidates[distinct(candidates, settings.start_candidates,
                                 settings.start_spacing, scale=task.steps())]
    reserve = settings.final.candidates * final_rows
    with oracle.phase("search"), oracle.reserve(reserve):
        stages = retrospective(task, oracle, settings.schedule, settings.stage, starts,
                               n_first)
    info["search"] = [st.run for st in stages]
    final = final_candidates(task, stages, settings.final, starts, info)
    return final_pick(task, oracle, settings.final, final, final_rows, info)
