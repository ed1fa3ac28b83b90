"""A user's problem code as the project calls it: on read-only views of its inputs, its outputs
checked, a fault of its own as one line, and held in closures that hand nothing on.

* :class:`ProblemError` - a problem that cannot be used as defined; :class:`SimulatorError`
  - a simulator that raised, or returned something unusable (wrong shape, NaN or inf);
* :func:`sealed` - a function in a plain closure (a bound method would hand on its object,
  and through it the simulator);
* :func:`decision_set` - the decision set X of a user's object, each of its functions
  (``project``, ``design``, ``is_feasible``, ``tangent``) guarded.

:mod:`acfs_cli.core.problem` turns a user's object into the project's interface with these.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from acfs_cli.core.space import DecisionSet, polyhedron, projected

Array = np.ndarray


class ProblemError(ValueError):
    """A problem that cannot be used as defined (a missing or malformed attribute)."""


class SimulatorError(RuntimeError):
    """The simulator raised, or returned something unusable (wrong shape, NaN or inf)."""


def sealed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` in a plain closure: a bound method would hand its object (``__self__``) - the
    problem, and through it the simulator - to whoever holds the function."""

    def call(*args):
        return fn(*args)

    return call


def readonly(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a``: a simulator that writes into the decision or the scenarios
    it is given would change the caller's arrays (a method's candidates, a cached sample)."""
    view = a.view()
    view.flags.writeable = False
    return view


def rowwise(fn: Callable[..., Array], dim: int) -> Callable[..., Array]:
    """A one-decision function applied to every decision of a batch (..., dim)."""

    def batched(x, *args):
        x = np.asarray(x, dtype=float)
        if x.ndim == 1:
            return np.asarray(fn(x, *args))
        flat = x.reshape(-1, dim)
        out = [np.asarray(fn(r, *args)) for r in flat]
        return np.stack(out).reshape(*x.shape[:-1], *out[0].shape) if out else np.empty(
            (*x.shape[:-1], dim))

    return batched


def _guarded(fn: Callable[..., Any], problem: str, fn_name: str,
             shape_of: Callable[[tuple[int, ...]], tuple[int, ...]],
             dtype: type = float) -> Callable[..., Array]:
    """``fn`` of a user's decision set called on a read-only view of its input, with its
    output checked (a float array of ``shape_of(input shape)``, finite) and any fault turned
    into one :class:`ProblemError` line naming the problem and the function."""

    def call(x, *args):
        x = np.asarray(x, dtype=float)
        try:
            out = fn(readonly(x), *args)
        except ProblemError:
            raise
        except Exception as exc:
            message = " ".join(str(exc).split())[:200]
            raise ProblemError(f"problem {problem!r}: {fn_name} raised {type(exc).__name__}: "
                               f"{message}") from None
        try:
            out = np.asarray(out, dtype=dtype)
        except (TypeError, ValueError):
            raise ProblemError(f"problem {problem!r}: {fn_name} returned no array of "
                               f"{dtype.__name__} values") from None
        want = shape_of(x.shape)
        if out.shape != want:
            raise ProblemError(f"problem {problem!r}: {fn_name} returned shape {out.shape} "
                               f"for input of shape {x.shape}, expected {want}")
        if dtype is float and not np.all(np.isfinite(out)):
            raise ProblemError(f"problem {problem!r}: {fn_name} returned NaN or infinite "
                               "values")
        return out

    return call


def _same(shape: tuple[int, ...]) -> tuple[int, ...]:
    return shape


def _leading(shape: tuple[int, ...]) -> tuple[int, ...]:
    return shape[:-1]


def decision_set(obj: Any, name: str, dim: int, vectorized: bool) -> DecisionSet:
    """The decision set of ``obj``: its ``bounds`` (+ ``A``, ``b``) or its ``project``, with
    the closed forms it gives (``design``, ``is_feasible``, ``tangent``, ``coupled``,
    ``step_scale``) in place of the generic ones. Every function of the user's is called on
    read-only views and its output checked (:func:`_guarded`), and held in a closure: the set
    hands nothing on that leads back to the problem's simulator."""
    project = getattr(obj, "project", None)
    bounds = getattr(obj, "bounds", None)

    def own(fn, fn_name, shape_of=_same, dtype=float):
        guarded = _guarded(fn, name, fn_name, shape_of, dtype)
        return guarded if vectorized else rowwise(guarded, dim)

    try:
        if callable(project):
            if bounds is not None and np.shape(bounds) != (dim, 2):
                raise ValueError(f"bounds give {np.shape(bounds)[0]} coordinates, "
                                 f"dim_x is {dim}")
            space = projected(own(project, "project"), dim, bounds, remember=not vectorized)
        elif bounds is not None:
            space = polyhedron(bounds, getattr(obj, "A", None), getattr(obj, "b", None))
            if space.dim != dim:
                raise ValueError(f"bounds give {space.dim} coordinates, dim_x is {dim}")
        else:
            raise ValueError("X needs project(x) or bounds (+ optional A, b)")
    except ValueError as exc:
        if isinstance(exc, ProblemError):
            raise
        raise ProblemError(f"problem {name!r}: {exc}") from None
    changes: dict[str, Any] = {}
    if callable(getattr(obj, "design", None)):
        changes["design_map"] = own(obj.design, "design")
    if callable(getattr(obj, "is_feasible", None)):
        changes["contains"] = own(obj.is_feasible, "is_feasible", _leading, bool)
    if callable(getattr(obj, "tangent", None)):
        changes["tangent_rule"] = _guarded(obj.tangent, name, "tangent", _same)
    if getattr(obj, "coupled", None) is not None:
        changes["coupled"] = tuple(int(i) for i in obj.coupled)
    if getattr(obj, "step_scale", None) is not None:
        changes["step_scale"] = tuple(float(v) for v in obj.step_scale)
    return replace(space, **changes) if changes else space
