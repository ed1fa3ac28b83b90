"""A held-out problem: a container terminal's week of seven days, thirteen decisions, twelve of
them open above. Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``). Volumes are in thousands of TEU (kTEU), money
in $k, so a fee of f $ a TEU is f $k a kTEU.

Decisions x = (the handling fee f a TEU worked at the quay, quay-crane gangs g1..g7 rostered on
each day from Monday, the yard's capacity Y and an overflow yard O reserved at short notice for
every day (both kTEU), the import gate's capacity G and rail slots R reserved for every day
(both kTEU a day), standby gangs A retained for every day). The ships due on day t bring

    sched_t * (exp(-1.8 (f / 120 - 1)) + exp(0.6 ramp_t kick) - 1) * level * own_t

kTEU of quay moves (a week's lognormal level sd 0.08, a day's own noise sd 0.2): the fee moves
the lines' calls. A heavy-tailed storm, ``kick = (z - 1.28)_+`` (one week in ten, without
bound), closes a neighbouring port and sends its ships here whatever the fee, more later in
the week (``ramp_t`` from 0.3 to 1.2); its wind slows the cranes by ``1 + 0.4 kick``, it keeps
the truckers away (their calls divided by ``1 + 0.5 kick``) and holds ships back: a share
``1 / (1 + exp(1.3 - 0.8 z_t - kick))`` of a day's moves (about a quarter in a calm week) comes
a day late, and Sunday's late ships come next week. The week starts with ``Q0`` kTEU of moves
waiting at the berths and ``S0`` of imports in the yard. Each day the waiting moves and those
of the ships that come are worked by the rostered gangs, then by up to A standby gangs; n gangs
at the quay work ``mu n / ((1 + n / 8) (1 + 0.4 kick))`` kTEU a day (the cranes get in each
other's way along the quay). What is left waits at the berth for a later day (a queue that
carries over). Half of the moves worked are imports that join the yard. Rail takes up to R of
the yard's rail-bound 15 %; truckers call for ``1 - exp(-0.25 u_t)`` of the rest (u_t a day's
lognormal factor, sd 0.3, the storm's toll taken), the gate lets up to G of them through and
turns the others away, their boxes staying in the yard for a later day (a stock that carries
over). What the yard holds beyond Y goes to the overflow yard up to O; beyond that the stacks
jam. Costs: the gangs rostered, the yard's slots, the overflow yard's reservation, the gate's and
the rail slots' capacity, the standby gangs' retainer; each kTEU worked at the quay, worked by
the standby gangs (overtime), waiting a day at a berth (the lines' delay charges) and still
waiting at the end of the week; each kTEU trucked out or turned away at the gate; each
kTEU-day in the yard, in the overflow yard or jammed. The terminal earns the fee f on every
kTEU worked at the quay and the intermodal lift charge on every kTEU railed.

Offered as ``transform(x, z)`` (23 normals a row; a scenario is the seven days' moves as the
ships were due, the seven shares delayed a day, the seven truckers' factors, the week's level
and the storm's excess ``(z - 1.28)_+``), its cost vectorised over decisions: common random
numbers are exact. lam 0.75, alpha 0.95.
"""

import numpy as np
from arrays import columns

T = 7


class Port:
    name = "port"
    dim_x, dim_w = 13, 3 * T + 2
    vectorized = True
    lam, alpha = 0.75, 0.95
    ref, el = 120.0, 1.8  # the fee the schedule is quoted at ($ a TEU), the calls' elasticity
    #: f, g1..g7, Y, O, G, R, A
    bounds = [(0.5 * ref, 2.0 * ref)] + [(0.0, np.inf)] * 12
    x0 = np.array([120.0] + [5.0] * T + [8.0, 1.0, 2.0, 0.5, 2.0])

    sched = np.array([3.2, 2.6, 3.6, 2.4, 3.4, 2.8, 2.0])  # kTEU of moves a day at the ref fee
    ramp = np.linspace(0.3, 1.2, T)
    surge, slow, roads, storm_delay, punctual = 0.6, 0.4, 0.5, 1.0, 1.3
    mu, crowd = 1.0, 8.0  # kTEU a lone gang works a day in calm weather; the quay's crowding
    start_queue, start_stock = 0.8, 4.0  # Q0, S0
    imports, rail_share, pick = 0.5, 0.15, 0.25
    gang_cost, retainer, overtime = 14.0, 6.0, 45.0  # a gang-day; a standby gang a day; a kTEU
    slot_cost, reserve_fee, gate_cost, rail_fee = 6.0, 1.0, 10.0, 12.0  # a kTEU (a day) a day
    handling, wait, end_cost = 15.0, 40.0, 100.0  # a kTEU worked, waiting a day, left at the end
    lift, gate_move, turned_cost = 20.0, 5.0, 30.0  # a kTEU railed, trucked out, turned away
    hold, rent, jam = 1.5, 12.0, 60.0  # a kTEU-day in the yard, the overflow yard, jammed

    def move_mean(self, x):
        """Mean quay moves the lines bring each day before the level, the storm and the noise,
        (..., 7)."""
        x = np.asarray(x, dtype=float)
        return self.sched * np.exp(-self.el * (x[..., 0:1] / self.ref - 1.0))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        level = np.exp(0.08 * z[3 * T] - 0.5 * 0.08**2)
        kick = np.maximum(z[3 * T + 1] - 1.28, 0.0)
        mean = columns(self.move_mean(x)[..., None, :], k)  # (7, ..., 1)
        ramp = self.ramp.reshape((T,) + (1,) * k)
        diverted = self.sched.reshape(ramp.shape) * np.expm1(self.surge * ramp * kick)
        moves = (mean + diverted) * level * np.exp(0.2 * z[:T] - 0.5 * 0.2**2)
        late = 1.0 / (1.0 + np.exp(self.punctual - 0.8 * z[T:2 * T] - self.storm_delay * kick))
        calls = np.exp(0.3 * z[2 * T:3 * T] - 0.5 * 0.3**2) / (1.0 + self.roads * kick)
        rest = np.concatenate([late, calls, level[None], kick[None]])
        rest = np.broadcast_to(rest, rest.shape[:1] + moves.shape[1:])
        return np.moveaxis(np.concatenate([moves, rest]), 0, -1)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        f, Y, O, G, R, A = (x[..., i] for i in (0, 8, 9, 10, 11, 12))
        g = columns(x[..., 1:1 + T], k)  # (7, ..., 1)
        kick = W[3 * T + 1]
        shape = np.broadcast_shapes(kick.shape, f.shape)
        rate = self.mu / (1.0 + self.slow * kick)  # a lone gang's day, the wind's toll taken
        total = (self.gang_cost * x[..., 1:1 + T].sum(axis=-1)
                 + T * (self.slot_cost * Y + self.reserve_fee * O + self.gate_cost * G
                        + self.rail_fee * R + self.retainer * A)) + np.zeros(shape)
        queue = self.start_queue + np.zeros(shape)
        stock = self.start_stock + np.zeros(shape)
        late = 0.0
        for t in range(T):
            work = queue + (1.0 - W[T + t]) * W[t] + late
            late = W[T + t] * W[t]
            rostered = rate * g[t] / (1.0 + g[t] / self.crowd)
            regular = np.minimum(work, rostered)
            crew = g[t] + A
            extra = np.minimum(work - regular, rate * crew / (1.0 + crew / self.crowd) - rostered)
            queue = work - regular - extra
            handled = regular + extra
            stock = stock + self.imports * handled
            railed = np.minimum(R, self.rail_share * stock)
            called = (stock - railed) * (1.0 - np.exp(-self.pick * W[2 * T + t]))
            trucked = np.minimum(called, G)
            stock = stock - railed - trucked
            over = np.maximum(stock - Y, 0.0)
            rented = np.minimum(over, O)
            total = (total + (self.handling - f) * handled + self.overtime * extra
                     + self.wait * queue - self.lift * railed + self.gate_move * trucked
                     + self.turned_cost * (called - trucked) + self.hold * stock
                     + self.rent * rented + self.jam * (over - rented))
        return total + self.end_cost * queue
