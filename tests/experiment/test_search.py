"""The one guarded search of both doors: a grid finds its problems and methods once, its cells
carry them (and travel by name), and minimize and a cell estimate J on fresh draws alike."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest
from conftest import TABLE_X

import acfs_cli.methods.registry as registry
import acfs_cli.problems as problems
from acfs_cli.core.guard import SearchViolation
from acfs_cli.core.risk import influence, spectral_risk
from acfs_cli.experiment.cell import run_cell
from acfs_cli.experiment.config import parse
from acfs_cli.experiment.grid import build_cells
from acfs_cli.experiment.search import Found, Search, estimate, method_of
from acfs_cli.problems import get_problem


def quad_grid(**grid):
    return parse({"name": "quad", "seed": 5, "budget": 600, "replications": 2, "alpha": 0.9,
                  "final_eval": {"draws": 200, "bootstrap": 0},
                  "grid": {"problem": ["hostile:Quad", "dgp2"], "lambda": [0.5, 0.7],
                           "method": ["hostile:HONEST"], **grid}})


def test_a_planned_cell_runs_without_looking_its_problem_or_method_up_again(monkeypatch):
    cells = build_cells(quad_grid())
    assert len({id(c.found) for c in cells}) == 2  # one per problem and method, shared

    def looked_up(*args, **kwargs):
        raise AssertionError("looked up again")

    monkeypatch.setattr(problems, "find_problem", looked_up)
    monkeypatch.setattr(registry, "get_method", looked_up)
    row = run_cell(cells[0])
    assert row["status"] == "ok", row["error"]


def test_what_a_cell_carries_travels_by_name_and_is_found_again_where_it_lands():
    cell = build_cells(quad_grid())[0]
    copy = pickle.loads(pickle.dumps(cell))
    assert copy.id == cell.id and copy.found is not cell.found
    assert copy.found.__getstate__() == {
        "problem": "hostile:Quad", "options": {}, "method": "hostile:HONEST", "search_path": "",
        "problem_code": cell.problem_code, "method_code": cell.method_code}
    assert copy.found._target is None and copy.found._method is None
    problem, method = copy.found.resolve()
    assert problem.code == cell.found.resolve()[0].code
    assert method is cell.found.resolve()[1]
    assert run_cell(copy)["J"] == run_cell(cell)["J"]


def test_a_cell_made_by_hand_or_changed_finds_its_own_problem_and_method():
    cell = build_cells(quad_grid())[0]
    other = dataclasses.replace(cell, method="saa-ps")
    assert other.found is not cell.found and other.found.method == "saa-ps"
    assert dataclasses.replace(cell, rep=7).found is cell.found


def test_the_fresh_draws_estimate_is_the_spectral_risk_of_fresh_costs_with_its_influence_se():
    problem = get_problem("dgp2")
    x = np.array(TABLE_X[1])
    got = estimate(problem, x, 0.7, 0.95, 5_000, np.random.default_rng(3), chunk=777)
    # independently: the costs of 5,000 scenarios from the same stream, in one piece
    rng = np.random.default_rng(3)
    costs = problem.cost(problem.transform(x, rng.standard_normal((5_000, problem.dim_w))), x)
    J, ec, cvar = spectral_risk(costs, 0.7, 0.95)
    assert (got["J"], got["EC"], got["CVaR"]) == pytest.approx((J, ec, cvar), rel=1e-12)
    psi = influence(costs, 0.7, 0.95)
    assert got["J_se"] == pytest.approx(psi.std(ddof=1) / np.sqrt(5_000), rel=1e-12)


def test_a_search_that_draws_around_its_oracle_is_refused_by_the_guard():
    problem = get_problem("hostile:Quad")
    method = method_of("hostile:AROUND")
    search = Search(problem, method, method.settings({}), 0.5, 0.9)
    with pytest.raises(SearchViolation, match="around the oracle"):
        search.run(600, np.random.default_rng(1), np.random.default_rng(2))
    assert search.oracle.budget == 600  # kept: a failed search still tells its draws


def test_found_names_what_it_stands_for():
    found = Found("dgp1", {"sample_only": True}, "astro", "/somewhere", problem_code="v")
    assert found.names() == ("dgp1", [("sample_only", True)], "astro", "/somewhere", "v", "")
