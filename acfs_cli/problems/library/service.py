"""Price-setting newsvendor under a stockout-probability (chance) constraint."""

from __future__ import annotations

import numpy as np
from scipy import special

from acfs_cli.problems.library._common import check_real, check_x, cost_args
from acfs_cli.problems.library.newsvendor import PriceNewsvendor


class ServiceNewsvendor(PriceNewsvendor):
    """Joint pricing and ordering when a stockout may happen on at most a share eps of days.

    Model. The price-newsvendor's (``price-newsvendor``): x = (p, q), lognormal demand
    D = y(p) exp(sigma z - sigma^2/2) with mean y(p) = a - b p, loss
    C(D, x) = (c - s) q - (p - s) min(D, q), plus the service level (the cycle service level
    or "alpha service level" of inventory theory) as a chance constraint in the sense of
    Charnes & Cooper (1959): P(D > q) <= eps, declared as
    ``stochastic_constraints = [{"name": "stockout", "chance": eps}]`` with
    g(D, x) = D - q. The law of g moves with the price as the cost's does.

    Exact J and constraint. J is the price-newsvendor's closed form (lognormal partial
    expectations, CVaR of a loss nonincreasing in demand). The constraint is exact too:
    P(D > q) = Phi(-z(q)), z(q) = (ln(q / y) + sigma^2/2) / sigma (``exact_constraints``).
    It holds iff q >= q_eps(p) = y(p) exp(sigma Phi^{-1}(1 - eps) - sigma^2/2), a half-plane
    in (p, q) since y is affine: the feasible set is convex.

    Optimum. For a fixed p, J is convex in q with the unconstrained minimiser q_f(p) at the
    CVaR critical fractile (Chen, Xu & Zhang 2009; ``PriceNewsvendor.best_quantity``), so
    the best feasible quantity is max(q_f(p), q_eps(p)) (``best_quantity`` here). The
    profile in p is minimised as the price-newsvendor's (401-point grid, then bounded Brent
    to 1e-12). Wherever F(q_f(p)) < 1 - eps the constraint binds: the critical fractile is
    at most 1 - (c - s)/(p - s) <= 1 - 2/11 = 0.82 with the defaults (risk aversion only
    lowers it), below 1 - eps = 0.95, so q* = q_eps(p*) and P(D > q*) = eps at every lam and
    alpha, while the unconstrained optimum (``price-newsvendor``'s) stocks out on 28 % of
    days at lam 0 and on 42 % at lam 0.5, alpha 0.9.

    Default optima (the constraint binds at each, P(D > q*) = eps): lam 0.5, alpha 0.9:
    x* = (8.951964, 25.295585), J* = -61.138341; lam 0: x* = (8.564065, 28.061097),
    J* = -60.883492; lam 0.7, alpha 0.95: x* = (9.138457, 23.965995), J* = -57.341058.

    Parameters: those of ``price-newsvendor`` (``intercept`` a 50, ``slope`` b 4, ``sigma``
    0.4, ``unit_cost`` c 3, ``salvage`` s 1, ``price_bounds`` (3, 12)) with ``q_max`` 80
    (q_eps(p_lo) <= q_max is required, so that every price has a feasible quantity) and
    ``service`` eps in (0, 1) (0.05). x0 = the riskless price p0 = (a/b + c)/2 with the
    demand's (1 - eps/2)-quantile as the quantity (strictly feasible), clipped into X.
    """

    name = "service-newsvendor"
    #: Changed whenever this problem's scenarios, costs or constraints change
    #: (acfs_cli.core.fingerprint).
    version = "1"
    source = (
        "Petruzzi & Dada (1999), Oper. Res. 47(2) (price-setting newsvendor); Charnes & Cooper "
        "(1959), Manag. Sci. 6(1) (chance-constrained programming); Chen, Xu & Zhang (2009), "
        "Oper. Res. 57(4) (CVaR newsvendor with pricing)"
    )
    #: The declaration with the default chance (each instance states its own).
    stochastic_constraints = [{"name": "stockout", "chance": 0.05}]

    def __init__(
        self,
        intercept=50.0,
        slope=4.0,
        sigma=0.4,
        unit_cost=3.0,
        salvage=1.0,
        price_bounds=(3.0, 12.0),
        q_max=80.0,
        service=0.05,
    ):
        super().__init__(intercept, slope, sigma, unit_cost, salvage, price_bounds, q_max)
        self.eps = check_real(service, "service", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        self.stochastic_constraints = [{"name": "stockout", "chance": self.eps}]
        worst = float(self.service_quantity(self.lo[0]))
        if worst > self.q_max:
            raise ValueError(
                f"q_max must reach the service quantity {worst:.6g} of the lowest price "
                f"(P(D > q) <= {self.eps:g}), got {self.q_max:g}"
            )
        p0 = float(np.clip((self.intercept / self.slope + self.c) / 2.0, self.lo[0], self.hi[0]))
        q0 = self._quantile(p0, 1.0 - 0.5 * self.eps)
        self.x0 = np.array([p0, float(np.clip(q0, self.service_quantity(p0), self.q_max))])

    def _quantile(self, p, u):
        """The demand's u-quantile at price p."""
        return self.mean_demand(p) * np.exp(self.sigma * special.ndtri(u) - 0.5 * self.sigma**2)

    def service_quantity(self, p):
        """q_eps(p): the least quantity with P(D > q) <= eps at price p."""
        return self._quantile(np.asarray(p, dtype=float), 1.0 - self.eps)

    def constraint_values(self, W, x) -> np.ndarray:
        """g = D - q on each scenario row (..., n, 1): the stockout happens where g > 0."""
        W, x = cost_args(W, x, self.dim_w, self.dim_x)
        return (W[..., 0] - x[..., 1])[..., None]

    def exact_constraints(self, x) -> np.ndarray:
        """P(D > q) at decisions (..., 2), shape (..., 1): compare with ``eps``."""
        x = check_x(x, self.dim_x)
        self._check_domain(x)
        return special.ndtr(-self._z(x[..., 1], self.mean_demand(x[..., 0])))[..., None]

    def best_quantity(self, p, lam, alpha):
        """The exact minimiser of J(p, .) over the quantities meeting the service level: J is
        convex in q, so the unconstrained critical fractile raised to q_eps(p)."""
        q = super().best_quantity(p, lam, alpha)
        return np.clip(np.maximum(q, self.service_quantity(p)), 0.0, self.q_max)
