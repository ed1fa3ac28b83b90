"""The held-out airline (``benchmarks/heldout/airline.py``, written after version 7 of the
default and the fab, the bike share, the ski resort and the insurer) against a plain loop over
one week, written from its docstring, and its behaviour (the shared checks are those of
``test_heldout``)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from airline import Airline  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def logistic(u: float) -> float:
    return 1.0 / (1.0 + math.exp(-u))


def airline_week_by_hand(h: Airline, z, x) -> tuple[list[float], ...]:
    """The bookings, the usual cancelled shares, the no-show shares and the week's four numbers
    (the level of travel, the spot price of fuel, the disruption's centre and excess), and the
    cost of one week, one day and one route at a time."""
    f, K, E = x[0:3], x[3:6], x[6:9]
    S, C, A, o, M, H = x[9], x[10], x[11], x[12:15], x[15], x[16]
    ref = [120.0, 160.0, 200.0]
    bus, leis = [0.9, 0.7, 0.4], [0.3, 0.4, 0.6]
    wb = [1.0, 1.0, 1.0, 1.0, 0.7, 0.2, 0.6]
    wl = [0.5, 0.4, 0.4, 0.6, 1.2, 1.4, 1.3]
    sens = [0.6, 0.8, 1.2]
    level = math.exp(0.1 * z[49] - 0.005)
    price = math.exp(0.2 * z[50] - 0.02) * math.exp(0.4 * max(z[52] - 1.64, 0.0))
    centre = 3.0 + 3.0 * math.tanh(z[51] / 1.5)
    kick = max(z[52] - 1.64, 0.0)
    demand, usual_share, noshow = [], [], []
    for t in range(7):
        hit = kick * math.exp(-0.5 * ((t - centre) / 1.2) ** 2)
        noshow.append(logistic(math.log(0.12 / 0.88) + 0.3 * z[42 + t] - 1.5 * hit))
        for j in range(3):
            rel = f[j] / ref[j] - 1.0
            lift = 1.0 + 0.5 * (1.0 - math.exp(-M / 60.0)) if t >= 4 else 1.0
            rival = logistic(math.log(0.25) + 4.0 * rel)
            mean = ((bus[j] * wb[t] * math.exp(-0.5 * rel)
                     + leis[j] * wl[t] * math.exp(-1.8 * rel) * lift) * (1.0 - rival) / 0.8)
            demand.append(mean * level * math.exp(0.2 * z[3 * t + j] - 0.02))
            usual_share.append(logistic(math.log(0.03 / 0.97) + 0.5 * z[21 + 3 * t + j]))
    cost = (55.0 * sum(4.0 * K[j] + 3.0 * E[j] for j in range(3))
            + 7.0 * (28.0 * S + 3.0 * C + 0.35 * A) + M + 250.0 + 30.0 * 1.06 * H)
    queue = [0.0, 0.0, 0.0]
    fuel = 0.0
    for t in range(7):
        hit = kick * math.exp(-0.5 * ((t - centre) / 1.2) ** 2)
        seats = E if t >= 4 else K
        sold = [min(demand[3 * t + j], seats[j] + o[j]) for j in range(3)]
        show = [(1.0 - noshow[t]) * sold[j] for j in range(3)]
        usual = [usual_share[3 * t + j] * seats[j] for j in range(3)]
        cancel = [1.0 - (1.0 - usual_share[3 * t + j]) * math.exp(-1.5 * hit * sens[j])
                  for j in range(3)]
        flown_again = min(1.0, 0.12 * C / sum(usual)) if sum(usual) > 0 else 1.0
        op = [seats[j] - cancel[j] * seats[j] + usual[j] * flown_again for j in range(3)]
        over = [max(show[j] - op[j], 0.0) for j in range(3)]
        on_spare = min(1.0, S / sum(over)) if sum(over) > 0 else 1.0
        handled = min(1.0, 0.03 * A / sum(queue)) if sum(queue) > 0 else 1.0
        for j in range(3):
            carried = over[j] * on_spare
            denied = over[j] - carried
            rebooked = queue[j] * handled
            elsewhere = max(rebooked - max(op[j] - show[j], 0.0), 0.0)
            waiting = queue[j] - rebooked
            gone = 0.2 * waiting
            queue[j] = 0.8 * waiting + denied
            fuel += op[j] + carried
            cost += (-f[j] * sold[j] + 180.0 * carried + 80.0 * elsewhere + 400.0 * denied
                     + 120.0 * queue[j] + (f[j] + 400.0) * gone)
    cost += 300.0 * sum(queue)
    if fuel > H:
        cost += 30.0 * price * (fuel - H)
    else:
        cost -= 30.0 * 0.9 * price * (H - fuel)
    return demand, usual_share, noshow, [level, price, centre, kick], cost


def test_airline_agrees_with_a_loop_over_the_days_and_routes_of_one_week():
    """One day and one route at a time. rtol 1e-10: the same sums in another order; the cost is
    a difference of terms (the fares earned against the seats, the fuel and the overhead) at
    most some thousand times larger than itself on these rows (a week near break-even), so
    rounding stays near 1e-12."""
    h = Airline()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 52] += 3.0  # disruptions: flights cancelled, passengers stranded, dear fuel
    z[4:8, 51] = [-6.0, 6.0, 0.0, -1.0]  # centred on Monday, on Sunday, midweek
    z[12:16, :21] += 2.5  # crowds: every flight full, the spare and the queue overfull
    z[16:20, :21] -= 3.0  # empty weeks: nobody stranded, the hedge left unused
    z[20:24, 21:42] += 4.0  # the usual cancellations many: more than the crews fly again
    optimum = json.loads((HELDOUT / "optima.json").read_text())["airline"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[100.0, 300.0, 170.0, 0.0, 1.2, 0.2, 0.0, 0.1, 2.0, 0.0, 0.0, 0.0,
                       0.0, 0.5, 0.0, 0.0, 40.0],
                 np.r_[230.0, 130.0, 390.0, 0.4, 0.0, 0.3, 0.5, 0.0, 0.6, 0.05, 0.2, 0.5,
                       1.0, 0.0, 0.3, 300.0, 0.0])
    # the bookings, the usual cancelled shares, the no-show shares, the week's four numbers,
    # then the cost
    assert_rows_agree(h, z, decisions, airline_week_by_hand,
                      (slice(0, 21), slice(21, 42), slice(42, 49), slice(49, 53)))


def test_airline_fares_and_marketing_move_the_bookings_and_the_disruption_fills_the_tail():
    h = Airline()
    x = h.x0.copy()
    base = h.bookings_mean(x)
    # a dearer fare: fewer bookings on its route every day (the elasticity and the rival),
    # the other routes as they were; the rival's share grows with the fare
    dearer = x.copy()
    dearer[2] += 20.0
    moved = h.bookings_mean(dearer)
    assert np.all(moved[:, 2] < base[:, 2])
    np.testing.assert_allclose(moved[:, :2], base[:, :2], rtol=1e-12)
    assert h.keep(np.array([100.0, 200.0, 250.0]))[2] < 1.0 < h.keep(np.array([100.0, 160.0,
                                                                               150.0]))[2]
    # the weekend's leisure travellers more price-sensitive than the business week's
    assert (moved[5, 2] / base[5, 2]) < (moved[0, 2] / base[0, 2])
    # marketing: more bookings Friday to Sunday only
    louder = x.copy()
    louder[15] += 40.0
    lifted = h.bookings_mean(louder)
    assert np.all(lifted[4:] > base[4:])
    np.testing.assert_allclose(lifted[:4], base[:4], rtol=1e-12)
    # a disruption (z[52]) leaves the bookings and the usual cancellations alone, lowers the
    # no-shows most on the day it is centred on (z[51] = 0: Thursday) and raises the fuel price
    z = np.zeros((2, h.dim_w))
    z[1, 52] = 3.5
    W = h.transform(x, z)
    np.testing.assert_allclose(W[1, :42], W[0, :42], rtol=1e-12)
    cut = W[1, 42:49] / W[0, 42:49]
    assert np.all(cut < 1.0) and np.argmin(cut) == 3
    assert W[1, 50] > W[0, 50]
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # the same week without the disruption's cancellations and fuel costs less
    calm = W[1].copy()
    calm[52] = 0.0
    assert h.cost(W[1:], x)[0] > h.cost(calm[None], x)[0]
    # the standby crews, the spare and the agents each lower the disrupted week's cost
    for i in (9, 11):
        more = x.copy()
        more[i] *= 2.0
        assert h.cost(W[1:], more)[0] < h.cost(W[1:], x)[0], i
    usual = np.zeros((1, h.dim_w))
    usual[0, 21:42] = 3.0  # many usual cancellations (0.12 of the seats): more than 0.2 crews
    U = h.transform(x, usual)  # fly again, fewer than 1.5
    few, more = x.copy(), x.copy()
    few[10], more[10] = 0.2, 0.6
    assert h.cost(U, more)[0] < h.cost(U, few)[0]
    # but the crews fly none of the disruption's cancellations again: beyond the usual ones
    # they only cost their wage
    D = W[1:].copy()
    D[0, 21:42] = 0.0  # no usual cancellations
    np.testing.assert_allclose(h.cost(D, more) - h.cost(D, few), 7 * 3.0 * 0.4, rtol=1e-9)
    # at x0 most of the costliest twentieth of the weeks are weeks of a disruption (one in
    # twenty)
    z = np.random.default_rng(62).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 52] > 1.64).mean() > 0.5
