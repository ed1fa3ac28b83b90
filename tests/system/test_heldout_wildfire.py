"""The held-out wildfire-protection agency (``benchmarks/heldout/wildfire.py``, written after
version 13 of the default) against a plain loop over one season, written from its docstring,
and its behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from test_heldout import assert_rows_agree  # noqa: E402
from wildfire import Wildfire  # noqa: E402


def wildfire_season_by_hand(h: Wildfire, z, x) -> tuple[list[float], ...]:
    """The season's visitors, human and lightning ignitions, spread and share of days flown of
    each period, the dryness level and the drought's excess, and the cost of one season, one
    period at a time."""
    p, F, P, C1, C2, A, H, E, K, D, M, R, V = x
    season = [0.6, 0.8, 1.0, 1.2, 1.3, 1.2, 1.0, 0.8]
    lightning = [2.0, 3.0, 5.0, 7.0, 8.0, 7.0, 5.0, 3.0]
    dryness = [0.6, 0.75, 0.9, 1.05, 1.2, 1.25, 1.15, 1.0]
    w = [0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 1.0]
    dry = np.exp(0.1 * z[40] - 0.005)
    kick = max(z[41] - 1.64, 0.0)
    camp = 0.6 + 0.4 * np.exp(-P / 150.0)
    fuel = 0.8 + 0.2 * np.exp(-F / 400.0)
    visitors, human, light, spread, fly = [], [], [], [], []
    for t in range(8):
        storm = w[t] * kick
        visitors.append(25.0 * np.exp(-1.2 * (p / 20.0 - 1.0)) * season[t]
                        * np.exp(-0.5 * storm) * np.exp(0.15 * z[t] - 0.01125))
        human.append(0.25 * visitors[t] * camp * (1.0 + 0.5 * storm)
                     * np.exp(0.3 * z[8 + t] - 0.045))
        light.append(lightning[t] * dry * (1.0 + 0.8 * storm) * np.exp(0.3 * z[16 + t] - 0.045))
        spread.append(dryness[t] * dry * fuel * (1.0 + 0.4 * storm)
                      * np.exp(0.2 * z[24 + t] - 0.02))
        fly.append(np.exp(-0.1 * np.exp(0.8 * z[32 + t]) - 0.5 * storm))
    cost = (400.0 + F + P + 10.0 * 4 * (C1 + C2) + 300.0 * A + 240.0 * H + 10.0 * 8 * E
            + 20.0 * 8 * K + 60.0 * D + 3.0 * 8 * M + 1.5 * R + 0.1 * V)
    first = 80.0 * (0.5 + 0.5 * np.exp(-D / 3.0))  # an escaped fire's first hectares
    front, resting, stock, losses = 0.0, 0.0, R, 0.0
    for t in range(8):
        storm = w[t] * kick
        if t < 4:
            crews = C1
        else:
            crews = C2
            resting = min(resting, C2)
        cost -= p * visitors[t]
        # initial attack
        fires = human[t] + light[t]
        pool = (3.0 * H * fly[t] + 0.3 * (crews - resting)) / fires
        escaped = (human[t] ** 2 / (human[t] * (1.0 + pool) + 1.5 * E)
                   + light[t] / (1.0 + pool))
        cost += 1.5 * (fires - escaped)
        # the front: the fronts carried over grow, the escaped fires add theirs
        front = front * (1.0 + 0.25 * spread[t]) + first * spread[t] * escaped
        # the tankers from period 3: retardant, then water
        if t >= 2:
            loads = 20.0 * A * fly[t]
            wet = min(loads, stock, front / 8.0)
            stock -= wet
            front -= 8.0 * wet
            water = min(loads - wet, front / 3.0)
            front -= 3.0 * water
            cost += 2.0 * (wet + water)
        # the dozers reach half of the front
        front -= min(40.0 * K, 0.5 * front)
        # the crews not resting; those used rest a share of the next period
        used = min(crews - resting, front / 15.0)
        front -= 15.0 * used
        resting = 0.4 * used
        cost += 6.0 * used
        # the mutual aid, less of it in a drought
        called = min(M * np.exp(-0.3 * storm), front / 15.0)
        front -= 15.0 * called
        cost += 22.0 * called
        # the front left burns; 45 % of it goes out
        loss = 2.5 * (1.0 + 0.3 * storm) * front
        losses += loss
        cost += loss
        front *= 0.55
    losses += 2.5 * 0.5 * front
    cost += 2.5 * 0.5 * front - 0.6 * stock
    cost -= min(V, 0.6 * max(losses - 400.0, 0.0))
    return visitors, human, light, spread, fly, [dry, kick], cost


def test_wildfire_agrees_with_a_loop_over_the_periods_of_one_season():
    """One period at a time. rtol 1e-10: the same sums in another order; the cost is a
    difference of terms (the permit fees against the fleet, the crews and the losses) some ten
    times larger than itself at worst on these rows, so rounding stays near 1e-13."""
    h = Wildfire()
    z = np.random.default_rng(201).standard_normal((40, h.dim_w))
    z[:12, 41] += 3.0  # droughts: ignitions and spread up, aircraft grounded, aid busy
    z[12:16, 16:32] += 2.5  # lightning storms and fast spread: every resource binds
    z[16:20, 32:40] += 2.5  # smoke: the aircraft grounded, the retardant kept
    z[20:24, 16:32] -= 2.5  # a quiet season: the fronts small, the cover idle
    z[24:28, :16] += 2.5  # crowds: more human ignitions for the engines
    decisions = [h.x0, 1.4 * h.x0,
                 np.r_[10.0, 0.0, 0.0, 0.0, 30.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                 np.r_[40.0, 800.0, 300.0, 40.0, 5.0, 8.0, 1.0, 20.0, 10.0, 1.0, 15.0, 50.0,
                       4000.0],
                 np.r_[24.0, 200.0, 210.0, 2.0, 16.0, 2.0, 2.2, 2.4, 1.3, 8.0, 7.0, 160.0,
                       400.0]]
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "wildfire" in optima:
        decisions.append(np.asarray(optima["wildfire"]["x_star"]))
    assert_rows_agree(h, z, decisions, wildfire_season_by_hand,
                      (slice(0, 8), slice(8, 16), slice(16, 24), slice(24, 32),
                       slice(32, 40), slice(40, 42)))


def test_wildfire_fee_and_prevention_move_the_fires_and_the_drought_fills_the_tail():
    h = Wildfire()
    x = h.x0.copy()
    z = np.random.default_rng(202).standard_normal((5, h.dim_w))
    W = h.transform(x, z)
    # a dearer permit: fewer visitors and human ignitions, the lightning, spread and flying
    # days as they were; the fees earned fall above the revenue's peak (p = 20 / 1.2)
    dearer = x.copy()
    dearer[0] += 5.0
    Wd = h.transform(dearer, z)
    assert np.all(Wd[:, :16] < W[:, :16])
    np.testing.assert_allclose(Wd[:, 16:], W[:, 16:], rtol=1e-12)
    fees = [p * h.visitors_mean(np.r_[p, x[1:]]) for p in (14.0, 20.0 / 1.2, 20.0, 30.0)]
    assert fees[1] > fees[0] and fees[1] > fees[2] > fees[3]
    # the campaign lowers the human ignitions alone, the fuel reduction the spread alone,
    # both with diminishing returns
    for j, cols in ((2, slice(8, 16)), (1, slice(24, 32))):
        steps = []
        for budget in (0.0, 200.0, 400.0):
            xb = x.copy()
            xb[j] = budget
            steps.append(h.transform(xb, z))
        assert np.all(steps[1][:, cols] < steps[0][:, cols])
        assert np.all(steps[0][:, cols] - steps[1][:, cols]
                      > steps[1][:, cols] - steps[2][:, cols])
        rest = np.ones(h.dim_w, dtype=bool)
        rest[cols] = False
        np.testing.assert_allclose(steps[2][:, rest], steps[0][:, rest], rtol=1e-12)
    # a drought (z[41]) brings more lightning, faster spread and fewer flying days, the
    # later periods' the most, and costs the agency dear
    z = np.zeros((2, h.dim_w))
    z[1, 41] = 3.5
    W = h.transform(x, z)
    light, spread, fly = (W[1, 16:24] / W[0, 16:24], W[1, 24:32] / W[0, 24:32],
                          W[1, 32:40] / W[0, 32:40])
    assert np.all(light > 1.0) and np.all(np.diff(light) > 0.0)
    assert np.all(spread > 1.0) and np.all(np.diff(spread) > 0.0)
    assert np.all(fly < 1.0) and np.all(np.diff(fly) < 0.0)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0] + 3000.0
    # the crews, the mutual aid and the cover pay most in a drought
    for j, more in ((4, 5.0), (10, 5.0), (12, 1000.0)):
        xm = x.copy()
        xm[j] += more
        usual, drought = h.cost(W, xm) - h.cost(W, x)
        assert drought < usual - 50.0, j
    # at x0 most of the costliest twentieth of the seasons are drought seasons (one in twenty)
    z = np.random.default_rng(203).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 41] > 1.64).mean() > 0.5
