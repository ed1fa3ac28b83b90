"""One search under a budget, for both doors: :func:`acfs_cli.api.minimize` and a grid's cell
(:func:`acfs_cli.experiment.cell.run_cell`), DESIGN.md section 3.

1. **Resolve** the problem and the method: :func:`problem_of` (a name, or an object of the
   protocol) and :func:`method_of`; a grid's cells carry :class:`Found`, their problem and
   method found once when the grid is planned (and, in another process, found again and
   checked to be the code planned).
2. **Guard and run**: :class:`Search` makes the method's view of the problem (the task),
   probes the simulator before its first search, gives the oracle with the budget and runs
   the method's search under the guard, which compares the rows the simulator produced with
   the oracle's count.
3. **Estimate**: :func:`estimate`, J, E[C], CVaR and the standard error of J at a decision on
   fresh draws, outside the budget.

Only the core is imported with this module (``import acfs_cli.api`` stays quick): the
registries are imported when a name is resolved.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import numpy as np

from acfs_cli.core.draws import Run
from acfs_cli.core.feasibility import measure, verdict
from acfs_cli.core.guard import SearchGuard, probe
from acfs_cli.core.oracle import Oracle
from acfs_cli.core.problem import PROTOCOL, Problem, ProblemError, as_problem, not_a_problem
from acfs_cli.core.risk import influence, spectral_risk
from acfs_cli.core.task import Task

if TYPE_CHECKING:
    from acfs_cli.methods.base import Method, MethodResult, Settings


# -- resolve -------------------------------------------------------------------------------------
def problem_of(problem, x0=None) -> Problem:
    """``problem`` normalised: a name as :func:`~acfs_cli.problems.get_problem` takes it, or
    an object of the protocol; one line saying what a problem is for anything else."""
    if isinstance(problem, str):
        from acfs_cli.problems import get_problem

        return as_problem(get_problem(problem), x0=x0)
    got = not_a_problem(problem)
    if got:
        raise ProblemError(f"{PROTOCOL}, or a problem's name ('dgp1', 'simopt:CNTNEWS-1', "
                           f"'module:Class'); {got}")
    return as_problem(problem, x0=x0)


def method_of(name: str) -> Method:
    """The method ``name`` (registered, an installed package's, or a user's by import path)
    with the modules its search imports already imported: an import may move global random
    state, and the search guard must not see it."""
    from acfs_cli.methods.registry import get_method

    return get_method(name).load()


class CodeChanged(RuntimeError):
    """The code a cell runs with is not the code its run was planned with."""


class Found:
    """A problem and a method a grid names, found once: when the grid is planned (its cells
    carry this object) or, in a process that received it pickled, at first use there.

    Only the names travel (:meth:`__getstate__`): a user's module is imported, and a SimOpt
    class made, again where the cell runs, and there the code found must be the code the grid
    was planned with (``problem_code``, ``method_code``: a Dask worker with another version,
    or a simulator edited while the run goes on, would mix two codes in one table). The
    problem is built anew for every search from the class found (a simulator's state never
    passes from one cell to the next)."""

    def __init__(self, problem: str, options: Mapping[str, Any], method: str,
                 search_path: str = "", *, problem_code: str = "", method_code: str = "",
                 target: Any = None, found_method: Method | None = None):
        self.problem, self.options = problem, dict(options)
        self.method, self.search_path = method, search_path
        self.problem_code, self.method_code = problem_code, method_code
        self._target, self._method = target, found_method

    def __getstate__(self) -> dict[str, Any]:
        return {"problem": self.problem, "options": self.options, "method": self.method,
                "search_path": self.search_path, "problem_code": self.problem_code,
                "method_code": self.method_code}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)

    def names(self) -> tuple:
        """What this object stands for: the problem's name and options, the method's name,
        the folder they are found from and the code planned for them."""
        return (self.problem, sorted(self.options.items()), self.method, self.search_path,
                self.problem_code, self.method_code)

    def build_problem(self) -> Problem:
        """A new problem, built from the class found at the first call."""
        from acfs_cli.problems import build_problem, find_problem

        if self._target is None:
            self._target = find_problem(self.problem, self.search_path)
        return build_problem(self._target, self.problem, **self.options)

    def resolve(self) -> tuple[Problem, Method]:
        """A new problem (:meth:`build_problem`) and the method, with the modules its search
        imports imported (:func:`method_of`); :class:`CodeChanged` where their code is not the
        code planned."""
        from acfs_cli.methods.registry import get_method

        problem = self.build_problem()
        if self._method is None:
            self._method = get_method(self.method, self.search_path)
        method = self._method.load()
        for what, planned, here in (("problem", self.problem_code, problem.code),
                                    ("method", self.method_code, method.code_for(problem))):
            if planned and planned != here:
                raise CodeChanged(f"the {what}'s code here ({here}) is not the code the run "
                                  f"was planned with ({planned}): it changed while the run "
                                  "went on, or this worker has another version")
        return problem, method


# -- guard and run -------------------------------------------------------------------------------
class Search:
    """One search of ``method`` with ``settings`` on ``problem`` under a budget.

    Made once the settings are valid: it builds the method's view of the problem (the
    :class:`~acfs_cli.core.task.Task`, validating lam and alpha) and probes the simulator
    (:func:`~acfs_cli.core.guard.probe`); :meth:`run` runs the search under its oracle and
    the guard."""

    def __init__(self, problem: Problem, method: Method, settings: Settings, lam: float,
                 alpha: float):
        self.problem, self.method, self.settings = problem, method, settings
        refused = method.refusal(problem.name, problem.integrality, problem.constraints,
                                 problem.space.box())
        if refused:
            raise ValueError(refused)
        self.task = Task.from_problem(problem, lam, alpha)
        probe(problem)
        #: The oracle of the search, once it runs (its count tells the draws of a search
        #: that failed).
        self.oracle: Oracle | None = None

    def run(self, budget: int, oracle_rng: np.random.Generator,
            method_rng: np.random.Generator, *, draws: Run | None = None,
            on_incumbent: Callable[[int, np.ndarray, float], Any] | None = None,
            notes: tuple[str, ...] = (), python_random: bool = True,
            watched_by: Callable[[Oracle], AbstractContextManager] | None = None,
            record: bool = False, timeout: float | None = None) -> MethodResult:
        """The method's search with its own stream ``method_rng`` under a new oracle of
        ``budget`` draws on the stream ``oracle_rng`` (simulated by ``draws`` where given,
        ``on_incumbent`` told of each new incumbent, ``notes`` noted first), watched by the
        search guard (``python_random`` as :class:`~acfs_cli.core.guard.SearchGuard` takes
        it) and by ``watched_by(oracle)``, entered first (a progress bar: what it imports is
        imported before the guard looks); with ``record`` the oracle keeps the search's
        history; with ``timeout`` the first request after that many seconds stops the search
        with its incumbent (``stop_reason == "timeout"``). A search that drew around the
        oracle or from global random state raises
        :class:`~acfs_cli.core.guard.SearchViolation`."""
        self.oracle = oracle = Oracle(self.problem, budget, oracle_rng,
                                      on_incumbent=on_incumbent, draws=draws, record=record,
                                      timeout=timeout)
        for note in notes:
            oracle.note(note)
        watcher = watched_by(oracle) if watched_by is not None else contextlib.nullcontext()
        with watcher, SearchGuard(python_random=python_random) as guard:
            result = self.method(self.task, oracle, method_rng, self.settings)
        guard.verify(oracle.used, oracle.budget)
        return result


# -- estimate ------------------------------------------------------------------------------------
def estimate(problem, x, lam: float, alpha: float, n: int, rng: np.random.Generator,
             chunk: int = 100_000, run: Run | None = None) -> dict[str, Any]:
    """J, EC, CVaR and the SE of J at ``x`` from ``n`` fresh scenarios (not budgeted); a
    sample-only simulator's in seeded blocks, simulated by ``run`` where given
    (:meth:`~acfs_cli.core.problem.Problem.fresh_outputs`). The SE is the sample SD of the
    influence values of J over sqrt(n). Where the problem declares stochastic constraints,
    also ``constraints`` (each one's estimate and 95 % interval on the same rows,
    :func:`acfs_cli.core.feasibility.measure`) and ``feasible``, the verdict."""
    prob = as_problem(problem)
    costs, G = prob.fresh_outputs(x, n, rng, run, chunk)
    J, ec, cvar = spectral_risk(costs, lam, alpha)
    se = float(influence(costs, lam, alpha).std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan
    out: dict[str, Any] = {"J": J, "EC": ec, "CVaR": cvar, "J_se": se}
    if G is not None:
        found = measure(G, prob.constraints)
        out.update(constraints=found, feasible=verdict(found))
    return out
