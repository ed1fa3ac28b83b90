"""A second user's simulator, kept apart from every choice of the default: checked on once,
at the end (a hold-out). Another shape than the shop: seven decisions, every one open above,
Poisson counts drawn by the simulator itself (how many random numbers it uses depends on the
decision, so common random numbers drift apart: DESIGN.md section 3), lam 0.5, alpha 0.9.

Decisions x = (advertising a, depot stock S0, four store stocks S1..S4, couriers v). Demand
at store j is Poisson with mean ``base_j * (1 + 0.8 (1 - exp(-a / 40))) * shock`` (a common
lognormal shock, sd 0.3): advertising raises it with diminishing returns. A store sells from
its own stock, then the depot ships what it has left to the stores short of stock, up to
``courier_capacity`` units per courier (first come, in store order); demand beyond that is
lost, at a goodwill cost. Stock costs its unit cost and is salvaged when left; couriers cost
``courier_cost`` each; advertising costs its amount.

    from depot import Depot      # benchmarks/users on the import path
"""

import numpy as np


class Depot:
    name = "depot"
    dim_x, dim_w = 7, 4
    bounds = [(0.0, np.inf)] * 7
    x0 = np.array([20.0, 40.0, 30.0, 30.0, 30.0, 30.0, 2.0])

    base = np.array([30.0, 22.0, 15.0, 10.0])
    price = 12.0
    store_cost, depot_cost = 6.0, 4.5
    salvage, goodwill = 1.5, 3.0
    courier_cost, courier_capacity = 25.0, 12.0

    def sample(self, x, n, rng):
        a = x[0]
        lift = 1.0 + 0.8 * (1.0 - np.exp(-a / 40.0))
        shock = np.exp(0.3 * rng.standard_normal(n) - 0.045)
        mean = self.base[None, :] * lift * shock[:, None]
        return rng.poisson(mean).astype(float)

    def cost(self, W, x):
        a, S0, S, v = x[0], x[1], x[2:6], x[6]
        sold_store = np.minimum(W, S)
        short = np.maximum(W - S, 0.0)
        ship_cap = np.minimum(S0, self.courier_capacity * v)
        shipped = np.zeros_like(short)
        left_cap = np.full(W.shape[0], ship_cap)
        for j in range(W.shape[1]):
            shipped[:, j] = np.minimum(short[:, j], left_cap)
            left_cap = left_cap - shipped[:, j]
        sold = sold_store.sum(axis=1) + shipped.sum(axis=1)
        lost = (short - shipped).sum(axis=1)
        left = np.maximum(S - W, 0.0).sum(axis=1) + (S0 - shipped.sum(axis=1))
        return (a + self.store_cost * S.sum() + self.depot_cost * S0 + self.courier_cost * v
                - self.price * sold - self.salvage * left + self.goodwill * lost)
