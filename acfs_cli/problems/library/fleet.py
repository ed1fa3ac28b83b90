"""Whole-euro delivery fee and a whole number of vans: an integer newsvendor with pricing."""

from __future__ import annotations

import itertools

import numpy as np
from scipy import special

from acfs_cli.problems.library._common import (
    BoxMixin,
    TransformMixin,
    check_batch,
    check_int,
    check_real,
    check_risk,
    cost_args,
)


class FleetPricing(TransformMixin, BoxMixin):
    """A delivery fee in whole euros and a fleet of whole vans (both coordinates integer).

    Model. A delivery service posts a fee p (whole euros, p_lo..p_hi) and runs s vans
    (0..s_max), each making kappa deliveries a day, so at most kappa s orders are served.
    Daily orders are lognormal with a mean that falls with the fee (Petruzzi & Dada 1999):
    D = y(p) exp(sigma z - sigma^2/2), y(p) = a - b p, so W = (D,) has a law that moves with
    the decision. A van costs f a day and each delivery costs c, so the loss is
        C(D, x) = f s - (p - c) min(D, kappa s),
    nonincreasing in D for p >= c. Capacity comes in lumps of kappa (Van Mieghem 2003):
    ``integrality = [1, 1]``, and bounds and x0 are whole.

    Exact J. It is the price-newsvendor's closed form with the quantity kappa s: with
    z(m) = (ln(m / y) + sigma^2/2) / sigma, E[min(D, m)] = y Phi(z(m) - sigma) + m Phi(-z(m));
    C is a nonincreasing function of D, so CVaR_alpha(C) = f s - (p - c) LT with LT the mean of
    min(D, kappa s) over its lower (1 - alpha) tail (Rockafellar & Uryasev 2002, exact with
    the atom at D >= kappa s),
        LT = (y Phi(z_m - sigma) + kappa s (1 - alpha - Phi(z_m))) / (1 - alpha),
        z_m = min(z(kappa s), Phi^{-1}(1 - alpha)).
    ``exact_J`` takes any real decision in the box (the continuous relaxation); the problem's
    decisions are its whole points.

    Optimum. The lattice is finite ((p_hi - p_lo + 1)(s_max + 1) points, 189 with the
    defaults): ``optimum`` evaluates J on every point and takes the least (the first in
    (p, s) order on a tie), which is exact. ``margin(lam, alpha)`` is the least relative
    excess (J(x) - J*) / |J*| over the lattice neighbours x of x* in X (the points with
    |x_i - x*_i| <= 1, x != x*). With the defaults the optimum sits at a fee of 10 euros,
    four vans at lam 0 and three once lam passes about 0.15 (where the margin vanishes, as at
    any switch); the margin is above 5 % at lam 0 and for lam in [0.3, 1] at alpha 0.8, 0.9
    and 0.95:
    lam 0.5, alpha 0.9: x* = (10, 3), J* = -57.101674, margin 10.1 %;
    lam 0: x* = (10, 4), J* = -46.073297, margin 6.4 %;
    lam 0.7, alpha 0.95: x* = (10, 3), J* = -58.079638, margin 12.4 %.

    Parameters: ``intercept`` a (100), ``slope`` b (8), ``sigma`` (0.25), ``unit_cost`` c
    (3), ``van_cost`` f (20), ``capacity`` kappa (5 deliveries a van), ``fee_bounds``
    (4, 12) whole with c <= p_lo and y(p_hi) > 0, ``s_max`` whole (20). x0 = the riskless
    fee (a/b + c)/2 rounded, with the vans that carry its mean demand, rounded up; clipped
    into X.
    """

    name = "fleet-pricing"
    #: Changed whenever this problem's scenarios or costs change (acfs_cli.core.fingerprint).
    version = "1"
    source = (
        "Petruzzi & Dada (1999), Oper. Res. 47(2) (price-dependent newsvendor demand); Van "
        "Mieghem (2003), MSOM 5(4) (lumpy capacity investment); Rockafellar & Uryasev (2002), "
        "J. Bank. Finance 26(7) (CVaR of discrete and mixed losses)"
    )
    dim_x = 2
    dim_w = 1
    vectorized = True
    integrality = [1, 1]

    def __init__(
        self,
        intercept=100.0,
        slope=8.0,
        sigma=0.25,
        unit_cost=3.0,
        van_cost=20.0,
        capacity=5.0,
        fee_bounds=(4, 12),
        s_max=20,
    ):
        self.intercept = check_real(intercept, "intercept", lo=0.0, lo_open=True)
        self.slope = check_real(slope, "slope", lo=0.0, lo_open=True)
        self.sigma = check_real(sigma, "sigma", lo=0.0, lo_open=True)
        self.c = check_real(unit_cost, "unit_cost", lo=0.0)
        self.f = check_real(van_cost, "van_cost", lo=0.0)
        self.kappa = check_real(capacity, "capacity", lo=0.0, lo_open=True)
        try:
            p_lo, p_hi = fee_bounds
        except (TypeError, ValueError):
            raise ValueError(f"fee_bounds must be a pair (lo, hi), got {fee_bounds!r}") from None
        p_lo = check_int(p_lo, "fee_bounds[0]", lo=int(np.ceil(self.c)))
        p_hi = check_int(p_hi, "fee_bounds[1]", lo=p_lo + 1)
        if self.intercept - self.slope * p_hi <= 0:
            raise ValueError(
                f"mean demand a - b p must stay positive on the fee range, "
                f"got {self.intercept - self.slope * p_hi} at p = {p_hi}"
            )
        self.s_max = check_int(s_max, "s_max", lo=1)
        self.lo = np.array([float(p_lo), 0.0])
        self.hi = np.array([float(p_hi), float(self.s_max)])
        p0 = np.clip(np.round((self.intercept / self.slope + self.c) / 2.0), p_lo, p_hi)
        s0 = np.clip(np.ceil(self.mean_demand(p0) / self.kappa), 0, self.s_max)
        self.x0 = np.array([p0, s0], dtype=float)

    def mean_demand(self, p):
        return self.intercept - self.slope * np.asarray(p, dtype=float)

    def lattice(self) -> np.ndarray:
        """Every whole decision of X, shape (points, 2), in (p, s) order."""
        fees = np.arange(self.lo[0], self.hi[0] + 1.0)
        vans = np.arange(0.0, self.s_max + 1.0)
        return np.stack(np.meshgrid(fees, vans, indexing="ij"), axis=-1).reshape(-1, 2)

    def transform_batch(self, X, Z) -> np.ndarray:
        X, Z = check_batch(X, Z, self.dim_x, self.dim_w)
        y = self.mean_demand(X[:, 0])
        if np.any(y <= 0):
            raise ValueError("the fee leaves no positive mean demand")
        return y[:, None, None] * np.exp(self.sigma * Z - 0.5 * self.sigma**2)

    def cost(self, W, x) -> np.ndarray:
        W, x = cost_args(W, x, self.dim_w, self.dim_x)
        p, s = x[..., 0], x[..., 1]
        return self.f * s - (p - self.c) * np.minimum(W[..., 0], self.kappa * s)

    # -- exact values ----------------------------------------------------------------------------
    def _check_domain(self, x) -> None:
        p, s = x[..., 0], x[..., 1]
        if np.any(self.mean_demand(p) <= 0) or np.any(p < self.c) or np.any(s < 0):
            raise ValueError(
                "J is defined for fees at or above the delivery cost with positive mean "
                "demand and for fleets >= 0"
            )

    def _exact_J(self, x, lam, alpha):
        p, s = x[..., 0], x[..., 1]
        y = self.mean_demand(p)
        m = self.kappa * s
        with np.errstate(divide="ignore"):
            zq = (np.log(m / y) + 0.5 * self.sigma**2) / self.sigma
        served = y * special.ndtr(zq - self.sigma) + m * special.ndtr(-zq)
        zm = np.minimum(zq, special.ndtri(1.0 - alpha))
        tail = (y * special.ndtr(zm - self.sigma) + m * (1.0 - alpha - special.ndtr(zm))) / (
            1.0 - alpha
        )
        return (1.0 + lam) * self.f * s - (p - self.c) * (served + lam * tail)

    def _solve(self, lam, alpha):
        points = self.lattice()
        return points[int(np.argmin(self._exact_J(points, lam, alpha)))]

    def neighbours(self, x) -> np.ndarray:
        """The lattice neighbours of a whole decision x in X: |x_i - y_i| <= 1, y != x."""
        x = np.asarray(x, dtype=float)
        steps = [d for d in itertools.product((-1.0, 0.0, 1.0), repeat=self.dim_x) if any(d)]
        near = x + np.array(steps)
        return near[np.all((near >= self.lo) & (near <= self.hi), axis=-1)]

    def margin(self, lam, alpha) -> float:
        """min over the lattice neighbours x of x* of (J(x) - J*) / |J*|."""
        lam, alpha = check_risk(lam, alpha)
        x_star, J_star = self.optimum(lam, alpha)
        J = self._exact_J(self.neighbours(x_star), lam, alpha)
        return float(np.min(J - J_star) / abs(J_star))
