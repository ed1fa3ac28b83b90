"""What a method is: a search over X that sees the simulator only through a budgeted oracle.

A method receives a :class:`~acfs_cli.core.task.Task` - the problem's *known* parts:
dimensions, cost function, the decision set X, lam and alpha - and an
:class:`~acfs_cli.core.oracle.Oracle`. It never holds the problem itself, so it cannot sample
without being charged (DESIGN.md section 3).

Each method has one validated settings model (pydantic, unknown keys are errors) whose
defaults are the paper's values (Table "Key hyperparameters"). :class:`Method` binds a name, a
settings model and a search function, and is what ``get_method(name)`` returns; calling it
runs one search and returns a :class:`MethodResult`. When the budget stops a search, the
result is the oracle's last recorded incumbent.

Every method sizes its phases from its budget and the dimension
(:meth:`Settings.for_budget`): the paper's methods hold their settings as the values of the
paper's 260,000 draws on its 6-dimensional benchmarks and scale them (exactly the paper's
values there); a budget below what a method needs to do anything sensible is refused with
the minimum (:class:`BudgetTooSmall`), never met by a silent fallback.
"""

from __future__ import annotations

import importlib
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from acfs_cli.common.naming import did_you_mean
from acfs_cli.core.fingerprint import declared, module_fingerprint
from acfs_cli.core.oracle import (
    MAIN_PHASE,
    PAIRS_REFUSED,
    BudgetExhausted,
    Oracle,
    SearchStopped,
)
from acfs_cli.core.task import Task

#: The budget and the dimension at which the paper's methods use their settings as given.
REFERENCE_BUDGET = 260_000
REFERENCE_DIM = 6

#: A search that ends by its own rule with at least this share of its budget left says so in
#: its notes, with the rule (a method may plan fewer draws than it was given: GP-BO and
#: KDE-SO the paper's, a converged search none more); less than this is a plan's rounding.
EARLY_STOP = 0.01


class BudgetTooSmall(ValueError):
    """A budget below what a method needs on a problem of this dimension."""


def scaled(value: float, factor: float, power: float = 1.0, floor: float = 1,
           even: bool = False) -> int:
    """``value * factor ** power``, rounded, at least ``floor`` (an even count if asked)."""
    n = max(int(round(value * factor**power)), int(math.ceil(floor)))
    return n + (n % 2) if even else n


class Settings(BaseModel):
    """Base of every method's settings: frozen, unknown keys rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def for_budget(self, budget: int, dim: int) -> Settings:
        """The settings this budget and dimension call for (default: as given)."""
        return self

    def minimum_budget(self, dim: int) -> int:
        """The fewest draws with which the method does something sensible."""
        return 1


class ScaledSettings(Settings):
    """Settings given at the reference budget (the paper's 260,000 draws) and scaled with the
    budget: each phase's draws follow the budget, split evenly between the number of decisions
    and the draws per decision (each grows like the square root), with floors below which the
    phase would mean nothing. ``scale_with_budget: false`` uses them as given."""

    scale_with_budget: bool = Field(
        True, description="size the phases from the budget (the values are those of the "
        "paper's 260,000 draws); false uses them as given")

    def for_budget(self, budget: int, dim: int) -> Settings:
        if not self.scale_with_budget:
            return self
        return self.model_copy(update=self.scale(budget / REFERENCE_BUDGET, dim))

    def scale(self, factor: float, dim: int) -> dict[str, Any]:  # pragma: no cover
        """The settings that change with the budget, for ``factor`` = budget / 260,000."""
        return {}


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
    #: The incumbents in order: (draws used, x, the method's own value), from the oracle.
    trajectory: list[tuple[int, np.ndarray, float]] = field(default_factory=list)
    #: What the run did differently from what was asked (fallbacks), from the oracle.
    notes: list[str] = field(default_factory=list)
    #: Why the search ended: "budget" (the cap stopped it), "callback" (the incumbent's
    #: observer stopped it), "timeout" (the oracle's clock did), or the method's own reason
    #: ("converged: ...", "plan complete", ...) when it ended with draws left.
    stop_reason: str = ""
    #: Wall seconds per phase (the oracle's :attr:`~acfs_cli.core.oracle.Oracle.phase_times`;
    #: not stored with results, a time differs on every run).
    phase_times: dict[str, float] = field(default_factory=dict)


def _checked_result(name: str, result: Any, task: Task) -> MethodResult:
    """A method's result as the runner needs it: a :class:`MethodResult` whose x is a
    feasible float vector of the problem's dimension and whose value is a real number (NaN
    allowed: a method may have no estimate); ``RuntimeError`` in one line otherwise."""
    if not isinstance(result, MethodResult):
        raise RuntimeError(f"method {name!r} returned {type(result).__name__}, not a "
                           "MethodResult")
    try:
        x = np.array(result.x, dtype=float)
    except (TypeError, ValueError):
        raise RuntimeError(f"method {name!r} returned an x* that is not a vector of numbers: "
                           f"{result.x!r:.80}") from None
    if x.shape != (task.dim_x,) or not np.all(np.isfinite(x)):
        raise RuntimeError(f"method {name!r} returned an x* of shape {x.shape} (expected "
                           f"({task.dim_x},), finite)")
    if not bool(task.is_feasible(x)):
        raise RuntimeError(f"method {name!r} returned an infeasible x*: {x}")
    value = result.value
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise RuntimeError(f"method {name!r} returned a value that is not a number: "
                           f"{value!r:.80}")
    result.x, result.value = x, float(value)
    if not isinstance(result.info, dict):
        raise RuntimeError(f"method {name!r} returned info that is not a dict")
    return result


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
    #: What the method does differently on a sample-only simulator (no transform), if anything.
    sample_only: str = "nothing: plain draws and re-seeded common samples serve it as given"
    #: The version of the method's code, changed whenever its results change (None: the
    #: source of the module of its search function stands for it).
    version: str | None = None
    #: How tables and figures name the method ("" : its name).
    display: str = ""
    #: Modules the search imports when it runs (a library too slow to import with the
    #: method's module), imported by :meth:`load` before a search is watched: scikit-learn's
    #: first import moves Python's global random state, which the search guard would take
    #: for a draw of the search's own.
    imports: tuple[str, ...] = ()
    #: Whether the method asks for the rows of several decisions in one request wherever its
    #: algorithm allows, so that parallel draws have work to share (DESIGN.md section 3).
    batched: bool = True
    #: What it asks for one decision at a time, and why ("": nothing); a decision's own rows
    #: are still drawn apart, in seeded blocks.
    one_at_a_time: str = ""
    #: Whether the search keeps a problem's integer coordinates (its ``integrality``) whole;
    #: one that does not refuses such a problem (:meth:`refusal`) rather than answer a
    #: fractional decision.
    integer: bool = False
    #: Whether the search keeps a problem's stochastic constraints; one that does not refuses
    #: such a problem rather than answer a decision it never checked.
    constrained: bool = False
    #: Whether the search needs what it keeps: stochastic constraints (a solver built for
    #: them, SimOpt's FCSA) or integer coordinates everywhere (a lattice search, SimOpt's
    #: DASSO); it refuses a problem without them in one line.
    needs_constraints: bool = False
    needs_integers: bool = False
    #: Whether the search needs a bounded box (a lattice search over it, SimOpt's DASSO).
    needs_box: bool = False
    #: The version of the search it runs where a problem declares stochastic constraints or
    #: integer coordinates, when that search is its own (None: :attr:`version` covers both),
    #: so that a change there makes only those problems' results stale, and a change
    #: elsewhere leaves them current. Those problems' cells carry ``version <this>``.
    declared_version: str | None = None

    def refusal(self, problem_name: str, integrality, constraints=(),
                box: tuple | None = None) -> str | None:
        """Why this method cannot search a problem whose coordinates ``integrality`` (one
        bool per coordinate) marks integer, that declares stochastic ``constraints``, or whose
        ``box`` (lower, upper) is open where the method needs it closed, in one line; None
        when it can."""
        whole = np.flatnonzero(np.asarray(integrality, dtype=bool))
        if whole.size and not self.integer:
            names = ", ".join(f"x[{j}]" for j in whole[:6]) + (", ..." if whole.size > 6
                                                                 else "")
            return (f"method {self.name!r} cannot search integer coordinates: problem "
                    f"{problem_name!r} declares {names} integer (integrality)")
        if constraints and not self.constrained:
            said = "; ".join(c.describe() for c in constraints[:4]) + (
                "; ..." if len(constraints) > 4 else "")
            return (f"method {self.name!r} cannot keep stochastic constraints: problem "
                    f"{problem_name!r} declares {said}")
        if self.needs_constraints and not constraints:
            return (f"method {self.name!r} searches under stochastic constraints only: problem "
                    f"{problem_name!r} declares none")
        flags = np.asarray(integrality, dtype=bool)
        if self.needs_integers and not flags.all():
            loose = np.flatnonzero(~flags)
            names = ", ".join(f"x[{j}]" for j in loose[:6]) + (", ..." if loose.size > 6
                                                                else "")
            return (f"method {self.name!r} searches integer lattices only: problem "
                    f"{problem_name!r} has continuous {names}")
        if self.needs_box and box is not None:
            open_ = np.flatnonzero(~(np.isfinite(box[0]) & np.isfinite(box[1])))
            if open_.size:
                return (f"method {self.name!r} searches the lattice of a bounded box: x["
                        f"{open_[0]}] of problem {problem_name!r} is unbounded")
        return None

    @property
    def display_name(self) -> str:
        """The method's name in tables and figures."""
        return self.display or self.name

    @property
    def code(self) -> str:
        """The fingerprint of the method's code (:mod:`acfs_cli.core.fingerprint`)."""
        if self.version is not None:
            return declared(self.version)
        return module_fingerprint(getattr(self.search, "__module__", None))

    def code_for(self, problem) -> str:
        """The fingerprint of the code that searches ``problem``: :attr:`code`, or where the
        problem declares constraints or integer coordinates, :attr:`declared_version`."""
        integrality = getattr(problem, "integrality", None)
        declares = (integrality is not None and bool(np.any(integrality))) or bool(
            getattr(problem, "constraints", ()))
        if self.declared_version is None or not declares:
            return self.code
        return declared(self.declared_version)

    def load(self) -> Method:
        """Import the modules the search will import (:attr:`imports`); returns the method."""
        for module in self.imports:
            importlib.import_module(module)
        return self

    def settings(self, overrides: Mapping[str, Any] | None = None) -> Settings:
        """Validated settings: the paper's defaults, the variant's fixed values, overrides."""
        overrides = dict(overrides or {})
        clash = sorted(set(overrides) & set(self.fixed))
        if clash:
            raise ValueError(f"method {self.name!r} fixes {', '.join(clash)}; it cannot be set")
        fields = self.settings_model.model_fields
        unknown = sorted(set(overrides) - set(fields))
        if unknown:
            known = f"its parameters: {', '.join(fields)}" if fields else "it takes none"
            hint = did_you_mean(unknown[0], fields) if len(unknown) == 1 else ""
            raise ValueError(
                f"method {self.name!r} has no parameter {', '.join(unknown)}{hint}; {known}")
        return self.settings_model(**{**self.fixed, **overrides})

    def __call__(
        self,
        task: Task,
        oracle: Oracle,
        rng: np.random.Generator,
        settings: Settings | Mapping[str, Any] | None = None,
    ) -> MethodResult:
        """Run one search; when the budget (:class:`BudgetExhausted`) or the incumbent's
        observer (:class:`SearchStopped`) ends it, return the recorded incumbent."""
        if not isinstance(settings, Settings):
            settings = self.settings(settings)
        need = self.minimum_budget(task.dim_x, settings)
        if oracle.budget < need:
            raise BudgetTooSmall(f"{self.name} needs at least {need:,} draws on a "
                                 f"{task.dim_x}-dimensional problem (budget {oracle.budget:,})")
        effective = settings.for_budget(oracle.budget, task.dim_x)
        asked_pairs = "antithetic" in settings.model_fields_set and bool(
            getattr(settings, "antithetic", False))
        start = time.perf_counter()
        stopped = False
        try:
            # Every search runs inside a phase, so all its time is charged to some phase.
            with oracle.phase(MAIN_PHASE):
                result = self.search(task, oracle, effective, rng)
        except BudgetExhausted:
            result = self._from_incumbent(oracle, "budget of {budget} draws ran out")
            result.stopped_by_budget = True
        except SearchStopped:
            stopped = True
        # A method that swallowed the stop (a broad ``except``) still ends at the stop.
        if stopped or oracle.stopped:
            timed_out = oracle.timed_out
            result = self._from_incumbent(
                oracle, f"the timeout of {oracle.timeout:g} s passed" if timed_out
                else "the search was stopped")
            result.stop_reason = "timeout" if timed_out else "callback"
        result = _checked_result(self.name, result, task)
        result.oracle_draws = oracle.used
        result.account = oracle.account
        result.trajectory = oracle.trajectory
        result.phase_times = oracle.phase_times
        if effective is not settings:
            result.info["effective_settings"] = {
                k: v for k, v in effective.model_dump().items() if getattr(settings, k) != v}
        if result.stop_reason not in ("callback", "timeout") and result.stopped_by_budget:
            result.stop_reason = "budget"
        elif not result.stop_reason:
            result.stop_reason = str(result.info.get("stop_reason") or (
                "budget spent" if oracle.used >= oracle.budget else "plan complete"))
        # What the oracle noted, then what the run says of itself: pairs a method asks for
        # by design are its own business (the methods' table says which run without them),
        # pairs the user's settings asked for are noted; and a stop with draws left.
        notes = oracle.notes
        if oracle.pairs_refused and asked_pairs:
            notes.append(PAIRS_REFUSED)
        left = oracle.budget - oracle.used
        if (result.stop_reason not in ("callback", "timeout")
                and not result.stop_reason.startswith("budget")
                and left >= EARLY_STOP * oracle.budget):
            notes.append(f"{self.name} stopped with {left:,} of {oracle.budget:,} draws left: "
                         f"{result.stop_reason}")
        result.notes = notes
        result.wall_s = time.perf_counter() - start
        return result

    def _from_incumbent(self, oracle: Oracle, what: str) -> MethodResult:
        """The oracle's incumbent as the search's answer (``what`` ended the search)."""
        incumbent = oracle.incumbent
        if incumbent is None:
            raise RuntimeError(f"{self.name}: {what.format(budget=oracle.budget)} before any "
                               "incumbent was recorded") from None
        return MethodResult(x=incumbent[0], value=incumbent[1])

    def minimum_budget(self, dim: int,
                       overrides: Settings | Mapping[str, Any] | None = None) -> int:
        """The fewest draws this method accepts on a ``dim``-dimensional problem (none when
        its settings are used as given, ``scale_with_budget: false``)."""
        settings = overrides if isinstance(overrides, Settings) else self.settings(overrides)
        return settings.minimum_budget(dim) if getattr(
            settings, "scale_with_budget", True) else 1

    def parameters(self) -> dict[str, Any]:
        """The effective default parameters of this method (variant values included)."""
        return self.settings().model_dump()
