"""One grammar for a problem's name in every door - ``minimize``, ``acfs solve`` and a YAML
grid: a registered name, ``simopt:ABBR``, ``module:Class`` (found from the current folder, or
a configuration's), or a file ``path/to/file.py:Class``."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from typer.testing import CliRunner

from acfs_cli.api import minimize
from acfs_cli.cli import app
from acfs_cli.problems import find_problem, get_problem
from acfs_cli.results.store import read_stored

STAFFING = textwrap.dedent("""\
    import numpy as np


    class Staffing:
        dim_x, dim_w = 1, 1
        bounds = [(0.0, 4.0)]
        x0 = [2.0]

        def sample(self, x, n, rng):
            return (1.5 + 0.2 * x[0] + rng.standard_normal(n))[:, None]

        def cost(self, W, x):
            return 0.5 * x[0] + np.maximum(W[:, 0] - x[0], 0.0)
    """)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "staffing_file.py").write_text(STAFFING)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_minimize_takes_a_file_as_acfs_solve_does(folder):
    sol = minimize("models/staffing_file.py:Staffing", budget=600, seed=1, n_eval=400)
    result = CliRunner().invoke(app, ["solve", "models/staffing_file.py:Staffing", "-b", "600",
                                      "--seed", "1", "--n-eval", "400", "-q"])
    assert result.exit_code == 0, result.output
    x = result.stdout.splitlines()[2].split(None, 1)[1]
    np.testing.assert_allclose(np.array(eval(x)), sol.x, rtol=1e-5)
    assert result.stdout.splitlines()[0] == "problem  staffing_file:Staffing"
    assert get_problem("models/staffing_file.py:Staffing").name == "staffing_file:Staffing"


def test_a_file_is_found_from_the_configurations_folder_in_a_grid(folder, tmp_path_factory,
                                                                   monkeypatch):
    (folder / "grid.yaml").write_text(
        "name: files\nseed: 1\nbudget: 600\nreplications: 1\n"
        "final_eval: {draws: 300, bootstrap: 0}\n"
        "grid: {problem: ['models/staffing_file.py:Staffing'], lambda: [0.7], "
        "method: [auto]}\n")
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.chdir(elsewhere)  # the configuration's folder, not this one, finds the file
    result = CliRunner().invoke(app, ["run", str(folder / "grid.yaml"), "-q"])
    assert result.exit_code == 0, result.output
    table = read_stored(elsewhere / "results" / "files")
    assert list(table["status"]) == ["ok"] and table["problem"][0] == \
        "models/staffing_file.py:Staffing"
    assert find_problem("models/staffing_file.py:Staffing", str(folder)).__name__ == "Staffing"
    with pytest.raises(ValueError, match=r"^problem 'models/staffing_file\.py:Staffing': no "
                                         r"file .*elsewhere.*models/staffing_file\.py$"):
        find_problem("models/staffing_file.py:Staffing", str(elsewhere))


def test_a_module_of_the_current_folder_is_found_by_minimize_as_by_acfs_solve(folder):
    (folder / "staffing_module.py").write_text(STAFFING)
    sol = minimize("staffing_module:Staffing", budget=600, seed=1, n_eval=400)
    assert sol.draws_used <= 600


@pytest.mark.parametrize(("name", "said"), [
    ("nowhere.py:Staffing", r"^problem 'nowhere\.py:Staffing': no file .*nowhere\.py$"),
    ("models/staffing_file.py:", r"^problem 'models/staffing_file\.py:' is not of the form "
                                 r"path/file\.py:Class"),
    ("models/staffing_file.py:Nope", r"module 'staffing_file' has no 'Nope'"),
])
def test_a_wrong_file_name_is_one_line(folder, name, said):
    with pytest.raises(ValueError, match=said):
        minimize(name, budget=600)
