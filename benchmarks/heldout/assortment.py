"""A held-out problem with a stochastic constraint: a shop's six products, each with a price
and a stock, under a joint service level. Written to judge the default's constrained search,
never to tune it (benchmarks/bench_declared_peers.py).

Product i sells at price p_i to a lognormal demand whose mean falls with the price,
D_i = (a_i - b_i p_i) exp(sigma_i Z_i - sigma_i^2 / 2) with independent normals Z_i; a unit
stocked costs c_i and one left over is salvaged at v_i. The cost of a day is

    C = sum_i (c_i - v_i) q_i - (p_i - v_i) min(D_i, q_i),

and the shop must have every product in stock on at least 90 % of days:
P(max_i (D_i - q_i) > 0) <= 0.1. Twelve decisions, the six stocks open above; the start
(mid-range prices, stocks of 1.5 times the mean demand there) breaks the service level (all
six in stock on 60 % of days).

Both the mean cost and the service level have closed forms (:func:`expected_cost`,
:func:`in_stock`), so the optimum is found by scipy on them, without acfs
(:func:`optimum`).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, stats

A = np.array([60.0, 45.0, 80.0, 30.0, 50.0, 70.0])
B = np.array([4.0, 2.5, 5.0, 1.5, 3.0, 4.5])
COST = np.array([3.0, 5.0, 4.0, 6.0, 3.5, 4.5])
SALVAGE = 0.3 * COST
SIGMA = np.array([0.3, 0.45, 0.25, 0.5, 0.35, 0.4])
SERVICE = 0.9
LOW_P, HIGH_P = 1.1 * COST, 0.9 * A / B
N = len(A)


class Assortment:
    """Six prices (x[:6]) and six stocks (x[6:]) under a joint service level."""

    name = "assortment"
    dim_x, dim_w = 2 * N, N
    bounds = [(float(lo), float(hi)) for lo, hi in zip(LOW_P, HIGH_P, strict=True)] + [
        (0.0, None)] * N
    stochastic_constraints = [{"name": "stock-out", "chance": 1 - SERVICE}]

    def __init__(self):
        p0 = 0.5 * (LOW_P + HIGH_P)
        self.x0 = np.concatenate([p0, 1.5 * (A - B * p0)]).tolist()

    vectorized = True

    @staticmethod
    def _split(x):
        """Prices and stocks, (..., 1, 6) each: broadcast over the rows of each decision."""
        x = np.asarray(x, dtype=float)
        return x[..., None, :N], x[..., None, N:]

    def transform(self, x, z):
        p, _ = self._split(x)
        return (A - B * p) * np.exp(SIGMA * z - SIGMA**2 / 2)

    def cost(self, W, x):
        p, q = self._split(x)
        return ((COST - SALVAGE) * q - (p - SALVAGE) * np.minimum(W, q)).sum(axis=-1)

    def constraint_values(self, W, x):
        return (W - self._split(x)[1]).max(axis=-1, keepdims=True)


def _z(x):
    p, q = np.asarray(x)[:N], np.asarray(x)[N:]
    y = A - B * p
    return y, q, (np.log(np.maximum(q, 1e-300) / y) + SIGMA**2 / 2) / SIGMA


def expected_cost(x) -> float:
    """E[C] in closed form: E[min(D, q)] = y Phi(z - sigma) + q (1 - Phi(z)) of the
    lognormal demand."""
    p = np.asarray(x)[:N]
    y, q, z = _z(x)
    sold = y * stats.norm.cdf(z - SIGMA) + q * stats.norm.sf(z)
    return float(((COST - SALVAGE) * q - (p - SALVAGE) * sold).sum())


def in_stock(x) -> float:
    """P(every product in stock) = prod_i Phi(z_i)."""
    return float(np.prod(stats.norm.cdf(_z(x)[2])))


def optimum(starts: int = 12, seed: int = 0):
    """x* and J* (= E[C], lam 0) by SLSQP on the closed forms from ``starts`` starts (the
    start's prices with stocks at 1.2-3 times their mean demand, and random ones), the
    service level as log P(in stock) >= log 0.9."""
    rng = np.random.default_rng(seed)
    lo = np.concatenate([LOW_P, np.full(N, 1e-6)])
    hi = np.concatenate([HIGH_P, np.full(N, 10 * A.max())])
    cons = {"type": "ineq", "fun": lambda x: float(
        np.log(max(in_stock(x), 1e-300)) - np.log(SERVICE))}
    best = None
    for k in range(starts):
        p = LOW_P + rng.uniform(0.2, 0.8, N) * (HIGH_P - LOW_P) if k else 0.5 * (LOW_P + HIGH_P)
        q = (A - B * p) * (1.2 + 1.8 * rng.uniform(size=N))
        res = optimize.minimize(expected_cost, np.concatenate([p, q]), method="SLSQP",
                                bounds=list(zip(lo, hi, strict=True)), constraints=[cons],
                                options={"ftol": 1e-12, "maxiter": 1000})
        if res.success and in_stock(res.x) >= SERVICE - 1e-9 and (
                best is None or res.fun < best.fun):
            best = res
    return best.x, float(best.fun)
