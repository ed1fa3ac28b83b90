"""How every method sizes itself from its budget and the dimension, checked by value.

The rule (DESIGN.md section 4, ``acfs_cli.methods.base``): the paper's methods hold the values
of the paper's 260,000 draws on its 6-dimensional benchmarks; with factor f = budget / 260,000
a one-draw design follows f, a phase that evaluates decisions on several draws each splits f
between the number of decisions and the draws per decision (each ~ sqrt(f)), every size is
``max(round(value * f ** power), floor)`` (made even where the rows come in antithetic pairs),
draw-free DE generations shrink like sqrt(f) below the reference and never grow above it, and
the dimension enters where the algorithm needs it: GP-BO's d + 1 initial points, the
(2 d + 1)-point stencil of SGD-CVaR and of the shared polish's draws. Every expected number
below is written out by hand from that rule; nothing is read back from the code under test
except the paper's defaults the rule starts from.
"""

from __future__ import annotations

import numpy as np
import pytest

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.methods.base import BudgetTooSmall, scaled
from acfs_cli.methods.registry import METHODS
from acfs_cli.problems import get_problem

PAPER = 260_000
TENTH = 26_000  # f = 0.1, sqrt(f) = 0.316228
HUNDREDTH = 2_600  # f = 0.01, sqrt(f) = 0.1: most sizes fall to their floors


def effective(method: str, budget: int, dim: int, **overrides):
    """The settings a method runs with at this budget and dimension, and those it was given."""
    given = METHODS[method].settings(overrides)
    return given.for_budget(budget, dim), given


def assert_sizes(method: str, budget: int, dim: int, expected: dict, **overrides) -> None:
    """The settings named in ``expected`` have exactly these values; every other setting is
    the one given (nothing else moves with the budget)."""
    eff, given = effective(method, budget, dim, **overrides)
    got = {k: getattr(eff, k) for k in expected}
    assert got == expected
    others = {k: v for k, v in given.model_dump().items() if k not in expected}
    assert {k: getattr(eff, k) for k in others} == others


# ---------------------------------------------------------------------------------------------
# The helper every method sizes with


def test_scaled_rounds_the_power_of_the_factor_and_applies_floor_and_parity():
    assert scaled(100, 0.25, 0.5) == 50  # 100 * 0.5
    assert scaled(100, 0.25) == 25  # power 1
    assert scaled(3, 0.1, floor=2.2) == 3  # round(0.3) = 0, floor ceil(2.2) = 3
    assert scaled(7, 0.5) == 4  # round(3.5) = 4 (half to even)
    assert scaled(9, 1.0, even=True) == 10  # odd counts go up to the next even one
    assert scaled(8, 1.0, even=True) == 8
    assert scaled(0, 1.0, floor=0) == 0
    assert scaled(1, 0.1, floor=0, even=True) == 0  # round(0.1) = 0 is even already


# ---------------------------------------------------------------------------------------------
# At the paper's budget and dimension: the paper's values


def test_every_paper_method_at_260000_draws_and_6_dimensions_uses_the_papers_table_values():
    acfs = METHODS["acfs"].settings().for_budget(PAPER, 6)
    # Table "Key hyperparameters": N_A 1,200, N_B 700, K 4, r 0.025, 70 trees / min-node 15,
    # DE 55 iterations / population 85, pool 85 + 33 + 33 = 151, n_f 800, 30 starts / maxit
    # 80, n_d 450
    assert (acfs.n_a, acfs.n_b, acfs.k, acfs.radius) == (1200, 700, 4, 0.025)
    assert (acfs.n_trees, acfs.min_leaf, acfs.de_iters, acfs.de_pop) == (70, 15, 55, 85)
    assert acfs.de_pop + acfs.pool_safety + acfs.pool_basin == 151
    assert (acfs.n_f, acfs.n_starts, acfs.maxiter, acfs.n_d) == (800, 30, 80, 450)
    # Section 2.3 (in the settings' descriptions): CEM 7 x 35 candidates x 300 draws, n_c 100,
    # a 60 / 30 shortlist
    assert (acfs.cem_iters, acfs.cem_pop, acfs.cem_draws, acfs.n_c) == (7, 35, 300, 100)
    assert (acfs.keep1, acfs.keep2) == (60, 30)
    gp = METHODS["gp-bo"].settings().for_budget(PAPER, 6)
    assert (gp.n_init, gp.n_iter, gp.n_mc) == (18, 25, 130)  # 18 / 25, 130 draws each
    assert (gp.polish_n, gp.polish_draws) == (260, 38_000)
    cem = METHODS["cem-so"].settings().for_budget(PAPER, 6)
    assert (cem.n_iter, cem.population, cem.n_mc) == (12, 55, 130)  # 12 / 55
    assert (cem.polish_n, cem.polish_draws) == (520, 108_500)  # 4 x 130; Table "budget"
    sgd = METHODS["sgd-cvar"].settings().for_budget(PAPER, 6)
    assert (sgd.warm_chains, sgd.warm_iters, sgd.fine_iters, sgd.batch) == (2, 80, 160, 60)
    assert (sgd.n_select, sgd.polish_n) == (500, 240)
    kde = METHODS["kde-so"].settings().for_budget(PAPER, 6)
    assert (kde.n_train, kde.n_c, kde.de_maxiter, kde.de_popsize) == (2600, 100, 55, 85)


@pytest.mark.parametrize("method", sorted(METHODS))
def test_at_260000_draws_and_6_dimensions_no_setting_moves(method):
    eff, given = effective(method, PAPER, 6)
    assert eff.model_dump() == given.model_dump()


# ---------------------------------------------------------------------------------------------
# ACFS and its variants


def test_acfs_sizing_at_a_tenth_of_the_budget_follows_the_square_root_rule():
    assert_sizes("acfs", TENTH, 6, {
        "n_a": 120,  # one draw per point: round(1200 * 0.1) = 120 (floor 4 * 15 = 60)
        "n_b": 70,  # round(700 * 0.1) = 70
        "cem_pop": 11,  # round(35 * 0.316228) = round(11.07) = 11 (floor min(35, 10) = 10)
        "cem_draws": 95,  # round(300 * 0.316228) = round(94.87) = 95
        "keep1": 19,  # round(60 * 0.316228) = round(18.97) = 19
        "keep2": 9,  # min(keep1 19, round(30 * 0.316228) = round(9.49) = 9)
        "n_d": 142,  # round(450 * 0.316228) = round(142.30) = 142, even
        "pathwise_n": 48,  # round(150 * 0.316228) = 47 -> even 48; min(n_d 142, 48)
        "select_draws": 632,  # round(2000 * 0.316228) = round(632.46) = 632, even
        "de_iters": 17,  # draw-free: round(55 * 0.316228) = round(17.39) = 17 (floor 15)
    })


def test_acfs_sizing_at_a_hundredth_of_the_budget_stops_at_the_floors():
    assert_sizes("acfs", HUNDREDTH, 6, {
        "n_a": 60,  # round(1200 * 0.01) = 12 -> floor 4 * min_leaf 15 = 60
        "n_b": 7,  # round(700 * 0.01) = 7 (floor 0)
        "cem_pop": 10,  # round(35 * 0.1) = 4 -> floor min(35, 10) = 10
        "cem_draws": 30,  # round(300 * 0.1) = 30 (floor 20)
        "keep1": 8,  # round(60 * 0.1) = 6 -> floor min(60, 8) = 8
        "keep2": 4,  # round(30 * 0.1) = 3 -> floor min(30, 4) = 4; min(keep1 8, 4)
        "n_d": 46,  # round(450 * 0.1) = 45 -> even 46 (floor 30)
        "pathwise_n": 20,  # round(150 * 0.1) = 15 -> floor 20; min(n_d 46, 20)
        "select_draws": 200,  # round(2000 * 0.1) = 200 (floor 100)
        "de_iters": 15,  # round(55 * 0.1) = 6 -> floor min(55, 15) = 15
    })


def test_acfs_floors_follow_the_given_settings_not_the_papers():
    # floors are min(given, paper floor): a smaller given size is its own floor
    assert_sizes("acfs", HUNDREDTH, 6, {
        "n_a": 120,  # round(1200 * 0.01) = 12 -> floor 4 * min_leaf 30 = 120
        "cem_pop": 6,  # round(6 * 0.1) = 1 -> floor min(6, 10) = 6
        "keep1": 5,  # round(5 * 0.1) = 0 -> floor min(5, 8) = 5
        "keep2": 3,  # round(3 * 0.1) = 0 -> floor min(3, 4) = 3; min(keep1 5, 3)
        "de_iters": 10,  # min(10, max(round(10 * 0.1) = 1, floor min(10, 15) = 10))
        "n_b": 7, "cem_draws": 30, "n_d": 46, "pathwise_n": 20, "select_draws": 200,
    }, min_leaf=30, cem_pop=6, keep1=5, keep2=3, de_iters=10)
    # the per-decision draws stop at their own floors
    assert_sizes("acfs", HUNDREDTH, 6, {
        "cem_draws": 20,  # round(50 * 0.1) = 5 -> floor 20
        "n_d": 30,  # round(100 * 0.1) = 10 -> floor 30, even
        "pathwise_n": 20,  # round(50 * 0.1) = 5 -> floor 20; min(n_d 30, 20)
        "select_draws": 100,  # round(300 * 0.1) = 30 -> floor 100
        "n_a": 60, "n_b": 7, "cem_pop": 10, "keep1": 8, "keep2": 4, "de_iters": 15,
    }, cem_draws=50, n_d=100, pathwise_n=50, select_draws=300)


def test_acfs_sizing_in_50_dimensions_at_the_papers_budget_is_the_papers():
    # nothing of ACFS's draws depends on the dimension of x: f = 1 gives every value as given
    assert_sizes("acfs", PAPER, 50, {
        "n_a": 1200, "n_b": 700, "cem_pop": 35, "cem_draws": 300, "keep1": 60, "keep2": 30,
        "n_d": 450, "pathwise_n": 150, "select_draws": 2000, "de_iters": 55,
    })


def test_acfs_generations_of_its_draw_free_de_never_grow_above_the_papers():
    # ten times the budget: the draws grow (sqrt(10) = 3.162278), the DE generations do not
    eff, _ = effective("acfs", 10 * PAPER, 6)
    assert eff.de_iters == 55  # min(55, round(55 * 3.162278) = 174)
    assert eff.n_a == 12_000  # round(1200 * 10)
    assert eff.n_d == 1424  # round(450 * 3.162278) = round(1423.02) = 1423 -> even 1424


@pytest.mark.parametrize("variant", ["acfs-noav", "acfs-nocem", "acfs-norerank", "acfs-noaug",
                                     "acfs-plus"])
def test_acfs_variants_size_their_phases_as_acfs_does(variant):
    # the variants fix a switch, not a size: the same numbers as acfs at a tenth
    assert_sizes(variant, TENTH, 6, {
        "n_a": 120, "n_b": 70, "cem_pop": 11, "cem_draws": 95, "keep1": 19, "keep2": 9,
        "n_d": 142, "pathwise_n": 48, "select_draws": 632, "de_iters": 17,
    })


# ---------------------------------------------------------------------------------------------
# GP-BO, CEM-SO, SGD-CVaR, KDE-SO


def test_gp_bo_sizing_at_a_tenth_of_the_budget_follows_the_square_root_rule():
    assert_sizes("gp-bo", TENTH, 6, {
        "n_init": 18,  # max(18, d + 1 = 7)
        "n_iter": 8,  # round(25 * 0.316228) = round(7.91) = 8 (floor 5)
        "n_mc": 41,  # round(130 * 0.316228) = round(41.11) = 41
        "polish_n": 82,  # round(260 * 0.316228) = round(82.22) = 82, even
        "polish_draws": 3800,  # round(38000 * 0.1 * 13 / 13) = 3800
    })


def test_gp_bo_in_50_dimensions_starts_from_d_plus_1_points_and_a_larger_polish():
    assert_sizes("gp-bo", PAPER, 50, {
        "n_init": 51,  # max(18, 50 + 1)
        "n_iter": 25, "n_mc": 130, "polish_n": 260,
        "polish_draws": 295_231,  # round(38000 * (2 * 50 + 1) / 13) = round(295230.77)
    })
    # a tenth of the budget in 50 dimensions: the stencil and the budget multiply
    assert_sizes("gp-bo", TENTH, 50, {
        "n_init": 51, "n_iter": 8, "n_mc": 41, "polish_n": 82,
        "polish_draws": 29_523,  # round(38000 * 0.1 * 101 / 13) = round(29523.08)
    })


def test_gp_bo_in_one_dimension_keeps_its_18_initial_points_and_shrinks_the_polish():
    assert_sizes("gp-bo", PAPER, 1, {
        "n_init": 18,  # max(18, 1 + 1)
        "n_iter": 25, "n_mc": 130, "polish_n": 260,
        "polish_draws": 8769,  # round(38000 * (2 * 1 + 1) / 13) = round(8769.23)
    })


def test_gp_bo_steps_stop_at_100_and_floors_hold_at_small_budgets():
    assert_sizes("gp-bo", 25 * PAPER, 6, {
        "n_init": 18,
        "n_iter": 100,  # min(100, round(25 * 5) = 125)
        "n_mc": 650,  # round(130 * 5)
        "polish_n": 1300,  # round(260 * 5)
        "polish_draws": 950_000,  # round(38000 * 25)
    })
    assert_sizes("gp-bo", HUNDREDTH, 6, {
        "n_init": 18,
        "n_iter": 5,  # round(25 * 0.1) = 2 -> floor min(25, 5) = 5
        "n_mc": 20,  # round(130 * 0.1) = 13 -> floor 20
        "polish_n": 26,  # round(260 * 0.1) = 26 (floor 20), even
        "polish_draws": 380,  # round(38000 * 0.01)
    })


def test_cem_so_sizing_at_a_tenth_of_the_budget_follows_the_square_root_rule():
    assert_sizes("cem-so", TENTH, 6, {
        "population": 17,  # round(55 * 0.316228) = round(17.39) = 17 (floor 10)
        "n_mc": 41,  # round(130 * 0.316228) = round(41.11) = 41
        "polish_n": 164,  # round(520 * 0.316228) = round(164.44) = 164, even
        "polish_draws": 10_850,  # round(108500 * 0.1)
    })


def test_cem_so_polish_draws_follow_the_stencil_of_the_dimension():
    assert_sizes("cem-so", PAPER, 50, {
        "population": 55, "n_mc": 130, "polish_n": 520,
        "polish_draws": 842_962,  # round(108500 * 101 / 13) = round(842961.54)
    })
    assert_sizes("cem-so", PAPER, 1, {
        "population": 55, "n_mc": 130, "polish_n": 520,
        "polish_draws": 25_038,  # round(108500 * 3 / 13) = round(25038.46)
    })
    assert_sizes("cem-so", HUNDREDTH, 6, {
        "population": 10,  # round(55 * 0.1) = 6 -> floor min(55, 10) = 10
        "n_mc": 20,  # round(13) -> floor 20
        "polish_n": 52,  # round(520 * 0.1) = 52
        "polish_draws": 1085,  # round(108500 * 0.01)
    })


def test_sgd_cvar_sizing_at_a_tenth_of_the_budget_follows_the_square_root_rule():
    assert_sizes("sgd-cvar", TENTH, 6, {
        # the stencil of 2 * 6 + 1 = 13 points is the paper's: per stencil f = 0.1
        "batch": 19,  # round(60 * 0.316228) = round(18.97) = 19
        "warm_iters": 25,  # round(80 * 0.316228) = round(25.30) = 25
        "fine_iters": 51,  # round(160 * 0.316228) = round(50.60) = 51
        "n_select": 158,  # round(500 * 0.316228) = round(158.11) = 158
        "polish_n": 76,  # round(240 * 0.316228) = round(75.89) = 76, even
    })


def test_sgd_cvar_in_50_dimensions_splits_the_budget_over_its_101_point_stencil():
    # per stencil f = 13 / 101 = 0.128713, sqrt = 0.358766
    assert_sizes("sgd-cvar", PAPER, 50, {
        "batch": 22,  # round(60 * 0.358766) = round(21.53) = 22
        "warm_iters": 29,  # round(80 * 0.358766) = round(28.70) = 29
        "fine_iters": 57,  # round(160 * 0.358766) = round(57.40) = 57
        "n_select": 500,  # follows the budget only: f = 1
        "polish_n": 240,
    })
    # a tenth in 50 dimensions: per stencil f = 0.0128713, sqrt = 0.113452
    assert_sizes("sgd-cvar", TENTH, 50, {
        "batch": 10,  # round(60 * 0.113452) = 7 -> floor 10
        "warm_iters": 9,  # round(80 * 0.113452) = round(9.08) = 9 (floor 5)
        "fine_iters": 18,  # round(160 * 0.113452) = round(18.15) = 18
        "n_select": 158, "polish_n": 76,
    })
    # one dimension: per stencil f = 13 / 3, sqrt = 2.081666
    assert_sizes("sgd-cvar", PAPER, 1, {
        "batch": 125,  # round(60 * 2.081666) = round(124.90)
        "warm_iters": 167,  # round(80 * 2.081666) = round(166.53)
        "fine_iters": 333,  # round(160 * 2.081666) = round(333.07)
        "n_select": 500, "polish_n": 240,
    })


def test_sgd_cvar_at_twice_the_budget_grows_like_the_square_root_and_keeps_pairs_even():
    # f = 2, sqrt = 1.414214 (the stencil is the paper's 13 points)
    assert_sizes("sgd-cvar", 2 * PAPER, 6, {
        "batch": 85,  # round(60 * 1.414214) = round(84.85)
        "warm_iters": 113,  # round(80 * 1.414214) = round(113.14)
        "fine_iters": 226,  # round(160 * 1.414214) = round(226.27)
        "n_select": 707,  # round(500 * 1.414214) = round(707.11)
        "polish_n": 340,  # round(240 * 1.414214) = round(339.41) = 339 -> even 340
    })


def test_sgd_cvar_antithetic_batches_are_even_and_no_fine_search_stays_off():
    assert_sizes("sgd-cvar", TENTH, 6, {
        "batch": 20,  # round(60 * 0.316228) = 19 -> even 20 (pairs)
        "warm_iters": 25, "fine_iters": 51, "n_select": 158, "polish_n": 76,
    }, antithetic=True)
    assert_sizes("sgd-cvar", TENTH, 6, {
        "batch": 19, "warm_iters": 25,
        "fine_iters": 0,  # none asked, none given (no floor of 5)
        "n_select": 158, "polish_n": 76,
    }, fine_iters=0)


def test_kde_so_sizing_follows_the_budget_with_ten_points_per_coordinate_at_least():
    assert_sizes("kde-so", TENTH, 6, {
        "n_train": 260,  # one draw each: round(2600 * 0.1) = 260 (floor max(50, 60))
        "de_maxiter": 17,  # draw-free: round(55 * 0.316228) = 17 (floor 15)
    })
    assert_sizes("kde-so", PAPER, 50, {"n_train": 2600, "de_maxiter": 55})
    assert_sizes("kde-so", TENTH, 50, {
        "n_train": 500,  # round(260) -> floor max(50, 10 * 50) = 500
        "de_maxiter": 17,
    })
    assert_sizes("kde-so", HUNDREDTH, 1, {
        "n_train": 50,  # round(26) -> floor max(50, 10 * 1) = 50
        "de_maxiter": 15,  # round(5.5) -> floor min(55, 15) = 15
    })
    assert_sizes("kde-so", 10 * PAPER, 6, {
        "n_train": 26_000,  # round(2600 * 10)
        "de_maxiter": 55,  # min(55, round(55 * 3.162278) = 174)
    })


def test_saa_ps_plans_by_shares_and_keeps_its_settings_at_every_budget():
    for budget, dim in [(PAPER, 6), (TENTH, 6), (PAPER, 50), (HUNDREDTH, 1)]:
        assert_sizes("saa-ps", budget, dim, {})


@pytest.mark.parametrize("method", ["acfs", "gp-bo", "cem-so", "sgd-cvar", "kde-so"])
def test_scale_with_budget_false_uses_the_settings_as_given(method):
    eff, given = effective(method, TENTH, 50, scale_with_budget=False)
    assert eff.model_dump() == given.model_dump()
    assert METHODS[method].minimum_budget(50, {"scale_with_budget": False}) == 1


# ---------------------------------------------------------------------------------------------
# Minimum budgets

#: The fewest draws of every registered method at dimensions 1, 6 and 50, by hand.
#: ACFS: LHD 4 * min_leaf 15 = 60, CEM 7 iterations x min(35, 10) x 20 = 1,400, stage 2
#: min(60, 8) x 30 = 240, one fn call 30: 1,730 (no CEM: 330); no dimension in it.
#: GP-BO: (max(18, d + 1) + min(25, 5)) x 20: 460, 460, (51 + 5) x 20 = 1,120.
#: CEM-SO: 12 x min(55, 10) x 20 = 2,400.
#: SGD-CVaR: (2 chains + fine) x 5 iterations x (2 d + 1) x 10: 3 x 5 x 10 x (3, 13, 101).
#: KDE-SO: max(50, 10 d). SAA-PS: 100 (2 d + 2). SimOpt's Nelder-Mead: its first simplex,
#: r (d + 1) = 30 (d + 1); SimOpt's DASSO: its start-up, 10 reference points and a neighbour
#: of each in each of its 2 groups, 10 replications each, 10 x 3 x 10; SimOpt's other solvers
#: refuse no budget.
MINIMUM = {
    "acfs": (1730, 1730, 1730),
    "acfs-noav": (1730, 1730, 1730),
    "acfs-nocem": (330, 330, 330),
    "acfs-norerank": (1730, 1730, 1730),
    "acfs-noaug": (1730, 1730, 1730),
    "acfs-plus": (1730, 1730, 1730),
    "gp-bo": (460, 460, 1120),
    "cem-so": (2400, 2400, 2400),
    "sgd-cvar": (450, 1950, 15_150),
    "kde-so": (50, 60, 500),
    "saa-ps": (400, 1400, 10_200),
    "astro": (6, 16, 104),  # 2 rows at x0, at one difference per coordinate, at a candidate
    "auto": (1, 1, 1),  # below astro's minimum it answers x0 on the draws it has, and says so
    "simopt-astrodf": (1, 1, 1),
    "simopt-neldmd": (60, 210, 1530),
    "simopt-strong": (1, 1, 1),
    "simopt-spsa": (1, 1, 1),
    "simopt-adam": (1, 1, 1),
    "simopt-aloe": (1, 1, 1),
    "simopt-rndsrch": (1, 1, 1),
    "simopt-fcsa": (1, 1, 1),
    "simopt-dasso": (300, 300, 300),
}


def test_the_minimum_budget_table_covers_every_registered_method():
    assert set(MINIMUM) == set(METHODS)


@pytest.mark.parametrize("method", sorted(MINIMUM))
def test_minimum_budget_of_each_method_at_1_6_and_50_dimensions(method):
    got = tuple(METHODS[method].minimum_budget(d) for d in (1, 6, 50))
    assert got == MINIMUM[method]


@pytest.mark.parametrize("method, overrides, dim, expected", [
    ("acfs", {"min_leaf": 5}, 6, 20 + 1400 + 240 + 30),  # LHD 4 x 5
    ("acfs", {"cem_pop": 6}, 6, 60 + 7 * 6 * 20 + 240 + 30),  # min(6, 10) = 6 candidates
    ("acfs", {"cem_iters": 3}, 6, 60 + 3 * 10 * 20 + 240 + 30),
    ("acfs", {"keep1": 5, "keep2": 5}, 6, 60 + 1400 + 5 * 30 + 30),  # min(5, 8) = 5
    ("gp-bo", {"n_init": 30}, 6, (30 + 5) * 20),
    ("gp-bo", {"n_iter": 3}, 6, (18 + 3) * 20),  # min(3, 5) = 3 steps
    ("cem-so", {"population": 8}, 6, 12 * 8 * 20),
    ("cem-so", {"n_iter": 4}, 6, 4 * 10 * 20),
    ("sgd-cvar", {"fine_iters": 0}, 6, 2 * 5 * 13 * 10),  # two chains, no fine search
    ("sgd-cvar", {"warm_chains": 4}, 6, 5 * 5 * 13 * 10),
])
def test_minimum_budget_follows_the_given_settings(method, overrides, dim, expected):
    assert METHODS[method].minimum_budget(dim, overrides) == expected


@pytest.mark.parametrize("method, dim, need", [("gp-bo", 50, 1120), ("sgd-cvar", 6, 1950),
                                               ("saa-ps", 1, 400)])
def test_a_budget_one_draw_below_the_minimum_is_refused_naming_the_minimum(method, dim, need):
    problem = get_problem("performative-pricing", dim=dim)
    task = Task.from_problem(problem, 0.7, 0.95)
    oracle = Oracle(problem, need - 1, np.random.default_rng(0))
    with pytest.raises(BudgetTooSmall, match=f"at least {need:,} draws"):
        METHODS[method](task, oracle, np.random.default_rng(1))
    assert oracle.used == 0
