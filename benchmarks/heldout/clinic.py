"""A held-out problem: a walk-in clinic's day of fourteen periods, sixteen decisions, fifteen of
them open above. Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``).

Decisions x = (staff k1..k14 in each period, a visit fee f, overflow capacity o reserved with a
partner for every period). New patients arrive at ``rate_t * exp(-0.06 f) * day * surge *
noise_t`` (a fluid of patients: day effect lognormal sd 0.3, a period's own noise sd 0.2, a
heavy-tailed surge ``exp(0.8 (z - 1)_+)``): the fee lowers the demand. Each period the staff
serve ``mu`` patients each, then the overflow serves up to ``o`` at a charge per patient; of
those still waiting a share ``theta`` walks out, and half of those who walked out come back
in the next period - so the arrivals depend on the staffing through the queue. Costs: wages,
the overflow's reservation and charge, a waiting cost per patient per period, a penalty per
walk-out, overtime for the queue left at the end of the day; the clinic earns ``margin + f``
per patient served.

Offered as ``transform(x, z)`` (sixteen normals a row; a scenario is the fourteen periods'
arrivals, walk-backs included, the day effect and the surge), its cost vectorised over
decisions: common random numbers are exact. lam 1.0, alpha 0.9.
"""

import numpy as np

T = 14


class Clinic:
    name = "clinic"
    dim_x, dim_w = T + 2, T + 2
    vectorized = True
    lam, alpha = 1.0, 0.9
    #: k1..k14, f, o
    bounds = [(0.0, np.inf)] * T + [(0.0, 40.0), (0.0, np.inf)]
    x0 = np.array([6.0] * T + [5.0, 10.0])

    rate = 2.0 * (38.0 + 26.0 * np.exp(-0.5 * ((np.arange(T) - 3.0) / 1.8) ** 2) \
        + 30.0 * np.exp(-0.5 * ((np.arange(T) - 10.0) / 2.0) ** 2))
    mu, theta, comeback = 8.0, 0.3, 0.5
    wage, margin = 30.0, 6.0
    overflow_fee, overflow_charge = 3.0, 8.0
    wait_cost, walkout_cost, overtime_cost = 2.5, 12.0, 9.0

    def _queue(self, x, arrivals_new=None, arrivals=None):
        """Run the day: from new arrivals (walk-backs added here) or from all arrivals.

        Returns (all arrivals, served, overflow served, waiting after each period, walk-outs).
        """
        x = np.asarray(x, dtype=float)
        k, o = x[..., :T], x[..., T + 1]
        given = arrivals if arrivals is not None else arrivals_new
        shape = np.broadcast_shapes(given.shape[:-1], o.shape)
        q = np.zeros(shape)
        back = np.zeros(shape)
        a_all = np.empty(shape + (T,))
        served = np.zeros(shape)
        by_overflow = np.zeros(shape)
        waiting = np.zeros(shape)
        walked = np.zeros(shape)
        for t in range(T):
            a = arrivals[..., t] if arrivals is not None else arrivals_new[..., t] + back
            a_all[..., t] = a
            present = q + a
            s_staff = np.minimum(present, self.mu * k[..., t])
            s_over = np.minimum(present - s_staff, o)
            rest = present - s_staff - s_over
            out = self.theta * rest
            q = rest - out
            back = self.comeback * out
            served = served + s_staff + s_over
            by_overflow = by_overflow + s_over
            waiting = waiting + q
            walked = walked + out
        return a_all, served, by_overflow, waiting, walked, q

    def transform(self, x, z):
        x = np.asarray(x, dtype=float)
        z = np.asarray(z, dtype=float)
        f = x[..., T:T + 1]
        day = np.exp(0.3 * z[..., T:T + 1] - 0.5 * 0.3**2)
        surge = np.exp(0.8 * np.maximum(z[..., T + 1:T + 2] - 1.0, 0.0))
        noise = np.exp(0.2 * z[..., :T] - 0.5 * 0.2**2)
        new = self.rate * np.exp(-0.06 * f)[..., None, :] * day * surge * noise
        a_all = self._queue(x[..., None, :], arrivals_new=new)[0]
        return np.concatenate([a_all, np.broadcast_to(day, a_all.shape[:-1] + (1,)),
                               np.broadcast_to(surge, a_all.shape[:-1] + (1,))], axis=-1)

    def cost(self, W, x):
        x = np.asarray(x, dtype=float)[..., None, :]
        W = np.asarray(W, dtype=float)
        _, served, by_overflow, waiting, walked, left = self._queue(x, arrivals=W[..., :T])
        k, f, o = x[..., :T], x[..., T], x[..., T + 1]
        fixed = self.wage * k.sum(axis=-1) + self.overflow_fee * T * o
        return (fixed + self.overflow_charge * by_overflow + self.wait_cost * waiting
                + self.walkout_cost * walked + self.overtime_cost * left
                - (self.margin + f) * served)
