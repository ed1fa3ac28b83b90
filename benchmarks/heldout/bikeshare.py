"""A held-out problem: a city bike-share system's weekday of six blocks over four station
clusters, fifteen decisions, twelve of them open above. Written after version 7 of the
default, the emergency medical service and the water utility, and kept out of every choice of
the default; its optimum is found without acfs (``find_optima.py`` beside it,
``optima.json``).
Riders, trips, bikes and docks are a fluid counted in hundreds, money in $k; the fees are in $,
so a hundred trips at f $ earn f / 10 $k.

Decisions x = (the casual riders' trip fee f ($ a trip), the monthly pass price P ($), the
e-bike surcharge u ($ a trip), the docks K1..K4 installed in each cluster (the centre, the
offices, the university, the residential quarter), the plain bikes Bp and the e-bikes Be in
the fleet, the rebalancing van's capacity c1..c3 (bikes moved a block) in the morning (blocks 0
and 1), the midday (2 and 3) and the evening (4 and 5), the capacity V of a valet corral at the
centre staffed in blocks 1 to 3 (bikes), the repair crew's capacity R (plain bikes repaired a
block) and the charging crew's S (e-bikes put back in service a block)). The blocks are 0-7 h,
7-10 h, 10-13 h, 13-16 h, 16-19 h and 19-24 h. Cluster j sees in block t

    cas_jt = cbase_jt * exp(-1.2 (f / 3.5 - 1)) * weather * exp(0.5 g_t kick) * own_jt

casual riders and

    mem_jt = mbase_jt * exp(-1.3 (P / 35 - 1)) * weather * exp(g_t kick) * own'_jt

members' trips (a day's lognormal weather, sd 0.15; a cluster-block's own lognormal noises, sd
0.3 and 0.15, each of mean 1): the fee moves the casual trips, the pass price the members, of
whom there are ``10 exp(-1.3 (P / 35 - 1))`` thousand, each paying P / 22 a weekday. A share
``q = min(0.45 exp(-(u / 2 - 1)), 0.9)`` of the riders want an e-bike. A heavy-tailed transit
strike, ``kick = (z - 1.28)_+`` (one day in ten, without bound), multiplies the trips, the
members' the most and most in the rush blocks 1 and 4 (``g_t``), sends a share ``s = 0.6 (1 -
exp(-kick))`` of every block's trips to the strike's destinations ``sdest_t`` (the centre and
the offices by day, home in the evening) instead of the usual ones, and slows the van in the
traffic (it moves at most ``c / (1 + 0.5 kick)``).

Cluster j starts the day with the share ``s0_j`` of each fleet, 3 % of its plain bikes broken
and 12 % of its e-bikes out of service (flat or faulty). In each block, in this order:
 1. the repair crew mends ``min(R, broken)`` of the broken bikes, each cluster's in proportion,
    ridable where they stand; the charging crew puts ``min(S, out of service)`` of the e-bikes
    back in service the same way;
 2. the van moves ``min(c / (1 + 0.5 kick), sum surplus, sum deficit)`` plain bikes from the
    clusters above their target ``target_j = tgt_tj * (all ridable plain bikes)`` (``surplus_j
    = max(plain_j - target_j, 0)``) to those below it (``deficit_j = max(min(target_j, K_j -
    down_j - ebike_j) - plain_j, 0)``, down the bikes broken or out of service, ebike the
    ridable e-bikes), taking from each surplus and giving to each deficit in proportion;
 3. riders take bikes: those wanting an e-bike take the ridable e-bikes (``chosen = min(q
    riders, ebike)``, at the surcharge); those wanting a plain bike take the plain bikes, then
    the e-bikes left (no surcharge); half the e-bike riders left without one then take the
    plain bikes left, the other half give up; the riders left are lost, casual riders and
    members in proportion to their trips;
 4. the trips end at the clusters in the shares ``(1 - s) dest_t[j] + s sdest_t``; on the way
    3 % of the plain bikes break and 16 % of the e-bikes go out of service;
 5. the bikes arriving at a cluster dock while it has empty docks (its capacity ``K_j``, the
    centre's ``K_1 + V`` in blocks 1 to 3, less all the bikes standing there after the
    departures); the riders who find none ride on to the next cluster (centre <-> offices,
    university <-> residential; each kind of bike in the cluster's share of arrivals that find
    no dock) and leave their bikes there, docked or on the pavement;
 6. every bike standing above a cluster's capacity at the end of the block is fined as left
    on the pavement (all bikes carry over, ridable or not).
At the end of the day each bike broken or out of service is charged, and the night crew moves
``0.5 sum_j |ride_j - s0_j sum ride|`` ridable bikes back to the start's spread.

Costs: each cluster's docks, each plain bike and e-bike a day, the van's capacity each block,
the corral's in each staffed block, the repair and charging crews' capacities each block; a
running cost a trip, a bike moved, a repair's parts, a battery swap; goodwill for each casual
rider and each member's trip lost, a credit to each rider who finds no dock, the pavement fine
a bike a block, the end of the day's charges; the system earns the fee on each casual trip, the
surcharge on each e-bike chosen and the members' passes. The profiles (cbase, mbase, g_t, dest_t,
sdest_t, tgt_t, s0) and the prices are the class's constants.

Offered as ``transform(x, z)`` (fifty normals a row; a scenario is the twenty-four casual and
the twenty-four members' trip volumes, cluster by cluster, the weather and the strike's excess
``(z - 1.28)_+``), its cost vectorised over decisions: common random numbers are exact. lam
0.7, alpha 0.95.
"""

import numpy as np
from arrays import columns

J, T = 4, 6  # clusters (centre, offices, university, residential), blocks


class BikeShare:
    name = "bikeshare"
    dim_x, dim_w = 3 + J + 2 + 3 + 3, 2 * J * T + 2
    vectorized = True
    lam, alpha = 0.7, 0.95
    ref_f, el_f, ref_p, el_p, ref_u, el_u = 3.5, 1.2, 35.0, 1.3, 2.0, 1.0
    #: f, P, u, K1..K4, Bp, Be, c1..c3, V, R, S
    bounds = ([(0.5 * ref_f, 2.0 * ref_f), (0.5 * ref_p, 2.0 * ref_p), (0.5 * ref_u, 2.0 * ref_u)]
              + [(0.0, np.inf)] * (J + 2 + 3 + 3))
    x0 = np.array([3.0, 30.0, 1.5, 6.0, 6.0, 5.0, 10.0, 14.0, 4.0, 1.5, 1.5, 1.5, 1.5, 0.3, 0.6])

    # hundreds of trips a block at the reference fee and pass price, cluster by cluster (rows),
    # block by block (columns)
    cbase = np.array([[0.6, 1.2, 3.5, 4.0, 3.0, 3.0],
                      [0.1, 0.4, 1.2, 1.0, 2.5, 0.6],
                      [0.3, 0.8, 2.0, 2.0, 1.5, 1.5],
                      [0.3, 1.5, 1.2, 1.2, 1.0, 0.8]])
    mbase = np.array([[0.4, 1.5, 2.0, 2.0, 5.0, 3.0],
                      [0.2, 0.6, 1.5, 2.0, 8.0, 1.0],
                      [0.4, 2.0, 2.0, 2.5, 2.5, 1.5],
                      [1.5, 9.0, 1.5, 1.5, 2.0, 1.5]])
    strike = np.array([0.3, 0.8, 0.4, 0.4, 0.8, 0.3])  # g_t: the strike's weight on the trips
    casual_strike = 0.5  # the casual riders feel it half as much
    morning = np.array([[0.30, 0.50, 0.10, 0.10],  # dest: the row of the origin
                        [0.40, 0.30, 0.10, 0.20],
                        [0.30, 0.20, 0.40, 0.10],
                        [0.35, 0.45, 0.15, 0.05]])
    midday = np.array([[0.40, 0.20, 0.20, 0.20],
                       [0.50, 0.20, 0.10, 0.20],
                       [0.35, 0.10, 0.35, 0.20],
                       [0.50, 0.10, 0.20, 0.20]])
    evening = np.array([[0.20, 0.05, 0.15, 0.60],
                        [0.25, 0.05, 0.10, 0.60],
                        [0.25, 0.05, 0.30, 0.40],
                        [0.40, 0.10, 0.20, 0.30]])
    dest = np.stack([morning, morning, midday, midday, evening, evening])
    sdest = np.array([[0.5, 0.5, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.5, 0.2, 0.1, 0.2],
                      [0.5, 0.2, 0.1, 0.2], [0.1, 0.0, 0.2, 0.7], [0.1, 0.0, 0.2, 0.7]])
    divert = 0.6  # the strike's share of the trips sent to sdest at the most
    s0 = np.array([0.20, 0.15, 0.20, 0.45])  # the fleet's spread at the start of the day
    # the van's target spread of the ridable bikes at the start of each block
    tgt = np.array([s0, [0.15, 0.10, 0.20, 0.55], [0.35, 0.20, 0.25, 0.20],
                    [0.35, 0.20, 0.25, 0.20], [0.30, 0.40, 0.20, 0.10], s0])
    period = (0, 0, 1, 1, 2, 2)  # the van capacity each block uses
    staffed = (False, True, True, True, False, False)  # the corral's blocks (7-16 h)
    nb = np.array([1, 0, 3, 2])  # the next cluster a rider without a dock rides on to
    slow = 0.5  # the strike slows the van
    eshare, eshare_max, switch = 0.45, 0.9, 0.5  # riders wanting an e-bike; half switch
    break_p, down = 0.03, 0.16  # shares of the trips: plain bikes broken, e-bikes out of service
    broken0, down0 = 0.03, 0.12  # shares of the fleet at the start
    members0 = 10.0  # thousand members at the reference pass price
    dock_cost = np.array([0.25, 0.12, 0.09, 0.07])  # $k a hundred docks a day
    plain_cost, ebike_cost = 0.2, 0.5  # $k a hundred bikes a day
    van_cost, corral_cost, repair_cost, charge_cost = 0.05, 0.03, 0.2, 0.1  # a hundred a block
    trip_cost, move_cost, parts, swap = 0.015, 0.03, 0.1, 0.05  # $k a hundred
    lost_casual, lost_member, credit, pavement = 0.1, 0.3, 0.3, 1.5  # $k a hundred
    end_broken, end_flat, night = 0.8, 0.3, 0.3  # $k a hundred bikes

    def casual_mean(self, x):
        """Mean casual trips (hundreds) of each cluster and block before the weather, the strike
        and the noise, cluster by cluster, (..., 24)."""
        x = np.asarray(x, dtype=float)
        return self.cbase.ravel() * np.exp(-self.el_f * (x[..., 0:1] / self.ref_f - 1.0))

    def member_mean(self, x):
        """Mean members' trips (hundreds) of each cluster and block before the weather, the
        strike and the noise, cluster by cluster, (..., 24)."""
        x = np.asarray(x, dtype=float)
        return self.mbase.ravel() * np.exp(-self.el_p * (x[..., 1:2] / self.ref_p - 1.0))

    def members(self, x):
        """Thousand members at the pass price, (...)."""
        x = np.asarray(x, dtype=float)
        return self.members0 * np.exp(-self.el_p * (x[..., 1] / self.ref_p - 1.0))

    def ebike_share(self, x):
        """The share of the riders who want an e-bike, (...)."""
        x = np.asarray(x, dtype=float)
        return np.minimum(self.eshare * np.exp(-self.el_u * (x[..., 2] / self.ref_u - 1.0)),
                          self.eshare_max)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k, n = max(x.ndim, z.ndim - 1), J * T  # k: the axes after a column's
        z = columns(z, k, copy=False)
        pad = (n,) + (1,) * k
        weather = np.exp(0.15 * z[2 * n] - 0.5 * 0.15**2)
        kick = np.maximum(z[2 * n + 1] - 1.28, 0.0)
        g = np.tile(self.strike, J).reshape(pad)
        casual = columns(self.casual_mean(x)[..., None, :], k)  # (24, ..., 1)
        member = columns(self.member_mean(x)[..., None, :], k)
        shape = np.broadcast_shapes(casual.shape[1:], kick.shape)
        W = np.empty((2 * n + 2,) + shape)  # the scenario's columns, filled in place
        lift = self.casual_strike * g * kick
        lift += 0.3 * z[:n] - 0.5 * 0.3**2
        lift = np.exp(lift, out=lift)
        lift *= weather
        np.multiply(casual, lift, out=W[:n])
        np.multiply(g, kick, out=lift)
        lift += 0.15 * z[n:2 * n] - 0.5 * 0.15**2
        lift = np.exp(lift, out=lift)
        lift *= weather
        np.multiply(member, lift, out=W[n:2 * n])
        W[2 * n], W[2 * n + 1] = weather, kick
        return np.moveaxis(W, 0, -1)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k, n = max(x.ndim - 1, W.ndim - 1), J * T
        W = columns(W, k)
        pad = (J,) + (1,) * k
        tiny = 1e-12
        kick = W[2 * n + 1]
        f, P, u = x[..., 0], x[..., 1], x[..., 2]
        K = columns(x[..., 3:3 + J], k)  # (4, ..., 1)
        Bp, Be = x[..., 3 + J], x[..., 4 + J]
        van = [x[..., 5 + J + i] / (1.0 + self.slow * kick) for i in range(3)]
        V, R, S = x[..., 8 + J], x[..., 9 + J], x[..., 10 + J]
        q = self.ebike_share(x)
        shape = np.broadcast_shapes(kick.shape, f.shape)
        total = ((x[..., 3:3 + J] * self.dock_cost).sum(axis=-1) + self.plain_cost * Bp
                 + self.ebike_cost * Be
                 + 2.0 * self.van_cost * x[..., 5 + J:8 + J].sum(axis=-1)
                 + sum(self.staffed) * self.corral_cost * V
                 + T * (self.repair_cost * R + self.charge_cost * S)
                 - self.members(x) * P / 22.0) + np.zeros(shape)
        # the arrays of a block are worked on in place and dropped when done: a day's
        # temporaries kept whole would thrash the allocator
        full = pad[:1] + shape
        s0 = self.s0.reshape(pad)
        plain, ebike, broke, flat = (np.zeros(full) for _ in range(4))
        plain += s0 * (Bp * (1.0 - self.broken0))
        ebike += s0 * (Be * (1.0 - self.down0))
        broke += s0 * (Bp * self.broken0)
        flat += s0 * (Be * self.down0)
        share = self.divert * (1.0 - np.exp(-kick))
        keep = 1.0 - share
        corral = V * np.eye(J)[0].reshape(pad)
        per = np.zeros(full)  # the clusters' own terms, summed at the end
        lost_c, lost_m = self.lost_casual, self.lost_member
        # every rider's goodwill, as if all were lost; each trip made takes its own back
        total = total + lost_m * W[n:2 * n].sum(axis=0) + lost_c * W[:n].sum(axis=0)
        for t in range(T):
            # 1. the crews
            broken = broke.sum(axis=0)
            fixed = np.minimum(R, broken)
            a = broke * (fixed / np.maximum(broken, tiny))
            plain += a
            broke -= a
            flats = flat.sum(axis=0)
            swapped = np.minimum(S, flats)
            np.multiply(flat, swapped / np.maximum(flats, tiny), out=a)
            ebike += a
            flat -= a
            # 2. the van (plain bikes)
            down = flat + broke  # the bikes that cannot be ridden
            target = self.tgt[t].reshape(pad) * plain.sum(axis=0)
            surplus = np.maximum(np.subtract(plain, target, out=a), 0.0, out=a)
            deficit = K - down
            deficit -= ebike
            np.minimum(deficit, target, out=deficit)
            deficit -= plain
            np.maximum(deficit, 0.0, out=deficit)
            del target
            su, de = surplus.sum(axis=0), deficit.sum(axis=0)
            moved = np.minimum(np.minimum(van[self.period[t]], su), de)
            deficit *= moved / np.maximum(de, tiny)
            surplus *= moved / np.maximum(su, tiny)
            plain += deficit
            plain -= surplus
            del deficit, surplus, a
            # 3. the riders
            cas, mem = W[t:n:T], W[n + t:2 * n:T]
            riders = cas + mem
            want_e = q * riders
            want_p = riders - want_e
            chosen = np.minimum(want_e, ebike)  # the e-bikes ridden at the surcharge
            out_p = np.minimum(want_p, plain)
            want_p -= out_p  # the riders left wanting a plain bike take the e-bikes left
            out_e = ebike - chosen
            np.minimum(out_e, want_p, out=out_e)
            out_e += chosen
            want_e -= chosen  # those left wanting an e-bike: half take the plain bikes left
            want_e *= self.switch
            np.minimum(want_e, np.subtract(plain, out_p, out=want_p), out=want_e)
            out_p += want_e
            del want_e, want_p
            plain -= out_p
            ebike -= out_e
            out = out_e + out_p
            cs = cas / riders
            del riders
            cs = (self.trip_cost - lost_m) - (f / 10.0 + lost_c - lost_m) * cs
            cs *= out
            per += cs
            per -= (u / 10.0) * chosen
            del cs, out, chosen
            # 4. the trips
            mix, sd = self.dest[t], self.sdest[t].reshape(pad)
            to_p = np.einsum("jk,j...->k...", mix, out_p)  # no BLAS threads
            to_p *= keep
            to_p += (share * out_p.sum(axis=0)) * sd
            to_e = np.einsum("jk,j...->k...", mix, out_e)
            to_e *= keep
            to_e += (share * out_e.sum(axis=0)) * sd
            del out_p, out_e
            # 5. the docks
            cap = K + corral if self.staffed[t] else K
            free = plain + ebike
            free += down
            del down
            np.subtract(cap, free, out=free)
            coming = to_p + to_e
            dock = np.minimum(coming, np.maximum(free, 0.0, out=free), out=free)
            short = coming - dock  # the riders who find no dock
            del dock
            ride_on = np.divide(short, np.maximum(coming, tiny, out=coming), out=coming)
            on = to_p * ride_on
            to_p -= on
            to_p += on[self.nb]
            np.multiply(to_e, ride_on, out=on)
            to_e -= on
            to_e += on[self.nb]
            del on, ride_on
            plain += (1.0 - self.break_p) * to_p
            broke += self.break_p * to_p
            ebike += (1.0 - self.down) * to_e
            flat += self.down * to_e
            del to_p, to_e
            # 6. the pavement
            over = plain + ebike
            over += flat
            over += broke
            over -= cap
            np.maximum(over, 0.0, out=over)
            short *= self.credit
            per += short
            over *= self.pavement
            per += over
            del short, over
            total = total + self.parts * fixed + self.swap * swapped + self.move_cost * moved
        ride = plain + ebike
        night = np.abs(ride - s0 * ride.sum(axis=0))
        per += self.end_broken * broke + self.end_flat * flat + 0.5 * self.night * night
        return total + per.sum(axis=0)
