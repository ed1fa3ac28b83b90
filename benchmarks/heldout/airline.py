"""A held-out problem: a regional airline's week at a hub with three spoke routes, seventeen
decisions, fourteen of them open above, written after version 7 of the default and the fab,
the bike share, the ski resort and the insurer. Kept out of every choice of the default; its
optimum is found without acfs (``find_optima.py`` beside it, ``optima.json``). Passengers,
tickets and seats are counted in thousands, fuel in thousand seat-days' burn, money in $k, so
a fare of f $ a passenger is f $k a thousand passengers.

Decisions x = (the fares f1..f3 of the three spoke routes (the city, the regional town, the
coast; $ a passenger, from 0.8 to 2 times the reference fares ref), the seats K1..K3 flown a
day on each route Monday to Thursday and the seats E1..E3 flown a day on each route Friday to
Sunday (thousand seats a day), the spare aircraft's seats S kept at the hub (thousand seats a
day), the standby crews C, the rebooking agents A, the overbooking allowances o1..o3
(thousand tickets a day sold beyond the seats of each route), the marketing budget M ($k for
the week) and the fuel hedged H (thousand seat-days' burn bought forward)). Route j's
bookings on day t (t = 0 Monday .. 6 Sunday) are

    D_tj = (bus_j wb_t exp(-0.5 (f_j / ref_j - 1))
            + leis_j wl_t exp(-1.8 (f_j / ref_j - 1)) lift_t(M)) * keep(f_j) * level * own_tj

thousand (ref = 120, 160, 200 $; bus = 0.9, 0.7, 0.4 and leis = 0.3, 0.4, 0.6 thousand a day;
wb = 1, 1, 1, 1, 0.7, 0.2, 0.6 and wl = 0.5, 0.4, 0.4, 0.6, 1.2, 1.4, 1.3, the business week
and the leisure weekend; ``lift_t(M) = 1 + 0.5 (1 - exp(-M / 60))`` from Friday to Sunday and
1 before, the marketing raising the weekend's leisure demand). A dearer fare also sends
travellers to a rival: the airline keeps ``keep(f) = (1 - r(f)) / 0.8`` of them, the rival's
share ``r(f) = 1 / (1 + exp(-(log(0.25) + 4 (f / ref - 1))))`` (0.2 at the reference fare, so
keep = 1 there). ``level`` is the week's lognormal level of travel (sd 0.1 on the log, mean 1),
own_tj a day's lognormal noise (sd 0.2, mean 1).

A heavy-tailed disruption (a storm or an air-traffic-control strike), ``kick = (z - 1.64)_+``
(one week in twenty, without bound), centred on day ``c = 3 + 3 tanh(z_c / 1.5)`` (z_c
normal), hits day t with the weight ``p_t = exp(-0.5 ((t - c) / 1.2)^2)``. Of route j's seats
on day t it cancels the share

    cancel_tj = 1 - (1 - b_tj) exp(-1.5 kick p_t sens_j)

(sens = 0.6, 0.8, 1.2, the coast the most exposed), b_tj the usual share cancelled (crews
sick, aircraft faults), ``b_tj = 1 / (1 + exp(-(log(0.03 / 0.97) + 0.5 y_tj)))`` (y_tj
normal); it lowers the day's no-shows, ``ns_t = 1 / (1 + exp(-(log(0.12 / 0.88) + 0.3 u_t -
1.5 kick p_t)))`` (u_t normal; the same share on every route), and raises the week's spot
price of fuel, ``P = exp(0.2 v - 0.02) exp(0.4 kick)`` (v normal; 1 in a usual week).

Each day, on each route: the airline sells ``sold = min(D_tj, seats + o_j)`` tickets (seats
K_j Monday to Thursday, E_j Friday to Sunday), of whom ``show = (1 - ns_t) sold`` come. The
flights cancelled take ``cancel_tj seats``; the standby crews fly again the usual
cancellations (not the disruption's), up to 0.12 thousand seats a crew a day in all, in
proportion to each route's usual cancelled seats ``u_j = b_tj seats``: the seats flown are
``op_j = seats - cancel_tj seats + u_j min(1, 0.12 C / sum u)``. The passengers beyond them,
``over_j = (show - op_j)_+``, are sent on the spare aircraft, up to S seats a day in all, in
proportion, ``carried_j = over_j min(1, S / sum over)``; the rest, ``denied_j = over_j -
carried_j``, are denied boarding (or lost their cancelled flight), are compensated and join the
route's queue of stranded passengers. The queue Q_j (empty on Monday morning; the passengers
stranded before today) is rebooked by the agents, each rebooking 0.03 thousand passengers a
day, in proportion to the queues, ``reb_j = Q_j min(1, 0.03 A / sum Q)``: onto the seats left
free on the day's flights, ``(op_j - show)_+``, and the rest, ``(reb_j - (op_j - show)_+)_+``,
onto other carriers' flights at a cost. Of those still waiting, ``Q_j - reb_j``, a share 0.2
gives up (refunded the fare, lost) and the rest stay in the queue with the passengers denied
today: ``Q_j <- 0.8 (Q_j - reb_j) + denied_j`` (a queue that carries over from day to day).
The passengers still in the queue on Sunday night are rebooked on next week's flights at a
cost.

Fuel: the week burns ``F = sum over the days and routes of (op_j + carried_j)`` thousand
seat-days' burn, each costing 30 $k at the spot price P; the hedge H is bought forward at 30 *
1.06 $k each, the fuel beyond it bought at 30 P, hedged fuel left unused sold back at 30 * 0.9
P.

Costs: the seats K and E, 55 $k a thousand seats a day whether flown, cancelled or empty (K on
four days, E on three); the spare aircraft 28 $k a thousand seats a day for the week, and 180
$k a thousand passengers it carries (its crew, positioning and handling: dearer than a seat of
the schedule); 3 $k a standby crew a day and 0.35 $k a rebooking agent a day, for the week;
the marketing M; the hub's overhead, 250 $k a week; the fuel; 400 $k a thousand passengers
denied boarding (compensation); 80 $k a thousand passengers rebooked on other carriers; 120
$k a thousand passengers in the queue each night (hotels, meals; Sunday night's too); the fare
and 400 $k of goodwill a thousand passengers who give up; 300 $k a thousand passengers still
queued on Sunday night. The airline earns the fare of every ticket sold (no-shows' fares are
kept; the rebooked fly on the fares they paid).

Offered as ``transform(x, z)`` (53 normals a row; a scenario is the 21 bookings D_tj (day by
day, the three routes in each), the 21 usual cancelled shares b_tj, the 7 no-show shares ns_t,
the week's level of travel, the spot price P, the disruption's centre c and its excess
``(z - 1.64)_+``), its cost vectorised over decisions: common random numbers are exact. lam
0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, scenario

T, R = 7, 3


class Airline:
    name = "airline"
    dim_x, dim_w = 17, 2 * T * R + T + 4
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref = np.array([120.0, 160.0, 200.0])  # $ a passenger, the reference fares
    el_bus, el_leis = 0.5, 1.8  # the business and the leisure travellers' elasticity
    rival0, rival_slope = 0.2, 4.0  # the rival's share at the reference fare, its growth
    #: f1..f3, K1..K3, E1..E3, S, C, A, o1..o3, M, H
    bounds = ([(0.8 * r, 2.0 * r) for r in (120.0, 160.0, 200.0)]
              + [(0.0, np.inf)] * 14)
    x0 = np.array([120.0, 160.0, 200.0, 0.35, 0.35, 0.3, 0.25, 0.35, 0.5, 0.4, 1.5, 6.0,
                   0.06, 0.06, 0.06, 20.0, 6.0])

    bus = np.array([0.9, 0.7, 0.4])  # thousand business travellers a day
    leis = np.array([0.3, 0.4, 0.6])  # thousand leisure travellers a day
    wb = np.array([1.0, 1.0, 1.0, 1.0, 0.7, 0.2, 0.6])  # the business week
    wl = np.array([0.5, 0.4, 0.4, 0.6, 1.2, 1.4, 1.3])  # the leisure weekend
    weekend = np.array([0, 0, 0, 0, 1, 1, 1], dtype=bool)
    lift, reach = 0.5, 60.0  # the marketing's lift of the weekend's leisure demand, its scale
    level_sd, noise_sd = 0.1, 0.2  # the week's level of travel, a day's bookings (log)
    threshold, width = 1.64, 1.2  # the disruption's threshold, its spread over the days
    centre, centre_spread = 3.0, 1.5  # c = 3 + 3 tanh(z_c / 1.5)
    sens = np.array([0.6, 0.8, 1.2])  # the routes' exposure
    storm = 1.5  # the disruption's cancellations: 1 - exp(-1.5 kick p_t sens_j)
    usual_cancel, cancel_sd = 0.03, 0.5  # the usual share cancelled, its spread (logit)
    noshow, noshow_sd, calm = 0.12, 0.3, 1.5  # the no-shows, their spread, the kick's cut
    fuel_sd, fuel_kick = 0.2, 0.4  # the spot price's spread (log) and its rise with kick
    #: k seats a standby crew flies again a day, k passengers an agent rebooks a day, the
    #: share of the waiting who give up a day
    crew_seats, agent_rate, give_up = 0.12, 0.03, 0.2
    #: $k a k seats a day of the schedule and of the spare; $k a k passengers the spare carries
    seat_cost, spare_cost, spare_fee = 55.0, 28.0, 180.0
    crew_cost, agent_cost, overhead = 3.0, 0.35, 250.0  # $k a crew, an agent a day; a week
    burn, hedge_price, resale = 30.0, 1.06, 0.9  # $k a k seat-days at spot 1; the hedge
    #: $k a k passengers denied, in the queue a night, given up (besides the fare), queued on
    #: Sunday night
    compensation, care, goodwill, later = 400.0, 120.0, 400.0, 300.0
    interline = 80.0  # $k a k passengers rebooked on other carriers

    def keep(self, f):
        """The share of the route's travellers the airline keeps from the rival, 1 at ref."""
        a = np.log(self.rival0 / (1.0 - self.rival0))
        rival = 1.0 / (1.0 + np.exp(-(a + self.rival_slope * (f / self.ref - 1.0))))
        return (1.0 - rival) / (1.0 - self.rival0)

    def bookings_mean(self, x):
        """Each day's bookings of each route in a usual week, before the level and the noise,
        (..., 7, 3)."""
        x = np.asarray(x, dtype=float)
        f, M = x[..., None, 0:3], x[..., None, 15:16]
        rel = f / self.ref - 1.0
        lift = 1.0 + self.weekend[:, None] * self.lift * (-np.expm1(-M / self.reach))
        return ((self.bus * self.wb[:, None] * np.exp(-self.el_bus * rel)
                 + self.leis * self.wl[:, None] * np.exp(-self.el_leis * rel) * lift)
                * self.keep(f))

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)  # the axes after a column's
        z = columns(z, k)
        n = T * R
        pad = (n,) + (1,) * k

        def logistic(u):
            return 1.0 / (1.0 + np.exp(-u))

        level = np.exp(self.level_sd * z[2 * n + T] - 0.5 * self.level_sd**2)
        spot = np.exp(self.fuel_sd * z[2 * n + T + 1] - 0.5 * self.fuel_sd**2)
        centre = self.centre + 3.0 * np.tanh(z[2 * n + T + 2] / self.centre_spread)
        kick = np.maximum(z[2 * n + T + 3] - self.threshold, 0.0)
        days = np.repeat(np.arange(T), R).reshape(pad)
        hit = kick * np.exp(-0.5 * ((days - centre) / self.width) ** 2)  # (21, ...)
        mean = columns(self.bookings_mean(x).reshape(x.shape[:-1] + (1, n)), k)
        demand = mean * level * np.exp(self.noise_sd * z[:n] - 0.5 * self.noise_sd**2)
        usual = logistic(np.log(self.usual_cancel / (1.0 - self.usual_cancel))
                         + self.cancel_sd * z[n:2 * n])
        noshow = logistic(np.log(self.noshow / (1.0 - self.noshow))
                          + self.noshow_sd * z[2 * n:2 * n + T] - self.calm * hit[::R])
        price = spot * np.exp(self.fuel_kick * kick)
        parts = [demand, usual, noshow, level[None], price[None], centre[None], kick[None]]
        return scenario(parts)

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        n = T * R
        f = [x[..., j] for j in range(R)]
        K = [x[..., 3 + j] for j in range(R)]
        E = [x[..., 6 + j] for j in range(R)]
        S, C, A = x[..., 9], x[..., 10], x[..., 11]
        o = [x[..., 12 + j] for j in range(R)]
        M, H = x[..., 15], x[..., 16]
        price, centre, kick = W[2 * n + T + 1], W[2 * n + T + 2], W[2 * n + T + 3]
        shape = np.broadcast_shapes(price.shape, S.shape)
        total = (self.seat_cost * sum(4.0 * K[j] + 3.0 * E[j] for j in range(R))
                 + T * (self.spare_cost * S + self.crew_cost * C + self.agent_cost * A)
                 + M + self.overhead + self.burn * self.hedge_price * H) + np.zeros(shape)
        Q = [np.zeros(shape) for _ in range(R)]
        fuel = np.zeros(shape)
        for t in range(T):
            seats = E if self.weekend[t] else K
            ns = W[2 * n + t]
            hit = kick * np.exp(-0.5 * ((t - centre) / self.width) ** 2)
            sold, show, usual, cut = [], [], [], []
            for j in range(R):
                s = np.minimum(W[t * R + j], seats[j] + o[j])
                sold.append(s)
                show.append((1.0 - ns) * s)
                b = W[n + t * R + j]
                usual.append(b * seats[j])  # the usual cancellations
                cut.append((1.0 - (1.0 - b) * np.exp(-self.storm * hit * self.sens[j]))
                           * seats[j])  # and the disruption's
            crews = np.minimum(1.0, self.crew_seats * C / np.maximum(sum(usual), 1e-12))
            op = [seats[j] - cut[j] + usual[j] * crews for j in range(R)]
            over = [np.maximum(show[j] - op[j], 0.0) for j in range(R)]
            spare_share = np.minimum(1.0, S / np.maximum(sum(over), 1e-12))
            agents = np.minimum(1.0, self.agent_rate * A / np.maximum(sum(Q), 1e-12))
            for j in range(R):
                carried = over[j] * spare_share  # on the spare
                denied = over[j] - carried
                reb = Q[j] * agents  # rebooked: on a free seat of the day's flights,
                other = np.maximum(reb - np.maximum(op[j] - show[j], 0.0), 0.0)  # or elsewhere
                wait = Q[j] - reb
                gone = self.give_up * wait
                Q[j] = wait - gone + denied
                fuel = fuel + op[j] + carried
                total = (total - f[j] * sold[j] + self.spare_fee * carried
                         + self.interline * other + self.compensation * denied
                         + self.care * Q[j] + (f[j] + self.goodwill) * gone)
        total = total + self.later * sum(Q)
        total = (total + self.burn * price * np.maximum(fuel - H, 0.0)
                 - self.burn * self.resale * price * np.maximum(H - fuel, 0.0))
        return total
