"""The held-out property insurer (``benchmarks/heldout/insurer.py``, written after version 7 of
the default, the emergency medical service and the water utility) against a plain loop over
one year, written from its docstring, and its behaviour (the shared row check is that of
``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from insurer import Insurer  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def insurer_year_by_hand(h: Insurer, z, x) -> tuple[list[float], ...]:
    """The new policies, the claim factors and the catastrophe intensities (region by region,
    as in W), the catastrophe's excesses and severities, the market's level, and the cost of
    one year, one quarter and one region at a time."""
    p, r, a, S, F, m = x[0:3], x[3:6], x[6:10], x[10], x[11], x[12:15]
    nb, ref, el, ms = [3.3, 4.3, 2.5], [1600.0, 1000.0, 800.0], [6.0, 7.0, 5.0], [1.0, 1.5, 0.6]
    book0, keep = [120.0, 200.0, 80.0], [1.7, 2.0, 1.6]
    freq, fseason, sev = [0.010, 0.010, 0.007], [1.15, 0.9, 1.0, 0.95], [20.0, 13.0, 14.0]
    e, cseason = [0.4, 0.35, 0.25], [0.7, 0.8, 1.5, 1.0]
    cat, cc = [0.6, 0.3, 0.6], [0.03, 0.015, 0.03]
    C, s = [250.0, 200.0, 120.0], [25.0, 18.0, 12.0]
    leak, expense, u = [0.6, 0.4, 0.4], [0.04, 0.03, 0.03], [1.09, 0.70, 0.61]
    level = np.exp(0.1 * z[44] - 0.005)
    new = [[nb[j] * np.exp(-el[j] * (p[j] / ref[j] - 1.0))
            * (1.0 + 0.6 * (1.0 - np.exp(-m[j] / ms[j]))) * level
            * np.exp(0.15 * z[4 * j + t] - 0.01125) for t in range(4)] for j in range(3)]
    factor = [[np.exp(0.1 * z[12 + 4 * j + t] - 0.005) for t in range(4)] for j in range(3)]
    kick = [max(z[36 + t] - 1.28, 0.0) for t in range(4)]
    severity = [np.exp(0.5 * z[40 + t] - 0.125) for t in range(4)]
    h = [[0.0] * 4 for _ in range(3)]
    for t in range(4):
        weights = [np.exp(np.log(e[j]) + 1.5 * z[24 + 4 * j + t]) for j in range(3)]
        for j in range(3):
            h[j][t] = cseason[t] * kick[t] * severity[t] * 3.0 * weights[j] / sum(weights)
    price = [3.5 * 0.1 * s[j] * (np.exp(-r[j] / s[j]) - np.exp(-(r[j] + C[j]) / s[j]))
             for j in range(3)]
    cost = 4 * (sum(price) + 0.06 * S + 20.0) + 0.04 * sum(a) + 0.08 * F + sum(m)
    old, cur, back, net = list(book0), [0.0] * 3, [0.4, 0.5, 0.2], 0.0
    for t in range(4):
        book = [old[j] + cur[j] for j in range(3)]
        attr = [book[j] * freq[j] * fseason[t] * factor[j][t] for j in range(3)]
        waiting = []
        for j in range(3):
            loss = book[j] * cat[j] * h[j][t]
            net += loss - min(max(loss - r[j], 0.0), C[j])
            waiting.append(back[j] + attr[j] + book[j] * cc[j] * h[j][t])
        claims = sum(waiting)
        own = min(claims, 0.13 * a[t] / (1.0 + 0.5 * kick[t]))
        hired = min(claims - own, S / (1.0 + 0.5 * kick[t]))
        cost += 0.5 * hired
        for j in range(3):
            back[j] = waiting[j] * (1.0 - (own + hired) / claims)
            renew = 1.0 / (1.0 + np.exp(-(keep[j] - 10.0 * (p[j] / ref[j] - 1.0)
                                          - 25.0 * back[j] / book[j])))
            cost += (-0.85 * (ref[j] * old[j] + p[j] * cur[j]) / 4.0 / 1000.0
                     + expense[j] * book[j] + sev[j] * attr[j] + leak[j] * back[j])
            old[j] -= book0[j] / 4.0
            cur[j] += renew * book0[j] / 4.0 + new[j][t]
    cost += net + 0.4 * max(net - F, 0.0)
    for j in range(3):
        cost += 3.0 * leak[j] * back[j] - 2.0 * (0.85 * p[j] / 1000.0 - u[j]) * cur[j]
    return (sum(new, []), sum(factor, []), sum(h, []), kick, severity, [level], cost)


def test_insurer_agrees_with_a_loop_over_the_quarters_and_regions_of_one_year():
    """One quarter and one region at a time. rtol 1e-10: the same sums in another order; the
    cost is a difference of terms (the premiums and the book's value against the claims, the
    treaty and the overhead) at most some three hundred times larger than itself on these
    rows (a few years near break-even), so rounding stays near 1e-13."""
    h = Insurer()
    z = np.random.default_rng(51).standard_normal((40, h.dim_w))
    z[:16, 36:40] += np.repeat(np.eye(4), 4, axis=0) * 2.5  # a catastrophe in each quarter
    z[:2, 40:44] += 2.5  # severe ones: the treaty's capacity runs out, the fund too
    z[16:20, 24:36] *= 3.0  # footprints on one region
    optimum = json.loads((HELDOUT / "optima.json").read_text())["insurer"]["x_star"]
    decisions = (h.x0, 1.3 * h.x0, np.asarray(optimum),
                 np.r_[1000.0, 1800.0, 1500.0, 0.0, 80.0, 5.0, 10.0, 60.0, 0.0, 40.0, 0.0, 0.0,
                       0.0, 3.0, 0.2])
    # the new policies, the claim factors, the intensities, the excesses, the severities, the
    # level, then the cost
    assert_rows_agree(h, z, decisions, insurer_year_by_hand,
                      (slice(0, 12), slice(12, 24), slice(24, 36), slice(36, 40),
                       slice(40, 44), slice(44, 45)))


def test_insurer_policies_fall_with_each_premium_and_the_catastrophe_fills_the_tail():
    # the catastrophe (z[36:40]) leaves the new policies alone: the shared check of a shock
    # that builds the arrivals does not apply, so the premiums are checked one by one and the
    # catastrophe by its claims and costs
    h = Insurer()
    x = h.x0.copy()
    for j, step in enumerate((100.0, 50.0, 50.0)):
        dearer, louder = x.copy(), x.copy()
        dearer[j] += step
        louder[12 + j] += 1.0
        mean = h.new_mean(x)
        for moved, sign in ((h.new_mean(dearer), -1.0), (h.new_mean(louder), 1.0)):
            assert sign * (moved[j] - mean[j]) > 0.0
            np.testing.assert_allclose(np.delete(moved, j), np.delete(mean, j), rtol=1e-12)
    # a third-quarter catastrophe: that quarter's intensities only, a larger one costs more
    z = np.zeros((3, h.dim_w))
    z[1, 38], z[2, 38] = 3.0, 6.0
    W = h.transform(x, z)
    np.testing.assert_allclose(W[1:, :24], W[:1, :24].repeat(2, axis=0), rtol=1e-12)
    quarter = np.arange(24, 36)[2::4]
    assert np.all(W[0, 24:36] == 0.0) and np.all(W[2, quarter] > W[1, quarter])
    assert np.all(W[1:, np.setdiff1d(np.arange(24, 36), quarter)] == 0.0)
    c = h.cost(W, x)
    assert c[2] - c[1] > c[1] - c[0] > 0.0  # its cost grows faster than its excess
    # a lower retention costs its price in a calm year and saves in a catastrophe's (the
    # smaller one: the larger one exhausts the layer, which moves down with the retention)
    covered = x.copy()
    covered[3:6] *= 0.5
    ck = h.cost(W, covered)
    price = h.treaty_price(covered).sum() - h.treaty_price(x).sum()
    np.testing.assert_allclose(ck[0] - c[0], 4.0 * price, rtol=1e-10)
    assert ck[1] < c[1]
    # at x0 most of the costliest twentieth of the years hold a catastrophe (a third of them do)
    z = np.random.default_rng(52).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 36:40] > 1.28).any(axis=1).mean() > 0.9
