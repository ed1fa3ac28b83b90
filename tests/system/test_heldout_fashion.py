"""The held-out fashion retailer (``benchmarks/heldout/fashion.py``, written after version 9 of
the default and the harvest and the transit operator) against a plain loop over one season,
written from its docstring, and its behaviour (the shared checks are those of
``test_heldout``)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from fashion import Fashion  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def fashion_season_by_hand(h: Fashion, z, x) -> tuple[list[float], ...]:
    """The six periods' demands, the season's trend, propensity to return and shock's excess,
    and the cost of one season, one period and one kind of customer at a time."""
    p0, d1, d2, Q, R, E, L, K, M1, M2, Mc, H, O, A = (float(v) for v in x)
    price = [p0, p0, p0 * (1 - d1), p0 * (1 - d1), p0 * (1 - d1) * (1 - d2),
             p0 * (1 - d1) * (1 - d2)]
    base = [28.0, 26.0, 20.0, 15.0, 11.0, 8.0]
    el = [1.6, 1.6, 2.2, 2.2, 3.0, 3.0]
    can = [math.exp(-1.5 * d1**2)] * 2 + [math.exp(-d2**2)] * 2 + [1.0, 1.0]
    clear = 1 + 0.3 * (1 - math.exp(-Mc / 40))
    lift = [1 + 0.4 * (1 - math.exp(-M1 / 50)),
            1 + 0.4 * (1 - math.exp(-(M2 + 0.25 * M1) / 50)), 1.0, 1.0, clear, clear]
    trend = math.exp(0.12 * z[6] - 0.0072)
    ret = math.exp(0.2 * z[7] - 0.02)
    kick = max(z[8] - 1.64, 0.0)
    demand = [base[t] * math.exp(-el[t] * (price[t] / 100 - 1)) * can[t] * lift[t] * trend
              * math.exp(-2.5 * kick) * math.exp(0.2 * z[t] - 0.02) for t in range(6)]

    cost = 25 * Q + 27 * R + 3 * 4 * A + 6 * 2 * K + 6 * 0.8 * H + M1 + M2 + Mc
    stock, backlog, queue = Q, 0.0, 0.0
    on_time = math.exp(-0.8 * kick)
    for t in range(6):
        if t == 3:
            stock += R * on_time  # the reorder's on-time share, before period 4
        if t == 5:
            stock += R - R * on_time  # the rest, two periods late
        done = min(backlog, K)
        backlog -= done
        stock += done
        cost += 1.5 * done
        n = E if t < 3 else L
        cost += 2.4 * n
        queue += 0.3 * demand[t]
        walk = 0.7 * demand[t]
        served = min(queue, 0.125 * n)
        floor = 0.25 * n - served
        conv = 0.5 + 0.5 * (1 - math.exp(-2 * floor / walk))
        want = conv * walk + served
        air = min(A * math.exp(-0.6 * kick), max(want - stock, 0.0)) if t >= 2 else 0.0
        sold = min(want, stock + air)
        in_store, collected = conv * walk * sold / want, served * sold / want
        cost += 45 * air + 8 * (served - collected)  # orders served without a unit
        cost += 8 * 0.3 * (queue - served)  # orders not served, cancelled
        queue = 0.7 * (queue - served)
        cost += 2 * queue  # left waiting
        returned = ret * (0.15 * in_store + 0.3 * collected)
        cost -= price[t] * (in_store + collected) - price[t] * returned
        stock = stock + air - in_store - collected
        cost += 1.5 * stock + 5 * max(stock - H, 0.0)  # the warehouse carries it
        backlog += returned
        cost += 1 * backlog
    done = min(backlog, K)
    left = stock + done
    cost += 1.5 * done + 8 * queue
    cost -= 18 * min(left, O) + 4 * max(left - O, 0.0)
    cost += 8 * max(O - left, 0.0)
    return demand, [trend, ret, kick], cost


def test_fashion_agrees_with_a_loop_over_the_periods_and_customers_of_one_season():
    """One period and one kind of customer at a time. rtol 1e-10: the same sums in another
    order; the cost is a difference of terms (the sales against the buys, the staff and the
    refunds) at most some few hundred times larger than itself on these rows, so rounding stays
    near 1e-13."""
    h = Fashion()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:10, 8] += 2.5  # flops and supply disruptions: little demand, the reorder late
    z[10:14, :6] += 2.5  # a hit: the stock and the express capacity run out, the queue builds
    z[14:18, 7] += 3.0  # a wave of returns: the backlog builds beyond the capacity
    z[18:22, :6] -= 2.5  # empty periods: the queue empties, the stock lies idle
    optimum = json.loads((HELDOUT / "optima.json").read_text())["fashion"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[60.0, 0.7, 0.0, 0.0, 0.0, 0.0, 150.0, 0.0, 0.0, 300.0, 0.0, 0.0, 40.0,
                       0.0],
                 np.r_[190.0, 0.0, 0.6, 300.0, 80.0, 5.0, 0.5, 20.0, 5.0, 0.0, 200.0, 10.0, 0.0,
                       30.0])
    # the demands, the season's three numbers, then the cost
    assert_rows_agree(h, z, decisions, fashion_season_by_hand, (slice(0, 6), slice(6, 9)))


def test_fashion_prices_move_the_demand_and_the_flop_fills_the_tail():
    h = Fashion()
    x = h.x0.copy()
    base = h.demand_mean(x)
    # a dearer opening price: less demand in every period
    dearer = x.copy()
    dearer[0] += 10.0
    assert np.all(h.demand_mean(dearer) < base)
    # a deeper first markdown: more demand in the marked-down periods 3-6, less at full price
    deeper = x.copy()
    deeper[1] += 0.1
    lifted = h.demand_mean(deeper)
    assert np.all(lifted[2:] > base[2:]) and np.all(lifted[:2] < base[:2])
    # the late periods' bargain hunters answer it the most
    ratio = lifted / base
    assert ratio[4] > ratio[2] > 1.2
    # the second markdown: more demand in periods 5-6, less in 3-4, none moved in 1-2
    deeper = x.copy()
    deeper[2] += 0.1
    lifted = h.demand_mean(deeper)
    assert np.all(lifted[4:] > base[4:]) and np.all(lifted[2:4] < base[2:4])
    np.testing.assert_allclose(lifted[:2], base[:2], rtol=1e-12)
    # the launch marketing lifts periods 1-2 only, the clearance marketing periods 5-6 only
    louder = x.copy()
    louder[8] += 30.0
    lifted = h.demand_mean(louder)
    assert np.all(lifted[:2] > base[:2])
    np.testing.assert_allclose(lifted[2:], base[2:], rtol=1e-12)
    louder = x.copy()
    louder[10] += 30.0
    lifted = h.demand_mean(louder)
    assert np.all(lifted[4:] > base[4:])
    np.testing.assert_allclose(lifted[:4], base[:4], rtol=1e-12)
    # a flop (z[8]) cuts every period's demand alike and leaves the trend and returns alone
    z = np.zeros((2, h.dim_w))
    z[1, 8] = 3.0
    W = h.transform(x, z)
    np.testing.assert_allclose(W[1, :6] / W[0, :6], np.exp(-2.5 * 1.36), rtol=1e-12)
    np.testing.assert_allclose(W[1, 6:8], W[0, 6:8], rtol=1e-12)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # a hit's demands cost more with the disruption's late reorder and cut express capacity
    z = np.zeros((1, h.dim_w))
    z[0, :6] = 2.5
    hit = h.transform(x, z)
    late = hit.copy()
    late[0, 8] = 1.36
    assert h.cost(late, x)[0] > h.cost(hit, x)[0]
    # more staff serve the click-and-collect queue and raise the conversion: with stock to
    # spare, one more early staff member earns more than his wage on a usual season
    z = np.zeros((1, h.dim_w))
    plenty, staffed = x.copy(), x.copy()
    plenty[3] = 200.0
    staffed[3] = 200.0
    staffed[5] += 1.0
    W = h.transform(plenty, z)
    assert h.cost(W, staffed)[0] < h.cost(W, plenty)[0]
    # at x0 most of the costliest twentieth of the seasons are seasons of a flop (one in
    # twenty)
    z = np.random.default_rng(62).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 8] > 1.64).mean() > 0.5
