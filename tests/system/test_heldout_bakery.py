"""The held-out bakery chain (``benchmarks/heldout/bakery.py``, written after version 11 of the
default and the flu-vaccine maker, the lender and the car-rental company) against a plain loop
over one fortnight, written from its docstring, and its behaviour (the shared checks are those
of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from bakery import Bakery  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def bakery_fortnight_by_hand(h: Bakery, z, x) -> tuple[list[float], ...]:
    """The bread and cake buyers of the two clusters in the seven periods (cluster by cluster),
    the pre-orders, the spot factors, the economy and the storm's excess, and the cost of one
    fortnight, one period and one cluster at a time."""
    p_b, p_c, m, Q_b, Q_c, O, N, F, R = x[:9]
    V, S, A, H = x[9:11], x[11:13], x[13], x[14]
    bbase, cbase, share = [11.0, 9.0], [1.65, 1.35], [0.55, 0.45]
    bseason = [0.9, 1.0, 0.95, 1.0, 1.1, 1.25, 1.4]
    cseason = [0.8, 0.9, 0.9, 1.0, 1.2, 1.5, 2.2]
    surge = [0.0, 0.0, 0.0, 0.0, 0.3, 0.3, -1.2]
    outage = [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.5]
    spike = [0.0, 0.0, 0.0, 0.7, 1.5, 1.5, 1.5]
    econ = np.exp(0.08 * z[36] - 0.0032)
    kick = max(z[37] - 1.64, 0.0)
    bread_buyers, cake_buyers = [], []
    for j in range(2):
        for t in range(7):
            wait = 1.0 - 0.25 * m if t == 6 else 1.0
            bread_buyers.append(bbase[j] * bseason[t] * np.exp(-2.0 * (p_b / 3.0 - 1.0)
                                                              + 0.3 * (p_c / 20.0 - 1.0))
                                * wait * econ * np.exp(surge[t] * kick)
                                * np.exp(0.1 * z[j * 7 + t] - 0.005))
            cake_buyers.append(cbase[j] * cseason[t] * np.exp(-1.8 * (p_c / 20.0 - 1.0))
                               * wait * econ * np.exp(surge[t] * kick)
                               * np.exp(0.1 * z[14 + j * 7 + t] - 0.005))
    pre = (2.5 * (1.0 - np.exp(-A / 10.0)) * np.exp(-1.8 * (p_c / 20.0 - 1.0)) * econ
           * np.exp(0.15 * z[28] - 0.01125))
    sp = [np.exp(spike[t] * kick) * np.exp(0.12 * z[29 + t] - 0.0072) for t in range(7)]

    cost = 2.5 * F + 0.3 * H + A + 3 * 0.3 * N
    def room(held):
        if held == 0.0:
            return 1.0
        return (1.0 + (held / R) ** 4) ** -0.25 if R > 0 else 0.0

    dough, flour, kept, rep = F * room(F), H, 0.0, [1.0, 1.0]
    for t in range(7):
        cost += 0.4 * O + 2.5 * (V[0] + V[1]) + 0.25 * (S[0] + S[1]) + 0.08 * R + 10.0
        b, c = Q_b * bseason[t], Q_c * cseason[t]
        if t == 6:
            c += pre
        need = b + 2.0 * c
        day = O * np.exp(-outage[t] * kick)
        night = 0.8 * N if t >= 4 else 0.0
        made = min(need, day + night)
        f = made / need if need > 0 else 0.0
        B, C = f * b, f * c
        cost += 0.25 * max(made - day, 0.0)
        from_stock = min(dough, c)
        dough -= from_stock
        cost += 4.5 * sp[t] * (c - from_stock)
        hedged = min(flour, b)
        flour -= hedged
        cost += 0.4 * sp[t] * (b - hedged)
        if t == 6:
            filled = min(pre, C)
            cost += -p_c * filled + 30.0 * (pre - filled)
            C -= filled
        back = 0.0
        for j in range(2):
            loaves, fresh, old = share[j] * B, share[j] * C, share[j] * kept
            carry = 4.0 * V[j] * (np.exp(-1.5 * kick) if t >= 4 else 1.0)
            sent = loaves + fresh + old
            on = min(1.0, carry / sent) if sent > 0 else 1.0
            nb, nc = bread_buyers[j * 7 + t] * rep[j], cake_buyers[j * 7 + t] * rep[j]
            u = (nb + nc) / S[j]
            s = (1.0 + u**4) ** -0.25
            want_b, want_c = nb * s, nc * s
            sold_b = (min(want_b, on * loaves)
                      + min((1.0 - on) * loaves, 0.5 * max(want_b - on * loaves, 0.0)))
            cakes = fresh + old
            sold_c = (min(want_c, on * cakes)
                      + min((1.0 - on) * cakes, 0.5 * max(want_c - on * cakes, 0.0)))
            old_sold = min(old, sold_c)
            fresh_sold = sold_c - old_sold
            back += fresh - fresh_sold
            cost -= p_b * sold_b + p_c * sold_c
            if t == 6:
                hunters = 0.3 * (1.0 - np.exp(-4.0 * m))
                cost -= (1.0 - m) * (p_b * min(loaves - sold_b, hunters * nb)
                                     + p_c * min(cakes - sold_c, hunters * nc))
            missed = (nb + nc) * (1.0 - s) + (want_b - sold_b) + (want_c - sold_c)
            rep[j] = 0.5 * rep[j] + 0.5 * np.exp(-3.0 * missed / (nb + nc))
        keep = room(dough + back)
        dough, kept = dough * keep, back * keep
    return bread_buyers, cake_buyers, [pre], sp, [econ, kick], cost


def test_bakery_agrees_with_a_loop_over_the_periods_and_clusters_of_one_fortnight():
    """One period and one cluster at a time. rtol 1e-10: the same sums in another order; the
    cost is a difference of terms (the bread and cakes sold against the oven, the vans, the
    staff and the dough) some ten times larger than itself at most on these rows, so rounding
    stays near 1e-14."""
    h = Bakery()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 37] += 3.0  # snowstorms: the vans slow, the oven cut, the spot prices spike
    z[12:16, :28] += 2.5  # crowds: the queues and the vans overfull, the names marred
    z[16:20, :28] -= 3.0  # empty shops: the goods unsold, the cold room full
    z[20:24, 29:36] += 3.0  # dear spot dough and flour
    optimum = json.loads((HELDOUT / "optima.json").read_text())["bakery"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[5.5, 12.0, 0.8, 40.0, 0.0, 60.0, 0.0, 0.0, 0.0, 0.0, 9.0, 0.5, 40.0,
                       0.0, 0.0],
                 np.r_[2.0, 35.0, 0.0, 0.0, 10.0, 5.0, 20.0, 80.0, 3.0, 4.0, 0.2, 30.0, 2.0,
                       50.0, 300.0])
    # the bread buyers, the cake buyers, the pre-orders, the spot factors, the economy and the
    # storm's excess, then the cost
    assert_rows_agree(h, z, decisions, bakery_fortnight_by_hand,
                      (slice(0, 14), slice(14, 28), slice(28, 29), slice(29, 36),
                       slice(36, 38)))


def test_bakery_prices_move_the_buyers_and_the_snowstorm_fills_the_tail():
    h = Bakery()
    x = h.x0.copy()
    # a dearer loaf: fewer bread buyers, the cakes' and the pre-orders unchanged
    dearer = x.copy()
    dearer[0] += 0.5
    assert np.all(h.bread_mean(dearer) < h.bread_mean(x))
    np.testing.assert_allclose(h.cake_mean(dearer), h.cake_mean(x), rtol=1e-12)
    # a dearer cake: fewer cake buyers and pre-orders, more bread buyers
    dearer = x.copy()
    dearer[1] += 4.0
    assert np.all(h.cake_mean(dearer) < h.cake_mean(x)) and h.pre_mean(dearer) < h.pre_mean(x)
    assert np.all(h.bread_mean(dearer) > h.bread_mean(x))
    # the website: more pre-orders with diminishing returns
    gains = np.diff([h.pre_mean(np.r_[x[:13], a, x[14]]) for a in (0.0, 10.0, 20.0, 30.0)])
    assert np.all(gains > 0) and np.all(np.diff(gains) < 0)
    # a deeper markdown: fewer full-price buyers in period 7 only
    deeper = x.copy()
    deeper[2] = 0.5
    ratio = h.bread_mean(deeper) / h.bread_mean(x)
    assert np.all(ratio[..., -1] < 1.0)
    np.testing.assert_allclose(ratio[..., :-1], 1.0, rtol=1e-12)
    # a snowstorm (z[37]): more buyers in periods 5-6, fewer in period 7, dearer spot prices,
    # the pre-orders and the economy unchanged
    z = np.zeros((2, h.dim_w))
    z[1, 37] = 2.64
    W = h.transform(x, z)
    lift = W[1, :28].reshape(4, 7) / W[0, :28].reshape(4, 7)
    np.testing.assert_allclose(lift[:, :4], 1.0, rtol=1e-12)
    assert np.all(lift[:, 4:6] > 1.0) and np.all(lift[:, 6] < 1.0)
    assert np.all(W[1, 32:36] > W[0, 32:36])
    np.testing.assert_allclose(W[1, [28, 36]], W[0, [28, 36]], rtol=1e-12)
    # a fortnight costs more the heavier the storm
    z = np.zeros((4, h.dim_w))
    z[:, 37] = 1.64 + np.array([0.0, 0.3, 1.0, 2.0])
    assert np.all(np.diff(h.cost(h.transform(x, z), x)) > 0)
    # the same buyers and spot prices cost more with a light storm's slow vans and cut oven
    # than without them (in a heavy one the cut oven also saves dough bought at the spike)
    W = h.transform(x, z)
    calm = W[1].copy()
    calm[37] = 0.0
    assert h.cost(W[1:2], x)[0] > h.cost(calm[None], x)[0]
    # more shop staff help at x0, storm or not (shorter queues, fewer buyers lost)
    bigger = x.copy()
    bigger[[11, 12]] *= 1.5
    assert np.all(h.cost(W, bigger) < h.cost(W, x))
    # at x0 most of the costliest twentieth of the fortnights are fortnights of a snowstorm
    # (one in twenty)
    z = np.random.default_rng(62).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 37] > 1.64).mean() > 0.5
