"""Optimise your own simulator: ``minimize(problem, lam, alpha, budget, method, seed)``.

A *problem* is any object with

* ``dim_x``, ``dim_w`` - the sizes of a decision x and of a scenario W;
* ``transform(x, z)`` - scenarios (n, dim_w) at decision x (dim_x,) from supplied standard
  normals z (n, dim_w) (preferred: common random numbers, antithetic pairs and the pathwise
  gradient need it), **or** ``sample(x, n, rng)`` - n scenarios drawn with the given
  ``numpy.random.Generator``;
* ``cost(W, x)`` - the cost of each scenario row at one decision: W (n, dim_w), x (dim_x,)
  -> (n,);
* the decision set: either ``project(x)`` (the Euclidean projection onto X), or ``bounds``
  (a sequence of dim_x ``(low, high)`` pairs) with optional linear constraints ``A x <= b``
  (attributes ``A`` (k, dim_x) and ``b`` (k,)).

Optional: ``design(u)`` mapping the unit cube [0, 1]^dim_x onto X (default: the box point
``low + u * (high - low)`` projected onto X, so designs pile up on the faces of X when the
linear constraints cut much of the box), ``is_feasible(x, tol)``, ``name``, and
``vectorized = True`` when ``cost``, ``project`` and ``transform_batch(X, Z)`` (if present)
accept batches the way the benchmarks do (W (m, n, dim_w) with x (m, dim_x); W (n, dim_w) with
x (k, dim_x)); without it the adapter calls them one decision at a time.

The problem's sampler is only ever called through the budgeted oracle: every scenario the
method sees is counted, exactly as in the paper's experiments. The returned :class:`Solution`
carries J, E[C] and CVaR of x* estimated on ``n_eval`` (default 20,000) fresh scenarios drawn
*after* the search and *not* counted in ``draws_used``.

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

    sol = minimize(Newsvendor(), lam=0.5, seed=1)  # 260,000 draws, about 2 s
    print(sol.x, sol.J, sol.draws_used)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import linprog

from acfs_cli.problems.feasible import FEAS_TOL
from acfs_cli.risk import influence, spectral_risk


@dataclass(frozen=True)
class Solution:
    """The result of :func:`minimize`.

    ``J``, ``EC`` and ``CVaR`` are estimated at ``x`` on ``n_eval`` fresh scenarios drawn
    after the search, outside the budget (``J_se`` is their asymptotic standard error);
    ``draws_used`` counts only the search's draws. ``phases`` maps each phase of the method
    to its draws, oracle calls and wall time (seconds).
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
    value: float = float("nan")  # the method's own estimate of J(x*), on its own draws
    stopped_by_budget: bool = False
    info: dict[str, Any] = field(default_factory=dict, repr=False)


# -- feasible sets -----------------------------------------------------------------------------
class FeasibleSet:
    """X = {x : low <= x <= high, A x <= b}: projection, feasibility and a design map.

    The projection is Dykstra's alternating projections onto the box and each half-space,
    vectorised over a batch of points, which converges to the exact Euclidean projection; a
    final radial step toward a strictly interior point (the Chebyshev centre, by ``linprog``)
    removes the residual violation, so every returned point satisfies the constraints to
    rounding while lying within about the Dykstra tolerance of the exact projection.
    """

    def __init__(self, bounds, A=None, b=None, *, tol: float = 1e-12, max_iter: int = 5000):
        B = np.asarray(bounds, dtype=float)
        if B.ndim != 2 or B.shape[1] != 2:
            raise ValueError(f"bounds must be a sequence of (low, high) pairs, got shape {B.shape}")
        if not np.all(np.isfinite(B)) or np.any(B[:, 0] > B[:, 1]):
            raise ValueError("bounds must be finite with low <= high")
        self.low, self.high = B[:, 0].copy(), B[:, 1].copy()
        self.dim = len(B)
        if (A is None) != (b is None):
            raise ValueError("give both A and b for the linear constraints A x <= b, or neither")
        if A is None:
            self.A, self.b = np.zeros((0, self.dim)), np.zeros(0)
        else:
            self.A = np.atleast_2d(np.asarray(A, dtype=float))
            self.b = np.atleast_1d(np.asarray(b, dtype=float))
            if self.A.shape != (len(self.b), self.dim):
                raise ValueError(f"A must be (k, {self.dim}) and b (k,), got {self.A.shape} "
                                 f"and {self.b.shape}")
        self.tol, self.max_iter = tol, max_iter
        self._norm2 = np.einsum("ij,ij->i", self.A, self.A)
        self.centre = self._interior_point()

    def _interior_point(self) -> np.ndarray:
        """Chebyshev centre of X: the centre of the largest ball inside the box and half-spaces."""
        if len(self.b) == 0:
            return 0.5 * (self.low + self.high)
        d = self.dim
        norms = np.sqrt(self._norm2)
        # variables (x, r): maximise r s.t. a_i x + r ||a_i|| <= b_i, low + r <= x <= high - r
        A_ub = np.vstack([
            np.hstack([self.A, norms[:, None]]),
            np.hstack([-np.eye(d), np.ones((d, 1))]),
            np.hstack([np.eye(d), np.ones((d, 1))]),
        ])
        b_ub = np.concatenate([self.b, -self.low, self.high])
        res = linprog(np.r_[np.zeros(d), -1.0], A_ub=A_ub, b_ub=b_ub,
                      bounds=[(None, None)] * d + [(0, None)], method="highs")
        if res.status != 0:
            raise ValueError("the constraints low <= x <= high, A x <= b admit no point")
        return res.x[:d]

    def is_feasible(self, x, tol: float = FEAS_TOL) -> np.ndarray:
        """Boolean over the leading axes of ``x``: within ``tol`` of every constraint?"""
        x = np.asarray(x, dtype=float)
        ok = np.all((x >= self.low - tol) & (x <= self.high + tol), axis=-1)
        if len(self.b):
            ok &= np.all(x @ self.A.T <= self.b + tol, axis=-1)
        return ok

    def project(self, x) -> np.ndarray:
        """Euclidean projection onto X, vectorised over leading axes."""
        x = np.asarray(x, dtype=float)
        if x.shape[-1] != self.dim:
            raise ValueError(f"x must have a last dimension of {self.dim}, got {x.shape}")
        shape = x.shape
        X = x.reshape(-1, self.dim)
        if len(self.b) == 0:
            return np.clip(X, self.low, self.high).reshape(shape)
        out = np.clip(X, self.low, self.high)
        todo = ~self.is_feasible(out, 0.0)  # a clipped point inside the half-spaces is exact
        if np.any(todo):
            out[todo] = self._dykstra(X[todo])
        return out.reshape(shape)

    def _dykstra(self, X: np.ndarray) -> np.ndarray:
        k = len(self.b)
        y = X.copy()
        corr = np.zeros((k + 1, *X.shape))
        for _ in range(self.max_iter):
            prev = y
            t = y + corr[0]
            y = np.clip(t, self.low, self.high)
            corr[0] = t - y
            for i in range(k):
                t = y + corr[i + 1]
                excess = np.maximum(t @ self.A[i] - self.b[i], 0.0) / self._norm2[i]
                y = t - excess[:, None] * self.A[i]
                corr[i + 1] = t - y
            if np.max(np.abs(y - prev)) <= self.tol:
                break
        return self._pull_inside(y)

    def _pull_inside(self, Y: np.ndarray) -> np.ndarray:
        """Move each point toward the interior centre just enough to satisfy every constraint."""
        c = self.centre
        D = Y - c
        t = np.ones(len(Y))
        # half-spaces: a (c + t D) <= b  ->  t <= (b - a c) / (a D) where a D > 0
        aD = D @ self.A.T
        slack = self.b - self.A @ c
        with np.errstate(divide="ignore", invalid="ignore"):
            lim = np.where(aD > 0, slack / aD, np.inf)
            up = np.where(D > 0, (self.high - c) / D, np.inf)
            dn = np.where(D < 0, (self.low - c) / D, np.inf)
        t = np.minimum.reduce([t, lim.min(axis=1), up.min(axis=1), dn.min(axis=1)])
        return c + np.clip(t, 0.0, 1.0)[:, None] * D

    def design(self, u) -> np.ndarray:
        """Unit-cube points to X: the box point ``low + u (high - low)``, projected onto X."""
        u = np.asarray(u, dtype=float)
        return self.project(self.low + u * (self.high - self.low))


def support_box(project: Callable[[np.ndarray], np.ndarray], dim: int,
                far: float = 1e4) -> tuple[np.ndarray, np.ndarray]:
    """The bounding box of a compact convex X from its projection (support points along +-e_j)."""
    P = np.asarray(project(far * np.concatenate([np.eye(dim), -np.eye(dim)])), dtype=float)
    return np.diag(P[dim:]).copy(), np.diag(P[:dim]).copy()


# -- the adapter -------------------------------------------------------------------------------
def _rowwise(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """Apply a one-decision function to every row of a batch of decisions."""

    def batched(x):
        x = np.asarray(x, dtype=float)
        if x.ndim == 1:
            return np.asarray(fn(x), dtype=float)
        flat = x.reshape(-1, x.shape[-1])
        return np.stack([np.asarray(fn(r), dtype=float) for r in flat]).reshape(x.shape)

    return batched


class ProblemAdapter:
    """A user problem completed to the project's problem protocol (see the module docstring).

    Only the sampling methods the user gave are exposed (``transform`` and/or ``sample``), so
    the oracle knows whether it can take supplied normals.
    """

    def __init__(self, problem):
        self.name = str(getattr(problem, "name", type(problem).__name__))
        self.dim_x = int(problem.dim_x)
        self.dim_w = int(problem.dim_w)
        vec = bool(getattr(problem, "vectorized", False))
        has_t = callable(getattr(problem, "transform", None))
        has_s = callable(getattr(problem, "sample", None))
        if not (has_t or has_s):
            raise TypeError("a problem needs transform(x, z) or sample(x, n, rng)")
        if not callable(getattr(problem, "cost", None)):
            raise TypeError("a problem needs cost(W, x)")
        if has_t:
            self.transform = problem.transform
            tb = getattr(problem, "transform_batch", None)
            if vec and callable(tb):
                self.transform_batch = tb
        if has_s:
            self.sample = problem.sample
        self._cost = problem.cost
        self._vectorized = vec

        project = getattr(problem, "project", None)
        bounds = getattr(problem, "bounds", None)
        self.feasible_set: FeasibleSet | None = None
        if callable(project):
            self.project = project if vec else _rowwise(project)
            lo, hi = support_box(self.project, self.dim_x)
            self.bounds = list(zip(lo.tolist(), hi.tolist(), strict=True))
        elif bounds is not None:
            fs = FeasibleSet(bounds, getattr(problem, "A", None), getattr(problem, "b", None))
            if fs.dim != self.dim_x:
                raise ValueError(f"bounds give {fs.dim} coordinates, dim_x is {self.dim_x}")
            self.feasible_set = fs
            self.project = fs.project
            self.bounds = list(zip(fs.low.tolist(), fs.high.tolist(), strict=True))
        else:
            raise TypeError("a problem needs project(x) or bounds (+ optional A, b)")

        user_feasible = getattr(problem, "is_feasible", None)
        if callable(user_feasible):
            self.is_feasible = user_feasible
        elif self.feasible_set is not None:
            self.is_feasible = self.feasible_set.is_feasible
        else:
            self.is_feasible = self._feasible_by_projection

        user_design = getattr(problem, "design", None)
        if callable(user_design):
            self.design = user_design
        else:
            lo = np.array([b[0] for b in self.bounds])
            hi = np.array([b[1] for b in self.bounds])
            self.design = lambda u: self.project(lo + np.asarray(u, dtype=float) * (hi - lo))

    def _feasible_by_projection(self, x, tol: float = FEAS_TOL) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return np.max(np.abs(self.project(x) - x), axis=-1) <= tol

    def cost(self, W, x) -> np.ndarray:
        """Costs with the benchmarks' batching rules, one user call per decision."""
        if self._vectorized:
            return self._cost(W, x)
        W = np.asarray(W, dtype=float)
        x = np.asarray(x, dtype=float)
        if x.ndim == 1:
            if W.ndim == 2:
                return np.asarray(self._cost(W, x), dtype=float)
            # W (..., n, d_W) scenario sets, one decision for all
            flat = W.reshape(-1, *W.shape[-2:])
            return np.stack([self._cost(w, x) for w in flat]).reshape(W.shape[:-1])
        if W.ndim == 2:  # k decisions re-costed on one W
            flat = x.reshape(-1, x.shape[-1])
            return np.stack([self._cost(W, xi) for xi in flat]).reshape(*x.shape[:-1], len(W))
        if W.shape[:-2] != x.shape[:-1]:
            raise ValueError(f"W {W.shape} and x {x.shape} disagree on the decision batch")
        Wf = W.reshape(-1, *W.shape[-2:])
        xf = x.reshape(-1, x.shape[-1])
        out = np.stack([self._cost(w, xi) for w, xi in zip(Wf, xf, strict=True)])
        return out.reshape(W.shape[:-1])


def as_problem(problem):
    """``problem`` itself when it already follows the full protocol (the benchmarks), else an
    :class:`ProblemAdapter` around it."""
    from acfs_cli.problems.base import GaussianCopulaProblem

    if isinstance(problem, GaussianCopulaProblem | ProblemAdapter):
        return problem
    return ProblemAdapter(problem)


# -- methods -----------------------------------------------------------------------------------
def get_method(name: str):
    """A method by name: the ACFS family directly, any other from the registry.

    The registry imports every method module (scikit-optimize among them), so it is loaded
    only for a competitor's name; without it (a partial installation) the ACFS family is all
    there is.
    """
    from acfs_cli.methods.acfs import ACFS_METHODS

    table = {m.name: m for m in ACFS_METHODS}
    if name in table:
        return table[name]
    try:
        from acfs_cli.registry import get_method as registry_get
    except ImportError:
        raise ValueError(f"unknown method {name!r}; available: {', '.join(table)}") from None
    return registry_get(name)


def estimate(problem, x, lam: float, alpha: float, n: int, rng: np.random.Generator,
             chunk: int = 100_000) -> dict[str, float]:
    """J, EC, CVaR and the SE of J at ``x`` from ``n`` fresh scenarios (not budgeted)."""
    x = np.asarray(x, dtype=float)
    costs = np.empty(n)
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        if getattr(problem, "transform", None) is not None:
            W = problem.transform(x, rng.standard_normal((m, problem.dim_w)))
        else:
            W = problem.sample(x, m, rng)
        costs[start:start + m] = problem.cost(W, x)
    J, ec, cvar = spectral_risk(costs, lam, alpha)
    se = float(influence(costs, lam, alpha).std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan
    return {"J": J, "EC": ec, "CVaR": cvar, "J_se": se}


def minimize(
    problem,
    lam: float = 0.7,
    alpha: float = 0.95,
    budget: int = 260_000,
    method: str | None = None,
    seed: int = 0,
    *,
    n_eval: int = 20_000,
    **settings: Any,
) -> Solution:
    """Minimise ``J(x) = E[C(W, x)] + lam * CVaR_alpha(C(W, x))``, ``W ~ P_x``, over X.

    Parameters
    ----------
    problem
        Your simulator (see the module docstring for the protocol) or a benchmark
        (``acfs_cli.problems.get_problem("dgp1")``).
    lam, alpha
        Weight of the CVaR and its level (paper eq. (1)).
    budget
        Hard cap on scenarios drawn from ``problem`` during the search (paper: 260,000).
    method
        ``"acfs-plus"`` (the default: the best measured under the budget, REPRODUCTION.md;
        for a problem with ``sample`` only, which cannot give common random numbers, the
        default is ``"acfs"``),
        ``"acfs"`` (paper-faithful), an ablation variant (``"acfs-noav"``, ``"acfs-nocem"``,
        ``"acfs-norerank"``, ``"acfs-noaug"``) or a competitor (``"saa-ps"``, ``"gp-bo"``,
        ``"cem-so"``, ``"sgd-cvar"``, ``"kde-so"``).
    seed
        Seed of every random stream (search and final estimate); same seed, same answer.
    n_eval
        Fresh scenarios for the reported J, EC and CVaR of x* (outside the budget).
    **settings
        Method settings, for example ``n_a=600`` or ``gradient="pathwise"`` (unknown names
        are errors; ``acfs_cli.methods.acfs.ACFSSettings`` documents ACFS's).
    """
    from acfs_cli.methods.base import Task
    from acfs_cli.oracle import Oracle
    from acfs_cli.seeding import stream

    prob = as_problem(problem)
    if method is None:
        method = "acfs-plus" if getattr(prob, "transform", None) is not None else "acfs"
    m = get_method(method)
    task = Task.from_problem(prob, lam, alpha)
    oracle = Oracle(prob, budget, stream(seed, "api", "oracle", method))
    result = m(task, oracle, stream(seed, "api", "method", method), settings)
    est = estimate(prob, result.x, task.lam, task.alpha, int(n_eval),
                   stream(seed, "api", "evaluation"))
    return Solution(
        x=np.asarray(result.x, dtype=float).copy(),
        J=float(est["J"]), EC=float(est["EC"]), CVaR=float(est["CVaR"]),
        draws_used=int(result.oracle_draws),
        phases=_phases(result),
        method=method,
        J_se=float(est["J_se"]),
        n_eval=int(n_eval),
        value=float(result.value),
        stopped_by_budget=bool(result.stopped_by_budget),
        info=dict(result.info),
    )


def _phases(result) -> dict[str, dict[str, Any]]:
    """Per phase: draws and oracle calls (the oracle's account) and wall time when recorded."""
    out: dict[str, dict[str, Any]] = {}
    timed: Mapping[str, Any] = result.info.get("phases", {}) if result.info else {}
    for name, rec in timed.items():
        out[name] = {"draws": int(rec.get("draws", 0)), "calls": 0,
                     "time_s": float(rec.get("time_s", 0.0))}
    for name, acc in result.account.items():
        row = out.setdefault(name, {"draws": 0, "calls": 0, "time_s": float("nan")})
        row["draws"], row["calls"] = int(acc["draws"]), int(acc["calls"])
    return out
