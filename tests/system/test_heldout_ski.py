"""The held-out ski resort (``benchmarks/heldout/ski.py``, written after version 7 of the
default, the emergency medical service and the water utility) against a plain loop over one
season, written from its docstring, and its behaviour (the shared checks are those of
``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from ski import Ski  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def ski_season_by_hand(h: Ski, z, x) -> tuple[list[float], ...]:
    """The potential day visits, the pass holders' visits, the snowfalls and the melts of the
    eight periods, the passes sold, the season's snowiness and warmth and the drought's excess,
    and the cost of one season, one period and one kind of visitor at a time."""
    p_d, p_s, G, D, R, B, S, L = x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7:15]
    dbase = [22.0, 40.0, 28.0, 30.0, 38.0, 34.0, 26.0, 16.0]
    pvis = [0.8, 1.3, 1.0, 1.0, 1.2, 1.1, 0.9, 0.6]
    sbase = [30.0, 35.0, 35.0, 32.0, 30.0, 24.0, 16.0, 10.0]
    mbase = [4.0, 4.0, 5.0, 6.0, 8.0, 12.0, 20.0, 30.0]
    cold = [1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.6, 0.4]
    ramp = [0.4 + t / 7 for t in range(8)]
    market = np.exp(0.1 * z[32] - 0.005)
    wet = np.exp(0.3 * z[33] - 0.045)
    warm = np.exp(0.25 * z[34] - 0.03125)
    kick = max(z[35] - 1.28, 0.0)
    usual = 9.0 * np.exp(-1.5 * (p_s / 650.0 - 1.0) + 0.5 * (p_d / 90.0 - 1.0))
    passes = usual * market
    day = [dbase[t] * np.exp(-1.1 * (p_d / 90.0 - 1.0) - 0.1 * (usual / 9.0 - 1.0)) * market
           * np.exp(-0.25 * ramp[t] * kick) * np.exp(0.15 * z[t] - 0.01125) for t in range(8)]
    held = [passes * pvis[t] * np.exp(-0.15 * ramp[t] * kick) * np.exp(0.15 * z[8 + t] - 0.01125)
            for t in range(8)]
    snow = [sbase[t] * wet * np.exp(-ramp[t] * kick) * np.exp(0.5 * z[16 + t] - 0.125)
            for t in range(8)]
    melt = [mbase[t] * warm * np.exp(0.6 * ramp[t] * kick) * np.exp(0.3 * z[24 + t] - 0.045)
            for t in range(8)]
    cost = 25.0 * G + 400.0 * R + 8 * (95.0 * B + 15.0 * S + 1700.0) - p_s * passes
    base, rep = 10.0, 1.0
    for t in range(8):
        pre = max(base + snow[t] - melt[t], 0.0)
        made = min(G * cold[t] / (warm * (1.0 + 0.6 * ramp[t] * kick)), max(D - pre, 0.0))
        base = pre + made
        q = 1.0 - np.exp(-base / 60.0)
        w, v = day[t] * q * rep, held[t] * q
        stay = min(0.4 * w, B)
        road = 0.6 * w + v
        drove = min(road, 18.0 + 1.5 * S)
        local = 0.6 * w * drove / road if road > 0 else 0.0
        come = v * drove / road if road > 0 else 0.0
        u = (stay + local + come) / (4.0 * L[t])
        s = (1.0 + u**6) ** (-1.0 / 6.0)
        skied, pass_skied = (stay + local) * s, come * s
        rented = min(0.35 * skied, 12.0 * R)
        missed = ((0.4 * w - stay) + (road - drove) + (stay + local + come) * (1.0 - s)
                  + 0.5 * (0.35 * skied - rented))
        miss = missed / (w + v) if w + v > 0 else 0.0
        rep = 0.6 * rep + 0.4 * np.exp(-4.0 * miss)
        cost += (120.0 * L[t] + 12.0 * (1.0 + 0.8 * ramp[t] * kick) * made
                 + 40.0 * (stay + local) * (1.0 - s) + 50.0 * come * (1.0 - s)
                 - p_d * skied - 25.0 * (skied + pass_skied) - 35.0 * rented - 140.0 * stay)
    return day, held, snow, melt, [passes, wet, warm, kick], cost


def test_ski_agrees_with_a_loop_over_the_periods_and_visitors_of_one_season():
    """One period and one kind of visitor at a time. rtol 1e-10: the same sums in another order;
    the cost is a difference of terms (the tickets, passes, beds and rentals earned against
    the overhead, the crews and the contracts) at most some two hundred times larger than
    itself on these rows (a season near break-even), so rounding stays near 1e-13."""
    h = Ski()
    z = np.random.default_rng(51).standard_normal((40, h.dim_w))
    z[:12, 35] += 2.5  # warm spells and droughts: the base melts away, the guns run dear
    z[12:16, 24:32] += 3.0  # thaws: the base gone in some periods, nobody comes
    z[16:20, :16] += 2.0  # crowds: the beds, the road and the lifts full, the name marred
    optimum = json.loads((HELDOUT / "optima.json").read_text())["ski"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[60.0, 1100.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 3.0, 12.0, 1.0, 6.0, 0.5,
                       20.0, 4.0])
    # the day visits, the pass holders' visits, the snowfalls, the melts, the season's four
    # numbers, then the cost
    assert_rows_agree(h, z, decisions, ski_season_by_hand,
                      (slice(0, 8), slice(8, 16), slice(16, 24), slice(24, 32), slice(32, 36)))


def test_ski_prices_move_the_visits_and_the_drought_fills_the_tail():
    h = Ski()
    x = h.x0.copy()
    # a dearer day ticket: fewer day visits each period, more passes sold
    dearer = x.copy()
    dearer[0] += 10.0
    assert np.all(h.day_mean(dearer) < h.day_mean(x)) and h.pass_mean(dearer) > h.pass_mean(x)
    # a dearer pass: fewer passes, so a few more day visits
    dearer = x.copy()
    dearer[1] += 100.0
    assert h.pass_mean(dearer) < h.pass_mean(x) and np.all(h.day_mean(dearer) > h.day_mean(x))
    # a drought (z[35]) cuts the snowfall and the visits and raises the melt, more each period,
    # and leaves the passes sold, the snowiness and the warmth alone
    z = np.zeros((2, h.dim_w))
    z[1, 35] = 3.0
    W = h.transform(x, z)
    assert np.all(W[1, :24] < W[0, :24]) and np.all(W[1, 24:32] > W[0, 24:32])
    assert np.all(np.diff(W[1, 16:24] / W[0, 16:24]) < 0)
    assert np.all(np.diff(W[1, 24:32] / W[0, 24:32]) > 0)
    np.testing.assert_allclose(W[1, 32:35], W[0, 32:35], rtol=1e-12)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # the same season costs more with the drought's weak, dear snowmaking than without it
    calm = W[1].copy()
    calm[35] = 0.0
    assert h.cost(W[1:], x)[0] > h.cost(calm[None], x)[0]
    # with no target base the guns make nothing: more capacity costs only its fee
    idle, bigger = x.copy(), x.copy()
    idle[3] = bigger[3] = 0.0
    bigger[2] += 4.0
    np.testing.assert_allclose(h.cost(W, bigger) - h.cost(W, idle), 100.0, rtol=1e-9)
    # at x0 most of the costliest twentieth of the seasons are seasons of a drought (one in ten)
    z = np.random.default_rng(52).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 35] > 1.28).mean() > 0.5
