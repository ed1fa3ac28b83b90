"""The held-out ride-hailing platform (``benchmarks/heldout/ridehail.py``, written after version
10 of the default and the theme park and the electricity retailer) against a plain loop over
one evening, written from its docstring, and its behaviour (the shared checks are those of
``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from ridehail import RideHail  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def ridehail_evening_by_hand(h: RideHail, z, x) -> tuple[list[float], ...]:
    """The eighteen blocks' and zones' requests, the six blocks' drivers online, the evening's
    level, the incidents' cost a ride and the shock's excess, and the cost of one evening, one
    block and one zone at a time."""
    p, m, b1, b2, G = x[0:3], x[3], x[4], x[5], x[6:9]
    r, v, K, L, X, I = x[9], x[10], x[11], x[12], x[13], x[14]
    base = [[3.0, 2.0, 0.8], [3.6, 2.2, 0.9], [4.0, 2.0, 0.7],
            [4.4, 1.8, 0.6], [4.8, 1.6, 0.5], [4.2, 1.4, 0.4]]
    ref, el, trips = [14.0, 11.0, 38.0], [2.0, 2.2, 1.4], [2.2, 1.6, 0.9]
    fbase = [2.4, 2.8, 3.2, 3.4, 3.2, 2.8]
    storm = [0.4, 0.6, 0.8, 1.0, 1.0, 1.0]
    dest = [[0.6, 0.3, 0.1], [0.5, 0.45, 0.05], [0.7, 0.3, 0.0]]
    level = np.exp(0.15 * z[24] - 0.01125)
    kick = max(z[26] - 1.64, 0.0)
    req = []
    for t in range(6):
        for j in range(3):
            concert = 1.0 if (j == 0 and t >= 3) else 0.0
            req.append(base[t][j] * np.exp(-el[j] * (p[j] / ref[j] - 1.0)) * level
                       * np.exp((1.0 * concert + 0.2 * storm[t]) * kick)
                       * np.exp(0.2 * z[3 * t + j] - 0.02))
    drivers = []
    for t in range(6):
        b = b1 if t < 3 else b2
        drivers.append(fbase[t] * (0.3 + 1.6 * (1.0 - np.exp(-b / 2.0)))
                       * np.exp(-0.7 * storm[t] * kick) * np.exp(0.1 * z[18 + t] - 0.005))
    rate_loss = 0.6 * (1.0 + 2.0 * kick) * np.exp(0.6 * z[25] - 0.18)

    cost = 6 * (28.0 * sum(G) + 4.0 * L + 0.5 * X + 3.0 * K) + 0.07 * I
    q1, q2 = [0.0] * 3, [0.0] * 3
    pos = [0.5, 0.35, 0.15]
    keep, backlog, rides = 1.0, 0.0, 0.0
    stay = 0.35 + 0.65 * np.exp(-v / 5.0)
    moved_share = 0.6 * (1.0 - np.exp(-r / 3.0))
    for t in range(6):
        b = b1 if t < 3 else b2
        online = drivers[t] * keep
        f = [online * pos[j] for j in range(3)]
        turned = max(f[2] - L, 0.0)
        f[2] -= turned
        left_old, left_new, short, served, busy = [], [], [], [], []
        angry = 0.0
        for j in range(3):
            rate = trips[j] / (1.0 + 0.4 * storm[t] * kick)
            R = req[3 * t + j]
            cap = rate * (G[j] + f[j])
            load = (q1[j] + q2[j] + R) / cap if cap > 0 else np.inf
            s = 1.0 + min(m - 1.0, 0.8 * max(load - 1.0, 0.0))
            D = R * np.exp(-0.5 * (s - 1.0))
            cost += 4.0 * (R - D)
            angry += 0.05 * (s - 1.0) * R
            f[j] *= 1.0 + 0.2 * (s - 1.0)
            room = rate * (G[j] + f[j])
            from_q2 = min(q2[j], room)
            from_q1 = min(q1[j], room - from_q2)
            from_new = min(D, room - from_q2 - from_q1)
            done = from_q2 + from_q1 + from_new
            by_guaranteed = min(done, rate * G[j])
            cost -= p[j] * by_guaranteed + 0.25 * p[j] * (done - by_guaranteed) + 3.0 * done
            served.append(done)
            busy.append((done - by_guaranteed) / rate)
            short.append(R + q1[j] + q2[j] - done)
            left_old.append(q2[j] - from_q2 + q1[j] - from_q1)
            left_new.append(D - from_new)
        waiting = sum(left_old) + sum(left_new)
        taxi_share = min(1.0, X / waiting) if waiting > 0 else 1.0
        cancelled = 0.0
        for j in range(3):
            taxi = taxi_share * (left_old[j] + left_new[j])
            cost += (1.4 * ref[j] - p[j] - 3.0) * taxi
            rides += served[j] + taxi
            old, new = (1.0 - taxi_share) * left_old[j], (1.0 - taxi_share) * left_new[j]
            cancelled += 0.75 * stay * old + 0.4 * stay * new
            q2[j], q1[j] = old * (1.0 - 0.75 * stay), new * (1.0 - 0.4 * stay)
            cost += v * q2[j] + 2.0 * (q1[j] + q2[j])
        cost += b * sum(f) + 6.0 * cancelled
        idle = [f[j] - busy[j] for j in range(3)]
        moved = moved_share * sum(idle)
        total_short = sum(short)
        ends = []
        for j in range(3):
            towards = short[j] / total_short if total_short > 0 else [0.5, 0.35, 0.15][j]
            ends.append(sum(busy[i] * dest[i][j] for i in range(3))
                        + (1.0 - moved_share) * idle[j] + moved * towards)
        pos = [e / sum(f) for e in ends]
        keep = 1.0 - (0.4 * sum(idle) + turned) / (sum(f) + turned)
        cost += r * moved
        complaints = 0.3 * cancelled + 0.02 * (1.0 + kick) * sum(served) + angry
        answered = min(backlog + complaints, K)
        backlog += complaints - answered
        cost += 5.0 * backlog
    cost += 6.0 * (sum(q1) + sum(q2))
    loss = rate_loss * rides
    cost += loss - min(I, max(loss - 20.0, 0.0))
    return req, drivers, [level, rate_loss, kick], cost


def test_ridehail_agrees_with_a_loop_over_the_blocks_and_zones_of_one_evening():
    """One block and one zone at a time. rtol 1e-10: the same sums in another order; the cost
    is a difference of terms (the fares, commissions and loyalty earned against the drivers,
    the taxis, the riders lost and the complaints) at most some hundred times larger than
    itself on these rows, so rounding stays near 1e-13."""
    h = RideHail()
    z = np.random.default_rng(61).standard_normal((40, h.dim_w))
    z[:12, 26] += 2.5  # concerts in storms: the centre swamped, drivers off the road, queues
    z[12:16, :18] -= 2.5  # quiet evenings: drivers idle, logging off, no surge
    z[16:20, :18] += 1.5  # busy evenings: surges, riders waiting, the taxis full
    z[20:24, 18:24] -= 3.0  # few drivers: long queues that carry over, complaints
    optimum = json.loads((HELDOUT / "optima.json").read_text())["ridehail"]["x_star"]
    decisions = (h.x0, 1.4 * h.x0, np.asarray(optimum),
                 np.r_[25.0, 6.0, 70.0, 1.0, 0.0, 3.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                       0.0],
                 np.r_[8.0, 20.0, 20.0, 5.0, 4.0, 0.2, 1.5, 0.0, 0.6, 9.0, 15.0, 2.0, 2.0, 3.0,
                       200.0])
    # the requests, the drivers online, the evening's level, the incidents' cost a ride and the
    # shock, then the cost
    assert_rows_agree(h, z, decisions, ridehail_evening_by_hand,
                      (slice(0, 18), slice(18, 24), slice(24, 27)))


def test_ridehail_fares_and_bonuses_move_riders_and_drivers_and_the_concert_fills_the_tail():
    h = RideHail()
    x = h.x0.copy()
    # a dearer fare in one zone: fewer requests there in every block, the others unchanged
    for j in range(3):
        dearer = x.copy()
        dearer[j] *= 1.1
        lower, same = h.request_mean(dearer), h.request_mean(x)
        assert np.all(lower[:, j] < same[:, j])
        np.testing.assert_allclose(np.delete(lower, j, 1), np.delete(same, j, 1), rtol=1e-12)
    # a bigger early bonus: more drivers online in blocks 1-3, with diminishing returns
    step = [x.copy() for _ in range(3)]
    step[1][4] += 0.5
    step[2][4] += 1.0
    online = np.array([h.online_mean(s) for s in step])
    assert np.all(np.diff(online[:, :3], axis=0) > 0) and np.all(online[:, 3:] == online[0, 3:])
    assert online[2, 0] - online[1, 0] < online[1, 0] - online[0, 0]
    # the concert in a storm (z[26]) multiplies the centre's requests in blocks 4-6 far more
    # than the rest, keeps drivers off the road, raises the incidents and the cost
    z = np.zeros((2, h.dim_w))
    z[1, 26] = 3.0
    W = h.transform(x, z)
    ratio = W[1, :18] / W[0, :18]
    late_centre = [9, 12, 15]
    assert np.all(ratio > 1.0)
    assert ratio[late_centre].min() > 3.0 * np.delete(ratio, late_centre).max()
    assert np.all(W[1, 18:24] < W[0, 18:24]) and W[1, 25] > W[0, 25] and W[1, 24] == W[0, 24]
    assert h.cost(W[1:], x)[0] > h.cost(W[:1], x)[0]
    # guaranteed drivers are paid whether busy or not: on a dead evening each costs its wage
    quiet = h.transform(x, np.full((1, h.dim_w), -4.0))
    more = x.copy()
    more[7] += 0.1
    assert h.cost(quiet, more)[0] - h.cost(quiet, x)[0] > 0.0
    # at x0 most of the costliest twentieth of the evenings are evenings of the concert
    # (one in twenty)
    z = np.random.default_rng(62).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 26] > 1.64).mean() > 0.5
