"""A held-out problem: a regional waste and recycling company's quarter of six two-week periods,
fourteen decisions, twelve of them open above, written after version 13 of the default. Kept
out of every choice of the default; its optimum is found without acfs (``find_optima.py``
beside it, ``optima.json``). Waste and bales are counted in kt (thousand tonnes), money in $k,
so a price of p $ a tonne is p $k a kt.

Decisions x = (the gate fee g charged for commercial waste ($ a tonne, from 40 to 160), the
household collection price h ($ a tonne billed to the households, from 60 to 240), an
education and sorting-quality budget E ($k), the sorting line's capacity S (kt a period), the
balers' capacity B (kt of bales a period), the trucks K_1 for periods 1-3 and K_2 for periods
4-6 (paid whether they drive), the storage yard for bales Y (kt), the landfill cell's capacity
F (kt, for the quarter), a forward sale of paper and plastic bales Q (kt a period), an export
contract X (kt a ship, a ship calling at the end of periods 2, 4 and 6, reserved and paid
whether used), overtime crews O (retained for the quarter), a hedge H on the bales' price (kt a
period) and a fire cover V ($k)). The forward buyer pays ``125 exp(-Q / 20)`` $ a tonne (the
more is sold forward, the less it pays). In period t (t = 0 .. 5) the company receives

    C_t = 8 exp(-1.5 (g / 80 - 1)) cseason_t econ own_t,
    D_t = 6 exp(-1.4 (h / 120 - 1)) hseason_t own'_t

kt of commercial waste brought to its gate and of household waste to collect (what a dear fee
loses goes to a rival landfill; cseason = 1, 1, 1.05, 1.05, 1.1, 0.95, hseason = 0.9, 0.95, 1,
1.05, 1.15, 1.3, the holidays at the quarter's end; ``econ`` the quarter's lognormal level of
business, sd 0.1 on the log, mean 1; own, own' lognormal, sd 0.15 and 0.1). The contamination
of the recyclables sorted is

    cont_t = 1 - exp(-0.3 (1 - 0.5 (1 - exp(-E / 60))) own''_t (1 + 1.5 storm_t))

(own'' sd 0.2: the education budget lowers it with diminishing returns), the bales' spot price
``p_t = 110 level own'''_t exp(-1.6 storm_t)`` $ a tonne (``level`` the quarter's commodity
level, sd 0.2; own''' sd 0.1) and the domestic mills take at most ``M_t = 1.2 own''''_t
exp(-storm_t)`` kt of bales (own'''' sd 0.25). A heavy-tailed commodity crash with a fire and an
export ban, ``kick = (z - 1.64)_+`` (one quarter in twenty, without bound), weighted ``w =
0.15, 0.3, 0.5, 0.7, 0.85, 1`` over the periods (more later), ``storm_t = w_t kick``, collapses
the bales' price and the mills' demand, lifts the contamination, closes the export route (the
ship takes only ``exp(-3 storm_t)`` of X), cuts the sorting line and the overtime crews'
capacity by ``exp(-0.7 storm_t)`` (the fire), ages the bales in the yard faster and costs
repairs of ``100 (S + B) (1 - exp(-0.7 kick))`` $k to the line and the balers.

The quarter opens with no waste waiting, the yard empty and the landfill cell empty. In period
t (K that of the period's trucks):

- the trucks collect ``coll = min(D_t + missed, 0.3 K)`` (0.3 kt a truck a period); the
  household waste not collected, ``missed``, waits (it carries over) at a penalty of 40 $ a
  tonne a period;
- of the commercial waste 45 % and of the household waste collected 55 % are recyclables,
  which join the tipping floor's queue; the rest is residual waste, to landfill;
- the sorting line sorts ``sorted = min(floor, (S + 0.2 O) exp(-0.7 storm_t))`` (each overtime
  crew 0.2 kt a period, paid 25 $ a tonne more for the tonnes beyond ``S exp(-0.7
  storm_t)``); the waste left on the floor is fined 30 $ a tonne and a quarter of it, held too
  long, goes to landfill (the rest carries over);
- of the waste sorted ``cont_t`` is residue (to landfill); the balers bale ``baled =
  min((1 - cont_t) sorted, B)``, the material beyond them is sold loose to a broker at 20 $ a
  tonne;
- the bales join the yard's stock st, which goes first to the forward sale, ``fwd = min(Q,
  st)`` (the shortfall ``Q - fwd`` bought back at ``1.15 p_t + 15`` $ a tonne), then, in
  periods 2, 4 and 6 (t odd), to the export ship, ``exp = min(X exp(-3 storm_t), st - fwd)``
  at 125 $ a tonne, then to the mills, ``mill = min(M_t, st - fwd - exp)`` at the spot price
  (they carry over in the yard between the ships); of the stock left, what the
  yard cannot hold, ``over = (st - Y)_+``, goes to landfill, and a share ``1 - exp(-0.04 (1 +
  2 storm_t))`` of the rest degrades (to landfill); the bales kept are held at 3 $ a tonne;
- the waste to landfill (residual, residue, held too long, the yard's overflow and the
  degraded bales) fills the company's cell while it has room, at 40 $ a tonne (operation and
  tax), the rest goes to a third party's landfill at 110 $ a tonne.

Costs: the overhead (400), E, the sorting line (12 $k a kt of capacity a period, for the six
periods), the balers (8 $k likewise), the trucks (7 $k each a period), the yard (10 $k a kt),
the landfill cell (30 $k a kt), the export contract (15 $ a tonne reserved, for each of the
three ships), the overtime crews (1.5 $k each a period), the cover's premium (0.1 a $k of cover,
twice its largest expected payout, the event's chance 0.05) and the fire's repairs; each period
the missed collections' penalty, 20 $ a tonne sorted and the overtime premium, the floor's
fines, 12 $ a tonne baled, the buy-backs, the holding, the landfills and the hedge's settlement
``H (p_t - 100)``; less the gate fees ``g C_t``, the households' bills ``h D_t``, the forward
sale's ``125 exp(-Q / 20) Q``, the export's, the mills' and the broker's. At the end the bales
left are sold at 0.6 ``p_5`` and the waste left on the floor and uncollected goes to the third
party's landfill (110 $ a tonne). The cover pays ``min(V, 0.8 R)``, R the fire's repairs.

Offered as ``transform(x, z)`` (33 normals a row; a scenario is each period's commercial and
household waste, contamination, bale price and mills' demand, the business level, the commodity
level and the event's excess ``(z - 1.64)_+``), its cost vectorised over decisions: common
random numbers are exact. lam 0.75, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 6  # two-week periods


class Recycling:
    name = "recycling"
    dim_x, dim_w = 14, 5 * T + 3
    vectorized = True
    lam, alpha = 0.75, 0.95
    ref_g, ref_h = 80.0, 120.0  # the reference gate fee and household price ($ a tonne)
    #: g, h, E, S, B, K_1, K_2, Y, F, Q, X, O, H, V
    bounds = [(0.5 * ref_g, 2.0 * ref_g), (0.5 * ref_h, 2.0 * ref_h)] + [(0.0, np.inf)] * 12
    x0 = np.array([80.0, 120.0, 60.0, 7.0, 5.0, 16.0, 18.0, 3.0, 35.0, 2.0, 1.5, 5.0,
                   1.0, 200.0])

    commercial, household = 8.0, 6.0  # kt a period at the reference prices
    el_g, el_h = 1.5, 1.4  # the elasticities
    cseason = np.array([1.0, 1.0, 1.05, 1.05, 1.1, 0.95])
    hseason = np.array([0.9, 0.95, 1.0, 1.05, 1.15, 1.3])
    econ_sd, com_sd, hh_sd, cont_sd, level_sd, price_sd, mill_sd = (
        0.1, 0.15, 0.1, 0.2, 0.2, 0.1, 0.25)
    cont_k, edu_max, edu_scale, cont_lift = 0.3, 0.5, 60.0, 1.5  # the contamination
    price_ref, crash = 110.0, 1.6  # the bales' spot price ($ a tonne), the crash
    mills, mill_cut = 1.2, 1.0  # kt of bales the mills take a period, the event's cut
    threshold = 1.64  # one quarter in twenty
    w = np.array([0.15, 0.3, 0.5, 0.7, 0.85, 1.0])  # the event's weight each period
    ban, fire, age, age_lift = 3.0, 0.7, 0.04, 2.0  # the export ban, the fire, the ageing
    share_c, share_h = 0.45, 0.55  # the recyclables' share of commercial, household waste
    per_truck, per_crew = 0.3, 0.2  # kt a period
    expire = 0.25  # the floor's waste held too long, to landfill
    fwd_price, fwd_scale = 125.0, 20.0  # the forward price falls with Q by exp(-Q / 20)
    buy_mult, buy_add = 1.15, 15.0  # the buy-back's price
    export_price, strike = 125.0, 100.0
    overhead, line_fee, baler_fee, truck_fee, yard_fee, cell_fee, export_fee, crew_fee = (
        400.0, 12.0, 8.0, 7.0, 10.0, 30.0, 15.0, 1.5)
    premium = 0.1  # a $k of cover
    missed_fee, sort_op, overtime, floor_fine, bale_op, loose, hold = (
        40.0, 20.0, 25.0, 30.0, 12.0, 20.0, 3.0)
    own_fill, third_fill = 40.0, 110.0  # $ a tonne landfilled in the cell, at a third party
    end_bales = 0.6  # the bales left sold at 0.6 times the last price
    repair, share = 100.0, 0.8  # the fire's repairs ($k a kt of capacity), the cover's share

    def education(self, x):
        """The factor the education budget multiplies the contamination's rate by."""
        return 1.0 - self.edu_max * -np.expm1(-np.asarray(x, dtype=float)[..., 2]
                                               / self.edu_scale)

    def demand_mean(self, x):
        """kt of commercial and household waste a period in a usual quarter before the season's
        shape and the noise, and the education factor: shape (..., 3)."""
        x = np.asarray(x, dtype=float)
        c = self.commercial * np.exp(-self.el_g * (x[..., 0] / self.ref_g - 1.0))
        d = self.household * np.exp(-self.el_h * (x[..., 1] / self.ref_h - 1.0))
        return np.stack([c, d, self.education(x)], axis=-1)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k
        econ = lognormal(self.econ_sd, z[5 * T])
        level = lognormal(self.level_sd, z[5 * T + 1])
        kick = np.maximum(z[5 * T + 2] - self.threshold, 0.0)
        storm = self.w.reshape(pad) * kick
        m = columns(np.asarray(self.demand_mean(x))[..., None, :], k)
        com = m[0] * self.cseason.reshape(pad) * econ * lognormal(self.com_sd, z[:T])
        hh = m[1] * self.hseason.reshape(pad) * lognormal(self.hh_sd, z[T:2 * T])
        cont = -np.expm1(-self.cont_k * m[2] * lognormal(self.cont_sd, z[2 * T:3 * T])
                         * (1.0 + self.cont_lift * storm))
        price = (self.price_ref * level * lognormal(self.price_sd, z[3 * T:4 * T])
                 * np.exp(-self.crash * storm))
        mill = (self.mills * lognormal(self.mill_sd, z[4 * T:5 * T])
                * np.exp(-self.mill_cut * storm))
        return scenario([com, hh, cont, price, mill, econ[None], level[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        g, h = x[..., 0], x[..., 1]
        E, S, B, K1, K2, Y, F, Q, X, O, H, V = (x[..., j] for j in range(2, 14))
        kick = W[5 * T + 2]
        shape = np.broadcast_shapes(kick.shape, g.shape)
        zero = np.zeros(shape)
        total = (self.overhead + E + T * (self.line_fee * S + self.baler_fee * B)
                 + 3 * self.truck_fee * (K1 + K2) + self.yard_fee * Y + self.cell_fee * F
                 + T // 2 * self.export_fee * X + T * self.crew_fee * O + self.premium * V
                 + zero)
        fwd_rev = self.fwd_price * np.exp(-Q / self.fwd_scale) * Q
        missed, floor, st, used = zero, zero, zero, zero
        for t in range(T):
            K = K1 if t < 3 else K2
            storm = self.w[t] * kick
            com, hh, cont = W[t], W[T + t], W[2 * T + t]
            price, mill_cap = W[3 * T + t], W[4 * T + t]
            # the collection
            due = hh + missed
            coll = np.minimum(due, self.per_truck * K)
            missed = due - coll
            # the tipping floor and the sorting line
            floor = floor + self.share_c * com + self.share_h * coll
            fire = np.exp(-self.fire * storm)
            sorted_ = np.minimum(floor, (S + self.per_crew * O) * fire)
            floor = floor - sorted_
            extra = np.maximum(sorted_ - S * fire, 0.0)
            expired = self.expire * floor
            # the balers
            material = (1.0 - cont) * sorted_
            baled = np.minimum(material, B)
            # the bales: the forward sale, the export, the mills; the yard
            st = st + baled
            fwd = np.minimum(Q, st)
            st = st - fwd
            if t % 2:
                exported = np.minimum(X * np.exp(-self.ban * storm), st)
                st = st - exported
            else:
                exported = zero
            milled = np.minimum(mill_cap, st)
            st = st - milled
            over = np.maximum(st - Y, 0.0)
            st = st - over
            degraded = st * -np.expm1(-self.age * (1.0 + self.age_lift * storm))
            st = st - degraded
            # the landfill: the cell while it has room, then the third party
            fill = ((1.0 - self.share_c) * com + (1.0 - self.share_h) * coll + cont * sorted_
                    + expired + over + degraded)
            own = np.minimum(fill, F - used)
            used = used + own
            third = self.third_fill * (fill - own)
            buyback = (self.buy_mult * price + self.buy_add) * (Q - fwd)
            fines = self.floor_fine * floor
            penalty = self.missed_fee * missed
            total = (total + penalty + self.sort_op * sorted_ + self.overtime * extra + fines
                     + self.bale_op * baled + buyback + self.hold * st
                     + self.own_fill * own + third + H * (price - self.strike)
                     - g * com - h * hh - fwd_rev - self.export_price * exported
                     - price * milled - self.loose * (material - baled))
            floor = floor - expired
        total = (total - self.end_bales * W[4 * T - 1] * st
                 + self.third_fill * (floor + missed))
        # the fire's repairs to the sorting line and the balers, in part paid by the cover
        damage = self.repair * (S + B) * -np.expm1(-self.fire * kick)
        return total + damage - np.minimum(V, self.share * damage)
