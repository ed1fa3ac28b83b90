"""The held-out semiconductor fab (``benchmarks/heldout/fab.py``, written after version 7 of the
default, the emergency medical service and the water utility) against a plain loop over one
quarter, written from its docstring, and its behaviour (the shared checks are those of
``test_heldout``)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from fab import Fab  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def fab_quarter_by_hand(h: Fab, z, x) -> tuple[list[float], ...]:
    """The orders (product by product, as in W), the uptimes, the markets' levels, the crash's
    excess and its period, and the cost of one quarter, one period, product and tool group at
    a time."""
    p, K, S, V, F, H, M, Y = x[0:3], x[3:6], x[6:9], x[9], x[10], x[11], x[12], x[13]
    base, ref, el = [1.0, 1.6, 2.4], [9.0, 5.0, 2.5], [2.3, 3.0, 4.0]
    season = [0.9, 0.95, 1.0, 1.05, 1.1, 1.0]
    use = [[1.5, 1.2, 0.6], [1.0, 1.0, 0.8], [0.5, 0.7, 1.2]]  # use[product][group]
    hit, material, charge = [1.5, 0.8, 0.5], [1.5, 0.9, 0.45], [0.0, 4.0, 2.0]
    level = [np.exp(0.1 * z[24 + j] - 0.005) for j in range(3)]
    kick = max(z[27] - 1.28, 0.0)
    tau = min(math.floor(6 * 0.5 * (1.0 + math.erf(z[28] / math.sqrt(2.0)))), 5)
    orders = [[base[j] * np.exp(-el[j] * (p[j] / ref[j] - 1.0)) * season[t] * level[j]
               * np.exp(0.2 * z[6 * j + t] - 0.02) for t in range(6)] for j in range(3)]
    uptime = [np.exp(0.06 * z[18 + t] - 0.0018) for t in range(6)]
    lift = 1.0 + 0.25 * (1.0 - np.exp(-H / 2.0))
    left = 1.0 - 0.7 * (1.0 - np.exp(-M / 0.3))
    best = 0.95 - 0.10 * np.exp(-Y / 0.5)
    cost = 6 * (1.0 * K[0] + 0.5 * K[1] + 0.25 * K[2] + 0.4 * H + 0.2 * V + 0.3 * F + Y + 3.8) + M
    wip = [1.5 * b for b in base]
    stock = [0.5 * b for b in base]
    back = [0.3 * b for b in base]
    for t in range(6):
        back = [back[j] + orders[j][t] for j in range(3)]
        if t == tau:
            wip = [w * np.exp(-kick) for w in wip]
        want = [max(S[j] - (stock[j] + wip[j] - back[j]), 0.0) for j in range(3)]
        scale = min(1.0, V / sum(want)) if sum(want) > 0 else 1.0
        starts = [want[j] * scale for j in range(3)]
        pool = [wip[j] + starts[j] for j in range(3)]
        share = 1.0
        for g in range(3):
            C = K[g] * lift * uptime[t]
            if t >= tau:
                C /= 1.0 + hit[g] * kick * left
            load = sum(use[j][g] * pool[j] for j in range(3))
            share = min(share, C / (load + 0.5 * C))
        good = best * np.exp(-0.04 * (1.0 / share - 1.0))
        for j in range(3):
            out = share * pool[j]
            wip[j] = pool[j] - out
            stock[j] += good * out
            ship = min(stock[j], back[j])
            stock[j] -= ship
            back[j] -= ship
            cost += material[j] * starts[j] - p[j] * ship
        short = back[1] + back[2]
        used = min(F, short)
        for j in (1, 2):
            made = back[j] * used / short if short > 0 else 0.0
            back[j] -= made
            cost += (charge[j] - p[j]) * made
        for j in range(3):
            lost = 0.25 * back[j]
            back[j] -= lost
            cost += (0.3 * lost + 0.08 * back[j] + 0.01 * stock[j]) * ref[j] + 0.05 * wip[j]
    for j in range(3):
        cost += 0.3 * ref[j] * back[j] - material[j] * wip[j] - 2.0 * material[j] * stock[j]
    cost += 1.5 * max(7.5 - sum(wip), 0.0)
    return ([v for row in orders for v in row], uptime, level, [kick, float(tau)], cost)


def test_fab_agrees_with_a_loop_over_the_periods_products_and_tools_of_one_quarter():
    """One period, product and tool group at a time. rtol 1e-10: the same sums in another order;
    the cost is a difference of terms (the prices earned against the capacity, the material and
    the penalties) at most some seven hundred times larger than itself on these rows (a
    quarter near break-even at x0), so rounding stays near 1e-12."""
    h = Fab()
    z = np.random.default_rng(41).standard_normal((40, h.dim_w))
    z[:16, 27] += 2.5  # crashes and outages: scrap, a slow line, the foundry, cancellations
    z[:16, 28] = np.linspace(-2.5, 2.5, 16)  # striking in every period
    z[16:20, :18] += 2.0  # booms: the raw wafers run short
    optimum = json.loads((HELDOUT / "optima.json").read_text())["fab"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[12.0, 3.5, 4.0, 2.0, 5.0, 1.5, 0.0, 8.0, 1.0, 2.5, 0.0, 0.0, 2.0, 0.0])
    # the orders, the uptimes, the levels, the crash's excess and period, then the cost
    assert_rows_agree(h, z, decisions, fab_quarter_by_hand,
                      (slice(0, 18), slice(18, 24), slice(24, 27), slice(27, 29)))


def test_fab_orders_fall_with_each_price_and_the_crash_fills_the_tail():
    # the crash (z[27]) leaves the orders alone: the shared check of a shock that builds the
    # arrivals does not apply, so the prices are checked one by one and the crash by its costs
    h = Fab()
    x = h.x0.copy()
    for j, step in enumerate((0.5, 0.3, 0.1)):
        dearer = x.copy()
        dearer[j] += step
        moved, mean = h.order_mean(dearer), h.order_mean(x)
        assert moved[j] < mean[j]
        np.testing.assert_allclose(np.delete(moved, j), np.delete(mean, j), rtol=1e-12)
    z = np.zeros((3, h.dim_w))
    z[1:, 27] = 3.0
    z[2, 28] = 1.0  # a later crash
    W = h.transform(x, z)
    np.testing.assert_allclose(W[1:, :27], W[:1, :27].repeat(2, axis=0), rtol=1e-12)
    assert W[1, 28] < W[2, 28]
    c = h.cost(W, x)
    assert c[1] > c[2] > c[0]  # an early crash costs more than a late one, both more than none
    # the service contract softens a crash and does nothing without one but cost its price
    kept = x.copy()
    kept[12] += 1.0
    ck = h.cost(W, kept)
    np.testing.assert_allclose(ck[0] - c[0], 1.0, rtol=1e-12)
    assert ck[1] < c[1]
    # at x0 most of the costliest twentieth of the quarters are quarters of a crash (one in ten)
    z = np.random.default_rng(42).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 27] > 1.28).mean() > 0.7
