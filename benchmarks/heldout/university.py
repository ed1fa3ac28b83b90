"""A held-out problem: a university's academic year of six two-month periods (September-October
to July-August) with a September and a January intake, thirteen decisions, eleven of them open
above, written after version 13 of the default and its judgement on the wildfire agency, the
recycling company and the mobile operator. Kept out of every choice of the default; its
optimum is found without acfs (``find_optima.py`` beside it, ``optima.json``). Students are
counted one by one, teaching in course loads (a student's full load for a period), money in
$k, so a fee of f $k a year brings f / 6 $k a period from a student.

Decisions x = (the domestic fee f_d ($k a year, from 0.5 to 2 times the reference 9), the
international fee f_i (from 0.5 to 2 times the reference 24), a scholarship budget S ($k), a
recruitment-marketing budget M ($k), the lecturers L hired for the year (paid whether they
teach), adjunct teaching capacity A reserved (course loads a period), dormitory beds B, the
student counsellors C, the online-teaching platform's capacity P (course loads a period), the
places J offered in the January intake, a hardship fund H ($k), an enrolment insurance cover V
($k) and a currency hedge G on the international fees ($k a period)). The scholarships lift
the domestic and the international intakes by ``1 + (0.25, 0.15) (1 - exp(-S / 300))``, the
marketing by ``1 + (0.08, 0.5) (1 - exp(-M / 250))`` (both with diminishing returns). The
September intake brings

    D = 400 exp(-1.4 (f_d / 9 - 1)) lift_d own,   I = 150 exp(-1.6 (f_i / 24 - 1)) lift_i own'
        exp(-2 storm_1)

new domestic and international students (what a dear fee loses goes to the rival
universities; own, own' lognormal, sd 0.08 and 0.15), and ``100`` and ``60`` times the same
fee factors and lifts (own sd 0.15 and 0.2, the international ones times ``exp(-2 storm_3)``)
apply to the January intake. The year opens with 900 continuing domestic and 200 continuing
international students (own sd 0.03 and 0.05), who pay the fees set before, 8.5 and 22; the
new students pay f_d and f_i. In period t (t = 1 .. 6) a student wants ``load_t = (1, 1, 1, 1,
0.5, 0.2) own_t`` course loads (own sd 0.05: the summer's courses are few), raises ``cases_t =
0.05 (1 + 3 storm_t) own_t`` counselling cases (own sd 0.2), the groups' dropout hazards are
scaled by ``haz_t`` (lognormal, sd 0.2) and the international fees, invoiced in the students'
currencies, are worth ``fx_t = own_t exp(-0.2 storm_t)`` (own sd 0.05). A heavy-tailed visa
and travel shock with a campus outbreak, ``kick = (z - 1.64)_+`` (one year in twenty, without
bound), weighted ``w = 0.2, 0.4, 0.6, 0.8, 0.9, 1`` over the periods (more later), ``storm_t =
w_t kick``, cuts the international intakes, moves teaching online (the share taught online
``o_t = 0.05 + 0.9 (1 - exp(-1.2 storm_t))``), multiplies the counselling cases, raises every
group's dropout (the international students' the most), lowers the currencies and makes the
hotel rooms dearer.

The year opens with no student waiting for a course, no counselling waitlist and the reputation
``rep = 1``. The students are kept in four groups (continuing domestic and international, new
domestic and international). In period t:

- at period 3 the January intake: its applicants are the scenario's times rep, and ``min(a_d +
  a_i, J)`` of them are admitted, domestic and international in proportion (they join the new
  groups);
- teaching: the need is ``load_t n + wait`` (n the students enrolled, wait those who could not
  take their courses the period before); of it ``o_t need`` is taught online, and what the
  platform cannot carry, ``off = (o_t need - P)_+``, is not taught; the lecturers teach
  ``min(need - off, 25 L)`` (25 loads each a period), the adjuncts ``min(rest, A)`` (paid 0.5 a
  load taught beside the reservation), and every load not taught waits to the next period
  (``wait``: it carries over);
- counselling: the waitlist and the new cases ``cases_t n`` meet ``12 C`` sessions (12 cases a
  counsellor a period); of the cases left 30 % resolve themselves and the rest wait
  (``queue``: it carries over);
- dropout: group g leaves at the hazard ``h = (base_g (1 + 2 wait / n + 4 queue / n) + s_g
  storm_t) (1 - 0.4 (1 - exp(-H / 150))) haz_t`` (base = 0.010 domestic, 0.008 international,
  1.5 times that for the new students and times ``exp(0.6 (f / ref - 1))`` their fee; s = 0.02
  domestic, 0.05 international; the hardship fund lowers it with diminishing returns):
  ``drop = N_g (1 - exp(-h))``; the group, N_g those left, pays ``(N_g + 0.5 drop) fee_g /
  6`` (times fx_t if international) and its dropouts forgo ``drop fee_g (6 - t + 0.5) / 6``;
- housing: ``0.2 (1 - o_t)`` of the domestic and 0.85 of the international students want a
  room; beyond the beds they are put up in hotel rooms at ``2.5 (1 + 0.5 storm_t)`` a period;
  every resident pays a rent of 0.8;
- the reputation falls with the period's dropouts, waiting and waitlist, ``rep <- rep exp(-2
  (drops + 0.3 wait + 0.3 queue) / n)`` (it carries over and lowers the January intake).

Costs: the overhead (6000), S, M, the lecturers (90 each a year), the adjunct reservation (2.4
a load a year), the beds (6 each), the counsellors (60 each), the platform (0.3 a load), the
January places (0.5 each, admissions and orientation), H and the cover's premium (0.1 a $k of
cover); each period the adjunct loads taught, the students waiting (0.4 each), the waitlist
(0.1 a case), the dropouts (5 each, their later years' margin), the hotel rooms and the
hedge's settlement ``G (fx_t - 0.98)`` (the fees sold forward at 0.98); less the fees and the
rents. At the year's end the reputation lost is valued at ``4000 (1 - rep)`` (the next year's
intakes). The cover pays ``min(V, 0.5 (F - 800)_+)``, F the fees the year's dropouts forgo.

Offered as ``transform(x, z)`` (31 normals a row; a scenario is the September intake's new
domestic and international students, the January intake's applicants, the continuing students,
each period's counselling cases per student, fx, dropout factor and course load per student,
and the shock's excess ``(z - 1.64)_+``), its cost vectorised over decisions: common random
numbers are exact. lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 6  # two-month periods (September-October .. July-August)


class University:
    name = "university"
    dim_x, dim_w = 13, 6 + 4 * T + 1
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref_d, ref_i = 9.0, 24.0  # the reference fees ($k a year, domestic and international)
    #: f_d, f_i, S, M, L, A, B, C, P, J, H, V, G
    bounds = [(0.5 * ref_d, 2.0 * ref_d), (0.5 * ref_i, 2.0 * ref_i)] + [(0.0, np.inf)] * 11
    x0 = np.array([9.0, 24.0, 200.0, 250.0, 55.0, 250.0, 500.0, 6.0, 400.0, 120.0, 150.0,
                   300.0, 1200.0])

    intake = np.array([400.0, 150.0])  # new students at the reference fees (September)
    spring = np.array([100.0, 60.0])  # applicants to the January intake
    cont = np.array([900.0, 200.0])  # continuing students
    cont_fee = np.array([8.5, 22.0])  # their fees ($k a year), set before
    el_d, el_i = 1.4, 1.6  # the elasticities
    s_lift, s_scale = np.array([0.25, 0.15]), 300.0  # scholarships' lift, their scale
    m_lift, m_scale = np.array([0.08, 0.5]), 250.0  # marketing's lift, its scale
    intake_sd, spring_sd, cont_sd = np.array([0.08, 0.15]), np.array([0.15, 0.2]), (
        np.array([0.03, 0.05]))
    cases, case_sd, fx_sd, haz_sd, load_sd = 0.05, 0.2, 0.05, 0.2, 0.05
    load = np.array([1.0, 1.0, 1.0, 1.0, 0.5, 0.2])  # a student's courses each period
    threshold = 1.64  # the shock: one year in twenty
    w = np.array([0.2, 0.4, 0.6, 0.8, 0.9, 1.0])  # its weight each period
    visa, online_max, online_k, calls, fx_drop, hotel_rise = 2.0, 0.9, 1.2, 3.0, 0.2, 0.5
    drop_storm = np.array([0.02, 0.05])  # its extra dropout hazard (domestic, international)
    online0 = 0.05  # the share taught online in a usual period
    per_lect, per_couns, resolve = 25.0, 12.0, 0.3
    base_haz = np.array([0.010, 0.008])  # a period, continuing students
    first_year, el_drop = 1.5, 0.6  # new students' dropout: their factor, the fee's
    wait_haz, queue_haz = 2.0, 4.0
    hard_max, hard_scale = 0.4, 150.0
    housed = np.array([0.2, 0.85])  # the shares wanting a room
    rep_k, rep_wait, rep_queue = 2.0, 0.3, 0.3
    overhead, lect_fee, adj_fee, adj_use, bed_fee, couns_fee, plat_fee, place_fee = (
        6000.0, 90.0, 2.4, 0.5, 6.0, 60.0, 0.3, 0.5)
    hotel, rent, wait_fee, queue_fee, drop_fee, rep_value = 2.5, 0.8, 0.4, 0.1, 5.0, 4000.0
    forward, premium = 0.98, 0.1
    share, retention = 0.5, 800.0  # the insurance's share and retention

    def lift(self, x):
        """The scholarships' and the marketing's lift of the domestic and the international
        intakes: shape (..., 2)."""
        x = np.asarray(x, dtype=float)
        s = -np.expm1(-x[..., 2] / self.s_scale)[..., None]
        m = -np.expm1(-x[..., 3] / self.m_scale)[..., None]
        return (1.0 + self.s_lift * s) * (1.0 + self.m_lift * m)

    def fee_factor(self, x):
        """The fees' factors on the domestic and the international intakes: shape (..., 2)."""
        x = np.asarray(x, dtype=float)
        return np.stack([np.exp(-self.el_d * (x[..., 0] / self.ref_d - 1.0)),
                         np.exp(-self.el_i * (x[..., 1] / self.ref_i - 1.0))], axis=-1)

    def intake_mean(self, x):
        """New students of the September intake and applicants to the January intake, domestic
        and international, in a usual year before the noise: shape (..., 4)."""
        f = self.fee_factor(x) * self.lift(x)
        return np.concatenate([self.intake * f, self.spring * f], axis=-1)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k
        kick = np.maximum(z[-1] - self.threshold, 0.0)
        storm = self.w.reshape(pad) * kick
        m = columns(np.asarray(self.intake_mean(x))[..., None, :], k)
        sd = np.r_[self.intake_sd, self.spring_sd].reshape((4,) + (1,) * k)
        new = m * lognormal(sd, z[:4])
        new[1] = new[1] * np.exp(-self.visa * storm[0])
        new[3] = new[3] * np.exp(-self.visa * storm[2])
        cont = self.cont.reshape((2,) + (1,) * k) * lognormal(
            self.cont_sd.reshape((2,) + (1,) * k), z[4:6])
        cases = (self.cases * (1.0 + self.calls * storm)
                 * lognormal(self.case_sd, z[6:6 + T]))
        fx = lognormal(self.fx_sd, z[6 + T:6 + 2 * T]) * np.exp(-self.fx_drop * storm)
        haz = lognormal(self.haz_sd, z[6 + 2 * T:6 + 3 * T])
        load = self.load.reshape(pad) * lognormal(self.load_sd, z[6 + 3 * T:6 + 4 * T])
        return scenario([new, cont, cases, fx, haz, load, kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        f_d, f_i = x[..., 0], x[..., 1]
        S, M, L, A, B, C, P, J, H, V, G = (x[..., j] for j in range(2, 13))
        kick = W[-1]
        shape = np.broadcast_shapes(kick.shape, f_d.shape)
        zero = np.zeros(shape)
        total = (self.overhead + S + M + self.lect_fee * L + self.adj_fee * A
                 + self.bed_fee * B + self.couns_fee * C + self.plat_fee * P
                 + self.place_fee * J + H + self.premium * V) + zero
        hard = 1.0 - self.hard_max * -np.expm1(-H / self.hard_scale)
        # the groups: continuing domestic, continuing international, new domestic, new
        # international
        fee = [self.cont_fee[0] + zero, self.cont_fee[1] + zero, f_d + zero, f_i + zero]
        intl = [False, True, False, True]
        base = [self.base_haz[0] + zero, self.base_haz[1] + zero,
                self.base_haz[0] * self.first_year * np.exp(self.el_drop * (f_d / self.ref_d
                                                                            - 1.0)) + zero,
                self.base_haz[1] * self.first_year * np.exp(self.el_drop * (f_i / self.ref_i
                                                                            - 1.0)) + zero]
        N = [W[4] + zero, W[5] + zero, W[0] + zero, W[1] + zero]
        wait, queue, rep, lost = zero, zero, 1.0 + zero, zero
        for t in range(T):
            storm = self.w[t] * kick
            if t == 2:  # the January intake, as the places allow
                ad, ai = W[2] * rep, W[3] * rep
                admitted = np.minimum(ad + ai, J)
                N[2] = N[2] + ad * admitted / (ad + ai)
                N[3] = N[3] + ai * admitted / (ad + ai)
            n = sum(N)
            # teaching: online beyond the platform cannot be taught
            online = self.online0 + self.online_max * -np.expm1(-self.online_k * storm)
            need = W[6 + 3 * T + t] * n + wait
            off = np.maximum(online * need - P, 0.0)
            lect = np.minimum(need - off, self.per_lect * L)
            adj = np.minimum(need - off - lect, A)
            wait = need - lect - adj
            # counselling: a waitlist
            work = queue + W[6 + t] * n
            queue = (1.0 - self.resolve) * (work - np.minimum(work, self.per_couns * C))
            # dropout
            press = 1.0 + self.wait_haz * wait / n + self.queue_haz * queue / n
            drops = zero
            revenue = zero
            fx = W[6 + T + t]
            for g in range(4):
                h = (base[g] * press + self.drop_storm[int(intl[g])] * storm) * hard
                d = N[g] * -np.expm1(-h * W[6 + 2 * T + t])
                N[g] = N[g] - d
                drops = drops + d
                pay = (N[g] + 0.5 * d) * fee[g] / T
                revenue = revenue + (pay * fx if intl[g] else pay)
                lost = lost + d * fee[g] * (T - t - 0.5) / T
            # housing
            want = self.housed[0] * (N[0] + N[2]) * (1.0 - online) + self.housed[1] * (
                N[1] + N[3])
            hotel = np.maximum(want - B, 0.0)
            total = (total - revenue + self.adj_use * adj + self.wait_fee * wait
                     + self.queue_fee * queue + self.drop_fee * drops
                     + self.hotel * (1.0 + self.hotel_rise * storm) * hotel - self.rent * want
                     + G * (fx - self.forward))
            rep = rep * np.exp(-self.rep_k * (drops + self.rep_wait * wait
                                              + self.rep_queue * queue) / n)
        total = total + self.rep_value * (1.0 - rep)
        return total - np.minimum(V, self.share * np.maximum(lost - self.retention, 0.0))
