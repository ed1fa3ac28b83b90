"""The held-out university (``benchmarks/heldout/university.py``, written after version 13 of
the default) against a plain loop over one academic year, written from its docstring, and its
behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from test_heldout import assert_rows_agree  # noqa: E402
from university import University  # noqa: E402


def lognormal(sd, u):
    return np.exp(sd * u - 0.5 * sd * sd)


def university_year_by_hand(h: University, z, x) -> tuple[list[float], ...]:
    """The intakes, the continuing students, each period's counselling cases per student, fx,
    dropout factor and course load per student, the shock's excess and the cost of one year,
    one period and one group at a time."""
    f_d, f_i, S, M, L, A, B, C, P, J, H, V, G = x
    w = [0.2, 0.4, 0.6, 0.8, 0.9, 1.0]
    kick = max(z[30] - 1.64, 0.0)
    s = 1.0 - np.exp(-S / 300.0)
    m = 1.0 - np.exp(-M / 250.0)
    lift_d = (1.0 + 0.25 * s) * (1.0 + 0.08 * m)
    lift_i = (1.0 + 0.15 * s) * (1.0 + 0.5 * m)
    fac_d = np.exp(-1.4 * (f_d / 9.0 - 1.0))
    fac_i = np.exp(-1.6 * (f_i / 24.0 - 1.0))
    intakes = [400.0 * fac_d * lift_d * lognormal(0.08, z[0]),
               150.0 * fac_i * lift_i * lognormal(0.15, z[1]) * np.exp(-2.0 * w[0] * kick),
               100.0 * fac_d * lift_d * lognormal(0.15, z[2]),
               60.0 * fac_i * lift_i * lognormal(0.2, z[3]) * np.exp(-2.0 * w[2] * kick)]
    continuing = [900.0 * lognormal(0.03, z[4]), 200.0 * lognormal(0.05, z[5])]
    cases, fx, haz, load = [], [], [], []
    for t in range(6):
        storm = w[t] * kick
        cases.append(0.05 * (1.0 + 3.0 * storm) * lognormal(0.2, z[6 + t]))
        fx.append(lognormal(0.05, z[12 + t]) * np.exp(-0.2 * storm))
        haz.append(lognormal(0.2, z[18 + t]))
        load.append([1.0, 1.0, 1.0, 1.0, 0.5, 0.2][t] * lognormal(0.05, z[24 + t]))
    cost = (6000.0 + S + M + 90.0 * L + 2.4 * A + 6.0 * B + 60.0 * C + 0.3 * P + 0.5 * J + H
            + 0.1 * V)
    hardship = 1.0 - 0.4 * (1.0 - np.exp(-H / 150.0))
    # the groups: (students, fee, base hazard, storm hazard, international)
    groups = [[continuing[0], 8.5, 0.010, 0.02, False],
              [continuing[1], 22.0, 0.008, 0.05, True],
              [intakes[0], f_d, 0.010 * 1.5 * np.exp(0.6 * (f_d / 9.0 - 1.0)), 0.02, False],
              [intakes[1], f_i, 0.008 * 1.5 * np.exp(0.6 * (f_i / 24.0 - 1.0)), 0.05, True]]
    waiting, waitlist, reputation, forgone = 0.0, 0.0, 1.0, 0.0
    for t in range(6):
        storm = w[t] * kick
        if t == 2:  # the January intake
            a_d, a_i = intakes[2] * reputation, intakes[3] * reputation
            admitted = min(a_d + a_i, J)
            groups[2][0] += admitted * a_d / (a_d + a_i)
            groups[3][0] += admitted * a_i / (a_d + a_i)
        n = sum(g[0] for g in groups)
        online_share = 0.05 + 0.9 * (1.0 - np.exp(-1.2 * storm))
        need = load[t] * n + waiting
        not_online = max(online_share * need - P, 0.0)
        by_lecturers = min(need - not_online, 25.0 * L)
        by_adjuncts = min(need - not_online - by_lecturers, A)
        waiting = need - by_lecturers - by_adjuncts
        cost += 0.5 * by_adjuncts + 0.4 * waiting
        work = waitlist + cases[t] * n
        waitlist = 0.7 * (work - min(work, 12.0 * C))
        cost += 0.1 * waitlist
        dropped = 0.0
        for g in groups:
            h = (g[2] * (1.0 + 2.0 * waiting / n + 4.0 * waitlist / n) + g[3] * storm) * hardship
            drop = g[0] * (1.0 - np.exp(-h * haz[t]))
            g[0] -= drop
            dropped += drop
            fees = (g[0] + 0.5 * drop) * g[1] / 6.0
            cost -= fees * fx[t] if g[4] else fees
            forgone += drop * g[1] * (6 - (t + 1) + 0.5) / 6.0
        cost += 5.0 * dropped
        rooms = (0.2 * (groups[0][0] + groups[2][0]) * (1.0 - online_share)
                 + 0.85 * (groups[1][0] + groups[3][0]))
        cost += 2.5 * (1.0 + 0.5 * storm) * max(rooms - B, 0.0) - 0.8 * rooms
        cost += G * (fx[t] - 0.98)
        reputation *= np.exp(-2.0 * (dropped + 0.3 * waiting + 0.3 * waitlist) / n)
    cost += 4000.0 * (1.0 - reputation)
    cost -= min(V, 0.5 * max(forgone - 800.0, 0.0))
    return intakes, continuing, cases, fx, haz, load, [kick], cost


def test_university_agrees_with_a_loop_over_the_periods_of_one_year():
    """One period and one group at a time. rtol 1e-10: the same sums in another order; the cost
    is a difference of terms (the fees against the overhead and the staff) a few times larger
    than itself at worst on these rows, so rounding stays near 1e-13."""
    h = University()
    z = np.random.default_rng(111).standard_normal((40, h.dim_w))
    z[:12, 30] += 3.0  # shock years: international intakes cut, teaching online, dropouts
    z[12:16, :4] += 2.5  # eager applicants: the January places bind, the teaching too
    z[16:20, 24:30] += 3.0  # heavy course loads: students wait for their courses
    z[20:24, 6:12] += 3.0  # many counselling cases: a waitlist
    z[24:28, 12:18] -= 3.0  # weak currencies: the hedge pays
    z[28:32, 18:24] += 3.0  # many dropouts: the cover pays
    decisions = [h.x0, 1.4 * h.x0,
                 np.r_[4.5, 12.0, 0.0, 0.0, 20.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                 np.r_[18.0, 48.0, 600.0, 700.0, 90.0, 500.0, 1200.0, 15.0, 1500.0, 400.0,
                       400.0, 900.0, 600.0],
                 np.r_[11.0, 20.0, 300.0, 400.0, 65.0, 150.0, 600.0, 8.0, 700.0, 200.0,
                       250.0, 150.0, 250.0]]
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "university" in optima:
        decisions.append(np.asarray(optima["university"]["x_star"]))
    assert_rows_agree(h, z, decisions, university_year_by_hand,
                      (slice(0, 4), slice(4, 6), slice(6, 12), slice(12, 18), slice(18, 24),
                       slice(24, 30), slice(30, 31)))


def test_university_fees_move_the_intakes_and_the_shock_fills_the_tail():
    h = University()
    x = h.x0.copy()
    # a dearer fee: fewer new students of its kind, the other kind's as they were
    dearer_d, dearer_i = x.copy(), x.copy()
    dearer_d[0] += 2.0
    dearer_i[1] += 4.0
    m, md, mi = h.intake_mean(x), h.intake_mean(dearer_d), h.intake_mean(dearer_i)
    assert np.all(md[[0, 2]] < m[[0, 2]]) and np.all(mi[[1, 3]] < m[[1, 3]])
    np.testing.assert_allclose(md[[1, 3]], m[[1, 3]], rtol=1e-12)
    np.testing.assert_allclose(mi[[0, 2]], m[[0, 2]], rtol=1e-12)
    # scholarships and marketing lift the intakes, with diminishing returns
    for j in (2, 3):
        lifts = [h.intake_mean(np.r_[x[:j], a, x[j + 1:]])[1] for a in (0.0, 200.0, 400.0)]
        assert lifts[0] < lifts[1] < lifts[2] and lifts[2] - lifts[1] < lifts[1] - lifts[0]
    # the fees move the scenario's intakes only
    z = np.random.default_rng(112).standard_normal((5, h.dim_w))
    W, Wd = h.transform(x, z), h.transform(dearer_d, z)
    assert np.all(Wd[:, [0, 2]] < W[:, [0, 2]])
    np.testing.assert_allclose(Wd[:, [1, 3]], W[:, [1, 3]], rtol=1e-12)
    np.testing.assert_allclose(Wd[:, 4:], W[:, 4:], rtol=1e-12)
    # the shock (z[30]) cuts the international intakes, multiplies the counselling cases and
    # lowers the currencies, the later periods' the most, and costs the university dear
    z = np.zeros((2, h.dim_w))
    z[1, 30] = 3.0
    W = h.transform(x, z)
    assert W[1, 1] < W[0, 1] and W[1, 3] < W[0, 3]
    np.testing.assert_allclose(W[1, [0, 2, 4, 5]], W[0, [0, 2, 4, 5]], rtol=1e-12)
    cases, fx = W[1, 6:12] / W[0, 6:12], W[1, 12:18] / W[0, 12:18]
    assert np.all(cases > 1.0) and np.all(np.diff(cases) > 0.0)
    assert np.all(fx < 1.0) and np.all(np.diff(fx) < 0.0)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0] + 3000.0
    # the platform, the hedge and the cover pay in the shock and cost their fees in a usual
    # year (the platform idle, the currencies at their median, the dropouts' fees forgone
    # under the retention)
    usual_fx = np.exp(-0.5 * 0.05**2)
    for j, fee in ((8, 0.3 * 200.0), (12, 200.0 * 6 * (usual_fx - 0.98)), (11, 0.1 * 200.0)):
        more = x.copy()
        more[j] += 200.0
        usual, shock = h.cost(W, more) - h.cost(W, x)
        np.testing.assert_allclose(usual, fee, rtol=1e-8)
        assert shock < usual - 50.0, j
    # at x0 over a third of the costliest twentieth of the years are shock years (one in
    # twenty), and more of them at the recorded optimum
    z = np.random.default_rng(113).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 30] > 1.64).mean() > 0.3
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "university" in optima:
        xs = np.asarray(optima["university"]["x_star"])
        c = h.cost(h.transform(xs, z), xs)
        top = c >= np.quantile(c, 0.95)
        assert (z[top, 30] > 1.64).mean() > 0.5
