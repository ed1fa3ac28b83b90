"""The held-out open-pit mine (``benchmarks/heldout/openpit.py``, written after version 9 of the
default and the harvest and the transit operator) against a plain loop over one month, written
from its docstring, and its behaviour (the shared checks are those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from openpit import Mine  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def mine_month_by_hand(h: Mine, z, x) -> tuple[list[float], ...]:
    """The four weeks' inflows, the trucks' and the loaders' breakdown shares and the ore's
    shares, the month's buyers' demand, spot price, wetness and shock's excess, and the cost of
    one month, one week and one kind of equipment at a time. The normals: 0-3 the inflows' own
    noise, 4-7 the trucks', 8-11 the loaders', 12-15 the ore's, 16 the wetness, 17 the buyers'
    demand, 18 the price level, 19 the shock."""
    N, L, C, P, M, n1, n2, R, F, g, p, U, I = (float(v) for v in x)
    ibase = [8.0, 8.0, 9.0, 9.0]
    k = [0.5, 1.0, 0.6, 0.3]
    wet = np.exp(0.3 * z[16] - 0.045)
    kick = max(z[19] - 1.28, 0.0)
    inflow = [ibase[t] * wet * np.exp(2.5 * k[t] * kick) * np.exp(0.3 * z[t] - 0.045)
              for t in range(4)]
    truck_share = [1.0 - np.exp(-0.05 * np.exp(1.5 * k[t] * kick) * np.exp(0.3 * z[4 + t] - 0.045))
                   for t in range(4)]
    loader_share = [1.0 - np.exp(-0.04 * np.exp(2.0 * k[t] * kick)
                                 * np.exp(0.3 * z[8 + t] - 0.045)) for t in range(4)]
    ore = [1.0 - np.exp(-0.7 * np.exp(-1.6 * (g - 1.0)) * np.exp(0.25 * z[12 + t] - 0.03125))
           for t in range(4)]
    d = (12.0 * np.exp(-1.2 * (p / 0.25 - 1.0) + 1.2 * (g - 1.0))
         * np.exp(0.2 * z[17] - 0.02))
    spot = 2.2 * np.exp(0.15 * z[18] - 0.01125) * np.exp(0.4 * kick)

    # the month's fees: four weeks of the equipment, the capacities, the crews, the slot and
    # the overhead, two weeks of each night shift, the insurance's premium less its payout
    cost = 4 * (0.07 * N + 0.35 * L + 0.015 * C + 0.006 * P + 0.06 * M + 0.12 * U
                + 0.05 * R + 0.5)
    cost += 2 * 0.9 * n1 + 2 * 0.9 * n2 + 0.15 * I - min(I, 20.0 * kick)
    rho = 1.0 - np.exp(-M / 3.0)
    y = 0.05 * g * (1.0 - 0.5 * np.exp(-g / 0.6))
    water = broken_trucks = broken_loaders = backlog = Q = 0.0
    for t in range(4):
        water = max(water + inflow[t] - U, 0.0)
        up = np.exp(-water / 10.0 - 1.5 * k[t] * kick)
        broken_trucks *= 1.0 - rho
        broken_trucks += (N - broken_trucks) * truck_share[t]
        broken_loaders *= 1.0 - rho
        broken_loaders += (L - broken_loaders) * loader_share[t]
        a = 1.0 + 0.5 * (n1 if t < 2 else n2)
        hauled = max(a * 25.0 * (N - broken_trucks), 1e-9)
        loaded = max(a * 160.0 * (L - broken_loaders), 1e-9)
        rock = up * (hauled**-3 + loaded**-3 + 500.0**-3) ** (-1.0 / 3.0)
        backlog += ore[t] * rock
        crushed = min(C, backlog)
        backlog -= crushed
        conc = y * crushed
        Q += conc
        by_road = max(conc - R, 0.0)
        cost += 0.003 * rock + 0.005 * crushed + 0.1 * max(backlog - P, 0.0) + 0.14 * by_road
    cost -= 2.2 * F
    if Q < F:
        cost += 1.1 * spot * (F - Q)
    else:
        to_buyers = min(Q - F, d)
        cost -= (spot + p) * to_buyers + 0.6 * spot * (Q - F - to_buyers)
    cost -= 0.02 * backlog
    return inflow, truck_share, loader_share, ore, [d, spot, wet, kick], cost


def test_mine_agrees_with_a_loop_over_the_weeks_and_the_equipment_of_one_month():
    """One week and one kind of equipment at a time. rtol 1e-10: the same sums in another
    order; the cost is a difference of terms (the concentrate sold against the fees and the
    overhead) at most some hundred times larger than itself on these rows, so rounding stays
    near 1e-13."""
    h = Mine()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 19] += 2.5  # floods and wall failures: the pit under water, the equipment broken
    z[12:16, :4] += 3.0  # wet weeks: water that the pumps cannot keep up with
    z[16:20, 4:12] += 4.0  # breakdowns: most trucks and loaders in the workshop
    z[20:24, 17] += 3.0  # eager buyers: all the concentrate sold to them
    z[24:28, 17] -= 3.0  # shy buyers: the rest at the distressed price
    z[28:32, 12:16] += 3.0  # rich ore: the backlog beyond the crusher and the pile
    optimum = json.loads((HELDOUT / "optima.json").read_text())["mine"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 # no crusher, pile, crews, pumps, slot or cover, full night shifts, a huge
                 # forward sale and a high cut: nothing crushed, the pit drowned
                 np.r_[40.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 80.0, 2.0, 0.0, 0.0, 0.0],
                 # a fleet beyond the benches, a tiny crusher and pile: the backlog
                 # overflows and carries over; a low cut, a dear premium
                 np.r_[60.0, 8.0, 5.0, 1.0, 10.0, 0.0, 0.5, 30.0, 0.0, 0.5, 1.5, 40.0, 30.0])
    # the inflows, the breakdown shares of the trucks and of the loaders, the ore's shares, the
    # month's four numbers, then the cost
    assert_rows_agree(h, z, decisions, mine_month_by_hand,
                      (slice(0, 4), slice(4, 8), slice(8, 12), slice(12, 16), slice(16, 20)))


def test_mine_premium_and_grade_move_the_buyers_and_the_flood_fills_the_tail():
    h = Mine()
    x = h.x0.copy()
    # a dearer premium: fewer buyers, by the exponential elasticity; a higher grade: more
    dearer, richer = x.copy(), x.copy()
    dearer[10] += 0.05
    richer[9] += 0.2
    np.testing.assert_allclose(h.demand_mean(dearer) / h.demand_mean(x), np.exp(-1.2 * 0.2),
                               rtol=1e-12)
    assert h.demand_mean(richer) > h.demand_mean(x)
    # a higher cut: less ore in the rock each week, more concentrate in the ore
    z = np.zeros((2, h.dim_w))
    assert np.all(h.transform(richer, z)[:, 12:16] < h.transform(x, z)[:, 12:16])
    assert h.ore_share(1.2) < h.ore_share(1.0) and h.conc_yield(1.2) > h.conc_yield(1.0)
    # a flood (z[19]) raises the inflows, the breakdowns and the spot price, most in the second
    # week, and leaves the ore, the buyers and the wetness alone
    z[1, 19] = 3.0
    W = h.transform(x, z)
    assert np.all(W[1, :12] > W[0, :12]) and W[1, 17] > W[0, 17]
    assert np.argmax(W[1, :4] / W[0, :4]) == 1 and np.argmax(W[1, 4:8] / W[0, 4:8]) == 1
    np.testing.assert_allclose(W[1, [12, 13, 14, 15, 16, 18]], W[0, [12, 13, 14, 15, 16, 18]],
                               rtol=1e-12)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # the same month without the flood's stoppage and spike costs less (the payout aside)
    calm = W[1].copy()
    calm[19] = 0.0
    bare = x.copy()
    bare[12] = 0.0
    assert h.cost(W[1:], bare)[0] > h.cost(calm[None], bare)[0]
    # more pumps keep more of the flooded pit digging
    pumped = bare.copy()
    pumped[11] += 10.0
    assert h.cost(W[1:], pumped)[0] < h.cost(W[1:], bare)[0] + 4 * 0.12 * 10.0
    # the cover pays the insured loss up to its limit: 20 $M a unit of the excess
    covered = bare.copy()
    covered[12] = 100.0
    np.testing.assert_allclose(h.cost(W[1:], bare) - h.cost(W[1:], covered),
                               20.0 * 1.72 - 0.15 * 100.0, rtol=1e-9)
    # at x0 most of the costliest twentieth of the months are months of a flood (one in ten)
    z = np.random.default_rng(62).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 19] > 1.28).mean() > 0.5
