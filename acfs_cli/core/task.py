"""What a method may know of a problem: everything but the distribution (DESIGN.md section 4).

A :class:`Task` holds the problem's *known* parts - its dimensions, its cost function, its
decision set X, and the risk parameters lam and alpha - and never the sampler, so a method
cannot draw scenarios except through the budgeted :class:`~acfs_cli.core.oracle.Oracle`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from acfs_cli.core.calls import sealed
from acfs_cli.core.declared import StochasticConstraint
from acfs_cli.core.problem import as_problem
from acfs_cli.core.risk import check_risk_params, spectral_risk
from acfs_cli.core.space import FEAS_TOL, DecisionSet


@dataclass(frozen=True)
class Task:
    """The known parts of a problem, handed to a method."""

    dim_x: int
    dim_w: int
    cost: Callable[[np.ndarray, np.ndarray], np.ndarray]
    space: DecisionSet
    lam: float
    alpha: float
    name: str = ""
    has_transform: bool = True
    #: The pathwise gradient of the cost of drawn rows, (W, x) -> (n, dim_x), where the
    #: simulator gives one (``gradient``; None otherwise): free, like re-costing.
    gradient: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    #: Which coordinates take whole values (the problem's ``integrality``; None: none do).
    integrality: np.ndarray | None = None
    #: The stochastic constraints, in the order of ``constraint_values``' columns.
    constraints: tuple[StochasticConstraint, ...] = ()
    #: Their values g (n, m) of drawn rows W (n, dim_w) at one decision x (dim_x,): free,
    #: like re-costing (None where the problem declares no constraint).
    constraint_values: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    #: Their pathwise gradients (n, m, dim_x) of drawn rows, where the simulator gives them
    #: (``constraint_gradient``; None otherwise): free, like re-costing.
    constraint_gradient: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None

    @classmethod
    def from_problem(cls, problem, lam: float, alpha: float) -> Task:
        """The method's view of ``problem`` (normalised first); validates lam and alpha."""
        lam, alpha = check_risk_params(lam, alpha)
        p = as_problem(problem)
        return cls(dim_x=p.dim_x, dim_w=p.dim_w, cost=sealed(p.cost), space=p.space, lam=lam,
                   alpha=alpha, name=p.name, has_transform=p.has_transform,
                   gradient=sealed(p.gradient) if p.has_gradient else None,
                   integrality=p.integrality if p.integrality.any() else None,
                   constraints=p.constraints,
                   constraint_values=sealed(p.constraint_values) if p.constraints else None,
                   constraint_gradient=(sealed(p.constraint_gradient)
                                        if p.has_constraint_gradient else None))

    # -- the objective -----------------------------------------------------------------------------
    def risk(self, costs):
        """``(J, EC, CVaR)`` of costs along the last axis (the project's one estimator)."""
        return spectral_risk(costs, self.lam, self.alpha)

    def objective(self, W, x):
        """Estimated J of decision(s) ``x`` on scenarios ``W`` (re-costing W is free)."""
        return self.risk(self.cost(W, x))[0]

    # -- the decision set (see acfs_cli.core.space.DecisionSet) ----------------------------------
    def project(self, x) -> np.ndarray:
        return self.space.project(x)

    def design(self, u) -> np.ndarray:
        return self.space.design(u)

    def is_feasible(self, x, tol: float = FEAS_TOL) -> np.ndarray:
        return self.space.contains(x, tol)

    def box(self) -> tuple[np.ndarray, np.ndarray]:
        return self.space.box()

    def bounds(self) -> list[tuple[float, float]]:
        return self.space.bounds()

    def region(self, radius: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        return self.space.region(radius)

    def region_bounds(self) -> list[tuple[float, float]]:
        return self.space.region_bounds()

    @property
    def integer(self) -> bool:
        """Whether some coordinate takes whole values."""
        return self.integrality is not None

    @property
    def x0(self) -> np.ndarray | None:
        """Where the search starts (None: the problem states no start; X is then bounded)."""
        return None if self.space.start is None else self.space.start.copy()

    def tangent(self, x: np.ndarray, g: np.ndarray) -> np.ndarray:
        return self.space.tangent(x, g)

    def exchange_coordinates(self) -> tuple[int, ...]:
        return self.space.exchange_coordinates()

    def steps(self) -> np.ndarray:
        return self.space.steps()

    @property
    def coupled(self) -> tuple[int, ...] | None:
        return self.space.coupled

    def space_filling(self, n: int, rng: np.random.Generator, n_candidates: int = 5):
        """``n`` decisions from a maximin Latin hypercube pushed through the design map."""
        return self.space.space_filling(n, rng, n_candidates)
