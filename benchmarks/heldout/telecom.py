"""A held-out problem: a mobile network operator's month of four weeks in three areas (the city
centre, the suburbs, the countryside), fourteen decisions, twelve of them open above, written
after version 13 of the default. Kept out of every choice of the default; its optimum is found
without acfs (``find_optima.py`` beside it, ``optima.json``). Subscribers and support tickets
are counted in thousands, traffic in TB a week, money in $k, so a price of p $ a month brings
p $k a month from a thousand subscribers.

Decisions x = (the monthly plan price p ($ a month, from 0.5 to 2 times the reference 40), the
data add-on's price d ($ a month, from 0.5 to 2 times the reference 10), a retention and
marketing budget M ($k), the radio capacity R_1, R_2, R_3 of each area (TB a week with every
site up), the backhaul B (TB a week, shared by the areas), a wholesale capacity Q reserved on
another network (TB a week, paid whether used), the support centre's agents S, an outsourced
support capacity O reserved (thousands of tickets a week), the field technicians F, the spare
equipment stock P (parts, bought up front), the sites' backup generators G and a service-credit
insurance cover V ($k)). Marketing lifts the subscribers by ``lift(M) = 1 + 0.08 (1 - exp(-M /
80))`` and cuts the churn by ``keep(M) = 1 - 0.35 (1 - exp(-M / 80))``; a share ``s(d) = 0.3
exp(-1.2 (d / 10 - 1))`` of the subscribers buys the add-on. In area a (sites n = 150, 200, 250)
the month opens with

    N_a = base_a exp(-1.3 (p / 40 - 1)) lift(M) own_a

thousand subscribers (base = 60, 50, 25; own lognormal, sd 0.05: what a dear plan loses goes to
the rivals) and each week t (t = 0 .. 3) brings ``adds_t,a = gross_a exp(-1.3 (p / 40 - 1))
lift(M) own'_t,a`` new ones (gross = 0.9, 0.6, 0.25; own' sd 0.2). A subscriber uses ``use_t,a
= (4 + 6 s(d)) (1 + 0.4 storm_t) own''_t,a`` GB a week (the add-on's buyers 6 GB more; own'' sd
0.15), so the area's traffic is ``D_t,a = N_t,a use_t,a`` TB. A site up fails in the week with
the hazard ``haz_t,a = fail_a own'''_t,a + knock_a storm_t (0.3 + 0.7 exp(-G / 60))`` (fail =
0.01, 0.015, 0.025, own''' sd 0.3; knock = 0.6, 1.0, 1.5: the storm's power outage, which the
generators hold off with diminishing returns, all but the 30 % of it that fells the masts), and
each subscriber raises ``tick_t = 0.02 (1 + 2 storm_t) own_t`` support tickets a week (own sd
0.2) before the network's faults add theirs. A
heavy-tailed storm and power outage, ``kick = (z - 1.64)_+`` (one month in twenty, without
bound), weighted ``w = 0.25, 0.5, 0.75, 1`` over the weeks (more later), ``storm_t = w_t kick``,
knocks out sites (the countryside's the most), surges the traffic (people at home), multiplies
the support calls and slows the technicians.

The month opens with no site down, no ticket waiting and P spare parts. In week t:

- of the sites up, ``new_a = (n_a - down_a) (1 - exp(-haz_t,a))`` fail; the week's share of the
  sites out is ``out_a = (down_a + 0.5 new_a) / n_a`` (those failing are out half the week) and
  ``down_a <- down_a + new_a``;
- each area carries ``own_a = min(D_t,a, R_a (1 - out_a))`` on its radio; the backhaul carries
  ``min(sum own, B)``, its shortfall ``(sum own - B)_+`` shared among the areas in proportion to
  own_a; the traffic beyond the radio and the backhaul, ``over = sum D - min(sum own, B)``, goes
  to the wholesale network, ``roam = min(over, Q)`` (paid 1.5 a TB), and the rest is unserved,
  each area's ``unserved_a`` its share of ``over - roam`` in proportion to what it sent;
- the subscribers pay ``N_t,a (p + s(d) d) / 4`` a week; those out of coverage, ``N_t,a out_a``,
  and the unserved traffic earn service credits (10 a thousand subscriber-weeks, 5 a TB);
- the new tickets, ``sum_a N_t,a tick_t (1 + 4 unserved_a / D_t,a + 3 out_a)``, join those
  waiting; the agents answer ``min(work, 0.12 S)`` (120 tickets a week each), the outsourcer
  ``min(rest, O)`` (12 a thousand); of the rest a quarter give up (5 a thousand, goodwill) and
  the others wait to the next week (3 a thousand): the ``backlog`` carries over;
- the subscribers churn at the hazard ``h_a = churn_a exp(1.5 (p / 40 - 1) + 0.4 (d / 10 - 1))
  keep(M) (1 + 3 unserved_a / D_t,a + 2 out_a + 20 backlog / sum N)`` (churn = 0.012, 0.010,
  0.008), ``N_a <- N_a exp(-h_a) + adds_t,a`` (the churned go to rivals: the subscribers carry
  over and the later weeks' revenue, traffic and tickets with them);
- the technicians repair ``min(sum down, 3 F / (1 + 0.5 storm_t))`` sites (three each a week,
  fewer in the storm), in proportion to each area's sites down; each repair takes a spare part
  while the stock lasts, the others a part expedited at 5; the sites not repaired wait (they
  carry over).

Costs: the overhead (1500), the radio capacity (1.2 a TB a week), the backhaul (0.8), the
wholesale reservation (0.4), the agents (4 each), the outsourcer's reservation (2 a thousand
tickets a week), the technicians (6 each), the spare parts (1.5 each), the generators (2
each), M and the cover's premium (0.1 a $k of cover); each week the wholesale traffic, the
service credits, the outsourced tickets, the tickets given up and waiting and the expedited
parts; less the revenue. At the month's end the parts left are sold back at 1 each and the
subscribers' net change, ``sum N_end - sum N_start``, is valued at 150 a thousand (their margin
over the next months). The cover pays ``min(V, 0.6 (credits - 300)_+)``, credits the month's
service credits.

Offered as ``transform(x, z)`` (44 normals a row; a scenario is each area's opening
subscribers, each week and area's new subscribers, use per subscriber and failure hazard, each
week's tickets per subscriber and the storm's excess ``(z - 1.64)_+``), its cost vectorised over
decisions: common random numbers are exact. lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T, A = 4, 3  # weeks, areas (the city centre, the suburbs, the countryside)


class Telecom:
    name = "telecom"
    dim_x, dim_w = 14, A + 3 * T * A + T + 1
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref_p, ref_d = 40.0, 10.0  # the plan's and the add-on's reference prices ($ a month)
    #: p, d, M, R_1, R_2, R_3, B, Q, S, O, F, P, G, V
    bounds = [(0.5 * ref_p, 2.0 * ref_p), (0.5 * ref_d, 2.0 * ref_d)] + [(0.0, np.inf)] * 12
    x0 = np.array([40.0, 10.0, 80.0, 380.0, 300.0, 140.0, 750.0, 200.0, 25.0, 5.0, 6.0, 60.0,
                   80.0, 300.0])

    sites = np.array([150.0, 200.0, 250.0])
    base = np.array([60.0, 50.0, 25.0])  # thousand subscribers at the reference price
    gross = np.array([0.9, 0.6, 0.25])  # thousand new subscribers a week
    churn = np.array([0.012, 0.010, 0.008])  # a week
    fail = np.array([0.01, 0.015, 0.025])  # a site's failure hazard a week
    knock = np.array([0.6, 1.0, 1.5])  # the storm's outage hazard
    el_p, el_d, el_churn_p, el_churn_d = 1.3, 1.2, 1.5, 0.4
    lift_max, keep_max, m_scale = 0.08, 0.35, 80.0
    addon_share, use_base, use_addon = 0.3, 4.0, 6.0  # GB a week
    own_sd, adds_sd, use_sd, fail_sd, tick_sd = 0.05, 0.2, 0.15, 0.3, 0.2
    tickets = 0.02  # thousand tickets a week a thousand subscribers
    threshold = 1.64  # the storm: one month in twenty
    w = np.array([0.25, 0.5, 0.75, 1.0])  # its weight each week
    surge, calls, slow = 0.4, 2.0, 0.5  # its effects
    hold, gen_scale = 0.3, 60.0  # the outages the generators cannot hold off; their scale
    tick_unserved, tick_out = 4.0, 3.0
    churn_unserved, churn_out, churn_backlog = 3.0, 2.0, 20.0
    per_agent, per_tech, give_up = 0.12, 3.0, 0.25
    overhead, radio_fee, backhaul_fee, whole_fee, agent_fee, out_fee, tech_fee = (
        1500.0, 1.2, 0.8, 0.4, 4.0, 2.0, 6.0)
    spare_fee, gen_fee, premium = 1.5, 2.0, 0.1
    roam_fee, credit_out, credit_tb, out_ticket, lost_ticket, wait_ticket, expedite = (
        1.5, 10.0, 5.0, 12.0, 5.0, 3.0, 5.0)
    salvage, sub_value = 1.0, 150.0
    share, retention = 0.6, 300.0  # the insurance's share and retention

    def lift(self, x):
        return 1.0 + self.lift_max * -np.expm1(-np.asarray(x, dtype=float)[..., 2]
                                                / self.m_scale)

    def keep(self, x):
        return 1.0 - self.keep_max * -np.expm1(-np.asarray(x, dtype=float)[..., 2]
                                                / self.m_scale)

    def addon(self, x):
        return self.addon_share * np.exp(-self.el_d * (np.asarray(x, dtype=float)[..., 1]
                                                       / self.ref_d - 1.0))

    def subscribers_mean(self, x):
        """Thousand subscribers of each area at the month's opening, before the noise: shape
        (..., 3)."""
        x = np.asarray(x, dtype=float)
        f = np.exp(-self.el_p * (x[..., 0] / self.ref_p - 1.0)) * self.lift(x)
        return self.base * f[..., None]

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        kick = np.maximum(z[-1] - self.threshold, 0.0)
        storm = self.w.reshape((T,) + (1,) * (k + 1)) * kick
        n0 = columns(self.subscribers_mean(x)[..., None, :], k)
        f = columns((np.exp(-self.el_p * (x[..., 0] / self.ref_p - 1.0))
                     * self.lift(x))[..., None, None], k)[0]
        use = columns((self.use_base + self.use_addon * self.addon(x))[..., None, None], k)[0]
        gen = columns((self.hold + (1.0 - self.hold) * np.exp(-x[..., 12] / self.gen_scale))
                      [..., None, None], k)[0]
        own = n0 * lognormal(self.own_sd, z[:A])
        zz = z[A:A + 3 * T * A].reshape((3, T, A) + z.shape[1:])
        adds = self.gross.reshape((A,) + (1,) * k) * f * lognormal(self.adds_sd, zz[0])
        use = use * (1.0 + self.surge * storm) * lognormal(self.use_sd, zz[1])
        haz = (self.fail.reshape((A,) + (1,) * k) * lognormal(self.fail_sd, zz[2])
               + self.knock.reshape((A,) + (1,) * k) * storm * gen)
        tick = (self.tickets * (1.0 + self.calls * storm[:, 0])
                * lognormal(self.tick_sd, z[A + 3 * T * A:A + 3 * T * A + T]))
        return scenario([own, adds.reshape((T * A,) + adds.shape[2:]),
                         use.reshape((T * A,) + use.shape[2:]),
                         haz.reshape((T * A,) + haz.shape[2:]), tick, kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p, d, M = x[..., 0], x[..., 1], x[..., 2]
        R = [x[..., 3 + a] for a in range(A)]
        B, Q, S, O, F, P, G, V = (x[..., j] for j in range(6, 14))
        kick = W[-1]
        shape = np.broadcast_shapes(kick.shape, p.shape)
        zero = np.zeros(shape)
        s = self.addon(x)
        total = (self.overhead + self.radio_fee * sum(R) + self.backhaul_fee * B
                 + self.whole_fee * Q + self.agent_fee * S + self.out_fee * O
                 + self.tech_fee * F + self.spare_fee * P + self.gen_fee * G + M
                 + self.premium * V) + zero
        rate = (p + s * d) / 4.0
        churn_f = (np.exp(self.el_churn_p * (p / self.ref_p - 1.0)
                          + self.el_churn_d * (d / self.ref_d - 1.0)) * self.keep(x))
        N = [W[a] + zero for a in range(A)]
        start = sum(N)
        down = [zero] * A
        backlog, spares, credits = zero, P + zero, zero
        o_adds, o_use, o_haz, o_tick = A, A + T * A, A + 2 * T * A, A + 3 * T * A
        for t in range(T):
            storm = self.w[t] * kick
            out, D, own = [], [], []
            for a in range(A):
                new = (self.sites[a] - down[a]) * -np.expm1(-W[o_haz + t * A + a])
                out.append((down[a] + 0.5 * new) / self.sites[a])
                down[a] = down[a] + new
                D.append(N[a] * W[o_use + t * A + a])
                own.append(np.minimum(D[a], R[a] * (1.0 - out[a])))
            own_tot = sum(own)
            carried = np.minimum(own_tot, B)
            short = own_tot - carried
            over = sum(D) - carried
            roam = np.minimum(over, Q)
            left = (over - roam) / np.maximum(over, 1e-12)  # the share of it unserved
            unserved = [(D[a] - own[a] + short * own[a] / np.maximum(own_tot, 1e-12)) * left
                        for a in range(A)]
            total = total + self.roam_fee * roam
            week_credits = sum(self.credit_out * N[a] * out[a]
                               + self.credit_tb * unserved[a] for a in range(A))
            credits = credits + week_credits
            total = total + week_credits - rate * sum(N)
            # the support centre
            new_t = sum(N[a] * W[o_tick + t]
                        * (1.0 + self.tick_unserved * unserved[a] / D[a]
                           + self.tick_out * out[a]) for a in range(A))
            work = backlog + new_t
            rest = work - np.minimum(work, self.per_agent * S)
            outsourced = np.minimum(rest, O)
            rest = rest - outsourced
            backlog = (1.0 - self.give_up) * rest
            total = (total + self.out_ticket * outsourced + self.lost_ticket * self.give_up * rest
                     + self.wait_ticket * backlog)
            # the churn
            n_tot = sum(N)
            for a in range(A):
                h = (self.churn[a] * churn_f
                     * (1.0 + self.churn_unserved * unserved[a] / D[a]
                        + self.churn_out * out[a] + self.churn_backlog * backlog / n_tot))
                N[a] = N[a] * np.exp(-h) + W[o_adds + t * A + a]
            # the repairs
            down_tot = sum(down)
            repaired = np.minimum(down_tot, self.per_tech * F / (1.0 + self.slow * storm))
            ratio = repaired / np.maximum(down_tot, 1e-12)
            down = [down[a] * (1.0 - ratio) for a in range(A)]
            used = np.minimum(repaired, spares)
            spares = spares - used
            total = total + self.expedite * (repaired - used)
        total = total - self.salvage * spares - self.sub_value * (sum(N) - start)
        return total - np.minimum(V, self.share * np.maximum(credits - self.retention, 0.0))
