"""The held-out consumer lender (``benchmarks/heldout/lender.py``, written after version 11 of
the default and the hotel, the ride-hailing platform and the toy manufacturer) against a plain
loop over one year, written from its docstring, and its behaviour (the shared checks are those
of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from lender import Lender  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def lender_year_by_hand(h: Lender, z, x) -> tuple[list[float], ...]:
    """The applications and the default shares of the three tiers in the four quarters (tier by
    tier), the quarters' recovery shares, the economy and the recession's excess, and the cost
    of one year, one quarter and one tier at a time."""
    r, L, U, C = x[0:3], x[3:6], x[6], x[7:11]
    A_1, A_2, F, I = x[11], x[12], x[13], x[14]
    ref, el, adv = [12.0, 20.0, 30.0], [2.0, 1.5, 1.0], [0.8, 1.2, 1.8]
    s, approve = [8.0, 5.0, 3.5], [0.9, 0.8, 0.65]
    hbase, hdef, happ = [0.004, 0.012, 0.025], [0.6, 0.9, 1.2], [-0.2, 0.0, 0.5]
    season, ramp = [0.9, 1.0, 1.0, 1.15], [0.0, 0.7, 1.0, 1.0]
    econ = np.exp(0.1 * z[28] - 0.005)
    kick = max(z[29] - 1.28, 0.0)
    apps, shares, recover = [], [], []
    for j in range(3):
        for t in range(4):
            A = A_1 if t < 2 else A_2
            lift = 1.0 + 0.3 * (1.0 - np.exp(-A / 15.0))
            apps.append(200.0 * np.exp(-el[j] * (r[j] / ref[j] - 1.0))
                        * (1.0 + (1.0 - np.exp(-L[j] / s[j]))) * season[t] * lift * econ
                        * np.exp(happ[j] * ramp[t] * kick)
                        * np.exp(0.15 * z[4 * j + t] - 0.01125))
    for j in range(3):
        for t in range(4):
            hz = (hbase[j] * np.exp(adv[j] * (r[j] / ref[j] - 1.0)) * econ**-2
                  * np.exp(hdef[j] * ramp[t] * kick) * np.exp(0.25 * z[12 + 4 * j + t] - 0.03125))
            shares.append(1.0 - np.exp(-hz))
    for t in range(4):
        recover.append(1.0 - np.exp(-1.5 * np.exp(-0.6 * ramp[t] * kick)
                                    * np.exp(0.15 * z[24 + t] - 0.01125)))
    b = [s[j] * (1.0 - np.exp(-L[j] / s[j])) for j in range(3)]
    pay = [1.0 - np.exp(-0.1 * np.exp(el[j] * (r[j] / ref[j] - 1.0))) for j in range(3)]
    bal, line = [4000.0, 2500.0, 1200.0], [3000.0, 1500.0, 600.0]
    waiting = [0.0, 0.0, 0.0]
    pool, D = 100.0, 0.0
    cost = 0.12 * I + 2 * A_1 + 2 * A_2
    for t in range(4):
        pend = [waiting[j] + apps[4 * j + t] for j in range(3)]
        serv = min(1.0, 150.0 * U / sum(pend)) if sum(pend) > 0 else 1.0
        opened = 0.0
        for j in range(3):
            acc = approve[j] * serv * pend[j]
            bal[j] += acc * b[j]
            line[j] += acc * (L[j] - b[j])
            opened += acc
            waiting[j] = 0.6 * (1.0 - serv) * pend[j]
        need = sum(bal) + pool
        if need <= F:
            funding = 0.012 * need + 0.003 * (F - need)
        else:
            funding = 0.012 * F + 0.03 * (1.0 + 1.5 * ramp[t] * kick) * (need - F)
        interest = 0.0
        for j in range(3):
            d = shares[4 * j + t]
            pool += d * (bal[j] + 0.9 * line[j])
            D += d * (bal[j] + 0.9 * line[j])
            bal[j] *= 1.0 - d
            line[j] *= 1.0 - d
            interest += r[j] / 400.0 * bal[j]
            bal[j] *= 1.0 - pay[j]
            line[j] *= 1.0 - pay[j]
        w = 1.0 - np.exp(-25.0 * C[t] / pool) if pool > 0 else 0.0
        charged = pool * ((1.0 - recover[t]) * w + 0.4 * (1.0 - w))
        pool = 0.6 * (1.0 - w) * pool
        cost += 30.0 + 8.0 * U + 9.0 * C[t] + 0.03 * opened + funding - interest + charged
    cost += 0.8 * pool - (0.02 * bal[0] + 0.03 * bal[1] + 0.04 * bal[2])
    cost -= min(I, 0.6 * max(D - 1000.0, 0.0))
    return apps, shares, recover, [econ, kick], cost


def test_lender_agrees_with_a_loop_over_the_quarters_and_tiers_of_one_year():
    """One quarter and one tier at a time. rtol 1e-10: the same sums in another order; the cost
    is a difference of terms (the interest and the balances' worth against the funding, the
    charge-offs and the staff) some tens of times larger than itself at most on these rows, so
    rounding stays near 1e-13."""
    h = Lender()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 29] += 2.5  # recessions: defaults multiply, recoveries fall, the penalty rate spikes
    z[12:16, :12] += 2.5  # a flood of applications: the underwriters' queue overflows
    z[16:20, 12:24] += 3.0  # many defaults: the pool swamps the collectors, the insurance pays
    z[20:24, :12] -= 4.0  # few applications: the queue empties
    optimum = json.loads((HELDOUT / "optima.json").read_text())["lender"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[6.0, 40.0, 60.0, 0.0, 40.0, 1.0, 0.0, 0.0, 30.0, 0.0, 2.0, 0.0, 100.0,
                       0.0, 3000.0],
                 np.r_[24.0, 10.0, 15.0, 30.0, 0.0, 12.0, 40.0, 12.0, 0.0, 6.0, 0.0, 60.0, 0.0,
                       40000.0, 0.0])
    # the applications, the default shares, the recovery shares, the year's two numbers, then
    # the cost
    assert_rows_agree(h, z, decisions, lender_year_by_hand,
                      (slice(0, 12), slice(12, 24), slice(24, 28), slice(28, 30)))


def test_lender_rates_move_applications_and_defaults_and_the_recession_fills_the_tail():
    h = Lender()
    x = h.x0.copy()
    # a dearer rate in a tier: fewer applications there, more defaults (the better borrowers
    # leave first), faster repayment; the other tiers as they were
    for j in range(3):
        dearer = x.copy()
        dearer[j] *= 1.1
        apps, base = h.application_mean(dearer), h.application_mean(x)
        assert np.all(apps[j] < base[j])
        np.testing.assert_allclose(np.delete(apps, j, 0), np.delete(base, j, 0), rtol=1e-12)
        assert h.hazard_mean(dearer)[j] > h.hazard_mean(x)[j]
        assert h.repaid(dearer)[j] > h.repaid(x)[j]
    # a higher limit: more applications with diminishing returns, a larger balance an account
    steps = [h.application_mean(np.r_[x[:3], [L] * 3, x[6:]])[:, 0] for L in (2.0, 4.0, 6.0)]
    assert np.all(steps[1] > steps[0]) and np.all(steps[2] - steps[1] < steps[1] - steps[0])
    assert np.all(h.balance(np.r_[x[:3], [6.0] * 3, x[6:]])
                  > h.balance(np.r_[x[:3], [2.0] * 3, x[6:]]))
    # marketing in quarters 1-2 lifts only those quarters' applications
    louder = x.copy()
    louder[11] += 10.0
    lift = h.application_mean(louder) / h.application_mean(x)
    assert np.all(lift[:, :2] > 1.0)
    np.testing.assert_allclose(lift[:, 2:], 1.0, rtol=1e-12)
    # a recession (z[29]) multiplies the defaults in quarters 2-4, the subprime's the most,
    # adds subprime applications, cuts the recoveries, and costs more
    z = np.zeros((2, h.dim_w))
    z[1, 29] = 3.0
    W = h.transform(x, z)
    up = (W[1, 12:24] / W[0, 12:24]).reshape(3, 4)
    np.testing.assert_allclose(up[:, 0], 1.0, rtol=1e-12)
    assert np.all(up[:, 1:] > 1.0) and np.all(up[2, 1:] > up[1, 1:])
    assert np.all(up[1, 1:] > up[0, 1:])
    assert np.all(W[1, 9:12] > W[0, 9:12]) and np.all(W[1, 1:4] < W[0, 1:4])
    assert np.all(W[1, 25:28] < W[0, 25:28])
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # the same year costs more with the recession's penalty rate than without it when the
    # facility is short
    short = x.copy()
    short[13] = 2000.0
    calm = W[1].copy()
    calm[29] = 0.0
    assert h.cost(W[1:], short)[0] > h.cost(calm[None], short)[0]
    # a collector more each quarter costs 36 in wages and recovers more of the same pool: every
    # year costs less than 36 more
    z = np.random.default_rng(62).standard_normal((2000, h.dim_w))
    W = h.transform(x, z)
    more = x.copy()
    more[7:11] += 1.0
    assert (h.cost(W, more) - 36.0 < h.cost(W, x)).all()
    # at x0 most of the costliest twentieth of the years are years of a recession (one in ten)
    z = np.random.default_rng(63).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 29] > 1.28).mean() > 0.5
