"""A held-out problem: a city emergency medical service's day of six four-hour blocks in three
districts, fifteen decisions, fourteen of them open above. Kept out of every choice of the
default; its optimum is found without acfs (``find_optima.py`` beside it, ``optima.json``).
Calls are a fluid (calls a block), time in hours, money in $k; the fee is in $ a trip, so a
trip earns f / 1000 $k.

Decisions x = (the fee f for a non-emergency patient transport, ambulances a1..a6 crewed in
each block from midnight, rapid-response cars r1..r3 posted in each district (the centre, the
inner suburbs, the outer suburbs) for the day, handover staff h1..h3 at each district's
hospital for the day, standby crews S on call for every block, a capacity M of a mutual-aid
contract reserved with the neighbouring service for every block (jobs a block)). District j
receives in block t

    ubase_j * uprof_t * level * exp(heat_j * ramp_t * kick) * own_jt

urgent calls and

    nbase_j * nprof_t * exp(-2.5 (f / 250 - 1)) * level * own'_jt

non-urgent ones (a day's lognormal level sd 0.12, a district-block's own noises sd 0.2): the
fee moves the non-urgent volume. A heavy-tailed heatwave, ``kick = (z - 1.28)_+`` (one day in
ten, without bound), raises the urgent calls, more later in the day (``ramp_t`` from 0.4 to
1.4) and most in the outer suburbs (``heat``), and lengthens every job. A job takes ``scene =
1.1 (1 + 0.2 kick)`` hours (the drive, the scene and the drive to hospital) and then the
handover at the district's hospital,

    offload_j = off_j * hosp_j * (1 + 0.6 kick) * (0.35 + 0.65 exp(-h_j / 2))

hours (``off`` the usual handover, ``hosp_j`` a day's lognormal factor of the hospital's
crowding, sd 0.3; the handover staff take over up to 65 % of the wait). The ambulances of a
block are posted to the districts in the shares ``share``. A share ``spill`` of each handover
runs into the next block, the ambulance held at the hospital (a stock that carries over; none
is held at midnight): district j's ambulances do ``max(4 share_j a_t - held_j, 0) / (scene +
(1 - spill) offload_j)`` jobs in block t, and each of their jobs holds ``spill offload_j``
hours of the next block. A rapid-response car reaches up to ``3.5 / (1 + 0.3 kick)`` of its
district's new urgent calls a block; a share ``see`` of those it reaches are treated on scene
and need no ambulance. Each district's ambulances take its urgent calls (waiting and new, less
those treated on scene), then its non-urgent ones (waiting and new). What they leave is pooled
over the city: the standby crews, called in as needed, do up to ``4 S / (scene + sum_j share_j
offload_j)`` jobs, urgent first, then non-urgent; the mutual-aid contract takes up to M more
urgent calls; both take the districts' waiting calls in proportion. Urgent calls still waiting
wait for the next block (a queue that carries over); of the non-urgent calls still waiting a
share ``theta`` is cancelled (the patient finds other transport), the rest wait for the next
block. The day starts with ``start_u`` urgent and ``start_n`` non-urgent calls waiting in the
districts. Costs: the ambulance crews of each block, the cars', the handover staff's, the
standby crews' retainer and the contract's reservation for each block, a running cost for
each job of the districts' ambulances, a call-out charge for each job of the standby crews,
the contract's charge and a late-response penalty for each urgent call it takes, a penalty
for each urgent call and a smaller one for each non-urgent call left waiting after a block,
goodwill for each non-urgent call cancelled, and penalties for the calls still waiting at the
end of the day; the service earns the fee f on every non-urgent transport made.

Offered as ``transform(x, z)`` (forty-one normals a row; a scenario is the eighteen urgent and
the eighteen non-urgent call volumes, district by district, the three hospitals' crowding
factors, the day's level and the heatwave's excess ``(z - 1.28)_+``), its cost vectorised over
decisions: common random numbers are exact. lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, scenario

D, T = 3, 6  # districts, four-hour blocks (0-4 h, ..., 20-24 h)


class Ems:
    name = "ems"
    dim_x, dim_w = 1 + T + 2 * D + 2, 2 * D * T + D + 2
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref, el = 250.0, 2.5  # the fee the non-urgent volumes are quoted at ($ a trip); elasticity
    #: f, a1..a6, r1..r3, h1..h3, S, M
    bounds = [(0.5 * ref, 2.0 * ref)] + [(0.0, np.inf)] * (T + 2 * D + 2)
    x0 = np.array([225.0] + [25.0] * T + [3.0] * D + [1.5] * D + [5.0, 15.0])

    ubase = np.array([18.0, 12.0, 8.0])  # urgent calls a block of profile 1
    nbase = np.array([20.0, 16.0, 12.0])  # non-urgent calls a block of profile 1 at the ref fee
    uprof = np.array([0.7, 0.55, 1.0, 1.15, 1.2, 1.0])
    nprof = np.array([0.3, 0.4, 1.5, 1.6, 1.2, 0.6])
    heat = np.array([0.4, 0.45, 0.55])  # the heatwave's weight on the districts' urgent calls
    ramp = np.linspace(0.4, 1.4, T)
    share = np.array([0.45, 0.33, 0.22])  # the ambulances posted to the districts
    off = np.array([0.8, 0.6, 0.5])  # hours of a usual handover at the districts' hospitals
    scene, slow, crowd = 1.1, 0.2, 0.6  # hours of a job before the handover; the heat's tolls
    spill, car_jobs, see, theta = 0.3, 3.5, 0.35, 0.25
    start_u = np.array([2.0, 1.0, 1.0])
    start_n = np.array([4.0, 3.0, 2.0])
    crew_cost, car_cost, staff_cost = 0.6, 0.25, 0.25  # an ambulance, a car, a nurse a block
    retainer, reserve = 0.2, 0.05  # a standby crew a block; a unit of the contract a block
    run, callout, aid, late = 0.04, 0.45, 0.5, 0.3  # a job: own, standby, mutual aid (+ late)
    wait_u, wait_n, goodwill = 1.5, 0.1, 0.2  # a call waiting a block; a cancelled transport
    end_u, end_n = 2.0, 0.2  # a call still waiting at the end of the day

    def nonurgent_mean(self, x):
        """Mean non-urgent calls of each district and block before the level and the noise,
        district by district, (..., 18)."""
        x = np.asarray(x, dtype=float)
        lines = np.outer(self.nbase, self.nprof).ravel()
        return lines * np.exp(-self.el * (x[..., 0:1] / self.ref - 1.0))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k, n = max(x.ndim, z.ndim - 1), D * T  # k: the axes after a column's
        z = columns(z, k)
        pad = (1,) * k
        level = np.exp(0.12 * z[2 * n + D] - 0.5 * 0.12**2)
        kick = np.maximum(z[2 * n + D + 1] - 1.28, 0.0)
        umean = np.outer(self.ubase, self.uprof).reshape((n,) + pad)
        felt = np.outer(self.heat, self.ramp).reshape((n,) + pad)
        urgent = umean * level * np.exp(felt * kick + 0.2 * z[:n] - 0.02)
        mean = columns(self.nonurgent_mean(x)[..., None, :], k)
        nonurgent = mean * level * np.exp(0.2 * z[n:2 * n] - 0.02)
        hosp = np.exp(0.3 * z[2 * n:2 * n + D] - 0.045)
        parts = [urgent, nonurgent, hosp, level[None], kick[None]]
        return scenario(parts)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k, n = max(x.ndim - 1, W.ndim - 1), D * T
        W = columns(W, k)
        pad = (1,) * k
        kick = W[2 * n + D + 1]
        f, S, M = x[..., 0], x[..., 1 + T + 2 * D], x[..., 2 + T + 2 * D]
        r = columns(x[..., 1 + T:1 + T + D], k)  # (3, ..., 1)
        h = columns(x[..., 1 + T + D:1 + T + 2 * D], k)
        share = self.share.reshape((D,) + pad)
        shape = np.broadcast_shapes(kick.shape, f.shape)
        scene = self.scene * (1.0 + self.slow * kick)
        offload = (self.off.reshape((D,) + pad) * W[2 * n:2 * n + D] * (1.0 + self.crowd * kick)
                   * (0.35 + 0.65 * np.exp(-h / 2.0)))  # (3, ..., n)
        inblock = scene + (1.0 - self.spill) * offload
        standby = 4.0 * S / (scene + (share * offload).sum(axis=0))  # jobs a block
        cars = self.car_jobs * r / (1.0 + 0.3 * kick)
        total = (self.crew_cost * x[..., 1:1 + T].sum(axis=-1)
                 + T * (self.car_cost * x[..., 1 + T:1 + T + D].sum(axis=-1)
                        + self.staff_cost * x[..., 1 + T + D:1 + T + 2 * D].sum(axis=-1)
                        + self.retainer * S + self.reserve * M)) + np.zeros(shape)
        queue_u = self.start_u.reshape((D,) + pad) + np.zeros(shape)
        queue_n = self.start_n.reshape((D,) + pad) + np.zeros(shape)
        held = 0.0
        for t in range(T):
            new_u = W[t:n:T]  # (3, ..., n)
            urgent = queue_u + new_u - self.see * np.minimum(new_u, cars)
            nonurgent = queue_n + W[n + t:2 * n:T]
            jobs = np.maximum(4.0 * share * x[..., 1 + t] - held, 0.0) / inblock
            own_u = np.minimum(urgent, jobs)
            own_n = np.minimum(nonurgent, jobs - own_u)
            held = self.spill * offload * (own_u + own_n)
            rest_u, rest_n = urgent - own_u, nonurgent - own_n
            U, N = rest_u.sum(axis=0), rest_n.sum(axis=0)
            crew_u = np.minimum(standby, U)
            crew_n = np.minimum(standby - crew_u, N)
            aided = np.minimum(M, U - crew_u)
            queue_u = rest_u * ((U - crew_u - aided) / np.maximum(U, 1e-12))
            left_n = rest_n * ((N - crew_n) / np.maximum(N, 1e-12))
            queue_n = (1.0 - self.theta) * left_n
            total = (total + self.run * (own_u + own_n).sum(axis=0)
                     + self.callout * (crew_u + crew_n) + (self.aid + self.late) * aided
                     + self.wait_u * queue_u.sum(axis=0) + self.wait_n * queue_n.sum(axis=0)
                     + self.goodwill * self.theta * left_n.sum(axis=0)
                     - f / 1000.0 * (own_n.sum(axis=0) + crew_n))
        return total + self.end_u * queue_u.sum(axis=0) + self.end_n * queue_n.sum(axis=0)
