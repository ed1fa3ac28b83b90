"""The held-out grain cooperative (``benchmarks/heldout/harvest.py``, written after version 8 of
the default and the dairy cooperative and the airline) against a plain loop over one harvest,
written from its docstring, and its behaviour (the shared checks are those of
``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from harvest import Harvest  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def harvest_season_by_hand(h: Harvest, z, x) -> tuple[list[float], ...]:
    """The deliveries before the farmers lost, the wet shares and the spot prices of the six
    weeks, the season's crop, wetness and price level and the shock's excess, and the cost of
    one harvest, one week and one lot of grain at a time."""
    p, d, D, S, O, K1, K2, R, F, I = x[:10]
    N = x[10:16]
    hbase = [6.0, 11.0, 16.0, 14.0, 9.0, 5.0]
    wbase = [0.3, 0.35, 0.45, 0.55, 0.7, 0.85]
    ramp = [0.5, 0.7, 0.9, 1.1, 1.3, 1.5]
    crop = np.exp(0.2 * z[18] - 0.02)
    wetness = np.exp(0.3 * z[19] - 0.045)
    level = np.exp(0.08 * z[20] - 0.0032)
    kick = max(z[21] - 1.28, 0.0)
    come = [hbase[t] * np.exp(4.0 * (p / 200.0 - 1.0)) * crop * np.exp(-0.3 * ramp[t] * kick)
            * np.exp(0.15 * z[t] - 0.01125) for t in range(6)]
    share = [1.0 - np.exp(-wbase[t] * np.exp(-d / 8.0) * wetness * np.exp(ramp[t] * kick)
                          * np.exp(0.2 * z[6 + t] - 0.02)) for t in range(6)]
    spot = [300.0 * level * np.exp(0.3 * ramp[t] * kick) * np.exp(0.04 * z[12 + t] - 0.0008)
            for t in range(6)]
    cost = (60.0 * D + 12.0 * S + 6.0 * O + 6 * 18.0 * R + 3 * 9.0 * K1 + 3 * 9.0 * K2
            + 110.0 * I - 295.0 * F - 1000.0 * I * max(1.0 - crop * np.exp(-0.3 * kick), 0.0))
    queue = wet = stock = shipped = 0.0
    loyal = 1.0
    for t in range(6):
        line = queue + come[t] * loyal
        room = max(S + O - stock - wet, 0.0)
        take = min(line, 3.0 + 1.5 * N[t], room)
        wet_in = share[t] * take
        wet += wet_in
        dried = min(D, wet)
        wet -= dried
        stock += (take - wet_in) + 0.96 * dried
        # the rail's slot (less in a strike), then the trucks of the week's half
        by_rail = min(stock, R * np.exp(-1.5 * ramp[t] * kick))
        stock -= by_rail
        by_road = min(stock, 0.6 * (K1 if t < 3 else K2))
        stock -= by_road
        ship = by_rail + by_road
        to_forward = min(ship, max(F - shipped, 0.0))
        shipped += ship
        spoiled = 0.35 * wet
        wet -= spoiled
        left = line - take
        miss = left / line if line > 0 else 0.0
        loyal *= 1.0 - 0.5 * miss
        queue = 0.7 * left
        cost += (12.0 * N[t] + p * take + d * (take - wet_in) + 12.0 * dried + 10.0 * by_road
                 + 15.0 * max(stock + wet - S, 0.0) + 5.0 * queue + 15.0 * spoiled)
        cost -= spot[t] * (ship - to_forward)
    after = 0.92 * 300.0 * level
    cost += (spot[5] + 10.0) * max(F - shipped, 0.0)
    cost -= after * stock + 0.5 * after * wet
    return come, share, spot, [crop, wetness, level, kick], cost


def test_harvest_agrees_with_a_loop_over_the_weeks_of_one_harvest():
    """One week and one lot of grain at a time. rtol 1e-10: the same sums in another order; the
    cost is a difference of terms (the grain sold against the price paid, the capacities and
    the fees) at most some two thousand times larger than itself on these rows (a few seasons
    near break-even), so rounding stays near 1e-12."""
    h = Harvest()
    z = np.random.default_rng(71).standard_normal((40, h.dim_w))
    z[:12, 21] += 2.5  # wet harvests and rail strikes: the rail stops, grain spoils, the queue
    z[12:16, :6] += 3.0  # floods of grain: the intake, the dryer and the storage full
    z[16:20, 6:12] += 3.0  # wet weeks: nearly all the grain wet, the dryer short
    z[20:24, :6] -= 3.0  # little grain: the queue empty, the forward short
    optimum = json.loads((HELDOUT / "optima.json").read_text())["harvest"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[300.0, 0.0, 0.0, 0.0, 0.0, 20.0, 0.0, 0.0, 80.0, 0.0, 0.0, 8.0, 0.5,
                       20.0, 0.0, 3.0],
                 np.r_[110.0, 40.0, 10.0, 2.0, 30.0, 0.0, 30.0, 25.0, 0.0, 12.0, 5.0, 5.0, 5.0,
                       5.0, 5.0, 5.0])
    # the deliveries, the wet shares, the spot prices, the season's four numbers, then the cost
    assert_rows_agree(h, z, decisions, harvest_season_by_hand,
                      (slice(0, 6), slice(6, 12), slice(12, 18), slice(18, 22)))


def test_harvest_prices_move_the_grain_and_the_wet_harvest_fills_the_tail():
    h = Harvest()
    x = h.x0.copy()
    # a dearer price draws more grain each week; a larger dry premium, less wet grain
    dearer = x.copy()
    dearer[0] += 10.0
    assert np.all(h.delivery_mean(dearer) > h.delivery_mean(x))
    np.testing.assert_allclose(h.delivery_mean(dearer) / h.delivery_mean(x), np.exp(0.2),
                               rtol=1e-12)
    drier = x.copy()
    drier[1] += 4.0
    assert np.all(h.wet_rate(drier) < h.wet_rate(x))
    z = np.zeros((2, h.dim_w))
    z[1, 21] = 3.0
    W, Wd = h.transform(x, z), h.transform(drier, z)
    assert np.all(Wd[:, 6:12] < W[:, 6:12])
    np.testing.assert_allclose(Wd[:, :6], W[:, :6], rtol=1e-12)
    # the shock (z[21]) cuts the grain and raises the wet shares and the spot prices, more
    # each week, and leaves the season's crop, wetness and price level alone
    assert np.all(W[1, :6] < W[0, :6]) and np.all(W[1, 6:18] > W[0, 6:18])
    assert np.all(np.diff(W[1, :6] / W[0, :6]) < 0)
    assert np.all(np.diff(W[1, 12:18] / W[0, 12:18]) > 0)
    np.testing.assert_allclose(W[1, 18:21], W[0, 18:21], rtol=1e-12)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # the same season costs more with the rail strike (the kick slows the rail) than without
    calm = W[1].copy()
    calm[21] = 0.0
    assert h.cost(W[1:], x)[0] > h.cost(calm[None], x)[0] + 50.0
    # the insurance pays in a wet harvest: more cover makes it cheaper; in a usual season it
    # costs its premium less the payout on the crop's shortfall (crop exp(-0.02) here)
    covered = x.copy()
    covered[9] += 1.0
    assert h.cost(W[1:], covered)[0] < h.cost(W[1:], x)[0]
    np.testing.assert_allclose(h.cost(W[:1], covered) - h.cost(W[:1], x),
                               110.0 - 1000.0 * -np.expm1(-0.02), rtol=1e-9)
    # without a dryer the wet grain spoils, without night crews the queue loses the farmers:
    # either season costs more than at x0
    for i in (2, slice(10, 16)):
        none = x.copy()
        none[i] = 0.0
        assert h.cost(W[:1], none)[0] > h.cost(W[:1], x)[0]
    # at x0 most of the costliest twentieth of the seasons are seasons of the shock (one in
    # ten)
    z = np.random.default_rng(72).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 21] > 1.28).mean() > 0.5
