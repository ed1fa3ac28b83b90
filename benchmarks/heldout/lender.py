"""A held-out problem: a consumer lender's year of four quarters in three risk tiers (prime,
near-prime, subprime), fifteen decisions, twelve of them open above, written after version 11
of the default and the hotel, the ride-hailing platform and the toy manufacturer. Kept out of
every choice of the default; its optimum is found without acfs (``find_optima.py`` beside it,
``optima.json``). Applications and accounts are counted one by one, money in $k; a rate of r %
a year earns r / 400 of a balance a quarter.

Decisions x = (the interest rates r_1, r_2, r_3 of the prime, near-prime and subprime tiers (%
a year), their credit limits L_1, L_2, L_3 ($k an account), the underwriters U, the collectors
C_1..C_4 of each quarter, the marketing budget A_1 a quarter in quarters 1-2 and A_2 in
quarters 3-4 ($k), the committed credit facility F ($k) and the credit-insurance cover I
($k)). In quarter t tier j would bring

    abase_j exp(-el_j (r_j / ref_j - 1)) (1 + (1 - exp(-L_j / s_j))) season_t lift(A)
            * econ * exp(happ_j ramp_t kick) * own_jt

applications (abase = 200 for each tier, ref = 12, 20, 30 %, el = 2.0, 1.5, 1.0: the prime
borrowers the most sensitive to the rate, those a dearer rate loses borrowing from a rival; s =
8, 5, 3.5 $k, a borrower's need, so a higher limit draws more applications with diminishing
returns; season = 0.9, 1.0, 1.0, 1.15; marketing lifts them by ``lift(A) = 1 + 0.3 (1 -
exp(-A / 15))``, A = A_1 in quarters 1-2 and A_2 in quarters 3-4; ``econ`` the year's lognormal
economy (sd 0.1 on the log, mean 1), own_jt lognormal noise (sd 0.15, mean 1)). A share
``d_jt = 1 - exp(-h_jt)`` of tier j's accounts defaults in quarter t, the hazard

    h_jt = hbase_j exp(adv_j (r_j / ref_j - 1)) econ^-2 exp(hdef_j ramp_t kick) * own'_jt

(hbase = 0.004, 0.012, 0.025 a quarter; adv = 0.8, 1.2, 1.8: a dearer rate drives the better
borrowers away first, the subprime's the most; own' lognormal, sd 0.25, mean 1). A worked
delinquent balance is recovered in a share ``rho_t = 1 - exp(-1.5 exp(-0.6 ramp_t kick)
own''_t)`` (own'' lognormal, sd 0.15, mean 1). A heavy-tailed recession, ``kick = (z -
1.28)_+`` (one year in ten, without bound), weighted ``ramp = 0, 0.7, 1, 1`` in quarters 1-4,
multiplies the defaults (hdef = 0.6, 0.9, 1.2, the subprime's the most), moves the
applications (happ = -0.2, 0, 0.5: more subprime, fewer prime), cuts the recoveries and raises
the penalty funding rate.

The year opens with balances of 4000, 2500 and 1200, unused lines of 3000, 1500 and 600 in the
three tiers, 100 of delinquent balances and no application waiting. A new account of tier j
draws ``b_j = s_j (1 - exp(-L_j / s_j))`` of its limit and leaves ``L_j - b_j`` unused. In each
quarter t:

- the applications waiting and the quarter's applications of each tier are ``pend_j``; the
  underwriters handle 150 each a quarter, a share ``serv = min(1, 150 U / sum_j pend_j)`` of
  every tier's; of those handled 90, 80 and 65 % are approved and
  open accounts (``acc_j = approve_j serv pend_j``), each adding b_j to the balances and L_j - b_j
  to the unused lines; of those not handled 40 % go to a rival and the rest wait a quarter
  (``wait_j = 0.6 (1 - serv) pend_j``, a queue that carries over);
- the lender funds its balances and the delinquent ones, ``need = sum_j bal_j + pool``: the
  facility's part ``min(need, F)`` at 1.2 % a quarter, a commitment fee of 0.3 % a quarter on
  the unused ``(F - need)_+`` and the rest ``(need - F)_+`` borrowed at a penalty rate of ``3
  (1 + 1.5 ramp_t kick)`` % a quarter;
- the defaulters of each tier draw 90 % of their unused lines before defaulting: the pool of
  delinquent balances grows by ``d_jt (bal_j + 0.9 line_j)`` (a higher limit, a larger loss
  given default), and the balances and lines shrink by the share d_jt; interest ``r_j / 400
  bal_j`` is earned on what is left; then a share ``pay_j = 1 - exp(-0.1 exp(el_j (r_j / ref_j
  - 1)))`` of the balances and lines is repaid and closed (dearer credit refinanced elsewhere
  sooner);
- the collectors, working 25 each a quarter, reach a share ``w = 1 - exp(-25 C_t / pool)`` of
  the pool (more staff per delinquent account, diminishing returns); of what they work rho_t is
  recovered and the rest charged off, and of what is not worked 40 % is charged off and 60 %
  stays delinquent (it carries over): ``charged = pool ((1 - rho_t) w + 0.4 (1 - w))``, ``pool
  <- 0.6 (1 - w) pool``.

Costs: before the year the insurance's premium (0.12 a $k of cover); each quarter the
overhead (30), the underwriters (8 each), the collectors (9 each), 0.03 an account opened, the
funding and the balances charged off, less the interest earned; the marketing (A_1 and A_2 in
each of their two quarters). At the year's end 80 % of the pool left is written off, the
balances left are worth 0.02, 0.03 and 0.04 a $k (the next year's margin) and the insurance
pays ``min(I, 0.6 (D - 1000)_+)``, D the year's defaulted balances (the sum of the pool's
additions, before any recovery).

Offered as ``transform(x, z)`` (30 normals a row; a scenario is the twelve applications and the
twelve default shares of the three tiers (tier by tier, quarter by quarter), the four quarters'
recovery shares, the economy and the recession's excess ``(z - 1.28)_+``), its cost vectorised
over decisions: common random numbers are exact. lam 0.7, alpha 0.95.
"""
import numpy as np
from arrays import columns, lognormal, scenario

T, K = 4, 3  # quarters, risk tiers


class Lender:
    name = "lender"
    dim_x, dim_w = 2 * K + 2 + T + 3, 2 * K * T + T + 2
    vectorized = True
    lam, alpha = 0.7, 0.95
    ref = np.array([12.0, 20.0, 30.0])  # the tiers' reference rates (% a year)
    el = np.array([2.0, 1.5, 1.0])  # the applications' rate elasticity
    adverse = np.array([0.8, 1.2, 1.8])  # the default hazard's rate elasticity
    #: r_1..r_3, L_1..L_3, U, C_1..C_4, A_1, A_2, F, I
    bounds = ([(0.5 * r, 2.0 * r) for r in ref] + [(0.0, np.inf)] * (K + 1 + T + 4))
    x0 = np.array([11.0, 16.0, 34.0, 12.0, 6.0, 5.0, 6.0, 5.0, 5.0, 5.0, 5.0, 15.0, 15.0,
                   10000.0, 400.0])

    abase = np.array([200.0, 200.0, 200.0])  # applications a quarter
    season = np.array([0.9, 1.0, 1.0, 1.15])  # the quarters' applications
    scale = np.array([8.0, 5.0, 3.5])  # a borrower's need ($k): the limit's scale
    limit_lift = 1.0  # applications lifted by 1 + limit_lift (1 - exp(-L / scale))
    approve = np.array([0.9, 0.8, 0.65])  # share of the applications underwritten approved
    draw = 0.9  # share of the unused line a defaulter draws before defaulting
    hazard = np.array([0.004, 0.012, 0.025])  # default hazard a quarter
    ramp = np.array([0.0, 0.7, 1.0, 1.0])  # the recession's weight each quarter
    hit_def = np.array([0.6, 0.9, 1.2])  # defaults multiplied by exp(hit ramp kick)
    hit_app = np.array([-0.2, 0.0, 0.5])  # applications multiplied by exp(hit ramp kick)
    hit_rec, spike = 0.6, 1.5  # recoveries cut, the penalty rate raised a unit of the kick
    threshold = 1.28  # the recession: one year in ten
    economy, app_noise, def_noise, rec_noise = 0.1, 0.15, 0.25, 0.15  # sd (log)
    def_econ = 2.0  # the hazard falls as economy^-2
    lift_max, lift_scale = 0.3, 15.0  # marketing's lift, its scale ($k a quarter)
    desk, leave = 150.0, 0.4  # applications an underwriter a quarter; waiting share lost
    work, recover = 25.0, 1.5  # $k a collector works a quarter; the recovery's hazard
    unworked = 0.4  # share of the delinquent balances not worked charged off a quarter
    provision = 0.8  # share of the delinquent balances left at the year's end written off
    repay = 0.1  # the repayment's hazard a quarter at the reference rate
    book0 = np.array([4000.0, 2500.0, 1200.0])  # balances at the start ($k)
    line0 = np.array([3000.0, 1500.0, 600.0])  # unused lines at the start ($k)
    worth = np.array([0.02, 0.03, 0.04])  # a $k of balance left at the year's end
    pool0 = 100.0  # delinquent balances at the start ($k)
    rate, fee, penalty = 0.012, 0.003, 0.03  # funding a quarter: facility, commitment, beyond
    cover, retention, premium = 0.6, 1000.0, 0.12  # the insurance's share, retention, price
    overhead, desk_wage, collector_wage, origination = 30.0, 8.0, 9.0, 0.03  # $k

    def lift(self, x):
        """Marketing's lift of each quarter's applications, (..., 4)."""
        x = np.asarray(x, dtype=float)
        a = np.concatenate([np.repeat(x[..., 11:12], 2, axis=-1),
                            np.repeat(x[..., 12:13], 2, axis=-1)], axis=-1)
        return 1.0 + self.lift_max * -np.expm1(-a / self.lift_scale)

    def application_mean(self, x):
        """Applications of each tier each quarter in a usual economy before the recession and
        the noise, (..., 3, 4)."""
        x = np.asarray(x, dtype=float)
        r, L = x[..., 0:K], x[..., K:2 * K]
        tier = (self.abase * np.exp(-self.el * (r / self.ref - 1.0))
                * (1.0 + self.limit_lift * -np.expm1(-L / self.scale)))
        return tier[..., :, None] * (self.season * self.lift(x))[..., None, :]

    def hazard_mean(self, x):
        """Default hazard of each tier a quarter in a usual economy, (..., 3)."""
        x = np.asarray(x, dtype=float)
        return self.hazard * np.exp(self.adverse * (x[..., 0:K] / self.ref - 1.0))

    def balance(self, x):
        """A new account's balance ``scale (1 - exp(-L / scale))`` ($k) in each tier,
        (..., 3)."""
        return self.scale * -np.expm1(-np.asarray(x, dtype=float)[..., K:2 * K] / self.scale)

    def repaid(self, x):
        """Share of each tier's balances repaid a quarter, (..., 3): dearer credit is
        refinanced elsewhere sooner, the better borrowers first."""
        x = np.asarray(x, dtype=float)
        return -np.expm1(-self.repay * np.exp(self.el * (x[..., 0:K] / self.ref - 1.0)))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        n = K * T

        econ = lognormal(self.economy, z[2 * n + T])
        kick = np.maximum(z[2 * n + T + 1] - self.threshold, 0.0)
        ramp = self.ramp.reshape((1, T) + (1,) * k) * kick
        tier = (K, 1) + (1,) * k
        mean = self.application_mean(x)
        apps = columns(mean.reshape(mean.shape[:-2] + (1, n)), k)
        apps = (apps.reshape((K, T) + apps.shape[1:]) * econ
                * np.exp(self.hit_app.reshape(tier) * ramp)
                * lognormal(self.app_noise, z[:n].reshape((K, T) + z.shape[1:])))
        h = columns(self.hazard_mean(x)[..., None, :], k)
        h = (h.reshape((K, 1) + h.shape[1:]) * econ**-self.def_econ
             * np.exp(self.hit_def.reshape(tier) * ramp)
             * lognormal(self.def_noise, z[n:2 * n].reshape((K, T) + z.shape[1:])))
        d = -np.expm1(-h)
        rec = -np.expm1(-self.recover * np.exp(-self.hit_rec * ramp[0])
                        * lognormal(self.rec_noise, z[2 * n:2 * n + T]))
        return scenario([apps.reshape((n,) + apps.shape[2:]), d.reshape((n,) + d.shape[2:]),
                         rec, econ[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        n = K * T
        r, L = [x[..., j] for j in range(K)], [x[..., K + j] for j in range(K)]
        U, C, A_1, A_2, F, I = (x[..., 2 * K], [x[..., 2 * K + 1 + t] for t in range(T)],
                                x[..., 2 * K + 1 + T], x[..., 2 * K + 2 + T],
                                x[..., 2 * K + 3 + T], x[..., 2 * K + 4 + T])
        kick = W[2 * n + T + 1]
        shape = np.broadcast_shapes(kick.shape, U.shape)
        total = (self.premium * I + T * (self.overhead + self.desk_wage * U)
                 + 2.0 * (A_1 + A_2) + np.zeros(shape))
        size = self.balance(x)
        paid = self.repaid(x)
        book = [self.book0[j] + np.zeros(shape) for j in range(K)]
        line = [self.line0[j] + np.zeros(shape) for j in range(K)]
        wait = [np.zeros(shape) for _ in range(K)]
        pool = self.pool0 + np.zeros(shape)
        defaulted = np.zeros(shape)
        for t in range(T):
            pending = [wait[j] + W[j * T + t] for j in range(K)]
            asked = sum(pending)
            served = np.minimum(1.0, self.desk * U / np.maximum(asked, 1e-12))
            new = 0.0
            for j in range(K):
                wait[j] = (1.0 - self.leave) * (1.0 - served) * pending[j]
                accounts = self.approve[j] * served * pending[j]
                book[j] = book[j] + accounts * size[..., j]
                line[j] = line[j] + accounts * (L[j] - size[..., j])
                new = new + accounts
            need = sum(book) + pool
            funding = (self.rate * np.minimum(need, F) + self.fee * np.maximum(F - need, 0.0)
                       + self.penalty * (1.0 + self.spike * self.ramp[t] * kick)
                       * np.maximum(need - F, 0.0))
            interest = 0.0
            for j in range(K):
                d = W[n + j * T + t]
                lost = d * (book[j] + self.draw * line[j])
                pool, defaulted = pool + lost, defaulted + lost
                book[j], line[j] = (1.0 - d) * book[j], (1.0 - d) * line[j]
                interest = interest + r[j] / 400.0 * book[j]
                book[j], line[j] = (1.0 - paid[..., j]) * book[j], (1.0 - paid[..., j]) * line[j]
            worked = -np.expm1(-self.work * C[t] / np.maximum(pool, 1e-12))
            rho = W[2 * n + t]
            charged = pool * ((1.0 - rho) * worked + self.unworked * (1.0 - worked))
            pool = (1.0 - self.unworked) * (1.0 - worked) * pool
            total = (total + self.collector_wage * C[t] + self.origination * new + funding
                     - interest + charged)
        total = total - sum(self.worth[j] * book[j] for j in range(K))
        return total + self.provision * pool - np.minimum(
            I, self.cover * np.maximum(defaulted - self.retention, 0.0))
