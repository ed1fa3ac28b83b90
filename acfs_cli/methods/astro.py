"""ASTRO: an adaptive-sampling trust-region method on common random numbers, for small budgets.

The method SimOpt users know as ASTRO-DF (Shashaani, Hashemi & Pasupathy 2018, SIAM J.
Optim. 28(4); Ha & Shashaani 2023, on its coordinate-basis models and finite-time behaviour)
rebuilt on the project's oracle and estimator for the users of that field: a starting
decision x0, a range that may be open, a budget of a few thousand draws. It answers from
``2 (dim + 2)`` draws (under 10 per dimension), steps in units of x0 and of what it observes,
never of the box, and keeps using the budget at 10^4-10^5 draws and beyond.

One iteration (every J on one common sample, DESIGN.md section 3; the project's estimator
``task.risk`` and its influence values for every standard error, DESIGN.md section 1):

1. **Model.** Around the centre x_c, in the trust region |x_j - x_c,j| <= delta u_j: a
   quadratic with a diagonal Hessian (ASTRO-DF's coordinate-basis model; the cross terms
   join once the points outnumber a full quadratic's parameters), fitted by least squares
   through the centre to the points *already drawn on the sample's rows* within two radii,
   plus the points of the coordinate stencil x_c +- delta u_j e_j that a sequential
   D-optimal criterion finds the model short of (the stencil point where the model's
   prediction is least determined joins while its variance exceeds ``design_limit``
   observations'). After a step along one coordinate the old centre and stencil serve
   again, so an iteration draws a few points, not 2 d. On a budget too small for eight
   such models the model is linear (one-sided stencil) with a damped-BFGS curvature.
   Every point is projected onto X (``task.project``), so ``A x <= b`` and a user's own
   projection hold for every draw.
2. **Adaptive sampling** (ASTRO-DF's rule in its common-random-number form). The model's
   coefficients are means of per-row coefficients (the rows' paired influence differences
   through the fit), so its gradient has a standard error, common rows and all. The sample
   grows - for the centre and a poised subset of the model's points, by the oracle's
   ``extend``, whose first rows never change, so only the new rows are drawn - while that
   error exceeds ``kappa`` times the norm of the gradient's part that can act in X (the
   norm test of Byrd, Chin, Nocedal & Wu 2012; the part pointing out of a face is removed
   where it stands out from its noise, so rows keep growing at a constrained optimum). Near
   a minimiser the gradient shrinks with the region, so the rows grow as it narrows, as
   ASTRO-DF's "standard error <= kappa Delta^2" makes them; under common random numbers a
   difference's error is O(delta / sqrt(n)), so n grows like delta^-2 rather than delta^-4.
   One extension per iteration at most, by at most ``growth_max``, and only while the budget
   left pays for ``future`` more iterations on the larger sample.
3. **Step.** The model's minimiser over the box region (closed form for a diagonal
   Hessian, L-BFGS-B on the model otherwise) and the steepest-descent step, projected onto X;
   where a constraint coupling the coordinates is active, also the model's minimiser over
   X within the region by projected gradient steps (no draws).
4. **Ratio test** on the same rows, rho = (J(x_c) - J(x_t)) / predicted decrease: rho >=
   ``eta1`` moves the centre, rho >= ``eta2`` after a step that reached the region's edge
   widens it to ``expand`` times that step, otherwise it narrows by ``shrink``. A drawn point
   better than the candidate replaces it (ASTRO-DF's direct-search step). A model the rows
   do not resolve (the budget stopped the growth, or fewer than ``trust_rows`` rows) must
   also show a significant paired decrease (Student t at ``accept_level``) and never widens
   the region. A region narrowed below ``radius_min`` with budget left reopens on a larger
   sample.

**With the simulator's gradient** (``task.gradient(W, x)``: the pathwise derivative of each
row's cost, (n, dim_x); read as ``getattr(task, "gradient", None)``) the model is the
estimator's own pathwise gradient - the mean of the rows' gradient influences
``g_i + lam (g_tau + 1{c_i > tau} (g_i - g_tau) / (1 - alpha))``, the derivative of
``acfs_cli.risk.spectral_risk`` on the rows (Hong & Liu 2009 for the CVaR part) - with a
damped-BFGS Hessian from gradient differences on common rows, started diagonal from the first
pair (ASTRO-DF's ``use_gradients`` mode). An iteration costs one candidate's rows.

Choices and why:

* **Start and units.** x0 is ``task.x0`` when the task has one (projected if infeasible),
  else the projection of the box centre, with 0 where the box is open. The unit of
  coordinate j is the task's step (DESIGN.md section 7): |x0_j|, or where x0_j is 0 the
  geometric mean of the other |x0_k| (1 if x0 = 0), never more than the box's width; the
  first radius is ``radius0`` = 10 % of it, the ratio test does the rest. A box widened
  around the same optimum gives the same answer to the last bit unless a bound binds
  (tested at 1x, 4x and 16x).
* **One growing common sample.** Every comparison is paired on the same rows, and a point's
  rows carry over between iterations: the run solves a sample-average problem by a trust
  region while the sample grows as the region shrinks - ASTRO-DF under SimOpt's
  ``crn_across_solns``. Where the problem takes normals and the first sample has eight rows
  or more, the rows come as antithetic pairs (z, -z), and the pair means are the independent
  units of every standard error; a sample-only simulator gets re-seeded plain rows, the
  new rows of an extended sample from the new chunk's own seed, so a decision drawn chunk by
  chunk sees the stream it would see drawn at once.
* **Budget.** The first sample has ``n0`` rows, fewer when the budget could not pay for four
  models on them (two at least). The run stops when what is left cannot pay for another
  model, after spending it on the largest prefix of the sample (down to ``tail_fraction``)
  that it can still pay for: it used 89-100 % (median 98 %) of 13,000 to 260,000 draws in
  the runs below, except where the region converged on a sample the budget could not grow.
* **Incumbent.** The centre, recorded with ``oracle.record_best(..., replace=True)`` whenever
  it moves (its value on the rows of the time); a budget stop returns it.

Measured (``benchmarks/bench_small_budget.py``, ``minimize`` with the problem's x0, 10
seeds, normalised gap 100 (J(x*) - J*) / (J(x0) - J*) on the seven library problems at lam
0 and 0.7, 14 settings; median of the seeds, then over the settings):

* 10 draws per dimension: 2.4-4.7 % on performative pricing (13-D) and huff-location,
  8-36 % on five more settings; on the other five it mostly stays at x0 (73-104 %), and on
  the newsvendor a move decided on two rows can land far worse (226 % median at lam 0.7,
  worst 889 %).
* 100 per dimension: medians below 5 % on 5 of the 14 settings, 13 % on average.
* 1,000 per dimension (2,000-13,000 draws; saa-ps and sgd-cvar accept these): medians
  below 1 % on 5, below 5 % on 9 settings (saa-ps 4 and 10, sgd-cvar 2 and 8); the best
  median on 6 of 14 settings and the best worst seed on 10 (saa-ps 3, sgd-cvar 1).
* 26,000 draws: medians below 1 % on 11 of 14 (saa-ps 6, sgd-cvar 10), at most 7.7 %
  (impact-portfolio at lam 0.7, where sgd-cvar's 2.1 % is better).
* 260,000 draws: medians below 1 % on 13 of 14 settings, 2.2 % on the queueing simulator at
  lam 0.7 (saa-ps 2.3 %, sgd-cvar 2.8 %).
* With a pathwise gradient (newsvendor, performative pricing): 0.8 % or less at 1,000
  draws per dimension, 0.07 % or less at 26,000.
* SimOpt (simoptlib 1.2.4, its default budgets, 5 macroreplications, lam 0, gap against
  the exact or best-found optimum): CNTNEWS-1 0.16 % median (ASTRO-DF 4.1 %, Nelder-Mead
  2.5 %), MM1-1 0.00 % (1.2 %, 0.03 %), PARAMESTI-1 1.5 % (0.5 %, 1.1 %), SAN-1 (13-D)
  0.55 % (0.22 % with IPA gradients, 1.3 %), and 0.02 % on SAN-1 with its IPA gradients.
* CPU of one run: 0.01-0.09 s median, under 1 s at most (the simulator's time apart).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import Field, model_validator
from scipy.optimize import minimize as scipy_minimize
from scipy.special import stdtrit

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.risk import influence
from acfs_cli.core.sample import CommonSample
from acfs_cli.core.task import Task
from acfs_cli.methods.base import Method, MethodResult, Settings


class AstroSettings(Settings):
    """ASTRO settings: the trust region, the adaptive sampling rule and the model."""

    radius0: float = Field(0.1, gt=0, description="first trust-region radius, in units of "
                           "the task's steps (|x0_j| per coordinate where a start is known)")
    radius_max: float = Field(10.0, gt=0, description="largest radius, in the same units")
    radius_min: float = Field(1e-7, gt=0, description="the search ends as converged when an "
                              "unsuccessful step would narrow the region below this radius")
    eta1: float = Field(0.1, gt=0, lt=1, description="ratio of actual to predicted decrease "
                        "above which a step is accepted")
    eta2: float = Field(0.75, gt=0, lt=1, description="ratio above which the region also "
                        "widens")
    expand: float = Field(2.0, gt=1, description="widening factor of the radius")
    shrink: float = Field(0.5, gt=0, lt=1, description="narrowing factor of the radius")
    n0: int = Field(20, ge=1, description="rows of the first common sample (fewer when the "
                    "budget cannot pay for four models on them)")
    n_max: int = Field(200_000, ge=1, description="largest common sample")
    kappa: float = Field(0.5, gt=0, description="adaptive sampling: rows are added while "
                         "the standard error of the model's gradient exceeds kappa times the "
                         "norm of its part that can act in X (the norm test)")
    trust_rows: int = Field(10, ge=2, description="fewest rows on which a model's standard "
                            "error is believed (on fewer, every step must be significant)")
    growth_max: float = Field(4.0, gt=1, description="largest growth factor of the sample in "
                              "one extension")
    future: float = Field(4.0, gt=0, description="the sample grows only while the budget "
                          "left pays for this many more iterations on the larger sample")
    tail_fraction: float = Field(0.25, ge=0, le=1, description="when the budget left cannot "
                                 "pay for a model on every row, iterate on the largest prefix "
                                 "of the sample it can pay for, down to this fraction of it "
                                 "(1: stop instead)")
    model: Literal["auto", "quadratic", "linear"] = Field(
        "auto", description="quadratic: 2 d stencil points, diagonal Hessian; linear: d "
        "one-sided points; auto: linear when the budget holds fewer than min_models quadratic "
        "models on one row")
    min_models: int = Field(8, ge=1, description="auto: quadratic models a budget must hold "
                            "(on one row each)")
    reuse: bool = Field(True, description="a model reuses the points already drawn on the "
                        "sample's rows in its region, adding stencil points only where the "
                        "design criterion asks (false: a full stencil every iteration)")
    reach: float = Field(2.0, gt=0, description="points within this many radii of the centre "
                         "join its model")
    design_limit: float = Field(4.0, gt=0, description="a stencil point is drawn when the "
                                "model's prediction there has more than this variance (in "
                                "units of one observation's: 1 at an interpolation point)")
    cross_margin: int = Field(2, ge=0, description="the cross terms of the Hessian join the "
                              "model when its points outnumber the full quadratic's "
                              "parameters by this many")
    memory: int = Field(4, ge=1, description="points kept per dimension plus one (the most "
                        "recent near the centre)")
    accept_level: float = Field(0.16, gt=0, lt=1, description="on a model the rows do not "
                                "resolve, a step is accepted only if its paired decrease is "
                                "significant at this one-sided level (Student t on the rows: "
                                "about one standard error on many rows, more on few)")
    direct_search: bool = Field(True, description="a stencil point better than the candidate "
                                "replaces it (ASTRO-DF)")
    antithetic: bool = Field(True, description="common samples as antithetic pairs (z, -z) "
                             "where the problem takes normals (a sample-only simulator gets "
                             "plain rows)")
    use_gradient: bool = Field(True, description="use the simulator's pathwise cost gradient "
                               "(task.gradient) when the problem offers one")

    def minimum_budget(self, dim: int) -> int:
        """Two rows (the fewest with a standard error) at x0, at one one-sided difference
        per coordinate and at one candidate."""
        return 2 * (dim + 2)

    @model_validator(mode="after")
    def _consistent(self):
        if self.eta2 < self.eta1:
            raise ValueError("need eta1 <= eta2")
        if not self.radius_min <= self.radius0 <= self.radius_max:
            raise ValueError("need radius_min <= radius0 <= radius_max")
        return self


# -- where to start and in which units ------------------------------------------------------------
def start_point(task: Task) -> np.ndarray:
    """``task.x0`` when the task has one (projected if it is not feasible), else the projection
    of the box centre, with 0 for a coordinate whose box is infinite on either side."""
    x0 = getattr(task, "x0", None)
    if x0 is not None:
        x0 = np.asarray(x0, dtype=float).reshape(task.dim_x)
        if np.all(np.isfinite(x0)) and bool(task.is_feasible(x0)):
            return x0.copy()
        return task.project(np.nan_to_num(x0, nan=0.0, posinf=0.0, neginf=0.0))
    lo, hi = (np.asarray(v, dtype=float) for v in task.box())
    finite = np.isfinite(lo) & np.isfinite(hi)
    centre = np.where(finite, 0.5 * (np.where(finite, lo, 0.0) + np.where(finite, hi, 0.0)), 0.0)
    return task.project(centre)


# -- the growing common sample and the points drawn on it ----------------------------------------
@dataclass(eq=False)
class _Point:
    x: np.ndarray
    costs: np.ndarray  # (rows,) on the first rows of the sample
    grads: np.ndarray | None  # (rows, d) pathwise gradients, or None
    chunks: int  # chunks of the sample covered


class _Sample:
    """One common sample that grows by chunks, and the costs of decisions on its first rows.

    A decision covers a prefix of the chunks; covering more draws only the missing chunks
    (a sample made of those chunks: the same seeds, so the same random numbers as drawing
    the whole sample at once, by normals or by re-seeding).
    """

    def __init__(self, task: Task, oracle: Oracle, gradient, antithetic: bool = False):
        self.task, self.oracle, self.gradient = task, oracle, gradient
        self.antithetic = antithetic
        self.sample: CommonSample | None = None
        self.ends: list[int] = []  # rows at the end of each chunk
        self.points: list[_Point] = []

    @property
    def n(self) -> int:
        return self.ends[-1] if self.ends else 0

    def grow(self, n: int) -> None:
        """The sample holds at least ``n`` rows, an even count of new rows when they come in
        antithetic pairs (nothing is drawn)."""
        n = int(n)
        if self.antithetic:
            n += (n - self.n) % 2
        if self.sample is None:
            self.sample = self.oracle.common_sample(n, antithetic=self.antithetic)
            self.ends = [n]
        elif n > self.n:
            self.sample = self.oracle.extend(self.sample, n - self.n)
            self.ends.append(n)

    def units(self, A: np.ndarray, m: int) -> np.ndarray:
        """``A`` (..., m) per row of the first ``m`` rows, as independent units along the last
        axis: the rows themselves, or the means of each antithetic pair (z, -z) - a chunk of
        r rows holds the pairs (i, r/2 + i) - whose spread is the right one for a standard
        error (a pair's two rows are not independent)."""
        if not self.antithetic:
            return A
        parts, start = [], 0
        for end in self.ends:
            if end > m:
                break
            half = (end - start) // 2
            parts.append(0.5 * (A[..., start:start + half] + A[..., start + half:end]))
            start = end
        return np.concatenate(parts, axis=-1)

    def chunks_for(self, m: int) -> int:
        """How many chunks make the first ``m`` rows (``m`` must be a chunk end)."""
        return self.ends.index(m) + 1

    def prefixes(self) -> list[int]:
        return list(self.ends)

    def find(self, x: np.ndarray, tol: float) -> _Point | None:
        for p in self.points:
            if np.max(np.abs(p.x - x)) <= tol:
                return p
        return None

    def point(self, x: np.ndarray, tol: float) -> _Point:
        """The known point at ``x`` (within ``tol``), or a new one with no rows."""
        p = self.find(x, tol)
        if p is None:
            p = _Point(x=np.array(x, dtype=float), costs=np.empty(0), grads=None, chunks=0)
            self.points.append(p)
        return p

    def cost_of(self, points: list[_Point], m: int) -> int:
        """Draws needed for every point to cover the first ``m`` rows."""
        seen, total = set(), 0
        for p in points:
            if id(p) not in seen:
                seen.add(id(p))
                total += max(m - (self.ends[p.chunks - 1] if p.chunks else 0), 0)
        return total

    def cover(self, points: list[_Point], m: int) -> None:
        """Draw what each point lacks of the first ``m`` rows: one oracle call per group of
        points that lack the same chunks."""
        k_to = self.chunks_for(m)
        groups: dict[int, list[_Point]] = {}
        for p in {id(p): p for p in points}.values():
            if p.chunks < k_to:
                groups.setdefault(p.chunks, []).append(p)
        for k_from, group in sorted(groups.items()):
            part = CommonSample(self.sample.chunks[k_from:k_to], self.sample.antithetic,
                                self.sample.key)
            X = np.array([p.x for p in group])
            W = self.oracle.draw_common(X, part)
            C = np.asarray(self.task.cost(W, X), dtype=float).reshape(len(group), part.n)
            for i, p in enumerate(group):
                p.costs = np.concatenate([p.costs, C[i]])
                if self.gradient is not None:
                    G = _pathwise(self.gradient, W[i], p.x, self.task.dim_x)
                    p.grads = G if p.grads is None else np.vstack([p.grads, G])
                p.chunks = k_to

    def forget(self, keep: list[_Point]) -> None:
        """Drop every point but ``keep`` (their costs are the memory of the search)."""
        ids = {id(p) for p in keep}
        self.points = [p for p in self.points if id(p) in ids]


def _pathwise(gradient, W: np.ndarray, x: np.ndarray, d: int) -> np.ndarray:
    G = np.asarray(gradient(W, x), dtype=float)
    if G.shape != (W.shape[0], d) or not np.all(np.isfinite(G)):
        raise ValueError(f"task.gradient(W, x) must return finite values of shape "
                         f"({W.shape[0]}, {d}), got {G.shape}")
    return G


# -- estimates on common rows --------------------------------------------------------------------
def _values(task: Task, points: list[_Point], m: int) -> tuple[np.ndarray, np.ndarray]:
    """J of each point on the first ``m`` rows, and the rows' influence values (k, m)."""
    C = np.stack([p.costs[:m] for p in points])
    return np.asarray(task.risk(C)[0], dtype=float).reshape(len(points)), influence(
        C, task.lam, task.alpha)


def gradient_influence(costs: np.ndarray, grads: np.ndarray, lam: float,
                       alpha: float) -> np.ndarray:
    """Per-row pathwise gradients of J's influence values (m, d): their mean is the gradient
    of the estimator ``spectral_risk`` on these rows (the row at the alpha-quantile fixed),
    their standard deviation over sqrt(m) its standard error."""
    c = np.asarray(costs, dtype=float)
    tau = np.quantile(c, alpha, method="inverted_cdf")
    at = int(np.flatnonzero(c == tau)[0])
    above = (c > tau)[:, None]
    g_tau = grads[at]
    return grads + lam * (g_tau + above * (grads - g_tau) / (1.0 - alpha))


# -- models --------------------------------------------------------------------------------------
@dataclass
class _Model:
    g: np.ndarray  # gradient in scaled units
    h: np.ndarray | None  # diagonal curvature (d,), a matrix (d, d), or None (linear)

    def value(self, y: np.ndarray) -> float:
        v = float(self.g @ y)
        if self.h is None:
            return v
        if self.h.ndim == 1:
            return v + 0.5 * float(self.h @ (y * y))
        return v + 0.5 * float(y @ self.h @ y)

    def step(self, delta: float) -> np.ndarray:
        """The model's minimiser over the box |y_j| <= delta."""
        g, h = self.g, self.h
        big = float(np.max(np.abs(g))) if g.size else 0.0
        if h is None:
            return -delta * g / big if big > 0 else np.zeros_like(g)
        if h.ndim == 1:
            y = np.where(h > 0, -g / np.where(h > 0, h, 1.0), -np.sign(g) * delta)
            # a concave or flat coordinate goes to the end its slope points to (either end
            # when it has none: they tie)
            y = np.where((h <= 0) & (g == 0), delta, y)
            return np.clip(y, -delta, delta)
        start = np.clip(-delta * g / big, -delta, delta) if big > 0 else np.zeros_like(g)
        res = scipy_minimize(lambda y: (float(g @ y + 0.5 * y @ h @ y), g + h @ y), start,
                             jac=True, method="L-BFGS-B",
                             bounds=[(-delta, delta)] * g.size, options={"maxiter": 200})
        y = np.clip(res.x, -delta, delta)
        return y if self.value(y) <= self.value(start) else start


def _columns(Yh: np.ndarray, kind: str) -> np.ndarray:
    """Regression columns of scaled displacements Yh (k, d): y (linear), + y^2 / 2 (diagonal),
    + y_i y_j for i < j (full)."""
    cols = [Yh]
    if kind != "linear":
        cols.append(0.5 * Yh**2)
    if kind == "full":
        i, j = np.triu_indices(Yh.shape[1], k=1)
        cols.append(Yh[:, i] * Yh[:, j])
    return np.hstack(cols)


def _fit(Y: np.ndarray, D: np.ndarray, kind: str, delta: float
         ) -> tuple[_Model, np.ndarray]:
    """Least-squares model of the differences J(y_i) - J(centre) at the scaled displacements
    ``Y`` (k, d), through the centre: g . y (+ 1/2 sum h_j y_j^2, + the cross terms for
    ``kind`` "full"); a direction no point moves along gets 0. ``D`` (k, m) holds the rows'
    paired influence differences psi_i - psi_centre, whose means are those differences, so
    the model's coefficients are means of per-row coefficients: the per-row gradients (m, d)
    are returned with the model, for the standard error of its gradient (common rows and
    all). The columns are fitted in units of the radius, which keeps them of one size."""
    d = Y.shape[1]
    A = _columns(Y / delta, kind)
    m = D.shape[1] if D.ndim == 2 else 0
    if not len(Y):
        return _Model(g=np.zeros(d), h=None if kind == "linear" else np.zeros(d)), np.zeros(
            (max(m, 1), d))
    L = np.linalg.pinv(A, rcond=1e-10)
    rows = (L[:d] @ D / delta).T  # per-row gradients (m, d)
    g = rows.mean(axis=0)
    coef = L @ D.mean(axis=1)
    if kind == "linear":
        return _Model(g=g, h=None), rows
    h = coef[d:2 * d] / delta**2
    if kind == "diagonal":
        return _Model(g=g, h=h), rows
    H = np.diag(h)
    i, j = np.triu_indices(d, k=1)
    H[i, j] = H[j, i] = coef[2 * d:] / delta**2
    return _Model(g=g, h=H), rows


def _design(A: np.ndarray, C: np.ndarray, limit: float) -> list[int]:
    """Sequential D-optimal choice among the candidate rows ``C`` (regression columns) to add
    to the rows ``A`` already drawn: the candidate where the model's prediction is least
    determined (largest a^T (A^T A)^-1 a, its variance in units of one observation's) joins,
    until every remaining candidate is below ``limit``. An interpolation stencil scores 1
    at its own points; a direction no point moves along scores about 1e8."""
    p = C.shape[1]
    M = A.T @ A + 1e-8 * np.eye(p)
    Minv = np.linalg.inv(M)
    left = list(range(len(C)))
    chosen: list[int] = []
    while left:
        lev = np.einsum("ip,pq,iq->i", C[left], Minv, C[left])
        k = int(np.argmax(lev))
        if lev[k] <= limit:
            break
        i = left.pop(k)
        chosen.append(i)
        v = Minv @ C[i]
        Minv -= np.outer(v, v) / (1.0 + float(C[i] @ v))
    return chosen


class _State:
    """What the search carries from one iteration to the next."""

    def __init__(self, task: Task, oracle: Oracle, s: AstroSettings, gradient):
        self.task, self.oracle, self.s = task, oracle, s
        self.d = task.dim_x
        self.x0 = start_point(task)
        self.u = task.steps()
        self.delta = s.radius0
        self.gradient = gradient
        budget = oracle.budget
        if gradient is not None:
            self.quadratic, per_model = False, 1
        else:
            self.quadratic = (s.model == "quadratic" or (
                s.model == "auto" and budget >= s.min_models * (2 * self.d + 2)))
            per_model = (2 * self.d if self.quadratic else self.d) + 1
        self.per_model = per_model
        # four models on the first sample at least (centre included once)
        self.n0 = int(max(2, min(s.n0, (budget - 1) // (4 * per_model))))
        # pairs halve the independent units: on a first sample of fewer than eight rows they
        # would leave too few for a standard error
        self.samples = _Sample(task, oracle, gradient, antithetic=(
            s.antithetic and task.has_transform and self.n0 >= 8))
        self.spent = 0  # draws of the iterations (models and candidates)
        self.rows_spent = 0  # their rows: the sum of each iteration's sample size
        self.grown = 0  # draws spent extending points to a larger sample
        self.restarts = 0  # regions reopened on a larger sample after converging
        self.centre: _Point | None = None
        self.f_c = np.nan
        self.iterations = 0
        self.accepted = 0
        self.direct = 0
        self.growths = 0
        self.stop = ""
        self.H: np.ndarray | None = None  # BFGS curvature in scaled units
        self.last: tuple | None = None  # (centre, model gradient, rows) of the last model

    def points_per_iteration(self) -> float:
        """Draws per row of an iteration so far (before any: a full model and a candidate)."""
        return self.spent / self.rows_spent if self.rows_spent else self.per_model + 1.0

    def tol(self) -> float:
        return 1e-12 * max(1.0, float(np.max(np.abs(self.u))))

    def scaled(self, x: np.ndarray) -> np.ndarray:
        return (x - self.centre.x) / self.u

    def move(self, p: _Point, value: float) -> None:
        self.centre, self.f_c = p, float(value)
        self.oracle.record_best(p.x, value, replace=True)


def _search(task: Task, oracle: Oracle, s: AstroSettings, rng: np.random.Generator
            ) -> MethodResult:
    gradient = getattr(task, "gradient", None) if s.use_gradient else None
    gradient = gradient if callable(gradient) else None
    st = _State(task, oracle, s, gradient)
    with oracle.phase("start"):
        st.samples.grow(st.n0)
        n0 = st.samples.n
        centre = st.samples.point(st.x0, st.tol())
        st.samples.cover([centre], n0)
        st.move(centre, _values(task, [centre], n0)[0][0])
    step = _gradient_iteration if gradient is not None else _model_iteration
    # An iteration that draws nothing is a function of the search's state: meeting a state
    # again before the next draw means the search would cycle there for ever (on a cost that
    # is flat at the rows drawn, widening for lack of signal and narrowing for lack of a
    # decrease alternate), so it has converged on this sample.
    seen: set[tuple] = set()
    while not st.stop:
        before, grown = oracle.used, st.grown
        state = _state(st)
        if state in seen:
            seen.clear()
            _reopen(st, "converged: the region cycles without drawing")
            continue
        seen.add(state)
        step(st)
        if oracle.used > before:
            seen.clear()
            st.spent += oracle.used - before - (st.grown - grown)
            st.rows_spent += st.samples.n
    info = {
        "stop_reason": st.stop,
        "x0": st.x0.tolist(),
        "unit": st.u.tolist(),
        "model": "gradient" if gradient is not None else (
            "quadratic" if st.quadratic else "linear"),
        "iterations": st.iterations,
        "accepted": st.accepted,
        "direct_search_steps": st.direct,
        "sample_growths": st.growths,
        "restarts": st.restarts,
        "rows": st.samples.n,
        "rows_first": st.n0,
        "radius": st.delta,
    }
    return MethodResult(x=st.centre.x.copy(), value=st.f_c, info=info)


def _rows_for(st: _State, points: list[_Point], extra: int) -> int | None:
    """The rows this iteration works on: the whole sample when the budget pays for covering
    ``points`` on it plus ``extra`` new points, else the largest prefix it pays for (down to
    ``tail_fraction`` of the sample), else None."""
    samples = st.samples
    for m in reversed(samples.prefixes()):
        if m < st.s.tail_fraction * samples.n and m != samples.n:
            break
        if samples.cost_of(points, m) + extra * m <= st.oracle.available:
            return m
    return None


def _grow_to(st: _State, points: list[_Point], ratio: float, extra: int) -> bool:
    """Extend the sample by the factor the rule asks for (within [1.5, growth_max]) and cover
    ``points`` on it; False when it cannot grow.

    The budget bounds the growth: the new rows of ``points`` and ``future`` more iterations
    on the larger sample (at the draws per row an iteration has cost so far) must fit in
    what is left, so the sample ends as large as the budget allows and a few iterations
    still run on it.
    """
    s, samples = st.s, st.samples
    n = samples.n
    want = min(int(math.ceil(n * min(max(ratio, 1.5), s.growth_max))), s.n_max)
    afford = st.oracle.available
    k = len({id(p) for p in points})
    # an iteration's draws per row: as measured, but at least half a full model's, since a
    # larger sample leaves the drawn points behind and the stencil is drawn afresh
    ahead = max(s.future * max(st.points_per_iteration(), 0.5 * (st.per_model + 1)), extra)
    while want > n:
        cost = samples.cost_of(points, n) + k * (want - n)
        if cost + ahead * want <= afford:
            break
        want = n + (want - n) // 2 if want - n > 1 else n
    if want < 1.2 * n:
        return False
    before = st.oracle.used
    samples.grow(want)
    samples.cover(points, samples.n)
    st.grown += st.oracle.used - before
    st.growths += 1
    return True


def _stencil(st: _State) -> np.ndarray:
    """The coordinate stencil around the centre (x_c +- delta u_j e_j, or x_c + delta u_j e_j
    for a linear model), projected onto X, without the points the projection folds onto the
    centre or onto each other."""
    x, step = st.centre.x, st.delta * st.u
    E = np.diag(step)
    pts = np.vstack([x + E, x - E]) if st.quadratic else x + E
    P = st.task.project(pts)
    if not st.quadratic:  # a face in the way: the other side
        folded = np.max(np.abs(P - x) / st.u, axis=1) <= 1e-9 * st.delta
        if np.any(folded):
            P[folded] = st.task.project(x - E[folded])
    out: list[np.ndarray] = []
    for p in P:
        if np.max(np.abs(p - x) / st.u) <= 1e-9 * st.delta:
            continue
        if any(np.array_equal(p, q) for q in out):
            continue
        out.append(p)
    return np.array(out).reshape(-1, st.d)


def _live(st: _State, m: int) -> list[_Point]:
    """Points other than the centre that hold the first ``m`` rows and lie in the region a
    model may use (``reach`` radii of the centre)."""
    ends = st.samples.ends
    out = []
    for p in st.samples.points:
        if p is st.centre or not p.chunks or ends[p.chunks - 1] < m:
            continue
        if np.max(np.abs(p.x - st.centre.x) / st.u) <= st.s.reach * st.delta:
            out.append(p)
    return out


def _model_points(st: _State, m: int) -> tuple[list[_Point], list[_Point]]:
    """The points a model on the first ``m`` rows uses: those already drawn in the region,
    and the stencil points the design criterion adds (new, not yet drawn)."""
    live = _live(st, m)
    kind = "diagonal" if st.quadratic else "linear"
    Yl = np.array([(p.x - st.centre.x) / st.u for p in live]).reshape(-1, st.d)
    S = _stencil(st)
    if not st.s.reuse:
        live, Yl = [], Yl[:0]
    Ys = (S - st.centre.x) / st.u
    chosen = _design(_columns(Yl / st.delta, kind), _columns(Ys / st.delta, kind),
                     st.s.design_limit) if len(S) else []
    tol = st.tol()
    return live, [st.samples.point(S[i], tol) for i in chosen]


def _norm_test(st: _State, rows: np.ndarray) -> tuple[float, float]:
    """The norm of the gradient that can act in X at the centre and its standard error,
    from per-row gradients (m, d) in scaled units.

    The norm test (Byrd, Chin, Nocedal & Wu 2012) compares the two. At a face of X the
    part of the gradient pointing out of X is no use to a step, and at a constrained
    optimum it does not vanish: it is removed first - coordinates at a bound of the box
    whose descent leaves it, then the normal of a coupling face (``task.tangent``) - so
    that the rows keep growing as the search closes in on such an optimum."""
    x, u = st.centre.x, st.u
    g = rows.mean(axis=0)
    lo, hi = st.task.box()
    tol = 1e-9 * np.maximum(1.0, np.abs(x))
    # blocked only where the outward slope stands out from its noise: a slope whose sign
    # the rows cannot tell might point inward, and stays in the test (so the rows grow)
    m = rows.shape[0]
    se_j = rows.std(axis=0, ddof=1) / math.sqrt(m) if m > 1 else np.full(g.shape, np.inf)
    blocked = (((x <= lo + tol) & (g > se_j)) | ((x >= hi - tol) & (g < -se_j)))
    R = np.where(blocked, 0.0, rows)
    g = R.mean(axis=0)
    if np.any(g != 0):
        T = np.asarray(st.task.tangent(x, g / u), dtype=float) * u
        out = g - T
        size = float(np.linalg.norm(out))
        if size > 1e-9 * float(np.linalg.norm(g)):
            n = out / size
            R = R - np.outer(R @ n, n)
            g = R.mean(axis=0)
    m = R.shape[0]
    se = float(np.sqrt(np.sum(R.var(axis=0, ddof=1)) / m)) if m > 1 else np.inf
    return float(np.linalg.norm(g)), se


def _model_iteration(st: _State) -> None:
    """One derivative-free iteration: a model on the points drawn in the region plus the
    stencil points it lacks, adaptive sampling, step, ratio test."""
    task, s, samples = st.task, st.s, st.samples
    with st.oracle.phase("model"):
        m = None
        for m_try in reversed(samples.prefixes()):
            if m_try < s.tail_fraction * samples.n and m_try != samples.n:
                break
            live, new = _model_points(st, m_try)
            pts = [st.centre, *live, *new]
            if samples.cost_of(pts, m_try) + m_try <= st.oracle.available:
                m = m_try
                break
            fresh = {id(p) for p in new}
            samples.forget([p for p in samples.points if id(p) not in fresh])
        if m is None:
            st.stop = "budget spent: what is left cannot pay for another model"
            return
        samples.cover(pts, m)
        trusted = False
        for attempt in range(2):  # one extension per iteration at most (by growth_max)
            f, psi = _values(task, pts, m)
            design = pts[1:]
            Y = np.array([st.scaled(p.x) for p in design]).reshape(-1, st.d)
            model, rows = _fit(Y, samples.units(psi[1:] - psi[0], m), _kind(st, len(design)),
                               st.delta)
            y_t, x_t, pred = _candidate(st, model)
            norm, se = _norm_test(st, rows)
            signal = max(pred, float(np.max(np.abs(f[1:] - f[0]))) if design else 0.0)
            trusted = se <= s.kappa * norm and m >= s.trust_rows
            if trusted or m != samples.n or attempt:
                break
            # more rows for the points a poised model needs; the others are left behind
            keep = _poised(st, design)
            ratio = (se / (s.kappa * norm)) ** 2 if norm > 0 else s.growth_max
            if not _grow_to(st, [st.centre, *keep], ratio, extra=1):
                break
            pts, m = [st.centre, *keep], samples.n
        if not st.quadratic:
            # a linear model's curvature: damped BFGS from the gradients of successive
            # centres on the same rows
            last = st.last
            if last is not None and last[0] is not st.centre and last[2] == m:
                st.H = _bfgs(st.H, (st.centre.x - last[0].x) / st.u, model.g - last[1])
            st.last = (st.centre, model.g, m)
            if st.H is not None:
                model = _Model(g=model.g, h=st.H)
                y_t, x_t, pred = _candidate(st, model)
    st.iterations += 1
    if signal == 0.0:
        # the region is below what the rows resolve (a discrete simulator: no row's cost
        # moved): more rows if they can be had, else a wider region
        if m == samples.n and _grow_to(st, pts, s.growth_max, extra=1):
            return
        if st.delta >= s.radius_max:
            st.stop = "converged: no row's cost moves within the largest region"
            return
        st.delta = min(st.delta * s.expand, s.radius_max)
        return
    with st.oracle.phase("candidate"):
        cand, psi_t = None, None
        if pred > 0 and x_t is not None:
            cand = samples.point(x_t, st.tol())
            if samples.cost_of([cand], m) > st.oracle.available:
                st.stop = "budget spent: what is left cannot pay for the candidate"
                return
            samples.cover([cand], m)
            f_t, psi_t = (v[0] for v in _values(task, [cand], m))
            y_t = st.scaled(cand.x)
        f_c = float(f[0])
        best = int(np.argmin(f[1:])) + 1 if design else 0
        if s.direct_search and best and f[best] < f_c and (cand is None or f[best] < f_t):
            # a drawn point beats the candidate: taken as a step whose model decrease is
            # the model's value there
            cand, f_t, psi_t = design[best - 1], float(f[best]), psi[best]
            y_t = st.scaled(cand.x)
            pred = max(-model.value(y_t), f_c - f_t)
            st.direct += 1
        if cand is None:
            _narrow(st)
            return
        _ratio_test(st, cand, float(f_t), f_c, pred, samples.units(psi_t - psi[0], m), y_t,
                    m, trusted)
        _prune(st)


def _ratio_test(st: _State, cand: _Point, f_t: float, f_c: float, pred: float,
                dpsi: np.ndarray, y_t: np.ndarray, m: int, trusted: bool) -> None:
    """Move to ``cand`` when its decrease is at least ``eta1`` of the predicted one (and,
    on a model the rows do not resolve, significant at ``accept_level``), widen the region
    after a very successful step that reached its edge, narrow it otherwise.

    Widening does not wait for a model the rows resolve (ASTRO-DF's rule): at a few rows per
    point none is, and a region held at its first radius travels that radius a step
    (REPRODUCTION.md, SimOpt's testbed: PARAMESTI-1 at 100 replications went from 40 % to 6 %
    of the way from x0 to the best known decision)."""
    s = st.s
    rho = (f_c - f_t) / pred if pred > 0 else -np.inf
    k = dpsi.size  # independent units: rows, or antithetic pairs
    se = float(dpsi.std(ddof=1) / math.sqrt(k)) if k > 1 else np.inf
    # A model the rows resolve has earned the plain ratio test (ASTRO-DF's); one they do
    # not (the budget stopped the sample's growth) must also show a significant decrease.
    if rho >= s.eta1 and (trusted or (k > 1 and f_c - f_t >= _t_quantile(
            1.0 - s.accept_level, k - 1) * se)):
        _accept(st, cand, f_t, m)
        if rho >= s.eta2:
            reach = float(np.max(np.abs(y_t)))
            st.delta = min(max(st.delta, s.expand * reach), s.radius_max)
    else:
        _narrow(st)


def _t_quantile(p: float, dof: int) -> float:
    return float(stdtrit(dof, p))


def _poised(st: _State, design: list[_Point]) -> list[_Point]:
    """A subset of ``design`` that determines the model as well as the design criterion
    asks (the points worth extending to more rows)."""
    if not design:
        return []
    kind = "diagonal" if st.quadratic else "linear"
    Y = np.array([st.scaled(p.x) for p in design]) / st.delta
    chosen = _design(np.zeros((0, _columns(Y[:1], kind).shape[1])), _columns(Y, kind),
                     st.s.design_limit)
    return [design[i] for i in sorted(chosen)]


def _kind(st: _State, points: int) -> str:
    """The richest model the points determine: the cross terms join a quadratic model when
    the points outnumber its parameters by ``cross_margin``."""
    if not st.quadratic:
        return "linear"
    full = st.d * (st.d + 3) // 2
    return "full" if st.d > 1 and points >= full + st.s.cross_margin else "diagonal"


def _prune(st: _State) -> None:
    """Keep the centre and the most recent points near it (their costs are the memory)."""
    near = [p for p in st.samples.points if p is not st.centre and np.max(
        np.abs(p.x - st.centre.x) / st.u) <= 2 * st.s.reach * st.delta]
    st.samples.forget([st.centre, *near[-st.s.memory * (st.d + 1):]])


def _accept(st: _State, p: _Point, value: float, m: int) -> None:
    st.accepted += 1
    if m != st.samples.n:
        # decided on a prefix: the new centre's value on every row it has
        value = float(_values(st.task, [p], st.samples.ends[p.chunks - 1])[0][0])
    st.move(p, value)


def _narrow(st: _State) -> None:
    """Narrow the region; below ``radius_min`` the search has converged on this sample, so
    with budget left it grows the sample (the optimum of a larger sample lies elsewhere, by
    its sampling error) and looks again from a quarter of the first radius; without, it
    ends."""
    st.delta *= st.s.shrink
    if st.delta >= st.s.radius_min:
        return
    _reopen(st, "converged: the trust region narrowed below radius_min")


def _reopen(st: _State, why: str) -> None:
    """The search has converged on this sample: with budget left, a larger sample and a
    region of a quarter of the first radius; without, the end (``why``)."""
    with st.oracle.phase("model"):
        grown = st.samples.n == st.samples.ends[st.centre.chunks - 1] and _grow_to(
            st, [st.centre], st.s.growth_max, extra=2 * st.d + 1)
    if grown:
        st.f_c = float(_values(st.task, [st.centre], st.samples.n)[0][0])
        st.delta = max(st.s.radius0 / 4, st.s.radius_min)
        st.restarts += 1
    else:
        st.stop = why


def _state(st: _State) -> tuple:
    """What a draw-free iteration reads: the centre, the radius, the sample, the curvature."""
    return (id(st.centre), st.centre.x.tobytes(), st.f_c, st.delta, st.samples.n,
            len(st.samples.points), st.oracle.used, st.restarts, st.quadratic,
            None if st.H is None else st.H.tobytes())


def _candidate(st: _State, model: _Model):
    """The candidate step: (scaled displacement, x, predicted decrease), or (None, None, 0)
    when the model predicts no decrease.

    The model's minimiser over the box region, projected onto X, and the projected
    steepest-descent step compete on the model. Where the projection is more than clipping
    to the box (a constraint coupling the coordinates is active, as a budget face), the
    minimiser of the model over X within the region, by projected gradient steps on the
    model (cheap: no draws), joins them: minimising over the region and then projecting
    lands wherever the projection folds the step, often back near the centre.
    """
    x, u, delta = st.centre.x, st.u, st.delta
    tries = [model.step(delta)]
    big = float(np.max(np.abs(model.g)))
    if big > 0:
        tries.append(-delta * model.g / big)
    lo, hi = st.task.box()
    best = (None, None, 0.0)
    coupled = False
    for y in tries:
        x_t = st.task.project(x + y * u)
        coupled |= not np.allclose(x_t, np.clip(x + y * u, lo, hi), rtol=0.0, atol=1e-12)
        best = _better(st, model, x_t, best)
    if coupled and big > 0:
        best = _better(st, model, _projected_descent(st, model, best[1]), best)
    return best


def _better(st: _State, model: _Model, x_t, best):
    if x_t is None:
        return best
    y_t = (x_t - st.centre.x) / st.u
    if np.max(np.abs(y_t)) <= 1e-9 * st.delta:
        return best
    pred = -model.value(y_t)
    return (y_t, x_t, pred) if pred > best[2] else best


def _projected_descent(st: _State, model: _Model, x_start, iterations: int = 60):
    """Projected gradient steps on the model over X, each step's displacement clipped to the
    region (the last projection keeps the point in X)."""
    x_c, u, delta = st.centre.x, st.u, st.delta
    h = model.h
    if h is None:
        curv = 0.0
    elif h.ndim == 1:
        curv = float(np.max(h))
    else:
        curv = float(np.max(np.linalg.eigvalsh(h)))
    big = float(np.max(np.abs(model.g)))
    eta = 1.0 / curv if curv > 0 else delta / big
    y = np.zeros_like(x_c) if x_start is None else (x_start - x_c) / u
    for _ in range(iterations):
        grad = model.g if h is None else model.g + (h * y if h.ndim == 1 else h @ y)
        x_new = st.task.project(x_c + u * np.clip(y - eta * grad, -delta, delta))
        y_new = (x_new - x_c) / u
        if np.max(np.abs(y_new - y)) <= 1e-6 * delta:
            y = y_new
            break
        y = y_new
    return x_c + u * y


def _gradient_iteration(st: _State) -> None:
    """One iteration with the simulator's gradient: a BFGS model at the centre, the norm test
    for the rows, the step and the ratio test on common rows."""
    task, s, samples = st.task, st.s, st.samples
    tol = st.tol()
    with st.oracle.phase("model"):
        m = _rows_for(st, [st.centre], extra=1)
        if m is None:
            st.stop = "budget spent: what is left cannot pay for another candidate"
            return
        samples.cover([st.centre], m)
        trusted = False
        for attempt in range(2):  # one extension per iteration at most (by growth_max)
            c = st.centre.costs[:m]
            gam = gradient_influence(c, st.centre.grads[:m], task.lam, task.alpha) * st.u
            g = gam.mean(axis=0)
            norm, se = _norm_test(st, samples.units(gam.T, m).T)
            trusted = se <= s.kappa * norm and m >= s.trust_rows
            if trusted or m != samples.n or attempt:
                break
            ratio = (se / (s.kappa * norm)) ** 2 if norm > 0 else s.growth_max
            if not _grow_to(st, [st.centre], ratio, extra=1):
                break
            m = samples.n
        f_c = float(_values(task, [st.centre], m)[0][0])
    st.iterations += 1
    model = _Model(g=g, h=st.H)
    y_t, x_t, pred = _candidate(st, model)
    if x_t is None:
        _narrow(st)
        return
    with st.oracle.phase("candidate"):
        cand = samples.point(x_t, tol)
        if samples.cost_of([cand], m) > st.oracle.available:
            st.stop = "budget spent: what is left cannot pay for the candidate"
            return
        samples.cover([cand], m)
        f_t = float(_values(task, [cand], m)[0][0])
    g_t = (gradient_influence(cand.costs[:m], cand.grads[:m], task.lam, task.alpha)
           * st.u).mean(axis=0)
    st.H = _bfgs(st.H, y_t, g_t - g)
    _, psi = _values(task, [st.centre, cand], m)
    _ratio_test(st, cand, f_t, f_c, pred, samples.units(psi[1] - psi[0], m), y_t, m,
                trusted)
    _prune(st)


def _bfgs(H: np.ndarray | None, step: np.ndarray, dg: np.ndarray) -> np.ndarray | None:
    """Damped BFGS update (Powell 1978) of the curvature H from a step and the change of the
    gradient on common rows. The first pair with positive curvature sets a diagonal H: the
    secant y_j / s_j of each coordinate the step moved (exact for a separable quadratic, and
    the first step moves every coordinate), within a factor 100 of the scalar y.y / s.y
    that stands in where a coordinate did not move or curves down."""
    sy = float(step @ dg)
    if H is None:
        if sy <= 1e-300:
            return None
        gamma = float(dg @ dg) / sy
        moved = np.abs(step) > 1e-12 * max(float(np.max(np.abs(step))), 1e-300)
        ratio = np.where(moved, dg / np.where(moved, step, 1.0), 0.0)
        diag = np.where(moved & (ratio > 0), np.clip(ratio, 1e-2 * gamma, 1e2 * gamma), gamma)
        return np.diag(diag)
    Hs = H @ step
    sHs = float(step @ Hs)
    if sHs <= 1e-300:
        return H
    if sy < 0.2 * sHs:
        theta = 0.8 * sHs / (sHs - sy)
        dg = theta * dg + (1 - theta) * Hs
        sy = float(step @ dg)
    return H + np.outer(dg, dg) / sy - np.outer(Hs, Hs) / sHs


ASTRO = Method(
    name="astro",
    version="2",
    display="ASTRO",
    settings_model=AstroSettings,
    search=_search,
    summary="adaptive-sampling trust region on one growing common sample (ASTRO-DF): "
    "coordinate-stencil models (or the simulator's pathwise gradient with BFGS), rows added "
    "until the paired errors are small against the model's signal; starts from x0, steps in "
    "the task's units (|x0| where a start is known); answers from 2 (dim + 2) draws",
    sample_only="common samples by re-seeding, extended chunk by chunk; nothing else changes",
)
