"""The shared L-BFGS-B polish over X (paper Sections 2.3 Phase 4 and 3; DESIGN.md section 4).

Every method that ends with "an L-BFGS-B polish" uses this one routine. L-BFGS-B handles the
bounding box of X natively; the rest of X (the benchmarks' sum constraint, a user's
``A x <= b`` or own projection) is handled by evaluating the objective at the projection
P(x) and adding a penalty on the distance to X, ``rho * ||x - P(x)||^2``, so the iterates
may step outside X but every point the objective sees, and the returned point, lies in X.

Objectives here are Monte Carlo estimates: the caller decides whether each call draws fresh
scenarios (charged by the oracle) or reuses cached ones. The best point by objective value
over all evaluations is returned, which is what a noisy line search needs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from acfs_cli.core.oracle import AllowanceSpent, BudgetExhausted, Oracle
from acfs_cli.core.risk import influence
from acfs_cli.core.space import tangent_gradient
from acfs_cli.core.task import Task
from acfs_cli.kernels.stencil import CRNObjective


@dataclass
class PolishResult:
    x: np.ndarray  # best evaluated point (feasible)
    value: float  # its objective value
    nit: int
    nfev: int
    message: str
    stopped_by_budget: bool = False

    @property
    def reason(self) -> str:
        """Why the polish ended, in a few words (a method's stop reason)."""
        if self.stopped_by_budget:
            return "the budget ran out"
        if "allowance" in self.message:
            return "the polish spent its allowance"
        if self.message.upper().startswith("CONVERGENCE"):
            return "converged: the polish's L-BFGS-B converged"
        if "ITERATIONS" in self.message.upper():
            return "the polish reached its iteration limit"
        return f"the polish ended: {self.message}" if self.message else "plan complete"


def polish(
    fun: Callable[[np.ndarray], float],
    x0: np.ndarray,
    project: Callable[[np.ndarray], np.ndarray],
    bounds: list[tuple[float, float]],
    *,
    jac: Callable[[np.ndarray], np.ndarray] | None = None,
    maxiter: int = 80,
    eps: float = 1e-3,
    penalty: float = 1e6,
    scale: float = 1.0,
    tangent: bool = False,
) -> PolishResult:
    """Minimise ``fun`` over X by L-BFGS-B from ``x0``.

    Parameters
    ----------
    fun : callable
        Objective at a feasible point.
    project : callable
        Euclidean projection onto X.
    jac : callable, optional
        Gradient of ``fun`` at a feasible point. Without it, scipy's forward differences of
        the penalised objective with step ``eps`` (each difference calls ``fun``); Monte Carlo
        objectives should pass a common-random-number gradient instead.
    scale : float
        Objective values are divided by ``scale`` inside L-BFGS-B (costs are O(1e5); a
        well-scaled objective keeps its tolerances meaningful).
    penalty : float
        Weight of the squared distance to X, on the scaled objective.
    tangent : bool
        Hand L-BFGS-B the projected gradient (:func:`tangent_gradient`) instead of ``jac``,
        so the polish moves along a face of X when the descent direction leaves X.

    Stops cleanly on :class:`~acfs_cli.core.oracle.BudgetExhausted` inside ``fun`` or
    ``jac`` and returns the best point evaluated so far (an exhausted phase allowance,
    :class:`~acfs_cli.core.oracle.AllowanceSpent`, is the planned end, not a budget stop);
    ``nit`` then counts the iterations L-BFGS-B completed before the stop.
    """
    best = {"x": project(np.asarray(x0, dtype=float)), "f": np.inf}
    nfev = 0

    def penalised(x: np.ndarray) -> float:
        nonlocal nfev
        px = project(x)
        f = fun(px)
        nfev += 1
        if f < best["f"]:
            best["x"], best["f"] = px.copy(), f
        return f / scale + penalty * float(np.sum((x - px) ** 2))

    def gradient(x: np.ndarray) -> np.ndarray:
        px = project(x)
        g = np.asarray(jac(px), dtype=float) / scale
        if tangent:
            g = tangent_gradient(px, g, project)
        return g + 2.0 * penalty * (x - px)

    def penalised_and_grad(x: np.ndarray):
        return penalised(x), gradient(x)

    x_start = best["x"]
    message, nit, stopped = "", 0, False
    # Counted here as well as by scipy: a stop inside fun or jac raises past scipy's result,
    # and the iterations done before it are part of what the polish did.
    iterations = 0

    def count(*_) -> None:
        nonlocal iterations
        iterations += 1

    try:
        if jac is not None:
            res = minimize(
                penalised_and_grad,
                x_start,
                jac=True,
                method="L-BFGS-B",
                bounds=bounds,
                options={"maxiter": maxiter},
                callback=count,
            )
        else:
            res = minimize(
                penalised,
                x_start,
                method="L-BFGS-B",
                bounds=bounds,
                options={"maxiter": maxiter, "eps": eps},
                callback=count,
            )
        message, nit = str(res.message), int(res.nit)
    except AllowanceSpent:
        message, nit = "phase allowance spent", iterations
    except BudgetExhausted:
        message, nit, stopped = "oracle budget exhausted", iterations, True
    return PolishResult(
        x=best["x"], value=float(best["f"]), nit=nit, nfev=nfev, message=message,
        stopped_by_budget=stopped,
    )


def direct_polish(
    task: Task,
    oracle: Oracle,
    x0: np.ndarray,
    *,
    n: int,
    maxiter: int,
    h: float,
    antithetic: bool = False,
    penalty: float = 1.0,
    guard: float = 0.0,
    objective: CRNObjective | None = None,
) -> PolishResult:
    """The shared L-BFGS-B polish from ``x0`` on a direct-oracle CRN objective.

    The objective is J estimated on one common sample of ``n`` rows (:class:`CRNObjective`),
    so L-BFGS-B sees a deterministic, piecewise-smooth function of x whose finite
    differences are common-random-number differences; each evaluation (value with its
    gradient) charges (2 d_x + 1) n draws. Stops cleanly at ``maxiter``, at the cap or at
    the end of an allowance the caller opened (:meth:`~acfs_cli.core.oracle.Oracle.allowance`).
    Pass ``objective`` to continue on the common sample already used to pick ``x0``.

    The gradient handed to L-BFGS-B is made tangential on the faces of X (``task.tangent``),
    and the penalty on the distance to X is mild (``penalty`` = 1 on an objective scaled to
    about 1): the polish evaluates J at the projection P(x), which does
    not change along the outward normal, so any positive weight already makes X the
    minimiser, while the default weight of 1e6 turns the outside of the half-space into a
    cliff that L-BFGS-B's first, long step always falls off (measured: the line search then
    backtracks 20 times and ends without a step).

    ``guard`` > 0 keeps the start unless the polished point beats it by ``guard`` standard
    errors of the paired difference on the polish's own normals (the SD of the per-scenario
    influence differences of J over sqrt(n); :func:`acfs_cli.core.risk.influence`). The polish
    returns the best of the points it evaluated on one sample; near a flat optimum that
    minimum is mostly the sample's noise, and the guard stops it from trading a good start
    for a lucky one.
    """
    if objective is None:
        objective = CRNObjective(task, oracle, oracle.common_sample(n, antithetic=antithetic),
                                 h=h)
    x0 = task.project(np.asarray(x0, dtype=float))
    try:
        f0 = objective.value(x0)
        c0 = objective.costs(x0)
        scale = max(abs(f0), 1.0)
    except AllowanceSpent:
        return PolishResult(x=x0, value=np.inf, nit=0, nfev=0, message="no allowance left")
    except BudgetExhausted:
        return PolishResult(x=x0, value=np.inf, nit=0, nfev=0, message="no budget left",
                            stopped_by_budget=True)
    res = polish(
        objective.value,
        x0,
        task.project,
        task.bounds(),
        jac=objective.face_gradient,
        maxiter=maxiter,
        penalty=penalty,
        scale=scale,
    )
    if objective.best_x is not None and objective.best_value <= res.value:
        res.x, res.value = objective.best_x.copy(), float(objective.best_value)
    if guard > 0 and not np.array_equal(res.x, x0) and objective.best_costs is not None:
        d = influence(objective.best_costs, task.lam, task.alpha) - influence(
            c0, task.lam, task.alpha
        )
        se = float(d.std(ddof=1) / np.sqrt(d.size))
        if not float(d.mean()) < -guard * se:
            res.x, res.value = x0, f0
            res.message += f"; kept the start (gain {-d.mean():.4g} < {guard} x SE {se:.4g})"
            oracle.record_best(x0, f0, replace=True)
    return res
