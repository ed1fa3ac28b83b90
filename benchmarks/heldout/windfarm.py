"""A held-out problem: an offshore wind farm operator's winter quarter of six two-week periods,
thirteen decisions, eleven of them open above, written after version 12 of the default. Kept
out of every choice of the default; its optimum is found without acfs (``find_optima.py``
beside it, ``optima.json``). Energy is counted in GWh, money in $k, so a price of p $/MWh is
p $k a GWh.

Decisions x = (the fixed price p offered to corporate buyers in a power-purchase agreement
($/MWh, from 0.5 to 2 times the reference 60) and the flexibility discount f granted off it
($/MWh, from 0.5 to 2 times the reference 4), the technicians rostered H_1 for periods 1-3 and
H_2 for periods 4-6, the crew-transfer vessels chartered C_1 and C_2 likewise, the jack-up
vessel J reserved for major repairs (paid whether used), the spare gearboxes S_g and spare
blades S_b held, the battery's capacity B (GWh), the condition-monitoring budget M ($k), the
weather-window insurance cover I ($k) and the balancing-reserve contract R (GWh a period)).
The buyers contract a load, in period t (t = 0 .. 5),

    L_t = 60 exp(-3 (p / 60 - 1)) (f / 4)^0.2 shape_t app (1 + 0.5 prof_t kick) own_t

GWh (shape = 0.95, 1, 1.05, 1.05, 1, 0.95; ``app`` the buyers' appetite, lognormal, sd 0.08 on
the log, mean 1; own lognormal, sd 0.06; a cold snap with the storm raises it); the rest of
the output is sold on the spot market. The wind is ``wind_t = season_t own'_t`` (season = 0.95,
1, 1.05, 1.05, 1, 0.95; own' sd 0.25), the spot price ``spot_t = 60 gas own''_t exp(-0.3
(wind_t - 1)) (1 + 1.5 prof_t kick)`` $/MWh (gas the quarter's lognormal level, sd 0.1; own''
sd 0.15), the failure factor ``fail_t = own'''_t (1 + 4 prof_t kick)`` (own''' sd 0.3) and the
sea's roughness ``rough`` the quarter's lognormal level (sd 0.3). A heavy-tailed storm, ``kick
= (z - 1.64)_+`` (one winter in twenty, without bound), weighted ``prof = 0.2, 0.4, 0.6, 0.8,
1, 1`` over the periods (more late in the quarter), raises the load, the spot price and the
failures, grounds the vessels and stops turbines in high winds.

The quarter opens with 40 turbines, none broken. In period t:

- the vessels can work a share ``access_t = exp(-0.25 rough - 2 prof_t kick)`` of the period;
- of the turbines up, ``up = 40 - m - g`` (m, g the minor and the major repairs waiting),
  ``up (1 - exp(-0.035 wind_t fail_t cm))`` fail, ``cm = 1 - 0.4 (1 - exp(-M / 150))`` (the
  monitoring's cut, with diminishing returns); 75 % join the minor backlog m, 25 % the major
  backlog g;
- the technicians and vessels of the period's half (H, C) mend ``fm = min(m, access_t min(0.6
  H, 5 C))`` minor failures, the jack-up ``fg = min(g, 1.5 access_t J)`` major ones; the rest
  wait (a backlog that carries over); the turbines working are ``40 - m - g + 0.5 (fm + fg)``
  (before the repairs are taken off the backlogs; those mended work half the period);
- a major repair needs a gearbox (40 % of them) or a blade (60 %), taken from the spares held
  while they last, otherwise bought urgently at twice the price;
- the output is ``E = 1.25 wind_t working exp(-1.5 prof_t kick)`` GWh; half the period is windy
  (output 0.5 E (1 + 0.6), spot price 0.8 spot_t) and half calm (0.5 E (1 - 0.6), 1.2 spot_t),
  half the load ``l = L_t / 2`` due in each. In the windy half the surplus beyond l charges the
  battery up to B, the rest sold at the half's price, a shortfall left; in the calm half the
  battery gives back 0.75 of its charge (within the period, empty at its start), the surplus
  sold, a shortfall left;
- a shortfall up to ``f / 40`` of l in each half is excused by the flexibility (the buyers buy
  it themselves and do not pay for it); beyond it, the period's reserve R covers ``min(R,
  beyond)`` at 80 $/MWh, the rest, each half's in proportion, bought at 1.2 times the half's
  spot price (imbalance).

Costs: the overhead (9000 a quarter, the farm's debt and lease), the monitoring M, the
insurance's premium (0.12 a $k of cover), the jack-up's reservation (400 a unit), the spares
(300 a gearbox, 120 a blade), the battery (45 a GWh for the quarter); each period the
technicians (25 each), the vessels (60 each), the reserve (5 a GWh reserved), the repairs (10 a
minor, 150 a major), the urgent spares, the reserve's energy and the imbalance; less the
buyers' ``(p - f) (L_t - excused)`` and the spot sales. At the end, each turbine still broken
costs 200 (minor) or 600 (major), the spares left are sold back at half their price, and the
insurance pays ``min(I, 0.7 (Q - 300)_+)``, Q the quarter's imbalance purchases.

Offered as ``transform(x, z)`` (28 normals a row; a scenario is the buyers' loads, the wind,
the spot prices and the failure factors of each period, the appetite, the gas level, the
roughness and the storm's excess ``(z - 1.64)_+``), its cost vectorised over decisions: common
random numbers are exact. lam 0.75, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 6  # two-week periods


class WindFarm:
    name = "windfarm"
    dim_x, dim_w = 13, 4 * T + 4
    vectorized = True
    lam, alpha = 0.75, 0.95
    ref_p, ref_f = 60.0, 4.0  # the reference PPA price and flexibility discount ($/MWh)
    #: p, f, H_1, H_2, C_1, C_2, J, S_g, S_b, B, M, I, R
    bounds = [(0.5 * ref_p, 2.0 * ref_p), (0.5 * ref_f, 2.0 * ref_f)] + [(0.0, np.inf)] * 11
    x0 = np.array([80.0, 4.0, 6.0, 6.0, 0.6, 0.6, 0.4, 1.0, 1.5, 1.0, 150.0, 200.0, 3.0])

    turbines, energy = 40.0, 1.25  # turbines; GWh a working turbine a period at wind 1
    qbase, el_p, el_f = 60.0, 3.0, 0.2  # GWh a period contracted at the reference terms
    shape = np.array([0.95, 1.0, 1.05, 1.05, 1.0, 0.95])  # the buyers' load over the quarter
    season = np.array([0.95, 1.0, 1.05, 1.05, 1.0, 0.95])  # the wind over the quarter
    prof = np.array([0.2, 0.4, 0.6, 0.8, 1.0, 1.0])  # the storm's weight each period
    threshold = 1.64  # the storm: one winter in twenty
    appetite, load_sd, wind_sd, gas_sd, spot_sd, fail_sd, rough_sd = (
        0.08, 0.06, 0.25, 0.1, 0.15, 0.3, 0.3)  # sd (log)
    spot_ref, wind_price = 60.0, 0.3  # $/MWh; the spot price's fall a unit of wind
    cold, spike, fail_kick, ground, cut_out = 0.5, 1.5, 4.0, 2.0, 1.5  # the storm's effects
    rate, major = 0.035, 0.25  # failures a turbine a period at wind 1; major's share
    cm_max, cm_scale = 0.4, 150.0  # monitoring's cut of the failures, its scale ($k)
    rough_cost = 0.25  # the vessels' access lost a unit of roughness
    per_tech, per_ctv, per_jack = 0.6, 5.0, 1.5  # repairs a period
    gust, half_spread, eff = 0.6, 0.2, 0.75  # the windy half's excess; its price; the battery's
    tol_per = 1.0 / 40.0  # the shortfall excused a $/MWh of discount, a share of the load
    imbalance, reserve_fee, reserve_price = 1.2, 5.0, 80.0  # spot's multiple; $/MWh
    gear, spare = 0.4, (300.0, 120.0)  # gearboxes' share of the major repairs; $k each
    urgent, resale = 2.0, 0.5  # urgent spares' multiple, unused spares' resale share
    overhead, battery_fee, jack_fee, premium = 9000.0, 45.0, 400.0, 0.12  # a quarter
    tech_wage, ctv_fee, minor_cost, major_cost = 25.0, 60.0, 10.0, 150.0  # a period; a repair
    left_minor, left_major = 200.0, 600.0  # $k a turbine still broken at the end
    share, retention = 0.7, 300.0  # the insurance's share and retention

    def load_mean(self, x):
        """The buyers' contracted load a period in a usual winter, before the season, (...)."""
        x = np.asarray(x, dtype=float)
        return (self.qbase * np.exp(-self.el_p * (x[..., 0] / self.ref_p - 1.0))
                * (x[..., 1] / self.ref_f) ** self.el_f)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        pad = (T,) + (1,) * k
        kick = np.maximum(z[4 * T + 3] - self.threshold, 0.0)
        storm = self.prof.reshape(pad) * kick
        appetite = lognormal(self.appetite, z[4 * T])
        gas = lognormal(self.gas_sd, z[4 * T + 1])
        rough = lognormal(self.rough_sd, z[4 * T + 2])
        mean = columns(np.asarray(self.load_mean(x))[..., None, None], k)[0]
        load = (mean * self.shape.reshape(pad) * appetite * (1.0 + self.cold * storm)
                * lognormal(self.load_sd, z[:T]))
        wind = self.season.reshape(pad) * lognormal(self.wind_sd, z[T:2 * T])
        spot = (self.spot_ref * gas * lognormal(self.spot_sd, z[2 * T:3 * T])
                * np.exp(-self.wind_price * (wind - 1.0)) * (1.0 + self.spike * storm))
        fail = lognormal(self.fail_sd, z[3 * T:4 * T]) * (1.0 + self.fail_kick * storm)
        return scenario([load, wind, spot, fail, appetite[None], gas[None], rough[None],
                         kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p, f = x[..., 0], x[..., 1]
        J, S_g, S_b, B, M, I, R = (x[..., i] for i in range(6, 13))
        rough, kick = W[4 * T + 2], W[4 * T + 3]
        shape = np.broadcast_shapes(kick.shape, p.shape)
        total = (self.overhead + M + self.premium * I + self.jack_fee * J
                 + self.spare[0] * S_g + self.spare[1] * S_b + self.battery_fee * B
                 ) + np.zeros(shape)
        cond = 1.0 - self.cm_max * -np.expm1(-M / self.cm_scale)
        tol = self.tol_per * f
        minor, major = np.zeros(shape), np.zeros(shape)
        gear, blade = S_g + np.zeros(shape), S_b + np.zeros(shape)
        imb = np.zeros(shape)
        for t in range(T):
            H, C = x[..., 2 + (t >= 3)], x[..., 4 + (t >= 3)]
            load, wind, spot, fail = W[t], W[T + t], W[2 * T + t], W[3 * T + t]
            storm = self.prof[t] * kick
            access = np.exp(-self.rough_cost * rough - self.ground * storm)
            up = self.turbines - minor - major
            new = up * -np.expm1(-self.rate * wind * fail * cond)
            minor = minor + (1.0 - self.major) * new
            major = major + self.major * new
            fix_minor = np.minimum(minor, access * np.minimum(self.per_tech * H,
                                                              self.per_ctv * C))
            fix_major = np.minimum(major, access * self.per_jack * J)
            avail = self.turbines - minor - major + 0.5 * (fix_minor + fix_major)
            minor, major = minor - fix_minor, major - fix_major
            g_need, b_need = self.gear * fix_major, (1.0 - self.gear) * fix_major
            g_use, b_use = np.minimum(gear, g_need), np.minimum(blade, b_need)
            gear, blade = gear - g_use, blade - b_use
            total = (total + self.tech_wage * H + self.ctv_fee * C + self.reserve_fee * R
                     + self.minor_cost * fix_minor + self.major_cost * fix_major
                     + self.urgent * (self.spare[0] * (g_need - g_use)
                                      + self.spare[1] * (b_need - b_use)))
            E = self.energy * wind * avail * np.exp(-self.cut_out * storm)
            L = 0.5 * load
            windy, lull = 0.5 * E * (1.0 + self.gust), 0.5 * E * (1.0 - self.gust)
            s_w, s_l = spot * (1.0 - self.half_spread), spot * (1.0 + self.half_spread)
            charge = np.minimum(B, np.maximum(windy - L, 0.0))
            sell_w = np.maximum(windy - L, 0.0) - charge
            short_w = np.maximum(L - windy, 0.0)
            have = lull + self.eff * charge
            sell_l = np.maximum(have - L, 0.0)
            short_l = np.maximum(L - have, 0.0)
            ex_w, ex_l = np.minimum(short_w, tol * L), np.minimum(short_l, tol * L)
            beyond_w, beyond_l = short_w - ex_w, short_l - ex_l
            beyond = beyond_w + beyond_l
            called = np.minimum(R, beyond)
            rest = 1.0 - called / np.maximum(beyond, 1e-12)
            bought = self.imbalance * rest * (beyond_w * s_w + beyond_l * s_l)
            imb = imb + bought
            total = (total + self.reserve_price * called + bought
                     - (p - f) * (load - ex_w - ex_l) - s_w * sell_w - s_l * sell_l)
        total = (total + self.left_minor * minor + self.left_major * major
                 - self.resale * (self.spare[0] * gear + self.spare[1] * blade))
        return total - np.minimum(I, self.share * np.maximum(imb - self.retention, 0.0))
