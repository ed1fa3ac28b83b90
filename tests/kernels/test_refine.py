"""The shared refinement: sizes, distinct starts, the final candidates, median of means and the
guarded pick, each against a computation written out independently."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from toys import GaussianToy

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.risk import spectral_risk
from acfs_cli.core.task import Task
from acfs_cli.kernels.refine import (
    FinalPick,
    Schedule,
    StageResult,
    distinct,
    even,
    final_candidates,
    median_of_means,
    paired_gain,
    pick,
    refine_sizes,
    screen,
)
from acfs_cli.methods.saa_ps import SAAPSSettings
from acfs_cli.problems import get_problem

DEFAULT = SAAPSSettings().refinement()


def spectral_J(c, lam, alpha):
    """E[C] + lam CVaR_alpha(C) of one sample, the upper-quantile (Rockafellar-Uryasev) form."""
    c = np.sort(np.asarray(c, dtype=float))
    tau = c[int(np.ceil(alpha * len(c))) - 1]
    return c.mean() + lam * (tau + np.maximum(c - tau, 0).mean() / (1 - alpha))


# -- sizes -----------------------------------------------------------------------------------------
def test_even_rounds_down_to_an_even_count_of_at_least_low():
    assert [even(v) for v in (0, 1, 2, 3, 7.9, 8, 201.5)] == [2, 2, 2, 2, 6, 8, 200]
    assert even(0, low=0) == 0 and even(5, low=10) == 10


@pytest.mark.parametrize(("stages", "growth", "weight"), [
    (3.0, 2.0, 1 + 2 + 4),
    (2.5, 2.0, 1 + 2 + 0.5 * 4),
    (1.0, 3.0, 1),
    (0.5, 2.0, 0.5),
    (2.25, 1.5, 1 + 1.5 + 0.25 * 1.5**2),
])
def test_schedule_weight_is_the_planned_draws_over_the_first_stages(stages, growth, weight):
    s = Schedule(stages=stages, growth=growth, evals_per_dim=8.0, n_min=200, n_max=20_000)
    assert s.weight == pytest.approx(weight, rel=1e-15)
    assert s.evaluations(6) == 8.0 * 6 + 10


@pytest.mark.parametrize(("draws", "dim", "expected"), [
    # final = draws * 0.18 / 0.82, rows = even(final / 4); search = draws - final;
    # first sample = search / (7 * (8 d + 10)), raised to min(200, search / (4 (2 d + 2)))
    (100_000, 6, (200, 5_486)),  # 78,048.8 / 406 = 192.2 < n_min = 200
    (1_000_000, 6, (1_922, 54_878)),  # 780,487.8 / 406 = 1,922.4
    (3_000, 50, (4, 164)),  # n_min unaffordable: 2,341.5 / 408 = 5.74 -> 4
    (100_000_000, 6, (20_000, 5_487_804)),  # capped at n_max
])
def test_refine_sizes_match_the_hand_calculation(draws, dim, expected):
    assert refine_sizes(DEFAULT, draws, dim) == expected


def test_refine_sizes_share_the_draws_as_the_settings_say():
    r = replace(DEFAULT, final_share=0.25, planned_share=0.5,
                final=replace(DEFAULT.final, candidates=5))
    # the pick takes 0.25 of every 0.5 of the draws: 20,000 of 40,000, 4,000 per candidate
    n_first, rows = refine_sizes(r, 40_000, 2)
    assert rows == 4_000
    assert n_first == even(max(20_000 / (7 * (8 * 2 + 10)), min(200, 20_000 / 24)))


# -- starts ----------------------------------------------------------------------------------------
def greedy_by_definition(X, k, min_dist, scale=None):
    """The one subset S of the rows with: i in S exactly when S holds fewer than k rows
    before i and none of them is closer than min_dist (brute force over all subsets)."""
    Y = X if scale is None else X / scale
    D = cdist(Y, Y)
    n = len(X)
    hits = []
    for mask in itertools.product([False, True], repeat=n):
        S = [i for i in range(n) if mask[i]]
        if all(mask[i] == (len([j for j in S if j < i]) < k
                           and all(D[i, j] >= min_dist for j in S if j < i))
               for i in range(n)):
            hits.append(S)
    assert len(hits) == 1
    return hits[0]


@pytest.mark.parametrize("seed", range(6))
def test_distinct_is_the_greedy_subset_found_by_brute_force(seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(9, 2))
    k = int(rng.integers(1, 6))
    min_dist = float(rng.uniform(0.2, 0.6))
    assert distinct(X, k, min_dist) == greedy_by_definition(X, k, min_dist)
    scale = np.array([0.5, 2.0])
    assert distinct(X, k, min_dist, scale=scale) == greedy_by_definition(X, k, min_dist, scale)


def test_distinct_never_keeps_two_equal_rows_even_at_distance_zero():
    X = np.array([[0.1, 0.2], [0.1, 0.2], [0.3, 0.2]])
    assert distinct(X, 3, 0.0) == [0, 2]


def test_screen_ranks_the_design_by_its_estimates():
    X = np.array([[3.0], [1.0], [2.0]])
    s = screen(X, lambda Y: (Y[:, 0] - 1.9) ** 2)
    np.testing.assert_array_equal(s.values, (X[:, 0] - 1.9) ** 2)
    np.testing.assert_array_equal(s.ranked, [[2.0], [1.0], [3.0]])


# -- the final candidates --------------------------------------------------------------------------
def stage_result(x, n, others):
    x = np.asarray(x, dtype=float)
    pool = np.vstack([x, *others])  # a stage's end is the best point on its sample
    return StageResult(x=x, step=0.01, n=n, pool=pool, values=np.arange(len(pool), dtype=float),
                       run={})


def test_final_candidates_lead_with_the_weighted_mean_of_the_last_three_ends():
    task = Task.from_problem(GaussianToy(), 0.7, 0.95)
    ends = [np.array([0.1, 0.1, 0.1, 0.1, 0.1, 0.5]) + 0.02 * k for k in range(4)]
    others = [[np.full(6, 0.05) + 0.01 * k, np.full(6, 0.12) + 0.01 * k] for k in range(4)]
    sizes = [200, 400, 800, 1_600]
    stages = [stage_result(e, n, o) for e, n, o in zip(ends, sizes, others, strict=True)]
    pick_settings = FinalPick(candidates=20, batches=5, guard=1.0, spacing=1e-6,
                              surface_radius=0.0, surface_stages=3, surface_rank=1)
    info: dict = {}
    got = final_candidates(task, stages, pick_settings, np.empty((0, 6)), info)
    # by hand: (400 e1 + 800 e2 + 1600 e3) / 2800, the first stage left out
    mean = (400 * ends[1] + 800 * ends[2] + 1_600 * ends[3]) / 2_800
    expected = [mean, ends[3], ends[2], ends[1], ends[0],
                # then the stages' other points in turn, best first, the first stage first
                others[0][0], others[1][0], others[2][0], others[3][0],
                others[0][1], others[1][1], others[2][1], others[3][1]]
    np.testing.assert_allclose(got, np.array(expected), rtol=0, atol=1e-15)
    assert info == {}  # no surface asked for


def test_final_candidates_keep_only_points_far_enough_apart_and_at_most_the_count():
    task = Task.from_problem(GaussianToy(), 0.7, 0.95)
    end = np.array([0.1, 0.1, 0.1, 0.1, 0.1, 0.5])
    near = end + 1e-4
    stages = [stage_result(end, 200, [near, end + 0.1])]
    pick_settings = FinalPick(candidates=2, batches=5, guard=1.0, spacing=0.01,
                              surface_radius=0.0, surface_stages=3, surface_rank=1)
    got = final_candidates(task, stages, pick_settings, np.empty((0, 6)), {})
    np.testing.assert_array_equal(got, [end, end + 0.1])  # one stage: no averaged solution


def test_without_stages_the_final_candidates_are_the_starts():
    task = Task.from_problem(GaussianToy(), 0.7, 0.95)
    starts = np.array([[0.1, 0.1, 0.1, 0.1, 0.1, 0.5], [0.2, 0.1, 0.1, 0.1, 0.1, 0.5]])
    pick_settings = replace(DEFAULT.final, spacing=0.01)
    np.testing.assert_array_equal(final_candidates(task, [], pick_settings, starts, {}), starts)


# -- median of means -------------------------------------------------------------------------------
def test_median_of_means_on_antithetic_pairs_with_uneven_batches():
    problem = GaussianToy()
    task = Task.from_problem(problem, 0.7, 0.95)
    X = np.array([[0.1, 0.1, 0.1, 0.1, 0.1, 0.5], [0.3, 0.2, 0.1, 0.0, 0.0, 0.6]])
    oracle = Oracle(problem, 10_000, np.random.default_rng(4))
    values, costs = median_of_means(task, oracle, X, 1_000, batches=3, with_costs=True)
    assert oracle.used == 2 * 1_000
    # the sample by hand: the oracle's first common sample, pairs z and -z
    z = Oracle(problem, 10, np.random.default_rng(4)).common_sample(1_000, antithetic=True
                                                                    ).normals(1)
    np.testing.assert_array_equal(z[:500], -z[500:])
    # 500 pairs in batches of 167, 167 and 166 pairs, each pair in one batch
    bounds = [(0, 167), (167, 334), (334, 500)]
    for x, value, c in zip(X, values, costs, strict=True):
        by_hand = problem.cost(problem.transform(x, z), x)
        np.testing.assert_allclose(c, by_hand, rtol=1e-14)
        batches = [np.r_[by_hand[a:b], by_hand[500 + a:500 + b]] for a, b in bounds]
        assert value == pytest.approx(np.median([spectral_J(b, 0.7, 0.95) for b in batches]),
                                      rel=1e-12)


def test_median_of_means_of_a_sample_only_simulator_takes_consecutive_uneven_batches():
    problem = get_problem("tandem-mm1")
    task = Task.from_problem(problem, 0.5, 0.9)
    assert not task.has_transform
    X = task.space_filling(2, np.random.default_rng(0))
    oracle = Oracle(problem, 10_000, np.random.default_rng(1))
    values, costs = median_of_means(task, oracle, X, 1_000, batches=3, with_costs=True)
    assert oracle.used == 2 * 1_000 and costs.shape == (2, 1_000)
    for value, c in zip(values, costs, strict=True):
        batches = [c[:334], c[334:667], c[667:]]
        assert value == pytest.approx(np.median([spectral_J(b, 0.5, 0.9) for b in batches]),
                                      rel=1e-12)


def test_median_of_means_with_one_batch_is_the_plain_estimate():
    problem = GaussianToy()
    task = Task.from_problem(problem, 0.7, 0.95)
    X = np.array([[0.1, 0.1, 0.1, 0.1, 0.1, 0.5]])
    values, costs = median_of_means(task, Oracle(problem, 1_000, np.random.default_rng(0)), X,
                                    402, batches=1, with_costs=True)
    assert values[0] == pytest.approx(spectral_J(costs[0], 0.7, 0.95), rel=1e-12)


# -- the guarded pick ------------------------------------------------------------------------------
def constructed_costs(shift_in_se: float, n: int = 100):
    """Two candidates' costs whose paired difference has mean ``shift_in_se`` standard errors:
    d = m + (+1, -1, +1, ...), so sd(d) = sqrt(n / (n - 1)) and se = 1 / sqrt(n - 1)."""
    base = np.linspace(10.0, 20.0, n)
    se = 1 / np.sqrt(n - 1)
    d = shift_in_se * se + np.tile([1.0, -1.0], n // 2)
    return np.stack([base, base + d]), se


@pytest.mark.parametrize(("shift", "guard", "expected"), [
    (-1.5, 1.0, 1),  # beats the first by 1.5 SE: switched
    (-1.5, 2.0, 0),  # but not by 2 SE
    (-1.05, 1.0, 1),  # just beyond one SE
    (-0.95, 1.0, 0),  # just within it
    (-0.5, 1.0, 0),  # lower, within the noise: the first kept
    (-0.5, 0.0, 1),  # no guard: the plain argmin
    (0.5, 1.0, 0),   # higher: the first
])
def test_the_pick_switches_only_when_another_beats_the_first_by_guard_standard_errors(
        shift, guard, expected):
    task = Task.from_problem(GaussianToy(), 0.0, 0.95)  # lam = 0: influence values are costs
    costs, se = constructed_costs(shift)
    values = task.risk(costs)[0]
    assert values[1] - values[0] == pytest.approx(shift * se, rel=1e-9)
    assert pick(task, values, costs, guard) == expected


def test_the_pick_compares_the_lowest_with_the_first_only():
    task = Task.from_problem(GaussianToy(), 0.0, 0.95)
    costs, _ = constructed_costs(-1.5)
    far, _ = constructed_costs(-3.0)
    three = np.vstack([costs, far[1:]])
    assert pick(task, task.risk(three)[0], three, guard=2.0) == 2
    assert pick(task, task.risk(three)[0], three, guard=4.0) == 0


@pytest.mark.parametrize("lam, alpha", [(0.0, 0.95), (0.7, 0.95), (1.0, 0.8)])
def test_the_paired_gain_is_the_difference_of_the_estimates_with_its_paired_error(lam, alpha):
    # the mean of the influence values is the estimate itself (the Rockafellar-Uryasev form
    # at the sample's quantile), so the gain is J(a) - J(b) exactly; its standard error is
    # that of the paired differences of the rows' influence values, computed here by hand
    task = Task.from_problem(GaussianToy(), lam, alpha)
    rng = np.random.default_rng(4)
    z = rng.standard_normal(2_000)
    costs = np.vstack([z**2 + 0.3 * z, 0.9 * z**2 + 0.3 * z + 0.05 * rng.standard_normal(z.size)])
    gain, se = paired_gain(task, costs, 0, 1)
    J = [spectral_risk(c, lam, alpha)[0] for c in costs]
    assert gain == pytest.approx(J[0] - J[1], rel=1e-9, abs=1e-12)

    def psi(c):
        tau = np.quantile(c, alpha, method="inverted_cdf")
        return c + lam * (tau + np.maximum(c - tau, 0.0) / (1.0 - alpha))

    d = psi(costs[0]) - psi(costs[1])
    assert se == pytest.approx(d.std(ddof=1) / np.sqrt(d.size), rel=1e-9)
    assert paired_gain(task, costs, 1, 0) == pytest.approx((-gain, se))
