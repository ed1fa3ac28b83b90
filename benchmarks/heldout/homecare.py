"""A held-out problem: a home-care agency's month of four weeks in three districts (the city,
the suburbs, the rural district), fourteen decisions, twelve of them open above, written after
version 15 of the default and its judgement on the freight rail operator. Kept out of every
choice of the default; its optimum is found without acfs (``find_optima.py`` beside it,
``optima.json``). Care is counted in thousands of contact hours (the hours spent in the clients'
homes), carers one by one, money in $k, so a fee of f $ an hour brings f $k from a thousand
hours.

Decisions x = (the hourly fee f for private clients ($ an hour, from 0.5 to 2 times the
reference 46), the contract rate b bid for the council's care packages ($ an hour, from 0.5 to 2
times the reference 34), the carers E_1, E_2, E_3 employed in each district (paid their 37.5
hours a week whether busy), a bank B of on-call carers (paid a retainer, and when called), the
agency hours A reserved (thousand contact hours a week, paid whether used and again when used),
the electric cars C leased for the rural carers, a recruitment and retention budget R ($k), a
training budget Q ($k), the scheduling coordinators S, the hospital-discharge liaison capacity
H (discharges set up a week), the overtime u allowed (hours a carer a week) and an insurance
cover V ($k) of the month's penalties). The fee and the bid move the referrals by an exponential
elasticity (what a dear fee or a high bid loses goes to rival agencies; a lower bid wins more of
the council's packages):

    P_ta = p_a exp(-2.2 (f / 46 - 1)) level (1 + 0.3 storm_t) e1_ta,
    K_ta = k_a exp(-4 (b / 34 - 1)) level (1 + 0.3 storm_t) e2_ta,
    D_t = 60 exp(-4 (b / 34 - 1)) (1 + 1.5 storm_t) e4_t

the private and the council hours wanted a week in district a (p = 6, 4.5, 1.8; k = 7, 5.5,
3.5) and the hospital discharges referred to the agency a week (each a package of 12 hours a
week); ``level`` the month's lognormal level (sd 0.06, mean 1), e1, e2, e4 lognormal, mean 1, sd
0.1, 0.08 and 0.2. A carer's contact share is ``eff_a = (1 - travel_a) sched(S)``: the travel
takes ``travel = 0.12, 0.2, 0.35 (0.55 + 0.45 exp(-C / 60))`` of the paid hours (the cars speed
the rural visits, with diminishing returns) and the gaps in the rota ``sched(S) = 1 - 0.2
exp(-S / 15)`` of the rest. The training leaves ``err(Q) = 0.2 + 0.8 exp(-Q / 40)`` of the
untrained errors, and the recruitment and retention budget ``ret(R) = 0.4 + 0.6 exp(-R / 60)``
of the carers' attrition.

A heavy-tailed outbreak of flu and norovirus with a heatwave, ``kick = (z - 1.64)_+`` (one month
in twenty, without bound), weighted ``w = 0.3, 0.6, 0.9, 1`` over the weeks (more later),
``storm_t = w_t kick``, raises the referrals and more the hospital discharges, makes carers
sick, keeps the bank's and the agencies' carers away, drives carers to leave and raises the
errors. In week t the scenario is, beside the referrals,

    sick_ta = 1 - exp(-0.05 (1 + 5 storm_t) e3_ta),   att_t = 0.01 (1 + storm_t) e5_t

(the share of district a's carers off sick and the carers' weekly attrition hazard; e3, e5
lognormal, mean 1, sd 0.3 and 0.25).

The month opens with E_a carers in each district, no visit waiting, no discharge waiting, no
discharge package running and the goodwill ``g = 1``. In week t:

- the discharges waiting and referred, ``dq = dwait + g D_t``: the liaison team sets up ``set =
  min(dq, H)``, the rest are delayed (fined 1 each a week), half of them go to other providers,
  the others wait (they carry over); the packages set up start the next week, ``pk_a <- 0.8
  pk_a + 0.012 set m_a`` (m = 0.45, 0.35, 0.2; a fifth of the packages end each week);
- the work of district a, private ``wp_a + g P_ta`` and council ``wk_a + g K_ta + pk_a`` (wp,
  wk the visits waiting); its carers at work, ``n_a = N_a (1 - sick_ta)``, make ``reg_a =
  0.0375 n_a eff_a`` of it; the bank makes ``min(sum rest, 0.012 B / (1 + 0.8 storm_t))`` of
  the rest (12 contact hours a week each), shared in proportion; the district's carers work
  overtime, up to ``u n_a eff_a / 1000``; the agencies make ``min(sum rest, A / (1 + 0.5
  storm_t))`` of what remains, shared in proportion; each district's private and council work
  are served in one proportion;
- the fee and the bid are paid on the hours served, ``f served_p + b served_k``; the visits not
  made, ``left``, cost a late penalty of 25 a thousand hours; 30 % of them are lost (the
  clients go to rivals) and the rest wait (they carry over); the goodwill falls, ``g <- g
  exp(-1.5 lost / 30)`` (it carries over and lowers the later weeks' referrals and discharges);
- the errors: ``0.25 err(Q) (1 + storm_t) (own + 2 (bank + agency))`` incidents (4 each), own
  the hours the districts' carers made, bank and agency the outsiders' (twice as error-prone);
- the carers leave at the hazard ``h_a = att_t ret(R) (1 + (o_a / 5)^2)``, o_a the overtime
  hours a carer at work worked, ``N_a <- N_a exp(-h_a)`` (the leavers lower the later weeks'
  capacity and each costs 6 to replace).

Costs: the overhead (400), the carers at work or off sick (0.5625 a week each: 37.5 hours at 15
$), the bank's retainer (0.1 a week each), the agency hours reserved (4 a thousand a week), the
cars (0.12 a week each), the coordinators (1.3 a week each), the liaison capacity (0.3 a
discharge a week), R, Q and the cover's premium (0.1 a $k of cover); each week the overtime
(22.5 $ a paid hour, ``22.5 ot_a / eff_a``), the bank's hours (26 a thousand contact hours),
the agencies' (38), the late penalties, the delayed discharges' fines, the incidents and the
leavers' replacement, less the fees. At the end the visits still waiting cost 40 a thousand
hours, the discharges still waiting 2 each and the goodwill lost is valued at ``4000 (1 - g)``
(the next months' margin). The cover pays ``min(V, 0.5 (F - 100)_+)``, F the month's penalties
(the late penalties, the delayed discharges' fines and the incidents).

Offered as ``transform(x, z)`` (46 normals a row; a scenario is each week and district's private
and council hours wanted and share of carers off sick, each week's discharges and attrition
hazard, the month's level and the outbreak's excess ``(z - 1.64)_+``), its cost vectorised over
decisions: common random numbers are exact. lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T, A = 4, 3  # weeks, districts (the city, the suburbs, the rural district)


class HomeCare:
    name = "homecare"
    dim_x, dim_w = 14, 3 * T * A + 2 * T + 2
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref_f, ref_b = 46.0, 34.0  # the private fee's and the council bid's references ($ an hour)
    #: f, b, E_1, E_2, E_3, B, A, C, R, Q, S, H, u, V
    bounds = [(0.5 * ref_f, 2.0 * ref_f), (0.5 * ref_b, 2.0 * ref_b)] + [(0.0, np.inf)] * 12
    x0 = np.array([46.0, 35.0, 420.0, 350.0, 200.0, 80.0, 3.5, 40.0, 50.0, 20.0, 20.0, 40.0,
                   6.0, 150.0])

    private = np.array([6.0, 4.5, 1.8])  # thousand hours a week at the reference fee
    council = np.array([7.0, 5.5, 3.5])  # thousand hours a week at the reference bid
    discharges, package = 60.0, 0.012  # discharges a week; a package's thousand hours a week
    mix = np.array([0.45, 0.35, 0.2])  # the districts' shares of the packages
    ending = 0.2  # the share of the packages ending each week
    el_f, el_b = 2.2, 4.0
    level_sd, priv_sd, coun_sd, sick_sd, dis_sd, att_sd = 0.06, 0.1, 0.08, 0.3, 0.2, 0.25
    threshold = 1.64  # the outbreak: one month in twenty
    w = np.array([0.3, 0.6, 0.9, 1.0])  # its weight each week
    surge, dis_surge, sick_surge, away_bank, away_agency, leave_surge, err_surge = (
        0.3, 1.5, 5.0, 0.8, 0.5, 1.0, 1.0)
    sick0, att0 = 0.05, 0.01
    travel = np.array([0.12, 0.2, 0.35])
    car_keep, car_scale = 0.55, 60.0  # the rural travel the cars cannot cut; their scale
    gap, s_scale = 0.2, 15.0  # the rota's gaps without coordinators; their scale
    err_keep, q_scale = 0.2, 40.0
    ret_keep, r_scale = 0.4, 60.0
    hours, bank_hours, ot_scale = 0.0375, 0.012, 5.0  # thousand hours a week; overtime hours
    errors, agency_errors = 0.25, 2.0  # incidents a thousand hours; the outsiders' factor
    give_up, good_k, good_base, dis_give_up = 0.3, 1.5, 30.0, 0.5
    overhead, carer_fee, retainer, reserve_fee, car_fee, coord_fee, liaison_fee = (
        400.0, 0.5625, 0.1, 4.0, 0.12, 1.3, 0.3)
    premium, ot_wage, bank_rate, agency_rate, late_fee, dis_fine, incident, replace = (
        0.1, 22.5, 26.0, 38.0, 25.0, 1.0, 4.0, 6.0)
    end_wait, end_dis, good_value = 40.0, 2.0, 4000.0
    share, retention = 0.5, 100.0  # the insurance's share and retention

    def win(self, x):
        """The council's referrals at the bid b, against the reference bid's."""
        b = np.asarray(x, dtype=float)[..., 1]
        return np.exp(-self.el_b * (b / self.ref_b - 1.0))

    def referrals_mean(self, x):
        """Thousand hours a week wanted in each district, private then council, before the
        outbreak, the level and the noise: shape (..., 6)."""
        x = np.asarray(x, dtype=float)
        fp = np.exp(-self.el_f * (x[..., 0] / self.ref_f - 1.0))
        return np.concatenate([self.private * fp[..., None],
                               self.council * self.win(x)[..., None]], axis=-1)

    def efficiency(self, x):
        """Each district's contact share of a carer's paid hours: shape (..., 3)."""
        x = np.asarray(x, dtype=float)
        cars = self.car_keep + (1.0 - self.car_keep) * np.exp(-x[..., 7] / self.car_scale)
        one = np.ones_like(cars)
        travel = self.travel * np.stack([one, one, cars], axis=-1)
        sched = 1.0 - self.gap * np.exp(-x[..., 10] / self.s_scale)
        return (1.0 - travel) * sched[..., None]

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * (k + 1)
        level = lognormal(self.level_sd, z[-2])
        kick = np.maximum(z[-1] - self.threshold, 0.0)
        storm = self.w.reshape(pad) * kick  # (T, 1, ...)
        m = columns(self.referrals_mean(x)[..., None, :], k)  # (6, ...)
        zz = z[:3 * T * A].reshape((3, T, A) + z.shape[1:])
        priv = m[:A][None] * level * (1.0 + self.surge * storm) * lognormal(self.priv_sd, zz[0])
        coun = m[A:][None] * level * (1.0 + self.surge * storm) * lognormal(self.coun_sd, zz[1])
        sick = -np.expm1(-self.sick0 * (1.0 + self.sick_surge * storm)
                         * lognormal(self.sick_sd, zz[2]))
        o = 3 * T * A
        win = columns(self.win(x)[..., None, None], k)[0]
        dis = (self.discharges * win * (1.0 + self.dis_surge * storm[:, 0])
               * lognormal(self.dis_sd, z[o:o + T]))
        att = (self.att0 * (1.0 + self.leave_surge * storm[:, 0])
               * lognormal(self.att_sd, z[o + T:o + 2 * T]))
        return scenario([priv.reshape((T * A,) + priv.shape[2:]),
                         coun.reshape((T * A,) + coun.shape[2:]),
                         sick.reshape((T * A,) + sick.shape[2:]), dis, att, level[None],
                         kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        f, b = x[..., 0], x[..., 1]
        E = [x[..., 2 + a] for a in range(A)]
        B, Ag, C, R, Q, S, H, u, V = (x[..., j] for j in range(5, 14))
        kick = W[-1]
        shape = np.broadcast_shapes(kick.shape, f.shape)
        zero = np.zeros(shape)
        eff = self.efficiency(x)
        eff = [eff[..., a] for a in range(A)]
        err = self.err_keep + (1.0 - self.err_keep) * np.exp(-Q / self.q_scale)
        ret = self.ret_keep + (1.0 - self.ret_keep) * np.exp(-R / self.r_scale)
        total = (self.overhead + self.retainer * T * B + self.reserve_fee * T * Ag
                 + self.car_fee * T * C + self.coord_fee * T * S + self.liaison_fee * T * H
                 + R + Q + self.premium * V) + zero
        N = [E[a] + zero for a in range(A)]
        wp, wk, pk = [zero] * A, [zero] * A, [zero] * A
        dwait, good, claims = zero, 1.0 + zero, zero
        o_priv, o_coun, o_sick, o_dis, o_att = 0, T * A, 2 * T * A, 3 * T * A, 3 * T * A + T
        tiny = 1e-12
        for t in range(T):
            storm = self.w[t] * kick
            # the hospital discharges: set up by the liaison team or delayed
            dq = dwait + good * W[o_dis + t]
            setup = np.minimum(dq, H)
            delayed = dq - setup
            dwait = (1.0 - self.dis_give_up) * delayed
            fines = self.dis_fine * delayed
            # the districts' work and their own carers
            work_p = [wp[a] + good * W[o_priv + t * A + a] for a in range(A)]
            work_k = [wk[a] + good * W[o_coun + t * A + a] + pk[a] for a in range(A)]
            work = [work_p[a] + work_k[a] for a in range(A)]
            n = [N[a] * (1.0 - W[o_sick + t * A + a]) for a in range(A)]
            reg = [np.minimum(work[a], self.hours * n[a] * eff[a]) for a in range(A)]
            rest = [work[a] - reg[a] for a in range(A)]
            # the bank, shared in proportion
            need = sum(rest)
            bank = np.minimum(need, self.bank_hours * B / (1.0 + self.away_bank * storm))
            keep = 1.0 - bank / np.maximum(need, tiny)
            rest = [r * keep for r in rest]
            # the district's carers' overtime
            otcap = [u * n[a] * eff[a] / 1000.0 for a in range(A)]
            ot = [np.minimum(rest[a], otcap[a]) for a in range(A)]
            rest = [rest[a] - ot[a] for a in range(A)]
            # the agencies, shared in proportion
            need = sum(rest)
            agency = np.minimum(need, Ag / (1.0 + self.away_agency * storm))
            keep = 1.0 - agency / np.maximum(need, tiny)
            left = [r * keep for r in rest]
            # the fees on the hours served, each district's work served in one proportion
            served = [1.0 - left[a] / np.maximum(work[a], tiny) for a in range(A)]
            fees = sum(f * work_p[a] * served[a] + b * work_k[a] * served[a] for a in range(A))
            left_tot = sum(left)
            late = self.late_fee * left_tot
            own = sum(reg) + sum(ot)
            incidents = (self.incident * self.errors * err * (1.0 + self.err_surge * storm)
                         * (own + self.agency_errors * (bank + agency)))
            claims = claims + late + fines + incidents
            total = (total + self.carer_fee * sum(N)
                     + sum(self.ot_wage * ot[a] / eff[a] for a in range(A))
                     + self.bank_rate * bank + self.agency_rate * agency
                     + late + fines + incidents - fees)
            # the visits not made: a share lost (goodwill), the rest wait
            wp = [(1.0 - self.give_up) * work_p[a] * (1.0 - served[a]) for a in range(A)]
            wk = [(1.0 - self.give_up) * work_k[a] * (1.0 - served[a]) for a in range(A)]
            good = good * np.exp(-self.good_k * self.give_up * left_tot / self.good_base)
            # the discharge packages set up start next week
            pk = [(1.0 - self.ending) * pk[a] + self.package * setup * self.mix[a]
                  for a in range(A)]
            # the carers leave, more after overtime
            for a in range(A):
                o_hours = u * ot[a] / np.maximum(otcap[a], tiny)
                h = W[o_att + t] * ret * (1.0 + (o_hours / self.ot_scale) ** 2)
                gone = N[a] * -np.expm1(-h)
                N[a] = N[a] - gone
                total = total + self.replace * gone
        total = (total + self.end_wait * (sum(wp) + sum(wk)) + self.end_dis * dwait
                 + self.good_value * (1.0 - good))
        return total - np.minimum(V, self.share * np.maximum(claims - self.retention, 0.0))
