"""A held-out problem: a make-to-stock line of eight products in two families over five weeks,
fourteen decisions, twelve of them open above. Kept out of every choice of the default; its
optimum is found without acfs (``find_optima.py`` beside it, ``optima.json``).

Decisions x = (prices of the families p_A and p_B, the weekly capacities of their lines C_A and
C_B, base-stock levels S1..S8 (products 1-4 make family A, 5-8 family B), an expediting budget
E and a flexible overtime capacity F, both units a week). Demand of product j in week t is

    base_j * exp(-a_f (p_f - ref_f) + 0.2 tanh((p_g - ref_g) / 25)) * market_t * boom * own_jt

(f its family, g the other: the families are substitutes) with a week's common lognormal
market effect (sd 0.15), a product's own lognormal noise (sd 0.3) and a heavy-tailed boom
``exp(0.7 (z - 1.28)_+)`` common to every product and week (one month in ten, without bound):
the prices move the demand, the market and the boom correlate it. The stock starts at the base
stock. Each week a product sells from stock; the expediting budget serves up to E units of
what is short, shared in proportion to each product's shortfall, at a premium; the rest is lost
at a goodwill cost. Then each line produces up to its capacity towards the base stocks of its
family, shared in proportion to each product's gap, and the overtime capacity F fills the gaps
both lines leave, at a premium. What the stock lacks of the base stock after the fifth week is
restored at the unit cost and a premium. Costs: the unit costs of what is made or expedited,
the lines', the overtime's and the expediting budget's weekly fees, the premiums, holding,
goodwill; the firm earns its family's price on each unit sold.

Offered as ``transform(x, z)`` (forty-six normals a row; a scenario is the forty weekly
demands, product by product, the five market effects and the boom), its cost vectorised over
decisions: common random numbers are exact. lam 0.6, alpha 0.9.
"""

import numpy as np

N, T = 8, 5
FAMILY = np.array([0, 0, 0, 0, 1, 1, 1, 1])


class Warehouse:
    name = "warehouse"
    dim_x, dim_w = 6 + N, N * T + T + 1
    vectorized = True
    lam, alpha = 0.6, 0.9
    #: p_A, p_B, C_A, C_B, S1..S8, E, F
    bounds = [(10.0, 60.0), (10.0, 100.0)] + [(0.0, np.inf)] * (N + 4)
    x0 = np.array([14.0, 25.0, 50.0, 80.0, 25.0, 20.0, 15.0, 10.0, 60.0, 40.0, 30.0, 20.0,
                   10.0, 30.0])

    base = np.array([40.0, 30.0, 25.0, 15.0, 30.0, 20.0, 15.0, 10.0])
    ref = np.array([20.0, 35.0])
    slope = np.array([0.07, 0.045])
    unit_cost = np.array([8.0, 14.0])[FAMILY]
    goodwill = np.array([10.0, 16.0])[FAMILY]
    holding = np.array([0.4, 0.7])[FAMILY]  # a unit a week
    line_fee = np.array([2.0, 3.5])  # a unit of capacity a week
    refill = 0.5  # the premium of the stock restored at the end, a share of the unit cost
    expedite_fee, expedite_premium = 2.0, 8.0
    overtime_fee, overtime_premium = 0.5, 5.0

    def demand_mean(self, x):
        """Mean weekly demand of each product before the shocks, (..., 8)."""
        x = np.asarray(x, dtype=float)
        p = x[..., 0:2]
        own = p[..., FAMILY] - self.ref[FAMILY]
        other = p[..., 1 - FAMILY] - self.ref[1 - FAMILY]
        return self.base * np.exp(-self.slope[FAMILY] * own + 0.2 * np.tanh(other / 25.0))

    def transform(self, x, z):
        z = np.asarray(z, dtype=float)
        own = np.exp(0.3 * z[..., :N * T] - 0.5 * 0.3**2)
        market = np.exp(0.15 * z[..., N * T:N * T + T] - 0.5 * 0.15**2)
        boom = np.exp(0.7 * np.maximum(z[..., N * T + T:] - 1.28, 0.0))
        # product j of week t in column j T + t
        mean = np.repeat(self.demand_mean(x), T, axis=-1)[..., None, :]
        demand = mean * np.tile(market, N) * boom * own
        ones = demand.shape[:-1]
        return np.concatenate([demand, np.broadcast_to(market, ones + (T,)),
                               np.broadcast_to(boom, ones + (1,))], axis=-1)

    def cost(self, W, x):
        x = np.asarray(x, dtype=float)[..., None, :]
        W = np.asarray(W, dtype=float)
        demand = W[..., :N * T]
        p, C, S, E, F = x[..., 0:2], x[..., 2:4], x[..., 4:4 + N], x[..., 4 + N], x[..., 5 + N]
        price = p[..., FAMILY]
        shape = np.broadcast_shapes(demand.shape[:-1] + (N,), S.shape)
        stock = S + np.zeros(shape)
        total = T * ((self.line_fee * C).sum(axis=-1) + self.expedite_fee * E
                     + self.overtime_fee * F)
        total = total + np.zeros(shape[:-1])
        for t in range(T):
            D = demand[..., t::T]
            sold = np.minimum(stock, D)
            short = D - sold
            stock = stock - sold
            need = short.sum(axis=-1)
            sent = np.minimum(E, need)
            share = sent / np.maximum(need, 1e-12)  # of each shortfall, expedited
            total = (total - (price * sold).sum(axis=-1)
                     - share * ((price - self.unit_cost) * short).sum(axis=-1)
                     + self.expedite_premium * sent
                     + (1.0 - share) * (self.goodwill * short).sum(axis=-1))
            gap = S - stock
            made = np.zeros(shape)
            for f in (0, 1):
                mask = FAMILY == f
                want = gap[..., mask].sum(axis=-1)
                run = np.minimum(C[..., f], want)
                made[..., mask] = gap[..., mask] * (run / np.maximum(want, 1e-12))[..., None]
            gap = gap - made
            want = gap.sum(axis=-1)
            extra = np.minimum(F, want)
            made = made + gap * (extra / np.maximum(want, 1e-12))[..., None]
            stock = stock + made
            total = (total + (self.unit_cost * made).sum(axis=-1)
                     + self.overtime_premium * extra + (self.holding * stock).sum(axis=-1))
        return total + (1.0 + self.refill) * (self.unit_cost * (S - stock)).sum(axis=-1)
