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

Stages 3 and 4 are the shared refinement (:func:`acfs_cli.kernels.refine.refine`, which
also says why several samples, and why growing ones); ``acfs-plus`` runs it as its phase 4
with these settings' defaults (:meth:`SAAPSSettings.refinement`).

Where the problem takes normals, every common sample is antithetic; a sample-only simulator
gets re-seeded plain samples (DESIGN.md section 3).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from pydantic import Field, model_validator

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.kernels.estimate import estimate_batch
from acfs_cli.kernels.pattern import PatternSettings
from acfs_cli.kernels.refine import (
    FinalPick,
    Refinement,
    Schedule,
    StageSettings,
    cem_from_screen,
    even,
    refine,
    refine_sizes,
    screen,
)
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

    def refinement(self) -> Refinement:
        """The settings of the shared refinement (stages 3 and 4)."""
        return Refinement(
            schedule=Schedule(stages=self.stages, growth=self.growth,
                              evals_per_dim=self.evals_per_dim, n_min=self.n_min,
                              n_max=self.n_max),
            stage=StageSettings(
                pattern=PatternSettings(step0=self.step0, step_min=self.step_min,
                                        step_max=self.step_max, batch_size=self.batch,
                                        gradient_steps=self.gradient_steps),
                polish_share=self.polish_share, polish_h=self.polish_h),
            final=FinalPick(candidates=self.final_candidates, batches=self.final_batches,
                            guard=self.final_guard, spacing=self.final_dist,
                            surface_radius=self.surface_radius,
                            surface_stages=self.surface_stages,
                            surface_rank=self.surface_rank),
            start_candidates=self.n_start_candidates, start_spacing=self.start_dist,
            final_share=self.final_share,
            # the share of the budget planned for the search and the final pick together
            planned_share=1 - self.screen_share - self.cem_share,
        )

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
    evaluations with samples growing by ``growth``, within [``n_min``, ``n_max``]
    (:func:`~acfs_cli.kernels.refine.refine_sizes`).
    """
    screen_draws = s.screen_share * budget
    m = max(2 * dim + 2, int(math.sqrt(screen_draws / s.screen_aspect)))
    screen_rows = even(screen_draws / m)
    cem = s.cem_share * budget / s.cem_iter
    pop = max(8, int(math.sqrt(cem / s.cem_aspect))) if s.cem_share > 0 else 0
    cem_rows = even(cem / pop) if pop else 0
    r = s.refinement()
    n_first, final_rows = refine_sizes(r, r.planned_share * budget, dim)
    return Plan(m, screen_rows, pop, cem_rows, s.cem_iter if pop else 0, final_rows, n_first)


def _search(task: Task, oracle: Oracle, s: SAAPSSettings, rng: np.random.Generator
            ) -> MethodResult:
    p = plan(s, oracle.budget, task.dim_x)
    info: dict = {"plan": asdict(p)}

    def estimate(rows: int):
        def on_common_sample(X: np.ndarray) -> np.ndarray:
            return estimate_batch(task, oracle, X, rows, crn=True, antithetic=True)[0]
        return on_common_sample

    # 1. screen
    with oracle.phase("screen"):
        screened = screen(task.space_filling(p.screen_points, rng), estimate(p.screen_rows))
    best = screened.order[0]
    oracle.record_best(screened.X[best], screened.values[best], replace=True)

    # 2. CEM from the best screened decisions
    candidates = list(screened.ranked)
    if p.cem_iter:
        with oracle.phase("cem"):
            cem = cem_from_screen(
                screened, estimate(p.cem_rows), task.project, rng,
                population=min(p.cem_pop, p.screen_points), iterations=p.cem_iter,
                elite_frac=s.cem_elite_frac, smoothing=s.cem_smoothing,
                on_best=lambda x, v: oracle.record_best(x, v, replace=True),
            )
        candidates = [cem.best_x, cem.mean, *candidates]
        info.update(cem_best=cem.best_x.tolist(), cem_mean=cem.mean.tolist())

    # 3 and 4. the refinement from the distinct best candidates
    x, value = refine(task, oracle, s.refinement(), np.array(candidates), p.n_first,
                      p.final_rows, info)
    return MethodResult(x=x, value=value, info=info)


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
