"""The held-out ferry operator (``benchmarks/heldout/ferry.py``, written after version 11 of the
default and the music festival, the streaming service and the bakery chain) against a plain
loop over one week, written from its docstring, and its behaviour (the shared checks are those
of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from ferry import Ferry  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def ferry_week_by_hand(h: Ferry, z, x) -> tuple[list[float], ...]:
    """The week's potential foot passengers and cars of each route, the market, the sickness,
    the sea state, the spot price and the storm's excess, and the cost of one week, one day,
    one wave and one route at a time."""
    p_f, p_c = x[0], x[1]
    n_I = [x[2]] * 4 + [x[3]] * 3
    n_M = [x[4]] * 4 + [x[5]] * 3
    H, S, D, E, Y, K, G, V = x[6:14]
    dow = [0.85, 0.85, 0.9, 0.95, 1.2, 1.25, 1.1]
    prof = [0.0, 0.7, 1.0, 1.0, 0.6, 0.2, 0.0]
    sail = [0.35, 0.3, 0.35]
    arrive = [0.4, 0.25, 0.35]
    market = np.exp(0.06 * z[28] - 0.0018)
    kick = max(z[32] - 1.64, 0.0)
    lift = 1.0 + 0.15 * (1.0 - np.exp(-K / 100.0))
    rf, rc = p_f / 12.0 - 1.0, p_c / 45.0 - 1.0
    foot = [6.0 * np.exp(-0.8 * rf + 0.25 * rc), 3.0 * np.exp(-1.3 * rf + 0.25 * rc)]
    cars = [1.5 * np.exp(-0.7 * rc), 1.0 * np.exp(-1.2 * rc)]
    # F island, F mainland, C island, C mainland, each Monday to Sunday
    pot = [[base * lift * dow[t] * market * np.exp(-0.3 * prof[t] * kick)
            * np.exp(0.12 * z[7 * j + t] - 0.0072) for t in range(7)]
           for j, base in enumerate(foot + cars)]
    sick = 1.0 - np.exp(-0.06 * np.exp(0.5 * z[29] - 0.125))
    sea = np.exp(0.08 * z[30] - 0.0032)
    spot = np.exp(0.15 * z[31] - 0.01125) * (1.0 + kick)
    ff = [p_f, 3.0 * p_f]
    fc = [p_c, 3.0 * p_c]
    cost = 600.0 + 70.0 * D + 15.0 * Y + K + 0.1 * V
    refunds = burnt = 0.0
    rep = 1.0
    qf = [0.0, 0.0]
    qc = [0.0, 0.0]
    for t in range(7):
        cost += 2.2 * H + 0.6 * S + 20.0 * E
        need = n_I[t] / 2.0 + n_M[t]
        here = H * (1.0 - sick)
        called = min(S, max(need - here, 0.0))
        if need > 0:
            rho = min(1.0, (here + S) / need)
        else:
            rho = 1.0 if here + S > 0 else 0.0
        cost += 2.5 * called + 2.0 * n_I[t] + 6.0 * n_M[t]
        c_I = 1.0 - np.exp(-1.0 * prof[t] * kick)
        c_M = 1.0 - np.exp(-2.0 * prof[t] * kick)
        run_I, run_M = rho * (1.0 - c_I) * n_I[t], rho * (1.0 - c_M) * n_M[t]
        burnt += sea * (1.2 * run_I + 5.0 * run_M)
        share = 0.5 + 0.5 * rep
        F = [pot[0][t] * share, pot[1][t] * share]
        C = [pot[2][t] * share, pot[3][t] * share]
        cost -= ff[0] * F[0] + ff[1] * F[1] + fc[0] * C[0] + fc[1] * C[1]
        foot_cap = [0.8 * run_I, 1.0 * run_M]
        car_cap = [0.09 * run_I + rho * (1.0 - c_I) * D, 0.25 * run_M]
        day_miss = 0.0
        for w in range(3):
            for r in range(2):
                q = qf[r] + arrive[w] * F[r]
                q -= min(q, sail[w] * foot_cap[r])
                if r == 1:
                    on_charter = min(q, sail[w] * 4.0 * (1.0 - c_M) * E)
                    q -= on_charter
                    cost += 10.0 * on_charter
                refunds += 0.3 * q * ff[r]
                day_miss += 0.3 * q
                qf[r] = 0.7 * q
                q = qc[r] + arrive[w] * C[r]
                q -= min(q, sail[w] * car_cap[r])
                if r == 1:
                    on_charter = min(q, sail[w] * (1.0 - c_M) * E)
                    q -= on_charter
                    cost += 40.0 * on_charter
                refunds += 0.15 * q * fc[r]
                day_miss += 0.15 * q
                qc[r] = 0.85 * q
            in_yard = qc[0] + qc[1]
            if in_yard > Y:
                for r in range(2):
                    out = qc[r] * (in_yard - Y) / in_yard
                    qc[r] -= out
                    refunds += out * fc[r]
                    cost += 50.0 * out
                    day_miss += out
            if w < 2:
                cost += 8.0 * sum(qf) + 20.0 * sum(qc)
            elif t < 6:
                cost += 50.0 * sum(qf) + 60.0 * sum(qc)
        rep = 0.6 * rep + 0.4 * np.exp(-6.0 * day_miss / (sum(F) + sum(C)))
    refunds += sum(ff[r] * qf[r] + fc[r] * qc[r] for r in range(2))
    if burnt >= G:
        cost += 1.03 * G + spot * (burnt - G)
    else:
        cost += 1.03 * G - 0.85 * spot * (G - burnt)
    cost += refunds - min(V, 0.7 * max(refunds - 60.0, 0.0))
    return [v for row in pot for v in row], [market, sick, sea, spot, kick], cost


def test_ferry_agrees_with_a_loop_over_the_days_waves_and_routes_of_one_week():
    """One day, one wave and one route at a time. rtol 1e-10: the same sums in another order;
    the cost is a difference of terms (the fares against the sailings, crews, fuel and
    refunds) some ten times larger than itself on these rows, so rounding stays near 1e-14."""
    h = Ferry()
    z = np.random.default_rng(71).standard_normal((40, h.dim_w))
    z[:12, 32] += 3.0  # storms: sailings cancelled, queues piled up, the yard full, fuel dear
    z[12:16, :28] += 2.5  # crowds: queues that carry over, the charter used, the name marred
    z[16:20, 29] += 3.0  # crews off sick: standby crews called, sailings short of crews
    z[20:24, :28] -= 3.0  # few travellers: queues empty, the hedge sold back
    optimum = json.loads((HELDOUT / "optima.json").read_text())["ferry"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[20.0, 30.0, 4.0, 0.0, 8.0, 1.0, 3.0, 0.0, 1.5, 0.0, 0.0, 0.0, 900.0,
                       0.0],
                 np.r_[8.0, 80.0, 20.0, 25.0, 0.0, 0.0, 20.0, 5.0, 0.0, 2.0, 3.0, 300.0, 0.0,
                       500.0])
    # the potential foot passengers and cars, the market, sickness, sea state, spot price and
    # the storm's excess, then the cost
    assert_rows_agree(h, z, decisions, ferry_week_by_hand, (slice(0, 28), slice(28, 33)))


def test_ferry_fares_move_the_demand_and_the_storm_fills_the_tail():
    h = Ferry()
    x = h.x0.copy()
    # a dearer foot fare: fewer foot passengers on both routes, the mainland's the most; the
    # cars as they were
    dearer = x.copy()
    dearer[0] += 2.0
    moved = h.foot_mean(dearer) / h.foot_mean(x)
    assert np.all(moved < 1.0) and moved[1] < moved[0]
    np.testing.assert_allclose(h.car_mean(dearer), h.car_mean(x), rtol=1e-12)
    # a dearer car fare: fewer cars, the mainland's the most, and some drivers come on foot
    dearer = x.copy()
    dearer[1] += 8.0
    moved = h.car_mean(dearer) / h.car_mean(x)
    assert np.all(moved < 1.0) and moved[1] < moved[0]
    assert np.all(h.foot_mean(dearer) > h.foot_mean(x))
    # marketing lifts every demand, with diminishing returns
    lifts = [h.car_mean(np.r_[x[:11], k, x[12:]])[0] for k in (0.0, 100.0, 200.0)]
    assert lifts[0] < lifts[1] < lifts[2] and lifts[2] - lifts[1] < lifts[1] - lifts[0]
    # the fares and marketing move the scenario's demand columns only
    z = np.random.default_rng(72).standard_normal((5, h.dim_w))
    W, Wd = h.transform(x, z), h.transform(dearer, z)
    assert np.all(Wd[:, 14:28] < W[:, 14:28]) and np.all(Wd[:, :14] > W[:, :14])
    np.testing.assert_allclose(Wd[:, 28:], W[:, 28:], rtol=1e-12)
    # a storm (z[32]) keeps travellers home on its days only and raises the spot fuel price
    z = np.zeros((2, h.dim_w))
    z[1, 32] = 3.0
    W = h.transform(x, z)
    ratio = W[1, :28].reshape(4, 7) / W[0, :28].reshape(4, 7)
    np.testing.assert_allclose(ratio[:, [0, 6]], 1.0, rtol=1e-12)
    assert np.all(ratio[:, 1:6] < 1.0) and W[1, 31] > W[0, 31]
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0] + 500.0
    # more sailings on either route (the island's from Monday to Thursday, the storm's days)
    # and a bigger charter help most in a storm
    for i, step in ((2, 2.0), (4, 1.0), (5, 1.0), (9, 0.2)):
        more = x.copy()
        more[i] += step
        assert (h.cost(W[1:], more)[0] - h.cost(W[1:], x)[0]
                < h.cost(W[:1], more)[0] - h.cost(W[:1], x)[0]), i
    # the insurance pays in the storm, not in a calm week (its premium aside)
    covered = x.copy()
    covered[13] += 100.0
    np.testing.assert_allclose(h.cost(W[:1], covered) - h.cost(W[:1], x), 10.0, rtol=1e-9)
    assert h.cost(W[1:], covered)[0] - h.cost(W[1:], x)[0] < 0.0
    # at x0 most of the costliest twentieth of the weeks are weeks of a storm (one in twenty)
    z = np.random.default_rng(73).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 32] > 1.64).mean() > 0.5
