"""A held-out problem: an airport security checkpoint's day of eight two-hour blocks (04:00 to
20:00), fourteen decisions, thirteen of them open above, written after version 12 of the
default and after the EV charging network and the testing laboratory. Kept out of every choice
of the default; its optimum is found without acfs (``find_optima.py`` beside it,
``optima.json``). Passengers are counted in hundreds, money in $k, so a price of f $ a
passenger is 0.1 f $k a hundred.

Decisions x = (the fast-track price f ($ a passenger, from 0.5 to 2 times the reference 12),
the promotion budget P ($k, parking and lounge offers that draw passengers to arrive earlier
and spend more airside), the screening lanes rostered for the morning L_m (blocks 0-2), the
midday L_d (blocks 3-4) and the evening L_e (blocks 5-7), the officers O_1 of the early shift
(blocks 0-3) and O_2 of the late shift (blocks 4-7), the body scanners S, the fast-track
lanes K, the overflow contract C (officers a block that can be called at short notice, paid
whether called), the technicians R who mend the scanners, the preventive maintenance budget M
($k), the canine teams D and the rebooking reserve B (hundred seats on later flights held
for passengers who miss theirs)). The promotion works with diminishing returns through
``pro(P) = 1 - exp(-P / 10)``: a share ``s = 0.25 pro(P)`` of each block's passengers (t >=
1) arrive a block earlier, so the day's shares ``prof = 0.09, 0.18, 0.15, 0.1, 0.09, 0.11,
0.16, 0.12`` become

    prof'_0 = prof_0 + s prof_1,  prof'_t = (1 - s) prof_t + s prof_t+1  (prof_8 = 0),

and the passengers screened spend ``0.3 pro(P)`` $k a hundred more airside (the airport's
share 0.6 of it). A share ``phi(f) = 0.25 exp(-1.5 (f / 12 - 1))`` of the passengers buy fast
track. A heavy-tailed heightened security alert with a weather disruption, ``kick = (z -
1.64)_+`` (one day in twenty, without bound), weighted ``w = 0.1, 0.2, 0.35, 0.5, 0.65, 0.8,
0.9, 1`` over the blocks (more later in the day), ``storm_t = w_t kick``, bunches the flights
(a share ``1 - exp(-0.5 storm_t)`` of block t's passengers, t < 7, arrive in block t + 1
instead), slows every screening, keeps officers (and the overflow screeners) away and breaks
the scanners more often. Block t's (t = 0 .. 7) passengers are, before the bunching,

    own_t = 150 prof'_t level e_t

hundred (``level`` the day's lognormal level, sd 0.05 on the log, mean 1; e_t lognormal, sd
0.15), and after it ``a_t = own_t - late_t + late_t-1``, ``late_t = (1 - exp(-0.5 storm_t))
own_t`` (late_-1 = late_7 = 0). The scanners' failure factor is ``fault_t = e'_t (1 + 2
storm_t)`` (e' sd 0.3); the day's officers present are ``absent`` of those rostered
(lognormal, sd 0.08) and its airside spend level ``spend`` (sd 0.05).

The maintenance lowers the breakdowns to ``care = 0.3 + 0.7 exp(-M / 3)`` of their rate; the
canine teams speed every lane to ``gain = 1 + 0.08 (1 - exp(-D / 2))`` and calm the alert.
The day opens with no passenger waiting and no scanner broken. In block t, L the lanes of its
roster and O the officers of its shift:

- of the scanners up, ``S - broken``, ``1 - exp(-0.15 care fault_t)`` break (``broken``
  grows by as many); the scanners up are ``up = S - broken``;
- the passengers wanting screening are ``want_s = Q_s + (1 - phi) a_t`` in the standard
  queue and ``want_f = Q_f + phi a_t`` in the fast track (Q those waiting from the last
  block); a lane screens ``3 speed`` hundred a block, a fast-track lane ``2.5 speed``, with
  ``speed = gain / (1 + storm_t / (1 + 0.2 D))``; the lanes wanted are ``d_s = min(L, up,
  want_s / (3 speed))`` and ``d_f = min(K, want_f / (2.5 speed))``;
- the officers present are ``avail = O absent exp(-0.6 storm_t)``; a lane needs 4 officers, a
  fast-track lane 3; the overflow screeners called are ``call = min(C exp(-0.6 storm_t), (4
  d_s + 3 d_f - avail)_+)``; of the ``staff = avail + call``, the fast-track lanes are opened
  first, ``open_f = min(d_f, staff / 3)``, then ``open_s = min(d_s, (staff - 3 open_f) /
  4)``; the passengers screened are ``done_s = min(want_s, 3 speed open_s)`` and ``done_f =
  min(want_f, 2.5 speed open_f)``;
- the technicians mend ``fix = min(broken, 0.6 R)`` scanners by the block's end, the rest wait
  (they carry over);
- of the passengers left, ``want - done``, 70 % still have time and wait to the next block
  (Q_s, Q_f), the rest miss their flights; the fast-track passengers who miss are refunded.

Costs: the overhead (90 a day), the promotion P, the lanes (0.4 a lane a block of its roster),
the officers (0.4 each a shift), the scanners (0.6 each), the fast-track lanes (4 each), the
overflow contract (0.25 an officer), the technicians (0.4 each), M, the canine teams (1.5 each)
and the rebooking reserve (1.5 a hundred seats); each block the overflow screeners called (0.4
each), the repairs (1 each), the waiting, ``0.5 Q_s (1 + Q_s / 10)`` in the standard queue and
``Q_f (1 + Q_f / 10)`` in the fast track (a cost that grows with the queue), less the
fast-track fees, ``0.1 f`` a hundred fast-track passengers of the block, those who miss their
flights refunded, and the extra spend airside, ``0.6 0.3 pro(P) spend`` a hundred passengers
screened. At the end the passengers still waiting miss their flights (the fast-track ones
refunded); the day's missed passengers cost 5 a hundred (goodwill) and those beyond the
reserve, ``(missed - B)_+``, 15 a hundred to rebook; each scanner still broken 0.3.

Offered as ``transform(x, z)`` (20 normals a row; a scenario is each block's passengers and
the scanners' failure factors, the level, the officers present, the airside spend level and
the shock's excess ``(z - 1.64)_+``), its cost vectorised over decisions: common random
numbers are exact. lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 8  # two-hour blocks, 04:00 to 20:00


class Checkpoint:
    name = "checkpoint"
    dim_x, dim_w = 14, 2 * T + 4
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref_f = 12.0  # the reference fast-track price ($)
    #: f, P, L_m, L_d, L_e, O_1, O_2, S, K, C, R, M, D, B
    bounds = [(0.5 * ref_f, 2.0 * ref_f)] + [(0.0, np.inf)] * 13
    x0 = np.array([10.0, 30.0, 6.0, 4.0, 5.0, 26.0, 26.0, 7.0, 3.0, 15.0, 1.0, 3.0, 3.0, 2.0])

    base = 150.0  # hundred passengers a day
    prof = np.array([0.09, 0.18, 0.15, 0.10, 0.09, 0.11, 0.16, 0.12])  # the day's shares
    shift_max, promo_scale, spend_max = 0.25, 10.0, 0.3  # the promotion's pull and lift
    ft0, ft_el = 0.25, 1.5  # the fast-track share at the reference price, its elasticity
    level_sd, own_sd, fault_sd, absent_sd, spend_sd = 0.05, 0.15, 0.3, 0.08, 0.05  # sd (log)
    threshold = 1.64  # the shock: one day in twenty
    w = np.array([0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 1.0])  # its weight each block
    bunch, alert, away, brk = 0.5, 1.0, 0.6, 2.0  # its effects
    shift = np.array([0, 0, 0, 1, 1, 2, 2, 2])  # the lanes' roster of each block
    crew = np.array([0, 0, 0, 0, 1, 1, 1, 1])  # the officers' shift of each block
    per_lane, per_fast = 3.0, 2.5  # hundred passengers a lane a block
    staff_lane, staff_fast = 4.0, 3.0  # officers a lane
    dog_speed, dog_scale, dog_calm = 0.08, 2.0, 0.2  # the canine teams' gain, scale, calm
    rate, maint_floor, maint_scale, per_tech = 0.15, 0.3, 3.0, 0.6  # breakdowns, repairs
    stay = 0.7  # the share of those left in the queue that still has time (the rest miss)
    overhead, lane_fee, officer_fee, scanner_fee, fast_fee = 90.0, 0.4, 0.4, 0.6, 4.0
    reserve_fee, call_fee, tech_fee, repair, dog_fee = 0.25, 0.4, 0.4, 1.0, 1.5
    seat_fee, rebook, goodwill = 1.5, 15.0, 5.0  # $k a hundred: reserved, rebooked, missed
    wait_s, wait_f, crowd = 0.5, 1.0, 10.0  # waiting costs, their growth with the queue
    spend = 0.6  # $k a hundred passengers screened
    left_broken = 0.3

    def promo(self, x):
        """The promotion's pull and lift, each 0 .. 1 of its most."""
        return -np.expm1(-np.asarray(x, dtype=float)[..., 1] / self.promo_scale)

    def fast_share(self, x):
        x = np.asarray(x, dtype=float)
        return self.ft0 * np.exp(-self.ft_el * (x[..., 0] / self.ref_f - 1.0))

    def profile(self, x):
        """The shares of the day's passengers arriving in each block: shape (..., T)."""
        s = self.shift_max * np.asarray(self.promo(x))[..., None]
        nxt = np.r_[self.prof[1:], 0.0]
        out = (1.0 - s) * self.prof + s * nxt
        return np.concatenate([out[..., :1] + s * self.prof[0], out[..., 1:]], axis=-1)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k
        level = lognormal(self.level_sd, z[2 * T])
        absent = lognormal(self.absent_sd, z[2 * T + 1])
        spend = lognormal(self.spend_sd, z[2 * T + 2])
        kick = np.maximum(z[2 * T + 3] - self.threshold, 0.0)
        storm = self.w.reshape(pad) * kick
        m = columns(np.asarray(self.profile(x)), k)
        own = self.base * m * level * lognormal(self.own_sd, z[:T])
        late = -np.expm1(-self.bunch * storm[:-1]) * own[:-1]  # delayed to the next block
        zero = np.zeros((1,) + late.shape[1:])
        arrivals = own - np.concatenate([late, zero]) + np.concatenate([zero, late])
        fault = lognormal(self.fault_sd, z[T:2 * T]) * (1.0 + self.brk * storm)
        return scenario([arrivals, fault, level[None], absent[None], spend[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        f = x[..., 0]
        P, L_m, L_d, L_e, O_1, O_2, S, K, C, R, M, D, B = (x[..., j] for j in range(1, 14))
        lanes, officers = (L_m, L_d, L_e), (O_1, O_2)
        absent, spend, kick = W[2 * T + 1], W[2 * T + 2], W[2 * T + 3]
        shape = np.broadcast_shapes(kick.shape, f.shape)
        phi = self.fast_share(x)
        boost = self.spend_max * self.promo(x)  # the extra spend airside
        total = (self.overhead + P
                 + self.lane_fee * (3.0 * L_m + 2.0 * L_d + 3.0 * L_e)
                 + self.officer_fee * (O_1 + O_2) + self.scanner_fee * S + self.fast_fee * K
                 + self.reserve_fee * C + self.tech_fee * R + M + self.dog_fee * D
                 + self.seat_fee * B) + np.zeros(shape)
        care = self.maint_floor + (1.0 - self.maint_floor) * np.exp(-M / self.maint_scale)
        gain = 1.0 + self.dog_speed * -np.expm1(-D / self.dog_scale)
        Q_s, Q_f, broken, missed = (np.zeros(shape) for _ in range(4))
        for t in range(T):
            storm = self.w[t] * kick
            # the scanners break and wait for the technicians
            broken = broken + (S - broken) * -np.expm1(-self.rate * care * W[T + t])
            up = S - broken
            # the passengers, the lanes wanted and the officers to open them
            a = W[t]
            want_s, want_f = Q_s + (1.0 - phi) * a, Q_f + phi * a
            speed = gain / (1.0 + self.alert * storm / (1.0 + self.dog_calm * D))
            d_s = np.minimum(np.minimum(lanes[self.shift[t]], up),
                             want_s / (self.per_lane * speed))
            d_f = np.minimum(K, want_f / (self.per_fast * speed))
            away = np.exp(-self.away * storm)
            avail = officers[self.crew[t]] * absent * away
            need = self.staff_lane * d_s + self.staff_fast * d_f
            call = np.minimum(C * away, np.maximum(need - avail, 0.0))
            staff = avail + call
            open_f = np.minimum(d_f, staff / self.staff_fast)
            open_s = np.minimum(d_s, (staff - self.staff_fast * open_f) / self.staff_lane)
            done_s = np.minimum(want_s, self.per_lane * speed * open_s)
            done_f = np.minimum(want_f, self.per_fast * speed * open_f)
            fix = np.minimum(broken, self.per_tech * R)  # mended by the block's end
            broken = broken - fix
            left_s, left_f = want_s - done_s, want_f - done_f
            Q_s, Q_f = self.stay * left_s, self.stay * left_f
            miss_s, miss_f = left_s - Q_s, left_f - Q_f
            missed = missed + miss_s + miss_f
            total = (total + self.call_fee * call + self.repair * fix
                     + self.wait_s * Q_s * (1.0 + Q_s / self.crowd)
                     + self.wait_f * Q_f * (1.0 + Q_f / self.crowd)
                     - 0.1 * f * (phi * a - miss_f)
                     - self.spend * boost * spend * (done_s + done_f))
        missed = missed + Q_s + Q_f
        total = total + 0.1 * f * Q_f  # the fast-track passengers left at the end refunded
        return (total + self.rebook * np.maximum(missed - B, 0.0) + self.goodwill * missed
                + self.left_broken * broken)
