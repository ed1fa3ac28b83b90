"""Every registered method on problems of every shape, through both routes.

The grid route (a cell of a YAML configuration naming the problem by import path, run by
``execute.run_cell``) and the Python route (``minimize``) build the problem with the same
normalisation. On a 2-D problem with ``A x <= b`` whose functions take one decision at a
time, a 3-D problem with its own projection, a 12-D vectorised one and a sample-only
simulator whose use of its stream depends on the decision: the budget is never exceeded,
every row the simulator made was charged, x* is feasible, and the same seed gives the same x*.
"""

from __future__ import annotations

import numpy as np
import pytest
from shapes import SHAPES, Box2Stream

from acfs_cli.api import minimize
from acfs_cli.core.guard import probe
from acfs_cli.core.oracle import PAIRS_REFUSED
from acfs_cli.core.problem import as_problem
from acfs_cli.experiment.cell import run_cell
from acfs_cli.experiment.config import parse
from acfs_cli.experiment.grid import build_cells
from acfs_cli.methods.registry import METHODS

BUDGET = 20_000
#: SimOpt's solvers plan for the budget they get and have no small settings; ASTRO-DF asks
#: for one replication at a time, so a smaller budget keeps the matrix fast.
SIMOPT_BUDGET = 2_000
_ACFS = dict(n_a=150, n_b=40, cem_iters=2, cem_pop=8, cem_draws=40, de_iters=3, de_pop=10,
             pool_safety=5, pool_basin=5, keep1=8, keep2=4, n_d=60, n_starts=2, maxiter=4,
             n_trees=10, n_f=100, pathwise_n=30, scale_with_budget=False)
#: Small settings, so the whole matrix runs in seconds (saa-ps sizes itself from the budget).
SMALL: dict[str, dict] = {
    **{name: _ACFS for name in METHODS if name.startswith("acfs")},
    "gp-bo": dict(n_init=5, n_iter=3, n_mc=30, n_points=100, acq_restarts=1, gp_restarts=0,
                  polish_n=20, polish_draws=2_000, polish_maxiter=3, scale_with_budget=False),
    "cem-so": dict(n_iter=3, population=10, n_mc=30, polish_n=20, polish_draws=2_000,
                   polish_maxiter=3, scale_with_budget=False),
    "sgd-cvar": dict(batch=10, warm_chains=1, warm_iters=5, fine_iters=5, n_select=40,
                     polish_n=20, polish_maxiter=3, scale_with_budget=False),
    "kde-so": dict(n_train=300, n_c=20, de_maxiter=3, de_popsize=6, n_starts=1,
                   polish_maxiter=3),
    "saa-ps": {},
    "astro": {},
    "auto": {},
    **{name: {} for name in METHODS if name.startswith("simopt-")},  # SimOpt's own defaults
}
#: Every method that searches these shapes (continuous, no stochastic constraints); SimOpt's
#: FCSA and DASSO, built for declared problems, refuse them in one line
#: (tests/methods/test_simopt_declared_solvers.py runs them where they apply).
NAMES = sorted(name for name in METHODS if METHODS[name].refusal("shape", [False]) is None)
REFUSING = sorted(set(METHODS) - set(NAMES))


def budget_of(name: str) -> int:
    return SIMOPT_BUDGET if name.startswith("simopt-") else BUDGET


def test_every_registered_method_has_small_settings_here():
    assert set(SMALL) == set(METHODS)


def _feasible(shape: str, x) -> bool:
    return bool(as_problem(SHAPES[shape]()).space.contains(np.asarray(x)))


@pytest.mark.parametrize("name", REFUSING)
def test_a_method_built_for_declared_problems_refuses_a_shape_without_them_in_one_line(name):
    cls = SHAPES["Box2"]
    with pytest.raises(ValueError, match=f"^method {name!r} searches") as caught:
        minimize(cls(), budget=budget_of(name), method=name, seed=3, n_eval=500)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("name", NAMES)
def test_minimize_on_any_shape_counts_every_row_and_repeats_itself(name, shape):
    cls = SHAPES[shape]
    cls.reset()
    probe(as_problem(cls()))
    checks = cls.rows
    cls.reset()
    budget = budget_of(name)
    a = minimize(cls(), budget=budget, method=name, seed=3, n_eval=500, **SMALL[name])
    rows = cls.rows
    b = minimize(cls(), budget=budget, method=name, seed=3, n_eval=500, **SMALL[name])
    # the simulator's rows: the checks before the search, the search, the evaluation
    assert rows - checks - 500 == a.draws_used <= budget
    assert _feasible(shape, a.x) and np.all(np.isfinite(a.x))
    np.testing.assert_array_equal(a.x, b.x)
    assert a.draws_used == b.draws_used


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("name", NAMES)
def test_a_grid_cell_runs_any_shape_named_by_import_path(name, shape):
    config = parse({"name": "shapes", "seed": 4, "budget": budget_of(name), "replications": 1,
                    "final_eval": {"draws": 400, "bootstrap": 0},
                    "grid": {"problem": [f"shapes:{shape}"], "lambda": 0.7, "method": [name]},
                    "methods": {name: SMALL[name]}})
    row = run_cell(build_cells(config)[0])
    assert row["status"] == "ok", row["error"]
    assert 0 < row["oracle_draws"] <= budget_of(name)
    assert row["dim_x"] == SHAPES[shape].dim_x and _feasible(shape, row["x"])
    assert row["problem_kind"] == ("sample-only" if shape == "PoissonQueue" else "transform")


@pytest.mark.parametrize("name", ["cem-so", "kde-so", "gp-bo", "sgd-cvar"])
def test_a_sample_only_copy_runs_without_a_fallback_when_no_pairs_are_asked_for(name):
    # The copy gets its common samples by re-seeding blocks of rows - other random numbers
    # than the transform mode's normals, the same law: for every method that asks for no
    # antithetic pairs (the only request a black box cannot serve) nothing falls back.
    # (the small settings plan fewer draws than the budget: that, and only that, is noted)
    b = minimize(Box2Stream(), budget=BUDGET, method=name, seed=7, n_eval=500, **SMALL[name])
    assert all(" draws left: " in note for note in b.notes)
    assert 0 < b.draws_used <= BUDGET and _feasible("Box2", b.x)


def test_pairs_the_settings_asked_for_on_a_sample_only_simulator_are_noted_and_no_others():
    # saa-ps asks for pairs by design (the methods' table says it runs without them on a
    # black box): nothing to note. cem-so asked by the user's setting: the note says so.
    sol = minimize(Box2Stream(), budget=BUDGET, method="saa-ps", seed=1, n_eval=500)
    assert PAIRS_REFUSED not in sol.notes
    asked = minimize(Box2Stream(), budget=BUDGET, method="cem-so", seed=1, n_eval=500,
                     **SMALL["cem-so"], antithetic=True)
    assert PAIRS_REFUSED in asked.notes
    plain = minimize(Box2Stream(), budget=BUDGET, method="cem-so", seed=1, n_eval=500,
                     **SMALL["cem-so"])
    assert PAIRS_REFUSED not in plain.notes
    np.testing.assert_array_equal(asked.x, plain.x)  # plain samples either way
