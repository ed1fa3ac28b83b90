"""The default on problems that declare whole-number coordinates or stochastic constraints
(``acfs_cli.methods.auto_declared``): answers whole where they must be, feasible by the exact
law, near the exact optimum, within the budget, and the statement that comes with them."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, stats
from toys import STAFF

from acfs_cli.api import minimize

SIGMA = 0.4


#: The user's module of the declarations' tests, made here.
_made: dict = {}
exec(STAFF, _made)  # noqa: S102 - a test toy's source, written once in tests/toys.py
Staff = _made["Staff"]


class Service:
    """A price-setting newsvendor whose lognormal demand's mean falls with the price, with a
    service level: P(demand > stock) <= 5 %. The start is infeasible (46 % stock-outs)."""

    dim_x, dim_w = 2, 1
    bounds = [(3.0, 12.0), (0.0, 200.0)]
    x0 = [7.0, 22.0]
    stochastic_constraints = [{"name": "stockout", "chance": 0.05}]

    def transform(self, x, z):
        return (50.0 - 4.0 * x[0]) * np.exp(SIGMA * z - SIGMA**2 / 2)

    def cost(self, W, x):
        D = W[:, 0]
        return 3 * x[1] - x[0] * np.minimum(D, x[1]) - np.maximum(x[1] - D, 0)

    def constraint_values(self, W, x):
        return W[:, 0] - x[1]


def expected_cost(p, q):
    """E[C] in closed form: E[min(D, q)] of the lognormal demand."""
    y = 50.0 - 4.0 * p
    z = (np.log(q / y) + SIGMA**2 / 2) / SIGMA
    return 2 * q - (p - 1) * (y * stats.norm.cdf(z - SIGMA) + q * stats.norm.sf(z))


def stockout(p, q):
    return stats.norm.sf((np.log(q / (50.0 - 4.0 * p)) + SIGMA**2 / 2) / SIGMA)


def service_optimum():
    """At each price the stock is the larger of the critical fractile's and the service
    level's (E[C] is convex in q); the price by bounded Brent."""
    def stock(p):
        y, r = 50.0 - 4.0 * p, 2.0 / (p - 1.0)
        level = y * np.exp(SIGMA * stats.norm.ppf(0.95) - SIGMA**2 / 2)
        fractile = y * np.exp(SIGMA * stats.norm.ppf(1 - r) - SIGMA**2 / 2) if r < 1 else 0.0
        return max(level, fractile)

    res = optimize.minimize_scalar(lambda p: expected_cost(p, stock(p)), bounds=(3, 12),
                                   method="bounded", options={"xatol": 1e-10})
    return res.x, stock(res.x), res.fun


@pytest.mark.parametrize("budget", [2_000, 20_000])
def test_whole_number_coordinates_end_at_the_exact_whole_optimum(budget):
    for seed in range(4):
        sol = minimize(Staff(), budget=budget, lam=0.5, alpha=0.9, seed=seed)
        assert sol.x[:2].tolist() == [7.0, 2.0]
        assert sol.x[2] == pytest.approx(0.0, abs=0.05)
        assert sol.draws_used <= budget


def test_every_point_the_simulator_sees_is_whole_where_it_must_be():
    seen = []

    class Watched(Staff):
        def cost(self, W, x):
            seen.append(np.array(x[:2]))
            return super().cost(W, x)

    minimize(Watched(), budget=3_000, seed=1)
    assert seen and all(np.array_equal(s, np.round(s)) for s in seen)


def test_a_chance_constrained_answer_is_feasible_by_the_exact_law_and_near_the_optimum():
    # the constraint binds at the optimum (the stock is the service level's, not the
    # fractile's); the answer keeps two standard errors of the calibration's 67,500 fresh
    # draws from the boundary, which costs about half a percent of J* (the library's
    # service-newsvendor, the same model: 0.58 / 0.81 % median / worst over 8 seeds,
    # benchmarks/bench_declared.py); 2 % leaves room for the seeds' spread
    p_star, q_star, J_star = service_optimum()
    assert stockout(p_star, q_star) == pytest.approx(0.05)
    for seed in range(3):
        sol = minimize(Service(), budget=150_000, lam=0.0, alpha=0.9, seed=seed)
        p, q = sol.x
        assert stockout(p, q) <= 0.05
        assert (expected_cost(p, q) - J_star) / abs(J_star) < 0.02
        assert sol.draws_used <= 150_000


def test_the_answer_states_each_constraint_with_its_interval_on_fresh_draws():
    sol = minimize(Service(), budget=20_000, lam=0.0, alpha=0.9, seed=0)
    (found,) = sol.constraints
    assert found.name == "stockout" and found.kind == "chance" and found.rows == sol.n_eval
    assert found.low <= found.estimate <= found.high and found.bound == 0.05
    assert sol.feasible == found.verdict
    # the exact share at x* lies in the interval (a 95 % interval: a fixed seed that holds)
    assert found.low <= stockout(*sol.x) <= found.high


def test_an_infeasible_start_is_left_for_a_feasible_answer():
    assert stockout(*Service.x0) > 0.4
    sol = minimize(Service(), budget=5_000, lam=0.5, alpha=0.9, seed=2)
    assert stockout(*sol.x) <= 0.05


@pytest.mark.parametrize("budget", [1, 150, 700, 4_001])
def test_budget_never_exceeded_under_declarations(budget):
    for problem in (Staff(), Service(), ArcsWithGradients()):
        sol = minimize(problem, budget=budget, seed=3)
        assert sol.draws_used <= budget
        if problem.__class__ is Staff:
            assert np.array_equal(sol.x[:2], np.round(sol.x[:2]))


def test_a_budget_too_small_for_a_search_answers_x0_and_says_so():
    sol = minimize(Service(), budget=150, seed=0)
    assert sol.x.tolist() == Service.x0
    assert any("too few for a search" in n for n in sol.notes)
    assert sol.feasible != "feasible"  # x0 stocks out on 46 % of days
    assert any(n.startswith("feasibility fails") for n in sol.notes)


def test_same_seed_same_answer():
    a = minimize(Service(), budget=8_000, seed=5)
    b = minimize(Service(), budget=8_000, seed=5)
    assert np.array_equal(a.x, b.x) and a.J == b.J


def test_the_calibration_brings_the_answer_to_two_standard_errors_of_its_draws_from_the_bound():
    # the epochs stop two standard errors of their own samples (a few thousand rows) from
    # the bound; the calibration's fresh draws at the answer bring it to two of theirs
    sol = minimize(Service(), budget=150_000, lam=0.0, alpha=0.9, seed=4)
    moved = sol.info["calibration"]
    assert moved["moved"] and moved["constraint"] == "stockout"
    se = np.sqrt(0.05 * 0.95 / moved["rows"])
    assert 0.05 - 4 * se <= stockout(*sol.x) <= 0.05
    assert any("moved its answer onto the boundary" in n for n in sol.notes)


class Facilities:
    """Two capacities against independent normal demands, paying for capacity only, with a
    service level stated as SimOpt states it, the mean of an indicator: E[1(any stock-out) -
    0.05] <= 0. The level of an indicator stands still between nearby decisions on a sample,
    so no local model of it guides the answer onto the boundary."""

    dim_x, dim_w = 2, 2
    bounds = [(0.0, 400.0), (0.0, 400.0)]
    x0 = [150.0, 150.0]
    stochastic_constraints = [{"name": "stockout"}]

    def transform(self, x, z):
        return 100.0 + 10.0 * z

    def cost(self, W, x):
        return np.full(W.shape[0], x[0] + x[1])

    def constraint_values(self, W, x):
        return np.any(W > x, axis=1).astype(float) - 0.05


def test_indicator_constraint_answer_reaches_the_boundary_and_keeps_it():
    """Exact law: P(stock-out) = 1 - Phi((x1 - 100)/10) Phi((x2 - 100)/10); the optimum is
    symmetric with Phi(z)^2 = 0.95. Every seed's answer is moved by the calibration, keeps the
    level within a tenth of it by the exact law and costs within 8 % of the optimum. Measured
    over 40 seeds: P(stock-out) at most 0.0511 and the cost at most 6.1 % above (median 1.4 %),
    so another CPU's path passes too; before the line search one seed of four fell back to
    x0, 25 % off, and no answer moved."""
    optimum = 2 * (100 + 10 * stats.norm.ppf(np.sqrt(0.95)))
    for seed in range(6):
        sol = minimize(Facilities(), lam=0.0, budget=10_000, method="auto", seed=seed,
                       n_eval=2_000)
        p = 1 - stats.norm.cdf((sol.x[0] - 100) / 10) * stats.norm.cdf((sol.x[1] - 100) / 10)
        assert p <= 0.055, (seed, sol.x, p)
        assert sum(sol.x) <= 1.08 * optimum, (seed, sol.x)
        assert sol.info["calibration"]["moved"], seed


def test_auto_code_names_its_declared_search_only_where_a_problem_declares():
    from acfs_cli.methods.registry import get_method
    from acfs_cli.problems import get_problem

    auto = get_method("auto")
    assert auto.code_for(get_problem("dgp1")) == auto.code == "version 15"
    assert auto.code_for(get_problem("service-newsvendor")) == "version 5, under declarations 9"
    assert auto.code_for(get_problem("fleet-pricing")) == "version 5, under declarations 9"


ARCS = 8


class Arcs:
    """Eight positive means on (0.01, 100), four decades: pay 1/x_i for each and the
    exponential lengths' total x . E; the total of another draw's lengths must average at most
    4. Exact: J = sum(1/x_i + x_i), the constraint sum(x) <= 4, the optimum x_i = 1/2 with
    J* = 20. The start x_i = 8 is sixteen times the optimum's scale."""

    dim_x, dim_w = ARCS, 2 * ARCS
    bounds = [(0.01, 100.0)] * ARCS
    x0 = [8.0] * ARCS
    stochastic_constraints = [{"name": "length"}]

    def transform(self, x, z):
        return -np.log(stats.norm.sf(z))  # exponential(1)

    def cost(self, W, x):
        return np.sum(1.0 / x) + W[:, :ARCS] @ x

    def constraint_values(self, W, x):
        return W[:, ARCS:] @ x - ARCS / 2


def test_a_range_of_decades_is_searched_in_factors_and_ends_near_the_optimum():
    """At 20,000 draws every answer keeps the constraint by the exact law and the median of
    8 seeds is within 2 % of J*. Measured over 24 seeds: 0.7 % median, 3.5 % worst, every
    answer at least 0.0096 inside the bound; in plain steps of x0 the same 8 seeds ended at a
    median of 5.0 %, one 18 % above."""
    gaps = []
    for seed in range(8):
        sol = minimize(Arcs(), lam=0.0, budget=20_000, method="auto", seed=seed, n_eval=2_000)
        assert np.sum(sol.x) <= ARCS / 2, (seed, sol.x)
        gaps.append(np.sum(1 / sol.x + sol.x) / (2.5 * ARCS) - 1)
    assert np.median(gaps) <= 0.02, gaps
    assert max(gaps) <= 0.06, gaps


class ArcsWithGradients(Arcs):
    """The same, with the simulator's pathwise gradients of the cost and of the constraint."""

    def gradient(self, W, x):
        return -1.0 / x**2 + W[:, :ARCS]

    def constraint_gradient(self, W, x):
        return W[:, None, ARCS:]


@pytest.mark.parametrize(("budget", "median", "worst"), [(1_000, 0.06, 0.09),
                                                         (20_000, 0.01, 0.015)])
def test_with_the_simulators_gradients_slsqp_keeps_the_constraint_and_nears_the_optimum(
        budget, median, worst):
    """SLSQP steps on the samples' gradients of J and of the level, and the calibration
    moves along them: every answer keeps the constraint by the exact law. Measured on these 8
    seeds: 4.5 / 5.8 % at 1,000 draws (COBYQA without the gradients: 724 / 1472 %), 0.73 /
    0.97 % at 20,000 (COBYQA 0.62 / 0.96); under declarations 5, whose calibration kept two
    standard errors of its draws along the gradients and none for their own error, 2.8 / 4.1
    and 0.47 / 0.73 %. The bounds are 1.3-1.5 times those."""
    gaps = []
    for seed in range(8):
        sol = minimize(ArcsWithGradients(), lam=0.0, budget=budget, seed=seed, n_eval=2_000)
        assert "SLSQP with the simulator's gradients" in sol.info["plan"]
        assert sol.draws_used <= budget
        assert np.sum(sol.x) <= ARCS / 2, (seed, sol.x)
        gaps.append(np.sum(1 / sol.x + sol.x) / (2.5 * ARCS) - 1)
    assert np.median(gaps) <= median, gaps
    assert max(gaps) <= worst, gaps


def test_relative_units_are_kept_for_positive_ranges_of_more_than_two_decades():
    from acfs_cli.methods.auto_declared import relative

    lo = np.array([0.01, 0.0, 3.0, 1.0, 1e-3])
    hi = np.array([100.0, 100.0, 12.0, np.inf, 0.2])
    assert relative(lo, hi, np.array([8.0, 8.0, 5.0, 2.0, 0.01])).tolist() == [
        True, False, False, True, True]


def test_a_budget_below_n0_rows_a_sample_still_searches_whole_numbers_on_fewer():
    """100 draws cannot hold n0 = 20 rows at d + 2 points; samples of a pair of rows can, and
    the whole-number optimum (7, 2, 0) of the Staff toy (exact: (x0 - 7.3)^2 + (x1 - 2)^2 +
    10 x2) is found in every seed; before, the answer was x0 (J 24.3 against 0.09)."""
    for seed in range(4):
        sol = minimize(Staff(), lam=0.0, budget=100, seed=seed, n_eval=500)
        assert sol.x.tolist() == [7.0, 2.0, 0.0], (seed, sol.x)
        assert sol.draws_used <= 100


class Bowl:
    """Four whole decisions and a bowl, min at (1, 2, 3, 4), plus noise of one of three kinds:
    the same for every decision (it cancels on common rows, as SimOpt's EXAMPLE-2's),
    small and scaling with the distance from the centre (20 rows resolve neighbours), or
    loud beside a shallow bowl and changing with the first decision (they do not)."""

    dim_x, dim_w = 4, 1
    bounds = [(-50, 50)] * 4
    integrality = [1, 1, 1, 1]
    x0 = [0, 0, 0, 0]

    def __init__(self, noise: str):
        self.noise = noise

    def transform(self, x, z):
        return z

    def cost(self, W, x):
        bowl = float(np.sum((np.asarray(x) - np.arange(1, 5)) ** 2))
        if self.noise == "same":
            return bowl + W[:, 0]
        if self.noise == "small":
            return bowl + (0.2 * np.sqrt(bowl) + 1.0) * W[:, 0]
        return 0.05 * bowl + (3.0 + x[0]) * W[:, 0]


def test_whole_numbers_a_sample_resolves_keep_their_rows_and_reach_the_optimum():
    """Where the sample tells its best point from its neighbours (or shows the differences
    exact), a larger sample would rank them the same: the epochs keep their rows and spend
    the draws on steps, so 100 draws (samples of two rows) walk from x0 to (1, 2, 3, 4).
    Where the noise sets the ranking, a second epoch on a larger new sample follows a capped
    first, to correct its sample's optimum."""
    for seed in range(3):
        for noise in ("same", "small"):
            for budget in (100, 1_000):
                sol = minimize(Bowl(noise), lam=0.0, budget=budget, seed=seed)
                assert sol.x.tolist() == [1.0, 2.0, 3.0, 4.0], (noise, seed, budget, sol.x)
                rows = [e["rows"] for e in sol.info["epochs"]]
                assert len(rows) >= 2 and len(set(rows)) == 1, rows
                assert sol.draws_used <= budget
        loud = minimize(Bowl("loud"), lam=0.0, budget=1_000, seed=seed)
        rows = [e["rows"] for e in loud.info["epochs"]]
        assert len(rows) >= 2 and rows[1] > rows[0], rows


def test_a_sample_resolves_its_best_point_only_where_the_noise_allows():
    """``resolved`` by hand: the best of a few points on 40 common rows, against their
    paired differences' standard errors (independent of the search)."""
    from acfs_cli.core.task import Task
    from acfs_cli.methods.auto_declared import SampleProblem, resolved

    z = np.random.default_rng(3).normal(size=40)

    def sample_problem(noise):
        task = Task.from_problem(Bowl(noise), lam=0.0, alpha=0.9)
        sp = SampleProblem.__new__(SampleProblem)
        sp.points, sp.costs = [], []
        for x in ([1, 2, 3, 4], [2, 2, 3, 4], [1, 3, 3, 4], [0, 2, 3, 4]):
            x = np.array(x, dtype=float)
            sp.points.append((x, 0.0, np.zeros(0)))
            sp.costs.append(np.asarray(task.cost(z[:, None], x), dtype=float))
        return task, sp

    for noise, expected in (("same", True), ("small", True), ("loud", False)):
        task, sp = sample_problem(noise)
        assert resolved(task, sp, np.array([1.0, 2.0, 3.0, 4.0])) is expected, noise
