"""A held-out problem: a fashion retailer's season of six two-week periods for one collection,
fourteen decisions, eleven of them open above, written after version 9 of the default and the
harvest and the transit operator. Kept out of every choice of the default; its optimum is found
without acfs (``find_optima.py`` beside it, ``optima.json``). Units (garments) are counted in
thousands, staff one by one, money in $k, so a price of p $ a unit is p $k a thousand units.

Decisions x = (the opening price p0 ($ a unit, from 50 to 200), the first and the second
markdown depths d1 and d2 (shares off, from 0 to 0.7), the initial buy Q (thousand units), the
reorder R placed after period 2 (thousand units), the store staff E in the early periods 1-3
and L in the late periods 4-6, the returns-processing capacity K (thousand units a period),
the launch marketing M1 of period 1 and M2 of period 2 and the clearance marketing Mc of
periods 5-6 ($k), the warehouse capacity H (thousand units), the outlet contract O (thousand
units) and the express capacity A reserved with the vendor for periods 3-6 (thousand units a
period)). The prices of the periods t = 1..6 are

    p_t = p0, p0, p0 (1 - d1), p0 (1 - d1), p0 (1 - d1)(1 - d2), p0 (1 - d1)(1 - d2)

and the collection's demand in period t is

    D_t = base_t exp(-el_t (p_t / 100 - 1)) can_t lift_t * trend exp(-2.5 kick) own_t

thousand units (base = 28, 26, 20, 15, 11, 8, the collection's interest fading; el = 1.6,
1.6, 2.2, 2.2, 3, 3, the bargain hunters of the later periods the most sensitive: the price
moves each period's demand by an exponential elasticity). A deep markdown early cannibalises
full-price sales, shoppers waiting for it: ``can = exp(-1.5 d1^2)`` in periods 1-2,
``exp(-d2^2)`` in periods 3-4 and 1 in periods 5-6. The marketing lifts the demand:
``lift_1 = 1 + 0.4 (1 - exp(-M1 / 50))``,
``lift_2 = 1 + 0.4 (1 - exp(-(M2 + 0.25 M1) / 50))`` (a quarter of the first period's
campaign carries over), ``lift_t = 1 + 0.3 (1 - exp(-Mc / 40))`` in periods 5-6, 1 in periods
3-4. ``trend`` is the season's lognormal reception of the
collection (sd 0.12 on the log, mean 1), own_t a period's lognormal noise (sd 0.2, mean 1),
and ``ret`` the season's lognormal propensity to return (sd 0.2, mean 1). A heavy-tailed
trend shock, a collection that flops or a supply disruption, ``kick = (z - 1.64)_+`` (one
season in twenty, without bound), cuts the demand (the factor exp(-2.5 kick) above), delays
the reorder (only ``exp(-0.8 kick)`` of it arrives on time, the rest two periods later) and
cuts the vendor's express capacity to ``A exp(-0.6 kick)``.

The initial buy arrives before period 1; the reorder's on-time share arrives before period 4,
the rest before period 6. Each period: the returns processed, ``min(B, K)`` of the returns
backlog B (none at the start), go back to stock, and the backlog keeps the rest (it carries
over). A share 0.3 of the demand comes as click-and-collect orders that join the queue C of
orders not yet served (none at the start), the rest, ``walk = 0.7 D_t``, as shoppers in the
stores. The staff n (E in periods 1-3, L in periods 4-6) serve 0.25 thousand units a period
each: the queue first, with at most half their time, ``served = min(C, 0.125 n)``, and the
shoppers with the rest, ``floor = 0.25 n - served``; a share ``conv = 0.5 + 0.5 (1 - exp(-2
floor / walk))`` of the shoppers buys (the staff raise the conversion). Of the orders not
served, 30 % are cancelled and 70 % wait (``C <- 0.7 (C - served)``, a queue that carries
over); at the end of the season the queue left is cancelled. The units wanted, ``want = conv
walk + served``, come from the stock and, in periods 3-6, from the express capacity when the
stock falls short, ``air = min(A exp(-0.6 kick), (want - stock)_+)``; the units sold are ``sold
= min(want, stock + air)``, the shoppers' and the orders' in proportion, and the orders served
without a unit are cancelled. A share ``0.15 ret`` of the units sold in the stores and ``0.3
ret`` of the orders sold is returned (refunded at the period's price) and joins the returns
backlog at the period's end, to be processed from the next period on. The stock left at the
period's end (the stock, the express units and the returns processed, less the units sold),
which the warehouse carries, costs 1.5 a unit held and 5 more a unit above the warehouse
capacity H (overflow storage at a premium). After period 6 the backlog is processed once more,
``min(B, K)`` units joining the stock left, and the rest is written off.

The stock left at the end goes to the outlet: up to O units at the contract's 18 a unit, the
units beyond it to a jobber at 4; a shortfall of the contract, ``(O - left)_+``, costs 8 a
unit.

Costs: the initial buy 25 a unit, the reorder 27, express units 45 and the express capacity
3 a unit a period (periods 3-6); the staff 2.4 each a period; the returns capacity 2 a unit a
period and 1.5 a unit processed (also after period 6), 1 a unit in the backlog at each
period's end; the warehouse 0.8 a unit of capacity a period; the marketing; 2 an order left
waiting at a period's end, 8 an order cancelled (goodwill: those not served, those served
without a unit and those left at the end). The retailer earns p_t on each unit sold in period
t, less the refunds, and the outlet's and the jobber's prices.

Offered as ``transform(x, z)`` (9 normals a row; a scenario is the six periods' demands, the
season's trend and propensity to return and the shock's excess ``(z - 1.64)_+``), its cost
vectorised over decisions: common random numbers are exact. lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 6


class Fashion:
    name = "fashion"
    dim_x, dim_w = 14, T + 3
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref = 100.0  # $ a unit
    el = np.array([1.6, 1.6, 2.2, 2.2, 3.0, 3.0])  # the elasticity: bargain hunters late
    #: p0, d1, d2, Q, R, E, L, K, M1, M2, Mc, H, O, A
    bounds = ([(0.5 * ref, 2.0 * ref), (0.0, 0.7), (0.0, 0.7)] + [(0.0, np.inf)] * 11)
    x0 = np.array([110.0, 0.45, 0.1, 80.0, 20.0, 35.0, 20.0, 2.5, 60.0, 20.0, 20.0, 50.0, 10.0,
                   5.0])

    base = np.array([28.0, 26.0, 20.0, 15.0, 11.0, 8.0])  # k units a period at the reference
    cannibal_1, cannibal_2 = 1.5, 1.0  # full-price demand lost to a deep markdown (squared)
    launch, launch_scale, carry, clear, clear_scale = 0.4, 50.0, 0.25, 0.3, 40.0
    #: sd (log) of the season's trend, a period's demand, the propensity to return
    trend, noise, returns = 0.12, 0.2, 0.2
    threshold, flop, late, express_cut = 1.64, 2.5, 0.8, 0.6
    online, serve, queue_share, cancel = 0.3, 0.25, 0.5, 0.3  # share; k units a staff a period
    store_return, online_return = 0.15, 0.3
    hold, overflow = 1.5, 5.0  # $ a unit a period
    buy, rebuy, express, express_fee = 25.0, 27.0, 45.0, 3.0  # $ a unit; a unit a period
    wage, return_fee, process, backlog_fee = 2.4, 2.0, 1.5, 1.0  # $k a staff, $ a unit
    store_fee, wait, goodwill = 0.8, 2.0, 8.0
    outlet, jobber, shortfall = 18.0, 4.0, 8.0

    def prices(self, x):
        """The six periods' prices, (..., 6)."""
        x = np.asarray(x, dtype=float)
        p0, first, second = x[..., 0], 1.0 - x[..., 1], (1.0 - x[..., 1]) * (1.0 - x[..., 2])
        return np.stack([p0, p0, p0 * first, p0 * first, p0 * second, p0 * second], axis=-1)

    def demand_mean(self, x):
        """Each period's demand before the trend, the shock and the noise, (..., 6)."""
        x = np.asarray(x, dtype=float)
        d1, d2, M1, M2, Mc = x[..., 1], x[..., 2], x[..., 8], x[..., 9], x[..., 10]
        one = np.ones_like(d1)
        can = np.exp(np.stack([-self.cannibal_1 * d1**2] * 2 + [-self.cannibal_2 * d2**2] * 2
                              + [0.0 * d1] * 2, axis=-1))
        clear = 1.0 + self.clear * -np.expm1(-Mc / self.clear_scale)
        lift = np.stack([1.0 + self.launch * -np.expm1(-M1 / self.launch_scale),
                         1.0 + self.launch * -np.expm1(-(M2 + self.carry * M1)
                                                       / self.launch_scale),
                         one, one, clear, clear], axis=-1)
        return self.base * np.exp(-self.el * (self.prices(x) / self.ref - 1.0)) * can * lift

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        trend = lognormal(self.trend, z[T])
        ret = lognormal(self.returns, z[T + 1])
        kick = np.maximum(z[T + 2] - self.threshold, 0.0)
        demand = (columns(self.demand_mean(x)[..., None, :], k) * trend
                  * np.exp(-self.flop * kick) * lognormal(self.noise, z[:T]))
        return scenario([demand, trend[None], ret[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        Q, R, E, L, K, M1, M2, Mc, H, O, A = (x[..., i] for i in range(3, 14))
        p = self.prices(x)
        ret, kick = W[T + 1], W[T + 2]
        shape = np.broadcast_shapes(kick.shape, Q.shape)
        total = (self.buy * Q + self.rebuy * R + M1 + M2 + Mc
                 + T * (self.return_fee * K + self.store_fee * H)
                 + (T - 2) * self.express_fee * A) + np.zeros(shape)
        on_time = np.exp(-self.late * kick)
        express = A * np.exp(-self.express_cut * kick)
        stock = Q + np.zeros(shape)
        backlog = np.zeros(shape)
        queue = np.zeros(shape)
        for t in range(T):
            if t == 3:
                stock = stock + R * on_time
            elif t == 5:
                stock = stock + R * (1.0 - on_time)
            done = np.minimum(backlog, K)
            backlog = backlog - done
            stock = stock + done
            n = E if t < 3 else L
            queue = queue + self.online * W[t]
            walk = (1.0 - self.online) * W[t]
            served = np.minimum(queue, self.queue_share * self.serve * n)
            floor = self.serve * n - served
            conv = 0.5 + 0.5 * -np.expm1(-2.0 * floor / np.maximum(walk, 1e-12))
            bought = conv * walk
            want = bought + served
            air = np.minimum(express, np.maximum(want - stock, 0.0)) if t >= 2 else 0.0
            sold = np.minimum(want, stock + air)
            share = sold / np.maximum(want, 1e-12)
            returned = ret * (self.store_return * bought + self.online_return * served) * share
            waiting = (1.0 - self.cancel) * (queue - served)
            total = (total + self.wage * n + self.process * done + self.express * air
                     + self.goodwill * (self.cancel * (queue - served) + served * (1.0 - share))
                     + self.wait * waiting - p[..., t] * (sold - returned))
            stock = stock + air - sold
            total = total + self.hold * stock + self.overflow * np.maximum(stock - H, 0.0)
            backlog = backlog + returned
            queue = waiting
            total = total + self.backlog_fee * backlog
        done = np.minimum(backlog, K)
        left = stock + done
        kept = np.minimum(left, O)
        return (total + self.process * done + self.goodwill * queue - self.outlet * kept
                - self.jobber * (left - kept) + self.shortfall * np.maximum(O - left, 0.0))
