"""A held-out problem: a car-rental company's four-week holiday period at three locations (the
airport, downtown, a beach resort), fourteen decisions, eleven of them open above, written after
version 11 of the default and the hotel, the ride-hailing platform and the toy manufacturer.
Kept out of every choice of the default; its optimum is found without acfs (``find_optima.py``
beside it, ``optima.json``). Cars and rentals are counted in hundreds, a rental taking a car for
the week (seven days), money in $k, so a daily rate of p $ earns 0.7 p $k a hundred rentals and
a one-way fee of f $ earns 0.1 f $k a hundred one-way rentals.

Decisions x = (the daily rates p_A, p_D, p_B at the airport, downtown and the beach ($), the
one-way drop-off fee f ($), the fleets F_A, F_D, F_B leased at each location at the start
(hundred cars), the weekly repositioning-truck capacity K (hundred cars a week), the partner's
overflow cars P reserved (hundred cars a week), the maintenance crews M, the loyalty-upgrade
budget U ($k a week), the beach's marketing budget A_1 in weeks 1-2 and A_2 in weeks 3-4 ($k a
week) and the damage-waiver insurance's cover I ($k)). A location's rate, the loyalty budget and
the marketing move its renters by the factor

    o_l,t = exp(-el_l (p_l / ref_l - 1)) lift_l,t

(ref = 60, 50, 70 $, el = 1.2, 1.5, 2.2: the beach's leisure renters the most sensitive, those
a dear rate loses renting from a rival), ``lift_A = 1 + 0.12 (1 - exp(-U / 3))`` (the airport's
business renters), ``lift_D = 1``, ``lift_B = 1 + 0.2 (1 - exp(-A / 3))`` (A = A_1 in weeks 1-2,
A_2 in weeks 3-4). In week t the route from l to m would bring

    obase_lm season_lm,t exp(-0.005 f) o_l,t market own_lm,t

hundred one-way rentals (obase = 1.0 airport -> downtown, 0.6 airport -> beach, 0.5 downtown ->
airport, 0.4 downtown -> beach, 1.5 beach -> airport, 1.2 beach -> downtown; season = 1.3, 1.2,
0.9, 0.6 on the routes to the beach, 0.6, 0.9, 1.2, 1.4 on those from it, 1 on the others: the
holiday-makers come early and leave late), the beach -> airport route's multiplied by ``1 + 6
h_t`` (the evacuation); location l

    (rbase_l,t + 0.5 (1 - exp(-0.005 f)) sum_m obase_lm season_lm,t) o_l,t market own_l,t
        * exp(-c_l h_t)

hundred round-trip rentals (rbase = 5, 5.5, 6, 5.5 at the airport, 3.5, 3.5, 4, 3.5 downtown,
4, 5, 6, 5 at the beach; half the one-way renters the fee deters rent a round trip instead, the
rest go to the rival; c = 1.5, 1.5, 4: the beach's demand collapses); ``market`` the holiday's
lognormal economy (sd 0.1 on the log, mean 1), own_l,t and own_lm,t lognormal noise (sd 0.12
and 0.2, mean 1). A share ``d_t = 1 - exp(-0.06 exp(2.5 h_t) own'_t)`` of the cars returned in
week t is damaged (own' sd 0.3, mean 1). A heavy-tailed hurricane evacuation, ``kick = (z -
1.64)_+`` (one holiday in twenty, without bound), ``h_t = hit_t kick`` (hit = 0, 0.6, 2, 2: a
warning in week 2, the storm in weeks 3-4), surges the one-way demand from the beach to the
airport, collapses the beach's demand and cuts the others', raises the damage rate and leaves the
partner only ``P exp(-h_t)`` of its cars reserved.

The period opens with the fleets on hand at their locations, ``h_l = F_l``, no car waiting
repair and an unblemished name ``rep_l = 1`` at each. In each week t:

- location l's renters are ``D_l = rep_l (R_l + sum_m O_lm)`` (R its round-trip and O its
  one-way rentals above); the own cars on hand take ``own_l = min(D_l, h_l)`` of them (the same
  share ``g_l = own_l / D_l`` of every kind; none when nobody comes) and the partner's cars the
  first ``min(sum_l short_l, P exp(-h_t))`` of the ``short_l = D_l - own_l`` left, allotted to
  the locations in proportion to their shortfalls; the rest are lost;
- the own cars rented return at the end of the week, ``g_m rep_m R_m + sum_l g_l rep_l O_lm``
  at m; a share d_t of them goes to the repair backlog Q_m (it carries over), the rest with the
  cars not rented is on hand, ``h_l <- h_l - own_l + (1 - d_t) ret_l``;
- the crews repair up to ``0.5 M`` cars (hundred a week), the same share ``min(1, 0.5 M /
  sum_l Q_l)`` of every location's backlog, back on hand; cars waiting repair cannot be rented;
- the name of l takes the week's lost share: ``rep_l <- 0.5 rep_l + 0.5 exp(-3 lost_l /
  D_l)`` (it carries over and lowers next week's renters at l);
- the trucks move ``min(K, sum_l s_l)`` cars from the locations with a surplus ``s_l = (h_l -
  H F_l / (F_A + F_D + F_B))_+`` (H = sum_l h_l: the fleets' shares of the cars on hand) to
  those with a deficit, each surplus giving and each deficit receiving the same share of its
  own; the cars' positions carry over to the next week.

Costs: each week the overhead (150), the lease (15 a hundred cars of the fleets, rented or not),
the truck capacity (4 a hundred cars a week, used or not), the partner's reservation (6 a
hundred cars), the crews (8 a crew) and the loyalty budget; the marketing (two weeks each of A_1
and A_2); the insurance's premium (0.15 a $k of cover); each week the partner's premium (35 a
hundred cars used), the goodwill (25 a hundred renters lost; their margin is not earned), the
trucking (6 a hundred cars moved) and the parts (40 a hundred cars damaged). The company earns
0.7 p_l a hundred rentals at l, on its own cars and the partner's, and 0.1 f a hundred one-way
rentals; the insurance pays ``min(I, 0.5 (parts - 150)_+)`` (half the parts above a deductible
of 150, up to the cover).

Offered as ``transform(x, z)`` (42 normals a row; a scenario is the three locations' round-trip
rentals of the four weeks, the six routes' one-way rentals, the four weeks' damage shares, the
economy and the hurricane's excess ``(z - 1.64)_+``), its cost vectorised over decisions: common
random numbers are exact. lam 0.75, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T, L = 4, 3
#: the one-way routes (from, to): airport 0, downtown 1, beach 2
ROUTES = ((0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1))


class CarRental:
    name = "carrental"
    dim_x, dim_w = 14, L * T + len(ROUTES) * T + T + 2
    vectorized = True
    lam, alpha = 0.75, 0.95
    ref = np.array([60.0, 50.0, 70.0])  # the daily rates' references ($)
    el = np.array([1.2, 1.5, 2.2])  # their elasticities: the beach's leisure renters the most
    fee_el = 0.005  # a $ of the one-way fee
    convert = 0.5  # of the one-way renters a fee deters, the share who rent a round trip
    #: p_A, p_D, p_B, f, F_A, F_D, F_B, K, P, M, U, A_1, A_2, I
    bounds = [(0.5 * r, 2.0 * r) for r in (60.0, 50.0, 70.0)] + [(0.0, np.inf)] * 11
    x0 = np.array([55.0, 55.0, 85.0, 80.0, 2.5, 1.5, 4.0, 0.7, 1.5, 0.8, 3.0, 5.0, 5.0, 40.0])

    rbase = np.array([[5.0, 5.5, 6.0, 5.5],  # hundred round-trip rentals a week
                      [3.5, 3.5, 4.0, 3.5],
                      [4.0, 5.0, 6.0, 5.0]])
    obase = np.array([1.0, 0.6, 0.5, 0.4, 1.5, 1.2])  # one-way rentals a week on each route
    toward = np.array([1.3, 1.2, 0.9, 0.6])  # the season of the routes to the beach
    away = np.array([0.6, 0.9, 1.2, 1.4])  # of the routes from the beach
    hit = np.array([0.0, 0.6, 2.0, 2.0])  # the hurricane's weight each week
    threshold = 1.64
    market, noise, route_noise, damage_noise = 0.1, 0.12, 0.2, 0.3  # sd (log)
    loyal_max, loyal_scale, ad_max, ad_scale = 0.12, 3.0, 0.2, 3.0
    collapse, evacuate, damage, damage_hit, scarce = (1.5, 1.5, 4.0), 6.0, 0.06, 2.5, 1.0
    keep, mar = 0.5, 3.0  # the name's memory, its sensitivity to the renters lost
    rent = 0.7  # $k a hundred car-weeks a $ of the daily rate (seven days)
    fee_unit = 0.1  # $k a hundred one-way rentals a $ of the fee
    overhead, lease, truck_fee, move_fee = 150.0, 15.0, 4.0, 6.0
    partner_fee, partner_premium, wage, crew_rate = 6.0, 35.0, 8.0, 0.5
    parts, goodwill, premium, deductible, share = 40.0, 25.0, 0.15, 150.0, 0.5

    def origin(self, x):
        """Each location's demand factor from its rate, the loyalty budget and the beach's
        marketing, (..., 3, 4)."""
        x = np.asarray(x, dtype=float)
        f = np.exp(-self.el * (x[..., 0:3] / self.ref - 1.0))[..., None] * np.ones(T)
        loyal = 1.0 + self.loyal_max * -np.expm1(-x[..., 10:11] / self.loyal_scale)
        ads = np.concatenate([np.repeat(x[..., 11:12], 2, axis=-1),
                              np.repeat(x[..., 12:13], 2, axis=-1)], axis=-1)
        ad = 1.0 + self.ad_max * -np.expm1(-ads / self.ad_scale)
        lift = np.stack([loyal * np.ones(T), np.ones(ad.shape), ad], axis=-2)
        return f * lift

    def route_mean(self, x):
        """One-way rentals a week on each route before the name, the economy, the hurricane and
        the noise, (..., 6, 4)."""
        x = np.asarray(x, dtype=float)
        o = self.origin(x)
        season = np.array([self.toward if m == 2 else self.away if l == 2 else np.ones(T)
                           for l, m in ROUTES])
        g = np.exp(-self.fee_el * x[..., 3:4])[..., None]
        return (self.obase[:, None] * season * g) * o[..., [l for l, _ in ROUTES], :]

    def round_mean(self, x):
        """Round-trip rentals a week at each location (the deterred one-way renters who rent a
        round trip among them), before the name, the economy, the hurricane and the noise,
        (..., 3, 4)."""
        x = np.asarray(x, dtype=float)
        o = self.origin(x)
        season = np.array([self.toward if m == 2 else self.away if l == 2 else np.ones(T)
                           for l, m in ROUTES])
        deter = -np.expm1(-self.fee_el * x[..., 3:4])[..., None]
        base = np.array(self.rbase)
        out = [sum(self.obase[r] * season[r] for r, (l, _) in enumerate(ROUTES) if l == i)
               for i in range(L)]
        return (base + self.convert * np.stack(out) * deter) * o

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k
        n_r = len(ROUTES) * T
        market = lognormal(self.market, z[L * T + n_r + T])
        kick = np.maximum(z[L * T + n_r + T + 1] - self.threshold, 0.0)
        hit = self.hit.reshape(pad) * kick
        rm = self.round_mean(x).reshape(x.shape[:-1] + (L * T,))
        rnd = columns(rm[..., None, :], k) * market * lognormal(self.noise, z[:L * T])
        for i in range(L):  # the beach's collapse, the city's fall
            rnd[i * T:(i + 1) * T] = rnd[i * T:(i + 1) * T] * np.exp(-self.collapse[i] * hit)
        om = self.route_mean(x).reshape(x.shape[:-1] + (n_r,))
        own = lognormal(self.route_noise, z[L * T:L * T + n_r])
        ow = columns(om[..., None, :], k) * market * own
        ba = 4 * T  # the route beach -> airport
        ow[ba:ba + T] = ow[ba:ba + T] * (1.0 + self.evacuate * hit)
        dmg = -np.expm1(-self.damage * np.exp(self.damage_hit * hit)
                        * lognormal(self.damage_noise, z[L * T + n_r:L * T + n_r + T]))
        return scenario([rnd, ow, dmg, market[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        n_r = len(ROUTES) * T
        p = [x[..., i] for i in range(3)]
        f, K, P, M, U, A_1, A_2, I = (x[..., i] for i in (3, 7, 8, 9, 10, 11, 12, 13))
        F = [x[..., 4 + i] for i in range(L)]
        kick = W[L * T + n_r + T + 1]
        shape = np.broadcast_shapes(kick.shape, f.shape)
        total = (T * (self.overhead + self.lease * (F[0] + F[1] + F[2]) + self.truck_fee * K
                      + self.partner_fee * P + self.wage * M + U) + 2.0 * (A_1 + A_2)
                 + self.premium * I + np.zeros(shape))
        h = [F[i] + np.zeros(shape) for i in range(L)]
        Q = [np.zeros(shape) for _ in range(L)]
        rep = [np.ones(shape) for _ in range(L)]
        parts = np.zeros(shape)
        fleet = np.maximum(F[0] + F[1] + F[2], 1e-12)
        cap = self.crew_rate * M
        for t in range(T):
            hit = self.hit[t] * kick
            rnd = [rep[i] * W[i * T + t] for i in range(L)]
            ow = [rep[l] * W[L * T + r * T + t] for r, (l, _) in enumerate(ROUTES)]
            out = [sum(ow[r] for r, (l, _) in enumerate(ROUTES) if l == i) for i in range(L)]
            D = [rnd[i] + out[i] for i in range(L)]
            own = [np.minimum(D[i], h[i]) for i in range(L)]
            short = [D[i] - own[i] for i in range(L)]
            need = short[0] + short[1] + short[2]
            used = np.minimum(need, P * np.exp(-self.scarce * hit))
            cover = used / np.maximum(need, 1e-12)
            g = [own[i] / np.maximum(D[i], 1e-12) for i in range(L)]
            ret = [g[i] * rnd[i] for i in range(L)]
            for r, (l, m) in enumerate(ROUTES):
                ret[m] = ret[m] + g[l] * ow[r]
            dmg = W[L * T + n_r + t]
            lost = 0.0
            for i in range(L):
                partner = short[i] * cover
                served = (own[i] + partner) / np.maximum(D[i], 1e-12)
                total = total - (self.rent * p[i] * (own[i] + partner)
                                 + self.fee_unit * f * served * out[i])
                lost = lost + short[i] - partner
                rep_new = self.keep * rep[i] + (1.0 - self.keep) * np.exp(
                    -self.mar * (short[i] - partner) / np.maximum(D[i], 1e-12))
                h[i] = h[i] - own[i] + (1.0 - dmg) * ret[i]
                Q[i] = Q[i] + dmg * ret[i]
                parts = parts + self.parts * dmg * ret[i]
                rep[i] = rep_new
            backlog = Q[0] + Q[1] + Q[2]
            fix = np.minimum(1.0, cap / np.maximum(backlog, 1e-12))
            for i in range(L):
                h[i] = h[i] + Q[i] * fix
                Q[i] = Q[i] * (1.0 - fix)
            H = h[0] + h[1] + h[2]
            gap = [h[i] - H * F[i] / fleet for i in range(L)]
            surplus = sum(np.maximum(d, 0.0) for d in gap)
            moved = np.minimum(K, surplus)
            frac = moved / np.maximum(surplus, 1e-12)
            for i in range(L):
                h[i] = h[i] - np.maximum(gap[i], 0.0) * frac + np.maximum(-gap[i], 0.0) * frac
            total = (total + self.partner_premium * used + self.goodwill * lost
                     + self.move_fee * moved)
        return total + parts - np.minimum(I, self.share * np.maximum(parts - self.deductible,
                                                                         0.0))
