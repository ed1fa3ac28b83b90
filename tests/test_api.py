"""The user entry point ``minimize`` on simulators defined here, with known optima.

Optima come from closed forms; projections are checked against scipy's SLSQP.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.stats import norm

from acfs_cli.api import Solution, minimize
from acfs_cli.problems import get_problem
from acfs_cli.problems.feasible import is_feasible

LAM, ALPHA = 0.7, 0.95
K_ALPHA = norm.pdf(norm.ppf(ALPHA)) / (1 - ALPHA)  # CVaR of N(0, 1) at ALPHA

FAST = dict(n_a=300, n_b=60, cem_iters=3, cem_pop=12, cem_draws=100, de_iters=10, de_pop=20,
            pool_safety=10, pool_basin=10, keep1=12, keep2=6, n_d=200, n_starts=3, maxiter=20,
            n_trees=10, n_f=200, min_leaf=10)


class Shifted:
    """W | x ~ N(0, s(x)^2), s = 0.2 + 0.1 x_1; C = q(x) + W, q = (x_1 - .3)^2 + (x_2 - .6)^2.

    Plain one-decision ``transform`` and ``cost``; X = [0, 1]^2 with x_1 + x_2 <= 0.8, which
    cuts off the unconstrained optimum, so the optimum lies on the constraint's face.
    """

    dim_x, dim_w = 2, 1
    bounds = [(0.0, 1.0), (0.0, 1.0)]
    A, b = np.array([[1.0, 1.0]]), np.array([0.8])

    def transform(self, x, z):
        return (0.2 + 0.1 * x[0]) * z

    def cost(self, W, x):
        return (x[0] - 0.3) ** 2 + (x[1] - 0.6) ** 2 + W[:, 0]

    @staticmethod
    def J(x):
        q = (x[0] - 0.3) ** 2 + (x[1] - 0.6) ** 2
        return (1 + LAM) * q + LAM * K_ALPHA * (0.2 + 0.1 * x[0])

    @staticmethod
    def optimum():
        # KKT on x_1 + x_2 = 0.8: 2 (1 + lam) (x_1 - x_2 + 0.3) + 0.1 lam k = 0
        d = 0.3 + 0.1 * LAM * K_ALPHA / (2 * (1 + LAM))
        return np.array([(0.8 - d) / 2, (0.8 + d) / 2])


class Exponential:
    """Only ``sample`` and ``bounds``: W | x ~ Exp(scale 0.5 + |x - c|^2), C = W + |x - c|^2.

    J = theta(x) (1 + lam (1 - log(1 - alpha))) + (1 + lam) |x - c|^2, minimised at c.
    """

    dim_x, dim_w = 3, 1
    bounds = [(0.0, 1.0)] * 3
    c = np.array([0.4, 0.7, 0.2])

    def sample(self, x, n, rng):
        return rng.exponential(0.5 + np.sum((x - self.c) ** 2), size=(n, 1))

    def cost(self, W, x):
        return W[:, 0] + np.sum((x - self.c) ** 2)

    @classmethod
    def J(cls, x):
        d2 = np.sum((np.asarray(x) - cls.c) ** 2)
        return (0.5 + d2) * (1 + LAM * (1 - np.log(1 - ALPHA))) + (1 + LAM) * d2


def test_minimize_reaches_a_constrained_optimum_known_in_closed_form():
    sol = minimize(Shifted(), lam=LAM, alpha=ALPHA, budget=60_000, seed=2, method="acfs",
                   **FAST)
    assert isinstance(sol, Solution) and sol.method == "acfs"
    x_star = Shifted.optimum()
    assert sol.x @ Shifted.A[0] <= 0.8 + 1e-9 and np.all((sol.x >= 0) & (sol.x <= 1))
    assert np.linalg.norm(sol.x - x_star) < 0.1
    assert Shifted.J(sol.x) <= 1.02 * Shifted.J(x_star)
    # the reported J is an unbiased large-sample estimate at x*, outside the budget
    assert sol.n_eval == 20_000 and sol.draws_used <= 60_000
    assert abs(sol.J - Shifted.J(sol.x)) < 4 * sol.J_se
    assert sol.EC == pytest.approx((sol.x[0] - 0.3) ** 2 + (sol.x[1] - 0.6) ** 2, abs=0.01)
    assert sum(p["draws"] for p in sol.phases.values()) == sol.draws_used
    assert {"lhd", "cem", "augment", "stage2", "phase4"} <= set(sol.phases)


def test_minimize_with_only_sample_and_bounds():
    sol = minimize(Exponential(), lam=LAM, alpha=ALPHA, budget=60_000, seed=0, method="acfs",
                   **FAST)
    # no common random numbers without transform: a looser neighbourhood (8 seeds: at most
    # 0.14 away and 5.5 % above J*; a uniform random decision is about 110 % above)
    assert np.linalg.norm(sol.x - Exponential.c) < 0.2
    assert Exponential.J(sol.x) <= 1.08 * Exponential.J(Exponential.c)
    assert abs(sol.J - Exponential.J(sol.x)) < 4 * sol.J_se
    # the pathwise gradient becomes finite differences on re-seeded common samples, said so;
    # ACFS's own antithetic pairs (its default, not asked for) go without a word
    sol = minimize(Exponential(), budget=60_000, method="acfs", gradient="pathwise", **FAST)
    assert any("pathwise" in note for note in sol.notes)
    assert not any("antithetic" in note for note in sol.notes)


class Quadratic12:
    """12 decisions, W ~ N(x, 1): J = |x - c|^2 + lam * CVaR of a shifted normal."""

    dim_x, dim_w = 12, 1
    bounds = [(-1.0, 1.0)] * 12

    def transform(self, x, z):
        return z + x.sum()

    def cost(self, W, x):
        return W[:, 0] - x.sum() + np.sum((x - 0.3) ** 2)


def test_minimize_default_runs_astro_in_epochs_and_compares_their_answers_and_says_so():
    # 2 dimensions, 20,000 draws: two epochs on independent samples, then a final comparison
    # on the tenth of the budget kept for it and what the epochs left
    sol = minimize(Shifted(), budget=20_000, seed=5)
    assert sol.method == "auto" and sol.info["chosen"] == "astro"
    assert len(sol.info["epochs"]) >= 2 and sol.draws_used <= 20_000
    epochs = sum(e["draws"] for e in sol.info["epochs"])
    assert 1_900 <= sol.phases["final"]["draws"] == sol.draws_used - epochs
    assert any(n.startswith("auto ran astro in") for n in sol.notes)
    assert Shifted.J(sol.x) <= Shifted.J(Shifted.optimum()) + 0.002  # J* = 0.33
    sol = minimize(Exponential(), budget=20_000, seed=5)  # sample-only: the same plan
    assert len(sol.info["epochs"]) >= 2 and sol.draws_used <= 20_000
    # 12 dimensions, 10,000 draws: a first epoch (3,000) could not hold eight models of 26
    # points on 20 rows, and one astro search would buy few of them: COBYQA's epochs on
    # sample averages, every draw spent
    sol = minimize(Quadratic12(), budget=10_000, seed=5, n_eval=2_000)
    k = len(sol.info["final_candidates"])  # the final check's rounding: an even share each
    assert sol.info["chosen"] == "COBYQA" and 10_000 - 2 * k < sol.draws_used <= 10_000
    assert any(n.startswith("auto ran COBYQA in") for n in sol.notes)
    assert np.abs(sol.x - 0.3).max() < 0.1  # the cost's quadratic part alone varies with x


@pytest.mark.parametrize("shape", [Shifted, Quadratic12])
def test_minimize_answers_every_budget_from_ten_draws_per_dimension(shape):
    problem = shape()
    sol = minimize(problem, budget=10 * problem.dim_x, seed=1, n_eval=500)
    # ten draws per dimension hold no COBYQA epoch (its first model alone takes 2 d + 1
    # evaluations): one astro search, in any dimension
    assert sol.draws_used <= 10 * problem.dim_x and sol.info["plan"].startswith("one search")
    assert np.all(np.isfinite(sol.x))


def test_minimize_same_seed_same_solution_and_frozen_result():
    a = minimize(Shifted(), budget=20_000, seed=5, method="acfs", **FAST)
    b = minimize(Shifted(), budget=20_000, seed=5, method="acfs", **FAST)
    assert np.array_equal(a.x, b.x) and a.J == b.J and a.draws_used == b.draws_used
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.J = 0.0


def test_seed_none_draws_fresh_entropy_and_the_recorded_seed_repeats_the_run_exactly():
    a = minimize(Shifted(), budget=2_000, seed=None, n_eval=500)
    b = minimize(Shifted(), budget=2_000, seed=None, n_eval=500)
    assert a.seed != b.seed  # two draws of 63 bits
    assert 0 <= a.seed < 2**63
    again = minimize(Shifted(), budget=2_000, seed=a.seed, n_eval=500)
    assert again.seed == a.seed
    assert np.array_equal(again.x, a.x) and again.J == a.J and again.trajectory[-1][0] == (
        a.trajectory[-1][0])
    assert minimize(Shifted(), budget=2_000, seed=7, n_eval=500).seed == 7
    drawn = minimize(Shifted(), budget=2_000, seed=np.random.default_rng(3), n_eval=500).seed
    assert drawn == int(np.random.default_rng(3).integers(2**63 - 1, endpoint=True))


def test_n_eval_below_the_tail_minimum_is_taken_at_lam_0_and_refused_where_the_tail_counts():
    sol = minimize(Shifted(), lam=0.0, budget=2_000, seed=1, n_eval=20)
    assert sol.n_eval == 20 and sol.J == sol.EC
    # J = E[C] = q(x*) (E[W] = 0), estimated on 20 scenarios: the SE is s(x*) / sqrt(20)
    x = sol.x
    spread = 0.2 + 0.1 * x[0]
    assert sol.J_se == pytest.approx(spread / np.sqrt(20), rel=0.5)
    assert abs(sol.J - ((x[0] - 0.3) ** 2 + (x[1] - 0.6) ** 2)) < 4 * spread / np.sqrt(20)
    with pytest.raises(ValueError, match="n_eval must be at least 200 at alpha 0.95"):
        minimize(Shifted(), lam=0.1, budget=2_000, n_eval=20)
    with pytest.raises(ValueError, match="n_eval must be at least 1"):
        minimize(Shifted(), lam=0.0, budget=2_000, n_eval=0)


def test_minimize_runs_a_benchmark_and_rejects_unknown_names():
    sol = minimize(get_problem("dgp2"), budget=5_000, seed=0, n_eval=2_000, method="acfs",
                   **FAST)
    assert sol.draws_used <= 5_000
    assert is_feasible(sol.x)
    with pytest.raises(ValueError, match="no parameter"):
        minimize(Shifted(), budget=5_000, not_a_setting=1)
    with pytest.raises(ValueError, match="unknown method"):
        minimize(Shifted(), budget=5_000, method="no-such-method")


def test_kde_so_runs_on_a_user_decision_set_with_its_own_bounds():
    sol = minimize(Shifted(), lam=LAM, alpha=ALPHA, budget=60_000, seed=3, method="kde-so",
                   n_train=400, de_maxiter=10, de_popsize=20, n_starts=2, polish_maxiter=10,
                   scale_with_budget=False)
    assert sol.draws_used == 400
    assert sol.x @ Shifted.A[0] <= 0.8 + 1e-9 and np.all((sol.x >= 0) & (sol.x <= 1))


@pytest.mark.parametrize("method, over", [
    ("saa-ps", {}),
    ("acfs-plus", FAST),
])
def test_pattern_searches_follow_a_user_constraint_face_to_the_optimum(method, over):
    # The optimum lies on the face x_1 + x_2 = 0.8 of a user's X, known to the search only
    # through the projection and the bounds.
    sol = minimize(Shifted(), lam=LAM, alpha=ALPHA, budget=60_000, seed=0, method=method, **over)
    x_star = Shifted.optimum()
    assert sol.draws_used <= 60_000
    assert sol.x @ Shifted.A[0] <= 0.8 + 1e-9 and np.all((sol.x >= 0) & (sol.x <= 1))
    assert np.linalg.norm(sol.x - x_star) < 0.05
    assert Shifted.J(sol.x) <= 1.01 * Shifted.J(x_star)


@pytest.mark.parametrize("method", ["gp-bo", "cem-so", "sgd-cvar"])
def test_competitors_follow_a_user_constraint_face_to_the_optimum(method):
    # Their polishes and Adam steps see the slope along the face x_1 + x_2 = 0.8 through the
    # projected-gradient map, and their difference stencils transfer along it.
    sol = minimize(Shifted(), lam=LAM, alpha=ALPHA, budget=60_000, seed=0, method=method)
    x_star = Shifted.optimum()
    assert sol.draws_used <= 60_000
    assert sol.x @ Shifted.A[0] <= 0.8 + 1e-9 and np.all((sol.x >= 0) & (sol.x <= 1))
    assert np.linalg.norm(sol.x - x_star) < 0.03
    assert Shifted.J(sol.x) <= 1.005 * Shifted.J(x_star)


def test_task_box_is_the_users_own_box_and_contains_x():
    from acfs_cli.core.problem import as_problem
    from acfs_cli.core.task import Task

    lo, hi = Task.from_problem(as_problem(Shifted()), LAM, ALPHA).box()
    np.testing.assert_array_equal(lo, [0.0, 0.0])
    np.testing.assert_array_equal(hi, [1.0, 1.0])


# -- callback, progress, Solution, plot_convergence ------------------------------------------
def _has_simopt() -> bool:
    import importlib.util

    return importlib.util.find_spec("simopt") is not None


_SIMOPT = pytest.mark.skipif(not _has_simopt(), reason="the simopt extra is not installed")
OBSERVED = [
    ("saa-ps", {}), ("astro", {}), ("sgd-cvar", {}), ("acfs", FAST),
    pytest.param("simopt-astrodf", {}, marks=_SIMOPT),
    pytest.param("simopt-spsa", {}, marks=_SIMOPT),
]


def _last_per_draw_count(seen):
    last = {}
    for inc in seen:
        last[inc.draws_used] = (inc.x, inc.value)
    return last


@pytest.mark.parametrize("method, over", OBSERVED)
def test_a_callback_that_never_stops_sees_every_incumbent_and_changes_nothing(method, over):
    budget = 5_000 if method.startswith("simopt") else 20_000
    plain = minimize(Shifted(), budget=budget, seed=3, method=method, n_eval=2_000, **over)
    seen = []
    watched = minimize(Shifted(), budget=budget, seed=3, method=method, n_eval=2_000,
                       callback=seen.append, **over)
    assert np.array_equal(plain.x, watched.x) and plain.J == watched.J
    assert plain.draws_used == watched.draws_used and plain.stop_reason == watched.stop_reason
    assert seen and all(inc.budget == budget for inc in seen)
    assert [inc.draws_used for inc in seen] == sorted(inc.draws_used for inc in seen)
    # the trajectory keeps the last incumbent of each count of draws, the callback saw them all
    last = _last_per_draw_count(seen)
    assert [d for d, _, _ in watched.trajectory] == list(last)
    for d, x, v in watched.trajectory:
        assert np.array_equal(last[d][0], x) and (last[d][1] == v or np.isnan(v))


@pytest.mark.parametrize("method, over", OBSERVED)
def test_a_callback_stops_the_search_at_the_incumbent_it_was_shown(method, over):
    budget = 5_000 if method.startswith("simopt") else 20_000
    seen = []
    minimize(Shifted(), budget=budget, seed=3, method=method, n_eval=2_000,
             callback=seen.append, **over)
    target = seen[len(seen) // 2]
    shown = []

    def enough(inc):
        shown.append(inc)
        return inc.draws_used >= target.draws_used

    sol = minimize(Shifted(), budget=budget, seed=3, method=method, n_eval=2_000,
                   callback=enough, **over)
    assert sol.stop_reason == "callback" and not sol.stopped_by_budget
    assert sol.draws_used == shown[-1].draws_used == target.draws_used
    assert np.array_equal(sol.x, shown[-1].x) and np.array_equal(sol.x, target.x)
    assert sol.trajectory[-1][0] == target.draws_used


def test_invalid_callback_and_progress_are_refused_in_one_line():
    with pytest.raises(TypeError, match="callback must be a function") as err:
        minimize(Shifted(), budget=2_000, callback=3)
    assert "\n" not in str(err.value)
    for bad in ("yes", 1, None):
        with pytest.raises(ValueError, match="progress must be True, False or 'always'") as err:
            minimize(Shifted(), budget=2_000, progress=bad)
        assert "\n" not in str(err.value)


class _Stream:
    """A stderr that says whether it is a terminal."""

    def __init__(self, tty: bool):
        import io

        self.buffer, self.tty = io.StringIO(), tty

    def write(self, text):
        return self.buffer.write(text)

    def flush(self):
        pass

    def isatty(self):
        return self.tty


@pytest.mark.parametrize("tty, progress, shown", [
    (False, True, False), (True, True, True), (False, "always", True), (True, False, False),
])
def test_the_progress_bar_shows_on_a_terminal_or_when_forced(monkeypatch, tty, progress, shown):
    import sys

    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    stream = _Stream(tty)
    monkeypatch.setattr(sys, "stderr", stream)
    sol = minimize(Shifted(), budget=20_000, seed=3, method="saa-ps", n_eval=2_000,
                   progress=progress)
    text = stream.buffer.getvalue()
    assert ("draws" in text) == shown
    if shown:
        assert f"{sol.draws_used:,}/20,000 draws" in text and "incumbent" in text


@pytest.mark.parametrize("method, over", [("saa-ps", {}), ("astro", {}), ("sgd-cvar", {}),
                                          ("cem-so", {}), ("acfs", FAST), ("auto", {})])
def test_every_phase_of_a_method_has_a_wall_time(method, over):
    sol = minimize(Shifted(), budget=20_000, seed=3, method=method, n_eval=2_000, **over)
    assert sol.phases
    for name, phase in sol.phases.items():
        assert np.isfinite(phase["time_s"]) and phase["time_s"] >= 0, (name, phase)
    assert sum(p["draws"] for p in sol.phases.values()) == sol.draws_used
    assert np.isfinite(sol.wall_s) and sol.wall_s > 0


def test_solution_documents_every_field_and_its_interval_is_1_96_se_wide():
    doc = Solution.__doc__
    assert "Attributes\n    ----------" in doc
    for f in dataclasses.fields(Solution):
        assert f"\n    {f.name} : " in doc, f.name
    sol = minimize(Shifted(), budget=20_000, seed=3, method="saa-ps", n_eval=2_000)
    assert sol.J_lo == pytest.approx(sol.J - 1.96 * sol.J_se)
    assert sol.J_hi == pytest.approx(sol.J + 1.96 * sol.J_se)
    assert sol.J_lo < sol.J < sol.J_hi and sol.budget == 20_000
    assert all(isinstance(d, int) and x.shape == (2,) for d, x, _ in sol.trajectory)


def test_importing_the_api_does_not_import_matplotlib():
    import subprocess
    import sys

    code = "import sys, acfs_cli.api; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_plot_convergence_draws_a_step_line_per_solution_and_one_colour_per_label():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from acfs_cli.api import plot_convergence

    runs = [minimize(Shifted(), budget=20_000, seed=s, method="saa-ps", n_eval=2_000)
            for s in (1, 2)]
    other = minimize(Shifted(), budget=20_000, seed=1, method="astro", n_eval=2_000)
    ax = plot_convergence(("saa-ps", runs), ("astro", other))
    lines = ax.get_lines()
    steps = [line for line in lines if line.get_drawstyle() == "steps-post"]
    assert len(steps) == 3
    for line, sol in zip(steps, [*runs, other], strict=True):
        draws, values = line.get_data()
        n = len(sol.trajectory)  # the last incumbent is held to the draws used
        assert list(draws[:n]) == [d for d, _, _ in sol.trajectory]
        assert draws[-1] == sol.draws_used and len(draws) in (n, n + 1)
        assert np.allclose(values[:len(sol.trajectory)], [v for _, _, v in sol.trajectory],
                           equal_nan=True)
    colours = [matplotlib.colors.to_hex(line.get_color()) for line in steps]
    assert colours[0] == colours[1] != colours[2]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["saa-ps", "astro"]
    # the final J of each run with its interval, in its run's colour
    markers = [line for line in lines if line.get_marker() == "o"]
    assert [m.get_ydata()[0] for m in markers] == [s.J for s in [*runs, other]]
    plt.close(ax.figure)
    ax = plot_convergence(runs[0])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["saa-ps"]
    plt.close(ax.figure)
    with pytest.raises(TypeError, match="plot_convergence takes"):
        plot_convergence(("x", [1, 2]))


def _run(draws: list[int], used: int) -> Solution:
    """A solution whose incumbents were recorded at ``draws``, for the plot alone."""
    return Solution(x=np.zeros(1), J=1.0, EC=1.0, CVaR=1.0, draws_used=used, phases={},
                    method="m", J_lo=0.9, J_hi=1.1,
                    trajectory=tuple((d, np.zeros(1), 2.0 - i / 10) for i, d in enumerate(draws)))


@pytest.mark.parametrize("draws, used, logx, scale", [
    ([20, 120, 7_400], 20_000, None, "log"),     # 20 to 20,000: three decades
    ([0, 20, 120], 20_000, None, "log"),         # an incumbent before any draw is held
    ([400, 900], 1_000, None, "linear"),         # 400 to 1,000: less than a decade
    ([20, 120, 7_400], 20_000, False, "linear"),
    ([400, 900], 1_000, True, "log"),
])
def test_plot_convergence_has_a_log_draws_axis_where_the_draws_span_a_decade(
        draws, used, logx, scale):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from acfs_cli.api import plot_convergence

    ax = plot_convergence(_run(draws, used), logx=logx)
    assert ax.get_xscale() == scale
    plt.close(ax.figure)


def test_plot_convergence_draws_j_star_as_a_dashed_line_in_the_legend():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from acfs_cli.api import plot_convergence

    ax = plot_convergence(_run([20, 120], 2_000), J_star=0.75)
    star = [line for line in ax.get_lines() if line.get_label() == "J*"]
    assert len(star) == 1 and star[0].get_linestyle() == "--"
    assert list(star[0].get_ydata()) == [0.75, 0.75]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["m", "J*"]
    plt.close(ax.figure)
    ax = plot_convergence(_run([20, 120], 2_000))
    assert not [line for line in ax.get_lines() if line.get_label() == "J*"]
    plt.close(ax.figure)


def test_a_negative_and_a_zero_budget_are_refused_with_one_rule():
    # -5 and 0 break the same rule and are told the same rule, from minimize and acfs solve
    from typer.testing import CliRunner

    from acfs_cli.cli import app

    rule = "budget must be a positive integer of at most 1,000,000,000 draws, got "
    for budget in (-5, 0):
        with pytest.raises(ValueError) as caught:
            minimize(Shifted(), budget=budget)
        assert str(caught.value) == f"{rule}{budget}"
        result = CliRunner().invoke(app, ["solve", "dgp1", "--budget", str(budget)])
        assert result.exit_code != 0 and result.stderr == f"error: {rule}{budget}\n"


def test_the_scipy_names_are_aliases_of_the_solutions_own():
    sol = minimize(Shifted(), budget=2_000, seed=1, n_eval=500)
    assert (sol.fun, sol.nfev, sol.message) == (sol.J, sol.draws_used, sol.stop_reason)
    assert sol.success and sol.stop_reason not in ("callback", "timeout")
    cut = minimize(Shifted(), budget=2_000, seed=1, n_eval=500, callback=lambda inc: True)
    assert cut.message == "callback" and not cut.success and np.isfinite(cut.fun)


def test_a_timeout_ends_a_slow_search_early_with_its_incumbent_a_note_and_a_fresh_estimate():
    from sleepers import Sleeper

    # 1 ms a row: the whole budget would sleep 20 s; the search is stopped at the first
    # request after 1 s, and only a request under way (a few hundred rows) may pass it.
    # The bounds are generous: half the budget is 10 s of sleep after the limit.
    problem = Sleeper(pause=0.001)
    sol = minimize(problem, budget=20_000, seed=3, n_eval=500, timeout=1.0)
    assert sol.stop_reason == "timeout" and not sol.success
    assert 0 < sol.draws_used <= 10_000 and not sol.stopped_by_budget
    assert any(n.startswith("stopped by the timeout of 1 s after ") for n in sol.notes)
    # the answer is the last incumbent, in X, with J estimated afresh on n_eval draws
    assert sol.trajectory and np.array_equal(sol.x, sol.trajectory[-1][1])
    assert all(lo <= v <= hi for v, (lo, hi) in zip(sol.x, Sleeper.bounds, strict=True))
    assert sol.n_eval == 500 and np.isfinite(sol.J) and sol.J_lo < sol.J < sol.J_hi
    assert sol.wall_s < 10.0  # a hang guard: the full search would take 20 s of sleep


def test_a_timeout_that_does_not_pass_changes_nothing():
    plain = minimize(Shifted(), budget=2_000, seed=4, n_eval=500)
    timed = minimize(Shifted(), budget=2_000, seed=4, n_eval=500, timeout=3_600)
    np.testing.assert_array_equal(plain.x, timed.x)
    assert (plain.J, plain.draws_used, plain.notes, plain.stop_reason) == (
        timed.J, timed.draws_used, timed.notes, timed.stop_reason)


@pytest.mark.parametrize("timeout", [0, -1.0, float("inf"), float("nan"), True, "5"])
def test_a_timeout_that_is_not_a_positive_number_of_seconds_is_refused_in_one_line(timeout):
    with pytest.raises(ValueError, match=r"^timeout must be a positive number of seconds "
                       r"\(or None\), got "):
        minimize(Shifted(), budget=2_000, timeout=timeout)
