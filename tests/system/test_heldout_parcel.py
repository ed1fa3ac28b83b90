"""The held-out parcel carrier (``benchmarks/heldout/parcel.py``, written after version 11 of the
default and the music festival, the streaming service and the bakery chain) against a plain
loop over one season, written from its docstring, and its behaviour (the shared checks are
those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from parcel import Parcel  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def parcel_season_by_hand(h: Parcel, z, x) -> tuple[list[float], ...]:
    """The business and marketplace volumes of the two regions in the six weeks (region by
    region), the subcontractor's and the fuel's spot factors, the economy and the storm's
    excess, and the cost of one season, one week and one region at a time."""
    p, s, C, V, D, O, L, A, K, H = (x[0], x[1], x[2:4], (x[4:6], x[6:8]), x[8], x[9], x[10],
                                    x[11], x[12], x[13])
    bbase, mbase = [45.0, 10.0], [75.0, 18.0]
    season = [0.8, 0.9, 1.0, 1.2, 1.45, 1.7]
    peak = [0, 0, 0, 1, 1, 1]
    surge = [0.0, 0.0, 0.0, 0.3, 0.6, 0.8]
    storm = [0.0, 0.0, 0.0, 0.6, 1.0, 1.0]
    slow, cap, share = [0.8, 1.6], [1.5, 0.6], [0.7, 0.3]
    van_fee, van_cost, burn = [2.5, 2.0], [0.3, 0.6], [0.04, 0.1]
    econ = np.exp(0.08 * z[24] - 0.0032)
    kick = max(z[27] - 1.64, 0.0)
    lift = 1.0 + 0.2 * (1.0 - np.exp(-K / 40.0))
    rate = [p + s * peak[t] for t in range(6)]
    business, market = [], []
    for j in range(2):
        for t in range(6):
            common = season[t] * econ * np.exp(surge[t] * kick)
            business.append(bbase[j] * common * np.exp(-1.2 * (rate[t] / 8.0 - 1.0))
                            * np.exp(0.12 * z[6 * j + t] - 0.0072))
            market.append(mbase[j] * common * np.exp(-2.5 * (rate[t] / 8.0 - 1.0)) * lift
                          * np.exp(0.12 * z[12 + 6 * j + t] - 0.0072))
    sub = np.exp(0.6 * kick) * np.exp(0.15 * z[25] - 0.01125)
    fuel_price = np.exp(0.6 * kick) * np.exp(0.2 * z[26] - 0.02)

    cost = (K + 6.0 * L + 2.0 * D + 10.2 * H
            + sum(400.0 + 0.6 * (C[0] + C[1]) + 1.5 * O + 1.2 * A for _ in range(6)))
    unsorted, undelivered, rep = [0.0, 0.0], [0.0, 0.0], [1.0, 1.0]
    fuel = 0.0
    for t in range(6):
        r = rate[t]
        came, left = [0.0, 0.0], [0.0, 0.0]
        for j in range(2):
            vans = V[j][0] if t < 3 else V[j][1]
            cost += van_fee[j] * vans
            came[j] = business[6 * j + t] + market[6 * j + t] * rep[j]
            cost -= r * came[j]
            q = unsorted[j] + came[j]
            done = min(q, C[j])
            unsorted[j] = q - done
            cost += 0.3 * done
            q = undelivered[j] + done
            if j == 0:
                locker = min(1.0 * L, 0.3 * q)
                q -= locker
                cost += 0.15 * locker
            if peak[t] and vans > 0:
                extra = 0.5 * (1.0 - np.exp(-share[j] * D / vans))
            else:
                extra = 0.0
            by_van = min(q, cap[j] * vans * (1.0 + extra) / (1.0 + slow[j] * storm[t] * kick))
            cost += van_cost[j] * by_van
            fuel += burn[j] * by_van
            left[j] = q - by_van
        rest = left[0] + left[1]
        for j in range(2):
            used = left[j] * min(1.0, O / rest) if rest > 0 else 0.0
            left[j] -= used
            cost += 4.5 * used
        rest = left[0] + left[1]
        late, complaints = [0.0, 0.0], [0.0, 0.0]
        for j in range(2):
            spot = left[j] * min(1.0, 10.0 / rest) if rest > 0 else 0.0
            undelivered[j] = left[j] - spot
            late[j] = unsorted[j] + undelivered[j]
            cost += 8.0 * sub * spot + (0.8 + 0.25 * r) * late[j]
            complaints[j] = 0.15 * late[j] + 0.005 * came[j]
        answered = min(1.0, 0.3 * A / sum(complaints))
        for j in range(2):
            unanswered = complaints[j] * (1.0 - answered)
            cost += 5.0 * unanswered
            miss = (late[j] + 2.0 * unanswered) / came[j]
            rep[j] = 0.6 * rep[j] + 0.4 * np.exp(-3.0 * miss)
    cost += sum((4.0 + 0.5 * rate[5]) * (unsorted[j] + undelivered[j]) for j in range(2))
    if fuel > H:
        cost += 10.0 * fuel_price * (fuel - H)
    else:
        cost -= 9.0 * fuel_price * (H - fuel)
    return business, market, [sub, fuel_price, econ, kick], cost


def test_parcel_agrees_with_a_loop_over_the_weeks_and_regions_of_one_season():
    """One week and one region at a time. rtol 1e-10: the same sums in another order; the cost
    is a difference of terms (the rates earned against the overhead, the vans, the sort
    centres and the late parcels) at most some hundred times larger than itself on these
    rows, so rounding stays near 1e-13."""
    h = Parcel()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 27] += 3.0  # surges and snowstorms: the vans slowed, the backlogs, dear spot prices
    z[12:16, :24] += 2.5  # a rush of parcels: the sort centres and the vans overfull
    z[16:20, :24] -= 3.0  # few parcels: idle capacity, no late parcels
    z[20:24, 26] += 3.0  # dear fuel
    optimum = json.loads((HELDOUT / "optima.json").read_text())["parcel"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[14.0, 0.8, 60.0, 80.0, 20.0, 0.0, 50.0, 5.0, 0.0, 0.0, 0.0, 40.0, 0.0,
                       90.0],
                 np.r_[5.0, 2.9, 300.0, 10.0, 120.0, 150.0, 0.0, 80.0, 200.0, 60.0, 90.0, 0.0,
                       400.0, 0.0])
    # the business and the marketplace volumes, the spot factors, the economy and the storm's
    # excess, then the cost
    assert_rows_agree(h, z, decisions, parcel_season_by_hand,
                      (slice(0, 12), slice(12, 24), slice(24, 28)))


def test_parcel_rates_move_the_volume_and_the_surge_fills_the_tail():
    h = Parcel()
    x = h.x0.copy()
    # a dearer rate: fewer parcels of both kinds every week, the marketplace's the more
    dearer = x.copy()
    dearer[0] += 1.0
    b, m = h.business_mean(dearer) / h.business_mean(x), h.market_mean(dearer) / h.market_mean(x)
    assert np.all(b < 1.0) and np.all(m < b)
    # a dearer surcharge: fewer parcels in weeks 4-6 only
    dearer = x.copy()
    dearer[1] += 0.5
    b = h.business_mean(dearer) / h.business_mean(x)
    np.testing.assert_allclose(b[:, :3], 1.0, rtol=1e-12)
    assert np.all(b[:, 3:] < 1.0)
    # marketing: more marketplace parcels with diminishing returns, the business's unchanged
    gains = np.diff([h.market_mean(np.r_[x[:12], k, x[13]])[0, 0] for k in (0, 40, 80, 120)])
    assert np.all(gains > 0) and np.all(np.diff(gains) < 0)
    louder = x.copy()
    louder[12] += 40.0
    np.testing.assert_allclose(h.business_mean(louder), h.business_mean(x), rtol=1e-12)
    # the rates and marketing move the scenario's volumes on the same normals
    z = np.random.default_rng(63).standard_normal((5, h.dim_w))
    W, Wd = h.transform(x, z), h.transform(np.r_[x[0] + 1.0, x[1:]], z)
    assert np.all(Wd[:, :24] < W[:, :24])
    np.testing.assert_allclose(Wd[:, 24:], W[:, 24:], rtol=1e-12)
    # a surge (z[27]): more parcels in weeks 4-6 only, the most in week 6, dearer spot prices,
    # the economy unchanged
    z = np.zeros((2, h.dim_w))
    z[1, 27] = 2.64
    W = h.transform(x, z)
    lift = W[1, :24].reshape(4, 6) / W[0, :24].reshape(4, 6)
    np.testing.assert_allclose(lift[:, :3], 1.0, rtol=1e-12)
    assert np.all(np.diff(lift[:, 2:], axis=1) > 0)
    assert np.all(W[1, 24:26] > W[0, 24:26]) and W[1, 26] == W[0, 26]
    # a season costs more the heavier the surge
    z = np.zeros((4, h.dim_w))
    z[:, 27] = 1.64 + np.array([0.0, 0.3, 1.0, 2.0])
    W = h.transform(x, z)
    assert np.all(np.diff(h.cost(W, x)) > 0)
    # the same parcels and spot prices cost more with the snowstorm's slow vans than without
    calm = W[2].copy()
    calm[27] = 0.0
    assert h.cost(W[2:3], x)[0] > h.cost(calm[None], x)[0]
    # more vans in weeks 4-6, seasonal drivers, overflow and lockers help most in a surge
    for i in (5, 7, 8, 9, 10):
        more = x.copy()
        more[i] *= 1.5
        assert (h.cost(W[3:], more)[0] - h.cost(W[3:], x)[0]
                < h.cost(W[:1], more)[0] - h.cost(W[:1], x)[0]), i
    # at x0 most of the costliest twentieth of the seasons are seasons of a surge (one in
    # twenty)
    z = np.random.default_rng(62).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 27] > 1.64).mean() > 0.5
