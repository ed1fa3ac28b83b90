"""The held-out theme park (``benchmarks/heldout/themepark.py``, written after version 9 of the
default and the fashion retailer and the mine) against a plain loop over one season, written
from its docstring, and its behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from test_heldout import assert_rows_agree  # noqa: E402
from themepark import ThemePark  # noqa: E402


def park_season_by_hand(h: ThemePark, z, x) -> tuple[list[float], ...]:
    """The potential weekday and weekend day visitors and the pass holders' weekday visits of
    the eight weeks, the rides' breakdown shares, the passes sold and the shock's excess, and
    the cost of one season, one week, one kind of day and one shift at a time."""
    p_wd, p_we, f, O_m, O_a, K, F_wd, F_we, S, M, A_1, A_2, p_s, I = (x[i] for i in range(14))
    dwd = [12.0, 14.0, 16.0, 18.0, 18.0, 17.0, 15.0, 12.0]
    dwe = [25.0, 28.0, 30.0, 32.0, 32.0, 30.0, 28.0, 24.0]
    k = [0.3, 0.6, 1.0, 0.9, 0.7, 0.5, 0.3, 0.2]
    market = np.exp(0.1 * z[32] - 0.005)
    kick = max(z[33] - 1.28, 0.0)
    usual = 30.0 * np.exp(-(p_s / 300.0 - 1.0))
    passes = usual * market
    weekday, weekend, held, broke = [], [], [], []
    for t in range(8):
        A = A_1 if t < 4 else A_2
        lift = 1.0 + 0.3 * (1.0 - np.exp(-A / 0.1))
        weekday.append(dwd[t] * np.exp(-(p_wd / 60.0 - 1.0) - 0.02 * (usual / 30.0 - 1.0))
                       * lift * market * np.exp(-0.4 * k[t] * kick)
                       * np.exp(0.15 * z[t] - 0.01125))
        weekend.append(dwe[t] * np.exp(-(p_we / 75.0 - 1.0) - 0.02 * (usual / 30.0 - 1.0))
                       * lift * market * np.exp(-0.4 * k[t] * kick)
                       * np.exp(0.15 * z[8 + t] - 0.01125))
        held.append(passes * 0.04 * np.exp(-0.2 * k[t] * kick) * np.exp(0.2 * z[16 + t] - 0.02))
        broke.append(1.0 - np.exp(-0.08 * np.exp(1.5 * k[t] * kick)
                                  * np.exp(0.3 * z[24 + t] - 0.045)))
    phi = 0.2 * np.exp(-1.5 * (f / 30.0 - 1.0))
    rho = 1.0 - np.exp(-M / 3.0)
    cost = 0.15 * I - min(I, 8.0 * kick) - p_s / 1000.0 * passes
    cost += 8 * (0.025 * K + 7 * 200.0 * (O_m + O_a) / 1e6 + 150.0 * (5 * F_wd + 2 * F_we) / 1e6
                 + 7 * 2000.0 * S / 1e6 + 0.03 * M + 6.0) + 4 * A_1 + 4 * A_2
    b, rep = 0.0, 1.0
    for t in range(8):
        b = b * (1.0 - rho)
        b = b + (1.0 - b) * broke[t]
        up = np.exp(-0.8 * k[t] * kick)
        waits = 0.0
        for day, days, price, F, v in ((weekday, 5, p_wd, F_wd, held[t]),
                                       (weekend, 2, p_we, F_we, 2.5 * held[t])):
            w = day[t] * rep
            by_car = 0.8 * (w + v)
            drove = min(by_car, 15.0 + 1.5 * S) / by_car if by_car > 0 else 1.0
            V_d, V_p = w * (0.2 + 0.8 * drove), v * (0.2 + 0.8 * drove)
            V = V_d + V_p
            q = missed = 0.0
            for O in (O_m, O_a):
                cap = up * (1.0 - b) * (60.0 + K) * (1.0 - np.exp(-O / 200.0))
                fast = min(2.0 * phi * V, cap)
                missed += 2.0 * phi * V - fast
                q += 3.0 * V - 2.0 * phi * V  # the morning's queue, or what it left and more
                waits += days * q / (cap - fast + 1.0)
                q -= min(q, cap - fast)
            missed += q  # the rides still queued at closing
            u = V / (0.3 * F) if F > 0 else np.inf
            fed = (1.0 + u**4) ** -0.25 if np.isfinite(u) else 0.0
            cost += days * (15.0 * (w + v - V) + 2.0 * missed - price * V_d - f * phi * V
                            - fed * (15.0 * V_d + 8.0 * V_p)) / 1000.0
        rep = 0.6 * rep + 0.4 * np.exp(-0.6 * waits / 14.0 - 0.5 * k[t] * kick)
    return weekday, weekend, held, broke, [passes, kick], cost


def test_park_agrees_with_a_loop_over_the_weeks_days_and_shifts_of_one_season():
    """One week, one kind of day and one shift at a time. rtol 1e-10: the same sums in another
    order; the cost is a difference of terms (the tickets, passes, fast passes and food sold
    against the overhead, the staff and the ride) at most some four hundred times larger
    than itself on these rows (a season near break-even at x0), so rounding stays near
    1e-13."""
    h = ThemePark()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 33] += 2.5  # thunderstorm seasons and accidents: rides broken and closed, the name
    z[12:16, :16] += 2.5  # crowds: the car park full, the queues long, the name marred
    z[16:20, 24:32] += 3.0  # rides breaking down week after week
    z[20:24, :24] -= 3.0  # an empty park: short queues, little to eat
    optimum = json.loads((HELDOUT / "optima.json").read_text())["park"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[30.0, 150.0, 15.0, 0.0, 600.0, 0.0, 0.0, 400.0, 0.0, 0.0, 0.0, 2.0,
                       150.0, 50.0],
                 np.r_[120.0, 37.5, 90.0, 20.0, 5.0, 200.0, 20.0, 0.0, 30.0, 20.0, 1.0, 0.0,
                       600.0, 0.0])
    # the weekday and weekend visitors, the pass holders' visits, the breakdown shares, the
    # passes sold and the shock, then the cost
    assert_rows_agree(h, z, decisions, park_season_by_hand,
                      (slice(0, 8), slice(8, 16), slice(16, 24), slice(24, 32), slice(32, 34)))


def test_park_prices_move_the_visits_and_the_shock_fills_the_tail():
    h = ThemePark()
    x = h.x0.copy()
    wd, we = h.day_mean(x)
    # a dearer weekday ticket: fewer weekday visitors, the weekend's unchanged
    dearer = x.copy()
    dearer[0] += 10.0
    assert np.all(h.day_mean(dearer)[0] < wd)
    np.testing.assert_allclose(h.day_mean(dearer)[1], we, rtol=1e-12)
    # a dearer weekend ticket: fewer weekend visitors, the weekdays' unchanged
    dearer = x.copy()
    dearer[1] += 10.0
    assert np.all(h.day_mean(dearer)[1] < we)
    np.testing.assert_allclose(h.day_mean(dearer)[0], wd, rtol=1e-12)
    # a dearer pass: fewer passes sold, a few more day visitors
    dearer = x.copy()
    dearer[12] += 50.0
    assert h.pass_mean(dearer) < h.pass_mean(x) and np.all(h.day_mean(dearer)[0] > wd)
    # a dearer fast pass: fewer buyers
    assert h.fast_share(x[2] + 5.0) < h.fast_share(x[2])
    # marketing in weeks 1-4 lifts only their visitors, with diminishing returns
    louder, loudest = x.copy(), x.copy()
    louder[10] += 0.1
    loudest[10] += 0.2
    gain, more = h.day_mean(louder)[0] / wd, h.day_mean(loudest)[0] / wd
    assert np.all(gain[:4] > 1.0) and np.allclose(gain[4:], 1.0)
    assert np.all(more[:4] - gain[:4] < gain[:4] - 1.0)
    # the shock (z[33]) cuts the visits, most in mid-season, breaks more rides and leaves the
    # passes sold alone
    z = np.zeros((2, h.dim_w))
    z[1, 33] = 3.0
    W = h.transform(x, z)
    assert np.all(W[1, :24] < W[0, :24]) and np.all(W[1, 24:32] > W[0, 24:32])
    assert np.argmin(W[1, :8] / W[0, :8]) == 2
    np.testing.assert_allclose(W[1, 32], W[0, 32], rtol=1e-12)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # the same visitors and breakdowns cost more with the shock's closures and the dented name
    calm = W[1].copy()
    calm[33] = 0.0
    assert h.cost(W[1:], x)[0] > h.cost(calm[None], x)[0]
    # more maintenance crews, operators and a bigger new ride shorten the queues
    z = np.random.default_rng(62).standard_normal((2_000, h.dim_w))
    W = h.transform(x, z)
    for i, step in ((9, 2.0), (3, 100.0), (4, 100.0), (5, 20.0)):
        more = x.copy()
        more[i] += step
        fee = h.cost(W, more) - h.cost(W, x)
        assert fee.mean() < 0.0, i
    # at x0 most of the costliest twentieth of the seasons are seasons of the shock (one in ten)
    z = np.random.default_rng(63).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 33] > 1.28).mean() > 0.5
