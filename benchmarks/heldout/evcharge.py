"""A held-out problem: an electric-vehicle public charging network's week of seven days, each
of three eight-hour blocks (night, day, evening), at two site clusters (the city and the
highway), fourteen decisions, eleven of them open above, written after version 12 of the
default. Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``). Sessions are counted in hundreds, energy in
MWh, power in MW, money in $k, so a price of p $/kWh is p $k a MWh.

Decisions x = (the city's price p_c ($/kWh, from 0.5 to 2 times the reference 0.45), the
highway's price p_h ($/kWh, from 0.5 to 2 times the reference 0.6), the idle fee i ($ a minute
a car stays plugged in after charging, from 0 to 1), the fast chargers F_c in the city and F_h
on the highway, the slow chargers S in the city, the highway battery's energy B_E (MWh) and
power B_P (MW), the grid connections G_c and G_h contracted (MW, paid whether used), the
demand-response contract D (MW the city's connection may be cut by on the grid's call), the
technicians M, the marketing and app budget A ($k) and the electricity hedge H (MWh a block
bought up front at a fixed price)). Marketing lifts the demand by ``lift(A) = 1 + 0.5 (1 -
exp(-A / 40))``. Day d's (d = 0 .. 6) cars wanting to charge are

    N_c,d = 18 dow_c,d exp(-1.6 (p_c / 0.45 - 1) - 0.3 i) lift(A) level (1 + 0.3 w_d kick)
            own_c,d
    N_h,d = 8 dow_h,d exp(-1.5 (p_h / 0.6 - 1)) lift(A) level (1 + 0.7 w_d kick) own_h,d

hundred (dow_c = 1, 1, 1, 1.05, 1.1, 0.9, 0.85; dow_h = 0.9, 0.85, 0.85, 0.95, 1.25, 1.2,
1.3; ``level`` the week's lognormal level, sd 0.1 on the log, mean 1; own_c, own_h lognormal,
sd 0.2 and 0.25; what a dear price loses goes to a rival or to charging at home), a share
``share_c = 0.15, 0.4, 0.45`` (``share_h = 0.1, 0.55, 0.35``) of them in the night, day and
evening block. The day's wholesale electricity price is ``spot_d = 0.09 gas own'_d (1 + 4 w_d
kick)`` $k/MWh (gas the week's lognormal level, sd 0.15; own' sd 0.2), times ``shape = 0.6, 1,
1.4`` in its three blocks. A heavy-tailed heatwave and grid emergency, ``kick = (z - 1.64)_+``
(one week in twenty, without bound), weighted ``w = 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 1`` over
the days (more late in the week), raises the demand (the highway's the most) and the price,
derates both grid connections to ``exp(-0.8 w_d kick)`` of their contract, calls the
demand-response contract in the day and evening blocks (a share ``call = 1 - exp(-2 w_d
kick)`` of D) and breaks the fast chargers more often.

The week opens with no car waiting, no charger broken, the battery empty and each cluster's
name ``rep = 1``. In each block (day d, block b), at each cluster j:

- the fast chargers up, ``F_j - broken_j``, break at the rate ``1 - exp(-r_j (1 + 2 w_d
  kick))`` (r_c = 0.015, r_h = 0.02): ``broken_j`` grows by as many; the technicians mend ``fix
  = min(broken_c + broken_h, 0.4 M)``, shared in proportion to the broken chargers, the rest
  wait (they carry over); the chargers working are ``F_j - broken_j`` after the repairs;
- the cars wanting to charge are ``want_j = Q_j + N_j,d share_j,b rep_j`` (Q_j those waiting
  from the last block); in the city the slow chargers take ``slow = min(k_b S (1 + 0.5 (1 -
  exp(-i / 0.25))), patient_b want_c)`` of them (k = 0.012, 0.008, 0.008 in the night, day and
  evening: the idle fee frees the slow chargers sooner; ``patient = 0.8, 0.35, 0.35`` the
  cars that will take a slow charge) and the fast chargers ``min(want_c - slow, 0.11 (F_c -
  broken_c))`` more, ``pot_c`` in all; on the highway the fast chargers take ``pot_h =
  min(want_h, 0.1 (F_h - broken_h))``; they need ``need_j = e_j pot_j`` MWh (e_c = 2.5, e_h
  = 4);
- the city's grid gives up to ``g_c = 8 G_c exp(-0.8 w_d kick)`` MWh, less in the day and
  evening blocks the cut called, ``cut = 8 D call``: ``grid_c = (g_c - cut)_+``; the grid
  pays the block's price for the cut delivered, ``min(cut, g_c)``, and the operator three
  times the price for the cut beyond the connection, ``(cut - g_c)_+``; the highway's grid
  gives up to ``grid_h = 8 G_h exp(-0.8 w_d kick)`` MWh. In the city the grid's ``min(need_c,
  grid_c)`` is served; on the highway, at night, the grid's ``u =
  min(need_h, grid_h)`` is served and the battery charges ``ch = min(8 B_P, (B_E - soc) /
  0.9, grid_h - u)`` from what is left (stored ``soc <- soc + 0.9 ch``); by day and evening it
  gives ``dis = min(soc, 8 B_P, need_h)`` first (``soc <- soc - dis``) and the grid ``u =
  min(need_h - dis, grid_h)``; the sessions served are ``served_j`` = the energy given / e_j,
  the city's slow sessions ``min(served_c, slow)``;
- of the cars left, ``want_j - served_j``, 35 % in the city and 20 % on the highway wait to
  the next block (``Q_j``), the rest give up (``gone_j``, to the rival); the misses mar the
  name, ``rep_j <- 0.8 rep_j + 0.2 exp(-4 gone_j / want_j)`` (a name that carries over and
  lowers the later demand).

Costs: the overhead (40 a week), the fast chargers (0.35 each in the city, 0.45 on the
highway), the slow chargers (0.04 each), the battery (0.2 a MWh and 0.25 a MW), the
connections (2.4 a MW in the city, 3.5 on the highway), the technicians (1.6 each) and the
marketing A, less the demand-response fee (1 a MW); each block the grid's energy at the
block's price (the city's, the highway's and the battery's charge), the demand response's
payments, each repair (0.3), each hundred cars waiting (0.5, vouchers) or given up (1.5,
goodwill), the hedge's settlement ``H (1.15 0.09 - spot_d) shape_b``; less the energy
sold, ``p_j e_j served_j``, and the idle fees, ``0.1 i 20 exp(-4 i)`` a hundred slow
sessions (idle minutes that shrink as the fee grows). At the end, each cluster's lost name
costs ``60 (1 - rep_j)`` (the next weeks' demand), each charger still broken 0.5.

Offered as ``transform(x, z)`` (24 normals a row; a scenario is each day's cars wanting to
charge in the city and on the highway, each day's price, the level, the gas level and the
shock's excess ``(z - 1.64)_+``), its cost vectorised over decisions: common random numbers
are exact. lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

D = 7  # days
B = 3  # blocks a day: night, day, evening


class EvCharge:
    name = "evcharge"
    dim_x, dim_w = 14, 3 * D + 3
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref_c, ref_h, top_i = 0.45, 0.6, 1.0  # the reference prices ($/kWh); the idle fee's top
    #: p_c, p_h, i, F_c, F_h, S, B_E, B_P, G_c, G_h, D, M, A, H
    bounds = ([(0.5 * ref_c, 2.0 * ref_c), (0.5 * ref_h, 2.0 * ref_h), (0.0, top_i)]
              + [(0.0, np.inf)] * 11)
    x0 = np.array([0.5, 0.7, 0.3, 40.0, 40.0, 200.0, 6.0, 1.0, 3.0, 2.5, 1.0, 4.0, 20.0,
                   15.0])

    base_c, base_h = 18.0, 8.0  # hundred cars a day at the reference prices
    el_c, el_h, el_i = 1.6, 1.5, 0.3  # the elasticities
    dow_c = np.array([1.0, 1.0, 1.0, 1.05, 1.1, 0.9, 0.85])
    dow_h = np.array([0.9, 0.85, 0.85, 0.95, 1.25, 1.2, 1.3])
    share_c, share_h = np.array([0.15, 0.4, 0.45]), np.array([0.1, 0.55, 0.35])
    lift_max, lift_scale = 0.5, 40.0  # marketing's lift, its scale ($k)
    level_sd, own_c, own_h, gas_sd, spot_sd = 0.1, 0.2, 0.25, 0.15, 0.2  # sd (log)
    spot_ref, shape = 0.09, np.array([0.6, 1.0, 1.4])  # $k/MWh; the blocks' price shape
    threshold = 1.64  # the shock: one week in twenty
    w = np.array([0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 1.0])  # its weight each day
    heat_c, heat_h, spike, derate, call_k, break_k = 0.3, 0.7, 4.0, 0.8, 2.0, 2.0
    hours = 8.0
    fast_c, fast_h = 0.11, 0.1  # hundred sessions a fast charger a block
    slow_k = np.array([0.012, 0.008, 0.008])  # a slow charger's, by block
    patient = np.array([0.8, 0.35, 0.35])  # the city's cars that take a slow charger
    idle_boost, idle_scale, idle_min, idle_decay = 0.5, 0.25, 20.0, 4.0
    e_c, e_h = 2.5, 4.0  # MWh a hundred sessions
    rate_c, rate_h, per_tech = 0.015, 0.02, 0.4  # failures a charger a block; repairs a block
    eff = 0.9  # the battery's charging efficiency
    stay_c, stay_h = 0.35, 0.2  # shares of the cars left that wait to the next block
    memory, mar = 0.8, 4.0  # the name's memory, sensitivity
    overhead, fast_fee_c, fast_fee_h, slow_fee = 40.0, 0.35, 0.45, 0.04  # a week
    energy_fee, power_fee, conn_c, conn_h, tech_wage, dr_fee = 0.2, 0.25, 2.4, 3.5, 1.6, 1.0
    repair, wait_fee, gone_fee, strike = 0.3, 0.5, 1.5, 1.15
    name_cost, left_broken = 60.0, 0.5
    undelivered = 3.0  # the price's multiple paid for a cut beyond the connection

    def lift(self, x):
        return 1.0 + self.lift_max * -np.expm1(-np.asarray(x, dtype=float)[..., 12]
                                                / self.lift_scale)

    def demand_mean(self, x):
        """Hundred cars a day wanting to charge in the city and on the highway in a usual week,
        before the day of the week and the noise: shape (..., 2)."""
        x = np.asarray(x, dtype=float)
        c = self.base_c * np.exp(-self.el_c * (x[..., 0] / self.ref_c - 1.0)
                                 - self.el_i * x[..., 2])
        h = self.base_h * np.exp(-self.el_h * (x[..., 1] / self.ref_h - 1.0))
        return np.stack([c, h], axis=-1) * self.lift(x)[..., None]

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (D,) + (1,) * k
        level = lognormal(self.level_sd, z[3 * D])
        gas = lognormal(self.gas_sd, z[3 * D + 1])
        kick = np.maximum(z[3 * D + 2] - self.threshold, 0.0)
        heat = self.w.reshape(pad) * kick
        m = columns(np.asarray(self.demand_mean(x))[..., None, :], k)
        city = (m[0] * self.dow_c.reshape(pad) * level * (1.0 + self.heat_c * heat)
                * lognormal(self.own_c, z[:D]))
        highway = (m[1] * self.dow_h.reshape(pad) * level * (1.0 + self.heat_h * heat)
                   * lognormal(self.own_h, z[D:2 * D]))
        spot = (self.spot_ref * gas * lognormal(self.spot_sd, z[2 * D:3 * D])
                * (1.0 + self.spike * heat))
        return scenario([city, highway, spot, level[None], gas[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p_c, p_h, i = x[..., 0], x[..., 1], x[..., 2]
        F_c, F_h, S, B_E, B_P, G_c, G_h, Dr, M, A, H = (x[..., j] for j in range(3, 14))
        kick = W[3 * D + 2]
        shape = np.broadcast_shapes(kick.shape, p_c.shape)
        total = (self.overhead + self.fast_fee_c * F_c + self.fast_fee_h * F_h
                 + self.slow_fee * S + self.energy_fee * B_E + self.power_fee * B_P
                 + self.conn_c * G_c + self.conn_h * G_h + self.tech_wage * M + A
                 - self.dr_fee * Dr) + np.zeros(shape)
        boost = 1.0 + self.idle_boost * -np.expm1(-i / self.idle_scale)
        idle = 0.1 * i * self.idle_min * np.exp(-self.idle_decay * i)  # $k a hundred slow
        Q_c, Q_h, soc = np.zeros(shape), np.zeros(shape), np.zeros(shape)
        bro_c, bro_h = np.zeros(shape), np.zeros(shape)
        rep_c, rep_h = np.ones(shape), np.ones(shape)
        for d in range(D):
            heat = self.w[d] * kick
            spot_d = W[2 * D + d]
            derate = np.exp(-self.derate * heat)
            call = -np.expm1(-self.call_k * heat)
            for b in range(B):
                price = spot_d * self.shape[b]
                # breakdowns and repairs
                bro_c = bro_c + (F_c - bro_c) * -np.expm1(-self.rate_c
                                                          * (1.0 + self.break_k * heat))
                bro_h = bro_h + (F_h - bro_h) * -np.expm1(-self.rate_h
                                                          * (1.0 + self.break_k * heat))
                broken = bro_c + bro_h
                fix = np.minimum(broken, self.per_tech * M)
                part = fix / np.maximum(broken, 1e-12)
                bro_c, bro_h = bro_c - part * bro_c, bro_h - part * bro_h
                # the cars and the chargers
                want_c = Q_c + W[d] * self.share_c[b] * rep_c
                want_h = Q_h + W[D + d] * self.share_h[b] * rep_h
                slow = np.minimum(self.slow_k[b] * S * boost, self.patient[b] * want_c)
                pot_c = slow + np.minimum(want_c - slow, self.fast_c * (F_c - bro_c))
                pot_h = np.minimum(want_h, self.fast_h * (F_h - bro_h))
                need_c, need_h = self.e_c * pot_c, self.e_h * pot_h
                # the grid and the battery
                grid_c = self.hours * G_c * derate
                if b > 0:
                    cut = self.hours * Dr * call
                    total = (total + self.undelivered * price * np.maximum(cut - grid_c, 0.0)
                             - price * np.minimum(cut, grid_c))
                    grid_c = np.maximum(grid_c - cut, 0.0)
                grid_h = self.hours * G_h * derate
                use_c = np.minimum(need_c, grid_c)
                if b == 0:
                    use_h = np.minimum(need_h, grid_h)
                    ch = np.minimum(np.minimum(self.hours * B_P, (B_E - soc) / self.eff),
                                    grid_h - use_h)
                    soc = soc + self.eff * ch
                    given_h = use_h
                    bought = use_c + use_h + ch
                else:
                    dis = np.minimum(np.minimum(soc, self.hours * B_P), need_h)
                    soc = soc - dis
                    use_h = np.minimum(need_h - dis, grid_h)
                    given_h = dis + use_h
                    bought = use_c + use_h
                served_c, served_h = use_c / self.e_c, given_h / self.e_h
                slow_served = np.minimum(served_c, slow)
                # the cars left: waiting or gone
                left_c, left_h = want_c - served_c, want_h - served_h
                gone_c, gone_h = (1.0 - self.stay_c) * left_c, (1.0 - self.stay_h) * left_h
                Q_c, Q_h = self.stay_c * left_c, self.stay_h * left_h
                total = (total + price * bought + self.repair * fix
                         + self.wait_fee * (Q_c + Q_h) + self.gone_fee * (gone_c + gone_h)
                         + H * (self.strike * self.spot_ref - spot_d) * self.shape[b]
                         - p_c * use_c - p_h * given_h - idle * slow_served)
                rep_c = (self.memory * rep_c + (1.0 - self.memory)
                         * np.exp(-self.mar * gone_c / np.maximum(want_c, 1e-12)))
                rep_h = (self.memory * rep_h + (1.0 - self.memory)
                         * np.exp(-self.mar * gone_h / np.maximum(want_h, 1e-12)))
        return (total + self.name_cost * (2.0 - rep_c - rep_h)
                + self.left_broken * (bro_c + bro_h))
