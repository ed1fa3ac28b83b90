"""SimOpt inside acfs: its problems as acfs problems, its solvers as acfs methods (DESIGN.md
section 8).

SimOpt (simoptlib, the optional extra ``pip install 'acfs[simopt]'``) is the field's testbed
of simulation-optimisation problems and solvers. Two bridges make both sides meet in one
table:

* :class:`SimOptProblem` - a continuous SimOpt problem in the problem protocol, named
  ``simopt:<ABBR>`` in a grid or by ``get_problem``: sample-only, one scenario row per SimOpt
  replication (its objective response as a loss), SimOpt's bounds, linear constraints,
  initial solution and known optimum. :func:`continuous_problems` lists the problems it
  takes, :func:`replications_per_second` what one costs.
* ``simopt-astrodf``, ``simopt-neldmd``, ``simopt-strong``, ``simopt-spsa``, ``simopt-adam``,
  ``simopt-aloe`` (:data:`SIMOPT_METHODS`) - SimOpt's solvers as acfs methods: every
  replication a solver asks for is a row drawn through the acfs oracle, so the solvers run
  under acfs's budget, seeds and checks, on any acfs problem.

Nothing here imports simopt until it is used: the methods are registered, and listed, without
the extra, and using either bridge without it is one line naming the extra.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import math
import os
import sys
import threading
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np
from pydantic import BaseModel, Field, model_validator

from acfs_cli.core.oracle import BudgetExhausted, Oracle
from acfs_cli.core.sample import CommonSample, child_seed
from acfs_cli.core.space import short_array
from acfs_cli.core.task import Task
from acfs_cli.methods.base import Method, MethodResult, Settings

#: The prefix of a SimOpt problem's name: ``simopt:CNTNEWS-1``.
PREFIX = "simopt:"
#: What to install when simopt is missing.
EXTRA = "pip install 'acfs[simopt]'"
#: The simoptlib release the extra pins: the quirks handled below are this release's.
SIMOPT_RELEASE = "1.2.4"
#: The adapter's own version, part of every fingerprint: changed when its results change.
ADAPTER_VERSION = 1
#: SimOpt reserves MRG32k3a streams 0-2 (post-replications, bootstrap, overhead) and 3 onwards
#: for its own macroreplications; acfs's streams start far above them.
STREAM_OFFSET = 1 << 20
#: MRG32k3a has 2**50 streams (period about 2**191, streams 2**141 long).
STREAM_COUNT = (1 << 50) - STREAM_OFFSET


class SimOptMissing(ValueError):
    """simopt is not installed: the extra is needed."""


# -- loading simopt ------------------------------------------------------------------------------
@functools.cache
def _load() -> SimpleNamespace:
    """SimOpt's pieces, imported once.

    The Rust generator of mrg32k3a gives the same numbers as its pure-Python one five to
    several hundred times faster (a stream jump 1.5 ms -> 4 us); it is chosen unless the
    generator was imported already or the environment says otherwise.
    """
    if "mrg32k3a.mrg32k3a" not in sys.modules and importlib.util.find_spec("mrg32k3a_core"):
        os.environ.setdefault("MRG32K3A_BACKEND", "rust")
    from mrg32k3a.mrg32k3a import MRG32k3a
    from simopt.base import (
        ConstraintType,
        Model,
        Objective,
        Problem,
        RepResult,
        Solution,
        VariableType,
    )
    from simopt.directory import problem_directory, solver_directory
    from simopt.solver import BudgetExhaustedError

    _correct_finite_differences()
    return SimpleNamespace(
        MRG32k3a=MRG32k3a, Model=Model, Problem=Problem, Solution=Solution,
        Objective=Objective, RepResult=RepResult, ConstraintType=ConstraintType,
        VariableType=VariableType, BudgetExhaustedError=BudgetExhaustedError,
        problems=problem_directory, solvers=solver_directory,
        release=importlib.metadata.version("simoptlib"))


def _finite_diff(solver, new_solution, bounds_check, problem, stepsize, r):
    """simoptlib 1.2.4's ``simopt.solvers.utils.finite_diff``, with the central differences
    assigned to the central coordinates only.

    The original assigns all d central differences to the coordinates that take one, so it
    raises whenever some but not all coordinates sit on a bound (in ADAM and ALOE where the
    problem has no IPA gradients, and in STRONG); where it does not raise, this gives the
    same numbers from the same replications.
    """
    lower_bound = problem.lower_bounds
    upper_bound = problem.upper_bounds
    fn = -1 * problem.minmax[0] * new_solution.objectives_mean
    new_x = np.array(new_solution.x, dtype=float)
    function_diff = np.zeros((problem.dim, 3))
    step_forward = np.minimum(stepsize, upper_bound - new_x)
    step_backward = np.minimum(stepsize, new_x - lower_bound)
    x1 = np.tile(new_x, (problem.dim, 1))
    x2 = np.tile(new_x, (problem.dim, 1))
    central_mask = bounds_check == 0
    forward_mask = bounds_check == 1
    backward_mask = bounds_check == -1
    function_diff[:, 2] = np.where(central_mask, np.minimum(step_forward, step_backward),
                                   np.where(forward_mask, step_forward, step_backward))
    np.fill_diagonal(x1, new_x + function_diff[:, 2])
    np.fill_diagonal(x2, new_x - function_diff[:, 2])
    for i in np.where(bounds_check != -1)[0]:
        x1_solution = solver.create_new_solution(tuple(x1[i]), problem)
        problem.simulate_up_to([x1_solution], r)
        fn1 = -problem.minmax[0] * x1_solution.objectives_mean
        function_diff[i, 0] = fn1[0] if isinstance(fn1, np.ndarray) else fn1
    for i in np.where(bounds_check != 1)[0]:
        x2_solution = solver.create_new_solution(tuple(x2[i]), problem)
        problem.simulate_up_to([x2_solution], r)
        fn2 = -problem.minmax[0] * x2_solution.objectives_mean
        function_diff[i, 1] = fn2[0] if isinstance(fn2, np.ndarray) else fn2
    fn_divisor = function_diff[:, 2].copy()
    fn_divisor[central_mask] *= 2
    fn_diff = np.zeros(problem.dim)
    if np.any(central_mask):
        fn_diff[central_mask] = function_diff[central_mask, 0] - function_diff[central_mask, 1]
    if np.any(forward_mask):
        fn_diff[forward_mask] = function_diff[forward_mask, 0] - fn
    if np.any(backward_mask):
        fn_diff[backward_mask] = fn - function_diff[backward_mask, 1]
    return fn_diff / fn_divisor


def _correct_finite_differences() -> None:
    """Point the solvers that import simoptlib's ``finite_diff`` at :func:`_finite_diff`.

    Process-wide, but it changes nothing SimOpt computes: only runs that would raise."""
    import simopt.solvers.utils as utils

    if importlib.metadata.version("simoptlib") != SIMOPT_RELEASE:
        return  # another release: its own finite differences, whatever they are
    for name in ("adam", "aloe", "strong"):
        module = importlib.import_module(f"simopt.solvers.{name}")
        if getattr(module, "finite_diff", None) is utils.finite_diff:
            module.finite_diff = _finite_diff


def require(what: str) -> SimpleNamespace:
    """SimOpt's pieces, or :class:`SimOptMissing` in one line saying that ``what`` needs the
    extra."""
    try:
        return _load()
    except ImportError:
        raise SimOptMissing(f"{what} needs the simopt extra: {EXTRA}") from None


def _one_line(exc: BaseException, limit: int = 200) -> str:
    """An exception as one short line (pydantic's are several, SimOpt's own may be long)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            text = f"{where}: {first['msg']}" if where else first["msg"]
            return text[:limit]
        except Exception:  # noqa: BLE001 - fall back to the message itself
            pass
    return " ".join(str(exc).split())[:limit] or type(exc).__name__


# -- which problems ------------------------------------------------------------------------------
def _simplex(total: float) -> Callable[[np.ndarray], np.ndarray]:
    """The Euclidean projection onto {x >= 0, sum(x) = total} along the last axis, any leading
    axes (sorted breakpoints). An equality written as two inequalities would leave the
    generic polyhedron projection a set with no interior."""

    def project(x):
        x = np.asarray(x, dtype=float)
        u = -np.sort(-x, axis=-1)
        css = np.cumsum(u, axis=-1) - total
        k = np.arange(1, x.shape[-1] + 1)
        rho = x.shape[-1] - 1 - np.argmax((u - css / k > 0)[..., ::-1], axis=-1)
        theta = np.take_along_axis(css, rho[..., None], axis=-1) / (rho[..., None] + 1.0)
        return np.maximum(x - theta, 0.0)

    return project


def _facsize_budget(p) -> dict[str, Any]:
    """FACSIZE-2: installation costs . x <= installation budget."""
    costs = np.atleast_2d(np.asarray(p.factors["installation_costs"], dtype=float))
    return {"A": costs, "b": np.array([float(p.factors["installation_budget"])])}


def _network_simplex(p) -> dict[str, Any]:
    """NETWORK-1: routing shares on the probability simplex (its box [0, 1] is implied)."""
    return {"project": _simplex(1.0)}


#: The deterministic constraints beyond SimOpt's bounds, read from each problem's
#: ``check_deterministic_constraints`` in simoptlib 1.2.4. A problem that declares such
#: constraints and is not here is refused rather than run without them.
_CONSTRAINTS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "FACSIZE-2": _facsize_budget,
    "NETWORK-1": _network_simplex,
}


def _refusal(cls) -> str | None:
    """Why acfs cannot take SimOpt's problem class ``cls`` (None: it can)."""
    so = _load()
    abbr = cls.class_name_abbr
    if cls.n_objectives != 1:
        return f"{PREFIX}{abbr} has {cls.n_objectives} objectives; acfs optimises one"
    if cls.variable_type != so.VariableType.CONTINUOUS:
        kind = cls.variable_type.name.lower()
        return f"{PREFIX}{abbr} has {kind} decision variables; acfs needs continuous ones"
    if cls.n_stochastic_constraints:
        return (f"{PREFIX}{abbr} has {cls.n_stochastic_constraints} stochastic constraint(s); "
                "acfs has none to honour them")
    if cls.constraint_type == so.ConstraintType.DETERMINISTIC and abbr not in _CONSTRAINTS:
        return f"{PREFIX}{abbr} has deterministic constraints the adapter does not know"
    return None


@functools.cache
def continuous_problems() -> tuple[str, ...]:
    """The SimOpt problems acfs takes: one objective, continuous decisions, no stochastic
    constraints, buildable at SimOpt's own factors (ERM-EXAMPLE-1 needs a data file SimOpt
    does not ship)."""
    so = require("the SimOpt problems")
    out = []
    for abbr, cls in sorted(so.problems.items()):
        if _refusal(cls) is None:
            try:
                cls()
            except Exception:  # noqa: BLE001 - a problem SimOpt cannot build is not offered
                continue
            out.append(abbr)
    return tuple(out)


def _problem_class(abbr: str):
    so = require(f"{PREFIX}{abbr}")
    cls = so.problems.get(abbr)
    if cls is None:
        raise ValueError(f"unknown SimOpt problem {abbr!r}; continuous SimOpt problems: "
                         f"{', '.join(continuous_problems())}")
    reason = _refusal(cls)
    if reason is not None:
        raise ValueError(reason)
    return cls


def problem_class(name: str) -> type:
    """What ``get_problem`` builds for ``simopt:<ABBR>``: :class:`SimOptProblem` with the
    abbreviation bound, so that a grid entry's ``params`` are SimOpt's factors. One-line
    ``ValueError`` for a missing extra or a problem acfs cannot take."""
    abbr = name.removeprefix(PREFIX)
    _problem_class(abbr)

    def __init__(self, **factors):
        SimOptProblem.__init__(self, abbr, **factors)

    return type(f"SimOpt[{abbr}]", (SimOptProblem,), {"__init__": __init__,
                                                       "__module__": __name__})


# -- SimOpt's problems as acfs problems ----------------------------------------------------------
class SimOptProblem:
    """A continuous SimOpt problem in the problem protocol (DESIGN.md sections 1 and 8).

    Parameters
    ----------
    abbr : str
        SimOpt's abbreviation (``"CNTNEWS-1"``; :func:`continuous_problems` lists them).
    model_factors : mapping, optional
        Factors of SimOpt's model (``{"lambda": 2.0}`` for MM1-1's arrival rate).
    gradients : bool
        Where SimOpt has IPA gradients, carry them in W (columns 1..dim_x) for
        :meth:`gradient` and for SimOpt's own solvers, as SimOpt gives them to its solvers.
    **factors
        Factors of SimOpt's problem (``initial_solution``, ``budget``, problem-specific ones
        such as FACSIZE-2's ``installation_budget``). Unknown names are errors.

    A scenario row is one SimOpt replication: ``W[:, 0]`` is its objective response with the
    sign flipped where SimOpt maximises (costs are losses), so at lam = 0 J is SimOpt's
    expected objective as a loss; ``cost(W, x) = W[..., 0]``. Every dependence on x lives in
    the simulation (P_x), none in the cost.

    Attributes beyond the protocol: ``abbr``; ``minmax`` (+1 where SimOpt maximises) and
    ``sign`` (-minmax: loss = sign * objective); ``default_budget`` (SimOpt's budget, in
    replications); ``optimal_x`` and ``optimal_value`` (SimOpt's known optimal solution and
    value, in SimOpt's own sign, None where SimOpt codes none: no exact J is claimed);
    ``replications`` (replications simulated by this object).

    The decision set is the closure of SimOpt's: acfs's sets are closed, so a strict
    ``x > 0`` (CNTNEWS-1, DYNAMNEWS-1) becomes ``x >= 0``. CNTNEWS-1's initial solution
    ``x = 0`` lies on that boundary: it is kept as SimOpt states it (SimOpt's solvers start
    there too) and is a well-defined decision - nothing ordered, every replication's profit
    exactly 0.
    """

    vectorized = True

    def __init__(self, abbr: str, *, model_factors: Mapping[str, Any] | None = None,
                 gradients: bool = True, **factors: Any):
        so = require(f"{PREFIX}{abbr}")
        cls = _problem_class(abbr)
        model_factors = dict(model_factors or {})
        _check_factor_names(cls, factors, model_factors)
        try:
            p = cls(fixed_factors=dict(factors), model_fixed_factors=model_factors)
        except Exception as exc:
            raise ValueError(f"{PREFIX}{abbr}: {_one_line(exc)}") from None
        self._so, self._problem = so, p
        self.abbr = abbr
        self.name = f"{PREFIX}{abbr}"
        self.source = (f"SimOpt (simoptlib {so.release}) problem {abbr}: {p.class_name}, "
                       f"model {p.model_class.class_name}")
        self.dim_x = int(p.dim)
        self.minmax = int(p.minmax[0])
        self.sign = -self.minmax
        self.has_gradients = bool(gradients and p.gradient_available)
        self.dim_w = 1 + (self.dim_x if self.has_gradients else 0)
        if self.has_gradients:
            self.gradient = self._gradient
        self.bounds = [(float(lo), float(hi))
                       for lo, hi in zip(p.lower_bounds, p.upper_bounds, strict=True)]
        for name, value in _CONSTRAINTS.get(abbr, lambda _: {})(p).items():
            setattr(self, name, value)
        self.x0 = np.asarray(p.factors["initial_solution"], dtype=float)
        self.default_budget = int(p.factors["budget"])
        self.optimal_x = (None if p.optimal_solution is None
                          else np.asarray(p.optimal_solution, dtype=float))
        self.optimal_value = None if p.optimal_value is None else float(p.optimal_value)
        factors_text = json.dumps({"problem": p.factors, "model": model_factors,
                                   "gradients": self.has_gradients}, sort_keys=True,
                                  default=str)
        digest = hashlib.sha256(factors_text.encode()).hexdigest()[:12]
        #: The fingerprint of this problem's code (acfs_cli.core.fingerprint): SimOpt's
        #: release, the adapter's version and every factor.
        self.version = (f"simoptlib {so.release}, adapter {ADAPTER_VERSION}, {abbr} "
                        f"factors {digest}")
        self._n_rngs = int(p.model.n_rngs)
        self.replications = 0

    def __repr__(self) -> str:
        return (f"SimOptProblem({self.abbr!r}: dim_x={self.dim_x}, dim_w={self.dim_w}, "
                f"{'maximise' if self.minmax > 0 else 'minimise'} in SimOpt)")

    # -- the protocol ------------------------------------------------------------------------
    def sample(self, x, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` replications at ``x``, one row each.

        One integer drawn from ``rng`` picks an MRG32k3a stream; SimOpt's model generator i
        runs on its substream i and replication j on their subsubstreams j, SimOpt's own
        layout. So generators in the same state give the same replications at every decision
        (common random numbers by re-seeding, DESIGN.md section 3), and the first m rows of
        ``sample(x, n, .)`` are ``sample(x, m, .)``.
        """
        stream = STREAM_OFFSET + int(rng.integers(STREAM_COUNT))
        return self.replicate(x, n, stream)

    def replicate(self, x, n: int, stream: int) -> np.ndarray:
        """``n`` replications at ``x`` on MRG32k3a stream ``stream`` (SimOpt's layout) as rows
        of W: the loss, then its IPA gradient where carried."""
        so = self._so
        rngs = [so.MRG32k3a(s_ss_sss_index=[int(stream), i, 0]) for i in range(self._n_rngs)]
        solution = so.Solution(tuple(float(v) for v in np.asarray(x, dtype=float)),
                               self._problem)
        solution.attach_rngs(rngs, copy=False)
        W = np.empty((n, self.dim_w))
        if n:
            self._problem.simulate(solution, n)
            W[:, 0] = self.sign * solution.objectives[:n, 0]
            if self.has_gradients:
                W[:, 1:] = self.sign * solution.objectives_gradients[:n, 0, :]
        self.replications += n
        return W

    def cost(self, W, x) -> np.ndarray:
        """The loss of each row, ``W[..., 0]``, broadcast against the decisions' leading axes
        (the vectorised form of the protocol)."""
        W = np.asarray(W, dtype=float)
        x = np.asarray(x, dtype=float)
        lead = np.broadcast_shapes(W.shape[:-2], x.shape[:-1])
        return np.array(np.broadcast_to(W[..., 0], (*lead, W.shape[-2])))

    def _gradient(self, W, x) -> np.ndarray:
        """The IPA gradient of each row's loss at the decision the rows were drawn at,
        ``W[..., 1:]`` (..., n, dim_x). No acfs method reads it yet: a pathwise method could
        use it in place of a (2 d + 1)-point finite-difference stencil."""
        return np.asarray(W, dtype=float)[..., 1:]


def _check_factor_names(cls, factors: Mapping[str, Any], model_factors: Mapping[str, Any]):
    """Unknown factor names are errors: SimOpt's configurations would drop them silently."""
    for given, config, what in ((factors, cls.config_class, "factor"),
                                (model_factors, cls.model_class.config_class, "model factor")):
        known = {f.alias or n for n, f in config.model_fields.items()}
        unknown = sorted(set(given) - known)
        if unknown:
            raise ValueError(f"{PREFIX}{cls.class_name_abbr} has no {what} "
                             f"{', '.join(map(repr, unknown))} (known: "
                             f"{', '.join(sorted(known))})")


def replications_per_second(abbr: str, n: int = 1000, seed: int = 0) -> float:
    """Replications per second of ``simopt:<abbr>`` at its initial solution, one stream of
    ``n`` replications through the adapter (what a study's cost scales with)."""
    import time

    problem = SimOptProblem(abbr, gradients=False)
    start = time.perf_counter()
    problem.sample(problem.x0, n, np.random.default_rng(seed))
    return n / (time.perf_counter() - start)


# -- SimOpt's solvers as acfs methods ------------------------------------------------------------
class SolverSettings(Settings):
    """A SimOpt solver's factors, with SimOpt's defaults and ranges (unknown keys are errors).

    SimOpt's solvers plan for the budget they are given, so nothing scales here."""

    #: acfs names of SimOpt factors whose names are not identifiers or not plain words.
    renamed: ClassVar[dict[str, str]] = {}

    crn_across_solns: bool = Field(True, description="common random numbers across solutions: "
                                   "replication j of every decision on the same random numbers")

    def factors(self) -> dict[str, Any]:
        """The settings as SimOpt's solver factors."""
        return {self.renamed.get(k, k): v for k, v in self.model_dump().items()}


class ASTRODFSettings(SolverSettings):
    eta_1: float = Field(0.1, gt=0, description="threshold for a successful iteration")
    eta_2: float = Field(0.8, description="threshold for a very successful iteration")
    gamma_1: float = Field(2.5, gt=1, description="trust-region radius increase rate after a "
                           "successful iteration")
    gamma_2: float = Field(0.5, gt=0, lt=1, description="trust-region radius decrease rate "
                           "after a failed iteration")
    lambda_min: int = Field(5, gt=2, description="minimum sample size")
    easy_solve: bool = Field(True, description="solve the subproblem approximately (Cauchy "
                             "point)")
    reuse_points: bool = Field(True, description="reuse the previously visited points")
    ps_sufficient_reduction: float = Field(0.1, ge=0, description="use pattern search if with "
                                           "sufficient reduction (0 always, large never)")
    use_gradients: bool = Field(True, description="use IPA gradients where the problem "
                                "carries them (simopt:<ABBR> problems with gradients)")

    @model_validator(mode="after")
    def _etas(self) -> ASTRODFSettings:
        if self.eta_2 <= self.eta_1:
            raise ValueError("eta_2 must be greater than eta_1")
        return self


class NELDMDSettings(SolverSettings):
    r: int = Field(30, gt=0, description="replications at each solution")
    alpha: float = Field(1.0, gt=0, description="reflection coefficient")
    gammap: float = Field(2.0, gt=1, description="expansion coefficient")
    betap: float = Field(0.5, gt=0, lt=1, description="contraction coefficient")
    delta: float = Field(0.5, gt=0, lt=1, description="shrink factor")
    sensitivity: float = Field(1e-7, gt=0, description="shrinking scale for the bounds")
    initial_spread: float = Field(0.1, gt=0, description="fraction of the distance between "
                                  "the bounds used for the initial points")

    def minimum_budget(self, dim: int) -> int:
        # SimOpt refuses to start with less than its initial simplex.
        return self.r * (dim + 1)


class STRONGSettings(SolverSettings):
    renamed: ClassVar[dict[str, str]] = {"lambda_fd": "lambda"}

    n0: int = Field(10, gt=0, description="initial sample size")
    n_r: int = Field(10, gt=0, description="replications at each solution")
    sensitivity: float = Field(1e-7, gt=0, description="shrinking scale for the bounds")
    delta_threshold: float = Field(1.2, gt=0, description="maximum value of the radius")
    delta_T: float = Field(2.0, description="initial size of the trust region")
    eta_0: float = Field(0.01, gt=0, lt=1, description="constant for accepting")
    eta_1: float = Field(0.3, lt=1, description="constant for more confident accepting")
    gamma_1: float = Field(0.9, gt=0, lt=1, description="constant for shrinking the trust "
                           "region")
    gamma_2: float = Field(1.11, gt=1, description="constant for expanding the trust region")
    lambda_fd: int = Field(2, gt=1, description="SimOpt's lambda: magnifying factor for n_r in "
                           "the finite-difference function")
    lambda_2: float = Field(1.01, gt=1, description="magnifying factor for n_r in stages I and "
                            "II")

    @model_validator(mode="after")
    def _orders(self) -> STRONGSettings:
        if self.delta_T <= self.delta_threshold:
            raise ValueError("delta_T must be greater than delta_threshold")
        if self.eta_1 <= self.eta_0:
            raise ValueError("eta_1 must be greater than eta_0")
        return self


class SPSASettings(SolverSettings):
    alpha: float = Field(0.602, gt=0, description="exponent of the gain sequence a_k")
    gamma: float = Field(0.101, gt=0, description="exponent of the gain sequence c_k")
    step: float = Field(0.1, gt=0, description="initial desired magnitude of change in theta")
    gavg: int = Field(1, gt=0, description="averaged SP gradients per iteration")
    n_reps: int = Field(30, gt=0, description="replications at each solution")
    n_loss: int = Field(2, gt=0, description="loss evaluations used in the gain calculation")
    eval_pct: float = Field(2 / 3, gt=0, le=1, description="share of the expected loss "
                            "evaluations per run")
    iter_pct: float = Field(0.1, gt=0, le=1, description="share of the maximum expected "
                            "iterations")

    @model_validator(mode="after")
    def _gavg(self) -> SPSASettings:
        if self.n_loss % (2 * self.gavg):
            raise ValueError("n_loss must be a multiple of 2 * gavg")
        return self


class ADAMSettings(SolverSettings):
    r: int = Field(30, gt=0, description="replications at each solution")
    beta_1: float = Field(0.9, gt=0, lt=1, description="decay rate of the first-moment "
                          "estimates")
    beta_2: float = Field(0.999, lt=1, description="decay rate of the second-moment estimates")
    alpha: float = Field(0.5, gt=0, description="step size")
    epsilon: float = Field(1e-8, gt=0, description="a small value against division by zero")
    sensitivity: float = Field(1e-7, gt=0, description="shrinking scale for the bounds")


class ALOESettings(SolverSettings):
    renamed: ClassVar[dict[str, str]] = {"lambda_fd": "lambda"}

    r: int = Field(30, gt=0, description="replications at each solution")
    theta: float = Field(0.2, gt=0, lt=1, description="constant of the Armijo condition")
    gamma: float = Field(0.8, gt=0, lt=1, description="constant for shrinking the step")
    alpha_max: int = Field(10, gt=0, description="maximum step size")
    alpha_0: int = Field(1, gt=0, description="initial step size")
    epsilon_f: int = Field(1, gt=0, description="additive constant of the Armijo condition")
    sensitivity: float = Field(1e-7, gt=0, description="shrinking scale for the bounds")
    lambda_fd: int = Field(2, gt=0, description="SimOpt's lambda: magnifying factor for n_r in "
                           "the finite-difference function")


class _Replications:
    """A SimOpt solver's ``simulate(solution, m)``, served by the acfs oracle.

    Replication j of a decision is one row drawn at it on the seed child j of one
    oracle-issued common-sample seed - shared by every decision when the solver asks for
    common random numbers (SimOpt's CRN across solutions: replication j sees the same random
    numbers everywhere), one per decision when it does not. How the solver batches its calls
    does not change a replication. Every row is charged; a call the oracle refuses becomes
    SimOpt's own budget stop, so the solver returns its recommendations as at the end of its
    budget. A decision outside X (SimOpt's solvers know only the box, and ASTRO-DF leaves
    even that) is simulated at its projection onto X, and counted.
    """

    def __init__(self, task: Task, oracle: Oracle, refused: type[Exception], *, crn: bool,
                 gradients: bool):
        self.task, self.oracle, self.refused_error = task, oracle, refused
        self.crn, self.gradients = crn, gradients
        self.shared: np.random.SeedSequence | None = None
        self.replications = self.calls = self.projected = 0
        self.refused = False

    def _seed(self, solution) -> np.random.SeedSequence:
        if self.crn:
            if self.shared is None:
                self.shared = self.oracle.common_sample(0).chunks[0][0]
            return self.shared
        own = solution.__dict__.get("_acfs_seed")
        if own is None:
            own = solution.__dict__["_acfs_seed"] = self.oracle.common_sample(0).chunks[0][0]
        return own

    def __call__(self, solution, m: int) -> None:
        m = int(m)
        if m <= 0:
            return
        x = np.asarray(solution.x, dtype=float)
        if not np.all(np.isfinite(x)):
            raise RuntimeError(f"the SimOpt solver asked for replications at a non-finite "
                               f"decision {short_array(x)}")
        if not bool(self.task.is_feasible(x)):
            x = self.task.project(x)
            self.projected += 1
        k, seed = solution.n_reps, self._seed(solution)
        sample = CommonSample(tuple((child_seed(seed, j), 1) for j in range(k, k + m)))
        try:
            W = self.oracle.draw_common(x, sample)
        except BudgetExhausted as exc:
            self.refused = True
            raise self.refused_error(str(exc)) from None
        costs = self.task.cost(W, x)
        so = _load()
        for j in range(m):
            grads = W[j, 1:] if self.gradients else None
            solution.add_replicate_result(so.RepResult(objectives=[
                so.Objective(stochastic=float(costs[j]), stochastic_gradients=grads)]))
        self.replications += m
        self.calls += 1


@functools.cache
def _bridge_types() -> SimpleNamespace:
    """The SimOpt classes of the bridge, built once simopt is imported."""
    so = _load()

    class OracleRefused(so.BudgetExhaustedError):
        """The acfs oracle refused a request: the solver stops as at the end of its budget."""

    class TaskConfig(BaseModel):
        initial_solution: tuple[float, ...] = (0.0,)
        budget: int = 1

    class NoFactors(BaseModel):
        pass

    class OracleModel(so.Model):
        """No model: replications come from the acfs oracle."""

        class_name_abbr = "ACFS"
        class_name = "acfs task"
        config_class = NoFactors
        n_rngs = 1
        n_responses = 1

        def before_replicate(self, rng_list):
            pass

        def replicate(self):
            raise RuntimeError("replications come from the acfs oracle")

    class TaskProblem(so.Problem):
        """An acfs task as a SimOpt problem: minimise the mean cost over the box of X,
        from x0, every replication drawn through the oracle (:class:`_Replications`)."""

        class_name_abbr = "ACFS"
        class_name = "an acfs task"
        config_class = TaskConfig
        model_class = OracleModel
        constraint_type = so.ConstraintType.BOX
        variable_type = so.VariableType.CONTINUOUS
        gradient_available = False
        n_objectives = 1
        minmax = (-1,)
        n_stochastic_constraints = 0
        model_default_factors: ClassVar[dict] = {}
        model_decision_factors: ClassVar[set] = set()

        def __init__(self, x0, budget: int, box, replications: _Replications,
                     law: Callable[[Any], tuple], gradients: bool):
            super().__init__(fixed_factors={"initial_solution": tuple(map(float, x0)),
                                            "budget": int(budget)})
            self._lower = tuple(float(v) for v in box[0])
            self._upper = tuple(float(v) for v in box[1])
            self._replications, self._law = replications, law
            # ASTRO-DF, ADAM and ALOE read gradients wherever the problem says it has them.
            self.gradient_available = bool(gradients)

        @property
        def dim(self) -> int:
            return len(self._lower)

        @property
        def lower_bounds(self) -> tuple[float, ...]:
            return self._lower

        @property
        def upper_bounds(self) -> tuple[float, ...]:
            return self._upper

        def vector_to_factor_dict(self, vector):
            return {"x": tuple(vector)}

        def factor_dict_to_vector(self, factor_dict):
            return tuple(factor_dict["x"])

        def get_random_solution(self, rand_sol_rng):
            return self._law(rand_sol_rng)

        def replicate(self, x):
            raise RuntimeError("replications come from the acfs oracle")

        def simulate(self, solution, num_macroreps: int = 1) -> None:
            self._replications(solution, num_macroreps)

    return SimpleNamespace(OracleRefused=OracleRefused, TaskProblem=TaskProblem)


class _Announced(list):
    """A solver's list of recommendations that tells its owner of each one as it is made."""

    def __init__(self, items, owner):
        super().__init__(items)
        self._owner = owner

    def append(self, solution) -> None:
        super().append(solution)
        announce = getattr(self._owner, "announce", None)
        if announce is not None:
            announce(solution)


@functools.cache
def _announcing(cls: type) -> type:
    """SimOpt's solver class ``cls``, announcing each recommendation when SimOpt records it
    (ASTRO-DF replaces its list as it starts, so the list is watched as an attribute), and
    remembering whether its own budget stopped it."""
    so = _load()

    def get(self):
        return self.__dict__["_recommended"]

    def put(self, value):
        self.__dict__["_recommended"] = _Announced(value, self)

    def solve(self, problem):
        try:
            cls.solve(self, problem)
        except so.BudgetExhaustedError:
            self.budget_stop = True
            raise

    return type(f"Announcing{cls.__name__}", (cls,), {
        "recommended_solns": property(get, put), "solve": solve, "budget_stop": False,
        "announce": None, "__module__": __name__})


class _LogNotes(logging.Handler):
    """SimOpt's log warnings during one run, kept for the run's notes.

    SimOpt's solvers log to the root logger, and a root logger without handlers configures
    itself on the first record to print every later one - over a grid's progress bar, and
    for the rest of the process. While this handler is attached the root logger has one, and
    the run's notes say what SimOpt warned about instead."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.thread = threading.get_ident()
        self.root = os.path.dirname(sys.modules["simopt"].__file__)
        self.messages: dict[str, int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread and record.pathname.startswith(self.root):
            text = " ".join(record.getMessage().split())[:160]
            self.messages[text] = self.messages.get(text, 0) + 1

    def __enter__(self) -> _LogNotes:
        logging.getLogger().addHandler(self)
        return self

    def __exit__(self, *exc) -> None:
        logging.getLogger().removeHandler(self)

    def notes(self, abbr: str, most: int = 3) -> list[str]:
        out = [f"SimOpt's {abbr} warned {n}x: {text}" if n > 1 else
               f"SimOpt's {abbr} warned: {text}"
               for text, n in list(self.messages.items())[:most]]
        if len(self.messages) > most:
            out.append(f"SimOpt's {abbr} warned {len(self.messages) - most} other things")
        return out


def _raised_in_simopt(exc: BaseException) -> bool:
    """Whether ``exc`` was raised inside SimOpt's own code (a solver's bug at a bound, say)
    rather than in acfs's or the simulator's."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return False
    root = os.path.dirname(sys.modules["simopt"].__file__)
    return os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(root + os.sep)


def _simopt_behind(task: Task):
    """SimOpt's own problem behind a ``simopt:<ABBR>`` task, at SimOpt's factors, or None.

    Methods never see the problem; its name says which SimOpt problem it is, and the solver
    needs two things SimOpt's problem knows and acfs's protocol does not: its law of random
    solutions (ASTRO-DF sizes its largest trust region from it, Nelder-Mead draws its first
    simplex from it where a bound is infinite) and whether it has IPA gradients. Nothing is
    ever simulated on it.
    """
    if not task.name.startswith(PREFIX):
        return None
    cls = _load().problems.get(task.name.removeprefix(PREFIX).split("(")[0])
    if cls is None or _refusal(cls) is not None:
        return None
    try:
        problem = cls()
    except Exception:  # noqa: BLE001 - then the task is treated as any other
        return None
    return problem if problem.dim == task.dim_x else None


def _start(task: Task) -> np.ndarray:
    """Where the solver starts: the task's x0, else the centre of X's box projected onto X."""
    if task.x0 is not None:
        return task.x0
    lo, hi = task.region()
    return task.project(0.5 * (lo + hi))


def _uniform_law(task: Task) -> Callable[[Any], tuple]:
    """Random solutions for a task SimOpt does not know: uniform on the region searches start
    in (X's box, or x0 +- its steps where X is unbounded; DESIGN.md section 7), projected onto
    X."""
    lo, hi = task.region()

    def law(rng) -> tuple:
        u = np.array([rng.uniform(float(a), float(b)) for a, b in zip(lo, hi, strict=True)])
        return tuple(float(v) for v in task.project(u))

    return law


def _run_solver(method: str, abbr: str, task: Task, oracle: Oracle, settings: SolverSettings,
                rng: np.random.Generator) -> MethodResult:
    """One run of SimOpt's solver ``abbr`` on ``task``, every replication through ``oracle``."""
    so = require(method)
    types = _bridge_types()
    behind = _simopt_behind(task)
    gradients = bool(behind is not None and behind.gradient_available
                     and task.dim_w == 1 + task.dim_x)
    if task.lam:
        oracle.note(f"SimOpt's {abbr} minimises the mean of its replications: at lam = "
                    f"{task.lam:g} it minimised E[C], not J")
    replications = _Replications(task, oracle, types.OracleRefused,
                                 crn=settings.crn_across_solns, gradients=gradients)
    x0 = _start(task)
    law = behind.get_random_solution if behind is not None else _uniform_law(task)
    problem = types.TaskProblem(x0, oracle.available, task.box(), replications, law, gradients)
    try:
        solver = _announcing(so.solvers[abbr])(fixed_factors=settings.factors())
    except Exception as exc:
        raise ValueError(f"{method}: {_one_line(exc)}") from None
    # The solver's own randomness (random solutions, SPSA's directions) on a stream of the
    # method's generator, in SimOpt's layout: its generator j on substream 1 + j.
    stream = STREAM_OFFSET + int(rng.integers(STREAM_COUNT))
    solver.attach_rngs([so.MRG32k3a(s_ss_sss_index=[stream, 1 + j, 0]) for j in range(3)])
    solver.solution_progenitor_rngs = [so.MRG32k3a(s_ss_sss_index=[stream, 0, 0])]

    last: list = []  # the latest recommendation
    count = [0]

    def feasible(solution) -> np.ndarray:
        x = np.asarray(solution.x, dtype=float)
        if not np.all(np.isfinite(x)):
            raise RuntimeError(f"{method}: SimOpt's {abbr} recommended a non-finite decision "
                               f"{short_array(x)}")
        return x if bool(task.is_feasible(x)) else task.project(x)

    def own_value(solution) -> float:
        return float(solution.objectives_mean[0]) if solution.n_reps else math.nan

    def announce(solution) -> None:
        # the oracle's count, not SimOpt's intermediate budget (Nelder-Mead states 0 for
        # the initial simplex it has just paid for)
        oracle.record_best(feasible(solution), own_value(solution), replace=True)
        last[:] = [solution]
        count[0] += 1

    solver.announce = announce
    oracle.record_best(x0, math.nan)  # the start, until the first recommendation
    failure = None
    with oracle.phase(method), _LogNotes() as logged:
        try:
            solver.run(problem)
        except Exception as exc:
            if not _raised_in_simopt(exc):
                raise
            failure = f"{type(exc).__name__}: {_one_line(exc, 120)}"
    for text in logged.notes(abbr):
        oracle.note(text)
    if failure is not None:
        oracle.note(f"SimOpt's {abbr} stopped on an error of its own ({failure}); its last "
                    "recommendation stands")
    if last:  # the last recommendation, with the solver's estimate on all its replications
        oracle.record_best(feasible(last[0]), own_value(last[0]), replace=True)
    if replications.projected:
        oracle.note(f"{replications.projected} of {abbr}'s {replications.calls} requests lay "
                    "outside X and were simulated at their projection")
    x, value = oracle.incumbent
    left = oracle.available
    if replications.refused:
        reason = "budget"
    elif failure is not None:
        reason = f"SimOpt's solver raised {failure.split(':')[0]}"
    elif solver.budget_stop:
        reason = ("budget spent" if not left else
                  f"the solver's next request would pass its budget ({left:,} draws left)")
    else:
        reason = "the solver ended"
    info = {"simopt_solver": abbr, "simopt_replications": replications.replications,
            "simopt_budget_used": int(solver.budget.used),
            "simopt_recommendations": count[0],
            "simopt_projected": replications.projected, "simopt_gradients": gradients}
    return MethodResult(x=x, value=value, info=info, stopped_by_budget=replications.refused,
                        stop_reason=reason)


#: acfs name -> (SimOpt's abbreviation, settings, summary).
_SOLVERS: dict[str, tuple[str, type[SolverSettings], str]] = {
    "simopt-astrodf": ("ASTRODF", ASTRODFSettings,
                       "SimOpt's ASTRO-DF: adaptive-sampling trust region on interpolation "
                       "models (derivative-free; IPA gradients where a SimOpt problem has them)"),
    "simopt-neldmd": ("NELDMD", NELDMDSettings,
                      "SimOpt's Nelder-Mead simplex on r replications per point "
                      "(derivative-free)"),
    "simopt-strong": ("STRONG", STRONGSettings,
                      "SimOpt's STRONG: trust region on response-surface models "
                      "(derivative-free)"),
    "simopt-spsa": ("SPSA", SPSASettings,
                    "SimOpt's SPSA: simultaneous-perturbation gradient steps "
                    "(derivative-free)"),
    "simopt-adam": ("ADAM", ADAMSettings,
                    "SimOpt's ADAM: Adam steps on IPA gradients where a SimOpt problem has them, "
                    "else on finite differences"),
    "simopt-aloe": ("ALOE", ALOESettings,
                    "SimOpt's ALOE: adaptive line search on IPA gradients where a SimOpt "
                    "problem has them, else on finite differences"),
}

#: The version of the bridge's code: SimOpt's pinned release and the adapter's version.
METHOD_VERSION = f"simoptlib {SIMOPT_RELEASE}, adapter {ADAPTER_VERSION}"


def _method(name: str, abbr: str, settings_model: type[SolverSettings], summary: str) -> Method:
    def search(task: Task, oracle: Oracle, settings: SolverSettings,
               rng: np.random.Generator) -> MethodResult:
        return _run_solver(name, abbr, task, oracle, settings, rng)

    search.__doc__ = f"SimOpt's {abbr} under the acfs oracle (:func:`_run_solver`)."
    return Method(
        name=name, settings_model=settings_model, search=search, version=METHOD_VERSION,
        summary=f"{summary}; minimises the mean (at lam > 0 too)",
        sample_only="nothing: replication j of every decision is a re-seeded common row, "
        "SimOpt's common random numbers")


#: SimOpt's solvers as acfs methods, registered by ``acfs_cli.methods.registry``.
SIMOPT_METHODS: tuple[Method, ...] = tuple(
    _method(name, abbr, model, summary) for name, (abbr, model, summary) in _SOLVERS.items())
