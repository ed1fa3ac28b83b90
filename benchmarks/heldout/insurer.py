"""A held-out problem: a property insurer's year of four quarters in three regions, fifteen
decisions, twelve of them open above, written after version 7 of the default, the emergency
medical service and the water utility. Kept out of every choice of the default; its optimum is
found without acfs (``find_optima.py`` beside it, ``optima.json``). Policies and claims are
counted in thousands (k), money in $M, so a k policy paying p $ a year pays p / 1000 $M.

Decisions x = (the premiums p1..p3 of the regions (the coast, the cities, inland; $ a policy a
year, for the policies renewed and written this year), the retentions r1..r3 of a catastrophe
excess-of-loss treaty in each region ($M of an event's loss), in-house claims adjusters a1..a4
employed in each quarter, a capacity S reserved with an independent adjusting firm for every
quarter (k claims a quarter), a catastrophe reserve fund F ($M) and marketing budgets m1..m3
of the regions ($M for the year)). Region j writes in quarter t

    nb_j * exp(-el_j (p_j / ref_j - 1)) * (1 + 0.6 (1 - exp(-m_j / ms_j))) * level * own_jt

k new policies (nb = (3.3, 4.3, 2.5), ref = (1600, 1000, 800), el = (6, 7, 5), ms = (1.0,
1.5, 0.6); level the year's lognormal level of the market, sd 0.1 on the log, own_jt a
quarter's lognormal noise, sd 0.15, both of mean 1): the premiums and marketing move the
exposure. The year opens with book0 = (120, 200, 80) k policies at last year's premiums ref,
a quarter of them up for renewal at the end of each quarter; a share

    1 / (1 + exp(-(keep_j - 10 (p_j / ref_j - 1) - 25 B_j / N_j)))

of those renews at p_j (keep = (1.7, 2.0, 1.6); B_j the claims of the region waiting at the
end of the quarter, N_j the policies in force in it: a claims backlog loses renewals); the
renewed policies and the quarter's new ones join the book at p_j from the next quarter on (a
book that carries over).

Each quarter the N_j policies in force bring ``N_j freq_j fseason_t f_jt`` k claims of the
region's weather and fire (freq = (0.010, 0.010, 0.007), fseason = (1.15, 0.9, 1.0, 0.95),
f_jt a lognormal factor, sd 0.1, mean 1), each costing sev = (20, 13, 14) $M a k claims. A
heavy-tailed catastrophe, ``kick_t = (z_t - 1.28)_+`` (one quarter in ten, without bound),
with a lognormal severity ``v_t`` (sd 0.5, mean 1) strikes the regions by a footprint
``w_jt = 3 softmax_j(log e_j + 1.5 y_jt)`` (e = (0.4, 0.35, 0.25), y_jt normal: it falls mostly
on one or two regions) with the intensity ``h_jt = cseason_t kick_t v_t w_jt`` (cseason = (0.7,
0.8, 1.5, 1.0), the third quarter's hurricanes): region j's event loss is ``N_j cat_j h_jt``
$M (cat = (0.6, 0.3, 0.6)) in ``N_j cc_j h_jt`` k claims (cc = (0.03, 0.015, 0.03)). The treaty
recovers ``min((loss - r_j)_+, C_j)`` of each region's event loss in a quarter (C = (250, 200,
120), the reinsurers' capacity), at a price a quarter of ``(1 + 2.5) 0.1 s_j (exp(-r_j / s_j) -
exp(-(r_j + C_j) / s_j))`` (its expected recovery on the reinsurers' model of an event a quarter
with probability 0.1 and an exponential loss of mean s = (25, 18, 12), loaded by 250 %). The
net event losses of the year are paid from the fund; what they take beyond F is raised at 40 %
more.

Claims are handled from one pool: the claims waiting (B, carried over; the year opens with
(0.4, 0.5, 0.2) k) and the new ones, attritional and catastrophe, are handled by the in-house
adjusters, up to ``0.13 a_t / (1 + 0.5 kick_t)`` k claims (a catastrophe also slows each
claim), then by the independent firm, up to ``S / (1 + 0.5 kick_t)``, both in proportion to
each region's claims open; the rest wait for the next quarter (a backlog that carries over),
each k claims waiting at the end of a quarter leaking leak = (0.6, 0.4, 0.4) $M (claims
inflation, handling, penalties).

Costs: the reinsurance's price, the firm's retainer 0.06 $M a k claims of S and the overhead 20
$M, each quarter; 0.04 $M an adjuster a quarter, 0.08 $M a $M of the fund held, the marketing;
each k policy in force a quarter its expenses (0.04, 0.03, 0.03) $M; the attritional claims;
0.5 $M a k claims the firm handles; the leakage; the net event losses and 0.4 of their excess
over F. The insurer earns 85 % (15 % commission) of a quarter of its premium on each policy in
force each quarter, ref_j on last year's policies until their renewal, p_j on the others. At
the end of the year each k claims still waiting is charged three quarters' leakage and the book
at p_j is credited two years of its margin, ``2 (0.85 p_j / 1000 - u_j)`` $M a k policy (u =
(1.09, 0.70, 0.61), the expected cost of a policy-year).

Offered as ``transform(x, z)`` (45 normals a row; a scenario is the twelve new policy volumes
region by region, the twelve claim factors and the twelve catastrophe intensities ``h_jt``
region by region, the four quarters' excesses ``kick_t``, the four severities and the market's
level; the normals drive them in the same order, the footprints' y_jt in the intensities'
place), its cost vectorised over decisions: common random numbers are exact. lam 0.8, alpha
0.95.
"""

import numpy as np
from arrays import columns, scenario

T, N = 4, 3  # quarters, regions (the coast, the cities, inland)


class Insurer:
    name = "insurer"
    dim_x, dim_w = 3 * N + T + 2, 3 * N * T + 2 * T + 1
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref = np.array([1600.0, 1000.0, 800.0])  # $ a policy a year
    #: p1..p3, r1..r3, a1..a4, S, F, m1..m3
    bounds = [(0.5 * r, 2.0 * r) for r in ref] + [(0.0, np.inf)] * (2 * N + T + 2)
    x0 = np.array([1600.0, 1000.0, 800.0, 40.0, 30.0, 20.0, 35.0, 35.0, 35.0, 35.0,
                   10.0, 50.0, 1.0, 1.0, 1.0])

    book0 = np.array([120.0, 200.0, 80.0])  # k policies in force at the start, at ref
    back0 = np.array([0.4, 0.5, 0.2])  # k claims waiting at the start
    nb = np.array([3.3, 4.3, 2.5])  # k new policies a quarter at ref without marketing
    el = np.array([6.0, 7.0, 5.0])  # the new policies' elasticity
    lift, mscale = 0.6, np.array([1.0, 1.5, 0.6])  # marketing: up to +60 %, its scale ($M)
    #: sd (log) of the market's level, a quarter's new policies, a claim factor, a severity
    market, noise, fnoise, sevsd = 0.1, 0.15, 0.1, 0.5
    keep = np.array([1.7, 2.0, 1.6])  # the renewals' logit at ref
    er, beta = 10.0, 25.0  # the renewals' elasticity; their loss a claim waiting a policy
    commission = 0.15
    expense = np.array([0.04, 0.03, 0.03])  # $M a k policy a quarter
    freq = np.array([0.010, 0.010, 0.007])  # k claims a k policy a quarter
    fseason = np.array([1.15, 0.9, 1.0, 0.95])
    sev = np.array([20.0, 13.0, 14.0])  # $M a k claims
    cseason = np.array([0.7, 0.8, 1.5, 1.0])  # the catastrophe's season
    expo = np.log(np.array([0.4, 0.35, 0.25]))  # the footprint's logits
    spread = 1.5  # the footprint's noise
    cat = np.array([0.6, 0.3, 0.6])  # $M a k policy a unit of intensity
    cclaims = np.array([0.03, 0.015, 0.03])  # k claims a k policy a unit of intensity
    capacity = np.array([250.0, 200.0, 120.0])  # the treaties' limits ($M)
    #: the reinsurers' model: an event a quarter with probability q, exponential of mean scale
    q, load, scale = 0.1, 2.5, np.array([25.0, 18.0, 12.0])
    capital, kappa = 0.08, 0.4  # the fund's cost a $M; the cost of raising a $M beyond it
    mu, slow, wage = 0.13, 0.5, 0.04  # k claims an adjuster a quarter; the slowdown; $M
    retainer, fee = 0.06, 0.5  # the independent firm: a k claims of capacity, handled
    leak = np.array([0.6, 0.4, 0.4])  # $M a k claims waiting a quarter
    end_leak = 3.0  # quarters of leakage on a claim waiting at the end
    overhead = 20.0  # $M a quarter
    years = 2.0  # the book at the end is worth two years of its margin
    unit = np.array([1.09, 0.70, 0.61])  # the expected cost of a policy-year, $M a k policy

    def new_mean(self, x):
        """Mean new policies of each region in a quarter before the level and the noise,
        (..., 3)."""
        x = np.asarray(x, dtype=float)
        lift = 1.0 + self.lift * (1.0 - np.exp(-x[..., -N:] / self.mscale))
        return self.nb * np.exp(-self.el * (x[..., 0:N] / self.ref - 1.0)) * lift

    def treaty_price(self, x):
        """The reinsurer's price of each region's layer a quarter, (..., 3)."""
        x = np.asarray(x, dtype=float)
        r, s = x[..., N:2 * N], self.scale
        return ((1.0 + self.load) * self.q * s
                * (np.exp(-r / s) - np.exp(-(r + self.capacity) / s)))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k, n = max(x.ndim, z.ndim - 1), N * T
        z = columns(z, k)
        pad = (1,) * k
        level = np.exp(self.market * z[3 * n + 2 * T] - 0.5 * self.market**2)
        mean = np.repeat(columns(self.new_mean(x)[..., None, :], k), T, axis=0)
        new = mean * level * np.exp(self.noise * z[:n] - 0.5 * self.noise**2)
        factor = np.exp(self.fnoise * z[n:2 * n] - 0.5 * self.fnoise**2)
        kick = np.maximum(z[3 * n:3 * n + T] - 1.28, 0.0)  # (4, ..., rows)
        severity = np.exp(self.sevsd * z[3 * n + T:3 * n + 2 * T] - 0.5 * self.sevsd**2)
        logits = (self.expo.reshape((N, 1) + pad)
                  + self.spread * z[2 * n:3 * n].reshape((N, T) + z.shape[1:]))
        w = np.exp(logits - logits.max(axis=0))
        w = N * w / w.sum(axis=0)
        h = (self.cseason.reshape((T,) + pad) * kick * severity)[None] * w  # (3, 4, ...)
        h = h.reshape((n,) + h.shape[2:])
        parts = [new, factor, h, kick, severity, level[None]]
        return scenario(parts)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k, n = max(x.ndim - 1, W.ndim - 1), N * T
        W = columns(W, k)
        col = (N,) + (1,) * k

        def each(a):
            return np.asarray(a, dtype=float).reshape(col)

        p, r = columns(x[..., 0:N], k), columns(x[..., N:2 * N], k)  # (3, ..., 1)
        a = x[..., 2 * N:2 * N + T]
        S, F = x[..., 2 * N + T], x[..., 2 * N + T + 1]
        kick = W[3 * n:3 * n + T]
        shape = np.broadcast_shapes(kick.shape[1:], F.shape)
        total = (T * (self.treaty_price(x).sum(axis=-1) + self.retainer * S + self.overhead)
                 + self.wage * a.sum(axis=-1) + self.capital * F
                 + x[..., -N:].sum(axis=-1)) + np.zeros(shape)
        old = each(self.book0) + np.zeros(shape)  # last year's policies, at ref
        cur = np.zeros(old.shape)  # the policies renewed or written this year, at p
        back = each(self.back0) + np.zeros(shape)
        up = each(self.book0) / T  # last year's policies up for renewal a quarter
        rate = (1.0 - self.commission) / T / 1000.0  # $M a k policy a quarter at 1 $ a year
        freq, sev, cat, cc = each(self.freq), each(self.sev), each(self.cat), each(self.cclaims)
        leak, ref, limit = each(self.leak), each(self.ref), each(self.capacity)
        keep = each(self.keep) - self.er * (p / ref - 1.0)
        net = 0.0  # the year's net event losses
        for t in range(T):
            book = old + cur
            attr = book * freq * self.fseason[t] * W[n + t:2 * n:T]
            h = W[2 * n + t:3 * n:T]
            loss = book * cat * h
            net = net + (loss - np.minimum(np.maximum(loss - r, 0.0), limit)).sum(axis=0)
            waiting = back + attr + book * cc * h
            claims = waiting.sum(axis=0)
            pace = 1.0 + self.slow * kick[t]
            own = np.minimum(claims, self.mu * a[..., t] / pace)
            hired = np.minimum(claims - own, S / pace)
            back = waiting * (1.0 - (own + hired) / np.maximum(claims, 1e-12))
            renew = 1.0 / (1.0 + np.exp(-(keep - self.beta * back / book)))
            total = total + self.fee * hired + (
                -rate * (ref * old + p * cur) + each(self.expense) * book + sev * attr
                + leak * back).sum(axis=0)
            old = old - up
            cur = cur + renew * up + W[t:n:T]
        margin = (1.0 - self.commission) * p / 1000.0 - each(self.unit)
        return (total + net + self.kappa * np.maximum(net - F, 0.0)
                + (self.end_leak * leak * back - self.years * margin * cur).sum(axis=0))
