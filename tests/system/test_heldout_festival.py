"""The held-out music festival (``benchmarks/heldout/festival.py``, written after version 11 of
the default and the flu-vaccine maker, the lender and the car-rental company) against a plain
loop over one weekend, written from its docstring, and its behaviour (the shared checks are
those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from festival import Festival  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def festival_weekend_by_hand(h: Festival, z, x) -> tuple[list[float], ...]:
    """The three days' potential day tickets and incident rates, the passes, the market and
    the storm's excess, and the cost of one weekend, one day and one block at a time."""
    p_d, p_w, p_c, S, M, B, Q, V, A, K, I = (x[0], x[1], x[2], x[3:6], x[6], x[7], x[8], x[9],
                                             x[10], x[11], x[12])
    dbase = [8.0, 12.0, 10.0]
    ramp = [0.6, 1.0, 0.8]
    arrive = [0.5, 0.3, 0.15, 0.05]
    spend = [4.0, 5.0, 4.0, 2.0]
    market = np.exp(0.1 * z[7] - 0.005)
    kick = max(z[8] - 1.64, 0.0)
    lift = 1.0 + 0.2 * (1.0 - np.exp(-K / 200.0))
    passes = (20.0 * np.exp(-1.0 * (p_w / 220.0 - 1.0) + 0.15 * (p_d / 90.0 - 1.0)) * lift
              * market * np.exp(0.1 * z[6] - 0.005))
    art = [1.0, 1.0, 1.0 + 0.6 * (1.0 - np.exp(-A / 150.0))]
    D = [dbase[t] * np.exp(-1.2 * (p_d / 90.0 - 1.0) + 0.15 * (p_w / 220.0 - 1.0)) * lift
         * art[t] * market * np.exp(-0.3 * ramp[t] * kick) * np.exp(0.15 * z[t] - 0.01125)
         for t in range(3)]
    inc = [0.6 * np.exp(1.2 * ramp[t] * kick) * np.exp(0.3 * z[3 + t] - 0.045)
           for t in range(3)]
    campers = 0.45 * np.exp(-1.2 * (p_c / 40.0 - 1.0)) * passes
    cost = (V + A + K + 0.15 * I + 3000.0 * kick * np.exp(-V / 150.0)
            - p_w * passes - p_c * campers + 12.0 * campers)
    refunds, rep = 0.0, 1.0
    for t in range(3):
        cost += 2200.0 + 0.3 * S[t] + 1.0 * M + 1.0 * B + 0.4 * Q
        c = 1.0 - np.exp(-0.7 * ramp[t] * kick)
        day = D[t] * (0.6 + 0.4 * rep)
        cost -= p_d * day
        refunds += c * (p_d * day + p_w * passes / 3.0)
        town = day + passes - campers
        bus_cap = 0.25 * B / (1.0 + 0.6 * ramp[t] * kick)
        gate_cap = 0.12 * S[t] / (1.0 + 0.6 * ramp[t] * kick)
        q_bus = q_gate = inside = quit = sent = 0.0
        for b in range(4):
            q_bus += arrive[b] * town
            carried = min(q_bus, bus_cap)
            drove = 0.4 * (q_bus - carried)
            q_bus = 0.6 * (q_bus - carried)
            q_gate += carried + drove + arrive[b] * campers
            passed = min(q_gate, gate_cap)
            quit += 0.2 * (q_gate - passed)
            q_gate = 0.8 * (q_gate - passed)
            inside += passed
            hosp = max(inc[t] * inside - M, 0.0)
            sent += hosp
            open_ = (1.0 - c) * inside
            u = open_ / (0.3 * Q) if Q > 0 else (np.inf if open_ > 0 else 0.0)
            sold = spend[b] * open_ * (1.0 + u**4) ** (-0.25) if np.isfinite(u) else 0.0
            cost += 4.0 * drove - 5.0 * carried + 1.5 * hosp - sold
        quit += q_bus + q_gate
        refunds += p_d * quit
        miss = (quit + 0.05 * sent) / (town + campers)
        rep = 0.5 * rep + 0.5 * np.exp(-4.0 * miss)
    cost += refunds - min(I, 0.7 * max(refunds - 200.0, 0.0))
    return D, inc, [passes, market, kick], cost


def test_festival_agrees_with_a_loop_over_the_days_and_blocks_of_one_weekend():
    """One day and one block at a time. rtol 1e-10: the same sums in another order; the cost
    is a difference of terms (the passes, tickets, camping, fares and bar sales earned against
    the overhead, the staff and the refunds) up to some 10^5 times larger than itself on these
    rows (one weekend at x0 within 0.1 of break-even), so rounding stays near 1e-11."""
    h = Festival()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 8] += 3.0  # storms: blocks cancelled, gates and shuttles slowed, incidents, damage
    z[12:16, :3] += 2.5  # crowds: the shuttle and gate queues overfull, the name marred
    z[12:16, 3:6] += 2.0  # many incidents: the medical tents overrun
    z[16:20, :3] -= 3.0  # few day visitors: queues empty
    optimum = json.loads((HELDOUT / "optima.json").read_text())["festival"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[170.0, 120.0, 110.0, 0.0, 400.0, 5.0, 0.0, 200.0, 1.0, 0.0, 0.0, 900.0,
                       3000.0])
    # the day tickets, the incident rates, the passes, the market and the storm's excess, then
    # the cost
    assert_rows_agree(h, z, decisions, festival_weekend_by_hand,
                      (slice(0, 3), slice(3, 6), slice(6, 9)))


def test_festival_prices_move_the_sales_and_the_storm_fills_the_tail():
    h = Festival()
    x = h.x0.copy()
    # a dearer day ticket: fewer day tickets each day, more passes sold
    dearer = x.copy()
    dearer[0] += 10.0
    assert np.all(h.day_mean(dearer) < h.day_mean(x)) and h.pass_mean(dearer) > h.pass_mean(x)
    # a dearer pass: fewer passes, a few more day tickets
    dearer = x.copy()
    dearer[1] += 30.0
    assert h.pass_mean(dearer) < h.pass_mean(x) and np.all(h.day_mean(dearer) > h.day_mean(x))
    # dearer camping: fewer campers; the line-up sells day 3 only; marketing sells everything
    dearer = x.copy()
    dearer[2] += 10.0
    assert h.camp_share(dearer) < h.camp_share(x)
    bigger = x.copy()
    bigger[10] += 50.0
    moved = h.day_mean(bigger) / h.day_mean(x)
    np.testing.assert_allclose(moved[:2], 1.0, rtol=1e-12)
    assert moved[2] > 1.0
    louder = x.copy()
    louder[11] += 50.0
    assert np.all(h.day_mean(louder) > h.day_mean(x)) and h.pass_mean(louder) > h.pass_mean(x)
    # a storm (z[8]) keeps day visitors away and multiplies the incidents, most on day 2, and
    # leaves the passes and the market alone
    z = np.zeros((2, h.dim_w))
    z[1, 8] = 3.0
    W = h.transform(x, z)
    assert np.all(W[1, :3] < W[0, :3]) and np.all(W[1, 3:6] > W[0, 3:6])
    assert np.argmax(W[1, 3:6] / W[0, 3:6]) == 1
    np.testing.assert_allclose(W[1, 6:8], W[0, 6:8], rtol=1e-12)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # the same weekend's storm costs less with more weather cover, the cover's price aside
    covered = x.copy()
    covered[9] += 100.0
    assert h.cost(W[1:], covered)[0] - 100.0 < h.cost(W[1:], x)[0] - 1.0
    # without a storm the cover, bought ahead, is only its price
    np.testing.assert_allclose(h.cost(W[:1], covered) - h.cost(W[:1], x), 100.0, rtol=1e-9)
    # more security staff, medics and buses help most in a storm
    for i in (3, 4, 5, 6, 7):
        more = x.copy()
        more[i] *= 1.5
        assert (h.cost(W[1:], more)[0] - h.cost(W[1:], x)[0]
                < h.cost(W[:1], more)[0] - h.cost(W[:1], x)[0]), i
    # at x0 most of the costliest twentieth of the weekends are weekends of a storm (one in
    # twenty)
    z = np.random.default_rng(62).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 8] > 1.64).mean() > 0.5
