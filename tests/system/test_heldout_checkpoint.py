"""The held-out security checkpoint (``benchmarks/heldout/checkpoint.py``, written after version
12 of the default) against a plain loop over one day, written from its docstring, and its
behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from checkpoint import Checkpoint  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def checkpoint_day_by_hand(h: Checkpoint, z, x) -> tuple[list[float], ...]:
    """The day's passengers and the scanners' failure factors of each block, the level, the
    officers present, the spend level and the shock's excess, and the cost of one day, one
    block at a time."""
    f, P, L_m, L_d, L_e, O_1, O_2, S, K, C, R, M, D, B = x
    prof = [0.09, 0.18, 0.15, 0.10, 0.09, 0.11, 0.16, 0.12, 0.0]
    w = [0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 1.0]
    lanes = [L_m, L_m, L_m, L_d, L_d, L_e, L_e, L_e]
    officers = [O_1] * 4 + [O_2] * 4
    level = np.exp(0.05 * z[16] - 0.00125)
    absent = np.exp(0.08 * z[17] - 0.0032)
    spend = np.exp(0.05 * z[18] - 0.00125)
    kick = max(z[19] - 1.64, 0.0)
    pro = 1.0 - np.exp(-P / 10.0)
    s = 0.25 * pro
    shares = [prof[0] + s * prof[1]] + [(1.0 - s) * prof[t] + s * prof[t + 1]
                                        for t in range(1, 8)]
    own = [150.0 * shares[t] * level * np.exp(0.15 * z[t] - 0.01125) for t in range(8)]
    late = [(1.0 - np.exp(-0.5 * w[t] * kick)) * own[t] if t < 7 else 0.0 for t in range(8)]
    arrivals = [own[t] - late[t] + (late[t - 1] if t > 0 else 0.0) for t in range(8)]
    fault = [np.exp(0.3 * z[8 + t] - 0.045) * (1.0 + 2.0 * w[t] * kick) for t in range(8)]
    phi = 0.25 * np.exp(-1.5 * (f / 12.0 - 1.0))
    cost = (90.0 + P + 0.4 * (3 * L_m + 2 * L_d + 3 * L_e) + 0.4 * (O_1 + O_2) + 0.6 * S
            + 4.0 * K + 0.25 * C + 0.4 * R + M + 1.5 * D + 1.5 * B)
    care = 0.3 + 0.7 * np.exp(-M / 3.0)
    gain = 1.0 + 0.08 * (1.0 - np.exp(-D / 2.0))
    q_s = q_f = broken = missed = 0.0
    for t in range(8):
        storm = w[t] * kick
        broken += (S - broken) * (1.0 - np.exp(-0.15 * care * fault[t]))
        up = S - broken
        want_s = q_s + (1.0 - phi) * arrivals[t]
        want_f = q_f + phi * arrivals[t]
        speed = gain / (1.0 + storm / (1.0 + 0.2 * D))
        d_s = min(lanes[t], up, want_s / (3.0 * speed))
        d_f = min(K, want_f / (2.5 * speed))
        avail = officers[t] * absent * np.exp(-0.6 * storm)
        call = min(C * np.exp(-0.6 * storm), max(4.0 * d_s + 3.0 * d_f - avail, 0.0))
        staff = avail + call
        open_f = min(d_f, staff / 3.0)
        open_s = min(d_s, (staff - 3.0 * open_f) / 4.0)
        done_s = min(want_s, 3.0 * speed * open_s)
        done_f = min(want_f, 2.5 * speed * open_f)
        fix = min(broken, 0.6 * R)
        broken -= fix
        miss_s, miss_f = 0.3 * (want_s - done_s), 0.3 * (want_f - done_f)
        q_s, q_f = want_s - done_s - miss_s, want_f - done_f - miss_f
        missed += miss_s + miss_f
        cost += 0.4 * call + 1.0 * fix
        cost += 0.5 * q_s * (1.0 + q_s / 10.0) + 1.0 * q_f * (1.0 + q_f / 10.0)
        cost -= 0.1 * f * (phi * arrivals[t] - miss_f)  # fast-track fees, the missed refunded
        cost -= 0.6 * 0.3 * pro * spend * (done_s + done_f)
    missed += q_s + q_f
    cost += 0.1 * f * q_f
    cost += 5.0 * missed + 15.0 * max(missed - B, 0.0) + 0.3 * broken
    return arrivals, fault, [level, absent, spend, kick], cost


def test_checkpoint_agrees_with_a_loop_over_the_blocks_of_one_day():
    """One block at a time. rtol 1e-10: the same sums in another order; the cost is a difference
    of terms (the fixed costs and the queues against the fees and the spend) at most some ten
    times larger than itself on these rows, so rounding stays near 1e-13."""
    h = Checkpoint()
    z = np.random.default_rng(91).standard_normal((40, h.dim_w))
    z[:12, 19] += 3.0  # alerts: flights bunched, lanes slowed, officers away, scanners broken
    z[12:16, :8] += 2.5  # a rush: queues, missed flights, the reserve used up
    z[16:20, :8] -= 2.5  # few passengers: lanes idle
    z[20:24, 8:16] += 3.0  # scanners failing: technicians short
    z[24:28, 17] -= 3.0  # officers off sick: the overflow called
    decisions = [h.x0, 1.4 * h.x0,
                 np.r_[6.0, 0.0, 3.0, 2.0, 3.0, 10.0, 12.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                       0.0],
                 np.r_[24.0, 80.0, 12.0, 9.0, 10.0, 60.0, 70.0, 14.0, 6.0, 40.0, 4.0, 8.0,
                       8.0, 6.0],
                 np.r_[12.0, 10.0, 7.0, 4.0, 6.0, 30.0, 35.0, 7.0, 4.0, 30.0, 2.0, 4.0, 5.0,
                       2.0]]
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "checkpoint" in optima:
        decisions.append(np.asarray(optima["checkpoint"]["x_star"]))
    assert_rows_agree(h, z, decisions, checkpoint_day_by_hand,
                      (slice(0, 8), slice(8, 16), slice(16, 20)))


def test_checkpoint_price_moves_the_fast_track_and_the_alert_fills_the_tail():
    h = Checkpoint()
    x = h.x0.copy()
    # a dearer fast track: a smaller share buys it, and the day's passengers are as they were
    dearer = x.copy()
    dearer[0] += 3.0
    assert h.fast_share(dearer) < h.fast_share(x)
    z = np.random.default_rng(92).standard_normal((5, h.dim_w))
    np.testing.assert_allclose(h.transform(dearer, z), h.transform(x, z), rtol=1e-12)
    # the promotion pulls passengers a block earlier, with diminishing returns; none is lost
    pulls = [h.profile(np.r_[x[0], p, x[2:]]) for p in (0.0, 10.0, 20.0)]
    np.testing.assert_allclose([p.sum() for p in pulls], 1.0, rtol=1e-12)
    gain = [p[0] for p in pulls]
    assert gain[0] < gain[1] < gain[2] and gain[2] - gain[1] < gain[1] - gain[0]
    # an alert (z[19]) bunches the flights late in the day without adding passengers
    z = np.zeros((2, h.dim_w))
    z[1, 19] = 3.0
    W = h.transform(x, z)
    np.testing.assert_allclose(W[1, :8].sum(), W[0, :8].sum(), rtol=1e-12)
    assert W[1, 7] > W[0, 7] and W[1, 0] < W[0, 0]
    assert np.all(W[1, 8:16] > W[0, 8:16])  # scanners break more
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0] + 100.0
    # the rebooking reserve costs its fee on a quiet day and pays on the alert's
    reserved = x.copy()
    reserved[13] += 2.0
    np.testing.assert_allclose(h.cost(W[:1], reserved) - h.cost(W[:1], x), 3.0, rtol=1e-9)
    assert h.cost(W[1:], reserved)[0] < h.cost(W[1:], x)[0] - 20.0
    # at x0 the days of an alert (one in twenty) are some eight times as many among the
    # costliest twentieth of the days as among all (the rest: rushes and officers off sick)
    z = np.random.default_rng(93).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 19] > 1.64).mean() > 0.35
