"""SGD-CVaR: Adam on finite-difference gradients of the spectral risk (paper Section 3).

The paper's description: Adam (Kingma & Ba 2015) with a decaying learning rate and
finite-difference gradients on mini-batches of 60 scenarios; two 80-iteration warm-start
chains, a 160-iteration fine search from the better one, then an L-BFGS-B polish.

Choices the paper leaves open (SPEC section 4), made here and exposed as settings:

* **Objective.** Each iteration estimates J = E[C] + lam * CVaR_alpha(C) with the project's
  spectral-risk estimator (``task.risk``) on the mini-batch, rather than carrying the
  Rockafellar-Uryasev threshold tau as an extra variable: the empirical alpha-quantile is the
  exact RU minimiser on each sample, so by the envelope theorem both give the same gradient
  in x, and no step size for tau has to be tuned.
* **Gradient.** Common random numbers: one mini-batch of 60 standard normals is pushed
  through the copula at x and at the 12 points of a finite-difference stencil (x +- h e_j,
  one-sided at the faces of X, :func:`fd_stencil`), so the differences measure how both the
  cost *and* P_x move with x (the decision-dependent part a cached-W gradient would miss).
  Every perturbed decision is a new, counted draw: an iteration is one oracle call of
  13 x 60 = 780 draws (the centre gives the iterate's own estimate and the one-sided
  stencils).
* **Steps.** Adam (beta1 0.9, beta2 0.999) with learning rate lr0 / (1 + decay * t),
  projected onto X after every step. Adam normalises each coordinate by its running RMS, so
  the step length is set by the learning rate in units of x, whatever the scale of J. On the
  face x_1 + ... + x_5 = 0.85 Adam is fed the slope along the face (``task.tangent``, on any
  X with a projection; the benchmarks' closed form is
  :func:`acfs_cli.problems.feasible.sum_face_tangent`): fed the raw gradient, whose common
  outward part dominates there, its normalised steps are nearly equal in every allocation
  and the projection cancels them, so on DGP1 (optimum on that face) the chains stalled at
  whatever allocation they reached the face with (measured: median true J 269k without
  this, 171k with it, 10 replications).
* **Chain output.** The Polyak-Ruppert average of the last ``tail_average`` share of the
  iterates (X is convex, so the average is feasible), which damps the finite-difference noise
  of the last steps; the two warm outputs are compared on ``n_select`` common normals.
* **Polish.** The shared L-BFGS-B polish (:mod:`acfs_cli.methods.polish`, through
  :func:`direct_polish`) on a fixed set of ``polish_n`` normals, so its finite differences
  are CRN differences; it runs until ``polish_maxiter`` or the cap, whichever comes first.
  The chains leave it about 9,400 draws, three evaluations of 13 x 240: on so small a sample
  the polish's best point is often the sample's luck rather than a better decision. On DGP2,
  where J is flat along x_4, the unguarded polish took the median true J of 20 replications
  from 313k (chain outputs) to 321k; by default it therefore keeps the chain's output unless
  the polished point beats it by ``polish_guard`` = 2 standard errors of the paired
  difference (median 313k; 2 of 20 replications still move to the vertex x = 0, 11 % worse,
  on samples light in the upper tail).

Budget: 2 x 80 + 160 = 320 iterations x 780 = 249,600 draws, 2 x 500 to pick the warm
chain, and the polish takes the rest of the 260,000 cap: a run ends within one polish
evaluation of the cap (259,960 draws), as the paper's median of 259,860 (Table "budget").

The finite-difference machinery (:func:`fd_stencil`, :func:`fd_value_grad`,
:class:`CRNObjective`, :func:`direct_polish`) is shared with the polish steps of GP-BO and
CEM-SO.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pydantic import Field

from acfs_cli.methods.base import Method, MethodResult, Settings, Task
from acfs_cli.methods.polish import PolishResult, polish
from acfs_cli.oracle import BudgetExhausted, Oracle, antithetic_normals
from acfs_cli.risk import influence

#: Step shrink factors tried, in order, when x +- h e_j leaves X (a point close to a face).
_SHRINK = (1.0, 0.25, 0.0625)


# ---------------------------------------------------------------------------------------------
# Finite differences with common random numbers, feasible at the faces of X
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stencil:
    """Where to difference: direction ``V[j]`` with signed offsets ``d1[j]``, ``d2[j]``.

    ``V`` is the identity except for allocations that cannot move along their own axis (see
    :func:`fd_stencil`); a row with ``d1 = d2 = 0`` has no feasible move and a zero slope.
    """

    V: np.ndarray  # (d, d) directions, one per row
    d1: np.ndarray  # (d,)
    d2: np.ndarray  # (d,)

    def points(self, x: np.ndarray) -> np.ndarray:
        """The 2 d + 1 decisions: centre, then x + d1_j V_j, then x + d2_j V_j."""
        return np.vstack([x[None, :], x + self.d1[:, None] * self.V, x + self.d2[:, None] * self.V])

    def gradient(self, f: np.ndarray) -> np.ndarray:
        """The gradient from the values ``f`` at :meth:`points`.

        Per direction, the slope at x of the parabola through (0, f0), (d1, f1), (d2, f2):
        [d2^2 (f1 - f0) - d1^2 (f2 - f0)] / (d1 d2 (d2 - d1)) - the central difference for
        (h, -h), the second-order one-sided difference for (h, 2h). The gradient then solves
        V g = slopes.
        """
        d = self.d1.size
        f0, f1, f2 = f[0], f[1 : d + 1], f[d + 1 :]
        denom = self.d1 * self.d2 * (self.d2 - self.d1)
        valid = denom != 0
        num = self.d2**2 * (f1 - f0) - self.d1**2 * (f2 - f0)
        slopes = np.where(valid, num / np.where(valid, denom, 1.0), 0.0)
        return np.linalg.solve(self.V, slopes)


def _first_feasible(task: Task, x: np.ndarray, V: np.ndarray, h: float, patterns: np.ndarray):
    """Per row of V, the first (scale, pattern) whose two points lie in X: (found, d1, d2)."""
    offs = (np.asarray(_SHRINK)[:, None, None] * h) * patterns[None, :, :]  # (S, P, 2)
    pts = x + offs[..., None, None] * V  # (S, P, 2, rows, d)
    ok = task.is_feasible(pts).all(axis=2)  # (S, P, rows)
    rows = V.shape[0]
    d1, d2, found = np.zeros(rows), np.zeros(rows), np.zeros(rows, dtype=bool)
    for si in range(offs.shape[0]):
        for pi in range(offs.shape[1]):
            take = ok[si, pi] & ~found
            d1[take], d2[take] = offs[si, pi, 0], offs[si, pi, 1]
            found |= take
    return found, d1, d2


def fd_stencil(task: Task, x: np.ndarray, h: float) -> Stencil:
    """A feasible finite-difference stencil at ``x`` with step ``h``.

    Along each axis: central ``(+h, -h)`` when both points lie in X; otherwise the one-sided
    three-point ``(+h, +2h)`` or ``(-h, -2h)``; if neither fits, the same with h / 4 and
    h / 16. A coordinate x_j that cannot move along its axis at all (x_j = 0 on the face
    x_1 + ... + x_5 = 0.85, where DGP1's optimum lies) is differenced along the transfer
    e_j - mean of e_k over the coordinates k that can give way (:func:`_transfers`): the
    slope along that direction plus their mean partial is the partial in x_j of the smooth
    J, which is what a quasi-Newton polish or a projected step needs to decide whether x_j
    should leave its bound.
    Every point of the stencil lies in X, so the oracle never sees an infeasible decision.
    """
    x = np.asarray(x, dtype=float)
    d = x.size
    axis = np.array([[1.0, -1.0], [1.0, 2.0], [-1.0, -2.0]])  # central, forward, backward
    V = np.eye(d)
    found, d1, d2 = _first_feasible(task, x, V, h, axis)
    stuck, T = _transfers(task, x, found, h)
    if stuck.size:
        ok, t1, t2 = _first_feasible(task, x, T, h, np.array([[1.0, 2.0]]))
        V[stuck[ok]] = T[ok]
        d1[stuck[ok]], d2[stuck[ok]] = t1[ok], t2[ok]
    return Stencil(V=V, d1=d1, d2=d2)


def _transfers(task: Task, x: np.ndarray, found: np.ndarray, h: float):
    """The stuck coordinates and their transfer directions e_j - mean of the donors' e_k.

    With the problem's ``coupled`` coordinates (the benchmarks' x_1..x_5), the donors are the
    coupled coordinates that can move and lie above their lower bound. Without it, the
    donors of x_j are the coordinates that the projection of x + h e_j moves: the ones a
    constraint makes give way when x_j grows.
    """
    d = x.size
    if task.coupled is not None:
        coupled = np.array(task.coupled, dtype=int)
        stuck = coupled[~found[coupled]]
        if not stuck.size:
            return stuck, np.empty((0, d))
        lower = task.box()[0]
        donors = coupled[found[coupled] & (x[coupled] > lower[coupled])]
        if not donors.size:
            return donors, np.empty((0, d))
        T = np.eye(d)[stuck]
        T[:, donors] -= 1.0 / donors.size
        return stuck, T
    stuck = np.flatnonzero(~found)
    rows, kept = [], []
    for j in stuck:
        step = x + h * np.eye(d)[j]
        moved = np.abs(np.asarray(task.project(step)) - step) > 1e-12
        moved[j] = False
        donors = np.flatnonzero(moved & found)
        if donors.size:
            t = np.eye(d)[j]
            t[donors] -= 1.0 / donors.size
            rows.append(t)
            kept.append(j)
    return np.array(kept, dtype=int), np.array(rows).reshape(-1, d)


def fd_value_grad(
    task: Task, oracle: Oracle, x: np.ndarray, z: np.ndarray, h: float
) -> tuple[float, np.ndarray]:
    """Estimated J at ``x`` and its CRN finite-difference gradient: one oracle call.

    The same normals ``z`` (n, d_W) are pushed through the copula at x and at the 2 d_x
    stencil points (:func:`fd_stencil`), so 13 n draws are charged (for d_x = 6) and the
    differences are common-random-number differences of a smooth function of x.
    """
    f, g, _ = _fd_eval(task, oracle, x, z, h)
    return f, g


def _fd_eval(task: Task, oracle: Oracle, x: np.ndarray, z: np.ndarray, h: float):
    """:func:`fd_value_grad` plus the n costs at x itself."""
    st = fd_stencil(task, x, h)
    P = st.points(x)
    W = oracle.draw_batch(P, z.shape[0], z=np.broadcast_to(z, (P.shape[0], *z.shape)))
    C = task.cost(W, P)
    f = np.asarray(task.risk(C)[0], dtype=float)
    return float(f[0]), st.gradient(f), np.asarray(C[0], dtype=float)


def common_normals(
    n: int, dim: int, rng: np.random.Generator, antithetic: bool = False
) -> np.ndarray:
    """``n`` standard-normal rows, as antithetic pairs when asked."""
    return antithetic_normals(n, dim, rng) if antithetic else rng.standard_normal((n, dim))


class CRNObjective:
    """J estimated on one fixed set of normals, as a function of x (sample-average approximation).

    Each evaluation charges the oracle for the scenarios at x and at the 2 d_x difference
    points (one call of (2 d_x + 1) n draws) and caches the gradient, which the polish asks
    for at the same point right after the value. ``max_draws`` caps the draws this objective
    may spend (a phase allowance): a request past it raises
    :class:`~acfs_cli.oracle.BudgetExhausted`, which the polish turns into a clean stop. Every
    new best value is recorded as the oracle's incumbent (the first one replacing whatever
    an earlier phase recorded on its own, noisier estimates).
    """

    def __init__(
        self,
        task: Task,
        oracle: Oracle,
        z: np.ndarray,
        *,
        h: float,
        max_draws: int | None = None,
    ):
        self.task, self.oracle, self.z, self.h = task, oracle, z, h
        self.max_draws = max_draws
        self.used = 0
        self.best_x: np.ndarray | None = None
        self.best_value = np.inf
        self.best_costs: np.ndarray | None = None
        self.allowance_hit = False
        self._cache: tuple[np.ndarray, float, np.ndarray, np.ndarray] | None = None

    def _charge(self, n: int) -> None:
        if self.max_draws is not None and self.used + n > self.max_draws:
            self.allowance_hit = True
            raise BudgetExhausted(
                f"the phase allowance of {self.max_draws} draws is spent ({self.used} used)"
            )

    def _note(self, x: np.ndarray, value: float, costs: np.ndarray) -> None:
        if value < self.best_value:
            first = self.best_x is None
            self.best_x, self.best_value, self.best_costs = x.copy(), value, costs
            self.oracle.record_best(x, value, replace=first)

    def costs(self, x: np.ndarray) -> np.ndarray:
        """The n costs behind the last evaluation, which must have been at ``x``."""
        if self._cache is None or not np.array_equal(self._cache[0], x):
            self.value(x)
        return self._cache[3]

    def value(self, x: np.ndarray) -> float:
        x = np.asarray(x, dtype=float)
        if self._cache is not None and np.array_equal(self._cache[0], x):
            return self._cache[1]
        n_points = 2 * x.size + 1
        self._charge(n_points * self.z.shape[0])
        f, g, c = _fd_eval(self.task, self.oracle, x, self.z, self.h)
        self.used += n_points * self.z.shape[0]
        self._cache = (x.copy(), f, g, c)
        self._note(x, f, c)
        return f

    def gradient(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if self._cache is None or not np.array_equal(self._cache[0], x):
            self.value(x)
        return self._cache[2]

    def face_gradient(self, x: np.ndarray) -> np.ndarray:
        """:meth:`gradient`, made tangential on the faces of X (the sum face of the
        benchmarks) when the descent direction points out of X (``task.tangent``): the
        gradient to hand the shared L-BFGS-B polish, whose iterates are projected onto X."""
        x = np.asarray(x, dtype=float)
        return self.task.tangent(x, self.gradient(x))

    def values(self, X: np.ndarray) -> np.ndarray:
        """Estimated J of several decisions on the same normals, one oracle call, no gradient."""
        X = np.atleast_2d(X)
        n = self.z.shape[0]
        self._charge(X.shape[0] * n)
        W = self.oracle.draw_batch(X, n, z=np.broadcast_to(self.z, (X.shape[0], *self.z.shape)))
        self.used += X.shape[0] * n
        C = self.task.cost(W, X)
        J = np.asarray(self.task.risk(C)[0], dtype=float)
        for x, v, c in zip(X, J, C, strict=True):
            self._note(x, float(v), np.asarray(c, dtype=float))
        return J


def direct_polish(
    task: Task,
    oracle: Oracle,
    x0: np.ndarray,
    rng: np.random.Generator,
    *,
    n: int,
    maxiter: int,
    h: float,
    max_draws: int | None = None,
    antithetic: bool = False,
    penalty: float = 1.0,
    guard: float = 0.0,
    objective: CRNObjective | None = None,
) -> PolishResult:
    """The shared L-BFGS-B polish from ``x0`` on a direct-oracle CRN objective.

    The objective is J estimated on ``n`` fixed normals (:class:`CRNObjective`), so L-BFGS-B
    sees a deterministic, piecewise-smooth function of x whose finite differences are
    common-random-number differences; each evaluation (value with its gradient) charges
    (2 d_x + 1) n draws. Stops cleanly at ``maxiter``, at ``max_draws`` or at the cap.
    Pass ``objective`` to continue on normals already used to pick ``x0``.

    The gradient handed to L-BFGS-B is made tangential on the faces of X (``task.tangent``),
    and the penalty on the distance to X is mild (``penalty`` = 1 on an objective scaled to
    about 1): the polish evaluates J at the projection P(x), which does
    not change along the outward normal, so any positive weight already makes X the
    minimiser, while the default weight of 1e6 turns the outside of the half-space into a
    cliff that L-BFGS-B's first, long step always falls off (measured: the line search then
    backtracks 20 times and ends without a step).

    ``guard`` > 0 keeps the start unless the polished point beats it by ``guard`` standard
    errors of the paired difference on the polish's own normals (the SD of the per-scenario
    influence differences of J over sqrt(n); :func:`acfs_cli.risk.influence`). The polish
    returns the best of the points it evaluated on one sample; near a flat optimum that
    minimum is mostly the sample's noise, and the guard stops it from trading a good start
    for a lucky one.
    """
    if objective is None:
        z = common_normals(n, task.dim_w, rng, antithetic)
        objective = CRNObjective(task, oracle, z, h=h)
    if max_draws is not None:
        objective.max_draws = int(max_draws)
    x0 = task.project(np.asarray(x0, dtype=float))
    try:
        f0 = objective.value(x0)
        c0 = objective.costs(x0)
        scale = max(abs(f0), 1.0)
    except BudgetExhausted:
        return PolishResult(x=x0, value=np.inf, nit=0, nfev=0, message="no budget left",
                            stopped_by_budget=not objective.allowance_hit)
    res = polish(
        objective.value,
        x0,
        task.project,
        task.bounds(),
        jac=objective.face_gradient,
        maxiter=maxiter,
        penalty=penalty,
        scale=scale,
    )
    if objective.best_x is not None and objective.best_value <= res.value:
        res.x, res.value = objective.best_x.copy(), float(objective.best_value)
    if guard > 0 and not np.array_equal(res.x, x0) and objective.best_costs is not None:
        d = influence(objective.best_costs, task.lam, task.alpha) - influence(
            c0, task.lam, task.alpha
        )
        se = float(d.std(ddof=1) / np.sqrt(d.size))
        if not float(d.mean()) < -guard * se:
            res.x, res.value = x0, f0
            res.message += f"; kept the start (gain {-d.mean():.4g} < {guard} x SE {se:.4g})"
            oracle.record_best(x0, f0, replace=True)
    # Spending the phase allowance is the plan, not a budget stop.
    res.stopped_by_budget = res.stopped_by_budget and not objective.allowance_hit
    return res


# ---------------------------------------------------------------------------------------------
# SGD-CVaR
# ---------------------------------------------------------------------------------------------


class SGDCVaRSettings(Settings):
    """SGD-CVaR hyperparameters; defaults from the paper (Section 3, Table "params")."""

    batch: int = Field(60, ge=2, description="scenarios per mini-batch (paper: 60)")
    warm_chains: int = Field(2, ge=1, description="warm-start chains (paper: 2)")
    warm_iters: int = Field(80, ge=1, description="iterations of each warm chain (paper: 80)")
    fine_iters: int = Field(160, ge=0, description="iterations of the fine search (paper: 160)")
    lr_warm: float = Field(0.05, gt=0, description="initial Adam step of the warm chains, in x")
    lr_fine: float = Field(0.02, gt=0, description="initial Adam step of the fine search, in x")
    lr_decay: float = Field(
        0.02, ge=0, description="learning rate at iteration t is lr0 / (1 + lr_decay * t)"
    )
    beta1: float = Field(0.9, ge=0, lt=1, description="Adam first-moment decay")
    beta2: float = Field(0.999, ge=0, lt=1, description="Adam second-moment decay")
    adam_eps: float = Field(1e-8, gt=0, description="Adam denominator guard")
    h: float = Field(0.01, gt=0, description="finite-difference step in x")
    tail_average: float = Field(
        0.25, ge=0, le=1, description="share of the last iterates averaged into a chain's output"
    )
    antithetic: bool = Field(False, description="mini-batches as antithetic pairs (z, -z)")
    n_select: int = Field(500, ge=1, description="common draws per warm output to pick the best")
    polish: bool = Field(True, description="finish with the shared L-BFGS-B polish")
    polish_n: int = Field(240, ge=2, description="fixed normals of the polish objective")
    polish_maxiter: int = Field(20, ge=1, description="L-BFGS-B iterations of the polish")
    polish_h: float = Field(2e-3, gt=0, description="finite-difference step of the polish")
    polish_guard: float = Field(
        2.0, ge=0, description="keep the start unless the polish beats it by this many SEs"
    )


@dataclass
class ChainResult:
    x_last: np.ndarray
    x_avg: np.ndarray
    values: list[float]


def adam_chain(
    task: Task,
    oracle: Oracle,
    x0: np.ndarray,
    rng: np.random.Generator,
    settings: SGDCVaRSettings,
    *,
    n_iter: int,
    lr0: float,
) -> ChainResult:
    """``n_iter`` projected Adam steps from ``x0`` on CRN mini-batch gradients.

    The incumbent follows the iterate (``record_best(..., replace=True)``): a chain's current
    point, not the luckiest mini-batch, is the answer if the budget stops it.
    """
    s = settings
    x = task.project(np.asarray(x0, dtype=float))
    m = np.zeros_like(x)
    v = np.zeros_like(x)
    n_tail = max(1, int(round(s.tail_average * n_iter)))
    tail_sum = np.zeros_like(x)
    values: list[float] = []
    for t in range(1, n_iter + 1):
        z = common_normals(s.batch, task.dim_w, rng, s.antithetic)
        f, g = fd_value_grad(task, oracle, x, z, s.h)
        # On the sum face Adam must see the slope along the face: its per-coordinate
        # normalisation turns a gradient whose common (outward) part dominates into equal
        # steps that the projection then cancels, and the allocation never moves.
        g = task.tangent(x, g)
        values.append(f)
        oracle.record_best(x, f, replace=True)
        m = s.beta1 * m + (1 - s.beta1) * g
        v = s.beta2 * v + (1 - s.beta2) * g**2
        m_hat = m / (1 - s.beta1**t)
        v_hat = v / (1 - s.beta2**t)
        lr = lr0 / (1 + s.lr_decay * (t - 1))
        x = task.project(x - lr * m_hat / (np.sqrt(v_hat) + s.adam_eps))
        if t > n_iter - n_tail:
            tail_sum += x
    x_avg = task.project(tail_sum / n_tail)
    oracle.record_best(x_avg, values[-1], replace=True)
    return ChainResult(x_last=x, x_avg=x_avg, values=values)


def _sgd_cvar_search(
    task: Task, oracle: Oracle, s: SGDCVaRSettings, rng: np.random.Generator
) -> MethodResult:
    starts = task.space_filling(s.warm_chains, rng)
    outputs = []
    with oracle.phase("warm"):
        for x0 in starts:
            outputs.append(adam_chain(task, oracle, x0, rng, s, n_iter=s.warm_iters,
                                      lr0=s.lr_warm).x_avg)
    outputs = np.array(outputs)
    with oracle.phase("select"):
        if len(outputs) > 1:
            z = common_normals(s.n_select, task.dim_w, rng, s.antithetic)
            sel = CRNObjective(task, oracle, z, h=s.h)
            scores = sel.values(outputs)
            best = int(np.argmin(scores))
        else:
            scores, best = np.array([np.nan]), 0
    x = outputs[best]
    oracle.record_best(x, float(scores[best]), replace=True)
    value = float(scores[best])
    if s.fine_iters > 0:
        with oracle.phase("fine"):
            chain = adam_chain(task, oracle, x, rng, s, n_iter=s.fine_iters, lr0=s.lr_fine)
        x, value = chain.x_avg, chain.values[-1]
    info = {"warm_outputs": outputs.tolist(), "warm_scores": np.asarray(scores).tolist()}
    stopped = False
    if s.polish:
        with oracle.phase("polish"):
            res = direct_polish(task, oracle, x, rng, n=s.polish_n, maxiter=s.polish_maxiter,
                                h=s.polish_h, guard=s.polish_guard, antithetic=s.antithetic)
        if np.isfinite(res.value):
            x, value = res.x, res.value
        stopped = res.stopped_by_budget
        info.update(polish_nit=res.nit, polish_nfev=res.nfev, polish_message=res.message)
    oracle.record_best(x, value, replace=True)
    return MethodResult(x=x, value=value, info=info, stopped_by_budget=stopped)


SGD_CVAR = Method(
    name="sgd-cvar",
    settings_model=SGDCVaRSettings,
    search=_sgd_cvar_search,
    summary="Adam on CRN finite-difference gradients of the spectral risk (mini-batches of 60), "
    "two warm chains, a fine search and an L-BFGS-B polish",
)
