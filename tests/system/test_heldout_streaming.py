"""The held-out streaming service (``benchmarks/heldout/streaming.py``, written after version 11
of the default and the flu-vaccine maker, the lender and the car-rental company) against a plain
loop over one year, written from its docstring, and its behaviour (the shared checks are those
of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from streaming import Streaming  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def streaming_year_by_hand(h: Streaming, z, x) -> tuple[list[float], ...]:
    """The sign-ups and the hazards of the three plans (plan by plan, quarter by quarter), the
    peak shares, the hits, the economy and the shock's excess, and the cost of one year, one
    quarter and one plan at a time."""
    p_b, p_p, a, K_1, K_2, S, B = x[0], x[1], x[2], x[3], x[4], x[5], x[6]
    A, R, M_1, M_2, I = x[7:11], x[11], x[12], x[13], x[14]
    p_a = (1.0 - a) * p_b
    price = [p_b, p_p, p_a]
    ref = [10.0, 18.0, 6.0]
    ubase = [1.6, 0.9, 0.8]
    hbase = [0.09, 0.06, 0.12]
    season = [1.0, 0.9, 1.0, 1.2]
    ramp = [0.0, 0.0, 1.0, 1.0]
    worth = [20.0, 35.0, 15.0]
    content = [K_1, K_1, K_2, K_2]
    marketing = [M_1, M_1, M_2, M_2]
    econ = np.exp(0.1 * z[31] - 0.005)
    kick = max(z[32] - 1.64, 0.0)
    f_a = np.exp(-0.8 * (p_a / 6.0 - 1.0))
    factor = [np.exp(-1.2 * (p_b / 10.0 - 1.0) + 0.15 * (p_p / 18.0 - 1.0) - 0.3 * (f_a - 1.0)),
              np.exp(-1.2 * (p_p / 18.0 - 1.0)), f_a]
    ups, hazards = [], []
    for j in range(3):
        for t in range(4):
            c = 1.0 - np.exp(-content[t] / 50.0)
            lift = 1.0 + 0.3 * (1.0 - np.exp(-marketing[t] / 15.0))
            ups.append(ubase[j] * season[t] * lift * (1.0 + 0.5 * c) * factor[j] * econ
                       * np.exp(0.15 * z[4 * j + t] - 0.01125))
    for j in range(3):
        for t in range(4):
            c = 1.0 - np.exp(-content[t] / 50.0)
            hazards.append(hbase[j] * np.exp(1.5 * (price[j] / ref[j] - 1.0))
                           * np.exp(-0.4 * c) * np.exp(ramp[t] * kick)
                           * np.exp(0.2 * z[12 + 4 * j + t] - 0.02))
    peaks = [0.25 * np.exp(0.4 * ramp[t] * kick) * np.exp(0.15 * z[24 + t] - 0.01125)
             for t in range(4)]
    hits = [(1.0 - np.exp(-content[t] / 50.0)) * np.exp(0.8 * z[28 + t] - 0.32)
            for t in range(3)]
    keep = 0.3 * (1.0 - np.exp(-R / 4.0))
    cost = 0.15 * I
    subs = [10.0, 3.0, 3.0]
    backlog, refunds = 0.0, 0.0
    for t in range(4):
        boost = 1.0 + 0.3 * hits[t - 1] if t > 0 else 1.0
        here = [subs[j] + ups[4 * j + t] * boost for j in range(3)]
        n = sum(here)
        P = peaks[t] * n
        burst = min(max(P - S, 0.0), B)
        buf = max(P - S - B, 0.0)
        new = 0.05 * n + 0.5 * buf + 0.1 * ramp[t] * kick * n
        u = max(backlog + new - 0.1 * A[t], 0.0)
        backlog = 0.8 * u
        m = (1.0 + 3.0 * buf / P) * (1.0 + 1.5 * u / n)
        earned = 0.0
        for j in range(3):
            leave = 1.0 - np.exp(-hazards[4 * j + t] * m)
            subs[j] = here[j] - (1.0 - keep) * leave * here[j]
            earned += 3.0 * price[j] * subs[j]
        earned += 3.0 * 3.0 * subs[2]
        refund = 8.0 * ramp[t] * kick * n
        refunds += refund
        cost += (content[t] + marketing[t] + 10.0 * S + 4.0 * B
                 + 12.0 * np.exp(ramp[t] * kick) * burst + 1.2 * A[t] + R + 760.0 + refund
                 - earned)
    cost += -sum(worth[j] * subs[j] for j in range(3)) + 20.0 * backlog
    cost -= min(I, 0.8 * max(refunds - 30.0, 0.0))
    return ups, hazards, peaks, hits, [econ, kick], cost


def test_streaming_agrees_with_a_loop_over_the_quarters_and_plans_of_one_year():
    """One quarter and one plan at a time. rtol 1e-10: the same sums in another order; the cost
    is a difference of terms (the subscriptions earned and the subscribers' worth against the
    overhead, the content and the servers) some thousand times larger than itself at worst on
    these rows (a year near break-even at x0), so rounding stays near 1e-12."""
    h = Streaming()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 32] += 3.0  # the rival's launch and the outage: churn, binges, refunds, dear bursts
    z[12:16, 24:28] += 3.0  # peaks far beyond the servers and the burst contract: buffering
    z[16:20, :12] += 2.0  # crowds of sign-ups: complaints beyond the agents, a backlog
    z[20:24, 12:24] -= 3.0  # hardly anyone leaves
    optimum = json.loads((HELDOUT / "optima.json").read_text())["streaming"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[20.0, 9.0, 0.9, 0.0, 200.0, 0.0, 0.0, 0.0, 30.0, 0.0, 2.0, 0.0, 0.0,
                       80.0, 300.0])
    # the sign-ups, the hazards, the peak shares, the hits, the economy and the kick, the cost
    assert_rows_agree(h, z, decisions, streaming_year_by_hand,
                      (slice(0, 12), slice(12, 24), slice(24, 28), slice(28, 31),
                       slice(31, 33)))


def test_streaming_prices_move_the_plans_and_the_shock_fills_the_tail():
    h = Streaming()
    x = h.x0.copy()
    base_up, base_h = h.signup_mean(x), h.hazard_mean(x)
    # a dearer basic: fewer basic sign-ups, more basic churn; premium as it was
    dearer = x.copy()
    dearer[0] += 2.0
    assert np.all(h.signup_mean(dearer)[0] < base_up[0])
    assert np.all(h.hazard_mean(dearer)[0] > base_h[0])
    np.testing.assert_allclose(h.signup_mean(dearer)[1], base_up[1], rtol=1e-12)
    # a dearer premium: fewer premium sign-ups, a few more basic ones
    dearer = x.copy()
    dearer[1] += 4.0
    assert np.all(h.signup_mean(dearer)[1] < base_up[1])
    assert np.all(h.signup_mean(dearer)[0] > base_up[0])
    assert np.all(h.hazard_mean(dearer)[1] > base_h[1])
    # a deeper ad discount: more ad sign-ups, fewer basic ones, less ad churn
    deeper = x.copy()
    deeper[2] += 0.2
    assert np.all(h.signup_mean(deeper)[2] > base_up[2])
    assert np.all(h.signup_mean(deeper)[0] < base_up[0])
    assert np.all(h.hazard_mean(deeper)[2] < base_h[2])
    # content: more sign-ups and less churn in its own quarters, with diminishing returns
    more = x.copy()
    more[3] += 20.0
    assert np.all(h.signup_mean(more)[:, :2] > base_up[:, :2])
    assert np.all(h.hazard_mean(more)[:, :2] < base_h[:, :2])
    np.testing.assert_allclose(h.signup_mean(more)[:, 2:], base_up[:, 2:], rtol=1e-12)
    much = x.copy()
    much[3] += 40.0
    assert np.all(h.signup_mean(much)[:, 0] - h.signup_mean(more)[:, 0]
                  < h.signup_mean(more)[:, 0] - base_up[:, 0])
    # the shock (z[32]) multiplies the churn and the peaks of quarters 3-4 only, and leaves
    # the sign-ups, the hits and the economy alone
    z = np.zeros((2, h.dim_w))
    z[1, 32] = 3.0
    W = h.transform(x, z)
    np.testing.assert_allclose(W[1, :12], W[0, :12], rtol=1e-12)
    hz = W[:, 12:24].reshape(2, 3, 4)
    np.testing.assert_allclose(hz[1, :, :2], hz[0, :, :2], rtol=1e-12)
    assert np.all(hz[1, :, 2:] > 3.0 * hz[0, :, 2:])
    assert np.all(W[1, 26:28] > W[0, 26:28])
    np.testing.assert_allclose(W[1, 28:32], W[0, 28:32], rtol=1e-12)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # more servers cut the buffering of the shock's surge; the insurance pays in the shock
    covered = x.copy()
    covered[14] = 0.0
    assert h.cost(W[1:], x)[0] < h.cost(W[1:], covered)[0]
    assert h.cost(W[:1], x)[0] > h.cost(W[:1], covered)[0]
    # with no agents and no servers the year costs more, in the shock much more
    bare = x.copy()
    bare[5] = 0.0
    bare[7:11] = 0.0
    assert np.all(h.cost(W, bare) > h.cost(W, x))
    # at x0 most of the costliest twentieth of the years are years of the shock (one in twenty)
    z = np.random.default_rng(62).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 32] > 1.64).mean() > 0.5
