"""A held-out problem: a regional water utility's summer of eight weeks, fourteen decisions,
twelve of them open above. Kept out of every choice of the default; its optimum is found
without acfs (``find_optima.py`` beside it, ``optima.json``). Volumes are in gigalitres (GL),
money in $M, so a tariff of p $ a kL is p $M a GL.

Decisions x = (the household tariff p_h and the irrigation tariff p_i ($ a kL), the budget c of
a drought campaign booked before the summer ($M), the river intake's pumping capacity R, the
groundwater allowance G and the desalination plant's capacity D (GL a week, for every week),
the bulk water b_1..b_8 reserved from a neighbouring utility for each week (GL)). The
households ask in week t

    hbase_t * exp(-2 (p_h / 3 - 1)) * (1 + (exp(ramp_t kick) - 1) (1 - s(c))) * heat * own_t,
        s(c) = 0.6 (1 - exp(-c / 0.15)),

GL of water (the campaign cuts the drought's extra use, up to 60 % of it), the farms

    ibase_t * exp(-2.5 (p_i / 1 - 1)) * heat * exp(ramp_t kick) * own_t

GL: the tariffs move the demand. ``heat`` is the summer's lognormal heat (sd 0.05 on the log),
own_t a week's lognormal noise (sd 0.1 for the households, 0.2 for the farms). The reservoir's
catchment brings ``qbase_t * wet * exp(-2 ramp_t kick) * own_t`` GL in week t and the river
carries ``fbase_t * wet * exp(-1.5 ramp_t kick) * own_t``, of which the licence lets the intake
take up to 40 % (``wet`` the summer's lognormal wetness, sd 0.2; own noise sd 0.35 and 0.25). A
heavy-tailed drought and heatwave, ``kick = (z - 1.28)_+`` (one summer in ten, without bound),
cuts the inflows and the river, raises both demands and the evaporation, more in later weeks
(``ramp_t`` from 0.3 to 1.2), and leaves the neighbours less water: the bulk contract delivers
``b_t / (1 + 0.3 ramp_t kick)`` and they sell at most ``0.12 / (1 + kick)`` GL a week in an
emergency.

The reservoir (8 GL, of which 0.5 GL dead storage below the outlet) starts the summer holding
5 GL. Each week its inflow comes in and what it cannot hold spills; the households are then
served, in this order, by groundwater (up to G), by the river (up to ``min(R, 0.4 river)``), by
the bulk water delivered (what they do not need of it is lost), by the desalination plant (up
to D), from the reservoir down to its dead storage, by emergency purchases from the neighbours,
and what is still lacking is rationed. The farms then draw from the reservoir what it holds
above a reserve of 2 GL kept for the households; what they lack is curtailed. The reservoir
then loses ``e_t * heat * (1 + 0.5 ramp_t kick)`` of what it holds to evaporation (a store that
carries over); the summer ends with a charge on every GL below the autumn's target of 4.5 GL.
Costs: the campaign; each week the intake's capacity, the allowance (its fee a GL rising with
its size, ``0.3 (1 + G / 0.1)``) and the desalination plant; the bulk water delivered, at a
price rising through the summer, used or not; each GL pumped from the river or the ground,
desalinated, drawn from the reservoir and treated, bought in an emergency, rationed or curtailed
(the farms' compensation), and each GL delivered to a household (the network's pumping); the
utility earns its tariffs on the water delivered and irrigated. The weekly profiles (hbase,
ibase, qbase, fbase, the evaporation's e_t, the bulk price) and the prices a GL are the
class's constants.

Offered as ``transform(x, z)`` (35 normals a row; a scenario is the eight weeks' household
demands, farm demands, reservoir inflows and river flows, the summer's heat, its wetness and
the drought's excess ``(z - 1.28)_+``), its cost vectorised over decisions: common random
numbers are exact. lam 0.7, alpha 0.9.
"""

import numpy as np
from arrays import columns, scenario

T = 8


class Water:
    name = "water"
    dim_x, dim_w = 6 + T, 4 * T + 3
    vectorized = True
    lam, alpha = 0.7, 0.9
    ref_h, el_h, ref_i, el_i = 3.0, 2.0, 1.0, 2.5  # tariffs ($ a kL) and the demand's elasticity
    #: p_h, p_i, c, R, G, D, b1..b8
    bounds = ([(0.5 * ref_h, 2.0 * ref_h), (0.5 * ref_i, 2.0 * ref_i)]
              + [(0.0, np.inf)] * (4 + T))
    x0 = np.array([3.3, 1.2, 0.1, 0.3, 0.1, 0.1] + [0.05] * T)

    hbase = np.array([0.70, 0.73, 0.76, 0.78, 0.78, 0.76, 0.74, 0.72])  # GL a week
    ibase = np.array([0.30, 0.33, 0.37, 0.40, 0.40, 0.37, 0.34, 0.31])
    qbase = np.array([0.28, 0.24, 0.21, 0.18, 0.15, 0.13, 0.11, 0.10])  # the reservoir's inflow
    fbase = np.array([0.90, 0.82, 0.74, 0.66, 0.59, 0.53, 0.48, 0.45])  # the river's flow
    evap = np.array([0.012, 0.014, 0.016, 0.018, 0.018, 0.017, 0.016, 0.014])  # share a week
    price = np.linspace(1.0, 1.3, T)  # $M a GL of bulk water delivered, taken or not
    ramp = np.linspace(0.3, 1.2, T)
    hot, reach, spend = 1.0, 0.6, 0.15  # the drought's extra household use; the campaign ($M)
    farm_heat, dry_in, dry_river, dry_evap, dry_bulk = 1.0, 2.0, 1.5, 0.5, 0.3
    aquifer = 0.1  # GL a week: the allowance's fee a GL doubles at this size
    licence = 0.4  # the river's share the intake may take
    capacity, dead, start, target = 8.0, 0.5, 5.0, 4.5  # the reservoir (GL)
    reserve = 2.0  # GL kept for the households: the farms draw only what is above it
    emergency = 0.12  # GL a week the neighbours can sell in a usual summer
    intake_fee, allowance_fee, desal_fee = 0.15, 0.3, 0.4  # $M a GL a week of capacity, a week
    pump, ground, treat, desal = 0.08, 0.25, 0.12, 1.1  # $M a GL used
    premium, curtail, ration, network, autumn = 4.0, 0.2, 15.0, 0.4, 4.0  # $M a GL

    def household_mean(self, x):
        """Mean household demand each week in a usual summer before the noise, (..., 8)."""
        x = np.asarray(x, dtype=float)
        return self.hbase * np.exp(-self.el_h * (x[..., 0:1] / self.ref_h - 1.0))

    def farm_mean(self, x):
        """Mean farm demand each week in a usual summer before the noise, (..., 8)."""
        x = np.asarray(x, dtype=float)
        return self.ibase * np.exp(-self.el_i * (x[..., 1:2] / self.ref_i - 1.0))

    def campaign(self, x):
        """The share of the drought's extra household use the campaign cuts, (...)."""
        x = np.asarray(x, dtype=float)
        return self.reach * (1.0 - np.exp(-x[..., 2] / self.spend))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        pad = (T,) + (1,) * k
        heat = np.exp(0.05 * z[4 * T] - 0.5 * 0.05**2)
        wet = np.exp(0.2 * z[4 * T + 1] - 0.5 * 0.2**2)
        kick = np.maximum(z[4 * T + 2] - 1.28, 0.0)
        ramp = self.ramp.reshape(pad)
        cut = columns(np.asarray(self.campaign(x))[..., None, None], k)  # (1, ..., 1)
        extra = np.expm1(self.hot * ramp * kick) * (1.0 - cut)  # the drought's extra use
        homes = (columns(self.household_mean(x)[..., None, :], k) * (1.0 + extra) * heat
                 * np.exp(0.1 * z[:T] - 0.5 * 0.1**2))
        farms = (columns(self.farm_mean(x)[..., None, :], k) * heat
                 * np.exp(self.farm_heat * ramp * kick + 0.2 * z[T:2 * T] - 0.5 * 0.2**2))
        inflow = (self.qbase.reshape(pad) * wet
                  * np.exp(-self.dry_in * ramp * kick + 0.35 * z[2 * T:3 * T] - 0.5 * 0.35**2))
        river = (self.fbase.reshape(pad) * wet
                 * np.exp(-self.dry_river * ramp * kick + 0.25 * z[3 * T:4 * T] - 0.5 * 0.25**2))
        parts = [homes, farms, inflow, river, heat[None], wet[None], kick[None]]
        return scenario(parts)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p_h, p_i, c, R, G, D = (x[..., i] for i in range(6))
        heat, kick = W[4 * T], W[4 * T + 2]
        shape = np.broadcast_shapes(kick.shape, p_h.shape)
        total = (c + T * (self.intake_fee * R + self.allowance_fee * G * (1.0 + G / self.aquifer)
                          + self.desal_fee * D)) + np.zeros(shape)
        stock = self.start + np.zeros(shape)
        sold = self.emergency / (1.0 + kick)  # what the neighbours can sell in an emergency
        for t in range(T):
            homes, farms = W[t], W[T + t]
            stock = np.minimum(stock + W[2 * T + t], self.capacity)  # the spill lost
            ground = np.minimum(G, homes)
            river = np.minimum(np.minimum(R, self.licence * W[3 * T + t]), homes - ground)
            delivered = x[..., 6 + t] / (1.0 + self.dry_bulk * self.ramp[t] * kick)
            bulk = np.minimum(delivered, homes - ground - river)
            desal = np.minimum(D, homes - ground - river - bulk)
            need = homes - ground - river - bulk - desal
            drawn = np.minimum(need, np.maximum(stock - self.dead, 0.0))
            bought = np.minimum(sold, need - drawn)
            rationed = need - drawn - bought
            stock = stock - drawn
            irrigated = np.minimum(farms, np.maximum(stock - self.reserve, 0.0))
            stock = (stock - irrigated) * (1.0 - self.evap[t] * heat
                                           * (1.0 + self.dry_evap * self.ramp[t] * kick))
            total = (total + self.price[t] * delivered + self.ground * ground + self.pump * river
                     + self.desal * desal + self.treat * drawn + self.premium * bought
                     + self.ration * rationed + self.curtail * (farms - irrigated)
                     + (self.network - p_h) * (homes - rationed) - p_i * irrigated)
        return total + self.autumn * np.maximum(self.target - stock, 0.0)
