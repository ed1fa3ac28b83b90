"""Performative multi-product pricing: Gaussian demand that shifts with the prices (any dim)."""

from __future__ import annotations

import numpy as np

from acfs_cli.problems.library._common import (
    BoxMixin,
    TransformMixin,
    check_batch,
    check_int,
    check_real,
    cost_args,
    gaussian_cvar_factor,
    minimize_box,
)


class PerformativePricing(TransformMixin, BoxMixin):
    """Pricing d substitutable products when demand reacts to the posted prices.

    Model. Prices x in [0, price_cap]^d (d = ``dim``). Demand W in R^d (dim_w = d) follows
    the location family of performative prediction, W ~ N(mu0 - E x, Sigma): raising price j
    lowers its own demand (E_jj > 0) and raises the others' (substitutes, E_jk < 0). W is
    mu0 - E x + L z with L the Cholesky factor of Sigma. The loss is minus the profit,
    C(W, x) = -(x - c 1) . W with unit cost c.

    Instance (deterministic formulas, any d >= 1; index j = 0..d-1):
        mu0_j = 10 + 4 sin(1.7 j + 0.3),  E_jj = 1 + 0.25 (1 + cos(2.3 j + 0.5)),
        E_jk = -cross / (d - 1) for j != k,
        Sigma = factor^2 1 1^T + diag(sd_j^2),  sd_j = noise (1 + 0.3 sin(0.9 j)).
    The symmetric part of E has eigenvalues >= 1 - cross > 0, so the mean loss is a strictly
    convex quadratic.

    Exact J. Given x the loss is Gaussian with mean m(x) = -(x - c) . (mu0 - E x) and
    standard deviation s(x) = ||L^T (x - c)||, so
        J(x) = (1 + lam) m(x) + lam s(x) phi(Phi^{-1}(alpha)) / (1 - alpha).

    Optimum. J is convex (a strictly convex quadratic plus a norm), smooth away from x = c 1;
    L-BFGS-B with the analytic gradient from x0 and from the box centre reaches it. At the
    defaults the products with large base demand are priced at the cap (a face), the others
    in the interior.

    Parameters: ``dim`` d in [1, 200] (10), ``price_cap`` (8), ``unit_cost`` c in
    [0, price_cap) (3), ``cross`` substitution strength in [0, 1) (0.3), ``noise`` > 0
    idiosyncratic scale (1), ``factor`` >= 0 common demand shock (0.8).
    x0 = cost-plus pricing with a 50 % mark-up, 1.5 c, clipped into X.
    """

    name = "performative-pricing"
    #: Changed whenever this problem\'s scenarios or costs change (acfs_cli.core.fingerprint).
    version = "1"
    source = (
        "Izzo, Ying & Zou (2021), ICML (performative gradient descent; pricing with Gaussian "
        "demand shifting with the price); Perdomo et al. (2020), ICML: d products, "
        "W ~ N(mu0 - E x, Sigma), loss = minus profit"
    )
    vectorized = True

    def __init__(self, dim=10, price_cap=8.0, unit_cost=3.0, cross=0.3, noise=1.0, factor=0.8):
        d = check_int(dim, "dim", lo=1, hi=200)
        self.dim_x = self.dim_w = d
        self.price_cap = check_real(price_cap, "price_cap", lo=0.0, lo_open=True)
        self.unit_cost = check_real(unit_cost, "unit_cost", lo=0.0, hi=self.price_cap, hi_open=True)
        cross = check_real(cross, "cross", lo=0.0, hi=1.0, hi_open=True)
        noise = check_real(noise, "noise", lo=0.0, lo_open=True)
        factor = check_real(factor, "factor", lo=0.0)
        j = np.arange(d)
        self.mu0 = 10.0 + 4.0 * np.sin(1.7 * j + 0.3)
        E = -cross / max(d - 1, 1) * (1.0 - np.eye(d))
        E[j, j] = 1.0 + 0.25 * (1.0 + np.cos(2.3 * j + 0.5))
        self.E = E
        sd = noise * (1.0 + 0.3 * np.sin(0.9 * j))
        self.Sigma = factor**2 * np.ones((d, d)) + np.diag(sd**2)
        self.L = np.linalg.cholesky(self.Sigma)
        self.lo = np.zeros(d)
        self.hi = np.full(d, self.price_cap)
        self.x0 = np.clip(np.full(d, 1.5 * self.unit_cost), self.lo, self.hi)

    def transform_batch(self, X, Z) -> np.ndarray:
        X, Z = check_batch(X, Z, self.dim_x, self.dim_w)
        return (self.mu0 - X @ self.E.T)[:, None, :] + Z @ self.L.T

    def cost(self, W, x) -> np.ndarray:
        W, x = cost_args(W, x, self.dim_w, self.dim_x)
        margin = x - self.unit_cost  # (..., 1, d)
        return -np.matmul(W, np.swapaxes(margin, -1, -2))[..., 0]

    # -- exact values ------------------------------------------------------------------------
    def moments(self, x) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation of the (Gaussian) loss at decisions (..., d)."""
        margin = x - self.unit_cost
        m = -(margin * (self.mu0 - x @ self.E.T)).sum(axis=-1)
        s = np.linalg.norm(margin @ self.L, axis=-1)
        return m, s

    def _exact_J(self, x, lam, alpha):
        m, s = self.moments(x)
        return (1.0 + lam) * m + lam * gaussian_cvar_factor(alpha) * s

    def _grad(self, x, lam, alpha):
        margin = x - self.unit_cost
        g_m = -self.mu0 + self.E @ x + self.E.T @ margin
        v = self.Sigma @ margin
        s = np.sqrt(max(float(margin @ v), 0.0))
        g_s = v / s if s > 0 else np.zeros_like(v)
        return (1.0 + lam) * g_m + lam * gaussian_cvar_factor(alpha) * g_s

    def _solve(self, lam, alpha):
        starts = [self.x0, 0.5 * (self.lo + self.hi)]
        return minimize_box(
            lambda v: float(self._exact_J(v, lam, alpha)),
            starts,
            self.lo,
            self.hi,
            grad=lambda v: self._grad(v, lam, alpha),
        )
