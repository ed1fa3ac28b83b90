"""The held-out bus operator (``benchmarks/heldout/transit.py``, written after version 8 of the
default and the dairy cooperative and the airline) against a plain loop over one weekday,
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

from test_heldout import assert_rows_agree  # noqa: E402
from transit import Transit  # noqa: E402


def logistic(u: float) -> float:
    return 1.0 / (1.0 + math.exp(-u))


def transit_day_by_hand(h: Transit, z, x) -> tuple[list[float], ...]:
    """The riders, the breakdown shares, the absent shares and the day's three numbers (the
    level of travel, the spot price of energy, the disruption's excess), and the cost of one
    weekday, one period and one line at a time."""
    f, P, O = x[0:3], x[3:6], x[6:9]
    S, D, C, M, H, R = x[9], x[10], x[11], x[12], x[13], x[14]
    ref, el, base = [2.0, 2.5, 4.0], [0.8, 0.6, 1.0], [40.0, 60.0, 25.0]
    w = [[0.05, 0.06, 0.04], [0.25, 0.28, 0.36], [0.25, 0.20, 0.10],
         [0.25, 0.26, 0.36], [0.14, 0.14, 0.09], [0.06, 0.06, 0.05]]
    hours = [2.0, 3.0, 5.0, 4.0, 3.0, 3.0]
    peak = [False, True, False, True, False, False]
    speed = [1.0, 0.8, 0.95, 0.8, 0.95, 1.0]
    rate = [0.2, 0.16, 0.09]
    level = math.exp(0.1 * z[42] - 0.005)
    kick = max(z[44] - 1.64, 0.0)
    price = math.exp(0.2 * z[43] - 0.02) * math.exp(0.6 * kick)
    riders, broken_share, away_share = [], [], []
    for t in range(6):
        away_share.append(logistic(math.log(0.04 / 0.96) + 0.3 * z[36 + t] + 1.5 * kick))
        for j in range(3):
            rel = f[j] / ref[j] - 1.0
            others = logistic(math.log(0.15 / 0.85) + 4.0 * rel)
            lift = 1.0 if peak[t] else 1.0 + 0.4 * (1.0 - math.exp(-M / 8.0))
            mean = base[j] * w[t][j] * math.exp(-el[j] * rel) * (1.0 - others) / 0.85 * lift
            riders.append(mean * level * math.exp(0.25 * kick)
                          * math.exp(0.2 * z[3 * t + j] - 0.02))
            broken_share.append(logistic(math.log(0.03 / 0.97) + 0.4 * z[18 + 3 * t + j]
                                         + 2.0 * kick))
    cost = (0.09 * sum(7.0 * P[j] + 13.0 * O[j] for j in range(3)) + 0.5 * S + 0.3 * D
            + 0.8 * C + M + 2 * 1.0 * R + 40.0 + 4.0 * 1.05 * H)
    fleet = [max(P[j], O[j]) for j in range(3)]
    broken = [0.0, 0.0, 0.0]
    queue = [0.0, 0.0, 0.0]
    bus_hours = 0.0
    for t in range(6):
        h = hours[t]
        n = P if peak[t] else O
        need = []
        for j in range(3):
            broken[j] += broken_share[3 * t + j] * n[j]
            need.append(max(broken[j] - (fleet[j] - n[j]), 0.0))
        spare_share = min(1.0, S / sum(need)) if sum(need) > 0 else 1.0
        spare = [need[j] * spare_share for j in range(3)]
        cost += 2.0 * sum(need[j] - spare[j] for j in range(3))
        run = [n[j] - need[j] + spare[j] for j in range(3)]
        missing = [max(run[j] - (1.0 - away_share[t]) * n[j], 0.0) for j in range(3)]
        relief_share = min(1.0, D / sum(missing)) if sum(missing) > 0 else 1.0
        left = []
        for j in range(3):
            bus = run[j] - missing[j] * (1.0 - relief_share)
            cap = bus * rate[j] * h * speed[t] * math.exp(-0.7 * kick)
            want = riders[3 * t + j] + queue[j]
            carried = min(want, cap)
            left.append(want - carried)
            bus_hours += bus * h
            cost += (0.03 * h * spare[j] - (f[j] + 1.0) * carried
                     + 1.5 * max(carried - 0.8 * cap, 0.0))
        coach_room = R * math.exp(-0.7 * kick) if peak[t] else 0.0
        coach_share = min(1.0, coach_room / sum(left)) if sum(left) > 0 else 1.0
        if not peak[t]:
            coach_share = 0.0
        for j in range(3):
            coach = left[j] * coach_share
            still = left[j] - coach
            gone = still if t == 5 else 0.35 * still
            queue[j] = still - gone
            cost += (2.0 - f[j] - 1.0) * coach + 2.0 * queue[j] + 6.0 * gone
        in_shop = sum(broken)
        fixed = min(1.0, 0.5 * h * C / in_shop) if in_shop > 0 else 1.0
        broken = [b * (1.0 - fixed) for b in broken]
    use = bus_hours * (1.0 + 0.3 * kick) / 100.0
    cost += 4.0 * price * max(use - H, 0.0) - 4.0 * 0.85 * price * max(H - use, 0.0)
    return riders, broken_share, away_share, [level, price, kick], cost


def test_transit_agrees_with_a_loop_over_the_periods_and_lines_of_one_day():
    """One period and one line at a time. rtol 1e-10: the same sums in another order; the cost
    is a difference of terms (the fares and the city's payment earned against the buses, the
    energy, the overhead and the staff) at most a few hundred times larger than itself on these
    rows, so rounding stays near 1e-13."""
    h = Transit()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 44] += 2.5  # snowstorms: buses broken and slow, drivers away, dear energy
    z[12:16, 18:36] += 4.0  # breakdowns by the dozen: the workshop and the spares overrun
    z[16:20, :18] += 2.0  # crowds: full buses, queues carried over, the coaches full
    z[20:24, :18] -= 4.0  # empty stops: no queue, nobody crowded
    optimum = json.loads((HELDOUT / "optima.json").read_text())["transit"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[1.0, 5.0, 2.0, 0.0, 80.0, 10.0, 40.0, 0.0, 10.0, 0.0, 0.0, 0.0, 30.0,
                       40.0, 0.0],
                 np.r_[4.0, 1.25, 8.0, 10.0, 20.0, 30.0, 10.0, 20.0, 40.0, 60.0, 50.0, 20.0,
                       0.0, 0.0, 30.0])
    # the riders, the breakdown shares, the absent shares, the day's three numbers, the cost
    assert_rows_agree(h, z, decisions, transit_day_by_hand,
                      (slice(0, 18), slice(18, 36), slice(36, 42), slice(42, 45)))


def test_transit_fares_move_the_riders_and_the_storm_fills_the_tail():
    h = Transit()
    x = h.x0.copy()
    base = h.riders_mean(x)
    # a dearer fare on a line: fewer riders on it in every period, the others as they were
    for j in range(3):
        dearer = x.copy()
        dearer[j] *= 1.1
        moved = h.riders_mean(dearer)
        assert np.all(moved[:, j] < base[:, j])
        np.testing.assert_allclose(np.delete(moved, j, axis=1), np.delete(base, j, axis=1),
                                   rtol=1e-12)
    # more marketing: more riders off-peak, the peaks as they were
    louder = x.copy()
    louder[12] += 5.0
    moved = h.riders_mean(louder)
    assert np.all(moved[~h.peak] > base[~h.peak])
    np.testing.assert_allclose(moved[h.peak], base[h.peak], rtol=1e-12)
    # a storm (z[44]) brings more riders, more breakdowns, more drivers away and a dearer
    # spot price, and leaves the day's level alone
    z = np.zeros((2, h.dim_w))
    z[1, 44] = 3.0
    W = h.transform(x, z)
    assert np.all(W[1, :42] > W[0, :42]) and W[1, 43] > W[0, 43]
    assert W[1, 42] == W[0, 42] and W[0, 44] == 0.0 and W[1, 44] > 0.0
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # the same riders and shares cost more with the storm's slow roads and dear energy
    calm = W[1].copy()
    calm[44] = 0.0
    assert h.cost(W[1:], x)[0] > h.cost(calm[None], x)[0]
    # with no broken bus the spares stand idle: more of them cost only their fee
    z = np.random.default_rng(62).standard_normal((200, h.dim_w))
    W = h.transform(x, z)
    W[:, 18:36] = 0.0
    more = x.copy()
    more[9] += 5.0
    np.testing.assert_allclose(h.cost(W, more) - h.cost(W, x), 2.5, rtol=1e-9)
    # at x0 most of the costliest twentieth of the days are days of a storm (one in twenty)
    z = np.random.default_rng(63).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 44] > 1.64).mean() > 0.5
