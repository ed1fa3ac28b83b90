"""A held-out problem: a call centre's day of eight periods, twelve decisions, eleven of them
open above. Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``).

Decisions x = (a service fee f per call handled, agents a1..a8 rostered in each period, a
callback team's capacity b a period, a capacity o reserved with an outsourcer for every
period, self-service (IVR) licences r). New calls arrive in period t at

    base_t * exp(-0.09 (f - 5)) * day * outage^(ramp_t) * own_t

(a fluid of calls: a day's lognormal level sd 0.25, a period's own noise sd 0.2, and a
heavy-tailed outage of a client's service ``exp(0.9 (z - 1.28)_+)``, one day in ten, without
bound, whose calls build through the day, ``ramp_t`` from 0.3 to 1.3): the fee moves the
volume. The outage also slows every call: an agent handles ``mu / (1 + 0.3 (z - 1.28)_+)``
calls a period. A share ``0.3 (1 - exp(-r / 6))`` of the calls of a period (retries included)
is settled by the self-service line. The rest join the queue carried over from the last
period; the agents answer what they can, the outsourcer up to o at a charge a call; of those
still waiting a share ``theta`` hangs up: four in ten of them leave a callback request (a
backlog that carries over, worked at up to b a period), the others are lost, and half of the
lost call again in the next period - so the calls offered depend on the staffing through two
queues. Costs: the agents' wages, the callback team's and the outsourcer's reservation, the
licences, the outsourcer's charge and the callback's cost a call, a waiting cost a queued call
a period, a backlog cost a request a period, goodwill a lost call (whether or not it calls
again), overtime for the queue left at the end of the day and a penalty for each request never
called back; the centre earns ``margin + f`` on a call answered, outsourced or called back,
and ``self_margin + f`` on a call settled by the self-service line.

Offered as ``transform(x, z)`` (ten normals a row; a scenario is the eight periods' new calls,
the day's level and the outage's excess ``(z - 1.28)_+``), its cost vectorised over
decisions: common random numbers are exact. lam 0.8, alpha 0.95.
"""

import numpy as np

T = 8


class CallCentre:
    name = "callcentre"
    dim_x, dim_w = T + 4, T + 2
    vectorized = True
    lam, alpha = 0.8, 0.95
    #: f, a1..a8, b, o, r
    bounds = [(0.0, 25.0)] + [(0.0, np.inf)] * (T + 3)
    x0 = np.array([5.0] + [30.0] * T + [10.0, 25.0, 8.0])

    base = np.array([260.0, 380.0, 420.0, 360.0, 330.0, 400.0, 340.0, 220.0])  # at a fee of 5
    ramp = np.linspace(0.3, 1.3, T)
    mu, theta, request, retry = 14.0, 0.45, 0.4, 0.5
    wage, margin, self_margin = 55.0, 6.0, 3.0  # an agent a period; earned a call
    callback_fee, callback_cost = 5.0, 2.0  # a unit of the team a period; a call
    outsource_fee, outsource_charge = 3.5, 9.0  # a unit reserved a period; a call
    licence = 40.0  # a self-service licence for the day
    wait_cost, backlog_cost, lost_cost = 3.0, 1.5, 14.0  # a period; a period; a call
    overtime_cost, unanswered_cost = 9.0, 20.0  # a call left queued; a request left at the end

    def call_mean(self, x):
        """Mean new calls of each period before the noise, (..., 8)."""
        x = np.asarray(x, dtype=float)
        return self.base * np.exp(-0.09 * (x[..., 0:1] - 5.0))

    def transform(self, x, z):
        z = np.asarray(z, dtype=float)
        day = np.exp(0.25 * z[..., T:T + 1] - 0.5 * 0.25**2)
        kick = np.maximum(z[..., T + 1:T + 2] - 1.28, 0.0)
        calls = (self.call_mean(x)[..., None, :] * day * np.exp(0.9 * kick * self.ramp)
                 * np.exp(0.2 * z[..., :T] - 0.5 * 0.2**2))
        shape = calls.shape
        ones = shape[:-1] + (1,)
        return np.concatenate([calls, np.broadcast_to(day, ones), np.broadcast_to(kick, ones)],
                              axis=-1)

    def cost(self, W, x):
        x = np.asarray(x, dtype=float)[..., None, :]
        W = np.asarray(W, dtype=float)
        calls, kick = W[..., :T], W[..., T + 1]
        f, a, b, o, r = x[..., 0], x[..., 1:1 + T], x[..., 1 + T], x[..., 2 + T], x[..., 3 + T]
        rate = self.mu / (1.0 + 0.3 * kick)
        settle = 0.3 * (1.0 - np.exp(-r / 6.0))
        shape = np.broadcast_shapes(kick.shape, f.shape)
        queue = np.zeros(shape)
        backlog = np.zeros(shape)
        again = np.zeros(shape)
        total = (self.wage * a.sum(axis=-1) + T * (self.callback_fee * b + self.outsource_fee * o)
                 + self.licence * r) + np.zeros(shape)
        for t in range(T):
            arriving = calls[..., t] + again
            settled = settle * arriving
            offered = queue + arriving - settled
            answered = np.minimum(offered, rate * a[..., t])
            rest = offered - answered
            outsourced = np.minimum(rest, o)
            rest = rest - outsourced
            hung_up = self.theta * rest
            queue = rest - hung_up
            backlog = backlog + self.request * hung_up
            called = np.minimum(backlog, b)
            backlog = backlog - called
            lost = (1.0 - self.request) * hung_up
            again = self.retry * lost
            total = (total - (self.margin + f) * (answered + outsourced + called)
                     - (self.self_margin + f) * settled
                     + self.outsource_charge * outsourced + self.callback_cost * called
                     + self.wait_cost * queue + self.backlog_cost * backlog
                     + self.lost_cost * lost)
        return total + self.overtime_cost * queue + self.unanswered_cost * backlog
