"""The held-out wind farm (``benchmarks/heldout/windfarm.py``, written after version 12 of the
default) against a plain loop over one quarter, written from its docstring, and its behaviour
(the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from test_heldout import assert_rows_agree  # noqa: E402
from windfarm import WindFarm  # noqa: E402


def windfarm_quarter_by_hand(h: WindFarm, z, x) -> tuple[list[float], ...]:
    """The quarter's loads, wind, spot prices and failure factors, the appetite, the gas level,
    the roughness and the storm's excess, and the cost of one quarter, one period and one half
    of a period at a time."""
    p, f, H1, H2, C1, C2, J, Sg, Sb, B, M, I, R = x
    shape = [0.95, 1.0, 1.05, 1.05, 1.0, 0.95]
    season = [0.95, 1.0, 1.05, 1.05, 1.0, 0.95]
    prof = [0.2, 0.4, 0.6, 0.8, 1.0, 1.0]
    kick = max(z[27] - 1.64, 0.0)
    app = np.exp(0.08 * z[24] - 0.0032)
    gas = np.exp(0.1 * z[25] - 0.005)
    rough = np.exp(0.3 * z[26] - 0.045)
    base = 60.0 * np.exp(-3.0 * (p / 60.0 - 1.0)) * (f / 4.0) ** 0.2
    loads, winds, spots, fails = [], [], [], []
    for t in range(6):
        loads.append(base * shape[t] * app * (1.0 + 0.5 * prof[t] * kick)
                     * np.exp(0.06 * z[t] - 0.0018))
        winds.append(season[t] * np.exp(0.25 * z[6 + t] - 0.03125))
        spots.append(60.0 * gas * np.exp(0.15 * z[12 + t] - 0.01125)
                     * np.exp(-0.3 * (winds[t] - 1.0)) * (1.0 + 1.5 * prof[t] * kick))
        fails.append(np.exp(0.3 * z[18 + t] - 0.045) * (1.0 + 4.0 * prof[t] * kick))
    cost = 9000.0 + M + 0.12 * I + 400.0 * J + 300.0 * Sg + 120.0 * Sb + 45.0 * B
    cm = 1.0 - 0.4 * (1.0 - np.exp(-M / 150.0))
    m = g = 0.0
    gears, blades = Sg, Sb
    imbalance = 0.0
    for t in range(6):
        H, C = (H1, C1) if t < 3 else (H2, C2)
        access = np.exp(-0.25 * rough - 2.0 * prof[t] * kick)
        new = (40.0 - m - g) * (1.0 - np.exp(-0.035 * winds[t] * fails[t] * cm))
        m += 0.75 * new
        g += 0.25 * new
        fm = min(m, access * min(0.6 * H, 5.0 * C))
        fg = min(g, 1.5 * access * J)
        working = 40.0 - m - g + 0.5 * (fm + fg)
        m -= fm
        g -= fg
        cost += 25.0 * H + 60.0 * C + 5.0 * R + 10.0 * fm + 150.0 * fg
        for need, price in ((0.4 * fg, 300.0), (0.6 * fg, 120.0)):
            held = gears if price == 300.0 else blades
            used = min(held, need)
            cost += 2.0 * price * (need - used)
            if price == 300.0:
                gears -= used
            else:
                blades -= used
        E = 1.25 * winds[t] * working * np.exp(-1.5 * prof[t] * kick)
        half = loads[t] / 2.0
        prices = (0.8 * spots[t], 1.2 * spots[t])
        charge = 0.0
        excused, beyond = [], []
        for h_, out in enumerate((0.5 * E * 1.6, 0.5 * E * 0.4)):
            if h_ == 0:
                surplus = out - half
                if surplus > 0:
                    charge = min(B, surplus)
                    cost -= prices[0] * (surplus - charge)
                    short = 0.0
                else:
                    short = -surplus
            else:
                have = out + 0.75 * charge
                short = max(half - have, 0.0)
                cost -= prices[1] * max(have - half, 0.0)
            excused.append(min(short, f / 40.0 * half))
            beyond.append(short - excused[-1])
        called = min(R, sum(beyond))
        left = 1.0 - called / sum(beyond) if sum(beyond) > 0 else 1.0
        bought = 1.2 * left * (beyond[0] * prices[0] + beyond[1] * prices[1])
        imbalance += bought
        cost += 80.0 * called + bought - (p - f) * (loads[t] - sum(excused))
    cost += 200.0 * m + 600.0 * g - 0.5 * (300.0 * gears + 120.0 * blades)
    cost -= min(I, 0.7 * max(imbalance - 300.0, 0.0))
    return loads, winds, spots, fails, [app, gas, rough, kick], cost


def test_windfarm_agrees_with_a_loop_over_the_periods_and_halves_of_one_quarter():
    """One period and one half at a time. rtol 1e-10: the same sums in another order; the cost
    is a difference of terms (the overhead and the sales) of the same order as itself, so
    rounding stays near 1e-14."""
    h = WindFarm()
    z = np.random.default_rng(81).standard_normal((40, h.dim_w))
    z[:12, 27] += 3.0  # storms: vessels grounded, backlogs, dear imbalance, the insurance paid
    z[12:16, 18:24] += 2.5  # many failures: urgent spares, turbines still broken at the end
    z[16:20, 6:12] -= 2.0  # calm: shortfalls, the reserve called, the battery emptied
    z[20:24, 6:12] += 2.0  # gales: surpluses sold, the battery full
    decisions = [h.x0, 1.4 * h.x0,
                 np.r_[40.0, 8.0, 0.0, 3.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                 np.r_[110.0, 2.0, 20.0, 1.0, 3.0, 0.1, 2.0, 4.0, 0.0, 20.0, 500.0, 900.0,
                       20.0]]
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "windfarm" in optima:
        decisions.append(np.asarray(optima["windfarm"]["x_star"]))
    assert_rows_agree(h, z, decisions, windfarm_quarter_by_hand,
                      (slice(0, 6), slice(6, 12), slice(12, 18), slice(18, 24),
                       slice(24, 28)))


def test_windfarm_price_moves_the_contract_and_the_storm_fills_the_tail():
    h = WindFarm()
    x = h.x0.copy()
    # a dearer PPA price: the buyers contract less; a bigger discount: more
    dearer, looser = x.copy(), x.copy()
    dearer[0] += 10.0
    looser[1] += 2.0
    assert h.load_mean(dearer) < h.load_mean(x) < h.load_mean(looser)
    # the terms move the scenario's loads only
    z = np.random.default_rng(82).standard_normal((5, h.dim_w))
    W, Wd = h.transform(x, z), h.transform(dearer, z)
    assert np.all(Wd[:, :6] < W[:, :6])
    np.testing.assert_allclose(Wd[:, 6:], W[:, 6:], rtol=1e-12)
    # a storm (z[27]) raises the spot price and the failures, the late periods' the most
    z = np.zeros((2, h.dim_w))
    z[1, 27] = 3.0
    W = h.transform(x, z)
    rise = W[1, 12:24] / W[0, 12:24]
    assert np.all(rise > 1.0) and np.all(np.diff(rise[:6]) >= 0.0)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0] + 1000.0
    # monitoring cuts the failures with diminishing returns
    gains = [h.cost(W[:1], np.r_[x[:10], k, x[11:]])[0] - k for k in (0.0, 150.0, 300.0)]
    assert gains[0] > gains[1] > gains[2] and gains[0] - gains[1] > gains[1] - gains[2]
    # at x0 most of the costliest twentieth of the quarters are quarters of a storm
    z = np.random.default_rng(83).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 27] > 1.64).mean() > 0.5
