"""A held-out problem: a toy manufacturer's build-up to the holiday season of six four-week
periods, sixteen decisions, fourteen of them open above, written after version 10 of the default
and the theme park and the electricity retailer. Kept out of every choice of the default; its
optimum is found without acfs (``find_optima.py`` beside it, ``optima.json``). Toys and plastic
resin are counted in thousand units (a unit of resin makes a toy), money in $k, so a price of
p $ a toy is p $k a thousand toys.

Decisions x = (the wholesale prices p_e of periods 1-3 and p_l of periods 4-6 ($ a toy), the
regular line's capacity K (thousand toys a period, paid for whether used), the overtime
capacities O_e of periods 1-3 and O_l of periods 4-6, the capacity C reserved with a contract
manufacturer (thousand toys a period), the resin stock R bought before the season, the
warehouse's capacity H (thousand toys), the sea-freight slots S_3, S_4, S_5 booked for the
crossings that leave in periods 1, 2, 3 and arrive in periods 3, 4, 5 (thousand toys, paid
for whether filled), the
air-freight budget A (thousand toys for the season), the quality inspectors Q, the marketing m_e
and m_l ($k a period in periods 1-3 and 4-6) and the retailer-penalty insurance cover I ($k)).
Marketing lifts the orders by ``lift(m) = 1 + 0.5 (1 - exp(-m / 40))`` (diminishing returns).
A share ``s = 0.1 / (1 + exp(-(p_l - p_e) / 3))`` of the late orders is pulled forward into
periods 1-3 (0.05 at equal prices, more when the early price is the lower). With

    e_t = eb_t exp(-2.5 (p_e / 30 - 1)) lift(m_e),    l_t = lb_t exp(-3.2 (p_l / 30 - 1)) lift(m_l)

(eb = 14, 18, 24 and lb = 34, 44, 30 thousand toys: the late orders are the more sensitive to
their price), the retailers would order ``e_t + s (l_4 + l_5 + l_6) / 3`` in period t = 1, 2, 3
and ``(1 - s) l_t`` in period t = 4, 5, 6, times the season's lognormal appetite (sd 0.1 on the
log, mean 1), a period's own lognormal noise (sd 0.12, mean 1) and, in periods 4-6, the viral
hit's ``exp(1.6 kick)``. A period's resin spot price is ``4 (1 + 0.1 (t - 1)) exp(3 k_t kick)
own_t`` $ a unit (rising through the season; k = 0.2, 0.4, 0.7, 1, 1, 1; own noise sd 0.15,
mean 1). A share ``d_t = 0.015 + 0.15 exp(-Q / 10) own_t`` of the toys delivered in period t is
defective (own noise sd 0.3, mean 1: fewer with more inspectors). A heavy-tailed shock, ``kick
= (z - 1.64)_+`` (one season in twenty, without bound): the toy goes viral (the late orders
multiplied) while a port strike holds a share ``delay = 1 - exp(-3 kick)`` of every sea
crossing two periods longer and spikes the resin's spot price.

The season opens with 30 thousand toys in the warehouse, none at the factory, no backorders and
the resin stock R. In each period t: the retailers' orders are ``n_t = orders_t
exp(-cut_{t-1})``, ``cut_{t-1}`` the toys cancelled in period t - 1 as a share of the orders due
then, due_{t-1} (none before period 1): cancellations lower the next period's orders. The
warehouse receives the toys reworked (last period's defective toys returned) and the sea cargo
arriving. The orders due are ``due = B + n_t`` (B last period's backorders). The toys to fly are
``fly = min(A_left, (due - stock)_+)`` (A_left the air budget not yet flown). The factory (stock
F) must load this period's crossing (``slot`` = S_{t+2} in periods 1-3, none after) and the toys
to fly: the regular line builds ``reg = min(K, (ahead + fly - F)_+)`` (``ahead`` the slots of
this and the later crossings: the line, paid for anyway, builds ahead), overtime ``ot = min(O,
(slot + fly - F - reg)_+)`` (O = O_e in periods 1-3, O_l in 4-6) and the contract manufacturer
``con = min(C, (slot + fly - F - reg - ot)_+)``; each toy made takes a unit of resin, from the
stock while it lasts, the rest bought at the spot price. The crossing carries ``min(F, slot)``
(a share 1 - delay of it arrives two periods later, the rest four: the crossing to period 5 held
up arrives after the season and goes to the jobber), then ``min(F, fly)`` is flown to the
warehouse at once. The warehouse fills last period's backorders first, ``old = min(stock, B)``,
then the new orders, ``new = min(stock - old, n_t)``; the backorders left, ``B - old``, are
cancelled, and ``cut_t`` is their share of due. A share d_t of the toys delivered is defective:
returned, unpaid for, reworked (back in the warehouse next period) and ordered again, so the
backorders become ``B = n_t - new + d_t (old + new)``. After period 6 the backorders left are
cancelled and the toys left (in the warehouse, the factory and the rework) go to a jobber.

Costs: for the season, the sea slots (1 a toy booked), the air budget (3 a toy), the resin
stock (2 a unit), the insurance's premium (0.2 a $k of cover) and the overhead (400); each
period the line (1.5 a toy of capacity), the overtime reserved for the period (1 a toy), the
contract's reservation (1.2 a toy), the warehouse (0.5 a toy of capacity), the inspectors (1
each) and the marketing; each toy made 5 on the line, 9 on overtime, 9 at the contract
manufacturer, its resin if bought at the spot price; 10 a toy flown; each toy reworked 1.5; at
the end of a period 0.3 a toy in the warehouse, 2 more a toy beyond its capacity (stored
outside) and 0.1 a toy at the factory; the retailers' penalties: 2 a toy backordered at the end
of a period, 6 a toy cancelled, 2 a defective toy. The manufacturer earns the period's price on
each sound toy delivered, 4 a toy from the jobber and 1 a unit of resin left; the insurance pays
``min(I, (P - 800)_+)`` of the season's penalties P beyond 800.

Offered as ``transform(x, z)`` (20 normals a row; a scenario is the six periods' potential
orders, resin spot prices and defect rates, the strike's delayed share and the shock's excess
``(z - 1.64)_+``), its cost vectorised over decisions: common random numbers are exact. lam 0.8,
alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 6


class ToyMaker:
    name = "toymaker"
    dim_x, dim_w = 16, 3 * T + 2
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref, el_e, el_l = 30.0, 2.5, 3.2  # $ a toy; the early and the late orders' elasticity
    pull, pull_scale = 0.1, 3.0  # the late orders pulled forward, by the price gap
    lift_max, lift_scale = 0.5, 40.0  # marketing's lift and its scale ($k a period)
    #: p_e, p_l, K, O_e, O_l, C, R, H, S_3, S_4, S_5, A, Q, m_e, m_l, I
    bounds = [(15.0, 50.0), (15.0, 50.0)] + [(0.0, np.inf)] * 14
    x0 = np.array([28.0, 30.0, 40.0, 20.0, 10.0, 10.0, 120.0, 25.0, 45.0, 50.0, 25.0, 30.0, 9.0,
                   50.0, 30.0, 200.0])

    eb = np.array([14.0, 18.0, 24.0])  # thousand toys ordered early a period
    lb = np.array([34.0, 44.0, 30.0])  # and late
    k = np.array([0.2, 0.4, 0.7, 1.0, 1.0, 1.0])  # the strike's weight on the resin price
    viral, strike, hold_up = 1.6, 3.0, 3.0
    spot0, spot_rise = 4.0, 0.1  # $ a unit of resin; its rise a period
    defect0, defect1, inspect_scale = 0.015, 0.15, 10.0
    #: sd (log) of the season's appetite, a period's orders, a resin price, a defect rate
    season_sd, order_sd, spot_sd, defect_sd = 0.1, 0.12, 0.15, 0.3
    threshold = 1.64
    stock0, react = 30.0, 1.0  # toys in the warehouse at the start; orders lost a cancellation
    slot_fee, air_fee, resin_fee, premium, overhead = 1.0, 3.0, 2.0, 0.2, 400.0
    line_fee, ot_fee, con_fee, store_fee, inspector = 1.5, 1.0, 1.2, 0.5, 1.0
    make_reg, make_ot, make_con, fly_rate, rework = 5.0, 9.0, 9.0, 10.0, 1.5
    hold, outside, factory_hold = 0.3, 2.0, 0.1
    late, cancel, chargeback = 2.0, 6.0, 2.0
    jobber, resin_back, deductible = 4.0, 1.0, 800.0

    def lift(self, m):
        return 1.0 + self.lift_max * -np.expm1(-m / self.lift_scale)

    def pulled(self, x):
        """The share of the late orders pulled forward, (...)."""
        x = np.asarray(x, dtype=float)
        return self.pull / (1.0 + np.exp(-(x[..., 1] - x[..., 0]) / self.pull_scale))

    def order_mean(self, x):
        """The orders of each period in a usual season, before the noise and the shock,
        (..., 6)."""
        x = np.asarray(x, dtype=float)
        e = (self.eb * np.exp(-self.el_e * (x[..., 0:1] / self.ref - 1.0))
             * self.lift(x[..., 13:14]))
        late = (self.lb * np.exp(-self.el_l * (x[..., 1:2] / self.ref - 1.0))
                * self.lift(x[..., 14:15]))
        s = self.pulled(x)[..., None]
        return np.concatenate([e + s * late.mean(axis=-1, keepdims=True), (1.0 - s) * late],
                              axis=-1)

    def defect_mean(self, x):
        """The defect rate's scale, defect1 exp(-Q / 8), (...)."""
        x = np.asarray(x, dtype=float)
        return self.defect1 * np.exp(-x[..., 12] / self.inspect_scale)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        pad = (T,) + (1,) * k
        season = lognormal(self.season_sd, z[3 * T])
        kick = np.maximum(z[3 * T + 1] - self.threshold, 0.0)
        late = (np.arange(T) >= 3).astype(float).reshape(pad)
        orders = (columns(self.order_mean(x)[..., None, :], k) * season
                  * np.exp(self.viral * late * kick) * lognormal(self.order_sd, z[:T]))
        spot = (self.spot0 * (1.0 + self.spot_rise * np.arange(T)).reshape(pad)
                * np.exp(self.strike * self.k.reshape(pad) * kick)
                * lognormal(self.spot_sd, z[T:2 * T]))
        scale = columns(np.asarray(self.defect_mean(x))[..., None, None], k)[0]
        defect = self.defect0 + scale * lognormal(self.defect_sd, z[2 * T:3 * T])
        delay = -np.expm1(-self.hold_up * kick)
        return scenario([orders, spot, defect, delay[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p_e, p_l, K, O_e, O_l, C, R, H = (x[..., i] for i in range(8))
        S = [x[..., 8 + i] for i in range(3)]
        A, Q, m_e, m_l, I = (x[..., i] for i in range(11, 16))
        delay, kick = W[3 * T], W[3 * T + 1]
        shape = np.broadcast_shapes(kick.shape, p_e.shape)
        zero = np.zeros(shape)
        total = (self.slot_fee * (S[0] + S[1] + S[2]) + self.air_fee * A + self.resin_fee * R
                 + self.premium * I + self.overhead
                 + T * (self.line_fee * K + self.con_fee * C + self.store_fee * H
                        + self.inspector * Q)
                 + 3 * (self.ot_fee * (O_e + O_l) + m_e + m_l)) + zero
        stock, F, B, back, cut = self.stock0 + zero, zero, zero, zero, zero
        resin, air = R + zero, A + zero
        arrive = [zero] * (T + 2)
        penalties = zero
        for t in range(T):
            n = W[t] * np.exp(-self.react * cut)
            stock = stock + back + arrive[t]
            due = B + n
            fly = np.minimum(air, np.maximum(due - stock, 0.0))
            slot = S[t] if t < 3 else 0.0
            ahead = sum(S[t:]) if t < 3 else 0.0
            reg = np.minimum(K, np.maximum(ahead + fly - F, 0.0))
            ot = np.minimum(O_e if t < 3 else O_l, np.maximum(slot + fly - F - reg, 0.0))
            con = np.minimum(C, np.maximum(slot + fly - F - reg - ot, 0.0))
            made = reg + ot + con
            F = F + made
            used = np.minimum(resin, made)
            resin = resin - used
            sea = np.minimum(F, slot)
            F = F - sea
            if t < 3:
                arrive[t + 2] = arrive[t + 2] + (1.0 - delay) * sea
                arrive[t + 4] = arrive[t + 4] + delay * sea
            flown = np.minimum(F, fly)
            F, air, stock = F - flown, air - flown, stock + flown
            old = np.minimum(stock, B)
            new = np.minimum(stock - old, n)
            stock = stock - old - new
            cancelled = B - old
            cut = cancelled / due
            bad = W[2 * T + t] * (old + new)
            B = n - new + bad
            back = bad
            price = p_e if t < 3 else p_l
            penalty = self.late * B + self.cancel * cancelled + self.chargeback * bad
            penalties = penalties + penalty
            total = (total + self.make_reg * reg + self.make_ot * ot + self.make_con * con
                     + W[T + t] * (made - used) + self.fly_rate * flown + self.rework * bad
                     + self.hold * stock + self.outside * np.maximum(stock - H, 0.0)
                     + self.factory_hold * F + penalty - price * (old + new - bad))
        penalties = penalties + self.cancel * B
        total = (total + self.cancel * B - self.jobber * (stock + F + back)
                 - self.resin_back * resin)
        return total - np.minimum(I, np.maximum(penalties - self.deductible, 0.0))
