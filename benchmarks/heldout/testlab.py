"""A held-out problem: a regional clinical testing laboratory's fortnight of seven two-day
periods, fourteen decisions, twelve of them open above, written after version 12 of the default
and the wind farm and the meal-kit company. Kept out of every choice of the default; its optimum
is found without acfs (``find_optima.py`` beside it, ``optima.json``). Samples and reagent kits
are counted in thousands, money in $k, so a price of p $ a test is p $k a thousand tests.

Decisions x = (the price p of a private (self-paid) test ($, from 0.5 to 2 times the reference
45) and the express surcharge e ($ a private sample wanting its result within the period, from
0.5 to 2 times the reference 15), the analysers A_r for routine tests and A_p for PCR (leased
for the fortnight), the technicians H_1 rostered for periods 1-4 and H_2 for periods 5-7, the
reagent kits G for PCR bought up front, the courier vans F that bring the samples from the
clinics, the outsourcing contract O reserved with a partner lab (thousand PCR samples a period,
paid whether used), the sample fridge's capacity Z (thousand samples), the IT/automation budget
M ($k), the marketing budget K ($k), the service engineers E on contract for the analysers and
the insurance's cover V ($k)). Private samples a period are, before the noise,

    m = 5 exp(-1.8 (p / 45 - 1) - 0.1 (e / 15 - 1)) lift(K),  lift(K) = 1 + 0.4 (1 - exp(-K / 50))

thousand (what a dear test loses goes to a rival lab), 40 % of them routine and 60 % PCR; a
share ``ex(e) = 0.3 exp(-(e / 15 - 1))`` of them want the express service. A heavy-tailed
outbreak, ``kick = (z - 1.64)_+`` (one fortnight in twenty, without bound), weighted ``prof =
0.15, 0.3, 0.5, 0.7, 0.9, 1, 1`` over the periods (more later), ``out_t = prof_t kick``. In
period t (t = 0 .. 6) the hospitals send

    routine_t = 24 shape_t level (1 + 0.5 out_t) own_t,
    pcr_t = 3 shape_t level (1 + 4 out_t) own'_t

thousand samples under contract and the private clinics ``private_t = m shape_t market (1 +
out_t) own''_t`` (shape = 1.2, 1, 0.8, 1.1, 1.15, 0.95, 0.8, the clinics' week; ``level`` the
fortnight's lognormal level of the hospitals, sd 0.1 on the log, mean 1, ``market`` the private
market's, sd 0.05; own, own', own'' lognormal, sd 0.15); the analysers' failure factor is
``fail_t = own'''_t (1 + out_t)`` (own''' sd 0.4: overuse) and the reagents' spot price factor
``spot_t = own''''_t (1 + 3 out_t)`` (own'''' sd 0.15); the outbreak also cuts the urgent
reagent supply to ``4 exp(-2 out_t)`` thousand kits a period and keeps technicians home, their
work ``exp(-0.3 out_t)`` of the usual.

Automation multiplies every analyser's and technician's throughput by ``auto = 1 + 0.35 (1 -
exp(-M / 100))``. The fortnight opens with no analyser broken, no sample waiting, G kits in
stock and the name ``rep = 1``. In period t (H that of the period's roster):

- of the analysers up, ``up = A - down`` (down those waiting for repair), ``up (1 - exp(-b
  fail_t))`` break (b = 0.1 routine, 0.15 PCR); the lines can test ``cap_r = 4 auto (up_r -
  0.5 new_r)`` and ``cap_p = auto (up_p - 0.5 new_p)`` thousand samples (those broken work half
  the period); of the broken, ``down + new``, a share ``0.7 exp(-0.5 E)`` is still down at the
  next period (the engineers mend the rest, a backlog that carries over);
- the private samples are ``priv = private_t rep``; the routine line's new samples are
  ``n_r = routine_t + 0.4 priv + back_r``, the PCR line's ``n_p = pcr_t + 0.6 priv + back_p``
  (back those recollected after spoiling last period), of which ``ex 0.4 priv`` and ``ex 0.6
  priv`` are express;
- each line would test ``d = min(w1 + w2 + n, cap)`` (w1, w2 the samples waiting one and two
  periods), the PCR line no more than the kits at hand, ``stock + 4 exp(-2 out_t)``; the
  technicians do ``2 auto H exp(-0.3 out_t)`` thousand units of work, a routine sample one unit,
  a PCR sample three; if short, both lines test the share ``g = min(1, work / (d_r + 3 d_p))``
  of d: ``done = g d``;
- each line tests its express samples first, then those waiting two periods, then one, then the
  new; express samples not tested are refunded their surcharge with a credit of 5 $ and wait
  with the new;
- the partner lab tests up to O of the PCR samples left, the oldest first, at 35 $ each;
- the samples waiting two periods and still untested are spoiled; the others wait, as long as
  the fridge holds them: of ``waiting`` samples left a share ``kept = min(1, Z / waiting)`` is
  kept (the new becoming w1, the w1 becoming w2), the rest spoiled; the spoiled are recollected
  at 30 $ each and join the next period's new samples (back);
- the PCR kits come from the stock first, the rest bought urgently at ``30 spot_t`` $ a kit; the
  stock left loses 15 % to expiry over the period;
- the hospitals' samples late, ``late = hosp / fresh (kept waiting + spoiled)`` (hosp the
  hospitals' samples of the period, fresh those and the private ones), beyond 8 % of hosp cost a
  service-level penalty of 10 $ each;
- the vans carry 2.5 thousand samples a period each; the samples beyond them (fresh and
  recollected) go by on-demand courier at 4 $ each;
- the period's misses, ``bad = (0.5 kept waiting + spoiled + missed express) / fresh``, mar the
  name: ``rep <- 0.6 rep + 0.4 exp(-3 bad)`` (a reputation that carries over and lowers the
  next periods' private samples).

Costs: the overhead (500) less the hospitals' retainer (1400 a fortnight), the analysers (20 a
routine, 35 a PCR analyser for the fortnight), the kits bought up front (12 $ each), the fridge
(2 a thousand samples), M, K and the insurance's premium (0.08 a $k of cover); each period the
technicians (2.4 each), the vans (1.2 each), the outsourcing's reservation (4 $ a sample) and
the engineers (1.5 each); the tests (2 $ a routine, 6 $ a PCR sample done in-house), the urgent
kits, the partner lab's tests, the recollections, the service-level penalties, the waiting
(3 $ a sample waiting one period, 8 $ two: a late-result penalty that grows with the wait), the
express refunds and credits, the on-demand courier; less the hospitals' fees (3 $ a routine, 15
$ a PCR sample), p a private sample and ``e - 3`` an express one (3 $ its handling). At the end
each sample still waiting or to be recollected costs 12 $ and the name's loss ``300 (1 - rep)``
(the private samples it costs later). The insurance pays ``min(V, 0.7 (L - 200)_+)``, L the
fortnight's urgent kits, recollections and service-level penalties.

Offered as ``transform(x, z)`` (38 normals a row; a scenario is the hospitals' routine and PCR
samples, the private samples, the failure factors and the spot price factors of each period,
the hospitals' level, the private market and the outbreak's excess ``(z - 1.64)_+``), its cost
vectorised over decisions: common random numbers are exact. lam 0.85, alpha 0.9.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 7  # two-day periods


class TestLab:
    __test__ = False  # not a pytest class
    name = "testlab"
    dim_x, dim_w = 14, 5 * T + 3
    vectorized = True
    lam, alpha = 0.85, 0.9
    ref_p, ref_e = 45.0, 15.0  # the reference private price and express surcharge ($)
    #: p, e, A_r, A_p, H_1, H_2, G, F, O, Z, M, K, E, V
    bounds = [(0.5 * ref_p, 2.0 * ref_p), (0.5 * ref_e, 2.0 * ref_e)] + [(0.0, np.inf)] * 12
    x0 = np.array([55.0, 10.0, 9.0, 6.0, 26.0, 28.0, 50.0, 15.0, 3.0, 20.0, 50.0, 50.0,
                   1.0, 250.0])

    hosp_r, hosp_p, private = 24.0, 3.0, 5.0  # thousand samples a period
    shape = np.array([1.2, 1.0, 0.8, 1.1, 1.15, 0.95, 0.8])  # the clinics' week
    el_p, el_e = 1.8, 0.1  # the private samples' elasticities
    lift_max, lift_scale = 0.4, 50.0  # marketing's lift, its scale ($k)
    ex0, ex_el = 0.3, 1.0  # the express share, its elasticity
    split = 0.4  # the private samples' routine share (the rest PCR)
    level_sd, own_sd, priv_sd, market_sd, fail_sd, spot_sd = 0.1, 0.15, 0.15, 0.05, 0.4, 0.15
    threshold = 1.64  # the outbreak: one fortnight in twenty
    prof = np.array([0.15, 0.3, 0.5, 0.7, 0.9, 1.0, 1.0])  # the outbreak's weight
    surge_r, surge_p, surge_priv = 0.5, 4.0, 1.0  # its multiplication of the samples
    spike, scarce, overuse, ill = 3.0, 2.0, 1.0, 0.3  # its other effects
    per_r, per_p = 4.0, 1.0  # thousand samples an analyser a period
    unit_r, unit_p, per_tech = 1.0, 3.0, 2.0  # technician work a sample; a technician's
    auto_max, auto_scale = 0.35, 100.0  # automation's gain, its scale ($k)
    brk_r, brk_p, slow_fix, fix_scale = 0.1, 0.15, 0.7, 0.5  # breakdowns, repairs
    urgent_cap, expiry = 4.0, 0.15  # urgent reagent kits a period (k); expired a period
    van_cap = 2.5  # thousand samples a van a period
    overhead, lease_r, lease_p, kit_price, fridge_fee = 500.0, 20.0, 35.0, 12.0, 2.0
    wage, van_fee, reserve_fee, engineer_fee, premium = 2.4, 1.2, 4.0, 1.5, 0.08
    test_r, test_p, spot_price, outsource, on_demand = 2.0, 6.0, 30.0, 35.0, 4.0
    retainer, fee_r, fee_p = 1400.0, 3.0, 15.0  # the hospitals' contract ($k; $ a sample)
    wait1, wait2, recollect, ex_credit, ex_cost = 3.0, 8.0, 30.0, 5.0, 3.0
    sla_fee, sla_tol = 10.0, 0.08
    mar, memory = 3.0, 0.6  # the name's sensitivity, memory
    end_wait, end_name = 12.0, 300.0  # $ a sample waiting at the end; $k a unit of name lost
    share, retention = 0.7, 200.0  # the insurance's share and retention

    def lift(self, x):
        return 1.0 + self.lift_max * -np.expm1(-np.asarray(x, dtype=float)[..., 11]
                                                / self.lift_scale)

    def express_share(self, x):
        return self.ex0 * np.exp(-self.ex_el * (np.asarray(x, dtype=float)[..., 1]
                                                / self.ref_e - 1.0))

    def private_mean(self, x):
        """Private samples a period in a usual fortnight with an unblemished name, before the
        clinics' week and the noise."""
        x = np.asarray(x, dtype=float)
        return (self.private * np.exp(-self.el_p * (x[..., 0] / self.ref_p - 1.0)
                                      - self.el_e * (x[..., 1] / self.ref_e - 1.0))
                * self.lift(x))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k
        level = lognormal(self.level_sd, z[5 * T])
        market = lognormal(self.market_sd, z[5 * T + 1])
        kick = np.maximum(z[5 * T + 2] - self.threshold, 0.0)
        out = self.prof.reshape(pad) * kick
        shape = self.shape.reshape(pad)
        m = columns(np.asarray(self.private_mean(x))[..., None, None], k)[0]
        routine = (self.hosp_r * shape * level * (1.0 + self.surge_r * out)
                   * lognormal(self.own_sd, z[:T]))
        pcr = (self.hosp_p * shape * level * (1.0 + self.surge_p * out)
               * lognormal(self.own_sd, z[T:2 * T]))
        private = (m * shape * market * (1.0 + self.surge_priv * out)
                   * lognormal(self.priv_sd, z[2 * T:3 * T]))
        fail = lognormal(self.fail_sd, z[3 * T:4 * T]) * (1.0 + self.overuse * out)
        spot = lognormal(self.spot_sd, z[4 * T:5 * T]) * (1.0 + self.spike * out)
        return scenario([routine, pcr, private, fail, spot, level[None], market[None],
                         kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p, e = x[..., 0], x[..., 1]
        A_r, A_p, G, F, O, Z, M, K, E, V = (x[..., i] for i in (2, 3, 6, 7, 8, 9, 10, 11,
                                                                 12, 13))
        kick = W[5 * T + 2]
        shape = np.broadcast_shapes(kick.shape, p.shape)
        ex = self.express_share(x)
        auto = 1.0 + self.auto_max * -np.expm1(-M / self.auto_scale)
        stay = self.slow_fix * np.exp(-self.fix_scale * E)  # the share of the broken not mended
        total = (self.overhead - self.retainer + self.lease_r * A_r + self.lease_p * A_p
                 + self.kit_price * G + self.fridge_fee * Z + M + K + self.premium * V
                 + T * (self.van_fee * F + self.reserve_fee * O + self.engineer_fee * E)
                 ) + np.zeros(shape)
        zero = np.zeros(shape)
        rep, stock = np.ones(shape), G + zero
        down_r, down_p = zero, zero  # analysers waiting for repair
        w1_r, w2_r, w1_p, w2_p = zero, zero, zero, zero  # samples waiting one, two periods
        back_r, back_p = zero, zero  # samples spoiled, recollected
        loss = zero
        for t in range(T):
            H = x[..., 4 + (t >= 4)]
            out = self.prof[t] * kick
            fail, spot = W[3 * T + t], W[4 * T + t]
            up_r, up_p = A_r - down_r, A_p - down_p
            new_r = up_r * -np.expm1(-self.brk_r * fail)
            new_p = up_p * -np.expm1(-self.brk_p * fail)
            cap_r = self.per_r * auto * (up_r - 0.5 * new_r)
            cap_p = self.per_p * auto * (up_p - 0.5 * new_p)
            down_r, down_p = stay * (down_r + new_r), stay * (down_p + new_p)
            priv = W[2 * T + t] * rep
            hosp = W[t] + W[T + t]
            fresh = hosp + priv
            n_r = W[t] + self.split * priv + back_r
            n_p = W[T + t] + (1.0 - self.split) * priv + back_p
            x_r, x_p = ex * self.split * priv, ex * (1.0 - self.split) * priv
            kits = stock + self.urgent_cap * np.exp(-self.scarce * out)
            d_r = np.minimum(w1_r + w2_r + n_r, cap_r)
            d_p = np.minimum(np.minimum(w1_p + w2_p + n_p, cap_p), kits)
            need = self.unit_r * d_r + self.unit_p * d_p
            hands = self.per_tech * auto * H * np.exp(-self.ill * out)
            g = np.minimum(1.0, hands / np.maximum(need, 1e-12))
            lines = []
            for D, xs, n, w1, w2 in ((g * d_r, x_r, n_r, w1_r, w2_r),
                                     (g * d_p, x_p, n_p, w1_p, w2_p)):
                ex_done = np.minimum(xs, D)
                rem = D - ex_done
                old = np.minimum(w2, rem)
                rem = rem - old
                mid = np.minimum(w1, rem)
                lines.append((D, xs - ex_done, w2 - old, w1 - mid, n - ex_done - (rem - mid)))
            (done_r, miss_r, l2_r, l1_r, l0_r), (done_p, miss_p, l2_p, l1_p, l0_p) = lines
            o2 = np.minimum(l2_p, O)
            o1 = np.minimum(l1_p, O - o2)
            o0 = np.minimum(l0_p, O - o2 - o1)
            l2_p, l1_p, l0_p = l2_p - o2, l1_p - o1, l0_p - o0
            waiting = l1_r + l1_p + l0_r + l0_p
            kept = np.minimum(1.0, Z / np.maximum(waiting, 1e-12))
            # waited too long or beyond the fridge: spoiled, recollected for the next period
            back_r = l2_r + (1.0 - kept) * (l1_r + l0_r)
            back_p = l2_p + (1.0 - kept) * (l1_p + l0_p)
            spoiled = back_r + back_p
            w2_r, w2_p, w1_r, w1_p = kept * l1_r, kept * l1_p, kept * l0_r, kept * l0_p
            from_stock = np.minimum(stock, done_p)
            urgent = self.spot_price * spot * (done_p - from_stock)
            stock = (1.0 - self.expiry) * (stock - from_stock)
            missed = miss_r + miss_p
            late = hosp / fresh * (kept * waiting + spoiled)
            sla = self.sla_fee * np.maximum(late - self.sla_tol * hosp, 0.0)
            recollected = self.recollect * spoiled
            loss = loss + urgent + recollected + sla
            total = (total + self.wage * H + self.test_r * done_r + self.test_p * done_p
                     + urgent + self.outsource * (o2 + o1 + o0) + recollected + sla
                     + self.wait1 * (w1_r + w1_p) + self.wait2 * (w2_r + w2_p)
                     + (e + self.ex_credit) * missed
                     + self.on_demand * np.maximum(fresh + spoiled - self.van_cap * F, 0.0)
                     - self.fee_r * W[t] - self.fee_p * W[T + t] - p * priv
                     - (e - self.ex_cost) * (x_r + x_p))
            bad = (0.5 * kept * waiting + spoiled + missed) / fresh
            rep = self.memory * rep + (1.0 - self.memory) * np.exp(-self.mar * bad)
        total = (total + self.end_wait * (w1_r + w2_r + w1_p + w2_p + back_r + back_p)
                 + self.end_name * (1.0 - rep))
        return total - np.minimum(V, self.share * np.maximum(loss - self.retention, 0.0))
