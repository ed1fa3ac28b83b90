"""The newest held-out problems (``benchmarks/heldout``: port, delivery) against plain loops over
one scenario, written from their docstrings, and their behaviour (the shared checks are
those of ``test_heldout``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from delivery import Delivery  # noqa: E402
from port import Port  # noqa: E402
from test_heldout import assert_fee_lowers_and_shock_builds, assert_rows_agree  # noqa: E402


def port_week_by_hand(h: Port, z, x) -> tuple[list[float], ...]:
    """The moves as the ships were due, the shares delayed a day, the truckers' factors, the
    level and the storm's excess, and the cost of one week, one day at a time."""
    f, g, Y, O, G, R, A = x[0], x[1:8], x[8], x[9], x[10], x[11], x[12]
    sched = [3.2, 2.6, 3.6, 2.4, 3.4, 2.8, 2.0]
    level = np.exp(0.08 * z[21] - 0.0032)
    kick = max(z[22] - 1.28, 0.0)
    lines = np.exp(-1.8 * (f / 120.0 - 1.0))
    moves = [sched[t] * (lines + np.exp(0.6 * (0.3 + 0.15 * t) * kick) - 1.0) * level
             * np.exp(0.2 * z[t] - 0.02) for t in range(7)]
    late = [1.0 / (1.0 + np.exp(1.3 - 0.8 * z[7 + t] - kick)) for t in range(7)]
    calls = [np.exp(0.3 * z[14 + t] - 0.045) / (1.0 + 0.5 * kick) for t in range(7)]

    def quay(n):  # what n gangs work in a day
        return n / ((1.0 + n / 8.0) * (1.0 + 0.4 * kick))

    cost = 14.0 * sum(g) + 7 * (6.0 * Y + 1.0 * O + 10.0 * G + 12.0 * R + 6.0 * A)
    queue, stock, held_back = 0.8, 4.0, 0.0
    for t in range(7):
        work = queue + (1.0 - late[t]) * moves[t] + held_back
        held_back = late[t] * moves[t]
        own = min(work, quay(g[t]))
        standby = min(work - own, quay(g[t] + A) - quay(g[t]))
        queue = work - own - standby
        stock += 0.5 * (own + standby)
        railed = min(R, 0.15 * stock)
        wanting = (stock - railed) * (1.0 - np.exp(-0.25 * calls[t]))
        out = min(wanting, G)
        stock -= railed + out
        overflow = min(max(stock - Y, 0.0), O)
        jammed = max(stock - Y - O, 0.0)
        cost += ((15.0 - f) * (own + standby) + 45.0 * standby + 40.0 * queue - 20.0 * railed
                 + 5.0 * out + 30.0 * (wanting - out) + 1.5 * stock + 12.0 * overflow
                 + 60.0 * jammed)
    return moves, late, calls, [level, kick], cost + 100.0 * queue


def test_port_agrees_with_a_loop_over_the_shifts_of_one_week():
    """One day at a time, the terminal's shift being a day. rtol 1e-10: the same sums in another
    order; the cost is a difference of terms at most some ten times larger than itself, so
    rounding stays near 1e-13."""
    h = Port()
    z = np.random.default_rng(21).standard_normal((40, h.dim_w))
    z[:12, 22] += 2.5  # storm weeks: the standby gangs, the queue, the overflow yard act
    decisions = (h.x0, np.r_[156.0, 2.8, 2.2, 2.9, 2.5, 2.8, 2.6, 1.9, 2.7, 1.2, 0.8, 0.7, 4.6],
                 np.r_[80.0, [3.0] * 7, 1.0, 0.0, 0.3, 0.0, 0.0],
                 np.r_[200.0, 0.0, 6.0, 1.0, 8.0, 0.5, 4.0, 2.0, 0.5, 2.0, 3.0, 2.0, 12.0])
    # the moves, the delayed shares, the truckers' factors, the level and the storm's excess,
    # then the cost
    assert_rows_agree(h, z, decisions, port_week_by_hand,
                      (slice(0, 7), slice(7, 14), slice(14, 21), slice(21, 23)))


def test_port_calls_fall_with_the_fee_and_the_storm_sends_ships_and_fills_the_tail():
    # a storm in z[22]; the same ships, worked by slower cranes: the storm's week costs more
    h = Port()
    assert_fee_lowers_and_shock_builds(h, h.move_mean, 10.0, 22, 7)
    z = np.zeros((2, h.dim_w))
    z[1, 22] = 3.0
    dearer = h.x0.copy()
    dearer[0] += 10.0
    W, Wd = h.transform(h.x0, z), h.transform(dearer, z)
    # the diverted ships come whatever the fee; the storm holds ships back, keeps truckers away
    np.testing.assert_allclose(W[1, :7] - Wd[1, :7], W[0, :7] - Wd[0, :7], rtol=1e-12)
    assert np.all(W[1, 7:14] > W[0, 7:14]) and np.all(W[1, 14:21] < W[0, 14:21])
    # at x0 most of the costliest twentieth of the weeks are storm weeks (one in ten)
    z = np.random.default_rng(22).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(h.x0, z), h.x0)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 22] > 1.28).mean() > 0.8


def delivery_evening_by_hand(h: Delivery, z, x) -> tuple[list[float], ...]:
    """Orders, freelancers online (zone by zone, as in W) and the cost of one evening, one
    block, one zone and one category at a time."""
    f, K, b, S, P = x[0:4], x[4:8], x[8], x[9:12], x[12]
    base, el = [55.0, 40.0, 35.0, 20.0], [1.5, 1.7, 1.8, 2.0]
    prof, fday = [0.6, 1.1, 1.4, 1.1, 0.7], [0.7, 1.0, 1.1, 1.0, 0.8]
    free, weight = [3.0, 2.5, 2.0, 1.2], [0.9, 1.0, 1.0, 1.2]
    items, price, unit = [2.0, 3.0, 5.5], [4.5, 3.8, 2.8], [2.6, 2.2, 1.7]
    salvage = [-0.3, 0.4 * 2.2, 0.9 * 1.7]
    level = np.exp(0.15 * z[43] - 0.01125)
    kick = max(z[44] - 1.28, 0.0)
    lift = 1.0 + 1.5 * (1.0 - np.exp(-b / 4.0))
    orders = [[base[j] * np.exp(-el[j] * (f[j] / 4.0 - 1.0)) * prof[t] * level
               * np.exp(0.5 * weight[j] * kick) * np.exp(0.2 * z[5 * j + t] - 0.02)
               for t in range(5)] for j in range(4)]
    online = [[free[j] * fday[t] * lift * np.exp(-0.4 * kick)
               * np.exp(0.25 * z[20 + 5 * j + t] - 0.03125) for t in range(5)] for j in range(4)]
    cost = 5 * (13.0 * sum(K) + 2.0 * P) + sum(unit[c] * 20.0 * S[c] for c in range(3)) \
        + b * sum(map(sum, online))
    refund = []
    for j in range(4):
        basket = 0.0
        for c in range(3):
            held = 20.0 * S[c] * base[j] / 150.0  # crates of twenty items
            need = items[c] * np.exp(0.2 * z[40 + c] - 0.02) * sum(orders[j])
            sold = min(need, held)
            basket += price[c] * sold
            cost += -price[c] * sold + 0.5 * (need - sold) - salvage[c] * (held - sold)
        refund.append(basket / sum(orders[j]) + 4.0)
    rate = 2.5 / (1.0 + 0.25 * kick)
    queue = [0.0] * 4
    for t in range(5):
        own, waiting, idle = [], [], 0.0
        for j in range(4):
            offered = queue[j] + orders[j][t]
            capacity = (K[j] + online[j][t]) * rate
            own.append(min(offered, capacity))
            waiting.append(offered - own[j])
            idle += capacity - own[j]
        moved = min(0.5 * idle, sum(waiting))
        hired = min(P, sum(waiting) - moved)
        cost += 2.5 * (sum(own) + moved) + 2.0 * moved + 13.0 * hired
        for j in range(4):
            got = (moved + hired) * waiting[j] / sum(waiting) if sum(waiting) > 0 else 0.0
            left = waiting[j] - got
            queue[j] = 0.7 * left
            cost += -f[j] * (own[j] + got) + refund[j] * 0.3 * left + 3.0 * queue[j]
    cost += sum(refund[j] * queue[j] for j in range(4))
    return [v for row in orders for v in row], [v for row in online for v in row], cost


def test_delivery_agrees_with_a_loop_over_the_zones_and_blocks_of_one_evening():
    """rtol 1e-10: the same sums in another order (the deliveries counted by the orders left
    waiting); the cost is a difference of terms at most some hundred times larger than
    itself, so rounding stays near 1e-13."""
    h = Delivery()
    z = np.random.default_rng(21).standard_normal((40, h.dim_w))
    z[:12, 44] += 2.5  # stormy evenings: queues, moves, the contract and cancellations act
    decisions = (h.x0, np.r_[5.3, 5.2, 5.1, 5.1, 9.9, 6.4, 5.9, 2.9, 2.7, 38.0, 67.0, 189.0, 86.0],
                 np.r_[2.0, 2.5, 3.0, 2.0, 4.0, 0.0, 3.0, 0.0, 0.0, 15.0, 250.0, 40.0, 0.0],
                 np.r_[8.0, 6.0, 7.0, 3.0, 40.0, 20.0, 2.0, 10.0, 12.0, 150.0, 0.0, 450.0, 150.0])
    # the orders, the freelancers online, then the cost
    assert_rows_agree(h, z, decisions, delivery_evening_by_hand, (slice(0, 20), slice(20, 40)))


def test_delivery_orders_fall_with_each_zones_fee_and_a_storm_lifts_them_and_slows_couriers():
    h = Delivery()
    x = h.x0.copy()
    dearer, keener = x.copy(), x.copy()
    dearer[3] += 1.0  # the outskirts
    keener[8] += 2.0  # the bonus
    base, moved = h.order_mean(x), h.order_mean(dearer)
    assert moved[3] < base[3]
    np.testing.assert_allclose(moved[:3], base[:3])
    z = np.random.default_rng(22).standard_normal((5, h.dim_w))
    W, Wk = h.transform(x, z), h.transform(keener, z)
    assert np.all(Wk[:, 20:40] > W[:, 20:40])
    np.testing.assert_allclose(Wk[:, :20], W[:, :20])
    # a storm lifts every zone's orders, the outskirts' most, and keeps freelancers home
    z = np.zeros((2, h.dim_w))
    z[1, 44] = 3.0
    W = h.transform(x, z)
    lift = (W[1, :20] / W[0, :20]).reshape(4, 5)
    assert np.all(lift > 1.0) and np.all(lift[3] > lift[:3])
    assert np.all(W[1, 20:40] < W[0, 20:40])
    calm = W[1].copy()
    calm[44] = 0.0  # the same orders and freelancers, couriers at their usual pace
    assert h.cost(W[1:], x)[0] > h.cost(calm[None], x)[0]
