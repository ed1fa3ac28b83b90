"""SimOpt's continuous problems as acfs problems: ``simopt:<ABBR>`` in a grid or in
``get_problem`` (DESIGN.md section 8).

A replication of a SimOpt problem is one scenario row: its objective response as a loss
(sign flipped where SimOpt maximises), with the IPA gradient beside it where SimOpt has one;
SimOpt's bounds (infinite where it has none), its known linear constraints, its initial
solution as x0 and its known optimum where it codes one. Random numbers come from SimOpt's
MRG32k3a streams, chosen from the generator acfs hands over, so generators in the same state
give the same replications (common random numbers by re-seeding).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from acfs_cli.common.naming import did_you_mean
from acfs_cli.integrations.simopt import (
    ADAPTER_VERSION,
    KNOWN_CONSTRAINTS,
    PREFIX,
    STREAM_COUNT,
    STREAM_OFFSET,
    continuous_problems,
    one_line,
    require,
    simopt_class,
)


# -- which problems ------------------------------------------------------------------------------
def _simplex(total: float) -> Callable[[np.ndarray], np.ndarray]:
    """The Euclidean projection onto {x >= 0, sum(x) = total} along the last axis, any leading
    axes (sorted breakpoints). An equality written as two inequalities would leave the
    generic polyhedron projection a set with no interior."""

    def project(x):
        x = np.asarray(x, dtype=float)
        u = -np.sort(-x, axis=-1)
        css = np.cumsum(u, axis=-1) - total
        k = np.arange(1, x.shape[-1] + 1)
        rho = x.shape[-1] - 1 - np.argmax((u - css / k > 0)[..., ::-1], axis=-1)
        theta = np.take_along_axis(css, rho[..., None], axis=-1) / (rho[..., None] + 1.0)
        return np.maximum(x - theta, 0.0)

    return project


def _facsize_budget(p) -> dict[str, Any]:
    """FACSIZE-2: installation costs . x <= installation budget."""
    costs = np.atleast_2d(np.asarray(p.factors["installation_costs"], dtype=float))
    return {"A": costs, "b": np.array([float(p.factors["installation_budget"])])}


def _network_simplex(p) -> dict[str, Any]:
    """NETWORK-1: routing shares on the probability simplex (its box [0, 1] is implied)."""
    return {"project": _simplex(1.0)}


#: The deterministic constraints beyond SimOpt's bounds, read from each problem's
#: ``check_deterministic_constraints`` in simoptlib 1.2.4. A problem that declares such
#: constraints and is not here is refused rather than run without them.
_CONSTRAINTS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "FACSIZE-2": _facsize_budget,
    "NETWORK-1": _network_simplex,
}



assert set(_CONSTRAINTS) == set(KNOWN_CONSTRAINTS)




def problem_class(name: str) -> type:
    """What ``get_problem`` builds for ``simopt:<ABBR>``: :class:`SimOptProblem` with the
    abbreviation bound, so that a grid entry's ``params`` are SimOpt's factors. One-line
    ``ValueError`` for a missing extra or a problem acfs cannot take."""
    abbr = name.removeprefix(PREFIX)
    try:
        simopt_class(abbr)
    except ValueError as exc:
        hint = did_you_mean(abbr, continuous_problems()) if str(exc).startswith(
            "unknown SimOpt problem") else ""
        if not hint:
            raise
        raise ValueError(str(exc).replace(f"{abbr!r};", f"{abbr!r}{hint};", 1)) from None

    def __init__(self, **factors):
        SimOptProblem.__init__(self, abbr, **factors)

    return type(f"SimOpt[{abbr}]", (SimOptProblem,), {"__init__": __init__,
                                                       "__module__": __name__})



# -- SimOpt's problems as acfs problems ----------------------------------------------------------
class SimOptProblem:
    """A continuous SimOpt problem in the problem protocol (DESIGN.md sections 1 and 8).

    Parameters
    ----------
    abbr : str
        SimOpt's abbreviation (``"CNTNEWS-1"``; :func:`continuous_problems` lists them).
    model_factors : mapping, optional
        Factors of SimOpt's model (``{"lambda": 2.0}`` for MM1-1's arrival rate).
    gradients : bool
        Where SimOpt has IPA gradients, carry them in W (columns 1..dim_x) for
        :meth:`gradient` and for SimOpt's own solvers, as SimOpt gives them to its solvers.
    **factors
        Factors of SimOpt's problem (``initial_solution``, ``budget``, problem-specific ones
        such as FACSIZE-2's ``installation_budget``). Unknown names are errors.

    A scenario row is one SimOpt replication: ``W[:, 0]`` is its objective response with the
    sign flipped where SimOpt maximises (costs are losses), so at lam = 0 J is SimOpt's
    expected objective as a loss; ``cost(W, x) = W[..., 0]``. Every dependence on x lives in
    the simulation (P_x), none in the cost.

    Attributes beyond the protocol: ``abbr``; ``minmax`` (+1 where SimOpt maximises) and
    ``sign`` (-minmax: loss = sign * objective); ``default_budget`` (SimOpt's budget, in
    replications); ``optimal_x`` and ``optimal_value`` (SimOpt's known optimal solution and
    value, in SimOpt's own sign, None where SimOpt codes none: no exact J is claimed);
    ``replications`` (replications simulated by this object).

    The decision set is the closure of SimOpt's: acfs's sets are closed, so a strict
    ``x > 0`` (CNTNEWS-1, DYNAMNEWS-1) becomes ``x >= 0``. CNTNEWS-1's initial solution
    ``x = 0`` lies on that boundary: it is kept as SimOpt states it (SimOpt's solvers start
    there too) and is a well-defined decision - nothing ordered, every replication's profit
    exactly 0.
    """

    vectorized = True

    def __init__(self, abbr: str, *, model_factors: Mapping[str, Any] | None = None,
                 gradients: bool = True, **factors: Any):
        so = require(f"{PREFIX}{abbr}")
        cls = simopt_class(abbr)
        model_factors = dict(model_factors or {})
        _check_factor_names(cls, factors, model_factors)
        try:
            p = cls(fixed_factors=dict(factors), model_fixed_factors=model_factors)
        except Exception as exc:
            raise ValueError(f"{PREFIX}{abbr}: {one_line(exc)}") from None
        self._so, self._problem = so, p
        self.abbr = abbr
        self.name = f"{PREFIX}{abbr}"
        self.source = (f"SimOpt (simoptlib {so.release}) problem {abbr}: {p.class_name}, "
                       f"model {p.model_class.class_name}")
        self.dim_x = int(p.dim)
        self.minmax = int(p.minmax[0])
        self.sign = -self.minmax
        self.has_gradients = bool(gradients and p.gradient_available)
        self.dim_w = 1 + (self.dim_x if self.has_gradients else 0)
        if self.has_gradients:
            self.gradient = self._gradient
        self.bounds = [(float(lo), float(hi))
                       for lo, hi in zip(p.lower_bounds, p.upper_bounds, strict=True)]
        for name, value in _CONSTRAINTS.get(abbr, lambda _: {})(p).items():
            setattr(self, name, value)
        self.x0 = np.asarray(p.factors["initial_solution"], dtype=float)
        self.default_budget = int(p.factors["budget"])
        self.optimal_x = (None if p.optimal_solution is None
                          else np.asarray(p.optimal_solution, dtype=float))
        self.optimal_value = None if p.optimal_value is None else float(p.optimal_value)
        factors_text = json.dumps({"problem": p.factors, "model": model_factors,
                                   "gradients": self.has_gradients}, sort_keys=True,
                                  default=str)
        digest = hashlib.sha256(factors_text.encode()).hexdigest()[:12]
        #: The fingerprint of this problem's code (acfs_cli.core.fingerprint): SimOpt's
        #: release, the adapter's version and every factor.
        self.version = (f"simoptlib {so.release}, adapter {ADAPTER_VERSION}, {abbr} "
                        f"factors {digest}")
        self._n_rngs = int(p.model.n_rngs)
        self.replications = 0

    def __repr__(self) -> str:
        return (f"SimOptProblem({self.abbr!r}: dim_x={self.dim_x}, dim_w={self.dim_w}, "
                f"{'maximise' if self.minmax > 0 else 'minimise'} in SimOpt)")

    # -- the protocol ------------------------------------------------------------------------
    def sample(self, x, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` replications at ``x``, one row each.

        One integer drawn from ``rng`` picks an MRG32k3a stream; SimOpt's model generator i
        runs on its substream i and replication j on their subsubstreams j, SimOpt's own
        layout. So generators in the same state give the same replications at every decision
        (common random numbers by re-seeding, DESIGN.md section 3), and the first m rows of
        ``sample(x, n, .)`` are ``sample(x, m, .)``.
        """
        stream = STREAM_OFFSET + int(rng.integers(STREAM_COUNT))
        return self.replicate(x, n, stream)

    def replicate(self, x, n: int, stream: int) -> np.ndarray:
        """``n`` replications at ``x`` on MRG32k3a stream ``stream`` (SimOpt's layout) as rows
        of W: the loss, then its IPA gradient where carried."""
        so = self._so
        rngs = [so.MRG32k3a(s_ss_sss_index=[int(stream), i, 0]) for i in range(self._n_rngs)]
        solution = so.Solution(tuple(float(v) for v in np.asarray(x, dtype=float)),
                               self._problem)
        solution.attach_rngs(rngs, copy=False)
        W = np.empty((n, self.dim_w))
        if n:
            self._problem.simulate(solution, n)
            W[:, 0] = self.sign * solution.objectives[:n, 0]
            if self.has_gradients:
                W[:, 1:] = self.sign * solution.objectives_gradients[:n, 0, :]
        self.replications += n
        return W

    def cost(self, W, x) -> np.ndarray:
        """The loss of each row, ``W[..., 0]``, broadcast against the decisions' leading axes
        (the vectorised form of the protocol)."""
        W = np.asarray(W, dtype=float)
        x = np.asarray(x, dtype=float)
        lead = np.broadcast_shapes(W.shape[:-2], x.shape[:-1])
        return np.array(np.broadcast_to(W[..., 0], (*lead, W.shape[-2])))

    def _gradient(self, W, x) -> np.ndarray:
        """The IPA gradient of each row's loss at the decision the rows were drawn at,
        ``W[..., 1:]`` (..., n, dim_x). No acfs method reads it yet: a pathwise method could
        use it in place of a (2 d + 1)-point finite-difference stencil."""
        return np.asarray(W, dtype=float)[..., 1:]


def _check_factor_names(cls, factors: Mapping[str, Any], model_factors: Mapping[str, Any]):
    """Unknown factor names are errors: SimOpt's configurations would drop them silently."""
    for given, config, what in ((factors, cls.config_class, "factor"),
                                (model_factors, cls.model_class.config_class, "model factor")):
        known = {f.alias or n for n, f in config.model_fields.items()}
        unknown = sorted(set(given) - known)
        if unknown:
            raise ValueError(f"{PREFIX}{cls.class_name_abbr} has no {what} "
                             f"{', '.join(map(repr, unknown))} (known: "
                             f"{', '.join(sorted(known))})")


def replications_per_second(abbr: str, n: int = 1000, seed: int = 0) -> float:
    """Replications per second of ``simopt:<abbr>`` at its initial solution, one stream of
    ``n`` replications through the adapter (what a study's cost scales with)."""
    import time

    problem = SimOptProblem(abbr, gradients=False)
    start = time.perf_counter()
    problem.sample(problem.x0, n, np.random.default_rng(seed))
    return n / (time.perf_counter() - start)


