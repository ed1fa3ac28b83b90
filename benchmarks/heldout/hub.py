"""A held-out problem: a regional hub that backs six stores, twelve decisions, nine of them open
above. Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``).

Decisions x = (price p, marketing in two regions m_a and m_b, hub stock H, six store stocks
S1..S6, trucks v, express capacity e). Demand at store j is

    base_j * exp(-0.07 (p - 12)) * (1 + 0.5 (1 - exp(-m_r / 60))) * day * surge * own_j

with a common lognormal day effect (sd 0.25), a store's own lognormal noise (sd 0.3) and a
heavy-tailed surge ``exp(0.9 (z - 1.28)_+)`` (one day in ten, without bound): the price and the
marketing move the demand, the surge sets the tail. A store sells from its own shelf; the hub
ships what it holds to the stores short of stock, up to ``truck_capacity`` units a truck, shared
in proportion to what each lacks; express supply reserved in advance (``e`` units) covers what
is still short, at a premium per unit used; what is left is lost at a goodwill cost. Stock costs
its unit cost and is salvaged when left; a truck and a reserved express unit cost their fee.

Offered as ``transform(x, z)`` (eight normals a row; a scenario is the six demands, the day
effect and the surge), its cost vectorised over decisions: common random numbers are exact.
lam 0.7, alpha 0.95.
"""

import numpy as np


class Hub:
    name = "hub"
    dim_x, dim_w = 12, 8
    vectorized = True
    lam, alpha = 0.7, 0.95
    #: p, m_a, m_b, H, S1..S6, v, e
    bounds = [(6.0, 30.0), (0.0, 200.0), (0.0, 200.0)] + [(0.0, np.inf)] * 9
    x0 = np.array([12.0, 20.0, 20.0, 40.0, 50.0, 40.0, 30.0, 40.0, 25.0, 15.0, 2.0, 20.0])

    base = np.array([60.0, 45.0, 35.0, 50.0, 30.0, 20.0])
    region = np.array([0, 0, 0, 1, 1, 1])
    store_cost, hub_cost, salvage, goodwill = 7.0, 5.5, 2.0, 4.0
    truck_cost, truck_capacity = 40.0, 25.0
    express_fee, express_premium = 2.5, 9.0

    def demand_mean(self, x):
        """Mean demand of each store before the shocks, (..., 6)."""
        x = np.asarray(x, dtype=float)
        p, m = x[..., 0:1], x[..., 1:3]
        lift = 1.0 + 0.5 * (1.0 - np.exp(-m[..., self.region] / 60.0))
        return self.base * np.exp(-0.07 * (p - 12.0)) * lift

    def transform(self, x, z):
        z = np.asarray(z, dtype=float)
        day = np.exp(0.25 * z[..., 0:1] - 0.5 * 0.25**2)
        surge = np.exp(0.9 * np.maximum(z[..., 7:8] - 1.28, 0.0))
        own = np.exp(0.3 * z[..., 1:7] - 0.5 * 0.3**2)
        mean = self.demand_mean(x)[..., None, :]
        demand = mean * day * surge * own
        return np.concatenate([demand, np.broadcast_to(day, demand.shape[:-1] + (1,)),
                               np.broadcast_to(surge, demand.shape[:-1] + (1,))], axis=-1)

    def cost(self, W, x):
        x = np.asarray(x, dtype=float)[..., None, :]
        W = np.asarray(W, dtype=float)[..., :6]
        p, H, S, v, e = x[..., 0], x[..., 3], x[..., 4:10], x[..., 10], x[..., 11]
        m = x[..., 1:3]
        short = np.maximum(W - S, 0.0)
        need = short.sum(axis=-1)
        hub = np.minimum(np.minimum(H, self.truck_capacity * v), need)
        express = np.minimum(e, need - hub)
        lost = need - hub - express
        sold = np.minimum(W, S).sum(axis=-1) + hub + express
        left = np.maximum(S - W, 0.0).sum(axis=-1) + (H - hub)
        fixed = (self.store_cost * S.sum(axis=-1) + self.hub_cost * H + self.truck_cost * v
                 + self.express_fee * e + m.sum(axis=-1))
        return (fixed + self.express_premium * express - p * sold - self.salvage * left
                + self.goodwill * lost)
