"""SAA-PS: sample-average approximation on common random numbers with a projected pattern search.

A strong simple method outside the paper, added so that the comparison of Section 5 is honest
(the paper's methods land 5-13 % above the large-sample optima of its benchmarks). Everything
is charged to the same oracle and budget, and every scenario is drawn at the decision where
it is used: W ~ P_x depends on x, so a cached W cannot be re-costed at a new x, and each new
decision on a fixed sample is charged the sample's rows.

The method sizes every stage from its budget B and the dimension d (:func:`plan`), so the
same settings serve 5,000 draws and 2,600,000:

1. ``screen``: a maximin space-filling design over X, every decision estimated on one common
   sample (``screen_share`` of B; the count of decisions and the rows per decision grow like
   the square root of the share, at least ``2 d + 2`` decisions);
2. ``cem``: the project's cross-entropy loop (:func:`acfs_cli.kernels.cem.cross_entropy`)
   from the best screened decisions, each iteration on a common sample (``cem_share``);
3. ``search``: retrospective approximation (Pasupathy 2010, Oper. Res. 58(4)): a sequence of
   sample-average problems on independent common samples of growing size n_1 < n_2 < ...
   (``growth``), each solved from the previous solution - by an L-BFGS-B polish on
   common-random-number differences (``polish_share`` of the stage) and then the shared
   projected pattern search (:mod:`acfs_cli.kernels.pattern`) with gradient search steps.
   Each stage has a fixed number of evaluations (``evals_per_dim`` per coordinate) and hands
   its step to the next; the first starts from the best of a few distinct candidates (CEM
   best and mean, best screened). The last stage takes what the budget has left, so no draw
   goes unused;
4. ``final``: the weighted mean of the last stages' solutions (solution averaging across
   independent samples), the solutions themselves and the best other points, up to
   ``final_candidates``, are compared on a fresh common sample (``final_share``) by median of
   means over batches (Lugosi & Mendelson 2019): one extreme scenario of a heavy tail then
   decides one batch, not the pick.

Where the problem takes normals, every common sample is antithetic; a sample-only simulator
gets re-seeded plain samples (DESIGN.md section 3).

Why several samples: under DGP1's infinite-variance cost one fixed sample now and then holds
an extreme scenario that moves its sample-average minimiser far from the true one; a search
on a second, independent sample, started at the first end, walks back, and the final pick
separates the ends. Why growing samples: the precision of a stage's solution grows with its
sample, and the early stages, on small samples, only need to reach the neighbourhood.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from pydantic import Field, model_validator

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.risk import influence
from acfs_cli.core.task import Task
from acfs_cli.kernels.cem import cross_entropy
from acfs_cli.kernels.estimate import estimate_batch
from acfs_cli.kernels.pattern import EvalCache, PatternSettings, pattern_search
from acfs_cli.kernels.polish import polish
from acfs_cli.kernels.stencil import CRNObjective
from acfs_cli.kernels.surface import pooled_quadratic_minimiser
from acfs_cli.methods.base import Method, MethodResult, Settings


class SAAPSSettings(Settings):
    """SAA-PS settings: shares of the budget and shapes of the stages (see :func:`plan`)."""

    screen_share: float = Field(0.06, ge=0, lt=1, description="share of the budget for the "
                                "space-filling screen")
    screen_aspect: float = Field(0.7, gt=0, description="rows per screened decision over the "
                                 "number of decisions")
    cem_share: float = Field(0.12, ge=0, lt=1, description="share of the budget for the CEM "
                             "stage (0 skips it)")
    cem_iter: int = Field(5, ge=1, description="CEM iterations")
    cem_aspect: float = Field(6.0, gt=0, description="rows per CEM candidate over the "
                              "population")
    cem_elite_frac: float = Field(0.2, gt=0, le=1, description="CEM elite fraction")
    cem_smoothing: float = Field(0.7, gt=0, le=1, description="CEM smoothing of mean and SD")
    final_share: float = Field(0.18, ge=0, lt=1, description="share of the budget for the "
                               "final pick")
    final_candidates: int = Field(4, ge=1, description="candidates of the final pick")
    final_batches: int = Field(5, ge=1, description="median-of-means batches of the final "
                               "pick (1: the plain estimate)")
    surface_radius: float = Field(0.1, ge=0, description="radius (units of the step scale) of "
                                  "the pooled quadratic surface whose minimiser joins the "
                                  "final pick (0: none)")
    surface_stages: int = Field(3, ge=1, description="last search stages the surface pools")
    surface_rank: int = Field(1, ge=0, description="place of the surface's minimiser among "
                              "the final candidates (0: the one kept unless beaten; 1: after "
                              "the averaged solution)")
    final_guard: float = Field(1.0, ge=0, description="the averaged solution is kept unless "
                               "another candidate beats it by this many standard errors of "
                               "the paired difference (0: plain argmin)")
    final_dist: float = Field(0.01, ge=0, description="minimum distance between final "
                              "candidates, in units of the step scale")
    stages: float = Field(3.0, gt=0, description="search stages the budget is planned for "
                          "(the last stage takes what is left)")
    growth: float = Field(2.0, ge=1, description="sample size of each search stage over the "
                          "previous one")
    evals_per_dim: float = Field(8.0, gt=0, description="evaluations of a search stage per "
                                 "coordinate (plus 10)")
    n_min: int = Field(200, ge=2, description="smallest search sample (unless the budget "
                       "could not then hold a few polls)")
    n_max: int = Field(20_000, ge=2, description="largest search sample")
    n_start_candidates: int = Field(4, ge=1, description="distinct start candidates scored "
                                    "on the first search sample")
    start_dist: float = Field(0.05, ge=0, description="minimum distance between start "
                              "candidates, in units of the step scale")
    step0: float = Field(0.05, gt=0, description="initial pattern-search step (units of the "
                         "step scale)")
    step_max: float = Field(0.2, gt=0, description="largest pattern-search step")
    step_min: float = Field(1e-4, gt=0, description="smallest pattern-search step")
    batch: int = Field(1, ge=1, description="poll points per oracle call (1 stops a "
                       "model-ordered poll at its first improving point)")
    gradient_steps: bool = Field(True, description="after a successful poll, a search step "
                                 "along the simplex gradient of the evaluated points")
    polish_share: float = Field(0.3, ge=0, le=1, description="share of each search stage's "
                                "evaluations for an L-BFGS-B polish on the stage's sample "
                                "(common-random-number differences) before its pattern search")
    polish_h: float = Field(2e-3, gt=0, description="finite-difference step of the polish, "
                            "in units of the step scale")

    def minimum_budget(self, dim: int) -> int:
        """A screen of 2 d + 2 decisions and a first search stage, about 100 draws each."""
        return 100 * (2 * dim + 2)

    @model_validator(mode="after")
    def _consistent(self):
        if self.screen_share + self.cem_share + self.final_share >= 0.9:
            raise ValueError("screen_share + cem_share + final_share must leave the search at "
                             "least 10 % of the budget")
        if not self.step_min <= self.step0 <= self.step_max:
            raise ValueError("need step_min <= step0 <= step_max")
        if self.n_min > self.n_max:
            raise ValueError("need n_min <= n_max")
        return self


def _even(n: float, low: int = 2) -> int:
    """``n`` rounded down to an even count of at least ``low`` (antithetic pairs)."""
    return max(low, int(n) // 2 * 2)


@dataclass(frozen=True)
class Plan:
    """The sizes of the stages for one budget and dimension (see :func:`plan`)."""

    screen_points: int
    screen_rows: int
    cem_pop: int
    cem_rows: int
    cem_iter: int
    final_rows: int
    n_first: int


def plan(s: SAAPSSettings, budget: int, dim: int) -> Plan:
    """The sizes of the stages for ``budget`` draws on a ``dim``-dimensional problem.

    A stage with ``T`` draws and aspect ``a`` (rows per decision over decisions) evaluates
    about ``sqrt(T / a)`` decisions on ``sqrt(T a)`` rows each. The first search sample is
    what the search share affords for ``stages`` stages of ``evals_per_dim * d + 10``
    evaluations with samples growing by ``growth``, within [``n_min``, ``n_max``].
    """
    screen = s.screen_share * budget
    m = max(2 * dim + 2, int(math.sqrt(screen / s.screen_aspect)))
    screen_rows = _even(screen / m)
    cem = s.cem_share * budget / s.cem_iter
    pop = max(8, int(math.sqrt(cem / s.cem_aspect))) if s.cem_share > 0 else 0
    cem_rows = _even(cem / pop) if pop else 0
    n_first, final_rows = refine_sizes(s, (1 - s.screen_share - s.cem_share) * budget, dim)
    return Plan(m, screen_rows, pop, cem_rows, s.cem_iter if pop else 0, final_rows, n_first)


def refine_sizes(s: SAAPSSettings, draws: float, dim: int) -> tuple[int, int]:
    """The first search sample and the rows per final candidate when ``draws`` are left for
    the search and the final pick (they share them as ``final_share`` and the search share
    share the whole budget)."""
    final = draws * s.final_share / (1 - s.screen_share - s.cem_share)
    final_rows = _even(final / s.final_candidates)
    search = draws - final
    whole = int(s.stages)
    weight = sum(s.growth**k for k in range(whole)) + (s.stages - whole) * s.growth**whole
    n_first = search / (weight * (s.evals_per_dim * dim + 10))
    # n_min, unless the budget could not then hold a few polls of the first stage (a small
    # budget on a problem of many dimensions)
    n_low = min(s.n_min, search / (4 * (2 * dim + 2)))
    return _even(min(max(n_first, n_low), s.n_max)), final_rows


def distinct(X: np.ndarray, k: int, min_dist: float, chosen: list | None = None,
             scale: np.ndarray | None = None) -> list[int]:
    """Indices of up to ``k`` rows of X (in order) at least ``min_dist`` from each other
    (distances in units of ``scale`` per coordinate)."""
    chosen = list(chosen or [])
    Y = X if scale is None else X / scale
    for i in range(len(X)):
        if len(chosen) >= k:
            break
        if all(np.linalg.norm(Y[i] - Y[j]) >= max(min_dist, 1e-12) for j in chosen):
            chosen.append(i)
    return chosen


def _search(task: Task, oracle: Oracle, s: SAAPSSettings, rng: np.random.Generator
            ) -> MethodResult:
    p = plan(s, oracle.budget, task.dim_x)
    info: dict = {"plan": asdict(p)}
    scale = task.steps()

    # 1. screen
    with oracle.phase("screen"):
        X_screen = task.space_filling(p.screen_points, rng)
        v_screen = estimate_batch(task, oracle, X_screen, p.screen_rows, crn=True,
                                  antithetic=True)[0]
    order = np.argsort(v_screen)
    oracle.record_best(X_screen[order[0]], v_screen[order[0]], replace=True)

    # 2. CEM from the best screened decisions
    candidates = list(X_screen[order])
    if p.cem_iter:
        pop = min(p.cem_pop, p.screen_points)

        def evaluate(X: np.ndarray) -> np.ndarray:
            return estimate_batch(task, oracle, X, p.cem_rows, crn=True, antithetic=True)[0]

        with oracle.phase("cem"):
            cem = cross_entropy(
                evaluate, X_screen[order[:pop]], task.project, rng, n_iter=p.cem_iter,
                elite_frac=s.cem_elite_frac, smoothing=s.cem_smoothing,
                on_best=lambda x, v: oracle.record_best(x, v, replace=True),
            )
        candidates = [cem.best_x, cem.mean, *candidates]
        info.update(cem_best=cem.best_x.tolist(), cem_mean=cem.mean.tolist())
    candidates = np.array(candidates)
    candidates = candidates[distinct(candidates, s.n_start_candidates, s.start_dist,
                                     scale=scale)]
    x, value = refine(task, oracle, s, candidates, p.n_first, p.final_rows, info)
    return MethodResult(x=x, value=value, info=info)


def refine(task: Task, oracle: Oracle, s: SAAPSSettings, candidates: np.ndarray, n_first: int,
           final_rows: int, info: dict) -> tuple[np.ndarray, float]:
    """Stages 3 and 4: retrospective approximation from ``candidates``, then the final pick.

    ``candidates`` are distinct start points, best first. The final pick's draws
    (``final_candidates * final_rows``) are reserved before the search starts. Returns the
    picked decision and its final estimate, or the oracle's incumbent when there is nothing
    to pick from or no budget for the pick. Shared by SAA-PS and the pattern-search phase 4 of
    ACFS.
    """
    reserve = s.final_candidates * final_rows
    ends: list[tuple[np.ndarray, int]] = []  # each stage's solution and its sample size
    pools: list[np.ndarray] = []
    runs: list[dict] = []
    clouds: list[tuple[np.ndarray, np.ndarray]] = []  # each stage's evaluations
    with oracle.phase("search"), oracle.reserve(reserve):
        n, step, start = n_first, s.step0, candidates
        # Evaluations per stage: the plan's, or fewer when n_min made the first sample larger
        # than the budget planned for, so that the planned stages still happen (each
        # independent sample is another guard against one sample's extreme scenarios).
        whole = int(s.stages)
        weight = sum(s.growth**k for k in range(whole)) + (s.stages - whole) * s.growth**whole
        per_stage = int(max(2 * task.dim_x + 4, min(s.evals_per_dim * task.dim_x + 10,
                                                     oracle.available / (weight * n))))
        while oracle.available >= n * (len(start) + 2 * task.dim_x + 1):
            n_next = _even(min(n * s.growth, s.n_max))
            # The last stage takes what is left, so no draw is left unused.
            last = oracle.available - n * per_stage < n_next * per_stage
            cap = oracle.available // n if last else per_stage
            stage = _stage(task, oracle, s, n, start, step, cap)
            ends.append((stage["x"], n))
            pools.append(stage["pool"])
            clouds.append((stage["pool"], stage["values"]))
            runs.append(stage["run"])
            if last:
                break
            start, step, n = stage["x"][None, :], max(stage["step"], s.step_min), n_next
    info["search"] = runs

    # the final pick among the best distinct points, on a fresh common sample
    pool = [e for e, _ in ends[::-1]]  # latest (largest sample) first
    if len(ends) > 1:
        # The ends minimise independent sample averages: their weighted mean has a smaller
        # sampling error than any one of them (solution averaging across samples).
        last = ends[-3:]
        w = np.array([n for _, n in last], dtype=float)
        pool.insert(0, task.project(np.average([e for e, _ in last], axis=0, weights=w)))
    if s.surface_radius > 0 and ends:
        x_surface = pooled_quadratic_minimiser(clouds[-s.surface_stages:], ends[-1][0],
                                               task.steps(), task.project, s.surface_radius)
        if x_surface is not None:
            pool.insert(s.surface_rank, x_surface)
            info["surface"] = x_surface.tolist()
    others = _interleave(pools)
    pool = np.vstack([*pool, *others]) if pool else candidates
    final = pool[distinct(pool, s.final_candidates, s.final_dist, scale=task.steps())]
    if len(final) == 1 or final_rows < 2 or not oracle.can_draw(len(final) * final_rows):
        x_inc, v_inc = oracle.incumbent
        return x_inc, v_inc
    with oracle.phase("final"):
        values, costs = median_of_means(task, oracle, final, final_rows, s.final_batches,
                                        with_costs=True)
    i = _pick(task, values, costs, s.final_guard)
    oracle.record_best(final[i], values[i], replace=True)
    info.update(final_values=values.tolist(), final_choice=i, final_candidates=final.tolist())
    return final[i], float(values[i])


def _stage(task: Task, oracle: Oracle, s: SAAPSSettings, n: int, starts: np.ndarray,
           step: float, max_evals: int) -> dict:
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
    if s.polish_share > 0:
        # L-BFGS-B on the same sample with CRN differences (2 d + 1 points an evaluation):
        # on a smooth problem a few gradient steps do the work of many polls.
        per_eval = (2 * task.dim_x + 1) * n
        evals_polish = int(s.polish_share * max_evals * n / per_eval)
        # at least three gradient evaluations where the stage holds six: in many
        # dimensions one evaluation costs many polls
        evals_polish = max(evals_polish, min(3, max_evals * n // (2 * per_eval)))
        allowance = evals_polish * per_eval
        if allowance >= per_eval:
            objective = CRNObjective(task, oracle, sample,
                                     h=s.polish_h * float(np.mean(task.steps())))
            with oracle.allowance(allowance):
                res = polish(objective.value, x0, task.project, task.bounds(),
                             jac=objective.face_gradient, maxiter=50, penalty=1.0,
                             scale=max(abs(f0), 1.0))
            evals += objective.used // n
            if res.value < f0:
                x0, f0 = res.x, float(res.value)
                cache.put(x0, f0)
                on_best(x0, f0)
    settings = PatternSettings(step0=step, step_min=s.step_min, step_max=s.step_max,
                               batch_size=s.batch, gradient_steps=s.gradient_steps)
    res = pattern_search(
        sample_average, x0, task.project, settings, max_evals=max(max_evals - evals, 1),
        f0=f0, cache=cache, on_best=on_best, scale=task.steps(),
        coupled=task.exchange_coordinates(),
    )
    run = {"n": n, "evals": res.n_evals + evals, "polls": res.n_polls,
           "stopped_by": res.stopped_by, "value": res.value, "step": res.step}
    X, values = cache.points()
    return {"x": res.x, "pool": X, "values": values, "run": run, "step": res.step}


def _pick(task: Task, values: np.ndarray, costs: np.ndarray, guard: float) -> int:
    """The final choice: the first candidate (the averaged solution) unless the lowest value
    belongs to another that beats it by ``guard`` standard errors of the paired difference
    of their per-scenario influence values (0: the lowest value, whatever the noise).

    Near the optimum the candidates differ by less than the pick's noise; a plain argmin then
    trades the averaged solution for the luckiest estimate.
    """
    i = int(np.argmin(values))
    if i == 0 or guard <= 0:
        return i
    d = influence(costs[i], task.lam, task.alpha) - influence(costs[0], task.lam, task.alpha)
    se = float(d.std(ddof=1) / np.sqrt(d.size))
    return i if float(d.mean()) < -guard * se else 0


def median_of_means(task: Task, oracle: Oracle, X: np.ndarray, n: int, batches: int,
                    with_costs: bool = False):
    """J of each row of X on one common sample of ``n`` rows, as the median over ``batches``
    disjoint batches of the batch estimates (antithetic pairs kept in one batch).

    Under DGP1's infinite-variance cost one scenario of a large sample can dominate every
    candidate's estimate and decide the pick by how each candidate's allocation meets that
    one scenario (measured: a 10,000-draw pick chose a decision 17 % above the optimum over
    three 2-4 % ones). The median over batches ignores a batch that holds such a scenario
    (median of means, Lugosi & Mendelson 2019, Found. Comput. Math. 19(5)). The batch
    medians are biased low for a right-skewed cost, but alike for all candidates on common
    draws, so the ranking stands. Charges ``len(X) * n`` draws, one oracle call.
    """
    X = np.atleast_2d(X)
    sample = oracle.common_sample(n, antithetic=True)
    C = np.asarray(task.cost(oracle.draw_common(X, sample), X), dtype=float)
    if sample.antithetic:
        half = n // 2
        groups = [np.concatenate([g, g + half])
                  for g in np.array_split(np.arange(half), batches) if g.size]
    else:
        groups = [g for g in np.array_split(np.arange(n), batches) if g.size]
    values = np.median(np.stack([task.risk(C[:, g])[0] for g in groups]), axis=0)
    return (values, C) if with_costs else values


def _interleave(pools: list[np.ndarray]) -> np.ndarray:
    """Rows of several best-first lists taken in turn (values of different samples differ)."""
    pools = [p for p in pools if len(p)]
    if not pools:
        return np.empty((0, 0))
    rows = [p[i] for i in range(max(len(p) for p in pools)) for p in pools if i < len(p)]
    return np.array(rows)


SAA_PS = Method(
    name="saa-ps",
    version="2",
    display="SAA-PS",
    settings_model=SAAPSSettings,
    search=_search,
    summary="space-filling screen and CEM on common samples, retrospective approximation "
    "(L-BFGS-B and projected pattern search on growing common samples), median-of-means "
    "final pick; every stage sized from the budget",
    sample_only="antithetic pairs become plain common samples",
)
