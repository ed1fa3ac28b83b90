"""Service-rate choice in a two-station tandem of FCFS M/M/1 queues (sample-only simulator)."""

from __future__ import annotations

import numpy as np

from acfs_cli.problems.library._common import (
    BoxMixin,
    bisect_increasing,
    check_n,
    check_real,
    check_single_x,
    check_vector,
    cost_args,
    minimize_box,
)


def _g(y: np.ndarray) -> np.ndarray:
    """(1 - exp(-y)) / y, continued by 1 at y = 0 (precise for small y through expm1)."""
    safe = np.where(y == 0.0, 1.0, y)
    return np.where(y == 0.0, 1.0, -np.expm1(-safe) / safe)


def hypoexp_tail(t, a, b) -> tuple[np.ndarray, np.ndarray]:
    """Survival S(t) and stop-loss E[(T - t)_+] of T = E_1/a + E_2/b (E_i iid Exp(1)), a <= b.

    The textbook forms (b e^{-at} - a e^{-bt}) / (b - a) cancel catastrophically as b -> a;
    with d = b - a they are e^{-at} (1 + a t g(dt)) and e^{-at} ((a + b)/(ab) + (a/b) t g(dt)),
    which are exact and stable down to the Erlang case d = 0.
    """
    d = b - a
    e = np.exp(-a * t)
    tg = t * _g(d * t)
    return e * (1.0 + a * tg), e * ((a + b) / (a * b) + (a / b) * tg)


class TandemMM1(BoxMixin):
    """Risk-averse service-rate choice for two FCFS M/M/1 stations in tandem.

    Model. Customers arrive as a Poisson process of rate ``arrival`` (lambda) at station 1,
    are served FCFS at rate mu_1, then join station 2 (rate mu_2). The decision is
    x = (mu_1, mu_2) in the box [lambda + min_gap, mu_max]^2. W = (T_1, T_2) are a stationary
    customer's sojourn times at the two stations, and the cost adds the capacity cost of
    SimOpt's MM1 problem: C(W, x) = c_1 mu_1^2 + c_2 mu_2^2 + T_1 + T_2.

    Law of W. In steady state T_i ~ Exp(mu_i - lambda), and T_1, T_2 are independent
    (Burke's output theorem and Reich 1957), so T = T_1 + T_2 is hypoexponential.

    Simulator (sample-only, no ``transform``). Each station is simulated event by event for a
    tagged arriving customer: the number N_i already in the station is drawn from the law
    an arrival sees (PASTA: geometric, P(N = k) = (1 - rho) rho^k, rho = lambda/mu_i), then the
    N_i + 1 service completions up to its own departure are drawn one by one as Exp(mu_i)
    (memorylessness makes the residual service of the customer in service Exp(mu_i) too).
    Station i consumes n geometric draws and on average n / (1 - rho_i) exponential ones, a
    number that grows without bound as mu_i falls to lambda: the use of the random stream
    depends on the decision.

    Exact J. With K = c_1 mu_1^2 + c_2 mu_2^2 and a_i = mu_i - lambda,
    J = (1 + lam) K + 1/a_1 + 1/a_2 + lam CVaR_alpha(T), where
    CVaR_alpha(T) = t + E[(T - t)_+] / (1 - alpha) with t the alpha-quantile of T, found by
    bisection on the closed-form survival function; the stop-loss E[(T - t)_+] is closed form
    (see ``hypoexp_tail``).

    Optimum. J is convex (CVaR is monotone and sublinear, T is a nonnegative combination of
    1/a_1, 1/a_2, which are convex) and smooth; L-BFGS-B from x0 reaches the interior minimum.

    Parameters: ``arrival`` lambda > 0 (1.5), ``cost`` (c_1, c_2) > 0 ((0.05, 0.4)),
    ``mu_max`` upper bound of each rate (8), ``min_gap`` > 0 keeping mu_i >= lambda + min_gap
    (0.1; at the lower bound a station's mean sojourn is 1/min_gap).
    x0 = (2 lambda, 2 lambda) clipped into X: both stations at 50 % utilisation.
    """

    name = "tandem-mm1"
    #: Changed whenever this problem\'s scenarios or costs change (acfs_cli.core.fingerprint).
    version = "1"
    source = (
        "Eckman, Henderson & Shashaani (2023), INFORMS J. Comput. (SimOpt MM1: c mu^2 + "
        "sojourn time), extended to two tandem FCFS M/M/1 stations (Reich 1957, Ann. Math. "
        "Stat.) with a CVaR term"
    )
    dim_x = 2
    dim_w = 2
    vectorized = True

    def __init__(self, arrival=1.5, cost=(0.05, 0.4), mu_max=8.0, min_gap=0.1):
        self.arrival = check_real(arrival, "arrival", lo=0.0, lo_open=True)
        self.cost_coef = check_vector(cost, "cost", 2, lo=0.0, lo_open=True)
        self.min_gap = check_real(min_gap, "min_gap", lo=0.0, lo_open=True)
        self.mu_max = check_real(mu_max, "mu_max")
        if self.mu_max <= self.arrival + self.min_gap:
            raise ValueError(
                f"mu_max must exceed arrival + min_gap = {self.arrival + self.min_gap}, "
                f"got {self.mu_max}"
            )
        self.lo = np.full(2, self.arrival + self.min_gap)
        self.hi = np.full(2, self.mu_max)
        self.x0 = np.clip(np.full(2, 2.0 * self.arrival), self.lo, self.hi)

    # -- the simulator -----------------------------------------------------------------------
    def sample(self, x, n, rng: np.random.Generator) -> np.ndarray:
        """Sojourn times (T_1, T_2) of n independent stationary customers, shape (n, 2)."""
        x = check_single_x(x, self.dim_x)
        n = check_n(n)
        if np.any(x <= self.arrival):
            raise ValueError(f"service rates must exceed the arrival rate {self.arrival}, got {x}")
        W = np.zeros((n, 2))
        if n == 0:
            return W
        for i, mu in enumerate(x):
            rho = self.arrival / mu
            in_system = rng.geometric(1.0 - rho, size=n) - 1  # seen on arrival (PASTA)
            completions = in_system + 1  # those ahead, then the customer's own service
            services = rng.exponential(1.0 / mu, size=int(completions.sum()))
            starts = np.concatenate(([0], np.cumsum(completions)[:-1]))
            W[:, i] = np.add.reduceat(services, starts)
        return W

    def cost(self, W, x) -> np.ndarray:
        W, x = cost_args(W, x, self.dim_w, self.dim_x)
        return (self.cost_coef * x**2).sum(axis=-1) + W.sum(axis=-1)

    # -- exact values ------------------------------------------------------------------------
    def _check_domain(self, x) -> None:
        if np.any(x <= self.arrival):
            raise ValueError(f"service rates must exceed the arrival rate {self.arrival}")

    def _exact_J(self, x, lam, alpha):
        K = (self.cost_coef * x**2).sum(axis=-1)
        rates = x - self.arrival
        a, b = rates.min(axis=-1), rates.max(axis=-1)
        mean_T = 1.0 / a + 1.0 / b
        # S(t) <= e^{-at}(1 + at) puts the alpha-quantile below hi for every alpha.
        hi = (10.0 - 2.0 * np.log1p(-alpha)) / a
        t = bisect_increasing(lambda s: (1.0 - alpha) - hypoexp_tail(s, a, b)[0], 0.0, hi)
        cvar_T = t + hypoexp_tail(t, a, b)[1] / (1.0 - alpha)
        return (1.0 + lam) * K + mean_T + lam * cvar_T

    def _solve(self, lam, alpha):
        return minimize_box(lambda v: self._exact_J(v, lam, alpha), [self.x0], self.lo, self.hi)
