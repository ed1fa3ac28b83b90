"""A held-out problem: an airport ground handler's winter season of five months (November to
March) at one airport, thirteen decisions, eleven of them open above, written after version 15
of the default and its judgement on the home-care agency and the air-cargo forwarder. Kept out
of every choice of the default; its optimum is found without acfs (``find_optima.py`` beside
it, ``optima.json``). Turns (an aircraft's turnaround at the stand) are counted one by one, the
de-icing fluid (glycol) in kL, the work in minutes, money in $k.

Decisions x = (the price p of the standard handling and de-icing contract ($k a turn, from 0.5
to 2 times the reference 1.6), the price q of the premium priority service ($k a turn, from 0.5
to 2 times the reference 2.6: its turns are de-iced first), the de-icing rigs R (trucks) leased
for the season, the crews C hired for the season (paid whether they de-ice), a pool P of temp
crews on a retainer, the glycol G bought ahead (kL), a fluid option O reserved with a supplier
(kL a month, a fee paid, bought at a price a kL when called), the heated tanks' capacity H
(kL), the fluid recovery and recycling plant's capacity U (kL a month), the rigs' mechanics M,
a training budget K ($k), a forecasting and meteorology service's budget F ($k) and an
insurance cover V ($k)). The prices move the airlines' turns by an exponential elasticity (what
a dear contract loses goes to the rival handler):

    D_1t = 3000 s_t exp(-3 (p / 1.6 - 1)) level e1_t,
    D_2t = 600 s_t exp(-2 (q / 2.6 - 1)) level e2_t

the standard and the priority turns a month (s = 0.9, 1.1, 1, 0.95, 0.95, the holidays' peak;
``level`` the season's lognormal level, sd 0.08, mean 1; e1, e2 lognormal, mean 1, sd 0.1). The
training cuts a de-icing to ``tau(K) = 15 (0.7 + 0.3 exp(-K / 80))`` minutes of a rig and a
crew, the forecasts leave idle ``0.3 exp(-F / 50)`` of the crews' peak minutes (``use(F) = 1 -
0.3 exp(-F / 50)`` of them work), and the mechanics leave ``guard(M) = 0.3 + 0.7 exp(-M / 2)``
of the rigs' breakdowns (all three with diminishing returns).

A heavy-tailed winter storm, ``kick = (z - 1.64)_+`` (one season in twenty, without bound),
weighted ``w = 0.4, 0.8, 1, 1, 0.6`` over the months (most in midwinter), ``storm_t = w_t
kick``, multiplies the de-icing need per turn and the fluid each de-icing burns, lengthens the
de-icings, breaks rigs, makes crews sick and keeps the temps away, and raises the spot price of
fluid and cuts its supply. In month t (t = 1 .. 5) the scenario is, beside the turns,

    ice_t = 1 - exp(-h_t (1 + storm_t) e3_t),       fluid_t = 0.4 (1 + 0.6 storm_t) e4_t,
    brk_t = 0.25 (1 + 2 storm_t) e5_t,               sick_t = 1 - exp(-0.04 (1 + 3 storm_t) e6_t),
    spot_t = 3 mkt (1 + storm_t) e7_t,               avail_t = 250 e8_t / (1 + 1.5 storm_t)

(the share of the turns that need de-icing, h = 0.25, 0.5, 0.7, 0.6, 0.3; the kL of fluid a
de-icing burns; the rigs' breakdown hazard; the share of the crews off sick; the spot price of
fluid, $k a kL, and the kL the spot market offers; ``mkt`` the season's lognormal fluid market,
sd 0.15, mean 1; e3 .. e8 lognormal, mean 1, sd 0.3, 0.15, 0.4, 0.3, 0.1 and 0.25).

The season opens with the glycol G in stock and the airlines' goodwill ``g = 1``. In month t:

- the stock beyond the heated tanks, ``(stock - H)_+``, is held in rented tanks at 0.15 a kL;
- the turns, ``g D_1t`` and ``g D_2t`` (the goodwill carries over and lowers the later months'
  turns), want ``n_j = ice_t g D_jt`` de-icings in the month's peaks, ``n = n_1 + n_2``;
- a de-icing takes ``mins = tau(K) (1 + 0.3 storm_t)`` minutes; the rigs up work ``3000 R
  exp(-brk_t guard(M))`` minutes, the crews ``cm = 3000 C (1 - sick_t) use(F)`` and the temps up
  to ``3000 P (1 - sick_t) use(F) / (1 + storm_t)`` (3000 peak minutes a rig or a crew a
  month); the peak de-ices ``done = min(n, min(rig minutes, crew minutes + temp minutes) /
  mins, (stock + O + avail_t) / fluid_t)``, the priority turns first, ``done_2 = min(n_2,
  done)``, ``done_1 = done - done_2``; the temps are paid for the minutes they work, ``(done
  mins - cm)_+``, at 0.02 a minute;
- the fluid burnt, ``u = done fluid_t``, comes from the stock first, then the option (at 2.4 a
  kL called, up to O), then the spot market (at spot_t a kL); a share 0.6 of it is collected,
  the plant recovers ``rec = min(0.6 u, U)`` (0.2 a kL to run) and half of it goes back to the
  stock, ``stock <- stock - from stock + 0.5 rec``; the collected fluid not recovered is
  disposed of at 0.6 a kL;
- the turns not de-iced in the peak wait in a queue, ``late_j = n_j - done_j``, ``r = (late_1 +
  late_2) / n``: each waits ``30 (1 + 3 r)`` minutes (the delay costs 0.03 a minute on a
  standard turn, 0.08 on a priority one); a share ``0.5 r`` of them is cancelled (a penalty of 5
  and 8 each, the turn not paid, and the goodwill falls, ``g <- g exp(-gone / 3000)``, gone the
  flights cancelled); the rest are de-iced after the peak on overtime, 0.3 each and fluid_t of
  fluid trucked in at 1.5 spot_t a kL;
- the turns handled, ``g D_jt - 0.5 r late_j``, pay p and q and cost 0.7 each to handle.

Costs: the overhead (1500), the rigs (20 each a month), the crews (25 each a month), the temps'
retainer (4 each a month), the option's fee (0.3 a kL a month), the mechanics (6 each a month),
the glycol bought ahead (2 a kL), the heated tanks (0.4 a kL), the plant (2.5 a kL a month of
capacity), K, F and the cover's premium (0.1 a $k of cover); each month the rented tanks, the
temps, the fluid called and bought, the plant's running, the disposal, the delays and the
cancellations, the overtime and its fluid and the handling, less the prices. At the end the
stock left is sold back at 1.2 a kL and the goodwill lost is valued at ``15000 (1 - g)`` (the
next seasons' margin). The cover pays ``min(V, 0.5 (L - 200)_+)``, L the season's delay and
cancellation penalties.

Offered as ``transform(x, z)`` (43 normals a row, in the order of the scenario's columns; a
scenario is each month's standard and priority turns, share of the turns to de-ice, fluid a
de-icing, breakdown hazard, share of the crews off sick, spot price and spot supply, the
season's level, its fluid market and the storm's excess ``(z - 1.64)_+``), its cost vectorised
over decisions: common random numbers are exact. lam 0.75, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 5  # months, November to March


class Deicing:
    name = "deicing"
    dim_x, dim_w = 13, 8 * T + 3
    vectorized = True
    lam, alpha = 0.75, 0.95
    ref_std, ref_pri = 1.6, 2.6  # the reference prices ($k a turn)
    #: p, q, R, C, P, G, O, H, U, M, K, F, V
    bounds = ([(0.5 * ref_std, 2.0 * ref_std), (0.5 * ref_pri, 2.0 * ref_pri)]
              + [(0.0, np.inf)] * 11)
    x0 = np.array([1.8, 2.5, 8.0, 5.0, 5.0, 1800.0, 200.0, 1200.0, 200.0, 2.0, 80.0, 40.0,
                   300.0])

    base = np.array([3000.0, 600.0])  # turns a month at the reference prices
    season = np.array([0.9, 1.1, 1.0, 0.95, 0.95])
    el = np.array([3.0, 2.0])  # the prices' elasticities
    icing = np.array([0.25, 0.5, 0.7, 0.6, 0.3])  # the icing hazard each month
    level_sd, dem_sd, mkt_sd = 0.08, 0.1, 0.15
    ice_sd, fluid_sd, brk_sd, sick_sd, spot_sd, avail_sd = 0.3, 0.15, 0.4, 0.3, 0.1, 0.25
    threshold = 1.64  # the storm: one season in twenty
    w = np.array([0.4, 0.8, 1.0, 1.0, 0.6])  # its weight each month
    # what the storm does to the icing, the de-icings' minutes and fluid, the breakdowns, the
    # sickness, the temps, the spot price and the spot supply
    ice_up, slow, burn, break_up, sick_up, away, spike, scarce = (
        1.0, 0.3, 0.6, 2.0, 3.0, 1.0, 1.0, 1.5)
    per_fluid = 0.4  # kL of glycol a de-icing
    breaking, sick0 = 0.25, 0.04  # the rigs' breakdown hazard, the crews' sickness hazard
    spot_ref, spot_cap = 3.0, 250.0  # the spot price ($k a kL), kL it offers a month
    minutes, train_keep, k_scale = 15.0, 0.7, 80.0  # minutes a de-icing; training
    idle, f_scale = 0.3, 50.0  # the crews' idle share without forecasts; its scale
    mech_keep, m_scale = 0.3, 2.0  # the breakdowns the mechanics cannot prevent; their scale
    peak = 3000.0  # peak minutes a rig or a crew works a month
    wait0, wait_k, cancel_k = 30.0, 3.0, 0.5  # the queue's wait; the share cancelled
    collect, yield_ = 0.6, 0.5  # the share of the fluid collected; recycled back to stock
    good_base = 3000.0  # the cancellations that cost the goodwill a factor e
    overhead, rig_fee, crew_fee, retainer, callout, ahead, option_fee, call = (
        1500.0, 20.0, 25.0, 4.0, 0.02, 2.0, 0.3, 2.4)
    tank_fee, rent, plant_fee, run_fee, dispose, mech_fee, handling = (
        0.4, 0.15, 2.5, 0.2, 0.6, 6.0, 0.7)
    delay_fee = np.array([0.03, 0.08])  # $k a minute of delay, standard and priority
    cancel_fee = np.array([5.0, 8.0])  # $k a cancelled flight, standard and priority
    overtime, trucked = 0.3, 1.5  # a de-icing after the peak; its fluid against the spot price
    premium, salvage, good_value = 0.1, 1.2, 15000.0
    share, retention = 0.5, 200.0  # the insurance's share and retention

    def demand_mean(self, x):
        """Standard and priority turns a month before the season, the level and the noise:
        shape (..., 2)."""
        x = np.asarray(x, dtype=float)
        r = x[..., :2] / np.array([self.ref_std, self.ref_pri])
        return self.base * np.exp(-self.el * (r - 1.0))

    def deice_minutes(self, x):
        """Minutes a de-icing takes outside a storm, after the training budget."""
        K = np.asarray(x, dtype=float)[..., 10]
        return self.minutes * (self.train_keep + (1.0 - self.train_keep)
                               * np.exp(-K / self.k_scale))

    def crew_use(self, x):
        """The share of the crews' peak minutes not idle, after the forecasts."""
        F = np.asarray(x, dtype=float)[..., 11]
        return 1.0 - self.idle * np.exp(-F / self.f_scale)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k
        level = lognormal(self.level_sd, z[8 * T])
        mkt = lognormal(self.mkt_sd, z[8 * T + 1])
        kick = np.maximum(z[8 * T + 2] - self.threshold, 0.0)
        storm = self.w.reshape(pad) * kick
        m = columns(np.asarray(self.demand_mean(x))[..., None, :], k)
        parts = [m[j] * self.season.reshape(pad) * level
                 * lognormal(self.dem_sd, z[j * T:(j + 1) * T]) for j in range(2)]
        ice = -np.expm1(-self.icing.reshape(pad) * (1.0 + self.ice_up * storm)
                        * lognormal(self.ice_sd, z[2 * T:3 * T]))
        fluid = (self.per_fluid * (1.0 + self.burn * storm)
                 * lognormal(self.fluid_sd, z[3 * T:4 * T]))
        brk = (self.breaking * (1.0 + self.break_up * storm)
               * lognormal(self.brk_sd, z[4 * T:5 * T]))
        sick = -np.expm1(-self.sick0 * (1.0 + self.sick_up * storm)
                         * lognormal(self.sick_sd, z[5 * T:6 * T]))
        spot = (self.spot_ref * mkt * (1.0 + self.spike * storm)
                * lognormal(self.spot_sd, z[6 * T:7 * T]))
        avail = (self.spot_cap / (1.0 + self.scarce * storm)
                 * lognormal(self.avail_sd, z[7 * T:8 * T]))
        return scenario(parts + [ice, fluid, brk, sick, spot, avail, level[None], mkt[None],
                                 kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p, q, R, C, P, G, O, H, U, M, K, F, V = (x[..., j] for j in range(13))
        kick = W[8 * T + 2]
        shape = np.broadcast_shapes(kick.shape, p.shape)
        zero = np.zeros(shape)
        tiny = 1e-12
        tau = self.deice_minutes(x)
        use = self.crew_use(x)
        guard = self.mech_keep + (1.0 - self.mech_keep) * np.exp(-M / self.m_scale)
        total = (self.overhead + T * (self.rig_fee * R + self.crew_fee * C + self.retainer * P
                                      + self.option_fee * O + self.mech_fee * M)
                 + self.ahead * G + self.tank_fee * H + self.plant_fee * U + K + F
                 + self.premium * V) + zero
        stock, good, claims = G + zero, 1.0 + zero, zero
        for t in range(T):
            storm = self.w[t] * kick
            ice, fluid, brk = W[2 * T + t], W[3 * T + t], W[4 * T + t]
            sick, spot, avail = W[5 * T + t], W[6 * T + t], W[7 * T + t]
            # the stock held beyond the heated tanks, in rented tanks
            total = total + self.rent * (stock - np.minimum(stock, H))
            turns = [good * W[j * T + t] for j in range(2)]
            need = [ice * turns[j] for j in range(2)]
            n = need[0] + need[1]
            # the de-icings the peak allows: the rigs up, the crews (hired, then the temps),
            # the fluid in stock, on option and on the spot market
            mins = tau * (1.0 + self.slow * storm)
            rig_min = self.peak * R * np.exp(-brk * guard)
            crew_min = self.peak * C * (1.0 - sick) * use
            temp_cap = self.peak * P * (1.0 - sick) * use / (1.0 + self.away * storm)
            done = np.minimum(np.minimum(n, np.minimum(rig_min, crew_min + temp_cap) / mins),
                              (stock + O + avail) / fluid)
            done_p = np.minimum(need[1], done)
            done_s = done - done_p
            temps = done * mins - np.minimum(done * mins, crew_min)
            # the fluid: the stock first, then the option, then the spot market
            used = done * fluid
            from_stock = np.minimum(stock, used)
            called = np.minimum(used - from_stock, O)
            bought = used - from_stock - called
            # the spent fluid collected and recycled, the rest disposed of
            caught = self.collect * used
            rec = np.minimum(caught, U)
            stock = stock - from_stock + self.yield_ * rec
            total = (total + self.callout * temps + self.call * called + spot * bought
                     + self.run_fee * rec + self.dispose * (caught - rec))
            # the queue: the flights not de-iced in the peak wait, a share of them cancelled,
            # the rest de-iced after it on overtime with fluid trucked in
            late = [need[0] - done_s, need[1] - done_p]
            r = (late[0] + late[1]) / np.maximum(n, tiny)
            wait = self.wait0 * (1.0 + self.wait_k * r)
            cancel = self.cancel_k * r
            gone = cancel * (late[0] + late[1])
            after = (1.0 - cancel) * (late[0] + late[1])
            pen = sum((self.delay_fee[j] * wait + self.cancel_fee[j] * cancel) * late[j]
                      for j in range(2))
            claims = claims + pen
            handled = [turns[j] - cancel * late[j] for j in range(2)]
            total = (total + pen + (self.overtime + self.trucked * spot * fluid) * after
                     + self.handling * (handled[0] + handled[1])
                     - p * handled[0] - q * handled[1])
            good = good * np.exp(-gone / self.good_base)
        total = total - self.salvage * stock + self.good_value * (1.0 - good)
        return total - np.minimum(V, self.share * np.maximum(claims - self.retention, 0.0))
