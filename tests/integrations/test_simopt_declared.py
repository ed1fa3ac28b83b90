"""SimOpt's problems with integer coordinates or stochastic constraints as acfs problems
(DESIGN.md section 8): what each declares, and that its rows are SimOpt's own replications.
Skipped where the simopt extra is not installed."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("simopt")

from acfs_cli.api import minimize  # noqa: E402
from acfs_cli.core.task import Task  # noqa: E402
from acfs_cli.integrations import simopt as integration  # noqa: E402
from acfs_cli.problems import get_problem  # noqa: E402
from acfs_cli.problems import simopt as bridge  # noqa: E402

#: The constrained ones: SimOpt's stochastic constraints, in SimOpt's order, each E[g] <= 0.
CONSTRAINED = {
    "CHESS-1": ["avg_wait_time - upper_time"],
    "CONTAM-1": [f"1(level[{i}] > upper_thres[{i}]) - error_prob[{i}]" for i in range(5)],
    "CONTAM-2": [f"1(level[{i}] > upper_thres[{i}]) - error_prob[{i}]" for i in range(5)],
    "FACSIZE-1": ["1(stockout) - epsilon"],
    "SAN-2": ["longest path to node 6 - length_to_node_constraint[0]",
              "longest path to node 8 - length_to_node_constraint[1]"],
}
#: The integer coordinates: every one of a discrete problem, IRONORE-1's inven_stop.
INTEGERS = {
    "AMUSEMENTPARK-1": [1] * 7,
    "CONTAM-1": [1] * 5,
    "DUALSOURCING-1": [1, 1],
    "EXAMPLE-2": [1] * 4,
    "HOTEL-1": [1] * 56,
    "IRONORE-1": [0, 1, 0, 0],
    "RMITD-1": [1, 1, 1],
    "TABLEALLOCATION-1": [1] * 4,
}
DECLARED = sorted(set(CONSTRAINED) | set(INTEGERS))
#: Replications per test: AMUSEMENTPARK-1 and HOTEL-1 take 17-36 ms each.
ROWS = {"AMUSEMENTPARK-1": 2, "HOTEL-1": 2, "CHESS-1": 3}


def rng(seed: int = 5) -> np.random.Generator:
    return np.random.default_rng(seed)


def simopt_rows(abbr: str, x: tuple, n: int, seed: int):
    """SimOpt's own replications of ``abbr`` at ``x`` on the stream the adapter picks from a
    generator seeded ``seed``: its objectives and its stochastic constraints' left-hand
    sides, straight from simoptlib."""
    so = integration.require("this test")
    p = so.problems[abbr]()
    stream = integration.STREAM_OFFSET + int(rng(seed).integers(integration.STREAM_COUNT))
    solution = so.Solution(x, p)
    solution.attach_rngs([so.MRG32k3a(s_ss_sss_index=[stream, i, 0])
                          for i in range(p.model.n_rngs)], copy=False)
    p.simulate(solution, n)
    return solution.objectives[:, 0], (solution.stoch_constraints if p.n_stochastic_constraints
                                        else None)


def test_the_declared_problems_are_listed_apart_from_the_continuous_study():
    assert integration.declared_problems() == tuple(DECLARED)
    assert not set(integration.declared_problems()) & set(integration.continuous_problems())
    assert len(integration.continuous_problems()) == 12  # the continuous study is unchanged


@pytest.mark.parametrize("abbr", DECLARED)
def test_each_problem_builds_with_simopts_integrality_constraints_bounds_and_start(abbr):
    so = integration.require("this test")
    own = so.problems[abbr]()
    problem = get_problem(f"simopt:{abbr}")
    assert problem.name == f"simopt:{abbr}" and not problem.has_transform
    assert problem.code.startswith("version simoptlib 1.2.4, adapter 1")
    np.testing.assert_array_equal(problem.integrality.astype(int),
                                  INTEGERS.get(abbr, [0] * problem.dim_x))
    assert [c.name for c in problem.constraints] == CONSTRAINED.get(abbr, [])
    assert all(c.chance is None for c in problem.constraints)  # E[g] <= 0, as SimOpt states
    lo, hi = problem.space.box()
    np.testing.assert_array_equal(lo, own.lower_bounds)
    np.testing.assert_array_equal(hi, own.upper_bounds)
    np.testing.assert_array_equal(problem.x0, own.factors["initial_solution"])
    whole = problem.integrality
    np.testing.assert_array_equal(problem.x0[whole], np.round(problem.x0[whole]))
    assert problem.is_feasible(problem.x0)


@pytest.mark.parametrize("abbr", sorted(CONSTRAINED))
def test_constraint_values_are_simopts_own_left_hand_sides_on_the_costs_rows(abbr):
    problem = bridge.SimOptProblem(abbr)
    so_x = tuple(integration.require("this test").problems[abbr]().factors["initial_solution"])
    n = ROWS.get(abbr, 6)
    W = problem.sample(problem.x0, n, rng(11))
    objectives, lhs = simopt_rows(abbr, so_x, n, 11)
    g = get_problem(f"simopt:{abbr}").constraint_values(W, problem.x0)
    assert g.shape == (n, len(CONSTRAINED[abbr]))
    np.testing.assert_array_equal(g, lhs)
    np.testing.assert_array_equal(problem.cost(W, problem.x0), problem.sign * objectives)


def test_what_each_constraint_means_in_simopts_terms():
    # CONTAM: 1(level > threshold) - error_prob, so E[g] <= 0 is P(level > 0.1) <= 0.2
    contam = get_problem("simopt:CONTAM-2")
    g = contam.constraint_values(contam.sample(np.zeros(5), 40, rng()), np.zeros(5))
    assert set(np.round(np.unique(g), 12)) <= {-0.2, 0.8}
    # FACSIZE-1: 1(stockout) - epsilon; at zero capacity every demand stocks out
    facsize = get_problem("simopt:FACSIZE-1")
    g = facsize.constraint_values(facsize.sample(np.zeros(3), 20, rng()), np.zeros(3))
    np.testing.assert_allclose(g, 0.95)
    # SAN-2: the longest path to a node, less its allowed length of 5, is at least -5
    san = get_problem("simopt:SAN-2")
    g = san.constraint_values(san.sample(san.x0, 20, rng()), san.x0)
    assert np.all(g >= -5.0) and np.all(g.mean(axis=0) > 0)  # SimOpt's x0 violates them


def test_the_constraints_reach_a_methods_view_of_the_problem():
    task = Task.from_problem(get_problem("simopt:FACSIZE-1"), 0.0, 0.95)
    assert task.integrality is None and [c.describe() for c in task.constraints] == [
        "E[1(stockout) - epsilon] <= 0"]
    problem = get_problem("simopt:FACSIZE-1")
    W = problem.sample(problem.x0, 5, rng())
    np.testing.assert_array_equal(task.constraint_values(W, problem.x0), W[:, -1:])
    assert Task.from_problem(get_problem("simopt:DUALSOURCING-1"), 0.0, 0.95).integer


@pytest.mark.parametrize("abbr", sorted(INTEGERS))
def test_rows_of_a_discrete_problem_are_simopts_replications_at_the_whole_decision(abbr):
    problem = bridge.SimOptProblem(abbr)
    so_x = tuple(integration.require("this test").problems[abbr]().factors["initial_solution"])
    x = problem.simopt_x(problem.x0)
    assert x == so_x and [type(v) for v in x] == [
        int if flag else float for flag in INTEGERS[abbr]]
    n = ROWS.get(abbr, 4)
    objectives, _ = simopt_rows(abbr, so_x, n, 3)
    np.testing.assert_array_equal(problem.sample(problem.x0, n, rng(3))[:, 0],
                                  problem.sign * objectives)


@pytest.mark.parametrize("abbr", ["AMUSEMENTPARK-1", "RMITD-1", "TABLEALLOCATION-1"])
def test_linear_constraints_are_simopts_deterministic_ones(abbr):
    problem = get_problem(f"simopt:{abbr}")
    own = integration.require("this test").problems[abbr]()
    hi = {"AMUSEMENTPARK-1": 120, "RMITD-1": 150, "TABLEALLOCATION-1": 15}[abbr]
    points = rng(2).integers(0, hi, (300, problem.dim_x)).astype(float)
    ours = problem.space.contains(points)
    theirs = np.array([own.check_deterministic_constraints(tuple(int(v) for v in x))
                       for x in points])
    np.testing.assert_array_equal(ours, theirs)
    assert ours.any() and not ours.all()


#: A budget each problem's default search can afford here (AMUSEMENTPARK-1 and HOTEL-1 take
#: 17-36 ms a replication: a start-only answer).
BUDGETS = {"AMUSEMENTPARK-1": 40, "HOTEL-1": 40, "CHESS-1": 300, "DUALSOURCING-1": 300}


@pytest.mark.parametrize("abbr", DECLARED)
def test_the_default_keeps_each_whole_and_states_its_constraints(abbr):
    problem = get_problem(f"simopt:{abbr}")
    budget = BUDGETS.get(abbr, 2_000)
    sol = minimize(problem, lam=0.0, budget=budget, n_eval=40, seed=0)
    assert sol.draws_used <= budget
    whole = np.asarray(problem.integrality, dtype=bool)
    assert np.array_equal(sol.x[whole], np.round(sol.x[whole]))
    assert bool(problem.space.contains(sol.x))
    assert len(sol.constraints) == len(CONSTRAINED.get(abbr, []))


def _stand_in(**overrides) -> type:
    """A SimOpt problem class like CNTNEWS-1 but for ``overrides``."""
    so = integration.require("this test")
    return type("StandIn", (so.problems["CNTNEWS-1"],),
                {"class_name_abbr": "STANDIN-1", **overrides})


def test_what_the_adapter_does_not_know_is_still_refused_in_one_line():
    so = integration.require("this test")
    for overrides, reason in [
        ({"n_objectives": 2}, "simopt:STANDIN-1 has 2 objectives; acfs optimises one"),
        ({"variable_type": so.VariableType.MIXED},
         "simopt:STANDIN-1 has mixed decision variables and the adapter does not know which "
         "are integers"),
        ({"n_stochastic_constraints": 1},
         "simopt:STANDIN-1 has 1 stochastic constraint(s) the adapter does not know"),
        ({"constraint_type": so.ConstraintType.DETERMINISTIC},
         "simopt:STANDIN-1 has deterministic constraints the adapter does not know"),
    ]:
        assert integration.refusal(_stand_in(**overrides)) == reason
    assert integration.refusal(_stand_in(variable_type=so.VariableType.DISCRETE)) is None


def test_san2_carries_the_gradient_of_each_constraint_value_it_reports():
    # With common random numbers each replication's longest path is piecewise linear in the
    # arc means, so a forward difference on the same stream is its gradient (away from a
    # switch of the longest path). simoptlib 1.2.4 pairs the first constraint's value (the
    # path to node 7) with node 6's gradient; the adapter's class gives the value's own.
    problem = bridge.SimOptProblem("SAN-2")
    assert problem.has_constraint_gradients and problem.dim_w == 1 + 13 + 2 + 2 * 13
    x = np.linspace(1.0, 3.0, 13)
    W = problem.replicate(x, 40, 7)
    G, g = problem.constraint_gradient(W, x), problem.constraint_values(W, x)
    h = 1e-6
    fd = np.stack([(problem.constraint_values(problem.replicate(x + h * e, 40, 7), x) - g) / h
                   for e in np.eye(13)], axis=-1)
    np.testing.assert_allclose(G, fd, atol=1e-6)
    # the values, and the loss, are SimOpt's own problem's
    own = bridge.SimOptProblem("SAN-2", gradients=False)
    V = own.replicate(x, 40, 7)
    np.testing.assert_array_equal(own.constraint_values(V, x), g)
    np.testing.assert_array_equal(V[:, 0], W[:, 0])
    assert get_problem("simopt:SAN-2").has_constraint_gradient


@pytest.mark.parametrize("abbr", ["CONTAM-2", "FACSIZE-1"])
def test_indicator_constraints_carry_no_gradient(abbr):
    # SimOpt gives zeros for an indicator's gradient: no gradient of its expectation
    problem = bridge.SimOptProblem(abbr)
    assert not problem.has_constraint_gradients
    assert not get_problem(f"simopt:{abbr}").has_constraint_gradient
