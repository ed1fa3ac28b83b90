"""The held-out recycling company (``benchmarks/heldout/recycling.py``, written after version 13
of the default) against a plain loop over one quarter, written from its docstring, and its
behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from recycling import Recycling  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def recycling_quarter_by_hand(r: Recycling, z, x) -> tuple[list[float], ...]:
    """The quarter's commercial and household waste, contamination, bale prices and mills'
    demands of each period, the business and commodity levels and the event's excess, and the
    cost of one quarter, one period at a time."""
    g, h, E, S, B, K1, K2, Y, F, Q, X, O, H, V = x  # noqa: E741
    cseason = [1.0, 1.0, 1.05, 1.05, 1.1, 0.95]
    hseason = [0.9, 0.95, 1.0, 1.05, 1.15, 1.3]
    w = [0.15, 0.3, 0.5, 0.7, 0.85, 1.0]
    econ = np.exp(0.1 * z[30] - 0.005)
    level = np.exp(0.2 * z[31] - 0.02)
    kick = max(z[32] - 1.64, 0.0)
    mean_c = 8.0 * np.exp(-1.5 * (g / 80.0 - 1.0))
    mean_h = 6.0 * np.exp(-1.4 * (h / 120.0 - 1.0))
    rate = 0.3 * (1.0 - 0.5 * (1.0 - np.exp(-E / 60.0)))
    com, hh, cont, price, mills = [], [], [], [], []
    for t in range(6):
        storm = w[t] * kick
        com.append(mean_c * cseason[t] * econ * np.exp(0.15 * z[t] - 0.01125))
        hh.append(mean_h * hseason[t] * np.exp(0.1 * z[6 + t] - 0.005))
        cont.append(1.0 - np.exp(-rate * np.exp(0.2 * z[12 + t] - 0.02) * (1.0 + 1.5 * storm)))
        price.append(110.0 * level * np.exp(0.1 * z[18 + t] - 0.005) * np.exp(-1.6 * storm))
        mills.append(1.2 * np.exp(0.25 * z[24 + t] - 0.03125) * np.exp(-storm))
    cost = (400.0 + E + 6 * 12.0 * S + 6 * 8.0 * B + 3 * 7.0 * (K1 + K2) + 10.0 * Y
            + 30.0 * F + 3 * 15.0 * X + 6 * 1.5 * O + 0.1 * V)
    forward = 125.0 * np.exp(-Q / 20.0)
    missed, floor, yard, room = 0.0, 0.0, 0.0, F
    for t in range(6):
        storm = w[t] * kick
        trucks = K1 if t < 3 else K2
        # the bills and the gate fees
        cost -= g * com[t] + h * hh[t]
        # the collection
        due = hh[t] + missed
        collected = min(due, 0.3 * trucks)
        missed = due - collected
        cost += 40.0 * missed
        landfill = 0.55 * com[t] + 0.45 * collected
        # the tipping floor and the sorting line (the fire cuts it)
        floor += 0.45 * com[t] + 0.55 * collected
        line = S * np.exp(-0.7 * storm)
        crews = 0.2 * O * np.exp(-0.7 * storm)
        sorted_ = min(floor, line + crews)
        cost += 20.0 * sorted_ + 25.0 * max(sorted_ - line, 0.0)
        floor -= sorted_
        cost += 30.0 * floor
        landfill += 0.25 * floor  # held too long
        floor *= 0.75
        # the balers
        landfill += cont[t] * sorted_
        material = (1.0 - cont[t]) * sorted_
        baled = min(material, B)
        cost += 12.0 * baled - 20.0 * (material - baled)
        # the bales: the forward sale, the ship, the mills, the yard
        yard += baled
        delivered = min(Q, yard)
        yard -= delivered
        cost += (1.15 * price[t] + 15.0) * (Q - delivered) - forward * Q
        if t in (1, 3, 5):
            shipped = min(X * np.exp(-3.0 * storm), yard)
            yard -= shipped
            cost -= 125.0 * shipped
        milled = min(mills[t], yard)
        yard -= milled
        cost -= price[t] * milled
        if yard > Y:
            landfill += yard - Y
            yard = Y
        lost = yard * (1.0 - np.exp(-0.04 * (1.0 + 2.0 * storm)))
        landfill += lost
        yard -= lost
        cost += 3.0 * yard
        # the landfill: the cell, then the third party
        in_cell = min(landfill, room)
        room -= in_cell
        cost += 40.0 * in_cell + 110.0 * (landfill - in_cell)
        # the hedge
        cost += H * (price[t] - 100.0)
    cost += -0.6 * price[5] * yard + 110.0 * (floor + missed)
    repairs = 100.0 * (S + B) * (1.0 - np.exp(-0.7 * kick))
    cost += repairs - min(V, 0.8 * repairs)
    return com, hh, cont, price, mills, [econ, level, kick], cost


def test_recycling_agrees_with_a_loop_over_the_periods_of_one_quarter():
    """One period at a time. rtol 1e-10: the same sums in another order; the cost is a
    difference of terms (the fees and bills against the plant, the trucks and the landfill)
    some ten times larger than itself at worst on these rows, so rounding stays near 1e-13."""
    r = Recycling()
    z = np.random.default_rng(201).standard_normal((40, r.dim_w))
    z[:12, 32] += 3.0  # crash, fire and ban: bales pile up, the line slowed, the cell full
    z[12:16, :12] += 2.5  # much waste: the trucks miss, the floor backs up, overtime
    z[16:20, 24:30] -= 2.5  # the mills take little: the yard fills and overflows
    z[20:24, 12:18] += 2.5  # dirty recyclables: residue to landfill
    z[24:28, 18:24] -= 3.0  # cheap bales: the hedge pays
    decisions = [r.x0, 1.4 * r.x0,
                 np.r_[40.0, 60.0, 0.0, 0.0, 0.0, 0.0, 30.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0,
                       0.0],
                 np.r_[160.0, 240.0, 300.0, 12.0, 9.0, 30.0, 8.0, 10.0, 90.0, 0.5, 4.0, 20.0,
                       3.0, 600.0],
                 np.r_[95.0, 140.0, 130.0, 6.0, 5.0, 15.0, 20.0, 1.0, 40.0, 3.0, 1.6, 6.0,
                       0.7, 300.0]]
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "recycling" in optima:
        decisions.append(np.asarray(optima["recycling"]["x_star"]))
    assert_rows_agree(r, z, decisions, recycling_quarter_by_hand,
                      (slice(0, 6), slice(6, 12), slice(12, 18), slice(18, 24),
                       slice(24, 30), slice(30, 33)))


def test_recycling_prices_move_the_waste_and_the_event_fills_the_tail():
    r = Recycling()
    x = r.x0.copy()
    # a dearer gate fee: less commercial waste, the households' as it was; a dearer household
    # price: less household waste
    dearer_g, dearer_h = x.copy(), x.copy()
    dearer_g[0] += 10.0
    dearer_h[1] += 20.0
    m, mg, mh = r.demand_mean(x), r.demand_mean(dearer_g), r.demand_mean(dearer_h)
    assert mg[0] < m[0] and mh[1] < m[1]
    np.testing.assert_allclose([mg[1], mh[0]], [m[1], m[0]], rtol=1e-12)
    # the education budget lowers the contamination, with diminishing returns
    rates = [r.education(np.r_[x[:2], e, x[3:]]) for e in (0.0, 60.0, 120.0)]
    assert rates[0] > rates[1] > rates[2] and rates[0] - rates[1] > rates[1] - rates[2]
    # the gate fee moves the scenario's commercial waste only
    z = np.random.default_rng(202).standard_normal((5, r.dim_w))
    W, Wg = r.transform(x, z), r.transform(dearer_g, z)
    assert np.all(Wg[:, :6] < W[:, :6])
    np.testing.assert_allclose(Wg[:, 6:], W[:, 6:], rtol=1e-12)
    # the event (z[32]) lowers the bales' price and the mills' demand and lifts the
    # contamination, the later periods' the most, and costs the company dear
    z = np.zeros((2, r.dim_w))
    z[1, 32] = 3.0
    W = r.transform(x, z)
    price, mills = W[1, 18:24] / W[0, 18:24], W[1, 24:30] / W[0, 24:30]
    cont = W[1, 12:18] / W[0, 12:18]
    assert np.all(price < 1.0) and np.all(np.diff(price) < 0.0)
    assert np.all(mills < 1.0) and np.all(np.diff(mills) < 0.0)
    assert np.all(cont > 1.0) and np.all(np.diff(cont) > 0.0)
    assert r.cost(W[1:], x)[0] > r.cost(W[:1], x)[0] + 1000.0
    # the hedge costs its loading in a usual quarter and pays in the crash
    hedged = x.copy()
    hedged[12] += 1.0
    usual = 110.0 * np.exp(-0.02) * np.exp(-0.005)  # the bales' price at z = 0
    np.testing.assert_allclose(r.cost(W[:1], hedged) - r.cost(W[:1], x),
                               6 * (usual - 100.0), rtol=1e-9)
    assert r.cost(W[1:], hedged)[0] < r.cost(W[1:], x)[0] - 200.0
    # the cover costs its premium in a usual quarter and pays in the fire
    covered = x.copy()
    covered[13] += 100.0
    usual, fire = r.cost(W, covered) - r.cost(W, x)
    np.testing.assert_allclose(usual, 10.0, rtol=1e-9)
    assert fire < -50.0
    # at x0 most of the costliest twentieth of the quarters are quarters of the event (one in
    # twenty)
    z = np.random.default_rng(203).standard_normal((20_000, r.dim_w))
    c = r.cost(r.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 32] > 1.64).mean() > 0.5
