"""A problem's stochastic constraints (``stochastic_constraints`` with ``constraint_values``):
the declaration checked where the problem is normalised, the values checked on every call, and
the problem refused in one line by every method that cannot keep them, through every door.
"""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from acfs_cli.api import minimize
from acfs_cli.cli import app
from acfs_cli.core.declared import StochasticConstraint
from acfs_cli.core.problem import ProblemError, SimulatorError, as_problem
from acfs_cli.methods.registry import all_methods

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


class Service:
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


def service(**changes) -> Service:
    problem = Service()
    for key, value in changes.items():
        setattr(problem, key, value)
    return problem


def test_the_declaration_is_read_in_order_with_its_kind():
    problem = as_problem(service())
    assert problem.constraints == (StochasticConstraint("wait", 0.05),
                                   StochasticConstraint("overtime", None))
    assert [c.describe() for c in problem.constraints] == ["P(wait > 0) <= 0.05",
                                                           "E[overtime] <= 0"]
    assert as_problem(service(stochastic_constraints=None)).constraints == ()


def test_the_values_are_the_users_on_the_rows_given():
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
def test_a_malformed_declaration_is_one_line_naming_the_entry(changes, said):
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
def test_bad_values_are_one_line_naming_the_constraint_and_the_decision(values, said):
    problem = as_problem(service(constraint_values=values))
    W = np.ones((20, 1))
    with pytest.raises(SimulatorError) as info:
        problem.constraint_values(W, np.array([4.0, 1.5]))
    text = str(info.value)
    assert said in text and "at x = " in text and "\n" not in text


def test_one_constraint_may_return_a_vector():
    problem = as_problem(service(stochastic_constraints=[{"name": "wait", "chance": 0.05}],
                                 constraint_values=lambda W, x: W[:, 0] - 4.0))
    assert problem.constraint_values(np.ones((5, 1)), np.array([4.0, 1.5])).shape == (5, 1)


@pytest.mark.parametrize("name", sorted(all_methods()))
def test_every_method_that_cannot_keep_them_refuses_in_one_line(name):
    assert not all_methods()[name].constrained
    with pytest.raises(ValueError) as info:
        minimize(Service(), budget=2_000, method=name, seed=0)
    assert str(info.value) == (f"method {name!r} cannot keep stochastic constraints: problem "
                               "'Service' declares P(wait > 0) <= 0.05; E[overtime] <= 0")


def test_acfs_solve_and_a_grid_refuse_them_in_one_line_and_write_nothing(tmp_path,
                                                                         monkeypatch):
    (tmp_path / "service.py").write_text(SERVICE)
    config = {"name": "service", "seed": 1, "budget": 2_000, "replications": 1,
              "grid": {"problem": ["service:Service"], "lambda": [0.7], "method": ["auto"]}}
    (tmp_path / "service.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    for args in (["solve", "service:Service", "-b", "500", "-q"], ["run", "service.yaml", "-q"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code != 0, result.output
        assert "cannot keep stochastic constraints" in result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before
