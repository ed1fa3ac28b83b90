"""Optimise your own simulator: ``minimize(problem, lam, alpha, budget, method, seed)``.

``problem`` is any object that follows the problem protocol (:mod:`acfs_cli.core.problem`,
DESIGN.md section 1): ``dim_x``, ``dim_w``, ``transform(x, z)`` or ``sample(x, n, rng)``,
``cost(W, x)``, and the decision set by ``project(x)`` or by ``bounds`` (+ ``A``, ``b``).
It is normalised once, by the same function as every problem of a YAML grid.

The problem's sampler is only ever called through the budgeted oracle: every scenario the
method sees is counted, exactly as in the paper's experiments. The returned :class:`Solution`
carries J, E[C] and CVaR of x* estimated on ``n_eval`` (default 20,000) fresh scenarios drawn
*after* the search and *not* counted in ``draws_used``. A simulator that raises, or returns a
wrong shape, NaN or inf, stops the search with one
:class:`~acfs_cli.core.problem.SimulatorError` that names the fault.

Example::

    import numpy as np
    from acfs_cli.api import minimize

    class Newsvendor:
        dim_x, dim_w = 1, 1
        bounds = [(0.0, 3.0)]
        def transform(self, x, z):          # demand grows with the stock (x) shown
            return np.exp(0.2 + 0.3 * x[0] + 0.4 * z)
        def cost(self, W, x):
            return 1.0 * x[0] - 2.0 * np.minimum(W[:, 0], x[0])

    sol = minimize(Newsvendor(), lam=0.5, seed=1)  # 260,000 draws, well under a second
    print(sol.x, sol.J, sol.draws_used)

``callback`` sees each new incumbent (:class:`Incumbent`) and may stop the search,
``progress=True`` shows the draws used and the incumbent's value on a terminal or in a
notebook, and :func:`plot_convergence` draws the incumbents of one or many solutions.
:meth:`Solution.trials_dataframe` tables every decision a search evaluated, and
:func:`read_results` every cell of a results folder (pandas is imported by them only).
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from acfs_cli.common.seeding import check_seed, stream
from acfs_cli.core.feasibility import FEASIBLE, UNDECIDED
from acfs_cli.core.oracle import Oracle, check_budget, check_timeout
from acfs_cli.core.problem import check_count
from acfs_cli.core.risk import check_risk_params, min_tail_draws, start_note
from acfs_cli.experiment.search import Search, estimate, method_of, problem_of
from acfs_cli.parallel import PARALLEL_REFUSED as PARALLEL_REFUSED  # the note, where it was
from acfs_cli.parallel import check_jobs, check_scheduler, drawn_here, open_draws

#: The z of a two-sided 95 % normal interval: ``J_lo, J_hi = J -+ Z95 * J_se``.
Z95 = 1.96

log = logging.getLogger("acfs")


@dataclass(frozen=True)
class Solution:
    """The result of :func:`minimize`.

    Attributes
    ----------
    x : numpy.ndarray
        The decision the search recommends, x*.
    J : float
        J(x*) = E[C] + lam CVaR, estimated on ``n_eval`` fresh scenarios drawn after the
        search, outside the budget.
    EC : float
        E[C(W, x*)], on the same scenarios.
    CVaR : float
        CVaR_alpha(C(W, x*)), on the same scenarios.
    draws_used : int
        Scenarios the search drew (the final estimate's are not counted).
    phases : dict
        Per phase of the method: ``draws``, oracle ``calls`` and wall ``time_s`` (seconds;
        a nested phase's time is its own, not its parent's); a multi-start local search
        (ACFS's phase 4) adds its ``starts``.
    method : str
        The method asked for (``"auto"`` by default; ``info["plan"]`` says how it ran).
    J_se : float
        The asymptotic standard error of ``J``.
    n_eval : int
        Fresh scenarios behind ``J``, ``EC`` and ``CVaR``.
    value : float
        The method's own estimate of J(x*), on its own draws.
    stopped_by_budget : bool
        Whether the budget ended the search.
    notes : tuple of str
        What the run did differently from what was asked (fallbacks), auto's plan, and an
        answer no better than x0 (see ``J_x0``).
    stop_reason : str
        Why the search ended: ``"budget"``, ``"callback"`` (the callback stopped it),
        ``"timeout"`` (``minimize``'s ``timeout`` did) or the method's own reason (a
        converged polish, its plan complete, ...).
    info : dict
        The method's diagnostics.
    J_lo : float
        Lower end of the 95 % interval of J(x*): ``J - 1.96 J_se``.
    J_hi : float
        Upper end of the 95 % interval of J(x*): ``J + 1.96 J_se``.
    budget : int
        The cap on the search's draws.
    trajectory : tuple of (int, numpy.ndarray, float)
        The incumbents in order as ``(draws used, x, the method's own value)``, one per count
        of draws (the last incumbent recorded at it).
    wall_s : float
        Wall seconds of the search (the final estimate excluded).
    seed : int
        The base seed every stream was named from: the ``seed`` given, or the one drawn from
        the generator or from fresh entropy (``seed=None``); ``minimize(..., seed=sol.seed)``
        repeats the run exactly.
    J_x0 : float
        J at the start x0 (the problem's own or the one given), on the same fresh scenarios
        as ``J`` (paired: the same random numbers); NaN where there is no x0. An answer whose
        J is not below it is no better than x0, and ``notes`` say so.
    constraints : tuple of ConstraintEstimate
        Where the problem declares stochastic constraints: each one's estimate at x* on the
        same fresh scenarios as ``J`` - the mean of g, or the share of rows with g > 0 -
        with its 95 % interval, its bound and its verdict
        (:class:`~acfs_cli.core.feasibility.ConstraintEstimate`); empty otherwise.
    feasible : str
        ``"feasible"`` when every constraint's interval lies at or below its bound (and
        where there is no constraint), ``"infeasible"`` when one lies above it, ``"not
        established"`` otherwise; ``notes`` say so unless feasible.
    history : tuple
        What the oracle saw, in order: each request (:class:`~acfs_cli.core.oracle.Request`)
        and each new incumbent (:class:`~acfs_cli.core.oracle.Best`);
        :meth:`trials_dataframe` is its table.

    The names scipy's ``OptimizeResult`` and Optuna users look for are aliases: ``fun`` is
    ``J``, ``nfev`` is ``draws_used`` (each scenario is one evaluation of the simulator),
    ``message`` is ``stop_reason``, and ``success`` says whether the search ended as
    planned (by its budget or its own rule) rather than cut short by the callback or the
    timeout.
    """

    x: np.ndarray
    J: float
    EC: float
    CVaR: float
    draws_used: int
    phases: dict[str, dict[str, Any]]
    method: str
    J_se: float = float("nan")
    n_eval: int = 0
    value: float = float("nan")
    stopped_by_budget: bool = False
    notes: tuple[str, ...] = ()
    stop_reason: str = ""
    info: dict[str, Any] = field(default_factory=dict, repr=False)
    J_lo: float = float("nan")
    J_hi: float = float("nan")
    budget: int = 0
    trajectory: tuple[tuple[int, np.ndarray, float], ...] = field(default=(), repr=False)
    wall_s: float = float("nan")
    seed: int = 0
    J_x0: float = float("nan")
    constraints: tuple = ()
    feasible: str = "feasible"
    history: tuple = field(default=(), repr=False)

    @property
    def fun(self) -> float:
        """``J`` (scipy's name): J(x*) on the ``n_eval`` fresh scenarios."""
        return self.J

    @property
    def nfev(self) -> int:
        """``draws_used`` (scipy's name): scenarios the search drew from the simulator."""
        return self.draws_used

    @property
    def message(self) -> str:
        """``stop_reason`` (scipy's name): why the search ended."""
        return self.stop_reason

    @property
    def success(self) -> bool:
        """Whether the search ended as planned - its budget spent or its own rule met - and
        not cut short by the callback or the timeout (the answer is then the incumbent so
        far). Either way ``x`` is a decision of X with J estimated afresh."""
        return self.stop_reason not in ("callback", "timeout")

    def trials_dataframe(self):
        """Every decision the search evaluated, in order, as a pandas DataFrame (as Optuna's
        ``Study.trials_dataframe()``, scikit-optimize's ``x_iters`` and ``func_vals``).

        A row per decision of each request the method made of the oracle, and one per
        incumbent recorded at a decision the last request did not draw; columns:

        ``draws``
            The search's draws once the request was drawn (the decisions of one request are
            drawn together and share it).
        ``phase``
            The method's phase that asked (as in ``phases``).
        ``x_0`` ... ``x_{d-1}``
            The decision (``x_0`` is ``x[0]``), a column per coordinate, as Optuna's
            ``params_*``: a table that filters, groups and plots without unpacking lists.
        ``rows``
            Scenarios drawn at the decision by the request; 0 on a row that only records an
            incumbent. They sum to ``draws_used``.
        ``sample``
            The common sample the rows come from (decisions of one sample see the same
            random numbers), NA for independent draws.
        ``value``
            The method's own estimate of J where it made the decision its incumbent, NaN
            elsewhere (a method does not tell the oracle what it makes of other rows).
        ``incumbent``
            Whether the method made the decision its incumbent here: these rows are
            ``trajectory``, and the last of them is x* where the method recorded its
            answer (every built-in method does).

        pandas is imported here, not with the API.
        """
        from acfs_cli.frames import trials_frame

        return trials_frame(self.history, len(self.x))


@dataclass(frozen=True)
class Incumbent:
    """What a ``callback`` of :func:`minimize` receives each time the incumbent changes.

    Attributes
    ----------
    x : numpy.ndarray
        The new incumbent (a copy: changing it changes nothing in the search).
    value : float
        The method's own estimate of J at ``x`` (NaN when it has none yet).
    draws_used : int
        Draws the search had used when it recorded ``x``.
    budget : int
        The cap on the search's draws.
    """

    x: np.ndarray
    value: float
    draws_used: int
    budget: int


def minimize(
    problem,
    lam: float = 0.7,
    alpha: float = 0.95,
    budget: int = 260_000,
    method: str | None = None,
    seed: int | np.random.Generator | None = 0,
    *,
    x0=None,
    n_eval: int = 20_000,
    callback: Callable[[Incumbent], Any] | None = None,
    timeout: float | None = None,
    progress: bool | str = False,
    n_jobs: int | None = None,
    scheduler=None,
    **settings: Any,
) -> Solution:
    """Minimise ``J(x) = E[C(W, x)] + lam * CVaR_alpha(C(W, x))``, ``W ~ P_x``, over X.

    Parameters
    ----------
    problem
        Your simulator (see the module docstring for the protocol), or a problem's name as
        :func:`acfs_cli.problems.get_problem` takes it: a registered problem (``"dgp1"``, a
        library problem), one of SimOpt's (``"simopt:CNTNEWS-1"``), yours by import path
        (``"mymodule:MyProblem"``, found from the current folder first) or by file
        (``"models/mymodule.py:MyProblem"``), a class built without parameters - as ``acfs
        solve`` and a configuration take it.
    lam, alpha
        Weight of the CVaR and its level (paper eq. (1)).
    budget
        Hard cap on scenarios drawn from ``problem`` during the search (paper: 260,000).
    method
        ``None`` (the default) runs ``"auto"``: astro's trust region in epochs on independent
        samples and the best of their answers on fresh common draws, at any budget (below
        the 2 (d + 2) draws of a step, x0; :mod:`acfs_cli.methods.auto`; ``notes`` say its
        plan and when the budget rather than the noise limits the answer). Or
        name one: ``"astro"`` (small budgets, any dimension), ``"saa-ps"``, ``"acfs-plus"``,
        ``"acfs"`` (paper-faithful), an ablation variant (``"acfs-noav"``, ``"acfs-nocem"``,
        ``"acfs-norerank"``, ``"acfs-noaug"``), a competitor (``"gp-bo"``, ``"cem-so"``,
        ``"sgd-cvar"``, ``"kde-so"``), a SimOpt solver (``"simopt-astrodf"``, ...), or a
        user's method by import path. A named method may refuse a budget below its minimum.
    seed
        Seed of every random stream (search and final estimate): an integer in [0, 2**63),
        a ``numpy.random.Generator`` from which one is drawn, or None for one drawn from
        fresh entropy; same seed, same answer (``sol.seed`` is the one used).
    x0
        Where the search starts, in place of the problem's own ``x0``: every method takes it
        as its first incumbent and the centre of its first designs, and learns its step sizes
        from it (DESIGN.md section 7). Needed where X is unbounded (a bound of ``None`` or ``inf``).
    n_eval
        Fresh scenarios for the reported J, EC and CVaR of x* (outside the budget): at least
        ten in the CVaR tail (200 at alpha 0.95) where lam > 0; at lam = 0, where the tail
        does not enter J, any number from 1 (the CVaR reported is then a rough estimate).
    callback
        Called with an :class:`Incumbent` each time the method's incumbent changes; a true
        return stops the search, which then answers with that incumbent
        (``stop_reason == "callback"``). It does not change the search: the same seed gives
        the same answer with or without a callback that never stops it.
    timeout
        Wall seconds the search may take (None: no limit). The first request of the method
        after them stops the search, which answers with its incumbent so far
        (``stop_reason == "timeout"``, ``success`` False, and a note); a request under way
        is finished, not interrupted, so a search ends within one request of the limit. The
        final estimate on ``n_eval`` fresh draws is made as always, after the search and
        outside the limit (like the probe of the simulator before it). A run cut by the
        clock depends on the machine's speed: its seed does not repeat it exactly.
    progress
        ``True`` shows a bar of the draws used and the incumbent's value when stderr is a
        terminal or a notebook; ``"always"`` shows it wherever stderr goes. The bar is
        redrawn from a thread of its own and does not change the search.
    n_jobs
        Worker processes that simulate the search's requests and the final estimate in
        parallel (-1: one per core). They start as the requests have work for them, no more
        than the cores, past them (up to 8 a core) only while the simulator waits rather
        than computes, and are kept for the next call (``acfs_cli.parallel.close_workers()``
        ends them); ``notes`` say when ``n_jobs`` is more than the cores. A simulator that
        cannot be pickled draws here, with a note that says what to change. The default,
        one, draws in this process. Each request is cut into pieces
        that depend on the seed and the request only, so the answer is the same to the last
        bit with any number of workers; it pays for a simulator of about a millisecond a
        replication and more (README, "Parallel draws"). A problem with ``transform_batch``
        draws every decision in one call and always draws here.
    scheduler
        A Dask cluster for the same pieces: a running ``distributed.Client`` or a
        scheduler's address (``"tcp://HOST:8786"``), with the same answer; ``n_jobs`` then caps the
        workers a request is spread over (default: every thread of the cluster). The module
        that defines the problem's class is sent to the workers first, unless it is
        installed there.
    **settings
        Method settings, for example ``n_a=600`` or ``gradient="pathwise"`` (unknown names
        are errors; ``acfs_cli.methods.acfs_settings.ACFSSettings`` documents ACFS's).
    """
    seed = check_seed(seed)
    n_jobs = check_jobs(n_jobs)
    scheduler = check_scheduler(scheduler)
    observe = _checked_callback(callback)
    timeout = check_timeout(timeout)
    show = _progress_wanted(progress)
    prob = problem_of(problem, x0)
    n_eval = check_count(n_eval, "n_eval")
    lam, alpha = check_risk_params(lam, alpha)
    if lam > 0 and n_eval < min_tail_draws(alpha):
        raise ValueError(f"n_eval must be at least {min_tail_draws(alpha):,} at alpha {alpha:g} "
                         f"(ten draws in the CVaR tail; at lam 0 it does not enter J), got "
                         f"{n_eval:,}")
    if n_eval < 1:
        raise ValueError(f"n_eval must be at least 1, got {n_eval:,}")
    if method is None:
        method = "auto"
    # A call imports what it runs, before the search guard looks (an import may move global
    # state); unknown settings are refused before any worker starts.
    m = method_of(method)
    budget = check_budget(budget)
    search = Search(prob, m, m.settings(settings), lam, alpha)
    on_incumbent = None
    if observe is not None:
        def on_incumbent(draws: int, x: np.ndarray, value: float) -> bool:
            return bool(observe(Incumbent(x=x, value=value, draws_used=draws, budget=budget)))
    parallel = n_jobs not in (None, 1) or scheduler is not None
    draws = open_draws(prob, n_jobs, scheduler, keep=True) if parallel else None
    run = None if draws is None else draws.run
    # why the draws stay here, or how many workers a run may have (a note of the run's)
    kept = drawn_here(prob) if parallel and draws is None else None
    try:
        log.info("minimize: %s on a %d-dimensional problem, budget %s draws, seed %s%s",
                 method, search.task.dim_x, f"{budget:,}", seed,
                 "" if draws is None else f", draws on {draws.workers} worker(s)")
        # The bar is entered first: rich's first import moves Python's random state, before
        # the guard looks; a Dask scheduler or worker in this process draws from Python's
        # random.
        result = search.run(
            budget, stream(seed, "api", "oracle", method), stream(seed, "api", "method", method),
            draws=run, on_incumbent=on_incumbent,
            notes=tuple(n for n in (kept, getattr(draws, "note", "")) if n),
            python_random=scheduler is None,
            watched_by=lambda oracle: SearchProgress(oracle, show), record=True,
            timeout=timeout)
        for note in result.notes:
            log.info("minimize: %s", note)
        log.info("minimize: %s after %s draws (%s)", "stopped"
                 if result.stop_reason in ("callback", "timeout") else "ended",
                 f"{result.oracle_draws:,}", result.stop_reason)
        task = search.task
        est = estimate(prob, result.x, task.lam, task.alpha, int(n_eval),
                       stream(seed, "api", "evaluation"), run=run)
        J_x0 = float("nan")
        if prob.x0 is not None:  # x0 on the same random numbers: paired with J
            J_x0 = float(est["J"]) if np.array_equal(result.x, prob.x0) else float(estimate(
                prob, prob.x0, task.lam, task.alpha, int(n_eval),
                stream(seed, "api", "evaluation"), run=run)["J"])
    except BaseException:
        if draws is not None:
            draws.close(now=True)
        raise
    if draws is not None:
        draws.close()
    J, J_se = float(est["J"]), float(est["J_se"])
    notes = tuple(result.notes)
    found = tuple(est.get("constraints", ()))
    feasible = est.get("feasible", FEASIBLE)
    if found and feasible != FEASIBLE:
        notes += (f"feasibility {'is not established' if feasible == UNDECIDED else 'fails'} "
                  f"on {n_eval:,} fresh draws: "
                  + "; ".join(e.describe() for e in found if e.verdict != FEASIBLE),)
    if prob.x0 is not None and not (found and prob.constraints):
        # against x0 on J alone: where constraints bind, a better J may be an infeasible one
        note = start_note(J, J_x0, f"on the same {n_eval:,} fresh draws")
        notes += (note,) if note else ()
    return Solution(
        x=np.asarray(result.x, dtype=float).copy(),
        J=J, EC=float(est["EC"]), CVaR=float(est["CVaR"]),
        draws_used=int(result.oracle_draws),
        phases=_phases(result),
        method=method,
        J_se=J_se,
        n_eval=int(n_eval),
        value=float(result.value),
        stopped_by_budget=bool(result.stopped_by_budget),
        notes=notes,
        stop_reason=result.stop_reason,
        info=dict(result.info),
        J_lo=J - Z95 * J_se,
        J_hi=J + Z95 * J_se,
        budget=budget,
        trajectory=tuple((int(d), x, float(v)) for d, x, v in result.trajectory),
        wall_s=float(result.wall_s),
        seed=seed,
        J_x0=J_x0,
        constraints=found,
        feasible=feasible,
        history=tuple(search.oracle.history),
    )


def _checked_callback(callback) -> Callable[[Incumbent], Any] | None:
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be a function of an Incumbent (or None), got "
                        f"{type(callback).__name__}")
    return callback


def _progress_wanted(progress: bool | str) -> bool:
    """Whether to show the bar: ``True`` on a terminal or in a notebook, ``"always"``
    anywhere, ``False`` never."""
    if isinstance(progress, str) and progress == "always":
        return True
    if not isinstance(progress, bool):
        raise ValueError(f"progress must be True, False or 'always', got {progress!r:.40}")
    if not progress:
        return False
    from rich.console import Console

    console = Console(file=sys.stderr, emoji=False)
    return console.is_terminal or console.is_jupyter


class SearchProgress:
    """A bar of the draws used out of the budget and the incumbent's value, redrawn by
    rich's own refresh thread from the oracle's counters (the search never waits for it).

    A search that ends leaves the bar full, in rich's colour of a finished task, beside the
    draws it used out of the budget (a search need not spend all of it), and a line ends
    wherever stderr goes."""

    def __init__(self, oracle: Oracle, show: bool):
        self.oracle, self.show, self.live = oracle, show, None
        self.start = time.perf_counter()
        self.ended = None

    def render(self):
        from rich.progress_bar import ProgressBar
        from rich.table import Table

        used, budget = self.oracle.used, self.oracle.budget
        incumbent = self.oracle.incumbent
        value = "-" if incumbent is None else f"{incumbent[1]:.6g}"
        ended = self.ended is not None
        seconds = (self.ended if ended else time.perf_counter()) - self.start
        row = Table.grid(padding=(0, 1))
        row.add_row("done" if ended else "search",
                    ProgressBar(total=max(used, 1) if ended else budget, completed=used,
                                width=30),
                    f"{used:,}/{budget:,} draws", f"incumbent {value}", f"{seconds:.1f} s")
        return row

    def __enter__(self) -> SearchProgress:
        if self.show:
            # everything rendering needs is imported here, not in the refresh thread while
            # the search guard watches (rich's first import moves Python's random state)
            from rich.console import Console
            from rich.live import Live
            from rich.progress_bar import ProgressBar  # noqa: F401
            from rich.table import Table  # noqa: F401

            self.live = Live(get_renderable=self.render,
                             console=Console(file=sys.stderr, emoji=False),
                             refresh_per_second=4, transient=False)
            self.live.start()
        return self

    def __exit__(self, kind, *exc) -> None:
        if self.live is None:
            return
        if kind is None:
            self.ended = time.perf_counter()
        console = self.live.console
        self.live.stop()
        if not (console.is_terminal or console.is_jupyter):
            console.line()  # rich ends the line on a terminal only


def plot_convergence(*runs, ax=None, interval: bool = True, logx: bool | None = None,
                     J_star: float | None = None):
    """The incumbents of one or many solutions against the draws used, each ending in its
    final J with its 95 % interval; returns the matplotlib Axes.

    Each of ``runs`` is a :class:`Solution`, a list of them, or a ``(label, solution or
    list)`` pair; solutions under one label share a colour. ``logx`` makes the draws axis
    logarithmic (by default, where the draws span more than a decade), ``J_star`` draws
    the optimum's J as a dashed line labelled J* (see :func:`acfs_cli.plot.plot_convergence`).
    matplotlib is imported only here.
    """
    from acfs_cli.plot import plot_convergence as plot

    return plot(*runs, ax=ax, interval=interval, logx=logx, J_star=J_star)


def read_results(folder, *, all_columns: bool = False):
    """One row per cell of a results folder as a pandas DataFrame:
    :func:`acfs_cli.frames.read_results`, here beside :func:`minimize` for one import line.
    The API itself does not read results: pandas and the results layer are imported when
    this is called."""
    from acfs_cli.frames import read_results as read

    return read(folder, all_columns=all_columns)


def _phases(result) -> dict[str, dict[str, Any]]:
    """Per phase: draws and oracle calls (the oracle's account), wall time and, for a
    multi-start local search, its ``starts`` (iterations, message, value of each).

    Times are the oracle's (each phase's own seconds); a phase the method only timed itself
    (ACFS's phase 4, whose draws go to the phases it opens) keeps the method's time.
    """
    out: dict[str, dict[str, Any]] = {}
    timed: Mapping[str, Any] = result.info.get("phases", {}) if result.info else {}
    clock = result.phase_times
    for name, rec in timed.items():
        out[name] = {"draws": int(rec.get("draws", 0)), "calls": 0,
                     "time_s": float(clock.get(name, rec.get("time_s", float("nan"))))}
        if "starts" in rec:
            out[name]["starts"] = list(rec["starts"])
    for name, acc in result.account.items():
        row = out.setdefault(name, {"draws": 0, "calls": 0,
                                    "time_s": float(clock.get(name, float("nan")))})
        row["draws"], row["calls"] = int(acc["draws"]), int(acc["calls"])
    return out
