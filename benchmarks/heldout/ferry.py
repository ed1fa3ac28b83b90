"""A held-out problem: a ferry operator's summer week of seven days, each of three sailing waves
(morning, midday, evening), on two routes (a short island route and a long mainland route),
fourteen decisions, twelve of them open above, written after version 11 of the default and the
music festival, the streaming service and the bakery chain. Kept out of every choice of the
default; its optimum is found without acfs (``find_optima.py`` beside it, ``optima.json``).
Foot passengers and cars are counted in thousands, fuel in units of 1 $k at the usual spot
price, money in $k, so a fare of p $ a traveller is p $k a thousand travellers.

Decisions x = (the island route's foot-passenger fare p_f and car fare p_c ($, from 0.5 to 2
times the reference fares 12 and 45 $; the mainland route's fares are three times the
island's), the island sailings a day n_I1 Monday to Thursday and n_I2 Friday to Sunday, the
mainland sailings a day n_M1 and n_M2 likewise (continuous), the crews rostered a day H, the
standby crews S, a vehicle-deck extension D on the island ferries (thousand car places a day),
a chartered vessel E reserved for the week on the mainland route (thousand car places and four
thousand foot places a day), the marshalling yard's capacity Y (thousand cars that may wait at
the terminals), the marketing and booking-system budget K ($k), the fuel hedged G (units bought
forward) and the weather insurance cover V ($k)). Marketing lifts every demand by ``lift(K) =
1 + 0.15 (1 - exp(-K / 100))``. Route r's (r = I, M) potential foot passengers and cars on day t
(t = 0 Monday .. 6 Sunday) are

    F_rt = fbase_r dow_t exp(-ef_r (p_f / 12 - 1) + 0.25 (p_c / 45 - 1)) lift(K) market
           * exp(-0.3 prof_t kick) * own_rt
    C_rt = cbase_r dow_t exp(-ec_r (p_c / 45 - 1)) lift(K) market * exp(-0.3 prof_t kick)
           * own'_rt

thousand (fbase = 6, 3 and cbase = 1.5, 1 a day; ef = 0.8, 1.3 and ec = 0.7, 1.2, the mainland
travellers the more sensitive, an airline flying the long route; a dear car fare sends some
drivers on foot; what either fare loses beyond that goes to the airline or the island's bridge
a long drive away; dow = 0.85, 0.85, 0.9, 0.95, 1.2, 1.25, 1.1; ``market`` the summer's
lognormal level, sd 0.06 on the log, mean 1; own and own' lognormal, sd 0.12, mean 1). Half the
travellers book ahead and half walk up: day t's demand is ``(0.5 + 0.5 rep) F_rt`` and ``(0.5 +
0.5 rep) C_rt``, ``rep`` the operator's name (1 on Monday).

A heavy-tailed storm, ``kick = (z - 1.64)_+`` (one week in twenty, without bound), weighted
``prof = 0, 0.7, 1, 1, 0.6, 0.2, 0`` over the days, cancels a share ``c_rt = 1 - exp(-cn_r
prof_t kick)`` of route r's sailings (cn = 1, 2: the long route's the more), keeps some
travellers home (above) and raises the week's spot fuel price ``spot = exp(0.15 v - 0.01125) (1
+ kick)`` (v normal). A week's crew sickness ``sick = 1 - exp(-0.06 exp(0.5 s - 0.125))``
(s normal) keeps ``H sick`` crews home; a crew works two island sailings or one mainland
sailing a day, so day t needs ``need_t = n_It / 2 + n_Mt`` crews; the standby crews called are
``min(S, (need_t - H (1 - sick))_+)`` and a share ``rho_t = min(1, (H (1 - sick) + S) / need_t)``
of the sailings sails (1 when no crew is needed, unless H = S = 0). The sailings run,
``run_rt = rho_t (1 - c_rt) n_rt``, burn ``b (1.2 run_It + 5 run_Mt)`` fuel, b the week's sea
state (lognormal, sd 0.08, mean 1).

Each wave w of day t carries a share ``sail_w = 0.35, 0.3, 0.35`` of the day's capacity, and a
share ``arr_w = 0.4, 0.25, 0.35`` of the day's demand arrives; the queues carry over from wave
to wave and overnight, starting empty on Monday. For each route:

- the foot passengers arriving join the foot queue; the ferries take ``min(queue, sail_w 0.8
  run_It)`` on the island route, ``min(queue, sail_w 1.0 run_Mt)`` on the mainland route, where
  the charter then takes ``min(left, 4 sail_w (1 - c_Mt) E)`` of those left; of those still
  left 30 % give up (refunded, the route's foot fare) and 70 % wait for the next wave;
- the cars arriving join the car queue; the ferries take ``min(queue, sail_w (0.09 run_It +
  rho_t (1 - c_It) D))`` on the island route, ``min(queue, sail_w 0.25 run_Mt)`` on the
  mainland route, where the charter then takes ``min(left, sail_w (1 - c_Mt) E)``; of those
  still left 15 % give up (refunded) and the rest wait.

Then the cars waiting on both routes go to the yard: beyond Y, ``(y_I + y_M - Y)_+`` of them,
each route's in proportion to its own, are turned away (refunded, and 50 $ a car for the
traffic they leave on the town's roads). Every traveller still waiting after a wave is paid
for the delay (8 $ a foot passenger, 20 $ a car; after the evening wave of days 0-5 an
overnight voucher instead, 50 $ and 60 $; after Sunday's evening wave nothing). The day's
misses (those who gave up or were turned away), as a share ``miss`` of the day's demand, mar
the name: ``rep <- 0.6 rep + 0.4 exp(-6 miss)`` (a name that carries over and lowers the next
day's walk-ups). On Sunday evening those still waiting are refunded.

Costs: the overhead (600 a week), the deck extension (70 a unit for the week), the yard (15 a
thousand cars for the week), the marketing K, the insurance's premium (0.1 a $k of cover);
each day the crews (2.2 each), the standby crews' retainer (0.6 each) and call-out fee (2.5 a
crew called), the charter's reservation (20 a unit), the sailings' port and maintenance fees
(2 an island, 6 a mainland sailing scheduled), the charter's use (40 $ a car and 10 $ a foot
passenger it carries), the delay payments and vouchers, the refunds; the fuel: G at the forward
price 1.03, the burn beyond G at the spot price, the hedge beyond the burn sold back at 0.85
spot. The operator earns the fares of the day's demand (p_f and p_c on the island route, 3 p_f
and 3 p_c on the mainland route). The insurance pays ``min(V, 0.7 (R - 60)_+)``, R the week's
refunds.

Offered as ``transform(x, z)`` (33 normals a row; a scenario is the week's potential foot
passengers F (island, mainland) and cars C (island, mainland) for each day, the market, the
crews' sickness, the sea state, the spot price of fuel and the storm's excess ``(z -
1.64)_+``), its cost vectorised over decisions: common random numbers are exact. lam 0.75,
alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T, NW = 7, 3  # days, sailing waves a day


class Ferry:
    name = "ferry"
    dim_x, dim_w = 14, 4 * T + 5
    vectorized = True
    lam, alpha = 0.75, 0.95
    ref_f, ref_c = 12.0, 45.0  # the island route's reference fares ($)
    #: p_f, p_c, n_I1, n_I2, n_M1, n_M2, H, S, D, E, Y, K, G, V
    bounds = [(0.5 * ref_f, 2.0 * ref_f), (0.5 * ref_c, 2.0 * ref_c)] + [(0.0, np.inf)] * 12
    x0 = np.array([12.0, 45.0, 12.0, 14.0, 4.0, 5.0, 11.0, 1.0, 0.3, 0.2, 0.15, 60.0, 250.0,
                   100.0])

    fbase, cbase = np.array([6.0, 3.0]), np.array([1.5, 1.0])  # k a day (island, mainland)
    el_f, el_c, cross = np.array([0.8, 1.3]), np.array([0.7, 1.2]), 0.25  # elasticities
    long_fare = 3.0  # the mainland fares against the island's
    dow = np.array([0.85, 0.85, 0.9, 0.95, 1.2, 1.25, 1.1])
    sail = np.array([0.35, 0.3, 0.35])  # share of a day's capacity in each wave
    arrive = np.array([0.4, 0.25, 0.35])  # share of a day's demand arriving in each wave
    fcap, ccap = np.array([0.8, 1.0]), np.array([0.09, 0.25])  # k places a sailing
    per_crew = np.array([2.0, 1.0])  # sailings a crew works a day
    charter_foot = 4.0  # the charter's foot places a car place
    walk = 0.5  # share of the demand walking up
    threshold = 1.64  # the storm: one week in twenty
    prof = np.array([0.0, 0.7, 1.0, 1.0, 0.6, 0.2, 0.0])  # the storm's weight each day
    cancel, away, fuel_spike = np.array([1.0, 2.0]), 0.3, 1.0  # the storm's effects
    market, own, fuel_sd, sea_sd = 0.06, 0.12, 0.15, 0.08  # sd (log)
    sick0, sick_sd = 0.06, 0.5  # crews off sick
    burn = np.array([1.2, 5.0])  # fuel a sailing run
    lift_max, lift_scale = 0.15, 100.0  # marketing's lift, its scale ($k)
    quit_f, quit_c = 0.3, 0.15  # share of those left by a wave who give up
    keep, mar = 0.6, 6.0  # the name's memory, sensitivity
    overhead, deck_fee, yard_fee, premium = 600.0, 70.0, 15.0, 0.1  # a week
    crew_wage, retainer, callout, reserve = 2.2, 0.6, 2.5, 20.0  # a day
    sail_fee = np.array([2.0, 6.0])  # a sailing scheduled
    charter_car, charter_walk = 40.0, 10.0  # $ a car, a foot passenger carried on the charter
    wait_f, wait_c, night_f, night_c = 8.0, 20.0, 50.0, 60.0  # $ a wave, a night
    turn_away = 50.0  # $ a car turned away from the yard, beyond its refund
    forward, resale = 1.03, 0.85  # the hedge's price; its resale against the spot price
    share, retention = 0.7, 60.0  # the insurance's share and retention

    def lift(self, x):
        return 1.0 + self.lift_max * -np.expm1(-np.asarray(x, dtype=float)[..., 11]
                                                / self.lift_scale)

    def foot_mean(self, x):
        """Foot passengers a day on each route (island, mainland) in a usual market with an
        unblemished name, before the day of the week, the storm and the noise, (..., 2)."""
        x = np.asarray(x, dtype=float)
        return (self.fbase * np.exp(-self.el_f * (x[..., 0:1] / self.ref_f - 1.0)
                                    + self.cross * (x[..., 1:2] / self.ref_c - 1.0))
                * self.lift(x)[..., None])

    def car_mean(self, x):
        """Cars a day on each route likewise, (..., 2)."""
        x = np.asarray(x, dtype=float)
        return (self.cbase * np.exp(-self.el_c * (x[..., 1:2] / self.ref_c - 1.0))
                * self.lift(x)[..., None])

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        pad = (T,) + (1,) * k
        market = lognormal(self.market, z[4 * T])
        kick = np.maximum(z[4 * T + 4] - self.threshold, 0.0)
        day = (self.dow.reshape(pad) * market
               * np.exp(-self.away * self.prof.reshape(pad) * kick))
        parts = []
        for mean in (self.foot_mean(x), self.car_mean(x)):
            for r in range(2):
                m = columns(np.asarray(mean[..., r])[..., None, None], k)[0]
                parts.append(m * day * lognormal(self.own, z[len(parts) * T:(len(parts) + 1)
                                                              * T]))
        sick = -np.expm1(-self.sick0 * lognormal(self.sick_sd, z[4 * T + 1]))
        sea = lognormal(self.sea_sd, z[4 * T + 2])
        spot = lognormal(self.fuel_sd, z[4 * T + 3]) * (1.0 + self.fuel_spike * kick)
        return scenario(parts + [market[None], sick[None], sea[None], spot[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p_f, p_c = x[..., 0], x[..., 1]
        H, S, D, E, Y, K, G, V = (x[..., i] for i in range(6, 14))
        sick, sea, spot, kick = (W[4 * T + i] for i in range(1, 5))
        shape = np.broadcast_shapes(kick.shape, p_f.shape)
        fare_f = (p_f, self.long_fare * p_f)
        fare_c = (p_c, self.long_fare * p_c)
        total = (self.overhead + self.deck_fee * D + self.yard_fee * Y + K + self.premium * V
                 + T * (self.crew_wage * H + self.retainer * S + self.reserve * E)
                 ) + np.zeros(shape)
        at_work = H * (1.0 - sick)
        refunds = np.zeros(shape)
        fuel = np.zeros(shape)
        rep = np.ones(shape)
        q_f = [np.zeros(shape), np.zeros(shape)]
        q_c = [np.zeros(shape), np.zeros(shape)]
        for t in range(T):
            n = (x[..., 2 + (t >= 4)], x[..., 4 + (t >= 4)])
            need = n[0] / self.per_crew[0] + n[1] / self.per_crew[1]
            called = np.minimum(S, np.maximum(need - at_work, 0.0))
            rho = np.minimum(1.0, (at_work + S) / np.maximum(need, 1e-12))
            c = [-np.expm1(-self.cancel[r] * self.prof[t] * kick) for r in range(2)]
            run = [rho * (1.0 - c[r]) * n[r] for r in range(2)]
            fuel = fuel + sea * (self.burn[0] * run[0] + self.burn[1] * run[1])
            total = (total + self.callout * called + self.sail_fee[0] * n[0]
                     + self.sail_fee[1] * n[1])
            booked = 1.0 - self.walk + self.walk * rep
            F = [W[t] * booked, W[T + t] * booked]
            C = [W[2 * T + t] * booked, W[3 * T + t] * booked]
            capf = [self.fcap[0] * run[0], self.fcap[1] * run[1]]
            capc = [self.ccap[0] * run[0] + rho * (1.0 - c[0]) * D, self.ccap[1] * run[1]]
            ch_c = (1.0 - c[1]) * E
            ch_f = self.charter_foot * ch_c
            misses = np.zeros(shape)
            for r in range(2):
                total = total - fare_f[r] * F[r] - fare_c[r] * C[r]
            for w in range(NW):
                for r in range(2):
                    q = q_f[r] + self.arrive[w] * F[r]
                    left = q - np.minimum(q, self.sail[w] * capf[r])
                    if r == 1:
                        ch = np.minimum(left, self.sail[w] * ch_f)
                        left = left - ch
                        total = total + self.charter_walk * ch
                    gone = self.quit_f * left
                    q_f[r] = left - gone
                    refunds = refunds + fare_f[r] * gone
                    misses = misses + gone
                    q = q_c[r] + self.arrive[w] * C[r]
                    left = q - np.minimum(q, self.sail[w] * capc[r])
                    if r == 1:
                        ch = np.minimum(left, self.sail[w] * ch_c)
                        left = left - ch
                        total = total + self.charter_car * ch
                    gone = self.quit_c * left
                    q_c[r] = left - gone
                    refunds = refunds + fare_c[r] * gone
                    misses = misses + gone
                waiting = q_c[0] + q_c[1]
                turned = np.maximum(waiting - Y, 0.0) / np.maximum(waiting, 1e-12)
                for r in range(2):
                    out = turned * q_c[r]
                    q_c[r] = q_c[r] - out
                    refunds = refunds + fare_c[r] * out
                    misses = misses + out
                    total = total + self.turn_away * out
                if w < NW - 1:
                    pay_f, pay_c = self.wait_f, self.wait_c
                elif t < T - 1:
                    pay_f, pay_c = self.night_f, self.night_c
                else:
                    pay_f, pay_c = 0.0, 0.0
                total = (total + pay_f * (q_f[0] + q_f[1]) + pay_c * (q_c[0] + q_c[1]))
            miss = misses / np.maximum(F[0] + F[1] + C[0] + C[1], 1e-12)
            rep = self.keep * rep + (1.0 - self.keep) * np.exp(-self.mar * miss)
        for r in range(2):
            refunds = refunds + fare_f[r] * q_f[r] + fare_c[r] * q_c[r]
        total = (total + self.forward * G + spot * np.maximum(fuel - G, 0.0)
                 - self.resale * spot * np.maximum(G - fuel, 0.0))
        return total + refunds - np.minimum(
            V, self.share * np.maximum(refunds - self.retention, 0.0))
