"""The cross-entropy method (Rubinstein 2004; paper Sections 2.3 and 3).

:func:`cross_entropy` is the one CEM loop of the project: ACFS's warm-start, the CEM-SO
competitor, SAA-PS's second stage and the reference search all run it. The first population
is given (a space-filling design over X); later ones are drawn from a diagonal Gaussian
projected onto X, whose mean and standard deviation are smoothed toward the elite statistics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass
class CEMResult:
    mean: np.ndarray  # final sampling mean (projected onto X)
    std: np.ndarray
    best_x: np.ndarray  # best candidate seen, by its own estimate
    best_value: float
    history: list[dict] = field(default_factory=list)


def cross_entropy(
    evaluate: Callable[[np.ndarray], np.ndarray],
    initial: np.ndarray,
    project: Callable[[np.ndarray], np.ndarray],
    rng: np.random.Generator,
    *,
    n_iter: int,
    elite_frac: float = 0.15,
    smoothing: float = 0.60,
    min_std: float = 1e-3,
    on_best: Callable[[np.ndarray, float], None] | None = None,
) -> CEMResult:
    """Minimise a batch objective by CEM.

    Parameters
    ----------
    evaluate : callable
        Estimated objective of a population X (pop, d) -> (pop,). One call per iteration.
    initial : ndarray (pop, d)
        The first population (a space-filling design over X); its size is the population size.
    smoothing : float
        Weight of the new elite statistics: theta <- s * theta_elite + (1 - s) * theta.
    on_best : callable, optional
        Called with every new best candidate (methods record their incumbent with it).
    """
    pop, d = initial.shape
    n_elite = max(2, int(round(elite_frac * pop)))
    X = initial
    mean = X.mean(axis=0)
    std = X.std(axis=0)
    best_x, best_value = X[0].copy(), np.inf
    history = []
    for it in range(n_iter):
        if it > 0:
            X = project(mean + std * rng.standard_normal((pop, d)))
        values = np.asarray(evaluate(X), dtype=float)
        order = np.argsort(values)
        elite = X[order[:n_elite]]
        if values[order[0]] < best_value:
            best_x, best_value = X[order[0]].copy(), float(values[order[0]])
            if on_best is not None:
                on_best(best_x, best_value)
        mean = smoothing * elite.mean(axis=0) + (1 - smoothing) * mean
        std = np.maximum(smoothing * elite.std(axis=0) + (1 - smoothing) * std, min_std)
        history.append({"iter": it, "best": float(values[order[0]]),
                        "elite_mean": float(values[order[:n_elite]].mean())})
    return CEMResult(mean=project(mean), std=std, best_x=best_x, best_value=best_value,
                     history=history)
