"""A held-out problem: a city bakery chain's fortnight before and over a public holiday, seven
two-day periods at two shop clusters (the centre and the suburbs), fifteen decisions, twelve of
them open above, written after version 11 of the default and the flu-vaccine maker, the lender
and the car-rental company. Kept out of every choice of the default; its optimum is found
without acfs (``find_optima.py`` beside it, ``optima.json``). Loaves, cakes, buyers and oven
units are counted in thousands, money in $k, so a price of p $ a loaf is p $k a thousand.

Decisions x = (the bread price p_b and the cake price p_c ($), the holiday markdown share m of
the last period's leftovers, the bake plan's bread Q_b and cakes Q_c (thousand a period before
the season's factor), the central bakery's oven capacity O (thousand oven units a period), the
night-shift bakers N, the frozen cake-dough stock F (thousand cakes' worth) bought up front,
the cold room's capacity R (thousand units), the delivery vans V_1, V_2 and the shop staff S_1,
S_2 of the centre and the suburbs, the pre-order website's budget A ($k) and the flour hedge H
(thousand loaves' flour bought up front at a fixed price)). Period t would bring cluster j

    bbase_j bseason_t exp(-2.0 (p_b / 3 - 1) + 0.3 (p_c / 20 - 1)) wait_t
            * econ * exp(surge_t kick) * own_jt

bread buyers (a dear cake moves buyers to bread; both prices send some to the supermarkets)
and ``cbase_j cseason_t exp(-1.8 (p_c / 20 - 1)) wait_t * econ * exp(surge_t kick) *
own'_jt`` cake buyers, each buying one (bbase = 11, 9, cbase = 1.65, 1.35 thousand; bseason =
0.9, 1.0, 0.95, 1.0, 1.1, 1.25, 1.4, cseason = 0.8, 0.9, 0.9, 1.0, 1.2, 1.5, 2.2: the holiday
is period 7; wait = 1 but ``1 - 0.25 m`` in period 7, buyers who wait for the markdown;
``econ`` the fortnight's lognormal economy (sd 0.08 on the log, mean 1), own and own'
lognormal noise (sd 0.1, mean 1)). The website brings ``P = 2.5 (1 - exp(-A / 10)) exp(-1.8
(p_c / 20 - 1)) econ own''`` thousand holiday cake pre-orders (own'' sd 0.15), and the spot
prices of period t are ``4.5 sp_t`` a thousand cakes' dough and ``0.4 sp_t`` a thousand loaves'
flour, ``sp_t = exp(spike_t kick) own'''_t`` (own''' sd 0.12). A heavy-tailed snowstorm
before the holiday, ``kick = (z - 1.64)_+`` (one holiday in twenty, without bound): the buyers
stock up (surge = 0, 0, 0, 0, 0.3, 0.3, -1.2: more in periods 5-6, fewer in period 7), a power
cut takes the oven's capacity to ``O exp(-outage_t kick)`` (outage = 1 in periods 5-6, 0.5 in
period 7, 0 before), the vans slow to ``exp(-1.5 kick)`` of their capacity in periods 5-7 and
the spot prices spike (spike = 0, 0, 0, 0.7, 1.5, 1.5, 1.5).

The cold room of capacity R keeps a share ``room(h) = (1 + (h / R)^4)^(-1/4)`` of what it holds,
h (the fuller it is, the more spoils: 84 % kept when full, all but about R of a large excess).
The fortnight opens with the dough ``F room(F)`` in the cold room (the rest spoils), the flour
H, no cakes kept and both names at 1. In each period t:

- the plan is ``b = Q_b bseason_t`` loaves and ``c = Q_c cseason_t`` cakes, and in period 7
  also the P pre-ordered cakes; a cake takes 2 oven units and a loaf 1, ``need = b + 2 c``; the
  day shift's capacity is ``day = O exp(-outage_t kick)`` and in periods 5-7 each night baker
  adds 0.8, so ``made = min(need, day + 0.8 N)`` units are baked, a share ``f = made / need``
  of the plan (``B = f b`` loaves, ``C = f c`` cakes), ``(made - day)_+`` of them at night;
- the whole plan's dough and flour are prepared before the bake, baked or not (what the oven
  cannot bake is thrown away): the plan's cakes use the dough left and its loaves the hedged
  flour left, the shortfalls bought at the spot price;
- in period 7 the pre-orders are filled first, ``min(P, C)``, at p_c, collected at the
  bakery, each missed paying a penalty of 30;
- cluster j is sent the share 0.55 (centre) or 0.45 (suburbs) of the loaves, of the fresh
  cakes left and of the cakes kept from the period before; its vans carry ``4 V_j`` a period
  (``4 V_j exp(-1.5 kick)`` in periods 5-7), a share ``on = min(1, 4 V_j ... / sent)`` arrives
  on time and the rest late;
- its buyers are the period's times the cluster's name; the shop's staff serve 1 (thousand a
  period) each: with the load ``u = buyers / S_j`` a share ``s = (1 + u^4)^(-1/4)`` reaches
  the counter and the rest leave; those at the counter buy the goods on time, and of those
  left without, half leave and half buy from the late goods: ``sold = min(want, on g) +
  min((1 - on) g, 0.5 (want - on g)_+)`` for the loaves and the cakes alike (g the goods
  sent, want the buyers at the counter), the kept cakes sold first;
- the unsold bread is thrown away, the unsold kept cakes too; the unsold fresh cakes return to
  the cold room and are kept one period; the cluster's misses (the buyers who left the queue or
  found nothing), a share ``miss`` of its buyers, mar its name: ``rep <- 0.5 rep + 0.5
  exp(-3 miss)`` (a name that carries over and lowers the next period's buyers);
- the cold room holds the dough left and the cakes kept, h = dough + kept: the share room(h)
  of each is kept and the rest spoils;
- in period 7 the leftovers are marked down by the share m: its bargain hunters, ``0.3 (1 -
  exp(-4 m))`` of each cluster's bread and cake buyers (the name's factor included), buy up
  to that many of its leftover loaves and cakes at ``(1 - m)`` of the price.

Costs: up front the dough (2.5 a thousand cakes' worth), the flour hedge (0.3 a thousand
loaves', paid for whether needed) and the website (A); each period the oven capacity (0.4 a
unit, used or not), the vans (2.5 each), the staff (0.25 each), the cold room (0.08 a unit)
and the overhead (10); the night bakers 0.3 each in periods 5-7 and 0.25 a unit baked at
night; the dough and flour bought at the spot price; less the bread and cakes sold.

Offered as ``transform(x, z)`` (38 normals a row; a scenario is the fourteen bread buyers' and
the fourteen cake buyers' numbers (cluster by cluster, period by period), the pre-orders, the
seven periods' spot factors sp_t, the economy and the storm's excess ``(z - 1.64)_+``), its
cost vectorised over decisions: common random numbers are exact. lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T, K = 7, 2  # two-day periods, shop clusters (centre, suburbs)


class Bakery:
    name = "bakery"
    dim_x, dim_w = 15, 2 * K * T + T + 3
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref_b, el_b, ref_c, el_c, cross = 3.0, 2.0, 20.0, 1.8, 0.3  # prices ($), elasticities
    #: p_b, p_c, m, Q_b, Q_c, O, N, F, R, V_1, V_2, S_1, S_2, A, H
    bounds = ([(0.5 * ref_b, 2.0 * ref_b), (0.5 * ref_c, 2.0 * ref_c), (0.0, 0.9)]
              + [(0.0, np.inf)] * 12)
    x0 = np.array([3.0, 22.0, 0.1, 14.0, 3.0, 12.0, 6.0, 15.0, 20.0, 1.2, 1.2, 8.0, 8.0,
                   8.0, 60.0])

    bbase = np.array([11.0, 9.0])  # thousand loaves a period, centre and suburbs
    cbase = np.array([1.65, 1.35])  # thousand cakes a period
    share = np.array([0.55, 0.45])  # the clusters' shares of the goods shipped
    bseason = np.array([0.9, 1.0, 0.95, 1.0, 1.1, 1.25, 1.4])
    cseason = np.array([0.8, 0.9, 0.9, 1.0, 1.2, 1.5, 2.2])
    surge = np.array([0.0, 0.0, 0.0, 0.0, 0.3, 0.3, -1.2])  # the storm's effect on demand
    outage = np.array([0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.5])  # the oven's capacity lost
    slow = np.array([0.0, 0.0, 0.0, 0.0, 1.5, 1.5, 1.5])  # the vans' capacity lost
    spike = np.array([0.0, 0.0, 0.0, 0.7, 1.5, 1.5, 1.5])  # the spot prices raised
    threshold = 1.64  # the snowstorm: one holiday in twenty
    economy, noise, pre_noise, spot_noise = 0.08, 0.1, 0.15, 0.12  # sd (log)
    wait_out = 0.25  # period 7's buyers lost to the markdown's wait, a unit of m
    pre_max, pre_scale = 2.5, 10.0  # pre-orders (thousand cakes) and the website's scale ($k)
    oven_units, night_out, night_from = 2.0, 0.8, 4  # a cake's oven units; a baker's; periods
    van_load, desk = 4.0, 1.0  # thousand items a van, thousand buyers a staff, a period
    lines, leave, keep, mar = 4.0, 0.5, 0.5, 3.0  # queue; late goods' buyers lost; name
    fill = 4.0  # the cold room keeps held (1 + (held / R)^4)^(-1/4)
    bargain, sell_rate = 0.3, 4.0  # the markdown's buyers, 0.3 (1 - exp(-4 m)) of a buyer
    oven_fee, night_wage, night_premium = 0.4, 0.3, 0.25  # $k a unit a period; a baker
    dough_price, dough_spot, flour_price, flour_spot = 2.5, 4.5, 0.3, 0.4  # $k a k units
    van_fee, staff_wage, room_fee, overhead, pre_penalty = 2.5, 0.25, 0.08, 10.0, 30.0

    def bread_mean(self, x):
        """Bread buyers a period of each cluster in a usual economy, before the storm, the
        name and the noise, (..., 2, 7)."""
        x = np.asarray(x, dtype=float)
        level = np.exp(-self.el_b * (x[..., 0] / self.ref_b - 1.0)
                       + self.cross * (x[..., 1] / self.ref_c - 1.0))
        wait = np.ones(T) - np.eye(T)[-1] * self.wait_out * x[..., 2:3]
        return (level[..., None, None] * self.bbase[:, None] * self.bseason
                * wait[..., None, :])

    def cake_mean(self, x):
        """Cake buyers a period of each cluster, likewise, (..., 2, 7)."""
        x = np.asarray(x, dtype=float)
        level = np.exp(-self.el_c * (x[..., 1] / self.ref_c - 1.0))
        wait = np.ones(T) - np.eye(T)[-1] * self.wait_out * x[..., 2:3]
        return (level[..., None, None] * self.cbase[:, None] * self.cseason
                * wait[..., None, :])

    def pre_mean(self, x):
        """Holiday cake pre-orders in a usual economy (thousand), (...)."""
        x = np.asarray(x, dtype=float)
        return (self.pre_max * -np.expm1(-x[..., 13] / self.pre_scale)
                * np.exp(-self.el_c * (x[..., 1] / self.ref_c - 1.0)))

    def room(self, held, R):
        """The share of ``held`` the cold room of capacity R keeps, ``(1 + (held / R)^4)^(-1/4)``:
        the fuller it is, the more spoils (all but R of a large excess)."""
        return (1.0 + (held / np.maximum(R, 1e-12)) ** self.fill) ** (-1.0 / self.fill)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        n = K * T
        econ = lognormal(self.economy, z[2 * n + T + 1])
        kick = np.maximum(z[2 * n + T + 2] - self.threshold, 0.0)
        storm = np.exp(np.tile(self.surge, K).reshape((n,) + (1,) * k) * kick)
        bread = columns(self.bread_mean(x).reshape(x.shape[:-1] + (1, n)), k)
        cake = columns(self.cake_mean(x).reshape(x.shape[:-1] + (1, n)), k)
        bread = bread * econ * storm * lognormal(self.noise, z[:n])
        cake = cake * econ * storm * lognormal(self.noise, z[n:2 * n])
        pre = (columns(np.asarray(self.pre_mean(x))[..., None, None], k)[0] * econ
               * lognormal(self.pre_noise, z[2 * n]))
        spot = (np.exp(self.spike.reshape((T,) + (1,) * k) * kick)
                * lognormal(self.spot_noise, z[2 * n + 1:2 * n + 1 + T]))
        return scenario([bread, cake, pre[None], spot, econ[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        n = K * T
        p_b, p_c, m, Q_b, Q_c, O, N, F, R = (x[..., i] for i in range(9))
        V, S, A, H = (x[..., 9], x[..., 10]), (x[..., 11], x[..., 12]), x[..., 13], x[..., 14]
        pre, kick = W[2 * n], W[2 * n + T + 2]
        shape = np.broadcast_shapes(kick.shape, p_b.shape)
        total = (self.dough_price * F + self.flour_price * H + A
                 + T * (self.oven_fee * O + self.van_fee * (V[0] + V[1])
                        + self.staff_wage * (S[0] + S[1]) + self.room_fee * R + self.overhead)
                 + (T - self.night_from) * self.night_wage * N) + np.zeros(shape)
        dough = F * self.room(F, R) + np.zeros(shape)
        hedge = H + np.zeros(shape)
        old = np.zeros(shape)
        rep = [np.ones(shape), np.ones(shape)]
        for t in range(T):
            bake_b, bake_c = Q_b * self.bseason[t], Q_c * self.cseason[t]
            if t == T - 1:
                bake_c = bake_c + pre
            need = bake_b + self.oven_units * bake_c
            day = O * np.exp(-self.outage[t] * kick)
            night = self.night_out * N if t >= self.night_from else 0.0 * N
            made = np.minimum(need, day + night)
            f = made / np.maximum(need, 1e-12)
            B, C = f * bake_b, f * bake_c
            used = np.minimum(dough, bake_c)  # the plan's dough and flour, baked or not
            dough = dough - used
            flour = np.minimum(hedge, bake_b)
            hedge = hedge - flour
            spot = W[2 * n + 1 + t]
            total = (total + self.night_premium * np.maximum(made - day, 0.0)
                     + self.dough_spot * spot * (bake_c - used)
                     + self.flour_spot * spot * (bake_b - flour))
            if t == T - 1:
                filled = np.minimum(pre, C)
                C = C - filled
                total = total - p_c * filled + self.pre_penalty * (pre - filled)
            carried = 0.0
            for j in range(K):
                bread, fresh, aged = self.share[j] * B, self.share[j] * C, self.share[j] * old
                cap = self.van_load * V[j] * np.exp(-self.slow[t] * kick)
                ship = bread + fresh + aged
                on = np.minimum(1.0, cap / np.maximum(ship, 1e-12))
                Db, Dc = W[j * T + t] * rep[j], W[n + j * T + t] * rep[j]
                arrivals = Db + Dc
                load = arrivals / np.maximum(self.desk * S[j], 1e-9)
                s = (1.0 + load**self.lines) ** (-1.0 / self.lines)
                wb, wc = Db * s, Dc * s
                sold_b = (np.minimum(wb, on * bread)
                          + np.minimum((1.0 - on) * bread,
                                       self.leave * np.maximum(wb - on * bread, 0.0)))
                cakes = fresh + aged
                sold_c = (np.minimum(wc, on * cakes)
                          + np.minimum((1.0 - on) * cakes,
                                       self.leave * np.maximum(wc - on * cakes, 0.0)))
                sold_old = np.minimum(aged, sold_c)
                fresh_left = fresh - (sold_c - sold_old)
                carried = carried + fresh_left
                if t == T - 1:  # the holiday markdown of the leftovers, to its own buyers
                    lure = self.bargain * -np.expm1(-self.sell_rate * m)
                    total = total - (1.0 - m) * (
                        p_b * np.minimum(bread - sold_b, lure * Db)
                        + p_c * np.minimum(fresh_left + aged - sold_old, lure * Dc))
                miss = ((arrivals - wb - wc) + (wb - sold_b) + (wc - sold_c)) / np.maximum(
                    arrivals, 1e-12)
                rep[j] = self.keep * rep[j] + (1.0 - self.keep) * np.exp(-self.mar * miss)
                total = total - p_b * sold_b - p_c * sold_c
            room = self.room(dough + carried, R)
            dough, old = dough * room, carried * room
        return total
