"""SimOpt's solvers for stochastic constraints and integer decisions as acfs methods:
``simopt-rndsrch``, ``simopt-fcsa``, ``simopt-dasso`` (DESIGN.md section 8).

They run through the same bridge as the continuous study's solvers
(:func:`acfs_cli.methods.simopt._run_solver`): every replication is a row drawn through the
acfs oracle, the answer is the oracle's incumbent. The bridge's SimOpt problem carries what
the task declares as SimOpt's own problems carry it: each stochastic constraint as a
left-hand side per replication whose mean must be at most 0 (``n_stochastic_constraints``,
so ``Solution.stoch_constraints`` is filled; a chance constraint P(g > 0) <= eps becomes
1(g > 0) - eps), and integer coordinates as ``int`` values, bounds and start.

What each keeps, from SimOpt's own declarations (``compatibility``):

* **RNDSRCH** (``SSMN``: stochastic constraints, mixed variables): random search from x0,
  each random solution on ``sample_size`` replications, kept where its mean is better and
  every constraint's mean at most 0. Integer and constrained, and any continuous problem.
* **FCSA** (``SSCN``: stochastic constraints, continuous variables): cooperative stochastic
  approximation. Constrained, not integer; SimOpt offers it for problems with stochastic
  constraints only, and so does acfs. simoptlib 1.2.4's incumbent rule takes a feasible point
  as an improvement only when it is worse, so FCSA never leaves a feasible x0: the method runs
  :func:`~acfs_cli.integrations.simopt.corrected_fcsa`, and its notes say so and what SimOpt's
  own rule would have answered. At a point that violates a constraint FCSA steers by the
  constraints' gradients: where the task gives them (``constraint_gradient``, SAN-2's) the
  bridge hands them over as SimOpt's problem does; elsewhere there are none (SimOpt gives
  zeros, as on FACSIZE-1 and CONTAM), so there its direction is set by the objective alone.
* **DASSO** (``SBDN``: box, discrete): dice-and-slice search on the lattice of X's box.
  Integer, on problems whose coordinates are all integers with finite bounds; not
  constrained. Its start-up estimates its model on up to ``n_points_for_estimation`` x
  (1 + groups) lattice points of ``sample_size`` replications each and only then makes its
  first recommendation; natively a budget below that leaves no recommendation and SimOpt's
  trimming of the run raises IndexError. Here that start-up is the method's minimum budget:
  a smaller one is refused in one line naming it. DASSO holds dense matrices over each
  group's lattice, so a group of more than :data:`LATTICE_LIMIT` points is refused too.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import Field, field_validator

from acfs_cli.common.naming import short_array
from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.integrations.simopt import corrected_fcsa, require
from acfs_cli.methods.base import Method, MethodResult
from acfs_cli.methods.simopt import METHOD_VERSION, SolverSettings, _run_solver

#: The most points of one group's lattice DASSO is given: it holds dense matrices over a
#: group's lattice (2,000 points take about a second per iteration, 90,000 would take 60 GB).
LATTICE_LIMIT = 2_500


class RNDSRCHSettings(SolverSettings):
    sample_size: int = Field(10, gt=0, description="replications at each solution")


class FCSASettings(SolverSettings):
    r: int = Field(30, gt=0, description="replications at each solution")
    h: float = Field(0.1, gt=0, description="difference in the finite-difference gradient")
    step_type: Literal["const", "decay"] = Field("const", description="constant or decaying "
                                                 "step size")
    step_mult: float = Field(0.1, gt=0, description="the constant step size, or the "
                             "multiplier of k of a decaying one")
    tolerance: float = Field(0.01, ge=0, description="a constraint mean above this is "
                             "violated")
    search_direction: Literal["FCSA", "CSA-N", "CSA"] = Field(
        "FCSA", description="how the search direction is found at a violating point")
    normalize_grads: bool = Field(True, description="normalise the gradients of the search "
                                  "direction")
    feas_const: float = Field(0.0, ge=0, description="feasibility constant relaxing the "
                              "objective's constraint")
    feas_score: int = Field(2, gt=0, description="degree of the feasibility score relaxing "
                            "the objective's constraint")
    report_all_solns: bool = Field(False, description="recommend every iterate")


class DASSOSettings(SolverSettings):
    sample_size: int = Field(10, gt=0, description="replications at each solution")
    n_points_for_estimation: int = Field(10, gt=0, description="reference points of the "
                                         "parameter estimation")
    decomposition: list[tuple[int, ...]] = Field(
        default_factory=list, description="groups of coordinates, disjoint (empty: the first "
        "and the second half)")

    @field_validator("decomposition")
    @classmethod
    def _disjoint(cls, groups: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        seen: set[int] = set()
        for group in groups:
            if any(j < 0 for j in group):
                raise ValueError("coordinate ids in the decomposition must be non-negative")
            if seen & set(group) or len(set(group)) < len(group):
                raise ValueError("coordinate ids in the decomposition must be disjoint")
            seen |= set(group)
        return groups

    def groups(self, dim: int) -> list[tuple[int, ...]]:
        """DASSO's groups on a ``dim``-dimensional problem (SimOpt's default: two halves)."""
        if self.decomposition:
            return [tuple(g) for g in self.decomposition]
        return [tuple(range(dim // 2)), tuple(range(dim // 2, dim))]

    def minimum_budget(self, dim: int) -> int:
        # DASSO's start-up: up to n_points reference points and one neighbour of each per
        # group, sample_size replications each, before its first recommendation.
        groups = len(self.decomposition) or 2
        return self.n_points_for_estimation * (1 + groups) * self.sample_size


def _refuse(name: str, task: Task) -> None:
    """The one-line refusal of what the method cannot keep, also where a task reaches the
    search directly (a grid and minimize refuse before the search)."""
    whole = task.integrality if task.integrality is not None else np.zeros(task.dim_x, bool)
    said = METHODS_BY_NAME[name].refusal(task.name or "the task", whole, task.constraints,
                                         task.box())
    if said:
        raise ValueError(said)


def _rndsrch(task: Task, oracle: Oracle, settings: RNDSRCHSettings,
             rng: np.random.Generator) -> MethodResult:
    _refuse("simopt-rndsrch", task)
    return _run_solver("simopt-rndsrch", "RNDSRCH", task, oracle, settings, rng,
                       library_errors=True)


def _fcsa(task: Task, oracle: Oracle, settings: FCSASettings,
          rng: np.random.Generator) -> MethodResult:
    _refuse("simopt-fcsa", task)
    require("simopt-fcsa")
    seen: list = []
    result = _run_solver("simopt-fcsa", "FCSA", task, oracle, settings, rng,
                         solver_class=corrected_fcsa(), after=seen.append,
                         library_errors=True)
    solver = seen[0] if seen else None
    state = getattr(solver, "uncorrected", None)
    if state is not None:
        recs, own, _ = state
        said = (f"answered {short_array(np.asarray(own.x, dtype=float))} after {recs} "
                f"recommendation(s)" if own is not None else "recommended nothing")
        oracle.note(
            "SimOpt's FCSA ran with its incumbent rule corrected (simoptlib 1.2.4 counts only "
            f"worse feasible points as improvements; DESIGN.md section 8): its own rule {said}, "
            f"the corrected one made {result.info['simopt_recommendations']}")
        result.info["simopt_uncorrected_recommendations"] = recs
    return result


def _dasso(task: Task, oracle: Oracle, settings: DASSOSettings,
           rng: np.random.Generator) -> MethodResult:
    _refuse("simopt-dasso", task)
    lo, hi = task.box()
    groups = settings.groups(task.dim_x)
    covered = sorted(j for g in groups for j in g)
    if covered != list(range(task.dim_x)):
        raise ValueError(f"simopt-dasso: the decomposition {settings.decomposition} must "
                         f"cover the coordinates 0..{task.dim_x - 1} once each")
    sizes = [math.prod(int(hi[j] - lo[j]) + 1 for j in g) for g in groups]
    if max(sizes) > LATTICE_LIMIT:
        raise ValueError(f"method 'simopt-dasso' takes groups of at most {LATTICE_LIMIT:,} "
                         f"lattice points (its dense matrices span a group's lattice): "
                         f"problem {task.name!r} gives {_count(max(sizes))} in a group; a finer "
                         "decomposition makes smaller groups")
    return _run_solver("simopt-dasso", "DASSO", task, oracle, settings, rng,
                       library_errors=True)


def _count(n: int) -> str:
    return f"{n:,}" if n < 10**9 else f"{float(n):.2g}"


def _method(name: str, search, settings_model: type[SolverSettings], display: str,
            summary: str, **flags) -> Method:
    return Method(
        name=name, settings_model=settings_model, search=search, version=METHOD_VERSION,
        display=display, summary=f"{summary}; minimises the mean (at lam > 0 too)",
        sample_only="nothing: replication j of every decision is a re-seeded common row, "
        "SimOpt's common random numbers",
        batched=False, one_at_a_time="SimOpt's solver asks for one decision's replications at "
        "a time (its next decision depends on them); the replications are drawn apart",
        **flags)


#: SimOpt's solvers for declared problems, registered by ``acfs_cli.methods.registry``.
SIMOPT_DECLARED_METHODS: tuple[Method, ...] = (
    _method("simopt-rndsrch", _rndsrch, RNDSRCHSettings, "SimOpt-RNDSRCH",
            "SimOpt's random search: random solutions on sample_size replications each, kept "
            "where better and every stochastic constraint's mean at most 0 (integer "
            "coordinates kept whole)", integer=True, constrained=True),
    _method("simopt-fcsa", _fcsa, FCSASettings, "SimOpt-FCSA",
            "SimOpt's FCSA: cooperative stochastic approximation under stochastic constraints "
            "(problems with stochastic constraints only; its incumbent rule corrected)",
            constrained=True, needs_constraints=True),
    _method("simopt-dasso", _dasso, DASSOSettings, "SimOpt-DASSO",
            "SimOpt's DASSO: dice-and-slice search on the integer lattice of a bounded box "
            "(all-integer problems only)", integer=True, needs_integers=True,
            needs_box=True),
)

METHODS_BY_NAME = {m.name: m for m in SIMOPT_DECLARED_METHODS}
