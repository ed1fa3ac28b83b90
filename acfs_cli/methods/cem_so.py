"""CEM-SO: the cross-entropy competitor (paper Section 3).

The project's one CEM loop (:func:`acfs_cli.kernels.cem.cross_entropy`, 12 iterations x 55
candidates x 130 draws) on direct oracle estimates, then the shared L-BFGS-B polish on a
common-random-number objective (:func:`acfs_cli.kernels.polish.direct_polish`).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import Field

from acfs_cli.core.oracle import BudgetExhausted, Oracle
from acfs_cli.core.task import Task
from acfs_cli.kernels.cem import cross_entropy
from acfs_cli.kernels.estimate import estimate_batch
from acfs_cli.kernels.stencil import CRNObjective
from acfs_cli.methods.base import Method, MethodResult, scaled
from acfs_cli.methods.kernel_settings import PolishSettings


class CEMSOSettings(PolishSettings):
    """CEM-SO hyperparameters; defaults from the paper (Section 3, Table "params")."""

    n_iter: int = Field(12, ge=1, description="CEM iterations T (paper: 12)")
    population: int = Field(55, ge=4, description="candidates per iteration (paper: 55)")
    elite_frac: float = Field(0.15, gt=0, le=1, description="elite fraction (paper: 15 %)")
    smoothing: float = Field(0.60, gt=0, le=1, description="smoothing of mean and SD (paper: 0.60)")
    n_mc: int = Field(130, ge=2, description="true-DGP draws per candidate (paper: 130)")
    min_std: float = Field(1e-3, gt=0, description="floor of the sampling SD per coordinate")
    crn: bool = Field(
        True, description="one common sample for every candidate of an iteration (paired ranking)"
    )
    antithetic: bool = Field(False, description="draws as antithetic pairs (z, -z)")
    polish_n: int = Field(520, ge=2, description="rows of the polish's common sample "
                          "(paper: 4 x 130)")
    polish_draws: int = Field(
        108_500, ge=0, description="draws the polish may spend (paper: about 108,500, Table budget)"
    )
    def scale(self, factor: float, dim: int) -> dict[str, Any]:
        """The population and the draws per candidate grow like the square root of the
        budget; the polish's draws follow it."""
        return {
            "population": scaled(self.population, factor, 0.5, floor=min(self.population, 10)),
            "n_mc": scaled(self.n_mc, factor, 0.5, floor=20),
            **self.scale_polish(factor, dim),
        }

    def minimum_budget(self, dim: int) -> int:
        """The CEM loop with populations of 10 candidates of 20 draws."""
        return self.n_iter * min(self.population, 10) * 20

    polish_start: Literal["better", "mean", "best"] = Field(
        "better",
        description="polish from the final sampling mean, the best candidate, or whichever of "
        "the two is better on the polish's own normals",
    )


def search(
    task: Task, oracle: Oracle, s: CEMSOSettings, rng: np.random.Generator
) -> MethodResult:
    """CEM-SO (paper Section 3): :func:`cross_entropy` on direct estimates, then a polish.

    Every iteration is one oracle call (``estimate_batch``: population x ``n_mc`` draws, with
    common random numbers across the population by default, so elites are chosen on paired
    estimates); 12 x 55 x 130 = 85,800 draws. The polish then runs the shared L-BFGS-B on J
    estimated from ``polish_n`` = 4 x 130 fixed normals (:func:`direct_polish`); each
    evaluation with its CRN gradient charges 13 x 520 = 6,760 draws. The polish may spend
    ``polish_draws`` = 108,500, the paper's median total of 194,305 (Table "budget") minus the
    85,800 of the CEM loop: 2 x 520 to choose the start and 15 evaluations, 188,240 draws in
    all when L-BFGS-B does not converge first (DGP1; on DGP2 it typically converges after
    3-5 evaluations). The start is whichever of the final mean and the best candidate is
    better on the polish's own normals: the best candidate is the minimum of 660 noisy
    estimates (optimistically biased), the mean is the smoothed consensus of the elites, and
    comparing both costs only 2 x 520 draws.

    Common random numbers across a population (``crn``) are not in the paper; they make the
    elite selection a paired comparison. Measured (10 replications, lambda 0.7, true J):
    without the polish they improve CEM's own answer (DGP1 209k vs 214k, DGP2 348k vs 395k);
    after the polish the two are equal within noise (DGP1 173k vs 172k, DGP2 316k both).
    """
    def evaluate(X: np.ndarray) -> np.ndarray:
        return estimate_batch(task, oracle, X, s.n_mc, crn=s.crn, antithetic=s.antithetic)[0]

    with oracle.phase("cem"):
        cem = cross_entropy(
            evaluate,
            task.space_filling(s.population, rng),
            task.project,
            rng,
            n_iter=s.n_iter,
            elite_frac=s.elite_frac,
            smoothing=s.smoothing,
            min_std=s.min_std,
            on_best=oracle.record_best,
        )
    info = {"cem_mean": cem.mean.tolist(), "cem_best": cem.best_x.tolist(),
            "cem_best_value": cem.best_value}
    if not s.polish:
        return MethodResult(x=cem.best_x, value=cem.best_value, info=info)
    with oracle.phase("polish"), oracle.allowance(s.polish_draws) as allowance:
        objective = CRNObjective(task, oracle, oracle.common_sample(
            s.polish_n, antithetic=s.antithetic), h=s.polish_h * float(np.mean(task.steps())))
        candidates = {"mean": cem.mean[None], "best": cem.best_x[None],
                      "better": np.vstack([cem.mean, cem.best_x])}[s.polish_start]
        try:
            scores = objective.values(candidates)
        except BudgetExhausted:
            return MethodResult(x=cem.best_x, value=cem.best_value, info=info,
                                stopped_by_budget=not allowance.hit)
        x0, v0 = candidates[int(np.argmin(scores))], float(scores.min())
        res = s.run_polish(task, oracle, x0, objective=objective)
    if not np.isfinite(res.value):  # no evaluation with a gradient fitted in what was left
        res.x, res.value = x0, v0
    info.update(polish_start=x0.tolist(), polish_nit=res.nit, polish_nfev=res.nfev,
                polish_message=res.message, stop_reason=res.reason)
    oracle.record_best(res.x, res.value, replace=True)
    return MethodResult(
        x=res.x, value=res.value, info=info, stopped_by_budget=res.stopped_by_budget
    )


CEM_SO = Method(
    name="cem-so",
    version="2",
    display="CEM-SO",
    settings_model=CEMSOSettings,
    search=search,
    summary="cross-entropy method on direct estimates (12 x 55 x 130 draws), then an "
    "L-BFGS-B polish at 4x the draws",
)
