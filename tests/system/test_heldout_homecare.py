"""The held-out home-care agency (``benchmarks/heldout/homecare.py``, written after version 15 of
the default) against a plain loop over the weeks and districts of one month, written from its
docstring, and its behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from homecare import HomeCare  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def lognormal(sd, u):
    return math.exp(sd * u - 0.5 * sd * sd)


def homecare_month_by_hand(h: HomeCare, z, x) -> tuple[list[float], ...]:
    """Each week and district's private and council hours wanted and share of carers off sick,
    each week's discharges and attrition hazard, the month's level, the outbreak's excess, and
    the cost of one month, one week and one district at a time."""
    f, b, E1, E2, E3, B, Ag, C, R, Q, S, H, u, V = (float(v) for v in x)
    z = [float(v) for v in z]
    p, k, m = [6.0, 4.5, 1.8], [7.0, 5.5, 3.5], [0.45, 0.35, 0.2]
    w = [0.3, 0.6, 0.9, 1.0]
    level = lognormal(0.06, z[44])
    kick = max(z[45] - 1.64, 0.0)
    fee = math.exp(-2.2 * (f / 46.0 - 1.0))
    bid = math.exp(-4.0 * (b / 34.0 - 1.0))
    priv, coun, sick, dis, att = [], [], [], [], []
    for t in range(4):
        storm = w[t] * kick
        for a in range(3):
            priv.append(p[a] * fee * level * (1.0 + 0.3 * storm) * lognormal(0.1, z[3 * t + a]))
            coun.append(k[a] * bid * level * (1.0 + 0.3 * storm)
                        * lognormal(0.08, z[12 + 3 * t + a]))
            sick.append(1.0 - math.exp(-0.05 * (1.0 + 5.0 * storm)
                                       * lognormal(0.3, z[24 + 3 * t + a])))
        dis.append(60.0 * bid * (1.0 + 1.5 * storm) * lognormal(0.2, z[36 + t]))
        att.append(0.01 * (1.0 + storm) * lognormal(0.25, z[40 + t]))

    travel = [0.12, 0.2, 0.35 * (0.55 + 0.45 * math.exp(-C / 60.0))]
    sched = 1.0 - 0.2 * math.exp(-S / 15.0)
    eff = [(1.0 - travel[a]) * sched for a in range(3)]
    err = 0.2 + 0.8 * math.exp(-Q / 40.0)
    ret = 0.4 + 0.6 * math.exp(-R / 60.0)

    cost = (400.0 + 0.1 * 4 * B + 4.0 * 4 * Ag + 0.12 * 4 * C + 1.3 * 4 * S + 0.3 * 4 * H
            + R + Q + 0.1 * V)
    N = [E1, E2, E3]
    wp, wk, pk = [0.0] * 3, [0.0] * 3, [0.0] * 3
    dwait, g, penalties = 0.0, 1.0, 0.0
    for t in range(4):
        storm = w[t] * kick
        dq = dwait + g * dis[t]
        setup = min(dq, H)
        delayed = dq - setup
        cost += 1.0 * delayed
        penalties += 1.0 * delayed
        dwait = 0.5 * delayed

        want_p = [wp[a] + g * priv[3 * t + a] for a in range(3)]
        want_k = [wk[a] + g * coun[3 * t + a] + pk[a] for a in range(3)]
        at_work = [N[a] * (1.0 - sick[3 * t + a]) for a in range(3)]
        rest, own, ot, otcap = [], [], [], []
        for a in range(3):
            made = min(want_p[a] + want_k[a], 0.0375 * at_work[a] * eff[a])
            own.append(made)
            rest.append(want_p[a] + want_k[a] - made)
        bank = min(sum(rest), 0.012 * B / (1.0 + 0.8 * storm))
        short = sum(rest)
        rest = [r - bank * r / short if short > 0.0 else 0.0 for r in rest]
        for a in range(3):
            otcap.append(u * at_work[a] * eff[a] / 1000.0)
            ot.append(min(rest[a], otcap[a]))
            rest[a] -= ot[a]
        agency = min(sum(rest), Ag / (1.0 + 0.5 * storm))
        short = sum(rest)
        left = [r - agency * r / short if short > 0.0 else 0.0 for r in rest]

        for a in range(3):
            want = want_p[a] + want_k[a]
            done = 1.0 - left[a] / want if want > 0.0 else 1.0
            cost -= f * want_p[a] * done + b * want_k[a] * done
            cost += 0.5625 * N[a] + 22.5 * ot[a] / eff[a]
        cost += 26.0 * bank + 38.0 * agency
        cost += 25.0 * sum(left)
        penalties += 25.0 * sum(left)
        incidents = 0.25 * err * (1.0 + storm) * (sum(own) + sum(ot) + 2.0 * (bank + agency))
        cost += 4.0 * incidents
        penalties += 4.0 * incidents

        for a in range(3):
            share_left = left[a] / (want_p[a] + want_k[a]) if want_p[a] + want_k[a] > 0 else 0.0
            wp[a] = 0.7 * want_p[a] * share_left
            wk[a] = 0.7 * want_k[a] * share_left
        g *= math.exp(-1.5 * 0.3 * sum(left) / 30.0)
        pk = [0.8 * pk[a] + 0.012 * setup * m[a] for a in range(3)]
        for a in range(3):
            hours = ot[a] * 1000.0 / eff[a] / at_work[a] if at_work[a] > 0.0 else 0.0
            hazard = att[t] * ret * (1.0 + (hours / 5.0) ** 2)
            stay = N[a] * math.exp(-hazard)
            cost += 6.0 * (N[a] - stay)
            N[a] = stay
    cost += 40.0 * (sum(wp) + sum(wk)) + 2.0 * dwait + 4000.0 * (1.0 - g)
    cost -= min(V, 0.5 * max(penalties - 100.0, 0.0))
    return priv, coun, sick, dis, att, [level], [kick], cost


def test_homecare_agrees_with_a_loop_over_the_weeks_and_districts_of_one_month():
    """One week and one district at a time. rtol 1e-10: the same sums in another order; the
    cost is a difference of terms (the wages, the outsiders and the penalties against the fees)
    up to some hundred times larger than itself on these rows (at x0 in a quiet month the fees
    nearly pay the month's costs), so rounding stays near 1e-13."""
    h = HomeCare()
    z = np.random.default_rng(141).standard_normal((40, h.dim_w))
    z[:12, 45] += 3.0  # outbreaks: referrals and discharges up, carers sick, bank and agency away
    z[12:16, :24] += 2.0  # a busy month: the carers short, the bank, overtime and agency used
    z[16:20, 24:36] += 3.0  # many carers off sick
    z[20:24, 36:40] += 2.5  # many discharges: the liaison team short, discharges delayed
    z[24:28, 44] -= 3.0  # a quiet month: the carers idle
    z[28:32, 40:44] += 3.0  # many carers leaving
    x = h.x0
    decisions = [x, np.r_[x[:2], 0.5 * x[2:]], np.r_[x[:2], 2.0 * x[2:]],
                 np.r_[30.0, 22.0, 300.0, 250.0, 120.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 10.0,
                       0.0, 0.0],
                 np.r_[80.0, 60.0, 600.0, 500.0, 300.0, 200.0, 8.0, 120.0, 200.0, 100.0, 60.0,
                       100.0, 15.0, 500.0]]
    rng = np.random.default_rng(142)
    low, high = np.array([23.0, 17.0] + [0.0] * 12), np.r_[92.0, 68.0, 2.0 * x[2:]]
    decisions.append(low + (high - low) * rng.random(h.dim_x))
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "homecare" in optima:
        decisions.append(np.asarray(optima["homecare"]["x_star"]))
    assert_rows_agree(h, z, decisions, homecare_month_by_hand,
                      (slice(0, 12), slice(12, 24), slice(24, 36), slice(36, 40),
                       slice(40, 44), slice(44, 45), slice(45, 46)))


def test_homecare_fee_and_bid_move_the_demand_and_the_outbreak_fills_the_tail():
    h = HomeCare()
    x = h.x0.copy()
    z = np.random.default_rng(143).standard_normal((5, h.dim_w))
    W = h.transform(x, z)
    # a dearer fee: fewer private hours, by the elasticity alone, the rest as it was
    dearer = x.copy()
    dearer[0] += 10.0
    Wd = h.transform(dearer, z)
    assert np.all(Wd[:, :12] < W[:, :12])
    np.testing.assert_allclose(Wd[:, :12] / W[:, :12], math.exp(-2.2 * 10.0 / 46.0), rtol=1e-12)
    np.testing.assert_allclose(Wd[:, 12:], W[:, 12:], rtol=1e-12)
    # a higher bid wins fewer council packages and fewer discharges, the private work as it was
    higher = x.copy()
    higher[1] += 5.0
    Wb = h.transform(higher, z)
    assert np.all(Wb[:, 12:24] < W[:, 12:24]) and np.all(Wb[:, 36:40] < W[:, 36:40])
    lost = math.exp(-4.0 * 5.0 / 34.0)
    np.testing.assert_allclose(Wb[:, 12:24] / W[:, 12:24], lost, rtol=1e-12)
    np.testing.assert_allclose(Wb[:, 36:40] / W[:, 36:40], lost, rtol=1e-12)
    np.testing.assert_allclose(Wb[:, :12], W[:, :12], rtol=1e-12)
    np.testing.assert_allclose(Wb[:, 24:36], W[:, 24:36], rtol=1e-12)
    # an outbreak (z[45]) lifts the referrals, more the discharges, more in the later weeks,
    # and makes carers sick and leave; on common noise the ratios are the docstring's factors
    z = np.zeros((2, h.dim_w))
    z[1, 45] = 3.0
    W = h.transform(x, z)
    kick = 3.0 - 1.64
    storm = np.array([0.3, 0.6, 0.9, 1.0]) * kick
    np.testing.assert_allclose(W[1, :24] / W[0, :24], np.tile(np.repeat(1.0 + 0.3 * storm, 3), 2),
                               rtol=1e-12)
    np.testing.assert_allclose(W[1, 36:40] / W[0, 36:40], 1.0 + 1.5 * storm, rtol=1e-12)
    np.testing.assert_allclose(W[1, 40:44] / W[0, 40:44], 1.0 + storm, rtol=1e-12)
    e3 = math.exp(-0.5 * 0.3**2)
    np.testing.assert_allclose(W[:, 24:36], [[1.0 - math.exp(-0.05 * e3)] * 12,
                                             np.repeat(1.0 - np.exp(-0.05 * (1.0 + 5.0 * storm)
                                                                    * e3), 3)], rtol=1e-12)
    level = math.exp(-0.5 * 0.06**2)
    np.testing.assert_allclose(W[:, 44:], [[level, 0.0], [level, kick]], rtol=1e-12)
    c = h.cost(W, x)
    assert c[1] > c[0] + 3000.0
    # more cover: its premium (0.1 a $k) is all it costs in a quiet month, where half the
    # penalties (the delayed discharges and the incidents) above the retention stay below the
    # cover; in the outbreak's month they exceed the larger cover, which then pays in full
    covered = x.copy()
    covered[13] += 50.0
    np.testing.assert_allclose(h.cost(W, covered) - c, [5.0, 5.0 - 50.0], rtol=1e-9)
    # the outbreaks (one month in twenty) are about half of the costliest twentieth of the
    # months and nearly all of the costliest fiftieth (the rest: quiet months, the carers paid
    # and idle)
    z = np.random.default_rng(144).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    outbreak = z[:, 45] > 1.64
    assert outbreak[c >= np.quantile(c, 0.95)].mean() > 0.45
    assert outbreak[c >= np.quantile(c, 0.98)].mean() > 0.9
    # the fee and the bid trade their margin against the work they lose: the month's mean cost
    # is lowest inside each range
    for j, rates in ((0, (30.0, 46.0, 80.0)), (1, (20.0, 35.0, 60.0))):
        means = [h.cost(h.transform(q, z[:4000]), q).mean()
                 for q in (np.r_[x[:j], rate, x[j + 1:]] for rate in rates)]
        assert means[1] < means[0] and means[1] < means[2]
