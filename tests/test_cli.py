"""The command line in-process (Typer's CliRunner) and as a process that is killed and resumed."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from acfs_cli.cli import app
from acfs_cli.store import read_results

TINY = {
    "cem-so": {"n_iter": 3, "population": 10, "n_mc": 30, "polish_n": 20, "polish_draws": 400,
               "polish_maxiter": 3},
    "acfs": {"n_a": 150, "n_trees": 10, "cem_iters": 2, "cem_pop": 6, "cem_draws": 30,
             "de_iters": 3, "de_pop": 8, "n_c": 20, "n_f": 50, "n_b": 40, "pool_safety": 5,
             "pool_basin": 5, "n_d": 40, "maxiter": 3, "pathwise_n": 20},
}
CONFIG = {
    "name": "tiny",
    "seed": 11,
    "budget": 20_000,
    "replications": 2,
    "n_jobs": 1,
    "final_eval": {"draws": 400, "bootstrap": 50, "precise_draws": 2000},
    "grid": {"dgp": ["dgp1", "dgp2"], "lambda": [0.7], "method": ["cem-so", "acfs"]},
    "methods": TINY,
}
N_CELLS = 8
#: Measured times, and warnings (recorded only when a cell runs in a main thread).
TIMING = ["wall_s", "eval_s", "cpu_s", "warnings"]
runner = CliRunner()


def write_config(folder: Path, name: str = "tiny.yaml", **changes) -> Path:
    path = folder / name
    path.write_text(yaml.safe_dump({**CONFIG, **changes}, sort_keys=False))
    return path


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def same_rows(a: pd.DataFrame, b: pd.DataFrame) -> None:
    a = a.drop(columns=TIMING).sort_values("cell_id").reset_index(drop=True)
    b = b.drop(columns=TIMING).sort_values("cell_id").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b[a.columns])


def tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The tiny experiment run once, uninterrupted."""
    folder = tmp_path_factory.mktemp("reference")
    result = invoke("run", write_config(folder), "--output", folder / "out", "--quiet")
    assert result.exit_code == 0, result.output
    return read_results(folder / "out")


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_run_writes_one_row_per_cell_and_a_rerun_skips_them_all(workdir, reference):
    config = write_config(workdir)
    result = invoke("run", config)
    assert result.exit_code == 0, result.output
    cells = sorted((workdir / "results" / "tiny" / "cells").glob("*.parquet"))
    assert len(cells) == N_CELLS
    assert (workdir / "results" / "tiny" / "results.parquet").is_file()
    rows = read_results(workdir / "results" / "tiny")
    assert len(rows) == N_CELLS and (rows["status"] == "ok").all()
    assert sorted(rows["method"].unique()) == ["acfs", "cem-so"]
    assert "Results (medians over replications)" in result.stdout
    assert "ACFS" in result.stdout and "CEM-SO" in result.stdout and "J_true" in result.stdout
    same_rows(rows, reference)
    report = invoke("report", "results/tiny", "--no-figures")
    assert report.exit_code == 0, report.output
    assert "tiny" in report.stdout

    stamps = {p: p.stat().st_mtime_ns for p in cells}
    again = invoke("run", config)
    assert again.exit_code == 0, again.output
    assert f"0 computed, {N_CELLS} already done, 0 failed" in again.stderr
    assert {p: p.stat().st_mtime_ns for p in cells} == stamps


def test_deleted_cell_is_recomputed_alone_with_identical_numbers(workdir, reference):
    config = write_config(workdir)
    assert invoke("run", config, "-q").exit_code == 0
    victim = sorted((workdir / "results" / "tiny" / "cells").glob("*.parquet"))[3]
    victim.unlink()
    result = invoke("run", config, "-q")
    assert result.exit_code == 0, result.output
    assert f"1 computed, {N_CELLS - 1} already done" in result.stderr
    assert victim.is_file()
    same_rows(read_results(workdir / "results" / "tiny"), reference)


def test_force_recomputes_every_cell(workdir):
    config = write_config(workdir, replications=1, grid={**CONFIG["grid"], "method": ["cem-so"]})
    assert invoke("run", config, "-q").exit_code == 0
    result = invoke("run", config, "-q", "--force")
    assert result.exit_code == 0 and "2 computed, 0 already done" in result.stderr


def _start(workdir: Path, config: Path, output: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "acfs_cli", "run", str(config), "-o", output, "-j", "1", "-q"],
        cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )


def _wait_for_cells(workdir: Path, output: str, proc: subprocess.Popen, n: int = 1) -> int:
    cells = workdir / output / "cells"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        count = len(list(cells.glob("*.parquet"))) if cells.is_dir() else 0
        if count >= n:
            return count
        time.sleep(0.02)
    raise AssertionError(f"no cell landed; the run ended with {proc.poll()}")


def test_killed_run_resumes_to_the_same_table_as_an_uninterrupted_run(workdir, reference):
    config = write_config(workdir)
    proc = _start(workdir, config, "killed")
    _wait_for_cells(workdir, "killed", proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    landed = len(list((workdir / "killed" / "cells").glob("*.parquet")))
    assert 1 <= landed < N_CELLS
    assert not (workdir / "killed" / "results.parquet").exists()
    result = invoke("run", config, "-o", "killed", "-q")
    assert result.exit_code == 0, result.output
    assert f"{N_CELLS - landed} computed, {landed} already done" in result.stderr
    same_rows(read_results(workdir / "killed"), reference)


def test_ctrl_c_stops_cleanly_and_says_how_to_resume(workdir):
    config = write_config(workdir)
    proc = _start(workdir, config, "stopped")
    _wait_for_cells(workdir, "stopped", proc)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "--output stopped` to resume" in err
    assert "Traceback" not in err
    stored = read_results(workdir / "stopped")
    assert 1 <= len(stored) < N_CELLS and (stored["status"] == "ok").all()


def test_failing_cell_is_recorded_and_the_other_cells_finish(workdir):
    config = write_config(workdir, replications=1,
                          grid={"dgp": ["dgp2", "test_runner:ExplodingProblem"],
                                "lambda": [0.7], "method": ["cem-so"]})
    result = invoke("run", config)
    assert result.exit_code == 1, result.output
    assert "1 failed" in result.stderr and "simulator crashed" in result.stderr
    rows = read_results(workdir / "results" / "tiny").set_index("dgp")
    assert rows.loc["dgp2", "status"] == "ok"
    assert rows.loc["test_runner:ExplodingProblem", "status"] == "error"
    status = invoke("status", config)
    assert status.exit_code == 0
    assert "2 cells: 1 done, 1 failed, 0 missing" in status.stdout
    assert "simulator crashed" in " ".join(status.stdout.split())


def test_dask_backend_gives_the_same_rows(workdir, reference):
    from distributed import LocalCluster

    config = write_config(workdir)
    with LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                      dashboard_address=None) as cluster:
        result = invoke("run", config, "--scheduler", cluster.scheduler_address, "-q")
    assert result.exit_code == 0, result.output
    same_rows(read_results(workdir / "results" / "tiny"), reference)


def test_status_counts_done_failed_and_missing_cells(workdir):
    config = write_config(workdir)
    result = invoke("status", config)
    assert result.exit_code == 0, result.output
    assert f"{N_CELLS} cells: 0 done, 0 failed, {N_CELLS} missing" in result.stdout
    assert not (workdir / "results").exists()


BAD_CONFIGS = {
    "unknown key": ({"budgett": 5}, "unknown key 'budgett'"),
    "unknown dgp": ({"grid": {**CONFIG["grid"], "dgp": ["dgp7"]}}, "known problems: dgp1, dgp2"),
    "unknown method": ({"grid": {**CONFIG["grid"], "method": ["bo"]}}, "known methods: "),
    "negative lambda": ({"grid": {**CONFIG["grid"], "lambda": [-1]}}, "lambda must be"),
    "alpha out of range": ({"alpha": 1.5}, "alpha must lie strictly between 0 and 1"),
    "budget zero": ({"budget": 0}, "budget"),
    "replications zero": ({"replications": 0}, "replications must be a positive count"),
    "empty grid": ({"grid": {**CONFIG["grid"], "dgp": []}}, "grid.dgp: must not be empty"),
    "unknown parameter": ({"methods": {"acfs": {"n_q": 1}}}, "has no parameter n_q"),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_configuration_exits_2_with_one_line_and_writes_nothing(workdir, case):
    changes, message = BAD_CONFIGS[case]
    config = write_config(workdir, **changes)
    before = tree(workdir)
    result = invoke("run", config)
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.output and result.stdout == ""
    assert tree(workdir) == before


BAD_INVOCATIONS = {
    "missing file": (["run", "nope.yaml"], "nope.yaml: no such file"),
    "malformed yaml": (["run", "broken.yaml"], "malformed YAML: line 3"),
    "replications option zero": (["run", "tiny.yaml", "--replications", "0"],
                                 "replications must be a positive count"),
    "replications option garbage": (["run", "tiny.yaml", "-r", "a-b"], "--replications"),
    "output below a file": (["run", "tiny.yaml", "--output", "afile/out"], "not a folder"),
    "unknown backend": (["run", "tiny.yaml", "--backend", "mpi"], "unknown backend 'mpi'"),
    "dask without scheduler": (["run", "tiny.yaml", "--backend", "dask"], "--scheduler"),
    "unreachable scheduler": (["run", "tiny.yaml", "--scheduler", "nonsense://x"],
                              "cannot connect to the Dask scheduler"),
    "wrong kind for ablate": (["ablate", "tiny.yaml"], "not 'ablation'"),
    "sensitivity default config": (["sensitivity", "--replications", "0"],
                                   "configs/sensitivity.yaml: replications"),
    "ablate default config": (["ablate", "-r", "-3"], "configs/ablation.yaml: replications"),
}


@pytest.mark.parametrize("case", sorted(BAD_INVOCATIONS))
def test_bad_invocation_exits_2_with_one_line_and_writes_nothing(workdir, case):
    args, message = BAD_INVOCATIONS[case]
    write_config(workdir)
    (workdir / "broken.yaml").write_text("name: x\ngrid: [a\n  b: c\n")
    (workdir / "afile").write_text("not a folder")
    before = tree(workdir)
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.output
    assert tree(workdir) == before


def test_no_arguments_prints_help():
    result = invoke()
    assert result.exit_code == 0
    for command in ("run", "ablate", "sensitivity", "report", "list", "status"):
        assert command in result.stdout
    assert "acfs run configs/main.yaml" in result.stdout


def test_run_help_explains_options_with_examples():
    result = invoke("run", "--help")
    assert result.exit_code == 0
    for option in ("--replications", "--n-jobs", "--output", "--force", "--backend",
                   "--scheduler"):
        assert option in result.stdout
    assert "Examples" in result.stdout and "configs/quick.yaml" in result.stdout


def test_list_shows_problems_methods_and_parameter_defaults():
    result = invoke("list")
    assert result.exit_code == 0, result.output
    for name in ("dgp1", "dgp2", "acfs", "gp-bo", "cem-so", "sgd-cvar", "kde-so", "acfs-noav"):
        assert name in result.stdout
    assert re.search(r"n_a\s*│\s*1200\b", result.stdout)
    assert "acfs with antithetic=false" in " ".join(result.stdout.split())
    one = invoke("list", "acfs-noav")
    assert one.exit_code == 0 and re.search(r"antithetic\s*│\s*false \(fixed\)", one.stdout)
    assert "dgp1" not in one.stdout
    assert invoke("list", "nope").exit_code == 2


def test_report_passes_its_options_to_the_report(monkeypatch, workdir):
    calls = []

    class ReportError(Exception):
        pass

    def report_experiments(paths, *, latex, csv, figures=True, reference="acfs",
                           results_root=Path("results"), console=None):
        calls.append((paths, latex, csv, figures, reference, results_root))
        if paths and paths[0].name == "bad":
            raise ReportError("bad: no results yet")
        return 0

    fake = types.ModuleType("acfs_cli.report")
    fake.report_experiments, fake.ReportError = report_experiments, ReportError
    monkeypatch.setitem(sys.modules, "acfs_cli.report", fake)
    assert invoke("report").exit_code == 0
    assert calls[-1] == ([], False, False, True, "acfs", Path("results"))
    result = invoke("report", "results/a", "results/b", "--latex", "--csv", "--no-figures",
                    "--reference", "gp-bo")
    assert result.exit_code == 0
    assert calls[-1] == ([Path("results/a"), Path("results/b")], True, True, False, "gp-bo",
                         Path("results"))
    bad = invoke("report", "bad")
    assert bad.exit_code == 2 and bad.stderr == "error: bad: no results yet\n"


def test_python_dash_m_is_the_same_command_line(workdir):
    out = subprocess.run([sys.executable, "-m", "acfs_cli", "--help"], capture_output=True,
                         text=True, check=True, cwd=workdir).stdout
    assert "Usage: acfs" in out or "acfs [OPTIONS]" in textwrap.dedent(out)
