"""A held-out problem: a fishing cooperative's season of eight two-week periods, fourteen
decisions, twelve of them open above, written after version 12 of the default and the EV
charging network and the testing laboratory. Kept out of every choice of the default; its
optimum is found without acfs (``find_optima.py`` beside it, ``optima.json``). Fish and fillets
are counted in tonnes, money in $k, so a price of p $ a kg is p $k a tonne.

Decisions x = (the price p_f of fresh fish at the cooperative's market ($/kg, from 0.5 to 2
times the reference 6), the price p_z of frozen fillets ($/kg, from 0.5 to 2 times the
reference 14), the boats B_1 crewed for periods 1-4 and B_2 for periods 5-8 (paid whether they
fish), the mechanics E, the quota Q_L leased up front (tonnes, beside the cooperative's own
700), the ice plant's capacity I (tonnes a period), the processing line's capacity L (tonnes of
fish a period), the cold store's capacity C (tonnes of fillets), the trucks K, the volume Q of
a forward contract with a supermarket chain (tonnes a period), the marketing budget M ($k), a
hedge H on the spot price of fish (tonnes a period) and a storm cover V ($k)). Marketing lifts
both demands by ``lift(M) = 1 + 0.4 (1 - exp(-M / 30))``; the supermarket pays ``8 exp(-Q /
200)`` $k a tonne of the contract (the more it commits to, the less it pays). In period t
(t = 0 .. 7) the fresh market and the fillets' buyers want

    D_f,t = 60 exp(-1.7 (p_f / 6 - 1)) lift(M) season_t market (1 + 0.2 storm_t) own_t,
    D_z,t = 25 exp(-1.8 (p_z / 14 - 1)) lift(M) market own'_t

tonnes (what a dear price loses goes to the rival sellers; season = 0.9, 0.95, 1, 1.1, 1.2,
1.1, 1, 0.95, the summer's visitors; ``market`` the season's lognormal level, sd 0.1 on the
log, mean 1; own, own' lognormal, sd 0.2 and 0.15). The fish on the ground are ``A_t = run_t
stock exp(-1.5 storm_t) own''_t`` (run = 0.7, 0.85, 1, 1.15, 1.2, 1.1, 0.95, 0.8; ``stock``
the season's lognormal level, sd 0.1; own'' sd 0.15), the share of the days the boats can fish
``sea_t = exp(-0.15 exp(0.7 u_t) - 1.2 storm_t)`` (u_t standard normal: rough weather) and the
spot price of fish ``spot_t = 7 own'''_t (1 + 3 storm_t)`` (own''' sd 0.15). A heavy-tailed
storm season and stock collapse, ``kick = (z - 1.64)_+`` (one season in twenty, without
bound), weighted ``w = 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 1`` over the periods (more later),
``storm_t = w_t kick``, cuts the fish on the ground, keeps the boats in port, raises the spot
price and the fresh market's demand (the rivals have no fish) and wrecks more boats.

The season opens with no boat broken, no fish waiting, the cold store empty, the ground
``g = 1`` and ``700 + Q_L`` tonnes of quota left. In period t (B that of the period's crews; at
period 5 the boats broken are ``min(broken, B_2)``):

- of the boats up, ``up = B - broken``, ``new = up (1 - exp(-0.04 (1 + 3 storm_t)))`` break
  (they fish half the period): ``fishing = up - 0.5 new``; the mechanics mend ``min(broken +
  new, E)`` (a boat each a period), the rest wait (they carry over);
- the boats catch ``catch = 300 A_t sea_t g (1 - exp(-fishing / 25))`` (the ground's catch
  with diminishing returns to the boats), landed no more than the quota left: ``landed =
  min(catch, left)``, ``left <- left - landed``; the ground regrows and is depleted, ``g <-
  (0.9 g + 0.1) exp(-landed / 3000)`` (it carries over and lowers the later catches);
- the ice plant takes ``iced = min(landed, I)``, the rest goes to the fishmeal plant at 0.8 a
  tonne; the fish at hand, ``avail = raw + iced`` (raw those waiting from the last period), go
  first to the contract, ``deliver = min(Q, avail)`` (the shortfall ``Q - deliver`` bought at
  the spot price), then to the fresh market, ``sold_f = min(D_f,t, avail - deliver)``, then to
  the line, ``done = min(L, avail - deliver - sold_f)``; the rest is re-iced (0.1 a tonne), 30 %
  of it spoils (to the fishmeal plant) and the rest waits to the next period (``raw``);
- the line makes ``0.5 done`` tonnes of fillets; the buyers take ``sold_z = min(D_z,t, st + 0.5
  done)`` from the cold store's stock st and the fillets made; of the stock left, what the store
  cannot hold, ``over = (st - C)_+``, is sold to a wholesaler at 3 a tonne, and 5 % of the rest
  is lost to freezer burn (``st <- 0.95 (st - over)``) and is held at 0.05 a tonne;
- the trucks carry 20 tonnes a period each of the contract's, the fresh and the fillets' sales;
  the tonnes beyond them go by hired haulage at 0.35 a tonne.

Costs: the overhead (300), the boats (12 each a period), the mechanics (4 each a period), the
leased quota (1 a tonne), the ice plant (1.2 a tonne a period), the line (2 a tonne a period),
the cold store (0.4 a tonne), the trucks (3 each a period), M and the cover's premium (0.2 a $k
of cover); each period the contract's spot purchases, the line's work (0.6 a tonne), the
re-icing, the holding, the fresh market's unmet demand (0.5 a tonne, goodwill), the haulage and
the hedge's settlement ``H (1.15 7 - spot_t)``; less the contract's ``8 exp(-Q / 200) Q``,
``p_f sold_f``, ``p_z sold_z``, the fillets sold to the wholesaler and the fishmeal. At the end
the leased quota unused, ``min(Q_L, left)``, is sold back at 0.3 a tonne, the fillets left are
worth 7 a tonne and the fish waiting go to the fishmeal plant. The cover pays ``min(V, 0.6 (L -
100)_+)``, L the season's spot purchases and unmet fresh demand valued at 6 a tonne.

Offered as ``transform(x, z)`` (43 normals a row; a scenario is each period's fish on the
ground, share of days at sea, spot price, fresh demand and fillet demand, the stock, the market
and the storm's excess ``(z - 1.64)_+``), its cost vectorised over decisions: common random
numbers are exact. lam 0.8, alpha 0.95.
"""

import numpy as np
from arrays import columns, lognormal, scenario

T = 8  # two-week periods


class Fishery:
    name = "fishery"
    dim_x, dim_w = 14, 5 * T + 3
    vectorized = True
    lam, alpha = 0.8, 0.95
    ref_f, ref_z = 6.0, 14.0  # the reference prices ($k a tonne of fresh fish, of fillets)
    #: p_f, p_z, B_1, B_2, E, Q_L, I, L, C, K, Q, M, H, V
    bounds = [(0.5 * ref_f, 2.0 * ref_f), (0.5 * ref_z, 2.0 * ref_z)] + [(0.0, np.inf)] * 12
    x0 = np.array([6.0, 14.0, 20.0, 20.0, 1.0, 200.0, 150.0, 40.0, 30.0, 5.0, 40.0, 40.0,
                   20.0, 200.0])

    fresh, fillets = 60.0, 25.0  # tonnes a period at the reference prices
    el_f, el_z = 1.7, 1.8  # the elasticities
    lift_max, lift_scale = 0.4, 30.0  # marketing's lift, its scale ($k)
    run = np.array([0.7, 0.85, 1.0, 1.15, 1.2, 1.1, 0.95, 0.8])  # the fish's run
    season = np.array([0.9, 0.95, 1.0, 1.1, 1.2, 1.1, 1.0, 0.95])  # the fresh market's
    stock_sd, abund_sd, sea_k, sea_sd, spot_sd, fresh_sd, fill_sd, market_sd = (
        0.1, 0.15, 0.15, 0.7, 0.15, 0.2, 0.15, 0.1)
    spot_ref = 7.0  # $k a tonne
    threshold = 1.64  # the storm season: one season in twenty
    w = np.array([0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 1.0])  # its weight each period
    collapse, port, spike, rush, wreck = 1.5, 1.2, 3.0, 0.2, 3.0  # its effects
    ground, per_boat = 300.0, 25.0  # the ground's catch at its most (t), the boats' scale
    depletion, regrowth = 3000.0, 0.1  # the ground's depletion (t), its regrowth a period
    own_quota = 700.0  # tonnes
    brk, per_mech = 0.04, 1.0  # a boat's failure rate a period; boats a mechanic mends
    yield_ = 0.5  # tonnes of fillets a tonne of fish
    spoil, decay = 0.3, 0.05  # the fish waiting that spoils; the fillets' loss a period
    truck_cap = 20.0  # tonnes a truck a period
    contract_price, contract_scale, strike = 8.0, 200.0, 1.15  # the contract's price ($k a
    # tonne) falls with its volume Q (t a period) by exp(-Q / 200); the hedge's strike
    overhead, boat_fee, mech_wage, lease, ice_fee, line_fee, store_fee, truck_fee = (
        300.0, 12.0, 4.0, 1.0, 1.2, 2.0, 0.4, 3.0)
    premium = 0.2  # a $k of cover
    meal, reice, process, hold, haul, lost_fee, dump = 0.8, 0.1, 0.6, 0.05, 0.35, 0.5, 3.0
    sell_back, end_fillet = 0.3, 7.0  # $k a tonne of leased quota unused; of fillets left
    share, retention = 0.6, 100.0  # the insurance's share and retention

    def lift(self, x):
        return 1.0 + self.lift_max * -np.expm1(-np.asarray(x, dtype=float)[..., 11]
                                                / self.lift_scale)

    def demand_mean(self, x):
        """Tonnes of fresh fish and of fillets a period in a usual season, before the season's
        shape and the noise: shape (..., 2)."""
        x = np.asarray(x, dtype=float)
        f = self.fresh * np.exp(-self.el_f * (x[..., 0] / self.ref_f - 1.0))
        z = self.fillets * np.exp(-self.el_z * (x[..., 1] / self.ref_z - 1.0))
        return np.stack([f, z], axis=-1) * self.lift(x)[..., None]

    def transform(self, x, z):
        x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
        k = max(x.ndim, z.ndim - 1)
        z = columns(z, k)
        pad = (T,) + (1,) * k
        stock = lognormal(self.stock_sd, z[5 * T])
        market = lognormal(self.market_sd, z[5 * T + 1])
        kick = np.maximum(z[5 * T + 2] - self.threshold, 0.0)
        storm = self.w.reshape(pad) * kick
        m = columns(np.asarray(self.demand_mean(x))[..., None, :], k)
        abundance = (self.run.reshape(pad) * stock * np.exp(-self.collapse * storm)
                     * lognormal(self.abund_sd, z[:T]))
        sea = np.exp(-self.sea_k * np.exp(self.sea_sd * z[T:2 * T]) - self.port * storm)
        spot = (self.spot_ref * lognormal(self.spot_sd, z[2 * T:3 * T])
                * (1.0 + self.spike * storm))
        fresh = (m[0] * self.season.reshape(pad) * market * (1.0 + self.rush * storm)
                 * lognormal(self.fresh_sd, z[3 * T:4 * T]))
        fillets = m[1] * market * lognormal(self.fill_sd, z[4 * T:5 * T])
        return scenario([abundance, sea, spot, fresh, fillets, stock[None], market[None],
                         kick[None]])

    def cost(self, W, x):
        x, W = np.asarray(x, dtype=float)[..., None, :], np.asarray(W, dtype=float)
        k = max(x.ndim - 1, W.ndim - 1)
        W = columns(W, k)
        p_f, p_z = x[..., 0], x[..., 1]
        B1, B2, E, QL, I, L, C, K, Q, M, H, V = (x[..., j] for j in range(2, 14))
        kick = W[5 * T + 2]
        shape = np.broadcast_shapes(kick.shape, p_f.shape)
        zero = np.zeros(shape)
        total = (self.overhead + 4 * self.boat_fee * (B1 + B2) + T * self.mech_wage * E
                 + self.lease * QL + self.ice_fee * I + self.line_fee * L + self.store_fee * C
                 + T * self.truck_fee * K + M + self.premium * V) + zero
        price_q = self.contract_price * np.exp(-Q / self.contract_scale)
        down, raw, st, g = zero, zero, zero, np.ones(shape)
        left = self.own_quota + QL + zero
        loss = zero
        for t in range(T):
            B = B1 if t < 4 else B2
            if t == 4:
                down = np.minimum(down, B2)
            storm = self.w[t] * kick
            spot = W[2 * T + t]
            # the boats: breakdowns, repairs, the catch
            up = B - down
            new = up * -np.expm1(-self.brk * (1.0 + self.wreck * storm))
            fishing = up - 0.5 * new
            mend = np.minimum(down + new, self.per_mech * E)
            down = down + new - mend
            catch = (self.ground * W[t] * W[T + t] * g
                     * -np.expm1(-fishing / self.per_boat))
            landed = np.minimum(catch, left)
            left = left - landed
            g = (1.0 - self.regrowth) * g + self.regrowth
            g = g * np.exp(-landed / self.depletion)
            # the ice: the rest to the fishmeal plant
            iced = np.minimum(landed, I)
            avail = raw + iced
            # the contract first, the fresh market, the line; the rest waits
            deliver = np.minimum(Q, avail)
            avail = avail - deliver
            short = Q - deliver
            sold_f = np.minimum(W[3 * T + t], avail)
            avail = avail - sold_f
            done = np.minimum(L, avail)
            raw = avail - done
            # the fillets: the cold store, the demand
            made = self.yield_ * done
            sold_z = np.minimum(W[4 * T + t], st + made)
            st = st + made - sold_z
            over = np.maximum(st - C, 0.0)
            st = (st - over) * (1.0 - self.decay)
            shipped = deliver + sold_f + sold_z
            bought = spot * short
            unmet = W[3 * T + t] - sold_f
            loss = loss + bought + self.ref_f * unmet
            total = (total + bought + self.process * done + self.hold * st
                     + self.reice * raw + self.lost_fee * unmet
                     + self.haul * np.maximum(shipped - self.truck_cap * K, 0.0)
                     + H * (self.strike * self.spot_ref - spot)
                     - price_q * Q - p_f * sold_f - p_z * sold_z
                     - self.dump * over - self.meal * (landed - iced))
            # the fish left waiting: a share spoils, to the fishmeal plant
            total = total - self.meal * self.spoil * raw
            raw = (1.0 - self.spoil) * raw
        total = (total - self.sell_back * np.minimum(QL, left) - self.end_fillet * st
                 - self.meal * raw)
        return total - np.minimum(V, self.share * np.maximum(loss - self.retention, 0.0))
