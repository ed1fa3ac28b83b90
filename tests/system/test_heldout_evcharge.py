"""The held-out EV charging network (``benchmarks/heldout/evcharge.py``, written after version 12
of the default) against a plain loop over one week, written from its docstring, and its
behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from evcharge import EvCharge  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def evcharge_week_by_hand(h: EvCharge, z, x) -> tuple[list[float], ...]:
    """The week's cars wanting to charge in the city and on the highway and the prices of each
    day, the level, the gas level and the shock's excess, and the cost of one week, one block
    at a time."""
    p_c, p_h, i, F_c, F_h, S, B_E, B_P, G_c, G_h, Dr, M, A, H = x
    dow_c = [1.0, 1.0, 1.0, 1.05, 1.1, 0.9, 0.85]
    dow_h = [0.9, 0.85, 0.85, 0.95, 1.25, 1.2, 1.3]
    share_c, share_h = [0.15, 0.4, 0.45], [0.1, 0.55, 0.35]
    shape = [0.6, 1.0, 1.4]
    slow_k, patient = [0.012, 0.008, 0.008], [0.8, 0.35, 0.35]
    w = [0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 1.0]
    level = np.exp(0.1 * z[21] - 0.005)
    gas = np.exp(0.15 * z[22] - 0.01125)
    kick = max(z[23] - 1.64, 0.0)
    lift = 1.0 + 0.5 * (1.0 - np.exp(-A / 40.0))
    city, highway, spot = [], [], []
    for d in range(7):
        city.append(18.0 * dow_c[d] * np.exp(-1.6 * (p_c / 0.45 - 1.0) - 0.3 * i) * lift * level
                    * (1.0 + 0.3 * w[d] * kick) * np.exp(0.2 * z[d] - 0.02))
        highway.append(8.0 * dow_h[d] * np.exp(-1.5 * (p_h / 0.6 - 1.0)) * lift * level
                       * (1.0 + 0.7 * w[d] * kick) * np.exp(0.25 * z[7 + d] - 0.03125))
        spot.append(0.09 * gas * np.exp(0.2 * z[14 + d] - 0.02) * (1.0 + 4.0 * w[d] * kick))
    cost = (40.0 + 0.35 * F_c + 0.45 * F_h + 0.04 * S + 0.2 * B_E + 0.25 * B_P + 2.4 * G_c
            + 3.5 * G_h + 1.6 * M + A - 1.0 * Dr)
    boost = 1.0 + 0.5 * (1.0 - np.exp(-i / 0.25))
    idle_fee = 0.1 * i * 20.0 * np.exp(-4.0 * i)  # $k a hundred slow sessions
    waiting = [0.0, 0.0]
    broken = [0.0, 0.0]
    name = [1.0, 1.0]
    soc = 0.0
    for d in range(7):
        heat = w[d] * kick
        for b in range(3):
            price = spot[d] * shape[b]
            # the chargers break, the technicians mend in proportion
            broken[0] += (F_c - broken[0]) * (1.0 - np.exp(-0.015 * (1.0 + 2.0 * heat)))
            broken[1] += (F_h - broken[1]) * (1.0 - np.exp(-0.02 * (1.0 + 2.0 * heat)))
            fix = min(broken[0] + broken[1], 0.4 * M)
            if fix > 0.0:
                mended = [fix * broken[j] / (broken[0] + broken[1]) for j in range(2)]
                broken = [broken[j] - mended[j] for j in range(2)]
            cost += 0.3 * fix
            want_c = waiting[0] + city[d] * share_c[b] * name[0]
            want_h = waiting[1] + highway[d] * share_h[b] * name[1]
            slow = min(slow_k[b] * S * boost, patient[b] * want_c)
            fast = min(want_c - slow, 0.11 * (F_c - broken[0]))
            need_c = 2.5 * (slow + fast)
            need_h = 4.0 * min(want_h, 0.1 * (F_h - broken[1]))
            # the city's grid, less the demand response's cut by day and evening
            grid_c = 8.0 * G_c * np.exp(-0.8 * heat)
            if b > 0:
                cut = 8.0 * Dr * (1.0 - np.exp(-2.0 * heat))
                if cut > grid_c:
                    cost += 3.0 * price * (cut - grid_c)
                    cost -= price * grid_c
                    grid_c = 0.0
                else:
                    cost -= price * cut
                    grid_c -= cut
            grid_h = 8.0 * G_h * np.exp(-0.8 * heat)
            given_c = min(need_c, grid_c)
            cost += price * given_c - p_c * given_c
            served_c = given_c / 2.5
            cost -= idle_fee * min(served_c, slow)
            # the highway: the battery charged at night, drawn first by day and evening
            if b == 0:
                drawn = min(need_h, grid_h)
                charge = min(8.0 * B_P, (B_E - soc) / 0.9, grid_h - drawn)
                soc += 0.9 * charge
                cost += price * (drawn + charge)
                given_h = drawn
            else:
                out = min(soc, 8.0 * B_P, need_h)
                soc -= out
                drawn = min(need_h - out, grid_h)
                cost += price * drawn
                given_h = out + drawn
            cost -= p_h * given_h
            served_h = given_h / 4.0
            # the cars left wait or give up; the misses mar the name
            for j, (want, served, stay) in enumerate(((want_c, served_c, 0.35),
                                                      (want_h, served_h, 0.2))):
                left = want - served
                gone = (1.0 - stay) * left
                waiting[j] = stay * left
                cost += 0.5 * waiting[j] + 1.5 * gone
                name[j] = 0.8 * name[j] + 0.2 * np.exp(-4.0 * gone / want)
            # the hedge's settlement
            cost += H * (1.15 * 0.09 - spot[d]) * shape[b]
    cost += 60.0 * (2.0 - name[0] - name[1]) + 0.5 * (broken[0] + broken[1])
    return city, highway, spot, [level, gas, kick], cost


def test_evcharge_agrees_with_a_loop_over_the_blocks_of_one_week():
    """One block at a time. rtol 1e-10: the same sums in another order; the cost is a difference
    of terms (the energy sold against the chargers, the connections and the energy bought) some
    ten times larger than itself at worst on these rows, so rounding stays near 1e-13."""
    h = EvCharge()
    z = np.random.default_rng(81).standard_normal((40, h.dim_w))
    z[:12, 23] += 3.0  # heatwaves: the grid derated, the cut called, chargers broken
    z[12:16, :14] += 2.5  # a rush of cars: queues, cars given up, the name marred
    z[16:20, :14] -= 2.5  # few cars: chargers and connections idle
    z[20:24, 14:21] += 3.0  # dear electricity: the hedge pays
    decisions = [h.x0, 1.4 * h.x0,
                 np.r_[0.3, 0.4, 0.0, 10.0, 10.0, 0.0, 0.0, 0.0, 1.0, 1.0, 3.0, 0.0, 0.0,
                       0.0],
                 np.r_[0.8, 1.1, 1.0, 100.0, 90.0, 500.0, 20.0, 0.5, 8.0, 6.0, 0.0, 12.0,
                       100.0, 50.0],
                 np.r_[0.45, 0.6, 0.5, 40.0, 40.0, 200.0, 4.0, 3.0, 2.0, 2.0, 1.5, 1.0,
                       20.0, 10.0]]
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "evcharge" in optima:
        decisions.append(np.asarray(optima["evcharge"]["x_star"]))
    assert_rows_agree(h, z, decisions, evcharge_week_by_hand,
                      (slice(0, 7), slice(7, 14), slice(14, 21), slice(21, 24)))


def test_evcharge_prices_move_the_demand_and_the_heatwave_fills_the_tail():
    h = EvCharge()
    x = h.x0.copy()
    # dearer charging: fewer cars in the cluster priced up, the other's as it was
    dearer_c, dearer_h = x.copy(), x.copy()
    dearer_c[0] += 0.1
    dearer_h[1] += 0.1
    m, mc, mh = h.demand_mean(x), h.demand_mean(dearer_c), h.demand_mean(dearer_h)
    assert mc[0] < m[0] and mh[1] < m[1]
    np.testing.assert_allclose([mc[1], mh[0]], [m[1], m[0]], rtol=1e-12)
    # an idle fee sends a few city drivers away
    idler = x.copy()
    idler[2] += 0.3
    assert h.demand_mean(idler)[0] < m[0]
    # marketing lifts the demand, with diminishing returns
    lifts = [h.demand_mean(np.r_[x[:12], a, x[13:]])[0] for a in (0.0, 40.0, 80.0)]
    assert lifts[0] < lifts[1] < lifts[2] and lifts[2] - lifts[1] < lifts[1] - lifts[0]
    # the prices move the scenario's cars only
    z = np.random.default_rng(82).standard_normal((5, h.dim_w))
    W, Wd = h.transform(x, z), h.transform(dearer_c, z)
    assert np.all(Wd[:, :7] < W[:, :7])
    np.testing.assert_allclose(Wd[:, 7:], W[:, 7:], rtol=1e-12)
    # a heatwave (z[23]) raises the cars and the prices, the later days' the most
    z = np.zeros((2, h.dim_w))
    z[1, 23] = 3.0
    W = h.transform(x, z)
    rise = W[1, :21] / W[0, :21]
    assert np.all(rise > 1.0)
    assert all(np.all(np.diff(rise[k:k + 7]) > 0.0) for k in (0, 7, 14))
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0] + 100.0
    # the hedge pays in the heatwave and costs its loading in a usual week
    hedged = x.copy()
    hedged[13] += 10.0
    assert h.cost(W[1:], hedged)[0] < h.cost(W[1:], x)[0] - 10.0
    usual = 0.09 * np.exp(-0.01125 - 0.02)  # the price at z = 0
    np.testing.assert_allclose(h.cost(W[:1], hedged) - h.cost(W[:1], x),
                               10.0 * 7 * 3.0 * (1.15 * 0.09 - usual), rtol=1e-9)
    # the demand response earns its fee in a usual week and costs in the heatwave
    sold = x.copy()
    sold[10] += 1.0
    np.testing.assert_allclose(h.cost(W[:1], sold) - h.cost(W[:1], x), -1.0, rtol=1e-9)
    assert h.cost(W[1:], sold)[0] > h.cost(W[1:], x)[0]
    # at x0 most of the costliest twentieth of the weeks are weeks of a heatwave
    z = np.random.default_rng(83).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 23] > 1.64).mean() > 0.5
