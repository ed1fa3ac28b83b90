"""Every registered method obeys the rules of the oracle (DESIGN.md sections 3-4).

Parametrised over the whole registry (``acfs_cli.methods.METHODS``), variants included,
each with small settings so a run takes a fraction of a second; a method registered later
without an entry in :data:`SMALL` runs at its defaults under :data:`FALLBACK_BUDGET` (SimOpt's
solvers, which have no small settings, under :data:`SIMOPT_BUDGET`). For each:

* the chosen x* is feasible and the budget is never exceeded, also with a budget below
  the method's plan and with one too small for anything;
* the method never reaches the DGP around the oracle: the true problem is wrapped in a spy
  that counts every scenario row it generates, and after the run the count equals
  ``oracle.used``;
* the same seed gives the same x*;
* a method stopped by the budget returns the oracle's recorded incumbent;
* unknown settings keys are rejected before anything is drawn.
"""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.methods.base import BudgetTooSmall
from acfs_cli.methods.registry import METHODS
from acfs_cli.problems import feasible, get_problem

LAM, ALPHA = 0.7, 0.95
BUDGET = 260_000
FALLBACK_BUDGET = 20_000
SIMOPT_BUDGET = 5_000

_ACFS_SMALL = dict(n_a=150, n_b=60, cem_iters=2, cem_pop=10, cem_draws=40, de_iters=5,
                   de_pop=20, pool_safety=10, pool_basin=10, keep1=12, keep2=6, n_d=60,
                   n_starts=3, maxiter=5, n_trees=10, n_f=200, pathwise_n=30)

#: Small settings per method name (ACFS variants share the parent's).
SMALL: dict[str, dict] = {
    "acfs": _ACFS_SMALL,
    "gp-bo": dict(n_init=6, n_iter=4, n_mc=30, n_points=200, polish_n=30,
                  polish_draws=2_000, polish_maxiter=5),
    "cem-so": dict(n_iter=3, population=10, n_mc=30, polish_n=40, polish_draws=2_000,
                   polish_maxiter=5),
    "sgd-cvar": dict(batch=20, warm_iters=5, fine_iters=5, n_select=50, polish_n=20,
                     polish_maxiter=3),
    "kde-so": dict(n_train=300, n_c=30, de_maxiter=5, de_popsize=10, n_starts=2,
                   polish_maxiter=5),
}


def small_settings(name: str) -> dict:
    method = METHODS[name]
    base = SMALL.get(name) or SMALL.get(name.split("-")[0]) or {}
    return {k: v for k, v in base.items() if k not in method.fixed}


def budget_for(name: str) -> int:
    if name.startswith("simopt-"):
        return SIMOPT_BUDGET
    return BUDGET if (name in SMALL or name.split("-")[0] in SMALL) else FALLBACK_BUDGET


class Spy:
    """The true problem behind a counter: every scenario row generated is counted.

    The oracle reaches the problem through ``transform``, ``transform_batch`` and
    ``sample``; so would a method that got hold of the problem (for example through
    ``task.cost.__self__``). Known parts (cost, projection, design) are delegated as bound
    methods of the spy, so that route leads here too.
    """

    def __init__(self, problem):
        self._p = problem
        self.name, self.dim_x, self.dim_w = problem.name, problem.dim_x, problem.dim_w
        self.rows = 0
        self.decisions: list[np.ndarray] = []

    def transform(self, x, z):
        self.rows += np.shape(z)[0]
        self.decisions.append(np.atleast_2d(np.array(x, dtype=float)))
        return self._p.transform(x, z)

    def transform_batch(self, X, Z):
        self.rows += np.shape(Z)[0] * np.shape(Z)[1]
        self.decisions.append(np.array(X, dtype=float))
        return self._p.transform_batch(X, Z)

    def sample(self, x, n, rng):
        return self.transform(x, rng.standard_normal((n, self.dim_w)))

    def sample_batch(self, X, n_each, rng):
        X = np.atleast_2d(X)
        return self.transform_batch(X, rng.standard_normal((X.shape[0], n_each, self.dim_w)))

    def cost(self, W, x):
        return self._p.cost(W, x)

    def project(self, x):
        return self._p.project(x)

    def design(self, u):
        return self._p.design(u)

    def is_feasible(self, x, tol=feasible.FEAS_TOL):
        return feasible.is_feasible(x, tol)


def run(name: str, *, budget: int | None = None, seed: int = 0, dgp: str = "dgp1",
        settings: dict | None = None):
    spy = Spy(get_problem(dgp))
    task = Task.from_problem(spy, LAM, ALPHA)
    oracle = Oracle(spy, budget or budget_for(name), np.random.default_rng([seed, 1]))
    settings = small_settings(name) if settings is None else settings
    result = METHODS[name](task, oracle, np.random.default_rng([seed, 2]), settings)
    return spy, oracle, result


_FULL: dict[tuple[str, str], tuple] = {}


def full_run(name: str, dgp: str = "dgp1"):
    """One run per (method, dgp) with the small settings and the full budget, shared."""
    if (name, dgp) not in _FULL:
        _FULL[(name, dgp)] = run(name, dgp=dgp)
    return _FULL[(name, dgp)]


#: Every method that searches dgp1 and dgp2 (6 continuous coordinates, no stochastic
#: constraints); one built only for declared problems refuses them in one line (SimOpt's
#: FCSA and DASSO: tests/methods/test_simopt_declared_solvers.py holds them to these rules).
NAMES = sorted(name for name in METHODS if METHODS[name].refusal("dgp1", [False] * 6) is None)
REFUSING = sorted(set(METHODS) - set(NAMES))


def test_registry_holds_the_papers_methods():
    for name in ("acfs", "gp-bo", "cem-so", "sgd-cvar", "kde-so"):
        assert name in METHODS and METHODS[name].name == name


@pytest.mark.parametrize("name", REFUSING)
def test_a_method_built_for_declared_problems_refuses_the_benchmark_in_one_line(name):
    said = METHODS[name].refusal("dgp1", [False] * 6)
    assert said and "\n" not in said and said.startswith(f"method {name!r}")
    with pytest.raises(ValueError, match="problem 'dgp1'"):
        run(name)


@pytest.mark.parametrize("dgp", ["dgp1", "dgp2"])
@pytest.mark.parametrize("name", NAMES)
def test_method_returns_a_feasible_x_and_draws_only_through_the_oracle(name, dgp):
    spy, oracle, result = full_run(name, dgp)
    x = np.asarray(result.x)
    assert x.shape == (6,) and np.all(np.isfinite(x))
    assert feasible.is_feasible(x)
    assert spy.rows == oracle.used == result.oracle_draws <= oracle.budget
    assert sum(a["draws"] for a in result.account.values()) == oracle.used
    for X in spy.decisions:
        assert feasible.is_feasible(X).all()


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_gives_the_same_x(name):
    _, _, first = full_run(name)
    _, oracle, again = run(name)
    np.testing.assert_array_equal(first.x, again.x)
    assert oracle.used == first.oracle_draws


@pytest.mark.parametrize("name", NAMES)
def test_budget_below_the_plan_is_never_exceeded_and_a_stop_returns_the_incumbent(name):
    _, _, full = full_run(name)
    budget = full.oracle_draws // 2
    spy, oracle, result = run(name, budget=budget)
    assert spy.rows == oracle.used <= budget
    assert feasible.is_feasible(result.x)
    # A method may also fit its plan to the budget (a smaller design) and finish normally;
    # one that the cap stops must hand back what it recorded as its incumbent.
    if result.stopped_by_budget:
        incumbent = oracle.incumbent
        assert incumbent is not None
        np.testing.assert_array_equal(result.x, incumbent[0])
        assert result.value == pytest.approx(incumbent[1])


@pytest.mark.parametrize("budget", [3_000, 200])
@pytest.mark.parametrize("name", NAMES)
def test_budget_too_small_for_the_plan_is_never_exceeded(name, budget):
    need = METHODS[name].minimum_budget(6, small_settings(name))
    if budget < need:  # refused before anything is drawn, naming the minimum
        with pytest.raises(BudgetTooSmall, match=f"at least {need:,} draws"):
            run(name, budget=budget)
        return
    spy, oracle, result = run(name, budget=budget)
    assert spy.rows == oracle.used <= budget
    assert feasible.is_feasible(result.x)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_unknown_settings_are_rejected_before_any_draw(name):
    method = METHODS[name]
    with pytest.raises(ValueError, match="no_such_parameter"):
        method.settings({"no_such_parameter": 1})
    with pytest.raises(ValidationError):
        method.settings_model(no_such_parameter=1)
    spy = Spy(get_problem("dgp1"))
    oracle = Oracle(spy, 1_000, np.random.default_rng(0))
    with pytest.raises(ValueError, match="no_such_parameter"):
        method(Task.from_problem(spy, LAM, ALPHA), oracle, np.random.default_rng(1),
               {"no_such_parameter": 1})
    assert oracle.used == 0 and spy.rows == 0


@pytest.mark.parametrize("name", sorted(METHODS))
def test_default_settings_are_valid_and_small_overrides_are_known(name):
    method = METHODS[name]
    params = method.parameters()
    assert set(small_settings(name)) <= set(params)
    method.settings(small_settings(name))


def _boundaries(name: str) -> list[int]:
    """Draws at the end of each phase of a full run, in the order the phases ran."""
    _, _, full = full_run(name, "dgp2")
    ends, total = [], 0
    for acc in full.account.values():
        total += acc["draws"]
        ends.append(total)
    return ends


@pytest.mark.parametrize("name", NAMES)
def test_a_budget_at_every_phase_boundary_is_exact_and_a_stop_returns_the_incumbent(name):
    need = METHODS[name].minimum_budget(6, small_settings(name))
    budgets = sorted({b + d for b in _boundaries(name) for d in (-1, 0, 1)
                      if b + d >= max(need, 1)})
    for budget in budgets:
        try:
            spy, oracle, result = run(name, budget=budget, dgp="dgp2")
        except RuntimeError as exc:
            # only a budget below one evaluation's draws may stop before any incumbent
            assert "before any incumbent" in str(exc) and budget < 1_000, budget
            continue
        assert spy.rows == oracle.used == result.oracle_draws <= budget, budget
        assert feasible.is_feasible(result.x)
        if result.stopped_by_budget:
            x, value = oracle.incumbent
            np.testing.assert_array_equal(result.x, x)
            assert result.value == value
