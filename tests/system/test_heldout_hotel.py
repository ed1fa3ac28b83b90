"""The held-out resort hotel (``benchmarks/heldout/hotel.py``, written after version 10 of the
default and the theme park and the electricity retailer) against a plain loop over one summer,
written from its docstring, and its behaviour (the shared checks are those of
``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from hotel import Hotel  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def hotel_summer_by_hand(h: Hotel, z, x) -> tuple[list[float], ...]:
    """The rooms booked a weekday and a weekend night, the groups' rooms wanted, the no-show and
    breakdown shares of the eight weeks, the economy and the shock's excess, and the cost of one
    summer, one week and one kind of night at a time."""
    p_wd, p_we, g, G, O, H_wd, H_we, D, M, A_1, A_2, S, I, P = (x[i] for i in range(14))
    dwd = [120.0, 140.0, 160.0, 170.0, 175.0, 165.0, 145.0, 120.0]
    dwe = [170.0, 190.0, 210.0, 220.0, 225.0, 215.0, 195.0, 170.0]
    gbase = [50.0, 60.0, 70.0, 75.0, 75.0, 70.0, 60.0, 50.0]
    k = [0.3, 0.5, 0.8, 1.0, 1.0, 0.9, 0.5, 0.3]
    market = np.exp(0.1 * z[40] - 0.005)
    kick = max(z[41] - 1.64, 0.0)
    weekday, weekend, groups, shows, broke = [], [], [], [], []
    for t in range(8):
        A = A_1 if t < 4 else A_2
        lift = 1.0 + 0.3 * (1.0 - np.exp(-A / 3.0))
        cut = market * np.exp(-0.8 * k[t] * kick)
        weekday.append(dwd[t] * np.exp(-1.8 * (p_wd / 160.0 - 1.0)) * lift * cut
                       * np.exp(0.15 * z[t] - 0.01125))
        weekend.append(dwe[t] * np.exp(-1.1 * (p_we / 210.0 - 1.0)) * lift * cut
                       * np.exp(0.15 * z[8 + t] - 0.01125))
        groups.append(gbase[t] * np.exp(-1.5 * (g / 140.0 - 1.0)) * cut
                      * np.exp(0.2 * z[16 + t] - 0.02))
        shows.append(1.0 - np.exp(-0.07 * np.exp(0.6 * k[t] * kick)
                                  * np.exp(0.3 * z[24 + t] - 0.045)))
        broke.append(1.0 - np.exp(-0.05 * np.exp(2.0 * k[t] * kick)
                                  * np.exp(0.4 * z[32 + t] - 0.08)))
    cost = 0.1 * I - min(I, 150.0 * kick)
    cost += 8 * (90.0 + 2.0 * M + 7 * 0.04 * P + 0.2 * (5 * H_wd + 2 * H_we)
                 + 7 * 0.15 * D + 7 * 0.18 * S) + 4 * A_1 + 4 * A_2
    rho = 1.0 - np.exp(-M / 1.5)
    b = dirty = occ = 0.0
    rep = 1.0
    for t in range(8):
        b = b * (1.0 - rho)
        b = b + (200.0 - b) * broke[t]
        gr = min(G, groups[t])
        came = walked = checked = waited = 0.0
        for day, nights, price, H, turn, spend in ((weekday, 5, p_wd, H_wd, 0.5, 0.05),
                                                   (weekend, 2, p_we, H_we, 0.8, 0.07)):
            dem = day[t] * rep
            acc = min(dem, max(200.0 - b - G + 0.5 * (G - gr) + O, 0.0))
            need = occ + dirty  # occupied the night before, and left dirty before
            cleaned = min(need, 15.0 * H)
            dirty = need - cleaned
            sell = max(200.0 - b - dirty, 0.0)
            a_g = acc * np.exp(-k[t] * kick) * (1.0 - shows[t])
            a_r = gr * np.exp(-1.2 * k[t] * kick)
            occ = min(a_g + a_r, sell)
            walk = a_g + a_r - occ
            share = occ / (a_g + a_r) if a_g + a_r > 0 else 0.0
            ins = turn * occ
            if D > 0:
                u = ins / (50.0 * D)
                long = u**4 / (1.0 + u**4)
            else:
                long = 1.0 if ins > 0 else 0.0
            if S > 0:
                fed = (1.0 + (1.8 * occ / (20.0 * S)) ** 4) ** -0.25
            else:
                fed = 1.0 if occ == 0 else 0.0
            cost += nights * (0.4 * max(walk - P, 0.0) + 0.03 * ins * long
                              - (price * a_g + g * a_r) * share / 1000.0
                              - spend * fed * 1.8 * occ)
            came += nights * (a_g + a_r)
            walked += nights * walk
            checked += nights * ins
            waited += nights * ins * long
        miss = walked / came if came > 0 else 0.0
        wait = waited / checked if checked > 0 else 0.0
        rep = 0.6 * rep + 0.4 * np.exp(-4.0 * miss - wait - 2.0 * b / 200.0 - 0.6 * k[t] * kick)
    return weekday, weekend, groups, shows, broke, [market, kick], cost


def test_hotel_agrees_with_a_loop_over_the_weeks_and_nights_of_one_summer():
    """One week and one kind of night at a time. rtol 1e-10: the same sums in another order;
    the cost is a difference of terms (the rooms, groups and spa sold against the overhead and
    the staff) at most some hundred times larger than itself on these rows, so rounding stays
    near 1e-13."""
    h = Hotel()
    z = np.random.default_rng(71).standard_normal((44, h.dim_w))
    z[:12, 41] += 2.5  # hurricanes and outbreaks: bookings and groups cancelled, rooms damaged
    z[12:16, :24] += 2.5  # a crowded summer: rooms walked, dirty rooms, long check-in queues
    z[16:20, :24] -= 3.0  # an empty hotel: no walks, the housekeepers idle
    z[20:24, 32:40] += 3.0  # rooms breaking down week after week
    z[24:28, 24:32] += 3.0  # many no-shows
    z[28:30, 41] += 5.0  # a shock that leaves hardly anyone
    optimum = json.loads((HELDOUT / "optima.json").read_text())["hotel"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[80.0, 420.0, 70.0, 0.0, 0.0, 0.0, 30.0, 0.0, 0.0, 0.0, 20.0, 0.0, 500.0,
                       0.0],
                 np.r_[320.0, 105.0, 280.0, 250.0, 60.0, 30.0, 0.0, 10.0, 8.0, 15.0, 0.0, 60.0,
                       0.0, 40.0])
    # the weekday and weekend bookings, the groups, the no-shows, the breakdowns, the economy
    # and the shock, then the cost
    assert_rows_agree(h, z, decisions, hotel_summer_by_hand,
                      (slice(0, 8), slice(8, 16), slice(16, 24), slice(24, 32), slice(32, 40),
                       slice(40, 42)))


def test_hotel_rates_move_the_bookings_and_the_shock_fills_the_tail():
    h = Hotel()
    x = h.x0.copy()
    wd, we = h.booking_mean(x)
    # a dearer weekday rate: fewer weekday bookings, the weekend's unchanged; the weekend's
    # bookings move less for the same relative rise (the leisure guests' smaller elasticity)
    dearer = x.copy()
    dearer[0] *= 1.1
    assert np.all(h.booking_mean(dearer)[0] < wd)
    np.testing.assert_allclose(h.booking_mean(dearer)[1], we, rtol=1e-12)
    wd_drop = h.booking_mean(dearer)[0] / wd
    dearer = x.copy()
    dearer[1] *= 1.1
    we_drop = h.booking_mean(dearer)[1] / we
    assert np.all(we_drop < 1.0) and np.all(we_drop > wd_drop)
    np.testing.assert_allclose(h.booking_mean(dearer)[0], wd, rtol=1e-12)
    # a lower group rate: more groups
    cheaper = x.copy()
    cheaper[2] -= 10.0
    assert np.all(h.group_mean(cheaper) > h.group_mean(x))
    # marketing in weeks 5-8 lifts only their bookings, with diminishing returns
    louder, loudest = x.copy(), x.copy()
    louder[10] += 3.0
    loudest[10] += 6.0
    gain, more = h.booking_mean(louder)[1] / we, h.booking_mean(loudest)[1] / we
    assert np.all(gain[4:] > 1.0) and np.allclose(gain[:4], 1.0)
    assert np.all(more[4:] - gain[4:] < gain[4:] - 1.0)
    # the shock (z[41]) cuts the bookings and the groups, most in weeks 4-5, raises the
    # no-shows and the breakdowns, and leaves the economy alone
    z = np.zeros((2, h.dim_w))
    z[1, 41] = 3.5
    W = h.transform(x, z)
    assert np.all(W[1, :24] < W[0, :24]) and np.all(W[1, 24:40] > W[0, 24:40])
    assert np.argmin(W[1, :8] / W[0, :8]) in (3, 4)
    np.testing.assert_allclose(W[1, 40], W[0, 40], rtol=1e-12)
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # the same bookings cost more with the shock's cancellations and dented name (no cover)
    bare = x.copy()
    bare[12] = 0.0
    calm = W[1].copy()
    calm[41] = 0.0
    assert h.cost(W[1:], bare)[0] > h.cost(calm[None], bare)[0]
    # the cover pays 150 $k a unit of the shock's excess, up to the cover
    covered = bare.copy()
    covered[12] = 100.0
    np.testing.assert_allclose(h.cost(W[1:], bare) - h.cost(W[1:], covered),
                               100.0 - 10.0, rtol=1e-9)
    # more housekeepers, clerks and spa staff pay for themselves at x0
    z = np.random.default_rng(72).standard_normal((2_000, h.dim_w))
    W = h.transform(x, z)
    for i, step in ((5, 2.0), (6, 2.0), (7, 1.0), (11, 4.0)):
        more = x.copy()
        more[i] += step
        assert (h.cost(W, more) - h.cost(W, x)).mean() < 0.0, i
    # with housekeepers enough to sell the rooms, another crew costs about what it earns in a
    # usual summer and pays for itself in the summers of the shock, whose damaged rooms it
    # returns sooner
    cleaned = x.copy()
    cleaned[5:7] = 14.0
    more = cleaned.copy()
    more[8] += 1.0
    gain = h.cost(W, more) - h.cost(W, cleaned)
    hit = z[:, 41] > 1.64
    assert gain[hit].mean() < 0.0 < gain[~hit].mean()
    # at x0 most of the costliest twentieth of the summers are summers of the shock (one in
    # twenty)
    z = np.random.default_rng(73).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 41] > 1.64).mean() > 0.55
