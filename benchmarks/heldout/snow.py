"""A held-out problem: a city's winter road-maintenance service (snow and ice) over a winter of
eight two-week periods, fourteen decisions, twelve of them open above, written after version 13
of the default. Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``). Cars and tickets are counted in thousands, salt
in kilotonnes (kt), snow in cm, the ploughing work in plough-periods (a plough's two weeks on
clear streets: a cm of snow over the snow routes is one), the snow dump in units of 10,000 m3,
money in $k, so a fee of p $ a permit is p $k a thousand permits.

Decisions x = (the winter-parking permit fee p ($ for the winter, from 0.5 to 2 times the
reference 60: a permit is a space in the city's off-street lots during the parking bans), the
parking-ban fine f ($ a ticket, from 0.5 to 2 times the reference 100), a public-transport
subsidy S ($k), the ploughs G leased for the winter, the drivers C_1 rostered for periods 1-4
and C_2 for periods 5-8 (paid whether they plough), contractors' ploughs K reserved (paid for
the reservation, and again when called), the salt Q bought up front (kt), the salt barn's
capacity B (kt), the brine trucks E, the mechanics M, the snow dump's capacity D, a
weather-forecast service's budget F ($k) and an insurance cover V ($k)). The fee moves the
permits sold by an exponential elasticity, ``sold = 15 exp(-1.2 (p / 60 - 1))`` thousand (a dear
permit earns more each and is bought by fewer), and the cars left on the snow routes in a ban
are the residents' cars without a permit, fewer the dearer the fine:

    cars_t = (40 - sold) exp(-1.5 (f / 100 - 1)) e1_t

thousand (e1 lognormal, mean 1, sd 0.1), ticketed at ``0.03 cars_t snow_t / 20`` thousand
tickets a period (the bans last longer the more it snows), so the fines too trade their revenue
against the cars they move. The subsidy lowers the traffic to ``tr(S) = 1 - 0.35 (1 - exp(-S /
150))`` of its level (diminishing returns): the traffic packs the snow into ice and has the
accidents. The forecasts warn of a share ``0.3 + 0.6 (1 - exp(-F / 60))`` of the storms in time
to pre-treat the roads, and the brine trucks reach ``1 - exp(-E / 6)`` of the roads, so a share
``ps = (0.3 + 0.6 (1 - exp(-F / 60))) (1 - exp(-E / 6))`` of the icing is pre-treated, which
saves 35 % of its salt and 15 % of its ploughing.

A heavy-tailed blizzard sequence, ``kick = (z - 1.64)_+`` (one winter in twenty, without
bound), weighted ``w = 0.3, 0.5, 0.8, 1, 1, 0.9, 0.7, 0.5`` over the periods (more in mid and
late winter), ``storm_t = w_t kick``, multiplies the snowfall and the icing, breaks more
ploughs, keeps the contractors busy elsewhere, raises the spot price of salt and cuts its
supply, and raises the accidents. In period t (t = 0 .. 7) the scenario is

    snow_t = snowfall_t level (1 + 2.5 storm_t) e2_t,
    salt_t = icing_t level (0.6 + 0.4 tr(S)) (1 - 0.35 ps) (1 + 0.8 storm_t) e3_t,
    brk_t = 0.06 (1 + storm_t) e4_t

(snowfall = 12, 20, 28, 32, 32, 28, 20, 12 cm; icing = 0.8, 1.2, 1.6, 1.8, 1.8, 1.5, 1.1, 0.7
kt of salt the roads need; ``level`` the winter's lognormal level, sd 0.15, mean 1; e2 .. e4
lognormal, mean 1, sd 0.35, 0.35 and 0.3; brk the breakdown hazard of a plough used a period).

The winter opens with no street waiting, no plough broken, no driver tired, the salt Q in stock
and the dump empty. In period t (C that of the period's roster; at period 5 the drivers tired
are ``min(tired, C_2)``):

- the ploughs: the cars on the streets slow them to a pace ``1 / (1 + cars_t / 150)``; the work
  ``backlog + snow_t (1 - 0.15 ps)`` needs ``need`` plough-periods at that pace; the city's
  ploughs do ``used = min(G - broken, C - tired, need)`` (each needs a driver who is not
  tired), the contractors ``called = min(K exp(-0.5 storm_t), need - used)``; the streets left,
  ``left = (need - used - called) pace``, cost accidents ``14 tr(S) (1 + 0.3 storm_t)``,
  business losses 8 and complaints 4 a plough-period, and 70 % of them carry over to the next
  period (the backlog; the rest melts or is packed down);
- the salt: the stock first, then the spot market, ``spot = min(short, 1.5 exp(-0.5
  storm_t))`` kt at ``130 (1 + 0.6 storm_t)`` a kt, and the rest is icy roads, ``250 tr(S)`` of
  accidents a kt; the salt left outside the barn, ``(stock - B)_+``, loses 15 % a period (it
  carries over, the barn's share whole);
- the snow dump: downtown's snow, 0.25 a plough-period cleared, joins what is in the dump (10 %
  of which melts each period); what passes D is hauled to a far site at 6 a unit;
- the ploughs used break, ``used (1 - exp(-brk_t))``, and join those waiting; the mechanics
  mend ``min(broken, 2 M)`` (two each a period); the rest wait (they carry over);
- the drivers' fatigue: ``tired <- 0.5 tired + 0.5 (used - 0.6 C)_+`` (the hours beyond the
  normal ones carry over as drivers resting).

Costs: the overhead (200), S, the ploughs (25 each), the drivers (3.5 each a period of their
roster), the contractors' reservation (12 each), the salt (70 a kt), the barn (12 a kt), the
brine trucks (25 each), the mechanics (32 each), the dump (4 a unit), F, the cover's premium
(0.08 a $k of cover) and the permit lots (10 a thousand permits); each period the fuel (1 a
plough-period used), the contractors called (16 a plough-period), the brine (15 ps), the spot
salt, the accidents, business losses and complaints and the far hauling; less the permit fees
``p sold`` and the fines ``f tickets``. At the end the broken ploughs are mended by the dealer
(6 each), the streets still waiting cost 10 a plough-period, and the salt left is worth 50 a kt
in the barn and 20 outside it. The cover pays ``min(V, 0.5 (L - 1500)_+)``, L the winter's
accidents and business losses (the claims).

Offered as ``transform(x, z)`` (34 normals a row; a scenario is each period's snowfall, salt
needed, cars on the streets and breakdown hazard, the winter's level and the blizzards' excess
``(z - 1.64)_+``), its cost vectorised over decisions: common random numbers are exact.
lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 8  # two-week periods


class Snow:
    name = "snow"
    dim_x, dim_w = 14, 4 * T + 2
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref_permit, ref_fine = 60.0, 100.0  # $ a permit for the winter, $ a ticket
    #: p, f, S, G, C_1, C_2, K, Q, B, E, M, D, F, V
    bounds = ([(0.5 * ref_permit, 2.0 * ref_permit), (0.5 * ref_fine, 2.0 * ref_fine)]
              + [(0.0, np.inf)] * 12)
    x0 = np.array([40.0, 60.0, 100.0, 45.0, 45.0, 45.0, 25.0, 16.0, 4.0, 5.0, 6.0, 50.0,
                   60.0, 300.0])

    residents, permits, el_permit, el_fine = 40.0, 15.0, 1.2, 1.5  # thousand cars
    snowfall = np.array([12.0, 20.0, 28.0, 32.0, 32.0, 28.0, 20.0, 12.0])  # cm a period
    icing = np.array([0.8, 1.2, 1.6, 1.8, 1.8, 1.5, 1.1, 0.7])  # kt of salt a period
    breaking = 0.06  # the ploughs' breakdown hazard a period of use
    level_sd, snow_sd, ice_sd, car_sd, brk_sd = 0.15, 0.35, 0.35, 0.1, 0.3
    threshold = 1.64  # the blizzards: one winter in twenty
    w = np.array([0.3, 0.5, 0.8, 1.0, 1.0, 0.9, 0.7, 0.5])  # their weight each period
    heavy, icy, wear, busy, scarce, spike, harm = 2.5, 0.8, 1.0, 0.5, 0.5, 0.6, 0.3
    relief, s_scale, traffic_ice = 0.35, 150.0, 0.4  # the subsidy's traffic cut; its scale
    fc_floor, fc_gain, f_scale, brine_scale = 0.3, 0.6, 60.0, 6.0  # forecasts, brine
    pre_salt, pre_work = 0.35, 0.15  # what pre-treatment saves of the salt and the work
    per_cm, cars_slow = 1.0, 150.0  # work a cm of snow; cars that halve the ploughs' pace
    tickets = 0.03  # thousand tickets a thousand cars left on the streets, per 20 cm
    carry, melt, haul, tired_k, normal = 0.7, 0.9, 0.25, 0.5, 0.6
    per_mechanic, spot_supply = 2.0, 1.5  # ploughs mended a period; kt of spot salt a period
    weather = 0.15  # the share of the salt outside the barn lost each period
    overhead, plough_fee, driver_fee, reserve_fee, salt_fee, barn_fee, brine_fee = (
        200.0, 25.0, 3.5, 12.0, 70.0, 12.0, 25.0)
    mechanic_fee, dump_fee, premium, lot_fee = 32.0, 4.0, 0.08, 10.0
    fuel, call_fee, brine_use, spot_price, far_haul = 1.0, 16.0, 15.0, 130.0, 6.0
    accident, business, complaint, ice_accident = 14.0, 8.0, 4.0, 250.0
    dealer, salt_back, salt_wet, end_backlog = 6.0, 50.0, 20.0, 10.0
    share, retention = 0.5, 1500.0

    def permits_sold(self, x):
        """Thousand winter-parking permits (off-street spaces) sold at the fee p."""
        p = np.asarray(x, dtype=float)[..., 0]
        return self.permits * np.exp(-self.el_permit * (p / self.ref_permit - 1.0))

    def cars_mean(self, x):
        """Thousand cars left on the streets in a parking ban, before the noise."""
        f = np.asarray(x, dtype=float)[..., 1]
        return ((self.residents - self.permits_sold(x))
                * np.exp(-self.el_fine * (f / self.ref_fine - 1.0)))

    def traffic(self, x):
        S = np.asarray(x, dtype=float)[..., 2]
        return 1.0 - self.relief * -np.expm1(-S / self.s_scale)

    def pretreated(self, x):
        """The share of the icing the brine trucks pre-treat: forecast in time, with brine."""
        x = np.asarray(x, dtype=float)
        fc = self.fc_floor + self.fc_gain * -np.expm1(-x[..., 12] / self.f_scale)
        return fc * -np.expm1(-x[..., 9] / self.brine_scale)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k
        level = lognormal(self.level_sd, z[4 * T])
        kick = np.maximum(z[4 * T + 1] - self.threshold, 0.0)
        storm = self.w.reshape(pad) * kick
        m = columns(np.stack([self.cars_mean(x),
                              (1.0 - self.traffic_ice + self.traffic_ice * self.traffic(x))
                              * (1.0 - self.pre_salt * self.pretreated(x))],
                             axis=-1)[..., None, :], k)
        snow = (self.snowfall.reshape(pad) * level * (1.0 + self.heavy * storm)
                * lognormal(self.snow_sd, z[:T]))
        salt = (self.icing.reshape(pad) * level * m[1] * (1.0 + self.icy * storm)
                * lognormal(self.ice_sd, z[T:2 * T]))
        cars = m[0] * lognormal(self.car_sd, z[2 * T:3 * T])
        brk = (self.breaking * (1.0 + self.wear * storm)
               * lognormal(self.brk_sd, z[3 * T:4 * T]))
        return scenario([snow, salt, cars, brk, level[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p, f, S, G, C1, C2, K, Q, B, E, M, D, F, V = (x[..., j] for j in range(14))
        kick = W[4 * T + 1]
        shape = np.broadcast_shapes(kick.shape, p.shape)
        zero = np.zeros(shape)
        sold = self.permits_sold(x)
        tr = self.traffic(x)
        ps = self.pretreated(x)
        total = (self.overhead + S + self.plough_fee * G + 4 * self.driver_fee * (C1 + C2)
                 + self.reserve_fee * K + self.salt_fee * Q + self.barn_fee * B
                 + self.brine_fee * E + self.mechanic_fee * M + self.dump_fee * D + F
                 + self.premium * V + (self.lot_fee - p) * sold) + zero
        backlog, broken, tired, stock, fill, claims = zero, zero, zero, Q + zero, zero, zero
        for t in range(T):
            storm = self.w[t] * kick
            snow, salt, cars, brk = W[t], W[T + t], W[2 * T + t], W[3 * T + t]
            C = C1 if t < 4 else C2
            if t == 4:
                tired = np.minimum(tired, C2)
            # the ploughs: the city's, then the contractors'; cars on the streets slow them
            pace = 1.0 / (1.0 + cars / self.cars_slow)
            need = (backlog + self.per_cm * snow * (1.0 - self.pre_work * ps)) / pace
            used = np.minimum(np.minimum(G - broken, C - tired), need)
            called = np.minimum(K * np.exp(-self.busy * storm), need - used)
            left = (need - used - called) * pace
            harm = (self.accident * tr * (1.0 + self.harm * storm) + self.business) * left
            claims = claims + harm
            total = (total + harm + self.complaint * left + self.fuel * used
                     + self.call_fee * called + self.brine_use * ps
                     - f * self.tickets * cars * snow / 20.0)
            backlog = self.carry * left
            # the salt: the stock, then the spot market, then icy roads
            from_stock = np.minimum(salt, stock)
            short = salt - from_stock
            spot = np.minimum(short, self.spot_supply * np.exp(-self.scarce * storm))
            icy = self.ice_accident * tr * (short - spot)
            claims = claims + icy
            total = total + self.spot_price * (1.0 + self.spike * storm) * spot + icy
            stock = stock - from_stock
            stock = stock - self.weather * np.maximum(stock - B, 0.0)
            # the snow dump: downtown's snow hauled there, beyond it to a far site
            fill = self.melt * fill + self.haul * (used + called) * pace
            over = np.maximum(fill - D, 0.0)
            fill = fill - over
            total = total + self.far_haul * over
            # breakdowns, the mechanics, the drivers' fatigue
            broken = broken + used * -np.expm1(-brk)
            mended = np.minimum(broken, self.per_mechanic * M)
            broken = broken - mended
            tired = self.tired_k * tired + self.tired_k * np.maximum(used - self.normal * C, 0.0)
        total = (total + self.dealer * broken + self.end_backlog * backlog
                 - self.salt_back * np.minimum(stock, B)
                 - self.salt_wet * np.maximum(stock - B, 0.0))
        return total - np.minimum(V, self.share * np.maximum(claims - self.retention, 0.0))
