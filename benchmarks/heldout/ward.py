"""A held-out problem: a hospital ward's week, thirteen decisions, twelve of them open above.
Kept out of every choice of the default; its optimum is found without acfs (``find_optima.py``
beside it, ``optima.json``).

Decisions x = (the fee f of a self-pay elective admission, elective theatre slots s booked
each weekday, staffed beds B, nurse shifts n1..n7 rostered on each day, agency nurse shifts A
retained for every day, discharge coordinators c, partner beds o reserved for every day).
Emergencies arrive on day t at

    base_t * season * surge^(ramp_t) * own_t

with a week's lognormal season (sd 0.15), a day's own lognormal noise (sd 0.2) and an
epidemic surge ``exp(0.7 (z - 1.28)_+)`` (one week in ten, without bound) that builds over the
week (``ramp_t`` from 0.4 to 1.2). Elective referrals join a waiting list on day t at
``ref_t * exp(-0.00035 (f - 4000)) * own_t`` (own noise sd 0.3): the fee moves the demand.
The week starts with ``O0`` patients in bed and ``L0`` on the list. Each day a share of the
patients in bed is discharged, ``d0 (1 + 0.5 (1 - exp(-c / 2))) / acuity``, with an acuity
``1 + 0.25 (z - 1.28)_+`` that the surge raises (its patients stay longer and need more care).
Then the emergencies, with the patients boarded since earlier days, take the free beds; of
those still without a bed the partner takes up to o, the rest board in the emergency
department until a later day (a queue that carries over). On a weekday the list fills up to s
slots; an elective whose slot finds no free bed is cancelled and stays on the list, and a
tenth of the list leaves each day. The patients in bed need ``acuity / ratio`` nurse shifts
each: what the roster lacks is worked by the retained agency nurses up to A, the rest by bank
nurses at a premium. Costs: the beds', the roster's, the agency's retainer and shifts, the bank
shifts, the coordinators', the slots', each cancellation, the partner's reservation and
transfers, a safety cost of a boarded patient-day, and the transfer of the patients still
boarded at the end of the week; the ward earns the tariff R_e of an emergency admission and
the fee f of an elective one.

Offered as ``transform(x, z)`` (sixteen normals a row; a scenario is the seven days'
emergencies, the seven days' referrals, the season and the surge's excess ``(z - 1.28)_+``),
its cost vectorised over decisions: common random numbers are exact. lam 0.7, alpha 0.95.
"""

import numpy as np

T = 7
WEEKDAY = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0])


class Ward:
    name = "ward"
    dim_x, dim_w = 13, 2 * T + 2
    vectorized = True
    lam, alpha = 0.7, 0.95
    #: f, s, B, n1..n7, A, c, o
    bounds = [(1000.0, 9000.0)] + [(0.0, np.inf)] * 12
    x0 = np.array([2500.0, 3.0, 45.0] + [20.0] * T + [4.0, 1.5, 2.0])

    base = np.array([9.0, 8.0, 8.0, 7.5, 8.0, 6.0, 6.5])  # emergencies a day
    ramp = np.linspace(0.4, 1.2, T)
    referrals = np.array([6.0, 6.0, 6.0, 6.0, 6.0, 3.0, 3.0])  # at a fee of 4000
    start_beds, start_list = 35.0, 8.0  # O0, L0
    discharge, ratio, leave = 0.2, 1.6, 0.1
    tariff = 2000.0  # R_e, an emergency admission
    bed_cost, wage = 150.0, 260.0  # a bed-day, a nurse shift
    retainer, agency_rate, bank_rate = 40.0, 420.0, 700.0
    coordinator_cost, slot_cost, cancel_cost = 600.0, 900.0, 1500.0  # a day, a slot, each
    partner_fee, transfer_charge = 150.0, 1200.0  # a partner bed-day reserved, a transfer
    board_cost, end_transfer = 500.0, 3000.0  # a boarded patient-day, one left at the end

    def referral_mean(self, x):
        """Mean elective referrals of each day before the noise, (..., 7)."""
        x = np.asarray(x, dtype=float)
        return self.referrals * np.exp(-0.00035 * (x[..., 0:1] - 4000.0))

    def transform(self, x, z):
        z = np.asarray(z, dtype=float)
        season = np.exp(0.15 * z[..., 2 * T:2 * T + 1] - 0.5 * 0.15**2)
        kick = np.maximum(z[..., 2 * T + 1:2 * T + 2] - 1.28, 0.0)
        emergencies = (self.base * season * np.exp(0.7 * kick * self.ramp)
                       * np.exp(0.2 * z[..., :T] - 0.5 * 0.2**2))
        referrals = (self.referral_mean(x)[..., None, :]
                     * np.exp(0.3 * z[..., T:2 * T] - 0.5 * 0.3**2))
        shape = np.broadcast_shapes(emergencies.shape, referrals.shape)
        ones = shape[:-1] + (1,)
        return np.concatenate([np.broadcast_to(emergencies, shape),
                               np.broadcast_to(referrals, shape),
                               np.broadcast_to(season, ones), np.broadcast_to(kick, ones)],
                              axis=-1)

    def cost(self, W, x):
        x = np.asarray(x, dtype=float)[..., None, :]
        W = np.asarray(W, dtype=float)
        emergencies, referrals, kick = W[..., :T], W[..., T:2 * T], W[..., 2 * T + 1]
        f, s, B, n = x[..., 0], x[..., 1], x[..., 2], x[..., 3:3 + T]
        A, c, o = x[..., 3 + T], x[..., 4 + T], x[..., 5 + T]
        acuity = 1.0 + 0.25 * kick
        out_share = self.discharge * (1.0 + 0.5 * (1.0 - np.exp(-c / 2.0))) / acuity
        shape = np.broadcast_shapes(kick.shape, B.shape)
        beds = np.minimum(self.start_beds, B) + np.zeros(shape)  # in bed
        boarded = self.start_beds - beds  # those the beds cannot hold board
        waiting = self.start_list + np.zeros(shape)  # the elective list
        total = (T * (self.bed_cost * B + self.retainer * A + self.coordinator_cost * c
                      + self.partner_fee * o) + WEEKDAY.sum() * self.slot_cost * s
                 + self.wage * n.sum(axis=-1)) + np.zeros(shape)
        for t in range(T):
            beds = beds - out_share * beds
            present = boarded + emergencies[..., t]
            admitted = np.minimum(present, np.maximum(B - beds, 0.0))
            beds = beds + admitted
            rest = present - admitted
            moved = np.minimum(rest, o)
            boarded = rest - moved
            waiting = waiting + referrals[..., t]
            booked = WEEKDAY[t] * np.minimum(waiting, s)
            elective = np.minimum(booked, np.maximum(B - beds, 0.0))
            beds = beds + elective
            waiting = (1.0 - self.leave) * (waiting - elective)
            short = np.maximum(acuity * beds / self.ratio - n[..., t], 0.0)
            agency = np.minimum(A, short)
            total = (total - self.tariff * admitted - f * elective
                     + self.cancel_cost * (booked - elective) + self.transfer_charge * moved
                     + self.board_cost * boarded + self.agency_rate * agency
                     + self.bank_rate * (short - agency))
        return total + self.end_transfer * boarded
