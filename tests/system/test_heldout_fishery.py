"""The held-out fishing cooperative (``benchmarks/heldout/fishery.py``, written after version 12
of the default) against a plain loop over one season, written from its docstring, and its
behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from fishery import Fishery  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def fishery_season_by_hand(h: Fishery, z, x) -> tuple[list[float], ...]:
    """The season's fish on the ground, shares of days at sea, spot prices, fresh and fillet
    demands of each period, the stock, the market and the storm's excess, and the cost of one
    season, one period at a time."""
    p_f, p_z, B1, B2, E, QL, I, L, C, K, Q, M, H, V = x  # noqa: E741
    run = [0.7, 0.85, 1.0, 1.15, 1.2, 1.1, 0.95, 0.8]
    season = [0.9, 0.95, 1.0, 1.1, 1.2, 1.1, 1.0, 0.95]
    w = [0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 1.0]
    stock = np.exp(0.1 * z[40] - 0.005)
    market = np.exp(0.1 * z[41] - 0.005)
    kick = max(z[42] - 1.64, 0.0)
    lift = 1.0 + 0.4 * (1.0 - np.exp(-M / 30.0))
    mean_f = 60.0 * np.exp(-1.7 * (p_f / 6.0 - 1.0)) * lift
    mean_z = 25.0 * np.exp(-1.8 * (p_z / 14.0 - 1.0)) * lift
    fish, sea, spot, fresh, fillets = [], [], [], [], []
    for t in range(8):
        storm = w[t] * kick
        fish.append(run[t] * stock * np.exp(-1.5 * storm) * np.exp(0.15 * z[t] - 0.01125))
        sea.append(np.exp(-0.15 * np.exp(0.7 * z[8 + t]) - 1.2 * storm))
        spot.append(7.0 * np.exp(0.15 * z[16 + t] - 0.01125) * (1.0 + 3.0 * storm))
        fresh.append(mean_f * season[t] * market * (1.0 + 0.2 * storm)
                     * np.exp(0.2 * z[24 + t] - 0.02))
        fillets.append(mean_z * market * np.exp(0.15 * z[32 + t] - 0.01125))
    cost = (300.0 + 12.0 * 4 * (B1 + B2) + 4.0 * 8 * E + 1.0 * QL + 1.2 * I + 2.0 * L
            + 0.4 * C + 3.0 * 8 * K + M + 0.2 * V)
    contract = 8.0 * np.exp(-Q / 200.0)
    broken, waiting, store, ground, left = 0.0, 0.0, 0.0, 1.0, 700.0 + QL
    insured = 0.0
    for t in range(8):
        storm = w[t] * kick
        if t < 4:
            B = B1
        else:
            B = B2
            broken = min(broken, B2)
        # the boats
        up = B - broken
        new = up * (1.0 - np.exp(-0.04 * (1.0 + 3.0 * storm)))
        mended = min(broken + new, E)
        broken = broken + new - mended
        catch = 300.0 * fish[t] * sea[t] * ground * (1.0 - np.exp(-(up - 0.5 * new) / 25.0))
        landed = min(catch, left)
        left -= landed
        ground = (0.9 * ground + 0.1) * np.exp(-landed / 3000.0)
        # the ice, then the contract, the fresh market and the line
        iced = min(landed, I)
        cost -= 0.8 * (landed - iced)
        at_hand = waiting + iced
        to_contract = min(Q, at_hand)
        bought = spot[t] * (Q - to_contract)
        cost += bought - contract * Q
        to_market = min(fresh[t], at_hand - to_contract)
        unmet = fresh[t] - to_market
        cost += -p_f * to_market + 0.5 * unmet
        insured += bought + 6.0 * unmet
        to_line = min(L, at_hand - to_contract - to_market)
        cost += 0.6 * to_line
        rest = at_hand - to_contract - to_market - to_line
        cost += 0.1 * rest  # re-iced
        cost -= 0.8 * 0.3 * rest  # spoiled, to the fishmeal plant
        waiting = 0.7 * rest
        # the fillets and the cold store
        sold_z = min(fillets[t], store + 0.5 * to_line)
        cost -= p_z * sold_z
        store = store + 0.5 * to_line - sold_z
        if store > C:
            cost -= 3.0 * (store - C)
            store = C
        store *= 0.95
        cost += 0.05 * store
        # the trucks
        cost += 0.35 * max(to_contract + to_market + sold_z - 20.0 * K, 0.0)
        # the hedge
        cost += H * (1.15 * 7.0 - spot[t])
    cost -= 0.3 * min(QL, left) + 7.0 * store + 0.8 * waiting
    cost -= min(V, 0.6 * max(insured - 100.0, 0.0))
    return fish, sea, spot, fresh, fillets, [stock, market, kick], cost


def test_fishery_agrees_with_a_loop_over_the_periods_of_one_season():
    """One period at a time. rtol 1e-10: the same sums in another order; the cost is a
    difference of terms (the sales against the boats, the plant and the spot purchases) some
    ten times larger than itself at worst on these rows, so rounding stays near 1e-13."""
    h = Fishery()
    z = np.random.default_rng(101).standard_normal((40, h.dim_w))
    z[:12, 42] += 3.0  # storm seasons: fish cut, boats in port and wrecked, spot dear
    z[12:16, :8] += 2.5  # a rich run: the quota and the ice bind, fish wait and spoil
    z[16:20, 24:40] += 2.5  # eager buyers: unmet demand, the cold store emptied
    z[20:24, 24:40] -= 2.5  # few buyers: the cold store full, fillets to the wholesaler
    z[24:28, 16:24] += 3.0  # a dear spot market: the hedge pays
    decisions = [h.x0, 1.4 * h.x0,
                 np.r_[3.0, 7.0, 5.0, 40.0, 0.0, 0.0, 30.0, 0.0, 0.0, 0.0, 100.0, 0.0,
                       0.0, 0.0],
                 np.r_[12.0, 28.0, 40.0, 8.0, 3.0, 600.0, 300.0, 100.0, 5.0, 12.0, 10.0,
                       100.0, 40.0, 600.0],
                 np.r_[9.0, 19.0, 18.0, 17.0, 1.0, 220.0, 140.0, 50.0, 45.0, 4.0, 30.0, 80.0,
                       30.0, 60.0]]
    optima = json.loads((HELDOUT / "optima.json").read_text())
    if "fishery" in optima:
        decisions.append(np.asarray(optima["fishery"]["x_star"]))
    assert_rows_agree(h, z, decisions, fishery_season_by_hand,
                      (slice(0, 8), slice(8, 16), slice(16, 24), slice(24, 32),
                       slice(32, 40), slice(40, 43)))


def test_fishery_prices_move_the_demand_and_the_storm_fills_the_tail():
    h = Fishery()
    x = h.x0.copy()
    # dearer fish: fewer tonnes wanted of the product priced up, the other's as it was
    dearer_f, dearer_z = x.copy(), x.copy()
    dearer_f[0] += 1.0
    dearer_z[1] += 2.0
    m, mf, mz = h.demand_mean(x), h.demand_mean(dearer_f), h.demand_mean(dearer_z)
    assert mf[0] < m[0] and mz[1] < m[1]
    np.testing.assert_allclose([mf[1], mz[0]], [m[1], m[0]], rtol=1e-12)
    # marketing lifts the demand, with diminishing returns
    lifts = [h.demand_mean(np.r_[x[:11], a, x[12:]])[0] for a in (0.0, 30.0, 60.0)]
    assert lifts[0] < lifts[1] < lifts[2] and lifts[2] - lifts[1] < lifts[1] - lifts[0]
    # the prices move the scenario's demands only
    z = np.random.default_rng(102).standard_normal((5, h.dim_w))
    W, Wd = h.transform(x, z), h.transform(dearer_f, z)
    assert np.all(Wd[:, 24:32] < W[:, 24:32])
    np.testing.assert_allclose(Wd[:, :24], W[:, :24], rtol=1e-12)
    np.testing.assert_allclose(Wd[:, 32:], W[:, 32:], rtol=1e-12)
    # a storm season (z[42]) cuts the fish and the days at sea and raises the spot price, the
    # later periods' the most, and costs the cooperative dear
    z = np.zeros((2, h.dim_w))
    z[1, 42] = 3.0
    W = h.transform(x, z)
    fish, sea, spot = W[1, :8] / W[0, :8], W[1, 8:16] / W[0, 8:16], W[1, 16:24] / W[0, 16:24]
    assert np.all(fish < 1.0) and np.all(np.diff(fish) < 0.0)
    assert np.all(sea < 1.0) and np.all(np.diff(sea) < 0.0)
    assert np.all(spot > 1.0) and np.all(np.diff(spot) > 0.0)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0] + 1000.0


def test_fishery_hedge_cover_and_contract_pay_in_the_storm():
    h = Fishery()
    x = h.x0.copy()
    z = np.zeros((2, h.dim_w))
    z[1, 42] = 3.0
    W = h.transform(x, z)
    usual = 7.0 * np.exp(-0.01125)  # the spot price at z = 0
    # the hedge costs its loading in a usual season and pays in the storm
    hedged = x.copy()
    hedged[12] += 10.0
    np.testing.assert_allclose(h.cost(W[:1], hedged) - h.cost(W[:1], x),
                               10.0 * 8 * (1.15 * 7.0 - usual), rtol=1e-9)
    assert h.cost(W[1:], hedged)[0] < h.cost(W[1:], x)[0] - 100.0
    # the cover costs its premium when the season's losses stay under the retention and pays
    # in the storm
    rich = np.zeros((1, h.dim_w))
    rich[0, :8], rich[0, 24:32] = 2.0, -6.0  # plenty of fish, few buyers: all served
    leased = x.copy()
    leased[5] = 800.0  # quota to spare
    covered = leased.copy()
    covered[13] += 100.0
    Wr = h.transform(leased, rich)
    np.testing.assert_allclose(h.cost(Wr, covered) - h.cost(Wr, leased), 20.0, rtol=1e-9)
    covered = x.copy()
    covered[13] += 100.0
    assert h.cost(W[1:], covered)[0] < h.cost(W[1:], x)[0] - 50.0
    # a larger contract costs far more in the storm, when its shortfall is bought at the spot
    # price, than in a usual season
    more = x.copy()
    more[10] += 20.0
    usual, stormy = h.cost(W, more) - h.cost(W, x)
    assert stormy > usual + 100.0
    # at x0 most of the costliest twentieth of the seasons are storm seasons (one in twenty)
    z = np.random.default_rng(103).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 42] > 1.64).mean() > 0.5
