"""The held-out emergency medical service (``benchmarks/heldout/ems.py``) against a plain loop
over one scenario, written from its docstring, and its behaviour (the shared checks are those
of ``test_heldout``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "heldout"
sys.path[:0] = [str(HELDOUT)]

from ems import Ems  # noqa: E402
from test_heldout import assert_rows_agree  # noqa: E402


def ems_day_by_hand(h: Ems, z, x) -> tuple[list[float], ...]:
    """The urgent and non-urgent calls (district by district, as in W), the hospitals' crowding,
    the level and the heatwave's excess, and the cost of one day, one block and one district
    at a time."""
    f, a, r, hs, S, M = x[0], x[1:7], x[7:10], x[10:13], x[13], x[14]
    ubase, nbase = [18.0, 12.0, 8.0], [20.0, 16.0, 12.0]
    uprof, nprof = [0.7, 0.55, 1.0, 1.15, 1.2, 1.0], [0.3, 0.4, 1.5, 1.6, 1.2, 0.6]
    heat, share, off = [0.4, 0.45, 0.55], [0.45, 0.33, 0.22], [0.8, 0.6, 0.5]
    level = np.exp(0.12 * z[39] - 0.0072)
    kick = max(z[40] - 1.28, 0.0)
    fee = np.exp(-2.5 * (f / 250.0 - 1.0))
    urgent = [[ubase[j] * uprof[t] * level * np.exp(heat[j] * (0.4 + 0.2 * t) * kick)
               * np.exp(0.2 * z[6 * j + t] - 0.02) for t in range(6)] for j in range(3)]
    routine = [[nbase[j] * nprof[t] * fee * level * np.exp(0.2 * z[18 + 6 * j + t] - 0.02)
                for t in range(6)] for j in range(3)]
    hosp = [np.exp(0.3 * z[36 + j] - 0.045) for j in range(3)]
    scene = 1.1 * (1.0 + 0.2 * kick)
    offload = [off[j] * hosp[j] * (1.0 + 0.6 * kick) * (0.35 + 0.65 * np.exp(-hs[j] / 2.0))
               for j in range(3)]
    crew_jobs = 4.0 * S / (scene + sum(share[j] * offload[j] for j in range(3)))
    car_jobs = 3.5 / (1.0 + 0.3 * kick)
    cost = 0.6 * sum(a) + 6 * (0.25 * sum(r) + 0.25 * sum(hs) + 0.2 * S + 0.05 * M)
    qu, qn, held = [2.0, 1.0, 1.0], [4.0, 3.0, 2.0], [0.0, 0.0, 0.0]
    for t in range(6):
        rest_u, rest_n = [], []
        for j in range(3):
            need_u = qu[j] + urgent[j][t] - 0.35 * min(urgent[j][t], car_jobs * r[j])
            need_n = qn[j] + routine[j][t]
            jobs = max(4.0 * share[j] * a[t] - held[j], 0.0) / (scene + 0.7 * offload[j])
            own_u = min(need_u, jobs)
            own_n = min(need_n, jobs - own_u)
            held[j] = 0.3 * offload[j] * (own_u + own_n)
            rest_u.append(need_u - own_u)
            rest_n.append(need_n - own_n)
            cost += 0.04 * (own_u + own_n) - f / 1000.0 * own_n
        U, N = sum(rest_u), sum(rest_n)
        crew_u = min(crew_jobs, U)
        crew_n = min(crew_jobs - crew_u, N)
        aided = min(M, U - crew_u)
        cost += 0.45 * (crew_u + crew_n) + (0.5 + 0.3) * aided - f / 1000.0 * crew_n
        for j in range(3):
            qu[j] = rest_u[j] - (crew_u + aided) * rest_u[j] / U if U > 0 else 0.0
            left = rest_n[j] - crew_n * rest_n[j] / N if N > 0 else 0.0
            qn[j] = 0.75 * left
            cost += 1.5 * qu[j] + 0.1 * qn[j] + 0.2 * 0.25 * left
    cost += 2.0 * sum(qu) + 0.2 * sum(qn)
    return ([v for row in urgent for v in row], [v for row in routine for v in row], hosp,
            [level, kick], cost)


def test_ems_agrees_with_a_loop_over_the_districts_and_blocks_of_one_day():
    """rtol 1e-10: the same sums in another order (the waiting calls split in proportion as
    a share of the pool rather than a pool's share); the cost is a sum of terms at most some
    ten times larger than itself (the fee's revenue against the crews), so rounding stays near
    1e-13."""
    h = Ems()
    z = np.random.default_rng(31).standard_normal((40, h.dim_w))
    z[:12, 40] += 2.5  # heatwaves: queues, held ambulances, standby crews and mutual aid act
    x_star = np.asarray(json.loads((HELDOUT / "optima.json").read_text())["ems"]["x_star"])
    decisions = (h.x0, 1.4 * h.x0, x_star,
                 np.r_[130.0, 5.0, 0.0, 40.0, 10.0, 60.0, 2.0, 0.0, 8.0, 1.0, 0.0, 6.0, 0.5,
                       0.0, 40.0])
    # the urgent calls, the non-urgent ones, the hospitals' crowding, the level and the
    # heatwave's excess, then the cost
    assert_rows_agree(h, z, decisions, ems_day_by_hand,
                      (slice(0, 18), slice(18, 36), slice(36, 39), slice(39, 41)))


def test_ems_fee_lowers_the_routine_calls_and_a_heatwave_raises_the_urgent_ones_and_the_tail():
    h = Ems()
    x = h.x0.copy()
    dearer = x.copy()
    dearer[0] += 25.0
    assert np.all(h.nonurgent_mean(dearer) < h.nonurgent_mean(x))
    z = np.random.default_rng(32).standard_normal((5, h.dim_w))
    W, Wd = h.transform(x, z), h.transform(dearer, z)
    # the fee moves only the non-urgent calls
    assert np.all(Wd[:, 18:36] < W[:, 18:36])
    np.testing.assert_allclose(Wd[:, :18], W[:, :18], rtol=1e-12)
    np.testing.assert_allclose(Wd[:, 36:], W[:, 36:], rtol=1e-12)
    # a heatwave raises every urgent call volume, more later in the day and most in the outer
    # suburbs, and leaves the non-urgent ones as they were
    z = np.zeros((2, h.dim_w))
    z[1, 40] = 3.0
    W = h.transform(x, z)
    lift = (W[1, :18] / W[0, :18]).reshape(3, 6)
    assert np.all(lift > 1.0) and np.all(np.diff(lift, axis=1) > 0)
    assert np.all(np.diff(lift, axis=0) > 0)
    np.testing.assert_allclose(W[1, 18:36], W[0, 18:36], rtol=1e-12)
    # the same calls cost more when every job and handover is lengthened by the heat
    calm = W[1].copy()
    calm[40] = 0.0
    assert h.cost(W[1:], x)[0] > h.cost(calm[None], x)[0]
    # handover staff shorten the handovers: the same day costs less in ambulance time
    staffed = x.copy()
    staffed[10:13] += 1.0
    more = h.cost(W[1:], staffed)[0] - 6 * 0.25 * 3.0  # their wages taken back
    assert more < h.cost(W[1:], x)[0]
    # at x0 most of the costliest twentieth of the days are heatwave days (one in ten)
    z = np.random.default_rng(33).standard_normal((20_000, h.dim_w))
    c = h.cost(h.transform(x, z), x)
    top = c >= np.quantile(c, 0.95)
    assert (z[top, 40] > 1.28).mean() > 0.6
