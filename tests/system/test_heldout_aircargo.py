"""The held-out air-cargo forwarder (``benchmarks/heldout/aircargo.py``, written after version 15
of the default) against a plain loop over one quarter, written from its docstring, and its
behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from aircargo import AirCargo  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402

STRIKE = 63  # the normal of the strike, the last of the row


def lognormal(sd, u):
    return math.exp(sd * u - 0.5 * sd * sd)


def aircargo_quarter_by_hand(h: AirCargo, z, x) -> tuple[list[float], ...]:
    """Each period's bookings on the two lanes, the spot market's price and tonnes on each, the
    fuel index, the share of the block space honoured, the customs' pace and the damage claims,
    the quarter's level, market level and oil price, the strike's excess, and the cost of one
    quarter, one period and one lane at a time."""
    z = [float(u) for u in z]
    r1, r2, B1a, B1b, B2a, B2b, Q1, Q2, Y, F, S, K, H, V = (float(v) for v in x)
    s = [[0.9, 0.95, 1.0, 1.1, 1.2, 1.3], [0.95, 1.0, 1.0, 1.05, 1.2, 1.3]]
    w = [0.2, 0.5, 0.8, 1.0, 1.0, 0.9]
    level = lognormal(0.08, z[60])
    mkt = lognormal(0.12, z[61])
    oil = lognormal(0.2, z[62])
    kick = max(z[63] - 1.64, 0.0)
    lift = 1.0 + 0.1 * (1.0 - math.exp(-K / 400.0))
    elastic = [1000.0 * math.exp(-6.0 * (r1 / 4.0 - 1.0)),
               800.0 * math.exp(-5.0 * (r2 / 4.8 - 1.0))]
    surge, p, a = [1.2, 0.8], [2.9, 3.6], [600.0, 450.0]
    D, spot_price, avail = [[], []], [[], []], [[], []]
    fuel, honour, clear, dmg = [], [], [], []
    for t in range(6):
        storm = w[t] * kick
        for j in range(2):
            D[j].append(elastic[j] * s[j][t] * lift * level * (1.0 + surge[j] * storm)
                        * lognormal(0.15, z[6 * j + t]))
            spot_price[j].append(p[j] * mkt * (1.0 + 0.8 * storm)
                                 * lognormal(0.1, z[12 + 6 * j + t]))
            avail[j].append(a[j] * lognormal(0.2, z[24 + 6 * j + t]) / (1.0 + storm))
        fuel.append(oil * (1.0 + 0.4 * storm) * lognormal(0.06, z[36 + t]))
        honour.append(math.exp(-0.04 * lognormal(0.5, z[42 + t])) / (1.0 + 0.3 * storm))
        clear.append(lognormal(0.08, z[48 + t]) / (1.0 + 0.6 * storm))
        dmg.append(0.03 * (1.0 + 4.0 * storm) * lognormal(0.5, z[54 + t]))

    cost = (2500.0 + 2.0 * 3 * (B1a + B1b) + 2.5 * 3 * (B2a + B2b) + 0.5 * 6 * (Q1 + Q2)
            + 0.6 * Y + 7.0 * 6 * F + 12.0 * 6 * S + K + 0.15 * V)
    rate, Q, fly, fuel_charge = [r1, r2], [Q1, Q2], [2.3, 2.9], [0.4, 0.5]
    wait, g, claims = [0.0, 0.0], 1.0, 0.0
    for t in range(6):
        storm = w[t] * kick
        B = [B1a, B2a] if t < 3 else [B1b, B2b]
        new = [g * D[j][t] for j in range(2)]
        trucked = min(0.4 * (new[0] + new[1]), 30.0 * F / (1.0 + 0.4 * storm))
        cost += 0.4 * (1.0 + storm) * (0.4 * (new[0] + new[1]) - trucked)
        work = [wait[j] + new[j] for j in range(2)]
        cleared = min(1.0, 100.0 * S * clear[t] / (work[0] + work[1]))
        gone = 0.0
        for j in range(2):
            ready = work[j] * cleared
            block = min(ready, B[j] * honour[t])
            charter = min(ready - block, Q[j])
            spot = min(ready - block - charter, avail[j][t])
            flown = block + charter + spot
            cost -= rate[j] * (1.0 + 0.3 * storm) * flown
            cost += fly[j] * charter + spot_price[j][t] * spot
            cost += fuel[t] * fuel_charge[j] * (block + charter)
            left = work[j] - flown
            cancelled = 0.25 * left
            late = 0.4 * left + 0.8 * cancelled
            damage = dmg[t] * flown
            cost += late + damage
            claims += late + damage
            gone += cancelled
            wait[j] = left - cancelled
        g *= math.exp(-0.5 * gone / 6000.0)
        cost += H * (1.03 - fuel[t])
        space = 0.25 * (new[0] + new[1]) + wait[0] + wait[1]
        cost += 0.3 * max(space - Y, 0.0)
    cost += 1.2 * (wait[0] + wait[1]) + 25000.0 * (1.0 - g)
    cost -= min(V, 0.5 * max(claims - 500.0, 0.0))
    return (D[0], D[1], spot_price[0], spot_price[1], avail[0], avail[1], fuel, honour, clear,
            dmg, [level], [mkt], [oil], [kick], cost)


def test_aircargo_agrees_with_a_loop_over_the_periods_and_lanes_of_one_quarter():
    """One period and one lane at a time. rtol 1e-12 on W: the same products in another order.
    rtol 1e-10 on the cost: the same sums in another order; the cost is a difference of terms
    (the rates against the block space, the charter, the spot market and the claims) at most a
    few hundred times larger than itself on these rows (a doubled decision on a busy quarter
    nets some -260 out of terms near 96,000), so rounding stays below 1e-13."""
    h = AirCargo()
    z = np.random.default_rng(151).standard_normal((40, h.dim_w))
    z[:12, STRIKE] = 1.7 + 2.0 * np.random.default_rng(152).random(12)  # strikes, up to 2 sd out
    z[12:, STRIKE] = np.minimum(z[12:, STRIKE], 1.5)  # calm quarters: no kick at all
    z[12:16, :12] += 2.0  # a peak booked beyond the block space: charter, spot, cargo left
    z[16:20, 48:54] -= 3.0  # slow customs: the brokers bind and the backlog waits in sheds
    z[20:24, 42:48] += 2.5  # the airlines offload: the block space honoured short
    z[24:28, 60] -= 2.5  # a quiet quarter: block space paid for and flown empty
    z[28:32, 62] += 2.5  # dear oil: the surcharge dear, the hedge pays
    z[32:36, 54:60] += 2.5  # heavy damage claims: the cover pays past its retention
    z[:4, :12] += 1.5  # a strike on a busy quarter: the goodwill lost
    assert (z[:, STRIKE] > 1.64).sum() == 12
    scaled = [h.x0.copy(), h.x0.copy()]
    scaled[0][2:] *= 0.5
    scaled[1][2:] *= 2.0
    decisions = [h.x0, *scaled,
                 np.r_[2.0, 2.4, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0],
                 np.r_[8.0, 9.6, 1500.0, 1800.0, 1200.0, 1500.0, 400.0, 400.0, 1500.0, 120.0,
                       80.0, 2000.0, 1500.0, 3000.0]]
    rng = np.random.default_rng(153)
    low, high = np.r_[2.0, 2.4, [0.0] * 12], 3.0 * h.x0
    high[:2] = [8.0, 9.6]
    decisions.append(low + (high - low) * rng.random(h.dim_x))
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "aircargo" in optima:
        decisions.append(np.asarray(optima["aircargo"]["x_star"]))
    assert_rows_agree(h, z, decisions, aircargo_quarter_by_hand,
                      tuple(slice(6 * i, 6 * i + 6) for i in range(10))
                      + tuple(slice(i, i + 1) for i in range(60, 64)))


def test_aircargo_rates_move_the_bookings_and_the_strike_fills_the_tail():
    h = AirCargo()
    x = h.x0.copy()
    z = np.random.default_rng(154).standard_normal((5, h.dim_w))
    W = h.transform(x, z)
    # a dearer Asia-Europe rate: that lane's bookings fall by its elasticity, the rest stay
    dearer = x.copy()
    dearer[0] += 0.4
    Wd = h.transform(dearer, z)
    np.testing.assert_allclose(Wd[:, :6] / W[:, :6], math.exp(-6.0 * 0.4 / 4.0), rtol=1e-12)
    np.testing.assert_allclose(Wd[:, 6:], W[:, 6:], rtol=1e-12)
    # a dearer Asia-North America rate: only the second lane loses bookings
    dearer = x.copy()
    dearer[1] += 0.48
    Wd = h.transform(dearer, z)
    np.testing.assert_allclose(Wd[:, 6:12] / W[:, 6:12], math.exp(-5.0 * 0.48 / 4.8),
                               rtol=1e-12)
    np.testing.assert_allclose(Wd[:, :6], W[:, :6], rtol=1e-12)
    np.testing.assert_allclose(Wd[:, 12:], W[:, 12:], rtol=1e-12)
    # the sales budget lifts both lanes alike, with diminishing returns, at most by a tenth
    lifts = [1.0 + 0.1 * (1.0 - math.exp(-k / 400.0)) for k in (0.0, 400.0, 800.0, 1e6)]
    assert lifts[1] - lifts[0] > lifts[2] - lifts[1] > 0.0 and lifts[3] < 1.1 + 1e-12
    louder = x.copy()
    louder[11] = 800.0
    np.testing.assert_allclose(h.transform(louder, z)[:, :12] / W[:, :12],
                               lifts[2] / (1.0 + 0.1 * (1.0 - math.exp(-x[11] / 400.0))),
                               rtol=1e-12)
    silent = x.copy()
    silent[11] = 0.0
    assert np.all(h.transform(silent, z)[:, :12] < W[:, :12])
    # a strike (z[63] three sd out, kick 1.36) surges the bookings by 1 + 1.2 w_t kick and
    # 1 + 0.8 w_t kick, cuts the spot tonnes, the block space honoured and the customs' pace,
    # and leaves the quarter's level, market and oil alone
    z = np.zeros((2, h.dim_w))
    z[1, STRIKE] = 3.0
    W = h.transform(x, z)
    storm = np.array([0.2, 0.5, 0.8, 1.0, 1.0, 0.9]) * (3.0 - 1.64)
    np.testing.assert_allclose(W[1, :6] / W[0, :6], 1.0 + 1.2 * storm, rtol=1e-12)
    np.testing.assert_allclose(W[1, 6:12] / W[0, 6:12], 1.0 + 0.8 * storm, rtol=1e-12)
    np.testing.assert_allclose(W[1, 24:36] / W[0, 24:36], np.tile(1.0 / (1.0 + storm), 2),
                               rtol=1e-12)
    np.testing.assert_allclose(W[1, 42:48] / W[0, 42:48], 1.0 / (1.0 + 0.3 * storm),
                               rtol=1e-12)
    np.testing.assert_allclose(W[1, 48:54] / W[0, 48:54], 1.0 / (1.0 + 0.6 * storm),
                               rtol=1e-12)
    np.testing.assert_allclose(W[1, 60:63], W[0, 60:63], rtol=1e-12)
    assert W[0, STRIKE] == 0.0 and math.isclose(W[1, STRIKE], 1.36, rel_tol=1e-12)
    # the strikes (one quarter in twenty, a kick only above 1.64) fill the costliest tail far
    # beyond their share, but not all of the costliest twentieth: a mild strike pays (the
    # surge and the surcharge outrun the dearer space), so the quiet quarters, block space
    # flown empty, share that twentieth; from a kick of 1 on the strikes own the tail
    z = np.random.default_rng(155).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    kick = np.maximum(z[:, STRIKE] - 1.64, 0.0)
    struck = kick > 0.0
    assert abs(struck.mean() - 0.05) < 0.005
    top = c >= np.quantile(c, 0.95)
    assert struck[top].mean() > 2 * 0.05
    assert top[kick > 1.0].mean() > 0.9
    assert struck[c >= np.quantile(c, 0.995)].mean() > 0.8
    assert c[kick > 1.0].mean() > c[~struck].mean() + 10_000.0
    mild = struck & (kick < 0.5)
    assert c[mild].mean() < c[~struck].mean()
