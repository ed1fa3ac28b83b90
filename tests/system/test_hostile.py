"""A hostile corpus: simulators and methods that break the rules (tests/hostile.py), misuse of
the runner and of the API. Each case ends in a correct result or a one-line error naming the
fault, and nothing already written is lost or changed. Runs go through the command line, as
a user's would; the worker-process runs are real processes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from acfs_cli.api import minimize
from acfs_cli.cli import app
from acfs_cli.common.codes import SAMPLING
from acfs_cli.core.problem import ProblemError, SimulatorError
from acfs_cli.results.store import read_stored

TESTS = Path(__file__).resolve().parents[1]
BASE = {"seed": 5, "budget": 200, "replications": 1, "alpha": 0.9,
        "final_eval": {"draws": 200, "bootstrap": 0}}


def write(folder: Path, name: str, **config) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"name": name, **BASE, **config}, sort_keys=False))
    return path


def acfs(folder: Path, *args: str, timeout: float = 180,
         command: list[str] | None = None) -> subprocess.CompletedProcess:
    """The command line in a process of its own (user modules are imported afresh); by
    default ``python -m acfs_cli``, else ``command`` (the installed script)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(folder)])}
    command = command or [sys.executable, "-m", "acfs_cli"]
    return subprocess.run([*command, *args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=timeout)


def errors(folder: Path, output: str) -> dict[str, str]:
    rows = read_stored(folder / output)
    return dict(zip(rows["problem"] + "/" + rows["method"], rows["error"], strict=True))


def one_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stderr


SIMULATORS = {
    "Quad": "",
    "ExitsProcess": "SystemExit(3): the simulator or the method called sys.exit",
    "RaisesKeyboardInterrupt": "KeyboardInterrupt raised by the simulator or the method",
    "KillsItsProcess": "its worker process ended (exit code 7) while computing it",
    "NumpyGlobalRandom": "gives other scenarios for generators in the same state",
    "PythonRandom": "gives other scenarios for generators in the same state",
    "OwnSeed": "ignores the rng it is given",
    "WrongAxis": "is declared vectorized, but cost(W, X)",
    "WritesDecision": "sample writes into the arrays it is given",
    "ProjectsOutsideItsBounds": "outside the declared bounds",
    "NotIdempotent": "project is not idempotent",
    "Hangs": "timed out: no result after 6 s",
    "ReturnsNaN": "NaN or infinite scenarios",
}


def test_every_faulty_simulator_is_one_failed_cell_and_the_others_finish(tmp_path):
    config = write(tmp_path, "simulators", n_jobs=2, timeout=6,
                   grid={"problem": [f"hostile:{name}" for name in SIMULATORS],
                         "lambda": [0.5], "method": ["hostile:HONEST"]})
    proc = acfs(tmp_path, "run", config.name, "-q")
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{len(SIMULATORS)} computed, 0 already done, {len(SIMULATORS) - 1} failed" in (
        proc.stderr)
    found = errors(tmp_path, "results/simulators")
    for name, expected in SIMULATORS.items():
        error = found[f"hostile:{name}/hostile:HONEST"]
        if expected:
            assert expected in error, (name, error)
            assert "\n" not in error
        else:
            assert error == "", (name, error)


METHODS = {
    "HONEST": "",
    "AROUND": "produced 100,080 scenario rows but the oracle counted 80",
    "THROUGH_TASK": "AttributeError: 'function' object has no attribute '__self__'",
    "REWIND": "produced 80 scenario rows but the oracle counted 0",
    "SET_COUNTER": "the oracle's state is its own: '_used' cannot be set",
    "NONE": "returned NoneType, not a MethodResult",
    "STRING_VALUE": "returned a value that is not a number: 'cheap'",
    "GLOBAL_NUMPY": "drew from numpy's global random state",
    "NEVER": "timed out: no result after 6 s",
    "THREAD": "",
    "EXITS": "SystemExit(5)",
    "INTERRUPTS": "KeyboardInterrupt raised by the simulator or the method",
    "KILLS": "its worker process ended (exit code 9)",
}


def test_every_cheating_or_broken_method_is_one_failed_cell_and_the_others_finish(tmp_path):
    config = write(tmp_path, "methods", n_jobs=2, timeout=6,
                   grid={"problem": ["hostile:Quad"], "lambda": [0.5],
                         "method": [f"hostile:{name}" for name in METHODS]})
    proc = acfs(tmp_path, "run", config.name, "-q")
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    rows = read_stored(tmp_path / "results" / "methods").set_index("method")
    for name, expected in METHODS.items():
        error = rows.loc[f"hostile:{name}", "error"]
        if expected:
            assert expected in error, (name, error)
        else:
            assert error == "" and rows.loc[f"hostile:{name}", "status"] == "ok", (name, error)
    assert "left 1 thread(s) running: left-behind" in rows.loc["hostile:THREAD", "warnings"]
    honest = rows.loc["hostile:HONEST"]
    assert honest["oracle_draws"] == 80 and np.isfinite(honest["J"])


def test_in_this_process_a_plugins_exit_or_interrupt_fails_its_cell_only(tmp_path,
                                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = write(tmp_path, "inprocess", n_jobs=1,
                   grid={"problem": ["hostile:Quad", "hostile:ExitsProcess",
                                 "hostile:RaisesKeyboardInterrupt"],
                         "lambda": [0.5], "method": ["hostile:HONEST", "hostile:EXITS",
                                                     "hostile:INTERRUPTS"]})
    result = CliRunner().invoke(app, ["run", str(config), "-q"])
    assert result.exit_code == 1, result.output
    rows = read_stored(tmp_path / "results" / "inprocess")
    assert len(rows) == 9 and (rows["status"] == "ok").sum() == 1
    assert rows["error"].str.contains("SystemExit|KeyboardInterrupt raised").sum() == 8


def installed_command() -> str | None:
    """The ``acfs`` console script of this environment, as pip installed it (beside the
    interpreter), or None where acfs runs from a checkout without an install."""
    scripts = {sysconfig.get_path("scripts"), str(Path(sys.executable).parent)}
    return shutil.which("acfs", path=os.pathsep.join(sorted(scripts)))


@pytest.mark.parametrize("how", ["python -m acfs_cli", "installed acfs"])
def test_a_thread_left_behind_does_not_keep_the_command_from_ending(tmp_path, how):
    command = [sys.executable, "-m", "acfs_cli"]
    if how == "installed acfs":
        script = installed_command()
        if script is None:
            pytest.skip("acfs is not installed in this environment")
        command = [script]
    config = write(tmp_path, "thread", n_jobs=1,
                   grid={"problem": ["hostile:Quad"], "lambda": [0.5],
                         "method": ["hostile:THREAD"]})
    # A generous limit: the command ends at once or never (then this raises TimeoutExpired).
    proc = acfs(tmp_path, "run", config.name, "-q", timeout=300, command=command)
    assert proc.returncode == 0, proc.stderr
    assert "1 computed" in proc.stderr
    assert "1 thread(s) left running (left-behind): the command ends without them" in (
        proc.stderr)


@pytest.mark.parametrize(("problem", "message"), [
    ("WrongShapeProject", "project returned shape (3,) for input of shape (2,)"),
    ("StartsOutside", "x0 = [2, 0] lies outside X"),
])
def test_a_malformed_problem_is_refused_in_one_line(problem, message):
    import hostile

    with pytest.raises(ProblemError, match=message.replace("[", r"\[").replace("(", r"\(")
                       .replace(")", r"\)").replace("]", r"\]")):
        minimize(getattr(hostile, problem)(), budget=200)


def test_a_transform_that_ignores_its_normals_for_random_numbers_of_its_own_is_refused():
    import hostile

    with pytest.raises(SimulatorError, match=r"transform\(x, z\) gives other scenarios for "
                       "the same normals"):
        minimize(hostile.TransformOfItsOwn(), budget=200)


def test_a_simulator_that_keeps_state_between_calls_is_told_both_possible_causes():
    import hostile

    with pytest.raises(SimulatorError) as caught:
        minimize(hostile.KeepsState(), budget=200)
    message = str(caught.value)
    assert "gives other scenarios for generators in the same state" in message
    assert "it keeps state between calls" in message  # what this one does
    assert "or draws from another source of randomness" in message  # what others do
    assert "\n" not in message


def test_an_idempotent_projection_that_lands_below_a_lower_bound_is_refused():
    import hostile

    problem = hostile.ProjectsBelowItsBounds()
    x = problem.project(np.array([-3.0, 0.0]))
    np.testing.assert_array_equal(problem.project(x), x)  # idempotent, and below -1
    with pytest.raises(ProblemError, match=r"project returned \[-2, .*outside the declared "
                       "bounds"):
        minimize(problem, budget=200)


def test_minimize_discards_a_search_that_drew_from_pythons_random():
    import hostile

    with pytest.raises(RuntimeError, match="Python's random module"):
        minimize(hostile.Quad(), budget=200, method="hostile:PYTHON_RANDOM")


@pytest.mark.parametrize(("method", "message"), [
    ("AROUND", "the oracle counted 80"), ("REWIND", "the oracle counted 0"),
    ("GLOBAL_NUMPY", "global random state"),
])
def test_minimize_discards_a_result_that_broke_the_rules(method, message):
    import hostile

    with pytest.raises(RuntimeError, match=message):
        minimize(hostile.Quad(), budget=200, method=f"hostile:{method}")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"seed": 1.5}, "seed must be an integer"),
    ({"seed": "1"}, "seed must be an integer"), ({"seed": 2**64}, r"in \[0, 2\*\*63\)"),
    ({"n_eval": 0}, "n_eval must be at least 200"), ({"n_eval": -1}, "n_eval must be"),
    ({"budget": 10**12}, "at most 1,000,000,000"), ({"lam": -1}, "lam must be"),
])
def test_minimize_refuses_bad_arguments_in_one_line(kwargs, message):
    import hostile

    with pytest.raises(ValueError, match=message):
        minimize(hostile.Quad(), **{"budget": 200, **kwargs})


def test_a_generator_as_seed_gives_a_run_of_its_own():
    import hostile

    a = minimize(hostile.Quad(), budget=400, method="hostile:HONEST",
                 seed=np.random.default_rng(1))
    b = minimize(hostile.Quad(), budget=400, method="hostile:HONEST",
                 seed=np.random.default_rng(1))
    np.testing.assert_array_equal(a.x, b.x)


# -- results that cannot go stale or be overwritten ------------------------------------------------
SIMULATOR = '''import numpy as np


class Demand:
    dim_x, dim_w = 1, 1
    bounds = [(0.0, 4.0)]

    def sample(self, x, n, rng):
        return MEAN * np.exp(0.3 * rng.standard_normal((n, 1)))

    def cost(self, W, x):
        return x[..., 0] - 2.0 * np.minimum(W[..., 0], x[..., 0])


MEAN = {mean}
'''


def test_an_edited_simulator_stops_the_run_until_told_what_to_do(tmp_path):
    module = tmp_path / "shop.py"
    module.write_text(SIMULATOR.format(mean=1.0))
    config = write(tmp_path, "shop", replications=2, budget=2000,
                   grid={"problem": ["shop:Demand"], "lambda": [0.5], "method": ["saa-ps"]})
    first = acfs(tmp_path, "run", config.name, "-q")
    assert first.returncode == 0, first.stderr
    before = read_stored(tmp_path / "results" / "shop")["J"].to_numpy()

    module.write_text(SIMULATOR.format(mean=2.0))  # demand doubled
    stopped = acfs(tmp_path, "run", config.name, "-q")
    message = one_line(stopped)
    assert "2 finished cell(s) were computed by other code: problem shop:Demand (source " in (
        message)
    assert "--recompute-stale" in message and "--accept-code" in message
    status = acfs(tmp_path, "status", config.name)
    assert "2 cells: 0 done, 2 stale, 0 failed, 0 missing" in " ".join(status.stdout.split())
    np.testing.assert_array_equal(read_stored(tmp_path / "results" / "shop")["J"], before)

    again = acfs(tmp_path, "run", config.name, "-q", "--recompute-stale")
    assert again.returncode == 0 and "2 computed" in again.stderr, again.stderr
    after = read_stored(tmp_path / "results" / "shop")["J"].to_numpy()
    assert np.all(after < before)  # more demand, more profit: a lower cost

    module.write_text(SIMULATOR.format(mean=2.0) + "# a comment changes no result\n")
    kept = acfs(tmp_path, "run", config.name, "-q", "--accept-code")
    assert kept.returncode == 0 and "0 computed, 2 already done" in kept.stderr, kept.stderr
    np.testing.assert_array_equal(read_stored(tmp_path / "results" / "shop")["J"], after)
    assert acfs(tmp_path, "run", config.name, "-q").returncode == 0


def test_a_declared_version_decides_instead_of_the_source(tmp_path):
    module = tmp_path / "shop.py"
    module.write_text(SIMULATOR.format(mean=1.0) + "Demand.version = '1'\n")
    config = write(tmp_path, "shop", budget=2000,
                   grid={"problem": ["shop:Demand"], "lambda": [0.5], "method": ["saa-ps"]})
    assert acfs(tmp_path, "run", config.name, "-q").returncode == 0
    module.write_text(SIMULATOR.format(mean=1.0) + "Demand.version = '1'  # tidied\n")
    assert acfs(tmp_path, "run", config.name, "-q").returncode == 0
    module.write_text(SIMULATOR.format(mean=3.0) + "Demand.version = '2'\n")
    # a sample-only simulator's fingerprint also names how it is handed its random numbers
    assert "(version 1, sampling 2 -> version 2, sampling 2)" in one_line(
        acfs(tmp_path, "run", config.name, "-q"))


def quad_config(folder: Path, **changes) -> Path:
    return write(folder, "quad", **{"replications": 4, "grid": {
        "problem": ["hostile:Quad"], "lambda": [0.5], "method": ["hostile:HONEST"]}, **changes})


def test_a_run_of_fewer_replications_never_shrinks_the_table(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(TESTS))
    config = quad_config(tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["run", str(config), "-q"]).exit_code == 0
    folder = tmp_path / "results" / "quad"
    table = folder / "results.parquet"
    committed = table.read_bytes()
    ids = set(pd.read_parquet(table)["cell_id"])
    for cell in (folder / "cells").glob("*.parquet"):
        cell.unlink()  # a fresh checkout: the table is the only copy of the results
    result = runner.invoke(app, ["run", str(config), "-q", "-r", "2"])
    assert result.exit_code == 0, result.output
    assert "0 computed, 2 already done" in result.stderr
    assert len(pd.read_parquet(table)) == 4 and table.read_bytes() == committed
    other = runner.invoke(app, ["run", str(quad_config(tmp_path, seed=6)), "-q", "-r", "1"])
    assert other.exit_code == 0, other.output  # another configuration: the old rows are kept
    kept = {p.stem for p in (folder / "cells").glob("*.parquet")}
    assert ids < kept and len(kept) == 5


def test_a_fresh_checkout_running_more_replications_keeps_the_rows_only_its_table_holds(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(TESTS))
    config = quad_config(tmp_path, n_jobs=1)
    runner = CliRunner()
    assert runner.invoke(app, ["run", str(config), "-q"]).exit_code == 0
    folder = tmp_path / "results" / "quad"
    committed = pd.read_parquet(folder / "results.parquet").set_index("cell_id")
    for cell in (folder / "cells").glob("*.parquet"):
        cell.unlink()  # a fresh checkout: the table is the only copy of the results
    result = runner.invoke(app, ["run", str(config), "-q", "-r", "5"])
    assert result.exit_code == 0, result.output
    assert "1 computed, 4 already done" in result.stderr
    table = pd.read_parquet(folder / "results.parquet").set_index("cell_id")
    assert sorted(table["rep"]) == [0, 1, 2, 3, 4]
    pd.testing.assert_series_equal(table.loc[committed.index, "J"], committed["J"])


def test_a_retried_cell_replaces_its_failed_row_in_the_table(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(TESTS))
    config = quad_config(tmp_path, replications=2, n_jobs=1, grid={
        "problem": ["hostile:FailsWhileFlagged"], "lambda": [0.5], "method": ["hostile:HONEST"]})
    table = tmp_path / "results" / "quad" / "results.parquet"
    (tmp_path / "FLAG").write_text("")
    runner = CliRunner()
    assert runner.invoke(app, ["run", str(config), "-q"]).exit_code == 1
    assert set(pd.read_parquet(table)["status"]) == {"error"}
    (tmp_path / "FLAG").unlink()  # the fault is fixed: the next run retries the cells
    result = runner.invoke(app, ["run", str(config), "-q"])
    assert result.exit_code == 0 and "2 computed" in result.stderr, result.output
    rows = pd.read_parquet(table)
    assert len(rows) == 2 and set(rows["status"]) == {"ok"} and set(rows["error"]) == {""}


def test_a_recomputed_cell_replaces_its_earlier_row_in_the_table(tmp_path, monkeypatch):
    import hostile

    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(TESTS))
    config = quad_config(tmp_path, replications=2, n_jobs=1, grid={
        "problem": ["hostile:Versioned"], "lambda": [0.5], "method": ["hostile:HONEST"]})
    table = tmp_path / "results" / "quad" / "results.parquet"
    runner = CliRunner()
    assert runner.invoke(app, ["run", str(config), "-q"]).exit_code == 0
    # the simulator's results change (cells computed here: a worker would import version 1)
    monkeypatch.setattr(hostile.Versioned, "version", "2")
    assert runner.invoke(app, ["run", str(config), "-q"]).exit_code == 2
    result = runner.invoke(app, ["run", str(config), "-q", "--recompute-stale"])
    assert result.exit_code == 0 and "2 computed" in result.stderr, result.output
    # a sample-only simulator's code also names how it is handed its random numbers
    assert set(pd.read_parquet(table)["problem_code"]) == {f"version 2, {SAMPLING}"}


@pytest.mark.parametrize("case", ["cells of another", "someone else's table",
                                  "someone else's folder", "manifest not a list"])
def test_a_folder_acfs_did_not_write_is_refused_and_left_as_it_was(tmp_path, monkeypatch, case):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(TESTS))
    runner = CliRunner()
    config = quad_config(tmp_path, replications=1)
    target = tmp_path / "target"
    target.mkdir()
    if case == "cells of another":
        assert runner.invoke(app, ["run", str(config), "-q"]).exit_code == 0
        target = tmp_path / "results" / "quad" / "cells"
        expected = "lies inside the results folder of experiment 'quad'"
    elif case == "someone else's table":
        pd.DataFrame({"a": [1, 2]}).to_parquet(target / "results.parquet")
        (target / "manifest.json").write_text('{"format": 1, "experiment": "quad", '
                                              '"settings": "s", "cells": []}')
        expected = "was not written by acfs"
    elif case == "someone else's folder":
        (target / "notes.txt").write_text("my notes")
        expected = "holds files acfs did not write (notes.txt)"
    else:
        (target / "manifest.json").write_text('{"format": 1, "experiment": "quad", '
                                              '"settings": "s", "cells": "notalist"}')
        expected = "is not an acfs manifest (cells is not a list)"
    before = {p: p.read_bytes() for p in target.rglob("*") if p.is_file()}
    result = runner.invoke(app, ["run", str(config), "-q", "-o", str(target)])
    assert result.exit_code == 2, result.output
    assert expected in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert {p: p.read_bytes() for p in target.rglob("*") if p.is_file()} == before


def test_a_folder_where_a_cell_file_belongs_is_named_by_run_and_status(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(TESTS))
    runner = CliRunner()
    config = quad_config(tmp_path, replications=2)
    assert runner.invoke(app, ["run", str(config), "-q"]).exit_code == 0
    folder = tmp_path / "results" / "quad"
    (folder / "results.parquet").unlink()
    victim = sorted((folder / "cells").glob("*.parquet"))[0]
    victim.unlink()
    victim.mkdir()
    result = runner.invoke(app, ["run", str(config), "-q"])
    assert result.exit_code == 2 and "is not a cell file (a folder?)" in result.stderr
    status = runner.invoke(app, ["status", str(config)])
    assert "is not a file: remove it" in " ".join(status.stdout.split())
    victim.rmdir()
    assert runner.invoke(app, ["run", str(config), "-q"]).exit_code == 0


def test_a_labelled_problem_without_parameters_runs_under_its_label(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(TESTS))
    config = write(tmp_path, "labelled", grid={
        "problem": [{"problem": "hostile:Quad", "label": "quad"}], "lambda": [0.5],
        "method": ["hostile:HONEST"]})
    result = CliRunner().invoke(app, ["run", str(config), "-q"])
    assert result.exit_code == 0, result.output
    assert list(read_stored(tmp_path / "results" / "labelled")["problem"]) == ["quad"]


def test_a_budget_beyond_memory_is_refused_before_anything_runs(tmp_path):
    config = write(tmp_path, "huge", budget=10**12, grid={
        "problem": ["hostile:Quad"], "lambda": [0.5], "method": ["hostile:HONEST"]})
    assert "less than or equal to 1000000000" in one_line(acfs(tmp_path, "run", config.name))
    assert not (tmp_path / "results").exists()
