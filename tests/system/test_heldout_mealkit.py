"""The held-out meal-kit company (``benchmarks/heldout/mealkit.py``, written after version 12 of
the default) against a plain loop over one month, written from its docstring, and its behaviour
(the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from mealkit import MealKit  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def mealkit_month_by_hand(h: MealKit, z, x) -> tuple[list[float], ...]:
    """The month's potential sign-ups, order shares and deliveries of each week, the market, the
    spot price and the shock's excess, and the cost of one month, one week at a time."""
    p, s, K = x[0], x[1], x[2]
    C = [x[3], x[3], x[4], x[4]]
    I = [x[5], x[5], x[6], x[6]]  # noqa: E741
    R, N, O, A, B, V = x[7:13]  # noqa: E741
    season = [1.0, 1.0, 1.1, 1.2]
    prof = [0.0, 0.5, 1.0, 1.0]
    storm = [0.0, 0.0, 1.0, 1.0]
    market = np.exp(0.08 * z[12] - 0.0032)
    kick = max(z[14] - 1.64, 0.0)
    spot = np.exp(0.12 * z[13] - 0.0072) * (1.0 + kick)
    lift = 1.0 + 0.5 * (1.0 - np.exp(-K / 80.0))
    rp, rs = p / 60.0 - 1.0, s / 8.0 - 1.0
    signups = [2.0 * season[t] * np.exp(-1.5 * rp - 0.05 * rs) * lift * market
               * np.exp(0.15 * z[t] - 0.01125) for t in range(4)]
    share = [np.exp(0.05 * z[4 + t] - 0.00125) / (1.0 + 0.18 * np.exp(3.0 * rp))
             for t in range(4)]
    supply = [np.exp(-0.04 * np.exp(0.5 * z[8 + t] - 0.125) - 1.2 * prof[t] * kick)
              for t in range(4)]
    prem = 0.35 * np.exp(-0.6 * rs)
    box = p + prem * s
    cost = K + 0.1 * V
    subs, rep, kept, loss = 20.0, 1.0, 0.0, 0.0
    for t in range(4):
        cost += 300.0 + 9.0 * C[t] + 22.0 * I[t] + 1.5 * R + 1.5 * N + 3.0 * O + 1.0 * A + 5.0 * B
        subs += signups[t] * rep
        orders = share[t] * subs
        cost -= box * orders
        at_hand = kept + I[t] * supply[t]
        short = max(min(orders, C[t]) - at_hand, 0.0)
        backup = min(short, B)
        bought = min(short - backup, 2.0)
        cost += 30.0 * backup + 30.0 * spot * bought
        loss += 30.0 * spot * bought
        kits = at_hand + backup + bought
        packed = min(orders, C[t], kits)
        missing = orders - packed
        cost += (box + 10.0) * missing
        loss += (box + 10.0) * missing
        cost += 2.0 * packed + 2.0 * prem * packed
        left = kits - packed
        cold = min(left, R)
        cost += 1.0 * (left - cold)
        kept = 0.7 * cold
        by_van = min(packed, 0.6 * N / (1.0 + 0.8 * storm[t] * kick))
        by_courier = min(packed - by_van, O)
        late = packed - by_van - by_courier
        cost += 1.0 * by_van + 6.0 * by_courier + (14.0 + 0.4 * box) * late
        complaints = 0.01 * orders + 0.3 * late + 0.6 * missing
        unanswered = max(complaints - 0.4 * A, 0.0)
        cost += 8.0 * unanswered
        bad = (missing + 0.5 * late + unanswered) / orders
        churn = 1.0 - np.exp(-0.06 * np.exp(4.0 * rp + 0.1 * rs) - 2.0 * bad)
        subs *= 1.0 - churn
        rep = 0.6 * rep + 0.4 * np.exp(-4.0 * bad)
    cost -= 80.0 * subs
    cost -= min(V, 0.8 * max(loss - 50.0, 0.0))
    return signups + share + supply, [market, spot, kick], cost


def test_mealkit_agrees_with_a_loop_over_the_weeks_of_one_month():
    """One week at a time. rtol 1e-10: the same sums in another order; the cost is a
    difference of terms (the boxes' price against the kitchen, kits, vans and refunds) some
    ten times larger than itself on these rows, so rounding stays near 1e-14."""
    h = MealKit()
    z = np.random.default_rng(81).standard_normal((40, h.dim_w))
    z[:12, 14] += 3.0  # shocks: kits short, the backup and spot market used, vans slow
    z[12:16, :4] += 3.0  # a rush of sign-ups: the kitchen full, boxes missing and late
    z[16:20, 8:12] += 4.0  # the usual suppliers' losses large
    z[20:24, :8] -= 3.0  # few orders: kits left over, the cold room full
    optimum = json.loads((HELDOUT / "optima.json").read_text())["mealkit"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[100.0, 14.0, 0.0, 10.0, 30.0, 5.0, 40.0, 6.0, 10.0, 0.0, 0.0, 20.0,
                       0.0],
                 np.r_[35.0, 5.0, 200.0, 40.0, 8.0, 30.0, 2.0, 0.0, 60.0, 10.0, 12.0, 0.0,
                       500.0])
    # the sign-ups, order shares and deliveries, the market, spot price and the shock's
    # excess, then the cost
    assert_rows_agree(h, z, decisions, mealkit_month_by_hand, (slice(0, 12), slice(12, 15)))


def test_mealkit_prices_move_the_demand_and_the_shock_fills_the_tail():
    h = MealKit()
    x = h.x0.copy()
    # a dearer box: fewer sign-ups and fewer subscribers ordering a week
    dearer = x.copy()
    dearer[0] += 10.0
    assert h.signup_mean(dearer) < h.signup_mean(x)
    assert h.order_share(dearer) < h.order_share(x)
    # a dearer surcharge: fewer premium boxes and a few fewer sign-ups; the order share as it
    # was
    richer = x.copy()
    richer[1] += 4.0
    assert h.premium_share(richer) < h.premium_share(x)
    assert h.signup_mean(richer) < h.signup_mean(x)
    np.testing.assert_allclose(h.order_share(richer), h.order_share(x), rtol=1e-12)
    # marketing lifts the sign-ups, with diminishing returns
    lifts = [h.signup_mean(np.r_[x[:2], k, x[3:]]) for k in (0.0, 80.0, 160.0)]
    assert lifts[0] < lifts[1] < lifts[2] and lifts[2] - lifts[1] < lifts[1] - lifts[0]
    # the prices move the scenario's sign-ups and order shares only
    z = np.random.default_rng(82).standard_normal((5, h.dim_w))
    W, Wd = h.transform(x, z), h.transform(dearer, z)
    assert np.all(Wd[:, :8] < W[:, :8])
    np.testing.assert_allclose(Wd[:, 8:], W[:, 8:], rtol=1e-12)
    # a shock (z[14]) cuts the deliveries from week 2 on and raises the spot price
    z = np.zeros((2, h.dim_w))
    z[1, 14] = 3.0
    W = h.transform(x, z)
    ratio = W[1, 8:12] / W[0, 8:12]
    assert ratio[0] == 1.0 and np.all(ratio[1:] < 1.0) and ratio[2] < ratio[1]
    assert W[1, 13] > W[0, 13]
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0] + 500.0
    # a larger backup contract pays in a shock and costs its reservation in a usual month;
    # more vans help most in a usual month (the kits, not the vans, are short in a shock)
    more = x.copy()
    more[11] += 2.0
    assert h.cost(W[1:], more)[0] - h.cost(W[1:], x)[0] < -100.0
    np.testing.assert_allclose(h.cost(W[:1], more) - h.cost(W[:1], x), 40.0, rtol=1e-9)
    more = x.copy()
    more[8] += 5.0
    assert (h.cost(W[:1], more)[0] - h.cost(W[:1], x)[0]
            < h.cost(W[1:], more)[0] - h.cost(W[1:], x)[0] < 20.0)
    # the insurance pays in the shock, not in a usual month (its premium aside)
    covered = x.copy()
    covered[12] += 100.0
    np.testing.assert_allclose(h.cost(W[:1], covered) - h.cost(W[:1], x), 10.0, rtol=1e-9)
    assert h.cost(W[1:], covered)[0] - h.cost(W[1:], x)[0] < 0.0
    # at x0 most of the costliest twentieth of the months are months of a shock (one in
    # twenty)
    z = np.random.default_rng(83).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 14] > 1.64).mean() > 0.5
