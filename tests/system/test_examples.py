"""The README's examples run as written: a user's simulator through ``minimize`` and through a
YAML grid, and a user's method named by import path with a built-in method's guarantees."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from shapes import Box2
from typer.testing import CliRunner

from acfs_cli.api import minimize
from acfs_cli.cli import app
from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.methods import get_method

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(EXAMPLES))


def _block(path: Path, start: str, end: str) -> str:
    text = path.read_text()
    i = text.index(start)
    j = text.index(end, i)
    return text[i:j]


@pytest.mark.parametrize(("name", "start", "end"), [
    ("shelf_space.py", "class ShelfSpace:", "\n\nif __name__"),
    ("my_method.py", "class RandomSearchSettings", "\n"),
])
def test_the_readme_shows_the_example_files_as_they_are(name, start, end):
    block = _block(EXAMPLES / name, start, end if end != "\n" else "summary=")
    assert block in (ROOT / "README.md").read_text()


def test_the_users_simulator_runs_through_minimize():
    from shelf_space import ShelfSpace

    from acfs_cli.core.risk import spectral_risk

    problem = ShelfSpace()
    sol = minimize(problem, lam=0.7, alpha=0.95, budget=20_000, seed=1, n_eval=5_000)
    assert sol.draws_used <= 20_000 and sol.x @ np.ones(2) <= 1.2 + 1e-9
    # J* = -68.05 at x = (0.64, 0.56): a grid search of step 0.01 on 400,000 common scenarios;
    # the centre (0.5, 0.5) is 1.8 worse. Within 1 % of |J*| on 200,000 fresh scenarios:
    z = np.random.default_rng(5).standard_normal((200_000, 2))
    J = spectral_risk(problem.cost(problem.transform(sol.x, z), sol.x), 0.7, 0.95)[0]
    assert J < -68.05 + 0.68


def test_the_users_simulator_and_a_parameter_of_it_run_through_a_yaml_grid(tmp_path):
    result = CliRunner().invoke(app, ["run", str(EXAMPLES / "shelf.yaml"), "-r", "1", "-j", "1",
                                      "-o", str(tmp_path / "shelf"), "-q"])
    assert result.exit_code == 0, result.output
    import pandas as pd

    rows = pd.read_parquet(tmp_path / "shelf" / "results.parquet")
    assert set(rows["problem"]) == {"shelf_space:ShelfSpace",
                                "shelf_space:ShelfSpace(space_cost=6)"}
    assert (rows["status"] == "ok").all() and (rows["oracle_draws"] <= 60_000).all()
    # the folder remembers where the problem lives, for a later report of another process
    from acfs_cli.results.manifest import read_manifest

    manifest = read_manifest(tmp_path / "shelf")
    assert (tmp_path / "shelf" / manifest.source).resolve() == EXAMPLES.resolve()


def test_a_users_method_by_import_path_keeps_every_guarantee_of_a_built_in_one():
    method = get_method("my_method:RANDOM_SEARCH")
    with pytest.raises(ValueError, match="no_such_parameter"):
        method.settings({"no_such_parameter": 1})
    xs = []
    for _ in range(2):
        Box2.reset()
        problem = Box2()
        oracle = Oracle(problem, 10_000, np.random.default_rng(0))
        result = method(Task.from_problem(problem, 0.7, 0.95), oracle, np.random.default_rng(1))
        assert Box2.rows == oracle.used == result.oracle_draws <= 10_000  # all through the oracle
        assert result.x @ np.ones(2) <= 0.8 + 1e-9
        xs.append(result.x)
    np.testing.assert_array_equal(*xs)


def test_a_users_method_runs_in_a_yaml_grid_beside_the_built_in_ones(tmp_path):
    result = CliRunner().invoke(app, ["run", str(EXAMPLES / "my_method.yaml"), "-r", "1",
                                      "-j", "1", "-o", str(tmp_path / "mine"), "-q"])
    assert result.exit_code == 0, result.output
    import pandas as pd

    rows = pd.read_parquet(tmp_path / "mine" / "results.parquet")
    assert set(rows["method"]) == {"my_method:RANDOM_SEARCH", "saa-ps"}
    mine = rows[rows["method"] == "my_method:RANDOM_SEARCH"]
    settings = mine["settings"].map(json.loads)
    assert (mine["status"] == "ok").all() and (settings.str["n_candidates"] == 12).all()
    # the report lists them as the configuration does: the user's method first
    from acfs_cli.report.tables import prepare
    from acfs_cli.results.manifest import read_manifest
    from acfs_cli.results.read import read_results

    assert read_manifest(tmp_path / "mine").methods == ("my_method:RANDOM_SEARCH", "saa-ps")
    ordered = prepare(read_results(tmp_path / "mine")).sort_values("order")
    assert list(ordered["method"].drop_duplicates()) == ["my_method:RANDOM_SEARCH", "saa-ps"]


def _readme_solve_commands() -> list[list[str]]:
    """The `acfs solve` lines of the README's list of commands and of `acfs solve --help`'s
    examples, as argument lists (comments cut)."""
    import re
    import shlex

    from acfs_cli.cli.solve import solve

    lines = [line for line in (ROOT / "README.md").read_text().splitlines()
             if re.match(r"    acfs solve ", line)]
    lines += [line for line in solve.__doc__.splitlines() if "acfs solve " in line]
    return [shlex.split(line.split("#")[0])[1:] for line in lines]


def test_the_readmes_and_the_helps_solve_commands_run_from_the_checkout_root(monkeypatch):
    commands = _readme_solve_commands()
    assert ["solve", "examples/shelf_space.py:ShelfSpace", "-b", "20000"] in commands
    monkeypatch.chdir(ROOT)
    for args in commands:
        if not args[1].startswith("examples/"):
            continue  # a name of the package's (dgp1) or a pattern (shop.py:Shop)
        # small enough for a test: the README's budget and the default final estimate
        result = CliRunner().invoke(app, [*args, "-q"])
        assert result.exit_code == 0, (args, result.output)
        assert result.stdout.startswith("problem  shelf_space:ShelfSpace\n")


def _numbers(text: str) -> list[float]:
    import re

    return [float(v.replace(",", "")) for v in re.findall(r"-?\d[\d,]*\.?\d*", text)]


def test_the_readmes_solve_output_is_what_the_command_prints(monkeypatch):
    # The README shows `acfs solve shelf_space:ShelfSpace --budget 20000 --lam 0.7` run in
    # examples/ and its output: the labels, the problem, the method and what ran, the budget,
    # the stop and the notes' words must be as shown; the numbers near, not to the last digit
    # (another CPU's BLAS may move a search's path a little).
    import re
    import shlex

    readme = (ROOT / "README.md").read_text().splitlines()
    i = next(k for k, line in enumerate(readme) if line.startswith("    $ acfs solve "))
    args = shlex.split(readme[i].removeprefix("    $ acfs "))
    shown = {}
    for line in readme[i + 1:]:
        if not line.startswith("    "):
            break
        key, _, value = line[4:].partition(" ")
        shown[key] = value.strip()
    monkeypatch.chdir(EXAMPLES)
    result = CliRunner().invoke(app, [*args, "-q"])
    assert result.exit_code == 0, result.output
    got = {}
    for line in result.stdout.splitlines():
        key, _, value = line.partition(" ")
        got[key] = value.strip()
    assert list(got) == list(shown)
    assert got["problem"] == shown["problem"] and got["method"] == shown["method"]
    words = re.compile(r"-?\d[\d,]*\.?\d*")
    for key in ("draws", "notes", "J"):
        assert words.sub("N", got[key]) == words.sub("N", shown[key]), key
    # the decision within 0.05 a coordinate (the optimum is at (0.64, 0.56), J is flat there)
    np.testing.assert_allclose(_numbers(got["x*"]), _numbers(shown["x*"]), atol=0.05)
    # J within the run's own 95 % interval of the J shown; the draws within the budget's
    # last percent, the fresh draws as shown
    J, _, lo, hi, fresh, *_ = _numbers(got["J"])  # J, 95 % interval [lo, hi] on N draws
    J_shown, _, _, _, fresh_shown, *_ = _numbers(shown["J"])
    assert lo < J_shown < hi and fresh == fresh_shown == 20_000
    used, budget = _numbers(got["draws"])
    assert budget == 20_000 and 0.99 * budget <= used <= budget
