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
with these settings' defaults
(:class:`~acfs_cli.methods.kernel_settings.RefinementSettings`).

Where the problem takes normals, every common sample is antithetic; a sample-only simulator
gets re-seeded plain samples (DESIGN.md section 3).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from pydantic import Field

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.kernels.estimate import estimate_batch
from acfs_cli.kernels.refine import (
    cem_from_screen,
    even,
    refine,
    refine_sizes,
    screen,
)
from acfs_cli.methods.base import Method, MethodResult
from acfs_cli.methods.kernel_settings import RefinementSettings


class SAAPSSettings(RefinementSettings):
    """SAA-PS settings: the shapes of its screen and CEM stages (see :func:`plan`), and the
    shares of the budget and the shared refinement's settings it takes from
    :class:`~acfs_cli.methods.kernel_settings.RefinementSettings` (its defaults are
    SAA-PS's)."""

    screen_aspect: float = Field(0.7, gt=0, description="rows per screened decision over the "
                                 "number of decisions")
    cem_iter: int = Field(5, ge=1, description="CEM iterations")
    cem_aspect: float = Field(6.0, gt=0, description="rows per CEM candidate over the "
                              "population")
    cem_elite_frac: float = Field(0.2, gt=0, le=1, description="CEM elite fraction")
    cem_smoothing: float = Field(0.7, gt=0, le=1, description="CEM smoothing of mean and SD")

    def minimum_budget(self, dim: int) -> int:
        """A screen of 2 d + 2 decisions and a first search stage, about 100 draws each."""
        return 100 * (2 * dim + 2)


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


def search(task: Task, oracle: Oracle, s: SAAPSSettings, rng: np.random.Generator
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
    search=search,
    summary="space-filling screen and CEM on common samples, retrospective approximation "
    "(L-BFGS-B and projected pattern search on growing common samples), median-of-means "
    "final pick; every stage sized from the budget",
    sample_only="antithetic pairs become plain common samples",
)
