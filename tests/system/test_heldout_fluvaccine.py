"""The held-out flu-vaccine maker (``benchmarks/heldout/fluvaccine.py``, written after version 11
of the default and the hotel, the ride-hailing platform and the toy manufacturer) against a
plain loop over one season, written from its docstring, and its behaviour (the shared checks
are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from fluvaccine import FluVaccine  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def fluvaccine_season_by_hand(h: FluVaccine, z, x) -> tuple[list[float], ...]:
    """The in-season orders of the three regions' five months, the pre-bookings, the season's
    six numbers (demand, egg yield, the two waves' yields, the unused share, the shock's
    excess), and the cost of one season, one month and one region at a time."""
    E1, E2, K, p_b, p_s, S = x[0], x[1], x[2], x[3], x[4], x[5]
    D, A, B = x[6:9], x[9:12], x[12]
    pre_base = [10.0, 7.0, 5.0]
    size = [4.0, 3.0, 2.2]
    shape = [0.6, 1.0, 1.0, 0.7, 0.4]
    ramp = [0.0, 0.0, 1.0, 1.0, 0.8]
    surge = [4.0, 2.0, 2.0]
    market = np.exp(0.08 * z[18] - 0.0032)
    egg = np.exp(0.1 * z[19] - 0.005)
    kick = max(z[23] - 1.64, 0.0)
    y1 = egg * np.exp(0.1 * z[20] - 0.005)
    y2 = egg * np.exp(0.1 * z[21] - 0.005) * np.exp(-kick)
    u = 0.15 * np.exp(0.3 * z[22] - 0.045) * np.exp(-0.5 * kick)
    back = 1.0 + 0.2 * (1.0 - np.exp(-B / 4.0))
    n_x = np.exp(-1.8 * (p_b / 10.0 - 1.0) + 0.5 * (p_s / 14.0 - 1.0))
    orders, pre = [], []
    for r in range(3):
        lift = 1.0 + 0.3 * (1.0 - np.exp(-A[r] / 4.0))
        pre.append(pre_base[r] * n_x * lift * back * market * np.exp(0.1 * z[15 + r] - 0.005))
        for t in range(5):
            orders.append(size[r] * shape[t] * np.exp(-2.0 * (p_s / 14.0 - 1.0)
                                                      - 0.3 * (n_x - 1.0))
                          * lift * back * market * (1.0 + surge[r] * ramp[t] * kick)
                          * np.exp(0.15 * z[5 * r + t] - 0.01125))
    cost = 3.0 * (E1 + E2) + 5 * 1.0 * K + 0.8 * S + 5 * 0.5 * sum(D) + sum(A)
    Q, V = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
    stock = shipped = lost = 0.0
    for t in range(5):
        if t == 0:
            stock += E1 * y1
        if t == 2:
            stock += E2 * y2
        want = []
        for r in range(3):
            due = pre[r] * (0.5 if t < 2 else 0.0)
            Q[r] += due + orders[5 * r + t]
            V[r] += p_b * due + p_s * orders[5 * r + t]
            want.append(min(Q[r], D[r]))
        make = min(K, max(sum(want) - stock, 0.0))
        stock += make
        cost += 7.0 * (1.0 + 2.0 * kick) * make
        fill = min(1.0, stock / sum(want)) if sum(want) > 0 else 0.0
        for r in range(3):
            ship = want[r] * fill
            if ship > 0:
                cost -= V[r] * ship / Q[r]
                V[r] -= V[r] * ship / Q[r]
            Q[r] -= ship
            stock -= ship
            shipped += ship
            if t < 4:
                lost += 0.3 * Q[r]
                Q[r], V[r] = 0.7 * Q[r], 0.7 * V[r]
            else:
                lost += Q[r]
        if t < 4:
            held = min(stock, S)
            cost += 0.3 * held + 2.0 * (stock - held)
            cost += 0.5 * 0.15 * stock
            stock = 0.85 * stock
    cost += 25.0 * lost + 0.5 * stock + 9.0 * min(B, u * shipped)
    return orders, pre, [market, egg, y1, y2, u, kick], cost


def test_fluvaccine_agrees_with_a_loop_over_the_months_and_regions_of_one_season():
    """One month and one region at a time. rtol 1e-10: the same sums in another order; the
    cost is a difference of terms (the orders' value earned against the eggs, the reserves, the
    capacities and the penalties) at most some hundred times larger than itself on these rows
    (a season near break-even), so rounding stays near 1e-13."""
    h = FluVaccine()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 23] += 2.5  # severe seasons: orders surge, wave 2 collapses, the cell line dear
    z[12:16, :18] += 2.5  # crowds: every region's distribution full, orders give up
    z[16:20, :18] -= 3.0  # a quiet season: stock left over, held, written off
    z[20:24, 19:22] -= 3.0  # poor egg yields: the stock runs out, the cell line runs
    z[24:28, 22] += 3.0  # many doses unused: the allowance bought back in full
    z[28:30, 23] += 5.0  # an extreme season
    optimum = json.loads((HELDOUT / "optima.json").read_text())["fluvaccine"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[0.0, 60.0, 0.0, 20.0, 7.0, 0.0, 0.0, 12.0, 0.5, 0.0, 20.0, 1.0, 30.0])
    # the in-season orders, the pre-bookings, the season's six numbers, then the cost
    assert_rows_agree(h, z, decisions, fluvaccine_season_by_hand,
                      (slice(0, 15), slice(15, 18), slice(18, 24)))


def test_fluvaccine_prices_move_the_orders_and_the_severe_season_fills_the_tail():
    h = FluVaccine()
    x = h.x0.copy()
    pre, season = h.pre_mean(x), h.season_mean(x)
    # a cheaper pre-booking: more pre-bookings, fewer in-season orders (pulled forward)
    cheaper = x.copy()
    cheaper[3] -= 2.0
    assert np.all(h.pre_mean(cheaper) > pre) and np.all(h.season_mean(cheaper) < season)
    # a dearer in-season price: fewer in-season orders, more pre-bookings
    dearer = x.copy()
    dearer[4] += 2.0
    assert np.all(h.season_mean(dearer) < season) and np.all(h.pre_mean(dearer) > pre)
    # a region's campaign lifts its orders only, with diminishing returns; the allowance all
    louder, loudest, allowed = x.copy(), x.copy(), x.copy()
    louder[10] += 4.0
    loudest[10] += 8.0
    allowed[12] += 4.0
    gain = h.season_mean(louder) / season
    more = h.season_mean(loudest) / season
    assert np.all(gain[5:10] > 1.0) and np.allclose(gain[:5], 1.0) and np.allclose(gain[10:], 1.0)
    assert np.all(more[5:10] - gain[5:10] < gain[5:10] - 1.0)
    assert np.all(h.pre_mean(allowed) > pre) and np.all(h.season_mean(allowed) > season)
    # the severe season (z[23]) surges the orders of November to January, most in region 1,
    # collapses wave 2's yield, leaves fewer doses unused; the pre-bookings, the season's
    # demand and egg yield and wave 1 as they were
    z = np.zeros((2, h.dim_w))
    z[1, 23] = 3.0
    W = h.transform(x, z)
    rise = (W[1, :15] / W[0, :15]).reshape(3, 5)
    np.testing.assert_allclose(rise[:, :2], 1.0, rtol=1e-12)
    assert np.all(rise[:, 2:] > 1.0) and np.all(rise[0, 2:] > rise[1, 2:])
    assert W[1, 21] < W[0, 21] and W[1, 22] < W[0, 22]
    np.testing.assert_allclose(W[1, 15:21], W[0, 15:21], rtol=1e-12)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # the same orders and yields cost more with the shock's dear cell-based doses
    calm = W[1].copy()
    calm[23] = 0.0
    assert h.cost(W[1:], x)[0] > h.cost(calm[None], x)[0]
    # with no order at all nothing ships and wave 1's 45 million doses stay above the cold
    # store's 10 from September to December (45 * 0.85^3 > 10): the store saves the freezers'
    # premium (1.7 a dose a month) on 10 million doses for four months, at its fee of 8
    empty = W[:1].copy()
    empty[0, :18] = 0.0
    no_store = x.copy()
    no_store[5] = 0.0
    assert h.cost(empty, x)[0] > h.cost(W[:1], x)[0]
    np.testing.assert_allclose(h.cost(empty, no_store) - h.cost(empty, x), 4 * 17.0 - 8.0,
                               rtol=1e-9)
    # at x0 most of the costliest twentieth of the seasons are severe ones (one in twenty)
    z = np.random.default_rng(62).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 23] > 1.64).mean() > 0.5
