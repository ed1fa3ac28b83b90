"""One search under a budget, for both doors: :func:`acfs_cli.api.minimize` and a grid's cell
(:func:`acfs_cli.experiment.cell.run_cell`), DESIGN.md section 3.

1. **Resolve** the problem and the method: :func:`problem_of` (a name, or an object of the
   protocol) and :func:`method_of`; a grid's cells carry :class:`Found`, the names of their
   problem and method found once when the grid is planned.
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
from acfs_cli.core.guard import SearchGuard, probe
from acfs_cli.core.oracle import Oracle
from acfs_cli.core.plugins import add_import_path
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


class Found:
    """A problem and a method a grid names, found once: when the grid is planned (its cells
    carry this object) or, in a process that received it pickled, at first use there.

    Only the names travel (:meth:`__getstate__`): a user's module is imported, and a SimOpt
    class made, again where the cell runs. The problem is built anew for every search from
    the class found (a simulator's state never passes from one cell to the next)."""

    def __init__(self, problem: str, options: Mapping[str, Any], method: str,
                 search_path: str = "", *, target: Any = None, found_method: Method | None = None):
        self.problem, self.options = problem, dict(options)
        self.method, self.search_path = method, search_path
        self._target, self._method = target, found_method

    def __getstate__(self) -> dict[str, Any]:
        return {"problem": self.problem, "options": self.options, "method": self.method,
                "search_path": self.search_path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)

    def names(self) -> tuple:
        """What this object stands for: the problem's name and options, the method's name and
        the folder they are found from."""
        return (self.problem, sorted(self.options.items()), self.method, self.search_path)

    def find_method(self) -> Method:
        """The method, found at the first call, with the modules its search imports imported
        (:func:`method_of`)."""
        if self._method is None:
            from acfs_cli.methods.registry import get_method

            add_import_path(self.search_path)
            self._method = get_method(self.method)
        return self._method.load()

    def build_problem(self) -> Problem:
        """A new problem, built from the class found at the first call."""
        from acfs_cli.problems import build_problem, find_problem

        if self._target is None:
            add_import_path(self.search_path)
            self._target = find_problem(self.problem)
        return build_problem(self._target, self.problem, **self.options)


# -- guard and run -------------------------------------------------------------------------------
class Search:
    """One search of ``method`` with ``settings`` on ``problem`` under a budget.

    Made once the settings are valid: it builds the method's view of the problem (the
    :class:`~acfs_cli.core.task.Task`, validating lam and alpha) and probes the simulator
    (:func:`~acfs_cli.core.guard.probe`); :meth:`oracle` gives the budgeted oracle and
    :meth:`run` the search under the guard."""

    def __init__(self, problem: Problem, method: Method, settings: Settings, lam: float,
                 alpha: float):
        self.problem, self.method, self.settings = problem, method, settings
        self.task = Task.from_problem(problem, lam, alpha)
        probe(problem)

    def oracle(self, budget: int, rng: np.random.Generator, *, draws: Run | None = None,
               on_incumbent: Callable[[int, np.ndarray, float], Any] | None = None) -> Oracle:
        """The oracle of the search: ``budget`` draws on the stream ``rng``, simulated by
        ``draws`` where given."""
        return Oracle(self.problem, budget, rng, on_incumbent=on_incumbent, draws=draws)

    def run(self, oracle: Oracle, rng: np.random.Generator, *, python_random: bool = True,
            watched_by: AbstractContextManager | None = None) -> MethodResult:
        """The method's search under ``oracle`` with its own stream ``rng``, watched by the
        search guard (``python_random`` as :class:`~acfs_cli.core.guard.SearchGuard` takes
        it) and by ``watched_by``, entered first (a progress bar: what it imports is imported
        before the guard looks). A search that drew around the oracle or from global random
        state raises :class:`~acfs_cli.core.guard.SearchViolation`."""
        with watched_by or contextlib.nullcontext(), \
                SearchGuard(python_random=python_random) as guard:
            result = self.method(self.task, oracle, rng, self.settings)
        guard.verify(oracle.used, oracle.budget)
        return result


# -- estimate ------------------------------------------------------------------------------------
def estimate(problem, x, lam: float, alpha: float, n: int, rng: np.random.Generator,
             chunk: int = 100_000, run: Run | None = None) -> dict[str, float]:
    """J, EC, CVaR and the SE of J at ``x`` from ``n`` fresh scenarios (not budgeted); a
    sample-only simulator's in seeded blocks, simulated by ``run`` where given
    (:meth:`~acfs_cli.core.problem.Problem.fresh_costs`). The SE is the sample SD of the
    influence values of J over sqrt(n)."""
    costs = as_problem(problem).fresh_costs(x, n, rng, run, chunk)
    J, ec, cvar = spectral_risk(costs, lam, alpha)
    se = float(influence(costs, lam, alpha).std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan
    return {"J": J, "EC": ec, "CVaR": cvar, "J_se": se}
