"""The final evaluation of a method's x*, outside the budget and never visible to a method.

Paper Section 4.2 and DESIGN.md section 5: a common pool of 2,000 rows per (problem, rep),
seeded apart from the methods, is drawn at every method's x* (the same normals through a
transform, the same seeded blocks for a sample-only simulator), so all methods of a
replication are compared on the same random numbers (paired). We report J, EC,
CVaR and a 400-resample percentile bootstrap 95 % interval for J.

Heavy tails make one more estimate necessary: near DGP1's optimum a 2,000-draw estimate of J
has a robust SD of 8-10 % of J and is skewed low, so that protocol cannot separate close
methods. :func:`evaluate_precise` estimates the true J(x*) on a large common sample (for
example 200,000 draws) with its asymptotic standard error.
"""

from __future__ import annotations

import json

import numpy as np

from acfs_cli.common.seeding import seed_sequence, stream
from acfs_cli.core.draws import Run
from acfs_cli.core.feasibility import measure, verdict
from acfs_cli.core.problem import as_problem
from acfs_cli.core.risk import spectral_risk
from acfs_cli.core.sample import CommonSample
from acfs_cli.experiment.search import estimate


def final_pool(seed: int, problem: str, rep: int, n: int = 2000) -> CommonSample:
    """The common evaluation sample of replication ``rep`` of ``problem`` (its name in
    results): ``n`` rows.

    Depends on (seed, problem, rep) only - not on lambda or the method - so results are paired:
    the same normals through a transform, the same seeded stream for a sample-only simulator.
    """
    return CommonSample.of(seed_sequence(seed, "final-pool", problem, int(rep)), n)


def evaluate(problem, x, pool: CommonSample, lam: float, alpha: float, n_boot: int = 400,
             rng=None, run: Run | None = None) -> dict:
    """J, EC, CVaR of ``x`` on the common ``pool`` and a bootstrap 95 % interval for J (the
    pool's pieces simulated by ``run`` where given: the same numbers)."""
    problem = as_problem(problem)
    x = problem.space.check(x)
    W = problem.scenarios(x[None, :], pool, run)[0]
    costs = problem.cost(W, x)
    J, ec, cvar = spectral_risk(costs, lam, alpha)
    out = {"J": J, "EC": ec, "CVaR": cvar, "J_lo": np.nan, "J_hi": np.nan}
    if problem.constraints:
        out.update(feasibility(measure(problem.constraint_values(W, x), problem.constraints)))
    if n_boot > 0:
        rng = rng if rng is not None else np.random.default_rng(0)
        idx = rng.integers(0, costs.size, size=(n_boot, costs.size))
        Jb = spectral_risk(costs[idx], lam, alpha)[0]
        out["J_lo"], out["J_hi"] = (float(v) for v in np.percentile(Jb, [2.5, 97.5]))
    return out


def evaluate_precise(
    problem,
    x,
    lam: float,
    alpha: float,
    n: int = 200_000,
    rng: np.random.Generator | None = None,
    chunk: int = 250_000,
    run: Run | None = None,
) -> dict:
    """A large-sample estimate of the true J(x) with its standard error: the fresh-draws
    estimate of :func:`acfs_cli.experiment.search.estimate`, under the names of the results'
    columns.

    Costs are generated in chunks (memory stays bounded for millions of draws), a sample-only
    simulator's in seeded blocks that ``run`` may simulate; the standard error is the sample
    SD of the influence values of J over sqrt(n). DGP1's cost has infinite variance, so there
    this SE is itself a rough guide.
    """
    problem = as_problem(problem)
    x = problem.space.check(x)
    rng = rng if rng is not None else np.random.default_rng(0)
    est = estimate(problem, x, lam, alpha, n, rng, chunk, run)
    out = {"J_true": est["J"], "EC_true": est["EC"], "CVaR_true": est["CVaR"],
           "J_true_se": est["J_se"]}
    if "constraints" in est:
        out.update(feasibility(est["constraints"]))
    return out


def feasibility(found) -> dict[str, str]:
    """The results' feasibility columns of constraint estimates: the verdict and the
    estimates as JSON."""
    return {"feasible": verdict(found),
            "constraints": json.dumps([e.as_dict() for e in found])}


def precise_stream(seed: int, problem: str, rep: int) -> np.random.Generator:
    """The common large-sample stream of (problem, rep): precise estimates are paired too."""
    return stream(seed, "precise-pool", problem, int(rep))
