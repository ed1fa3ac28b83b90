"""A held-out problem: a subscription streaming service's year of four quarters with three plans
(basic, premium and a cheaper tier with ads), fifteen decisions, twelve of them open above,
written after version 11 of the default and the flu-vaccine maker, the lender and the
car-rental company. Kept out of every choice of the default; its optimum is found without acfs
(``find_optima.py`` beside it, ``optima.json``). Subscribers, streams and complaints are counted
in millions, money in $M, prices in $ a month, so a price of p earns 3 p $M a quarter from a
million subscribers.

Decisions x = (the basic price p_b and the premium price p_p ($ a month), the ad tier's discount
a (its price ``p_a = (1 - a) p_b``), the content budget K_1 a quarter in quarters 1-2 and K_2 in
quarters 3-4 ($M), the server capacity S (million peak streams), the burst contract B with the
content-delivery network (million peak streams reserved), the support agents A_1..A_4 of each
quarter (hundreds), the retention-offer budget R a quarter ($M), the marketing budget M_1 a
quarter in quarters 1-2 and M_2 in quarters 3-4 ($M) and the outage insurance's cover I ($M)).
With ``c(K) = 1 - exp(-K / 50)`` the content's reach and ``lift(M) = 1 + 0.3 (1 - exp(-M /
15))`` marketing's, K and M those of the quarter, plan j would bring

    ubase_j season_t lift(M) (1 + 0.5 c(K)) price_j(x) * econ * own_jt

sign-ups in quarter t (ubase = 1.6, 0.9, 0.8 million a quarter for basic, premium and ads,
season = 1.0, 0.9, 1.0, 1.2; ``econ`` the year's lognormal economy (sd 0.1 on the log, mean 1),
own_jt lognormal noise (sd 0.15, mean 1)), the prices' factors

    price_b = exp(-1.2 (p_b / 10 - 1) + 0.15 (p_p / 18 - 1) - 0.3 (f_a - 1)),
    price_p = exp(-1.2 (p_p / 18 - 1)),   price_a = f_a = exp(-0.8 (p_a / 6 - 1))

(a dear basic sends sign-ups to a rival, a dear premium moves some to basic, a cheaper ad tier
takes them from basic). A share ``1 - exp(-h_jt m_t)`` of plan j's subscribers is about to
leave in quarter t, the hazard

    h_jt = hbase_j exp(1.5 (p_j / ref_j - 1)) exp(-0.4 c(K)) exp(ramp_t kick) * own'_jt

(hbase = 0.09, 0.06, 0.12 a quarter, ref = 10, 18, 6 $, p_a the ad tier's price; own'
lognormal, sd 0.2, mean 1) raised by the quarter's service, m_t below. A quarter's content
makes a hit show of strength ``hit_t = c(K) * own''_t`` (lognormal, sd 0.8, mean 1; quarters
1-3) that raises the next quarter's sign-ups by a factor ``1 + 0.3 hit_t``. At peak
``peak_t = 0.25 exp(0.4 ramp_t kick) own'''_t`` of the subscribers stream at once (own'''
lognormal, sd 0.15, mean 1). A heavy-tailed shock, ``kick = (z - 1.64)_+`` (one year in twenty,
without bound), a rival's viral launch with a major outage, weighted ``ramp = 0, 0, 1, 1`` in
quarters 1-4: the churn multiplies, the peak surges as subscribers binge before leaving, 8 $M a
million subscribers is refunded a unit of the kick and the burst contract's price rises to ``12
exp(ramp_t kick)`` $M a million streams used.

The year opens with 10, 3 and 3 million subscribers on basic, premium and ads and no complaint
waiting. In each quarter t:

- the sign-ups join, ``n_j = N_j + signups_jt (1 + 0.3 hit_(t-1))`` (no hit before quarter 2),
  ``n = sum_j n_j``;
- the peak streams ``P = peak_t n`` are served by the servers up to S, the burst contract takes
  ``burst = min((P - S)_+, B)`` and the rest ``buf = (P - S - B)_+`` buffers;
- the new complaints ``0.05 n + 0.5 buf + 0.1 ramp_t kick n`` join the backlog; the agents
  answer 0.1 a hundred (a hundred agents, a hundred thousand complaints a quarter) and the
  unanswered ``u = (backlog + new - 0.1 A_t)_+`` raise the churn; 80 % of them carry over
  (``backlog = 0.8 u``);
- the hazards are multiplied by ``m_t = (1 + 3 buf / P) (1 + 1.5 u / n)``; the retention
  offers keep ``keep = 0.3 (1 - exp(-R / 4))`` of those about to leave, so ``N_j = n_j (1 - (1 -
  keep) (1 - exp(-h_jt m_t)))``;
- the service earns ``3 (p_b N_b + p_p N_p + (p_a + 3) N_a)`` (the ads 3 $ a month an ad
  subscriber) and refunds ``8 ramp_t kick n``.

Costs: each quarter the content and the marketing budgets, the servers (10 a million streams of
capacity), the burst contract (4 a million streams reserved, and its price a million streams
used beyond the servers), the agents (1.2 a hundred), the retention budget, the overhead and
the content library's licences (760) and the refunds, less the subscriptions and the ads
earned; before the year the insurance's premium (0.15 a $M of cover). At the year's end the
subscribers left are worth 20, 35 and 15 (the next year's margin a subscriber), each complaint
still waiting costs 20 and the insurance pays ``min(I, 0.8 (F - 30)_+)``, F the year's refunds.

Offered as ``transform(x, z)`` (33 normals a row; a scenario is the twelve sign-ups (plan by
plan, quarter by quarter) before the hits, the twelve hazards, the four peak shares, the three
hits, the economy and the shock's excess ``(z - 1.64)_+``), its cost vectorised over decisions:
common random numbers are exact. lam 0.75, alpha 0.95.
"""
import numpy as np
from arrays import columns, lognormal, scenario

T, K = 4, 3  # quarters, plans


class Streaming:
    name = "streaming"
    dim_x, dim_w = 3 + 4 + T + 4, 2 * K * T + 2 * T + 1
    vectorized = True
    lam, alpha = 0.75, 0.95
    ref = np.array([10.0, 18.0, 6.0])  # the plans' reference prices ($ a month)
    #: p_b, p_p, a, K_1, K_2, S, B, A_1..A_4, R, M_1, M_2, I
    bounds = ([(0.5 * ref[0], 2.0 * ref[0]), (0.5 * ref[1], 2.0 * ref[1]), (0.0, 0.9)]
              + [(0.0, np.inf)] * (4 + T + 4))
    x0 = np.array([11.0, 20.0, 0.2, 60.0, 60.0, 3.0, 1.2, 7.0, 7.0, 7.0, 7.0, 5.0, 15.0,
                   15.0, 60.0])

    ubase = np.array([1.6, 0.9, 0.8])  # sign-ups a quarter (million)
    season = np.array([1.0, 0.9, 1.0, 1.2])
    el_b, cross, take, el_p, el_a = 1.2, 0.15, 0.3, 1.2, 0.8  # the sign-ups' price elasticities
    hbase = np.array([0.09, 0.06, 0.12])  # churn hazard a quarter
    el_churn = 1.5  # the hazard's price elasticity
    reach, content_up, content_keep = 50.0, 0.5, 0.4  # content's scale ($M), sign-ups, churn
    lift_max, lift_scale = 0.3, 15.0  # marketing's lift, its scale ($M a quarter)
    hit_lift = 0.3  # next quarter's sign-ups raised by 1 + hit_lift hit
    peak0, binge = 0.25, 0.4  # share streaming at peak; its surge a unit of the kick
    ramp = np.array([0.0, 0.0, 1.0, 1.0])  # the shock's weight each quarter
    threshold = 1.64  # the shock: one year in twenty
    economy, up_noise, churn_noise, hit_noise, peak_noise = 0.1, 0.15, 0.2, 0.8, 0.15  # sd (log)
    subs0 = np.array([10.0, 3.0, 3.0])  # subscribers at the start (million)
    gripe, gripe_buf, gripe_out = 0.05, 0.5, 0.1  # complaints a subscriber, a buffered stream,
    desk, carry = 0.1, 0.8  # complaints answered by a hundred agents; share carried over
    hit_buf, hit_gripe = 3.0, 1.5  # the hazard raised by the buffering and the unanswered share
    keep_max, keep_scale = 0.3, 4.0  # retention offers: share kept at most, scale ($M)
    ad_rate = 3.0  # $ a month an ad subscriber
    server_fee, reserve_fee, cdn_price, spike = 10.0, 4.0, 12.0, 1.0  # $M a million streams
    wage, overhead, refund = 1.2, 760.0, 8.0  # $M a hundred agents, a quarter, a million subs
    worth = np.array([20.0, 35.0, 15.0])  # a subscriber left at the year's end
    waiting = 20.0  # a complaint waiting at the year's end
    cover, retention, premium = 0.8, 30.0, 0.15  # the insurance's share, retention, price

    def ad_price(self, x):
        x = np.asarray(x, dtype=float)
        return (1.0 - x[..., 2]) * x[..., 0]

    def prices(self, x):
        """The plans' prices p_b, p_p, p_a, (..., 3)."""
        x = np.asarray(x, dtype=float)
        return np.stack([x[..., 0], x[..., 1], self.ad_price(x)], axis=-1)

    def reach_of(self, x):
        """Content's reach c(K) each quarter, (..., 4)."""
        x = np.asarray(x, dtype=float)
        k = np.concatenate([np.repeat(x[..., 3:4], 2, axis=-1),
                            np.repeat(x[..., 4:5], 2, axis=-1)], axis=-1)
        return -np.expm1(-k / self.reach)

    def price_factor(self, x):
        """The prices' factors of the plans' sign-ups, (..., 3)."""
        x = np.asarray(x, dtype=float)
        f_a = np.exp(-self.el_a * (self.ad_price(x) / self.ref[2] - 1.0))
        f_b = np.exp(-self.el_b * (x[..., 0] / self.ref[0] - 1.0)
                     + self.cross * (x[..., 1] / self.ref[1] - 1.0) - self.take * (f_a - 1.0))
        f_p = np.exp(-self.el_p * (x[..., 1] / self.ref[1] - 1.0))
        return np.stack([f_b, f_p, f_a], axis=-1)

    def signup_mean(self, x):
        """Sign-ups of each plan each quarter in a usual economy before the hits and the noise,
        (..., 3, 4)."""
        x = np.asarray(x, dtype=float)
        m = np.concatenate([np.repeat(x[..., 12:13], 2, axis=-1),
                            np.repeat(x[..., 13:14], 2, axis=-1)], axis=-1)
        quarter = (self.season * (1.0 + self.lift_max * -np.expm1(-m / self.lift_scale))
                   * (1.0 + self.content_up * self.reach_of(x)))
        return (self.ubase * self.price_factor(x))[..., :, None] * quarter[..., None, :]

    def hazard_mean(self, x):
        """Churn hazard of each plan each quarter before the shock and the noise, (..., 3, 4)."""
        plan = self.hbase * np.exp(self.el_churn * (self.prices(x) / self.ref - 1.0))
        return plan[..., :, None] * np.exp(-self.content_keep * self.reach_of(x))[..., None, :]

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        n = K * T

        econ = lognormal(self.economy, z[2 * n + 2 * T - 1])
        kick = np.maximum(z[2 * n + 2 * T] - self.threshold, 0.0)
        ramp = self.ramp.reshape((T,) + (1,) * k) * kick
        mean = self.signup_mean(x)
        ups = columns(mean.reshape(mean.shape[:-2] + (n,)), k) * econ * lognormal(
            self.up_noise, z[:n])
        h = self.hazard_mean(x)
        h = columns(h.reshape(h.shape[:-2] + (n,)), k)
        h = (h.reshape((K, T) + h.shape[1:]) * np.exp(ramp)
             * lognormal(self.churn_noise, z[n:2 * n].reshape((K, T) + z.shape[1:])))
        peak = (self.peak0 * np.exp(self.binge * ramp)
                * lognormal(self.peak_noise, z[2 * n:2 * n + T]))
        hit = (columns(self.reach_of(x)[..., :T - 1], k)
               * lognormal(self.hit_noise, z[2 * n + T:2 * n + 2 * T - 1]))
        return scenario([ups, h.reshape((n,) + h.shape[2:]), peak, hit, econ[None], kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        n = K * T
        p = [x[..., 0], x[..., 1], self.ad_price(x)]
        budget = [x[..., 3], x[..., 3], x[..., 4], x[..., 4]]  # content
        spend = [x[..., 12], x[..., 12], x[..., 13], x[..., 13]]  # marketing
        S, B, A, R, I = x[..., 5], x[..., 6], [x[..., 7 + t] for t in range(T)], x[..., 11], \
            x[..., 14]
        kick = W[2 * n + 2 * T]
        shape = np.broadcast_shapes(kick.shape, S.shape)
        keep = self.keep_max * -np.expm1(-R / self.keep_scale)
        total = self.premium * I + np.zeros(shape)
        subs = [self.subs0[j] + np.zeros(shape) for j in range(K)]
        backlog = np.zeros(shape)
        refunds = np.zeros(shape)
        for t in range(T):
            boost = 1.0 + self.hit_lift * W[2 * n + T + t - 1] if t > 0 else 1.0
            here = [subs[j] + W[j * T + t] * boost for j in range(K)]
            total_subs = sum(here)
            P = W[2 * n + t] * total_subs
            over = np.maximum(P - S, 0.0)
            burst = np.minimum(over, B)
            buf = np.maximum(over - B, 0.0)
            out = self.ramp[t] * kick
            queue = backlog + (self.gripe * total_subs + self.gripe_buf * buf
                               + self.gripe_out * out * total_subs)
            u = np.maximum(queue - self.desk * A[t], 0.0)
            backlog = self.carry * u
            m = ((1.0 + self.hit_buf * buf / np.maximum(P, 1e-12))
                 * (1.0 + self.hit_gripe * u / np.maximum(total_subs, 1e-12)))
            earned = 0.0
            for j in range(K):
                leave = -np.expm1(-W[n + j * T + t] * m)
                subs[j] = here[j] * (1.0 - (1.0 - keep) * leave)
                earned = earned + 3.0 * p[j] * subs[j]
            earned = earned + 3.0 * self.ad_rate * subs[2]
            refund = self.refund * out * total_subs
            refunds = refunds + refund
            total = (total + budget[t] + spend[t] + self.server_fee * S + self.reserve_fee * B
                     + self.cdn_price * np.exp(self.spike * out) * burst + self.wage * A[t] + R
                     + self.overhead + refund - earned)
        total = total - sum(self.worth[j] * subs[j] for j in range(K)) + self.waiting * backlog
        return total - np.minimum(I, self.cover * np.maximum(refunds - self.retention, 0.0))
