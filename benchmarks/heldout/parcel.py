"""A held-out problem: a parcel carrier's peak season of six weeks before the holidays in two
regions (a city and a rural region), fourteen decisions, twelve of them open above, written
after version 11 of the default and the music festival, the streaming service and the bakery
chain. Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``). Parcels and complaints are counted in
thousands, fuel in tanker loads (10 $k each at the usual spot price), money in $k, so a rate
of p $ a parcel is p $k a thousand parcels.

Decisions x = (the per-parcel rate p ($, from 0.5 to 2 times the reference 8) and the
surcharge s of the peak weeks 4-6 ($ a parcel, from 0.5 to 2 times 1.5), the sort centres'
capacities C_1, C_2 of the city and the rural region (thousand parcels a week), the delivery
vans V_11, V_12 of the city for weeks 1-3 and for weeks 4-6 and V_21, V_22 of the rural
region, the seasonal drivers D hired ahead, the overflow capacity O reserved with a
subcontractor (thousand parcels a week), the parcel lockers L in the city (banks of lockers),
the customer-service team A (agents), the marketing budget K ($k, before the season) and the
fuel hedge H (tanker loads bought up front)). Week t's rate is ``r_t = p + s peak_t``
(peak = 0, 0, 0, 1, 1, 1); region j's business shippers would send

    bbase_j season_t exp(-1.2 (r_t / 8 - 1)) econ exp(surge_t kick) own_jt

thousand parcels in week t and its marketplace sellers, more elastic,

    mbase_j season_t exp(-2.5 (r_t / 8 - 1)) lift(K) econ exp(surge_t kick) own'_jt

with an unblemished name (bbase = 45, 10, mbase = 75, 18 thousand a week; season = 0.8, 0.9,
1.0, 1.2, 1.45, 1.7; what a dearer rate loses goes to a rival carrier; ``lift(K) = 1 + 0.2
(1 - exp(-K / 40))``, marketing with diminishing returns; ``econ`` the season's lognormal
economy (sd 0.08 on the log, mean 1), own and own' lognormal noise (sd 0.12, mean 1)). The
marketplace parcels that come are those times the region's name, rep_j (1 in week 1). A
heavy-tailed surge and snowstorm, ``kick = (z - 1.64)_+`` (one season in twenty, without
bound), multiplies the volume of the last weeks (surge = 0, 0, 0, 0.3, 0.6, 0.8), slows the
vans to ``1 / (1 + slow_j storm_t kick)`` of their capacity (slow = 0.8 in the city, 1.6 in
the rural region; storm = 0, 0, 0, 0.6, 1, 1) and raises the subcontractor's spot price,
``sub = exp(0.6 kick) own''`` (own'' sd 0.15), and the fuel's, ``fuel = exp(0.6 kick)
own'''`` (own''' sd 0.2).

The season opens with empty queues. In week t, in region j:

- the parcels that come, ``a_j = B_jt + M_jt rep_j``, join the sort queue (the parcels not
  sorted before); the sort centre sorts ``min(queue, C_j)``, the rest wait (a backlog that
  carries over);
- the parcels sorted join the delivery queue (the parcels not delivered before); in the city
  the lockers take ``min(1.0 L, 0.3 queue)`` of them (1 thousand a bank a week, the customers
  who choose a locker at most 0.3 of the queue; the snow does not slow them);
- the vans deliver ``min(queue, cap_j)``, ``cap_j = 1.5 V (1 + 0.5 (1 - exp(-D_j / V))) / (1
  + slow_j storm_t kick)`` in the city and 0.6 V ... in the rural region (V the vans of the
  week's half; thousand parcels a van a week), the seasonal drivers adding evening shifts in
  weeks 4-6 only, ``D_1 = 0.7 D`` in the city and ``D_2 = 0.3 D`` in the rural region, with
  diminishing returns (the exp term is 0 in weeks 1-3);
- the subcontractor delivers up to O in all of the parcels left under the contract, in
  proportion to each region's, ``used_j = left_j min(1, O / (left_1 + left_2))``, at 4.5 $ a
  parcel, and of the parcels left after it up to 10 thousand in all on the spot market, in
  proportion likewise, at 8 sub $ a parcel;
- the parcels left in either queue are late: each costs 0.8 $ a week and has a quarter of
  the week's rate r_t refunded; they bring 0.15 complaints each and every parcel that came
  0.005; the agents answer 0.3 thousand complaints a week each, in proportion to each
  region's, ``unanswered_j = comp_j (1 - min(1, 0.3 A / (comp_1 + comp_2)))``, each
  unanswered complaint costing 5 $;
- the region's misses (its late parcels and twice its unanswered complaints), a share ``miss
  = (late_j + 2 unanswered_j) / a_j`` of the parcels that came, mar its name: ``rep_j <- 0.6
  rep_j + 0.4 exp(-3 miss)`` (a name that carries over and lowers the next weeks'
  marketplace parcels);
- the vans burn 0.04 tanker loads of fuel a thousand parcels delivered in the city, 0.1 in
  the rural region.

The parcels still waiting after week 6 are delivered after the holidays at 4 $ each and half
their rate r_6 refunded. Fuel: the hedge H is bought up front at 10.2 $k a load, the fuel
beyond it bought at 10 fuel $k a load, hedged fuel left unused sold back at 9 fuel.

Costs: the marketing K and the lockers (6 $k a bank for the season) up front; the seasonal
drivers (2 $k each for the season, their hiring included); each week the overhead (400), the
sort capacity (0.6 $k a thousand parcels a week, used or not), the vans (2.5 $k a week a city
van, 2.0 a rural one), the reserved overflow (1.5 $k a thousand parcels a week, used or not)
and the agents (1.2 $k a week each); 0.3 $ a parcel sorted, 0.3 (city) and 0.6 (rural) $ a
parcel delivered by van, 0.15 $ by locker; the subcontractor's deliveries (contract and
spot), the late parcels, the refunds, the unanswered complaints, the fuel; less the rate r_t
of every parcel that came.

Offered as ``transform(x, z)`` (28 normals a row; a scenario is the twelve business and the
twelve marketplace volumes (region by region, week by week; the marketplace's with an
unblemished name), the subcontractor's and the fuel's spot factors, the economy and the
storm's excess ``(z - 1.64)_+``), its cost vectorised over decisions: common random numbers are
exact. lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T, R = 6, 2  # weeks, regions (city, rural)


class Parcel:
    name = "parcel"
    dim_x, dim_w = 14, 2 * R * T + 4
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref_p, ref_s, el_b, el_m = 8.0, 1.5, 1.2, 2.5  # the rate and surcharge ($), elasticities
    #: p, s, C_1, C_2, V_11, V_12, V_21, V_22, D, O, L, A, K, H
    bounds = ([(0.5 * ref_p, 2.0 * ref_p), (0.5 * ref_s, 2.0 * ref_s)]
              + [(0.0, np.inf)] * 12)
    x0 = np.array([7.5, 1.0, 150.0, 35.0, 60.0, 90.0, 40.0, 50.0, 25.0, 8.0, 30.0, 10.0,
                   60.0, 25.0])

    bbase = np.array([45.0, 10.0])  # business parcels a week, city and rural (thousand)
    mbase = np.array([75.0, 18.0])  # marketplace parcels a week
    season = np.array([0.8, 0.9, 1.0, 1.2, 1.45, 1.7])
    peak = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])  # the surcharge's weeks
    surge = np.array([0.0, 0.0, 0.0, 0.3, 0.6, 0.8])  # the volume's rise a unit of the kick
    storm = np.array([0.0, 0.0, 0.0, 0.6, 1.0, 1.0])  # the vans' slowing, a unit of the kick
    slow = np.array([0.8, 1.6])  # city, rural
    threshold = 1.64  # the surge and snowstorm: one season in twenty
    economy, noise, sub_noise, fuel_noise = 0.08, 0.12, 0.15, 0.2  # sd (log)
    sub_kick, fuel_kick = 0.6, 0.6  # the spot prices' rise a unit of the kick
    lift_max, lift_scale = 0.2, 40.0  # marketing's lift of the marketplace, its scale ($k)
    van_cap = np.array([1.5, 0.6])  # thousand parcels a van a week
    driver_gain, driver_share = 0.5, np.array([0.7, 0.3])  # evening shifts; drivers' split
    locker_cap, locker_share = 1.0, 0.3  # thousand parcels a bank a week; customers' share
    late_fee, refund, final_fee, final_refund = 0.8, 0.25, 4.0, 0.5  # $ a late parcel; shares
    complain, base_complain, answer, unanswered_fee = 0.15, 0.005, 0.3, 5.0
    keep, mar, weight = 0.6, 3.0, 2.0  # the name's memory, sensitivity; a complaint's weight
    burn = np.array([0.04, 0.1])  # tanker loads of fuel a thousand parcels by van
    load, hedge_price, resale = 10.0, 10.2, 0.9  # $k a load at spot 1, hedged; resale's share
    overhead, sort_fee, sort_cost = 400.0, 0.6, 0.3  # $k a week; a unit of capacity; a parcel
    van_fee = np.array([2.5, 2.0])  # $k a van a week
    van_cost, locker_cost = np.array([0.3, 0.6]), 0.15  # $ a parcel delivered
    reserve_fee, contract_price = 1.5, 4.5  # $k a thousand parcels a week reserved; $ a parcel
    spot_cap, spot_price = 10.0, 8.0  # thousand parcels a week in all; $ a parcel at sub 1
    agent_wage, locker_fee, driver_fee = 1.2, 6.0, 2.0  # $k a week; a bank; a driver

    def rates(self, x):
        """Each week's rate r_t, (..., 6)."""
        x = np.asarray(x, dtype=float)
        return x[..., 0:1] + x[..., 1:2] * self.peak

    def lift(self, x):
        return 1.0 + self.lift_max * -np.expm1(-np.asarray(x, dtype=float)[..., 12]
                                                / self.lift_scale)

    def business_mean(self, x):
        """Business parcels of each region and week in a usual economy, before the storm and
        the noise, (..., 2, 6)."""
        level = np.exp(-self.el_b * (self.rates(x) / self.ref_p - 1.0))
        return level[..., None, :] * self.bbase[:, None] * self.season

    def market_mean(self, x):
        """Marketplace parcels of each region and week with an unblemished name, likewise,
        (..., 2, 6)."""
        level = np.exp(-self.el_m * (self.rates(x) / self.ref_p - 1.0))
        return (level[..., None, :] * self.mbase[:, None] * self.season
                * self.lift(x)[..., None, None])

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        n = R * T
        econ = lognormal(self.economy, z[2 * n])
        kick = np.maximum(z[2 * n + 3] - self.threshold, 0.0)
        surge = np.exp(np.tile(self.surge, R).reshape((n,) + (1,) * k) * kick)
        business = columns(self.business_mean(x).reshape(x.shape[:-1] + (1, n)), k)
        market = columns(self.market_mean(x).reshape(x.shape[:-1] + (1, n)), k)
        business = business * econ * surge * lognormal(self.noise, z[:n])
        market = market * econ * surge * lognormal(self.noise, z[n:2 * n])
        sub = np.exp(self.sub_kick * kick) * lognormal(self.sub_noise, z[2 * n + 1])
        fuel = np.exp(self.fuel_kick * kick) * lognormal(self.fuel_noise, z[2 * n + 2])
        return scenario([business, market, sub[None], fuel[None], econ[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        n = R * T
        p, s, C = x[..., 0], x[..., 1], (x[..., 2], x[..., 3])
        V = ((x[..., 4], x[..., 5]), (x[..., 6], x[..., 7]))
        D, O, L, A, K, H = (x[..., i] for i in range(8, 14))
        sub, fuel_price, kick = W[2 * n], W[2 * n + 1], W[2 * n + 3]
        shape = np.broadcast_shapes(kick.shape, p.shape)
        total = (K + self.locker_fee * L + self.driver_fee * D + self.hedge_price * H
                 + T * (self.overhead + self.sort_fee * (C[0] + C[1]) + self.reserve_fee * O
                        + self.agent_wage * A)
                 + 3 * (self.van_fee[0] * (V[0][0] + V[0][1])
                        + self.van_fee[1] * (V[1][0] + V[1][1]))) + np.zeros(shape)
        sorting = [np.zeros(shape), np.zeros(shape)]
        waiting = [np.zeros(shape), np.zeros(shape)]
        rep = [np.ones(shape), np.ones(shape)]
        fuel = np.zeros(shape)
        for t in range(T):
            r = p + s * self.peak[t]
            came, left = [], []
            for j in range(R):
                a = W[j * T + t] + W[n + j * T + t] * rep[j]
                came.append(a)
                queue = sorting[j] + a
                sorted_ = np.minimum(queue, C[j])
                sorting[j] = queue - sorted_
                queue = waiting[j] + sorted_
                total = total + self.sort_cost * sorted_ - r * a
                if j == 0:
                    locker = np.minimum(self.locker_cap * L, self.locker_share * queue)
                    queue = queue - locker
                    total = total + self.locker_cost * locker
                vans = V[j][t // 3]
                extra = (self.driver_gain * -np.expm1(-self.driver_share[j] * D
                                                       / np.maximum(vans, 1e-12))
                         if self.peak[t] else 0.0)
                cap = (self.van_cap[j] * vans * (1.0 + extra)
                       / (1.0 + self.slow[j] * self.storm[t] * kick))
                own = np.minimum(queue, cap)
                fuel = fuel + self.burn[j] * own
                total = total + self.van_cost[j] * own
                left.append(queue - own)
            share = np.minimum(1.0, O / np.maximum(left[0] + left[1], 1e-12))
            used = [left[j] * share for j in range(R)]
            left = [left[j] - used[j] for j in range(R)]
            share = np.minimum(1.0, self.spot_cap / np.maximum(left[0] + left[1], 1e-12))
            comp = []
            late = []
            for j in range(R):
                spot = left[j] * share
                waiting[j] = left[j] - spot
                late.append(sorting[j] + waiting[j])
                comp.append(self.complain * late[j] + self.base_complain * came[j])
                total = (total + self.contract_price * used[j] + self.spot_price * sub * spot
                         + (self.late_fee + self.refund * r) * late[j])
            answered = np.minimum(1.0, self.answer * A / np.maximum(comp[0] + comp[1], 1e-12))
            for j in range(R):
                missed = comp[j] * (1.0 - answered)
                total = total + self.unanswered_fee * missed
                miss = (late[j] + self.weight * missed) / np.maximum(came[j], 1e-12)
                rep[j] = self.keep * rep[j] + (1.0 - self.keep) * np.exp(-self.mar * miss)
        r = p + s * self.peak[-1]
        for j in range(R):
            total = total + (self.final_fee + self.final_refund * r) * (sorting[j] + waiting[j])
        return (total + self.load * fuel_price * np.maximum(fuel - H, 0.0)
                - self.resale * self.load * fuel_price * np.maximum(H - fuel, 0.0))
