"""A held-out problem: a regional blood bank's fortnight of platelets for three hospitals,
eleven decisions, ten of them open above. Kept out of every choice of the default; its optimum
is found without acfs (``find_optima.py`` beside it, ``optima.json``).

Decisions x = (the fee f charged to the hospitals for a unit, a donor-recruitment campaign's
spend g in $k, collection capacities c1..c7 for each day of the week from Monday (units a day,
the same in both weeks), a safety stock q, a capacity r reserved every day with a neighbouring
region for emergency transfers). Donors come on day t at

    donors_t * (1 + 0.6 (1 - exp(-g / 25))) * season * exp(-0.6 epidemic ramp_t) * own_t

(a fortnight's lognormal season sd 0.15, a day's own noise sd 0.2, and an epidemic
``(z - 1.28)_+``, one fortnight in ten, that keeps more and more donors away, ``ramp_t`` from
0.2 to 1.2): the campaign moves the supply. Hospital h orders on day t

    base_h * exp(-el_h (f / 800 - 1)) * dow_t * level * crash^(weight_h prof_t) * own_ht

(a fortnight's level sd 0.1, own noise sd 0.25, and a heavy-tailed mass casualty ``crash =
exp(0.9 (z - 1.28)_+)``, one fortnight in ten, without bound, that strikes on the fourth day
and fades, ``prof_t = 0.75^(t - 3)`` from then, felt most by the trauma centre): the fee moves
the demand. Up to c of a day's donors give; their units are tested overnight and join the
stock the next morning with four days of life left. Each morning the bank imports what it
lacks to hold the day's expected orders at the fee, the postponed surgeries and q more;
imports come with three days left. Orders and postponed surgeries are served oldest unit
first; the shortfall is met by transfers up to r, the rest (shared by the hospitals' needs)
flown in if urgent (a share ``urgent_h``) or postponed a day, a fifth of those cancelled.
Units on their last day expire. Costs: the capacities, the campaign, the reservation, each
unit collected, imported, transferred or flown in, a donor turned away, a unit expired, held
or postponed a day, a cancelled surgery and one still postponed at the end; the bank earns f
on every unit delivered and a salvage value on the stock left at the end.

Offered as ``transform(x, z)`` (sixty normals a row; a scenario is the fourteen days' donors,
the 42 orders hospital by hospital, the season, the level, and the epidemic's and the event's
excess ``(z - 1.28)_+``), its cost vectorised over decisions: common random numbers are exact.
lam 0.8, alpha 0.95.
"""

import numpy as np

T, H, L = 14, 3, 4  # days, hospitals, days of life a collected unit has in stock
DAY = np.arange(T) % 7


class BloodBank:
    name = "bloodbank"
    dim_x, dim_w = 11, T + H * T + 4
    vectorized = True
    lam, alpha = 0.8, 0.95
    #: f, g, c1..c7, q, r
    bounds = [(300.0, 2000.0)] + [(0.0, np.inf)] * 10
    x0 = np.array([650.0, 10.0] + [50.0] * 7 + [10.0, 10.0])

    donors = np.array([45.0, 45.0, 45.0, 45.0, 45.0, 30.0, 20.0])[DAY]  # a day, g = 0
    ramp = np.linspace(0.2, 1.2, T)
    base = np.array([28.0, 22.0, 12.0])  # trauma centre, general, children's; a fee of 800
    ref, el = 800.0, np.array([2.0, 3.0, 2.5])
    dow = np.array([1.05, 1.05, 1.0, 1.0, 1.0, 0.7, 0.6])[DAY]
    weight = np.array([1.0, 0.4, 0.25])  # the event's weight on each hospital
    prof = np.where(np.arange(T) >= 3, 0.75 ** (np.arange(T) - 3.0), 0.0)  # the event's profile
    felt = np.repeat(weight, T) * np.tile(prof, H)  # its exponent on each order
    urgent = np.array([0.7, 0.4, 0.5])  # share of a hospital's shortfall flown in
    start = np.array([10.0, 12.0, 12.0, 12.0])  # stock with 1..4 days left on the first day
    chair, campaign = 25.0, 1000.0  # a unit of capacity a day; a $k of the campaign
    reserve, collect, turned_away = 25.0, 150.0, 10.0  # a unit reserved a day; a unit; a donor
    imported, transferred, flown = 600.0, 700.0, 1800.0  # a unit
    waste, holding, wait = 120.0, 6.0, 250.0  # a unit expired, held, postponed a day
    cancel, cancel_cost, end_cost, salvage = 0.2, 2000.0, 1500.0, 100.0

    def order_mean(self, x):
        """Mean orders of each hospital on a day of dow 1 before the noise, (..., 3)."""
        x = np.asarray(x, dtype=float)
        return self.base * np.exp(-self.el * (x[..., 0:1] / self.ref - 1.0))

    def donor_lift(self, x):
        """The campaign's factor on the donors, (...)."""
        x = np.asarray(x, dtype=float)
        return 1.0 + 0.6 * (1.0 - np.exp(-x[..., 1] / 25.0))

    def transform(self, x, z):
        z = np.asarray(z, dtype=float)
        season = 0.15 * z[..., -4:-3] - 0.5 * 0.15**2  # logs, then the factors
        level = 0.1 * z[..., -3:-2] - 0.5 * 0.1**2
        epidemic = np.maximum(z[..., -2:-1] - 1.28, 0.0)
        event = np.maximum(z[..., -1:] - 1.28, 0.0)
        lift = np.asarray(self.donor_lift(x))[..., None, None]
        donors = self.donors * lift * np.exp(season - 0.6 * epidemic * self.ramp
                                             + 0.2 * z[..., :T] - 0.5 * 0.2**2)
        mean = np.repeat(self.order_mean(x), T, axis=-1) * np.tile(self.dow, H)
        orders = mean[..., None, :] * np.exp(level + 0.9 * event * self.felt
                                             + 0.25 * z[..., T:T + H * T] - 0.5 * 0.25**2)
        season, level = np.exp(season), np.exp(level)
        shape = np.broadcast_shapes(donors.shape[:-1], orders.shape[:-1])
        ones = shape + (1,)
        return np.concatenate([np.broadcast_to(donors, shape + (T,)),
                               np.broadcast_to(orders, shape + (H * T,)),
                               *(np.broadcast_to(v, ones) for v in (season, level, epidemic,
                                                                     event))], axis=-1)

    def cost(self, W, x):
        x = np.asarray(x, dtype=float)[..., None, :]
        W = np.asarray(W, dtype=float)
        donors, orders = W[..., :T], W[..., T:T + H * T]
        f, g, c, q, r = x[..., 0], x[..., 1], x[..., 2:9], x[..., 9], x[..., 10]
        collected = np.minimum(donors, c[..., DAY])
        shape = np.broadcast_shapes(donors.shape[:-1], f.shape)
        total = (2.0 * self.chair * c.sum(axis=-1) + self.campaign * g + T * self.reserve * r
                 + self.collect * collected.sum(axis=-1)
                 + self.turned_away * (donors - collected).sum(axis=-1) + np.zeros(shape))
        stock = [v + np.zeros(shape) for v in self.start]  # units with 1..L days left
        backlog = [np.zeros(shape) for _ in range(H)]
        forecast = self.order_mean(x).sum(axis=-1)  # the orders expected on a day of dow 1
        for t in range(T):
            if t > 0:
                stock[L - 1] = stock[L - 1] + collected[..., t - 1]
            bought = np.maximum(q + self.dow[t] * forecast + sum(backlog) - sum(stock), 0.0)
            stock[L - 2] = stock[L - 2] + bought
            need = [orders[..., h * T + t] + backlog[h] for h in range(H)]
            total_need = sum(need)
            left = total_need
            for a in range(L):  # oldest first
                used = np.minimum(stock[a], left)
                stock[a] = stock[a] - used
                left = left - used
            moved = np.minimum(left, r)
            share = np.where(total_need > 0.0, (left - moved)
                             / np.where(total_need > 0.0, total_need, 1.0), 0.0)
            air = sum(self.urgent[h] * share * need[h] for h in range(H))
            postponed = [(1.0 - self.urgent[h]) * share * need[h] for h in range(H)]
            backlog = [(1.0 - self.cancel) * v for v in postponed]
            expired = stock[0]
            stock = stock[1:] + [np.zeros(shape)]
            total = (total + self.imported * bought + self.transferred * moved + self.flown * air
                     - f * (total_need - left + moved + air) + self.waste * expired
                     + self.holding * sum(stock) + self.cancel_cost * self.cancel * sum(postponed)
                     + self.wait * sum(backlog))
        stock[L - 1] = stock[L - 1] + collected[..., T - 1]
        return total + self.end_cost * sum(backlog) - self.salvage * sum(stock)
