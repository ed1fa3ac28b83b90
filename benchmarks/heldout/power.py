"""A held-out problem: an electricity retailer's summer quarter of six two-week periods, fifteen
decisions, thirteen of them open above, written after version 9 of the default and the fashion
retailer and the mine. Kept out of every choice of the default; its optimum is found without
acfs (``find_optima.py`` beside it, ``optima.json``). Customers are counted in thousands, energy
in GWh (so a thousand customers using u MWh each use u GWh), money in $M, so a price of p $ a
MWh is p / 1000 $M a GWh; the hedges and the battery's power in MW, its energy in MWh.

Decisions x = (the flat retail tariff p ($ a MWh), the peak-hour surcharge s ($ a MWh at the
peak), the demand-response payment r ($ a period to each customer enrolled), the baseload hedge
Hb (MW in every hour), the peak hedges Ha, Hm, He (MW in the peak hours of periods 1-2, 3-4 and
5-6), the battery's energy capacity E (MWh) and power rating P (MW), the rooftop-solar buy-back
rate b ($ a MWh generated), the call-centre staff S, the marketing m1 and m2 ($M a period in
periods 1-3 and 4-6), the credit-insurance cover I ($M) and the working-capital reserve K
($M)). A period has 14 days of 18 off-peak and 6 peak hours (252 and 84 hours). The customers
pay ``pi = (p + s / 3) / (120 + 50 / 3)`` of their usual price (the surcharge weighs a third).
In period t a customer would use

    u_off = 0.22 exp(-0.6 (p / 120 - 1)) temp exp(0.1 k_t kick) own_t
    u_pk  = 0.11 exp(-0.5 (p / 120 - 1) - 0.6 (s / 50 - 1)) temp^2 exp(0.4 k_t kick) own_t

MWh off-peak and at the peak (``temp`` the summer's lognormal warmth, sd 0.08 on the log, mean
1; own noise sd 0.05 and 0.08, mean 1): the tariff and the surcharge move the consumption by an
exponential elasticity. Marketing brings ``30 (1 - exp(-m / 0.15)) exp(-4 (pi - 1)) own_t``
thousand new customers in period t (m = m1 in periods 1-3, m2 in 4-6; own noise sd 0.25:
diminishing returns, fewer at a dearer price), and each thousand customers complain ``0.035
exp(pi - 1) exp(0.8 k_t kick) own_t`` thousand times (own noise sd 0.2). The spot price is
``48 level exp(0.8 k_t kick) own_t`` $ a MWh off-peak and ``90 level exp(2.2 k_t kick) own_t``
at the peak (``level`` the quarter's lognormal price level, sd 0.1; own noise sd 0.12 and
0.25, mean 1). A share ``bd = 0.02 exp(kick) own`` of the bills is never paid (own noise sd 0.3,
mean 1). A heavy-tailed heatwave, ``kick = (z - 1.64)_+`` (one quarter in twenty, without
bound), raises the load, the complaints and the bad debt and spikes the spot price for several
periods, most in periods 3-4 (``k`` = 0.5, 0.8, 1.0, 1.0, 0.8, 0.5).

The quarter opens with 100 thousand customers, no complaints waiting, the battery full and the
reserve K in cash. In each period: the new customers join, N <- N + new_t. A share ``e = 0.5 (1 -
exp(-r / 3))`` of the customers enrol in demand response and cut their peak use by half on the
days they are called, a share ``c_t = 1 - exp(-(spot_pk - 180)_+ / 100)`` of the period, so the
customers use ``D_off = N u_off`` and ``D_pk = N u_pk (1 - 0.5 e c_t)`` GWh. A share ``sigma =
0.04 + 0.3 (1 - exp(-b / 60))`` of them have rooftop solar, generating ``g = 0.12 exp(0.2 k_t
kick)`` MWh each (sunnier in a heatwave), three quarters off-peak, a quarter at the peak; the
retailer pays b on all of it, ``G = sigma N g`` GWh, and it lowers the load it must supply to
``L_off = D_off - 0.75 G`` and ``L_pk = D_pk - 0.25 G`` (the customers still pay for all they use).
The hedges deliver ``0.252 Hb`` GWh off-peak and ``h = 0.084 (Hb + H)`` at the peak (H the
period's peak hedge). The battery runs a daily cycle over the 14 days, a weekday's share of the
peak load 1.08 / 14 and a weekend day's 0.8 / 14 (five weekdays, then two weekend days, twice):
at the peak it discharges ``min(soc, 6 P, need)`` MWh, need the day's share of ``1000 (L_pk -
h)_+`` (it covers only load beyond the hedges), then overnight it charges ``min(4 P, E - soc)``
MWh in four cheap hours, drawing 1 / 0.9 of it off-peak (the state of charge carries over from
day to day and from period to period). The net positions ``n_off = L_off + charged / 0.9 /
1000 - 0.252 Hb`` and ``n_pk = L_pk - discharged / 1000 - h`` are bought at the spot price where
positive and sold back at 0.85 of it where negative. Each staff member answers 0.3 thousand
complaints a period: ``answered = min(U + N rate_t, 0.3 S)``, ``U <- U + N rate_t - answered``
(a backlog that carries over); then ``N <- N exp(-(0.02 exp(8 (pi - 1)) + 0.4 U / N))`` (the
customers who leave are gone for the rest of the quarter, more at a dearer price and with more
complaints unanswered; N at least 1e-9 in the share).
The bills, ``(p D_off + (p + s) D_pk) / 1000``, less the bad debt, are collected a period later;
the cash, ``cash <- cash + collected_{t-1} - paid_t`` (paid_t all of the period's costs below
but the borrowing and the reserve's own cost, the battery and the insurance paid in period 1),
is borrowed at 0.03 a $M a period where it runs short, ``0.03 (-cash)_+``.

Costs ($M): the battery's lease (0.0018 a MWh, 0.004 a MW, for the quarter), the insurance's
premium (0.08 a $M of cover); each period the network charge (50 $ a MWh the customers use), the
hedges (60 $ a MWh for the baseload, 105 for the peak hedge, used or not), the spot purchases
less the sales, the demand-response payments ``r e N / 1000``, the solar buy-back ``b G /
1000``, the staff (0.006 each), a fine of 0.01 a thousand complaints left unanswered, the
marketing, the overhead (0.4), the reserve's cost of capital (0.008 K) and the borrowing. The
retailer earns the bills collected (all of them by the quarter's end) and the insurance pays
``min(I, (loss - 0.6)_+)`` of the quarter's bad debt ``loss`` beyond 0.6.

Offered as ``transform(x, z)`` (40 normals a row; a scenario is the six periods' off-peak and
peak spot prices, the customers' off-peak and peak use, the new customers and the complaints a
thousand customers, the quarter's price level and warmth, the bad debt's share and the
heatwave's excess ``(z - 1.64)_+``), its cost vectorised over decisions: common random numbers
are exact. lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 6


class Power:
    name = "power"
    dim_x, dim_w = 15, 6 * T + 4
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref_p, ref_s = 120.0, 50.0  # $ a MWh: the tariff and the surcharge the elasticities are about
    el_off, el_pk, el_spk, el_new, el_churn = 0.6, 0.5, 0.6, 4.0, 8.0
    #: p, s, r, Hb, Ha, Hm, He, E, P, b, S, m1, m2, I, K
    bounds = [(90.0, 180.0), (0.0, 100.0)] + [(0.0, np.inf)] * 13
    x0 = np.array([135.0, 60.0, 2.0, 40.0, 20.0, 80.0, 20.0, 10.0, 2.5, 10.0, 8.0, 0.1, 0.1,
                   0.5, 2.5])

    k = np.array([0.5, 0.8, 1.0, 1.0, 0.8, 0.5])  # the heatwave's weight in each period
    use_off, use_pk, new_cap, new_scale, complaints = 0.22, 0.11, 30.0, 0.15, 0.035
    hot_off, hot_pk, hot_complaints, hot_off_spot, hot_pk_spot, sunny = 0.1, 0.4, 0.8, 0.8, 2.2, 0.2
    spot_off, spot_pk, bad_debt = 48.0, 90.0, 0.02  # $ a MWh; the share of the bills unpaid
    #: sd (log) of the price level, the warmth, an off-peak and a peak spot price, the off-peak
    #: and peak use, the new customers, the complaints, the bad debt
    level_sd, temp_sd, off_sd, pk_sd, uoff_sd, upk_sd, new_sd, comp_sd, bd_sd = (
        0.1, 0.08, 0.12, 0.25, 0.05, 0.08, 0.25, 0.2, 0.3)
    threshold = 1.64
    n0, churn0, backlog_churn = 100.0, 0.02, 0.4  # k customers; churn a period
    enrol, enrol_scale, dr_cut, call_at, call_scale = 0.5, 3.0, 0.5, 180.0, 100.0
    solar0, solar1, solar_scale, gen = 0.04, 0.3, 60.0, 0.12
    off_hours, pk_hours, days = 0.252, 0.084, 14  # GWh a MW a period; days a period
    week = np.array([1.08] * 5 + [0.8] * 2)  # a day's share of the peak load, times 14
    hours, charging, efficiency, resale = 6.0, 4.0, 0.9, 0.85  # hours out, in; round trip; resale
    answer, wage, fine, overhead = 0.3, 0.006, 0.01, 0.4
    network, base_price, peak_price = 50.0, 60.0, 105.0  # $ a MWh
    energy_fee, power_fee, premium, deductible = 0.0018, 0.004, 0.08, 0.6
    carry, borrow = 0.008, 0.03  # $ a $ a period: the reserve's cost, the borrowing's

    def price_index(self, x):
        x = np.asarray(x, dtype=float)
        return (x[..., 0] + x[..., 1] / 3.0) / (self.ref_p + self.ref_s / 3.0)

    def use_mean(self, x):
        """A customer's off-peak and peak use (MWh a period) in a usual summer, (..., 2)."""
        x = np.asarray(x, dtype=float)
        p, s = x[..., 0] / self.ref_p - 1.0, x[..., 1] / self.ref_s - 1.0
        return np.stack([self.use_off * np.exp(-self.el_off * p),
                         self.use_pk * np.exp(-self.el_pk * p - self.el_spk * s)], axis=-1)

    def new_mean(self, x):
        """New customers (thousand) each period before the noise, (..., 6)."""
        x = np.asarray(x, dtype=float)
        m = np.concatenate([np.repeat(x[..., 11:12], 3, axis=-1),
                            np.repeat(x[..., 12:13], 3, axis=-1)], axis=-1)
        return (self.new_cap * -np.expm1(-m / self.new_scale)
                * np.exp(-self.el_new * (self.price_index(x)[..., None] - 1.0)))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        pad = (T,) + (1,) * k
        level = lognormal(self.level_sd, z[6 * T])
        temp = lognormal(self.temp_sd, z[6 * T + 1])
        kick = np.maximum(z[6 * T + 3] - self.threshold, 0.0)
        bd = self.bad_debt * np.exp(kick) * lognormal(self.bd_sd, z[6 * T + 2])
        heat = self.k.reshape(pad) * kick
        use = columns(self.use_mean(x)[..., None, :], k)
        new = columns(self.new_mean(x)[..., None, :], k)
        pi = columns(np.asarray(self.price_index(x))[..., None, None], k)[0]
        spot_off = (self.spot_off * level * np.exp(self.hot_off_spot * heat)
                    * lognormal(self.off_sd, z[:T]))
        spot_pk = (self.spot_pk * level * np.exp(self.hot_pk_spot * heat)
                   * lognormal(self.pk_sd, z[T:2 * T]))
        u_off = (use[0] * temp * np.exp(self.hot_off * heat)
                 * lognormal(self.uoff_sd, z[2 * T:3 * T]))
        u_pk = (use[1] * temp**2 * np.exp(self.hot_pk * heat)
                * lognormal(self.upk_sd, z[3 * T:4 * T]))
        joins = new * lognormal(self.new_sd, z[4 * T:5 * T])
        rate = (self.complaints * np.exp(pi - 1.0) * np.exp(self.hot_complaints * heat)
                * lognormal(self.comp_sd, z[5 * T:6 * T]))
        parts = [spot_off, spot_pk, u_off, u_pk, joins, rate, level[None], temp[None], bd[None],
                 kick[None]]
        return scenario(parts)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p, s, r, Hb, E, P, b, S, I, K = (x[..., i] for i in (0, 1, 2, 3, 7, 8, 9, 10, 13, 14))
        bd, kick = W[6 * T + 2], W[6 * T + 3]
        shape = np.broadcast_shapes(kick.shape, p.shape)
        e = self.enrol * -np.expm1(-r / self.enrol_scale)
        sigma = self.solar0 + self.solar1 * -np.expm1(-b / self.solar_scale)
        total = (self.energy_fee * E + self.power_fee * P + self.premium * I) + np.zeros(shape)
        N, U, soc = self.n0 + np.zeros(shape), np.zeros(shape), E + np.zeros(shape)
        cash, collected, loss = K - total, np.zeros(shape), np.zeros(shape)
        churn = self.churn0 * np.exp(self.el_churn * (self.price_index(x) - 1.0))
        cap, fill = self.hours * P, self.charging * P
        for t in range(T):
            spot_off, spot_pk = W[t], W[T + t]
            u_off, u_pk, joins, rate = W[2 * T + t], W[3 * T + t], W[4 * T + t], W[5 * T + t]
            H, m = x[..., 4 + t // 2], x[..., 11 + t // 3]
            N = N + joins
            called = -np.expm1(-np.maximum(spot_pk - self.call_at, 0.0) / self.call_scale)
            D_off, D_pk = N * u_off, N * u_pk * (1.0 - self.dr_cut * e * called)
            G = sigma * N * self.gen * np.exp(self.sunny * self.k[t] * kick)
            hedge_off, hedge_pk = self.off_hours * Hb, self.pk_hours * (Hb + H)
            need = 1000.0 * np.maximum(D_pk - 0.25 * G - hedge_pk, 0.0) / self.days
            out = into = 0.0
            for d in range(self.days):
                dis = np.minimum(np.minimum(soc, cap), need * self.week[d % 7])
                soc = soc - dis
                chg = np.minimum(fill, E - soc)
                soc = soc + chg
                out, into = out + dis, into + chg
            n_off = D_off - 0.75 * G + into / (1000.0 * self.efficiency) - hedge_off
            n_pk = D_pk - 0.25 * G - out / 1000.0 - hedge_pk
            spot = (spot_off * (np.maximum(n_off, 0.0) + self.resale * np.minimum(n_off, 0.0))
                    + spot_pk * (np.maximum(n_pk, 0.0) + self.resale * np.minimum(n_pk, 0.0)))
            waiting = U + N * rate
            U = waiting - np.minimum(waiting, self.answer * S)
            paid = ((self.network * (D_off + D_pk) + spot + self.base_price * hedge_off
                     + self.base_price * self.pk_hours * Hb + self.peak_price * self.pk_hours * H
                     + r * e * N + b * G) / 1000.0
                    + self.wage * S + self.fine * U + m + self.overhead)
            cash = cash + collected - paid
            bill = (p * D_off + (p + s) * D_pk) / 1000.0
            collected = (1.0 - bd) * bill
            loss = loss + bd * bill
            N = N * np.exp(-(churn + self.backlog_churn * U / np.maximum(N, 1e-9)))
            total = (total + paid - collected + self.carry * K
                     + self.borrow * np.maximum(-cash, 0.0))
        return total - np.minimum(I, np.maximum(loss - self.deductible, 0.0))
