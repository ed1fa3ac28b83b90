"""SimOpt's solvers as acfs methods: ``simopt-astrodf``, ``simopt-neldmd``, ``simopt-strong``,
``simopt-spsa``, ``simopt-adam``, ``simopt-aloe`` (DESIGN.md section 8).

Every replication a solver asks for is a scenario row drawn through the acfs oracle, so the
solvers run under acfs's budget, seeds and checks, on any acfs problem; each recommendation
is the oracle's incumbent. They optimise the mean (lam > 0 is noted, and scored by the grid on
J). The bridge also carries a task's stochastic constraints and integer coordinates to the
solvers that keep them (:mod:`acfs_cli.methods.simopt_declared`): ``simopt-rndsrch``,
``simopt-fcsa``, ``simopt-dasso``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np
from pydantic import BaseModel, Field, model_validator

from acfs_cli.common.naming import short_array
from acfs_cli.core.oracle import BudgetExhausted, Oracle
from acfs_cli.core.sample import CommonSample, child_seed
from acfs_cli.core.task import Task
from acfs_cli.integrations.simopt import (
    ADAPTER_VERSION,
    PREFIX,
    SIMOPT_RELEASE,
    STREAM_COUNT,
    STREAM_OFFSET,
    LogNotes,
    announcing,
    load,
    one_line,
    raised_in_simopt,
    refusal,
    require,
)
from acfs_cli.methods.base import Method, MethodResult, Settings


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


def constraint_lhs(task: Task, W: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The task's stochastic constraints as SimOpt states its own, E[lhs] <= 0, one left-hand
    side per row of W (n, m): g itself for an expectation E[g] <= 0, and 1(g > 0) - eps for a
    chance constraint P(g > 0) <= eps (SimOpt's FACSIZE-1 and CONTAM write theirs so)."""
    G = np.asarray(task.constraint_values(W, x), dtype=float).reshape(len(W), -1)
    out = G.copy()
    for j, c in enumerate(task.constraints):
        if c.chance is not None:
            out[:, j] = (G[:, j] > 0).astype(float) - c.chance
    return out


def whole_point(task: Task) -> Callable[[np.ndarray], np.ndarray]:
    """The nearest whole point of X to a decision, on a task with integer coordinates: its
    projection onto X with the integer coordinates rounded half up, else down, else up,
    whichever first lies in X (a cap on a sum of whole coordinates is met by rounding down);
    ``RuntimeError`` in one line where none does."""
    whole = np.asarray(task.integrality, dtype=bool)

    def move(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if np.array_equal(x[whole], np.round(x[whole])) and bool(task.is_feasible(x)):
            return x
        p = np.asarray(task.project(x), dtype=float)
        for fn in (lambda v: np.floor(v + 0.5), np.floor, np.ceil):
            q = p.copy()
            q[whole] = fn(p[whole])
            if bool(task.is_feasible(q)):
                return q
        raise RuntimeError(f"no rounding of {short_array(p)} on its integer coordinates lies "
                           "in X")

    return move


class _Replications:
    """A SimOpt solver's ``simulate(solution, m)``, served by the acfs oracle.

    Replication j of a decision is one row drawn at it on the seed child j of one
    oracle-issued common-sample seed - shared by every decision when the solver asks for
    common random numbers (SimOpt's CRN across solutions: replication j sees the same random
    numbers everywhere), one per decision when it does not. How the solver batches its calls
    does not change a replication. Every row is charged; a call the oracle refuses becomes
    SimOpt's own budget stop, so the solver returns its recommendations as at the end of its
    budget. A decision outside X (SimOpt's solvers know only the box, and ASTRO-DF leaves
    even that) is simulated at its projection onto X, and counted; on a task with integer
    coordinates, at the nearest whole point of X (:func:`whole_point`), as is a decision
    with a fraction there. Where the task declares stochastic constraints, each replication
    carries their left-hand sides as SimOpt's problems do (:func:`constraint_lhs`).
    """

    def __init__(self, task: Task, oracle: Oracle, refused: type[Exception], *, crn: bool,
                 gradients: bool):
        self.task, self.oracle, self.refused_error = task, oracle, refused
        self.crn, self.gradients = crn, gradients
        self.moved = whole_point(task) if task.integrality is not None else None
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
        if self.moved is not None:
            whole = self.moved(x)
            if not np.array_equal(whole, x):
                x = whole
                self.projected += 1
        elif not bool(self.task.is_feasible(x)):
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
        lhs = constraint_lhs(self.task, W, x) if self.task.constraints else None
        # the constraints' IPA gradients where the problem gives them (SAN-2's), as SimOpt's
        # own problem hands them to its solvers (FCSA steers by them)
        dg = (self.task.constraint_gradient(W, x) if self.gradients and lhs is not None
              and self.task.constraint_gradient is not None else None)
        so = load()
        for j in range(m):
            grads = W[j, 1:1 + self.task.dim_x] if self.gradients else None
            solution.add_replicate_result(so.RepResult(objectives=[
                so.Objective(stochastic=float(costs[j]), stochastic_gradients=grads)],
                stochastic_constraints=None if lhs is None else [
                    so.StochasticConstraint(stochastic=float(v), stochastic_gradients=(
                        None if dg is None or c.chance is not None else dg[j, i]))
                    for i, (v, c) in enumerate(zip(lhs[j], self.task.constraints,
                                                   strict=True))]))
        self.replications += m
        self.calls += 1


@functools.cache
def _bridge_types() -> SimpleNamespace:
    """The SimOpt classes of the bridge, built once simopt is imported."""
    so = load()

    class OracleRefused(so.BudgetExhaustedError):
        """The acfs oracle refused a request: the solver stops as at the end of its budget."""

    class TaskConfig(BaseModel):
        initial_solution: tuple[int | float, ...] = (0.0,)
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
                     law: Callable[[Any], tuple], gradients: bool, *,
                     whole: np.ndarray | None = None, constraints: int = 0):
            super().__init__(fixed_factors={"initial_solution": _as_simopt(x0, whole),
                                            "budget": int(budget)})
            self._lower = _as_simopt(box[0], whole)
            self._upper = _as_simopt(box[1], whole)
            self._replications, self._law = replications, law
            # ASTRO-DF, ADAM and ALOE read gradients wherever the problem says it has them.
            self.gradient_available = bool(gradients)
            # What the task declares, as SimOpt's problems declare it (only the solvers that
            # keep declarations run on a task that has some).
            if whole is not None:
                self.variable_type = (so.VariableType.DISCRETE if np.all(whole)
                                      else so.VariableType.MIXED)
            if constraints:
                self.n_stochastic_constraints = int(constraints)
                self.constraint_type = so.ConstraintType.STOCHASTIC

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


def _as_simopt(values, whole: np.ndarray | None) -> tuple:
    """A decision or bounds as SimOpt's problems give them: floats, and an ``int`` on an
    integer coordinate where the value is finite (SimOpt's discrete solvers count on it)."""
    out = tuple(float(v) for v in values)
    if whole is None:
        return out
    return tuple(int(v) if w and math.isfinite(v) else v
                 for v, w in zip(out, whole, strict=True))


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
    cls = load().problems.get(task.name.removeprefix(PREFIX).split("(")[0])
    if cls is None or refusal(cls) is not None:
        return None
    try:
        problem = cls()
    except Exception:  # noqa: BLE001 - then the task is treated as any other
        return None
    return problem if problem.dim == task.dim_x else None


def _start(task: Task) -> np.ndarray:
    """Where the solver starts: the task's x0, else the centre of X's box projected onto X
    (and moved to the nearest whole point of X where the task has integer coordinates)."""
    if task.x0 is not None:
        return task.x0
    lo, hi = task.region()
    x = task.project(0.5 * (lo + hi))
    return whole_point(task)(x) if task.integrality is not None else x


def _uniform_law(task: Task) -> Callable[[Any], tuple]:
    """Random solutions for a task SimOpt does not know: uniform on the region searches start
    in (X's box, or x0 +- its steps where X is unbounded; DESIGN.md section 7), projected onto
    X."""
    lo, hi = task.region()
    whole = task.integrality
    move = whole_point(task) if whole is not None else None

    def law(rng) -> tuple:
        u = np.array([rng.uniform(float(a), float(b)) for a, b in zip(lo, hi, strict=True)])
        if move is not None:
            return _as_simopt(move(u), whole)
        return tuple(float(v) for v in task.project(u))

    return law


def _run_solver(method: str, abbr: str, task: Task, oracle: Oracle, settings: SolverSettings,
                rng: np.random.Generator, solver_class: type | None = None,
                after: Callable[[Any], None] | None = None,
                library_errors: bool = False) -> MethodResult:
    """One run of SimOpt's solver ``abbr`` (its class ``solver_class`` where given: a
    corrected one) on ``task``, every replication through ``oracle``; ``after`` is handed
    the solver once it has run. An error raised in SimOpt's code ends the run with its last
    recommendation (with ``library_errors``, also one raised in a library it called)."""
    so = require(method)
    types = _bridge_types()
    behind = _simopt_behind(task)
    m = len(task.constraints)
    carried = m * (1 + (task.dim_x if task.constraint_gradient is not None else 0))
    gradients = bool(behind is not None and behind.gradient_available
                     and task.dim_w == 1 + task.dim_x + carried)
    if task.lam:
        oracle.note(f"SimOpt's {abbr} minimises the mean of its replications: at lam = "
                    f"{task.lam:g} it minimised E[C], not J")
    replications = _Replications(task, oracle, types.OracleRefused,
                                 crn=settings.crn_across_solns, gradients=gradients)
    x0 = _start(task)
    law = behind.get_random_solution if behind is not None else _uniform_law(task)
    problem = types.TaskProblem(x0, oracle.available, task.box(), replications, law, gradients,
                                whole=task.integrality, constraints=m)
    try:
        solver = announcing(solver_class or so.solvers[abbr])(fixed_factors=settings.factors())
    except Exception as exc:
        raise ValueError(f"{method}: {one_line(exc)}") from None
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
        if replications.moved is not None:
            return replications.moved(x)
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
    with oracle.phase(method), LogNotes() as logged:
        try:
            solver.run(problem)
        except Exception as exc:
            if not raised_in_simopt(exc, library_errors):
                raise
            failure = f"{type(exc).__name__}: {one_line(exc, 120)}"
    for text in logged.notes(abbr):
        oracle.note(text)
    if after is not None:
        after(solver)
    if failure is not None:
        oracle.note(f"SimOpt's {abbr} stopped on an error of its own ({failure}); its last "
                    "recommendation stands" if last else
                    f"SimOpt's {abbr} stopped on an error of its own ({failure}) before its "
                    "first recommendation; the start stands")
    if last:  # the last recommendation, with the solver's estimate on all its replications
        oracle.record_best(feasible(last[0]), own_value(last[0]), replace=True)
    if replications.projected:
        oracle.note(f"{replications.projected} of {abbr}'s {replications.calls} requests lay "
                    "outside X and were simulated at their projection"
                    if replications.moved is None else
                    f"{replications.projected} of {abbr}'s {replications.calls} requests lay "
                    "outside X or off whole values and were simulated at the nearest whole "
                    "point of X")
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
    if m and last and last[0].n_reps:  # the solver's own estimate at its answer
        info["simopt_constraints_mean"] = [float(v) for v in last[0].stoch_constraints_mean]
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
        "SimOpt's common random numbers",
        batched=False, one_at_a_time="SimOpt's solver asks for one decision's replications at "
        "a time (its next decision depends on them); the replications are drawn apart")


#: SimOpt's solvers as acfs methods, registered by ``acfs_cli.methods.registry``.
SIMOPT_METHODS: tuple[Method, ...] = tuple(
    _method(name, abbr, model, summary) for name, (abbr, model, summary) in _SOLVERS.items())

