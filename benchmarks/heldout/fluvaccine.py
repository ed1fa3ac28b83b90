"""A held-out problem: a vaccine maker's flu season of five monthly periods (September to
January) in three regions, thirteen decisions, eleven of them open above, written after
version 11 of the default and the hotel, the ride-hailing platform and the toy manufacturer.
Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``). Doses are counted in millions, money in $M, so
a price of p $ a dose is p $M a million doses.

Decisions x = (the egg-based production started for wave 1, E_1, and for wave 2, E_2 (million
doses before the eggs' yield), the cell-based fast-production capacity reserved K (million
doses a month), the pre-booking price p_b of the pharmacies' orders placed before the season
and the in-season price p_s ($ a dose), the cold-storage capacity S (million doses), the
distribution capacity D_r of each region r = 1, 2, 3 (million doses a month), the awareness
campaign A_r in each region ($M for the season) and the returns-buyback allowance B promised
to the pharmacies (million doses)). Before the season region r's pharmacies pre-book

    pre_r * exp(-1.8 (p_b / 10 - 1) + 0.5 (p_s / 14 - 1)) * lift_r * back * market * own_r

million doses (pre = 10, 7, 5; a dearer in-season price sends them to pre-book), due half in
September and half in October, and in month t they order

    size_r shape_t * exp(-2 (p_s / 14 - 1) - 0.3 (n(x) - 1)) * lift_r * back * market
            * (1 + surge_r ramp_t kick) * own_{r,t}

million doses in season (size = 4, 3, 2.2, shape = 0.6, 1, 1, 0.7, 0.4 from September to
January; n(x) = exp(-1.8 (p_b / 10 - 1) + 0.5 (p_s / 14 - 1)), the pre-bookings' factor: a
cheaper pre-booking pulls in-season orders forward); ``market`` the season's lognormal demand
(sd 0.08 on the log, mean 1), own the pre-bookings' lognormal noise (sd 0.1, mean 1) and a
month's (sd 0.15, mean 1). The campaign raises a region's orders with diminishing returns,
``lift_r = 1 + 0.3 (1 - exp(-A_r / 4))``, and the allowance all of them, ``back = 1 + 0.2 (1 -
exp(-B / 4))``. The eggs yield ``y_1 = egg * own_1`` doses a dose started in wave 1 and ``y_2
= egg * own_2 * exp(-kick)`` in wave 2 (``egg`` the season's lognormal yield, sd 0.1, own_1 and
own_2 each wave's, sd 0.1, all of mean 1). A share ``u = 0.15 own_u exp(-0.5 kick)`` of the
doses shipped goes unused at the pharmacies (own_u lognormal, sd 0.3, mean 1). A heavy-tailed
shock, a severe season with a strain mismatch, ``kick = (z - 1.64)_+`` (one season in twenty,
without bound), makes the orders surge in November to January (``ramp`` = 0, 0, 1, 1, 0.8),
most in region 1 (``surge`` = 4, 2, 2), collapses wave 2's yield, leaves fewer doses unused
and raises the cell-based cost of a dose made.

The season opens with no dose in stock and no order waiting. Wave 1's doses, ``E_1 y_1``, come
into stock in September and wave 2's, ``E_2 y_2``, in November. In each month t: each region's
waiting orders ``Q_r`` grow by the pre-bookings due and the month's orders (their value ``V_r``
by p_b and p_s a dose), and it can ship ``want_r = min(Q_r, D_r)``; the cell-based line makes
``make = min(K, (sum_r want_r - stock)_+)`` doses, ready within the month, and adds them to the
stock; the regions ship ``ship_r = want_r min(1, stock / sum_r want_r)`` (rationed in
proportion; none when nobody waits), which leave the stock and earn the value of the orders
they fill, ``V_r ship_r / Q_r`` (the waiting orders served alike). From September to December
a share 0.3 of the orders left waiting gives up and is lost, the rest (and their value) carry
over to the next month; the stock left at the month's end is held, each dose within S at 0.3
and each beyond it in rented freezers at 2, and a share 0.15 of it loses potency and is
written off. In January the orders left waiting are lost and the stock left expires and is
written off.

Costs: the eggs (3 a dose started, both waves), the cell-based reserve (1 a dose of capacity a
month, five months), the cold store (0.8 a dose of capacity, for the season), the distribution
(0.5 a dose of capacity a month in each region, five months), the campaigns; the cell-based
doses made ``7 (1 + 2 kick)`` a dose, the storage above, 25 a dose of the orders lost (a
public-health penalty), 0.5 a dose written off, and the doses bought back, ``min(B, u *
shipped)`` (shipped the doses shipped in the season), 9 a dose. The maker earns the orders'
value on the doses shipped.

Offered as ``transform(x, z)`` (24 normals a row; a scenario is the three regions' five months'
in-season orders, the pre-bookings, the season's demand and egg yield, the two waves' yields,
the unused share and the shock's excess ``(z - 1.64)_+``), its cost vectorised over decisions:
common random numbers are exact. lam 0.9, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

R, T = 3, 5


class FluVaccine:
    name = "fluvaccine"
    dim_x, dim_w = 13, R * T + R + 6
    vectorized = True
    lam, alpha = 0.9, 0.95
    ref_b, el_b, ref_s, el_s = 10.0, 1.8, 14.0, 2.0  # prices ($ a dose) and elasticities
    cross, pull = 0.5, 0.3  # pre-bookings per in-season price; in-season orders per pre-booking
    #: E_1, E_2, K, p_b, p_s, S, D_1..D_3, A_1..A_3, B
    bounds = ([(0.0, np.inf)] * 3 + [(0.5 * ref_b, 2.0 * ref_b), (0.5 * ref_s, 2.0 * ref_s)]
              + [(0.0, np.inf)] * 8)
    x0 = np.array([45.0, 6.0, 6.0, 13.0, 18.0, 10.0, 4.5, 3.0, 2.2, 4.0, 4.0, 4.0, 2.0])

    pre = np.array([10.0, 7.0, 5.0])  # million doses pre-booked in each region
    size = np.array([4.0, 3.0, 2.2])  # million doses ordered in a month of shape 1
    shape = np.array([0.6, 1.0, 1.0, 0.7, 0.4])  # the season's shape, September to January
    pre_due = np.array([0.5, 0.5, 0.0, 0.0, 0.0])  # the share of the pre-bookings due
    surge = np.array([4.0, 2.0, 2.0])  # the severe season's surge in each region
    ramp = np.array([0.0, 0.0, 1.0, 1.0, 0.8])  # its weight each month
    threshold = 1.64  # the shock: one season in twenty
    #: sd (log) of the season's demand, a month's orders, the pre-bookings, the egg yield, a
    #: wave's yield, the unused share
    market, noise, pre_noise, egg_noise, wave_noise, slack_noise = 0.08, 0.15, 0.1, 0.1, 0.1, 0.3
    mismatch, slack, slack_hit = 1.0, 0.15, 0.5  # wave 2's collapse; the unused share; its cut
    lift_max, lift_scale, back_max, back_scale = 0.3, 4.0, 0.2, 4.0  # campaign ($M), allowance
    give_up = 0.3  # the share of the orders left waiting that gives up each month
    egg_cost, reserve_fee, cell_cost, cell_hit = 3.0, 1.0, 7.0, 2.0  # $ a dose (a month)
    #: $ a dose: the cold store's capacity (the season), a dose held a month, in a rented
    #: freezer, distribution capacity a month, an order lost, bought back, written off
    store_fee, hold, freezer, ship_fee, penalty, refund, write_off = (
        0.8, 0.3, 2.0, 0.5, 25.0, 9.0, 0.5)
    spoil = 0.15  # the share of the stock losing potency each month

    def pre_factor(self, x):
        """The prices' factor of the pre-bookings, n(x), (...)."""
        x = np.asarray(x, dtype=float)
        return np.exp(-self.el_b * (x[..., 3] / self.ref_b - 1.0)
                      + self.cross * (x[..., 4] / self.ref_s - 1.0))

    def lift(self, x):
        """The campaigns' and the allowance's lift of each region's orders, (..., 3)."""
        x = np.asarray(x, dtype=float)
        camp = 1.0 + self.lift_max * -np.expm1(-x[..., 9:12] / self.lift_scale)
        back = 1.0 + self.back_max * -np.expm1(-x[..., 12:13] / self.back_scale)
        return camp * back

    def pre_mean(self, x):
        """Each region's pre-bookings before the demand and the noise, (..., 3)."""
        return self.pre * self.pre_factor(x)[..., None] * self.lift(x)

    def season_mean(self, x):
        """Each region's in-season orders each month (region by region) before the demand,
        the shock and the noise, (..., 15)."""
        x = np.asarray(x, dtype=float)
        f = np.exp(-self.el_s * (x[..., 4] / self.ref_s - 1.0)
                   - self.pull * (self.pre_factor(x) - 1.0))
        m = (self.size * self.lift(x) * f[..., None])[..., :, None] * self.shape
        return m.reshape(m.shape[:-2] + (R * T,))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        pad = (R * T,) + (1,) * k
        n = R * T + R
        market = lognormal(self.market, z[n])
        egg = lognormal(self.egg_noise, z[n + 1])
        kick = np.maximum(z[n + 5] - self.threshold, 0.0)
        hit = (self.surge[:, None] * self.ramp).reshape(pad) * kick
        orders = (columns(self.season_mean(x)[..., None, :], k) * market * (1.0 + hit)
                  * lognormal(self.noise, z[:R * T]))
        pre = (columns(self.pre_mean(x)[..., None, :], k) * market
               * lognormal(self.pre_noise, z[R * T:n]))
        y1 = egg * lognormal(self.wave_noise, z[n + 2])
        y2 = egg * lognormal(self.wave_noise, z[n + 3]) * np.exp(-self.mismatch * kick)
        unused = self.slack * lognormal(self.slack_noise, z[n + 4]) * np.exp(-self.slack_hit * kick)
        return scenario([orders, pre, market[None], egg[None], y1[None], y2[None], unused[None],
                         kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        E1, E2, K, p_b, p_s, S = (x[..., i] for i in range(6))
        D, A, B = [x[..., 6 + r] for r in range(R)], x[..., 9:12], x[..., 12]
        n = R * T + R
        y1, y2, unused, kick = W[n + 2], W[n + 3], W[n + 4], W[n + 5]
        shape = np.broadcast_shapes(kick.shape, E1.shape)
        total = (self.egg_cost * (E1 + E2) + T * self.reserve_fee * K
                 + self.store_fee * S + T * self.ship_fee * sum(D) + A.sum(-1)
                 + np.zeros(shape))
        Q = [np.zeros(shape) for _ in range(R)]
        V = [np.zeros(shape) for _ in range(R)]
        inv = np.zeros(shape)
        shipped = np.zeros(shape)
        lost = np.zeros(shape)
        for t in range(T):
            if t == 0:
                inv = inv + E1 * y1
            if t == 2:
                inv = inv + E2 * y2
            want = []
            for r in range(R):
                pre = W[R * T + r] * self.pre_due[t]
                new = W[r * T + t]
                Q[r] = Q[r] + pre + new
                V[r] = V[r] + p_b * pre + p_s * new
                want.append(np.minimum(Q[r], D[r]))
            wanted = sum(want)
            make = np.minimum(K, np.maximum(wanted - inv, 0.0))
            inv = inv + make
            fill = np.minimum(inv / np.maximum(wanted, 1e-12), 1.0)
            total = total + self.cell_cost * (1.0 + self.cell_hit * kick) * make
            for r in range(R):
                ship = want[r] * fill
                share = ship / np.maximum(Q[r], 1e-12)
                total = total - V[r] * share
                inv = inv - ship
                shipped = shipped + ship
                Q[r], V[r] = Q[r] - ship, V[r] * (1.0 - share)
                if t < T - 1:
                    lost = lost + self.give_up * Q[r]
                    Q[r], V[r] = Q[r] * (1.0 - self.give_up), V[r] * (1.0 - self.give_up)
                else:
                    lost = lost + Q[r]
            if t < T - 1:
                # each dose held at 0.3, those beyond S at 2 (rented freezers)
                total = (total + self.hold * inv
                         + (self.freezer - self.hold) * np.maximum(inv - S, 0.0))
                spoiled = self.spoil * inv  # potency lost, written off
                inv = inv - spoiled
                total = total + self.write_off * spoiled
        total = (total + self.penalty * lost + self.write_off * inv
                 + self.refund * np.minimum(B, unused * shipped))
        return total
