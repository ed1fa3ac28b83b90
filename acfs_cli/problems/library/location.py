"""Competitive store location (Huff gravity model): two cities, two separated local minima."""

from __future__ import annotations

import numpy as np
from scipy import special

from acfs_cli.problems.library._common import (
    BoxMixin,
    TransformMixin,
    check_batch,
    check_real,
    check_risk,
    check_vector,
    cost_args,
    minimize_box,
)


class HuffLocation(TransformMixin, BoxMixin):
    """Where to open one store in a region with two cities, each served by a competitor.

    Model. The decision is the site x in the square [0, side]^2. City i (centre c_i, buying
    power N_i) splits its spending between our store and the incumbent by Huff's gravity
    rule: our attraction u_i(x) = 1 / (1 + ||x - c_i||^2 / ell^2), share
    s_i(x) = u_i / (u_i + a_i) with a_i the incumbent's attraction, so the mean demand is
    mu(x) = sum_i N_i s_i(x). Realised demand is lognormal with that mean and a variance
    theta mu(x) (Poisson-like overdispersion), D = mu exp(sigma z - sigma^2/2) with
    sigma^2(x) = ln(1 + theta / mu(x)): both the level and the relative noise of demand move
    with the site. W = (D,), dim_w = 1. Rents peak in the city centres,
    F(x) = f0 + sum_i R_i exp(-||x - c_i||^2 / (2 rho^2)), and the loss is
    C(D, x) = F(x) - r D (minus the operating profit at unit margin r).

    Exact J. C decreases in D, so its upper tail is the lower tail of D, whose mean below the
    (1 - alpha)-quantile is mu Phi(Phi^{-1}(1 - alpha) - sigma) / (1 - alpha):
        J(x) = (1 + lam) F(x) - r mu(x) [1 + lam Phi(Phi^{-1}(1 - alpha) - sigma(x)) / (1 - alpha)].

    Two local minima (the point of this problem). Each city draws a basin around its centre
    (pulled slightly towards the other city); a ridge between the cities separates them. At
    alpha 0.95, lam 0.7 the global minimum lies near the large but contested city 2,
    J = -37.801 at (7.459, 6.967), and the local one near the small city 1, J = -26.493 at
    (2.606, 3.085); the segment between them rises to J = -13.4 near the centre of the square.
    A local method started around city 1 (e.g. at (2, 2), (3, 4) or (4, 3)) stays in its
    basin (a long first step from far out, e.g. L-BFGS-B from a corner, may jump the ridge
    either way). ``local_minima`` returns both, best first (every discrete minimum of J on a
    101 x 101 grid starts L-BFGS-B with the analytic gradient); ``optimum`` is the first.
    J is not convex.

    Parameters: ``side`` of the square (10), ``centres`` ((2.5, 3), (7.5, 7)), ``power`` N
    ((50, 110)), ``incumbent`` a ((0.5, 1.2)), ``ell`` distance scale (1.2), ``theta``
    overdispersion (20), ``margin`` r (1), ``rents`` R ((4, 10)), ``rent_scale`` rho (0.8),
    ``fixed`` f0 (5). x0 = the centre of the square (the naive central site), on the ridge
    between the basins.
    """

    name = "huff-location"
    #: Changed whenever this problem\'s scenarios or costs change (acfs_cli.core.fingerprint).
    version = "1"
    source = (
        "Huff (1964), J. Marketing 28(3) (gravity model of store choice); Drezner & Drezner "
        "(2004), Comput. Manag. Sci. 1 (Huff location objectives have several local optima): "
        "one store, two cities, lognormal demand"
    )
    dim_x = 2
    dim_w = 1
    vectorized = True

    def __init__(
        self,
        side=10.0,
        centres=((2.5, 3.0), (7.5, 7.0)),
        power=(50.0, 110.0),
        incumbent=(0.5, 1.2),
        ell=1.2,
        theta=20.0,
        margin=1.0,
        rents=(4.0, 10.0),
        rent_scale=0.8,
        fixed=5.0,
    ):
        self.side = check_real(side, "side", lo=0.0, lo_open=True)
        try:
            c = np.array(centres, dtype=float)
        except (TypeError, ValueError):
            raise ValueError("centres must be two (x, y) pairs") from None
        if c.shape != (2, 2) or not np.all(np.isfinite(c)):
            raise ValueError(f"centres must be two finite (x, y) pairs, got {centres!r}")
        if np.any((c < 0) | (c > self.side)):
            raise ValueError("centres must lie in the square [0, side]^2")
        self.centres = c
        self.power = check_vector(power, "power", 2, lo=0.0, lo_open=True)
        self.incumbent = check_vector(incumbent, "incumbent", 2, lo=0.0, lo_open=True)
        self.ell = check_real(ell, "ell", lo=0.0, lo_open=True)
        self.theta = check_real(theta, "theta", lo=0.0, lo_open=True)
        self.margin = check_real(margin, "margin", lo=0.0, lo_open=True)
        self.rents = check_vector(rents, "rents", 2, lo=0.0)
        self.rent_scale = check_real(rent_scale, "rent_scale", lo=0.0, lo_open=True)
        self.fixed = check_real(fixed, "fixed")
        self.lo = np.zeros(2)
        self.hi = np.full(2, self.side)
        self.x0 = np.full(2, 0.5 * self.side)

    # -- the model -----------------------------------------------------------------------------
    def _sq_dist(self, x):
        return ((x[..., None, :] - self.centres) ** 2).sum(axis=-1)  # (..., 2 cities)

    def mean_demand(self, x):
        u = 1.0 / (1.0 + self._sq_dist(x) / self.ell**2)
        return (self.power * u / (u + self.incumbent)).sum(axis=-1)

    def rent(self, x):
        bumps = np.exp(-0.5 * self._sq_dist(x) / self.rent_scale**2)
        return self.fixed + (self.rents * bumps).sum(axis=-1)

    def _sigma(self, mu):
        return np.sqrt(np.log1p(self.theta / mu))

    def transform_batch(self, X, Z) -> np.ndarray:
        X, Z = check_batch(X, Z, self.dim_x, self.dim_w)
        mu = self.mean_demand(X)[:, None, None]
        sig = self._sigma(mu)
        return mu * np.exp(sig * Z - 0.5 * sig**2)

    def cost(self, W, x) -> np.ndarray:
        W, x = cost_args(W, x, self.dim_w, self.dim_x)
        return self.rent(x) - self.margin * W[..., 0]

    # -- exact values --------------------------------------------------------------------------
    def _exact_J(self, x, lam, alpha):
        mu = self.mean_demand(x)
        low_tail = special.ndtr(special.ndtri(1.0 - alpha) - self._sigma(mu)) / (1.0 - alpha)
        return (1.0 + lam) * self.rent(x) - self.margin * mu * (1.0 + lam * low_tail)

    def _value_grad(self, x, lam, alpha):
        """J and its gradient at one site (closed form, for the local searches)."""
        diff = x - self.centres  # (2 cities, 2)
        u = 1.0 / (1.0 + (diff**2).sum(axis=-1) / self.ell**2)
        grad_u = -2.0 * (u**2)[:, None] * diff / self.ell**2
        mu = float((self.power * u / (u + self.incumbent)).sum())
        dmu_du = self.power * self.incumbent / (u + self.incumbent) ** 2
        grad_mu = (dmu_du[:, None] * grad_u).sum(axis=0)
        bumps = self.rents * np.exp(-0.5 * (diff**2).sum(axis=-1) / self.rent_scale**2)
        F = self.fixed + bumps.sum()
        grad_F = -(bumps[:, None] * diff).sum(axis=0) / self.rent_scale**2
        sig = float(self._sigma(mu))
        arg = special.ndtri(1.0 - alpha) - sig
        tail = special.ndtr(arg) / (1.0 - alpha)
        dsig_dmu = -self.theta / (2.0 * sig * mu * (mu + self.theta))
        dtail_dmu = -np.exp(-0.5 * arg**2) / np.sqrt(2 * np.pi) / (1.0 - alpha) * dsig_dmu
        J = (1.0 + lam) * F - self.margin * mu * (1.0 + lam * tail)
        dJ_dmu = -self.margin * (1.0 + lam * tail + lam * mu * dtail_dmu)
        return J, (1.0 + lam) * grad_F + dJ_dmu * grad_mu

    def local_minima(self, lam, alpha) -> list[tuple[np.ndarray, float]]:
        """The distinct local minima of J on X, best first.

        Every local minimum of the 101 x 101 grid (no lower neighbour among the 8) starts an
        L-BFGS-B search with the analytic gradient; the landscape is smooth on the scale of
        the grid step, so no basin is missed.
        """
        lam, alpha = check_risk(lam, alpha)
        cache = self.__dict__.setdefault("_minima_cache", {})
        if (lam, alpha) not in cache:
            g = np.linspace(0.0, self.side, 101)
            G = np.stack(np.meshgrid(g, g, indexing="ij"), axis=-1)
            J = np.pad(self._exact_J(G, lam, alpha), 1, constant_values=np.inf)
            centre = J[1:-1, 1:-1]
            is_min = np.ones(centre.shape, dtype=bool)
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    if di or dj:
                        is_min &= (
                            centre <= J[1 + di : J.shape[0] - 1 + di, 1 + dj : J.shape[1] - 1 + dj]
                        )
            found: list[tuple[np.ndarray, float]] = []
            for start in G[is_min]:
                x = minimize_box(
                    None,
                    [start],
                    self.lo,
                    self.hi,
                    value_and_grad=lambda v: self._value_grad(v, lam, alpha),
                )
                f = float(self._exact_J(x, lam, alpha))
                if all(np.linalg.norm(x - y) > 1e-4 * self.side for y, _ in found):
                    found.append((x, f))
            found.sort(key=lambda item: item[1])
            cache[(lam, alpha)] = found
        return [(x.copy(), f) for x, f in cache[(lam, alpha)]]

    def _solve(self, lam, alpha):
        return self.local_minima(lam, alpha)[0][0]
