"""The held-out winter road-maintenance service (``benchmarks/heldout/snow.py``, written after
version 13 of the default) against a plain loop over one winter, written from its docstring,
and its behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from snow import Snow  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def snow_winter_by_hand(h: Snow, z, x) -> tuple[list[float], ...]:
    """Each period's snowfall, salt needed, cars on the streets and breakdown hazard, the
    winter's level, the blizzards' excess, and the cost of one winter, one period at a time."""
    p, f, S, G, C1, C2, K, Q, B, E, M, D, F, V = x
    snowfall = [12.0, 20.0, 28.0, 32.0, 32.0, 28.0, 20.0, 12.0]
    icing = [0.8, 1.2, 1.6, 1.8, 1.8, 1.5, 1.1, 0.7]
    w = [0.3, 0.5, 0.8, 1.0, 1.0, 0.9, 0.7, 0.5]
    level = np.exp(0.15 * z[32] - 0.5 * 0.15**2)
    kick = max(z[33] - 1.64, 0.0)
    sold = 15.0 * np.exp(-1.2 * (p / 60.0 - 1.0))
    on_street = (40.0 - sold) * np.exp(-1.5 * (f / 100.0 - 1.0))
    traffic = 1.0 - 0.35 * (1.0 - np.exp(-S / 150.0))
    pre = (0.3 + 0.6 * (1.0 - np.exp(-F / 60.0))) * (1.0 - np.exp(-E / 6.0))
    snow, salt, cars, hazard = [], [], [], []
    for t in range(8):
        storm = w[t] * kick
        snow.append(snowfall[t] * level * (1.0 + 2.5 * storm)
                    * np.exp(0.35 * z[t] - 0.5 * 0.35**2))
        salt.append(icing[t] * level * (0.6 + 0.4 * traffic) * (1.0 - 0.35 * pre)
                    * (1.0 + 0.8 * storm) * np.exp(0.35 * z[8 + t] - 0.5 * 0.35**2))
        cars.append(on_street * np.exp(0.1 * z[16 + t] - 0.5 * 0.1**2))
        hazard.append(0.06 * (1.0 + storm) * np.exp(0.3 * z[24 + t] - 0.5 * 0.3**2))
    cost = (200.0 + S + 25.0 * G + 3.5 * 4 * C1 + 3.5 * 4 * C2 + 12.0 * K + 70.0 * Q
            + 12.0 * B + 25.0 * E + 32.0 * M + 4.0 * D + F + 0.08 * V + 10.0 * sold
            - p * sold)
    waiting, broken, tired, stock, dump, claims = 0.0, 0.0, 0.0, Q, 0.0, 0.0
    for t in range(8):
        storm = w[t] * kick
        drivers = C1 if t < 4 else C2
        if t == 4:
            tired = min(tired, C2)
        # the ploughs, slowed by the cars left on the streets
        pace = 1.0 / (1.0 + cars[t] / 150.0)
        work = waiting + snow[t] * (1.0 - 0.15 * pre)
        need = work / pace
        own = min(G - broken, drivers - tired, need)
        hired = min(K * np.exp(-0.5 * storm), need - own)
        left = (need - own - hired) * pace
        losses = (14.0 * traffic * (1.0 + 0.3 * storm) + 8.0) * left
        claims += losses
        cost += losses + 4.0 * left + 1.0 * own + 16.0 * hired + 15.0 * pre
        cost -= f * 0.03 * cars[t] * snow[t] / 20.0
        waiting = 0.7 * left
        # the salt: the stock, the spot market, icy roads
        from_stock = min(salt[t], stock)
        short = salt[t] - from_stock
        bought = min(short, 1.5 * np.exp(-0.5 * storm))
        icy = 250.0 * traffic * (short - bought)
        claims += icy
        cost += 130.0 * (1.0 + 0.6 * storm) * bought + icy
        stock -= from_stock
        if stock > B:
            stock -= 0.15 * (stock - B)
        # the snow dump and the far site
        dump = 0.9 * dump + 0.25 * (own + hired) * pace
        if dump > D:
            cost += 6.0 * (dump - D)
            dump = D
        # breakdowns and the mechanics, the drivers' fatigue
        broken += own * (1.0 - np.exp(-hazard[t]))
        broken -= min(broken, 2.0 * M)
        tired = 0.5 * tired + 0.5 * max(own - 0.6 * drivers, 0.0)
    cost += 6.0 * broken + 10.0 * waiting - 50.0 * min(stock, B) - 20.0 * max(stock - B, 0.0)
    cost -= min(V, 0.5 * max(claims - 1500.0, 0.0))
    return snow, salt, cars, hazard, [level], [kick], cost


def test_snow_agrees_with_a_loop_over_the_periods_of_one_winter():
    """One period at a time. rtol 1e-10: the same sums in another order; the cost is a
    difference of terms (the fees and fines against the fleet, the salt and the losses) a few
    times larger than itself at worst on these rows, so rounding stays near 1e-13."""
    h = Snow()
    z = np.random.default_rng(121).standard_normal((40, h.dim_w))
    z[:12, 33] += 3.0  # blizzards: the ploughs, the contractors and the salt short, claims
    z[12:16, :8] += 2.0  # a snowy winter: a backlog, the dump full
    z[16:20, 8:16] += 2.5  # much icing: the stock and the spot market exhausted
    z[20:24, 24:32] += 3.0  # many breakdowns: the mechanics short
    z[24:28, 32] -= 2.5  # a mild winter: salt left in and outside the barn
    decisions = [h.x0, 1.4 * h.x0,
                 np.r_[30.0, 50.0, 0.0, 10.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                       0.0],
                 np.r_[120.0, 200.0, 300.0, 120.0, 100.0, 130.0, 70.0, 40.0, 10.0, 14.0, 15.0,
                       140.0, 170.0, 900.0],
                 np.r_[80.0, 125.0, 150.0, 35.0, 40.0, 43.0, 60.0, 9.5, 8.5, 11.0, 2.0, 35.0,
                       140.0, 300.0]]
    rng = np.random.default_rng(122)
    low, high = np.array([30.0, 50.0] + [0.0] * 12), 3.0 * h.x0
    high[:2] = [120.0, 200.0]
    decisions.append(low + (high - low) * rng.random(h.dim_x))
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "snow" in optima:
        decisions.append(np.asarray(optima["snow"]["x_star"]))
    assert_rows_agree(h, z, decisions, snow_winter_by_hand,
                      (slice(0, 8), slice(8, 16), slice(16, 24), slice(24, 32), slice(32, 33),
                       slice(33, 34)))


def test_snow_fees_move_the_cars_and_the_blizzards_fill_the_tail():
    h = Snow()
    x = h.x0.copy()
    z = np.random.default_rng(123).standard_normal((5, h.dim_w))
    W = h.transform(x, z)
    # a dearer permit: fewer sold, more cars left on the streets; the rest as it was
    dearer = x.copy()
    dearer[0] += 20.0
    assert h.permits_sold(dearer) < h.permits_sold(x)
    Wd = h.transform(dearer, z)
    assert np.all(Wd[:, 16:24] > W[:, 16:24])
    np.testing.assert_allclose(Wd[:, :16], W[:, :16], rtol=1e-12)
    np.testing.assert_allclose(Wd[:, 24:], W[:, 24:], rtol=1e-12)
    # a dearer fine: fewer cars on the streets
    finer = x.copy()
    finer[1] += 40.0
    assert np.all(h.transform(finer, z)[:, 16:24] < W[:, 16:24])
    # the subsidy lowers the traffic with diminishing returns, and with it the salt needed
    tr = [h.traffic(np.r_[x[:2], s, x[3:]]) for s in (0.0, 150.0, 300.0)]
    assert tr[0] > tr[1] > tr[2] and tr[0] - tr[1] > tr[1] - tr[2]
    assert np.all(h.transform(np.r_[x[:2], 300.0, x[3:]], z)[:, 8:16] < W[:, 8:16])
    # forecasts and brine pre-treat more of the roads, with diminishing returns
    assert h.pretreated(np.r_[x[:9], 10.0, x[10:]]) > h.pretreated(x)
    assert h.pretreated(np.r_[x[:12], 120.0, x[13:]]) > h.pretreated(x)
    # a blizzard (z[33]) multiplies the snowfall and the icing, more in mid winter, breaks more
    # ploughs and costs the city dear; contractors held in reserve soften it
    z = np.zeros((2, h.dim_w))
    z[1, 33] = 3.0
    W = h.transform(x, z)
    assert np.all(W[1, :8] > W[0, :8]) and np.all(W[1, 8:16] > W[0, 8:16])
    assert np.all(W[1, 24:32] > W[0, 24:32])
    assert np.argmax(W[1, :8] / W[0, :8]) in (3, 4)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0] + 2000.0
    more_k = x.copy()
    more_k[6] += 30.0
    assert h.cost(W[1:], more_k)[0] < h.cost(W[1:], x)[0] - 300.0
    # the blizzards (one winter in twenty) fill the costliest twentieth far beyond their share
    z = np.random.default_rng(124).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 33] > 1.64).mean() > 0.4
    # and the fine earns less a car moved: the winter's mean cost is not monotone in it
    means = [h.cost(h.transform(q, z[:4000]), q).mean()
             for q in (np.r_[x[0], fine, x[2:]] for fine in (50.0, 125.0, 200.0))]
    assert means[1] < means[0] and means[1] < means[2]
