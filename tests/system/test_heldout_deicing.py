"""The held-out airport ground handler (``benchmarks/heldout/deicing.py``, written after version
15 of the default) against a plain loop over the months of one winter season, written from its
docstring, and its behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from deicing import Deicing  # noqa: E402
from saa import box  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402

STORM = 42  # the normal of the storm, the last of the row


def lognormal(sd, u):
    return math.exp(sd * u - 0.5 * sd * sd)


def deicing_season_by_hand(h: Deicing, z, x) -> tuple[list[float], ...]:
    """Each month's standard and priority turns, share of the turns to de-ice, fluid a
    de-icing, breakdown hazard, share of the crews off sick, spot price and spot supply, the
    season's level, fluid market and storm's excess, and the cost of one season, one month at
    a time."""
    z = [float(u) for u in z]
    p, q, R, C, P, G, O, H, U, M, K, F, V = (float(v) for v in x)
    s = [0.9, 1.1, 1.0, 0.95, 0.95]
    hz = [0.25, 0.5, 0.7, 0.6, 0.3]
    w = [0.4, 0.8, 1.0, 1.0, 0.6]
    level = lognormal(0.08, z[40])
    mkt = lognormal(0.15, z[41])
    kick = max(z[42] - 1.64, 0.0)
    std = 3000.0 * math.exp(-3.0 * (p / 1.6 - 1.0))
    pri = 600.0 * math.exp(-2.0 * (q / 2.6 - 1.0))
    D1, D2, ice, fluid, brk, sick, spot, avail = [], [], [], [], [], [], [], []
    for t in range(5):
        storm = w[t] * kick
        D1.append(std * s[t] * level * lognormal(0.1, z[t]))
        D2.append(pri * s[t] * level * lognormal(0.1, z[5 + t]))
        ice.append(1.0 - math.exp(-hz[t] * (1.0 + storm) * lognormal(0.3, z[10 + t])))
        fluid.append(0.4 * (1.0 + 0.6 * storm) * lognormal(0.15, z[15 + t]))
        brk.append(0.25 * (1.0 + 2.0 * storm) * lognormal(0.4, z[20 + t]))
        sick.append(1.0 - math.exp(-0.04 * (1.0 + 3.0 * storm) * lognormal(0.3, z[25 + t])))
        spot.append(3.0 * mkt * (1.0 + storm) * lognormal(0.1, z[30 + t]))
        avail.append(250.0 * lognormal(0.25, z[35 + t]) / (1.0 + 1.5 * storm))

    tau = 15.0 * (0.7 + 0.3 * math.exp(-K / 80.0))
    use = 1.0 - 0.3 * math.exp(-F / 50.0)
    guard = 0.3 + 0.7 * math.exp(-M / 2.0)
    cost = (1500.0 + 5 * (20.0 * R + 25.0 * C + 4.0 * P + 0.3 * O + 6.0 * M) + 2.0 * G
            + 0.4 * H + 2.5 * U + K + F + 0.1 * V)
    stock, g, penalties = G, 1.0, 0.0
    for t in range(5):
        storm = w[t] * kick
        cost += 0.15 * max(stock - H, 0.0)
        turns = [g * D1[t], g * D2[t]]
        n1, n2 = ice[t] * turns[0], ice[t] * turns[1]
        mins = tau * (1.0 + 0.3 * storm)
        rig = 3000.0 * R * math.exp(-brk[t] * guard)
        crew = 3000.0 * C * (1.0 - sick[t]) * use
        temp = 3000.0 * P * (1.0 - sick[t]) * use / (1.0 + storm)
        done = min(n1 + n2, min(rig, crew + temp) / mins, (stock + O + avail[t]) / fluid[t])
        done2 = min(n2, done)
        done1 = done - done2
        cost += 0.02 * max(done * mins - crew, 0.0)
        burnt = done * fluid[t]
        from_stock = min(stock, burnt)
        called = min(burnt - from_stock, O)
        cost += 2.4 * called + spot[t] * (burnt - from_stock - called)
        rec = min(0.6 * burnt, U)
        cost += 0.2 * rec + 0.6 * (0.6 * burnt - rec)
        stock = stock - from_stock + 0.5 * rec
        late1, late2 = n1 - done1, n2 - done2
        r = (late1 + late2) / (n1 + n2)
        wait = 30.0 * (1.0 + 3.0 * r)
        cancelled1, cancelled2 = 0.5 * r * late1, 0.5 * r * late2
        delays = 0.03 * wait * late1 + 0.08 * wait * late2
        fines = 5.0 * cancelled1 + 8.0 * cancelled2
        cost += delays + fines
        penalties += delays + fines
        overtime = late1 + late2 - cancelled1 - cancelled2
        cost += overtime * (0.3 + 1.5 * spot[t] * fluid[t])
        handled1, handled2 = turns[0] - cancelled1, turns[1] - cancelled2
        cost += 0.7 * (handled1 + handled2) - p * handled1 - q * handled2
        g *= math.exp(-(cancelled1 + cancelled2) / 3000.0)
    cost += -1.2 * stock + 15000.0 * (1.0 - g)
    cost -= min(V, 0.5 * max(penalties - 200.0, 0.0))
    return (D1, D2, ice, fluid, brk, sick, spot, avail, [level], [mkt], [kick], cost)


def test_deicing_agrees_with_a_loop_over_the_months_of_one_season():
    """One month at a time. rtol 1e-12 on W: the same products in another order. rtol 1e-10
    on the cost: the same sums in another order; the cost is a difference of terms (the prices
    against the handling, the fluid, the crews and the penalties) at most a few hundred times
    larger than itself on these rows (a random decision on a calm season nets some 150 out of
    terms near 20,000), so rounding stays below 1e-13."""
    h = Deicing()
    z = np.random.default_rng(161).standard_normal((40, h.dim_w))
    z[:12, STORM] = 1.7 + 2.0 * np.random.default_rng(162).random(12)  # storms, up to 2 sd out
    z[12:, STORM] = np.minimum(z[12:, STORM], 1.5)  # calm seasons: no kick at all
    z[12:16, :10] += 2.0  # a busy season: the peak short, a queue, the temps called
    z[16:20, 10:15] += 2.5  # an icy season: most turns de-iced, the stock runs out
    z[20:24, 20:25] += 2.5  # the rigs break down: they bind
    z[24:28, 25:30] += 3.0  # the crews sick: the temps called, the queue
    z[28:32, 35:40] -= 3.0  # the spot market dry: the fluid binds once the stock is out
    z[32:36, 40] -= 2.5  # a quiet season: crews idle, stock left and sold back
    z[:4, 10:15] += 1.5  # a storm in an icy season: cancellations, goodwill lost, the cover
    assert (z[:, STORM] > 1.64).sum() == 12
    scaled = [h.x0.copy(), h.x0.copy()]
    scaled[0][2:] *= 0.5
    scaled[1][2:] *= 2.0
    decisions = [h.x0, *scaled,
                 np.r_[0.8, 1.3, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                 np.r_[3.2, 5.2, 20.0, 15.0, 15.0, 5000.0, 600.0, 4000.0, 600.0, 6.0, 250.0,
                       120.0, 900.0]]
    rng = np.random.default_rng(163)
    low, high = box(h)
    decisions.append(low + (high - low) * rng.random(h.dim_x))
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "deicing" in optima:
        decisions.append(np.asarray(optima["deicing"]["x_star"]))
    assert_rows_agree(h, z, decisions, deicing_season_by_hand,
                      tuple(slice(5 * i, 5 * i + 5) for i in range(8))
                      + tuple(slice(i, i + 1) for i in range(40, 43)))


def test_deicing_cost_is_vectorised_over_decisions():
    h = Deicing()
    z = np.random.default_rng(164).standard_normal((50, h.dim_w))
    X = np.stack([h.x0, 1.3 * h.x0, box(h)[1]])
    W = h.transform(h.x0, z)
    each = np.stack([h.cost(W, x) for x in X])
    np.testing.assert_allclose(h.cost(W, X), each, rtol=1e-12)
    np.testing.assert_allclose(h.cost(np.broadcast_to(W, (3, *W.shape)), X), each, rtol=1e-12)
    WX = h.transform(X, z)
    assert WX.shape == (3, 50, h.dim_w)
    for i in range(3):
        np.testing.assert_allclose(WX[i], h.transform(X[i], z), rtol=1e-14)


def test_deicing_prices_move_the_turns_training_cuts_the_minutes_and_the_storm_fills_the_tail():
    h = Deicing()
    x = h.x0.copy()
    z = np.random.default_rng(165).standard_normal((5, h.dim_w))
    W = h.transform(x, z)
    # a dearer standard contract: fewer standard turns, by its elasticity alone, the rest stay
    dearer = x.copy()
    dearer[0] += 0.2
    Wd = h.transform(dearer, z)
    assert np.all(Wd[:, :5] < W[:, :5])
    np.testing.assert_allclose(Wd[:, :5] / W[:, :5], math.exp(-3.0 * 0.2 / 1.6), rtol=1e-12)
    np.testing.assert_allclose(Wd[:, 5:], W[:, 5:], rtol=1e-12)
    # a dearer priority service: only the priority turns fall
    dearer = x.copy()
    dearer[1] += 0.26
    Wd = h.transform(dearer, z)
    assert np.all(Wd[:, 5:10] < W[:, 5:10])
    np.testing.assert_allclose(Wd[:, 5:10] / W[:, 5:10], math.exp(-2.0 * 0.26 / 2.6),
                               rtol=1e-12)
    np.testing.assert_allclose(Wd[:, :5], W[:, :5], rtol=1e-12)
    np.testing.assert_allclose(Wd[:, 10:], W[:, 10:], rtol=1e-12)
    # the training cuts a de-icing's minutes, with diminishing returns, at most by 30 %; it acts
    # on the work, not on the scenario
    minutes = [h.deice_minutes(np.r_[x[:10], k, x[11:]]) for k in (0.0, 80.0, 160.0, 1e6)]
    assert minutes[0] == 15.0 and math.isclose(minutes[3], 10.5, rel_tol=1e-12)
    assert minutes[0] - minutes[1] > minutes[1] - minutes[2] > 0.0
    assert math.isclose(minutes[1], 15.0 * (0.7 + 0.3 * math.exp(-1.0)), rel_tol=1e-12)
    np.testing.assert_array_equal(h.transform(np.r_[x[:10], 0.0, x[11:]], z), W)
    # a storm (z[42] three sd out, kick 1.36) raises the icing hazard by 1 + storm_t, the fluid
    # a de-icing by 1 + 0.6 storm_t, the breakdowns by 1 + 2 storm_t and the spot price by 1 +
    # storm_t, cuts the spot supply, and leaves the turns, the level and the market alone
    z = np.zeros((2, h.dim_w))
    z[1, STORM] = 3.0
    W = h.transform(x, z)
    storm = np.array([0.4, 0.8, 1.0, 1.0, 0.6]) * (3.0 - 1.64)
    np.testing.assert_allclose(W[1, :10], W[0, :10], rtol=1e-12)
    hazard = np.array([0.25, 0.5, 0.7, 0.6, 0.3]) * math.exp(-0.5 * 0.3**2)
    np.testing.assert_allclose(W[:, 10:15], [1.0 - np.exp(-hazard),
                                             1.0 - np.exp(-hazard * (1.0 + storm))], rtol=1e-12)
    np.testing.assert_allclose(W[1, 15:20] / W[0, 15:20], 1.0 + 0.6 * storm, rtol=1e-12)
    np.testing.assert_allclose(W[1, 20:25] / W[0, 20:25], 1.0 + 2.0 * storm, rtol=1e-12)
    np.testing.assert_allclose(W[1, 30:35] / W[0, 30:35], 1.0 + storm, rtol=1e-12)
    np.testing.assert_allclose(W[1, 35:40] / W[0, 35:40], 1.0 / (1.0 + 1.5 * storm), rtol=1e-12)
    np.testing.assert_allclose(W[1, 40:42], W[0, 40:42], rtol=1e-12)
    assert W[0, STORM] == 0.0 and math.isclose(W[1, STORM], 1.36, rel_tol=1e-12)
    # more cover: its premium (0.1 a $k) is all it costs in a calm season, whose delays and
    # cancellations stay below the retention; in the storm's season half of them beyond it
    # exceed the larger cover, which then pays in full
    c = h.cost(W, x)
    covered = x.copy()
    covered[12] += 50.0
    np.testing.assert_allclose(h.cost(W, covered) - c, [5.0, 5.0 - 50.0], rtol=1e-9)
    # the storms (one season in twenty) are most of the costliest twentieth of the seasons and
    # all of the costliest fiftieth; a kick above 0.5 puts a season among the costliest
    # twentieth, and the training saves more in the storms than in the calm seasons
    z = np.random.default_rng(166).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    kick = np.maximum(z[:, STORM] - 1.64, 0.0)
    struck = kick > 0.0
    assert abs(struck.mean() - 0.05) < 0.005
    top = c >= np.quantile(c, 0.95)
    assert struck[top].mean() > 0.5
    assert struck[c >= np.quantile(c, 0.98)].mean() > 0.95
    assert top[kick > 0.5].mean() > 0.95
    assert c[kick > 1.0].mean() > c[~struck].mean() + 20_000.0
    untrained = np.r_[x[:10], 0.0, x[11:]]
    cu = h.cost(h.transform(untrained, z), untrained)
    saved = cu - c  # K 80 against none: the budget paid, the minutes saved
    assert saved.mean() > 0.0
    assert saved[struck].mean() > 2.0 * saved[~struck].mean() > 0.0
    # the prices trade their margin against the turns and the tail they bring: the season's
    # mean cost is lowest inside each range
    for j, prices in ((0, (1.2, 1.8, 2.8)), (1, (1.6, 2.6, 4.4))):
        means = [h.cost(h.transform(y, z[:4000]), y).mean()
                 for y in (np.r_[x[:j], price, x[j + 1:]] for price in prices)]
        assert means[1] < means[0] and means[1] < means[2]
