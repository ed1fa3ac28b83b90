"""SimOpt's problems as acfs problems: ``simopt:<ABBR>`` in a grid or in ``get_problem``
(DESIGN.md section 8).

A replication of a SimOpt problem is one scenario row: its objective response as a loss
(sign flipped where SimOpt maximises), with the IPA gradient beside it where SimOpt has one,
and the left-hand sides of its stochastic constraints where it has some; SimOpt's bounds
(infinite where it has none), its known linear constraints, its integer coordinates, its
initial solution as x0 and its known optimum where it codes one. Random numbers come from
SimOpt's MRG32k3a streams, chosen from the generator acfs hands over, so generators in the
same state give the same replications (common random numbers by re-seeding).
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
    KNOWN_STOCHASTIC,
    MIXED_INTEGERS,
    PREFIX,
    STREAM_COUNT,
    STREAM_OFFSET,
    continuous_problems,
    corrected_san2,
    declared_problems,
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


def _park_capacity(p) -> dict[str, Any]:
    """AMUSEMENTPARK-1: the queue capacities sum to at most the park's capacity."""
    return {"A": np.ones((1, p.dim)), "b": np.array([float(p.model.factors["park_capacity"])])}


def _rmitd_nested(p) -> dict[str, Any]:
    """RMITD-1: the initial inventory and the reservations are non-increasing,
    x[i + 1] - x[i] <= 0."""
    A = np.zeros((p.dim - 1, p.dim))
    for i in range(p.dim - 1):
        A[i, i], A[i, i + 1] = -1.0, 1.0
    return {"A": A, "b": np.zeros(p.dim - 1)}


def _table_seats(p) -> dict[str, Any]:
    """TABLEALLOCATION-1: the tables' seats, table_cap . x, at most the restaurant's
    capacity."""
    seats = np.atleast_2d(np.asarray(p.model.factors["table_cap"], dtype=float))
    return {"A": seats, "b": np.array([float(p.model.factors["capacity"])])}


#: The deterministic constraints beyond SimOpt's bounds, read from each problem's
#: ``check_deterministic_constraints`` in simoptlib 1.2.4. A problem that declares such
#: constraints and is not here is refused rather than run without them.
_CONSTRAINTS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "AMUSEMENTPARK-1": _park_capacity,
    "FACSIZE-2": _facsize_budget,
    "NETWORK-1": _network_simplex,
    "RMITD-1": _rmitd_nested,
    "TABLEALLOCATION-1": _table_seats,
}


def _contam_stages(p) -> list[str]:
    """CONTAM-1 and CONTAM-2: per stage i, SimOpt's left-hand side
    -1(level_i <= upper_thres_i) + 1 - error_prob_i = 1(level_i > upper_thres_i) -
    error_prob_i, so E[.] <= 0 is P(level_i > upper_thres_i) <= error_prob_i."""
    return [f"1(level[{i}] > upper_thres[{i}]) - error_prob[{i}]" for i in range(p.dim)]


def _chess_wait(p) -> list[str]:
    """CHESS-1: the replication's average wait less ``upper_time``: the mean wait at most
    ``upper_time``."""
    return ["avg_wait_time - upper_time"]


def _facsize_stockout(p) -> list[str]:
    """FACSIZE-1: 1(some facility stocks out) - epsilon, so E[.] <= 0 is P(stockout) <=
    epsilon."""
    return ["1(stockout) - epsilon"]


def _san_deadlines(p) -> list[str]:
    """SAN-2: per constraint node k, the longest path to k less its allowed length: the mean
    longest path to k at most that length."""
    return [f"longest path to node {k} - length_to_node_constraint[{i}]"
            for i, k in enumerate(p.factors["constraint_nodes"])]


#: The names of the stochastic constraints, in the order of SimOpt's, read from each
#: problem's ``replicate`` in simoptlib 1.2.4. Each is declared as SimOpt states it, an
#: expectation E[g] <= 0 of its left-hand side g; the values are SimOpt's own g per
#: replication. A problem with stochastic constraints that is not here is refused.
_STOCHASTIC: dict[str, Callable[[Any], list[str]]] = {
    "CHESS-1": _chess_wait,
    "CONTAM-1": _contam_stages,
    "CONTAM-2": _contam_stages,
    "FACSIZE-1": _facsize_stockout,
    "SAN-2": _san_deadlines,
}


#: The problems whose stochastic constraints SimOpt gives an IPA gradient of in each
#: replication (its ``stoch_constraints_gradients``), each with the class that gives it:
#: SAN-2's longest paths to two nodes, by :func:`corrected_san2` (simoptlib 1.2.4's first
#: constraint's gradient is another path's). Elsewhere SimOpt gives zeros (CONTAM's and
#: FACSIZE-1's indicators), which are no gradient of their expectations, so none is carried.
_CONSTRAINT_GRADIENTS: dict[str, Callable[[], type]] = {"SAN-2": corrected_san2}

assert set(_CONSTRAINTS) == set(KNOWN_CONSTRAINTS)
assert set(_STOCHASTIC) == set(KNOWN_STOCHASTIC)


def _integers(p, so) -> tuple[int, ...]:
    """The coordinates SimOpt's problem ``p`` takes as integers: all of a discrete problem,
    the known ones of a mixed one, none of a continuous one."""
    if p.variable_type == so.VariableType.DISCRETE:
        return tuple(range(int(p.dim)))
    if p.variable_type == so.VariableType.MIXED:
        return MIXED_INTEGERS[p.class_name_abbr]
    return ()




def problem_class(name: str) -> type:
    """What ``get_problem`` builds for ``simopt:<ABBR>``: :class:`SimOptProblem` with the
    abbreviation bound, so that a grid entry's ``params`` are SimOpt's factors. One-line
    ``ValueError`` for a missing extra or a problem acfs cannot take."""
    abbr = name.removeprefix(PREFIX)
    try:
        simopt_class(abbr)
    except ValueError as exc:
        # the names are listed only for an unknown one (a missing extra has none to list)
        hint = (did_you_mean(abbr, continuous_problems() + declared_problems())
                if str(exc).startswith("unknown SimOpt problem") else "")
        if not hint:
            raise
        raise ValueError(str(exc).replace(f"{abbr!r};", f"{abbr!r}{hint};", 1)) from None

    def __init__(self, **factors):
        SimOptProblem.__init__(self, abbr, **factors)

    return type(f"SimOpt[{abbr}]", (SimOptProblem,), {"__init__": __init__,
                                                       "__module__": __name__})



# -- SimOpt's problems as acfs problems ----------------------------------------------------------
class SimOptProblem:
    """A SimOpt problem in the problem protocol (DESIGN.md sections 1 and 8).

    Parameters
    ----------
    abbr : str
        SimOpt's abbreviation (``"CNTNEWS-1"``; :func:`continuous_problems` and
        :func:`declared_problems` list them).
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

    Where SimOpt states stochastic constraints (CHESS-1, CONTAM-1, CONTAM-2, FACSIZE-1,
    SAN-2), the m columns after the loss and its gradient are their left-hand sides in that
    replication, SimOpt's own values (its ``stoch_constraints``), and
    ``stochastic_constraints`` declares each as SimOpt states it, E[g_j] <= 0;
    ``constraint_values(W, x)`` reads those columns. Where SimOpt gives their IPA gradients
    (SAN-2), the last m dim_x columns carry them and ``constraint_gradient(W, x)`` reads them. Where
    SimOpt's decisions are discrete or mixed, ``integrality`` marks the integer coordinates
    (all of a discrete problem; IRONORE-1's ``inven_stop``), and a whole value there reaches
    SimOpt as an ``int``, as SimOpt's own solutions carry it.

    Attributes beyond the protocol: ``abbr``; ``minmax`` (+1 where SimOpt maximises) and
    ``sign`` (-minmax: loss = sign * objective); ``default_budget`` (SimOpt's budget, in
    replications); ``optimal_x`` and ``optimal_value`` (SimOpt's known optimal solution and
    value, in SimOpt's own sign, None where SimOpt codes none: no exact J is claimed);
    ``replications`` (replications simulated by this object).

    The decision set is the closure of SimOpt's: acfs's sets are closed, so a strict
    ``x > 0`` (CNTNEWS-1, DYNAMNEWS-1, CHESS-1) becomes ``x >= 0``. CNTNEWS-1's initial
    solution ``x = 0`` lies on that boundary: it is kept as SimOpt states it (SimOpt's solvers
    start there too) and is a well-defined decision - nothing ordered, every replication's
    profit exactly 0. At CHESS-1's ``x = 0`` no pair is matched and SimOpt's objective is NaN,
    which the protocol's checks report as one line.
    """

    vectorized = True

    def __init__(self, abbr: str, *, model_factors: Mapping[str, Any] | None = None,
                 gradients: bool = True, **factors: Any):
        so = require(f"{PREFIX}{abbr}")
        cls = simopt_class(abbr)
        if gradients and abbr in _CONSTRAINT_GRADIENTS:
            cls = _CONSTRAINT_GRADIENTS[abbr]()
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
        names = _STOCHASTIC.get(abbr, lambda _: [])(p)
        self.n_constraints = len(names)
        #: Whether rows carry the constraints' IPA gradients (after their values).
        self.has_constraint_gradients = bool(self.has_gradients and names
                                             and abbr in _CONSTRAINT_GRADIENTS)
        self._g0 = 1 + (self.dim_x if self.has_gradients else 0)
        self.dim_w = self._g0 + self.n_constraints * (
            1 + (self.dim_x if self.has_constraint_gradients else 0))
        if self.has_gradients:
            self.gradient = self._gradient
        if names:
            #: SimOpt's stochastic constraints, each E[g_j] <= 0 as SimOpt states it.
            self.stochastic_constraints = [{"name": name} for name in names]
            self.constraint_values = self._constraint_values
        if self.has_constraint_gradients:
            self.constraint_gradient = self._constraint_gradient
        self._integers = _integers(p, so)
        if self._integers:
            flags = np.zeros(self.dim_x, dtype=int)
            flags[list(self._integers)] = 1
            #: SimOpt's integer coordinates (scipy's convention: 1 where whole).
            self.integrality = flags
        self.bounds = [(float(lo), float(hi))
                       for lo, hi in zip(p.lower_bounds, p.upper_bounds, strict=True)]
        for name, value in _CONSTRAINTS.get(abbr, lambda _: {})(p).items():
            setattr(self, name, value)
        self.x0 = np.asarray(p.factors["initial_solution"], dtype=float)
        self.default_budget = int(p.factors["budget"])
        self.optimal_x = (None if p.optimal_solution is None
                          else np.asarray(p.optimal_solution, dtype=float))
        self.optimal_value = None if p.optimal_value is None else float(p.optimal_value)
        carried = {"problem": p.factors, "model": model_factors, "gradients": self.has_gradients}
        if self.has_constraint_gradients:  # other problems' fingerprints stay as they were
            carried["constraint_gradients"] = True
        factors_text = json.dumps(carried, sort_keys=True, default=str)
        digest = hashlib.sha256(factors_text.encode()).hexdigest()[:12]
        #: The fingerprint of this problem's code (acfs_cli.core.fingerprint): SimOpt's
        #: release, the adapter's version and every factor.
        self.version = (f"simoptlib {so.release}, adapter {ADAPTER_VERSION}, {abbr} "
                        f"factors {digest}")
        self._n_rngs = int(p.model.n_rngs)
        self.replications = 0

    def __repr__(self) -> str:
        declared = (f", {len(self._integers)} integer" if self._integers else "") + (
            f", {self.n_constraints} stochastic constraint(s)" if self.n_constraints else "")
        return (f"SimOptProblem({self.abbr!r}: dim_x={self.dim_x}, dim_w={self.dim_w}"
                f"{declared}, {'maximise' if self.minmax > 0 else 'minimise'} in SimOpt)")

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
        of W: the loss, then its IPA gradient where carried, then the stochastic constraints'
        left-hand sides where SimOpt states some."""
        so = self._so
        rngs = [so.MRG32k3a(s_ss_sss_index=[int(stream), i, 0]) for i in range(self._n_rngs)]
        solution = so.Solution(self.simopt_x(x), self._problem)
        solution.attach_rngs(rngs, copy=False)
        W = np.empty((n, self.dim_w))
        if n:
            self._problem.simulate(solution, n)
            W[:, 0] = self.sign * solution.objectives[:n, 0]
            if self.has_gradients:
                W[:, 1:1 + self.dim_x] = self.sign * solution.objectives_gradients[:n, 0, :]
            if self.n_constraints:
                g0, m = self._g0, self.n_constraints
                W[:, g0:g0 + m] = solution.stoch_constraints[:n]
                if self.has_constraint_gradients:
                    W[:, g0 + m:] = solution.stoch_constraints_gradients[:n].reshape(n, -1)
        self.replications += n
        return W

    def simopt_x(self, x) -> tuple:
        """The decision as SimOpt's solution takes it: floats, and an ``int`` on an integer
        coordinate that holds a whole number (a fractional value there is passed on as it
        is, as SimOpt would simulate it)."""
        x = np.asarray(x, dtype=float)
        if not self._integers:
            return tuple(float(v) for v in x)
        out = [float(v) for v in x]
        for j in self._integers:
            if out[j] == round(out[j]):
                out[j] = int(out[j])
        return tuple(out)

    def cost(self, W, x) -> np.ndarray:
        """The loss of each row, ``W[..., 0]``, broadcast against the decisions' leading axes
        (the vectorised form of the protocol)."""
        W = np.asarray(W, dtype=float)
        x = np.asarray(x, dtype=float)
        lead = np.broadcast_shapes(W.shape[:-2], x.shape[:-1])
        return np.array(np.broadcast_to(W[..., 0], (*lead, W.shape[-2])))

    def _gradient(self, W, x) -> np.ndarray:
        """The IPA gradient of each row's loss at the decision the rows were drawn at,
        ``W[..., 1:1 + dim_x]`` (..., n, dim_x). No acfs method reads it yet: a pathwise
        method could use it in place of a (2 d + 1)-point finite-difference stencil."""
        return np.asarray(W, dtype=float)[..., 1:1 + self.dim_x]

    def _constraint_values(self, W, x) -> np.ndarray:
        """The stochastic constraints' left-hand sides g (n, m) of rows W (n, dim_w), SimOpt's
        own values in each replication, the m columns after the loss and its gradient (the
        decision acts through the simulation only)."""
        return np.array(np.asarray(W, dtype=float)[..., self._g0:self._g0 + self.n_constraints])

    def _constraint_gradient(self, W, x) -> np.ndarray:
        """Their IPA gradients (n, m, dim_x) at the decision the rows were drawn at, SimOpt's
        own in each replication: the last m dim_x columns."""
        W = np.asarray(W, dtype=float)
        start = self._g0 + self.n_constraints
        return W[..., start:].reshape(*W.shape[:-1], self.n_constraints, self.dim_x).copy()


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


