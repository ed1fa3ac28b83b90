"""The held-out dairy cooperative (``benchmarks/heldout/dairy.py``, written after version 7 of
the default and the fab, the bike share, the ski resort and the insurer) against a plain loop
over one month, written from its docstring, and its behaviour (the shared checks are those of
``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from dairy import Dairy  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def dairy_month_by_hand(h: Dairy, z, x) -> tuple[list[float], ...]:
    """The deliveries, the fresh-milk and cheese orders, the raw and powder spot prices of the
    four weeks, the month's herd, market, raw and powder levels and the heatwave's excess, and
    the cost of one month, one week and one product at a time."""
    p_f, p_m, p_c, K_m, K_c, K_p, V, C, R, F, g = x[:11]
    O = x[11:15]
    sbase = [10.0, 8.8, 7.6, 6.6]
    mbase = [3.4, 4.0, 4.6, 5.0]
    cbase = [2.6, 2.8, 3.0, 3.2]
    ramp = [0.7, 1.0, 1.2, 1.3]
    herd = np.exp(0.04 * z[20] - 0.0008)
    market = np.exp(0.05 * z[21] - 0.00125)
    rlevel = np.exp(0.15 * z[22] - 0.01125)
    plevel = np.exp(0.12 * z[23] - 0.0072)
    kick = max(z[24] - 1.28, 0.0)
    left = 1.0 - 0.65 * (1.0 - np.exp(-g / 0.25))
    supply = [sbase[t] * np.exp(4.0 * (p_f / 0.35 - 1.0)) * herd
              * np.exp(-0.7 * left * ramp[t] * kick) * np.exp(0.08 * z[t] - 0.0032)
              for t in range(4)]
    fresh = [mbase[t] * np.exp(-3.0 * (p_m / 0.95 - 1.0)) * market
             * np.exp(0.35 * ramp[t] * kick) * np.exp(0.1 * z[4 + t] - 0.005) for t in range(4)]
    cheese = [cbase[t] * np.exp(-3.5 * (p_c / 0.85 - 1.0)) * market
              * np.exp(0.1 * z[8 + t] - 0.005) for t in range(4)]
    raw = [0.32 * rlevel * np.exp(0.5 * ramp[t] * kick) * np.exp(0.08 * z[12 + t] - 0.0032)
           for t in range(4)]
    powder = [0.42 * plevel * np.exp(0.7 * ramp[t] * kick) * np.exp(0.06 * z[16 + t] - 0.0018)
              for t in range(4)]
    cost = 0.20 * K_m + 0.25 * K_c + 0.10 * K_p + 0.04 * V + 0.05 * C + 0.04 * R + g
    tank = stock = 0.0
    loyal_m = loyal_c = 1.0
    good = 1.0
    for t in range(4):
        good = 0.97 * np.exp(-0.4 * ramp[t] * kick)
        milk = tank * good + supply[t]
        want_m, want_c = fresh[t] * loyal_m, cheese[t] * loyal_c
        extra = 0.25 * O[t]
        # fresh milk to order, overtime first to its line
        made_m = min(want_m, K_m + extra, milk)
        if made_m > K_m:
            extra -= made_m - K_m
        milk -= made_m
        # cheese up to the orders and the cold store's room
        room = max(want_c + C - stock, 0.0)
        made_c = min(K_c + extra, milk, room)
        if made_c > K_c:
            extra -= made_c - K_c
        milk -= made_c
        sold_c = min(want_c, stock + made_c)
        stock = stock + made_c - sold_c
        # powder owed to the forward sale, then the tank, then powder for the spot market,
        # then the tankers, then the drain
        owed = min(F, K_p + extra, milk)
        milk -= owed
        tank = min(V, milk)
        milk -= tank
        spot = min(K_p + extra - owed, milk)
        milk -= spot
        hauled = min(R, milk)
        dumped = milk - hauled
        miss_m, miss_c = want_m - made_m, want_c - sold_c
        loyal_m *= 1.0 - 0.5 * miss_m / want_m
        loyal_c *= 1.0 - 0.3 * miss_c / want_c
        cost += (p_f * supply[t] + 0.025 * O[t] + 0.12 * made_m + 0.15 * made_c
                 + 0.06 * (owed + spot) + 1.2 * powder[t] * (F - owed) + 0.01 * stock
                 + 0.05 * dumped + 0.50 * miss_m + 0.25 * miss_c)
        cost -= (p_m * made_m + p_c * sold_c + 0.54 * F + powder[t] * spot
                 + (raw[t] - 0.02) * hauled)
    cost -= raw[3] * good * tank + 0.40 * stock
    return supply, fresh, cheese, raw, powder, [herd, market, rlevel, plevel, kick], cost


def test_dairy_agrees_with_a_loop_over_the_weeks_and_products_of_one_month():
    """One week and one product at a time. rtol 1e-10: the same sums in another order; the cost
    is a difference of terms (the sales against the milk, the lines and the penalties) at most
    some hundred times larger than itself on these rows, so rounding stays near 1e-13."""
    h = Dairy()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 24] += 2.5  # heatwaves: the milk short, fresh milk and the forward's powder bought in
    z[12:16, :4] += 3.0  # floods of milk: the lines, the tank and the tankers full, milk dumped
    z[16:20, 4:12] += 3.0  # crowds of orders: orders missed, the customers lost
    z[20:24, :4] -= 3.0  # droughts of milk: the tank and the cold store emptied
    optimum = json.loads((HELDOUT / "optima.json").read_text())["dairy"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[0.5, 0.6, 1.2, 0.0, 6.0, 0.0, 3.0, 0.0, 0.0, 4.0, 0.0, 0.0, 8.0, 0.5,
                       20.0])
    # the deliveries, the fresh-milk and cheese orders, the raw and powder spot prices, the
    # month's five numbers, then the cost
    assert_rows_agree(h, z, decisions, dairy_month_by_hand,
                      (slice(0, 4), slice(4, 8), slice(8, 12), slice(12, 16), slice(16, 20),
                       slice(20, 25)))


def test_dairy_prices_move_the_milk_and_orders_and_the_heatwave_fills_the_tail():
    h = Dairy()
    x = h.x0.copy()
    # a dearer farm price draws more milk; dearer fresh milk or cheese, fewer orders of it
    for i, mean, sign in ((0, h.supply_mean, 1), (1, h.fresh_mean, -1), (2, h.cheese_mean, -1)):
        dearer = x.copy()
        dearer[i] += 0.05
        assert np.all(sign * (mean(dearer) - mean(x)) > 0)
    # a heatwave (z[24]) cuts the milk and raises the fresh-milk orders and both spot prices,
    # more each week, and leaves the cheese orders and the month's levels alone
    z = np.zeros((2, h.dim_w))
    z[1, 24] = 3.0
    W = h.transform(x, z)
    assert np.all(W[1, :4] < W[0, :4]) and np.all(W[1, 4:8] > W[0, 4:8])
    assert np.all(W[1, 12:20] > W[0, 12:20])
    assert np.all(np.diff(W[1, :4] / W[0, :4]) < 0) and np.all(np.diff(W[1, 4:8] / W[0, 4:8]) > 0)
    np.testing.assert_allclose(W[1, 8:12], W[0, 8:12], rtol=1e-12)
    np.testing.assert_allclose(W[1, 20:24], W[0, 20:24], rtol=1e-12)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # the grant spares some of the heatwave's milk, and changes nothing in a usual month
    granted = x.copy()
    granted[10] = 1.0
    assert np.all(h.transform(granted, z)[1, :4] > W[1, :4])
    np.testing.assert_allclose(h.transform(granted, z)[0], W[0], rtol=1e-12)
    # the same month costs more with the heatwave's spoilage in a tank that fills (a dear farm
    # price, a large tank) than without it
    stored = x.copy()
    stored[0], stored[6] = 0.5, 3.0
    hot = h.transform(stored, z)[1]
    calm = hot.copy()
    calm[24] = 0.0
    assert h.cost(hot[None], stored)[0] > h.cost(calm[None], stored)[0] + 0.1
    # with no fresh-milk line and no overtime every fresh order is missed: the month costs more
    none = x.copy()
    none[3] = 0.0
    none[11:15] = 0.0
    assert h.cost(W[:1], none)[0] > h.cost(W[:1], x)[0]
    # at x0 most of the costliest twentieth of the months are months of a heatwave (one in ten)
    z = np.random.default_rng(62).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 24] > 1.28).mean() > 0.5
