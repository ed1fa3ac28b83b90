"""A held-out problem: a city bus operator's weekday on three lines in six periods, fifteen
decisions, twelve of them open above, written after version 8 of the default and the dairy
cooperative and the airline. Kept out of every choice of the default; its optimum is found
without acfs (``find_optima.py`` beside it, ``optima.json``). Riders are counted in thousands,
buses and staff one by one, energy in hundreds of bus-hours' use, money in $k, so a fare of f $
a ride is f $k a thousand riders.

Decisions x = (the fares f1..f3 of the three lines (the crosstown, the trunk to the centre,
the suburban line; $ a ride, from 0.5 to 2 times the reference fares ref), the buses P1..P3 in
service on each line in the two peaks and the buses O1..O3 in service on each line in the
four off-peak periods, the spare buses S kept at the depot, the relief drivers D, the
maintenance crews C, the passenger-information and marketing budget M ($k for the day), the
energy contract H (hundreds of bus-hours' use bought forward) and the coaches' capacity R
reserved for the peaks (thousand riders a peak period)). The periods t = 0..5 are the early
morning, the morning peak, the midday, the afternoon peak, the evening and the night, of
hours h = 2, 3, 5, 4, 3, 3. Line j's riders wanting to board in period t are

    D_tj = base_j w_tj exp(-el_j (f_j / ref_j - 1)) keep_j(f_j) lift_t(M) level
           * exp(0.25 kick) own_tj

thousand (ref = 2, 2.5, 4 $; el = 0.8, 0.6, 1; base = 40, 60, 25 thousand a day; the
shares of the day w_t. = (0.05, 0.06, 0.04), (0.25, 0.28, 0.36), (0.25, 0.20, 0.10),
(0.25, 0.26, 0.36), (0.14, 0.14, 0.09), (0.06, 0.06, 0.05), the suburban line the most
peaked; ``lift_t(M) = 1 + 0.4 (1 - exp(-M / 8))`` off-peak and 1 in the peaks, the
information and marketing raising the off-peak ridership). A dearer fare also sends riders to
their cars or a rival service: the operator keeps ``keep(f) = (1 - r(f)) / 0.85`` of them, the
others' share ``r(f) = 1 / (1 + exp(-(log(0.15 / 0.85) + 4 (f / ref - 1))))`` (0.15 at the
reference fare, so keep = 1 there). ``level`` is the day's lognormal level of travel (sd 0.1
on the log, mean 1), own_tj a period's lognormal noise (sd 0.2, mean 1).

A heavy-tailed disruption (a snowstorm or a road closure), ``kick = (z - 1.64)_+`` (one day
in twenty, without bound), sends commuters from their cars to the buses (the factor exp(0.25
kick) above), breaks buses down: a share

    b_tj = 1 / (1 + exp(-(log(0.03 / 0.97) + 0.4 y_tj + 2 kick)))

of line j's buses in service breaks down in period t (y_tj normal); keeps drivers away: a
share ``a_t = 1 / (1 + exp(-(log(0.04 / 0.96) + 0.3 u_t + 1.5 kick)))`` of the drivers
rostered in period t is absent (u_t normal, the same share on every line); slows the traffic,
so each bus makes fewer trips (its capacity times exp(-0.7 kick), the coaches' too); raises
the energy each bus-hour uses, by the factor 1 + 0.3 kick; and raises the day's spot price of
energy, ``P = exp(0.2 v - 0.02) exp(0.6 kick)`` (v normal; 1 on a usual day).

Each period, on each line: the buses scheduled are n_tj = P_j in the peaks and O_j off-peak,
of a fleet of ``F_j = max(P_j, O_j)`` buses. Of them ``b_tj n_tj`` break down and join the
line's broken buses B_j in the workshop (none at dawn; they carry over until repaired). The
broken buses beyond the line's idle fleet, ``need_j = (B_j - (F_j - n_tj))_+``, are replaced
from the depot's spares, up to S buses in all, in proportion, ``spare_j = need_j min(1, S /
sum need)``; the line runs ``run_j = n_tj - need_j + spare_j`` buses (the broken buses'
drivers take the spares). Its drivers present are ``(1 - a_t) n_tj``; those missing,
``m_j = (run_j - (1 - a_t) n_tj)_+``, are replaced from the relief drivers, up to D in all,
in proportion, and the buses left without a driver stay at the depot: the line's buses on the
road are ``bus_j = run_j - m_j (1 - min(1, D / sum m))``. Their capacity is ``cap_j = bus_j
rate_j h_t speed_t exp(-0.7 kick)`` thousand riders (rate = 0.2, 0.16, 0.09 thousand riders
a bus-hour, the suburban line's trips the longest; speed = 1, 0.8, 0.95, 0.8, 0.95, 1, the
peaks' traffic). The riders at the stops, ``want_j = D_tj + Q_j`` (Q_j the riders left
behind before, none at dawn), board up to the capacity, ``carried_j = min(want_j, cap_j)``;
those above 80 % of the capacity, ``(carried_j - 0.8 cap_j)_+``, ride crowded. In the peaks
the coaches take the riders left behind, up to ``R exp(-0.7 kick)`` in all, in proportion,
``coach_j = left_j min(1, R exp(-0.7 kick) / sum left)``, ``left_j = want_j - carried_j``
(none off-peak). Of the riders still left, a share 0.35 gives up and the rest wait for the
next period: ``Q_j <- 0.65 (left_j - coach_j)`` (a queue that carries over). At the end of
the night every rider still waiting gives up. The workshop then repairs, 0.5 buses a crew-hour
in all, in proportion to the lines' broken buses: ``B_j <- B_j (1 - min(1, 0.5 h_t C /
sum B))``.

Energy: the day uses ``E = sum over the periods and lines of bus_j h_t (1 + 0.3 kick) / 100``
hundreds of bus-hours' use, each costing 4 $k at the spot price P; the contract H is bought
forward at 4 * 1.05 $k each, the energy beyond it bought at 4 P, contracted energy left unused
sold back at 4 * 0.85 P.

Costs: the buses scheduled, 0.09 $k a bus-hour whether full or not (drivers, wear); the spare
buses, 0.5 $k a bus for the day, and 0.03 $k a bus-hour a spare runs; 2 $k a period for each
broken bus beyond the idle fleet left without a spare, ``need_j - spare_j`` (its riders
stranded on the road); the relief drivers 0.3 $k each and the maintenance crews 0.8 $k each,
for the day; the marketing M; the coaches 1 $k a thousand riders of capacity each peak period,
and 2 $k a thousand riders they carry; the depot's overhead, 40 $k a day; the energy; 1.5 $k a
thousand crowded riders; 2 $k a thousand riders left waiting at the end of each period (their
time, the complaints); 6 $k a thousand riders who give up (goodwill). The operator earns the
fare of every rider carried, by bus or coach, and the city pays it 1 $k a thousand riders
carried.

Offered as ``transform(x, z)`` (45 normals a row; a scenario is the 18 riders D_tj (period by
period, the three lines in each), the 18 breakdown shares b_tj, the 6 absent shares a_t, the
day's level of travel, the spot price P and the disruption's excess ``(z - 1.64)_+``), its
cost vectorised over decisions: common random numbers are exact. lam 0.7, alpha 0.95.
"""

import numpy as np
from arrays import columns, scenario

T, L = 6, 3


class Transit:
    name = "transit"
    dim_x, dim_w = 15, 2 * T * L + T + 3
    vectorized = True
    lam, alpha = 0.7, 0.95
    ref = np.array([2.0, 2.5, 4.0])  # $ a ride, the reference fares
    el = np.array([0.8, 0.6, 1.0])  # the riders' elasticity
    rival0, rival_slope = 0.15, 4.0  # the cars' and the rival's share at ref, its growth
    #: f1..f3, P1..P3, O1..O3, S, D, C, M, H, R
    bounds = [(0.5 * r, 2.0 * r) for r in (2.0, 2.5, 4.0)] + [(0.0, np.inf)] * 12
    x0 = np.array([2.0, 2.5, 4.0, 20.0, 32.0, 36.0, 18.0, 28.0, 12.0, 6.0, 4.0, 4.0, 4.0,
                   6.0, 2.5])

    hours = np.array([2.0, 3.0, 5.0, 4.0, 3.0, 3.0])
    peak = np.array([0, 1, 0, 1, 0, 0], dtype=bool)
    speed = np.array([1.0, 0.8, 0.95, 0.8, 0.95, 1.0])  # the traffic's effect on the trips
    base = np.array([40.0, 60.0, 25.0])  # thousand riders a day
    share = np.array([[0.05, 0.06, 0.04], [0.25, 0.28, 0.36], [0.25, 0.20, 0.10],
                      [0.25, 0.26, 0.36], [0.14, 0.14, 0.09], [0.06, 0.06, 0.05]])
    rate = np.array([0.20, 0.16, 0.09])  # thousand riders a bus-hour at full speed
    lift, reach = 0.4, 8.0  # the marketing's lift of the off-peak riders, its scale
    level_sd, noise_sd = 0.1, 0.2  # the day's level of travel, a period's riders (log)
    threshold, surge = 1.64, 0.25  # the disruption's threshold; its riders: exp(0.25 kick)
    breakdown, breakdown_sd, breakdown_kick = 0.03, 0.4, 2.0  # a share of the buses (logit)
    absent, absent_sd, absent_kick = 0.04, 0.3, 1.5  # a share of the drivers (logit)
    slow, heavy = 0.7, 0.3  # the trips: exp(-0.7 kick); the energy a bus-hour: 1 + 0.3 kick
    price_sd, price_kick = 0.2, 0.6  # the spot price's spread (log) and its rise with kick
    crowded, give_up, repair = 0.8, 0.35, 0.5  # load factor; share giving up; buses a crew-h
    #: $k a bus-hour scheduled, a spare a day, a spare's bus-hour, a relief driver, a crew
    bus_cost, spare_fee, spare_run, relief_wage, crew_wage = 0.09, 0.5, 0.03, 0.3, 0.8
    coach_fee, coach_ride, overhead = 1.0, 2.0, 40.0  # $k a k capacity a peak, a k riders
    energy, contract, resale = 4.0, 1.05, 0.85  # $k a hundred bus-hours at spot 1; the contract
    crowd_cost, wait_cost, goodwill = 1.5, 2.0, 6.0  # $k a k riders crowded, waiting, gone
    subsidy = 1.0  # $k a k riders carried, paid by the city
    strand = 2.0  # $k a broken bus left without a spare a period (its riders stranded)

    def keep(self, f):
        """The share of the line's riders the operator keeps from cars and the rival, 1 at
        ref."""
        a = np.log(self.rival0 / (1.0 - self.rival0))
        rival = 1.0 / (1.0 + np.exp(-(a + self.rival_slope * (f / self.ref - 1.0))))
        return (1.0 - rival) / (1.0 - self.rival0)

    def riders_mean(self, x):
        """Each period's riders on each line on a usual day, before the level and the noise,
        (..., 6, 3)."""
        x = np.asarray(x, dtype=float)
        f, M = x[..., None, 0:3], x[..., None, 12:13]
        lift = 1.0 + (~self.peak[:, None]) * self.lift * (-np.expm1(-M / self.reach))
        return (self.base * self.share * np.exp(-self.el * (f / self.ref - 1.0))
                * self.keep(f) * lift)

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        n = T * L

        def logistic(u):
            return 1.0 / (1.0 + np.exp(-u))

        def logit(p):
            return np.log(p / (1.0 - p))

        level = np.exp(self.level_sd * z[2 * n + T] - 0.5 * self.level_sd**2)
        kick = np.maximum(z[2 * n + T + 2] - self.threshold, 0.0)
        price = (np.exp(self.price_sd * z[2 * n + T + 1] - 0.5 * self.price_sd**2)
                 * np.exp(self.price_kick * kick))
        mean = columns(self.riders_mean(x).reshape(x.shape[:-1] + (1, n)), k)
        riders = (mean * level * np.exp(self.surge * kick)
                  * np.exp(self.noise_sd * z[:n] - 0.5 * self.noise_sd**2))
        broken = logistic(logit(self.breakdown) + self.breakdown_sd * z[n:2 * n]
                          + self.breakdown_kick * kick)
        away = logistic(logit(self.absent) + self.absent_sd * z[2 * n:2 * n + T]
                        + self.absent_kick * kick)
        parts = [riders, broken, away, level[None], price[None], kick[None]]
        return scenario(parts)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        n = T * L
        f = [x[..., j] for j in range(L)]
        P = [x[..., 3 + j] for j in range(L)]
        O = [x[..., 6 + j] for j in range(L)]
        S, D, C, M, H, R = (x[..., 9 + i] for i in range(6))
        price, kick = W[2 * n + T + 1], W[2 * n + T + 2]
        shape = np.broadcast_shapes(price.shape, S.shape)
        fleet = [np.maximum(P[j], O[j]) for j in range(L)]
        total = (self.bus_cost * sum(self.hours[self.peak].sum() * P[j]
                                     + self.hours[~self.peak].sum() * O[j] for j in range(L))
                 + self.spare_fee * S + self.relief_wage * D + self.crew_wage * C + M
                 + 2.0 * self.coach_fee * R + self.overhead
                 + self.energy * self.contract * H) + np.zeros(shape)
        slow = np.exp(-self.slow * kick)
        B = [np.zeros(shape) for _ in range(L)]
        Q = [np.zeros(shape) for _ in range(L)]
        use = np.zeros(shape)
        for t in range(T):
            h = self.hours[t]
            sched = P if self.peak[t] else O
            away = W[2 * n + t]
            need = []
            for j in range(L):
                B[j] = B[j] + W[n + t * L + j] * sched[j]  # broken down this period
                need.append(np.maximum(B[j] - (fleet[j] - sched[j]), 0.0))
            spares = np.minimum(1.0, S / np.maximum(sum(need), 1e-12))
            run = [sched[j] - need[j] * (1.0 - spares) for j in range(L)]
            total = total + self.strand * (sum(need) - spares * sum(need))
            miss = [np.maximum(run[j] - (1.0 - away) * sched[j], 0.0) for j in range(L)]
            relief = np.minimum(1.0, D / np.maximum(sum(miss), 1e-12))
            left, carried = [], []
            for j in range(L):
                bus = run[j] - miss[j] * (1.0 - relief)
                cap = bus * self.rate[j] * h * self.speed[t] * slow
                want = W[t * L + j] + Q[j]
                c = np.minimum(want, cap)
                carried.append(c)
                left.append(want - c)
                use = use + bus * h
                total = (total + self.spare_run * h * need[j] * spares
                         - (f[j] + self.subsidy) * c
                         + self.crowd_cost * np.maximum(c - self.crowded * cap, 0.0))
            if self.peak[t]:
                coaches = np.minimum(1.0, R * slow / np.maximum(sum(left), 1e-12))
            else:
                coaches = 0.0
            for j in range(L):
                coach = left[j] * coaches
                rest = left[j] - coach
                gone = self.give_up * rest if t < T - 1 else rest
                Q[j] = rest - gone
                total = (total + (self.coach_ride - f[j] - self.subsidy) * coach
                         + self.wait_cost * Q[j] + self.goodwill * gone)
            fixed = np.minimum(1.0, self.repair * h * C / np.maximum(sum(B), 1e-12))
            B = [B[j] * (1.0 - fixed) for j in range(L)]
        use = use * (1.0 + self.heavy * kick) / 100.0
        total = (total + self.energy * price * np.maximum(use - H, 0.0)
                 - self.energy * self.resale * price * np.maximum(H - use, 0.0))
        return total
