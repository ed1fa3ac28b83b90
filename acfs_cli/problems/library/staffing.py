"""Staffing with a self-service investment under an expected-overtime constraint."""

from __future__ import annotations

import numpy as np
from scipy import optimize, special

from acfs_cli.problems.library._common import (
    BoxMixin,
    TransformMixin,
    bisect_increasing,
    check_batch,
    check_real,
    check_x,
    cost_args,
)


def _pair(value, label: str, lo: float) -> tuple[float, float]:
    try:
        a, b = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{label} must be a pair (lo, hi), got {value!r}") from None
    a = check_real(a, f"{label}[0]", lo=lo)
    return a, check_real(b, f"{label}[1]", lo=a, lo_open=True)


class OvertimeStaffing(TransformMixin, BoxMixin):
    """Regular staff hours and a self-service budget when expected overtime is capped.

    Model. A service desk's daily workload D (hours) is lognormal with a mean that falls with
    the day's spend e on self-service (deflected contacts): D = mu(e) exp(sigma z - sigma^2/2),
    mu(e) = mu0 exp(-e / e_scale), so W = (D,) has a law that moves with the decision. The
    decision is x = (e, q): e in [e_lo, e_hi] and the regular staff hours q in [0, q_max].
    Regular hours cost c each; work beyond q is done as overtime at o > c per hour:
        C(D, x) = e + c q + o (D - q)_+,
    nondecreasing in D (the loss tail is the high-workload tail). A labour agreement caps the
    expected overtime at tau hours a day: E[(D - q)_+] <= tau, declared as
    ``stochastic_constraints = [{"name": "overtime"}]`` with g(D, x) = (D - q)_+ - tau.
    Uncertain-workload staffing as a newsvendor follows Harrison & Zeevi (2005) and Whitt
    (2006).

    Exact J and constraint. With z(m) = (ln(m / mu) + sigma^2/2) / sigma, P(D > m) =
    Phi(-z(m)) and E[D; D > m] = mu Phi(sigma - z(m)), so
    E[(D - q)_+] = mu Phi(sigma - z(q)) - q Phi(-z(q)) (``exact_constraints`` gives this
    minus tau). C is nondecreasing in D, so by the quantile-integral form of CVaR
    (Rockafellar & Uryasev 2000)
        CVaR_alpha(C) = e + c q + o (E[D; D > m] - q P(D > m)) / (1 - alpha),
        m = max(q, d_alpha), d_alpha = F^{-1}(alpha);
    J = E[C] + lam CVaR_alpha(C), all in closed form.

    Optimum. For a fixed e, J is convex in q (C is convex in q for each D) with derivative
    (1 + lam) c - o S(q) - lam o (S(q) / (1 - alpha) if q >= d_alpha else 1),
    S = P(D > .), hence the critical fractile, with r = c / o,
        S(q_f) = (1 + lam) r - lam                 if that exceeds 1 - alpha,
        S(q_f) = (1 + lam) r / (1 + lam / (1 - alpha))   otherwise.
    E[(D - q)_+] decreases in q, so the constraint is q >= q_tau(e), the root of
    E[(D - q)_+] = tau (bisection on the closed form to the last bit), and the best feasible
    quantity is max(q_f(e), q_tau(e)). The profile in e is minimised on a 401-point grid,
    then by bounded Brent to 1e-12. With the defaults the cap binds at the optimum for every
    lam up to 1.25 at alpha in [0.5, 0.99] (beyond, the CVaR term alone staffs past it): at
    lam 0, q_f is the 1/3-quantile of D, and the unconstrained optimum works 9.0 expected
    hours of overtime (4.9 at lam 0.5, alpha 0.9; 3.7 at lam 0.7, alpha 0.95).

    Default optima (the cap binds at each, E[(D - q*)_+] = tau): lam 0.5, alpha 0.9:
    x* = (56.696045, 39.809108), J* = 156.525889; lam 0: x* = (54.459847, 41.988932),
    J* = 98.698779; lam 0.7, alpha 0.95: x* = (60.069957, 36.724888), J* = 184.666981.

    Parameters: ``mu0`` workload without self-service (100 hours), ``e_scale`` (50: each
    e_scale spent divides the mean workload by e), ``sigma`` (0.3), ``regular`` c (1),
    ``overtime`` o > c (1.5), ``cap`` tau > 0 (1.5 hours), ``spend_bounds`` (0, 100), ``q_max``
    (200; it must meet the cap at the lowest spend, so that every e has a feasible q).
    x0 = (mid spend, the mean workload plus three standard deviations there), raised to
    q_tau if needed and clipped into X.
    """

    name = "overtime-staffing"
    #: Changed whenever this problem's scenarios, costs or constraints change
    #: (acfs_cli.core.fingerprint).
    version = "1"
    source = (
        "Harrison & Zeevi (2005), MSOM 7(1) (staffing under uncertain workload as a "
        "newsvendor); Whitt (2006), Prod. Oper. Manag. 15(1); Rockafellar & Uryasev (2000), "
        "J. Risk 2(3) (CVaR)"
    )
    dim_x = 2
    dim_w = 1
    vectorized = True
    stochastic_constraints = [{"name": "overtime"}]

    def __init__(
        self,
        mu0=100.0,
        e_scale=50.0,
        sigma=0.3,
        regular=1.0,
        overtime=1.5,
        cap=1.5,
        spend_bounds=(0.0, 100.0),
        q_max=200.0,
    ):
        self.mu0 = check_real(mu0, "mu0", lo=0.0, lo_open=True)
        self.e_scale = check_real(e_scale, "e_scale", lo=0.0, lo_open=True)
        self.sigma = check_real(sigma, "sigma", lo=0.0, lo_open=True)
        self.c = check_real(regular, "regular", lo=0.0, lo_open=True)
        self.o = check_real(overtime, "overtime", lo=self.c, lo_open=True)
        self.tau = check_real(cap, "cap", lo=0.0, lo_open=True)
        e_lo, e_hi = _pair(spend_bounds, "spend_bounds", 0.0)
        self.q_max = check_real(q_max, "q_max", lo=0.0, lo_open=True)
        self.lo = np.array([e_lo, 0.0])
        self.hi = np.array([e_hi, self.q_max])
        worst = float(self.expected_overtime(np.array([e_lo, self.q_max])))
        if worst > self.tau:
            raise ValueError(
                f"q_max must keep the expected overtime at the lowest spend within the cap "
                f"{self.tau:g}: it is {worst:.6g} at q_max = {self.q_max:g}"
            )
        e0 = 0.5 * (e_lo + e_hi)
        mu = float(self.mean_workload(e0))
        q0 = mu * (1.0 + 3.0 * np.sqrt(np.expm1(self.sigma**2)))
        q0 = float(np.clip(max(q0, self.cap_quantity(e0)), 0.0, self.q_max))
        self.x0 = np.array([e0, q0])

    def mean_workload(self, e):
        return self.mu0 * np.exp(-np.asarray(e, dtype=float) / self.e_scale)

    def transform_batch(self, X, Z) -> np.ndarray:
        X, Z = check_batch(X, Z, self.dim_x, self.dim_w)
        mu = self.mean_workload(X[:, 0])
        return mu[:, None, None] * np.exp(self.sigma * Z - 0.5 * self.sigma**2)

    def cost(self, W, x) -> np.ndarray:
        W, x = cost_args(W, x, self.dim_w, self.dim_x)
        e, q = x[..., 0], x[..., 1]
        return e + self.c * q + self.o * np.maximum(W[..., 0] - q, 0.0)

    def constraint_values(self, W, x) -> np.ndarray:
        """g = (D - q)_+ - tau on each scenario row (..., n, 1): E[g] <= 0 is the cap."""
        W, x = cost_args(W, x, self.dim_w, self.dim_x)
        return (np.maximum(W[..., 0] - x[..., 1], 0.0) - self.tau)[..., None]

    # -- exact values ----------------------------------------------------------------------------
    def _z(self, m, mu):
        """Standardised log level of workload m: P(D <= m) = Phi(z(m))."""
        with np.errstate(divide="ignore"):
            return (np.log(m / mu) + 0.5 * self.sigma**2) / self.sigma

    def _excess(self, m, q, mu):
        """E[(D - q) 1{D > m}] for m >= q (m = q: the expected overtime)."""
        zm = self._z(m, mu)
        return mu * special.ndtr(self.sigma - zm) - q * special.ndtr(-zm)

    def expected_overtime(self, x):
        """E[(D - q)_+] at decisions (..., 2)."""
        x = np.asarray(x, dtype=float)
        return self._excess(x[..., 1], x[..., 1], self.mean_workload(x[..., 0]))

    def exact_constraints(self, x) -> np.ndarray:
        """E[g] = E[(D - q)_+] - tau at decisions (..., 2), shape (..., 1): compare with 0."""
        x = check_x(x, self.dim_x)
        self._check_domain(x)
        return (self.expected_overtime(x) - self.tau)[..., None]

    def _check_domain(self, x) -> None:
        if np.any(x[..., 1] < 0):
            raise ValueError("staff hours must be >= 0")

    def _exact_J(self, x, lam, alpha):
        e, q = x[..., 0], x[..., 1]
        mu = self.mean_workload(e)
        d_alpha = mu * np.exp(self.sigma * special.ndtri(alpha) - 0.5 * self.sigma**2)
        fixed = e + self.c * q
        mean = fixed + self.o * self._excess(q, q, mu)
        cvar = fixed + self.o * self._excess(np.maximum(q, d_alpha), q, mu) / (1.0 - alpha)
        return mean + lam * cvar

    def cap_quantity(self, e):
        """q_tau(e): the least staff hours with E[(D - q)_+] <= tau at spend e."""
        mu = self.mean_workload(e)
        hi = np.full_like(mu, self.q_max)
        # the expected overtime falls in q from mu at q = 0: no staff are needed where mu <= tau
        return bisect_increasing(lambda q: self.tau - self._excess(q, q, mu), 0.0 * mu, hi)

    def fractile_quantity(self, e, lam, alpha):
        """q_f(e): the exact minimiser of J(e, .) over q >= 0 without the cap."""
        r = self.c / self.o
        low = (1.0 + lam) * r - lam
        S = low if low > 1.0 - alpha else (1.0 + lam) * r / (1.0 + lam / (1.0 - alpha))
        return self.mean_workload(e) * np.exp(
            self.sigma * special.ndtri(1.0 - S) - 0.5 * self.sigma**2
        )

    def best_quantity(self, e, lam, alpha):
        """The exact minimiser of J(e, .) over the feasible staff hours [q_tau(e), q_max]."""
        q = np.maximum(self.fractile_quantity(e, lam, alpha), self.cap_quantity(e))
        return np.clip(q, 0.0, self.q_max)

    def _profile(self, e, lam, alpha):
        e = np.asarray(e, dtype=float)
        return self._exact_J(np.stack([e, self.best_quantity(e, lam, alpha)], axis=-1), lam, alpha)

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
        e = res.x if res.fun <= self._profile(grid[k], lam, alpha) else grid[k]
        return np.array([e, float(self.best_quantity(e, lam, alpha))])
