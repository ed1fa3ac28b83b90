"""A held-out problem: an airline maintenance organisation's pool of repairable spare parts over
a summer season of six four-week periods, three part types (air-cycle machines, avionics units,
wheel and brake assemblies) stocked at the main base and at the outstations, fourteen decisions,
twelve of them open above, written after version 15 of the default and its judgement on the
home-care agency and the air-cargo forwarder. Kept out of every choice of the default; its
optimum is found without acfs (``find_optima.py`` beside it, ``optima.json``). Parts are
counted one by one (a removal is a unit taken off an aircraft, its core sent to the repair
shop), the shop's work in standard repairs, money in $k.

Decisions x = (the pool fee f the member airlines pay ($k an aircraft a period, from 0.5 to 2
times the reference 12), the ad hoc exchange price e charged to the airlines outside the pool
(a multiple of a part's list price, from 0.5 to 2 times the reference 1.2), the serviceable
units B_1, B_2, B_3 of each part type at the main base at the season's start, the units O_1,
O_2, O_3 kept at the outstations (all of them together, topped up from the base), the repair
shop's technicians N_1 for periods 1-3 and N_2 for periods 4-6 (paid whether busy), the
capacity X reserved at an outside repair shop (standard repairs a period, paid whether used
and again when used), a preventive maintenance budget P ($k) for the own fleet, the standby
exchange slots R reserved with a lessor (units a period) and an AOG insurance cover V ($k)).
The fee moves the member airlines' aircraft in the pool, ``M(f) = 36 exp(-2.5 (f / 12 - 1))``,
and the price the ad hoc requests by an exponential elasticity (what a dear fee or price loses
goes to the rival pools and the parts brokers); the preventive budget leaves ``prev(P) = 0.65 +
0.35 exp(-P / 200)`` of the own fleet's removals (diminishing returns). In period t (t = 1 ..
6) the removals of part type a are

    own_ta = n_a prev(P) s_t level (1 + u_a storm_t) e1_ta,
    mem_ta = r_a M(f) s_t level (1 + u_a storm_t) e2_ta,
    req_t = 12 exp(-2 (e / 1.2 - 1)) (1 + storm_t) e3_t

(the own fleet's, n = 12, 20, 40; the members', r = 0.2, 0.3, 0.6 an aircraft; and the ad hoc
requests, shared 0.3, 0.3, 0.4 among the part types; s = 0.85, 0.95, 1.1, 1.2, 1.1, 0.9, the
summer's peak; ``level`` the season's lognormal level of flying, sd 0.08, mean 1; e1, e2, e3
lognormal, mean 1, sd 0.15, 0.15 and 0.3).

A heavy-tailed volcanic-ash episode, ``kick = (z - 1.64)_+`` (one season in twenty, without
bound), weighted ``w = 0.3, 0.7, 1, 1, 0.7, 0.4`` over the periods, ``storm_t = w_t kick``,
abrades the air-cycle machines and clogs the avionics' cooling (the removals times ``1 + u_a
storm_t``, u = 1, 0.5, 0.2), sends the airlines outside the pool to it, raises the lease
prices and empties the lessors' shelves, slows the repair shops (the ash cleaned off every core)
and the flights of parts to the outstations. In period t the scenario is, beside the removals,

    idx_t = mkt (1 + 1.5 storm_t) e4_t,   avail_t = e5_t / (1 + storm_t),
    pace_t = e6_t / (1 + 0.5 storm_t),    away_t = odds_t / (1 + odds_t), odds_t = 0.35 e7_t / 0.65

(the lease market's index, the lessors' offer, the shop's pace and the share of the removals
made at the outstations; ``mkt`` the season's lognormal market level, sd 0.15, mean 1; e4 .. e7
lognormal, mean 1, sd 0.1, 0.25, 0.08 and 0.2).

The season opens with B_a serviceable units at the base, O_a at the outstations, q0 = 12, 15,
20 cores of each part type in the shop and no aircraft on ground (AOG). In period t, for each
part type a (b_a, o_a the serviceable units at the base and the outstations, g_a the aircraft on
ground waiting for a unit, q_a the cores in the shop):

- the aircraft on ground get the base's units first, ``min(g_a, b_a)``; then the outstations
  are topped up, ``min(O_a - o_a, b_a)`` units sent from the base;
- the removals, ``d_a = own_ta + mem_ta``: those at the outstations, ``away_t d_a``, take their
  units, ``at_a = min(away_t d_a, o_a)``, the rest are flown from the base (5 (1 + storm_t) a
  unit, the delay and the freight); the base serves ``need_a = d_a - at_a`` as far as it can,
  ``min(need_a, b_a)``, and the shortfall ``short_a = need_a - min(need_a, b_a)``
- is met by the standby slots, ``min(sum_a short_a, R / (1 + storm_t))`` in all, shared in
  proportion (at 0.5 L_a, half a part's list price, L = 40, 16, 6), then by the lessors,
  ``min(rest_a, l_a avail_t)`` (at ``L_a idx_t``, l = 4, 6, 10), the rest on ground (added to
  g_a: they carry over);
- the ad hoc requests take what the base has left, ``lent_a = min(mix_a req_t, b_a)``, at ``e
  L_a`` each;
- the cores go to the shop, ``q_a += d_a - standby_a - leased_a + lent_a`` (an exchange hands
  the removed core to the lessor and takes the borrower's), each at a material cost m = 6, 3, 1;
- the shop: its load ``Lq = sum_a k_a q_a`` (k = 1, 0.6, 0.25 standard repairs a unit), its
  capacity ``cap = 4 N pace_t`` (4 standard repairs a technician a period, N that of the
  period's half), it repairs the share ``in = cap / (cap^3 + Lq^3)^(1/3)`` of the load (the
  turnaround grows with the load), the outside shop ``out = min(Lq (1 - in), X / (1 + 0.5
  storm_t))`` of the rest (4 a standard repair); each part type's cores repaired in the share
  ``in + out / Lq``, back at the base at the period's end (the rest wait: the backlog carries
  over);
- each aircraft on ground at the period's end costs 60.

Costs: the overhead (500), the units (3, 1.2, 0.5 a unit a period, 0.3 more at the outstations),
the technicians (10 each a period), the outside shop's reservation (``1.5 X (1 + X / 40)`` a
period, dearer the more of its capacity reserved), the standby slots (1.2 each a period), P and
the cover's premium (0.1 a $k of cover); each period the flights to the outstations, the standby
and the leased exchanges, the material, the outside repairs and the AOG penalties, less the ad
hoc exchanges, the members' fees ``f M(f)`` and the own fleet's charge (450). At the end the
aircraft still on ground cost 60 each and the cores still in the shop are repaired outside (4
a standard repair). The cover pays ``min(V, 0.5 (F - 300)_+)``, F the season's AOG penalties
(the six periods').

Offered as ``transform(x, z)`` (69 normals a row; a scenario is each period and part type's
removals of the own fleet and of the members, each period's ad hoc requests, lease index,
lessors' offer, shop's pace and share of the removals at the outstations, the season's level,
its market level and the ash's excess ``(z - 1.64)_+``), its cost vectorised over decisions:
common random numbers are exact. lam 0.7, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T, A = 6, 3  # four-week periods, part types (air-cycle machines, avionics units, wheels-brakes)


class Spares:
    name = "spares"
    dim_x, dim_w = 14, 2 * T * A + 5 * T + 3
    vectorized = True
    lam, alpha = 0.7, 0.95
    ref_f, ref_e = 12.0, 1.2  # the pool fee's reference ($k an aircraft a period); ad hoc's
    #: f, e, B_1, B_2, B_3, O_1, O_2, O_3, N_1, N_2, X, P, R, V
    bounds = [(0.5 * ref_f, 2.0 * ref_f), (0.5 * ref_e, 2.0 * ref_e)] + [(0.0, np.inf)] * 12
    x0 = np.array([15.0, 1.2, 14.0, 18.0, 36.0, 4.0, 7.0, 15.0, 22.0, 22.0, 12.0, 200.0,
                   8.0, 200.0])

    own = np.array([12.0, 20.0, 40.0])  # the own fleet's removals a period, no prevention
    rate = np.array([0.2, 0.3, 0.6])  # a member aircraft's removals a period
    fleet, el_f = 36.0, 2.5  # the members' aircraft at the reference fee; the elasticity
    adhoc, el_e = 12.0, 2.0  # the ad hoc requests a period at the reference price; elasticity
    mix = np.array([0.3, 0.3, 0.4])  # the ad hoc requests' part types
    season = np.array([0.85, 0.95, 1.1, 1.2, 1.1, 0.9])
    prev_keep, p_scale = 0.65, 200.0  # the removals prevention cannot avoid; its scale
    level_sd, own_sd, mem_sd, adhoc_sd = 0.08, 0.15, 0.15, 0.3
    mkt_sd, idx_sd, avail_sd, pace_sd, out_sd = 0.15, 0.1, 0.25, 0.08, 0.2
    out_odds = 0.35 / 0.65  # the odds of a removal at an outstation
    threshold = 1.64  # the ash: one season in twenty
    w = np.array([0.3, 0.7, 1.0, 1.0, 0.7, 0.4])  # its weight each period
    surge = np.array([1.0, 0.5, 0.2])  # the removals it adds, by part type
    # the ash: the ad hoc requests, the lease index, the lessors' offer, the shop's pace, the
    # outside shop's and the standby slots' (the flights to the outstations cost 1 + storm)
    adhoc_surge, spike, squeeze, slow, x_slow, r_cut = 1.0, 1.5, 1.0, 0.5, 0.5, 1.0
    list_fee = np.array([40.0, 16.0, 6.0])  # an exchange's list price ($k)
    lessor = np.array([4.0, 6.0, 10.0])  # the units the lessors offer a period
    standby = 0.5  # the standby exchange's price, a share of the list
    hold = np.array([3.0, 1.2, 0.5])  # a unit's cost a period
    post = 0.3  # an outstation unit's cost beside it, a period
    work = np.array([1.0, 0.6, 0.25])  # standard repairs a unit
    per_tech, tech_fee = 4.0, 10.0  # standard repairs a technician a period; the wage
    x_fee, x_scale, x_use = 1.5, 40.0, 4.0  # the outside shop: reserved (dearer the more), used
    slot_fee = 1.2  # a standby exchange slot a period
    material = np.array([6.0, 3.0, 1.0])  # a repair's material ($k a core)
    fly = 5.0  # a unit flown to an outstation: the delay and the freight
    aog = 60.0  # an aircraft on ground at a period's end
    queue0 = np.array([12.0, 15.0, 20.0])  # cores in the shop at the season's start
    own_fee, overhead = 450.0, 500.0  # the own fleet's charge a period; the overhead
    premium, share, retention = 0.1, 0.5, 300.0  # the AOG cover's premium, share, retention

    def members(self, x):
        """The member airlines' aircraft in the pool at the fee f."""
        f = np.asarray(x, dtype=float)[..., 0]
        return self.fleet * np.exp(-self.el_f * (f / self.ref_f - 1.0))

    def prevention(self, x):
        """The share of the own fleet's removals left by the preventive budget P."""
        P = np.asarray(x, dtype=float)[..., 11]
        return self.prev_keep + (1.0 - self.prev_keep) * np.exp(-P / self.p_scale)

    def requests(self, x):
        """The ad hoc requests a period at the price e, before the ash and the noise."""
        e = np.asarray(x, dtype=float)[..., 1]
        return self.adhoc * np.exp(-self.el_e * (e / self.ref_e - 1.0))

    def removals_mean(self, x):
        """Removals a period of each part type, the own fleet's then the members', before the
        season, the ash, the level and the noise: shape (..., 6)."""
        x = np.asarray(x, dtype=float)
        return np.concatenate([self.own * self.prevention(x)[..., None],
                               self.rate * self.members(x)[..., None]], axis=-1)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        o = 2 * T * A
        level = lognormal(self.level_sd, z[o + 5 * T])
        mkt = lognormal(self.mkt_sd, z[o + 5 * T + 1])
        kick = np.maximum(z[o + 5 * T + 2] - self.threshold, 0.0)
        storm = self.w.reshape((T,) + (1,) * (k + 1)) * kick  # (T, 1, ...)
        m = columns(self.removals_mean(x)[..., None, :], k)  # (6, ...)
        zz = z[:o].reshape((2, T, A) + z.shape[1:])
        s = self.season.reshape((T, 1) + (1,) * k)
        up = 1.0 + self.surge.reshape((1, A) + (1,) * k) * storm
        own = m[:A][None] * s * level * up * lognormal(self.own_sd, zz[0])
        mem = m[A:][None] * s * level * up * lognormal(self.mem_sd, zz[1])
        st = storm[:, 0]
        req = columns(self.requests(x)[..., None, None], k)[0]
        adhoc = req * (1.0 + self.adhoc_surge * st) * lognormal(self.adhoc_sd, z[o:o + T])
        idx = mkt * (1.0 + self.spike * st) * lognormal(self.idx_sd, z[o + T:o + 2 * T])
        avail = lognormal(self.avail_sd, z[o + 2 * T:o + 3 * T]) / (1.0 + self.squeeze * st)
        pace = lognormal(self.pace_sd, z[o + 3 * T:o + 4 * T]) / (1.0 + self.slow * st)
        odds = self.out_odds * lognormal(self.out_sd, z[o + 4 * T:o + 5 * T])
        away = odds / (1.0 + odds)
        return scenario([own.reshape((T * A,) + own.shape[2:]),
                         mem.reshape((T * A,) + mem.shape[2:]), adhoc, idx, avail, pace, away,
                         level[None], mkt[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        f, e = x[..., 0], x[..., 1]
        B = [x[..., 2 + a] for a in range(A)]
        O = [x[..., 5 + a] for a in range(A)]
        N1, N2, X, P, R, V = (x[..., j] for j in range(8, 14))
        kick = W[-1]
        shape = np.broadcast_shapes(kick.shape, f.shape)
        zero = np.zeros(shape)
        o = 2 * T * A
        o_req, o_idx, o_av, o_pace, o_away = o, o + T, o + 2 * T, o + 3 * T, o + 4 * T
        tiny = 1e-12
        total = (self.overhead + P + self.premium * V + 3 * self.tech_fee * (N1 + N2)
                 + T * (self.x_fee * X * (1.0 + X / self.x_scale) + self.slot_fee * R
                        - f * self.members(x) - self.own_fee)
                 + T * sum(self.hold[a] * B[a] + (self.hold[a] + self.post) * O[a]
                           for a in range(A))) + zero
        base = [B[a] + zero for a in range(A)]
        away = [O[a] + zero for a in range(A)]
        queue = [self.queue0[a] + zero for a in range(A)]
        ground = [zero] * A
        claims = zero
        for t in range(T):
            storm = self.w[t] * kick
            N = N1 if t < 3 else N2
            share_away = W[o_away + t]
            short, demand, flown = [], [], zero
            for a in range(A):
                d = W[t * A + a] + W[T * A + t * A + a]
                demand.append(d)
                # the aircraft on ground get the base's units first, then the outstations
                filled = np.minimum(ground[a], base[a])
                ground[a] = ground[a] - filled
                base[a] = base[a] - filled
                moved = np.minimum(O[a] - away[a], base[a])
                base[a] = base[a] - moved
                away[a] = away[a] + moved
                # the removals at the outstations, from their stock, the rest flown from base
                at_away = np.minimum(share_away * d, away[a])
                away[a] = away[a] - at_away
                flown = flown + share_away * d - at_away
                need = d - at_away
                from_base = np.minimum(need, base[a])
                base[a] = base[a] - from_base
                short.append(need - from_base)
            total = total + self.fly * (1.0 + storm) * flown
            # the shortfall: the standby slots (shared in proportion), the lessors, on ground
            short_all = sum(short)
            slots = np.minimum(short_all, R / (1.0 + self.r_cut * storm))
            ratio = slots / np.maximum(short_all, tiny)
            for a in range(A):
                from_standby = short[a] * ratio
                rest = short[a] - from_standby
                leased = np.minimum(rest, self.lessor[a] * W[o_av + t])
                ground[a] = ground[a] + rest - leased
                # the ad hoc requests from what the base has left
                lent = np.minimum(self.mix[a] * W[o_req + t], base[a])
                base[a] = base[a] - lent
                # the cores to the shop: the exchanged ones go to the lessors
                cores = demand[a] - from_standby - leased + lent
                queue[a] = queue[a] + cores
                total = (total + self.material[a] * cores
                         + self.standby * self.list_fee[a] * from_standby
                         + self.list_fee[a] * W[o_idx + t] * leased
                         - e * self.list_fee[a] * lent)
            # the shop: its clearing function, then the outside shop
            load = sum(self.work[a] * queue[a] for a in range(A))
            cap = self.per_tech * N * W[o_pace + t]
            inside = cap / np.maximum(np.cbrt(cap**3 + load**3), tiny)
            outside = np.minimum(load * (1.0 - inside), X / (1.0 + self.x_slow * storm))
            done = inside + outside / np.maximum(load, tiny)
            for a in range(A):
                repaired = queue[a] * done
                queue[a] = queue[a] - repaired
                base[a] = base[a] + repaired
            penalty = self.aog * sum(ground)
            claims = claims + penalty
            total = total + penalty + self.x_use * outside
        total = (total + self.aog * sum(ground)
                 + self.x_use * sum(self.work[a] * queue[a] for a in range(A)))
        return total - np.minimum(V, self.share * np.maximum(claims - self.retention, 0.0))
