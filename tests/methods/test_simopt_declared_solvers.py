"""SimOpt's RNDSRCH, FCSA and DASSO as acfs methods (DESIGN.md section 8): what each keeps and
refuses, their budgets, answers whole and inside X, SimOpt's own solvers run directly through
simoptlib on the same problem and streams, and the corrections around SimOpt's faults.
Skipped where the simopt extra is not installed."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("simopt")

from typer.testing import CliRunner  # noqa: E402

from acfs_cli.api import minimize  # noqa: E402
from acfs_cli.cli import app  # noqa: E402
from acfs_cli.core.oracle import Oracle  # noqa: E402
from acfs_cli.core.task import Task  # noqa: E402
from acfs_cli.integrations import simopt as integration  # noqa: E402
from acfs_cli.methods.base import BudgetTooSmall  # noqa: E402
from acfs_cli.methods.registry import get_method  # noqa: E402
from acfs_cli.problems import get_problem  # noqa: E402

NEW = ["simopt-rndsrch", "simopt-fcsa", "simopt-dasso"]

#: Where each runs: SimOpt's constrained FACSIZE-1, its discrete EXAMPLE-2 and acfs's
#: constrained toys (service-newsvendor's chance constraint, overtime-staffing's expectation).
RUNS = [
    ("simopt-rndsrch", "simopt:FACSIZE-1"), ("simopt-rndsrch", "simopt:EXAMPLE-2"),
    ("simopt-rndsrch", "service-newsvendor"), ("simopt-rndsrch", "fleet-pricing"),
    ("simopt-fcsa", "simopt:FACSIZE-1"), ("simopt-fcsa", "service-newsvendor"),
    ("simopt-fcsa", "overtime-staffing"),
    ("simopt-dasso", "simopt:EXAMPLE-2"),
]


def so():
    return integration.require("this test")


def run(name: str, problem_name: str, budget: int, seed: int = 2, **settings):
    """The method on the problem under a fresh oracle, and that oracle."""
    problem = get_problem(problem_name)
    task = Task.from_problem(problem, 0.0, 0.95)
    oracle = Oracle(problem, budget, np.random.default_rng(1))
    return get_method(name)(task, oracle, np.random.default_rng(seed), settings), oracle


def native(abbr: str, problem: str, budget: int, seed: int = 2, solver_class=None, **factors):
    """SimOpt's own solver run directly through simoptlib on SimOpt's problem, its own random
    numbers on the MRG32k3a stream the method picks from a generator seeded ``seed`` (SimOpt's
    layout: its generator j on substream 1 + j); its recommendations and their budgets."""
    stream = integration.STREAM_OFFSET + int(
        np.random.default_rng(seed).integers(integration.STREAM_COUNT))
    p = so().problems[problem](fixed_factors={"budget": budget})
    solver = (solver_class or so().solvers[abbr])(fixed_factors=factors)
    solver.attach_rngs([so().MRG32k3a(s_ss_sss_index=[stream, 1 + j, 0]) for j in range(3)])
    solver.solution_progenitor_rngs = [so().MRG32k3a(s_ss_sss_index=[3, i, 0])
                                       for i in range(p.model.n_rngs)]
    df = solver.run(p)
    return [np.asarray(x, dtype=float) for x in df["solution"]], df["budget"].tolist()


def recommended(result, at_start: bool = False) -> list[np.ndarray]:
    """The method's recommendations: its trajectory after the start recorded at 0 draws, or
    all of it where the solver recommends x0 at 0 draws (which replaces the start)."""
    return [x for _, x, _ in result.trajectory[0 if at_start else 1:]]


# -- what each is ----------------------------------------------------------------------------
def test_settings_are_simopts_factors_with_simopts_defaults_and_unknown_keys_are_errors():
    for name in NEW:
        method = get_method(name)
        abbr = name.removeprefix("simopt-").upper()
        assert method.settings().factors() == so().solvers[abbr]().factors
        with pytest.raises(ValueError, match="no parameter"):
            method.settings({"sample_sizes": 3})
    with pytest.raises(ValueError, match="search_direction"):
        get_method("simopt-fcsa").settings({"search_direction": "steepest"})
    with pytest.raises(ValueError, match="disjoint"):
        get_method("simopt-dasso").settings({"decomposition": [(0, 1), (1, 2)]})
    assert get_method("simopt-dasso").settings(
        {"decomposition": [[0, 1], [2, 3]]}).factors()["decomposition"] == [(0, 1), (2, 3)]


def test_flags_follow_simopts_compatibility():
    # RNDSRCH: stochastic constraints, mixed variables; FCSA: stochastic constraints,
    # continuous; DASSO: box, discrete
    assert {n: so().solvers[n.removeprefix("simopt-").upper()].compatibility for n in NEW} == {
        "simopt-rndsrch": "SSMN", "simopt-fcsa": "SSCN", "simopt-dasso": "SBDN"}
    flags = {n: (get_method(n).integer, get_method(n).constrained) for n in NEW}
    assert flags == {"simopt-rndsrch": (True, True), "simopt-fcsa": (False, True),
                     "simopt-dasso": (True, False)}
    assert [get_method(n).display_name for n in NEW] == [
        "SimOpt-RNDSRCH", "SimOpt-FCSA", "SimOpt-DASSO"]


@pytest.mark.parametrize("name, problem, said", [
    ("simopt-fcsa", "dgp1", "searches under stochastic constraints only: problem 'dgp1' "
     "declares none"),
    ("simopt-fcsa", "simopt:EXAMPLE-2", "cannot search integer coordinates"),
    ("simopt-dasso", "simopt:FACSIZE-1", "cannot keep stochastic constraints"),
    ("simopt-dasso", "dgp1", "searches integer lattices only: problem 'dgp1' has continuous "
     "x[0], x[1]"),
    ("simopt-dasso", "simopt:DUALSOURCING-1", "lattice of a bounded box: x[0] of problem "
     "'simopt:DUALSOURCING-1' is unbounded"),
    ("simopt-dasso", "simopt:HOTEL-1", "groups of at most 2,500 lattice points"),
])
def test_each_refuses_what_it_cannot_keep_in_one_line_before_any_draw(name, problem, said):
    with pytest.raises(ValueError, match=re.escape(said)) as caught:
        minimize(get_problem(problem), lam=0.0, budget=1_000, method=name, n_eval=10)
    assert "\n" not in str(caught.value)
    built = get_problem(problem)
    task = Task.from_problem(built, 0.0, 0.95)
    oracle = Oracle(built, 1_000, np.random.default_rng(0))
    with pytest.raises(ValueError, match=re.escape(said)):  # also where a task reaches it
        get_method(name)(task, oracle, np.random.default_rng(1))
    assert oracle.used == 0


# -- runs within budget, whole and inside X --------------------------------------------------
@pytest.mark.parametrize("name, problem_name", RUNS)
def test_each_runs_within_budget_with_a_whole_answer_inside_x(name, problem_name):
    problem = get_problem(problem_name)
    sol = minimize(problem, lam=0.0, budget=900, method=name, seed=4, n_eval=100)
    again = minimize(problem, lam=0.0, budget=900, method=name, seed=4, n_eval=100)
    np.testing.assert_array_equal(sol.x, again.x)
    assert sol.draws_used <= 900 and bool(problem.space.contains(sol.x))
    whole = np.asarray(problem.integrality, dtype=bool)
    np.testing.assert_array_equal(sol.x[whole], np.round(sol.x[whole]))
    assert len(sol.constraints) == len(problem.constraints)
    assert sol.info["simopt_solver"] == name.removeprefix("simopt-").upper()


@pytest.mark.parametrize("name, problem_name", RUNS)
def test_every_replication_is_one_counted_draw_and_the_cap_is_never_passed(name,
                                                                          problem_name):
    for budget in (350, 701):
        result, oracle = run(name, problem_name, budget)
        assert result.oracle_draws == oracle.used <= budget
        assert result.info["simopt_replications"] == oracle.used
        assert result.info["simopt_budget_used"] <= oracle.used  # DASSO simulates, then asks
        draws = [d for d, _, _ in result.trajectory]
        assert draws[0] == 0 and draws == sorted(draws) and draws[-1] <= oracle.used
        if result.stopped_by_budget:  # the cap stopped it: the oracle's incumbent answers
            np.testing.assert_array_equal(result.x, oracle.incumbent[0])


def test_integer_requests_off_the_lattice_or_outside_x_are_moved_to_a_whole_point_and_said():
    # RMITD-1's own random solutions are fractional (simoptlib 1.2.4): each is simulated at
    # the nearest whole point of X, whose nested constraint x[0] >= x[1] >= x[2] holds
    problem = get_problem("simopt:RMITD-1")
    sol = minimize(problem, lam=0.0, budget=600, method="simopt-rndsrch", seed=1, n_eval=50)
    assert np.array_equal(sol.x, np.round(sol.x)) and bool(problem.space.contains(sol.x))
    assert any("simulated at the nearest whole point of X" in note for note in sol.notes)


def test_constraints_reach_simopt_as_its_problems_state_them_and_chance_becomes_an_indicator():
    # service-newsvendor's P(stockout > 0) <= eps reaches SimOpt as 1(g > 0) - eps per row:
    # the solver's mean is a share of its 10 replications less eps
    eps = get_problem("service-newsvendor").constraints[0].chance
    for seed, recommendations, mean in [(2, 1, 0.1 - eps), (3, 2, 0.0 - eps)]:
        result, _ = run("simopt-rndsrch", "service-newsvendor", 500, seed=seed)
        assert result.info["simopt_recommendations"] == recommendations
        assert result.info["simopt_constraints_mean"] == pytest.approx([mean], abs=1e-12)
    # SimOpt's random search recommends x0 whatever its constraints (seed 2: one stockout in
    # ten at x0) and after it only points whose constraint means are at most 0 (seed 3)


# -- SimOpt's own solvers, run directly --------------------------------------------------------
def test_rndsrch_recommends_what_simopts_own_random_search_recommends():
    # EXAMPLE-2's noise does not depend on x: under common random numbers every comparison
    # is decided by the deterministic part, so the same random solutions give the same
    # recommendations, at the same budgets
    for seed in (2, 7):
        result, _ = run("simopt-rndsrch", "simopt:EXAMPLE-2", 1_000, seed=seed)
        xs, budgets = native("RNDSRCH", "EXAMPLE-2", 1_000, seed=seed)
        ours = recommended(result, at_start=True)
        assert len(ours) == len(xs) == result.info["simopt_recommendations"]
        for mine, theirs in zip(ours, xs, strict=True):
            np.testing.assert_array_equal(mine, theirs)
        assert [d for d, _, _ in result.trajectory] == budgets


def test_dasso_starts_as_simopts_own_dasso_does():
    # DASSO's start-up design comes from its own random numbers and its first recommendation
    # is the sample-best of the design, decided by EXAMPLE-2's deterministic part under
    # common random numbers; later steps weigh the noise's variance, which another stream
    # draws differently
    for seed in (2, 3, 4):
        result, _ = run("simopt-dasso", "simopt:EXAMPLE-2", 800, seed=seed)
        xs, budgets = native("DASSO", "EXAMPLE-2", 800, seed=seed)
        np.testing.assert_array_equal(recommended(result)[0], xs[0])
        assert result.trajectory[1][0] == budgets[0] == 300
        assert result.info["simopt_recommendations"] == len(xs)


def test_corrected_fcsa_leaves_a_feasible_start_as_simopts_corrected_fcsa_and_theirs_does_not():
    # FACSIZE-1 at x0 = (300, 300, 300) almost never stocks out: every iterate is feasible
    # and the installation cost falls along each step. simoptlib 1.2.4's FCSA counts only
    # worse feasible points as improvements, so it recommends x0 alone
    xs, _ = native("FCSA", "FACSIZE-1", 1_500)
    assert len(xs) == 1 and np.array_equal(xs[0], [300, 300, 300])
    fixed, fixed_budgets = native("FCSA", "FACSIZE-1", 1_500,
                                  solver_class=integration.corrected_fcsa())
    result, oracle = run("simopt-fcsa", "simopt:FACSIZE-1", 1_500)
    ours = recommended(result)
    assert len(ours) == len(fixed) > 10
    np.testing.assert_allclose(np.array(ours), np.array(fixed), rtol=0, atol=1e-9)
    assert [d for d, _, _ in result.trajectory[1:]] == fixed_budgets
    assert result.x.sum() < 900 and oracle.used <= 1_500
    assert result.info["simopt_uncorrected_recommendations"] == 1
    assert any(note.startswith("SimOpt's FCSA ran with its incumbent rule corrected")
               and "its own rule answered [300, 300, 300] after 1 recommendation(s)" in note
               for note in oracle.notes)


def test_the_correction_keeps_fcsas_iterates_and_changes_only_its_recommendations():
    fcsa = so().solvers["FCSA"]
    corrected = integration.corrected_fcsa()
    assert issubclass(corrected, fcsa) and corrected.solve is not fcsa.solve
    assert {k for k, v in vars(corrected).items() if callable(v)} == {
        "_new_solution_found", "solve"}


# -- DASSO's small budgets -----------------------------------------------------------------
def test_dasso_at_a_budget_below_its_start_up_is_refused_in_one_line_naming_the_minimum():
    # natively, DASSO's start-up spends such a budget and SimOpt's trimming of the empty
    # run raises IndexError
    with pytest.raises(BudgetTooSmall, match=r"^simopt-dasso needs at least 300 draws on a "
                       r"4-dimensional problem \(budget 120\)$"):
        minimize(get_problem("simopt:EXAMPLE-2"), lam=0.0, budget=120, method="simopt-dasso",
                 n_eval=10)
    said = CliRunner().invoke(app, ["solve", "simopt:EXAMPLE-2", "-m", "simopt-dasso", "-b",
                                    "120", "-q"])
    assert said.exit_code == 2 and "Traceback" not in said.output
    assert said.output.strip().splitlines() == [
        "error: simopt-dasso needs at least 300 draws on a 4-dimensional problem (budget 120)"]
    assert get_method("simopt-dasso").minimum_budget(4, {"sample_size": 4}) == 120
    result, oracle = run("simopt-dasso", "simopt:EXAMPLE-2", 120, sample_size=4)
    assert oracle.used <= 120 and result.info["simopt_recommendations"] >= 1


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's, inside SimOpt's DASSO
def test_dasso_that_fails_in_simopts_own_model_fit_answers_its_start_and_says_so():
    # fleet-pricing under common random numbers: DASSO's likelihood meets a singular matrix
    # in its start-up (numpy's LinAlgError inside SimOpt's code)
    sol = minimize(get_problem("fleet-pricing"), lam=0.0, budget=2_000, method="simopt-dasso",
                   seed=1, n_eval=50)
    assert sol.stop_reason == "SimOpt's solver raised LinAlgError"
    assert any("stopped on an error of its own (LinAlgError" in note
               and "before its first recommendation; the start stands" in note
               for note in sol.notes)
    np.testing.assert_array_equal(sol.x, get_problem("fleet-pricing").x0)
