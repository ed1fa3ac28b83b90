"""A held-out problem: a refinery's month of four weeks, eleven decisions, eight of them open
above. Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``).

Decisions x = (light and heavy crude bought each week c1, c2, the contract prices p1..p3 of
gasoline, diesel and fuel oil, the capacities of the crude unit U and of the cracker K, tanks
S1..S3 for the three products, a capacity e reserved every week with a trader). The
customers' weekly demand of product j is

    base_j * exp(-el_j (p_j / ref_j - 1)) * boom * own_jt

(own lognormal noise sd 0.2): the prices move the demand. The products' spot prices are
``ref_j * m_t * spike^(weight_j)``: a month's level and a week's noise, lognormal (sd 0.1 and
0.06 on the log), and a heavy-tailed crack-spread shock ``spike = exp(0.8 (z - 1.28)_+)`` (one
month in ten, without bound) that also lifts the demand (``boom = spike^0.4``: customers leave
the spot market for their contracts). The crude unit runs ``min(c1 + c2, U)`` of the crude
(both grades alike; the rest is sold back at a loss) and yields the three products by grade;
the cracker turns up to K of the fuel oil into gasoline and diesel. Each week the tanks
receive the production and the customers are served from them; the shortfall is bought from
the trader up to e (shared in proportion to the shortfalls) at a premium on ``ref_j m_t`` (the
market's level, not the spike), the rest on the spot market at a premium on the spot price;
what the tanks cannot hold is dumped at a discount to the spot price. Costs: the crude (each
grade's price rising with the volume bought, ``1 + c / 600``), the capacities, the tanks,
the trader's reservation, the running of the units, the purchases and the tanks' holding; the
refinery earns p_j on every barrel delivered, the dumped product and the stock left at the end
at a salvage price.

Offered as ``transform(x, z)`` (eighteen normals a row; a scenario is the twelve weekly
demands, product by product, the four weekly market levels, the month's level and the shock's
excess ``(z - 1.28)_+``), its cost vectorised over decisions: common random numbers are
exact. lam 0.6, alpha 0.9.
"""

import numpy as np

T, P = 4, 3


class Refinery:
    name = "refinery"
    dim_x, dim_w = 11, P * T + T + 2
    vectorized = True
    lam, alpha = 0.6, 0.9
    ref = np.array([100.0, 105.0, 70.0])  # gasoline, diesel, fuel oil ($k a kbbl)
    #: c1, c2, p1..p3, U, K, S1..S3, e
    bounds = ([(0.0, np.inf)] * 2 + [(0.6 * v, 1.6 * v) for v in ref]
              + [(0.0, np.inf)] * 6)
    x0 = np.array([50.0, 50.0, 110.0, 115.0, 75.0, 90.0, 10.0, 15.0, 15.0, 15.0, 20.0])

    base = np.array([60.0, 50.0, 20.0])  # kbbl a week at the reference prices
    el = np.array([3.0, 3.0, 4.0])
    shock, lift = 0.8, 0.4  # the spike exp(shock (z - 1.28)_+), the demand's boom spike^lift
    weight = np.array([1.0, 1.2, 0.5])  # the spike's weight on each product's spot price
    crude_price = np.array([62.0, 58.0])  # light, heavy, for the first barrels
    depth = 600.0  # a grade's price rises by c / depth of itself for c bought a week
    resale = 0.9  # share of the crude price got back for crude the unit cannot run
    #: yields of a kbbl of light and of heavy crude (gasoline, diesel, fuel oil)
    yields = np.array([[0.45, 0.30, 0.20], [0.25, 0.30, 0.40]])
    crack_yield = np.array([0.6, 0.3])  # gasoline and diesel from a kbbl of fuel oil cracked
    unit_fee, cracker_fee, tank_fee, trader_fee = 6.0, 8.0, 3.0, 8.0  # a kbbl a week
    run_cost, crack_cost = 3.0, 5.0  # a kbbl run
    contract, premium, discount, holding = 1.2, 1.15, 0.6, 0.5
    salvage = 0.6  # share of the reference price got for the stock left at the end

    def demand_mean(self, x):
        """Mean weekly demand of each product before the shock and the noise, (..., 3)."""
        x = np.asarray(x, dtype=float)
        return self.base * np.exp(-self.el * (x[..., 2:5] / self.ref - 1.0))

    def transform(self, x, z):
        z = np.asarray(z, dtype=float)
        month = np.exp(0.1 * z[..., P * T + T:P * T + T + 1] - 0.5 * 0.1**2)
        kick = np.maximum(z[..., P * T + T + 1:P * T + T + 2] - 1.28, 0.0)
        level = month * np.exp(0.06 * z[..., P * T:P * T + T] - 0.5 * 0.06**2)
        boom = np.exp(self.shock * self.lift * kick)
        mean = np.repeat(self.demand_mean(x), T, axis=-1)  # product-major, (..., 12)
        demand = (mean[..., None, :] * boom * np.exp(0.2 * z[..., :P * T] - 0.5 * 0.2**2))
        shape = demand.shape
        ones = shape[:-1] + (1,)
        return np.concatenate([demand, np.broadcast_to(level, shape[:-1] + (T,)),
                               np.broadcast_to(month, ones), np.broadcast_to(kick, ones)],
                              axis=-1)

    def cost(self, W, x):
        x = np.asarray(x, dtype=float)[..., None, :]
        W = np.asarray(W, dtype=float)
        D = W[..., :P * T]
        level, kick = W[..., P * T:P * T + T], W[..., P * T + T + 1]
        c, p, U, K = x[..., 0:2], x[..., 2:5], x[..., 5], x[..., 6]
        S, e = x[..., 7:10], x[..., 10]
        crude = c.sum(axis=-1)
        run = np.minimum(crude, U)
        share = np.where(crude > 0.0, run / np.where(crude > 0.0, crude, 1.0), 0.0)
        made = share[..., None] * (c @ self.yields)  # a week's products before cracking
        cracked = np.minimum(made[..., 2], K)
        made = made + cracked[..., None] * np.array([self.crack_yield[0], self.crack_yield[1],
                                                     -1.0])
        total = (T * ((c * self.crude_price * (1.0 + c / self.depth)).sum(axis=-1)
                      - self.resale * ((c - share[..., None] * c) * self.crude_price).sum(axis=-1)
                      + self.unit_fee * U + self.cracker_fee * K + self.tank_fee * S.sum(axis=-1)
                      + self.trader_fee * e + self.run_cost * run + self.crack_cost * cracked))
        spike = np.exp(self.shock * kick)
        shape = np.broadcast_shapes(kick.shape, U.shape)
        total = total + np.zeros(shape)
        stock = np.zeros(shape + (P,))
        for t in range(T):
            spot = self.ref * level[..., t:t + 1] * spike[..., None] ** self.weight
            demand = D[..., t::T]
            stock = stock + made
            sold = np.minimum(stock, demand)
            stock = stock - sold
            short = demand - sold
            need = short.sum(axis=-1)
            bought = np.minimum(e, need)
            part = short * np.where(need > 0.0, bought / np.where(need > 0.0, need, 1.0),
                                    0.0)[..., None]
            spill = np.maximum(stock - S, 0.0)
            stock = stock - spill
            traded = self.contract * self.ref * level[..., t:t + 1]
            total = (total + ((traded - p) * part + (self.premium * spot - p) * (short - part)
                              - p * sold - self.discount * spot * spill
                              + self.holding * stock).sum(axis=-1))
        return total - self.salvage * (self.ref * stock).sum(axis=-1)
