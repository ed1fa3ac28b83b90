"""A tuning problem: a ride-hailing fleet over twelve zones, fourteen decisions, thirteen of them
open above. Written to try changes of the default on before they are run on the held-out
problems (``benchmarks/heldout``); its optimum is found without acfs
(``benchmarks/heldout/find_optima.py --problems fleet``).

Decisions x = (fare p, marketing a, vehicles f_1..f_12 in each zone). Zone j's demand is

    base_j * exp(-0.08 (p - 10)) * (1 + 0.6 (1 - exp(-a / 40))) * event * own_j

with a city-wide heavy-tailed event ``exp(0.8 (z - 1)_+)`` (about one day in six, without bound)
and a zone's own lognormal noise (sd 0.35). A vehicle serves ``rides`` trips a day in its zone;
the vehicles idle anywhere serve ``pooling`` of the trips the busy zones miss; a trip missed
costs goodwill. A vehicle-day costs ``vehicle_cost``; marketing costs what it spends.

x0 is a uniform fleet of 5 a zone at a fare of 10 with 30 of marketing: the optimum's fleet
ranges from about half to three times that, and its marketing lies several times x0 away.
Offered as ``transform(x, z)`` (thirteen normals a row; a scenario is the twelve demands and the
event), its cost vectorised over decisions.
lam 0.7, alpha 0.95.
"""

import numpy as np


class Fleet:
    name = "fleet"
    dim_x, dim_w = 14, 13
    vectorized = True
    lam, alpha = 0.7, 0.95
    bounds = [(4.0, 40.0), (0.0, np.inf)] + [(0.0, np.inf)] * 12
    x0 = np.array([10.0, 30.0] + [5.0] * 12)

    base = np.array([30.0, 60.0, 15.0, 90.0, 45.0, 20.0, 120.0, 35.0, 50.0, 25.0, 70.0, 40.0])
    rides, vehicle_cost, goodwill, pooling = 8.0, 22.0, 3.0, 0.3

    def demand_mean(self, x):
        """Mean demand of each zone before the shocks, (..., 12)."""
        x = np.asarray(x, dtype=float)
        p, a = x[..., 0:1], x[..., 1:2]
        return self.base * np.exp(-0.08 * (p - 10.0)) * (1.0 + 0.6 * (1.0 - np.exp(-a / 40.0)))

    def transform(self, x, z):
        z = np.asarray(z, dtype=float)
        event = np.exp(0.8 * np.maximum(z[..., 0:1] - 1.0, 0.0))
        own = np.exp(0.35 * z[..., 1:13] - 0.5 * 0.35**2)
        demand = self.demand_mean(x)[..., None, :] * event * own
        return np.concatenate([demand, np.broadcast_to(event, demand.shape[:-1] + (1,))],
                              axis=-1)

    def cost(self, W, x):
        x = np.asarray(x, dtype=float)[..., None, :]
        W = np.asarray(W, dtype=float)[..., :12]
        p, a, f = x[..., 0], x[..., 1], x[..., 2:14]
        capacity = self.rides * f
        served = np.minimum(W, capacity)
        missed = (W - served).sum(axis=-1)
        idle = (capacity - served).sum(axis=-1)
        pooled = np.minimum(self.pooling * missed, idle)
        trips = served.sum(axis=-1) + pooled
        return (self.vehicle_cost * f.sum(axis=-1) + a - p * trips
                + self.goodwill * (missed - pooled))
