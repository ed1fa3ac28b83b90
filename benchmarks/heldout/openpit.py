"""A held-out problem: an open-pit copper mine's month of four weeks, thirteen decisions, ten of
them open above, written after version 9 of the default and the harvest and the transit
operator. Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``). Rock, ore and concentrate are counted in kt
(thousand tonnes), money in $M, so a price of p $ a tonne is p / 1000 $M a kt; water in units
of 100 ML.

Decisions x = (the haul trucks N hired, the loaders (shovels) L in service, the crusher's
capacity C (kt of ore a week), the run-of-mine stockpile's capacity P (kt), the maintenance crews
M, the night shift n1 worked in weeks 1-2 and n2 in weeks 3-4 (a share of the nights, from 0 to
1), a rail contract R (a fixed weekly slot to the port, kt of concentrate a week, paid whether
used), a forward sale F (kt of concentrate sold before the month at 2.2 $M a kt), the blend's
target grade g (% copper, from 0.5 to 2), the premium p ($M a kt) asked of the spot buyers over
the spot price, the dewatering pumps' capacity U (100 ML a week) and the insurance's cover I
($M)). Over the month the spot buyers take up to

    d = 12 exp(-1.2 (p / 0.25 - 1) + 1.2 (g - 1)) * own

kt of concentrate (``own`` lognormal, sd 0.2 on the log, mean 1): the premium moves the buyers'
demand by an exponential elasticity, and they want less of a lower grade. The month's spot
price is ``2.2 level exp(0.4 kick)`` $M a kt (``level`` lognormal, sd 0.15, mean 1). In week t
``ibase_t * wet * exp(2.5 k_t kick) * own_t`` of water flows into the pit (ibase = 8, 8, 9, 9;
``wet`` the month's lognormal wetness, sd 0.3, own noise sd 0.3, both of mean 1), and a share
``1 - exp(-0.05 exp(1.5 k_t kick) own_t)`` of the trucks at work and ``1 - exp(-0.04 exp(2
k_t kick) own_t)`` of the loaders at work break down (own noise sd 0.3, mean 1); a share ``1 -
exp(-0.7 exp(-1.6 (g - 1)) own_t)`` of the week's rock is ore (own noise sd 0.25, mean 1: a
higher grade cut sends more rock to the waste dump). A heavy-tailed flood of the pit or failure
of its wall, ``kick = (z - 1.28)_+`` (one month in ten, without bound), floods the pit, stops
the digging for days, breaks the equipment and spikes the spot price, most in the second week
(``k`` = 0.5, 1.0, 0.6, 0.3).

The month opens with a dry pit, no equipment broken and an empty stockpile. In each week: the
pumps draw U of the pit's water, ``h <- (h + inflow_t - U)_+`` (water that carries over), and
the pit digs for a share ``up = exp(-h / 10 - 1.5 k_t kick)`` of the week (the water left and
the days the flood or the wall stops it). The maintenance crews return a share ``rho = 1 -
exp(-M / 3)`` of the trucks and loaders broken (the rest stay broken: a stock that carries
over); then the week's shares of those at work break down, ``bT <- bT (1 - rho) + (N - bT (1 -
rho)) share_t`` (the same for the loaders, bL), and ``N - bT`` trucks and ``L - bL`` loaders
work. They move

    rock = up * ((a 25 (N - bT))^-3 + (a 160 (L - bL))^-3 + 500^-3)^(-1/3)

kt of rock (25 kt a truck and 160 a loader in a week of day shifts, a night shift adding a
share ``a = 1 + 0.5 n``, n = n1 in weeks 1-2 and n2 in weeks 3-4; the benches open give at most
500 kt a week; the trucks queue at the loaders and the loaders wait for trucks, so each limit
binds smoothly; each of the first two terms at least 1e-9, so next to no rock without a
truck or a loader at work), the week's share of it ore. The
ore joins the stockpile's backlog ``s``; the crusher takes ``crushed = min(C, s)`` and the rest
carries over to the next week; the backlog beyond the pile's capacity, ``(s - P)_+``, is
rehandled (on a far pad) each week it stays. A kt crushed makes ``y(g) = 0.05 g (1 - 0.5
exp(-g / 0.6))`` kt of concentrate (the concentrate's grade and the recovery rising with the
cut), which goes to the port by rail up to the slot R, the rest by road.

Costs: each week 0.07 a truck, 0.35 a loader, 0.015 a kt a week of the crusher's capacity,
0.006 a kt of the pile's capacity, 0.06 a crew, 0.9 a night shift worked every night (times n),
0.12 a 100 ML a week of the pumps' capacity, 0.05 a kt of the rail slot (used or not) and the
mine's overhead 0.5; 0.003 a kt of rock moved, 0.005 a kt crushed, 0.1 a kt of the backlog
rehandled beyond the pile, 0.14 a kt of concentrate sent by road; the insurance's premium (0.15
a $M of cover). At the month's end the concentrate Q made is sold: F at the forward price; if Q
< F the shortfall is bought back at 1.1 times the spot price; of the rest, ``(Q - F)_+``, the
buyers take up to d at the spot price plus p and the remainder sells at 0.6 times the spot price
(a distressed sale); the backlog left on the pile is worth 0.02 a kt; the insurance pays
``min(I, 20 kick)`` (the insured loss, 20 $M a unit of the shock's excess, up to the cover).

Offered as ``transform(x, z)`` (20 normals a row; a scenario is the four weeks' inflows, the
trucks' and the loaders' breakdown shares and the ore's shares, the buyers' demand, the spot
price, the wetness and the shock's excess ``(z - 1.28)_+``), its cost vectorised over decisions:
common random numbers are exact. lam 0.7, alpha 0.9.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 4


class Mine:
    name = "mine"
    dim_x, dim_w = 13, 5 * T
    vectorized = True
    lam, alpha = 0.7, 0.9
    #: N, L, C, P, M, n1, n2, R, F, g, p, U, I
    bounds = ([(0.0, np.inf)] * 5 + [(0.0, 1.0)] * 2 + [(0.0, np.inf)] * 2 + [(0.5, 2.0)]
              + [(0.0, np.inf)] * 3)
    x0 = np.array([10.0, 2.5, 100.0, 20.0, 2.0, 0.3, 0.3, 5.0, 10.0, 1.0, 0.3, 9.0, 8.0])

    d0, el_p, ref_p, el_g = 12.0, 1.2, 0.25, 1.2  # buyers' kt; elasticities of premium, grade
    demand_sd, level_sd, spot0, spike = 0.2, 0.15, 2.2, 0.4  # spot price $M a kt
    ibase = np.array([8.0, 8.0, 9.0, 9.0])  # 100 ML a week
    wet_sd, inflow_sd, flood = 0.3, 0.3, 2.5
    truck_rate, loader_rate, truck_hit, loader_hit, break_sd = 0.05, 0.04, 1.5, 2.0, 0.3
    weight = np.array([0.5, 1.0, 0.6, 0.3])  # the shock's weight in each week
    drown, stop = 10.0, 1.5  # 100 ML of water that costs a share 1/e of the week; days stopped
    repair = 3.0  # crews a share 1 - 1/e of the broken equipment returns
    haul, load, night, bench = 25.0, 160.0, 0.5, 500.0  # kt a truck, a loader, the benches
    ore0, cut, ore_sd, sharp = 0.7, 1.6, 0.25, 3.0  # the ore's rate, its cut; the limits' blend
    y0, rec, rec_scale = 0.05, 0.5, 0.6  # concentrate a kt of ore
    truck_fee, loader_fee, crusher_fee, pile_fee, crew_fee = 0.07, 0.35, 0.015, 0.006, 0.06
    night_fee, pump_fee, rail_fee, overhead = 0.9, 0.12, 0.05, 0.5  # $M a week
    dig, mill, rehandle, road = 0.003, 0.005, 0.1, 0.14  # $M a kt
    index = 20.0  # $M of the insured loss a unit of the shock's excess
    premium, forward, buyback, distress, leftover = 0.15, 2.2, 1.1, 0.6, 0.02

    def demand_mean(self, x):
        """The spot buyers' demand (kt over the month) before its noise, (...)."""
        x = np.asarray(x, dtype=float)
        return self.d0 * np.exp(-self.el_p * (x[..., 10] / self.ref_p - 1.0)
                                + self.el_g * (x[..., 9] - 1.0))

    def ore_share(self, g):
        """The ore's share of the rock before its noise (own_t = 1), (...)."""
        return -np.expm1(-self.ore0 * np.exp(-self.cut * (np.asarray(g, dtype=float) - 1.0)))

    def conc_yield(self, g):
        return self.y0 * g * (1.0 - self.rec * np.exp(-g / self.rec_scale))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k

        wet = lognormal(self.wet_sd, z[4 * T])
        kick = np.maximum(z[4 * T + 3] - 1.28, 0.0)
        hit = self.weight.reshape(pad) * kick
        inflow = (self.ibase.reshape(pad) * wet * np.exp(self.flood * hit)
                  * lognormal(self.inflow_sd, z[:T]))
        trucks = -np.expm1(-self.truck_rate * np.exp(self.truck_hit * hit)
                           * lognormal(self.break_sd, z[T:2 * T]))
        loaders = -np.expm1(-self.loader_rate * np.exp(self.loader_hit * hit)
                            * lognormal(self.break_sd, z[2 * T:3 * T]))
        rate = self.ore0 * np.exp(-self.cut * (x[..., 9] - 1.0))
        ore = -np.expm1(-columns(np.asarray(rate)[..., None, None], k)
                        * lognormal(self.ore_sd, z[3 * T:4 * T]))
        demand = (columns(np.asarray(self.demand_mean(x))[..., None, None], k)[0]
                  * lognormal(self.demand_sd, z[4 * T + 1]))
        spot = self.spot0 * lognormal(self.level_sd, z[4 * T + 2]) * np.exp(self.spike * kick)
        parts = [inflow, trucks, loaders, ore, demand[None], spot[None], wet[None], kick[None]]
        return scenario(parts)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        N, L, C, P, M, n1, n2, R, F, g, p, U, I = (x[..., i] for i in range(13))
        demand, spot, kick = W[4 * T], W[4 * T + 1], W[4 * T + 3]
        shape = np.broadcast_shapes(kick.shape, N.shape)
        payout = np.minimum(I, self.index * kick)
        total = (T * (self.truck_fee * N + self.loader_fee * L + self.crusher_fee * C
                      + self.pile_fee * P + self.crew_fee * M + self.pump_fee * U
                      + self.rail_fee * R + self.overhead)
                 + 0.5 * T * self.night_fee * (n1 + n2) + self.premium * I - payout
                 + np.zeros(shape))
        rho = -np.expm1(-M / self.repair)
        y = self.conc_yield(g)
        h = np.zeros(shape)
        bT, bL, pile, made = h.copy(), h.copy(), h.copy(), h.copy()
        for t in range(T):
            hit = self.weight[t] * kick
            h = np.maximum(h + W[t] - U, 0.0)
            up = np.exp(-h / self.drown - self.stop * hit)
            bT = bT * (1.0 - rho)
            bT = bT + (N - bT) * W[T + t]
            bL = bL * (1.0 - rho)
            bL = bL + (L - bL) * W[2 * T + t]
            n = n1 if t < T // 2 else n2
            shift = 1.0 + self.night * n
            trucks = np.maximum(shift * self.haul * (N - bT), 1e-9)
            loaders = np.maximum(shift * self.load * (L - bL), 1e-9)
            rock = up * ((1.0 / trucks) ** self.sharp + (1.0 / loaders) ** self.sharp
                         + (1.0 / self.bench) ** self.sharp) ** (-1.0 / self.sharp)
            pile = pile + W[3 * T + t] * rock
            crushed = np.minimum(C, pile)
            pile = pile - crushed
            conc = y * crushed
            made = made + conc
            total = (total + self.dig * rock + self.mill * crushed
                     + self.rehandle * np.maximum(pile - P, 0.0)
                     + self.road * np.maximum(conc - R, 0.0))
        extra = np.maximum(made - F, 0.0)
        sold = np.minimum(extra, demand)
        return (total - self.forward * F + self.buyback * spot * np.maximum(F - made, 0.0)
                - (spot + p) * sold - self.distress * spot * (extra - sold)
                - self.leftover * pile)
