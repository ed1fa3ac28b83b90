"""What a problem declares beyond its simulator and its decision set: the coordinates that take
whole values (``integrality``) and the constraints on the distribution of a second output
(``stochastic_constraints``), each checked once, where :func:`acfs_cli.core.problem.as_problem`
normalises the problem (DESIGN.md section 1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from acfs_cli.core.calls import ProblemError

Array = np.ndarray


def integrality_of(obj, name: str, dim: int, space) -> Array:
    """The problem's ``integrality`` as a read-only boolean vector (all False when it declares
    none); one line naming the coordinate where it is malformed or where a finite bound of an
    integer coordinate is not a whole number."""
    given = getattr(obj, "integrality", None)
    if given is None:
        flags = np.zeros(dim, dtype=bool)
    else:
        try:
            values = np.asarray(given, dtype=float)
        except (TypeError, ValueError):
            raise ProblemError(f"problem {name!r}: integrality must hold one 0 or 1 per "
                               f"coordinate, got {given!r:.80}") from None
        if values.shape != (dim,):
            raise ProblemError(f"problem {name!r}: integrality has shape {values.shape}, "
                               f"expected ({dim},): one 0 or 1 per coordinate")
        odd = np.flatnonzero((values != 0) & (values != 1))
        if odd.size:
            j = int(odd[0])
            raise ProblemError(f"problem {name!r}: integrality[{j}] is {values[j]:g}; each "
                               "entry is 0 (continuous) or 1 (integer)")
        flags = values == 1
    lo, hi = space.box()
    for j in np.flatnonzero(flags):
        for side, bound in (("lower", lo[j]), ("upper", hi[j])):
            if np.isfinite(bound) and bound != np.round(bound):
                raise ProblemError(f"problem {name!r}: x[{j}] is an integer but its {side} "
                                   f"bound {bound:g} is not a whole number")
    flags.flags.writeable = False
    return flags


@dataclass(frozen=True)
class StochasticConstraint:
    """One constraint on the distribution of g_j(W, x): E[g_j] <= 0 (``chance`` None) or
    P(g_j > 0) <= ``chance``."""

    name: str
    chance: float | None = None

    def describe(self) -> str:
        if self.chance is None:
            return f"E[{self.name}] <= 0"
        return f"P({self.name} > 0) <= {self.chance:g}"


def constraints_of(obj, name: str) -> tuple[StochasticConstraint, ...]:
    """The problem's ``stochastic_constraints`` checked: a list of ``{"name": str}`` or
    ``{"name": str, "chance": eps}`` with eps in (0, 1) and distinct names; one line naming
    the entry otherwise."""
    given = getattr(obj, "stochastic_constraints", None)
    if given is None:
        return ()
    if isinstance(given, str | bytes | dict) or not hasattr(given, "__iter__"):
        raise ProblemError(f"problem {name!r}: stochastic_constraints must be a list of "
                           f"{{'name': ..., 'chance': eps}} entries, got {given!r:.80}")
    found: list[StochasticConstraint] = []
    for j, entry in enumerate(given):
        where = f"problem {name!r}: stochastic_constraints[{j}]"
        if not isinstance(entry, dict):
            raise ProblemError(f"{where} must be a dict with a name (and a chance), got "
                               f"{entry!r:.80}")
        unknown = sorted(set(entry) - {"name", "chance"})
        if unknown:
            raise ProblemError(f"{where} has unknown key {unknown[0]!r}; its keys are name "
                               "and chance")
        label = entry.get("name")
        if not isinstance(label, str) or not label.strip():
            raise ProblemError(f"{where} needs a name, got {label!r:.80}")
        if label in {c.name for c in found}:
            raise ProblemError(f"{where}: the name {label!r} is given twice")
        chance = entry.get("chance")
        if chance is not None:
            if isinstance(chance, bool) or not isinstance(chance, int | float | np.number) \
                    or not 0.0 < float(chance) < 1.0:
                raise ProblemError(f"{where} ({label!r}): chance must lie strictly between "
                                   f"0 and 1, got {chance!r}")
            chance = float(chance)
        found.append(StochasticConstraint(label, chance))
    return tuple(found)
