"""The budgeted oracle: the only path from a method to the true simulator (DESIGN.md section 3).

One counter per replication; a *draw* is one scenario row W generated at a decision x. A
request that would pass the cap raises :class:`BudgetExhausted` and nothing is drawn, so the
counter can never pass the cap. Re-costing an already drawn W at another x is free (that is
the cost function, which methods hold); any new W is charged.

The oracle keeps the problem's sampler in closures and exposes no attribute that returns the
problem, so a method holding an oracle cannot sample without being charged. What the
simulator returns is checked on every call by the problem's normalised interface
(:mod:`acfs_cli.core.problem`). The oracle also keeps

* the method's incumbent - its current recommendation - and the trajectory of incumbents
  against the draws used (so a method stopped by the budget still has an answer, and a run
  shows how quality grows with draws);
* a per-phase account of draws and calls (where the budget goes), and the wall time of each
  phase, kept apart from the account (:attr:`Oracle.phase_times`);
* an optional observer of the incumbent (``on_incumbent``), which may stop the search
  (:class:`SearchStopped`);
* allowances and reservations (:meth:`Oracle.allowance`, :meth:`Oracle.reserve`): a phase
  capped at its share, or draws kept back for a later phase, without arithmetic in methods;
* on request (``record=True``), the history of the search: every request's decisions and
  rows and every incumbent, in order (:attr:`Oracle.history`), from which
  :meth:`acfs_cli.api.Solution.trials_dataframe` builds its table. It copies what the
  method asks and draws nothing, so a recorded search is the same search.

All randomness that reaches the simulator comes from the oracle's own stream: independent
draws (:meth:`Oracle.draw`, :meth:`Oracle.draw_batch`) and common samples
(:meth:`Oracle.common_sample`, :meth:`Oracle.draw_common`), named by a key under the
oracle's seed, so that decisions evaluated on sample k see the same random numbers - by
normals for a problem with ``transform``, by re-seeding for a sample-only simulator
(:mod:`acfs_cli.core.sample`). A method asks; it never supplies the randomness itself. What
a problem cannot give (antithetic pairs without ``transform``) falls back to the nearest
valid request, and the oracle says so (:attr:`Oracle.pairs_refused`; a method's run notes
it where the user's settings asked for the pairs, :data:`PAIRS_REFUSED`).

A request's rows may be simulated by workers (``draws``, an
:class:`~acfs_cli.core.draws.Executor`'s ``run``): the request is cut into pieces that depend
on the seed and the request only, so the scenarios, the count and the checks are those of one
process. A request that fails charges nothing, wherever it failed.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from acfs_cli.common.naming import short_array
from acfs_cli.core.calls import sealed
from acfs_cli.core.draws import Run
from acfs_cli.core.problem import Problem, as_problem, check_count
from acfs_cli.core.sample import CommonSample, antithetic_normals, child_seed
from acfs_cli.core.space import FEAS_TOL

#: The largest budget a search may have: the methods keep designs and samples whose size is a
#: share of the budget in memory (ACFS's design alone has 0.46 % of it), so past about a
#: billion draws a search fails for memory, not for the simulator.
MAX_BUDGET = 10**9


def check_budget(budget) -> int:
    """A search's budget: an integer (not a bool) in [1, :data:`MAX_BUDGET`]; one
    ``ValueError`` line, the same for every wrong value, otherwise."""
    if (isinstance(budget, bool) or not isinstance(budget, int | np.integer)
            or not 0 < budget <= MAX_BUDGET):
        shown = f"{budget:,}" if isinstance(budget, int | np.integer) else f"{budget!r:.40}"
        raise ValueError(f"budget must be a positive integer of at most {MAX_BUDGET:,} draws, "
                         f"got {shown}")
    return int(budget)


def check_timeout(timeout) -> float | None:
    """A search's wall-clock limit: None, or a positive finite number of seconds; one
    ``ValueError`` line otherwise."""
    if timeout is None:
        return None
    if (isinstance(timeout, bool) or not isinstance(timeout, int | float | np.integer
                                                     | np.floating)
            or not 0 < float(timeout) < float("inf")):
        raise ValueError(f"timeout must be a positive number of seconds (or None), got "
                         f"{timeout!r:.40}")
    return float(timeout)


#: The note of a run whose settings asked for antithetic pairs on a sample-only simulator.
PAIRS_REFUSED = "antithetic pairs need transform(x, z): plain samples instead"

#: The phase of draws made outside any phase a method names.
MAIN_PHASE = "main"

#: The branch of the oracle's seed under which its common samples are named.
_SAMPLES = 0x53414D50
#: The branch under which a sample-only simulator's independent draws are seeded, request
#: by request.
_DRAWS = 0x44524157


_set = object.__setattr__


def _with_run(fn: Callable[..., Any], run: Run | None) -> Callable[..., Any]:
    """``fn(*args, run)`` in a plain closure (see :func:`~acfs_cli.core.problem.sealed`)."""

    def call(*args):
        return fn(*args, run)

    return call


class BudgetExhausted(RuntimeError):
    """A request would pass the oracle's cap (or a reservation); nothing was drawn."""


class SearchStopped(RuntimeError):
    """The incumbent's observer asked the search to stop; from then on the oracle refuses
    every draw and every new incumbent.

    Deliberately not a :class:`BudgetExhausted`: methods catch that to end a phase and go on
    to the next, and a stop must end the whole search.
    """


class AllowanceSpent(BudgetExhausted):
    """A request would pass a phase's allowance: the phase ends as planned, the cap is not hit."""


@dataclass
class Limit:
    """An allowance or a reservation: draws up to ``stop`` (an absolute count of the oracle)."""

    stop: int
    error: type[BudgetExhausted]
    reason: str
    hit: bool = False


class Request(NamedTuple):
    """One request of a search, drawn and charged: ``rows`` scenarios at each decision of
    ``X`` (m, d_x), the oracle's count ``draws`` after it, the ``phase`` it was made in and
    the key of its common ``sample`` (None for independent draws: decisions drawn on one
    sample see the same random numbers)."""

    draws: int
    phase: str
    X: np.ndarray
    rows: int
    sample: int | None


class Best(NamedTuple):
    """A new incumbent ``x`` with the method's own ``value``, recorded at ``draws`` in
    ``phase``."""

    draws: int
    phase: str
    x: np.ndarray
    value: float


class Oracle:
    """Counted access to W ~ P_x for one replication.

    Parameters
    ----------
    problem : problem
        The true simulator (normalised with :func:`acfs_cli.core.problem.as_problem`); only
        its sampling functions are kept, inside closures.
    budget : int
        The hard cap on draws.
    rng : numpy.random.Generator
        The oracle's stream: independent draws come from it, and its seed names the common
        samples.
    on_incumbent : callable, optional
        Called as ``on_incumbent(draws, x, value)`` (copies) each time the incumbent changes;
        a true return stops the search (:class:`SearchStopped`). It sees the search and
        changes nothing in it.
    draws : callable, optional
        Simulates the pieces of a request (an :class:`~acfs_cli.core.draws.Executor`'s
        ``run``: worker processes, a cluster); by default this process does, in order. The
        scenarios are the same either way.
    record : bool
        Keep the search's :attr:`history` (off by default: a grid's cells do not need it,
        and a search of single-row requests would hold a row of it per draw).
    timeout : float, optional
        Wall seconds the search may take from the oracle's making: the first request after
        them stops the search (:class:`SearchStopped`, :attr:`timed_out`, and a note), which
        answers with its incumbent. A request under way is not interrupted.
    """

    __slots__ = (
        "_transform_batch",
        "_fresh",
        "_scenarios",
        "_root",
        "_keys",
        "_draw_keys",
        "_notes",
        "_pairs_refused",
        "_contains",
        "_rng",
        "_budget",
        "_used",
        "_phase",
        "_account",
        "_best_x",
        "_best_value",
        "_trajectory",
        "_limits",
        "_observer",
        "_stopped",
        "_timeout",
        "_timed_out",
        "_deadline",
        "_times",
        "_phase_depth",
        "_phase_since",
        "_history",
        "dim_x",
        "dim_w",
        "supports_normals",
    )

    def __init__(self, problem, budget: int, rng: np.random.Generator, *,
                 on_incumbent: Callable[[int, np.ndarray, float], Any] | None = None,
                 draws: Run | None = None, record: bool = False,
                 timeout: float | None = None):
        budget = check_budget(budget)
        timeout = check_timeout(timeout)
        problem: Problem = as_problem(problem)
        seed = getattr(rng.bit_generator, "seed_seq", None)
        if not isinstance(seed, np.random.SeedSequence):  # a generator made without one
            seed = np.random.SeedSequence(rng.integers(2**63, size=4).tolist())
        state = {
            "_budget": budget, "_used": 0, "_rng": rng, "dim_x": problem.dim_x,
            "dim_w": problem.dim_w, "supports_normals": problem.has_transform,
            # Plain closures rather than bound methods: a bound method's ``__self__`` would
            # hand the problem to anyone holding the oracle.
            "_transform_batch": _with_run(problem.transform_batch, draws)
            if problem.has_transform else None,
            "_fresh": None if problem.has_transform else _with_run(problem.fresh, draws),
            "_scenarios": _with_run(problem.scenarios, draws),
            "_contains": sealed(problem.space.contains),
            "_root": seed, "_keys": 0, "_draw_keys": 0, "_notes": {}, "_pairs_refused": False,
            "_phase": MAIN_PHASE,
            "_account": {},
            "_best_x": None, "_best_value": np.inf, "_trajectory": [], "_limits": [],
            "_observer": on_incumbent, "_stopped": False, "_times": {}, "_phase_depth": 0,
            "_phase_since": 0.0, "_history": [] if record else None,
            "_timeout": timeout, "_timed_out": False,
            "_deadline": None if timeout is None else time.monotonic() + timeout,
        }
        for name, value in state.items():
            _set(self, name, value)

    def __setattr__(self, name: str, value) -> None:
        # The counter is what the budget means: nothing outside the oracle may move it.
        raise AttributeError(f"the oracle's state is its own: {name!r} cannot be set")

    # -- budget ----------------------------------------------------------------------------------
    @property
    def budget(self) -> int:
        return self._budget

    @property
    def used(self) -> int:
        return self._used

    @property
    def remaining(self) -> int:
        """Draws left under the cap (ignoring allowances and reservations)."""
        return self._budget - self._used

    @property
    def available(self) -> int:
        """Draws the current phase may still make: the cap, or the tightest allowance or
        reservation in force."""
        stop = min([self._budget, *(lim.stop for lim in self._limits)])
        return max(stop - self._used, 0)

    def can_draw(self, n: int) -> bool:
        """Would a request of ``n`` draws fit in what is available?"""
        return n <= self.available

    @property
    def stopped(self) -> bool:
        """Whether the incumbent's observer has stopped the search."""
        return self._stopped

    @property
    def timeout(self) -> float | None:
        """The search's wall-clock limit in seconds (None: none)."""
        return self._timeout

    @property
    def timed_out(self) -> bool:
        """Whether the timeout stopped the search."""
        return self._timed_out

    def _check_budget(self, n: int) -> None:
        if self._stopped:
            raise SearchStopped(f"the search was stopped: no more draws (request of {n})")
        if self._deadline is not None and time.monotonic() >= self._deadline:
            _set(self, "_stopped", True)
            _set(self, "_timed_out", True)
            self.note(f"stopped by the timeout of {self._timeout:g} s after {self._used:,} of "
                      f"{self._budget:,} draws: the answer is the incumbent so far (a run "
                      "cut by the clock is not repeated exactly by its seed)")
            raise SearchStopped(f"stopped at {self._used:,} draws by the timeout of "
                                f"{self._timeout:g} s")
        for lim in sorted(self._limits, key=lambda lim: lim.stop):
            if self._used + n > lim.stop:
                lim.hit = True
                raise lim.error(f"request of {n} draws exceeds {lim.reason} "
                                f"({max(lim.stop - self._used, 0)} left)")
        if n > self.remaining:
            raise BudgetExhausted(
                f"request of {n} draws exceeds the {self.remaining} left of {self._budget}"
            )

    @contextlib.contextmanager
    def allowance(self, n: int) -> Iterator[Limit]:
        """Cap the draws made inside the block at ``n``: a request past it raises
        :class:`AllowanceSpent` (the phase's planned end, not a budget stop)."""
        lim = Limit(self._used + check_count(n, "allowance"), AllowanceSpent,
                    f"the phase allowance of {n}")
        self._limits.append(lim)
        try:
            yield lim
        finally:
            self._limits.remove(lim)

    @contextlib.contextmanager
    def reserve(self, n: int) -> Iterator[Limit]:
        """Keep ``n`` draws back for after the block: a request that would eat into them
        raises :class:`BudgetExhausted` (for the block, the budget is spent)."""
        n = check_count(n, "reserve")
        lim = Limit(self._budget - n, BudgetExhausted, f"the {n} draws kept for later")
        self._limits.append(lim)
        try:
            yield lim
        finally:
            self._limits.remove(lim)

    def _commit(self, n: int) -> None:
        _set(self, "_used", self._used + n)
        acc = self._account.setdefault(self._phase, {"draws": 0, "calls": 0})
        acc["draws"] += n
        acc["calls"] += 1

    def _remember(self, X: np.ndarray, rows: int, sample: int | None) -> None:
        """A request that was drawn and charged joins the history (when one is kept)."""
        if self._history is not None:
            self._history.append(Request(self._used, self._phase, X.copy(), rows, sample))

    def _check_x(self, x, ndim: int) -> np.ndarray:
        """``x`` as a float array of ``ndim`` dimensions, finite and feasible, or ValueError."""
        X = np.asarray(x, dtype=float)
        if X.ndim != ndim or X.shape[-1] != self.dim_x:
            want = f"({self.dim_x},)" if ndim == 1 else f"(m, {self.dim_x})"
            raise ValueError(f"x must have shape {want}, got {X.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("x contains NaN or infinite values")
        inside = np.asarray(self._contains(X, FEAS_TOL))
        if not np.all(inside):
            first = np.atleast_2d(X)[np.flatnonzero(~np.atleast_1d(inside))[0]]
            raise ValueError(f"x = {short_array(first)} is outside the feasible set; project "
                             "it before asking the oracle")
        return X

    # -- draws -----------------------------------------------------------------------------------
    def draw(self, x, n: int, *, antithetic: bool = False) -> np.ndarray:
        """``n`` independent scenarios at decision ``x`` (shape (n, d_W)); charges ``n``.

        With ``antithetic`` the rows are n/2 pairs (z, -z) mapped through the transform (plain
        rows for a sample-only simulator, noted).
        """
        n = check_count(n)
        return self.draw_batch(self._check_x(x, 1)[None, :], n, antithetic=antithetic)[0]

    def draw_batch(self, X, n_each: int = 1, *, antithetic: bool = False) -> np.ndarray:
        """``n_each`` independent scenarios at each of many decisions X (m, d_x): W (m,
        n_each, d_W); charges m * n_each.

        A transform problem's normals come from the oracle's generator in order; a sample-only
        simulator draws each decision's stream from a seed of its own, named by the request's
        place among the oracle's requests and the decision's in X."""
        n_each = check_count(n_each, "n_each")
        X = np.asarray(X, dtype=float)
        X = self._check_x(X[None, :] if X.ndim == 1 else X, 2)
        m = X.shape[0]
        self._check_budget(m * n_each)
        antithetic = self._pairs(antithetic)
        if self.supports_normals:
            if antithetic:
                z = np.stack([antithetic_normals(n_each, self.dim_w, self._rng)
                              for _ in range(m)]) if m else np.empty((0, n_each, self.dim_w))
            else:
                z = self._rng.standard_normal((m, n_each, self.dim_w))
            W = self._transform_batch(X, z)
        else:
            # Every request its own seed, every decision its own stream under it, cut into
            # seeded blocks: simulated in any order, anywhere, with the same rows.
            key = self._draw_keys
            _set(self, "_draw_keys", key + 1)
            W = self._fresh(X, n_each, child_seed(self._root, _DRAWS, key))
        self._commit(m * n_each)
        self._remember(X, n_each, None)
        return W

    def common_sample(self, n: int, *, antithetic: bool = False,
                      stratified: bool = False) -> CommonSample:
        """A new common sample of ``n`` rows (nothing is drawn or charged yet).

        Every decision drawn on it (:meth:`draw_common`) sees the same random numbers: its
        normals, or its seeded stream for a sample-only simulator. ``antithetic`` pairs its
        rows (z, -z) where the problem takes normals, and ``stratified`` makes those pairs a
        Latin hypercube (:func:`~acfs_cli.core.sample.stratified_pairs`).
        """
        n = check_count(n)
        key = self._keys
        _set(self, "_keys", self._keys + 1)
        pairs = self._pairs(antithetic)
        return CommonSample.of(child_seed(self._root, _SAMPLES, key, 0), n, pairs, key,
                               pairs and stratified)

    def extend(self, sample: CommonSample, m: int) -> CommonSample:
        """``sample`` grown by ``m`` rows: its rows unchanged, then a new chunk of its key."""
        return sample.extended(check_count(m),
                               child_seed(self._root, _SAMPLES, sample.key, len(sample.chunks)))

    def draw_common(self, X, sample: CommonSample) -> np.ndarray:
        """Scenarios on a common sample at one decision x (-> (n, d_W)) or many X (m, d_x)
        (-> (m, n, d_W)); charges every row at every decision."""
        X = np.asarray(X, dtype=float)
        single = X.ndim == 1
        X = self._check_x(X[None, :] if single else X, 2)
        total = X.shape[0] * sample.n
        self._check_budget(total)
        W = self._scenarios(X, sample)
        self._commit(total)
        self._remember(X, sample.n, sample.key)
        return W[0] if single else W

    def _pairs(self, antithetic: bool) -> bool:
        if antithetic and not self.supports_normals:
            _set(self, "_pairs_refused", True)
            return False
        return bool(antithetic)

    @property
    def pairs_refused(self) -> bool:
        """Whether a request for antithetic pairs got plain samples (the problem has no
        ``transform``)."""
        return self._pairs_refused

    def note(self, text: str) -> None:
        """Record a fallback or another fact about the run (each text once)."""
        self._notes[str(text)] = None

    @property
    def notes(self) -> list[str]:
        """What the run had to do differently from what the method asked (in order)."""
        return list(self._notes)

    # -- bookkeeping -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Account the draws made inside the block to phase ``name``, and its wall time.

        Time goes to the innermost open phase only, so the times of nested phases add up to
        the time of the outermost block without counting any second twice.
        """
        previous = self._phase
        self._charge_time()
        _set(self, "_phase", name)
        _set(self, "_phase_depth", self._phase_depth + 1)
        try:
            yield
        finally:
            self._charge_time()
            _set(self, "_phase_depth", self._phase_depth - 1)
            _set(self, "_phase", previous)

    def _charge_time(self) -> None:
        """The seconds since the last phase change go to the phase open during them."""
        now = time.perf_counter()
        if self._phase_depth:
            spent = now - self._phase_since
            self._times[self._phase] = self._times.get(self._phase, 0.0) + spent
        _set(self, "_phase_since", now)

    @property
    def phase_times(self) -> dict[str, float]:
        """Wall seconds spent inside each phase block (innermost phase only). Kept out of
        :attr:`account`, which results store: a time differs on every run."""
        return dict(self._times)

    @property
    def account(self) -> dict[str, dict[str, int]]:
        """Draws and calls per phase, for example ``{"lhd": {"draws": 1200, "calls": 1}}``."""
        return {k: dict(v) for k, v in self._account.items()}

    def record_best(self, x, value: float, *, replace: bool = False) -> None:
        """Log the method's incumbent: kept when ``value`` is lower, or always with ``replace``.

        ``x`` must be a feasible decision (``ValueError`` otherwise): it is what a method
        stopped by the budget returns, and each change joins the trajectory.
        """
        if self._stopped:
            raise SearchStopped("the search was stopped: no new incumbent")
        x = self._check_x(x, 1)
        value = float(value)
        # NaN ranks last: it never displaces an incumbent and any number displaces it.
        better = value < self._best_value or (np.isnan(self._best_value) and not np.isnan(value))
        if replace or self._best_x is None or better:
            changed = (self._best_x is None or not np.array_equal(self._best_x, x)
                       or not (value == self._best_value))
            _set(self, "_best_x", x.copy())
            _set(self, "_best_value", value)
            if changed:
                if self._history is not None:
                    self._history.append(Best(self._used, self._phase, self._best_x, value))
                if self._trajectory and self._trajectory[-1][0] == self._used:
                    self._trajectory[-1] = (self._used, self._best_x, value)
                else:
                    self._trajectory.append((self._used, self._best_x, value))
                if self._observer is not None and self._observer(self._used, x.copy(), value):
                    _set(self, "_stopped", True)
                    raise SearchStopped(f"stopped at {self._used:,} draws by the incumbent's "
                                        "observer")

    @property
    def incumbent(self) -> tuple[np.ndarray, float] | None:
        if self._best_x is None:
            return None
        return self._best_x.copy(), self._best_value

    @property
    def trajectory(self) -> list[tuple[int, np.ndarray, float]]:
        """The incumbents in order, each with the draws used when it was recorded: (draws,
        x, the method's own value); one entry per count of draws (the last one recorded)."""
        return [(d, x.copy(), v) for d, x, v in self._trajectory]

    @property
    def history(self) -> list[Request | Best] | None:
        """What the search did, in order (None unless the oracle was made with
        ``record=True``): a :class:`Request` for each request drawn and charged, a
        :class:`Best` for each change of the incumbent (as :attr:`trajectory`, before two
        at one count of draws are merged)."""
        return None if self._history is None else list(self._history)

    def summary(self) -> dict[str, Any]:
        return {"used": self._used, "budget": self._budget, "account": self.account}
