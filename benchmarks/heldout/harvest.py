"""A held-out problem: a grain cooperative's harvest of six weeks, sixteen decisions, fifteen of
them open above, written after version 8 of the default and the dairy cooperative and the
airline. Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``). Grain is counted in kt (thousand tonnes), money
in $k, so a price of p $ a tonne is p $k a kt; the insurance cover in $M.

Decisions x = (the price p offered to the farmers ($ a tonne, from 100 to 400), a premium d for
dry grain ($ a tonne of dry grain taken in), the dryer's capacity D (kt a week), the storage
bins S (kt), overflow storage O rented for the season (kt), the trucks K1 hired for each of
weeks 1-3 and K2 for each of weeks 4-6, a rail contract R (a fixed slot to the port, kt a week,
paid whether used), a forward sale F (kt sold before the harvest at 295 $ a tonne), the crop
insurance's cover I ($M) and the night-shift crews N_1..N_6 at the intake in each week). In
week t the farms bring

    hbase_t * exp(4 (p / 200 - 1)) * crop * exp(-0.3 ramp_t kick) * own_t

kt of grain to the cooperative's intake (a rival elevator takes the rest; hbase = 6, 11, 16, 14,
9, 5 kt, the harvest's peak in the third week; ``crop`` the season's lognormal yield, sd 0.2 on
the log, own_t a week's lognormal noise, sd 0.15, both of mean 1), before the farmers lost to
the queue (below): the price moves the deliveries. A share

    wet_t = 1 - exp(-wbase_t exp(-d / 8) * wetness * exp(ramp_t kick) * own_t)

of the grain taken in is wet (wbase = 0.3, 0.35, 0.45, 0.55, 0.7, 0.85, the weather breaking as
the harvest goes on; ``wetness`` the season's lognormal, sd 0.3, own noise sd 0.2, both of mean
1): the premium moves the wet share. Grain sells at the port at the spot price ``300 level
exp(0.3 ramp_t kick) own_t`` $ a tonne (``level`` the season's lognormal price level, sd 0.08,
own noise sd 0.04, both of mean 1). A heavy-tailed wet harvest and rail strike, ``kick = (z -
1.28)_+`` (one season in ten, without bound), cuts the crop, raises the wet share, leaves the
rail only ``exp(-1.5 ramp_t kick)`` of its slot and raises the spot price, more late in the
harvest (``ramp`` = 0.5, 0.7, 0.9, 1.1, 1.3, 1.5).

The harvest opens with the bins empty and no queue. In each week the farmers' trucks in the
queue and the week's arrivals (the week's deliveries times ``loyal``, 1 at the start) form the
line; the intake takes ``take = min(line, 3 + 1.5 N_t, room)`` (a pit that takes 3 kt a week,
each night crew 1.5 more; ``room = (S + O - stock - wet)_+``, the storage not yet filled by the
dry stock and the wet grain waiting, which carry over). Of the grain taken the wet share joins
the wet grain waiting; the dryer dries ``dried = min(D, wet)`` of it, which loses 4 % of its
weight and joins the dry stock with the dry grain taken. The dry stock is shipped to the port:
by rail up to the slot left by the strike, ``R exp(-1.5 ramp_t kick)``, then by road up to 0.6
kt a week a truck (K1 in weeks 1-3, K2 in weeks 4-6). The grain shipped first fills the forward
sale (until F in all has been shipped) and the rest is sold at the week's spot price. Of the wet
grain still waiting at the week's end 35 % spoils (thrown away). Of the line not taken, ``left
= line - take`` (a share ``miss = left / line`` of the line), 30 % goes to the rival elevator and
the rest waits in the queue for next week (a queue that carries over), and the farmers remember
the wait: ``loyal <- loyal (1 - 0.5 miss)`` (the next weeks' arrivals fall).

Costs: the dryer (60 $k a kt a week of capacity, for the season), the bins (12 $k a kt), the
overflow storage (6 $k a kt reserved), the rail slot (18 $k a kt a week, for each of the six
weeks), the trucks (9 $k a truck a week, for the three weeks of their half), the insurance's
premium (110 $k a $M of cover, about 1.25 times its expected payout); each week 12 $k a night
crew, p on every tonne taken in and d on every dry tonne taken in, 12 $ a tonne dried (fuel),
10 $ a tonne shipped by road, 15 $ a tonne in store beyond the bins at the week's end (the
dry stock and the wet grain, in the overflow storage), 5 $ a tonne waiting in the queue (the
farmers' time) and 15 $ a tonne spoiled (disposal). The cooperative earns 295 $ a tonne of F
and the spot price on the grain shipped beyond F; at the season's end the forward's shortfall
(F less the grain shipped) is bought back at the last week's spot price and 10 $ a tonne more,
the dry stock left is sold after the harvest at ``0.92 * 300 level`` $ a tonne and the wet grain
left at half that, and the insurance pays ``1000 I (1 - crop exp(-0.3 kick))_+`` $k (the
region's crop shortfall below a usual yield). The farmers still queued go to the rival.

Offered as ``transform(x, z)`` (22 normals a row; a scenario is the six weeks' deliveries before
the farmers lost, wet shares and spot prices, the season's crop, wetness and price level and the
shock's excess ``(z - 1.28)_+``), its cost vectorised over decisions: common random numbers are
exact. lam 0.8, alpha 0.9.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 6


class Harvest:
    name = "harvest"
    dim_x, dim_w = 10 + T, 3 * T + 4
    vectorized = True
    lam, alpha = 0.8, 0.9
    ref_p, el_p = 200.0, 4.0  # the price offered ($ a tonne) and the deliveries' elasticity
    dry_scale = 8.0  # $ a tonne of premium that cuts the wet rate by a factor e
    #: p, d, D, S, O, K1, K2, R, F, I, N1..N6
    bounds = [(0.5 * ref_p, 2.0 * ref_p)] + [(0.0, np.inf)] * (9 + T)
    x0 = np.array([200.0, 5.0, 1.5, 3.5, 4.0, 3.0, 3.0, 2.0, 20.0, 1.5] + [3.0] * T)

    hbase = np.array([6.0, 11.0, 16.0, 14.0, 9.0, 5.0])  # kt the farms harvest a week
    wbase = np.array([0.3, 0.35, 0.45, 0.55, 0.7, 0.85])  # the wet grain's rate a week
    ramp = np.linspace(0.5, 1.5, T)  # the shock's strength in each week
    #: sd (log) of the season's crop, a week's deliveries, the season's wetness, a week's
    #: wetness, the season's price level, a week's spot price
    crop_sd, own_sd, wet_sd, wet_own, level_sd, spot_own = 0.2, 0.15, 0.3, 0.2, 0.08, 0.04
    loss, soak, strike, surge, index = 0.3, 1.0, 1.5, 0.3, 0.3  # the shock's effects
    spot0, forward, carry = 300.0, 295.0, 0.92  # $ a tonne; the carry-out's share of spot0
    intake0, crew, truck = 3.0, 1.5, 0.6  # kt a week: the intake, a crew adds, a truck hauls
    shrink, spoil, balk, lose = 0.04, 0.35, 0.3, 0.5  # drying's shrink; shares a week
    dryer_fee, bin_fee, over_fee = 60.0, 12.0, 6.0  # $k a kt (a week for the dryer), a season
    truck_fee, rail_fee, crew_fee = 9.0, 18.0, 12.0  # $k a truck, a kt of slot, a crew a week
    fuel, road, over_use, wait, waste, buy_fee = 12.0, 10.0, 15.0, 5.0, 15.0, 10.0  # $ a tonne
    premium, cover = 0.11, 1000.0  # $ a $ of cover; $k a $M of cover
    wet_credit = 0.5  # the carry-out price's share credited to wet grain left

    def delivery_mean(self, x):
        """The farms' deliveries each week in a usual season, (..., 6)."""
        x = np.asarray(x, dtype=float)
        return self.hbase * np.exp(self.el_p * (x[..., 0:1] / self.ref_p - 1.0))

    def wet_rate(self, x):
        """The wet grain's rate each week in a usual season, (..., 6)."""
        x = np.asarray(x, dtype=float)
        return self.wbase * np.exp(-x[..., 1:2] / self.dry_scale)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k

        crop = lognormal(self.crop_sd, z[3 * T])
        wetness = lognormal(self.wet_sd, z[3 * T + 1])
        level = lognormal(self.level_sd, z[3 * T + 2])
        kick = np.maximum(z[3 * T + 3] - 1.28, 0.0)
        ramp = self.ramp.reshape(pad)
        arrive = (columns(self.delivery_mean(x)[..., None, :], k) * crop
                  * np.exp(-self.loss * ramp * kick) * lognormal(self.own_sd, z[:T]))
        wet = -np.expm1(-columns(self.wet_rate(x)[..., None, :], k) * wetness
                        * np.exp(self.soak * ramp * kick) * lognormal(self.wet_own, z[T:2 * T]))
        spot = (self.spot0 * level * np.exp(self.surge * ramp * kick)
                * lognormal(self.spot_own, z[2 * T:3 * T]))
        parts = [arrive, wet, spot, crop[None], wetness[None], level[None], kick[None]]
        return scenario(parts)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p, d, D, S, O, K1, K2, R, F, I = (x[..., i] for i in range(10))
        crop, level, kick = W[3 * T], W[3 * T + 2], W[3 * T + 3]
        shape = np.broadcast_shapes(kick.shape, p.shape)
        payout = self.cover * I * np.maximum(1.0 - crop * np.exp(-self.index * kick), 0.0)
        total = (self.dryer_fee * D + self.bin_fee * S + self.over_fee * O
                 + T * self.rail_fee * R + (T // 2) * self.truck_fee * (K1 + K2)
                 + self.premium * self.cover * I - self.forward * F - payout) + np.zeros(shape)
        queue, wet, stock, sent = (np.zeros(shape) for _ in range(4))
        loyal = np.ones(shape)
        for t in range(T):
            ramp = self.ramp[t]
            # the intake: the queue and the week's arrivals, up to the pit and the room left
            arrive = W[t] * loyal
            line = queue + arrive
            room = np.maximum(S + O - stock - wet, 0.0)
            take = np.minimum(np.minimum(line, self.intake0 + self.crew * x[..., 10 + t]), room)
            wet_in = W[T + t] * take
            dried = np.minimum(D, wet + wet_in)
            wet = wet + wet_in - dried
            stock = stock + take - wet_in + (1.0 - self.shrink) * dried
            # shipping from the dry stock: the rail first, then the trucks
            rail = np.minimum(stock, R * np.exp(-self.strike * ramp * kick))
            lorry = np.minimum(stock - rail, self.truck * (K1 if t < T // 2 else K2))
            ship = rail + lorry
            stock = stock - ship
            owed = np.minimum(ship, np.maximum(F - sent, 0.0))
            sent = sent + ship
            spoiled = self.spoil * wet
            wet = wet - spoiled
            left = line - take
            loyal = loyal * (1.0 - self.lose * left / np.maximum(line, 1e-12))
            queue = (1.0 - self.balk) * left
            total = (total + self.crew_fee * x[..., 10 + t]
                     + p * take + d * (take - wet_in) + self.fuel * dried + self.road * lorry
                     + self.over_use * np.maximum(stock + wet - S, 0.0) + self.wait * queue
                     + self.waste * spoiled - W[2 * T + t] * (ship - owed))
        # the forward's shortfall bought back; the stock left sold after the harvest
        after = self.carry * self.spot0 * level
        total = (total + (W[3 * T - 1] + self.buy_fee) * np.maximum(F - sent, 0.0)
                 - after * stock - self.wet_credit * after * wet)
        return total
