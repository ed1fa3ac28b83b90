"""SimOpt inside acfs (DESIGN.md section 8): its problems as acfs problems, its solvers as acfs
methods under the acfs oracle. Skipped where the simopt extra is not installed."""

from __future__ import annotations

import logging

import numpy as np
import pytest

pytest.importorskip("simopt")

from scipy.integrate import quad  # noqa: E402

from acfs_cli.api import minimize  # noqa: E402
from acfs_cli.core.guard import probe  # noqa: E402
from acfs_cli.core.oracle import Oracle  # noqa: E402
from acfs_cli.core.task import Task  # noqa: E402
from acfs_cli.experiment.cell import run_cell  # noqa: E402
from acfs_cli.experiment.config import parse  # noqa: E402
from acfs_cli.experiment.grid import build_cells  # noqa: E402
from acfs_cli.integrations import simopt as integration  # noqa: E402
from acfs_cli.methods.registry import METHODS, get_method  # noqa: E402
from acfs_cli.problems import get_problem  # noqa: E402
from acfs_cli.problems import simopt as bridge  # noqa: E402

SOLVERS = [name for name in METHODS if name.startswith("simopt-")]
#: Those that search CNTNEWS-1, a continuous problem without stochastic constraints: FCSA
#: needs stochastic constraints and DASSO integer coordinates, and each refuses it in one line
#: (tests/methods/test_simopt_declared_solvers.py runs them where they apply).
CONTINUOUS = [name for name in SOLVERS
              if METHODS[name].refusal("simopt:CNTNEWS-1", [False], ()) is None]
#: CNTNEWS-1: sell at 9, buy at 5, salvage at 1, Burr XII(c = 2, k = 20) demand. The critical
#: fractile (9 - 5) / (9 - 1) = 1/2 puts the optimal order at the median of demand.
X_STAR = (2 ** (1 / 20) - 1) ** 0.5  # 0.18779


def profit(q: float) -> float:
    """CNTNEWS-1's exact expected profit: 9 E[min(D, q)] + E[(q - D)+] - 5 q."""
    return 8.0 * quad(lambda t: (1 + t * t) ** -20.0, 0, q)[0] - 4.0 * q


def rng(seed: int = 5) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.fixture(scope="module")
def news():
    return bridge.SimOptProblem("CNTNEWS-1")


# -- problems ------------------------------------------------------------------------------------
@pytest.mark.parametrize("abbr", ["CNTNEWS-1", "SAN-1", "FACSIZE-2", "NETWORK-1"])
def test_a_simopt_problem_follows_the_protocol_and_passes_the_probes(abbr):
    problem = get_problem(f"simopt:{abbr}")
    probe(problem)
    assert problem.name == f"simopt:{abbr}" and not problem.has_transform
    assert problem.code.startswith("version simoptlib 1.2.4, adapter 1")
    assert not problem.has_exact  # SimOpt's known optima are attributes, not an exact J
    W = problem.sample(problem.x0, 6, rng())
    X = np.vstack([problem.x0, problem.x0])
    np.testing.assert_array_equal(problem.cost(W, X), np.vstack([W[:, 0], W[:, 0]]))


def test_generators_in_the_same_state_give_the_same_replications_and_shorter_is_a_prefix(news):
    x = np.array([0.2])
    five, eight = news.sample(x, 5, rng()), news.sample(x, 8, rng())
    np.testing.assert_array_equal(five, eight[:5])
    assert not np.array_equal(five, news.sample(x, 5, rng(6)))
    # the same demands at another order: each profit moves by at most 4 (0.3 - 0.2) = 0.4
    other = news.sample(np.array([0.3]), 5, rng())
    assert np.all(np.abs(other[:, 0] - five[:, 0]) <= 0.4 + 1e-12)


def test_rows_are_simopts_own_replications_on_the_stream_the_generator_picks(news):
    so = integration.require("this test")
    x = (0.25,)
    stream = integration.STREAM_OFFSET + int(rng(11).integers(integration.STREAM_COUNT))
    W = news.sample(np.array(x), 4, rng(11))
    solution = so.Solution(x, news._problem)
    solution.attach_rngs([so.MRG32k3a(s_ss_sss_index=[stream, 0, 0])], copy=False)
    news._problem.simulate(solution, 4)
    # SimOpt maximises profit: the row is the loss, minus the profit
    np.testing.assert_allclose(W[:, 0], -solution.objectives[:, 0])


def test_the_loss_of_a_maximisation_is_minus_simopts_objective(news):
    assert news.minmax == 1 and news.sign == -1
    W = news.sample(np.array([0.1878]), 20_000, rng(3))
    se = W[:, 0].std(ddof=1) / np.sqrt(len(W))
    assert abs(-W[:, 0].mean() - profit(0.1878)) < 4 * se
    mm1 = bridge.SimOptProblem("MM1-1", gradients=False)
    assert mm1.minmax == -1 and mm1.sign == 1
    assert np.all(mm1.sample(np.array([3.0]), 3, rng())[:, 0] > 0)  # a sojourn time and cost


def test_bounds_start_and_constraints_are_simopts():
    news = bridge.SimOptProblem("CNTNEWS-1")
    assert news.bounds == [(0.0, np.inf)] and news.default_budget == 1000
    # SimOpt's x0 = 0 violates its own strict x > 0; X is its closure, which holds it
    np.testing.assert_array_equal(news.x0, [0.0])
    assert get_problem("simopt:CNTNEWS-1").is_feasible(news.x0)
    san = bridge.SimOptProblem("SAN-1")
    assert san.dim_x == 13 and san.bounds == [(0.01, np.inf)] * 13
    np.testing.assert_array_equal(san.x0, np.full(13, 8.0))
    assert san.default_budget == 10_000 and san.minmax == -1
    facsize = bridge.SimOptProblem("FACSIZE-2")
    np.testing.assert_array_equal(facsize.A, [[1.0, 1.0, 1.0]])
    np.testing.assert_array_equal(facsize.b, [500.0])
    assert facsize.minmax == 1 and facsize.bounds == [(0.0, np.inf)] * 3
    space = get_problem("simopt:FACSIZE-2").space
    assert not space.contains(np.array([200.0, 200.0, 200.0]))
    assert abs(space.project(np.array([300.0, 300.0, 300.0])).sum() - 500.0) < 1e-6
    network = get_problem("simopt:NETWORK-1")
    P = network.project(rng().uniform(-1, 2, (20, 10)))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert np.all(P >= 0) and network.is_feasible(network.x0)
    np.testing.assert_allclose(network.project(P), P, atol=1e-12)


def test_simopts_known_optima_are_attributes_and_nothing_claims_more():
    example = bridge.SimOptProblem("EXAMPLE-1")
    np.testing.assert_array_equal(example.optimal_x, [0.0, 0.0])
    assert example.optimal_value == 0.0
    paramesti = bridge.SimOptProblem("PARAMESTI-1")
    np.testing.assert_array_equal(paramesti.optimal_x, [2.0, 5.0])
    assert paramesti.optimal_value is None
    news = bridge.SimOptProblem("CNTNEWS-1")
    assert news.optimal_x is None and news.optimal_value is None
    assert not hasattr(news, "exact_J") and not hasattr(news, "optimum")


def test_ipa_gradients_ride_in_w_where_simopt_has_them(news):
    assert news.dim_w == 2 and news.has_gradients
    W = news.sample(np.array([0.2]), 200, rng())
    # d(-profit)/dq: -(9 - 5) when demand exceeds the order, -(1 - 5) when it falls short
    assert set(np.unique(news.gradient(W, np.array([0.2])))) == {-4.0, 4.0}
    plain = bridge.SimOptProblem("CNTNEWS-1", gradients=False)
    assert plain.dim_w == 1 and not hasattr(plain, "gradient")
    assert bridge.SimOptProblem("DYNAMNEWS-1").dim_w == 1  # no IPA gradients in SimOpt


def test_factors_reach_simopt_and_unknown_ones_are_errors():
    small = get_problem("simopt:FACSIZE-2", installation_budget=300.0)
    assert not small.is_feasible(np.array([100.0, 100.0, 101.0]))
    assert small.code != get_problem("simopt:FACSIZE-2").code
    with pytest.raises(ValueError, match="has no factor 'budgte'") as err:
        get_problem("simopt:CNTNEWS-1", budgte=10)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("name, match", [
    ("simopt:QQQ-7", "unknown SimOpt problem 'QQQ-7'; continuous SimOpt problems: AMBULANCE"),
    ("simopt:CHES-1", r"unknown SimOpt problem 'CHES-1' \(did you mean 'CHESS-1'\?\)"),
    ("simopt:ERM-EXAMPLE-1", "cannot be built: .*No such file or directory"),
])
def test_what_acfs_cannot_take_is_one_line(name, match):
    with pytest.raises(ValueError, match=match) as err:
        get_problem(name)
    assert "\n" not in str(err.value)


def test_the_continuous_problems_are_those_acfs_takes():
    assert integration.continuous_problems() == (
        "AMBULANCE-1", "CNTNEWS-1", "DYNAMNEWS-1", "EXAMPLE-1", "FACSIZE-2", "FIXEDSAN-1",
        "IRONORECONT-1", "MM1-1", "NETWORK-1", "PARAMESTI-1", "SAN-1", "SSCONT-1")
    assert bridge.replications_per_second("CNTNEWS-1", n=200) > 0


def test_without_the_extra_each_route_says_what_to_install_in_one_line(monkeypatch):
    def missing():
        raise ImportError("No module named 'simopt'")

    monkeypatch.setattr(integration, "load", missing)
    with pytest.raises(ValueError, match=r"^simopt:CNTNEWS-1 needs the simopt extra: pip "
                       r"install 'acfs\[simopt\]'$"):
        get_problem("simopt:CNTNEWS-1")
    with pytest.raises(ValueError, match=r"^simopt-astrodf needs the simopt extra"):
        minimize(get_problem("price-newsvendor"), lam=0, budget=2_000, method="simopt-astrodf",
                 n_eval=500)


# -- solvers -------------------------------------------------------------------------------------
def test_settings_are_simopts_factors_with_simopts_defaults():
    so = integration.require("this test")
    for name in SOLVERS:
        method = get_method(name)
        abbr = name.removeprefix("simopt-").upper()
        assert method.settings().factors() == so.solvers[abbr]().factors, name
        with pytest.raises(ValueError, match="no parameter"):
            method.settings({"lambda": 2})
    assert get_method("simopt-strong").settings({"lambda_fd": 3}).factors()["lambda"] == 3
    with pytest.raises(ValueError, match="eta_2 must be greater than eta_1"):
        get_method("simopt-astrodf").settings({"eta_2": 0.05})


@pytest.mark.parametrize("name", CONTINUOUS)
def test_every_replication_a_solver_asks_for_is_one_counted_draw(name):
    problem = bridge.SimOptProblem("CNTNEWS-1")
    task = Task.from_problem(problem, 0.0, 0.95)
    oracle = Oracle(problem, 1_000, rng(1))
    result = METHODS[name](task, oracle, rng(2))
    info = result.info
    assert info["simopt_replications"] == oracle.used == problem.replications <= 1_000
    if name == "simopt-strong":  # STRONG simulates before it asks its own budget
        assert info["simopt_budget_used"] <= oracle.used
    else:
        assert info["simopt_budget_used"] == oracle.used
    draws = [d for d, _, _ in result.trajectory]
    assert draws[0] == 0 and draws == sorted(draws) and draws[-1] <= oracle.used


@pytest.mark.parametrize("name", CONTINUOUS)
def test_each_solver_through_minimize_is_feasible_within_budget_and_repeats_itself(name):
    problem = get_problem("simopt:CNTNEWS-1")
    a = minimize(problem, lam=0.0, budget=600, method=name, seed=4, n_eval=500)
    b = minimize(problem, lam=0.0, budget=600, method=name, seed=4, n_eval=500)
    np.testing.assert_array_equal(a.x, b.x)
    assert a.draws_used == b.draws_used <= 600 and problem.is_feasible(a.x)
    assert a.info["simopt_solver"] == name.removeprefix("simopt-").upper()


@pytest.mark.parametrize("name", CONTINUOUS)
def test_each_solver_runs_in_a_grid_cell_with_checkpoints(name):
    config = parse({"name": "simopt", "seed": 2, "replications": 1,
                    "final_eval": {"draws": 400, "bootstrap": 0}, "checkpoints": [0.5, 1],
                    "grid": {"problem": [{"problem": "simopt:CNTNEWS-1", "budget": [600]}],
                             "lambda": [0.0, 0.7], "method": [name]}})
    cells = build_cells(config)
    rows = [run_cell(cell) for cell in cells]
    assert [r["status"] for r in rows] == ["ok", "ok"], [r["error"] for r in rows]
    for row in rows:
        assert 0 < row["oracle_draws"] <= 600 and row["x"][0] >= 0.0
        assert len(row["cp_J"]) == 2 and np.all(np.isfinite(row["cp_J"]))
    # lambda is not in the streams: the same search at both, which the lam > 0 run says
    assert rows[0]["x"] == rows[1]["x"] and rows[0]["oracle_draws"] == rows[1]["oracle_draws"]
    assert "minimised E[C], not J" in rows[1]["notes"]
    assert "minimised E[C]" not in rows[0]["notes"]
    assert run_cell(cells[0])["x"] == rows[0]["x"]


def test_nelder_mead_is_recorded_when_it_has_paid_for_its_first_simplex():
    task = Task.from_problem(bridge.SimOptProblem("CNTNEWS-1"), 0.0, 0.95)
    oracle = Oracle(bridge.SimOptProblem("CNTNEWS-1"), 600, rng(1))
    trajectory = METHODS["simopt-neldmd"](task, oracle, rng(2)).trajectory
    # the start at 0 draws, then SimOpt's first recommendation after 30 (d + 1) replications
    # (SimOpt itself states 0 for it)
    assert trajectory[0][0] == 0 and trajectory[1][0] == 60


def test_an_acfs_method_reaches_the_closed_form_optimum_of_a_simopt_problem():
    # SAA's answer is a sample median of demand: its SD is 1 / (2 f(x*) sqrt(n)) = 0.14 /
    # sqrt(n) (f(x*) = 3.6, the demand density), under 0.0031 for the 2,000 rows and more of
    # saa-ps's last stages at 20,000 draws; 0.02 is six such SDs, and a profit within 1.5 %
    # of the optimum (the profit's curvature there is -29).
    sol = minimize(get_problem("simopt:CNTNEWS-1"), lam=0.0, budget=20_000, method="saa-ps",
                   seed=0, n_eval=2_000)
    assert abs(sol.x[0] - X_STAR) < 0.02
    assert profit(sol.x[0]) > 0.985 * profit(X_STAR)


def test_simopt_solvers_run_on_any_acfs_problem_and_say_what_they_projected():
    problem = get_problem("dgp1")
    sol = minimize(problem, lam=0.7, budget=3_000, method="simopt-neldmd", seed=0, n_eval=500)
    assert problem.is_feasible(sol.x) and sol.draws_used <= 3_000
    assert any("simulated at their projection" in note for note in sol.notes)
    assert any("minimised E[C], not J" in note for note in sol.notes)


def test_finite_differences_at_a_bound_run_and_simopts_own_errors_end_the_run_noted():
    class OnABound:
        """x0 on the lower bound in one coordinate of two: SimOpt's finite differences mix
        one-sided and central differences there."""

        dim_x, dim_w = 2, 1
        bounds = [(0.0, 1.0), (0.0, 1.0)]
        x0 = np.array([0.0, 0.5])

        def transform(self, x, z):
            return 0.1 * z

        def cost(self, W, x):
            return (x[0] - 0.3) ** 2 + (x[1] - 0.6) ** 2 + W[:, 0]

    sol = minimize(OnABound(), lam=0.0, budget=3_000, method="simopt-adam", seed=0,
                   n_eval=500)
    assert not any("error of its own" in note for note in sol.notes)
    assert np.linalg.norm(sol.x - [0.3, 0.6]) < np.linalg.norm(OnABound.x0 - [0.3, 0.6])
    # STRONG's Hessian approximation indexes wrongly at a bound (simoptlib 1.2.4): the run
    # ends with its last recommendation, and says so
    strong = minimize(get_problem("dgp1"), lam=0.0, budget=5_000, method="simopt-strong",
                      seed=0, n_eval=500)
    assert strong.stop_reason == "SimOpt's solver raised IndexError"
    assert any("stopped on an error of its own (IndexError" in n for n in strong.notes)


def test_simopts_log_warnings_become_notes_and_leave_the_root_logger_alone(news):
    handlers = list(logging.getLogger().handlers)
    sol = minimize(news, lam=0.0, budget=1_000, method="simopt-strong", seed=1, n_eval=500)
    assert any(note.startswith("SimOpt's STRONG warned") for note in sol.notes)
    assert logging.getLogger().handlers == handlers
