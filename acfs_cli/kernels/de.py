"""Differential Evolution on a surrogate of J (paper Sections 2.3 Phase 1 and 3).

The one DE routine of the project: ACFS's Phase 1 (DE/current-to-best/1/bin, 55
generations, population 85, on the KDE surrogate) and the KDE-SO competitor both call
:func:`surrogate_de`. It wraps :func:`scipy.optimize.differential_evolution` with

* ``vectorized=True`` and ``updating="deferred"``: a whole generation is ONE surrogate call
  (the surrogate is vectorised over candidates, so a population costs about as much as a
  handful of single evaluations);
* the caller's initial population (``init``), so ACFS can seed a third of it around the
  CEM mean and keep the rest space-filling;
* ``polish=False``: polishing is the caller's job (the shared L-BFGS-B of
  :mod:`acfs_cli.kernels.polish`);
* ``tol=0``: as R's ``DEoptim`` (the paper's implementation), all ``maxiter`` generations run;
  scipy's default relative tolerance would stop a converging population early.

X is a box plus the half-space x_1 + ... + x_5 <= 0.85. DE handles the box (its bounds); for
the half-space every trial vector is evaluated at its projection P(x) and charged a penalty
``penalty * s * ||x - P(x)||^2``, with ``s`` the median |f| of the initial population (the
objective's own scale, fixed once so the penalised objective stays a fixed function). The
returned population is projected onto X and its values are the surrogate at those points.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import differential_evolution


@dataclass
class DEResult:
    x_best: np.ndarray  # best member of the final population (feasible)
    f_best: float  # its surrogate value
    population: np.ndarray  # (P, d_x) final population, projected onto X
    population_values: np.ndarray  # (P,) surrogate values at the projected members
    nit: int = 0  # generations run
    nfev: int = 0  # candidate evaluations (population members, not calls)


def surrogate_de(
    objective: Callable[[np.ndarray], np.ndarray],
    init: np.ndarray,
    task,
    rng: np.random.Generator,
    *,
    maxiter: int = 55,
    strategy: str = "currenttobest1bin",
    mutation: float | tuple[float, float] = (0.5, 1.0),
    recombination: float = 0.7,
    penalty: float = 100.0,
    tol: float = 0.0,
    bounds: list[tuple[float, float]] | None = None,
) -> DEResult:
    """Minimise a batch surrogate ``objective`` (X (m, d_x) -> (m,)) over X by DE.

    Parameters
    ----------
    objective : callable
        Surrogate of J on a batch of feasible decisions; called once per generation.
    init : ndarray (P, d_x)
        Initial population (P >= 5; the population size is P, paper: 85). Projected onto X.
    task : Task
        Supplies ``project``.
    rng : numpy.random.Generator
        Source of the integer seed of scipy's DE.
    maxiter : int
        Generations after the initial one (paper: 55).
    strategy, mutation, recombination
        scipy's DE settings (paper: DE/current-to-best/1/bin; scipy's default dithered
        mutation factor in [0.5, 1) and crossover probability 0.7).
    penalty : float
        Weight of the squared distance to X, in units of the objective's scale.
    tol : float
        scipy's relative convergence tolerance; 0 runs all ``maxiter`` generations.
    bounds : list of (low, high), optional
        The box DE searches; default the task's region (X's box, cut around x0 when the
        problem has a start: DESIGN.md section 7).
    """
    init = task.project(np.asarray(init, dtype=float))
    if init.ndim != 2 or init.shape[0] < 5:
        raise ValueError(f"init must be a (P, d_x) population with P >= 5, got {init.shape}")
    if bounds is None:
        bounds = task.region_bounds()
    if len(bounds) != init.shape[1]:
        raise ValueError(f"{len(bounds)} bounds for decisions of dimension {init.shape[1]}")
    scale: list[float] = []

    def distance_penalty(X: np.ndarray, P: np.ndarray) -> np.ndarray:
        return penalty * scale[0] * np.sum((X - P) ** 2, axis=1)

    def penalised(Xt: np.ndarray) -> np.ndarray:
        X = np.atleast_2d(Xt.T)  # scipy passes (d_x, S)
        P = task.project(X)
        f = np.asarray(objective(P), dtype=float)
        if not scale:
            finite = np.abs(f[np.isfinite(f)])
            scale.append(float(np.median(finite)) if finite.size and np.median(finite) > 0
                         else 1.0)
        return f + distance_penalty(X, P)

    res = differential_evolution(
        penalised,
        bounds,
        strategy=strategy,
        maxiter=maxiter,
        mutation=mutation,
        recombination=recombination,
        tol=tol,
        atol=0.0,
        init=init,
        polish=False,
        updating="deferred",
        vectorized=True,
        rng=int(rng.integers(2**32 - 1)),
    )
    raw = np.asarray(res.population, dtype=float)
    population = task.project(raw)
    values = np.asarray(res.population_energies, dtype=float) - distance_penalty(raw, population)
    best = int(np.argmin(values))
    return DEResult(
        x_best=population[best].copy(),
        f_best=float(values[best]),
        population=population,
        population_values=values,
        nit=int(res.nit),
        nfev=int(res.nfev),
    )
