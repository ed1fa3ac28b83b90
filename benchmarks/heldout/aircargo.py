"""A held-out problem: an air-cargo forwarder's quarter of six two-week periods on two lanes
(Asia to Europe, Asia to North America), fourteen decisions, twelve of them open above, written
after version 15 of the default and its judgement on the freight rail operator. Kept out of
every choice of the default; its optimum is found without acfs (``find_optima.py`` beside it,
``optima.json``). Cargo is counted in tonnes, money in $k, so a rate of r $ a kg is r $k a
tonne.

Decisions x = (the Asia-Europe rate r_1 ($ a kg, from 0.5 to 2 times the reference 4.0), the
Asia-North America rate r_2 (from 0.5 to 2 times the reference 4.8), the block space contracted
with the airlines on the first lane for periods 1-3, B_1a, and for periods 4-6, B_1b, and on the
second lane B_2a and B_2b (tonnes a period, paid whether used), the charter options Q_1, Q_2
reserved on each lane (tonnes a period, a fee paid, flown at a price a tonne when called), the
origin hub's warehouse Y (tonnes of space), the trucks F of the road-feeder service, the customs
brokers S, a sales budget K ($k), a fuel-surcharge hedge H ($k of surcharge a period at the
index 1, bought forward) and a cargo insurance cover V ($k)). The rates move the shippers'
bookings by an exponential elasticity (what a dear rate loses goes to the ocean carriers and
the rival forwarders), and the sales budget lifts both lanes' bookings by ``lift(K) = 1 + 0.1
(1 - exp(-K / 400))`` (diminishing returns):

    D_1t = 1000 s_1t exp(-6 (r_1 / 4.0 - 1)) lift(K) level (1 + 1.2 storm_t) e1_t,
    D_2t = 800 s_2t exp(-5 (r_2 / 4.8 - 1)) lift(K) level (1 + 0.8 storm_t) e2_t

tonnes a period (s_1 = 0.9, 0.95, 1, 1.1, 1.2, 1.3 and s_2 = 0.95, 1, 1, 1.05, 1.2, 1.3, the
peak season; ``level`` the quarter's lognormal level, sd 0.08, mean 1; e1, e2 lognormal, mean
1, sd 0.15).

A heavy-tailed port strike and ocean disruption, ``kick = (z - 1.64)_+`` (one quarter in twenty,
without bound), weighted ``w = 0.2, 0.5, 0.8, 1, 1, 0.9`` over the periods (more later),
``storm_t = w_t kick``, moves shippers from the ocean to the air (the bookings surge, Asia to
Europe's the more), raises the spot price of space and of fuel, cuts the airlines' capacity and
the spot market's, slows the customs and the roads to the hub and rushes the handling (more
damage claims); the forwarder passes an emergency surcharge of ``0.3 storm_t`` of its rates on
to the shippers. In period t (t = 1 .. 6) the scenario is, beside the bookings,

    spot_jt = p_j mkt (1 + 0.8 storm_t) e3_jt,    avail_jt = a_j e4_jt / (1 + storm_t),
    fuel_t = oil (1 + 0.4 storm_t) e5_t,          honour_t = exp(-0.04 e6_t) / (1 + 0.3 storm_t),
    clear_t = e7_t / (1 + 0.6 storm_t),           dmg_t = 0.03 (1 + 4 storm_t) e8_t

(the spot market's price on lane j, $k a tonne, p = 2.9, 3.6, and the tonnes it offers, a =
600, 450; the fuel index; the share of the block space the airlines honour, the rest offloaded;
the customs' pace; the shippers' damage claims, $k a tonne flown; ``mkt`` and ``oil`` the
quarter's lognormal market level and oil price, sd 0.12 and 0.2, mean 1; e3 .. e8 lognormal,
mean 1, sd 0.1, 0.2, 0.06, 0.5, 0.08 and 0.5).

The quarter opens with no cargo waiting and the shippers' goodwill ``g = 1``. In period t (B_j
that of the period's half):

- the new cargo, ``new_j = g D_jt`` (the goodwill carries over and lowers the later bookings);
  a share 0.4 of it comes from inland by road: the trucks bring ``min(0.4 (new_1 + new_2), 30 F
  / (1 + 0.4 storm_t))`` (30 tonnes a truck a period, fewer on the jammed roads), hired hauliers
  the rest at ``0.4 (1 + storm_t)`` a tonne;
- the work, ``work_j = wait_j + new_j``; the brokers clear ``100 S clear_t`` tonnes (100 a
  broker a period), shared in proportion, ``ready_j = work_j min(1, 100 S clear_t / (work_1 +
  work_2))``;
- the cargo cleared flies in the block space, ``block_j = min(ready_j, B_j honour_t)`` (the
  space unused is lost), then on the charter, ``charter_j = min(ready_j - block_j, Q_j)`` (2.3,
  2.9 a tonne), then on the spot market, ``spot_j = min(ready_j - block_j - charter_j,
  avail_jt)`` (at spot_jt a tonne); ``flown_j`` the three, the fuel surcharge ``fuel_t`` times
  0.4, 0.5 a tonne on the block and the charter cargo, the shippers paying ``r_j (1 + 0.3
  storm_t)`` a tonne flown;
- the cargo not flown, ``left_j = work_j - flown_j``, costs a late compensation of 0.4 a tonne;
  a quarter of it is cancelled (0.8 a tonne compensation) and the goodwill falls, ``g <- g
  exp(-0.5 gone / 6000)`` (gone the tonnes cancelled), the rest waits (it carries over);
- the damage claims ``dmg_t (flown_1 + flown_2)``; the hedge settling ``H (1.03 - fuel_t)``;
- the hub's space, ``0.25 (new_1 + new_2) + wait_1 + wait_2`` (the cargo passing through and
  the cargo waiting), beyond Y in rented sheds at 0.3 a tonne.

Costs: the overhead (2500), the block space (2.0 and 2.5 a tonne a period on the two lanes), the
charter options' fee (0.5 a tonne a period), the warehouse (0.6 a tonne of space), the trucks
(7 each a period), the brokers (12 each a period), K and the cover's premium (0.15 a $k of
cover); each period the hauliers, the charter and spot space flown, the fuel surcharge, the
compensation and damage claims, the hedge's settlement and the rented space, less the rates. At
the end the cargo still waiting costs 1.2 a tonne and the goodwill lost is valued at ``25000 (1
- g)`` (the next quarters' margin). The cover pays ``min(V, 0.5 (F - 500)_+)``, F the quarter's
claims (the damage claims, the late and the cancellation compensation).

Offered as ``transform(x, z)`` (64 normals a row; a scenario is each period's bookings on the
two lanes, the spot market's price and its tonnes on each, the fuel index, the share of the
block space honoured, the customs' pace and the damage claims, the quarter's level, its market
level, its oil price and the strike's excess ``(z - 1.64)_+``), its cost vectorised over
decisions: common random numbers are exact. lam 0.75, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 6  # two-week periods


class AirCargo:
    name = "aircargo"
    dim_x, dim_w = 14, 10 * T + 4
    vectorized = True
    lam, alpha = 0.75, 0.95
    ref_eu, ref_na = 4.0, 4.8  # the reference rates ($ a kg, so $k a tonne)
    #: r_1, r_2, B_1a, B_1b, B_2a, B_2b, Q_1, Q_2, Y, F, S, K, H, V
    bounds = ([(0.5 * ref_eu, 2.0 * ref_eu), (0.5 * ref_na, 2.0 * ref_na)]
              + [(0.0, np.inf)] * 12)
    x0 = np.array([4.4, 5.2, 600.0, 700.0, 500.0, 600.0, 100.0, 100.0, 300.0, 30.0, 25.0,
                   200.0, 400.0, 600.0])

    base = np.array([1000.0, 800.0])  # tonnes a period at the reference rates
    season = np.array([[0.9, 0.95, 1.0, 1.1, 1.2, 1.3],  # Asia to Europe: the peak season
                       [0.95, 1.0, 1.0, 1.05, 1.2, 1.3]])  # Asia to North America
    el = np.array([6.0, 5.0])  # the rates' elasticities
    lift_max, lift_scale = 0.1, 400.0  # the sales budget's lift, its scale
    level_sd, dem_sd, mkt_sd, oil_sd = 0.08, 0.15, 0.12, 0.2
    spot_sd, avail_sd, fuel_sd, off_sd, cus_sd, dmg_sd = 0.1, 0.2, 0.06, 0.5, 0.08, 0.5
    threshold = 1.64  # the strike: one quarter in twenty
    w = np.array([0.2, 0.5, 0.8, 1.0, 1.0, 0.9])  # its weight each period
    surge = np.array([1.2, 0.8])  # the shippers it sends from the ocean to the air
    spike, squeeze, cut, fuel_up, inspect, jam, rush = 0.8, 1.0, 0.3, 0.4, 0.6, 0.4, 4.0
    crisis = 0.3  # the emergency surcharge passed on to the shippers
    spot_ref = np.array([2.9, 3.6])  # the spot market's price ($k a tonne)
    spot_cap = np.array([600.0, 450.0])  # tonnes the spot market offers a period
    offload = 0.04  # the share of the block space the airlines offload, its scale
    block_fee = np.array([2.0, 2.5])  # $k a tonne of block space a period
    charter_fee, charter_fly = 0.5, np.array([2.3, 2.9])  # reserved; flown ($k a tonne)
    surcharge = np.array([0.4, 0.5])  # fuel surcharge on block and charter ($k a tonne)
    inland, per_truck, haul = 0.4, 30.0, 0.4  # share trucked in; tonnes a truck; hauliers
    per_broker = 100.0  # tonnes a broker clears a period
    damage = 0.03  # the shippers' damage claims ($k a tonne flown)
    cancel, good_k, good_base = 0.25, 0.5, 6000.0
    forward = 1.03  # the hedge's price
    overhead, truck_fee, broker_fee, ware_fee = 2500.0, 7.0, 12.0, 0.6
    premium, late_fee, cancel_fee, dwell, overflow_fee = 0.15, 0.4, 0.8, 0.25, 0.3
    end_wait, good_value = 1.2, 25000.0
    share, retention = 0.5, 500.0  # the insurance's share and retention

    def lift(self, x):
        """The sales budget's lift of the bookings."""
        K = np.asarray(x, dtype=float)[..., 11]
        return 1.0 + self.lift_max * -np.expm1(-K / self.lift_scale)

    def bookings_mean(self, x):
        """Tonnes a period booked on each lane, before the season, the level and the noise:
        shape (..., 2)."""
        x = np.asarray(x, dtype=float)
        r = x[..., :2] / np.array([self.ref_eu, self.ref_na])
        return self.base * np.exp(-self.el * (r - 1.0)) * self.lift(x)[..., None]

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k
        level = lognormal(self.level_sd, z[10 * T])
        mkt = lognormal(self.mkt_sd, z[10 * T + 1])
        oil = lognormal(self.oil_sd, z[10 * T + 2])
        kick = np.maximum(z[10 * T + 3] - self.threshold, 0.0)
        storm = self.w.reshape(pad) * kick
        m = columns(np.asarray(self.bookings_mean(x))[..., None, :], k)
        parts = []
        for j in range(2):
            parts.append(m[j] * self.season[j].reshape(pad) * level
                         * (1.0 + self.surge[j] * storm)
                         * lognormal(self.dem_sd, z[j * T:(j + 1) * T]))
        for j in range(2):
            parts.append(self.spot_ref[j] * mkt * (1.0 + self.spike * storm)
                         * lognormal(self.spot_sd, z[(2 + j) * T:(3 + j) * T]))
        for j in range(2):
            parts.append(self.spot_cap[j] / (1.0 + self.squeeze * storm)
                         * lognormal(self.avail_sd, z[(4 + j) * T:(5 + j) * T]))
        fuel = oil * (1.0 + self.fuel_up * storm) * lognormal(self.fuel_sd, z[6 * T:7 * T])
        honour = (np.exp(-self.offload * lognormal(self.off_sd, z[7 * T:8 * T]))
                  / (1.0 + self.cut * storm))
        clear = lognormal(self.cus_sd, z[8 * T:9 * T]) / (1.0 + self.inspect * storm)
        dmg = (self.damage * (1.0 + self.rush * storm)
               * lognormal(self.dmg_sd, z[9 * T:10 * T]))
        return scenario(parts + [fuel, honour, clear, dmg, level[None], mkt[None], oil[None],
                                 kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        r1, r2, B1a, B1b, B2a, B2b, Q1, Q2, Y, F, S, K, H, V = (x[..., j] for j in range(14))
        kick = W[10 * T + 3]
        shape = np.broadcast_shapes(kick.shape, r1.shape)
        zero = np.zeros(shape)
        rate, Q = (r1, r2), (Q1, Q2)
        total = (self.overhead + 3 * self.block_fee[0] * (B1a + B1b)
                 + 3 * self.block_fee[1] * (B2a + B2b) + T * self.charter_fee * (Q1 + Q2)
                 + self.ware_fee * Y + T * self.truck_fee * F + T * self.broker_fee * S + K
                 + self.premium * V) + zero
        wait, good, claims = [zero, zero], 1.0 + zero, zero
        for t in range(T):
            storm = self.w[t] * kick
            B = (B1a, B2a) if t < 3 else (B1b, B2b)
            new = [good * W[j * T + t] for j in range(2)]
            # the road-feeder service: the trucks, then the hauliers
            trucked_in = self.inland * (new[0] + new[1])
            hauled = trucked_in - np.minimum(trucked_in,
                                             self.per_truck * F / (1.0 + self.jam * storm))
            total = total + self.haul * (1.0 + storm) * hauled
            work = [wait[j] + new[j] for j in range(2)]
            # the brokers clear the cargo for export, shared in proportion
            ratio = np.minimum(1.0, self.per_broker * S * W[8 * T + t] / (work[0] + work[1]))
            fuel, dmg = W[6 * T + t], W[9 * T + t]
            left_all, flown_all = zero, zero
            for j in range(2):
                # the block space (the rest of it lost), the charter, the spot market
                ready = work[j] * ratio
                block = np.minimum(ready, B[j] * W[7 * T + t])
                charter = np.minimum(ready - block, Q[j])
                spot = np.minimum(ready - block - charter, W[(4 + j) * T + t])
                flown = block + charter + spot
                left = work[j] - flown
                total = (total - rate[j] * (1.0 + self.crisis * storm) * flown
                         + self.charter_fly[j] * charter
                         + self.surcharge[j] * fuel * (block + charter)
                         + W[(2 + j) * T + t] * spot)
                # a quarter of the cargo left is cancelled (goodwill lost), the rest waits
                wait[j] = (1.0 - self.cancel) * left
                left_all = left_all + left
                flown_all = flown_all + flown
            # the shippers' claims: damage, late and cancellation compensation
            comp = (dmg * flown_all + self.late_fee * left_all
                    + self.cancel_fee * self.cancel * left_all)
            claims = claims + comp
            good = good * np.exp(-self.good_k * self.cancel * left_all / self.good_base)
            # the hub's space: the cargo passing through and the cargo waiting
            space = self.dwell * (new[0] + new[1]) + wait[0] + wait[1]
            total = (total + comp + H * (self.forward - fuel)
                     + self.overflow_fee * (space - np.minimum(space, Y)))
        total = (total + self.end_wait * (wait[0] + wait[1])
                 + self.good_value * (1.0 - good))
        return total - np.minimum(V, self.share * np.maximum(claims - self.retention, 0.0))
