"""A held-out problem: a microgrid's retailer over a day of six four-hour blocks, eleven
decisions, eight of them open above. Kept out of every choice of the default; its optimum is
found without acfs (``find_optima.py`` beside it, ``optima.json``).

Decisions x = (tariffs of the night p_off, of the peak p_pk and of the evening p_eve, battery
capacity B, battery power P (energy moved in a block), solar capacity S, swaps of the night,
the peak and the evening q_off, q_pk and q_eve (energy a block at a fixed price, settled
against the spot price), call options on the spot price in the peak blocks r, curtailable load
d). The blocks are 0-4, 4-8 h (night), 8-12, 12-16, 16-20 h (peak) and 20-24 h (evening).
Demand in block t is

    base_t * exp(-0.012 (tariff_t - 120)) * shift_t * heat * own_t,
    g = 0.15 tanh((p_pk - p_off) / 40)  (peak blocks lose g, the others gain it)

with a lognormal heat effect (sd 0.1) raised on spike days by ``(1 + 0.3 (z - 1.28)_+)``
and a block's own lognormal noise (sd 0.08): the tariffs move the demand and shift it between
the blocks. The spot price is ``spot_t * level * own_t * spike^(w_t)`` with a lognormal level
correlated with the heat (sd 0.2), a block's own noise (sd 0.12) and the spike
``exp(1.3 (z - 1.28)_+)`` (one day in ten, without bound) weighted towards the afternoon and
evening; the day's prices are known a day ahead. The solar panels yield ``S * sun_t * clear``
with a clear-sky share ``clear`` (logistic normal, mean 0.69). The battery charges towards B in
the two night blocks, by at most P a block, at an efficiency of 0.9, and serves the need left
after the sun in the four later blocks, dearest spot first, by at most P a block; what is left
at midnight is worth ``carry`` a unit. The grid takes no export: surplus sun is spilled. The
curtailable load d is cut, for a compensation, in a block whose spot exceeds 250; the options
buy up to r of the need of a peak block at no more than the strike 150. Costs: the battery's
and the panels' daily capital, the swaps' fixed price against the spot, the options' and the
curtailment's fees, the energy bought at spot; the retailer earns its tariff on the energy
delivered.

Offered as ``transform(x, z)`` (sixteen normals a row; a scenario is the six demands, the six
spot prices, the heat effect, the price level, the spike and the clear-sky share), its cost
vectorised over decisions: common random numbers are exact. lam 0.8, alpha 0.95.
"""

import numpy as np

T = 6
PEAK = np.array([False, False, True, True, True, False])
#: the tariff and the swap of each block: 0 night, 1 peak, 2 evening
TARIFF = np.array([0, 0, 1, 1, 1, 2])


class Grid:
    name = "grid"
    dim_x, dim_w = 11, 16
    vectorized = True
    lam, alpha = 0.8, 0.95
    #: p_off, p_pk, p_eve, B, P, S, q_off, q_pk, q_eve, r, d
    bounds = [(60.0, 300.0)] * 3 + [(0.0, np.inf)] * 8
    x0 = np.array([100.0, 100.0, 100.0, 40.0, 30.0, 45.0, 20.0, 40.0, 30.0, 20.0, 15.0])

    base = np.array([55.0, 60.0, 95.0, 105.0, 110.0, 75.0])
    spot = np.array([35.0, 40.0, 70.0, 85.0, 110.0, 60.0])
    spike_weight = np.array([0.0, 0.0, 0.3, 0.8, 1.0, 0.5])
    sun = np.array([0.0, 0.05, 0.55, 0.6, 0.2, 0.0])
    efficiency, carry = 0.9, 30.0
    battery_cost, power_cost, solar_cost = 28.0, 14.0, 45.0  # a day, per unit of B, P and S
    swap_price = np.array([37.8, 97.0, 63.0])  # the swaps' fixed prices
    strike, option_fee = 150.0, 3.5  # an option's fee a peak block
    curtail_at, curtail_pay, curtail_fee = 250.0, 30.0, 8.0  # the fee a day

    def tariffs(self, x):
        """The tariff of each block, (..., 6)."""
        x = np.asarray(x, dtype=float)
        return x[..., TARIFF]

    def demand_mean(self, x):
        """Mean demand of each block before the shocks, (..., 6)."""
        x = np.asarray(x, dtype=float)
        g = 0.15 * np.tanh((x[..., 1:2] - x[..., 0:1]) / 40.0)
        shift = np.where(PEAK, 1.0 - g, 1.0 + g)
        return self.base * np.exp(-0.012 * (self.tariffs(x) - 120.0)) * shift

    def transform(self, x, z):
        z = np.asarray(z, dtype=float)
        spike_z = np.maximum(z[..., 14:15] - 1.28, 0.0)
        spike = np.exp(1.3 * spike_z)
        heat = np.exp(0.1 * z[..., 12:13] - 0.5 * 0.1**2) * (1.0 + 0.3 * spike_z)
        level = np.exp(0.2 * (0.6 * z[..., 12:13] + 0.8 * z[..., 13:14]) - 0.5 * 0.2**2)
        clear = 1.0 / (1.0 + np.exp(-(1.0 + 1.2 * z[..., 15:16])))
        demand = (self.demand_mean(x)[..., None, :] * heat
                  * np.exp(0.08 * z[..., :T] - 0.5 * 0.08**2))
        price = (self.spot * level * np.exp(0.12 * z[..., T:2 * T] - 0.5 * 0.12**2)
                 * spike ** self.spike_weight)
        shape = np.broadcast_shapes(demand.shape, price.shape)
        ones = shape[:-1] + (1,)
        return np.concatenate([np.broadcast_to(demand, shape), np.broadcast_to(price, shape)]
                              + [np.broadcast_to(v, ones) for v in (heat, level, spike, clear)],
                              axis=-1)

    def cost(self, W, x):
        x = np.asarray(x, dtype=float)[..., None, :]
        W = np.asarray(W, dtype=float)
        demand, price, clear = W[..., :T], W[..., T:2 * T], W[..., 2 * T + 3]
        B, P, S, q, r, d = x[..., 3], x[..., 4], x[..., 5], x[..., 6:9], x[..., 9], x[..., 10]
        cut = np.where(price > self.curtail_at, np.minimum(d[..., None], demand), 0.0)
        served = demand - cut
        rest = np.maximum(served - S[..., None] * self.sun * clear[..., None], 0.0)
        # the night: charge towards B
        first = np.minimum(P, B)
        second = np.minimum(P, B - first)
        stored = first + second
        need = rest + np.stack([first, second] + [np.zeros_like(first)] * (T - 2), axis=-1) \
            / self.efficiency
        need = need + np.zeros(rest.shape)
        # the later blocks, dearest first
        order = 2 + np.argsort(-price[..., 2:], axis=-1, kind="stable")
        order = np.broadcast_to(order, need.shape[:-1] + (T - 2,))
        left = stored + np.zeros(need.shape[:-1])
        for i in range(T - 2):
            t = order[..., i:i + 1]
            out = np.minimum(np.minimum(P, left), np.take_along_axis(rest, t, axis=-1)[..., 0])
            np.put_along_axis(need, t, np.take_along_axis(need, t, axis=-1) - out[..., None],
                              axis=-1)
            left = left - out
        covered = np.where(PEAK, np.minimum(need, r[..., None]), 0.0)
        energy = covered * np.minimum(price, self.strike) + (need - covered) * price
        swap = q[..., TARIFF] * (self.swap_price[TARIFF] - price)
        fixed = (self.battery_cost * B + self.power_cost * P + self.solar_cost * S
                 + self.curtail_fee * d + self.option_fee * PEAK.sum() * r)
        return (fixed + (energy + swap + self.curtail_pay * cut - self.tariffs(x) * served)
                .sum(axis=-1) - self.carry * left)
