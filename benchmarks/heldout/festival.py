"""A held-out problem: a music festival's long weekend of three days, each of four blocks
(afternoon, evening, night, late night), thirteen decisions, ten of them open above, written
after version 11 of the default and the flu-vaccine maker, the lender and the car-rental
company. Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``). Visitors are counted in thousands, incidents
one by one, money in $k, so a price of p $ a visitor is p $k a thousand visitors.

Decisions x = (the day-ticket price p_d and the weekend-pass price p_w ($), the camping-place
price p_c ($ a camper for the weekend), the security staff S_1, S_2, S_3 on each day, the
medical tents' staff M, the shuttle buses B from the town, the bar staff Q, the stage-weather
cover V ($k, roofing and sound-proofing bought ahead), the artist line-up budget A for day 3
($k), the marketing budget K before the festival ($k) and the cancellation insurance cover I
($k)). Marketing lifts every sale by ``lift(K) = 1 + 0.2 (1 - exp(-K / 200))``. Before the
festival it sells

    P = 20 exp(-1.0 (p_w / 220 - 1) + 0.15 (p_d / 90 - 1)) lift(K) * market * own_P

thousand weekend passes (a dear day ticket sends buyers to the pass), and for day t

    D_t = dbase_t exp(-1.2 (p_d / 90 - 1) + 0.15 (p_w / 220 - 1)) lift(K) art_t
          * market * exp(-0.3 ramp_t kick) * own_t

thousand day tickets would be sold with an unblemished name (dbase = 8, 12, 10; a dear pass
sends buyers to the day ticket; what either price loses beyond that goes to a rival festival;
``art_3 = 1 + 0.6 (1 - exp(-A / 150))``, art_1 = art_2 = 1: the line-up sells day 3 with
diminishing returns; ``market`` the season's lognormal demand (sd 0.1 on the log, mean 1),
own_P and own_t lognormal noise (sd 0.1 and 0.15, mean 1)). 40 % of the day tickets are bought
at the gate on the day: day t's day visitors are ``day_t = D_t (0.6 + 0.4 rep)``, ``rep`` the
festival's name (1 on day 1). A share ``camp = 0.45 exp(-1.2 (p_c / 40 - 1))`` of the pass
holders camp (``C = camp P`` campers, each paying p_c); the others and the day visitors come
from the town, ``town_t = day_t + P - C``: dearer camping sends more visitors to the shuttle.
Incidents come at ``inc_t = 0.6 exp(1.2 ramp_t kick) * own'_t`` a thousand visitors inside a
block (own' lognormal, sd 0.3, mean 1). A heavy-tailed storm, ``kick = (z - 1.64)_+`` (one
festival in twenty, without bound), weighted ``ramp = 0.6, 1.0, 0.8`` on days 1-3, cancels a
share ``c_t = 1 - exp(-0.7 ramp_t kick)`` of each day's blocks (refunds), keeps some day
visitors away (above), multiplies the incidents, slows the gates and the shuttles by ``1 + 0.6
ramp_t kick`` and damages the stages by ``3000 kick exp(-V / 150)``.

Each day t starts with empty queues and nobody inside. In block b the day's arrivals are a
share ``arr_b`` (0.5, 0.3, 0.15, 0.05) of the town's visitors and of the campers:

- the town's arrivals join the shuttle queue; the buses carry ``min(queue, 0.25 B / (1 + 0.6
  ramp_t kick))`` (250 visitors a bus a block); of those left 40 % drive in (they pay no
  parking: the fare is lost and the marshals cost 4 $ each) and 60 % wait for the next block
  (a queue that carries over);
- the carried, the drivers and the campers arriving join the gate queue; the security staff
  pass ``min(queue, 0.12 S_t / (1 + 0.6 ramp_t kick))`` (120 visitors a guard a block) inside;
  of those left 20 % give up and ask for a refund (p_d each) and 80 % queue on into the next
  block;
- the visitors inside (those passed so far that day) bring ``inc_t inside`` incidents; the
  medical staff treat M of them, the rest ``(inc_t inside - M)_+`` are sent to hospital (1.5 each);
- of the visitors inside a share 1 - c_t stay (the rest of the block cancelled); the bar sells
  ``spend_b open (1 + u^4)^(-1/4)`` (spend = 4, 5, 4, 2 $ a visitor, open = (1 - c_t) inside,
  the bar's load ``u = open / (0.3 Q)``, 300 visitors a bar worker): the spend a visitor falls
  as the bar queue lengthens.

After the last block the shuttle and gate queues left give up and are refunded (p_d each). The
day's misses (those refunded from the queues and 0.05 a hospital transfer), as a share ``miss``
of ``town_t + C``, mar the name: ``rep <- 0.5 rep + 0.5 exp(-4 miss)`` (a name that carries over
and lowers the next day's gate sales).

Costs: before the festival the cover V, the artists A, the marketing K and the insurance's
premium (0.15 a $k of cover); each day the overhead (2200), the security staff (0.3 each), the
medical staff (1.0 each), the buses (1.0 each), the bar staff (0.4 each); the camping site
(12 $ a camper); the refunds (c_t (p_d day_t + p_w P / 3) for the cancelled blocks, p_d for
each visitor who gives up in a queue), the hospital transfers, the drivers' marshals and the
storm's damage. The festival earns p_w P, p_d on every day ticket sold, p_c C, a shuttle fare
of 5 $ a visitor carried and the bar's sales. The insurance pays ``min(I, 0.7 (R - 200)_+)``, R
the weekend's refunds.

Offered as ``transform(x, z)`` (9 normals a row; a scenario is the three days' potential day
tickets D_t, their incident rates inc_t, the passes P, the market and the storm's excess
``(z - 1.64)_+``), its cost vectorised over decisions: common random numbers are exact.
lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T, NB = 3, 4  # days, blocks a day


class Festival:
    name = "festival"
    dim_x, dim_w = 13, 3 * T
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref_d, el_d, ref_w, el_w = 90.0, 1.2, 220.0, 1.0  # prices ($) and the sales' elasticity
    to_pass, to_day, n0 = 0.15, 0.15, 20.0  # passes per day price, day tickets per pass price
    ref_c, el_c, camp0 = 40.0, 1.2, 0.45  # camping: price ($), elasticity, share at ref_c
    #: p_d, p_w, p_c, S_1..S_3, M, B, Q, V, A, K, I
    bounds = ([(0.5 * ref_d, 2.0 * ref_d), (0.5 * ref_w, 2.0 * ref_w), (20.0, 120.0)]
              + [(0.0, np.inf)] * 10)
    x0 = np.array([95.0, 240.0, 40.0, 80.0, 80.0, 80.0, 15.0, 25.0, 80.0, 60.0, 80.0, 150.0,
                   400.0])

    dbase = np.array([8.0, 12.0, 10.0])  # k day tickets a day
    ramp = np.array([0.6, 1.0, 0.8])  # the storm's weight each day
    arrive = np.array([0.5, 0.3, 0.15, 0.05])  # share of a day's arrivals in each block
    spend = np.array([4.0, 5.0, 4.0, 2.0])  # $ a visitor a block at the bar
    threshold = 1.64  # the storm: one festival in twenty
    market, pass_noise, day_noise, inc_noise = 0.1, 0.1, 0.15, 0.3  # sd (log)
    away, hit_inc, cancel, slow = 0.3, 1.2, 0.7, 0.6  # the storm's effects a unit of the kick
    damage, cover_scale = 3000.0, 150.0  # $k of stage damage a unit of the kick; the cover's
    lift_max, lift_scale = 0.2, 200.0  # marketing's lift, its scale ($k)
    art_max, art_scale = 0.6, 150.0  # the line-up's lift of day 3, its scale ($k)
    walk = 0.4  # share of the day tickets bought at the gate
    inc0 = 0.6  # incidents a thousand visitors inside a block
    bus_cap, drive = 0.25, 0.4  # k visitors a bus a block; share of those waiting who drive
    gate_cap, quit = 0.12, 0.2  # k visitors a guard a block; share left at the gate who quit
    bar_cap, bar_lines = 0.3, 4.0  # k visitors a bar worker a block; the queue's shape
    keep, mar, hosp_weight = 0.5, 4.0, 0.05  # the name's memory, sensitivity; a transfer
    overhead, guard_wage, medic_wage, bus_fee, bar_wage = 2200.0, 0.3, 1.0, 1.0, 0.4  # a day
    site, fare, marshal, hospital = 12.0, 5.0, 4.0, 1.5  # $ a camper, a ride, a driver; $k
    share, retention, premium = 0.7, 200.0, 0.15  # the insurance's share, retention, price

    def lift(self, x):
        return 1.0 + self.lift_max * -np.expm1(-np.asarray(x, dtype=float)[..., 11]
                                                / self.lift_scale)

    def pass_mean(self, x):
        """Passes sold in a usual market, before the noise, (...)."""
        x = np.asarray(x, dtype=float)
        return self.n0 * np.exp(-self.el_w * (x[..., 1] / self.ref_w - 1.0)
                                + self.to_pass * (x[..., 0] / self.ref_d - 1.0)) * self.lift(x)

    def day_mean(self, x):
        """Day tickets each day with an unblemished name in a usual market, before the storm
        and the noise, (..., 3)."""
        x = np.asarray(x, dtype=float)
        art = np.ones(x.shape[:-1] + (T,))
        art[..., 2] = 1.0 + self.art_max * -np.expm1(-x[..., 10] / self.art_scale)
        return (self.dbase * np.exp(-self.el_d * (x[..., 0:1] / self.ref_d - 1.0)
                                    + self.to_day * (x[..., 1:2] / self.ref_w - 1.0))
                * self.lift(x)[..., None] * art)

    def camp_share(self, x):
        """Share of the pass holders who camp, (...)."""
        return self.camp0 * np.exp(-self.el_c * (np.asarray(x, dtype=float)[..., 2] / self.ref_c
                                                 - 1.0))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        pad = (T,) + (1,) * k
        market = lognormal(self.market, z[7])
        kick = np.maximum(z[8] - self.threshold, 0.0)
        ramp = self.ramp.reshape(pad) * kick
        passes = (columns(np.asarray(self.pass_mean(x))[..., None, None], k)[0] * market
                  * lognormal(self.pass_noise, z[6]))
        day = (columns(self.day_mean(x)[..., None, :], k) * market * np.exp(-self.away * ramp)
               * lognormal(self.day_noise, z[:T]))
        inc = self.inc0 * np.exp(self.hit_inc * ramp) * lognormal(self.inc_noise, z[T:2 * T])
        return scenario([day, inc, passes[None], market[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p_d, p_w, p_c = x[..., 0], x[..., 1], x[..., 2]
        M, B, Q, V, A, K, I = (x[..., i] for i in range(6, 13))
        passes, kick = W[2 * T], W[2 * T + 2]
        shape = np.broadcast_shapes(kick.shape, p_d.shape)
        campers = self.camp_share(x) * passes
        total = (V + A + K + self.premium * I
                 + T * (self.overhead + self.medic_wage * M + self.bus_fee * B
                        + self.bar_wage * Q)
                 + self.damage * kick * np.exp(-V / self.cover_scale)
                 - p_w * passes - (p_c - self.site) * campers) + np.zeros(shape)
        refunds = np.zeros(shape)
        rep = np.ones(shape)
        for t in range(T):
            S = x[..., 3 + t]
            storm = self.ramp[t] * kick
            c = -np.expm1(-self.cancel * storm)
            day = W[t] * (1.0 - self.walk + self.walk * rep)
            town = day + passes - campers
            bus = self.bus_cap * B / (1.0 + self.slow * storm)
            gate = self.gate_cap * S / (1.0 + self.slow * storm)
            q_bus = np.zeros(shape)
            q_gate = np.zeros(shape)
            inside = np.zeros(shape)
            quits = np.zeros(shape)
            sent = np.zeros(shape)
            refunds = refunds + c * (p_d * day + p_w * passes / T)
            total = total + self.guard_wage * S - p_d * day
            for b in range(NB):
                q_bus = q_bus + self.arrive[b] * town
                carried = np.minimum(q_bus, bus)
                left = q_bus - carried
                drove = self.drive * left
                q_bus = left - drove
                q_gate = q_gate + carried + drove + self.arrive[b] * campers
                passed = np.minimum(q_gate, gate)
                left = q_gate - passed
                quits = quits + self.quit * left
                q_gate = left - self.quit * left
                inside = inside + passed
                hosp = np.maximum(W[T + t] * inside - M, 0.0)
                sent = sent + hosp
                open_ = (1.0 - c) * inside
                u = open_ / np.maximum(self.bar_cap * Q, 1e-12)
                sold = self.spend[b] * open_ * (1.0 + u**self.bar_lines) ** (-1.0 / self.bar_lines)
                total = (total + self.marshal * drove - self.fare * carried
                         + self.hospital * hosp - sold)
            quits = quits + q_bus + q_gate
            refunds = refunds + p_d * quits
            miss = (quits + self.hosp_weight * sent) / np.maximum(town + campers, 1e-12)
            rep = self.keep * rep + (1.0 - self.keep) * np.exp(-self.mar * miss)
        return total + refunds - np.minimum(
            I, self.share * np.maximum(refunds - self.retention, 0.0))
