"""Price-setting newsvendor with price-dependent lognormal demand and a CVaR criterion."""

from __future__ import annotations

import numpy as np
from scipy import optimize, special

from acfs_cli.problems.library._common import (
    BoxMixin,
    TransformMixin,
    check_batch,
    check_real,
    cost_args,
)


class PriceNewsvendor(TransformMixin, BoxMixin):
    """Joint pricing and ordering of a perishable product (risk-averse newsvendor).

    Model. The decision is x = (p, q): selling price p in [p_lo, p_hi] and order quantity q in
    [0, q_max]. Demand is multiplicative in the price-dependent mean (Petruzzi & Dada 1999):
    D = y(p) eps, y(p) = a - b p, eps = exp(sigma z - sigma^2/2) lognormal with mean 1, so
    W = (D,) has a law that moves with the price. Units cost c, leftovers salvage at s < c,
    and the loss (minus profit) is
        C(D, x) = c q - p min(D, q) - s (q - D)_+ = (c - s) q - (p - s) min(D, q),
    nonincreasing in D: the loss tail is the low-demand tail.

    Exact J. With F, and E[D; D <= m] = y Phi(z(m) - sigma), z(m) = (ln(m/y) + sigma^2/2)/sigma,
    E[C] = (c - s) q - (p - s) (E[D; D <= q] + q P(D > q)). Because C is a nonincreasing
    function of D, CVaR_alpha(C) = (c - s) q - (p - s) LT with LT the mean of min(D, q) over
    its lower (1 - alpha) tail (the quantile-integral form of Rockafellar-Uryasev, exact with
    the atom at D >= q):
        LT = (E[D; D <= m] + q (1 - alpha - F(m))) / (1 - alpha),  m = min(q, F^{-1}(1 - alpha)).
    J = E[C] + lam CVaR_alpha(C), all in closed form.

    Optimum. For a fixed p, J is convex in q with the closed-form minimiser
    F(q*) = 1 - r if r <= alpha, else (1 + lam - r) / (1 + lam / (1 - alpha)),
    with r = (1 + lam)(c - s)/(p - s) (q* = 0 when r >= 1 + lam), clipped to [0, q_max]
    (Chen, Xu & Zhang 2009 derive the same CVaR critical fractiles). The profile in p is
    minimised on a 401-point grid then by bounded Brent to 1e-12; J is not jointly convex in
    (p, q) in general, the grid guards against a second basin of the profile.

    Parameters: ``intercept`` a (50), ``slope`` b (4), ``sigma`` (0.4), ``unit_cost`` c (3),
    ``salvage`` s (1), ``price_bounds`` (3, 12) with c <= p_lo and y(p_hi) > 0, ``q_max``
    (60). x0 = the riskless price and quantity p0 = (a/b + c)/2, q0 = y(p0) (deterministic
    demand, the textbook answer that ignores uncertainty), clipped into X.
    """

    name = "price-newsvendor"
    #: Changed whenever this problem\'s scenarios or costs change (acfs_cli.core.fingerprint).
    version = "1"
    source = (
        "Petruzzi & Dada (1999), Oper. Res. 47(2) (price-setting newsvendor, multiplicative "
        "demand); Chen, Xu & Zhang (2009), Oper. Res. 57(4) (CVaR newsvendor with pricing)"
    )
    dim_x = 2
    dim_w = 1
    vectorized = True

    def __init__(
        self,
        intercept=50.0,
        slope=4.0,
        sigma=0.4,
        unit_cost=3.0,
        salvage=1.0,
        price_bounds=(3.0, 12.0),
        q_max=60.0,
    ):
        self.intercept = check_real(intercept, "intercept", lo=0.0, lo_open=True)
        self.slope = check_real(slope, "slope", lo=0.0, lo_open=True)
        self.sigma = check_real(sigma, "sigma", lo=0.0, lo_open=True)
        self.c = check_real(unit_cost, "unit_cost", lo=0.0, lo_open=True)
        self.s = check_real(salvage, "salvage", lo=0.0)
        if self.s >= self.c:
            raise ValueError(f"salvage must be below unit_cost {self.c}, got {self.s}")
        try:
            p_lo, p_hi = (float(v) for v in price_bounds)
        except (TypeError, ValueError):
            raise ValueError(
                f"price_bounds must be a pair (lo, hi), got {price_bounds!r}"
            ) from None
        p_lo = check_real(p_lo, "price_bounds[0]", lo=self.c)
        p_hi = check_real(p_hi, "price_bounds[1]", lo=p_lo, lo_open=True)
        if self.intercept - self.slope * p_hi <= 0:
            raise ValueError(
                f"mean demand a - b p must stay positive on the price range, "
                f"got {self.intercept - self.slope * p_hi} at p = {p_hi}"
            )
        self.q_max = check_real(q_max, "q_max", lo=0.0, lo_open=True)
        self.lo = np.array([p_lo, 0.0])
        self.hi = np.array([p_hi, self.q_max])
        p0 = (self.intercept / self.slope + self.c) / 2.0
        self.x0 = np.clip(np.array([p0, self.intercept - self.slope * p0]), self.lo, self.hi)

    def mean_demand(self, p):
        return self.intercept - self.slope * np.asarray(p, dtype=float)

    def transform_batch(self, X, Z) -> np.ndarray:
        X, Z = check_batch(X, Z, self.dim_x, self.dim_w)
        y = self.mean_demand(X[:, 0])
        if np.any(y <= 0):
            raise ValueError("the price leaves no positive mean demand")
        return y[:, None, None] * np.exp(self.sigma * Z - 0.5 * self.sigma**2)

    def cost(self, W, x) -> np.ndarray:
        W, x = cost_args(W, x, self.dim_w, self.dim_x)
        p, q = x[..., 0], x[..., 1]
        return (self.c - self.s) * q - (p - self.s) * np.minimum(W[..., 0], q)

    # -- exact values ------------------------------------------------------------------------
    def _z(self, m, y):
        """Standardised log level of demand m: F(m) = Phi(z(m))."""
        with np.errstate(divide="ignore"):
            return (np.log(m / y) + 0.5 * self.sigma**2) / self.sigma

    def _check_domain(self, x) -> None:
        p, q = x[..., 0], x[..., 1]
        if np.any(self.mean_demand(p) <= 0) or np.any(p <= self.s) or np.any(q < 0):
            raise ValueError(
                "J is defined for prices above the salvage value with positive mean demand "
                "and for order quantities >= 0"
            )

    def _exact_J(self, x, lam, alpha):
        p, q = x[..., 0], x[..., 1]
        y = self.mean_demand(p)
        zq = self._z(q, y)
        mean_sold = y * special.ndtr(zq - self.sigma) + q * special.ndtr(-zq)
        zm = np.minimum(zq, special.ndtri(1.0 - alpha))
        tail_sold = (y * special.ndtr(zm - self.sigma) + q * (1.0 - alpha - special.ndtr(zm))) / (
            1.0 - alpha
        )
        return (1.0 + lam) * (self.c - self.s) * q - (p - self.s) * (mean_sold + lam * tail_sold)

    def best_quantity(self, p, lam, alpha):
        """The exact minimiser of J(p, .) over [0, q_max] (critical fractile)."""
        p = np.asarray(p, dtype=float)
        r = (1.0 + lam) * (self.c - self.s) / (p - self.s)
        frac = np.where(r <= alpha, 1.0 - r, (1.0 + lam - r) / (1.0 + lam / (1.0 - alpha)))
        frac = np.clip(frac, 0.0, 1.0)
        with np.errstate(over="ignore"):
            q = self.mean_demand(p) * np.exp(self.sigma * special.ndtri(frac) - self.sigma**2 / 2)
        return np.clip(q, 0.0, self.q_max)

    def _profile(self, p, lam, alpha):
        p = np.asarray(p, dtype=float)
        x = np.stack([p, self.best_quantity(p, lam, alpha)], axis=-1)
        return self._exact_J(x, lam, alpha)

    def _solve(self, lam, alpha):
        grid = np.linspace(self.lo[0], self.hi[0], 401)
        k = int(np.argmin(self._profile(grid, lam, alpha)))
        a, b = grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)]
        res = optimize.minimize_scalar(
            lambda v: float(self._profile(v, lam, alpha)),
            bounds=(a, b),
            method="bounded",
            options={"xatol": 1e-12, "maxiter": 500},
        )
        p = res.x if res.fun <= self._profile(grid[k], lam, alpha) else grid[k]
        return np.array([p, float(self.best_quantity(p, lam, alpha))])
