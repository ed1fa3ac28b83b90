"""A held-out problem: a grocery delivery platform's evening of five one-hour blocks in four
zones, thirteen decisions, nine of them open above. Kept out of every choice of the default;
its optimum is found without acfs (``find_optima.py`` beside it, ``optima.json``).

Decisions x = (the delivery fees f1..f4 of the zones (the centre, the university quarter, the
family suburbs, the outskirts), the couriers K1..K4 guaranteed in each zone for the evening, a
bonus b an hour paid to every freelance courier online, the dark stores' stock S1..S3 of fresh,
chilled and ambient goods (crates of twenty items, split between the zones' stores in the
shares ``spread``), the capacity P of an overflow contract with a third-party courier firm
(orders a block)). Zone j receives in block t

    base_j * exp(-el_j (f_j / 4 - 1)) * prof_t * level * storm^(weight_j) * own_jt

orders (an evening's lognormal level sd 0.15, a zone-block's own noise sd 0.2, and a
heavy-tailed storm ``storm = exp(0.5 (z - 1.28)_+)``, one evening in ten, without bound, felt
most in the outskirts): the fees move the volume. Freelancers online in zone j and block t
number

    free_j * fday_t * (1 + 1.5 (1 - exp(-b / 4))) * exp(-0.4 (z - 1.28)_+) * own_jt

(own noise sd 0.25): the bonus draws them, the storm keeps them home. A courier delivers ``mu /
(1 + 0.25 (z - 1.28)_+)`` orders an hour, slowed by the storm. Each zone's couriers deliver the
orders waiting there (carried over and new); half of the capacity left idle can be sent to
the other zones (the four zones meet at the centre) at an extra cost an order, and the
contract delivers up to P more; both take the zones' waiting orders in proportion. Of the
orders still waiting after a block a share ``theta`` is cancelled, the rest are given a late
voucher and wait for the next block; those still waiting at the end are cancelled. Each
order asks ``a_c`` items of category c (times an evening's lognormal mix factor, sd 0.2),
charged when it is placed: a zone's store sells what it holds over the evening, an item it
lacks is lost at a goodwill cost; fresh goods left over are thrown away at a disposal cost,
chilled ones marked down, ambient ones kept at most of their cost. A cancelled order is
refunded its zone's average basket as filled, with a voucher, and its items are lost. Costs:
the guaranteed couriers' hours, the bonus of every freelancer online, a trip's pay on every
delivery by a courier, the extra cost of an order sent across zones, the contract's retainer a
unit a block and its charge an order, the stock, goodwill, the late vouchers, the refunds; the
platform earns the items' prices, the zone's fee on every order delivered and the salvage of
the stock left.

Offered as ``transform(x, z)`` (forty-five normals a row; a scenario is the twenty orders and
the twenty freelancer counts, zone by zone, the three mix factors, the evening's level and the
storm's excess ``(z - 1.28)_+``), its cost vectorised over decisions: common random numbers are
exact. lam 0.7, alpha 0.95.
"""

import numpy as np
from arrays import columns, scenario

Z, T, C = 4, 5, 3  # zones, blocks (17-22 h), categories of goods


class Delivery:
    name = "delivery"
    dim_x, dim_w = 2 * Z + C + 2, 2 * Z * T + C + 2
    vectorized = True
    lam, alpha = 0.7, 0.95
    ref = 4.0  # $ an order
    #: f1..f4, K1..K4, b, S1..S3, P
    bounds = [(0.5 * ref, 2.0 * ref)] * Z + [(0.0, np.inf)] * (Z + C + 2)
    x0 = np.array([4.5] * Z + [14.0, 10.0, 8.0, 5.0, 2.0, 45.0, 75.0, 175.0, 40.0])

    base = np.array([55.0, 40.0, 35.0, 20.0])  # orders a block at a fee of 4
    el = np.array([1.5, 1.7, 1.8, 2.0])
    prof = np.array([0.6, 1.1, 1.4, 1.1, 0.7])  # the evening's orders, 17-18 h, ..., 21-22 h
    weight = np.array([0.9, 1.0, 1.0, 1.2])  # the storm's on the zones' orders
    free = np.array([3.0, 2.5, 2.0, 1.2])  # freelancers online at b = 0
    fday = np.array([0.7, 1.0, 1.1, 1.0, 0.8])
    spread = base / base.sum()  # the stock's shares in the zones' stores
    mu, reach, theta = 2.5, 0.5, 0.3  # orders a courier-hour; idle sent across; cancelled
    a = np.array([2.0, 3.0, 5.5])  # items an order: fresh, chilled, ambient
    crate = 20.0  # items
    price = np.array([4.5, 3.8, 2.8])
    unit = np.array([2.6, 2.2, 1.7])  # the stock's cost an item
    #: a leftover: fresh thrown away at a cost, chilled marked down, ambient kept
    salvage = np.array([-0.3, 0.88, 1.53])
    goodwill = 0.5  # an item lacking
    wage, trip, cross = 13.0, 2.5, 2.0  # a guaranteed courier-hour; an order delivered, moved
    retainer, charge = 2.0, 13.0  # the contract: a unit a block, an order
    late, voucher = 3.0, 4.0

    def order_mean(self, x):
        """Mean orders of each zone in a block of profile 1 before the noise, (..., 4)."""
        x = np.asarray(x, dtype=float)
        return self.base * np.exp(-self.el * (x[..., 0:Z] / self.ref - 1.0))

    def free_lift(self, x):
        """The bonus's factor on the freelancers online, (...)."""
        x = np.asarray(x, dtype=float)
        return 1.0 + 1.5 * (1.0 - np.exp(-x[..., 2 * Z] / 4.0))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k, n = max(x.ndim, z.ndim - 1), Z * T  # k: the axes after a column's
        z = columns(z, k)
        pad = (1,) * k
        level = np.exp(0.15 * z[2 * n + C] - 0.5 * 0.15**2)
        kick = np.maximum(z[2 * n + C + 1] - 1.28, 0.0)
        mean = np.repeat(columns(self.order_mean(x)[..., None, :], k), T, axis=0)
        felt = np.repeat(0.5 * self.weight, T).reshape((n,) + pad)
        orders = (mean * np.tile(self.prof, Z).reshape((n,) + pad) * level
                  * np.exp(felt * kick + 0.2 * z[:n] - 0.02))
        lift = np.asarray(self.free_lift(x))[..., None]
        online = (np.repeat(self.free, T) * np.tile(self.fday, Z)).reshape((n,) + pad)
        couriers = online * lift * np.exp(-0.4 * kick + 0.25 * z[n:2 * n] - 0.03125)
        mix = np.exp(0.2 * z[2 * n:2 * n + C] - 0.02)
        parts = [orders, couriers, mix, level[None], kick[None]]
        return scenario(parts)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k, n = max(x.ndim - 1, W.ndim - 1), Z * T
        W = columns(W, k)
        kick = W[2 * n + C + 1]
        f, K = columns(x[..., 0:Z], k), columns(x[..., Z:2 * Z], k)  # (4, ..., 1)
        b, P = x[..., 2 * Z], x[..., 2 * Z + C + 1]
        shape = np.broadcast_shapes(kick.shape, b.shape)
        rate = self.mu / (1.0 + 0.25 * kick)
        S = x[..., 2 * Z + 1:2 * Z + 1 + C]
        total = (T * (self.wage * x[..., Z:2 * Z].sum(axis=-1) + self.retainer * P)
                 + self.crate * ((self.unit - self.salvage) * S).sum(axis=-1)
                 + b * W[n:2 * n].sum(axis=0)) + np.zeros(shape)
        wanted = W[0:n].reshape((Z, T) + W.shape[1:]).sum(axis=1)  # orders of the evening
        # every item asked is charged goodwill and every item held earns its salvage; a sale
        # earns the price, takes the goodwill back and forgoes the salvage
        basket = gain = 0.0  # basket: the price of a zone's baskets as filled
        for c in range(C):
            held = self.crate * self.spread.reshape((Z,) + (1,) * k) * x[..., 2 * Z + 1 + c]
            sold = np.minimum((self.a[c] * W[2 * n + c]) * wanted, held)
            basket = basket + self.price[c] * sold
            gain = gain + (self.price[c] + self.goodwill - self.salvage[c]) * sold
        asked = (self.a.reshape((C,) + (1,) * k) * W[2 * n:2 * n + C]).sum(axis=0)
        total = total - gain.sum(axis=0) + self.goodwill * asked * wanted.sum(axis=0)
        refund = basket / wanted + self.voucher
        # every order is delivered, cancelled after a block or cancelled at the end: the
        # deliveries (and the fees) follow from the orders left waiting, summed over the blocks
        queue = waited = moves = hires = 0.0
        for t in range(T):
            offered = queue + W[t:n:T]  # (4, ..., n)
            capacity = (K + W[n + t:2 * n:T]) * rate
            own = np.minimum(offered, capacity)
            waiting = offered - own
            U = waiting.sum(axis=0)
            moved = np.minimum(self.reach * (capacity - own).sum(axis=0), U)
            hired = np.minimum(P, U - moved)
            left = waiting * ((U - moved - hired) / np.maximum(U, 1e-12))
            queue = (1.0 - self.theta) * left
            waited, moves, hires = waited + left, moves + moved, hires + hired
        delivered = wanted - self.theta * waited - queue
        penalty = self.theta * refund + (1.0 - self.theta) * self.late
        total = (total - (f * delivered).sum(axis=0) + self.trip * (delivered.sum(axis=0) - hires)
                 + self.cross * moves + self.charge * hires + (penalty * waited).sum(axis=0))
        return total + (refund * queue).sum(axis=0)
