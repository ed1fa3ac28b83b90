"""SimOpt, the field's testbed (simoptlib, the optional extra ``pip install 'acfs[simopt]'``):
loading it, the corrections its 1.2.4 release needs, which of its problems acfs takes, and
what a run of one of its solvers needs around it: each recommendation announced as SimOpt
records it, its log warnings kept as the run's notes, and its own faults told from the
simulator's (DESIGN.md section 8).

The corrections of simoptlib 1.2.4 (each applied only to that release):

* ``finite_diff`` (ADAM, ALOE, STRONG) assigns all d central differences to the coordinates
  that take one and raises where some but not all coordinates sit on a bound:
  :func:`_finite_diff`, pointed at by those solvers' modules (process-wide, changing nothing
  SimOpt computes where the original does not raise).
* FCSA's incumbent (``FCSA._new_solution_found``) takes a feasible point as an improvement
  when ``minmax * f_new < minmax * f_best``, which for a minimisation (minmax -1) accepts only
  worse points, so FCSA never leaves a feasible x0 - natively, FCSA on FACSIZE-1 recommends
  x0 alone over any budget; it also never checks x0's own feasibility, so an infeasible
  iterate replaces a feasible start, and it measures a first feasible point against the last
  (infeasible) recommendation. :func:`corrected_fcsa` is FCSA with its stated rule: the
  iterates are recommended until a feasible one is found, x0 included; from then on each
  feasible point better than the best feasible one so far. A subclass, used by
  ``simopt-fcsa`` only: SimOpt's own FCSA is left as it is.
* SAN-2's constraints (``SANLongestPathStochastic.replicate``) read the longest path of the
  node at the constraint node's place in the topological order (``longest_path_nodes[idx]``
  with ``idx`` that place): for node 6, whose place is 7th (1, 2, 3, 4, 5, 7, 6, 8, 9), the
  path to node 7; their gradients are those of the constraint nodes' own paths. So the first
  constraint's value and its IPA gradient belong to two different paths. The values are what
  SimOpt states and every solver has been measured against, so they are kept;
  :func:`corrected_san2` gives each constraint the gradient of the value it reports. A
  subclass, used where acfs carries SAN-2's constraint gradients: SimOpt's own problem is left
  as it is.

Its problems become acfs problems in :mod:`acfs_cli.problems.simopt` (``simopt:<ABBR>``),
its solvers acfs methods in :mod:`acfs_cli.methods.simopt` (``simopt-astrodf``, ...); both
build on this module, which imports nothing of acfs's own layers. Nothing imports simopt until
it is used: the methods are registered, and listed, without the extra, and using either bridge
without it is one line naming the extra.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import logging
import os
import sys
import threading
from types import SimpleNamespace

import numpy as np

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
def load() -> SimpleNamespace:
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
        StochasticConstraint,
        VariableType,
    )
    from simopt.directory import problem_directory, solver_directory
    from simopt.solver import BudgetExhaustedError

    _correct_finite_differences()
    return SimpleNamespace(
        MRG32k3a=MRG32k3a, Model=Model, Problem=Problem, Solution=Solution,
        Objective=Objective, RepResult=RepResult, StochasticConstraint=StochasticConstraint,
        ConstraintType=ConstraintType,
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


@functools.cache
def corrected_san2() -> type:
    """SimOpt's SAN-2 whose constraints' gradients are those of the values it reports (the
    module docstring): the same replications, objectives and constraint values."""
    from simopt.models.san import SANLongestPathStochastic

    if importlib.metadata.version("simoptlib") != SIMOPT_RELEASE:
        return SANLongestPathStochastic  # another release: its own, whatever it is

    class SAN2(SANLongestPathStochastic):
        def replicate(self, x):
            result = super().replicate(x)
            # the value is longest_path_nodes[place of c] = the path to node (place of c) + 1,
            # whose gradient sits at that node's own place; the gradients are read again from
            # the model's replication, which super() has just run
            places = {node: i for i, node in enumerate(self._last["topo_order"])}
            per_node = self._last_gradients
            for constraint, c in zip(result.stochastic_constraints,
                                     self.factors["constraint_nodes"], strict=True):
                constraint.stochastic_gradients = per_node[places[places[c] + 1]]
            return result

        def _wrap(self):
            model_replicate = self.model.replicate

            def replicate():
                responses, gradients = model_replicate()
                self._last = responses
                self._last_gradients = gradients["longest_path_to_all_nodes"]["arc_means"]
                return responses, gradients
            self.model.replicate = replicate

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._wrap()

    SAN2.__name__ = SAN2.__qualname__ = "SANLongestPathStochastic"
    return SAN2


@functools.cache
def corrected_fcsa() -> type:
    """SimOpt's FCSA with its incumbent corrected (the module docstring): the same search,
    the same replications and the same iterates, recommending what its own comment says -
    "whether a feasible solution has been found and improved" - with "improved" meaning
    better in the problem's sense, against the best feasible point so far."""
    from simopt.solvers.fcsa import FCSA

    if importlib.metadata.version("simoptlib") != SIMOPT_RELEASE:
        return FCSA  # another release: its own rule, whatever it is

    def _new_solution_found(self, problem, x, check_feasibility):
        r = self.factors["r"]
        solution = self.create_new_solution(x, problem)
        self.budget.request(r)
        problem.simulate(solution, r)
        sense = problem.minmax[0]
        feasible = not max(solution.stoch_constraints_mean) > self.factors["tolerance"]
        best = self._best_feasible
        improved = feasible and (best is None or sense * solution.objectives_mean[0]
                                 > sense * best.objectives_mean[0])
        every = not check_feasibility or self.factors["report_all_solns"]
        if every or not self._feasible_found or improved:
            self.recommended_solns.append(solution)
            self.intermediate_budgets.append(self.budget.used)
            self._best_solution = solution
        if improved:
            self._best_feasible = solution
        self._feasible_found = self._feasible_found or feasible
        # simoptlib 1.2.4's own rule on the same iterates, kept beside to be told
        recs, own, found = self.uncorrected
        if check_feasibility:
            found = found or feasible
        if every or not found or (check_feasibility and feasible and own is not None and sense
                                  * solution.objectives_mean < sense * own.objectives_mean):
            recs, own = recs + 1, solution
        self.uncorrected = (recs, own, found)
        return solution

    def solve(self, problem):
        self._best_feasible = None
        self.uncorrected = (0, None, False)  # SimOpt's rule: recommendations, last, found
        FCSA.solve(self, problem)

    return type("CorrectedFCSA", (FCSA,), {
        "_new_solution_found": _new_solution_found, "solve": solve, "__module__": __name__,
        "__doc__": "SimOpt's FCSA with its incumbent corrected (corrected_fcsa)."})


def require(what: str) -> SimpleNamespace:
    """SimOpt's pieces, or :class:`SimOptMissing` in one line saying that ``what`` needs the
    extra."""
    try:
        return load()
    except ImportError:
        raise SimOptMissing(f"{what} needs the simopt extra: {EXTRA}") from None


def one_line(exc: BaseException, limit: int = 200) -> str:
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



#: The SimOpt problems whose deterministic constraints beyond their bounds acfs knows
#: (acfs_cli.problems.simopt gives them as A x <= b or a projection); a problem that declares
#: such constraints and is not here is refused rather than run without them.
KNOWN_CONSTRAINTS = ("AMUSEMENTPARK-1", "FACSIZE-2", "NETWORK-1", "RMITD-1", "TABLEALLOCATION-1")
#: The SimOpt problems whose stochastic constraints acfs names (acfs_cli.problems.simopt); their
#: values are SimOpt's own left-hand sides, one per replication. A problem with stochastic
#: constraints that is not here is refused.
KNOWN_STOCHASTIC = ("CHESS-1", "CONTAM-1", "CONTAM-2", "FACSIZE-1", "SAN-2")
#: The integer coordinates of SimOpt's problems with mixed decision variables, read from each
#: model's factors in simoptlib 1.2.4 (IRONORE-1: x[1] is ``inven_stop``, an ``int`` factor of
#: the IronOre model; its three prices are floats). A mixed problem not here is refused.
MIXED_INTEGERS: dict[str, tuple[int, ...]] = {"IRONORE-1": (1,)}


def refusal(cls) -> str | None:
    """Why acfs cannot take SimOpt's problem class ``cls`` (None: it can)."""
    so = load()
    abbr = cls.class_name_abbr
    if cls.n_objectives != 1:
        return f"{PREFIX}{abbr} has {cls.n_objectives} objectives; acfs optimises one"
    if cls.variable_type == so.VariableType.MIXED and abbr not in MIXED_INTEGERS:
        return (f"{PREFIX}{abbr} has mixed decision variables and the adapter does not know "
                "which are integers")
    if cls.n_stochastic_constraints and abbr not in KNOWN_STOCHASTIC:
        return (f"{PREFIX}{abbr} has {cls.n_stochastic_constraints} stochastic constraint(s) "
                "the adapter does not know")
    if cls.constraint_type == so.ConstraintType.DETERMINISTIC and abbr not in KNOWN_CONSTRAINTS:
        return f"{PREFIX}{abbr} has deterministic constraints the adapter does not know"
    return None


def declares(cls) -> bool:
    """Whether acfs's form of SimOpt's problem class ``cls`` declares integer coordinates
    (``integrality``) or stochastic constraints: what no method of the continuous study
    takes."""
    return (cls.variable_type != load().VariableType.CONTINUOUS
            or bool(cls.n_stochastic_constraints))


def _taken(declared: bool) -> tuple[str, ...]:
    """The SimOpt problems acfs takes that declare (or do not declare) integer coordinates or
    stochastic constraints, buildable at SimOpt's own factors (ERM-EXAMPLE-1 needs a data
    file SimOpt does not ship)."""
    so = require("the SimOpt problems")
    out = []
    for abbr, cls in sorted(so.problems.items()):
        if refusal(cls) is None and declares(cls) == declared:
            try:
                cls()
            except Exception:  # noqa: BLE001 - a problem SimOpt cannot build is not offered
                continue
            out.append(abbr)
    return tuple(out)


@functools.cache
def continuous_problems() -> tuple[str, ...]:
    """The SimOpt problems of the continuous study: one objective, continuous decisions, no
    stochastic constraints, buildable at SimOpt's own factors."""
    return _taken(declared=False)


@functools.cache
def declared_problems() -> tuple[str, ...]:
    """The SimOpt problems acfs takes with declared integer coordinates (discrete or mixed
    decisions) or stochastic constraints: no method of the continuous study searches them."""
    return _taken(declared=True)



def simopt_class(abbr: str):
    so = require(f"{PREFIX}{abbr}")
    cls = so.problems.get(abbr)
    if cls is None:
        raise ValueError(f"unknown SimOpt problem {abbr!r}; continuous SimOpt problems: "
                         f"{', '.join(continuous_problems())}; with integer coordinates or "
                         f"stochastic constraints: {', '.join(declared_problems())}")
    reason = refusal(cls)
    if reason is not None:
        raise ValueError(reason)
    return cls


# -- what a run of a SimOpt solver needs around it ---------------------------------------------
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
def announcing(cls: type) -> type:
    """SimOpt's solver class ``cls``, announcing each recommendation when SimOpt records it
    (ASTRO-DF replaces its list as it starts, so the list is watched as an attribute), and
    remembering whether its own budget stopped it."""
    so = load()

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


class LogNotes(logging.Handler):
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

    def __enter__(self) -> LogNotes:
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


def raised_in_simopt(exc: BaseException, through_libraries: bool = False) -> bool:
    """Whether ``exc`` was raised inside SimOpt's own code (a solver's bug at a bound, say)
    rather than in acfs's or the simulator's. With ``through_libraries``, also an error
    raised in a library SimOpt's code called (numpy's LinAlgError in DASSO's model fit):
    SimOpt's code is entered and acfs's is not re-entered below it (the simulator is
    reached through acfs's oracle, so its errors stay its own; this module's wrappers and
    corrections of SimOpt's solvers count as SimOpt's code)."""
    tb = exc.__traceback__
    root = os.path.dirname(sys.modules["simopt"].__file__) + os.sep
    if through_libraries:
        ours = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
        here = os.path.abspath(__file__)
        entered = False
        while tb is not None:
            name = os.path.abspath(tb.tb_frame.f_code.co_filename)
            entered = entered or name.startswith(root)
            if entered and name.startswith(ours) and name != here:
                return False
            tb = tb.tb_next
        return entered
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return False
    return os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(root)
