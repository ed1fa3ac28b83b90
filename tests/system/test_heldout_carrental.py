"""The held-out car-rental company (``benchmarks/heldout/carrental.py``, written after version 11
of the default and the hotel, the ride-hailing platform and the toy manufacturer) against a plain
loop over one holiday, written from its docstring, and its behaviour (the shared checks are
those of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from carrental import CarRental  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402

ROUTES = [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]


def carrental_holiday_by_hand(h: CarRental, z, x) -> tuple[list[float], ...]:
    """The round-trip rentals of the three locations' four weeks, the six routes' one-way
    rentals, the damage shares, the economy and the hurricane's excess, and the cost of one
    holiday, one week and one location at a time."""
    p, f, F, K, P, M, U, A_1, A_2, I = (x[0:3], x[3], x[4:7], x[7], x[8], x[9], x[10], x[11],
                                        x[12], x[13])
    ref, el = [60.0, 50.0, 70.0], [1.2, 1.5, 2.2]
    rbase = [[5.0, 5.5, 6.0, 5.5], [3.5, 3.5, 4.0, 3.5], [4.0, 5.0, 6.0, 5.0]]
    obase = [1.0, 0.6, 0.5, 0.4, 1.5, 1.2]
    hit = [0.0, 0.6, 2.0, 2.0]
    collapse = [1.5, 1.5, 4.0]
    market = np.exp(0.1 * z[40] - 0.005)
    kick = max(z[41] - 1.64, 0.0)

    def season(r, t):
        l, m = ROUTES[r]
        if m == 2:
            return [1.3, 1.2, 0.9, 0.6][t]
        if l == 2:
            return [0.6, 0.9, 1.2, 1.4][t]
        return 1.0

    def factor(l, t):
        if l == 0:
            lift = 1.0 + 0.12 * (1.0 - np.exp(-U / 3.0))
        elif l == 1:
            lift = 1.0
        else:
            lift = 1.0 + 0.2 * (1.0 - np.exp(-(A_1 if t < 2 else A_2) / 3.0))
        return np.exp(-el[l] * (p[l] / ref[l] - 1.0)) * lift

    rnd, ow, dmg = [], [], []
    for l in range(3):
        for t in range(4):
            deterred = sum(obase[r] * season(r, t) for r in range(6) if ROUTES[r][0] == l)
            rnd.append((rbase[l][t] + 0.5 * (1.0 - np.exp(-0.005 * f)) * deterred)
                       * factor(l, t) * market * np.exp(0.12 * z[4 * l + t] - 0.0072)
                       * np.exp(-collapse[l] * hit[t] * kick))
    for r in range(6):
        for t in range(4):
            o = (obase[r] * season(r, t) * np.exp(-0.005 * f) * factor(ROUTES[r][0], t) * market
                 * np.exp(0.2 * z[12 + 4 * r + t] - 0.02))
            if ROUTES[r] == (2, 0):
                o *= 1.0 + 6.0 * hit[t] * kick
            ow.append(o)
    for t in range(4):
        dmg.append(1.0 - np.exp(-0.06 * np.exp(2.5 * hit[t] * kick)
                                * np.exp(0.3 * z[36 + t] - 0.045)))

    cost = 4 * (150.0 + 15.0 * sum(F) + 4.0 * K + 6.0 * P + 8.0 * M + U) + 2 * (A_1 + A_2)
    cost += 0.15 * I
    h = [F[0], F[1], F[2]]
    Q = [0.0, 0.0, 0.0]
    rep = [1.0, 1.0, 1.0]
    parts = 0.0
    for t in range(4):
        ht = hit[t] * kick
        R = [rep[l] * rnd[4 * l + t] for l in range(3)]
        O = [rep[ROUTES[r][0]] * ow[4 * r + t] for r in range(6)]
        out = [sum(O[r] for r in range(6) if ROUTES[r][0] == l) for l in range(3)]
        D = [R[l] + out[l] for l in range(3)]
        own = [min(D[l], h[l]) for l in range(3)]
        short = [D[l] - own[l] for l in range(3)]
        used = min(sum(short), P * np.exp(-ht))
        partner = [short[l] * used / sum(short) if sum(short) > 0 else 0.0 for l in range(3)]
        lost = [short[l] - partner[l] for l in range(3)]
        g = [own[l] / D[l] if D[l] > 0 else 0.0 for l in range(3)]
        ret = [g[m] * R[m] + sum(g[ROUTES[r][0]] * O[r] for r in range(6) if ROUTES[r][1] == m)
               for m in range(3)]
        for l in range(3):
            served = (own[l] + partner[l]) / D[l] if D[l] > 0 else 0.0
            cost -= 0.7 * p[l] * (own[l] + partner[l]) + 0.1 * f * served * out[l]
            h[l] = h[l] - own[l] + (1.0 - dmg[t]) * ret[l]
            Q[l] += dmg[t] * ret[l]
            parts += 40.0 * dmg[t] * ret[l]
        backlog = sum(Q)
        share = min(1.0, 0.5 * M / backlog) if backlog > 0 else 1.0
        for l in range(3):
            h[l] += share * Q[l]
            Q[l] -= share * Q[l]
            rep[l] = 0.5 * rep[l] + 0.5 * np.exp(-3.0 * (lost[l] / D[l] if D[l] > 0 else 0.0))
        H = sum(h)
        target = [H * F[l] / sum(F) for l in range(3)]
        surplus = [max(h[l] - target[l], 0.0) for l in range(3)]
        deficit = [max(target[l] - h[l], 0.0) for l in range(3)]
        moved = min(K, sum(surplus))
        if sum(surplus) > 0:
            for l in range(3):
                h[l] += (deficit[l] - surplus[l]) * moved / sum(surplus)
        cost += 35.0 * used + 25.0 * sum(lost) + 6.0 * moved
    cost += parts - min(I, 0.5 * max(parts - 150.0, 0.0))
    return rnd, ow, dmg, [market, kick], cost


def test_carrental_agrees_with_a_loop_over_the_weeks_and_locations_of_one_holiday():
    """One week and one location at a time. rtol 1e-10: the same sums in another order; the
    cost is a difference of terms (the rates and fees earned against the leases, the overhead
    and the goodwill) at most some hundreds of times larger than itself on these rows (a holiday
    near break-even), so rounding stays near 1e-13."""
    h = CarRental()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 41] += 2.5  # hurricanes: the evacuation, the damage, the partner's cars scarce
    z[12:16, :12] += 3.0  # crowds: every fleet out, renters lost, the partner's cars all used
    z[16:20, :36] -= 3.0  # an empty holiday: cars idle, nothing to truck or repair
    z[20:24, 36:40] += 4.0  # heavy damage: the repair backlog carries over
    optimum = json.loads((HELDOUT / "optima.json").read_text())["carrental"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[30.0, 100.0, 140.0, 0.0, 0.0, 5.0, 12.0, 0.0, 0.0, 0.0, 0.0, 30.0, 0.0,
                       500.0],
                 np.r_[120.0, 25.0, 35.0, 400.0, 9.0, 0.5, 0.0, 4.0, 10.0, 6.0, 20.0, 0.0, 15.0,
                       0.0])
    # the round-trip rentals, the one-way rentals, the damage shares, the holiday's two
    # numbers, then the cost
    assert_rows_agree(h, z, decisions, carrental_holiday_by_hand,
                      (slice(0, 12), slice(12, 36), slice(36, 40), slice(40, 42)))


def test_carrental_rates_and_fee_move_the_renters_and_the_hurricane_fills_the_tail():
    h = CarRental()
    x = h.x0.copy()
    base_r, base_o = h.round_mean(x), h.route_mean(x)
    # a dearer rate at a location: fewer renters there (both kinds), the others unchanged
    for i in range(3):
        dearer = x.copy()
        dearer[i] *= 1.1
        r, o = h.round_mean(dearer), h.route_mean(dearer)
        assert np.all(r[i] < base_r[i]) and np.all(o[2 * i:2 * i + 2] < base_o[2 * i:2 * i + 2])
        others = [j for j in range(3) if j != i]
        np.testing.assert_allclose(r[others], base_r[others], rtol=1e-12)
    # the beach's leisure renters lose the largest share to a 10 % dearer rate
    drop = [h.round_mean(x * np.where(np.arange(14) == i, 1.1, 1.0))[i, 0] / base_r[i, 0]
            for i in range(3)]
    assert drop[2] < drop[0] and drop[2] < drop[1]
    # a dearer one-way fee: fewer one-way rentals, some more round trips
    dearer = x.copy()
    dearer[3] += 50.0
    assert np.all(h.route_mean(dearer) < base_o) and np.all(h.round_mean(dearer) > base_r)
    # the loyalty budget lifts the airport alone, the marketing the beach in its own weeks
    louder = x.copy()
    louder[10] += 5.0
    louder[11] += 5.0
    r = h.round_mean(louder)
    assert np.all(r[0] > base_r[0]) and np.all(r[2, :2] > base_r[2, :2])
    np.testing.assert_allclose(r[1], base_r[1], rtol=1e-12)
    np.testing.assert_allclose(r[2, 2:], base_r[2, 2:], rtol=1e-12)
    # the hurricane (z[41]) collapses the beach's demand in weeks 3-4, surges the evacuation
    # from the beach to the airport and raises the damage; the economy stays as it was
    z = np.zeros((2, h.dim_w))
    z[1, 41] = 3.0
    W = h.transform(x, z)
    assert np.all(W[1, 10:12] < 0.05 * W[0, 10:12]) and np.all(W[1, 1:4] < W[0, 1:4])
    np.testing.assert_allclose(W[1, [0, 4, 8]], W[0, [0, 4, 8]], rtol=1e-12)  # week 1 calm
    assert np.all(W[1, 28:32][1:] > 5.0 * W[0, 28:32][1:])
    assert np.all(W[1, 37:40] > W[0, 37:40]) and W[1, 36] == W[0, 36]
    np.testing.assert_allclose(W[1, 40], W[0, 40], rtol=1e-12)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0] + 500.0
    # the same holiday costs more when the partner's cars are scarce than without the storm
    calm = W[1].copy()
    calm[41] = 0.0
    assert h.cost(W[1:], x)[0] > h.cost(calm[None], x)[0]
    # no fleets: no car is rented, repaired or trucked, and every renter is lost
    empty = x.copy()
    empty[4:10] = 0.0
    more_trucks = empty.copy()
    more_trucks[7] = 3.0
    np.testing.assert_allclose(h.cost(W, more_trucks) - h.cost(W, empty), 4 * 4.0 * 3.0,
                               rtol=1e-9)
    # at x0 most of the costliest twentieth of the holidays are holidays of a hurricane (one in
    # twenty)
    z = np.random.default_rng(62).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 41] > 1.64).mean() > 0.5
