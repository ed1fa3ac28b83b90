"""A held-out problem: a car-rental network of five zones over a week, thirteen decisions, eight
of them open above. Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``).

Decisions x = (the day rates p1..p5 of the zones (downtown, midtown, the north and the south
suburbs, the airport), the cars leased for the week and placed in each zone F1..F5, the
overnight rebalancing capacity Rb (cars a night), spare cars M held in the workshop, cars a day
that can be leased in at short notice from a partner, Lp). Demand of zone j on day t is

    base_j * exp(-slope_j (p_j - ref_j)) * dow_tj * market_t * shock^(weight_j) * own_tj

with a day's lognormal market effect common to the zones (sd 0.1), a zone-day's own lognormal
noise (sd 0.25) and a heavy-tailed shock ``exp(0.9 (z - 1.28)_+)`` (a strike of the trains, a
festival: one week in ten, without bound) weighted towards downtown and the airport: the rates
move the demand. A rental lasts a day: each zone rents what it holds; what it lacks is served
by the cars leased in, up to Lp a day shared in proportion to each zone's shortfall, at a
premium; the rest is lost at a goodwill cost. The cars rented in zone j are returned the next
morning to zone k in the share ``route[j, k]`` (one-way rentals drift the fleet towards the
airport and downtown); a share of them (lognormal, mean 2 %, the same all week) comes back
damaged and leaves the fleet for the rest of the week, replaced from the spares while they
last. Each of the six nights the rebalancing trucks move up to Rb cars from the zones above
their share of the fleet placed (F_j / sum F of the cars at hand) to those below, in
proportion. Costs: the lease of the fleet and of the spares, the rebalancing capacity and each
move, the partner's option and its premium, goodwill, repairs; the firm earns its zone's rate
on each rental.

Offered as ``transform(x, z)`` (forty-four normals a row; a scenario is the thirty-five demands,
zone by zone, the seven market effects, the damage share and the shock), its cost vectorised
over decisions: common random numbers are exact. lam 0.6, alpha 0.9.
"""

import numpy as np

N, T = 5, 7


class FleetLease:
    name = "fleetlease"
    dim_x, dim_w = 2 * N + 3, N * T + T + 2
    vectorized = True
    lam, alpha = 0.6, 0.9
    #: p1..p5, F1..F5, Rb, M, Lp
    bounds = [(20.0, 200.0)] * N + [(0.0, np.inf)] * (N + 3)
    x0 = np.array([75.0] * N + [40.0] * N + [10.0, 5.0, 15.0])

    base = np.array([70.0, 55.0, 30.0, 25.0, 60.0])  # rentals a day at the reference rates
    ref = np.array([45.0, 45.0, 40.0, 40.0, 60.0])
    slope = np.array([0.025, 0.03, 0.035, 0.035, 0.015])
    weight = np.array([1.0, 0.7, 0.3, 0.3, 1.0])  # of the shock
    #: the day-of-week pattern, (7, 5): weekends busier in the suburbs, the airport on Fri, Sun
    dow = np.array([[1.1, 1.1, 0.8, 0.8, 1.0],
                    [1.0, 1.0, 0.8, 0.8, 0.9],
                    [1.0, 1.0, 0.8, 0.8, 0.9],
                    [1.0, 1.05, 0.9, 0.9, 1.0],
                    [1.0, 1.1, 1.1, 1.1, 1.3],
                    [0.8, 0.9, 1.5, 1.4, 1.0],
                    [0.7, 0.8, 1.3, 1.3, 1.3]])
    #: route[j, k]: of the cars rented in zone j, the share returned to zone k
    route = np.array([[0.55, 0.15, 0.05, 0.05, 0.20],
                      [0.25, 0.45, 0.05, 0.05, 0.20],
                      [0.20, 0.10, 0.50, 0.05, 0.15],
                      [0.20, 0.10, 0.05, 0.50, 0.15],
                      [0.35, 0.20, 0.10, 0.10, 0.25]])
    lease_cost, spare_cost = 210.0, 90.0  # a car-week
    rebalance_fee, move_cost = 12.0, 8.0  # a unit of capacity a night, a car moved
    option_fee, premium = 10.0, 60.0  # a leased-in car reserved a day, one used
    goodwill, repair = 90.0, 400.0  # a lost rental, a damaged car

    def demand_mean(self, x):
        """Mean daily demand of each zone at the reference day, (..., 5)."""
        x = np.asarray(x, dtype=float)
        return self.base * np.exp(-self.slope * (x[..., :N] - self.ref))

    def transform(self, x, z):
        z = np.asarray(z, dtype=float)
        own = np.exp(0.25 * z[..., :N * T] - 0.5 * 0.25**2)
        market = np.exp(0.1 * z[..., N * T:N * T + T] - 0.5 * 0.1**2)
        damage = 0.02 * np.exp(0.5 * z[..., N * T + T:N * T + T + 1] - 0.5 * 0.5**2)
        shock = np.exp(0.9 * np.maximum(z[..., N * T + T + 1:] - 1.28, 0.0))
        # zone j of day t in column j T + t
        pattern = self.dow.T.ravel() * np.repeat(shock ** self.weight, T, axis=-1)
        mean = np.repeat(self.demand_mean(x), T, axis=-1)[..., None, :]
        demand = mean * pattern * np.tile(market, N) * own
        ones = demand.shape[:-1] + (1,)
        return np.concatenate([demand, np.broadcast_to(market, ones[:-1] + (T,)),
                               np.broadcast_to(damage, ones), np.broadcast_to(shock, ones)],
                              axis=-1)

    def cost(self, W, x):
        x = np.asarray(x, dtype=float)[..., None, :]
        W = np.asarray(W, dtype=float)
        demand, damage = W[..., :N * T], W[..., N * T + T:N * T + T + 1]
        p, F = x[..., :N], x[..., N:2 * N]
        Rb, M, Lp = x[..., 2 * N], x[..., 2 * N + 1], x[..., 2 * N + 2]
        shape = np.broadcast_shapes(demand.shape[:-1] + (N,), F.shape)
        cars = F + np.zeros(shape)
        spares = M + np.zeros(shape[:-1])
        share = F / np.maximum(F.sum(axis=-1, keepdims=True), 1e-12)  # the placement
        total = (self.lease_cost * F.sum(axis=-1) + self.spare_cost * M
                 + T * (self.rebalance_fee * Rb + self.option_fee * Lp)) + np.zeros(shape[:-1])
        for t in range(T):
            D = demand[..., t::T]
            rented = np.minimum(cars, D)
            short = D - rented
            need = short.sum(axis=-1)
            extra = np.minimum(Lp, need)
            part = short * (extra / np.maximum(need, 1e-12))[..., None]  # leased in
            total = (total - (p * (rented + part)).sum(axis=-1) + self.premium * extra
                     + self.goodwill * (need - extra))
            back = rented @ self.route
            broken = damage * back
            lost = broken.sum(axis=-1)
            fixed = np.minimum(spares, lost)
            spares = spares - fixed
            cars = cars - rented + back - broken * (1.0 - fixed / np.maximum(lost, 1e-12))[
                ..., None]
            total = total + self.repair * lost
            if t < T - 1:  # overnight
                target = share * cars.sum(axis=-1, keepdims=True)
                above = np.maximum(cars - target, 0.0)
                below = np.maximum(target - cars, 0.0)
                surplus = above.sum(axis=-1)
                moved = np.minimum(Rb, surplus)
                frac = (moved / np.maximum(surplus, 1e-12))[..., None]
                cars = cars - above * frac + below * (moved / np.maximum(below.sum(axis=-1),
                                                                         1e-12))[..., None]
                total = total + self.move_cost * moved
        return total
