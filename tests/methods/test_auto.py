"""auto, the default: astro's trust region in epochs on independent samples where the budget
affords them, one search where it does not; every draw goes to a search that moves or to a
comparison of distinct answers, and the plan follows astro's own numbers."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from test_astro import Bowl, task_of

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.problem import as_problem
from acfs_cli.methods.auto import AUTO, AutoSettings


def run(problem, budget, seed=0, **settings):
    problem = as_problem(problem)
    task = task_of(problem, x0=problem.x0)
    oracle = Oracle(problem, budget, np.random.default_rng([seed, 1]))
    return AUTO(task, oracle, np.random.default_rng([seed, 2]), settings), oracle


def test_the_plan_is_epochs_where_a_first_epoch_holds_eight_models_on_twenty_rows():
    s = AutoSettings()
    # derivative-free, 5 dimensions: a model and its candidate are 12 points, 8 x 12 x 20 =
    # 1,920 draws, and the first epoch is 30 % of the budget
    assert not s.epochs_affordable(6_399, 5, gradient=False)
    assert s.epochs_affordable(6_400, 5, gradient=False)
    # with the simulator's gradient a model is the centre and its candidate: 320 draws
    assert not s.epochs_affordable(1_066, 5, gradient=True)
    assert s.epochs_affordable(1_067, 5, gradient=True)
    # astro's own settings move the plan: fewer models, fewer rows
    assert AutoSettings(min_models=4, n0=10).epochs_affordable(1_600, 5, gradient=False)


@pytest.mark.parametrize("budget", [500, 6_000, 40_000])
def test_every_draw_goes_to_a_search_that_moves_or_to_a_comparison_of_distinct_answers(budget):
    bowl = Bowl(4)
    bowl.gradient = None  # derivative-free: epochs from 5,334 draws (8 models of 10 points)
    result, oracle = run(bowl, budget)
    assert oracle.used == result.oracle_draws <= budget
    assert sum(a["draws"] for a in result.account.values()) == oracle.used
    if budget < 5_334:
        assert result.info["plan"].startswith("one search")
        assert all(e["iterations"] > 0 for e in result.info["epochs"])
        # a search that converged on its sample leaves its draws to another, while they pay
        # for four models (of 2 d + 1 points) on the rows it ended with
        last = result.info["epochs"][-1]
        assert budget - oracle.used < 4 * (2 * 4 + 1) * last["rows"] or "rows" not in last
        return
    epochs = result.info["epochs"]
    assert len(epochs) >= 2
    for epoch in epochs:  # each epoch that drew modelled and moved its centre
        assert epoch["draws"] > 0 and epoch["iterations"] > 0 and epoch["accepted"] > 0
    if "final_candidates" in result.info:
        X = np.array(result.info["final_candidates"])
        assert len(X) >= 2 and len({x.tobytes() for x in X}) == len(X)
        drawn = sum(e["draws"] for e in epochs)
        assert result.account["final"]["draws"] == oracle.used - drawn
        assert result.account["final"]["draws"] >= 0.1 * budget - 2 * len(X)
    else:  # the epochs agreed: the reserve went to one more epoch, none to a comparison
        assert "final" not in result.account
    assert oracle.used >= 0.95 * budget
    assert bowl.gap(result.x) < 1.0


def test_auto_passes_astros_settings_to_every_epoch_and_refuses_unknown_ones():
    bowl = Bowl(2)
    narrow, _ = run(bowl, 20_000, radius0=0.05)
    wide, _ = run(bowl, 20_000)
    assert narrow.info["epochs"][0] != wide.info["epochs"][0]
    with pytest.raises(ValueError, match="no parameter"):
        AUTO.settings({"kapa": 0.3})


def _derivative_free_bowl(dim=4):
    bowl = Bowl(dim)
    bowl.gradient = None  # epochs from 5,334 draws in 4-D (8 models of 10 points on 20 rows)
    return bowl


def test_the_answer_is_the_final_comparisons_pick_with_its_guard_not_the_lowest_estimate(
        monkeypatch):
    import acfs_cli.methods.auto as auto

    seen = []

    def contrary(task, values, costs, guard):
        # the one candidate a plain argmin of the estimates would never take
        seen.append(guard)
        return int(np.argmax(values))

    monkeypatch.setattr(auto, "pick", contrary)
    result, oracle = run(_derivative_free_bowl(), 8_000)
    X, values = np.array(result.info["final_candidates"]), result.info["final_values"]
    assert seen == [auto.GUARD] and len(X) >= 2
    assert result.info["final_choice"] == int(np.argmax(values)) != int(np.argmin(values))
    assert result.x == pytest.approx(X[int(np.argmax(values))])
    assert oracle.incumbent[0] == pytest.approx(result.x)


def test_a_comparison_on_fewer_than_final_rows_a_candidate_is_not_made_another_epoch_is(
        monkeypatch):
    import acfs_cli.methods.auto as auto

    compared, _ = run(_derivative_free_bowl(), 6_000)
    rows = compared.account["final"]["draws"] // len(compared.info["final_candidates"])
    monkeypatch.setattr(auto, "FINAL_ROWS", rows + 1)  # the same reserve is now too thin
    result, oracle = run(_derivative_free_bowl(), 6_000)
    assert "final" not in result.account and "final_candidates" not in result.info
    assert len(result.info["epochs"]) == len(compared.info["epochs"]) + 1
    assert oracle.used >= 0.95 * 6_000


def test_trajectory_callback_and_trials_end_on_the_answer_the_final_comparison_kept():
    from acfs_cli.api import minimize

    seen = []
    sol = minimize(_derivative_free_bowl(), budget=6_000, method="auto", seed=0, lam=0.7,
                   n_eval=400, callback=lambda inc: seen.append(inc.x.copy()))
    # the answer kept is the epochs' average, a decision none of the epochs ended on
    assert "final" in sol.phases and sol.info["final_choice"] == 0
    assert len(sol.info["epochs"]) >= 2
    assert sol.trajectory[-1][1] == pytest.approx(sol.x)
    assert seen[-1] == pytest.approx(sol.x)
    trials = sol.trials_dataframe()
    last = trials[trials["incumbent"]].iloc[-1]
    assert last[[f"x_{j}" for j in range(4)]].to_numpy(float) == pytest.approx(sol.x)


def test_each_epoch_starts_where_the_last_ended_on_its_rows_in_a_fresh_region_and_share(
        monkeypatch):
    import acfs_cli.methods.auto as auto

    calls = []
    real = auto.astro_search

    def spy(task, oracle, settings, start=None, **kwargs):
        calls.append({"start": None if start is None else np.array(start), "n0": settings.n0,
                      "radius0": settings.radius0, "available": oracle.available})
        result = real(task, oracle, settings, start=start, **kwargs)
        result.info["radius"] = 1e-3 * settings.radius0  # as if it narrowed on its noise
        return result

    monkeypatch.setattr(auto, "astro_search", spy)
    s = AutoSettings()
    budget = 20_000
    result, _ = run(_derivative_free_bowl(), budget)
    epochs = result.info["epochs"]
    assert len(calls) == len(epochs) >= 2
    # the first epoch: from x0 on astro's own first sample and region, within 30 % of the
    # budget; the last (here the second: twice the first would leave less than its own
    # growth) what is left beside the final comparison's tenth
    assert calls[0]["start"] is None and calls[0]["n0"] == s.n0
    assert calls[0]["radius0"] == s.radius0
    assert calls[0]["available"] == int(s.first_share * budget)
    reserve = int(s.final_share * budget)
    assert calls[-1]["available"] == budget - reserve - sum(e["draws"] for e in epochs[:-1])
    ends = []
    for k in range(1, len(calls)):
        prev = epochs[k - 1]
        assert calls[k]["n0"] == max(s.n0, prev["rows"])
        # the region is astro's first, however far the last one narrowed on its sample
        assert calls[k]["radius0"] == s.radius0
        ends.append(calls[k]["start"])
    # each start is the previous epoch's answer: the candidates the final comparison weighs
    # hold the last end and the earlier ones
    X = np.array(result.info.get("final_candidates", []))
    for end in ends:
        assert any(np.allclose(end, x) for x in X) or len(X) == 0


def test_the_first_candidate_is_the_rows_weighted_mean_of_the_last_three_ends():
    from acfs_cli.methods.auto import _candidates

    task = task_of(Bowl(2), x0=Bowl(2).x0)
    ends = [np.array([0.5, 0.5]), np.array([1.0, 1.0]), np.array([1.2, 0.8]),
            np.array([1.1, 0.9])]
    infos = [{"rows": 20}, {"rows": 40}, {"rows": 80}, {"rows": 160}]
    X = _candidates(task, ends, infos)
    w = np.array([40, 80, 160], dtype=float)
    expected = (w[:, None] * np.array(ends[1:])).sum(0) / w.sum()
    assert X[0] == pytest.approx(expected)
    assert X[1] == pytest.approx(ends[-1]) and X[2] == pytest.approx(ends[-2])
    assert len(X) <= 4
    assert len(_candidates(task, ends[:1], infos[:1])) == 1  # one end: itself alone
    # with the step beyond: one step past the last end along the line from the one before
    # it, (1.0, 1.0), which is also the second end, so that end is not weighed twice
    X = _candidates(task, ends, infos, beyond=True)
    assert X[0] == pytest.approx(expected) and X[1] == pytest.approx(ends[-1])
    assert X[2] == pytest.approx(2 * ends[-1] - ends[-2])
    assert X[3] == pytest.approx(ends[-2]) and X[4] == pytest.approx(ends[0])
    assert len(X) == 5


def test_the_step_beyond_the_last_end_is_projected_onto_x():
    from acfs_cli.methods.auto import _candidates

    bowl = Bowl(2)
    task = task_of(as_problem(bowl), x0=bowl.x0)
    (lo0, hi0), (lo1, hi1) = bowl.bounds
    # the last move heads out of the box in the first coordinate: the step beyond stops on
    # its face, the second coordinate moves on
    ends = [np.array([hi0 - 0.4, lo1 + 0.5]), np.array([hi0 - 0.1, lo1 + 0.7])]
    X = _candidates(task, ends, [{"rows": 40}, {"rows": 80}], beyond=True)
    assert X[2] == pytest.approx([hi0, lo1 + 0.9])
    assert bool(task.is_feasible(X[2]))


def test_a_run_that_keeps_the_step_beyond_the_last_end_says_the_epochs_were_still_moving(
        monkeypatch):
    import acfs_cli.methods.auto as auto

    picked = []

    def beyond(task, values, costs, guard):
        picked.append(len(values))
        return 2  # the step beyond the last end, third among the candidates

    monkeypatch.setattr(auto, "pick", beyond)
    # ten decisions without a gradient: COBYQA leads astro's epochs, and the step beyond joins
    result, oracle = run(_derivative_free_bowl(auto.MANY), 20_000)
    X = np.array(result.info["final_candidates"])
    assert picked and result.info["final_choice"] == 2
    assert result.x == pytest.approx(X[2]) and not np.allclose(X[2], X[1])
    assert any("one step beyond the last epoch's answer" in n for n in result.notes)


def test_below_many_dimensions_the_final_comparison_weighs_no_step_beyond(monkeypatch):
    import acfs_cli.methods.auto as auto

    seen = []

    def spy(task, ends, infos, beyond=False):
        seen.append(beyond)
        return candidates(task, ends, infos, beyond)

    candidates = auto._candidates
    monkeypatch.setattr(auto, "_candidates", spy)
    result, _ = run(_derivative_free_bowl(), 8_000)
    assert seen == [False] and len(result.info["final_candidates"]) <= auto.CANDIDATES - 1
    assert not any("one step beyond" in n for n in result.notes)


@pytest.mark.parametrize("budget", [1, 5, 15])
def test_a_budget_too_small_for_a_step_answers_x0_on_its_draws_and_says_so(budget):
    from acfs_cli.api import minimize

    bowl = Bowl(4)  # a step needs 2 (4 + 2) = 12 draws
    sol = minimize(bowl, budget=budget, seed=0, n_eval=400)
    if budget >= 12:
        assert not any("too few for a step" in n for n in sol.notes)
        return
    assert sol.x == pytest.approx(bowl.x0) and sol.draws_used == budget
    assert sol.notes[0] == (f"{budget:,} draws are too few for a step (a search needs 12 on a "
                            "4-dimensional problem): the answer is x0, estimated on them")
    assert sol.J == pytest.approx(sol.J_x0)  # the reported J: x0's, on the fresh draws


def test_a_search_that_converges_early_leaves_its_draws_to_another_on_more_rows(monkeypatch):
    import acfs_cli.methods.auto as auto

    calls = []
    real = auto.astro_search

    def spy(task, oracle, settings, start=None, **kwargs):
        calls.append({"n0": settings.n0, "available": oracle.available})
        return real(task, oracle, settings, start=start, **kwargs)

    monkeypatch.setattr(auto, "astro_search", spy)
    # with the simulator's gradient, one search below 1,067 draws (derivative-free, such
    # budgets go to COBYQA's epochs)
    bowl = Bowl(4)
    # a sample capped at 20 rows: the first search converges on it with draws left
    result, oracle = run(bowl, 1_000, n_max=20)
    epochs = result.info["epochs"]
    assert epochs[0]["stop_reason"].startswith("converged")
    assert result.info["plan"] == f"one search and {len(epochs) - 1} more"
    assert len(epochs) == len(calls) >= 2
    for k in range(1, len(calls)):
        assert calls[k]["n0"] >= epochs[k - 1]["rows"]
        # four models on the last search's rows (one point each, with the gradient)
        assert calls[k]["available"] >= 4 * epochs[k - 1]["rows"]
    assert any("more from its end on larger samples" in n for n in result.notes)


def _final_costs(shift: float, n: int = 400) -> np.ndarray:
    """Costs of the final comparison's three candidates (average, last end, end before) on
    common rows: the last end lower than the one before by ``shift`` on every row."""
    z = np.random.default_rng(6).standard_normal(n)
    before = 1.0 + z
    return np.vstack([before - 0.5 * shift, before - shift, before])


@pytest.mark.parametrize("shift, moving", [(0.5, True), (0.0, False), (-0.5, False)])
def test_a_run_whose_last_epoch_still_gained_on_fresh_draws_says_more_draws_would_help(
        shift, moving):
    import acfs_cli.methods.auto as auto

    bowl = Bowl(2)
    task = task_of(as_problem(bowl), x0=bowl.x0)
    oracle = Oracle(as_problem(bowl), 10, np.random.default_rng(0))
    ends = [np.array([0.0, 0.0]), np.array([1.0, 1.0])]
    candidates = np.array([[0.5, 0.5], ends[1], ends[0]])
    # noise on the rows so that the paired standard error is not zero
    costs = _final_costs(shift) + np.vstack([np.zeros(400), 0.05 * np.random.default_rng(
        7).standard_normal(400), np.zeros(400)])
    auto._note_if_epochs_moving(task, oracle, candidates, ends, costs)
    notes = [n for n in oracle.notes if n.startswith("still moving")]
    assert bool(notes) is moving
    if moving:
        assert "limited by the budget rather than by the noise" in notes[0]


def test_the_moving_note_needs_both_ends_among_the_candidates():
    import acfs_cli.methods.auto as auto

    bowl = Bowl(2)
    task = task_of(as_problem(bowl), x0=bowl.x0)
    oracle = Oracle(as_problem(bowl), 10, np.random.default_rng(0))
    ends = [np.array([0.0, 0.0]), np.array([1.0, 1.0])]
    candidates = np.array([[0.5, 0.5], ends[1]])  # the earlier end was not distinct
    auto._note_if_epochs_moving(task, oracle, candidates, ends, _final_costs(0.5)[:2])
    assert not oracle.notes


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_below_astros_epochs_cobyqa_epochs_run_on_every_draw_without_a_gradient(seed):
    # 12 dimensions, 3,000 draws: one astro search would hold two models of 25 points on 20
    # rows; COBYQA's epochs on sample averages spend one evaluation a step instead
    bowl = Bowl(12)
    bowl.gradient = None
    result, oracle = run(bowl, 3_000, seed=seed)
    # every draw but the final check's rounding: an even share of what is left per candidate
    k = len(result.info["final_candidates"])
    assert result.info["chosen"] == "COBYQA" and 3_000 - 2 * k < oracle.used <= 3_000
    assert any(n.startswith("auto ran COBYQA in") for n in result.notes)
    # within 1 % of x0's excess over J* (closed form; measured 0.0000-0.0073 of 5.51 on
    # seeds 0-5)
    assert bowl.J(np.asarray(result.x)) - bowl.J(bowl.x_star) < 0.01 * (
        bowl.J(bowl.x0) - bowl.J(bowl.x_star))
    # in few dimensions too (version 9; measured 0.0000-0.0015 of x0's excess on seeds 0-5);
    # with the simulator's gradient astro keeps the budget
    small = Bowl(3)
    small.gradient = None
    few = run(small, 1_000, seed=seed)[0]
    assert few.info["chosen"] == "COBYQA"
    assert small.J(np.asarray(few.x)) - small.J(small.x_star) < 0.01 * (
        small.J(small.x0) - small.J(small.x_star))
    assert run(Bowl(3), 1_000, seed=seed)[0].info["chosen"] == "astro"
    assert run(Bowl(12), 3_000, seed=seed)[0].info["chosen"] == "astro"
    # nor where a first epoch of 20 rows would hold fewer than 5 (d + 1) evaluations (its first
    # model takes 2 d + 1): 1,000 draws hold 45 of 65
    assert run(bowl, 1_000, seed=seed)[0].info["chosen"] == "astro"


def test_cobyqa_first_epoch_leaves_half_the_draws_to_later_samples():
    from acfs_cli.methods.auto_declared import first_allowance

    # 12 dimensions: 15 (d + 1) evaluations on 20 rows are 3,900 draws
    assert first_allowance(20, 12, 100_000, 2.0) == 3_900  # a large budget: all of them
    assert first_allowance(20, 12, 7_200, 2.0) == 3_600  # half of what the epochs may spend
    assert first_allowance(20, 12, 2_200, 2.0) == 1_300  # but never fewer than 5 (d + 1)
    # unless what it leaves holds no second epoch (14 evaluations on 40 rows): no cap then
    assert first_allowance(20, 12, 1_800, 2.0) == 3_900


@pytest.mark.parametrize("seed", [0, 1])
def test_cobyqa_epochs_grow_their_samples_within_the_budget(seed):
    bowl = Bowl(12)
    bowl.gradient = None
    result, oracle = run(bowl, 8_000, seed=seed)
    account = oracle.account
    epochs = [account[k]["draws"] for k in sorted(account) if k.startswith("epoch")]
    assert result.info["chosen"] == "COBYQA" and len(epochs) >= 2
    assert epochs[0] <= 0.5 * 0.9 * 8_000 and oracle.used <= 8_000
    rows = [e["rows"] for e in result.info["epochs"]]
    assert rows[0] == 20 and np.all(np.diff(rows) > 0)
    # within 1 % of x0's excess over J* (closed form)
    assert bowl.J(np.asarray(result.x)) - bowl.J(bowl.x_star) < 0.01 * (
        bowl.J(bowl.x0) - bowl.J(bowl.x_star))


def test_a_first_sample_that_would_leave_no_second_epoch_is_halved():
    from acfs_cli.methods.auto_declared import second_epoch

    # 13 dimensions, 1,800 draws for the epochs: on 20 rows a first epoch capped at 5 (d + 1)
    # = 70 evaluations (1,400 draws) would leave 400, fewer than d + 2 = 15 evaluations on 40
    # rows (600), so it takes every draw; on 10 rows it takes half of them (900) and leaves
    # 900 >= 15 x 20
    assert second_epoch(20, 13, 1_800, 2.0) == 10
    # where 20 rows leave a second epoch, or where half of them would not either: unchanged
    assert second_epoch(20, 13, 4_500, 2.0) == 20
    assert second_epoch(20, 10, 1_800, 2.0) == 20  # 1,100 of 1,800, 700 >= 12 x 40
    # 800 draws: 10 rows' first epoch (700) would leave 100, fewer than 15 x 20
    assert second_epoch(20, 13, 800, 2.0) == 20


def test_a_second_cobyqa_epoch_holds_its_first_model_and_a_step():
    from acfs_cli.methods.auto_declared import second_epoch

    # 11 dimensions, 1,800 draws: on 20 rows the first epoch (60 evaluations, 1,200 draws)
    # leaves 600, d + 2 = 13 evaluations on 40 rows (520) but not COBYQA's first model and a
    # step, 2 d + 2 = 24 (960); on 10 rows it leaves 900 >= 24 x 20
    assert second_epoch(20, 11, 1_800, 2.0) == 20
    assert second_epoch(20, 11, 1_800, 2.0, model=True) == 10
    # where 20 rows leave 2 d + 2 evaluations on 40 (13 dimensions, 4,500 draws: 2,100 of
    # them left, 28 x 40 = 1,120), unchanged
    assert second_epoch(20, 13, 4_500, 2.0, model=True) == 20
    # the default at 2,000 draws in 11 dimensions: two epochs, on 10 rows and on 20 or more
    # (the last takes what the first left), the second with 2 d + 2 evaluations or more
    bowl = Bowl(11)
    bowl.gradient = None
    result, oracle = run(bowl, 2_000, seed=0)
    assert result.info["chosen"] == "COBYQA" and oracle.used <= 2_000
    first, second = (e["rows"] for e in result.info["epochs"])
    assert first == 10 and second >= 20
    assert oracle.account["epoch 2"]["draws"] >= (2 * 11 + 2) * second


@functools.cache
def _bowl13_at_2000(seed):
    """Bowl(13) without a gradient at 2,000 draws: one epoch on 20 rows would spend the
    budget, so COBYQA's epochs run on 10 and 20 rows (one run for the tests below)."""
    bowl = Bowl(13)
    bowl.gradient = None
    return bowl, *run(bowl, 2_000, seed=seed)


@pytest.mark.parametrize("seed", [0, 1])
def test_two_cobyqa_epochs_where_one_on_n0_rows_would_spend_the_budget(seed):
    # 13 dimensions at 2,000 draws: one epoch on 20 rows, or a first on 10 and a second on
    # 20 from its end; the final check then weighs both ends
    bowl, result, oracle = _bowl13_at_2000(seed)
    assert result.info["chosen"] == "COBYQA" and oracle.used <= 2_000
    assert [e["rows"] for e in result.info["epochs"]] == [10, 20]
    # both ends and their average weighted by the rows (version 11)
    assert len(result.info["final_candidates"]) == 3
    # within 1 % of x0's excess over J* (closed form; measured 0.0000-0.0026 on seeds 0-5)
    assert bowl.J(np.asarray(result.x)) - bowl.J(bowl.x_star) < 0.01 * (
        bowl.J(bowl.x0) - bowl.J(bowl.x_star))


@pytest.mark.parametrize("seed", [0, 1])
def test_cobyqa_epochs_weigh_the_rows_weighted_average_of_their_ends(seed):
    # 13 dimensions at 2,000 draws: ends of epochs on 10 and 20 rows; the final check's first
    # candidate is (10 x_1 + 20 x_2) / 30, the latest end next, the first end last
    _, result, _ = _bowl13_at_2000(seed)
    average, last, first = np.asarray(result.info["final_candidates"])
    assert np.allclose(average, (10 * first + 20 * last) / 30, rtol=0, atol=1e-12)
    assert not np.allclose(first, last)
    # the check kept the lowest J of its fresh rows
    values = result.info["final_values"]
    assert result.info["final_choice"] == int(np.argmin(values))


def test_cobyqa_epochs_say_when_the_budget_limits_the_answer(monkeypatch):
    # the same check as astro's epochs: the last epoch's answer against the one before it on
    # the final check's fresh common rows
    from acfs_cli.methods import auto as auto_module

    seen = []
    monkeypatch.setattr(auto_module, "_note_if_epochs_moving",
                        lambda task, oracle, candidates, ends, costs: seen.append(
                            (candidates, ends, costs)))
    bowl = Bowl(12)
    bowl.gradient = None
    result, _ = run(bowl, 8_000, seed=0)
    assert result.info["chosen"] == "COBYQA" and len(seen) == 1
    candidates, ends, costs = seen[0]
    assert len(ends) == len(result.info["epochs"]) >= 2
    assert any(np.array_equal(c, ends[-1]) for c in candidates)
    assert costs.shape[0] == len(candidates) and costs.shape[1] >= 100


@pytest.mark.parametrize("seed", [0, 1])
def test_many_dimensions_with_astros_epochs_are_led_by_cobyqa_on_a_small_sample(seed):
    from acfs_cli.methods.auto import LEAD
    from acfs_cli.methods.auto_declared import LEAD_ROWS

    bowl = Bowl(12)
    bowl.gradient = None
    budget = 60_000  # a first epoch of 18,000 draws holds 8 models of 26 points on 20 rows
    assert AutoSettings().epochs_affordable(budget, 12, gradient=False)
    result, oracle = run(bowl, budget, seed=seed)
    lead, *epochs = result.info["epochs"]
    # the lead: COBYQA on sqrt(0.1 x 9,000) = 30 rows, within its 15 % of the budget
    assert lead["solver"] == "COBYQA" and lead["rows"] == int(np.sqrt(LEAD_ROWS * LEAD * budget))
    assert 0 < oracle.account["lead"]["draws"] <= LEAD * budget
    # then astro's epochs (their records have astro's stop reasons), all within the budget
    assert epochs and all("stop_reason" in e for e in epochs) and oracle.used <= budget
    assert any("COBYQA's lead on 30 rows and astro in" in n for n in result.notes)
    # within 1 % of x0's excess over J* (closed form)
    assert bowl.J(np.asarray(result.x)) - bowl.J(bowl.x_star) < 0.01 * (
        bowl.J(bowl.x0) - bowl.J(bowl.x_star))
    # below MANY dimensions, or with the simulator's gradient, astro's epochs start from x0
    small = Bowl(9)
    small.gradient = None
    for other in (small, Bowl(12)):
        first = run(other, budget, seed=seed)[0].info["epochs"][0]
        assert "solver" not in first and "stop_reason" in first


def test_a_lead_that_does_not_beat_x0_on_fresh_rows_is_dropped(monkeypatch):
    # a lead that ends far from the optimum (as one on a small sample that missed a heavy
    # tail's extreme rows): fresh rows show it worse than x0, so astro's epochs start from x0
    from acfs_cli.methods import auto_declared

    bowl = Bowl(12)
    bowl.gradient = None
    far = np.array([hi for _, hi in bowl.bounds])  # a corner of X, far from the optimum
    monkeypatch.setattr(auto_declared, "lead", lambda task, oracle, s, allowance, *_: (
        far, {"draws": 0, "rows": 30, "solver": "COBYQA", "evaluations": 0}))
    result, oracle = run(bowl, 60_000, seed=0)
    assert any("did not beat x0" in n for n in result.notes)
    assert all("solver" not in e for e in result.info["epochs"])
    assert oracle.account["lead check"]["draws"] == 2 * 120 and oracle.used <= 60_000
    assert not any(np.array_equal(c, far) for c in result.info["final_candidates"])
    # within 1 % of x0's excess over J* (closed form), as without a lead
    assert bowl.J(np.asarray(result.x)) - bowl.J(bowl.x_star) < 0.01 * (
        bowl.J(bowl.x0) - bowl.J(bowl.x_star))


def spy_on_samples(monkeypatch) -> list:
    """The (phase, sample) of every common sample an oracle issues."""
    issued = []
    original = Oracle.common_sample

    def common_sample(self, n, **kwargs):
        sample = original(self, n, **kwargs)
        issued.append((self._phase, sample))
        return sample

    monkeypatch.setattr(Oracle, "common_sample", common_sample)
    return issued


def test_auto_stratifies_where_cobyqa_leads_and_the_final_check_of_cobyqa_epochs_from_many(
        monkeypatch):
    from scipy.special import ndtr

    issued = spy_on_samples(monkeypatch)
    bowl = Bowl(12)
    bowl.gradient = None
    result, oracle = run(bowl, 60_000, seed=0)  # the lead, astro's epochs, a final comparison
    assert result.info["epochs"][0]["solver"] == "COBYQA"
    pairs = [(phase, s) for phase, s in issued if s.antithetic]
    assert {"lead check", "final"} <= {phase for phase, _ in pairs} and len(pairs) >= 4
    assert all(s.stratified for _, s in pairs)
    # the rows the lead's sample (the first) gives the simulator: one in each stratum
    lead = pairs[0][1]
    assert lead.n == result.info["epochs"][0]["rows"]
    z = lead.normals(bowl.dim_w)
    np.testing.assert_array_equal(np.sort(np.floor(ndtr(z[:, 0]) * lead.n)), np.arange(lead.n))
    # a budget too small for astro's epochs: COBYQA's epochs on sample averages of a few rows,
    # where one tail row in every sample would decide the search, keep plain pairs; their
    # final check, which only ranks the epochs' answers, has stratified ones
    issued.clear()
    result, _ = run(bowl, 8_000, seed=0)
    assert result.info["chosen"] == "COBYQA"
    epochs = [s for phase, s in issued if phase != "final"]
    assert epochs and all(s.antithetic and not s.stratified for s in epochs)
    (check,) = [s for phase, s in issued if phase == "final"]
    assert check.stratified
    z = check.normals(bowl.dim_w)
    np.testing.assert_array_equal(np.sort(np.floor(ndtr(z[:, 0]) * check.n)),
                                  np.arange(check.n))
    # below MANY dimensions, or with the simulator's gradient, astro's epochs without a lead
    # keep plain pairs
    small = Bowl(9)
    small.gradient = None
    for other in (small, Bowl(12)):
        issued.clear()
        run(other, 20_000, seed=0)
        assert any(s.antithetic for _, s in issued)
        assert not any(s.stratified for _, s in issued)
    # ... and so do COBYQA's epochs below MANY dimensions, their final check included
    issued.clear()
    result, _ = run(small, 3_000, seed=0)
    assert result.info["chosen"] == "COBYQA" and "final_candidates" in result.info
    assert issued and not any(s.stratified for _, s in issued)


def test_a_sample_problem_with_tail_rows_weighs_them_and_the_search_keeps_its_budget():
    # COBYQA's sample objective on 20 rows at alpha 0.95 with three tail rows: the mean of
    # the three costliest rows, from costs drawn again on the same rows and sorted by hand
    from acfs_cli.methods.astro import start_point
    from acfs_cli.methods.auto_declared import SampleProblem

    bowl = Bowl(12)
    bowl.gradient = None
    problem = as_problem(bowl)
    task = task_of(problem, x0=problem.x0)
    oracle = Oracle(problem, 10_000, np.random.default_rng(0))
    sample = oracle.common_sample(20, antithetic=True)
    x = start_point(task)[None]
    J, _ = SampleProblem(task, oracle, sample, None, tail_rows=3)(x)
    C = np.asarray(task.cost(oracle.draw_common(x, sample), x))[0]
    assert J[0] == pytest.approx(C.mean() + task.lam * np.sort(C)[-3:].mean(), rel=1e-12)
    result, oracle = run(bowl, 2_000, seed=0)
    assert oracle.used <= 2_000 and result.info["chosen"] == "COBYQA"


@pytest.mark.parametrize("d, gradient, weighs", [(6, False, False), (12, False, True),
                                                  (12, True, False)])
def test_auto_weighs_three_tail_rows_from_many_dimensions_without_a_gradient(monkeypatch, d,
                                                                              gradient, weighs):
    # the same run with the search's tail rows set to none: the answer moves from MANY
    # dimensions without the simulator's gradient, and nowhere else (every search keeps alpha)
    from acfs_cli.methods import auto_declared

    bowl = Bowl(d)
    if not gradient:
        bowl.gradient = None
    ours, _ = run(bowl, 4_000, seed=3)
    monkeypatch.setattr(auto_declared, "SEARCH_TAIL_ROWS", 0)
    plain, _ = run(bowl, 4_000, seed=3)
    assert (not np.array_equal(ours.x, plain.x)) == weighs


def test_with_a_gradient_in_ten_dimensions_ten_first_rows_buy_epochs_where_twenty_would_not(
        monkeypatch):
    import acfs_cli.methods.auto as auto

    calls = []
    real = auto.astro_search

    def spy(task, oracle, settings, start=None, **kwargs):
        calls.append(settings.n0)
        return real(task, oracle, settings, start=start, **kwargs)

    monkeypatch.setattr(auto, "astro_search", spy)
    # ten decisions with the simulator's gradient: a first epoch of 30 % holds 8 models (a
    # point and its candidate) on 10 rows from 534 draws, on 20 rows from 1,067
    result, oracle = run(Bowl(10), 1_000)
    assert calls[0] == auto.GRADIENT_ROWS == 10
    assert result.info["plan"].startswith("astro in")
    assert oracle.used <= 1_000
    # where 20 rows hold epochs, or 10 do not, astro's 20 stay
    for budget in (2_000, 400):
        calls.clear()
        run(Bowl(10), budget)
        assert calls[0] == 20
    # the user's n0 is kept; fewer dimensions keep astro's 20
    calls.clear()
    run(Bowl(10), 1_000, n0=16)
    assert calls[0] == 16
    calls.clear()
    run(Bowl(4), 1_000)
    assert calls[0] == 20


def test_the_first_rows_rule_leaves_searches_without_a_gradient_as_they_were():
    import acfs_cli.methods.auto as auto

    bowl = Bowl(10)
    problem = as_problem(bowl)
    task = task_of(problem, x0=bowl.x0)
    oracle = Oracle(problem, 1_000, np.random.default_rng(0))
    assert auto._first_rows(task, oracle, AutoSettings()).n0 == auto.GRADIENT_ROWS
    assert auto._first_rows(task, oracle, AutoSettings(use_gradient=False)).n0 == 20
    bowl.gradient = None
    problem = as_problem(bowl)
    task = task_of(problem, x0=bowl.x0)
    assert auto._first_rows(task, Oracle(problem, 1_000, np.random.default_rng(0)),
                            AutoSettings()).n0 == 20
