"""GP-BO: Bayesian optimisation with a Gaussian process and Expected Improvement (Section 3).

The paper: a GP with a squared-exponential ARD kernel, hyperparameters by marginal
likelihood, Expected Improvement; 18 LHC initial points, 25 EI-guided evaluations of 130
Monte Carlo draws each, then an L-BFGS-B polish of the best observed point. DESIGN.md section 4
fixes the implementation: scikit-optimize's ``Optimizer`` (ask/tell) with

* a GP on ``ConstantKernel * RBF(length_scale=ones(6)) + WhiteKernel`` (skopt's
  ``GaussianProcessRegressor``, ``normalize_y``): the white-noise term is there because every
  observation is a 130-draw Monte Carlo estimate; skopt zeroes it for prediction, so EI is
  computed on the latent J surface;
* the search run in the unit cube [0, 1]^6, every proposal mapped through the design map T
  (``task.design``), so every evaluated decision is feasible without skopt's slow
  ``space_constraint`` path; the 18 initial points are a maximin Latin hypercube in the cube
  (:func:`~acfs_cli.core.space.maximin_lhs`), told to the optimizer as cube points;
* **refit every step**, where the paper refits every five: skopt refits the GP on every
  ``tell``, and its ``fit=False`` makes the next ``ask`` return the same point again. Each
  refit starts the marginal-likelihood search from the previous step's hyperparameters
  (plus ``gp_restarts`` random restarts), which keeps 26 refits cheap;
* BLAS and OpenMP pinned to one thread (threadpoolctl) for the whole search:
  oversubscription made GP fits an order of magnitude slower when measured.

"Best observed point": the observed decision with the lowest posterior mean under the final
GP (``incumbent = "posterior-mean"``), since the raw minimum of 43 noisy heavy-tailed
estimates is the luckiest draw rather than the best decision; ``"observed"`` takes the raw
minimum.

The polish (the paper does not say on which objective): the shared L-BFGS-B
(:func:`~acfs_cli.kernels.polish.direct_polish`) on J estimated from ``polish_n`` = 260
fixed normals (2 x the BO's 130), so finite differences are common-random-number differences
and every new decision is charged: each evaluation with its gradient charges 13 x 260 = 3,380
draws. The polish may spend ``polish_draws`` = 38,000 draws (11 evaluations), the paper's
median of 43,615 (Table "budget") minus the 18 x 130 + 25 x 130 = 5,590 of the BO loop; it
ends earlier when L-BFGS-B converges (on DGP2, whose optimum is a vertex-like point of X, it
typically does after 4-7 evaluations, for a median of about 21,000 draws in all).

Measured (``benchmarks/bench_methods.py``, 10 replications, lambda 0.7, true J by 200,000
draws): the BO loop alone ends at a median of 262k on DGP1 and 361k on DGP2; with the
polish, 173k and 315k (optima about 172k and 312k). 43 noisy evaluations locate the basin;
the polish, whose CRN gradient is made tangential on the face x_1 + ... + x_5 = 0.85
(``task.tangent``), walks to DGP1's optimum on that face.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

import numpy as np
from pydantic import Field
from threadpoolctl import threadpool_limits

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.space import maximin_lhs
from acfs_cli.core.task import Task
from acfs_cli.kernels.estimate import estimate_batch
from acfs_cli.methods.base import Method, MethodResult, scaled
from acfs_cli.methods.kernel_settings import PolishSettings


class GPBOSettings(PolishSettings):
    """GP-BO hyperparameters; defaults from the paper (Section 3, Table "params")."""

    n_init: int = Field(18, ge=2, description="maximin LHC initial points (paper: 18)")
    n_iter: int = Field(25, ge=0, description="EI-guided evaluations (paper: 25)")
    n_mc: int = Field(130, ge=2, description="true-DGP draws per evaluation (paper: 130)")
    xi: float = Field(0.01, ge=0, description="EI exploration margin, in units of J")
    acq_optimizer: Literal["lbfgs", "sampling"] = Field(
        "lbfgs", description="skopt's maximiser of EI: random points, or L-BFGS-B from the best"
    )
    n_points: int = Field(1000, ge=1, description="random cube points scored by EI per step")
    acq_restarts: int = Field(3, ge=1, description="L-BFGS-B starts on EI (acq_optimizer lbfgs)")
    gp_restarts: int = Field(1, ge=0, description="random restarts of the likelihood search")
    warm_start: bool = Field(
        True, description="start each likelihood search from the previous hyperparameters"
    )
    incumbent: Literal["posterior-mean", "observed"] = Field(
        "posterior-mean", description="how the best observed point is chosen"
    )
    polish_draws: int = Field(
        38_000, ge=0, description="draws the polish may spend (paper: about 38,000, Table budget)"
    )

    def scale(self, factor: float, dim: int) -> dict[str, Any]:
        """At least d + 1 initial points; the EI steps and the draws per evaluation grow
        like the square root of the budget (the steps at most 100: each refits the GP)."""
        return {
            "n_init": max(self.n_init, dim + 1),
            "n_iter": min(100, scaled(self.n_iter, factor, 0.5, floor=min(self.n_iter, 5))),
            "n_mc": scaled(self.n_mc, factor, 0.5, floor=20),
            **self.scale_polish(factor, dim),
        }

    def minimum_budget(self, dim: int) -> int:
        """The initial design and five EI steps of 20 draws each."""
        return (max(self.n_init, dim + 1) + min(self.n_iter, 5)) * 20


def _kernel(d: int, constant: float = 1.0, length_scale=None, noise: float = 0.1):
    """Squared-exponential ARD kernel plus white noise, in the unit cube, for normalised y."""
    from skopt.learning.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    ls = np.ones(d) if length_scale is None else np.asarray(length_scale, dtype=float)
    return ConstantKernel(constant, (1e-3, 1e3)) * RBF(ls, [(1e-2, 1e2)] * d) + WhiteKernel(
        noise, (1e-6, 1e1)
    )


def _fitted_kernel(model, d: int):
    """The kernel of a fitted skopt GP with its noise level restored (skopt zeroes it)."""
    k = model.kernel_
    noise = float(model.noise_) if model.noise_ is not None else 0.1
    return _kernel(d, float(k.k1.k1.constant_value), k.k1.k2.length_scale,
                   float(np.clip(noise, 1e-6, 1e1)))


def search(
    task: Task, oracle: Oracle, s: GPBOSettings, rng: np.random.Generator
) -> MethodResult:
    with threadpool_limits(1):
        return _gp_bo(task, oracle, s, rng)


def _gp_bo(task: Task, oracle: Oracle, s: GPBOSettings, rng: np.random.Generator):
    from skopt import Optimizer  # about a second to import: loaded before the search (imports)
    from skopt.learning import GaussianProcessRegressor

    d = task.dim_x
    gp = GaussianProcessRegressor(
        kernel=_kernel(d),
        normalize_y=True,
        noise="gaussian",
        n_restarts_optimizer=s.gp_restarts,
        random_state=int(rng.integers(2**31 - 1)),
    )
    opt = Optimizer(
        [(0.0, 1.0)] * d,
        base_estimator=gp,
        n_initial_points=s.n_init,
        acq_func="EI",
        acq_func_kwargs={"xi": s.xi},
        acq_optimizer=s.acq_optimizer,
        acq_optimizer_kwargs={"n_points": s.n_points, "n_restarts_optimizer": s.acq_restarts},
        random_state=int(rng.integers(2**31 - 1)),
    )

    def tell(U: np.ndarray, J: np.ndarray) -> None:
        # skopt warns on every likelihood search that ends on a bound of a hyperparameter.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opt.tell(U.tolist(), J.tolist())
        if s.warm_start and opt.models:
            opt.base_estimator_.set_params(kernel=_fitted_kernel(opt.models[-1], d))

    def ask() -> np.ndarray:
        # When EI's maximiser lands on a point already evaluated (a corner of the cube, often),
        # skopt warns and proposes a random point instead; that is its design, not a fault.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return np.clip(np.asarray(opt.ask(), dtype=float), 0.0, 1.0)

    U = maximin_lhs(s.n_init, d, rng)
    start = task.space.unit_of(task.x0) if task.x0 is not None else None
    if start is not None:  # the user's start is one of the initial points
        U[0] = start
    X = task.design(U)
    with oracle.phase("init"):
        J = estimate_batch(task, oracle, X, s.n_mc)[0]
    for x, j in zip(X, J, strict=True):
        oracle.record_best(x, j)
    tell(U, J)
    with oracle.phase("bo"):
        for _ in range(s.n_iter):
            u = ask()
            x = task.design(u)
            j = estimate_batch(task, oracle, x[None, :], s.n_mc)[0]
            oracle.record_best(x, float(j[0]))
            tell(u[None, :], j)
            U, X, J = np.vstack([U, u]), np.vstack([X, x]), np.append(J, j)
    if s.incumbent == "posterior-mean" and opt.models:
        score = np.asarray(opt.models[-1].predict(U), dtype=float)
    else:
        score = J
    k = int(np.argmin(score))
    x_best, value = X[k], float(score[k])
    oracle.record_best(x_best, value, replace=True)
    info = {"bo_best": x_best.tolist(), "bo_best_score": value, "observed_min": float(J.min())}
    plan = f"{s.n_init} + {s.n_iter} evaluations of {s.n_mc} draws"
    if not s.polish:
        info["stop_reason"] = f"plan complete: {plan}, no polish"
        return MethodResult(x=x_best, value=value, info=info)
    with oracle.phase("polish"), oracle.allowance(s.polish_draws):
        res = s.run_polish(task, oracle, x_best)
    if not np.isfinite(res.value):  # not even the start could be evaluated
        return MethodResult(x=x_best, value=value, info=info,
                            stopped_by_budget=res.stopped_by_budget)
    # GP-BO plans the paper's draws, not the budget's: a stop with draws left says what ran.
    info.update(polish_nit=res.nit, polish_nfev=res.nfev, polish_message=res.message,
                stop_reason=f"{res.reason} (plan: {plan}, then a polish of at most "
                f"{s.polish_draws:,} draws; n_iter and polish_draws spend more)")
    oracle.record_best(res.x, res.value, replace=True)
    return MethodResult(x=res.x, value=res.value, info=info,
                        stopped_by_budget=res.stopped_by_budget)


GP_BO = Method(
    name="gp-bo",
    version="2",
    display="GP-BO",
    settings_model=GPBOSettings,
    search=search,
    imports=("skopt", "skopt.learning"),
    summary="Gaussian-process Bayesian optimisation with Expected Improvement (skopt, 18 + 25 "
    "evaluations of 130 draws), then an L-BFGS-B polish",
    one_at_a_time="each Expected-Improvement step proposes one decision (it needs the last "
    "evaluation); the initial design and the polish's stencils are asked for at once",
)
