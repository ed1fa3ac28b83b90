"""A held-out problem: a resort hotel's summer of eight weeks, fourteen decisions, eleven of them
open above, written after version 10 of the default and the theme park and the electricity
retailer. Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``). Rooms are counted a night, money in $k, so a
rate of p $ a room is p / 1000 $k a room-night.

Decisions x = (the weekday room rate p_wd and the weekend rate p_we ($), the tour operator's
group rate g ($) and its allotment G (rooms a night), the overbooking allowance O (rooms), the
housekeepers H_wd on a weekday and H_we on a weekend day, the front-desk clerks D (each night),
the maintenance crews M, the weekly marketing budget A_1 in weeks 1-4 and A_2 in weeks 5-8 ($k a
week), the spa and restaurant's staff S (each night), the cancellation insurance's cover I ($k)
and the rooms P reserved each night at a partner hotel for walked guests). The hotel has 200
rooms. In week t a weekday night would bring

    dwd_t * exp(-1.8 (p_wd / 160 - 1)) * lift(A) * market * exp(-0.8 k_t kick) * own_t

rooms booked by guests who pay the rack rate and a weekend night ``dwe_t * exp(-1.1 (p_we /
210 - 1)) * lift(A) * market * exp(-0.8 k_t kick) * own'_t`` (the business week's guests more
sensitive to the rate than the leisure weekend's; those a dearer rate loses book the rival
across the bay), before the hotel's name; ``market`` the summer's lognormal economy (sd 0.1 on
the log, mean 1), own_t and own'_t a week's lognormal noise (sd 0.15, mean 1); dwd = 120, 140,
160, 170, 175, 165, 145, 120 and dwe = 170, 190, 210, 220, 225, 215, 195, 170 rooms, the school
holidays the busiest. Marketing lifts them with diminishing returns, ``lift(A) = 1 + 0.3 (1 -
exp(-A / 3))`` (A = A_1 in weeks 1-4, A_2 in weeks 5-8). The tour operator wants ``gbase_t *
exp(-1.5 (g / 140 - 1)) * market * exp(-0.8 k_t kick) * own''_t`` rooms a night of week t for
its groups (gbase = 50, 60, 70, 75, 75, 70, 60, 50, own'' sd 0.2, mean 1): more groups at a
lower rate. A share ``1 - exp(-0.07 exp(0.6 k_t kick) own'''_t)`` of the guests who keep their
booking do not show in week t (own''' sd 0.3, mean 1), and a share ``1 - exp(-0.05 exp(2
k_t kick) own''''_t)`` of the rooms in order breaks down in week t (own'''' sd 0.4, mean 1).
A heavy-tailed shock, a hurricane warning or an outbreak, ``kick = (z - 1.64)_+`` (one summer
in twenty, without bound), cuts the bookings and the groups, cancels a share ``1 - exp(-k_t
kick)`` of the guests' bookings and ``1 - exp(-1.2 k_t kick)`` of the groups at short notice
(after the allotment's release), raises the no-shows, damages rooms and dents the hotel's name,
most in weeks 4-6 (``k`` = 0.3, 0.5, 0.8, 1.0, 1.0, 0.9, 0.5, 0.3).

The summer opens with no room out of order, no room dirty, an unblemished name ``rep = 1`` and
no room occupied the night before. In each week t: the crews return a share ``rho = 1 - exp(-M
/ 1.5)`` of the rooms out of order and the week's share of the rooms in order breaks down, ``b
<- b (1 - rho); b <- b + (200 - b) share_t`` (rooms out of order carry over from week to week).
The groups take ``gr = min(G, group_t)`` rooms a night of the week; the operator releases the
unsold allotment a week ahead, too late to sell more than half of it, and the hotel accepts
``acc = min(dem, (200 - b - G + 0.5 (G - gr) + O)_+)`` of the ``dem = day_t rep`` rooms its
guests would book (day = the weekday's or the weekend's bookings above). Then for a weekday
night, then for a weekend night (each standing for the five weekdays and the two weekend days
of the week; what is occupied and left dirty carries over from the one to the other and to the
next week):

- the housekeepers clean ``min(need, 15 H)`` rooms (15 a housekeeper a day; H = H_wd or H_we)
  of the ``need = occ + dirty`` rooms occupied the night before and left dirty before, and the
  rest, ``dirty = need - cleaned``, stays dirty and cannot be sold that night: the rooms to
  sell are ``sell = (200 - b - dirty)_+``;
- the guests who come are ``a_g = acc (1 - c_t) (1 - ns_t)`` (c_t the shock's cancellations,
  ns_t the week's no-shows) and the groups ``a_r = gr (1 - c'_t)`` (c'_t the groups'
  cancellations); the occupied rooms are ``occ = min(a_g + a_r, sell)``, and the rest are
  walked, ``walk = a_g + a_r - occ`` (the same share of guests and groups; none when nobody
  comes): the first P of them to the partner hotel's rooms, the others to another hotel at a
  cost;
- a share ``turn`` of the occupied rooms check in that night (0.5 on a weekday, 0.8 at a
  weekend) at D clerks, each checking in 50 at the evening's peak: with ``u = turn occ / (50
  D)``, a share ``long = u^4 / (1 + u^4)`` of them waits long;
- 1.8 guests a room eat and use the spa, whose staff each serve 20 a night: a share ``(1 +
  v^4)^(-1/4)`` of them spends (it falls as their queue lengthens), ``v = 1.8 occ / (20 S)``,
  50 $ a guest on a weekday and 70 $ at a weekend.

The week's walked share ``miss = sum(n walk) / sum(n (a_g + a_r))`` (n the nights, 5 and 2; none
when nobody comes), its share waiting long at check-in ``wait = sum(n turn occ long) / sum(n
turn occ)`` (none when nobody checks in), the rooms out of order and the shock mar the name,
which carries over to the next weeks' bookings: ``rep <- 0.6 rep + 0.4 exp(-4 miss - wait
- 2 b / 200 - 0.6 k_t kick)``.

Costs: before the summer the insurance's premium (0.1 a $k of cover); each week the hotel's
overhead (90), the crews (2 a crew), the marketing, the partner's rooms (0.04 a room-night,
seven nights, used or not), the housekeepers (0.2 a housekeeper-day), the clerks (0.15 a
clerk-night, seven nights) and the spa and restaurant's staff (0.18 a staffer-night, seven
nights); each night 0.4 a guest walked beyond the partner's rooms and 0.03 a guest who waits
long. The hotel earns p_wd and p_we on its guests' occupied rooms, g on the groups' and the
spa and restaurant's spending; the insurance pays ``min(I, 150 kick)`` (the insured
cancellations, 150 $k a unit of the shock's excess, up to the cover).

Offered as ``transform(x, z)`` (42 normals a row; a scenario is the eight weeks' weekday and
weekend bookings, the groups wanted, the no-show shares and the breakdown shares, the summer's
economy and the shock's excess ``(z - 1.64)_+``), its cost vectorised over decisions: common
random numbers are exact. lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 8


class Hotel:
    name = "hotel"
    dim_x, dim_w = 14, 5 * T + 2
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref_wd, el_wd, ref_we, el_we = 160.0, 1.8, 210.0, 1.1  # room rates ($), elasticities
    ref_g, el_g = 140.0, 1.5  # the group rate ($), its elasticity
    #: p_wd, p_we, g, G, O, H_wd, H_we, D, M, A_1, A_2, S, I, P
    bounds = ([(0.5 * ref_wd, 2.0 * ref_wd), (0.5 * ref_we, 2.0 * ref_we),
               (0.5 * ref_g, 2.0 * ref_g)] + [(0.0, np.inf)] * 11)
    x0 = np.array([185.0, 190.0, 120.0, 25.0, 6.0, 9.0, 9.0, 3.0, 1.5, 3.0, 3.0, 12.0, 50.0,
                   5.0])

    dwd = np.array([120.0, 140.0, 160.0, 170.0, 175.0, 165.0, 145.0, 120.0])  # rooms a weekday
    dwe = np.array([170.0, 190.0, 210.0, 220.0, 225.0, 215.0, 195.0, 170.0])  # a weekend night
    gbase = np.array([50.0, 60.0, 70.0, 75.0, 75.0, 70.0, 60.0, 50.0])  # groups' rooms a night
    hit = np.array([0.3, 0.5, 0.8, 1.0, 1.0, 0.9, 0.5, 0.3])  # the shock's weight each week
    threshold = 1.64  # the shock: one summer in twenty
    market, noise, group_noise, show_noise, break_noise = 0.1, 0.15, 0.2, 0.3, 0.4  # sd (log)
    lift_max, lift_scale = 0.3, 3.0  # marketing's lift, its scale ($k a week)
    away, no_show, show_hit, break_rate, break_hit = 0.8, 0.07, 0.6, 0.05, 2.0
    cancel, group_cancel, dent = 1.0, 1.2, 0.6  # a unit of the shock's weight
    rooms, repair, clean, late = 200.0, 1.5, 15.0, 0.5  # rooms; crews; rooms a housekeeper a day
    turn, desk, desk_sharp = (0.5, 0.8), 50.0, 4.0  # check-ins a room; a clerk's; long waits
    party, server, spa_sharp, spend = 1.8, 20.0, 4.0, (0.05, 0.07)  # guests a room; $k a guest
    keep, mar_walk, mar_wait, mar_broken = 0.6, 4.0, 1.0, 2.0  # the name's memory, its marks
    premium, index = 0.1, 150.0  # a $k of cover; $k insured a unit of the shock's excess
    overhead, crew_fee, partner_fee = 90.0, 2.0, 0.04  # $k a week, a crew a week, a room-night
    maid_wage, clerk_wage, spa_wage = 0.2, 0.15, 0.18  # $k a day or night
    walk_fee, wait_fee = 0.4, 0.03  # $k a guest walked beyond the partner's, who waits long
    nights = (5.0, 2.0)  # weekday and weekend nights a week

    def lift(self, x):
        """Marketing's lift of each week's bookings, (..., 8)."""
        x = np.asarray(x, dtype=float)
        a = np.concatenate([np.repeat(x[..., 9:10], T // 2, axis=-1),
                            np.repeat(x[..., 10:11], T // 2, axis=-1)], axis=-1)
        return 1.0 + self.lift_max * -np.expm1(-a / self.lift_scale)

    def booking_mean(self, x):
        """Rooms a weekday and a weekend night each week the guests would book with an
        unblemished name, before the economy, the shock and the noise, ((..., 8), (..., 8))."""
        x = np.asarray(x, dtype=float)
        wd = self.dwd * np.exp(-self.el_wd * (x[..., 0:1] / self.ref_wd - 1.0))
        we = self.dwe * np.exp(-self.el_we * (x[..., 1:2] / self.ref_we - 1.0))
        return wd * self.lift(x), we * self.lift(x)

    def group_mean(self, x):
        """Rooms a night the tour operator wants each week, before the economy, the shock and
        the noise, (..., 8)."""
        x = np.asarray(x, dtype=float)
        return self.gbase * np.exp(-self.el_g * (x[..., 2:3] / self.ref_g - 1.0))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        pad = (T,) + (1,) * k

        market = lognormal(self.market, z[5 * T])
        kick = np.maximum(z[5 * T + 1] - self.threshold, 0.0)
        hit = self.hit.reshape(pad) * kick
        wd, we = self.booking_mean(x)
        away = market * np.exp(-self.away * hit)
        weekday = columns(wd[..., None, :], k) * away * lognormal(self.noise, z[:T])
        weekend = columns(we[..., None, :], k) * away * lognormal(self.noise, z[T:2 * T])
        groups = (columns(self.group_mean(x)[..., None, :], k) * away
                  * lognormal(self.group_noise, z[2 * T:3 * T]))
        shows = -np.expm1(-self.no_show * np.exp(self.show_hit * hit)
                          * lognormal(self.show_noise, z[3 * T:4 * T]))
        broke = -np.expm1(-self.break_rate * np.exp(self.break_hit * hit)
                          * lognormal(self.break_noise, z[4 * T:5 * T]))
        return scenario([weekday, weekend, groups, shows, broke, market[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p_wd, p_we, g, G, O, H_wd, H_we, D, M, A_1, A_2, S, I, P = (
            x[..., i] for i in range(14))
        kick = W[5 * T + 1]
        shape = np.broadcast_shapes(kick.shape, p_wd.shape)
        total = (self.premium * I - np.minimum(I, self.index * kick)
                 + T * (self.overhead + self.crew_fee * M + 7.0 * self.partner_fee * P
                        + self.maid_wage * (5.0 * H_wd + 2.0 * H_we)
                        + 7.0 * (self.clerk_wage * D + self.spa_wage * S))
                 + T // 2 * (A_1 + A_2) + np.zeros(shape))
        rho = -np.expm1(-M / self.repair)
        b, dirty, occ = np.zeros(shape), np.zeros(shape), np.zeros(shape)
        rep = np.ones(shape)
        for t in range(T):
            hit = self.hit[t] * kick
            b = b * (1.0 - rho)
            b = b + (self.rooms - b) * W[4 * T + t]
            gr = np.minimum(G, W[2 * T + t])
            keep_g = np.exp(-self.cancel * hit) * (1.0 - W[3 * T + t])
            a_r = gr * np.exp(-self.group_cancel * hit)
            came = walked = checked = waited = 0.0
            for d, (price, H) in enumerate(((p_wd, H_wd), (p_we, H_we))):
                n = self.nights[d]
                dem = W[d * T + t] * rep
                acc = np.minimum(dem, np.maximum(self.rooms - b - G + self.late * (G - gr) + O,
                                                 0.0))
                need = occ + dirty
                dirty = need - np.minimum(need, self.clean * H)
                sell = np.maximum(self.rooms - b - dirty, 0.0)
                a_g = acc * keep_g
                arrive = a_g + a_r
                occ = np.minimum(arrive, sell)
                walk = arrive - occ
                share = occ / np.maximum(arrive, 1e-12)  # of guests and groups alike
                ins = self.turn[d] * occ
                u = ins / np.maximum(self.desk * D, 1e-9)
                long = u**self.desk_sharp / (1.0 + u**self.desk_sharp)
                v = self.party * occ / np.maximum(self.server * S, 1e-9)
                fed = (1.0 + v**self.spa_sharp) ** (-1.0 / self.spa_sharp)
                total = total + n * (self.walk_fee * np.maximum(walk - P, 0.0)
                                     + self.wait_fee * ins * long
                                     - (price * a_g + g * a_r) * share / 1000.0
                                     - self.spend[d] * fed * self.party * occ)
                came, walked = came + n * arrive, walked + n * walk
                checked, waited = checked + n * ins, waited + n * ins * long
            miss = walked / np.maximum(came, 1e-12)
            wait = waited / np.maximum(checked, 1e-12)
            rep = self.keep * rep + (1.0 - self.keep) * np.exp(
                -self.mar_walk * miss - self.mar_wait * wait
                - self.mar_broken * b / self.rooms - self.dent * hit)
        return total
