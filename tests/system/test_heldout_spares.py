"""The held-out spare-parts pool (``benchmarks/heldout/spares.py``, written after version 15 of
the default) against a plain loop over one season, written from its docstring, and its
behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from saa import box  # noqa: E402
from spares import Spares  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402

ASH = 68  # the normal of the ash, the last of the row


def lognormal(sd, u):
    return math.exp(sd * u - 0.5 * sd * sd)


def spares_season_by_hand(h: Spares, z, x) -> tuple[list[float], ...]:
    """Each period and part type's removals of the own fleet and of the members, each period's
    ad hoc requests, lease index, lessors' offer, shop's pace and share of the removals at the
    outstations, the season's level and market level, the ash's excess, and the cost of one
    season, one period and one part type at a time."""
    z = [float(u) for u in z]
    f, e, B1, B2, B3, O1, O2, O3, N1, N2, X, P, R, V = (float(v) for v in x)
    n, r, mix = [12.0, 20.0, 40.0], [0.2, 0.3, 0.6], [0.3, 0.3, 0.4]
    s = [0.85, 0.95, 1.1, 1.2, 1.1, 0.9]
    w = [0.3, 0.7, 1.0, 1.0, 0.7, 0.4]
    u = [1.0, 0.5, 0.2]
    level = lognormal(0.08, z[66])
    mkt = lognormal(0.15, z[67])
    kick = max(z[68] - 1.64, 0.0)
    members = 36.0 * math.exp(-2.5 * (f / 12.0 - 1.0))
    prev = 0.65 + 0.35 * math.exp(-P / 200.0)
    own, mem, req, idx, avail, pace, away = [], [], [], [], [], [], []
    for t in range(6):
        storm = w[t] * kick
        for a in range(3):
            own.append(n[a] * prev * s[t] * level * (1.0 + u[a] * storm)
                       * lognormal(0.15, z[3 * t + a]))
            mem.append(r[a] * members * s[t] * level * (1.0 + u[a] * storm)
                       * lognormal(0.15, z[18 + 3 * t + a]))
        req.append(12.0 * math.exp(-2.0 * (e / 1.2 - 1.0)) * (1.0 + storm)
                   * lognormal(0.3, z[36 + t]))
        idx.append(mkt * (1.0 + 1.5 * storm) * lognormal(0.1, z[42 + t]))
        avail.append(lognormal(0.25, z[48 + t]) / (1.0 + storm))
        pace.append(lognormal(0.08, z[54 + t]) / (1.0 + 0.5 * storm))
        odds = 0.35 * lognormal(0.2, z[60 + t]) / 0.65
        away.append(odds / (1.0 + odds))

    L, offer, m, k = [40.0, 16.0, 6.0], [4.0, 6.0, 10.0], [6.0, 3.0, 1.0], [1.0, 0.6, 0.25]
    hold = [3.0, 1.2, 0.5]
    B, O = [B1, B2, B3], [O1, O2, O3]
    cost = (500.0 + P + 0.1 * V + 10.0 * 3 * (N1 + N2) + 6 * 1.5 * X * (1.0 + X / 40.0)
            + 6 * 1.2 * R - 6 * f * members - 6 * 450.0
            + sum(6 * hold[a] * B[a] + 6 * (hold[a] + 0.3) * O[a] for a in range(3)))
    b, o, q, g = list(B), list(O), [12.0, 15.0, 20.0], [0.0, 0.0, 0.0]
    penalties = 0.0
    for t in range(6):
        storm = w[t] * kick
        short, d = [0.0] * 3, [0.0] * 3
        for a in range(3):
            back = min(g[a], b[a])  # the aircraft on ground first
            g[a] -= back
            b[a] -= back
            sent = min(O[a] - o[a], b[a])  # the outstations topped up
            b[a] -= sent
            o[a] += sent
            d[a] = own[3 * t + a] + mem[3 * t + a]
            at = min(away[t] * d[a], o[a])
            o[a] -= at
            cost += 5.0 * (1.0 + storm) * (away[t] * d[a] - at)  # flown from the base
            need = d[a] - at
            served = min(need, b[a])
            b[a] -= served
            short[a] = need - served
        slots = min(sum(short), R / (1.0 + storm))
        for a in range(3):
            standby = short[a] * slots / sum(short) if sum(short) > 0.0 else 0.0
            rest = short[a] - standby
            leased = min(rest, offer[a] * avail[t])
            g[a] += rest - leased
            lent = min(mix[a] * req[t], b[a])
            b[a] -= lent
            cores = d[a] - standby - leased + lent
            q[a] += cores
            cost += (m[a] * cores + 0.5 * L[a] * standby + L[a] * idx[t] * leased
                     - e * L[a] * lent)
        load = sum(k[a] * q[a] for a in range(3))
        cap = 4.0 * (N1 if t < 3 else N2) * pace[t]
        inside = cap / (cap**3 + load**3) ** (1.0 / 3.0) if load + cap > 0.0 else 0.0
        outside = min(load * (1.0 - inside), X / (1.0 + 0.5 * storm))
        share = inside + (outside / load if load > 0.0 else 0.0)
        for a in range(3):
            fixed = q[a] * share
            q[a] -= fixed
            b[a] += fixed
        cost += 4.0 * outside + 60.0 * sum(g)
        penalties += 60.0 * sum(g)
    cost += 60.0 * sum(g) + 4.0 * sum(k[a] * q[a] for a in range(3))
    cost -= min(V, 0.5 * max(penalties - 300.0, 0.0))
    return own, mem, req, idx, avail, pace, away, [level], [mkt], [kick], cost


def test_spares_agrees_with_a_loop_over_the_periods_and_part_types_of_one_season():
    """One period and one part type at a time. rtol 1e-12 on W: the same products in another
    order. rtol 1e-10 on the cost: the same sums in another order; the cost is a difference of
    terms (the fees and the own fleet's charge against the units, the shop, the exchanges and
    the AOG penalties) at most a few hundred times larger than itself on these rows, so
    rounding stays below 1e-13."""
    h = Spares()
    z = np.random.default_rng(161).standard_normal((40, h.dim_w))
    z[:12, ASH] = 1.7 + 2.0 * np.random.default_rng(162).random(12)  # ash, up to 2 sd out
    z[12:, ASH] = np.minimum(z[12:, ASH], 1.5)  # calm seasons: no kick at all
    z[12:16, :36] += 2.0  # a busy season: the base short, standby slots, lessors, AOG
    z[16:20, 54:60] -= 3.0  # a slow shop: the backlog carries over
    z[20:24, 60:66] += 3.0  # most removals at the outstations: units flown from the base
    z[24:28, 66] -= 2.5  # a quiet season: the units idle
    z[28:32, 48:54] -= 3.0  # the lessors' shelves empty: aircraft on ground
    z[32:36, 36:42] += 2.5  # many ad hoc requests: the base lends its last units
    z[:4, :36] += 1.5  # ash on a busy season: aircraft on ground, the cover pays
    assert (z[:, ASH] > 1.64).sum() == 12
    x = h.x0
    decisions = [x, np.r_[x[:2], 0.5 * x[2:]], np.r_[x[:2], 2.0 * x[2:]],
                 np.r_[6.0, 0.6, [0.0] * 12],
                 np.r_[24.0, 2.4, 40.0, 50.0, 90.0, 12.0, 20.0, 40.0, 50.0, 50.0, 60.0, 800.0,
                       30.0, 2000.0]]
    rng = np.random.default_rng(163)
    low, high = box(h)
    decisions.append(low + (high - low) * rng.random(h.dim_x))
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "spares" in optima:
        decisions.append(np.asarray(optima["spares"]["x_star"]))
    assert_rows_agree(h, z, decisions, spares_season_by_hand,
                      (slice(0, 18), slice(18, 36)) + tuple(slice(36 + 6 * i, 42 + 6 * i)
                                                            for i in range(5))
                      + (slice(66, 67), slice(67, 68), slice(68, 69)))


def test_spares_transform_broadcasts_over_decisions():
    # the probes and the cost over decisions are test_heldout's shared checks
    h = Spares()
    z = np.random.default_rng(164).standard_normal((50, h.dim_w))
    X = np.stack([h.x0, 1.3 * h.x0, box(h)[1]])
    np.testing.assert_allclose(h.transform(X, z), np.stack([h.transform(x, z) for x in X]),
                               rtol=1e-12)


def test_spares_prices_and_prevention_move_the_removals_and_the_ash_fills_the_tail():
    h = Spares()
    x = h.x0.copy()
    z = np.random.default_rng(165).standard_normal((5, h.dim_w))
    W = h.transform(x, z)
    # a dearer pool fee: fewer member aircraft, their removals down by the elasticity alone
    dearer = x.copy()
    dearer[0] += 3.0
    Wd = h.transform(dearer, z)
    assert np.all(Wd[:, 18:36] < W[:, 18:36])
    np.testing.assert_allclose(Wd[:, 18:36] / W[:, 18:36], math.exp(-2.5 * 3.0 / 12.0),
                               rtol=1e-12)
    np.testing.assert_allclose(Wd[:, :18], W[:, :18], rtol=1e-12)
    np.testing.assert_allclose(Wd[:, 36:], W[:, 36:], rtol=1e-12)
    # a dearer ad hoc price: fewer ad hoc requests, the removals as they were
    dearer = x.copy()
    dearer[1] += 0.3
    Wd = h.transform(dearer, z)
    np.testing.assert_allclose(Wd[:, 36:42] / W[:, 36:42], math.exp(-2.0 * 0.3 / 1.2),
                               rtol=1e-12)
    np.testing.assert_allclose(Wd[:, :36], W[:, :36], rtol=1e-12)
    np.testing.assert_allclose(Wd[:, 42:], W[:, 42:], rtol=1e-12)
    # the preventive budget lowers the own fleet's removals, with diminishing returns, never
    # below 65 % of them; the members' removals as they were
    prev = [0.65 + 0.35 * math.exp(-p / 200.0) for p in (0.0, 200.0, 400.0, 1e6)]
    assert prev[0] - prev[1] > prev[1] - prev[2] > 0.0 and prev[3] > 0.65 - 1e-12
    for p, kept in ((0.0, prev[0]), (400.0, prev[2])):
        y = x.copy()
        y[11] = p
        Wp = h.transform(y, z)
        np.testing.assert_allclose(Wp[:, :18] / W[:, :18],
                                   kept / (0.65 + 0.35 * math.exp(-x[11] / 200.0)), rtol=1e-12)
        np.testing.assert_allclose(Wp[:, 18:], W[:, 18:], rtol=1e-12)
    # the ash (z[68] three sd out, kick 1.36) raises the removals by 1 + u_a w_t kick, the ad
    # hoc requests by 1 + w_t kick and the lease index by 1 + 1.5 w_t kick, empties the
    # lessors' shelves and slows the shop; the outstations' share, the level and the market
    # stay as they were
    z = np.zeros((2, h.dim_w))
    z[1, ASH] = 3.0
    W = h.transform(x, z)
    storm = np.array([0.3, 0.7, 1.0, 1.0, 0.7, 0.4]) * (3.0 - 1.64)
    up = (1.0 + np.outer(storm, [1.0, 0.5, 0.2])).ravel()
    np.testing.assert_allclose(W[1, :18] / W[0, :18], up, rtol=1e-12)
    np.testing.assert_allclose(W[1, 18:36] / W[0, 18:36], up, rtol=1e-12)
    np.testing.assert_allclose(W[1, 36:42] / W[0, 36:42], 1.0 + storm, rtol=1e-12)
    np.testing.assert_allclose(W[1, 42:48] / W[0, 42:48], 1.0 + 1.5 * storm, rtol=1e-12)
    np.testing.assert_allclose(W[1, 48:54] / W[0, 48:54], 1.0 / (1.0 + storm), rtol=1e-12)
    np.testing.assert_allclose(W[1, 54:60] / W[0, 54:60], 1.0 / (1.0 + 0.5 * storm),
                               rtol=1e-12)
    np.testing.assert_allclose(W[1, 60:68], W[0, 60:68], rtol=1e-12)
    assert W[0, ASH] == 0.0 and math.isclose(W[1, ASH], 1.36, rel_tol=1e-12)
    c = h.cost(W, x)
    assert c[1] > c[0] + 1000.0
    # more cover: its premium (0.1 a $k) is all it costs in the calm season (no aircraft on
    # ground); in the ash's season half the AOG penalties above the retention exceed the
    # larger cover, which then pays in full
    covered = x.copy()
    covered[13] += 50.0
    np.testing.assert_allclose(h.cost(W, covered) - c, [5.0, 5.0 - 50.0], rtol=1e-9)
    # the ash (one season in twenty, a kick only above 1.64) fills the costliest tail: the
    # costliest hundredth is nearly all ash, and from a kick of 1 on nearly every ash season is in
    # the costliest twentieth
    z = np.random.default_rng(166).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    kick = np.maximum(z[:, ASH] - 1.64, 0.0)
    ash = kick > 0.0
    assert abs(ash.mean() - 0.05) < 0.005
    assert ash[c >= np.quantile(c, 0.95)].mean() > 4 * 0.05
    assert ash[c >= np.quantile(c, 0.99)].mean() > 0.85
    assert ash[c >= np.quantile(c, 0.995)].mean() > 0.9
    assert (c >= np.quantile(c, 0.95))[kick > 1.0].mean() > 0.9
    assert c[kick > 1.0].mean() > c[~ash].mean() + 5000.0
    # the fee and the ad hoc price trade their margin against the work they lose: the season's
    # mean cost is lowest inside each range
    for j, prices in ((0, (6.0, 14.0, 24.0)), (1, (0.6, 1.0, 2.4))):
        means = [h.cost(h.transform(y, z[:4000]), y).mean()
                 for y in (np.r_[x[:j], p, x[j + 1:]] for p in prices)]
        assert means[1] < means[0] and means[1] < means[2]
