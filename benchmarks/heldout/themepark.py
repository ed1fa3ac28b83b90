"""A held-out problem: a theme park's summer season of eight weeks, fourteen decisions, ten of
them open above, written after version 9 of the default and the fashion retailer and the mine.
Kept out of every choice of the default; its optimum is found without acfs (``find_optima.py``
beside it, ``optima.json``). Visitors are counted in thousands a day, rides in thousands a shift
(half a day), money in $M, so a price of p $ a visitor is p / 1000 $M a thousand visitors.

Decisions x = (the weekday ticket price p_wd and the weekend price p_we ($), the fast-pass price
f ($), the ride operators O_m on the morning shift and O_a on the afternoon shift (each day),
the new ride's capacity K (thousand rides a shift, built once), the food-and-beverage staff
F_wd on a weekday and F_we on a weekend day, the parking shuttles S (each day), the maintenance
crews M, the weekly marketing budget A_1 in weeks 1-4 and A_2 in weeks 5-8 ($M a week), the
season pass's price p_s ($) and the weather insurance's cover I ($M)). Before the season the
park sells

    N = 30 exp(-(p_s / 300 - 1)) * market

thousand season passes, ``market`` the summer's lognormal economy (sd 0.1 on the log, mean 1);
n(x) is N without the market. In week t a weekday would bring

    dwd_t * exp(-(p_wd / 60 - 1) - 0.02 (n(x) / 30 - 1)) * lift(A) * market
          * exp(-0.4 k_t kick) * own_t

thousand day visitors and a weekend day ``dwe_t * exp(-(p_we / 75 - 1) - 0.02 (n(x) / 30 -
1)) * lift(A) * market * exp(-0.4 k_t kick) * own'_t`` (own_t and own'_t a week's lognormal noise,
sd 0.15, mean 1; dwd = 12, 14, 16, 18, 18, 17, 15, 12 and dwe = 25, 28, 30, 32, 32, 30, 28,
24 thousand, the school holidays the busiest; each pass takes some day visits): the prices move
the day visits by an exponential elasticity, the marketing of the week's half of the season
lifts them with diminishing returns, ``lift(A) = 1 + 0.3 (1 - exp(-A / 0.1))`` (A = A_1 in
weeks 1-4, A_2 in weeks 5-8). The pass holders come ``N * 0.04 * exp(-0.2 k_t kick) * own''_t``
thousand a weekday and 2.5 times as many a weekend day (own'' sd 0.2, mean 1). A share ``1 -
exp(-0.08 exp(1.5 k_t kick) own'''_t)`` of the rides working breaks down in week t (own''' sd
0.3, mean 1). A heavy-tailed shock, a thunderstorm season or an accident, ``kick = (z -
1.28)_+`` (one season in ten, without bound), cuts the visits, breaks rides, closes rides for
days and dents the park's name, most in mid-season (``k`` = 0.3, 0.6, 1.0, 0.9, 0.7, 0.5, 0.3,
0.2).

The season opens with no ride broken and an unblemished name, ``rep = 1``. In each week t: the
crews return a share ``rho = 1 - exp(-M / 3)`` of the rides broken, and the week's share of those
working breaks down, ``b <- b (1 - rho); b <- b + (1 - b) share_t`` (broken rides carry over);
the rides are open a share ``up = exp(-0.8 k_t kick)`` of the week's days; a shift's ride
capacity is

    cap = up (1 - b) (60 + K) (1 - exp(-O / 200))

thousand rides (60 the rides of the old park; operators with diminishing returns, O = O_m in
the morning, O_a in the afternoon). On a weekday and on a weekend day: the day visitors who
would come are ``w = day_t rep`` and the pass holders ``v``; 80 % of them come by car, the car
park taking 15 (thousand visitors a day) and each shuttle 1.5 more; of those by car a share
``drove = min(0.8 (w + v), 15 + 1.5 S) / (0.8 (w + v))`` parks and the rest turn back (the same
share of day visitors and pass holders; all park when nobody comes); those who enter, ``V_d =
w (0.2 + 0.8 drove)`` day visitors and ``V_p = v (0.2 + 0.8 drove)`` pass holders, ``V = V_d +
V_p``, buy fast passes in a share ``phi = 0.2 exp(-1.5 (f / 30 - 1))``. Each visitor wants 3
rides a shift, a fast-pass holder 2 of them by the fast lane, which goes first: ``fast = min(2
phi V, cap)``, the fast-lane rides beyond the capacity missed. The standby queue starts the
morning with ``q = 3 V - 2 phi V`` and rides ``min(q, cap - fast)``; the afternoon's queue
starts with what the morning left, ``q <- q - min(q, cap - fast) + 3 V - 2 phi V`` (a daily
recursion), and what it leaves at closing are rides missed. Each shift's standby wait is ``q /
(cap - fast + 1)`` (q the queue at the shift's start); the week's wait ``omega`` is the mean of
the four shifts' waits weighted by the days (five weekdays, two weekend days). Food and
beverage sell to a share ``(1 + u^4)^(-1/4)`` of the visitors, ``u = V / (0.3 F)`` (a server
for 300 visitors a day; F = F_wd or F_we; the share falls as their queue lengthens), 15 $ a day
visitor and 8 $ a pass holder (pass holders spend less). The waits and the shock mar the name,
which carries over to the next week's day visitors: ``rep <- 0.6 rep + 0.4 exp(-0.6 omega -
0.5 k_t kick)``.

Costs: before the season the insurance's premium (0.15 a $M of cover); each week the new ride's
depreciation (0.025 a thousand rides a shift), the operators (200 $ an operator-shift, seven
days), the food-and-beverage staff (150 $ a server-day), the shuttles (2000 $ a shuttle-day,
seven days), the crews (0.03 a crew), the marketing and the park's overhead (6); each day a
visitor who turned back on the road costs 15 $ (goodwill and refunds), each ride missed 2 $.
The park earns p_s on each pass sold, p_wd on a weekday's and p_we on a weekend day's day
visitors who enter, f on each fast pass sold (phi V a day) and the food and beverage's sales;
the insurance pays ``min(I, 8 kick)`` (the insured loss, 8 $M a unit of the shock's excess, up
to the cover).

Offered as ``transform(x, z)`` (34 normals a row; a scenario is the eight weeks' potential
weekday and weekend day visitors, the pass holders' weekday visits, the rides' breakdown
shares, the passes sold and the shock's excess ``(z - 1.28)_+``), its cost vectorised over
decisions: common random numbers are exact. lam 0.7, alpha 0.9.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 8


class ThemePark:
    name = "park"
    dim_x, dim_w = 14, 4 * T + 2
    vectorized = True
    lam, alpha = 0.7, 0.9
    ref_wd, el_wd, ref_we, el_we = 60.0, 1.0, 75.0, 1.0  # ticket prices ($), elasticities
    ref_s, el_s, n0, cannibal = 300.0, 1.0, 30.0, 0.02  # the pass; k passes; day visits a pass
    ref_f, el_f, phi0 = 30.0, 1.5, 0.2  # the fast pass: price ($), elasticity, share at ref_f
    #: p_wd, p_we, f, O_m, O_a, K, F_wd, F_we, S, M, A_1, A_2, p_s, I
    bounds = ([(0.5 * ref_wd, 2.0 * ref_wd), (0.5 * ref_we, 2.0 * ref_we),
               (0.5 * ref_f, 3.0 * ref_f)] + [(0.0, np.inf)] * 9
              + [(0.5 * ref_s, 2.0 * ref_s), (0.0, np.inf)])
    x0 = np.array([65.0, 60.0, 25.0, 150.0, 150.0, 20.0, 80.0, 120.0, 3.0, 2.0, 0.15, 0.15,
                   200.0, 3.0])

    dwd = np.array([12.0, 14.0, 16.0, 18.0, 18.0, 17.0, 15.0, 12.0])  # k visitors a weekday
    dwe = np.array([25.0, 28.0, 30.0, 32.0, 32.0, 30.0, 28.0, 24.0])  # k a weekend day
    hit = np.array([0.3, 0.6, 1.0, 0.9, 0.7, 0.5, 0.3, 0.2])  # the shock's weight each week
    market, noise, pass_noise, break_noise = 0.1, 0.15, 0.2, 0.3  # sd (log)
    lift_max, lift_scale = 0.3, 0.1  # marketing's lift, its scale ($M a week)
    pvis, weekend_pass = 0.04, 2.5  # a pass's visits a weekday; weekend over weekday
    away_day, away_pass, break_rate, break_hit = 0.4, 0.2, 0.08, 1.5
    close, dent = 0.8, 0.5  # the days closed, the name dented, a unit of the shock's weight
    repair, rides0, op_scale = 3.0, 60.0, 200.0  # crews; k rides a shift; operators
    car, lot, shuttle = 0.8, 15.0, 1.5  # share by car; k visitors a day, a shuttle more
    want, fast_rides, slack = 3.0, 2.0, 1.0  # rides a visitor a shift, by the fast lane; wait
    server, fb_sharp, spend_day, spend_pass = 0.3, 4.0, 15.0, 8.0  # k visitors a server; $
    keep, mar = 0.6, 0.6  # the name's memory; its sensitivity to the week's wait
    premium, index = 0.15, 8.0  # a $M of cover; $M insured a unit of the shock's excess
    ride_fee, wage, fb_wage, bus_fee, crew_fee, overhead = 0.025, 200.0, 150.0, 2000.0, 0.03, 6.0
    goodwill, missed = 15.0, 2.0  # $ a visitor turned back, a ride missed
    days = ((0, 5.0), (1, 2.0))  # (weekday 0 or weekend 1, days a week)

    def pass_mean(self, x):
        """Passes sold in a usual economy, n(x), (...)."""
        x = np.asarray(x, dtype=float)
        return self.n0 * np.exp(-self.el_s * (x[..., 12] / self.ref_s - 1.0))

    def lift(self, x):
        """Marketing's lift of each week's day visits, (..., 8)."""
        x = np.asarray(x, dtype=float)
        a = np.concatenate([np.repeat(x[..., 10:11], T // 2, axis=-1),
                            np.repeat(x[..., 11:12], T // 2, axis=-1)], axis=-1)
        return 1.0 + self.lift_max * -np.expm1(-a / self.lift_scale)

    def day_mean(self, x):
        """Day visitors a weekday and a weekend day each week with an unblemished name, before
        the economy, the shock and the noise, ((..., 8), (..., 8))."""
        x = np.asarray(x, dtype=float)
        common = (-self.cannibal * (self.pass_mean(x)[..., None] / self.n0 - 1.0))
        wd = self.dwd * np.exp(-self.el_wd * (x[..., 0:1] / self.ref_wd - 1.0) + common)
        we = self.dwe * np.exp(-self.el_we * (x[..., 1:2] / self.ref_we - 1.0) + common)
        return wd * self.lift(x), we * self.lift(x)

    def fast_share(self, f):
        return self.phi0 * np.exp(-self.el_f * (np.asarray(f, dtype=float) / self.ref_f - 1.0))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        pad = (T,) + (1,) * k

        market = lognormal(self.market, z[4 * T])
        kick = np.maximum(z[4 * T + 1] - 1.28, 0.0)
        hit = self.hit.reshape(pad) * kick
        passes = columns(np.asarray(self.pass_mean(x))[..., None, None], k)[0] * market
        wd, we = self.day_mean(x)
        away = market * np.exp(-self.away_day * hit)
        weekday = columns(wd[..., None, :], k) * away * lognormal(self.noise, z[:T])
        weekend = columns(we[..., None, :], k) * away * lognormal(self.noise, z[T:2 * T])
        held = (passes * self.pvis * np.exp(-self.away_pass * hit)
                * lognormal(self.pass_noise, z[2 * T:3 * T]))
        broke = -np.expm1(-self.break_rate * np.exp(self.break_hit * hit)
                          * lognormal(self.break_noise, z[3 * T:4 * T]))
        return scenario([weekday, weekend, held, broke, passes[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p_wd, p_we, f, O_m, O_a, K, F_wd, F_we, S, M, A_1, A_2, p_s, I = (
            x[..., i] for i in range(14))
        passes, kick = W[4 * T], W[4 * T + 1]
        shape = np.broadcast_shapes(kick.shape, p_wd.shape)
        total = (self.premium * I - np.minimum(I, self.index * kick) - p_s / 1000.0 * passes
                 + T * (self.ride_fee * K + 7.0 * self.wage / 1e6 * (O_m + O_a)
                        + self.fb_wage / 1e6 * (5.0 * F_wd + 2.0 * F_we)
                        + 7.0 * self.bus_fee / 1e6 * S + self.crew_fee * M + self.overhead)
                 + T // 2 * (A_1 + A_2) + np.zeros(shape))
        rho = -np.expm1(-M / self.repair)
        ops_m, ops_a = -np.expm1(-O_m / self.op_scale), -np.expm1(-O_a / self.op_scale)
        phi = self.fast_share(f)
        road_cap = self.lot + self.shuttle * S
        b = np.zeros(shape)
        rep = np.ones(shape)
        for t in range(T):
            hit = self.hit[t] * kick
            b = b * (1.0 - rho)
            b = b + (1.0 - b) * W[3 * T + t]
            rides = np.exp(-self.close * hit) * (1.0 - b) * (self.rides0 + K)
            omega = 0.0
            for d, n in self.days:
                price, F = (p_wd, F_wd) if d == 0 else (p_we, F_we)
                w = W[d * T + t] * rep
                v = W[2 * T + t] * (1.0 if d == 0 else self.weekend_pass)
                road = self.car * (w + v)
                drove = np.minimum(road, road_cap) / np.maximum(road, 1e-12)
                enter = 1.0 - self.car + self.car * drove
                V_d, V_p = w * enter, v * enter
                V = V_d + V_p
                fast_want = self.fast_rides * phi * V
                q, lost = np.zeros(shape), np.zeros(shape)
                for ops in (ops_m, ops_a):
                    cap = rides * ops
                    fast = np.minimum(fast_want, cap)
                    q = q + self.want * V - fast_want
                    room = cap - fast
                    omega = omega + n * q / (room + self.slack)
                    q = q - np.minimum(q, room)
                    lost = lost + fast_want - fast
                u = V / np.maximum(self.server * F, 1e-9)
                fed = (1.0 + u**self.fb_sharp) ** (-1.0 / self.fb_sharp)
                total = total + n * (self.goodwill * (w + v - V) + self.missed * (q + lost)
                                     - price * V_d - f * phi * V
                                     - fed * (self.spend_day * V_d + self.spend_pass * V_p)
                                     ) / 1000.0
            omega = omega / 14.0
            rep = self.keep * rep + (1.0 - self.keep) * np.exp(-self.mar * omega
                                                               - self.dent * hit)
        return total
