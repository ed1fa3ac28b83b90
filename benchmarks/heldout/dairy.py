"""A held-out problem: a dairy cooperative's month of four weeks, fifteen decisions, twelve of
them open above, written after version 7 of the default and the fab, the bike share, the ski
resort and the insurer. Kept out of every choice of the default; its optimum is found without
acfs (``find_optima.py`` beside it, ``optima.json``). Milk is counted in Ml (million litres;
cheese and powder in the litres of milk made into them), money in $M, so a price of p $ a
litre is p $M a Ml.

Decisions x = (the price p_f paid to the member farms, the wholesale prices p_m of fresh milk
and p_c of cheese ($ a litre), the plant's capacities K_m, K_c, K_p of its fresh-milk, cheese
and powder lines (Ml a week, paid for the month), a raw-milk tank V (Ml), a cold store C for
cheese (Ml), tankers R to sell surplus raw milk on the spot market (Ml a week), a forward sale F
of powder (Ml a week, at 0.54 $ a litre), a heat-stress grant g to the farms ($M for the month)
and the overtime crews O_1..O_4 rostered in each week). In week t the farms deliver

    sbase_t * exp(4 (p_f / 0.35 - 1)) * herd * exp(-0.7 s(g) ramp_t kick) * own_t

Ml of raw milk (sbase = 10.0, 8.8, 7.6, 6.6: the yield falls as the summer goes on; ``herd`` the
month's lognormal yield, sd 0.04 on the log, own_t a week's, sd 0.08, both of mean 1), the
retailers order

    mbase_t * exp(-3 (p_m / 0.95 - 1)) * market * exp(0.35 ramp_t kick) * own_t

Ml of fresh milk (mbase = 3.4, 4.0, 4.6, 5.0; ``market`` the month's lognormal level, sd 0.05,
own noise sd 0.1) and ``cbase_t * exp(-3.5 (p_c / 0.85 - 1)) * market * own_t`` Ml of cheese
(cbase = 2.6, 2.8, 3.0, 3.2, own noise sd 0.1), before the customers lost (below): the prices
move the milk and the orders. Raw milk sells on the spot market at ``0.32 rlevel exp(0.5 ramp_t
kick) own_t`` $ a litre and powder at ``0.42 plevel exp(0.7 ramp_t kick) own_t`` (rlevel and
plevel the month's lognormal levels, sd 0.15 and 0.12, own noise sd 0.08 and 0.06). A
heavy-tailed heatwave, ``kick = (z - 1.28)_+`` (one month in ten, without bound), cuts the
yield (the grant spares a share of the loss, ``s(g) = 1 - 0.65 (1 - exp(-g / 0.25))`` of it is
left), raises the demand for fresh milk and the spot prices and spoils more milk in the tank,
more late in the month (``ramp`` = 0.7, 1.0, 1.2, 1.3).

The month opens with the tank and the cold store empty. In each week the tank's milk, of which
``0.97 exp(-0.4 ramp_t kick)`` is still good, and the week's deliveries are the milk at hand;
each overtime crew adds 0.25 Ml a week to the lines' capacity, used by the fresh-milk line, then the
cheese line, then the powder line. The orders are ``want = orders_t * loyal`` (``loyal`` 1 at
the start, for fresh milk and for cheese). The plant makes, in this order, fresh milk to order,
``min(want_m, K_m + extra, milk)`` (fresh milk does not keep); cheese, ``min(K_c + extra, milk,
(want_c + C - stock)_+)``, sold from the cold store's stock and the week's make up to the
orders, the rest stored (a stock that carries over); powder owed to the forward sale, ``min(F,
K_p + extra, milk)``, the shortfall of F bought in at 1.2 times the powder spot price; then the
tank is filled up to V with milk left (it carries over); then powder for the spot market, up to
the powder line's capacity left; then raw milk sold by the tankers, up to R a week; the rest is
dumped. A week's orders missed lose customers: ``loyal_m <- loyal_m (1 - 0.5 miss_m)`` and
``loyal_c <- loyal_c (1 - 0.3 miss_c)``, miss the share of the week's orders missed (the next
weeks' orders fall).

Costs: the lines' capacities (0.20, 0.25 and 0.10 $M a Ml a week for the month), the tank (0.04
$M a Ml), the cold store (0.05 $M a Ml), the tankers (0.04 $M a Ml a week), the grant g; each
week p_f on every litre delivered, 0.025 $M an overtime crew, the making (0.12, 0.15 and 0.06 $
a litre of fresh milk, cheese and powder), the powder bought in, 0.01 $ a litre of cheese in the
cold store at the week's end, 0.05 $ a litre dumped and penalties of 0.50 $ a litre of fresh
milk and 0.25 $ a litre of cheese ordered and missed. Each week the cooperative earns p_m and
p_c on the fresh milk and the cheese sold, 0.54 $ a litre of F, the powder spot price on the
powder sold spot and the raw spot price less 0.02 $ a litre of haulage on the raw milk sold;
at the month's end the tank's milk is credited at the last week's raw spot price on the last
week's share still good, ``0.97 exp(-0.4 ramp_4 kick)``, and the cheese left at 0.40 $ a
litre.

Offered as ``transform(x, z)`` (25 normals a row; a scenario is the four weeks' deliveries,
fresh-milk and cheese orders before the customers lost, raw and powder spot prices, the month's
herd, market, raw and powder levels and the heatwave's excess ``(z - 1.28)_+``), its cost
vectorised over decisions: common random numbers are exact. lam 0.9, alpha 0.9.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 4


class Dairy:
    name = "dairy"
    dim_x, dim_w = 11 + T, 5 * T + 5
    vectorized = True
    lam, alpha = 0.9, 0.9
    ref_f, el_f = 0.35, 4.0  # the farm-gate price ($ a litre) and the farms' elasticity
    ref_m, el_m = 0.95, 3.0  # fresh milk's wholesale price and the retailers' elasticity
    ref_c, el_c = 0.85, 3.5  # cheese's (a litre of milk made into cheese)
    #: p_f, p_m, p_c, K_m, K_c, K_p, V, C, R, F, g, O1..O4
    bounds = ([(0.5 * ref_f, 2.0 * ref_f), (0.5 * ref_m, 2.0 * ref_m),
               (0.5 * ref_c, 2.0 * ref_c)] + [(0.0, np.inf)] * (8 + T))
    x0 = np.array([0.35, 0.95, 0.85, 2.5, 1.2, 1.2, 1.0, 0.25, 4.0, 2.0, 0.05]
                  + [1.5] * T)

    sbase = np.array([10.0, 8.8, 7.6, 6.6])  # Ml of raw milk delivered a week
    mbase = np.array([3.4, 4.0, 4.6, 5.0])  # Ml of fresh milk ordered a week
    cbase = np.array([2.6, 2.8, 3.0, 3.2])  # Ml (of milk) of cheese ordered a week
    ramp = np.array([0.7, 1.0, 1.2, 1.3])  # the heatwave's strength in each week
    #: sd (log) of a week's deliveries, fresh orders, cheese orders; of the month's herd, market,
    #: raw-milk spot price and powder spot price
    supply_noise, fresh_noise, cheese_noise, raw_noise, powder_noise = 0.08, 0.10, 0.10, 0.08, 0.06
    herd, market, raw_sd, powder_sd = 0.04, 0.05, 0.15, 0.12
    heat_cut, heat_thirst, heat_raw, heat_powder, heat_spoil = 0.7, 0.35, 0.5, 0.7, 0.4
    shield, grant_scale = 0.65, 0.25  # the share of the yield loss a grant can spare; its $M
    raw0, powder0, forward = 0.32, 0.42, 0.54  # $ a litre: raw spot, powder spot, the forward
    keep0, crew = 0.97, 0.25  # the tank's milk kept a week; Ml a week an overtime crew adds
    lose_m, lose_c = 0.5, 0.3  # the share of a week's missed orders whose customers leave
    #: $M a Ml a week of capacity for the month: fresh, cheese, powder lines, the tank (a Ml),
    #: the cold store (a Ml), the tankers
    cap_m, cap_c, cap_p, cap_v, cap_s, cap_r = 0.20, 0.25, 0.10, 0.04, 0.05, 0.04
    proc_m, proc_c, proc_p, hold, haul, dump = 0.12, 0.15, 0.06, 0.01, 0.02, 0.05
    pen_m, pen_c, buy_in, wage, salvage = 0.50, 0.25, 1.2, 0.025, 0.40

    def supply_mean(self, x):
        """Raw milk delivered each week in a usual month, before the herd, the heatwave and the
        noise, (..., 4)."""
        x = np.asarray(x, dtype=float)
        return self.sbase * np.exp(self.el_f * (x[..., 0:1] / self.ref_f - 1.0))

    def fresh_mean(self, x):
        x = np.asarray(x, dtype=float)
        return self.mbase * np.exp(-self.el_m * (x[..., 1:2] / self.ref_m - 1.0))

    def cheese_mean(self, x):
        x = np.asarray(x, dtype=float)
        return self.cbase * np.exp(-self.el_c * (x[..., 2:3] / self.ref_c - 1.0))

    def spared(self, x):
        """The share of the heatwave's yield loss left with the grant g."""
        x = np.asarray(x, dtype=float)
        return 1.0 - self.shield * (1.0 - np.exp(-x[..., 10] / self.grant_scale))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k

        herd = lognormal(self.herd, z[5 * T])
        market = lognormal(self.market, z[5 * T + 1])
        raw_level = lognormal(self.raw_sd, z[5 * T + 2])
        powder_level = lognormal(self.powder_sd, z[5 * T + 3])
        kick = np.maximum(z[5 * T + 4] - 1.28, 0.0)
        ramp = self.ramp.reshape(pad)
        spared = columns(np.asarray(self.spared(x))[..., None, None], k)[0]
        supply = (columns(self.supply_mean(x)[..., None, :], k) * herd
                  * np.exp(-self.heat_cut * spared * ramp * kick)
                  * lognormal(self.supply_noise, z[:T]))
        fresh = (columns(self.fresh_mean(x)[..., None, :], k) * market
                 * np.exp(self.heat_thirst * ramp * kick) * lognormal(self.fresh_noise, z[T:2 * T]))
        cheese = (columns(self.cheese_mean(x)[..., None, :], k) * market
                  * lognormal(self.cheese_noise, z[2 * T:3 * T]))
        raw = (self.raw0 * raw_level * np.exp(self.heat_raw * ramp * kick)
               * lognormal(self.raw_noise, z[3 * T:4 * T]))
        powder = (self.powder0 * powder_level * np.exp(self.heat_powder * ramp * kick)
                  * lognormal(self.powder_noise, z[4 * T:5 * T]))
        parts = [supply, fresh, cheese, raw, powder, herd[None], market[None], raw_level[None],
                 powder_level[None], kick[None]]
        return scenario(parts)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p_f, p_m, p_c, K_m, K_c, K_p, V, C, R, F, g = (x[..., i] for i in range(11))
        kick = W[5 * T + 4]
        shape = np.broadcast_shapes(kick.shape, p_f.shape)
        total = (self.cap_m * K_m + self.cap_c * K_c + self.cap_p * K_p + self.cap_v * V
                 + self.cap_s * C + self.cap_r * R + g) + np.zeros(shape)
        tank, stock = np.zeros(shape), np.zeros(shape)
        loyal_m, loyal_c = np.ones(shape), np.ones(shape)
        for t in range(T):
            supply, raw, powder = W[t], W[3 * T + t], W[4 * T + t]
            kept = self.keep0 * np.exp(-self.heat_spoil * self.ramp[t] * kick)
            milk = tank * kept + supply
            want_m, want_c = W[T + t] * loyal_m, W[2 * T + t] * loyal_c
            extra = self.crew * x[..., 11 + t]
            fresh = np.minimum(np.minimum(want_m, K_m + extra), milk)
            extra = extra - np.maximum(fresh - K_m, 0.0)
            milk = milk - fresh
            cheese = np.minimum(np.minimum(K_c + extra, milk),
                                np.maximum(want_c + C - stock, 0.0))
            extra = extra - np.maximum(cheese - K_c, 0.0)
            milk = milk - cheese
            sold_c = np.minimum(want_c, stock + cheese)
            stock = stock + cheese - sold_c
            line = K_p + extra
            owed = np.minimum(np.minimum(F, line), milk)
            milk = milk - owed
            tank = np.minimum(V, milk)
            milk = milk - tank
            spot = np.minimum(line - owed, milk)
            milk = milk - spot
            tanker = np.minimum(R, milk)
            dumped = milk - tanker
            short_m, short_c = want_m - fresh, want_c - sold_c
            loyal_m = loyal_m * (1.0 - self.lose_m * short_m / np.maximum(want_m, 1e-12))
            loyal_c = loyal_c * (1.0 - self.lose_c * short_c / np.maximum(want_c, 1e-12))
            total = (total + p_f * supply + self.wage * x[..., 11 + t]
                     + self.proc_m * fresh + self.proc_c * cheese + self.proc_p * (owed + spot)
                     + self.buy_in * powder * (F - owed) + self.hold * stock
                     + self.dump * dumped + self.pen_m * short_m + self.pen_c * short_c
                     - p_m * fresh - p_c * sold_c - self.forward * F - powder * spot
                     - (raw - self.haul) * tanker)
        total = total - raw * kept * tank - self.salvage * stock
        return total
