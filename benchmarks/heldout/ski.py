"""A held-out problem: a ski resort's season of eight two-week periods, fifteen decisions,
thirteen of them open above, written after version 7 of the default, the emergency medical
service and the water utility. Kept out of every choice of the default; its optimum is found
without acfs (``find_optima.py`` beside it, ``optima.json``). Visits, passes, bed-nights and
rental-days are counted in thousands, snow in cm of base, money in $k, so a price of p $ a visit
is p $k a thousand visits.

Decisions x = (the day-ticket price p_d and the season-pass price p_s ($), the snowmaking
capacity G (cm of base a period in cold weather) and its target base D (cm), the rental fleet R
(thousand sets), the beds B contracted with the village's hotels (thousand bed-nights a period,
for every period), the shuttle buses S contracted for every period, the lift crews L_1..L_8
rostered in each period). Before the season the resort sells

    N = 9 exp(-1.5 (p_s / 650 - 1) + 0.5 (p_d / 90 - 1)) * market

thousand passes (a dearer day ticket sends skiers to the pass), ``market`` the season's
lognormal economy (sd 0.1 on the log, mean 1). With a full base and an unblemished name,
period t would bring

    dbase_t * exp(-1.1 (p_d / 90 - 1) - 0.1 (n(x) / 9 - 1)) * market
            * exp(-0.25 ramp_t kick) * own_t

thousand day visitors (n(x) the passes sold in a usual economy, N without the market: each pass
takes some day visits), and ``N * pvis_t * exp(-0.15 ramp_t kick) * own_t`` pass holders' visits;
own_t a period's lognormal noise (sd 0.15 for both, mean 1): the prices move the visits
(dbase = 22, 40, 28, 30, 38, 34, 26, 16 thousand, the holidays and February the busiest; pvis =
0.8, 1.3, 1.0, 1.0, 1.2, 1.1, 0.9, 0.6 visits a pass). Nature brings
``sbase_t * wet * exp(-ramp_t kick) * own_t`` cm of snow in period t and melts
``mbase_t * warm * exp(0.6 ramp_t kick) * own_t`` cm (sbase = 30, 35, 35, 32, 30, 24, 16, 10,
mbase = 4, 4, 5, 6, 8, 12, 20, 30; ``wet`` the season's lognormal snowiness, sd 0.3, ``warm``
its lognormal warmth, sd 0.25, own noise sd 0.5 and 0.3, all of mean 1). A
heavy-tailed warm spell and snow drought, ``kick = (z - 1.28)_+`` (one season in ten, without
bound), cuts the snowfall, melts the base, keeps visitors away, cuts the guns' output and raises
their running cost, more late in the season (``ramp_t`` from 0.4 to 1.4).

The base starts the season at 10 cm. In each period: the snow falls and melts,
``pre = (base + snow_t - melt_t)_+``; the guns make ``made = min(G c_t, (D - pre)_+)`` cm, their
output in the period ``c_t = cold_t / (warm (1 + 0.6 ramp_t kick))`` of the capacity (cold =
1, 1, 1, 1, 0.9, 0.8, 0.6, 0.4: late-season nights are warm), and ``base = pre + made`` (a stock
that carries over); the terrain open is ``q = 1 - exp(-base / 60)``. The day visitors who come
are ``w = day_t q rep`` (``rep`` the resort's name, 1 at the start), 40 % of them from away, who
stay only if a bed is left (``stay = min(0.4 w, B)``), 60 % local; the local day visitors and the
pass holders' visits ``v = pass_t q`` come by road, the car parks taking 18 (thousand a period)
and each bus 1.5 more, and the road's overflow (the same share of both) turns back. The lifts'
load is ``u = arrivals / (4 L_t)`` (a crew runs lifts for 4 thousand visits a period; arrivals
the guests who stay, the local day visitors and the pass holders who drove in); as the lines
lengthen a share ``s = (1 + u^6)^(-1/6)`` of every arrival skis (0.89 at u = 1, about 1/u
beyond) and the rest are turned away (a day visitor refunded, a pass holder given a voucher).
Of the day visitors who ski 35 % want skis, the fleet lending at most ``12 R`` (twelve days a
set). The period's misses (the guests from away without a bed, the visitors and pass holders
turned back on the road and turned away at the lifts, half the rentals short), as a share
``miss`` of ``w + v`` (none when nobody comes), mar the name: ``rep <- 0.6 rep + 0.4
exp(-4 miss)`` (a name that carries over and lowers later day visits).

Costs: the snowmaking plant (25 a cm of capacity, for the season), the fleet (400 a thousand
sets, for the season); each period the beds contracted (95 a thousand bed-nights, used or not),
the buses (15 a bus), the crews (120 a crew) and the resort's overhead (1700); each cm made its
running cost ``12 (1 + 0.8 ramp_t kick)``; each day visitor turned away at the lifts 40
(goodwill) besides the refund, each pass holder's visit turned away a voucher of 50. The resort
earns p_s on each pass sold, p_d on each day visitor who skis, 25 on every visit that skis
(food and shops), 35 a rental-day and 140 a bed-night let.

Offered as ``transform(x, z)`` (36 normals a row; a scenario is the eight periods' potential
day visits, pass holders' visits, snowfalls and melts, the passes sold, the season's snowiness
and warmth and the drought's excess ``(z - 1.28)_+``), its cost vectorised over decisions:
common random numbers are exact. lam 0.7, alpha 0.9.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 8


class Ski:
    name = "ski"
    dim_x, dim_w = 7 + T, 4 * T + 4
    vectorized = True
    lam, alpha = 0.7, 0.9
    ref_d, el_d, ref_s, el_s = 90.0, 1.1, 650.0, 1.5  # prices ($) and the visits' elasticity
    cross, cannibal, n0 = 0.5, 0.1, 9.0  # passes per day-ticket price; day visits per pass
    #: p_d, p_s, G, D, R, B, S, L1..L8
    bounds = [(0.5 * ref_d, 2.0 * ref_d), (0.5 * ref_s, 2.0 * ref_s)] + [(0.0, np.inf)] * (5 + T)
    x0 = np.array([100.0, 700.0, 20.0, 70.0, 1.0, 10.0, 4.0] + [9.0] * T)

    dbase = np.array([22.0, 40.0, 28.0, 30.0, 38.0, 34.0, 26.0, 16.0])  # k day visits a period
    pvis = np.array([0.8, 1.3, 1.0, 1.0, 1.2, 1.1, 0.9, 0.6])  # visits a pass a period
    sbase = np.array([30.0, 35.0, 35.0, 32.0, 30.0, 24.0, 16.0, 10.0])  # cm of snow a period
    mbase = np.array([4.0, 4.0, 5.0, 6.0, 8.0, 12.0, 20.0, 30.0])  # cm melted a period
    cold = np.array([1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.6, 0.4])  # the guns' output a cm of capacity
    ramp = np.linspace(0.4, 1.4, T)
    #: sd (log) of the economy, a period's visits, the snowiness, a snowfall, the warmth, a melt
    market, noise, wetness, snow_noise, warmth, melt_noise = 0.1, 0.15, 0.3, 0.5, 0.25, 0.3
    away_day, away_pass, dry_snow, hot_melt, hot_guns, hot_run = 0.25, 0.15, 1.0, 0.6, 0.6, 0.8
    base0, depth = 10.0, 60.0  # cm of base at the start; the open terrain's scale
    away, park, bus = 0.4, 18.0, 1.5  # share from away; k visits a period by car, by a bus
    crew, rent_share, rent_days = 4.0, 0.35, 12.0  # k visits a crew; share renting; days a set
    lines = 6.0  # the lifts carry arrivals / (1 + load^6)^(1/6): lines lengthen as they fill
    keep, mar, short_weight = 0.6, 4.0, 0.5  # the name's memory, its sensitivity; rentals short
    gun_fee, set_fee = 25.0, 400.0  # $k a cm of capacity, a thousand sets (the season)
    bed_rate, bus_fee, wage, overhead = 95.0, 15.0, 120.0, 1700.0  # $k a unit a period
    run, goodwill, voucher = 12.0, 40.0, 50.0  # $k a cm made; a k day visits, pass visits away
    spend, rental, bed_price = 25.0, 35.0, 140.0  # $ a visit, a rental-day, a bed-night

    def pass_mean(self, x):
        """Passes sold in a usual economy, n(x), (...)."""
        x = np.asarray(x, dtype=float)
        return self.n0 * np.exp(-self.el_s * (x[..., 1] / self.ref_s - 1.0)
                                + self.cross * (x[..., 0] / self.ref_d - 1.0))

    def day_mean(self, x):
        """Day visitors each period with a full base and an unblemished name, before the
        economy, the drought and the noise, (..., 8)."""
        x = np.asarray(x, dtype=float)
        return self.dbase * np.exp(-self.el_d * (x[..., 0:1] / self.ref_d - 1.0)
                                   - self.cannibal * (self.pass_mean(x)[..., None] / self.n0
                                                      - 1.0))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        pad = (T,) + (1,) * k

        market = lognormal(self.market, z[4 * T])
        wet = lognormal(self.wetness, z[4 * T + 1])
        warm = lognormal(self.warmth, z[4 * T + 2])
        kick = np.maximum(z[4 * T + 3] - 1.28, 0.0)
        ramp = self.ramp.reshape(pad)
        passes = columns(np.asarray(self.pass_mean(x))[..., None, None], k)[0] * market
        day = (columns(self.day_mean(x)[..., None, :], k) * market
               * np.exp(-self.away_day * ramp * kick) * lognormal(self.noise, z[:T]))
        held = (passes * self.pvis.reshape(pad) * np.exp(-self.away_pass * ramp * kick)
                * lognormal(self.noise, z[T:2 * T]))
        snow = (self.sbase.reshape(pad) * wet * np.exp(-self.dry_snow * ramp * kick)
                * lognormal(self.snow_noise, z[2 * T:3 * T]))
        melt = (self.mbase.reshape(pad) * warm * np.exp(self.hot_melt * ramp * kick)
                * lognormal(self.melt_noise, z[3 * T:4 * T]))
        parts = [day, held, snow, melt, passes[None], wet[None], warm[None], kick[None]]
        return scenario(parts)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p_d, p_s, G, D, R, B, S = (x[..., i] for i in range(7))
        passes, warm, kick = W[4 * T], W[4 * T + 2], W[4 * T + 3]
        shape = np.broadcast_shapes(kick.shape, p_d.shape)
        total = (self.gun_fee * G + self.set_fee * R
                 + T * (self.bed_rate * B + self.bus_fee * S + self.overhead)
                 - p_s * passes) + np.zeros(shape)
        base = self.base0 + np.zeros(shape)
        rep = np.ones(shape)
        road_cap = self.park + self.bus * S
        for t in range(T):
            ramp = self.ramp[t]
            pre = np.maximum(base + W[2 * T + t] - W[3 * T + t], 0.0)
            made = np.minimum(G * self.cold[t] / (warm * (1.0 + self.hot_guns * ramp * kick)),
                              np.maximum(D - pre, 0.0))
            base = pre + made
            q = -np.expm1(-base / self.depth)
            w = W[t] * q * rep
            v = W[T + t] * q
            stay = np.minimum(self.away * w, B)
            road = (1.0 - self.away) * w + v
            drove = np.minimum(road, road_cap) / np.maximum(road, 1e-12)
            local, held = (1.0 - self.away) * w * drove, v * drove
            arrivals = stay + local + held
            load = arrivals / np.maximum(self.crew * x[..., 7 + t], 1e-9)  # the lifts' load
            s = (1.0 + load**self.lines) ** (-1.0 / self.lines)  # a share skis, the rest leave
            skied, pass_skied = (stay + local) * s, held * s
            want = self.rent_share * skied
            rented = np.minimum(want, self.rent_days * R)
            miss = ((self.away * w - stay) + road * (1.0 - drove) + arrivals * (1.0 - s)
                    + self.short_weight * (want - rented)) / np.maximum(w + v, 1e-12)
            rep = self.keep * rep + (1.0 - self.keep) * np.exp(-self.mar * miss)
            total = (total + self.wage * x[..., 7 + t]
                     + self.run * (1.0 + self.hot_run * ramp * kick) * made
                     + self.goodwill * (stay + local) * (1.0 - s) + self.voucher * held * (1.0 - s)
                     - (p_d + self.spend) * skied - self.spend * pass_skied
                     - self.rental * rented - self.bed_price * stay)
        return total
