"""The held-out testing laboratory (``benchmarks/heldout/testlab.py``, written after version 12 of
the default) against a plain loop over one fortnight, written from its docstring, and its
behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from test_heldout import assert_rows_agree  # noqa: E402
from testlab import TestLab  # noqa: E402


def lab_fortnight_by_hand(h: TestLab, z, x) -> tuple[list[float], ...]:
    """The fortnight's hospital routine and PCR samples, private samples, failure factors and
    spot price factors of each period, the hospitals' level, the private market and the
    outbreak's excess, and the cost of one fortnight, one period and one line at a time."""
    p, e, A_r, A_p, H1, H2, G, F, O, Z, M, K, E, V = x  # noqa: E741
    shape = [1.2, 1.0, 0.8, 1.1, 1.15, 0.95, 0.8]
    prof = [0.15, 0.3, 0.5, 0.7, 0.9, 1.0, 1.0]
    level = np.exp(0.1 * z[35] - 0.005)
    market = np.exp(0.05 * z[36] - 0.00125)
    kick = max(z[37] - 1.64, 0.0)
    lift = 1.0 + 0.4 * (1.0 - np.exp(-K / 50.0))
    m = 5.0 * np.exp(-1.8 * (p / 45.0 - 1.0) - 0.1 * (e / 15.0 - 1.0)) * lift
    ex = 0.3 * np.exp(-(e / 15.0 - 1.0))
    routine, pcr, private, fail, spot = [], [], [], [], []
    for t in range(7):
        out = prof[t] * kick
        routine.append(24.0 * shape[t] * level * (1.0 + 0.5 * out)
                       * np.exp(0.15 * z[t] - 0.01125))
        pcr.append(3.0 * shape[t] * level * (1.0 + 4.0 * out) * np.exp(0.15 * z[7 + t] - 0.01125))
        private.append(m * shape[t] * market * (1.0 + out) * np.exp(0.15 * z[14 + t] - 0.01125))
        fail.append(np.exp(0.4 * z[21 + t] - 0.08) * (1.0 + out))
        spot.append(np.exp(0.15 * z[28 + t] - 0.01125) * (1.0 + 3.0 * out))
    auto = 1.0 + 0.35 * (1.0 - np.exp(-M / 100.0))
    stay = 0.7 * np.exp(-0.5 * E)
    cost = (500.0 - 1400.0 + 20.0 * A_r + 35.0 * A_p + 12.0 * G + 2.0 * Z + M + K + 0.08 * V)
    rep, stock = 1.0, G
    down = {"r": 0.0, "p": 0.0}
    w1 = {"r": 0.0, "p": 0.0}
    w2 = {"r": 0.0, "p": 0.0}
    back = {"r": 0.0, "p": 0.0}
    loss = 0.0
    for t in range(7):
        H = H1 if t < 4 else H2
        out = prof[t] * kick
        cost += 2.4 * H + 1.2 * F + 4.0 * O + 1.5 * E
        cap = {}
        for line, A, b, per in (("r", A_r, 0.1, 4.0), ("p", A_p, 0.15, 1.0)):
            up = A - down[line]
            new = up * (1.0 - np.exp(-b * fail[t]))
            cap[line] = per * auto * (up - 0.5 * new)
            down[line] = stay * (down[line] + new)
        priv = private[t] * rep
        hosp = routine[t] + pcr[t]
        fresh = hosp + priv
        n = {"r": routine[t] + 0.4 * priv + back["r"], "p": pcr[t] + 0.6 * priv + back["p"]}
        express = {"r": ex * 0.4 * priv, "p": ex * 0.6 * priv}
        cost -= 3.0 * routine[t] + 15.0 * pcr[t] + p * priv + (e - 3.0) * (ex * priv)
        d = {line: min(w1[line] + w2[line] + n[line], cap[line]) for line in "rp"}
        d["p"] = min(d["p"], stock + 4.0 * np.exp(-2.0 * out))
        work = 2.0 * auto * H * np.exp(-0.3 * out)
        g = min(1.0, work / (d["r"] + 3.0 * d["p"]))
        left, done, missed = {}, {}, 0.0
        for line in "rp":
            budget = g * d[line]
            done[line] = budget
            ex_done = min(express[line], budget)
            budget -= ex_done
            missed += express[line] - ex_done
            old = min(w2[line], budget)
            budget -= old
            mid = min(w1[line], budget)
            budget -= mid
            new_done = min(n[line] - express[line], budget)
            left[line] = [w2[line] - old, w1[line] - mid, n[line] - ex_done - new_done]
        cost += (e + 5.0) * missed
        room = O
        for age in range(3):  # the partner lab: the oldest PCR samples first
            sent = min(left["p"][age], room)
            left["p"][age] -= sent
            room -= sent
            cost += 35.0 * sent
        waiting = sum(left[line][1] + left[line][2] for line in "rp")
        kept = min(1.0, Z / waiting) if waiting > 0 else 1.0
        spoiled = 0.0
        for line in "rp":
            back[line] = left[line][0] + (1.0 - kept) * (left[line][1] + left[line][2])
            spoiled += back[line]
            w2[line], w1[line] = kept * left[line][1], kept * left[line][2]
            cost += 3.0 * w1[line] + 8.0 * w2[line]
        cost += 30.0 * spoiled
        cost += 2.0 * done["r"] + 6.0 * done["p"]
        from_stock = min(stock, done["p"])
        urgent = 30.0 * spot[t] * (done["p"] - from_stock)
        stock = 0.85 * (stock - from_stock)
        late = hosp / fresh * (kept * waiting + spoiled)
        sla = 10.0 * max(late - 0.08 * hosp, 0.0)
        cost += urgent + sla
        loss += urgent + 30.0 * spoiled + sla
        cost += 4.0 * max(fresh + spoiled - 2.5 * F, 0.0)
        bad = (0.5 * kept * waiting + spoiled + missed) / fresh
        rep = 0.6 * rep + 0.4 * np.exp(-3.0 * bad)
    cost += 12.0 * sum(w1[line] + w2[line] + back[line] for line in "rp")
    cost += 300.0 * (1.0 - rep)
    cost -= min(V, 0.7 * max(loss - 200.0, 0.0))
    return routine + pcr + private + fail + spot, [level, market, kick], cost


def test_testlab_agrees_with_a_loop_over_the_periods_of_one_fortnight():
    """One period and one line at a time. rtol 1e-10: the same sums in another order; the cost
    is a difference of terms (the retainer and the private tests against the analysers,
    technicians and reagents) some ten times larger than itself on these rows, so rounding
    stays near 1e-14."""
    h = TestLab()
    z = np.random.default_rng(91).standard_normal((40, h.dim_w))
    z[:12, 37] += 3.0  # outbreaks: samples wait and spoil, urgent kits short and dear
    z[12:16, :21] += 2.5  # a rush of samples: the lines and the technicians full
    z[16:20, 21:28] += 3.0  # many breakdowns: analysers wait for repair
    z[20:24, :21] -= 3.0  # few samples: the lines idle, the kits expire
    optimum = json.loads((HELDOUT / "optima.json").read_text())["testlab"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[90.0, 30.0, 5.0, 2.0, 10.0, 40.0, 0.0, 2.0, 0.0, 1.0, 0.0, 0.0, 0.0,
                       0.0],
                 np.r_[22.5, 7.5, 14.0, 10.0, 40.0, 12.0, 120.0, 30.0, 6.0, 0.0, 300.0,
                       200.0, 5.0, 600.0])
    # the samples, failure and spot price factors, the level, the market and the outbreak's
    # excess, then the cost
    assert_rows_agree(h, z, decisions, lab_fortnight_by_hand, (slice(0, 35), slice(35, 38)))


def test_testlab_prices_move_the_demand_and_the_outbreak_fills_the_tail():
    h = TestLab()
    x = h.x0.copy()
    # a dearer test: fewer private samples; the express share as it was
    dearer = x.copy()
    dearer[0] += 10.0
    assert h.private_mean(dearer) < h.private_mean(x)
    np.testing.assert_allclose(h.express_share(dearer), h.express_share(x), rtol=1e-12)
    # a dearer surcharge: a smaller express share and a few fewer private samples
    richer = x.copy()
    richer[1] += 5.0
    assert h.express_share(richer) < h.express_share(x)
    assert h.private_mean(richer) < h.private_mean(x)
    assert h.private_mean(richer) / h.private_mean(x) > h.private_mean(dearer) / h.private_mean(x)
    # marketing lifts the private samples, with diminishing returns
    lifts = [h.private_mean(np.r_[x[:11], k, x[12:]]) for k in (0.0, 50.0, 100.0)]
    assert lifts[0] < lifts[1] < lifts[2] and lifts[2] - lifts[1] < lifts[1] - lifts[0]
    # the prices move the scenario's private samples only
    z = np.random.default_rng(92).standard_normal((5, h.dim_w))
    W, Wd = h.transform(x, z), h.transform(dearer, z)
    assert np.all(Wd[:, 14:21] < W[:, 14:21])
    np.testing.assert_allclose(Wd[:, :14], W[:, :14], rtol=1e-12)
    np.testing.assert_allclose(Wd[:, 21:], W[:, 21:], rtol=1e-12)
    # an outbreak (z[37]) multiplies the samples, PCR the most and more in later periods, and
    # raises the failures and the spot price of the reagents
    z = np.zeros((2, h.dim_w))
    z[1, 37] = 3.0
    W = h.transform(x, z)
    routine, pcr = W[1, :7] / W[0, :7], W[1, 7:14] / W[0, 7:14]
    assert np.all(pcr > routine) and np.all(routine > 1.0) and np.all(np.diff(pcr) > -1e-12)
    assert pcr[-1] > pcr[0] + 1.0
    assert np.all(W[1, 21:35] > W[0, 21:35])
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0] + 1000.0
    # another PCR analyser pays in the outbreak and costs more than it saves in a usual
    # fortnight; a larger outsourcing contract costs its reservation in a usual fortnight and
    # pays in the outbreak
    more = x.copy()
    more[3] += 1.0
    assert h.cost(W[1:], more)[0] - h.cost(W[1:], x)[0] < -100.0 < 0.0 < (
        h.cost(W[:1], more)[0] - h.cost(W[:1], x)[0])
    more = x.copy()
    more[8] += 2.0
    np.testing.assert_allclose(h.cost(W[:1], more) - h.cost(W[:1], x), 56.0, rtol=1e-9)
    assert h.cost(W[1:], more)[0] - h.cost(W[1:], x)[0] < -500.0
    # the insurance pays in the outbreak, not in a usual fortnight (its premium aside)
    covered = x.copy()
    covered[13] += 100.0
    np.testing.assert_allclose(h.cost(W[:1], covered) - h.cost(W[:1], x), 8.0, rtol=1e-9)
    assert h.cost(W[1:], covered)[0] - h.cost(W[1:], x)[0] < -50.0
    # at x0 most of the costliest twentieth of the fortnights are fortnights of an outbreak
    # (one in twenty)
    z = np.random.default_rng(93).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 37] > 1.64).mean() > 0.5
