"""The held-out toy manufacturer (``benchmarks/heldout/toymaker.py``, written after version 10 of
the default and the theme park and the electricity retailer) against a plain loop over one
season, written from its docstring, and its behaviour (the shared checks are those of
``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from test_heldout import assert_rows_agree  # noqa: E402
from toymaker import ToyMaker  # noqa: E402


def toymaker_season_by_hand(h: ToyMaker, z, x) -> tuple[list[float], ...]:
    """The six periods' potential orders, resin spot prices and defect rates, the strike's
    delayed share and the shock's excess, and the cost of one season, one period and one toy's
    path (made, shipped, delivered) at a time."""
    p_e, p_l, K, O_e, O_l, C, R, H = x[:8]
    S = [x[8], x[9], x[10]]
    A, Q, m_e, m_l, I = x[11:16]
    eb, lb = [14.0, 18.0, 24.0], [34.0, 44.0, 30.0]
    k = [0.2, 0.4, 0.7, 1.0, 1.0, 1.0]
    kick = max(z[19] - 1.64, 0.0)
    season = np.exp(0.1 * z[18] - 0.005)
    lift_e = 1.0 + 0.5 * (1.0 - np.exp(-m_e / 40.0))
    lift_l = 1.0 + 0.5 * (1.0 - np.exp(-m_l / 40.0))
    s = 0.1 / (1.0 + np.exp(-(p_l - p_e) / 3.0))
    e = [eb[t] * np.exp(-2.5 * (p_e / 30.0 - 1.0)) * lift_e for t in range(3)]
    late = [lb[t] * np.exp(-3.2 * (p_l / 30.0 - 1.0)) * lift_l for t in range(3)]
    mean = [e[t] + s * (late[0] + late[1] + late[2]) / 3.0 for t in range(3)]
    mean += [(1.0 - s) * late[t] for t in range(3)]
    orders = [mean[t] * season * np.exp(0.12 * z[t] - 0.0072)
              * (np.exp(1.6 * kick) if t >= 3 else 1.0) for t in range(6)]
    spot = [4.0 * (1.0 + 0.1 * t) * np.exp(3.0 * k[t] * kick) * np.exp(0.15 * z[6 + t] - 0.01125)
            for t in range(6)]
    defect = [0.015 + 0.15 * np.exp(-Q / 10.0) * np.exp(0.3 * z[12 + t] - 0.045)
              for t in range(6)]
    delay = 1.0 - np.exp(-3.0 * kick)

    cost = (1.0 * (S[0] + S[1] + S[2]) + 3.0 * A + 2.0 * R + 0.2 * I + 400.0
            + 6 * (1.5 * K + 1.2 * C + 0.5 * H + 1.0 * Q) + 3 * (1.0 * O_e + m_e)
            + 3 * (1.0 * O_l + m_l))
    stock, factory, B, back, cut = 30.0, 0.0, 0.0, 0.0, 0.0
    resin, air = R, A
    arrive = [0.0] * 8
    P = 0.0
    for t in range(6):
        n = orders[t] * np.exp(-cut)
        stock += back + arrive[t]
        due = B + n
        fly = min(air, max(due - stock, 0.0))
        slot = S[t] if t < 3 else 0.0
        ahead = sum(S[t:3]) if t < 3 else 0.0
        reg = min(K, max(ahead + fly - factory, 0.0))
        ot = min(O_e if t < 3 else O_l, max(slot + fly - factory - reg, 0.0))
        con = min(C, max(slot + fly - factory - reg - ot, 0.0))
        made = reg + ot + con
        factory += made
        from_stock = min(resin, made)
        resin -= from_stock
        bought = made - from_stock
        sea = min(factory, slot)
        factory -= sea
        if t < 3:
            arrive[t + 2] += (1.0 - delay) * sea
            arrive[t + 4] += delay * sea  # held up by the strike (period 5's: after the season)
        flown = min(factory, fly)
        factory -= flown
        air -= flown
        stock += flown
        old = min(stock, B)
        new = min(stock - old, n)
        stock -= old + new
        cancelled = B - old
        cut = cancelled / due
        bad = defect[t] * (old + new)
        B = n - new + bad
        back = bad
        price = p_e if t < 3 else p_l
        penalty = 2.0 * B + 6.0 * cancelled + 2.0 * bad
        P += penalty
        cost += (5.0 * reg + 9.0 * ot + 9.0 * con + spot[t] * bought + 10.0 * flown + 1.5 * bad
                 + 0.3 * stock + 2.0 * max(stock - H, 0.0) + 0.1 * factory + penalty
                 - price * (old + new - bad))
    P += 6.0 * B
    cost += 6.0 * B - 4.0 * (stock + factory + back) - 1.0 * resin
    cost -= min(I, max(P - 800.0, 0.0))
    return orders, spot, defect, [delay, kick], cost


def test_toymaker_agrees_with_a_loop_over_the_periods_of_one_season():
    """One period at a time. rtol 1e-10: the same sums in another order; the cost is a
    difference of terms (the toys sold against the line, the freight, the resin and the
    penalties) at most some hundred times larger than itself on these rows, so rounding stays
    near 1e-13."""
    h = ToyMaker()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 19] += 2.5  # viral hits and port strikes: crossings held up, resin dear, orders lost
    z[12:16, :6] += 2.5  # a rush of orders: the stock, the air budget and the lines run out
    z[16:20, :6] -= 2.5  # a lull: toys left in the warehouse beyond its capacity
    z[20:24, 12:18] += 3.0  # bad batches: many defective toys returned and ordered again
    optimum = json.loads((HELDOUT / "optima.json").read_text())["toymaker"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[15.0, 50.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 80.0, 0.0, 5.0, 0.0, 0.0,
                       0.0, 200.0, 0.0],
                 np.r_[40.0, 20.0, 90.0, 30.0, 0.0, 25.0, 500.0, 200.0, 0.0, 150.0, 60.0, 200.0,
                       40.0, 300.0, 0.0, 900.0])
    # the orders, the resin spot prices, the defect rates, the delayed share and kick, then
    # the cost
    assert_rows_agree(h, z, decisions, toymaker_season_by_hand,
                      (slice(0, 6), slice(6, 12), slice(12, 18), slice(18, 20)))


def test_toymaker_prices_move_the_orders_and_the_viral_strike_fills_the_tail():
    h = ToyMaker()
    x = h.x0.copy()
    base = h.order_mean(x)
    # a dearer early price: fewer early orders, fewer late orders pulled forward (more late)
    dearer = x.copy()
    dearer[0] += 2.0
    assert np.all(h.order_mean(dearer)[:3] < base[:3])
    assert np.all(h.order_mean(dearer)[3:] > base[3:])
    # a dearer late price: fewer late orders; both prices dearer (the share pulled forward as
    # it was): the late orders fall by more in % than the early ones (the more sensitive)
    late = x.copy()
    late[1] += 2.0
    assert np.all(h.order_mean(late)[3:] < base[3:])
    both = x.copy()
    both[0:2] += 2.0
    drop = 1.0 - h.order_mean(both) / base
    assert np.all(drop > 0) and np.all(drop[3:] > drop[:3].max())
    # marketing lifts each half's orders with diminishing returns
    louder = [x.copy() for _ in range(3)]
    louder[1][14] += 40.0
    louder[2][14] += 80.0
    gains = [h.order_mean(v)[3:] for v in louder]
    assert np.all(gains[1] > gains[0]) and np.all(gains[2] - gains[1] < gains[1] - gains[0])
    # more inspectors, fewer defects
    z = np.zeros((2, h.dim_w))
    more = x.copy()
    more[12] += 10.0
    assert np.all(h.transform(more, z)[:, 12:18] < h.transform(x, z)[:, 12:18])
    # the shock (z[19]) multiplies the late orders alone, raises every resin price (most late)
    # and holds up a share of the crossings; the defects as they were
    z[1, 19] = 2.64
    W = h.transform(x, z)
    np.testing.assert_allclose(W[1, :3], W[0, :3], rtol=1e-12)
    np.testing.assert_allclose(W[1, 3:6] / W[0, 3:6], np.exp(1.6), rtol=1e-12)
    assert np.all(np.diff(W[1, 6:12] / W[0, 6:12]) > -1e-12) and np.all(W[1, 6:12] > W[0, 6:12])
    np.testing.assert_allclose(W[1, 12:18], W[0, 12:18], rtol=1e-12)
    assert W[0, 18] == 0.0 and W[1, 18] > 0.9 and abs(W[1, 19] - 1.0) < 1e-12
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # the same orders and resin prices cost more when the crossings are held up (the crossing
    # to period 5 lost to the jobber, the others late)
    calm = W[1].copy()
    calm[18] = 0.0
    assert h.cost(W[1:], x)[0] > h.cost(calm[None], x)[0] + 100.0
    # a cover pays the penalties beyond the deductible: it lowers this season's cost by more
    # than its premium
    covered = x.copy()
    covered[15] += 100.0
    assert h.cost(W[1:], covered)[0] < h.cost(W[1:], x)[0] - 50.0
    # at x0 most of the costliest twentieth of the seasons hold the shock (one in twenty)
    z = np.random.default_rng(62).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 19] > 1.64).mean() > 0.5
