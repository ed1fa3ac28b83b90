"""Sample averages of J = E[C] + lam CVaR_alpha(C) of a problem, written apart from acfs.

Used by ``find_optima.py`` (the held-out optima, found without acfs) and by
``benchmarks/bench_peers.py`` (the general-purpose optimisers' objective and the final score
of every method). CVaR is the Rockafellar-Uryasev form at the empirical alpha-quantile by the
inverted CDF; its standard error is that of the mean of the influence values.
"""

from __future__ import annotations

import numpy as np


def risk(costs, lam: float, alpha: float) -> tuple[float, float]:
    """``(J, SE of J)`` of the cost samples ``costs`` (n,)."""
    c = np.asarray(costs, dtype=float)
    k = int(np.ceil(alpha * c.size)) - 1  # the inverted-CDF alpha-quantile's order statistic
    tau = np.partition(c, k)[k]
    tail = np.maximum(c - tau, 0.0)
    psi = c + lam * (tau + tail / (1.0 - alpha))
    return float(psi.mean()), float(psi.std(ddof=1) / np.sqrt(c.size))


class SampleAverage:
    """J of a problem on one fixed sample of ``rows`` scenarios, as a function of x.

    A problem with ``transform`` is evaluated on fixed normals (exact common random numbers);
    a black box (``sample`` only) on scenarios drawn from a generator started afresh from the
    same seed at every decision, as a user would fix a sample of one. ``calls`` counts the
    evaluations, so ``calls * rows`` is the draws spent.
    """

    def __init__(self, problem, lam: float, alpha: float, rows: int, seed):
        self.problem, self.lam, self.alpha, self.rows = problem, lam, alpha, int(rows)
        self.seed = seed
        self.calls = 0
        self.z = (np.random.default_rng(seed).standard_normal((self.rows, problem.dim_w))
                  if hasattr(problem, "transform") else None)

    def costs(self, x) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if self.z is not None:
            W = self.problem.transform(x, self.z)
        else:
            W = self.problem.sample(x, self.rows, np.random.default_rng(self.seed))
        return self.problem.cost(W, x)

    def __call__(self, x) -> float:
        self.calls += 1
        return risk(self.costs(x), self.lam, self.alpha)[0]

    def with_se(self, x) -> tuple[float, float]:
        return risk(self.costs(x), self.lam, self.alpha)


def box(problem, factor: float = 3.0) -> tuple[np.ndarray, np.ndarray]:
    """The problem's bounds, each side open above closed at ``factor * x0``."""
    low = np.array([b[0] for b in problem.bounds], dtype=float)
    high = np.array([np.inf if b[1] is None else b[1] for b in problem.bounds], dtype=float)
    x0 = np.asarray(problem.x0, dtype=float)
    open_ = ~np.isfinite(high)
    high[open_] = np.maximum(factor * x0[open_], low[open_] + 1.0)
    return low, high
