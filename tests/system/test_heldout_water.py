"""The held-out water utility (``benchmarks/heldout/water.py``) against a plain loop over one
summer, written from its docstring, and its behaviour (the shared checks are those of
``test_heldout``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from test_heldout import assert_fee_lowers_and_shock_builds, assert_rows_agree  # noqa: E402
from water import Water  # noqa: E402


def water_summer_by_hand(h: Water, z, x) -> tuple[list[float], ...]:
    """The households' and farms' demands, the inflows, the river's flows, the heat, wetness
    and drought's excess, and the cost of one summer, one week and one source at a time."""
    p_h, p_i, c, R, G, D, b = x[0], x[1], x[2], x[3], x[4], x[5], x[6:14]
    hbase = [0.70, 0.73, 0.76, 0.78, 0.78, 0.76, 0.74, 0.72]
    ibase = [0.30, 0.33, 0.37, 0.40, 0.40, 0.37, 0.34, 0.31]
    qbase = [0.28, 0.24, 0.21, 0.18, 0.15, 0.13, 0.11, 0.10]
    fbase = [0.90, 0.82, 0.74, 0.66, 0.59, 0.53, 0.48, 0.45]
    evap = [0.012, 0.014, 0.016, 0.018, 0.018, 0.017, 0.016, 0.014]
    ramp = [0.3 + 0.9 * t / 7 for t in range(8)]
    price = [1.0 + 0.3 * t / 7 for t in range(8)]
    heat = np.exp(0.05 * z[32] - 0.00125)
    wet = np.exp(0.2 * z[33] - 0.02)
    kick = max(z[34] - 1.28, 0.0)
    cut = 0.6 * (1.0 - np.exp(-c / 0.15))
    homes = [hbase[t] * np.exp(-2.0 * (p_h / 3.0 - 1.0))
             * (1.0 + (np.exp(ramp[t] * kick) - 1.0) * (1.0 - cut)) * heat
             * np.exp(0.1 * z[t] - 0.005) for t in range(8)]
    farms = [ibase[t] * np.exp(-2.5 * (p_i - 1.0)) * heat * np.exp(ramp[t] * kick)
             * np.exp(0.2 * z[8 + t] - 0.02) for t in range(8)]
    inflow = [qbase[t] * wet * np.exp(-2.0 * ramp[t] * kick) * np.exp(0.35 * z[16 + t] - 0.06125)
              for t in range(8)]
    river = [fbase[t] * wet * np.exp(-1.5 * ramp[t] * kick) * np.exp(0.25 * z[24 + t] - 0.03125)
             for t in range(8)]
    cost = c + 8 * (0.15 * R + 0.3 * G * (1.0 + G / 0.1) + 0.4 * D)
    stock = 5.0
    for t in range(8):
        stock = min(stock + inflow[t], 8.0)
        left = homes[t]
        ground = min(G, left)
        left -= ground
        pumped = min(R, 0.4 * river[t], left)
        left -= pumped
        delivered = b[t] / (1.0 + 0.3 * ramp[t] * kick)
        bulk = min(delivered, left)
        left -= bulk
        desalinated = min(D, left)
        left -= desalinated
        drawn = min(left, max(stock - 0.5, 0.0))
        left -= drawn
        stock -= drawn
        bought = min(0.12 / (1.0 + kick), left)
        rationed = left - bought
        irrigated = min(farms[t], max(stock - 2.0, 0.0))
        stock -= irrigated
        stock *= 1.0 - evap[t] * heat * (1.0 + 0.5 * ramp[t] * kick)
        cost += (price[t] * delivered + 0.25 * ground + 0.08 * pumped + 1.1 * desalinated
                 + 0.12 * drawn + 4.0 * bought + 15.0 * rationed + 0.2 * (farms[t] - irrigated)
                 + (0.4 - p_h) * (homes[t] - rationed) - p_i * irrigated)
    cost += 4.0 * max(4.5 - stock, 0.0)
    return homes, farms, inflow, river, [heat, wet, kick], cost


def test_water_agrees_with_a_loop_over_the_weeks_and_sources_of_one_summer():
    """One week and one source at a time. rtol 1e-10: the same sums in another order; the
    cost is a difference of terms (the tariffs earned against the supply and its penalties)
    at most some hundred times larger than itself on these rows, so rounding stays near
    1e-13."""
    h = Water()
    z = np.random.default_rng(31).standard_normal((40, h.dim_w))
    z[:12, 34] += 2.5  # droughts: the reservoir runs down, emergency purchases and rationing
    z[12:16, 16:24] += 6.0  # floods: the reservoir spills
    decisions = (h.x0, 1.4 * h.x0,
                 np.r_[3.64, 1.59, 0.35, 0.28, 0.117, 0.34, 0.004, 0.038, 0.07, 0.099, 0.116,
                       0.124, 0.132, 0.127],
                 np.r_[1.6, 0.6, 0.0, 0.6, 0.0, 0.4, 0.0, 0.3, 0.0, 0.2, 0.0, 0.0, 0.5, 0.1])
    # the households' and farms' demands, the inflows, the river, the summer's factors, then
    # the cost
    assert_rows_agree(h, z, decisions, water_summer_by_hand,
                      (slice(0, 8), slice(8, 16), slice(16, 24), slice(24, 32), slice(32, 35)))


def test_water_demand_falls_with_the_tariffs_and_the_drought_raises_it_and_fills_the_tail():
    # a drought in z[34]; the same demands and flows cost more with the drought's evaporation,
    # bulk cut and emergency limit than without
    h = Water()
    assert_fee_lowers_and_shock_builds(h, h.household_mean, 0.3, 34, 8)
    x = h.x0.copy()
    dearer = x.copy()
    dearer[1] += 0.2
    assert np.all(h.farm_mean(dearer) < h.farm_mean(x))
    np.testing.assert_allclose(h.household_mean(dearer), h.household_mean(x), rtol=1e-12)
    # the campaign cuts the households' demand in a drought and leaves a usual summer alone
    z = np.zeros((2, h.dim_w))
    z[1, 34] = 3.0
    louder = x.copy()
    louder[2] += 0.2
    W, Wl = h.transform(x, z), h.transform(louder, z)
    np.testing.assert_allclose(Wl[0], W[0], rtol=1e-12)
    assert np.all(Wl[1, :8] < W[1, :8])
    # the drought raises the farms' demand and cuts the inflows and the river, more each week
    assert np.all(W[1, 8:16] > W[0, 8:16]) and np.all(W[1, 16:32] < W[0, 16:32])
    assert np.all(np.diff(W[1, 16:24] / W[0, 16:24]) < 0)
    # at x0 most of the costliest twentieth of the summers are drought summers (one in ten)
    z = np.random.default_rng(32).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 34] > 1.28).mean() > 0.8
