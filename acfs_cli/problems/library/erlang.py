"""Joint pricing and service-rate choice for an Erlang-A call centre (exact birth-death chain)."""

from __future__ import annotations

import numpy as np
from scipy import optimize, special

from acfs_cli.problems.library._common import (
    BoxMixin,
    TransformMixin,
    check_batch,
    check_int,
    check_real,
    cost_args,
)

#: States whose stationary probability is below exp(-_TAIL_LOG) of the mode are cut off
#: (their total mass is far below 1e-16 at every decision, see ``ErlangA.__init__``).
_TAIL_LOG = 45.0


class ErlangA(TransformMixin, BoxMixin):
    """Price and per-agent service rate of an M/M/s+M queue (Erlang-A: impatient callers).

    Model. Calls arrive as a Poisson process whose rate falls with the price p,
    lambda(p) = Lambda exp(-p / beta); s agents each serve at rate mu (the second decision,
    e.g. bought through training or tooling); waiting callers abandon at rate theta. The
    number of calls in the system Q is a birth-death chain with birth rate lambda(p) and death
    rate min(k, s) mu + (k - s)_+ theta in state k. W = (Q,), the number an arriving call
    finds, whose law is the stationary one (PASTA). The decision is x = (p, mu) in
    [p_lo, p_hi] x [mu_lo, mu_hi]. The cost per unit time in state Q is
        C(Q, x) = kappa s mu^2 / 2 - p lambda(p) + p theta (Q - s)_+ + h Q:
    capacity cost, minus the revenue of the arriving calls, plus the revenue lost to callers
    abandoning from the queue, plus a holding (waiting) cost; E[C] is the long-run cost rate.

    Exact J. The stationary law is computed exactly: pi_k proportional to
    prod_{j <= k} lambda / d_j over 0..K, with K chosen at construction so that the cut tail is
    below 1e-18 for the most congested decision in X (Q is stochastically increasing in lambda
    and decreasing in mu). C is nondecreasing in Q, so with k* the smallest state whose CDF
    reaches alpha, CVaR_alpha(C) = C(k*) + sum_k pi_k (C(k) - C(k*))_+ / (1 - alpha) exactly
    (Rockafellar-Uryasev with atoms). J is continuous but only piecewise smooth: it has kinks
    where k* changes.

    Transform: Q = F^{-1}(Phi(z)) with F the exact stationary CDF (inverse-CDF sampling of a
    discrete law by exact comparisons with the CDF, vectorised over decisions and scenarios).

    Optimum. For each price the best service rate is found by a 201-point grid and bounded
    Brent (golden-section steps make it exact on the kinks too), and the profile over the
    price likewise; J is not convex in general.

    Parameters: ``servers`` s in [1, 200] (10), ``Lambda`` potential call rate (30),
    ``beta`` price sensitivity (4), ``patience`` theta > 0 (1), ``kappa`` capacity cost (0.4),
    ``holding`` h >= 0 (1), ``price_bounds`` ((1, 10)), ``rate_bounds`` ((0.5, 4)).
    x0 = (mid price, rate that serves lambda(mid price) at 80 % utilisation), clipped.
    """

    name = "erlang-a"
    #: Changed whenever this problem\'s scenarios or costs change (acfs_cli.core.fingerprint).
    version = "1"
    source = (
        "Garnett, Mandelbaum & Reiman (2002), MSOM 4(3) (Erlang-A, M/M/s+M); Maglaras & "
        "Zeevi (2003), Manag. Sci. 49(8) (joint pricing and capacity sizing)"
    )
    dim_x = 2
    dim_w = 1
    vectorized = True

    def __init__(
        self,
        servers=10,
        Lambda=30.0,
        beta=4.0,
        patience=1.0,
        kappa=0.4,
        holding=1.0,
        price_bounds=(1.0, 10.0),
        rate_bounds=(0.5, 4.0),
    ):
        self.s = check_int(servers, "servers", lo=1, hi=200)
        self.Lambda = check_real(Lambda, "Lambda", lo=0.0, lo_open=True)
        self.beta = check_real(beta, "beta", lo=0.0, lo_open=True)
        self.theta = check_real(patience, "patience", lo=0.0, lo_open=True)
        self.kappa = check_real(kappa, "kappa", lo=0.0)
        self.h = check_real(holding, "holding", lo=0.0)
        lo, hi = [], []
        for label, pair in (("price_bounds", price_bounds), ("rate_bounds", rate_bounds)):
            try:
                a, b = (float(v) for v in pair)
            except (TypeError, ValueError):
                raise ValueError(f"{label} must be a pair (lo, hi), got {pair!r}") from None
            a = check_real(a, f"{label}[0]", lo=0.0, lo_open=label == "rate_bounds")
            b = check_real(b, f"{label}[1]", lo=a, lo_open=True)
            lo.append(a)
            hi.append(b)
        self.lo, self.hi = np.array(lo), np.array(hi)
        self.K = self._truncation()
        self.states = np.arange(self.K + 1.0)
        p0 = 0.5 * (self.lo[0] + self.hi[0])
        mu0 = self.arrival_rate(p0) / (0.8 * self.s)
        self.x0 = np.clip(np.array([p0, mu0]), self.lo, self.hi)

    def arrival_rate(self, p):
        return self.Lambda * np.exp(-np.asarray(p, dtype=float) / self.beta)

    def _log_ratios(self, lam, mu, K):
        """log(lambda / d_k), k = 1..K, for decisions (...,): shape (..., K)."""
        k = np.arange(1.0, K + 1.0)
        death = np.minimum(k, self.s) * mu[..., None] + np.maximum(k - self.s, 0.0) * self.theta
        return np.log(lam[..., None]) - np.log(death)

    def _truncation(self) -> int:
        # Past the mode the ratios lambda / d_k fall below 1 and keep falling (abandonment),
        # so the first state far below the mode bounds a tail that is smaller still.
        lam, mu = np.array(self.arrival_rate(self.lo[0])), np.array(self.lo[1])
        K = 4 * self.s + 64
        while True:
            logp = np.concatenate([[0.0], np.cumsum(self._log_ratios(lam, mu, K))])
            mode = int(np.argmax(logp))
            below = np.nonzero((logp < logp[mode] - _TAIL_LOG) & (np.arange(K + 1) > mode))[0]
            if below.size:
                return int(below[0])
            K *= 2

    def stationary(self, x) -> np.ndarray:
        """Exact stationary law of Q at decisions (..., 2): shape (..., K + 1)."""
        x = np.asarray(x, dtype=float)
        lam, mu = self.arrival_rate(x[..., 0]), x[..., 1]
        logp = np.concatenate(
            [np.zeros(lam.shape + (1,)), np.cumsum(self._log_ratios(lam, mu, self.K), axis=-1)],
            axis=-1,
        )
        return np.exp(logp - special.logsumexp(logp, axis=-1, keepdims=True))

    def _state_cost(self, Q, x):
        """C at numbers in system Q (..., n) and decisions x (..., 1, 2), broadcast."""
        p, mu = x[..., 0], x[..., 1]
        fixed = 0.5 * self.kappa * self.s * mu**2 - p * self.arrival_rate(p)
        return fixed + p * self.theta * np.maximum(Q - self.s, 0.0) + self.h * Q

    def transform_batch(self, X, Z) -> np.ndarray:
        X, Z = check_batch(X, Z, self.dim_x, self.dim_w)
        cdf = np.cumsum(self.stationary(X), axis=-1)[:, None, :-1]  # F_0 .. F_{K-1}
        u = special.ndtr(Z[..., 0])
        # Q = min{k : F_k >= u} = #{k < K : F_k < u} (the cut tail, < 1e-18, goes to K):
        # exact comparisons, in blocks of scenarios to bound the (m, block, K) temporary.
        Q = np.empty(u.shape)
        block = max(1, 4_000_000 // (X.shape[0] * self.K))
        for start in range(0, u.shape[1], block):
            part = u[:, start : start + block, None]
            Q[:, start : start + block] = np.count_nonzero(cdf < part, axis=-1)
        return Q[..., None]

    def cost(self, W, x) -> np.ndarray:
        W, x = cost_args(W, x, self.dim_w, self.dim_x)
        return self._state_cost(W[..., 0], x)

    # -- exact values --------------------------------------------------------------------------
    def _check_domain(self, x) -> None:
        if np.any(x[..., 1] <= 0):
            raise ValueError("service rates must be positive")

    def _exact_J(self, x, lam, alpha):
        pi = self.stationary(x)
        c = self._state_cost(self.states, x[..., None, :])  # (..., K + 1), nondecreasing
        k_star = np.argmax(np.cumsum(pi, axis=-1) >= alpha, axis=-1)
        t = np.take_along_axis(c, k_star[..., None], axis=-1)
        mean = (pi * c).sum(axis=-1)
        cvar = t[..., 0] + (pi * np.maximum(c - t, 0.0)).sum(axis=-1) / (1.0 - alpha)
        return mean + lam * cvar

    def _best_rate(self, p, lam, alpha) -> tuple[float, float]:
        grid = np.linspace(self.lo[1], self.hi[1], 201)
        J = self._exact_J(np.stack([np.full_like(grid, p), grid], axis=-1), lam, alpha)
        k = int(np.argmin(J))
        a, b = grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)]
        res = optimize.minimize_scalar(
            lambda mu: float(self._exact_J(np.array([p, mu]), lam, alpha)),
            bounds=(a, b),
            method="bounded",
            options={"xatol": 1e-11, "maxiter": 500},
        )
        return (res.x, float(res.fun)) if res.fun <= J[k] else (grid[k], float(J[k]))

    def _solve(self, lam, alpha):
        grid = np.linspace(self.lo[0], self.hi[0], 61)
        prof = np.array([self._best_rate(p, lam, alpha)[1] for p in grid])
        k = int(np.argmin(prof))
        a, b = grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)]
        res = optimize.minimize_scalar(
            lambda p: self._best_rate(p, lam, alpha)[1],
            bounds=(a, b),
            method="bounded",
            options={"xatol": 1e-11, "maxiter": 500},
        )
        p = res.x if res.fun <= prof[k] else grid[k]
        return np.array([p, self._best_rate(p, lam, alpha)[0]])
