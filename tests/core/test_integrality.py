"""A problem's integer coordinates (``integrality``, scipy's convention): checked where the
problem is normalised, and refused in one line by every method that cannot keep them whole,
through every door (``minimize``, ``acfs solve``, a grid), before anything is drawn or written.
"""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from acfs_cli.api import minimize
from acfs_cli.cli import app
from acfs_cli.core.problem import ProblemError, as_problem
from acfs_cli.methods.registry import all_methods
from acfs_cli.problems import get_problem

STAFF = '''
import numpy as np


class Staff:
    """Two shifts' staff (whole people) and a rate; the cost is a bowl."""

    dim_x, dim_w = 3, 1
    bounds = [(0, 20), (0, 20), (0.0, 5.0)]
    integrality = [1, 1, 0]
    x0 = [5, 5, 1.0]

    def transform(self, x, z):
        return 10.0 + 3.0 * z

    def cost(self, W, x):
        return (x[0] - 7.3) ** 2 + (x[1] - 2.0) ** 2 + x[2] * W[:, 0]
'''


class Staff:
    dim_x, dim_w = 3, 1
    bounds = [(0, 20), (0, 20), (0.0, 5.0)]
    integrality = [1, 1, 0]
    x0 = [5, 5, 1.0]

    def transform(self, x, z):
        return 10.0 + 3.0 * z

    def cost(self, W, x):
        return (x[0] - 7.3) ** 2 + (x[1] - 2.0) ** 2 + x[2] * W[:, 0]


def staff(**changes) -> Staff:
    problem = Staff()
    for key, value in changes.items():
        setattr(problem, key, value)
    return problem


def test_integrality_is_read_as_one_flag_per_coordinate():
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
def test_a_malformed_integrality_is_one_line_naming_the_coordinate(changes, said):
    with pytest.raises(ProblemError) as info:
        as_problem(staff(**changes))
    assert said in str(info.value) and "\n" not in str(info.value)


def test_an_infinite_range_is_allowed_on_an_integer_coordinate_with_a_whole_x0():
    problem = as_problem(staff(bounds=[(0, None), (0, 20), (0.0, 5.0)]))
    assert problem.integrality[0] and problem.x0[0] == 5


@pytest.mark.parametrize("name", sorted(all_methods()))
def test_every_method_that_cannot_keep_coordinates_whole_refuses_them_in_one_line(name):
    method = all_methods()[name]
    assert not method.integer
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


def test_acfs_solve_refuses_an_integer_problem_in_one_line(tmp_path, monkeypatch):
    (tmp_path / "staff.py").write_text(STAFF)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["solve", "staff:Staff", "-b", "500", "-q"])
    assert result.exit_code != 0
    assert "cannot search integer coordinates" in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


def test_a_grid_with_an_integer_problem_is_refused_before_anything_is_written(tmp_path,
                                                                              monkeypatch):
    (tmp_path / "staff.py").write_text(STAFF)
    config = {"name": "staff", "seed": 1, "budget": 2_000, "replications": 1,
              "grid": {"problem": ["staff:Staff"], "lambda": [0.7], "method": ["auto"]}}
    (tmp_path / "staff.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    result = CliRunner().invoke(app, ["run", "staff.yaml", "-q"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "method 'auto' cannot search integer coordinates: problem 'staff:Staff'" in (
        result.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
