"""What a method is: a search over X that sees the DGP only through a budgeted oracle.

A method receives a :class:`Task` - the problem's *known* parts: dimensions, cost function,
projection onto X, design map, lam and alpha - and an :class:`~acfs_cli.oracle.Oracle`. It
never holds the problem itself, so it cannot sample without being charged (SPEC section 3).

Each method has one validated settings model (pydantic, unknown keys are errors) whose
defaults are the paper's values (Table "Key hyperparameters"). :class:`Method` binds a name, a
settings model and a search function, and is what ``get_method(name)`` returns; calling it
runs one search and returns a :class:`MethodResult`. When the budget stops a search, the
result is the oracle's last recorded incumbent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from acfs_cli.oracle import BudgetExhausted, Oracle
from acfs_cli.problems import feasible
from acfs_cli.risk import check_risk_params, spectral_risk


class Settings(BaseModel):
    """Base of every method's settings: frozen, unknown keys rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class Task:
    """The known parts of a problem, handed to a method (everything but the distribution)."""

    dim_x: int
    dim_w: int
    cost: Callable[[np.ndarray, np.ndarray], np.ndarray]
    project: Callable[[np.ndarray], np.ndarray]
    design: Callable[[np.ndarray], np.ndarray]
    is_feasible: Callable[..., np.ndarray]
    lam: float
    alpha: float
    name: str = ""
    given_bounds: tuple[tuple[float, float], ...] | None = None  # a box containing X, if known
    coupled: tuple[int, ...] | None = None  # coordinates a coupling constraint ties (None: all)
    step_scale: tuple[float, ...] | None = None  # units of a local search's steps (None: box)
    tangent_rule: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None  # see tangent()

    @classmethod
    def from_problem(cls, problem, lam: float, alpha: float) -> Task:
        """The method's view of ``problem``; validates ``lam`` and ``alpha``."""
        lam, alpha = check_risk_params(lam, alpha)
        design = getattr(problem, "design", None) or feasible.design_map
        is_feas = getattr(problem, "is_feasible", None) or feasible.is_feasible
        return cls(
            dim_x=int(problem.dim_x),
            dim_w=int(problem.dim_w),
            cost=problem.cost,
            project=problem.project,
            design=design,
            is_feasible=is_feas,
            lam=lam,
            alpha=alpha,
            name=getattr(problem, "name", ""),
            given_bounds=_given_bounds(getattr(problem, "bounds", None)),
            coupled=_ints(getattr(problem, "coupled", None)),
            step_scale=_floats(getattr(problem, "step_scale", None)),
            tangent_rule=getattr(problem, "tangent", None),
        )

    def risk(self, costs):
        """``(J, EC, CVaR)`` of costs along the last axis (the project's one estimator)."""
        return spectral_risk(costs, self.lam, self.alpha)

    def objective(self, W, x):
        """Estimated J of decision(s) ``x`` on scenarios ``W`` (re-costing W is free)."""
        return self.risk(self.cost(W, x))[0]

    def box(self) -> tuple[np.ndarray, np.ndarray]:
        """A box (lower, upper) containing X: the problem's own ``bounds`` when it has them,
        else the support points of X from its projection along +-e_j.

        For a compact convex X the exact projection of ``t e_j`` tends, as t grows, to a
        maximiser of x_j over X; so that box contains X and is tight for a box-shaped X (the
        benchmarks give exactly [0, 0.7]^5 x [0, 1]). L-BFGS-B and DE get it as their bounds,
        so they work for any problem's X, not only the benchmarks'.
        """
        if self.given_bounds is not None:
            B = np.array(self.given_bounds, dtype=float)
            return B[:, 0].copy(), B[:, 1].copy()
        d = self.dim_x
        far = 1e4 * np.concatenate([np.eye(d), -np.eye(d)])
        P = np.asarray(self.project(far), dtype=float)
        return np.diag(P[d:]).copy(), np.diag(P[:d]).copy()

    def bounds(self) -> list[tuple[float, float]]:
        """:meth:`box` as the ``[(low, high), ...]`` list of scipy's optimisers."""
        lo, hi = self.box()
        return [(float(a), float(b)) for a, b in zip(lo, hi, strict=True)]

    def tangent(self, x: np.ndarray, g: np.ndarray) -> np.ndarray:
        """The slope of J o P at ``x`` given the gradient ``g`` of J: g where the descent
        direction stays in X, its part along the active faces where it leaves X. The
        problem's own ``tangent`` when it has one (the benchmarks' closed form), else the
        projected-gradient map of :func:`acfs_cli.methods.polish.tangent_gradient`."""
        if self.tangent_rule is not None:
            return self.tangent_rule(x, g)
        from acfs_cli.methods.polish import tangent_gradient

        return tangent_gradient(np.asarray(x, dtype=float), g, self.project)

    def exchange_coordinates(self) -> tuple[int, ...]:
        """Coordinates among which a local search polls exchange moves e_i - e_j when a
        constraint that couples them is active (the problem's ``coupled``, else all: the
        search detects the coupling through the projection, so a box never triggers them)."""
        return self.coupled if self.coupled is not None else tuple(range(self.dim_x))

    def steps(self) -> np.ndarray:
        """Per-coordinate unit of a local search's steps: the problem's ``step_scale``, else
        the widths of :meth:`box`, so a step of 0.05 is 5 % of each coordinate's range."""
        if self.step_scale is not None:
            return np.asarray(self.step_scale, dtype=float)
        lo, hi = self.box()
        return np.where(hi > lo, hi - lo, 1.0)

    def space_filling(self, n: int, rng: np.random.Generator, n_candidates: int = 5):
        """``n`` decisions from a maximin Latin hypercube pushed through the design map."""
        return self.design(feasible.maximin_lhs(n, self.dim_x, rng, n_candidates))


def _ints(values) -> tuple[int, ...] | None:
    return None if values is None else tuple(int(v) for v in values)


def _floats(values) -> tuple[float, ...] | None:
    return None if values is None else tuple(float(v) for v in values)


def _given_bounds(bounds) -> tuple[tuple[float, float], ...] | None:
    if bounds is None:
        return None
    return tuple((float(lo), float(hi)) for lo, hi in bounds)


@dataclass
class MethodResult:
    """The chosen decision and its bookkeeping."""

    x: np.ndarray
    value: float = float("nan")  # the method's own estimate of J(x), on its own draws
    info: dict[str, Any] = field(default_factory=dict)
    stopped_by_budget: bool = False
    oracle_draws: int = 0
    account: dict[str, dict[str, int]] = field(default_factory=dict)
    wall_s: float = 0.0


SearchFn = Callable[[Task, Oracle, Any, np.random.Generator], MethodResult]


@dataclass(frozen=True)
class Method:
    """A registered method: name, settings model, search function and fixed overrides.

    Variants (for example ``acfs-noav``) share the search function and settings model of
    their parent and fix some settings (``fixed``); a user override of a fixed setting is an
    error, so a variant always is what its name says.
    """

    name: str
    settings_model: type[Settings]
    search: SearchFn
    fixed: Mapping[str, Any] = field(default_factory=dict)
    summary: str = ""

    def settings(self, overrides: Mapping[str, Any] | None = None) -> Settings:
        """Validated settings: the paper's defaults, the variant's fixed values, overrides."""
        overrides = dict(overrides or {})
        clash = sorted(set(overrides) & set(self.fixed))
        if clash:
            raise ValueError(f"method {self.name!r} fixes {', '.join(clash)}; it cannot be set")
        unknown = sorted(set(overrides) - set(self.settings_model.model_fields))
        if unknown:
            known = ", ".join(self.settings_model.model_fields)
            raise ValueError(
                f"method {self.name!r} has no parameter {', '.join(unknown)} (known: {known})"
            )
        return self.settings_model(**{**self.fixed, **overrides})

    def __call__(
        self,
        task: Task,
        oracle: Oracle,
        rng: np.random.Generator,
        settings: Settings | Mapping[str, Any] | None = None,
    ) -> MethodResult:
        """Run one search; on :class:`BudgetExhausted` return the recorded incumbent."""
        if not isinstance(settings, Settings):
            settings = self.settings(settings)
        start = time.perf_counter()
        try:
            result = self.search(task, oracle, settings, rng)
        except BudgetExhausted:
            incumbent = oracle.incumbent
            if incumbent is None:
                raise RuntimeError(
                    f"{self.name}: budget of {oracle.budget} draws ran out before any "
                    "incumbent was recorded"
                ) from None
            result = MethodResult(x=incumbent[0], value=incumbent[1], stopped_by_budget=True)
        result.x = np.asarray(result.x, dtype=float)
        if result.x.shape != (task.dim_x,) or not bool(task.is_feasible(result.x)):
            raise RuntimeError(f"{self.name} returned an infeasible x*: {result.x}")
        result.oracle_draws = oracle.used
        result.account = oracle.account
        result.wall_s = time.perf_counter() - start
        return result

    def parameters(self) -> dict[str, Any]:
        """The effective default parameters of this method (variant values included)."""
        return self.settings().model_dump()
