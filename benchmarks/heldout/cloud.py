"""A held-out problem: a cloud provider's day of six four-hour blocks in three regions, ten
decisions, seven of them open above. Kept out of every choice of the default; its optimum is
found without acfs (``find_optima.py`` beside it, ``optima.json``).

Decisions x = (the prices p1, p2, p3 of the premium, standard and batch tiers (a unit of
capacity for a block), the servers S1..S3 of the Americas, Europe and Asia, a backbone link L,
a burst contract C with another provider, a preemptible spot pool V (all three units a block)
and the batch queue's capacity Q). The mean demand of tier j is

    base_j * exp(-el_j (p_j / ref_j - 1)),   s(d) = 0.3 / (1 + exp(-d / 0.25)),

and a share s(p1 / ref1 - p2 / ref2) of the premium demand takes the standard tier, a share
s(p2 / ref2 - p3 / ref3) of the standard demand the batch queue (80 % of it): the prices move
the demand and shift it between the tiers. Premium and standard demand follow the region's
day over the UTC blocks (the regions peak apart), a day's lognormal level (sd 0.15), their own
noise (sd 0.2) and a heavy-tailed burst of traffic ``exp(0.9 w_r (z - 1.28)_+)`` (one day in
ten, without bound, weighted towards the Americas); batch jobs come mostly in the working hours
of the Americas and Europe (noise sd 0.3). Each region serves its premium, then its standard
demand; the link moves up to L of what is left (premium first) to idle servers elsewhere, the
contract serves up to C of the rest; premium demand still unserved is an SLA breach whose
credit ``sla (1 + 0.5 (z - 1.28)_+)`` the burst lifts, standard demand unserved is lost at a
goodwill cost. The batch backlog and the new jobs run on the idle servers and the spot pool,
whose availability (lognormal, mean about 0.8, at most 1) the burst cuts by ``1 + 0.6 (z -
1.28)_+``; up to Q of the rest waits for the next block, the others are rejected, and the
backlog left at midnight misses its deadline. Costs: the servers, link, contract, pool and
queue a block, the energy of the work run on the servers, each unit migrated, the contract's
charge a unit used, SLA credits, goodwill, a rejected or late batch unit, the backlog's
holding; the provider earns its tier's price on every unit served.

Offered as ``transform(x, z)`` (fifty normals a row; a scenario is the eighteen premium and
eighteen standard demands, region by region, the six batch arrivals, the six availabilities,
the day's level and the burst's excess ``(z - 1.28)_+``), its cost vectorised over decisions:
common random numbers are exact. lam 0.7, alpha 0.95.
"""

import numpy as np
from arrays import columns

R, T = 3, 6


class Cloud:
    name = "cloud"
    dim_x, dim_w = 10, 2 * R * T + 2 * T + 2
    vectorized = True
    lam, alpha = 0.7, 0.95
    ref = np.array([12.0, 8.0, 3.0])  # premium, standard, batch ($ a unit a block)
    #: p1..p3, S1..S3, L, C, V, Q
    bounds = [(0.5 * v, 2.0 * v) for v in ref] + [(0.0, np.inf)] * 7
    x0 = np.array([12.0, 8.0, 3.0, 100.0, 100.0, 100.0, 20.0, 20.0, 40.0, 80.0])

    el = np.array([1.5, 2.5, 3.0])
    base1 = np.array([30.0, 25.0, 20.0])  # premium, standard units a block, by region
    base2 = np.array([80.0, 70.0, 50.0])
    base3 = 200.0  # batch units a block
    #: day[r, t]: the regions' days over the UTC blocks 0-4, ..., 20-24 h
    day = np.array([[1.1, 0.6, 0.5, 0.9, 1.4, 1.5],
                    [0.5, 0.9, 1.4, 1.4, 1.0, 0.7],
                    [1.4, 1.4, 0.9, 0.5, 0.6, 1.0]])
    submit = np.array([0.6, 0.8, 1.3, 1.5, 1.2, 0.6])  # the batch jobs' day
    weight = np.array([1.0, 0.8, 0.7])  # of the burst
    server_cost = np.array([3.0, 3.3, 2.7])  # a server a block
    link_fee, contract_fee, spot_fee, queue_fee = 0.8, 1.0, 1.2, 0.2  # a unit a block
    energy, migrate, charge = 0.8, 1.0, 11.0  # a unit run, moved, served by the contract
    sla, goodwill, reject, late, hold = 30.0, 6.0, 8.0, 3.0, 0.2

    def demand_mean(self, x):
        """Mean premium and standard demand of each region and the batch arrivals of a block,
        before the day's pattern and the noise, (..., 7)."""
        x = np.asarray(x, dtype=float)
        rel = x[..., 0:3] / self.ref
        f = np.exp(-self.el * (rel - 1.0))
        s = 0.3 / (1.0 + np.exp(-(rel[..., 0:2] - rel[..., 1:3]) / 0.25))  # s12, s23
        prem, std = self.base1 * f[..., 0:1], self.base2 * f[..., 1:2]  # before the shifts
        return np.concatenate([prem * (1.0 - s[..., 0:1]), std * (1.0 - s[..., 1:2])
                               + prem * s[..., 0:1], self.base3 * f[..., 2:3]
                               + 0.8 * std.sum(axis=-1, keepdims=True) * s[..., 1:2]], axis=-1)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k, n = max(x.ndim, z.ndim - 1), R * T  # k: the axes after a column's
        z = columns(z, k)
        level = np.exp(0.15 * z[2 * n + 2 * T] - 0.5 * 0.15**2)
        kick = np.maximum(z[2 * n + 2 * T + 1] - 1.28, 0.0)
        burst = np.exp(0.9 * self.weight.reshape((R,) + (1,) * k) * kick)
        pattern = self.day.reshape((n,) + (1,) * k) * np.repeat(burst, T, axis=0) * level
        mean = columns(self.demand_mean(x)[..., None, :], k)  # (7, ..., 1)
        demand = (np.repeat(mean[:6], T, axis=0) * np.concatenate([pattern, pattern])
                  * np.exp(0.2 * z[:2 * n] - 0.02))
        batch = (mean[6] * self.submit.reshape((T,) + (1,) * k)
                 * np.exp(0.3 * z[2 * n:2 * n + T] - 0.045))
        avail = np.minimum(0.85 * np.exp(0.2 * z[2 * n + T:2 * n + 2 * T] - 0.02), 1.0) / (
            1.0 + 0.6 * kick)
        rest = np.concatenate([avail, level[None], kick[None]])
        rest = np.broadcast_to(rest, rest.shape[:1] + demand.shape[1:])
        return np.moveaxis(np.concatenate([demand, batch, rest]), 0, -1)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k, n = max(x.ndim - 1, W.ndim - 1), R * T
        W = columns(W, k)
        kick = W[2 * n + 2 * T + 1]
        p1, p2, p3, L, C, V, Q = (x[..., i] for i in (0, 1, 2, 6, 7, 8, 9))
        S = columns(x[..., 3:6], k)  # (3, ..., 1)
        shape = np.broadcast_shapes(kick.shape, p1.shape)
        credit = self.sla * (1.0 + 0.5 * kick)
        total = T * ((self.server_cost * x[..., 3:6]).sum(axis=-1) + self.link_fee * L
                     + self.contract_fee * C + self.spot_fee * V + self.queue_fee * Q
                     ) + np.zeros(shape)
        queue = np.zeros(shape)
        for t in range(T):
            d1, d2 = W[t:n:T], W[n + t:2 * n:T]  # (3, ..., n): the regions' demands
            s1 = np.minimum(d1, S)
            s2 = np.minimum(d2, S - s1)
            u1, u2 = (d1 - s1).sum(axis=0), (d2 - s2).sum(axis=0)
            idle = (S - s1 - s2).sum(axis=0)
            moved = np.minimum(np.minimum(L, u1 + u2), idle)
            m1 = np.minimum(moved, u1)
            u1, u2, idle = u1 - m1, u2 - (moved - m1), idle - moved
            hired = np.minimum(C, u1 + u2)
            c1 = np.minimum(hired, u1)
            u1, u2 = u1 - c1, u2 - (hired - c1)
            offered = queue + W[2 * n + t]
            ran = np.minimum(offered, idle + V * W[2 * n + T + t])
            left = offered - ran
            queue = np.minimum(left, Q)
            served1, served2 = s1.sum(axis=0), s2.sum(axis=0)
            own = served1 + served2 + moved + np.minimum(ran, idle)
            total = (total - p1 * (served1 + m1 + c1) - p2 * (served2 + moved - m1 + hired - c1)
                     - p3 * ran + self.energy * own + self.migrate * moved + self.charge * hired
                     + credit * u1 + self.goodwill * u2 + self.reject * (left - queue)
                     + self.hold * queue)
        return total + self.late * queue
