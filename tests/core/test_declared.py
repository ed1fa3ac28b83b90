"""What a problem declares beyond its simulator (``acfs_cli.core.declared``): its integer
coordinates (``integrality``, scipy's convention) and its stochastic constraints
(``stochastic_constraints`` with ``constraint_values``). Each declaration is checked where the
problem is normalised, the constraints' values on every call, and a problem with either is
refused in one line by every method that cannot keep it, through every door (``minimize``,
``acfs solve``, a grid), before anything is drawn or written.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import yaml
from toys import STAFF
from typer.testing import CliRunner

from acfs_cli.api import minimize
from acfs_cli.cli import app
from acfs_cli.core.declared import StochasticConstraint
from acfs_cli.core.problem import ProblemError, SimulatorError, as_problem
from acfs_cli.methods.registry import all_methods
from acfs_cli.problems import get_problem

SERVICE = '''
import numpy as np


class Service:
    """Staff x[0] at a rate x[1]; the wait must exceed 4 on at most 5 % of days and the
    overtime stay below 2 on average."""

    dim_x, dim_w = 2, 1
    bounds = [(1.0, 20.0), (0.5, 3.0)]
    x0 = [5.0, 1.0]
    stochastic_constraints = [{"name": "wait", "chance": 0.05}, {"name": "overtime"}]

    def transform(self, x, z):
        return np.exp(2.0 + 0.3 * z)

    def cost(self, W, x):
        return 10.0 * x[0] + 3.0 * x[1] + 0.0 * W[:, 0]

    def constraint_values(self, W, x):
        wait = W[:, 0] / (x[0] * x[1]) - 4.0
        return np.column_stack([wait, W[:, 0] / 10.0 - x[0] / 5.0 - 2.0])
'''


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A user's folder holding the problems' modules: imported from there by the tests, and
    found there by ``acfs solve`` and a grid."""
    path = tmp_path_factory.mktemp("user")
    (path / "staff.py").write_text(STAFF)
    (path / "service.py").write_text(SERVICE)
    return path


def _user_class(folder, module: str, name: str):
    spec = importlib.util.spec_from_file_location(f"user_{module}", folder / f"{module}.py")
    found = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(found)
    return getattr(found, name)


def _changed(cls):
    """A maker of instances of ``cls`` with attributes changed."""
    def make(**changes):
        problem = cls()
        for key, value in changes.items():
            setattr(problem, key, value)
        return problem
    return make


@pytest.fixture(scope="module")
def Staff(folder):  # noqa: N802 - the user's class
    return _user_class(folder, "staff", "Staff")


@pytest.fixture(scope="module")
def Service(folder):  # noqa: N802 - the user's class
    return _user_class(folder, "service", "Service")


@pytest.fixture
def staff(Staff):  # noqa: N803
    return _changed(Staff)


@pytest.fixture
def service(Service):  # noqa: N803
    return _changed(Service)


# -- integer coordinates -------------------------------------------------------------------------
def test_integrality_is_read_as_one_flag_per_coordinate(staff):
    assert as_problem(staff()).integrality.tolist() == [True, True, False]
    assert as_problem(staff(integrality=np.array([0.0, 1.0, 0.0]))).integrality.tolist() == [
        False, True, False]
    # undeclared: every coordinate continuous, as every shipped problem
    assert not as_problem(get_problem("dgp1")).integrality.any()


@pytest.mark.parametrize(("changes", "said"), [
    ({"integrality": [1, 0]}, "integrality has shape (2,), expected (3,)"),
    ({"integrality": [1, 2, 0]}, "integrality[1] is 2; each entry is 0 (continuous) or 1"),
    ({"integrality": "yes"}, "integrality must hold one 0 or 1 per coordinate"),
    ({"bounds": [(0.5, 20), (0, 20), (0.0, 5.0)]},
     "x[0] is an integer but its lower bound 0.5 is not a whole number"),
    ({"bounds": [(0, 20), (0, 19.5), (0.0, 5.0)]},
     "x[1] is an integer but its upper bound 19.5 is not a whole number"),
    ({"x0": [5.5, 5, 1.0]}, "x0[0] = 5.5 is not a whole number, and integrality makes x[0]"),
    ({"bounds": [(0, None), (0, 20), (0.0, 5.0)], "x0": None},
     "X is unbounded (x[0] has an infinite bound): give x0"),
])
def test_a_malformed_integrality_is_one_line_naming_the_coordinate(staff, changes, said):
    with pytest.raises(ProblemError) as info:
        as_problem(staff(**changes))
    assert said in str(info.value) and "\n" not in str(info.value)


def test_an_infinite_range_is_allowed_on_an_integer_coordinate_with_a_whole_x0(staff):
    problem = as_problem(staff(bounds=[(0, None), (0, 20), (0.0, 5.0)]))
    assert problem.integrality[0] and problem.x0[0] == 5


@pytest.mark.parametrize("name", sorted(n for n, m in all_methods().items() if not m.integer))
def test_every_method_that_cannot_keep_coordinates_whole_refuses_them_in_one_line(
        Staff, name):  # noqa: N803
    with pytest.raises(ValueError) as info:
        minimize(Staff(), budget=2_000, method=name, seed=0)
    said = str(info.value)
    assert said == (f"method {name!r} cannot search integer coordinates: problem 'Staff' "
                    "declares x[0], x[1] integer (integrality)")


def test_a_method_that_keeps_them_whole_is_not_refused():
    from dataclasses import replace

    method = replace(all_methods()["astro"], integer=True)
    assert method.refusal("Staff", [True, False]) is None
    assert all_methods()["astro"].refusal("Staff", [False, False]) is None


def test_acfs_solve_refuses_an_integer_problem_in_one_line(folder, monkeypatch):
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(app, ["solve", "staff:Staff", "-b", "500", "-q", "-m", "astro"])
    assert result.exit_code != 0
    assert "cannot search integer coordinates" in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


def test_a_grid_with_an_integer_problem_is_refused_before_anything_is_written(tmp_path,
                                                                              monkeypatch):
    (tmp_path / "staff.py").write_text(STAFF)  # a folder of its own: nothing else in it
    config = {"name": "staff", "seed": 1, "budget": 2_000, "replications": 1,
              "grid": {"problem": ["staff:Staff"], "lambda": [0.7], "method": ["astro"]}}
    (tmp_path / "staff.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    result = CliRunner().invoke(app, ["run", "staff.yaml", "-q"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "method 'astro' cannot search integer coordinates: problem 'staff:Staff'" in (
        result.stderr) and "refused: skip leaves such cells out" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before


# -- stochastic constraints ----------------------------------------------------------------------
def test_the_declaration_is_read_in_order_with_its_kind(service):
    problem = as_problem(service())
    assert problem.constraints == (StochasticConstraint("wait", 0.05),
                                   StochasticConstraint("overtime", None))
    assert [c.describe() for c in problem.constraints] == ["P(wait > 0) <= 0.05",
                                                           "E[overtime] <= 0"]
    assert as_problem(service(stochastic_constraints=None)).constraints == ()


def test_the_values_are_the_users_on_the_rows_given(Service, service):  # noqa: N803
    problem = as_problem(service())
    W = np.exp(2.0 + 0.3 * np.random.default_rng(1).standard_normal((50, 1)))
    x = np.array([4.0, 1.5])
    g = problem.constraint_values(W, x)
    np.testing.assert_array_equal(g, Service().constraint_values(W, x))
    assert g.shape == (50, 2)


@pytest.mark.parametrize(("changes", "said"), [
    ({"stochastic_constraints": {"name": "wait"}}, "must be a list of"),
    ({"stochastic_constraints": ["wait"]}, "stochastic_constraints[0] must be a dict"),
    ({"stochastic_constraints": [{"chance": 0.1}]}, "stochastic_constraints[0] needs a name"),
    ({"stochastic_constraints": [{"name": "wait", "eps": 0.1}]},
     "stochastic_constraints[0] has unknown key 'eps'"),
    ({"stochastic_constraints": [{"name": "w"}, {"name": "w"}]}, "the name 'w' is given twice"),
    ({"stochastic_constraints": [{"name": "wait", "chance": 0.0}]},
     "('wait'): chance must lie strictly between 0 and 1, got 0.0"),
    ({"stochastic_constraints": [{"name": "wait", "chance": 1.5}]},
     "chance must lie strictly between 0 and 1, got 1.5"),
    ({"stochastic_constraints": [{"name": "wait", "chance": True}]},
     "chance must lie strictly between 0 and 1, got True"),
    ({"constraint_values": None}, "declares stochastic_constraints but has no "
                                  "constraint_values(W, x)"),
])
def test_a_malformed_declaration_is_one_line_naming_the_entry(service, changes, said):
    with pytest.raises(ProblemError) as info:
        as_problem(service(**changes))
    assert said in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(("values", "said"), [
    (lambda W, x: np.zeros((len(W), 3)), "constraint_values returned shape (20, 3), expected "
                                         "(20, 2)"),
    (lambda W, x: np.zeros(len(W)), "returned shape (20,), expected (20, 2)"),
    (lambda W, x: np.column_stack([np.full(len(W), np.nan), np.zeros(len(W))]),
     "NaN or infinite values of 'wait' in 20 of 20 rows"),
    (lambda W, x: np.column_stack([np.zeros(len(W)), np.r_[np.inf, np.zeros(len(W) - 1)]]),
     "NaN or infinite values of 'overtime' in 1 of 20 rows"),
    (lambda W, x: 1 / 0, "constraint_values raised ZeroDivisionError"),
])
def test_bad_values_are_one_line_naming_the_constraint_and_the_decision(service, values,
                                                                       said):
    problem = as_problem(service(constraint_values=values))
    W = np.ones((20, 1))
    with pytest.raises(SimulatorError) as info:
        problem.constraint_values(W, np.array([4.0, 1.5]))
    text = str(info.value)
    assert said in text and "at x = " in text and "\n" not in text


@pytest.mark.parametrize(("gradient", "said"), [
    (lambda W, x: np.zeros((len(W), 2)), "constraint_gradient returned shape (20, 2), "
                                         "expected (20, 2, 2)"),
    (lambda W, x: np.full((len(W), 2, 2), np.nan), "constraint_gradient returned NaN or "
                                                   "infinite values"),
    (lambda W, x: 1 / 0, "constraint_gradient raised ZeroDivisionError"),
])
def test_bad_constraint_gradients_are_one_line_naming_the_decision(service, gradient, said):
    problem = as_problem(service(constraint_gradient=gradient))
    assert problem.has_constraint_gradient
    with pytest.raises(SimulatorError) as info:
        problem.constraint_gradient(np.ones((20, 1)), np.array([4.0, 1.5]))
    text = str(info.value)
    assert said in text and "at x = " in text and "\n" not in text


def test_a_constraint_gradient_without_constraints_is_refused_in_one_line(service):
    with pytest.raises(ProblemError, match=r"has constraint_gradient\(W, x\) but declares no "
                       r"stochastic_constraints$"):
        as_problem(service(stochastic_constraints=None, constraint_values=None,
                           constraint_gradient=lambda W, x: np.zeros((len(W), 0, 2))))


def test_one_constraint_may_return_a_vector(service):
    problem = as_problem(service(stochastic_constraints=[{"name": "wait", "chance": 0.05}],
                                 constraint_values=lambda W, x: W[:, 0] - 4.0))
    assert problem.constraint_values(np.ones((5, 1)), np.array([4.0, 1.5])).shape == (5, 1)


@pytest.mark.parametrize("name", sorted(n for n, m in all_methods().items()
                                         if not m.constrained))
def test_every_method_that_cannot_keep_them_refuses_in_one_line(Service, name):  # noqa: N803
    with pytest.raises(ValueError) as info:
        minimize(Service(), budget=2_000, method=name, seed=0)
    assert str(info.value) == (f"method {name!r} cannot keep stochastic constraints: problem "
                               "'Service' declares P(wait > 0) <= 0.05; E[overtime] <= 0")


def test_acfs_solve_and_a_grid_refuse_them_in_one_line_and_write_nothing(tmp_path,
                                                                         monkeypatch):
    (tmp_path / "service.py").write_text(SERVICE)
    config = {"name": "service", "seed": 1, "budget": 2_000, "replications": 1,
              "grid": {"problem": ["service:Service"], "lambda": [0.7], "method": ["astro"]}}
    (tmp_path / "service.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    for args in (["solve", "service:Service", "-b", "500", "-q", "-m", "astro"],
                 ["run", "service.yaml", "-q"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code != 0, result.output
        assert "cannot keep stochastic constraints" in result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_grid_with_refused_skip_leaves_out_the_cells_of_methods_that_cannot_keep_them(
        tmp_path, monkeypatch):
    (tmp_path / "staff.py").write_text(STAFF)
    config = {"name": "staff", "seed": 1, "budget": 1_000, "replications": 1,
              "refused": "skip", "final_eval": {"draws": 200, "bootstrap": 0},
              "grid": {"problem": ["staff:Staff"], "lambda": [0.7],
                       "method": ["auto", "astro"]}}
    (tmp_path / "staff.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["run", "staff.yaml", "-q"])
    assert result.exit_code == 0, result.output
    assert "1 cell(s) left out" in result.stderr and "refused: skip" in result.stderr
    from acfs_cli.results.store import read_stored

    rows = read_stored(tmp_path / "results" / "staff")
    assert rows["method"].tolist() == ["auto"] and (rows["status"] == "ok").all()


def test_a_method_that_needs_a_bounded_box_refuses_an_open_one_in_one_line():
    from dataclasses import replace

    method = replace(all_methods()["astro"], integer=True, needs_box=True)
    closed = (np.zeros(2), np.full(2, 5.0))
    open_ = (np.zeros(2), np.array([5.0, np.inf]))
    assert method.refusal("Staff", [True, True], (), closed) is None
    assert method.refusal("Staff", [True, True], (), open_) == (
        "method 'astro' searches the lattice of a bounded box: x[1] of problem 'Staff' is "
        "unbounded")
