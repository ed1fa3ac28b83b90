"""Optimise your own simulator: ``minimize(problem, lam, alpha, budget, method, seed)``.

``problem`` is any object that follows the problem protocol (:mod:`acfs_cli.core.problem`,
DESIGN.md section 1): ``dim_x``, ``dim_w``, ``transform(x, z)`` or ``sample(x, n, rng)``,
``cost(W, x)``, and the decision set by ``project(x)`` or by ``bounds`` (+ ``A``, ``b``).
It is normalised once, by the same function as every problem of a YAML grid.

The problem's sampler is only ever called through the budgeted oracle: every scenario the
method sees is counted, exactly as in the paper's experiments. The returned :class:`Solution`
carries J, E[C] and CVaR of x* estimated on ``n_eval`` (default 20,000) fresh scenarios drawn
*after* the search and *not* counted in ``draws_used``. A simulator that raises, or returns a
wrong shape, NaN or inf, stops the search with one
:class:`~acfs_cli.core.problem.SimulatorError` that names the fault.

Example::

    import numpy as np
    from acfs_cli.api import minimize

    class Newsvendor:
        dim_x, dim_w = 1, 1
        bounds = [(0.0, 3.0)]
        def transform(self, x, z):          # demand grows with the stock (x) shown
            return np.exp(0.2 + 0.3 * x[0] + 0.4 * z)
        def cost(self, W, x):
            return 1.0 * x[0] - 2.0 * np.minimum(W[:, 0], x[0])

    sol = minimize(Newsvendor(), lam=0.5, seed=1)  # 260,000 draws, well under a second
    print(sol.x, sol.J, sol.draws_used)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from acfs_cli.core.guard import SearchGuard, probe
from acfs_cli.core.oracle import Oracle
from acfs_cli.core.problem import as_problem, check_count
from acfs_cli.core.risk import check_risk_params, influence, min_tail_draws, spectral_risk
from acfs_cli.core.seeding import check_seed, stream
from acfs_cli.core.task import Task
from acfs_cli.methods.auto import choose
from acfs_cli.methods.registry import get_method


def default_method(dim_x: int, budget: int = 260_000) -> str:
    """The method ``auto`` (``minimize``'s default) runs for a decision of ``dim_x`` entries
    and ``budget`` draws (:func:`acfs_cli.methods.auto.choose`)."""
    return choose(dim_x, budget)[0]


@dataclass(frozen=True)
class Solution:
    """The result of :func:`minimize`.

    ``J``, ``EC`` and ``CVaR`` are estimated at ``x`` on ``n_eval`` fresh scenarios drawn
    after the search, outside the budget (``J_se`` is their asymptotic standard error);
    ``draws_used`` counts only the search's draws. ``phases`` maps each phase of the method
    to its draws, oracle calls and wall time (seconds); a multi-start local search (ACFS's
    phase 4) adds its ``starts``.
    """

    x: np.ndarray
    J: float
    EC: float
    CVaR: float
    draws_used: int
    phases: dict[str, dict[str, Any]]
    method: str
    J_se: float = float("nan")
    n_eval: int = 0
    value: float = float("nan")  # the method's own estimate of J(x*), on its own draws
    stopped_by_budget: bool = False
    notes: tuple[str, ...] = ()  # what the run did differently from what was asked
    stop_reason: str = ""  # why the search ended (the budget, a converged polish, ...)
    info: dict[str, Any] = field(default_factory=dict, repr=False)


def estimate(problem, x, lam: float, alpha: float, n: int, rng: np.random.Generator,
             chunk: int = 100_000) -> dict[str, float]:
    """J, EC, CVaR and the SE of J at ``x`` from ``n`` fresh scenarios (not budgeted)."""
    x = np.asarray(x, dtype=float)
    costs = np.empty(n)
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        costs[start:start + m] = problem.cost(problem.sample(x, m, rng), x)
    J, ec, cvar = spectral_risk(costs, lam, alpha)
    se = float(influence(costs, lam, alpha).std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan
    return {"J": J, "EC": ec, "CVaR": cvar, "J_se": se}


def minimize(
    problem,
    lam: float = 0.7,
    alpha: float = 0.95,
    budget: int = 260_000,
    method: str | None = None,
    seed: int | np.random.Generator = 0,
    *,
    x0=None,
    n_eval: int = 20_000,
    **settings: Any,
) -> Solution:
    """Minimise ``J(x) = E[C(W, x)] + lam * CVaR_alpha(C(W, x))``, ``W ~ P_x``, over X.

    Parameters
    ----------
    problem
        Your simulator (see the module docstring for the protocol) or a benchmark
        (``acfs_cli.problems.get_problem("dgp1")``).
    lam, alpha
        Weight of the CVaR and its level (paper eq. (1)).
    budget
        Hard cap on scenarios drawn from ``problem`` during the search (paper: 260,000).
    method
        ``None`` (the default) runs ``"auto"``, which chooses by the measured studies from
        the dimension and the budget and answers at every budget from ten draws per decision
        dimension up (:mod:`acfs_cli.methods.auto`; ``notes`` say what it chose and why). Or
        name one: ``"astro"`` (small budgets, any dimension), ``"saa-ps"``, ``"acfs-plus"``,
        ``"acfs"`` (paper-faithful), an ablation variant (``"acfs-noav"``, ``"acfs-nocem"``,
        ``"acfs-norerank"``, ``"acfs-noaug"``), a competitor (``"gp-bo"``, ``"cem-so"``,
        ``"sgd-cvar"``, ``"kde-so"``), a SimOpt solver (``"simopt-astrodf"``, ...), or a
        user's method by import path. A named method may refuse a budget below its minimum.
    seed
        Seed of every random stream (search and final estimate): an integer in [0, 2**63),
        or a ``numpy.random.Generator`` from which one is drawn; same seed, same answer.
    x0
        Where the search starts, in place of the problem's own ``x0``: every method takes it
        as its first incumbent and the centre of its first designs, and learns its step sizes
        from it (DESIGN.md section 7). Needed where X is unbounded (a bound of ``inf``).
    n_eval
        Fresh scenarios for the reported J, EC and CVaR of x* (outside the budget).
    **settings
        Method settings, for example ``n_a=600`` or ``gradient="pathwise"`` (unknown names
        are errors; ``acfs_cli.methods.acfs.ACFSSettings`` documents ACFS's).
    """
    seed = check_seed(seed)
    prob = as_problem(problem, x0=x0)
    n_eval = check_count(n_eval, "n_eval")
    lam, alpha = check_risk_params(lam, alpha)
    if n_eval < min_tail_draws(alpha):
        raise ValueError(f"n_eval must be at least {min_tail_draws(alpha):,} at alpha {alpha:g} "
                         f"(ten draws in the CVaR tail), got {n_eval:,}")
    if method is None:
        method = "auto"
    m = get_method(method)
    task = Task.from_problem(prob, lam, alpha)
    probe(prob)
    oracle = Oracle(prob, budget, stream(seed, "api", "oracle", method))
    with SearchGuard() as guard:
        result = m(task, oracle, stream(seed, "api", "method", method), settings)
    guard.verify(oracle.used, oracle.budget)
    est = estimate(prob, result.x, task.lam, task.alpha, int(n_eval),
                   stream(seed, "api", "evaluation"))
    return Solution(
        x=np.asarray(result.x, dtype=float).copy(),
        J=float(est["J"]), EC=float(est["EC"]), CVaR=float(est["CVaR"]),
        draws_used=int(result.oracle_draws),
        phases=_phases(result),
        method=method,
        J_se=float(est["J_se"]),
        n_eval=int(n_eval),
        value=float(result.value),
        stopped_by_budget=bool(result.stopped_by_budget),
        notes=tuple(result.notes),
        stop_reason=result.stop_reason,
        info=dict(result.info),
    )


def _phases(result) -> dict[str, dict[str, Any]]:
    """Per phase: draws and oracle calls (the oracle's account), wall time when recorded and,
    for a multi-start local search, its ``starts`` (iterations, message, value of each)."""
    out: dict[str, dict[str, Any]] = {}
    timed: Mapping[str, Any] = result.info.get("phases", {}) if result.info else {}
    for name, rec in timed.items():
        out[name] = {"draws": int(rec.get("draws", 0)), "calls": 0,
                     "time_s": float(rec.get("time_s", 0.0))}
        if "starts" in rec:  # a multi-start local search: each start's iterations and value
            out[name]["starts"] = list(rec["starts"])
    for name, acc in result.account.items():
        row = out.setdefault(name, {"draws": 0, "calls": 0, "time_s": float("nan")})
        row["draws"], row["calls"] = int(acc["draws"]), int(acc["calls"])
    return out
