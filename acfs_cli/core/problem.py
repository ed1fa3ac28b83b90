"""What a problem is, and the one function that turns any such object into the full interface.

A *problem* (docs/DESIGN.md section 1) is any object with

* ``dim_x``, ``dim_w`` - the sizes of a decision x and of a scenario W;
* ``transform(x, z)`` - scenarios W (n, dim_w) at one decision x (dim_x,) from supplied
  standard normals z (n, dim_w), deterministic (preferred: callers then control common
  random numbers and antithetic pairs), **or** ``sample(x, n, rng)`` - n scenarios drawn
  with the given ``numpy.random.Generator`` (a black-box simulator);
* ``cost(W, x)`` - the cost of each scenario row at a decision;
* the decision set X: ``project(x)`` (the Euclidean projection onto X), or ``bounds``
  ``[(low, high), ...]`` (``None`` or an infinity where a side has no bound, as in scipy)
  with optional linear constraints ``A x <= b``.

Optional: ``stochastic_constraints`` with ``constraint_values(W, x)`` (constraints on the
distribution of g(W, x), the (n, m) values of ``constraint_values`` on the same rows as the
cost: ``{"name": ...}`` asks E[g_j] <= 0, ``{"name": ..., "chance": eps}`` asks
P(g_j > 0) <= eps; checked here, and refused in one line by a method that cannot keep them),
and ``constraint_gradient(W, x)``, each row's pathwise gradient of g (n, m, dim_x);
``integrality`` (scipy's convention, as in ``scipy.optimize.milp``: one 0 or 1 per
coordinate, 1 where the decision takes whole values; checked against the bounds and x0, and
refused in one line by a method that cannot search such coordinates); ``name``;
``vectorized = True`` when ``cost(W, x)`` broadcasts ``x[..., None, :]``
against the rows of W (W (..., n, dim_w), x (..., dim_x) -> (..., n)) and ``project``,
``design``, ``is_feasible`` accept any leading axes (otherwise they are called one decision
at a time); ``transform_batch(X, Z)`` - X (m, dim_x), Z (m, n, dim_w) -> W (m, n, dim_w);
``design(u)`` from the unit cube onto X; ``is_feasible(x, tol)``; closed forms of the
moves along X (``tangent(x, g)``, ``coupled``, ``step_scale``, see
:class:`~acfs_cli.core.space.DecisionSet`); and, for problems whose optimum is known, ``x0``
(a reference decision), ``exact_J(x, lam, alpha)``, ``optimum(lam, alpha) -> (x*, J*)`` and
``source``.

:func:`as_problem` turns any such object into a :class:`Problem`, the interface everything
else uses: the oracle, the methods' task, the final evaluation, the reference optima and the
configuration checks. It is the only place that inspects a user's object (and calls its
functions through :mod:`acfs_cli.core.calls`). Everything the simulator returns is checked
here, on every call (shape and finiteness), and an exception raised inside the simulator is
wrapped: both become one :class:`SimulatorError` line that names the problem, the decision
and what was wrong, so no decision is ever computed from bad numbers.
"""

from __future__ import annotations

import copy
import functools
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from acfs_cli.common.codes import sampled_code
from acfs_cli.common.naming import short_array
from acfs_cli.core.calls import (
    ProblemError,
    SimulatorError,
    decision_set,
    readonly,
)
from acfs_cli.core.declared import constraints_of, integrality_of
from acfs_cli.core.draws import Piece, Run
from acfs_cli.core.fingerprint import fingerprint
from acfs_cli.core.sample import CommonSample, child_seed, stream_blocks

Array = np.ndarray


# -- rows drawn, counted where they are made -----------------------------------------------------
class _Tally(threading.local):
    """Scenario rows every :class:`Problem` of this thread produced, counted once per outer
    call (a sample drawn by transforming normals is one row, not two)."""

    rows = 0
    depth = 0


_TALLY = _Tally()


def rows_drawn() -> int:
    """Scenario rows the problems of this thread have produced so far.

    The oracle draws through a problem, so over a search the rows produced equal the draws
    the oracle counted - unless a method reached a simulator some other way, which the runner
    compares after every search (DESIGN.md section 3)."""
    return _TALLY.rows


def _counted(method: Callable[..., Array]) -> Callable[..., Array]:
    """Count the scenario rows a sampling method of :class:`Problem` returns, once for the
    outermost call of the thread."""

    @functools.wraps(method)
    def counted(self, *args, **kwargs):
        _TALLY.depth += 1
        try:
            W = method(self, *args, **kwargs)
        finally:
            _TALLY.depth -= 1
        if _TALLY.depth == 0:
            _TALLY.rows += int(np.prod(W.shape[:-1]))
        return W

    return counted


def check_count(n, name: str = "n") -> int:
    """A non-negative integer count (not a bool), or ``ValueError`` naming the argument."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise ValueError(f"{name} must be a non-negative integer, got {n!r}")
    if n < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {n}")
    return int(n)


def _positive_int(obj, attr: str) -> int:
    value = getattr(obj, attr, None)
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ProblemError(f"a problem needs a positive integer {attr}, got {value!r}")
    return int(value)


class Problem:
    """A problem in the project's full interface (see the module docstring).

    Attributes: ``name``, ``dim_x``, ``dim_w``, ``space`` (the decision set),
    ``has_transform`` (False for a sample-only simulator), ``vectorized``. Sampling:
    :meth:`transform`, :meth:`transform_batch`, :meth:`sample`; costing: :meth:`cost`. Every
    output is checked; faults raise :class:`SimulatorError`.
    """

    def __init__(self, obj: Any, name: str | None = None, x0=None):
        self.name = str(name or getattr(obj, "name", "") or type(obj).__name__)
        self.dim_x = _positive_int(obj, "dim_x")
        self.dim_w = _positive_int(obj, "dim_w")
        self.vectorized = bool(getattr(obj, "vectorized", False))
        transform = getattr(obj, "transform", None)
        sample = getattr(obj, "sample", None)
        cost = getattr(obj, "cost", None)
        if not (callable(transform) or callable(sample)):
            raise ProblemError(f"problem {self.name!r} needs transform(x, z) or "
                               "sample(x, n, rng)")
        if not callable(cost):
            raise ProblemError(f"problem {self.name!r} needs cost(W, x)")
        self.has_transform = callable(transform)
        self._transform = transform if callable(transform) else None
        batch = getattr(obj, "transform_batch", None)
        self._transform_batch = batch if (callable(batch) and self.has_transform) else None
        self._sample = sample if not self.has_transform else None
        block = getattr(obj, "rows_per_stream", None)
        if block is not None and (isinstance(block, bool) or not isinstance(block, int | np.integer)
                                  or block < 1):
            raise ProblemError(f"problem {self.name!r}: rows_per_stream must be a positive "
                               f"integer, got {block!r}")
        #: Rows a sample-only simulator draws from one re-seeded stream of a common sample.
        self.rows_per_stream = None if block is None else int(block)
        self._cost = cost
        self.space = decision_set(obj, self.name, self.dim_x, self.vectorized)
        # Known optimum (library problems): kept as given, used by the reference optima.
        self.source = str(getattr(obj, "source", "") or "")
        #: The module that defines the problem's class (a Dask cluster is sent its file).
        self.module = getattr(type(getattr(obj, "__wrapped__", obj)), "__module__", None)
        #: The fingerprint of the problem's code (acfs_cli.core.fingerprint); a sample-only
        #: simulator's names the convention by which it is handed its random numbers too
        #: (its scenarios change with it).
        self.code = fingerprint(obj) if self.has_transform else sampled_code(fingerprint(obj))
        #: Which coordinates take whole values (``integrality``; all False when not declared).
        self.integrality = integrality_of(obj, self.name, self.dim_x, self.space)
        #: The stochastic constraints, in the order of ``constraint_values``' columns.
        self.constraints = constraints_of(obj, self.name)
        self._constraint_values = getattr(obj, "constraint_values", None)
        if self.constraints and not callable(self._constraint_values):
            raise ProblemError(f"problem {self.name!r} declares stochastic_constraints but "
                               "has no constraint_values(W, x)")
        self.x0 = self._start(getattr(obj, "x0", None) if x0 is None else x0)
        self.space = replace(self.space, start=self.x0)
        self._exact_J = getattr(obj, "exact_J", None)
        self._optimum = getattr(obj, "optimum", None)
        gradient = getattr(obj, "gradient", None)
        self._gradient = gradient if callable(gradient) else None
        gradient = getattr(obj, "constraint_gradient", None)
        self._constraint_gradient = gradient if callable(gradient) else None
        if self._constraint_gradient is not None and not self.constraints:
            raise ProblemError(f"problem {self.name!r} has constraint_gradient(W, x) but "
                               "declares no stochastic_constraints")

    def _start(self, x0) -> Array | None:
        """The problem's stated decision x0 as a feasible array, or None; a misshapen or
        infeasible x0 is a :class:`ProblemError` (a gap normalised by J(x0) would be
        meaningless, and a search started there would start outside X), and so is no x0 where
        X is unbounded (a search would not know where to start, nor its scale)."""
        if x0 is None:
            if not self.space.bounded:
                lo, hi = self.space.box()
                j = int(np.flatnonzero(~(np.isfinite(lo) & np.isfinite(hi)))[0])
                raise ProblemError(f"problem {self.name!r}: X is unbounded (x[{j}] has an "
                                   "infinite bound): give x0, the decision to start from")
            return None
        try:
            x = np.array(x0, dtype=float)
        except (TypeError, ValueError):
            raise ProblemError(f"problem {self.name!r}: x0 is not a vector of numbers: "
                               f"{x0!r:.80}") from None
        if x.shape != (self.dim_x,):
            raise ProblemError(f"problem {self.name!r}: x0 has shape {x.shape}, expected "
                               f"({self.dim_x},)")
        if not np.all(np.isfinite(x)) or not bool(self.space.contains(x)):
            raise ProblemError(f"problem {self.name!r}: x0 = {short_array(x)} lies outside X")
        broken = np.flatnonzero(self.integrality & (x != np.round(x)))
        if broken.size:
            j = int(broken[0])
            raise ProblemError(f"problem {self.name!r}: x0[{j}] = {x[j]:g} is not a whole "
                               f"number, and integrality makes x[{j}] an integer")
        x.flags.writeable = False
        return x

    def starting_at(self, x0) -> Problem:
        """This problem with ``x0`` as its start: where a search starts, what its steps are
        learnt from (DESIGN.md section 7), and the decision a normalised gap is measured
        from. ``ProblemError`` when x0 is not a decision of X."""
        other = copy.copy(self)
        other.x0 = self._start(x0)
        other.space = replace(self.space, start=other.x0)
        return other

    def __repr__(self) -> str:
        kind = "transform" if self.has_transform else "sample-only"
        return f"<Problem {self.name!r}: dim_x={self.dim_x}, dim_w={self.dim_w}, {kind}>"

    # -- the decision set ------------------------------------------------------------------------
    def project(self, x) -> Array:
        return self.space.project(x)

    def design(self, u) -> Array:
        return self.space.design(u)

    def is_feasible(self, x, tol: float | None = None) -> Array:
        return self.space.contains(x) if tol is None else self.space.contains(x, tol)

    # -- known optimum -----------------------------------------------------------------------------
    @property
    def has_exact(self) -> bool:
        """True when the problem gives its exact J and optimum (``exact_J``, ``optimum``)."""
        return callable(self._exact_J) and callable(self._optimum)

    def exact_J(self, x, lam: float, alpha: float) -> float:
        if not callable(self._exact_J):
            raise ProblemError(f"problem {self.name!r} has no exact_J")
        return float(self._exact_J(np.asarray(x, dtype=float), lam, alpha))

    def optimum(self, lam: float, alpha: float) -> tuple[Array, float]:
        if not callable(self._optimum):
            raise ProblemError(f"problem {self.name!r} has no optimum")
        x, J = self._optimum(lam, alpha)
        return np.asarray(x, dtype=float).copy(), float(J)

    # -- checks ------------------------------------------------------------------------------------
    def _fault(self, what: str, x) -> SimulatorError:
        x = np.asarray(x, dtype=float)
        if x.ndim > 1:  # a batch: the first decision stands for it
            x = x.reshape(-1, x.shape[-1])[0]
        return SimulatorError(f"problem {self.name!r}: {what} at x = {short_array(x)}")

    def _call(self, fn_name: str, fn: Callable, x, *args):
        args = tuple(readonly(a) if isinstance(a, np.ndarray) else a for a in args)
        try:
            return fn(*args)
        except (SimulatorError, MemoryError):
            # Memory is exhausted by the size of a request, which is the caller's to answer.
            raise
        except Exception as exc:
            message = " ".join(str(exc).split())[:200]
            if isinstance(exc, ValueError) and "read-only" in message:
                raise self._fault(f"{fn_name} writes into the arrays it is given (they are "
                                  f"read-only: {message})", x) from exc
            raise self._fault(f"{fn_name} raised {type(exc).__name__}: {message}", x) from exc

    def _scenarios(self, fn_name: str, W, shape: tuple[int, ...], X: Array) -> Array:
        """``W`` as a float array of ``shape``, finite, or :class:`SimulatorError`."""
        try:
            W = np.asarray(W, dtype=float)
        except (TypeError, ValueError) as exc:
            raise self._fault(f"{fn_name} returned no array of numbers ({exc})", X) from None
        if W.shape != shape:
            raise self._fault(f"{fn_name} returned W of shape {W.shape}, expected {shape}", X)
        bad = ~np.isfinite(W).all(axis=-1)
        if bad.any():
            rows = bad.reshape(-1, shape[-2])
            first = int(np.flatnonzero(rows.any(axis=1))[0])
            raise self._fault(
                f"{fn_name} returned NaN or infinite scenarios in {int(rows[first].sum())} of "
                f"{shape[-2]} rows", X.reshape(-1, self.dim_x)[first])
        return W

    def _costs(self, c, shape: tuple[int, ...], X: Array) -> Array:
        try:
            c = np.asarray(c, dtype=float)
        except (TypeError, ValueError) as exc:
            raise self._fault(f"cost returned no array of numbers ({exc})", X) from None
        if c.shape != shape:
            raise self._fault(f"cost returned shape {c.shape}, expected {shape}", X)
        bad = ~np.isfinite(c)
        if bad.any():
            n = shape[-1] if shape else 1
            rows = bad.reshape(-1, n)
            first = int(np.flatnonzero(rows.any(axis=1))[0])
            Xb = np.broadcast_to(X[..., None, :], (*shape, self.dim_x)).reshape(-1, n,
                                                                                 self.dim_x)
            raise self._fault(f"cost returned NaN or infinite values in {int(rows[first].sum())}"
                              f" of {n} rows", Xb[first, 0])
        return c

    # -- sampling ----------------------------------------------------------------------------------
    @_counted
    def transform(self, x, z) -> Array:
        """Scenarios at one decision: x (dim_x,), z (n, dim_w) iid N(0, 1) -> W (n, dim_w)."""
        if not self.has_transform:
            raise ProblemError(f"problem {self.name!r} has no transform(x, z)")
        x = np.asarray(x, dtype=float)
        z = np.asarray(z, dtype=float)
        if self._transform_batch is not None:
            W = self._call("transform", self._transform_batch, x, x[None, :], z[None])
            return self._scenarios("transform", W, (1, *z.shape), x[None, :])[0]
        W = self._call("transform", self._transform, x, x, z)
        return self._scenarios("transform", W, z.shape, x)

    @_counted
    def transform_each(self, x, z) -> Array:
        """The problem's own one-decision ``transform``, even where it has a
        ``transform_batch`` (to check that the two agree)."""
        x = np.asarray(x, dtype=float)
        z = np.asarray(z, dtype=float)
        return self._scenarios("transform", self._call("transform", self._transform, x, x, z),
                               z.shape, x)

    @_counted
    def transform_batch(self, X, Z, run: Run | None = None) -> Array:
        """Scenarios at many decisions: X (m, dim_x), Z (m, n, dim_w) -> W (m, n, dim_w).

        A problem without a ``transform_batch`` of its own is called one decision at a time;
        ``run`` then simulates those calls (:mod:`acfs_cli.core.draws`), the same calls."""
        if not self.has_transform:
            raise ProblemError(f"problem {self.name!r} has no transform(x, z)")
        X = np.asarray(X, dtype=float)
        Z = np.asarray(Z, dtype=float)
        if run is not None and self._transform_batch is None and len(X):
            W = self._drawn([Piece(x, z.shape[0], z=z) for x, z in zip(X, Z, strict=True)],
                            len(X), Z.shape[1], run)
        elif self._transform_batch is not None:
            W = self._call("transform", self._transform_batch, X[0] if len(X) else X, X, Z)
        else:
            W = np.stack([self._scenarios("transform",
                                          self._call("transform", self._transform, x, x, z),
                                          z.shape, x)
                          for x, z in zip(X, Z, strict=True)]) if len(X) else np.empty(Z.shape)
        return self._scenarios("transform", W, Z.shape, X)

    @_counted
    def sample(self, x, n: int, rng: np.random.Generator) -> Array:
        """``n`` scenarios W ~ P_x at one decision, shape (n, dim_w), drawn with ``rng``.

        A problem with ``transform`` samples as ``transform(x, rng.standard_normal((n,
        dim_w)))``; a sample-only simulator is called as given.
        """
        n = check_count(n)
        x = np.asarray(x, dtype=float)
        if self.has_transform:
            return self.transform(x, rng.standard_normal((n, self.dim_w)))
        W = self._call("sample", self._sample, x, x, n, rng)
        return self._scenarios("sample", W, (n, self.dim_w), x)

    @_counted
    def scenarios(self, X, sample: CommonSample, run: Run | None = None) -> Array:
        """Scenarios at many decisions X (m, dim_x) on one common sample: W (m, n, dim_w).

        A transform problem pushes the sample's normals through ``transform`` at every
        decision; a sample-only simulator is called at every decision once per seeded block
        of the sample (:meth:`CommonSample.blocks`), with generators in the same states at
        every decision (its antithetic flag is ignored: pairs need normals). ``run``
        simulates the pieces (:mod:`acfs_cli.core.draws`); without it, this process does,
        in order.
        """
        X = np.asarray(X, dtype=float)
        n = sample.n
        if self.has_transform:
            z = sample.normals(self.dim_w)
            return self.transform_batch(X, np.broadcast_to(z, (len(X), n, self.dim_w)), run)
        blocks = sample.blocks(self.rows_per_stream)
        return self._drawn([Piece(x, rows, seed) for x in X for seed, rows in blocks],
                           len(X), n, run)

    @_counted
    def fresh(self, X, n: int, seed: np.random.SeedSequence, run: Run | None = None) -> Array:
        """``n`` independent scenarios at each decision of X (m, dim_x) of a sample-only
        simulator: W (m, n, dim_w). Decision i draws the stream of the seed named i under
        ``seed``, in seeded blocks (:func:`~acfs_cli.core.sample.stream_blocks`)."""
        if self.has_transform:
            raise ProblemError(f"problem {self.name!r} draws from normals: fresh rows of a "
                               "sample-only simulator only")
        X = np.asarray(X, dtype=float)
        pieces = [Piece(x, rows, s) for i, x in enumerate(X)
                  for s, rows in stream_blocks(child_seed(seed, i), n, self.rows_per_stream)]
        return self._drawn(pieces, len(X), n, run)

    def _drawn(self, pieces: list[Piece], m: int, n: int, run: Run | None) -> Array:
        """W (m, n, dim_w) from the pieces of m decisions of n rows each, in order (each
        decision's pieces together), simulated by ``run`` or here."""
        parts = run(pieces) if run is not None else [p.draw(self) for p in pieces]
        if len(parts) != len(pieces):
            raise RuntimeError(f"{len(parts)} answers to {len(pieces)} pieces of a request")
        W = np.empty((m, n, self.dim_w))
        flat = W.reshape(m * n, self.dim_w)
        start = 0
        for piece, part in zip(pieces, parts, strict=True):
            if np.shape(part) != (piece.rows, self.dim_w):
                raise self._fault(f"a piece of {piece.rows} rows came back with shape "
                                  f"{np.shape(part)}", piece.x)
            flat[start:start + piece.rows] = part
            start += piece.rows
        if start != m * n:
            raise RuntimeError(f"the pieces of a request hold {start} rows, not {m * n}")
        return W

    @property
    def splits_draws(self) -> bool:
        """Whether the rows of a request can be simulated apart with the same result: a
        sample-only simulator's (by seeded blocks), or a transform problem's that is called
        one decision at a time (by decision). A ``transform_batch`` draws every decision in
        one call: cutting it would change the call, perhaps the last bits."""
        return not self.has_transform or self._transform_batch is None

    def fresh_costs(self, x, n: int, rng: np.random.Generator, run: Run | None = None,
                    chunk: int = 250_000) -> Array:
        """The costs of ``n`` fresh scenarios at one decision ``x``, outside any budget
        (evaluations): :meth:`fresh_outputs`' costs."""
        return self.fresh_outputs(x, n, rng, run, chunk)[0]

    def fresh_outputs(self, x, n: int, rng: np.random.Generator, run: Run | None = None,
                      chunk: int = 250_000) -> tuple[Array, Array | None]:
        """The costs (n,) of ``n`` fresh scenarios at one decision ``x`` and, where the problem
        declares stochastic constraints, their values g (n, m) on the same rows (else None),
        outside any budget (evaluations): a transform problem's from ``rng``'s normals in
        order, ``chunk`` rows at a time; a sample-only simulator's from seeded blocks of the
        stream ``rng`` seeds (its first four 63-bit integers), simulated by ``run`` or here,
        ``chunk`` rows of scenarios in memory at a time."""
        x = np.asarray(x, dtype=float)
        costs = np.empty(n)
        G = np.empty((n, len(self.constraints))) if self.constraints else None

        def put(W, start: int, m: int) -> None:
            costs[start:start + m] = self.cost(W, x)
            if G is not None:
                G[start:start + m] = self.constraint_values(W, x)

        if self.has_transform:
            for start in range(0, n, chunk):
                m = min(chunk, n - start)
                put(self.sample(x, m, rng), start, m)
            return costs, G
        seed = np.random.SeedSequence(rng.integers(2**63, size=4).tolist())
        pieces = [Piece(x, rows, s) for s, rows in stream_blocks(seed, n, self.rows_per_stream)]
        start, i = 0, 0
        while i < len(pieces):
            group, rows = [], 0
            while i < len(pieces) and (not group or rows + pieces[i].rows <= chunk):
                group.append(pieces[i])
                rows += pieces[i].rows
                i += 1
            W = self._drawn(group, 1, rows, run)[0]
            # costed block by block, as they were drawn, wherever they were drawn
            for piece in group:
                put(W[:piece.rows], start, piece.rows)
                W = W[piece.rows:]
                start += piece.rows
        return costs, G

    # -- the cost's pathwise gradient (optional) ----------------------------------------------
    @property
    def has_gradient(self) -> bool:
        """Whether the simulator gives the pathwise gradient of its cost (``gradient``)."""
        return self._gradient is not None

    def gradient(self, W, x) -> Array:
        """d C(W(x, u), x) / dx of each scenario row, with W's own dependence on x (what an
        IPA estimator gives): W (n, dim_w) drawn at one decision x -> (n, dim_x), checked."""
        return self._pathwise("gradient", self._gradient, W, x, (len(W), self.dim_x))

    @property
    def has_constraint_gradient(self) -> bool:
        """Whether the simulator gives the pathwise gradients of g (``constraint_gradient``)."""
        return self._constraint_gradient is not None

    def constraint_gradient(self, W, x) -> Array:
        """d g_j(W(x, u), x) / dx of each scenario row and constraint: W (n, dim_w) drawn at
        one decision x -> (n, m, dim_x), checked."""
        return self._pathwise("constraint_gradient", self._constraint_gradient, W, x,
                              (len(W), len(self.constraints), self.dim_x))

    def _pathwise(self, what: str, fn, W, x, shape: tuple) -> Array:
        if fn is None:
            raise ProblemError(f"problem {self.name!r} has no {what}(W, x)")
        W, x = np.asarray(W, dtype=float), np.asarray(x, dtype=float)
        G = self._call(what, fn, x, W, x)
        try:
            G = np.asarray(G, dtype=float)
        except (TypeError, ValueError) as exc:
            raise self._fault(f"{what} returned no array of numbers ({exc})", x) from None
        if G.shape != shape:
            raise self._fault(f"{what} returned shape {G.shape}, expected {shape}", x)
        if not np.all(np.isfinite(G)):
            raise self._fault(f"{what} returned NaN or infinite values", x)
        return G

    # -- costing -----------------------------------------------------------------------------------
    def cost(self, W, x) -> Array:
        """Costs of scenario rows: W (..., n, dim_w) with x (..., dim_x), broadcast as
        ``x[..., None, :]`` -> (..., n); W (n, dim_w) with x (k, dim_x) gives (k, n)."""
        W = np.asarray(W, dtype=float)
        x = np.asarray(x, dtype=float)
        if W.ndim < 2 or W.shape[-1] != self.dim_w:
            raise ValueError(f"W must have shape (..., n, {self.dim_w}), got {W.shape}")
        if x.ndim < 1 or x.shape[-1] != self.dim_x:
            raise ValueError(f"x must have shape (..., {self.dim_x}), got {x.shape}")
        lead = np.broadcast_shapes(W.shape[:-2], x.shape[:-1])
        shape = (*lead, W.shape[-2])
        if self.vectorized:
            c = self._call("cost", self._cost, x, W, x)
        elif not lead:
            c = self._call("cost", self._cost, x, W, x)
        else:
            Wb = np.broadcast_to(W, (*lead, *W.shape[-2:]))
            xb = np.broadcast_to(x, (*lead, self.dim_x))
            c = np.empty(shape)
            for idx in np.ndindex(*lead):
                c[idx] = self._costs(self._call("cost", self._cost, xb[idx], Wb[idx], xb[idx]),
                                     (W.shape[-2],), xb[idx])
        return self._costs(c, shape, x)

    def constraint_values(self, W, x) -> Array:
        """The stochastic constraints' values g (n, m) of scenario rows W (n, dim_w) at one
        decision x (dim_x,), checked: the shape, and finite values (one
        :class:`SimulatorError` line otherwise)."""
        if not self.constraints:
            raise ProblemError(f"problem {self.name!r} declares no stochastic_constraints")
        W = np.asarray(W, dtype=float)
        x = np.asarray(x, dtype=float)
        if W.ndim != 2 or W.shape[-1] != self.dim_w or x.shape != (self.dim_x,):
            raise ValueError(f"constraint_values takes W (n, {self.dim_w}) and x "
                             f"({self.dim_x},), got {W.shape} and {x.shape}")
        shape = (W.shape[0], len(self.constraints))
        g = self._call("constraint_values", self._constraint_values, x, W, x)
        try:
            g = np.asarray(g, dtype=float)
        except (TypeError, ValueError) as exc:
            raise self._fault(f"constraint_values returned no array of numbers ({exc})",
                              x) from None
        if g.shape == shape[:1] and shape[1] == 1:
            g = g[:, None]
        if g.shape != shape:
            raise self._fault(f"constraint_values returned shape {g.shape}, expected {shape} "
                              "(a column per stochastic constraint)", x)
        bad = ~np.isfinite(g)
        if bad.any():
            j = int(np.flatnonzero(bad.any(axis=0))[0])
            raise self._fault(f"constraint_values returned NaN or infinite values of "
                              f"{self.constraints[j].name!r} in {int(bad[:, j].sum())} of "
                              f"{shape[0]} rows", x)
        return g


#: What a problem is, in one line (the protocol's required attributes), for whoever passes
#: something else.
PROTOCOL = ("a problem is an object with dim_x and dim_w (positive integers), transform(x, z) "
            "or sample(x, n, rng), cost(W, x), and bounds [(low, high), ...] or project(x)")


def not_a_problem(obj: Any) -> str:
    """What ``obj`` is, when it is plainly no problem (a class, or none of the protocol's
    attributes), else ""."""
    if isinstance(obj, type):
        return f"got the class {obj.__name__}: pass an instance, {obj.__name__}()"
    if not any(hasattr(obj, a) for a in ("dim_x", "dim_w", "transform", "sample", "cost")):
        what = "None" if obj is None else f"the function {obj.__name__}" if callable(
            obj) and hasattr(obj, "__name__") else f"{type(obj).__name__} {obj!r:.60}"
        return f"got {what}"
    return ""


def as_problem(obj: Any, name: str | None = None, x0=None) -> Problem:
    """``obj`` in the full interface (a :class:`Problem` is returned as it is), starting at
    ``x0`` when given (in place of its own); raises :class:`ProblemError` with one line
    naming what is missing or malformed (or, for something that is no problem at all, what a
    problem is and what it got)."""
    if isinstance(obj, Problem):
        return obj if x0 is None else obj.starting_at(x0)
    got = not_a_problem(obj)
    if got:
        raise ProblemError(f"{PROTOCOL}; {got}")
    return Problem(obj, name, x0)
