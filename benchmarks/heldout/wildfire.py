"""A held-out problem: a regional wildfire-protection agency's fire season of eight two-week
periods, thirteen decisions, twelve of them open above, written after version 13 of the default.
Kept out of every choice of the default; its optimum is found without acfs (``find_optima.py``
beside it, ``optima.json``). Visitors are counted in thousand visitor-days, burnt land in
hectares, money in $k, so a fee of p $ a visitor-day is p $k a thousand.

Decisions x = (the recreation permit fee p charged in the region's forests and parks ($ a
visitor-day, from 0.5 to 2 times the reference 20), the fuel-reduction budget F ($k of
prescribed burns and thinning before the season), the prevention campaign's budget P ($k), the
ground crews C_1 rostered for periods 1-4 and C_2 for periods 5-8 (paid whether they work), the
air tankers A contracted for the season (they fly from period 3), the helicopters H, the
engines E, the dozers K, the lookout towers and camera sites D, a mutual-aid contract M (crews
a period reserved with the neighbouring agencies, paid whether called), the retardant stock R
(tanker loads bought up front) and an insurance cover V ($k)). The fee moves the visitors by an
exponential elasticity, ``25 exp(-1.2 (p / 20 - 1))`` thousand visitor-days a period before the
season's shape (a dear fee sends them elsewhere and earns less); the campaign lowers the human
ignitions to ``camp(P) = 0.6 + 0.4 exp(-P / 150)`` of their rate, the fuel reduction the fires'
spread to ``fuel(F) = 0.8 + 0.2 exp(-F / 400)`` and the towers, which find the fires sooner, an
escaped fire's first hectares to ``80 (0.5 + 0.5 exp(-D / 3))`` (each with diminishing returns).

A heavy-tailed drought with heatwaves and wind, ``kick = (z - 1.64)_+`` (one season in twenty,
without bound), weighted ``w = 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 1`` over the periods (more
later in the season), ``storm_t = w_t kick``, closes trails, brings more human and still more
lightning ignitions, spreads the fires faster, grounds the aircraft on more days, keeps the
neighbours' crews busy and raises the losses of each hectare burnt. In period t (t = 0 .. 7)
the scenario is

    visitors_t = 25 exp(-1.2 (p / 20 - 1)) season_t exp(-0.5 storm_t) e1_t,
    human_t = 0.25 visitors_t camp(P) (1 + 0.5 storm_t) e2_t,
    light_t = lightning_t dry (1 + 0.8 storm_t) e3_t,
    spread_t = dryness_t dry fuel(F) (1 + 0.4 storm_t) e4_t,
    fly_t = exp(-0.1 exp(0.8 u_t) - 0.5 storm_t)

(season = 0.6, 0.8, 1, 1.2, 1.3, 1.2, 1, 0.8, the summer's visitors; lightning = 2, 3, 5, 7, 8,
7, 5, 3 fires; dryness = 0.6, 0.75, 0.9, 1.05, 1.2, 1.25, 1.15, 1, the fuels drying through the
summer; ``dry`` the season's lognormal level, sd 0.1 on the log, mean 1; e1 .. e4 lognormal,
mean 1, sd 0.15, 0.3, 0.3 and 0.2; fly the share of the days the aircraft can fly, u_t standard
normal: smoke and wind).

The season opens with no fire burning, no crew resting and the retardant stock R. In period t
(C that of the period's roster; at period 5 the crews resting are ``min(rest, C_2)``):

- initial attack: the helicopters flying and the crews not resting, ``pool = (3 H fly_t + 0.3
  (C - rest)) / (human_t + light_t)`` a fire, are shared by the fires as they come, and the
  engines (1.5 each) reach the human ignitions near the roads alone; the fires that escape are
  ``esc = human_t^2 / (human_t (1 + pool) + 1.5 E) + light_t / (1 + pool)`` (diminishing
  returns), those caught cost 1.5 each;
- the fire front, ``B <- B (1 + 0.25 spread_t) + 80 (0.5 + 0.5 exp(-D / 3)) spread_t esc``
  hectares (the fronts carried over grow, the escaped fires add theirs), is contained first by
  the tankers (from period 3), ``loads = 20 A fly_t``: with retardant ``wet = min(loads, left,
  B / 8)`` (8 ha a load; ``left`` the stock, which carries over), then with water ``min(loads -
  wet, B / 3)`` of what is left (3 ha a load); then by the dozers, ``min(40 K, 0.5 B)`` (they
  reach half of a front); then by the crews not resting, ``used = min(C - rest, B / 15)`` (15
  ha a crew), of whom ``rest = 0.4 used`` rest the next period (fatigue carries over); then by
  the mutual aid, ``called = min(M exp(-0.3 storm_t), B / 15)``;
- the front left uncontained burns, ``2.5 (1 + 0.3 storm_t) B`` of losses (timber, watersheds,
  homes in the interface); 45 % of it goes out by itself, the rest carries over to the next
  period.

Costs: the overhead (400), F, P, the crews (10 each a period of their roster), the tankers
(300 each), the helicopters (240 each), the engines and the dozers (10 and 20 each a period),
the towers (60 each), the mutual aid (3 a crew reserved a period), the retardant (1.5 a load)
and the cover's premium (0.1 a $k of cover); each period the fires caught, the crews used (6
each), the mutual aid called (22 a crew), the tankers' loads flown (2 each) and the losses;
less the permit fees ``p visitors_t``. At the end the fronts still burning cost half their
losses before the rains put them out (losses too) and the retardant left is sold back at 0.6 a
load. The cover pays ``min(V, 0.6 (L - 400)_+)``, L the season's losses.

Offered as ``transform(x, z)`` (42 normals a row; a scenario is each period's visitors, human
and lightning ignitions, spread and share of days flown, the dryness level and the drought's
excess ``(z - 1.64)_+``), its cost vectorised over decisions: common random numbers are exact.
lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 8  # two-week periods


class Wildfire:
    name = "wildfire"
    dim_x, dim_w = 13, 5 * T + 2
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref_fee = 20.0  # $ a visitor-day
    #: p, F, P, C_1, C_2, A, H, E, K, D, M, R, V
    bounds = [(0.5 * ref_fee, 2.0 * ref_fee)] + [(0.0, np.inf)] * 12
    x0 = np.array([20.0, 300.0, 100.0, 12.0, 20.0, 3.0, 3.0, 6.0, 4.0, 4.0, 5.0, 400.0,
                   1500.0])

    visits, el = 25.0, 1.2  # thousand visitor-days a period at the reference fee; elasticity
    visit_season = np.array([0.6, 0.8, 1.0, 1.2, 1.3, 1.2, 1.0, 0.8])
    lightning = np.array([2.0, 3.0, 5.0, 7.0, 8.0, 7.0, 5.0, 3.0])  # fires a period
    dryness = np.array([0.6, 0.75, 0.9, 1.05, 1.2, 1.25, 1.15, 1.0])  # the fuels' dryness
    human_rate = 0.25  # fires a thousand visitor-days
    camp_floor, camp_scale = 0.6, 150.0  # the campaign's floor and scale ($k)
    fuel_floor, fuel_scale = 0.8, 400.0  # the fuel reduction's floor and scale ($k)
    visit_sd, human_sd, light_sd, spread_sd, fly_k, fly_sd, dry_sd = (
        0.15, 0.3, 0.3, 0.2, 0.1, 0.8, 0.1)
    threshold = 1.64  # the drought: one season in twenty
    w = np.array([0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 1.0])  # its weight each period
    # the drought's effects: trails closed, human and lightning ignitions, spread, aircraft
    # grounded, the neighbours' crews busy, the losses a hectare
    closed, sparks, storm_light, wind, ground, busy, harm_storm = (
        0.5, 0.5, 0.8, 0.4, 0.5, 0.3, 0.3)
    ia_engine, ia_heli, ia_crew = 1.5, 3.0, 0.3  # fires an engine, helicopter, crew attack
    escape_ha, growth = 80.0, 0.25  # an escaped fire's first hectares; its growth a period
    det_floor, det_scale = 0.5, 3.0  # detection's floor and scale (towers)
    sorties, ha_load, ha_water = 20.0, 8.0, 3.0  # loads a tanker a period; ha a load
    tanker_start = 2  # the tankers' contract runs from period 3
    dozer_ha, crew_ha, fatigue = 40.0, 15.0, 0.4  # ha a dozer, a crew contains a period
    reach = 0.5  # the share of a front the dozers can reach
    overhead, crew_fee, tanker_fee, heli_fee, engine_fee, dozer_fee, tower_fee = (
        400.0, 10.0, 300.0, 240.0, 10.0, 20.0, 60.0)
    aid_fee, aid_use, crew_use, ia_fee, flight, load_fee, salvage = (
        3.0, 22.0, 6.0, 1.5, 2.0, 1.5, 0.6)
    dmg, burnout, out = 2.5, 0.5, 0.45  # losses a ha; the share at the end; out by itself
    premium, share, retention = 0.1, 0.6, 400.0

    def visitors_mean(self, x):
        x = np.asarray(x, dtype=float)
        return self.visits * np.exp(-self.el * (x[..., 0] / self.ref_fee - 1.0))

    def campaign(self, x):
        P = np.asarray(x, dtype=float)[..., 2]
        return self.camp_floor + (1.0 - self.camp_floor) * np.exp(-P / self.camp_scale)

    def fuel(self, x):
        F = np.asarray(x, dtype=float)[..., 1]
        return self.fuel_floor + (1.0 - self.fuel_floor) * np.exp(-F / self.fuel_scale)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k
        dry = lognormal(self.dry_sd, z[5 * T])
        kick = np.maximum(z[5 * T + 1] - self.threshold, 0.0)
        storm = self.w.reshape(pad) * kick
        m = columns(np.stack([self.visitors_mean(x), self.campaign(x), self.fuel(x)],
                             axis=-1)[..., None, :], k)
        visitors = (m[0] * self.visit_season.reshape(pad) * np.exp(-self.closed * storm)
                    * lognormal(self.visit_sd, z[:T]))
        human = (self.human_rate * visitors * m[1] * (1.0 + self.sparks * storm)
                 * lognormal(self.human_sd, z[T:2 * T]))
        light = (self.lightning.reshape(pad) * dry * (1.0 + self.storm_light * storm)
                 * lognormal(self.light_sd, z[2 * T:3 * T]))
        spread = (self.dryness.reshape(pad) * dry * m[2] * (1.0 + self.wind * storm)
                  * lognormal(self.spread_sd, z[3 * T:4 * T]))
        fly = np.exp(-self.fly_k * np.exp(self.fly_sd * z[4 * T:5 * T]) - self.ground * storm)
        return scenario([visitors, human, light, spread, fly, dry[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p, F, P, C1, C2, A, H, E, K, D, M, R, V = (x[..., j] for j in range(13))
        kick = W[5 * T + 1]
        shape = np.broadcast_shapes(kick.shape, p.shape)
        zero = np.zeros(shape)
        total = (self.overhead + F + P + 4 * self.crew_fee * (C1 + C2) + self.tanker_fee * A
                 + self.heli_fee * H + T * self.engine_fee * E + T * self.dozer_fee * K
                 + self.tower_fee * D + T * self.aid_fee * M + self.load_fee * R
                 + self.premium * V) + zero
        size = self.escape_ha * (self.det_floor + (1.0 - self.det_floor)
                                 * np.exp(-D / self.det_scale))
        burning, rest, left, damage = zero, zero, R + zero, zero
        for t in range(T):
            C = C1 if t < 4 else C2
            if t == 4:
                rest = np.minimum(rest, C2)
            storm = self.w[t] * kick
            spread, fly = W[3 * T + t], W[4 * T + t]
            # initial attack: the fires not caught escape
            human, light = W[T + t], W[2 * T + t]
            fires = human + light
            # the helicopters and the crews not resting are shared by the fires as they come,
            # the engines reach the human ignitions alone
            pool = (self.ia_heli * H * fly + self.ia_crew * (C - rest)) / fires
            escaped = (human * human / (human * (1.0 + pool) + self.ia_engine * E)
                       + light / (1.0 + pool))
            # the large fires: new ones and the growth of those carried over
            burning = burning * (1.0 + self.growth * spread) + escaped * size * spread
            # the air tankers: retardant first, then water
            loads = self.sorties * A * fly if t >= self.tanker_start else zero
            wet = np.minimum(np.minimum(loads, left), burning / self.ha_load)
            left = left - wet
            burning = burning - self.ha_load * wet
            water = np.minimum(loads - wet, burning / self.ha_water)
            burning = burning - self.ha_water * water
            # the dozers, the crews not resting, the mutual aid
            burning = burning - np.minimum(self.dozer_ha * K, self.reach * burning)
            used = np.minimum(C - rest, burning / self.crew_ha)
            burning = burning - self.crew_ha * used
            rest = self.fatigue * used
            called = np.minimum(M * np.exp(-self.busy * storm), burning / self.crew_ha)
            burning = burning - self.crew_ha * called
            # the fire fronts left burn, a share goes out by itself, the rest carries over
            harm = self.dmg * (1.0 + self.harm_storm * storm) * burning
            damage = damage + harm
            total = (total + harm + self.ia_fee * (fires - escaped) + self.crew_use * used
                     + self.aid_use * called + self.flight * (wet + water) - p * W[t])
            burning = (1.0 - self.out) * burning
        end = self.dmg * self.burnout * burning
        damage = damage + end
        total = total + end - self.salvage * left
        return total - np.minimum(V, self.share * np.maximum(damage - self.retention, 0.0))
