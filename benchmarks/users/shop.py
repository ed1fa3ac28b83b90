"""A user's simulator, as a new user would bring one: a shop, five decisions, a black box.

Decisions x = (price markup p, stock of three products s1, s2, s3, staff k). Footfall is
Poisson with a mean that falls with the price and rises with the staff (service draws
customers), times a day effect (lognormal, sd 0.35); the staff serve at most
``capacity * k`` customers, the others leave; the served customers ask for a Poisson number
of units of each product, their mean basket falling with the price. A unit of product i
sells at ``p * weight_i``, costs ``unit_cost_i`` to stock, is salvaged at ``salvage_i`` when
left, and a unit short costs ``goodwill_i``; each staff member costs ``wage``. The third
stock and the staff have no upper bound; x0 is how the shop runs today.

It offers ``sample(x, n, rng)`` only (no ``transform``): acfs sees a black box, written as a
user would write it, drawing its Poisson counts from the generator it is given - so how many
random numbers it uses depends on the decision, and common random numbers drift apart after
the day effects (DESIGN.md section 3).

Used by ``benchmarks/bench_quality.py`` as a user's problem (lam 0.7, alpha 0.95); its
reference optimum is ``acfs reference benchmarks/users/shop.yaml -o
benchmarks/users/reference`` (that folder's README says how far it can be trusted).
"""

import numpy as np


class Shop:
    name = "shop"
    dim_x, dim_w = 5, 4
    #: price markup, three stocks (the third unbounded), staff (unbounded)
    bounds = [(5.0, 40.0), (0.0, 400.0), (0.0, 300.0), (0.0, np.inf), (0.5, np.inf)]
    x0 = np.array([12.0, 150.0, 100.0, 60.0, 6.0])  # how the shop runs today

    weight = np.array([1.0, 1.6, 2.5])
    unit_cost = np.array([5.0, 9.0, 14.0])
    salvage = np.array([2.0, 3.0, 4.0])
    goodwill = np.array([1.0, 2.0, 3.0])
    basket = np.array([0.8, 0.5, 0.3])

    def __init__(self, wage: float = 60.0, capacity: float = 45.0, day_sd: float = 0.35):
        self.wage, self.capacity, self.day_sd = float(wage), float(capacity), float(day_sd)

    def footfall(self, x) -> float:
        p, k = x[0], x[4]
        return 400.0 * np.exp(-0.08 * (p - 10.0)) * (1.0 - np.exp(-0.35 * k))

    def sample(self, x, n, rng):
        day = np.exp(self.day_sd * rng.standard_normal(n) - 0.5 * self.day_sd**2)
        p, k = x[0], x[4]
        F = rng.poisson(self.footfall(x) * day).astype(float)
        served = np.minimum(F, self.capacity * k)
        size = self.basket * np.exp(-0.03 * (p - 10.0))
        D = rng.poisson(served[:, None] * size[None, :]).astype(float)
        return np.column_stack([F, D])

    def cost(self, W, x):
        p, s, k = x[0], x[1:4], x[4]
        D = W[:, 1:]
        sold = np.minimum(D, s)
        revenue = (p * self.weight * sold).sum(axis=1)
        left = (self.salvage * np.maximum(s - D, 0.0)).sum(axis=1)
        short = (self.goodwill * np.maximum(D - s, 0.0)).sum(axis=1)
        return self.unit_cost @ s + self.wage * k - revenue - left + short
