"""A held-out problem: a semiconductor fab's quarter of six two-week periods making three
products, fourteen decisions, eleven of them open above, written after version 7 of the
default, the emergency medical service and the water utility. Kept out of every choice of the
default; its optimum is found without acfs (``find_optima.py`` beside it, ``optima.json``).
Wafers are counted in thousands (kw), money in $M, so a price of p $k a wafer is p $M a kw.

Decisions x = (the list prices p_A, p_B, p_C of the three products (advanced logic, mid-range
logic, mature analog; $k a wafer), the capacities K_1, K_2, K_3 of the lithography, etch and
test tool groups (units a period; a kw of product j takes ``use[j, g]`` units of group g, use
= ((1.5, 1.2, 0.6), (1.0, 1.0, 0.8), (0.5, 0.7, 1.2)), rows A, B, C, columns litho, etch,
test), the base stocks S_A, S_B, S_C (kw), the raw wafers V contracted for every period (kw,
the most the fab can start in a period), the capacity F reserved with a foundry partner for
every period (kw), the overtime crews H kept for every period, a service contract M with the
lithography vendor ($M for the quarter) and the yield engineers' budget Y ($M a period)).
Product j receives in period t

    base_j * exp(-el_j (p_j / ref_j - 1)) * season_t * level_j * own_jt

kw of orders (base = (1.0, 1.6, 2.4), ref = (9, 5, 2.5), el = (2.3, 3.0, 4.0), season = (0.9,
0.95, 1.0, 1.05, 1.1, 1.0); level_j the quarter's lognormal level of the product's market, sd
0.1 on the log, own_jt a period's lognormal noise, sd 0.2; both of mean 1): the prices move
the orders. A heavy-tailed yield crash and tool outage, ``kick = (z - 1.28)_+`` (one quarter in
ten, without bound), strikes in period ``tau = min(floor(6 Phi(z')), 5)`` (every period alike,
Phi the normal distribution function): it scraps a share ``1 - exp(-kick)`` of the wafers in
the line when it strikes, and from then to the end of the quarter it divides the capacity of
group g by ``1 + hit_g kick c(M)``, hit = (1.5, 0.8, 0.5), the contract leaving
``c(M) = 1 - 0.7 (1 - exp(-M / 0.3))`` of the outage.

The quarter opens with 1.5 base_j kw of product j in the line (WIP), 0.5 base_j in stock and
0.3 base_j waiting. In each period: the orders join the backlog; the crash, in its period,
scraps its share of the WIP; the fab starts ``want_j = (S_j - (stock_j + WIP_j - backlog_j))_+``
kw of product j, every product's scaled by ``min(1, V / sum_j want_j)`` (the raw wafers
contracted); the line, ``pool_j = WIP_j + starts_j``, is worked: group g has the capacity
``C_g = K_g (1 + 0.25 (1 - exp(-H / 2))) a_t`` (divided by the outage's factor once the crash
has struck; a_t the period's lognormal uptime, sd 0.06 on the log, mean 1), its load is
``P_g = sum_j use[j, g] pool_j``, and a share ``s = min(1, min_g C_g / (P_g + 0.5 C_g))`` of
every product's pool comes out (a clearing function: the bottleneck decides and the cycle
time, 1/s periods, grows as the fab fills), the rest staying in the line (WIP that carries
over); of the wafers out a share ``(0.95 - 0.10 exp(-Y / 0.5)) exp(-0.04 (1/s - 1))`` is good
(the engineers raise the yield, wafers that queue long lose it) and joins the stock; the stock
is shipped against the backlog; the foundry makes up to F kw of the backlog of B and C left
(in proportion; A cannot be made there); a quarter of the backlog left is cancelled and the
rest waits for the next period (a backlog that carries over).

Costs: each period, the tool groups' capacity (1.0, 0.5, 0.25 a unit), the overtime crews (0.4
a crew), the raw wafers contracted (0.2 a kw), the foundry's reservation (0.3 a kw), the yield
engineers Y and the fab's overhead (3.8); the service contract M once; each kw started its
material (1.5, 0.9, 0.45), each kw the foundry makes its charge (4.0 for B, 2.0 for C), each kw
cancelled goodwill (0.3 ref_j), each kw waiting at the end of a period a late penalty (0.08
ref_j), each kw in stock at the end of a period its holding (0.01 ref_j), each kw in the line
at the end of a period 0.05. The fab earns its price on every kw shipped or made by the
foundry. At the end of the quarter each kw still waiting is charged 0.3 ref_j, the WIP left is
credited its material and the stock left twice its material, and each kw the line holds below
its opening WIP (7.5 kw in all) is charged 1.5 (the next quarter starts short).

Offered as ``transform(x, z)`` (29 normals a row; a scenario is the eighteen orders, product by
product, the six uptimes, the three products' levels, the crash's excess and the period it
strikes), its cost vectorised over decisions: common random numbers are exact. lam 0.6,
alpha 0.9.
"""

import numpy as np
from arrays import columns, scenario
from scipy.special import ndtr

T, N = 6, 3  # two-week periods, products (advanced logic, mid-range, mature analog)


class Fab:
    name = "fab"
    dim_x, dim_w = 3 * N + 5, N * T + T + N + 2
    vectorized = True
    lam, alpha = 0.6, 0.9
    ref = np.array([9.0, 5.0, 2.5])  # list prices the order books are quoted at ($k a wafer)
    el = np.array([2.3, 3.0, 4.0])  # the orders' elasticity
    #: pA, pB, pC, K1..K3 (litho, etch, test), SA, SB, SC, V, F, H, M, Y
    bounds = ([(0.5 * r, 2.0 * r) for r in ref] + [(0.0, np.inf)] * (N + N + 5))
    x0 = np.array([9.0, 5.0, 2.5, 6.0, 6.0, 6.0, 3.0, 5.0, 7.0, 7.0, 0.3, 1.0, 0.5, 0.3])

    base = np.array([1.0, 1.6, 2.4])  # kw ordered a period at the list price
    season = np.array([0.9, 0.95, 1.0, 1.05, 1.1, 1.0])
    #: sd (log) of a market's level for the quarter, a period's own orders, a period's uptime
    market, noise, uptime = 0.1, 0.2, 0.06
    #: units of each tool group a kw takes (rows: products; columns: litho, etch, test)
    use = np.array([[1.5, 1.2, 0.6], [1.0, 1.0, 0.8], [0.5, 0.7, 1.2]])
    tool_cost = np.array([1.0, 0.5, 0.25])  # $M a unit of capacity a period
    hit = np.array([1.5, 0.8, 0.5])  # the outage's cut on each group
    clear = 0.5  # the clearing function's k: C P / (P + k C)
    qtime = 0.04  # yield lost a period of cycle time beyond one
    scrap = 1.0  # the crash scraps 1 - exp(-scrap kick) of the WIP
    boost, crews = 0.25, 2.0  # overtime: capacity up to +25 %, its scale (crews)
    crew_cost = 0.4  # $M a crew a period
    reach, fix = 0.7, 0.3  # the share of the outage the service contract can cut; its scale ($M)
    ybest, ygap, yscale = 0.95, 0.10, 0.5  # yields: 0.95 - 0.10 exp(-Y / 0.5)
    material = np.array([1.5, 0.9, 0.45])  # $M a kw started
    wafer_fee = 0.2  # $M a kw a period of raw wafers contracted
    reserve_fee = 0.3  # $M a kw a period of foundry capacity reserved
    charge = np.array([0.0, 4.0, 2.0])  # the foundry's charge a kw (A cannot be made there)
    theta = 0.25  # share of the backlog cancelled each period
    late = 0.08 * ref  # a kw waiting a period
    goodwill = 0.3 * ref  # a kw cancelled
    end_pen = 0.3 * ref  # a kw still waiting at the end
    hold_fg = 0.01 * ref  # a kw in stock a period
    hold_wip = 0.05  # a kw in the line a period
    overhead = 3.8  # $M a period: staff, facilities
    wip0, fg0, back0 = 1.5 * base, 0.5 * base, 0.3 * base
    refill = 1.5  # $M a kw the line holds at the end below its opening WIP

    def order_mean(self, x):
        """Mean orders of each product in a period of season 1 before the noise, (..., 3)."""
        x = np.asarray(x, dtype=float)
        return self.base * np.exp(-self.el * (x[..., 0:N] / self.ref - 1.0))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k, n = max(x.ndim, z.ndim - 1), N * T  # k: the axes after a column's
        z = columns(z, k)
        pad = (1,) * k
        level = np.exp(self.market * z[n + T:n + T + N] - 0.5 * self.market**2)  # (3, ..., n)
        kick = np.maximum(z[n + T + N] - 1.28, 0.0)
        onset = np.minimum(np.floor(T * ndtr(z[n + T + N + 1])), T - 1.0)
        mean = np.repeat(columns(self.order_mean(x)[..., None, :], k), T, axis=0)
        orders = (mean * np.tile(self.season, N).reshape((n,) + pad) * np.repeat(level, T, axis=0)
                  * np.exp(self.noise * z[:n] - 0.5 * self.noise**2))
        uptime = np.exp(self.uptime * z[n:n + T] - 0.5 * self.uptime**2)
        parts = [orders, uptime, level, kick[None], onset[None]]
        return scenario(parts)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k, n = max(x.ndim - 1, W.ndim - 1), N * T
        W = columns(W, k)
        col = (N,) + (1,) * k

        def each(a):  # a constant of each product (or tool group) as a column
            return np.asarray(a, dtype=float).reshape(col)

        p, cap, S = (columns(x[..., i:i + N], k) for i in (0, N, 2 * N))  # (3, ..., 1)
        V, F, H, M, Y = (x[..., 3 * N + i] for i in range(5))
        kick, onset = W[n + T + N], W[n + T + N + 1]
        shape = np.broadcast_shapes(kick.shape, V.shape)
        lift = 1.0 + self.boost * (1.0 - np.exp(-H / self.crews))  # overtime's factor
        left = 1.0 - self.reach * (1.0 - np.exp(-M / self.fix))  # the outage the contract leaves
        best = self.ybest - self.ygap * np.exp(-Y / self.yscale)  # the yield of a quick line
        total = (T * ((self.tool_cost * x[..., N:2 * N]).sum(axis=-1) + self.crew_cost * H
                      + self.wafer_fee * V + self.reserve_fee * F + Y + self.overhead)
                 + M) + np.zeros(shape)
        wip, fg, back = (each(a) + np.zeros(shape) for a in (self.wip0, self.fg0, self.back0))
        use, mat, hit = self.use.reshape((N, N) + (1,) * k), each(self.material), each(self.hit)
        late, goodwill, hold = each(self.late), each(self.goodwill), each(self.hold_fg)
        charge, made_there = each(self.charge), each([0.0, 1.0, 1.0])
        crash = np.exp(-self.scrap * kick)
        for t in range(T):
            back = back + W[t:n:T]
            wip = wip * np.where(onset == t, crash, 1.0)
            want = np.maximum(S - (fg + wip - back), 0.0)
            starts = want * np.minimum(1.0, V / np.maximum(want.sum(axis=0), 1e-12))
            pool = wip + starts
            C = cap * (lift * W[n + t]) / (1.0 + hit * (left * kick * (onset <= t)))  # (groups)
            load = (use * pool[:, None]).sum(axis=0)  # (groups, ...)
            share = np.minimum(1.0, (C / np.maximum(load + self.clear * C, 1e-12)).min(axis=0))
            out = share * pool
            wip = pool - out
            fg = fg + best * np.exp(-self.qtime * (1.0 / np.maximum(share, 1e-9) - 1.0)) * out
            ship = np.minimum(fg, back)
            fg, back = fg - ship, back - ship
            short = back[1] + back[2]
            made = back * made_there * (np.minimum(F, short) / np.maximum(short, 1e-12))
            lost = self.theta * (back - made)
            back = back - made - lost
            total = (total + (mat * starts - p * (ship + made) + charge * made + goodwill * lost
                              + late * back + hold * fg).sum(axis=0)
                     + self.hold_wip * wip.sum(axis=0))
        return (total + (each(self.end_pen) * back - mat * wip - 2.0 * mat * fg).sum(axis=0)
                + self.refill * np.maximum(self.wip0.sum() - wip.sum(axis=0), 0.0))
