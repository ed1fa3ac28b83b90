"""A held-out problem: a freight rail operator's quarter of six two-week periods on two
corridors (bulk grain and minerals to the port, intermodal containers inland), thirteen
decisions, eleven of them open above, written after version 14 of the default and its judgement
on the winter road service and the university. Kept out of every choice of the default; its
optimum is found without acfs (``find_optima.py`` beside it, ``optima.json``). Freight is
counted in trains (a train's worth of wagon-loads), wagons in hundreds, fuel in kL, money in
$k, so a rate of r $k a train is what the shippers pay for a train's loads.

Decisions x = (the bulk rate r_1 ($k a train, from 0.5 to 2 times the reference 220), the
intermodal rate r_2 (from 0.5 to 2 times the reference 170), the locomotives L leased for the
quarter, the spare locomotives S kept at the depot (they stand in for the broken ones only),
the wagons G leased (hundreds), the crews C_1 rostered for periods 1-3 and C_2 for periods 4-6
(paid whether they run trains), the intermodal terminal's capacity Y (trains lifted a period),
the mechanics' teams M, a track-upkeep budget N ($k), a sales budget K ($k), a fuel hedge H (kL
a period bought forward) and a disruption insurance cover V ($k)). The rates move the
shippers' demand by an exponential elasticity (what a dear rate loses goes to the trucks), and
the sales budget lifts both corridors' demand by ``lift(K) = 1 + 0.08 (1 - exp(-K / 250))``
(diminishing returns):

    D_1t = 30 s_1t exp(-2 (r_1 / 220 - 1)) lift(K) level (1 + 1.5 storm_t) e1_t,
    D_2t = 40 s_2t exp(-2.5 (r_2 / 170 - 1)) lift(K) level e2_t

trains a period (s_1 = 0.8, 0.9, 1, 1.2, 1.3, 1.1, the harvest; s_2 = 1, 1, 1.05, 1.1, 1.15,
1; ``level`` the quarter's lognormal level, sd 0.08, mean 1; e1, e2 lognormal, mean 1, sd
0.12). The track upkeep leaves a share ``tk = exp(-N / 100)`` of the track's defects, whose
speed restrictions slow every train by ``0.05 tk``.

A heavy-tailed flood, ``kick = (z - 1.64)_+`` (one quarter in twenty, without bound), weighted
``w = 0.2, 0.5, 0.8, 1, 1, 0.7`` over the periods (more at the harvest's peak), ``storm_t = w_t
kick``, washes out a stretch of the main line and closes the river to the barges: the trains
detour, slowed by ``1.2 storm_t (0.7 + 0.3 tk)`` (upkept track carries the detour better), the
grain the barges cannot carry comes to the bulk corridor (its demand times ``1 + 1.5
storm_t``), crews are stranded, locomotives break more, the spot price of fuel rises and the
line's repairs cost ``2000 kick``. In period t (t = 1 .. 6) the scenario is, beside the demand,

    crew_t = e3_t / (1 + 0.3 storm_t),   turn_t = e4_t,   brk_t = 0.12 (1 + storm_t) e5_t,
    spot_t = oil (1 + 0.4 storm_t) e6_t

(the crews' availability, the wagons' turns, the breakdown hazard of a locomotive used a period
and the spot price of fuel, $k a kL; ``oil`` the quarter's lognormal oil price, sd 0.2, mean 1;
e3 .. e6 lognormal, mean 1, sd 0.08, 0.1, 0.3 and 0.08).

The quarter opens with no train waiting, no locomotive broken and the shippers' goodwill ``g =
1``. In period t (C that of the period's roster; the trains slowed by ``slow_t = 1 + 0.05 tk +
1.2 storm_t (0.7 + 0.3 tk)``):

- the work: the trains waiting and the period's demand times the goodwill, ``work_j = wait_j +
  g D_jt``; the terminal lifts at most Y of the intermodal work, ``load_2 = min(work_2, Y)``,
  ``load_1 = work_1``;
- the line's capacity, ``cap = min(1.5 min(L, L + S - broken), 2 C crew_t, 3.5 G turn_t) /
  slow_t`` trains (a locomotive hauls 1.5 trains a period, the spares standing in for the
  broken ones, a crew 2, a hundred wagons 3.5), is shared in proportion, ``rail_j = load_j
  min(1, cap / (load_1 + load_2))``;
- the trains not moved, ``left_j = work_j - rail_j``, cost a late compensation of 20 a train;
  a quarter of them give up and go to the trucks (lost), the rest wait (they carry over), and
  the goodwill falls, ``g <- g exp(-0.5 gone / 70)`` (gone the trains given up; it carries
  over and lowers the later periods' demand);
- the fuel: ``spot_t slow_t (25 rail_1 + 18 rail_2)`` (kL a train, the detour's more), the
  hedge settling ``H (1.04 - spot_t)`` (bought forward at 1.04 a kL);
- the locomotives: the mechanics mend ``min(broken, M)`` of those broken before (a locomotive
  a team a period), and of the locomotive-periods used, ``(rail_1 + rail_2) slow_t / 1.5``, a
  share ``1 - exp(-brk_t)`` break and wait for the next period's mending (they carry over).

Costs: the overhead (10000), the locomotives (120 each), the spares (60 each), the wagons (200
a hundred), the crews (15 each a period of their roster), the terminal (50 a train of its
capacity), the mechanics (60 a team), N, K and the cover's premium (0.2 a $k of cover); each
period the late compensation, the fuel and the hedge's settlement and the running costs (25 a
train moved), less the rates ``r_1 rail_1 + r_2 rail_2``; the line's repairs. At the end the
trains still waiting cost 40 each, the broken locomotives are mended for the lessor (30 each)
and the goodwill lost is valued at ``20000 (1 - g)`` (the next quarters' margin). The cover
pays ``min(V, 0.5 (F - 500)_+)``, F the quarter's claims (the line's repairs and the late
compensation).

Offered as ``transform(x, z)`` (39 normals a row; a scenario is each period's demand on the
two corridors, the crews' availability, the wagons' turns, the breakdown hazard and the spot
price of fuel, the quarter's level, its oil price and the flood's excess ``(z - 1.64)_+``), its
cost vectorised over decisions: common random numbers are exact. lam 0.75, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 6  # two-week periods


class Rail:
    name = "rail"
    dim_x, dim_w = 13, 6 * T + 3
    vectorized = True
    lam, alpha = 0.75, 0.95
    ref_bulk, ref_box = 220.0, 170.0  # the reference rates ($k a train)
    #: r_1, r_2, L, S, G, C_1, C_2, Y, M, N, K, H, V
    bounds = ([(0.5 * ref_bulk, 2.0 * ref_bulk), (0.5 * ref_box, 2.0 * ref_box)]
              + [(0.0, np.inf)] * 11)
    x0 = np.array([200.0, 160.0, 55.0, 6.0, 25.0, 48.0, 48.0, 48.0, 8.0, 200.0, 300.0,
                   800.0, 1500.0])

    base = np.array([30.0, 40.0])  # trains a period at the reference rates
    season = np.array([[0.8, 0.9, 1.0, 1.2, 1.3, 1.1],  # bulk: the harvest
                       [1.0, 1.0, 1.05, 1.1, 1.15, 1.0]])  # intermodal
    el = np.array([2.0, 2.5])  # the rates' elasticities
    lift_max, lift_scale = 0.08, 250.0  # the sales budget's lift, its scale
    level_sd, dem_sd, oil_sd = 0.08, 0.12, 0.2
    crew_sd, turn_sd, brk_sd, fuel_sd = 0.08, 0.1, 0.3, 0.08
    threshold = 1.64  # the flood: one quarter in twenty
    w = np.array([0.2, 0.5, 0.8, 1.0, 1.0, 0.7])  # its weight each period
    surge, stranded, wear, spike, detour = 1.5, 0.3, 1.0, 0.4, 1.2
    restrict, n_scale, n_detour = 0.05, 100.0, 0.3  # the defects' slowing, upkeep's scale
    breaking = 0.12  # the locomotives' breakdown hazard a period of use
    per_loco, per_crew, per_wagon, per_mech = 1.5, 2.0, 3.5, 1.0  # trains; locomotives
    burn = np.array([25.0, 18.0])  # kL of fuel a train
    give_up, good_k, good_base = 0.25, 0.5, 70.0
    forward = 1.04  # the hedge's price ($k a kL)
    overhead, loco_fee, spare_fee, wagon_fee, crew_fee, term_fee, mech_fee = (
        10000.0, 120.0, 60.0, 200.0, 15.0, 50.0, 60.0)
    premium, running, late_fee, washout = 0.2, 25.0, 20.0, 2000.0
    end_wait, repair, good_value = 40.0, 30.0, 20000.0
    share, retention = 0.5, 500.0  # the insurance's share and retention

    def lift(self, x):
        """The sales budget's lift of the demand."""
        K = np.asarray(x, dtype=float)[..., 10]
        return 1.0 + self.lift_max * -np.expm1(-K / self.lift_scale)

    def demand_mean(self, x):
        """Trains a period wanted on each corridor, before the season, the level and the
        noise: shape (..., 2)."""
        x = np.asarray(x, dtype=float)
        r = x[..., :2] / np.array([self.ref_bulk, self.ref_box])
        return self.base * np.exp(-self.el * (r - 1.0)) * self.lift(x)[..., None]

    def track(self, x):
        """The share of the track's defects the upkeep budget N leaves."""
        return np.exp(-np.asarray(x, dtype=float)[..., 9] / self.n_scale)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k
        level = lognormal(self.level_sd, z[6 * T])
        oil = lognormal(self.oil_sd, z[6 * T + 1])
        kick = np.maximum(z[6 * T + 2] - self.threshold, 0.0)
        storm = self.w.reshape(pad) * kick
        m = columns(np.asarray(self.demand_mean(x))[..., None, :], k)
        bulk = (m[0] * self.season[0].reshape(pad) * level * (1.0 + self.surge * storm)
                * lognormal(self.dem_sd, z[:T]))
        box = m[1] * self.season[1].reshape(pad) * level * lognormal(self.dem_sd, z[T:2 * T])
        crew = lognormal(self.crew_sd, z[2 * T:3 * T]) / (1.0 + self.stranded * storm)
        turn = lognormal(self.turn_sd, z[3 * T:4 * T])
        brk = (self.breaking * (1.0 + self.wear * storm)
               * lognormal(self.brk_sd, z[4 * T:5 * T]))
        spot = oil * (1.0 + self.spike * storm) * lognormal(self.fuel_sd, z[5 * T:6 * T])
        return scenario([bulk, box, crew, turn, brk, spot, level[None], oil[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        r1, r2, L, S, G, C1, C2, Y, M, N, K, H, V = (x[..., j] for j in range(13))
        kick = W[6 * T + 2]
        shape = np.broadcast_shapes(kick.shape, r1.shape)
        zero = np.zeros(shape)
        tk = self.track(x)
        total = (self.overhead + self.loco_fee * L + self.spare_fee * S + self.wagon_fee * G
                 + 3 * self.crew_fee * (C1 + C2) + self.term_fee * Y + self.mech_fee * M + N
                 + K + self.premium * V + self.washout * kick) + zero
        wait1, wait2, broken, good = zero, zero, zero, 1.0 + zero
        claims = self.washout * kick + zero  # the line's repairs, then the late compensation
        for t in range(T):
            storm = self.w[t] * kick
            C = C1 if t < 3 else C2
            slow = (1.0 + self.restrict * tk
                    + self.detour * storm * (1.0 - self.n_detour + self.n_detour * tk))
            work1 = wait1 + good * W[t]
            work2 = wait2 + good * W[T + t]
            load2 = np.minimum(work2, Y)  # the terminal's lifts
            # the line's capacity: locomotives (the spares for the broken), crews, wagons
            locos = np.minimum(L, L + S - broken)
            cap = np.minimum(np.minimum(self.per_loco * locos,
                                        self.per_crew * C * W[2 * T + t]),
                             self.per_wagon * G * W[3 * T + t]) / slow
            ratio = np.minimum(1.0, cap / (work1 + load2))
            rail1, rail2 = work1 * ratio, load2 * ratio
            left = (work1 - rail1) + (work2 - rail2)
            late = self.late_fee * left
            claims = claims + late
            spot = W[5 * T + t]
            total = (total + late - r1 * rail1 - r2 * rail2 + self.running * (rail1 + rail2)
                     + spot * slow * (self.burn[0] * rail1 + self.burn[1] * rail2)
                     + H * (self.forward - spot))
            # a quarter of the trains left give up (goodwill lost), the rest wait
            wait1 = (1.0 - self.give_up) * (work1 - rail1)
            wait2 = (1.0 - self.give_up) * (work2 - rail2)
            good = good * np.exp(-self.good_k * self.give_up * left / self.good_base)
            # the mechanics mend the locomotives broken before; the period's breakdowns
            used = (rail1 + rail2) * slow / self.per_loco
            broken = (broken - np.minimum(broken, self.per_mech * M)
                      + used * -np.expm1(-W[4 * T + t]))
        total = (total + self.end_wait * (wait1 + wait2) + self.repair * broken
                 + self.good_value * (1.0 - good))
        return total - np.minimum(V, self.share * np.maximum(claims - self.retention, 0.0))
