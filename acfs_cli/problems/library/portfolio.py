"""Long-only portfolio whose returns react to the position (market impact), Laplace returns,
budget and sector constraints that couple the weights."""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

from acfs_cli.problems.library._common import (
    BoxMixin,
    TransformMixin,
    check_batch,
    check_int,
    check_real,
    check_x,
    cost_args,
)


def laplace_cvar(alpha: float) -> float:
    """CVaR_alpha of a Laplace variable with mean 0 and variance 1 (scale b = 1/sqrt 2).

    Upper tail beyond the median is exponential: CVaR = VaR + b with VaR = -b ln(2(1 - alpha))
    for alpha >= 1/2; below the median, CVaR = -alpha (VaR - b) / (1 - alpha) with
    VaR = b ln(2 alpha) (the mean is 0, so the upper average is minus the lower one).
    """
    b = 1.0 / math.sqrt(2.0)
    if alpha >= 0.5:
        return b - b * math.log(2.0 * (1.0 - alpha))
    return -alpha * (b * math.log(2.0 * alpha) - b) / (1.0 - alpha)


class ImpactPortfolio(TransformMixin, BoxMixin):
    """Long-only allocation with permanent price impact and heavy-tailed returns.

    Model. Weights x in [0, w_max]^k with the budget sum(x) <= 1 (the rest is cash earning
    r_f) and sector caps sum_{j in sector} x_j <= cap: linear constraints A x <= b that
    couple the coordinates. Holding x moves prices against the holder (Almgren & Chriss
    2001's permanent impact, linear in the position), so the return vector is
        R = mu - Gamma x + sqrt(V) L z,   V = -ln Phi(-z_V) ~ Exp(1) a common market-stress
    variable; sqrt(V) L z is a multivariate Laplace (Gaussian scale mixture, Kotz, Kozubowski
    & Podgorski 2001) with covariance Sigma = L L^T. W = (R_1, .., R_k, V), dim_w = k + 1.
    The loss in percent of wealth is C(W, x) = -x . R - (1 - sum x) r_f.

    Instance (deterministic, t_j = j/(k-1)): mu_j = 3 + 12 t_j, volatility 4 + 4 t_j,
    impact Gamma = diag(2 + 4 t_j), correlation 0.25 across and 0.5 within a sector;
    sectors are contiguous blocks (numpy.array_split into ``n_sectors``).

    Exact J. x . sqrt(V) L z = s(x) Y with s(x) = ||L^T x|| and Y standard Laplace (mean 0,
    variance 1), so C = m(x) + s(x) Y with m(x) = -r_f - x . (mu - r_f) + x^T Gamma x and
        J(x) = (1 + lam) m(x) + lam s(x) CVaR_alpha(Y)   (``laplace_cvar``, closed form).

    Optimum. J is convex (convex quadratic plus a norm) on a polytope; SLSQP with the
    analytic gradient from x0 and from one ``design`` point, tolerance 1e-15. At the defaults
    (lam 0.7) the budget and the caps of sectors 2 and 3 bind and asset 0 gets weight 0.

    Parameters: ``n_assets`` k in [2, 100] (8), ``n_sectors`` in [1, k] (3), ``sector_cap``
    in (0, 1] (0.4), ``max_weight`` in (0, 1] (0.35), ``risk_free`` r_f (2, in percent).
    x0 = the equal-weight portfolio 1/k (DeMiguel, Garlappi & Uppal 2009), scaled down
    if the caps forbid it. ``design(u)`` maps the unit cube onto X (simplex spacings, then
    caps), because a box design projected onto X would pile up on its faces.
    """

    name = "impact-portfolio"
    #: Changed whenever this problem\'s scenarios or costs change (acfs_cli.core.fingerprint).
    version = "1"
    source = (
        "Almgren & Chriss (2001), J. Risk 3(2) (linear permanent price impact): long-only "
        "portfolio, multivariate Laplace returns R ~ mu - Gamma x + noise, budget and sector caps"
    )
    vectorized = True

    def __init__(self, n_assets=8, n_sectors=3, sector_cap=0.4, max_weight=0.35, risk_free=2.0):
        k = check_int(n_assets, "n_assets", lo=2, hi=100)
        self.dim_x, self.dim_w = k, k + 1
        n_sectors = check_int(n_sectors, "n_sectors", lo=1, hi=k)
        self.sector_cap = check_real(sector_cap, "sector_cap", lo=0.0, hi=1.0, lo_open=True)
        self.max_weight = check_real(max_weight, "max_weight", lo=0.0, hi=1.0, lo_open=True)
        self.risk_free = check_real(risk_free, "risk_free", lo=-10.0, hi=50.0)
        t = np.arange(k) / (k - 1)
        self.mu = 3.0 + 12.0 * t
        vol = 4.0 + 4.0 * t
        self.impact = 2.0 + 4.0 * t  # diagonal of Gamma
        self.sectors = np.array_split(np.arange(k), n_sectors)
        sector_of = np.empty(k, dtype=int)
        for s, members in enumerate(self.sectors):
            sector_of[members] = s
        corr = np.where(sector_of[:, None] == sector_of[None, :], 0.5, 0.25)
        np.fill_diagonal(corr, 1.0)
        self.Sigma = vol[:, None] * corr * vol[None, :]
        self.L = np.linalg.cholesky(self.Sigma)
        self.lo = np.zeros(k)
        self.hi = np.full(k, self.max_weight)
        S = np.zeros((n_sectors, k))
        S[sector_of, np.arange(k)] = 1.0
        self.A = np.vstack([np.ones((1, k)), S])
        self.b = np.concatenate([[1.0], np.full(n_sectors, self.sector_cap)])
        largest = max(len(m) for m in self.sectors)
        self.x0 = np.full(k, min(1.0 / k, self.max_weight, self.sector_cap / largest))

    # -- scenarios -----------------------------------------------------------------------------
    def transform_batch(self, X, Z) -> np.ndarray:
        X, Z = check_batch(X, Z, self.dim_x, self.dim_w)
        # -log Phi(-z) through log_ndtr stays finite and exact for any finite z.
        V = -special.log_ndtr(-Z[..., -1:])
        R = self.mu - (X * self.impact)[:, None, :] + np.sqrt(V) * (Z[..., :-1] @ self.L.T)
        return np.concatenate([R, V], axis=-1)

    def cost(self, W, x) -> np.ndarray:
        W, x = cost_args(W, x, self.dim_w, self.dim_x)
        gain = np.matmul(W[..., :-1], np.swapaxes(x, -1, -2))[..., 0]
        return -gain - (1.0 - x.sum(axis=-1)) * self.risk_free

    # -- decision set --------------------------------------------------------------------------
    def design(self, u) -> np.ndarray:
        """Unit cube (..., k) -> X: the spacings of the sorted coordinates are uniform on the
        simplex {x >= 0, sum x <= 1}; then weights are capped and sectors scaled to their cap."""
        u = check_x(u, self.dim_x, "u")
        if np.any((u < 0) | (u > 1)):
            raise ValueError("u must lie in the unit cube")
        s = np.sort(u, axis=-1)
        x = np.diff(s, axis=-1, prepend=0.0)
        x = np.minimum(x, self.max_weight)
        for members in self.sectors:
            tot = x[..., members].sum(axis=-1, keepdims=True)
            x[..., members] *= np.minimum(1.0, self.sector_cap / np.maximum(tot, 1e-300))
        return x

    # -- exact values --------------------------------------------------------------------------
    def moments(self, x):
        m = -self.risk_free - (x * (self.mu - self.risk_free)).sum(axis=-1)
        m = m + (self.impact * x**2).sum(axis=-1)
        return m, np.linalg.norm(x @ self.L, axis=-1)

    def _exact_J(self, x, lam, alpha):
        m, s = self.moments(x)
        return (1.0 + lam) * m + lam * laplace_cvar(alpha) * s

    def _grad(self, x, lam, alpha):
        g_m = -(self.mu - self.risk_free) + 2.0 * self.impact * x
        v = self.Sigma @ x
        s = math.sqrt(max(float(x @ v), 0.0))
        return (1.0 + lam) * g_m + lam * laplace_cvar(alpha) * (v / s if s > 0 else 0.0 * v)

    def _solve(self, lam, alpha):
        cons = [
            {
                "type": "ineq",
                "fun": lambda v: self.b - self.A @ v,
                "jac": lambda v: -self.A,
            }
        ]
        starts = [self.x0, self.design(np.linspace(0.1, 0.9, self.dim_x))]
        best_x, best_f = None, np.inf
        for x_start in starts:
            res = optimize.minimize(
                lambda v: float(self._exact_J(v, lam, alpha)),
                x_start,
                jac=lambda v: self._grad(v, lam, alpha),
                method="SLSQP",
                bounds=list(zip(self.lo, self.hi, strict=True)),
                constraints=cons,
                options={"ftol": 1e-15, "maxiter": 2000},
            )
            x = np.clip(res.x, self.lo, self.hi)
            f = float(self._exact_J(x, lam, alpha))
            if f < best_f and np.all(self.A @ x <= self.b + 1e-12):
                best_x, best_f = x, f
        return best_x
