"""Settings models of the kernels several methods run, one model each: the L-BFGS-B polish
(:class:`PolishSettings`: GP-BO, CEM-SO and SGD-CVaR end with it) and the refinement
(:class:`RefinementSettings`: SAA-PS's last two stages, acfs-plus's phase 4). A method's
settings model derives from the one of the kernel it runs, so each setting is defined once.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import Field, model_validator

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.kernels.pattern import PatternSettings
from acfs_cli.kernels.polish import PolishResult, direct_polish
from acfs_cli.kernels.refine import FinalPick, Refinement, Schedule, StageSettings
from acfs_cli.methods.base import REFERENCE_DIM, ScaledSettings, Settings, scaled


class PolishSettings(ScaledSettings):
    """The settings of the shared L-BFGS-B polish on a common-random-number objective
    (:func:`acfs_cli.kernels.polish.direct_polish`) that GP-BO, CEM-SO and SGD-CVaR end
    with; each method overrides the defaults the paper gives it."""

    polish: bool = Field(True, description="finish with the shared L-BFGS-B polish")
    polish_n: int = Field(260, ge=2, description="fixed normals of the polish objective")
    polish_maxiter: int = Field(50, ge=1, description="L-BFGS-B iterations of the polish")
    polish_h: float = Field(2e-3, gt=0, description="finite-difference step of the polish")
    polish_guard: float = Field(
        0.0, ge=0, description="keep the start unless the polish beats it by this many SEs"
    )

    def run_polish(self, task: Task, oracle: Oracle, x0: np.ndarray, *,
                   antithetic: bool = False, objective=None) -> PolishResult:
        """The shared polish from ``x0`` with these settings (its step in units of the
        task's step scale: the benchmarks' is 1)."""
        h = self.polish_h * float(np.mean(task.steps()))
        return direct_polish(task, oracle, x0, n=self.polish_n, maxiter=self.polish_maxiter,
                             h=h, guard=self.polish_guard, antithetic=antithetic,
                             objective=objective)

    def scale_polish(self, factor: float, dim: int) -> dict[str, Any]:
        """The polish's sample (square root of the factor) and its draws (the factor, per
        difference point of the stencil)."""
        out = {"polish_n": scaled(self.polish_n, factor, 0.5, floor=20, even=True)}
        if hasattr(self, "polish_draws"):
            stencil = (2 * dim + 1) / (2 * REFERENCE_DIM + 1)
            out["polish_draws"] = scaled(self.polish_draws, factor * stencil, floor=0)
        return out


class RefinementSettings(Settings):
    """The shared refinement's settings (:func:`acfs_cli.kernels.refine.refine`): its search
    stages on growing common samples, its final pick, and the shares of a budget of which it
    is planned (a screen and a CEM stage take ``screen_share`` and ``cem_share`` first, the
    final pick ``final_share``). The defaults are SAA-PS's, measured there."""

    screen_share: float = Field(0.06, ge=0, lt=1, description="share of the budget for the "
                                "space-filling screen")
    cem_share: float = Field(0.12, ge=0, lt=1, description="share of the budget for the CEM "
                             "stage (0 skips it)")
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


