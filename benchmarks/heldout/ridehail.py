"""A held-out problem: a ride-hailing platform's Friday evening of six one-hour blocks in three
zones (the centre, the suburbs, the airport), fifteen decisions, twelve of them open above,
written after version 10 of the default and the theme park and the electricity retailer. Kept
out of every choice of the default; its optimum is found without acfs (``find_optima.py``
beside it, ``optima.json``). Rides, riders and complaints are counted in thousands, drivers in
thousands (a block is an hour, so also thousand driver-hours), money in $k, so a fare of p $ a
ride is p $k a thousand rides.

Decisions x = (the base fares p_C, p_S, p_A of the three zones ($ a ride), the surge cap m (a
multiplier, at least 1), the driver bonuses b1 and b2 ($ an hour online in blocks 1-3 and 4-6),
the guaranteed drivers G_C, G_S, G_A hired in each zone (paid whether busy or not), the
repositioning incentive r ($ a driver moved), the rider-waiting credit v ($ a voucher), the
support team's capacity K (thousand complaints answered a block), the airport queue-lot's
capacity L (thousand drivers), the taxi partnership X reserved for each block (thousand rides)
and the safety/insurance cover I ($k)). In block t zone j receives

    R_tj = base_tj exp(-el_j (p_j / ref_j - 1)) * level * exp((1.0 c_tj + 0.2 s_t) kick) * own_tj

thousand ride requests (base = 3.0, 3.6, 4.0, 4.4, 4.8, 4.2 in the centre, 2.0, 2.2, 2.0, 1.8,
1.6, 1.4 in the suburbs, 0.8, 0.9, 0.7, 0.6, 0.5, 0.4 at the airport; ref = 14, 11, 38 $ and el
= 2.0, 2.2, 1.4: a dearer fare sends riders to a rival or to transit; ``level`` the evening's
lognormal level, sd 0.15 on the log, own noise sd 0.2, both of mean 1). The bonus b of the block
brings ``F_t = fbase_t (0.3 + 1.6 (1 - exp(-b / 2))) exp(-0.7 s_t kick) own_t`` thousand drivers
online (fbase = 2.4, 2.8, 3.2, 3.4, 3.2, 2.8; own noise sd 0.1, mean 1: diminishing returns).
A heavy-tailed shock, a stadium concert letting out in a storm, ``kick = (z - 1.64)_+`` (one
evening in twenty, without bound), multiplies the centre's requests in blocks 4-6 (c = 1 there,
0 elsewhere), brings a few more requests everywhere and keeps drivers off the road, more as the
storm builds (s = 0.4, 0.6, 0.8, 1, 1, 1), slows every trip (a driver-hour gives ``trips_j / (1 +
0.4 s_t kick)`` rides, trips = 2.2, 1.6, 0.9) and raises the incidents: the evening's incidents
cost ``0.6 (1 + 2 kick) own`` $ a ride (own noise sd 0.6, mean 1).

The evening opens with no riders waiting, no complaints and the drivers online placed 50 %,
35 %, 15 % in the three zones. In each block: the drivers online are ``F_t keep`` (keep = 1 in
block 1), placed by the positions where the last block ended; at the airport only L of them
find room in the lot, the rest are turned away and log off. In each zone, with f freelance
drivers, the riders waiting from earlier blocks q1 (one block) and q2 (two or more) and the
requests R, the load is ``rho = (q1 + q2 + R) / (rate (G + f))`` (rate the rides a driver-hour)
and the surge ``s = 1 + min(m - 1, 0.8 (rho - 1)_+)``: it prices out a share ``1 - exp(-0.5 (s -
1))`` of the new requests (each of them 4 $ of business lost to the rival) and draws ``0.2 (s -
1) f`` more freelance drivers. The zone serves, oldest riders first, up to ``rate (G + f)`` of
q2, q1 and the requests left ``D = R exp(-0.5 (s - 1))``, the guaranteed drivers taking the first
``rate G`` rides. Of the riders left waiting in all zones the taxis take a share ``min(1, X /
waiting)`` (every zone alike); of the rest a share ``0.75 stay`` of those who waited before and
``0.4 stay`` of the new ones cancel, ``stay = 0.35 + 0.65 exp(-v / 5)`` (the credit keeps riders
waiting), and the others wait on: q2 <- those who waited before, q1 <- the new ones (requests
that wait carry over, and more cancel the longer they wait). The freelance drivers busy
``(served - guaranteed rides) / rate`` hours end their rides in the zones ``dest`` (from the
centre 60 %, 30 %, 10 % to the centre, suburbs, airport; from the suburbs 50 %, 45 %, 5 %; from
the airport 70 %, 30 %, 0 %), the idle ones stay where they are but for a share ``0.6 (1 -
exp(-r / 3))`` of them moved towards the zones in proportion to the riders each left unserved
(priced out or waiting: ``R + q1 + q2 - served`` before the taxis; as the evening opened
when none was); these ends, as shares of the
freelance drivers of the block, are the next block's positions, and ``keep = 1 - (0.4 idle +
turned) / (drivers + turned)`` (idle drivers and those turned away log off). The block's new
complaints, ``0.3 cancelled + 0.02 (1 + kick) served + 0.05 sum_j (s_j - 1) R_j`` (the surge
angers riders too), join a backlog; the support team answers up to K of it, the rest carries
over (each complaint left at a block's end loses riders for the next weeks).

Costs ($k): the guaranteed drivers (28 $ an hour each, for six blocks), the lot (4 a thousand
places a block), the taxis' reservation (0.5 a thousand rides a block), the support team (3 a
thousand complaints a block), the cover's premium (0.07 a $k); each block the bonus b on every
freelance driver online (those drawn by the surge too), 4 a rider priced out by the surge, the
taxi's fare ``1.4 ref_j`` a taxi ride less the base fare the rider pays, 2 a rider left waiting,
the voucher v to each rider who has waited beyond a block (q2), 6 of goodwill a rider who
cancels, 5 a complaint in the backlog at the block's end, the repositioning r a driver moved;
6 a rider still waiting when the evening ends; the incidents, ``cost_rate * rides`` (the rides
of the drivers and of the taxis), of which the cover pays ``min(I, (loss - 20)_+)``. The
platform earns the base fare of the guaranteed drivers' rides and of the taxi rides, a
commission of 25 % of it on the freelance drivers' rides (the surge goes to the drivers) and
3 $ of loyalty on every ride.

Offered as ``transform(x, z)`` (27 normals a row; a scenario is the eighteen blocks' and zones'
requests, the six blocks' drivers online, the evening's level, the incidents' cost a ride and
the shock's excess ``(z - 1.64)_+``), its cost vectorised over decisions: common random numbers
are exact. lam 0.7, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T, Z = 6, 3  # one-hour blocks; zones: the centre, the suburbs, the airport


class RideHail:
    name = "ridehail"
    dim_x, dim_w = 15, T * Z + T + 3
    vectorized = True
    lam, alpha = 0.7, 0.95
    ref = np.array([14.0, 11.0, 38.0])  # $ a ride: the fares the elasticities are about
    el = np.array([2.0, 2.2, 1.4])
    #: pC, pS, pA, m, b1, b2, GC, GS, GA, r, v, K, L, X, I
    bounds = ([(0.5 * f, 2.0 * f) for f in (14.0, 11.0, 38.0)] + [(1.0, np.inf)]
              + [(0.0, np.inf)] * 11)
    x0 = np.array([14.0, 11.0, 38.0, 1.5, 0.65, 0.65, 0.2, 0.1, 0.1, 1.0, 2.0, 0.3, 0.4,
                   0.3, 40.0])

    #: thousand ride requests an hour in a usual evening at the reference fares
    base = np.array([[3.0, 2.0, 0.8], [3.6, 2.2, 0.9], [4.0, 2.0, 0.7],
                     [4.4, 1.8, 0.6], [4.8, 1.6, 0.5], [4.2, 1.4, 0.4]])
    fbase = np.array([2.4, 2.8, 3.2, 3.4, 3.2, 2.8])  # thousand drivers online at a bonus of 0
    storm = np.array([0.4, 0.6, 0.8, 1.0, 1.0, 1.0])  # the storm's weight in each block
    concert = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])  # the concert's (the centre only)
    trips = np.array([2.2, 1.6, 0.9])  # rides a driver-hour in each zone
    phi = np.array([0.5, 0.35, 0.15])  # where the drivers are when the evening opens
    #: where a ride from each zone (row) ends (columns)
    dest = np.array([[0.6, 0.3, 0.1], [0.5, 0.45, 0.05], [0.7, 0.3, 0.0]])
    #: sd (log) of the evening's level, a block's requests, the drivers online, the incidents
    level_sd, req_sd, drv_sd, inc_sd = 0.15, 0.2, 0.1, 0.6
    threshold = 1.64
    crowd, wet, off_road, slowdown = 1.0, 0.2, 0.7, 0.4  # the shock on requests, drivers, trips
    floor, lift, bonus_scale = 0.3, 1.6, 2.0  # drivers online: floor + lift (1 - exp(-b / scale))
    #: the surge a unit of excess load; the riders it prices out, the drivers it draws; $ a
    #: rider priced out
    surge_gain, priced_out, drawn, rival = 0.8, 0.5, 0.2, 4.0
    rep_share, rep_scale, log_off = 0.6, 3.0, 0.4  # idle drivers moved; idle drivers logging off
    c_new, c_old, credit_floor, credit_scale = 0.4, 0.75, 0.35, 5.0  # cancelling, the credit
    #: $ a ride of loyalty; the commission's share; $ an hour a guaranteed driver, a lot place,
    #: a reserved taxi ride; the taxi's fare (a share of the reference fare)
    loyalty, commission, wage, lot_fee, reserve_fee, taxi_fee = 3.0, 0.25, 28.0, 4.0, 0.5, 1.4
    #: $ a rider waiting a block, cancelling; complaints a rider cancelling, a ride, a unit of
    #: surge on a request
    wait, goodwill, complain_cancel, complain_ride, complain_surge = 2.0, 6.0, 0.3, 0.02, 0.05
    support_fee, backlog_fee = 3.0, 5.0  # $ a complaint answerable, left, a block
    #: the incidents' $ a ride and their rise with the shock; the cover's premium, deductible
    incident, storm_incident, premium, deductible = 0.6, 2.0, 0.07, 20.0

    def request_mean(self, x):
        """Ride requests (thousand) each block and zone in a usual evening, (..., 6, 3)."""
        x = np.asarray(x, dtype=float)
        return self.base * np.exp(-self.el * (x[..., None, 0:3] / self.ref - 1.0))

    def online_mean(self, x):
        """Drivers online (thousand) each block in a usual evening, (..., 6)."""
        x = np.asarray(x, dtype=float)
        b = np.concatenate([np.repeat(x[..., 4:5], 3, axis=-1),
                            np.repeat(x[..., 5:6], 3, axis=-1)], axis=-1)
        return self.fbase * (self.floor + self.lift * -np.expm1(-b / self.bonus_scale))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        level = lognormal(self.level_sd, z[T * Z + T])
        kick = np.maximum(z[T * Z + T + 2] - self.threshold, 0.0)
        mean = columns(self.request_mean(x).reshape(x.shape[:-1] + (T * Z,))[..., None, :], k)
        shock = np.exp(((self.crowd * np.repeat(self.concert, Z) * np.tile([1.0, 0, 0], T))
                        + self.wet * np.repeat(self.storm, Z)).reshape((T * Z,) + (1,) * k)
                       * kick)
        req = mean * level * shock * lognormal(self.req_sd, z[:T * Z])
        drivers = (columns(self.online_mean(x)[..., None, :], k)
                   * np.exp(-self.off_road * self.storm.reshape((T,) + (1,) * k) * kick)
                   * lognormal(self.drv_sd, z[T * Z:T * Z + T]))
        loss = (self.incident * (1.0 + self.storm_incident * kick)
                * lognormal(self.inc_sd, z[T * Z + T + 1]))
        return scenario([req, drivers, level[None], loss[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p = [x[..., j] for j in range(Z)]
        m, r, v, K, L, X, I = (x[..., i] for i in (3, 9, 10, 11, 12, 13, 14))
        G = [x[..., 6 + j] for j in range(Z)]
        kick, loss_rate = W[T * Z + T + 2], W[T * Z + T + 1]
        shape = np.broadcast_shapes(kick.shape, m.shape)
        zero = np.zeros(shape)
        total = (T * (self.wage * (G[0] + G[1] + G[2]) + self.lot_fee * L
                      + self.reserve_fee * X + self.support_fee * K)
                 + self.premium * I) + zero
        q1, q2 = [zero] * Z, [zero] * Z
        pos = [self.phi[j] + zero for j in range(Z)]
        keep, backlog, rides = 1.0 + zero, zero, zero
        stay = self.credit_floor + (1.0 - self.credit_floor) * np.exp(-v / self.credit_scale)
        c_new, c_old = self.c_new * stay, self.c_old * stay
        moving = self.rep_share * -np.expm1(-r / self.rep_scale)
        for t in range(T):
            b = x[..., 4] if t < 3 else x[..., 5]
            slow = 1.0 + self.slowdown * self.storm[t] * kick
            online = W[T * Z + t] * keep
            free = [online * pos[j] for j in range(Z)]
            at_lot = np.minimum(free[2], L)  # the lot's room
            turned = free[2] - at_lot  # turned away: they log off
            free[2] = at_lot
            u1, u2, uD, served, busy, surge, short = [], [], [], [], [], [], []
            surged = zero
            for j in range(Z):
                rate = self.trips[j] / slow
                R = W[Z * t + j]
                cap0 = rate * (G[j] + free[j])
                rho = (q1[j] + q2[j] + R) / np.maximum(cap0, 1e-12)
                s = 1.0 + np.minimum(m - 1.0, self.surge_gain * np.maximum(rho - 1.0, 0.0))
                D = R * np.exp(-self.priced_out * (s - 1.0))
                total = total + self.rival * (R - D)
                surged = surged + (s - 1.0) * R
                f = free[j] * (1.0 + self.drawn * (s - 1.0))
                free[j] = f
                capG, cap = rate * G[j], rate * (G[j] + f)
                s2 = np.minimum(q2[j], cap)
                s1 = np.minimum(q1[j], cap - s2)
                sD = np.minimum(D, cap - s2 - s1)
                done = s2 + s1 + sD
                byG = np.minimum(done, capG)
                u2.append(q2[j] - s2)
                u1.append(q1[j] - s1)
                uD.append(D - sD)
                served.append(done)
                busy.append((done - byG) / rate)
                short.append(R + q1[j] + q2[j] - done)
                surge.append(s)
                total = total - p[j] * (byG + self.commission * (done - byG)) - self.loyalty * done
            waiting = sum(u1[j] + u2[j] + uD[j] for j in range(Z))
            share = np.minimum(1.0, X / np.maximum(waiting, 1e-12))  # the taxis' share
            cancelled = zero
            for j in range(Z):
                taxi = share * (u1[j] + u2[j] + uD[j])
                total = total + (self.taxi_fee * self.ref[j] - p[j] - self.loyalty) * taxi
                rides = rides + served[j] + taxi
                left_old, left_new = (1.0 - share) * (u1[j] + u2[j]), (1.0 - share) * uD[j]
                q2[j], q1[j] = (1.0 - c_old) * left_old, (1.0 - c_new) * left_new
                cancelled = cancelled + c_old * left_old + c_new * left_new
                total = total + v * q2[j] + self.wait * (q1[j] + q2[j])
            total = total + b * (free[0] + free[1] + free[2]) + self.goodwill * cancelled
            # the drivers: busy ones end their rides in the zones of ``dest``, the idle stay,
            # a share of them moved towards the queues, and idle drivers log off
            idle = [free[j] - busy[j] for j in range(Z)]
            idle_all = idle[0] + idle[1] + idle[2]
            short_all = short[0] + short[1] + short[2]
            towards = [np.where(short_all > 0.0, short[j] / np.maximum(short_all, 1e-300),
                                self.phi[j]) for j in range(Z)]
            ends = [sum(busy[i] * self.dest[i, j] for i in range(Z))
                    + (1.0 - moving) * idle[j] + moving * idle_all * towards[j]
                    for j in range(Z)]
            online_all = free[0] + free[1] + free[2]
            pos = [ends[j] / np.maximum(online_all, 1e-12) for j in range(Z)]
            keep = 1.0 - (self.log_off * idle_all + turned) / np.maximum(online_all + turned, 1e-12)
            total = total + r * moving * idle_all
            # the complaints: a backlog that carries over
            new = (self.complain_cancel * cancelled
                   + self.complain_ride * (1.0 + kick) * (served[0] + served[1] + served[2])
                   + self.complain_surge * surged)
            answered = np.minimum(backlog + new, K)
            backlog = backlog + new - answered
            total = total + self.backlog_fee * backlog
        total = total + self.goodwill * sum(q1[j] + q2[j] for j in range(Z))
        loss = loss_rate * rides
        return total + loss - np.minimum(I, np.maximum(loss - self.deductible, 0.0))
