"""The held-out freight rail operator (``benchmarks/heldout/rail.py``, written after version 14
of the default) against a plain loop over one quarter, written from its docstring, and its
behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from rail import Rail  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def lognormal(sd, u):
    return np.exp(sd * u - 0.5 * sd * sd)


def rail_quarter_by_hand(h: Rail, z, x) -> tuple[list[float], ...]:
    """Each period's demand on the two corridors, the crews' availability, the wagons' turns,
    the breakdown hazard and the spot price of fuel, the quarter's level, its oil price, the
    flood's excess, and the cost of one quarter, one period at a time."""
    r1, r2, L, S, G, C1, C2, Y, M, N, K, H, V = x
    s1 = [0.8, 0.9, 1.0, 1.2, 1.3, 1.1]
    s2 = [1.0, 1.0, 1.05, 1.1, 1.15, 1.0]
    w = [0.2, 0.5, 0.8, 1.0, 1.0, 0.7]
    level = lognormal(0.08, z[36])
    oil = lognormal(0.2, z[37])
    kick = max(z[38] - 1.64, 0.0)
    lift = 1.0 + 0.08 * (1.0 - np.exp(-K / 250.0))
    tk = np.exp(-N / 100.0)
    bulk, box, crew, turn, hazard, spot = [], [], [], [], [], []
    for t in range(6):
        storm = w[t] * kick
        bulk.append(30.0 * s1[t] * np.exp(-2.0 * (r1 / 220.0 - 1.0)) * lift * level
                    * (1.0 + 1.5 * storm) * lognormal(0.12, z[t]))
        box.append(40.0 * s2[t] * np.exp(-2.5 * (r2 / 170.0 - 1.0)) * lift * level
                   * lognormal(0.12, z[6 + t]))
        crew.append(lognormal(0.08, z[12 + t]) / (1.0 + 0.3 * storm))
        turn.append(lognormal(0.1, z[18 + t]))
        hazard.append(0.12 * (1.0 + storm) * lognormal(0.3, z[24 + t]))
        spot.append(oil * (1.0 + 0.4 * storm) * lognormal(0.08, z[30 + t]))
    cost = (10000.0 + 120.0 * L + 60.0 * S + 200.0 * G + 15.0 * 3 * C1 + 15.0 * 3 * C2
            + 50.0 * Y + 60.0 * M + N + K + 0.2 * V)
    repairs = 2000.0 * kick
    cost += repairs
    claims = repairs
    waiting = [0.0, 0.0]
    broken, goodwill = 0.0, 1.0
    for t in range(6):
        storm = w[t] * kick
        crews = C1 if t < 3 else C2
        slow = 1.0 + 0.05 * tk + 1.2 * storm * (0.7 + 0.3 * tk)
        work = [waiting[0] + goodwill * bulk[t], waiting[1] + goodwill * box[t]]
        load = [work[0], min(work[1], Y)]  # the terminal lifts at most Y
        capacity = min(1.5 * min(L, L + S - broken), 2.0 * crews * crew[t],
                       3.5 * G * turn[t]) / slow
        moved = [load[j] * min(1.0, capacity / (load[0] + load[1])) for j in range(2)]
        left = [work[j] - moved[j] for j in range(2)]
        cost += 20.0 * sum(left)
        claims += 20.0 * sum(left)
        cost -= r1 * moved[0] + r2 * moved[1]
        cost += 25.0 * sum(moved)
        cost += spot[t] * slow * (25.0 * moved[0] + 18.0 * moved[1])
        cost += H * (1.04 - spot[t])
        gone = 0.25 * sum(left)
        waiting = [0.75 * left[0], 0.75 * left[1]]
        goodwill *= np.exp(-0.5 * gone / 70.0)
        broken -= min(broken, M)
        broken += sum(moved) * slow / 1.5 * (1.0 - np.exp(-hazard[t]))
    cost += 40.0 * sum(waiting) + 30.0 * broken + 20000.0 * (1.0 - goodwill)
    cost -= min(V, 0.5 * max(claims - 500.0, 0.0))
    return bulk, box, crew, turn, hazard, spot, [level], [oil], [kick], cost


def test_rail_agrees_with_a_loop_over_the_periods_of_one_quarter():
    """One period at a time. rtol 1e-10: the same sums in another order; the cost is a
    difference of terms (the rates against the fleet, the fuel and the losses) a few times
    larger than itself at worst on these rows, so rounding stays near 1e-13."""
    h = Rail()
    z = np.random.default_rng(131).standard_normal((40, h.dim_w))
    z[:12, 38] += 3.0  # floods: the line slowed, a backlog, goodwill lost, claims
    z[12:16, :12] += 2.0  # a busy quarter: the terminal and the line short
    z[16:20, 12:24] -= 2.5  # crews away, wagons slow: the crews and the wagons bind
    z[20:24, 24:30] += 3.0  # many breakdowns: the spares and the mechanics short
    z[24:28, 36] -= 2.5  # a quiet quarter: capacity idle
    z[28:32, 37] += 2.5  # dear oil: the hedge pays
    decisions = [h.x0, 1.4 * h.x0,
                 np.r_[110.0, 85.0, 10.0, 0.0, 5.0, 8.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                 np.r_[440.0, 340.0, 160.0, 18.0, 75.0, 140.0, 150.0, 140.0, 24.0, 600.0,
                       900.0, 2400.0, 4500.0],
                 np.r_[230.0, 168.0, 64.0, 9.0, 29.0, 53.0, 56.0, 55.0, 10.0, 350.0, 600.0,
                       1300.0, 2000.0]]
    rng = np.random.default_rng(132)
    low, high = np.array([110.0, 85.0] + [0.0] * 11), 3.0 * h.x0
    high[:2] = [440.0, 340.0]
    decisions.append(low + (high - low) * rng.random(h.dim_x))
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "rail" in optima:
        decisions.append(np.asarray(optima["rail"]["x_star"]))
    assert_rows_agree(h, z, decisions, rail_quarter_by_hand,
                      (slice(0, 6), slice(6, 12), slice(12, 18), slice(18, 24), slice(24, 30),
                       slice(30, 36), slice(36, 37), slice(37, 38), slice(38, 39)))


def test_rail_rates_move_the_demand_and_the_floods_fill_the_tail():
    h = Rail()
    x = h.x0.copy()
    z = np.random.default_rng(133).standard_normal((5, h.dim_w))
    W = h.transform(x, z)
    # a dearer bulk rate: fewer bulk trains wanted, the rest as it was
    dearer = x.copy()
    dearer[0] += 30.0
    Wd = h.transform(dearer, z)
    assert np.all(Wd[:, :6] < W[:, :6])
    np.testing.assert_allclose(Wd[:, 6:], W[:, 6:], rtol=1e-12)
    # a dearer intermodal rate: fewer containers
    boxed = x.copy()
    boxed[1] += 30.0
    assert np.all(h.transform(boxed, z)[:, 6:12] < W[:, 6:12])
    # the sales budget lifts both corridors with diminishing returns
    lifts = [h.lift(np.r_[x[:10], k, x[11:]]) for k in (0.0, 250.0, 500.0)]
    assert lifts[0] == 1.0 and lifts[1] - lifts[0] > lifts[2] - lifts[1] > 0.0
    assert np.all(h.transform(np.r_[x[:10], 900.0, x[11:]], z)[:, :12] > W[:, :12])
    # track upkeep leaves fewer defects
    assert h.track(np.r_[x[:9], 400.0, x[10:]]) < h.track(x)
    # a flood (z[38]) lifts the bulk demand, most at the harvest's peak, strands crews,
    # breaks more locomotives, raises the spot price of fuel and costs the operator dear;
    # more locomotives and upkept track soften it
    z = np.zeros((2, h.dim_w))
    z[1, 38] = 3.0
    W = h.transform(x, z)
    assert np.all(W[1, :6] > W[0, :6]) and np.all(W[1, 12:18] < W[0, 12:18])
    assert np.all(W[1, 24:30] > W[0, 24:30]) and np.all(W[1, 30:36] > W[0, 30:36])
    np.testing.assert_allclose(W[1, 6:12], W[0, 6:12], rtol=1e-12)
    assert np.argmax(W[1, :6] / W[0, :6]) in (3, 4)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0] + 10_000.0
    stronger = x.copy()
    stronger[[2, 4, 5, 6]] *= 1.2
    assert h.cost(W[1:], stronger)[0] < h.cost(W[1:], x)[0] - 1000.0
    upkept = x.copy()
    upkept[9] = 400.0
    assert h.cost(W[1:], upkept)[0] < h.cost(W[1:], x)[0] - 500.0
    # the floods (one quarter in twenty) fill the costliest twentieth far beyond their share
    z = np.random.default_rng(134).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 38] > 1.64).mean() > 0.3
    # and the bulk rate trades its margin against the trains it loses: the quarter's mean
    # cost is not monotone in it
    means = [h.cost(h.transform(q, z[:4000]), q).mean()
             for q in (np.r_[rate, x[1:]] for rate in (150.0, 230.0, 350.0))]
    assert means[1] < means[0] and means[1] < means[2]
