"""The held-out electricity retailer (``benchmarks/heldout/power.py``, written after version 9 of
the default and the fashion retailer and the mine) against a plain loop over one quarter,
written from its docstring, and its behaviour (the shared checks are those of
``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from power import Power  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def power_quarter_by_hand(h: Power, z, x) -> tuple[list[float], ...]:
    """The six periods' off-peak and peak spot prices, a customer's off-peak and peak use, the
    new customers and the complaints a thousand customers, the quarter's price level, warmth,
    bad debt's share and heatwave's excess, and the cost of one quarter, one period and one
    day of the battery at a time."""
    p, s, r, Hb, E, P, b, S, I, K = (x[i] for i in (0, 1, 2, 3, 7, 8, 9, 10, 13, 14))
    peak_hedge = [x[4], x[4], x[5], x[5], x[6], x[6]]
    marketing = [x[11]] * 3 + [x[12]] * 3
    k = [0.5, 0.8, 1.0, 1.0, 0.8, 0.5]
    level = np.exp(0.1 * z[36] - 0.005)
    temp = np.exp(0.08 * z[37] - 0.0032)
    kick = max(z[39] - 1.64, 0.0)
    bd = 0.02 * np.exp(kick) * np.exp(0.3 * z[38] - 0.045)
    pi = (p + s / 3.0) / (120.0 + 50.0 / 3.0)
    spot_off = [48.0 * level * np.exp(0.8 * k[t] * kick) * np.exp(0.12 * z[t] - 0.0072)
                for t in range(6)]
    spot_pk = [90.0 * level * np.exp(2.2 * k[t] * kick) * np.exp(0.25 * z[6 + t] - 0.03125)
               for t in range(6)]
    u_off = [0.22 * np.exp(-0.6 * (p / 120.0 - 1.0)) * temp * np.exp(0.1 * k[t] * kick)
             * np.exp(0.05 * z[12 + t] - 0.00125) for t in range(6)]
    u_pk = [0.11 * np.exp(-0.5 * (p / 120.0 - 1.0) - 0.6 * (s / 50.0 - 1.0)) * temp**2
            * np.exp(0.4 * k[t] * kick) * np.exp(0.08 * z[18 + t] - 0.0032) for t in range(6)]
    new = [30.0 * (1.0 - np.exp(-marketing[t] / 0.15)) * np.exp(-4.0 * (pi - 1.0))
           * np.exp(0.25 * z[24 + t] - 0.03125) for t in range(6)]
    rate = [0.035 * np.exp(pi - 1.0) * np.exp(0.8 * k[t] * kick) * np.exp(0.2 * z[30 + t] - 0.02)
            for t in range(6)]
    e = 0.5 * (1.0 - np.exp(-r / 3.0))
    sigma = 0.04 + 0.3 * (1.0 - np.exp(-b / 60.0))
    week = [1.08, 1.08, 1.08, 1.08, 1.08, 0.8, 0.8]
    cost = 0.0018 * E + 0.004 * P + 0.08 * I  # the battery's lease and the insurance's premium
    cash = K - cost
    N, U, soc, collected_before, loss = 100.0, 0.0, E, 0.0, 0.0
    for t in range(6):
        N += new[t]
        called = 1.0 - np.exp(-max(spot_pk[t] - 180.0, 0.0) / 100.0)
        D_off = N * u_off[t]
        D_pk = N * u_pk[t] * (1.0 - 0.5 * e * called)
        G = sigma * N * 0.12 * np.exp(0.2 * k[t] * kick)
        L_off, L_pk = D_off - 0.75 * G, D_pk - 0.25 * G
        h_off, h_pk = 0.252 * Hb, 0.084 * (Hb + peak_hedge[t])
        discharged = charged = 0.0
        for day in range(14):
            need = 1000.0 * max(L_pk - h_pk, 0.0) * week[day % 7] / 14.0
            out = min(soc, 6.0 * P, need)
            soc -= out
            into = min(4.0 * P, E - soc)
            soc += into
            discharged, charged = discharged + out, charged + into
        n_off = L_off + charged / 0.9 / 1000.0 - h_off
        n_pk = L_pk - discharged / 1000.0 - h_pk
        spot = 0.0
        for n, price in ((n_off, spot_off[t]), (n_pk, spot_pk[t])):
            spot += price * n if n > 0 else 0.85 * price * n
        waiting = U + N * rate[t]
        answered = min(waiting, 0.3 * S)
        U = waiting - answered
        paid = (50.0 * (D_off + D_pk) / 1000.0 + spot / 1000.0
                + 60.0 * 0.336 * Hb / 1000.0 + 105.0 * 0.084 * peak_hedge[t] / 1000.0
                + r * e * N / 1000.0 + b * G / 1000.0 + 0.006 * S + 0.01 * U
                + marketing[t] + 0.4)
        cash = cash + collected_before - paid
        bill = (p * D_off + (p + s) * D_pk) / 1000.0
        collected_before = (1.0 - bd) * bill
        loss += bd * bill
        N *= np.exp(-(0.02 * np.exp(8.0 * (pi - 1.0)) + 0.4 * U / max(N, 1e-9)))
        cost += paid - (1.0 - bd) * bill + 0.008 * K + 0.03 * max(-cash, 0.0)
    cost -= min(I, max(loss - 0.6, 0.0))
    return spot_off, spot_pk, u_off, u_pk, new, rate, [level, temp, bd, kick], cost


def test_power_agrees_with_a_loop_over_the_periods_and_days_of_one_quarter():
    """One period and one day of the battery at a time. rtol 1e-10: the same sums in another
    order; the cost is a difference of terms (the bills collected against the network charge,
    the energy bought and the overhead) some tens of times larger than itself on these rows,
    and at most a few thousand times on the rows that break even, so rounding stays below
    1e-12."""
    h = Power()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 39] += 2.5  # heatwaves: the spot spikes, the load, the complaints and bad debt rise
    z[12:16, 30:36] += 3.0  # floods of complaints: the backlog overfull, the customers leave
    z[16:20, 6:12] -= 3.0  # cheap peaks: the hedges' surplus sold back, nobody called
    z[20:24, 18:24] += 3.0  # heavy peak use: the battery drained over the weekdays
    optimum = json.loads((HELDOUT / "optima.json").read_text())["power"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 # no battery power, no staff, no reserve; hedges beyond the load
                 np.r_[90.0, 100.0, 0.0, 200.0, 0.0, 300.0, 0.0, 500.0, 0.0, 0.0, 0.0, 0.0,
                       2.0, 5.0, 0.0],
                 # no battery energy, a dear tariff, no hedges, every complaint answered
                 np.r_[180.0, 0.0, 20.0, 0.0, 50.0, 0.0, 80.0, 0.0, 50.0, 200.0, 40.0, 1.0,
                       0.0, 0.0, 10.0],
                 # a battery whose charging cannot keep up with its discharge
                 np.r_[120.0, 80.0, 5.0, 30.0, 0.0, 0.0, 0.0, 600.0, 40.0, 30.0, 10.0, 0.2,
                       0.2, 1.0, 3.0],
                 # beyond the bounds, a tariff so dear that every customer leaves, no staff: N
                 # falls to 0
                 np.r_[240.0, 200.0, 2.0, 40.0, 20.0, 40.0, 20.0, 20.0, 5.0, 10.0, 0.0, 0.1,
                       0.1, 0.5, 2.5])
    # the spot prices, the uses, the new customers, the complaints, the quarter's four numbers,
    # then the cost
    assert_rows_agree(h, z, decisions, power_quarter_by_hand,
                      (slice(0, 6), slice(6, 12), slice(12, 18), slice(18, 24), slice(24, 30),
                       slice(30, 36), slice(36, 40)))


def test_power_prices_move_the_customers_and_the_heatwave_fills_the_tail():
    h = Power()
    x = h.x0.copy()
    # a dearer tariff: less use off-peak and at the peak, fewer new customers
    dearer = x.copy()
    dearer[0] += 10.0
    assert np.all(h.use_mean(dearer) < h.use_mean(x))
    assert np.all(h.new_mean(dearer) < h.new_mean(x))
    # a dearer surcharge: less use at the peak, the same off-peak
    dearer = x.copy()
    dearer[1] += 10.0
    assert h.use_mean(dearer)[1] < h.use_mean(x)[1]
    assert h.use_mean(dearer)[0] == h.use_mean(x)[0]
    # more marketing in the first half brings more customers in periods 1-3 only
    louder = x.copy()
    louder[11] += 0.1
    assert np.all(h.new_mean(louder)[:3] > h.new_mean(x)[:3])
    np.testing.assert_allclose(h.new_mean(louder)[3:], h.new_mean(x)[3:], rtol=1e-12)
    # a heatwave (z[39]) spikes the spot prices (most in periods 3-4), raises the use, the
    # complaints and the bad debt, and leaves the new customers, the level and the warmth alone
    z = np.zeros((2, h.dim_w))
    z[1, 39] = 3.0
    W = h.transform(x, z)
    lift = W[1, :39] / W[0, :39]  # the excess itself is 0 without the heatwave
    assert np.all(lift[:24] > 1.0) and np.all(lift[30:36] > 1.0) and lift[38] > 1.0
    assert np.argmax(lift[6:12]) in (2, 3) and lift[8] == lift[9]
    np.testing.assert_allclose(lift[24:30], 1.0, rtol=1e-12)
    np.testing.assert_allclose(lift[36:38], 1.0, rtol=1e-12)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0] + 1.0
    # without battery power the energy capacity costs only its lease (a reserve that never
    # runs short, so no borrowing moves with it)
    idle, bigger = x.copy(), x.copy()
    idle[8] = bigger[8] = 0.0
    idle[14] = bigger[14] = 100.0
    bigger[7] += 50.0
    np.testing.assert_allclose(h.cost(W, bigger) - h.cost(W, idle), 0.09, rtol=1e-9)
    # a larger peak hedge in periods 3-4 pays in the heatwave
    hedged = x.copy()
    hedged[5] += 40.0
    assert h.cost(W[1:], hedged)[0] < h.cost(W[1:], x)[0]
    assert h.cost(W[:1], hedged)[0] > h.cost(W[:1], x)[0]
    # at x0 most of the costliest twentieth of the quarters are quarters of a heatwave (one in
    # twenty)
    z = np.random.default_rng(62).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 39] > 1.64).mean() > 0.5
