"""A held-out problem: a meal-kit delivery company's month of four weeks, thirteen decisions,
eleven of them open above, written after version 12 of the default. Kept out of every choice of
the default; its optimum is found without acfs (``find_optima.py`` beside it,
``optima.json``). Subscribers, boxes, ingredient kits and complaints are counted in thousands,
money in $k, so a price of p $ a box is p $k a thousand boxes.

Decisions x = (the weekly box price p ($, from 0.5 to 2 times the reference 60) and the
premium-recipe surcharge s ($ a premium box, from 0.5 to 2 times the reference 8), the
marketing budget K ($k, before the month), the kitchen's packing capacity C_1 for weeks 1-2 and
C_2 for weeks 3-4 (thousand boxes a week, paid whether used), the ingredient kits I_1, I_2
ordered ahead for each week of weeks 1-2 and of weeks 3-4 (thousand kits a week, paid whether
delivered or not), the cold room R (thousand kits kept over a week), the cold-chain vans N, the
courier overflow O reserved (thousand boxes a week, paid whether used), the customer-service
agents A, the backup supplier's contract B (thousand kits a week, reserved) and the supply
insurance's cover V ($k)). A share ``prem(s) = 0.35 exp(-0.6 (s / 8 - 1))`` of the boxes is of
premium recipes, so a box brings ``b = p + prem(s) s``. Marketing lifts the sign-ups by
``lift(K) = 1 + 0.5 (1 - exp(-K / 80))``. Week t's (t = 0 .. 3) potential sign-ups are

    N_t = 2 season_t exp(-1.5 (p / 60 - 1) - 0.05 (s / 8 - 1)) lift(K) market own_t

thousand (season = 1.0, 1.0, 1.1, 1.2; ``market`` the month's lognormal level, sd 0.08 on the
log, mean 1; own lognormal, sd 0.15, mean 1; what a dear box loses goes to a rival); those who
sign up are ``N_t rep``, ``rep`` the company's name (1 in week 1). A subscriber orders a box in
week t with the share ``a_t = act(p) own'_t``, ``act(p) = 1 / (1 + 0.18 exp(3 (p / 60 - 1)))``
(the rest skip the week; own' lognormal, sd 0.05, mean 1).

A heavy-tailed supply shock, ``kick = (z - 1.64)_+`` (one month in twenty, without bound),
cuts the kits the usual suppliers deliver to ``y_t = exp(-0.04 exp(0.5 u_t - 0.125) - 1.2
prof_t kick)`` of those ordered (prof = 0, 0.5, 1, 1; u_t normal, the usual losses), raises
the spot price of ingredients, ``spot = exp(0.12 v - 0.0072) (1 + kick)`` (v normal), and
slows the vans in weeks 3-4 to ``1 / (1 + 0.8 storm_t kick)`` of their capacity (storm = 0,
0, 1, 1).

The month opens with 20 thousand subscribers, an empty cold room and ``rep = 1``. In week t
(C and I those of the week's half):

- the week's sign-ups join: ``S <- S + N_t rep``; they order ``orders = a_t S`` boxes;
- the kits at hand are ``avail = Q + I y_t`` (Q those kept from last week); of the shortfall
  ``short = (min(orders, C) - avail)_+`` the backup supplier delivers ``min(short, B)`` and the
  spot market up to 2 thousand kits of the rest;
- the kitchen packs ``packed = min(orders, C, kits)`` boxes; the ``missing = orders -
  packed`` are refunded, b and a credit of 10 $ a box;
- the kits left, up to R, are kept in the cold room, of which 30 % spoil over the week: ``Q =
  0.7 min(left, R)``; the rest are thrown away (1 $ a kit);
- the vans deliver ``min(packed, 0.6 N / (1 + 0.8 storm_t kick))`` (600 boxes a van a week),
  the courier up to O of the rest at 6 $ a box, and the boxes left after it are late,
  delivered a day late at 14 $ a box with 40 % of b credited;
- complaints ``0.01 orders + 0.3 late + 0.6 missing`` arrive; the agents answer 0.4 thousand a
  week each and the unanswered ``(comp - 0.4 A)_+`` cost 8 $ each;
- the week's misses, a share ``bad = (missing + 0.5 late + unanswered) / orders``, raise the
  churn, ``churn = 1 - exp(-0.06 exp(4 (p / 60 - 1) + 0.1 (s / 8 - 1)) - 2 bad)``: ``S <- (1
  - churn) S`` (those who leave go to the rival), and mar the name: ``rep <- 0.6 rep + 0.4
  exp(-4 bad)`` (a name that carries over and lowers the next weeks' sign-ups).

Costs: the marketing K and the insurance's premium (0.1 a $k of cover) up front; each week the
overhead (300), the kitchen (9 $k a thousand boxes of capacity), the kits ordered (22 $ a kit),
the cold room (1.5 $k a thousand kits), the vans (1.5 $k each), the courier's reservation (3 $ a
box), the agents (1 $k each) and the backup's reservation (5 $ a kit); 2 $ a box packed and 2 $
a premium box's extra ingredients, 1 $ a box delivered by van, the backup's kits at 30 $, the
spot kits at 30 spot $, the courier, the late boxes' delivery and credits, the refunds and
credits of the missing boxes, the unanswered complaints, the kits thrown away; less b a box
ordered and 80 $ for each subscriber left after week 4 (the margin they bring later). The
insurance pays ``min(V, 0.8 (L - 50)_+)``, L the month's refunds and credits of the missing
boxes and its spend on spot kits.

Offered as ``transform(x, z)`` (15 normals a row; a scenario is the month's potential sign-ups
and order shares of each week, the usual suppliers' deliveries y_t, the market, the spot price
and the shock's excess ``(z - 1.64)_+``), its cost vectorised over decisions: common random
numbers are exact. lam 0.7, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 4  # weeks


class MealKit:
    name = "mealkit"
    dim_x, dim_w = 13, 3 * T + 3
    vectorized = True
    lam, alpha = 0.7, 0.95
    ref_p, ref_s = 60.0, 8.0  # the reference box price and surcharge ($)
    #: p, s, K, C_1, C_2, I_1, I_2, R, N, O, A, B, V
    bounds = [(0.5 * ref_p, 2.0 * ref_p), (0.5 * ref_s, 2.0 * ref_s)] + [(0.0, np.inf)] * 11
    x0 = np.array([55.0, 7.0, 50.0, 20.0, 22.0, 18.0, 20.0, 1.0, 30.0, 3.0, 4.0, 4.0, 120.0])

    start = 20.0  # thousand subscribers
    nbase, el_p, el_s = 2.0, 1.5, 0.05  # sign-ups a week (k), their elasticities
    season = np.array([1.0, 1.0, 1.1, 1.2])
    lift_max, lift_scale = 0.5, 80.0  # marketing's lift, its scale ($k)
    prem0, prem_el = 0.35, 0.6  # the premium share, its elasticity
    skip0, skip_el = 0.18, 3.0  # the order share's logistic
    market, own, act_sd, spot_sd = 0.08, 0.15, 0.05, 0.12  # sd (log)
    loss0, loss_sd = 0.04, 0.5  # the usual suppliers' losses
    threshold = 1.64  # the shock: one month in twenty
    prof, cut = np.array([0.0, 0.5, 1.0, 1.0]), 1.2  # the shock's cut of the deliveries
    storm, slow = np.array([0.0, 0.0, 1.0, 1.0]), 0.8  # its slowing of the vans
    spot_cap, keep = 2.0, 0.7  # spot kits a week (k); share of the kept kits not spoilt
    van_cap = 0.6  # thousand boxes a van a week
    churn0, churn_p, churn_s, churn_bad = 0.06, 4.0, 0.1, 2.0
    mar, memory = 4.0, 0.6  # the name's sensitivity, memory
    comp_base, comp_late, comp_miss, answered = 0.01, 0.3, 0.6, 0.4
    overhead, kitchen_fee, kit_price, cold_fee = 300.0, 9.0, 22.0, 1.5
    van_fee, reserve_fee, agent_wage, backup_fee, premium = 1.5, 3.0, 1.0, 5.0, 0.1
    pack, extra, van_use, backup_use, spot_price = 2.0, 2.0, 1.0, 30.0, 30.0
    courier, late_fee, late_credit, miss_credit, unanswered_fee, dump = \
        6.0, 14.0, 0.4, 10.0, 8.0, 1.0
    terminal = 80.0  # $ a subscriber left after week 4
    share, retention = 0.8, 50.0  # the insurance's share and retention

    def lift(self, x):
        return 1.0 + self.lift_max * -np.expm1(-np.asarray(x, dtype=float)[..., 2]
                                                / self.lift_scale)

    def premium_share(self, x):
        return self.prem0 * np.exp(-self.prem_el * (np.asarray(x, dtype=float)[..., 1]
                                                    / self.ref_s - 1.0))

    def signup_mean(self, x):
        """Sign-ups a week in a usual market with an unblemished name, before the season and
        the noise."""
        x = np.asarray(x, dtype=float)
        return (self.nbase * np.exp(-self.el_p * (x[..., 0] / self.ref_p - 1.0)
                                    - self.el_s * (x[..., 1] / self.ref_s - 1.0))
                * self.lift(x))

    def order_share(self, x):
        """The share of the subscribers who order a box in a usual week."""
        x = np.asarray(x, dtype=float)
        return 1.0 / (1.0 + self.skip0 * np.exp(self.skip_el * (x[..., 0] / self.ref_p - 1.0)))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k
        market = lognormal(self.market, z[3 * T])
        kick = np.maximum(z[3 * T + 2] - self.threshold, 0.0)
        m = columns(np.asarray(self.signup_mean(x))[..., None, None], k)[0]
        a = columns(np.asarray(self.order_share(x))[..., None, None], k)[0]
        signups = m * self.season.reshape(pad) * market * lognormal(self.own, z[:T])
        orders = a * lognormal(self.act_sd, z[T:2 * T])
        supply = np.exp(-self.loss0 * lognormal(self.loss_sd, z[2 * T:3 * T])
                        - self.cut * self.prof.reshape(pad) * kick)
        spot = lognormal(self.spot_sd, z[3 * T + 1]) * (1.0 + kick)
        return scenario([signups, orders, supply, market[None], spot[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p, s = x[..., 0], x[..., 1]
        K, R, N, O, A, B, V = (x[..., i] for i in (2, 7, 8, 9, 10, 11, 12))
        spot, kick = W[3 * T + 1], W[3 * T + 2]
        shape = np.broadcast_shapes(kick.shape, p.shape)
        prem = self.premium_share(x)
        b = p + prem * s
        base_churn = self.churn0 * np.exp(self.churn_p * (p / self.ref_p - 1.0)
                                          + self.churn_s * (s / self.ref_s - 1.0))
        total = (K + self.premium * V + T * (self.overhead + self.cold_fee * R
                                             + self.van_fee * N + self.reserve_fee * O
                                             + self.agent_wage * A + self.backup_fee * B)
                 ) + np.zeros(shape)
        S, rep, Q = np.full(shape, self.start), np.ones(shape), np.zeros(shape)
        loss = np.zeros(shape)
        for t in range(T):
            C, I = x[..., 3 + t // 2], x[..., 5 + t // 2]
            total = total + self.kitchen_fee * C + self.kit_price * I
            S = S + W[t] * rep
            orders = W[T + t] * S
            avail = Q + I * W[2 * T + t]
            short = np.maximum(np.minimum(orders, C) - avail, 0.0)
            backup = np.minimum(short, B)
            bought = np.minimum(short - backup, self.spot_cap)
            kits = avail + backup + bought
            packed = np.minimum(np.minimum(orders, C), kits)
            missing = orders - packed
            left = kits - packed
            kept = np.minimum(left, R)
            Q = self.keep * kept
            vans = np.minimum(packed, self.van_cap * N / (1.0 + self.slow * self.storm[t] * kick))
            rest = packed - vans
            by_courier = np.minimum(rest, O)
            late = rest - by_courier
            comp = (self.comp_base * orders + self.comp_late * late + self.comp_miss * missing)
            unanswered = np.maximum(comp - self.answered * A, 0.0)
            refunds = (b + self.miss_credit) * missing
            spent = self.spot_price * spot * bought
            loss = loss + refunds + spent
            total = (total - b * orders + refunds + spent + self.backup_use * backup
                     + (self.pack + self.extra * prem) * packed + self.van_use * vans
                     + self.courier * by_courier + (self.late_fee + self.late_credit * b) * late
                     + self.unanswered_fee * unanswered + self.dump * (left - kept))
            bad = (missing + 0.5 * late + unanswered) / np.maximum(orders, 1e-12)
            S = S * np.exp(-base_churn - self.churn_bad * bad)
            rep = self.memory * rep + (1.0 - self.memory) * np.exp(-self.mar * bad)
        return (total - self.terminal * S
                - np.minimum(V, self.share * np.maximum(loss - self.retention, 0.0)))
