"""The projected pattern search: minimisers of known functions on X, feasibility, cache, stops."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from acfs_cli.core.oracle import BudgetExhausted
from acfs_cli.kernels import pattern
from acfs_cli.kernels.pattern import (
    CountedObjective,
    Directions,
    EvalCache,
    PatternSettings,
    PollSet,
    StepControl,
    evaluate_poll,
    pattern_searches,
    point_key,
    poll_set,
    simplex_gradient,
)
from acfs_cli.problems.feasible import COUPLED, SUM_CAP, UPPER, is_feasible, project

SETTINGS = set(PatternSettings.__dataclass_fields__)


def pattern_search(f, x0, project, **kwargs):
    """The search on the benchmarks' X: the allocations under the sum cap are coupled."""
    settings = PatternSettings(**{k: v for k, v in kwargs.items() if k in SETTINGS})
    rest = {k: v for k, v in kwargs.items() if k not in SETTINGS}
    return pattern.pattern_search(f, x0, project, settings, **{"coupled": COUPLED, **rest})


def weighted_quadratic(a, w):
    a, w = np.asarray(a, float), np.asarray(w, float)

    def f(X):
        X = np.atleast_2d(X)
        return ((X - a) ** 2 * w).sum(axis=1)

    return f


def scipy_minimiser(a, w):
    """The constrained minimiser of sum w_j (x_j - a_j)^2 over X by SLSQP (independent)."""
    a, w = np.asarray(a, float), np.asarray(w, float)
    res = minimize(
        lambda x: float(((x - a) ** 2 * w).sum()),
        np.full(6, 0.1),
        jac=lambda x: 2 * w * (x - a),
        method="SLSQP",
        bounds=[(0.0, float(u)) for u in UPPER],
        constraints=[{"type": "ineq", "fun": lambda x: SUM_CAP - x[:5].sum(),
                      "jac": lambda x: -np.r_[np.ones(5), 0.0]}],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    assert res.success
    return res.x


class Recorder:
    """A batch objective that records every point it is asked for."""

    def __init__(self, f):
        self.f = f
        self.points: list[np.ndarray] = []
        self.calls = 0

    def __call__(self, X):
        X = np.atleast_2d(X)
        self.calls += 1
        self.points.extend(np.array(X, copy=True))
        return self.f(X)


def test_finds_interior_minimiser_of_convex_quadratic():
    a = np.array([0.1, 0.2, 0.05, 0.15, 0.1, 0.4])
    f = weighted_quadratic(a, np.ones(6))
    res = pattern_search(f, np.full(6, 0.3) * [1, 1, 1, 0.5, 0.5, 1], project, step0=0.1,
                         step_min=1e-4, max_evals=2000)
    assert res.stopped_by == "step_min"
    np.testing.assert_allclose(res.x, a, atol=2e-4)


@pytest.mark.parametrize(
    ("a", "w"),
    [
        # Euclidean: the minimiser is the projection of a onto X (sum of a is 1.2 > 0.85).
        ([0.5, 0.3, 0.2, 0.1, 0.1, 0.5], [1, 1, 1, 1, 1, 1]),
        # Weighted, with a coordinate pushed beyond its upper bound and one below zero.
        ([0.9, 0.25, 0.3, -0.1, 0.2, 1.3], [1.0, 4.0, 0.5, 2.0, 3.0, 1.0]),
        # The benchmark's shape: two coordinates share the cap, the rest at zero.
        ([-0.2, 0.4, 0.7, -0.1, -0.3, 1.5], [3.0, 1.0, 2.0, 1.0, 1.0, 1.0]),
    ],
)
def test_finds_minimiser_on_face_where_sum_constraint_binds(a, w):
    x_star = scipy_minimiser(a, w)
    assert x_star[:5].sum() == pytest.approx(SUM_CAP, abs=1e-8)  # the face is active
    f = weighted_quadratic(a, w)
    res = pattern_search(f, np.array([0.05, 0.05, 0.05, 0.05, 0.05, 0.2]), project,
                         step0=0.1, step_min=1e-5, max_evals=5000)
    assert res.stopped_by == "step_min"
    np.testing.assert_allclose(res.x, x_star, atol=1e-3)
    assert res.value - f(x_star)[0] < 1e-5


def test_exchange_directions_are_polled_on_the_face():
    a = np.array([0.5, 0.3, 0.2, 0.1, 0.1, 0.5])
    rec = Recorder(weighted_quadratic(a, np.ones(6)))
    x0 = project(np.array([0.2, 0.2, 0.2, 0.2, 0.2, 0.5]))  # on the face: sum = 0.85
    res = pattern_search(rec, x0, project, step0=0.05, step_min=0.01, max_evals=200,
                         batch_size=None)
    assert any(h["face"] for h in res.history)
    steps = np.array(rec.points) - x0
    h = 0.05
    pairs = {(i, j) for i in range(5) for j in range(5) if i != j}
    seen = set()
    for d in steps:
        for i, j in pairs:
            e = np.zeros(6)
            e[i], e[j] = h, -h
            if np.allclose(d, e, atol=1e-12):
                seen.add((i, j))
    assert seen == pairs  # the first (complete) poll at x0 holds every exchange e_i - e_j


def test_coordinate_directions_only_off_the_face():
    a = np.array([0.1, 0.1, 0.1, 0.1, 0.1, 0.5])
    res = pattern_search(weighted_quadratic(a, np.ones(6)), np.full(6, 0.12), project,
                         step0=0.01, step_min=1e-3, max_evals=500)
    assert not any(h["face"] for h in res.history)  # sum stays far below the cap


@pytest.mark.parametrize("seed", range(5))
def test_never_evaluates_an_infeasible_point(seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-0.3, 1.0, 6)
    w = rng.uniform(0.2, 5.0, 6)
    f = weighted_quadratic(a, w)

    def checked(X):
        assert np.all(is_feasible(X, 1e-12)), "an infeasible point reached the objective"
        return f(X)

    x0 = rng.uniform(-0.5, 1.5, 6)  # infeasible on purpose: the search projects first
    res = pattern_search(checked, x0, project, step0=0.3, step_min=1e-3, max_evals=400)
    assert bool(is_feasible(res.x, 1e-12))


def test_never_reevaluates_a_cached_point():
    a = np.array([0.5, 0.3, 0.2, -0.1, 0.1, 0.7])
    rec = Recorder(weighted_quadratic(a, [1, 2, 3, 1, 1, 1]))
    cache = EvalCache()
    first = pattern_search(rec, np.full(6, 0.1), project, step0=0.1, step_min=1e-3,
                           max_evals=1000, cache=cache)
    n_first = len(rec.points)
    # A second search from a point of the first one, on the same cache.
    second = pattern_search(rec, np.full(6, 0.1), project, step0=0.1, step_min=1e-3,
                            max_evals=1000, cache=cache)
    keys = [point_key(p) for p in rec.points]
    assert len(keys) == len(set(keys))
    assert first.n_evals == n_first
    assert second.n_evals == len(rec.points) - n_first
    assert second.n_evals < first.n_evals  # it retraces the first search for free
    assert cache.hits > 0
    assert len(cache) == len(keys)


def test_max_evals_caps_new_evaluations():
    rec = Recorder(weighted_quadratic([0.5, 0.3, 0.2, 0.1, 0.1, 0.5], np.ones(6)))
    res = pattern_search(rec, np.zeros(6), project, step0=0.01, step_min=1e-6, max_evals=37)
    assert res.stopped_by == "max_evals"
    assert res.n_evals == len(rec.points) == 37


def test_stops_on_budget_exhausted_with_its_best():
    base = weighted_quadratic([0.5, 0.3, 0.2, 0.1, 0.1, 0.5], np.ones(6))
    seen: list[tuple[np.ndarray, float]] = []

    def limited(X):
        X = np.atleast_2d(X)
        if len(seen) + len(X) > 25:
            raise BudgetExhausted("no draws left")
        values = base(X)
        seen.extend(zip(X.copy(), values, strict=True))
        return values

    res = pattern_search(limited, np.zeros(6), project, step0=0.05, step_min=1e-6,
                         max_evals=10_000)
    assert res.stopped_by == "budget"
    best_x, best_v = min(seen, key=lambda t: t[1])
    assert res.value == best_v
    np.testing.assert_array_equal(res.x, best_x)


def test_budget_exhausted_before_the_start_is_evaluated_raises():
    def broke(X):
        raise BudgetExhausted("no draws left")

    with pytest.raises(BudgetExhausted):
        pattern_search(broke, np.zeros(6), project, step0=0.1, step_min=0.01, max_evals=10)


def test_on_best_sees_each_new_incumbent_in_decreasing_order():
    values = []
    pattern_search(weighted_quadratic([0.5, 0.3, 0.2, 0.1, 0.1, 0.5], np.ones(6)),
                   np.zeros(6), project, step0=0.1, step_min=1e-3, max_evals=300,
                   on_best=lambda x, v: values.append(v))
    assert len(values) > 3
    assert all(b < a for a, b in zip(values, values[1:], strict=False))


def test_simplex_gradient_is_exact_for_a_linear_function():
    rng = np.random.default_rng(3)
    g = rng.normal(size=6)
    x = np.full(6, 0.1)
    cache = EvalCache()
    for _ in range(10):
        p = x + rng.normal(scale=0.01, size=6)
        cache.put(p, 5.0 + g @ (p - x))
    np.testing.assert_allclose(simplex_gradient(cache, x, 5.0, radius=1.0), g, atol=1e-10)
    assert simplex_gradient(cache, x, 5.0, radius=1e-6) is None


def test_model_ordering_does_not_change_the_minimiser_but_saves_evaluations():
    a = [0.5, 0.3, 0.2, 0.1, 0.1, 0.5]
    kw = dict(step0=0.1, step_min=1e-4, max_evals=5000)
    f = weighted_quadratic(a, [1, 2, 3, 1, 2, 1])
    plain = pattern_search(f, np.zeros(6), project, order_by_model=False, **kw)
    model = pattern_search(f, np.zeros(6), project, order_by_model=True, **kw)
    np.testing.assert_allclose(plain.x, model.x, atol=5e-4)
    assert model.n_evals < plain.n_evals


def test_rejects_bad_steps():
    f = weighted_quadratic(np.zeros(6), np.ones(6))
    with pytest.raises(ValueError, match="step_min"):
        pattern_search(f, np.zeros(6), project, step0=0.01, step_min=0.1, max_evals=10)


# -- the parts -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("bad", "match"), [
    (dict(step0=0.01, step_min=0.1), "step_min"),
    (dict(step0=0.1, step_min=0.0), "step_min"),
    (dict(step0=0.1, step_min=0.01, expand=0.9), "expand"),
    (dict(step0=0.1, step_min=0.01, contract=1.0), "contract"),
    (dict(step0=0.1, step_min=0.01, contract=0.0), "contract"),
    (dict(step0=0.1, step_min=0.01, batch_size=0), "batch_size"),
])
def test_settings_refuse_steps_factors_and_batches_that_cannot_work(bad, match):
    with pytest.raises(ValueError, match=match):
        PatternSettings(**bad)


def test_the_largest_step_defaults_to_the_first_and_is_never_below_it():
    assert PatternSettings(0.1, 0.01).largest_step == 0.1
    assert PatternSettings(0.1, 0.01, step_max=0.05).largest_step == 0.1
    assert PatternSettings(0.1, 0.01, step_max=0.4).largest_step == 0.4


def test_the_step_expands_only_on_a_line_of_descent_and_contracts_only_after_a_complete_poll():
    c = StepControl(PatternSettings(0.1, 0.01, step_max=0.3, expand=2.0, contract=0.5))
    c.success(3)
    assert c.step == 0.1  # one success is not yet a line
    c.success(3)
    assert c.step == 0.2
    c.success(3)
    assert c.step == 0.3  # capped at the largest step
    c.success(5)
    assert c.step == 0.3 and c.last_success == 5
    c.failure(proven=False)  # an unfinished poll proves nothing
    assert c.step == 0.3 and c.last_success == -1
    c.success(5)
    assert c.step == 0.3  # the failure broke the line
    steps = []
    while not c.below_minimum:
        c.failure(proven=True)
        steps.append(c.step)
    assert steps == [0.15, 0.075, 0.0375, 0.01875, 0.009375]


def test_off_the_face_the_poll_set_is_the_coordinate_steps_in_move_to_front_order():
    x = np.full(6, 0.1)
    directions = Directions(6, COUPLED)
    directions.promote(7)
    poll = poll_set(x, 0.05, np.ones(6), directions, project, EvalCache())
    assert not poll.active
    order = [7, *[k for k in range(12) if k != 7]]
    assert poll.directions == order
    steps = np.concatenate([np.eye(6), -np.eye(6)]) * 0.05
    np.testing.assert_allclose(poll.points, x + steps[order], rtol=0, atol=1e-15)


def test_on_the_face_the_exchanges_replace_the_steps_the_cap_would_spread():
    x = project(np.array([0.2, 0.2, 0.2, 0.2, 0.2, 0.5]))  # 0.17 each: on the cap
    directions = Directions(6, COUPLED)
    poll = poll_set(x, 0.05, np.ones(6), directions, project, EvalCache())
    assert poll.active
    assert not set(range(5)) & set(poll.directions)  # no +e_i of a capped coordinate
    assert set(poll.directions) == {5, *range(6, 12), *range(12, 32)}
    for k, p in zip(poll.directions, poll.points, strict=True):
        np.testing.assert_allclose(p, x + 0.05 * directions.all[k], rtol=0, atol=1e-12)


def test_the_poll_set_leaves_out_x_itself_and_remembers_the_best_cached_point():
    x = np.array([0.1, 0.1, 0.1, 0.0, 0.1, 0.5])  # -e_3 is projected back onto x
    cache = EvalCache()
    cache.put(x + 0.05 * np.eye(6)[0], 5.0)
    cache.put(x - 0.05 * np.eye(6)[1], 3.0)
    poll = poll_set(x, 0.05, np.ones(6), Directions(6, COUPLED), project, cache)
    assert poll.directions == [k for k in range(12) if k not in (0, 7, 9)]
    value, k, point = poll.cached_best
    assert value == 3.0 and k == 7
    np.testing.assert_array_equal(point, x - 0.05 * np.eye(6)[1])


def counted(f, cache=None):
    calls = []

    def batch(X):
        calls.append(len(X))
        return f(X)

    return CountedObjective(batch, EvalCache() if cache is None else cache), calls


def line_poll(n=7):
    return PollSet(directions=list(range(10, 10 + n)),
                   points=[np.full(2, float(i)) for i in range(n)],
                   cached_best=(np.inf, -1, None), active=False)


def test_a_cached_point_below_the_threshold_moves_the_search_without_an_evaluation():
    poll = line_poll()
    poll.cached_best = (1.0, 4, np.full(2, 9.0))
    objective, calls = counted(lambda X: np.zeros(len(X)))
    out = evaluate_poll(objective, poll, threshold=2.0, batch_size=1, max_evals=100)
    assert out.improved and out.direction == 4 and out.value == 1.0
    assert calls == [] and objective.n_evals == 0


def test_the_opportunistic_poll_stops_at_the_first_batch_that_improves():
    def f(X):
        return np.where(X[:, 0] == 3.0, 0.0, 10.0)

    objective, calls = counted(f)
    out = evaluate_poll(objective, line_poll(), threshold=5.0, batch_size=2, max_evals=100)
    assert calls == [2, 2] and objective.n_evals == 4  # points 0-1, then 2-3
    assert out.improved and out.direction == 13 and out.value == 0.0
    assert len(objective.cache) == 4
    objective, calls = counted(f)
    out = evaluate_poll(objective, line_poll(), threshold=5.0, batch_size=None, max_evals=100)
    assert calls == [7] and out.direction == 13  # complete polling: one call


def test_a_failed_poll_is_complete_unless_the_evaluation_cap_cuts_it():
    objective, calls = counted(lambda X: np.full(len(X), 10.0))
    out = evaluate_poll(objective, line_poll(), threshold=5.0, batch_size=3, max_evals=100)
    assert calls == [3, 3, 1] and not out.improved
    objective, calls = counted(lambda X: np.full(len(X), 10.0))
    out = evaluate_poll(objective, line_poll(), threshold=5.0, batch_size=3, max_evals=4)
    assert calls == [3, 1] and objective.n_evals == 4 and not out.improved


def test_the_poll_ends_on_budget_exhausted_with_the_best_it_saw():
    def f(X):
        if X[0, 0] >= 2.0:
            raise BudgetExhausted("no draws left")
        return 10.0 - X[:, 0]

    objective, _ = counted(f)
    out = evaluate_poll(objective, line_poll(), threshold=5.0, batch_size=2, max_evals=100)
    assert out.out_of_budget and not out.improved
    assert out.value == 9.0 and out.direction == 11


def test_searches_sharing_a_cache_charge_every_point_once():
    rec = Recorder(weighted_quadratic([0.5, 0.3, 0.2, -0.1, 0.1, 0.7], [1, 2, 3, 1, 1, 1]))
    settings = PatternSettings(step0=0.1, step_min=1e-3)
    starts = np.array([np.full(6, 0.1), np.full(6, 0.1), np.full(6, 0.05)])
    first, again, other = pattern_searches(rec, starts, project, settings, max_evals=1_000,
                                           coupled=COUPLED)
    assert again.n_evals == 0  # retraced for free
    np.testing.assert_array_equal(again.x, first.x)
    keys = [point_key(p) for p in rec.points]
    assert len(keys) == len(set(keys))
    assert first.n_evals + other.n_evals == len(keys)
    # the first search is the search alone
    alone = pattern.pattern_search(weighted_quadratic([0.5, 0.3, 0.2, -0.1, 0.1, 0.7],
                                                      [1, 2, 3, 1, 1, 1]),
                                   starts[0], project, settings, max_evals=1_000,
                                   coupled=COUPLED)
    np.testing.assert_array_equal(alone.x, first.x)
    assert alone.n_evals == first.n_evals and alone.history == first.history
