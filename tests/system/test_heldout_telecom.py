"""The held-out mobile network operator (``benchmarks/heldout/telecom.py``, written after version
13 of the default) against a plain loop over one month, written from its docstring, and its
behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from telecom import Telecom  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def telecom_month_by_hand(h: Telecom, z, x) -> tuple[list[float], ...]:
    """Each area's opening subscribers, each week and area's new subscribers, use per
    subscriber and failure hazard, each week's tickets per subscriber, the storm's excess, and
    the cost of one month, one week and one area at a time."""
    p, d, M, R1, R2, R3, B, Q, S, O, F, P, G, V = x  # noqa: E741
    R = [R1, R2, R3]
    sites = [150.0, 200.0, 250.0]
    base = [60.0, 50.0, 25.0]
    gross = [0.9, 0.6, 0.25]
    churn = [0.012, 0.010, 0.008]
    fail = [0.01, 0.015, 0.025]
    knock = [0.6, 1.0, 1.5]
    w = [0.25, 0.5, 0.75, 1.0]
    kick = max(z[43] - 1.64, 0.0)
    lift = 1.0 + 0.08 * (1.0 - np.exp(-M / 80.0))
    keep = 1.0 - 0.35 * (1.0 - np.exp(-M / 80.0))
    share = 0.3 * np.exp(-1.2 * (d / 10.0 - 1.0))
    priced = np.exp(-1.3 * (p / 40.0 - 1.0)) * lift
    generators = 0.3 + 0.7 * np.exp(-G / 60.0)
    opening = [base[a] * priced * np.exp(0.05 * z[a] - 0.00125) for a in range(3)]
    adds, use, hazard, tickets = [], [], [], []
    for t in range(4):
        storm = w[t] * kick
        for a in range(3):
            adds.append(gross[a] * priced * np.exp(0.2 * z[3 + 3 * t + a] - 0.02))
            use.append((4.0 + 6.0 * share) * (1.0 + 0.4 * storm)
                       * np.exp(0.15 * z[15 + 3 * t + a] - 0.01125))
            hazard.append(fail[a] * np.exp(0.3 * z[27 + 3 * t + a] - 0.045)
                          + knock[a] * storm * generators)
        tickets.append(0.02 * (1.0 + 2.0 * storm) * np.exp(0.2 * z[39 + t] - 0.02))
    cost = (1500.0 + 1.2 * (R1 + R2 + R3) + 0.8 * B + 0.4 * Q + 4.0 * S + 2.0 * O + 6.0 * F
            + 1.5 * P + 2.0 * G + M + 0.1 * V)
    subs = list(opening)
    down = [0.0, 0.0, 0.0]
    waiting, parts, credits = 0.0, P, 0.0
    for t in range(4):
        storm = w[t] * kick
        out, traffic, radio = [], [], []
        for a in range(3):
            failed = (sites[a] - down[a]) * (1.0 - np.exp(-hazard[3 * t + a]))
            out.append((down[a] + 0.5 * failed) / sites[a])
            down[a] += failed
            traffic.append(subs[a] * use[3 * t + a])
            radio.append(min(traffic[a], R[a] * (1.0 - out[a])))
        on_radio = sum(radio)
        on_backhaul = min(on_radio, B)
        beyond = sum(traffic) - on_backhaul
        wholesale = min(beyond, Q)
        cost += 1.5 * wholesale
        unserved = []
        for a in range(3):
            sent = traffic[a] - radio[a] + (on_radio - on_backhaul) * radio[a] / max(on_radio,
                                                                                      1e-12)
            unserved.append(sent * (beyond - wholesale) / max(beyond, 1e-12))
        for a in range(3):
            credit = 10.0 * subs[a] * out[a] + 5.0 * unserved[a]
            credits += credit
            cost += credit - subs[a] * (p + share * d) / 4.0
        # the support centre: agents, then the outsourcer; a quarter of the rest give up
        new = sum(subs[a] * tickets[t] * (1.0 + 4.0 * unserved[a] / traffic[a] + 3.0 * out[a])
                  for a in range(3))
        work = waiting + new
        answered = min(work, 0.12 * S)
        outsourced = min(work - answered, O)
        rest = work - answered - outsourced
        waiting = 0.75 * rest
        cost += 12.0 * outsourced + 5.0 * 0.25 * rest + 3.0 * waiting
        # the churn, then the week's new subscribers
        everyone = sum(subs)
        for a in range(3):
            rate = (churn[a] * np.exp(1.5 * (p / 40.0 - 1.0) + 0.4 * (d / 10.0 - 1.0)) * keep
                    * (1.0 + 3.0 * unserved[a] / traffic[a] + 2.0 * out[a]
                       + 20.0 * waiting / everyone))
            subs[a] = subs[a] * np.exp(-rate) + adds[3 * t + a]
        # the technicians, the spare parts and the parts expedited
        broken = sum(down)
        fixed = min(broken, 3.0 * F / (1.0 + 0.5 * storm))
        for a in range(3):
            down[a] -= down[a] * fixed / max(broken, 1e-12)
        from_stock = min(fixed, parts)
        parts -= from_stock
        cost += 5.0 * (fixed - from_stock)
    cost -= 1.0 * parts + 150.0 * (sum(subs) - sum(opening))
    cost -= min(V, 0.6 * max(credits - 300.0, 0.0))
    return opening, adds, use, hazard, tickets, [kick], cost


def test_telecom_agrees_with_a_loop_over_the_weeks_and_areas_of_one_month():
    """One week and one area at a time. rtol 1e-10: the same sums in another order; the cost is
    a difference of terms (the revenue against the network, the support and the subscribers'
    value) a few times larger than itself at worst on these rows, so rounding stays near
    1e-13."""
    h = Telecom()
    z = np.random.default_rng(111).standard_normal((40, h.dim_w))
    z[:12, 43] += 3.0  # storms: sites knocked out, calls multiplied, traffic surged
    z[12:16, 15:27] += 2.5  # heavy use: the radio, the backhaul and the wholesale bind
    z[16:20, 39:43] += 2.5  # many calls: the agents and the outsourcer full, a backlog
    z[20:24, 27:39] += 3.0  # many failures: the technicians and the spare parts short
    z[24:28, 3:15] -= 2.5  # few new subscribers
    decisions = [h.x0, 1.4 * h.x0,
                 np.r_[20.0, 5.0, 0.0, 100.0, 0.0, 50.0, 100.0, 0.0, 2.0, 0.0, 0.0, 0.0,
                       0.0, 0.0],
                 np.r_[80.0, 20.0, 300.0, 900.0, 700.0, 300.0, 400.0, 600.0, 60.0, 10.0, 15.0,
                       200.0, 250.0, 900.0],
                 np.r_[35.0, 15.0, 150.0, 420.0, 350.0, 180.0, 860.0, 300.0, 27.0, 8.0, 10.0,
                       100.0, 120.0, 300.0]]
    rng = np.random.default_rng(112)
    low, high = np.array([20.0, 5.0] + [0.0] * 12), 3.0 * h.x0
    high[:2] = [80.0, 20.0]
    decisions.append(low + (high - low) * rng.random(h.dim_x))
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "telecom" in optima:
        decisions.append(np.asarray(optima["telecom"]["x_star"]))
    assert_rows_agree(h, z, decisions, telecom_month_by_hand,
                      (slice(0, 3), slice(3, 15), slice(15, 27), slice(27, 39),
                       slice(39, 43), slice(43, 44)))


def test_telecom_prices_move_the_subscribers_and_the_storm_fills_the_tail():
    h = Telecom()
    x = h.x0.copy()
    # a dearer plan: fewer subscribers in every area, fewer new ones, the use as it was
    dearer = x.copy()
    dearer[0] += 8.0
    assert np.all(h.subscribers_mean(dearer) < h.subscribers_mean(x))
    z = np.random.default_rng(113).standard_normal((5, h.dim_w))
    W, Wd = h.transform(x, z), h.transform(dearer, z)
    assert np.all(Wd[:, :15] < W[:, :15])
    np.testing.assert_allclose(Wd[:, 15:], W[:, 15:], rtol=1e-12)
    # a dearer add-on: fewer buy it, so less use per subscriber
    addon = x.copy()
    addon[1] += 4.0
    assert h.addon(addon) < h.addon(x)
    assert np.all(h.transform(addon, z)[:, 15:27] < W[:, 15:27])
    # marketing lifts the subscribers, with diminishing returns, and keeps more of them
    lifts = [h.subscribers_mean(np.r_[x[:2], m, x[3:]])[0] for m in (0.0, 80.0, 160.0)]
    assert lifts[0] < lifts[1] < lifts[2] and lifts[2] - lifts[1] < lifts[1] - lifts[0]
    assert h.keep(np.r_[x[:2], 160.0, x[3:]]) < h.keep(x)
    # a storm (z[43]) knocks out sites (the countryside's the most, later weeks the more),
    # surges the use and the calls, and costs the operator dear; generators hold it off
    z = np.zeros((2, h.dim_w))
    z[1, 43] = 3.0
    W = h.transform(x, z)
    haz = W[1, 27:39].reshape(4, 3)
    assert np.all(np.diff(haz, axis=0) > 0.0) and np.all(np.diff(haz, axis=1) > 0.0)
    assert np.all(W[1, 15:27] > W[0, 15:27]) and np.all(W[1, 39:43] > W[0, 39:43])
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0] + 1000.0
    more_gen = x.copy()
    more_gen[12] += 60.0
    assert np.all(h.transform(more_gen, z)[1, 27:39] < haz.ravel())
    assert h.cost(h.transform(more_gen, z[1:]), more_gen)[0] < h.cost(W[1:], x)[0] - 100.0
    # at x0 most of the costliest twentieth of the months are storm months (one in twenty)
    z = np.random.default_rng(114).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 43] > 1.64).mean() > 0.5
    # and a dearer plan earns more a subscriber and keeps fewer of them: the month's revenue
    # is not monotone in the price over its range
    cheap, mid, dear = (np.r_[q, x[1:]] for q in (20.0, 40.0, 80.0))
    means = [h.cost(h.transform(q, z[:4000]), q).mean() for q in (cheap, mid, dear)]
    assert means[1] < means[0] and means[1] < means[2]
