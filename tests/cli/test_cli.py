"""The command line in-process (Typer's CliRunner) and as a process that is killed and resumed."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from gates import closed_gate
from typer.testing import CliRunner

from acfs_cli.cli import app
from acfs_cli.methods.registry import BUILTIN
from acfs_cli.problems import PROBLEMS
from acfs_cli.results.store import read_stored

TINY = {
    "cem-so": {"n_iter": 3, "population": 10, "n_mc": 30, "polish_n": 20, "polish_draws": 400,
               "polish_maxiter": 3},
    "acfs": {"n_a": 150, "n_trees": 10, "cem_iters": 2, "cem_pop": 6, "cem_draws": 30,
             "de_iters": 3, "de_pop": 8, "n_c": 20, "n_f": 50, "n_b": 40, "pool_safety": 5,
             "pool_basin": 5, "n_d": 40, "maxiter": 3, "pathwise_n": 20},
}
#: Seconds a command that must fail at once may take on a loaded 2-core machine (its start-up
#: there alone has taken 15-20 s); what would hang is ended by the subprocess' timeout.
HANG = 55

CONFIG = {
    "name": "tiny",
    "seed": 11,
    "budget": 20_000,
    "replications": 2,
    "n_jobs": 1,
    "final_eval": {"draws": 400, "bootstrap": 50, "precise_draws": 2000},
    "grid": {"problem": ["dgp1", "dgp2"], "lambda": [0.7], "method": ["cem-so", "acfs"]},
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
    return read_stored(folder / "out")


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
    rows = read_stored(workdir / "results" / "tiny")
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
    (workdir / "results" / "tiny" / "results.parquet").unlink()  # it holds the cell too
    result = invoke("run", config, "-q")
    assert result.exit_code == 0, result.output
    assert f"1 computed, {N_CELLS - 1} already done" in result.stderr
    assert victim.is_file()
    same_rows(read_stored(workdir / "results" / "tiny"), reference)


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
    same_rows(read_stored(workdir / "killed"), reference)


def test_ctrl_c_stops_cleanly_and_says_how_to_resume(workdir):
    # The second problem's cells never finish in the started process (a closed gate), so
    # Ctrl-C always lands while a cell is computing, after the first one was stored.
    config = write_config(workdir, grid={
        "problem": ["dgp2", {"problem": "gates:GatedDGP2", "params": {"gated": True},
                         "label": "held"}],
        "lambda": [0.7], "method": ["cem-so"]})
    env = {**closed_gate(), "PYTHONPATH": str(Path(__file__).parents[1])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "acfs_cli", "run", str(config), "-o", "stopped", "-j", "1", "-q"],
        cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, env=env)
    _wait_for_cells(workdir, "stopped", proc)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "--output stopped` to resume" in err
    assert "Traceback" not in err
    stored = read_stored(workdir / "stopped")
    assert len(stored) == 1 and (stored["status"] == "ok").all()
    assert set(stored["problem"]) == {"dgp2"}


def test_failing_cell_is_recorded_and_the_other_cells_finish(workdir):
    config = write_config(workdir, replications=1,
                          grid={"problem": ["dgp2", "exploding:ExplodingProblem"],
                                "lambda": [0.7], "method": ["cem-so"]})
    result = invoke("run", config)
    assert result.exit_code == 1, result.output
    assert "1 failed" in result.stderr and "simulator crashed" in result.stderr
    rows = read_stored(workdir / "results" / "tiny").set_index("problem")
    assert rows.loc["dgp2", "status"] == "ok"
    assert rows.loc["exploding:ExplodingProblem", "status"] == "error"
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
    same_rows(read_stored(workdir / "results" / "tiny"), reference)


def test_status_counts_done_failed_and_missing_cells(workdir):
    config = write_config(workdir)
    result = invoke("status", config)
    assert result.exit_code == 0, result.output
    assert f"{N_CELLS} cells: 0 done, 0 failed, {N_CELLS} missing" in result.stdout
    assert not (workdir / "results").exists()


BAD_CONFIGS = {
    "unknown key": ({"budgett": 5}, "unknown key 'budgett'"),
    "unknown problem": ({"grid": {**CONFIG["grid"], "problem": ["dgp7"]}},
                        "known problems: dgp1, dgp2"),
    "unknown method": ({"grid": {**CONFIG["grid"], "method": ["bo"]}}, "known methods: "),
    "negative lambda": ({"grid": {**CONFIG["grid"], "lambda": [-1]}}, "lambda must be"),
    "alpha out of range": ({"alpha": 1.5}, "alpha must lie strictly between 0 and 1"),
    "budget zero": ({"budget": 0}, "budget"),
    "replications zero": ({"replications": 0}, "replications must be a positive count"),
    "empty grid": ({"grid": {**CONFIG["grid"], "problem": []}}, "grid.problem: must not be empty"),
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
                                 "--replications: must be a positive count"),
    "replications option garbage": (["run", "tiny.yaml", "-r", "a-b"], "--replications"),
    "output below a file": (["run", "tiny.yaml", "--output", "afile/out"], "not a folder"),
    "unknown backend": (["run", "tiny.yaml", "--backend", "mpi"], "unknown backend 'mpi'"),
    "dask without scheduler": (["run", "tiny.yaml", "--backend", "dask"], "--scheduler"),
    "malformed scheduler": (["run", "tiny.yaml", "--scheduler", "nonsense://x"],
                            "'nonsense://x' is not a scheduler address (tcp://HOST:PORT)"),
    "scheduler port out of range": (["run", "tiny.yaml", "--scheduler", "tcp://localhost:99999"],
                                    "is not a scheduler address"),
    "scheduler without a port": (["run", "tiny.yaml", "--scheduler", "10.0.0.5"],
                                 "is not a scheduler address"),
    "scheduler nobody listens on": (["run", "tiny.yaml", "--scheduler", "tcp://127.0.0.1:9"],
                                    "nothing answers at tcp://127.0.0.1:9"),
    "replications with an underscore": (["run", "tiny.yaml", "-r", "1_0"], "got '1_0'"),
    "replications as a float": (["run", "tiny.yaml", "-r", "1e3"], "got '1e3'"),
    "a billion replications": (["run", "tiny.yaml", "-r", "0-999999999"],
                               "1,000,000,000 replications are more than one run may hold"),
    "a billion replications by count": (["run", "tiny.yaml", "-r", "1000000000"],
                                        "1,000,000,000 replications are more than one run"),
    "empty output option": (["run", "tiny.yaml", "--output", ""], "--output: must name a folder"),
    "wrong kind for ablate": (["ablate", "tiny.yaml"], "not 'ablation'"),
    # a bad value given on the command line is the option's, not the file's
    "sensitivity default config": (["sensitivity", "--replications", "0"],
                                   "--replications: must be a positive count, got 0"),
    "ablate default config": (["ablate", "-r", "-3"], "--replications: must be a positive count"),
    "bad n_jobs": (["run", "-j", "0"], "--n-jobs: must be a positive count or -1"),
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
    summary = invoke("list")  # a line each
    assert summary.exit_code == 0, summary.output
    lines = summary.stdout.splitlines()
    for name in ("dgp1", "dgp2", "acfs", "gp-bo", "cem-so", "sgd-cvar", "kde-so", "acfs-noav"):
        assert sum(line.startswith(f"  {name} ") for line in lines) == 1
    # a line per problem and per method, and a few headings
    assert len(lines) <= len(PROBLEMS) + len(BUILTIN) + 8 and "│" not in summary.stdout
    result = invoke("list", "--all")
    assert result.exit_code == 0, result.output
    assert re.search(r"n_a\s*│\s*1200\b", result.stdout)
    assert "acfs with antithetic=false" in " ".join(result.stdout.split())
    one = invoke("list", "acfs-noav")
    assert one.exit_code == 0 and re.search(r"antithetic\s*│\s*false \(fixed\)", one.stdout)
    assert "dgp1" not in one.stdout
    assert invoke("list", "nope").exit_code == 2


def test_list_says_which_methods_ask_for_one_decision_at_a_time():
    def said(name: str) -> str:
        result = invoke("list", name)
        assert result.exit_code == 0, result.output
        return " ".join(result.stdout.split())

    assert ("Parallel draws: asks for the rows of several decisions at once wherever its "
            "algorithm allows.") in said("cem-so")
    assert "Parallel draws: one decision at a time: SimOpt's solver asks for one decision's" \
        in said("simopt-neldmd")
    assert "each Expected-Improvement step proposes one decision" in said("gp-bo")


def test_report_passes_its_options_to_the_report(monkeypatch, workdir):
    calls = []

    class ResultsError(Exception):
        pass

    def report_experiments(paths, *, latex, csv, figures=True, baseline=None,
                           results_root=Path("results"), optima=None, console=None,
                           errors=None):
        calls.append((paths, latex, csv, figures, baseline, results_root, optima))
        if paths and paths[0].name == "bad":
            raise ResultsError("bad: no results yet")
        return 0

    fake = types.ModuleType("acfs_cli.report")
    fake.report_experiments, fake.ResultsError = report_experiments, ResultsError
    monkeypatch.setitem(sys.modules, "acfs_cli.report", fake)
    assert invoke("report").exit_code == 0
    assert calls[-1] == ([], False, False, True, None, Path("results"), None)
    result = invoke("report", "results/a", "results/b", "--latex", "--csv", "--no-figures",
                    "--baseline", "gp-bo", "--optima", "elsewhere")
    assert result.exit_code == 0
    assert calls[-1] == ([Path("results/a"), Path("results/b")], True, True, False, "gp-bo",
                         Path("results"), Path("elsewhere"))
    bad = invoke("report", "bad")
    assert bad.exit_code == 2 and bad.stderr == "error: bad: no results yet\n"


def test_python_dash_m_is_the_same_command_line(workdir):
    out = subprocess.run([sys.executable, "-m", "acfs_cli", "--help"], capture_output=True,
                         text=True, check=True, cwd=workdir).stdout
    assert "Usage: acfs" in out or "acfs [OPTIONS]" in textwrap.dedent(out)


def test_an_http_port_is_not_taken_for_a_dask_scheduler(workdir, monkeypatch):
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    import acfs_cli.parallel.cluster

    class Quiet(BaseHTTPRequestHandler):
        def log_message(self, *args):  # the server's log is not the command's output
            pass

    monkeypatch.setattr(acfs_cli.parallel.cluster, "SCHEDULER_TIMEOUT", 0.5)
    server = HTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        config = write_config(workdir)
        before = tree(workdir)
        start = time.monotonic()
        result = invoke("run", config, "--scheduler", f"127.0.0.1:{server.server_port}")
        elapsed = time.monotonic() - start
    finally:
        server.shutdown()
    assert result.exit_code == 2, result.output
    assert "is not a Dask scheduler" in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    # 0.5 s of handshake; dask's own connect timeout, were the check's limit lost, is 30 s
    assert elapsed < 25 and tree(workdir) == before


def test_a_server_that_only_greets_like_dask_fails_in_one_line_without_a_late_traceback(
        workdir):
    # A real process: a failed Client complains from its __del__ only at interpreter exit.
    # A Dask frame header, then garbage, and the connection held open.
    proc, elapsed = _run_against(workdir, *_greeting_server(
        (58).to_bytes(8, "little") + (1).to_bytes(8, "little") + b"\xff" * 200))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: --scheduler: 127.0.0.1:"), proc.stderr
    assert "is not a Dask scheduler" in proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    # a hang is the subprocess' 60 s timeout; how fast the check gives up is timed in-process
    # (test_a_stalling_server_fails_the_check_within_its_handshake_limit), free of start-up
    assert elapsed < HANG


def test_a_server_that_greets_like_dask_and_then_stalls_fails_within_seconds(workdir):
    proc, elapsed = _run_against(workdir, *_stalling_server())
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "no answer to Dask's handshake within 3 s" in proc.stderr
    assert elapsed < HANG


def _run_against(workdir, listener, held) -> tuple[subprocess.CompletedProcess, float]:
    """`acfs run --scheduler` at ``listener``'s port as a process, and its wall time; the
    listener and the connections it ``held`` are closed after."""
    config = write_config(workdir)
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "acfs_cli", "run", str(config), "--scheduler",
             f"127.0.0.1:{listener.getsockname()[1]}"], cwd=workdir, capture_output=True,
            text=True, timeout=60)
    finally:
        listener.close()
        for conn in held:
            conn.close()
    return proc, time.monotonic() - start


def _greeting_server(greeting: bytes):
    """A listener that sends ``greeting`` on each connection and holds it open."""
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    held = []

    def serve():
        with contextlib.suppress(OSError):
            while True:
                conn, _ = listener.accept()
                conn.sendall(greeting)
                held.append(conn)

    threading.Thread(target=serve, daemon=True).start()
    return listener, held


def _stalling_server():
    """A listener that sends a Dask frame header and then nothing, holding each connection."""
    return _greeting_server((64).to_bytes(8, "little") + (2).to_bytes(8, "little"))


@pytest.mark.timeout(120)
def test_a_stalling_server_fails_the_check_within_its_handshake_limit():
    # In-process and after dask is imported, so that the time is the check's alone: its own
    # limit (SCHEDULER_TIMEOUT, 3 s) ends it, where dask's default connect timeout is 30 s.
    import distributed.core  # noqa: F401

    from acfs_cli.parallel.cluster import SCHEDULER_TIMEOUT, check_scheduler

    listener, held = _stalling_server()
    port = listener.getsockname()[1]
    start = time.monotonic()
    try:
        with pytest.raises(ValueError, match="no answer to Dask's handshake within 3 s"):
            check_scheduler(f"127.0.0.1:{port}")
    finally:
        listener.close()
        for conn in held:
            conn.close()
    elapsed = time.monotonic() - start
    assert SCHEDULER_TIMEOUT - 0.1 <= elapsed < SCHEDULER_TIMEOUT + 12


def test_n_jobs_above_the_cores_is_capped_with_a_note(workdir):
    config = write_config(workdir, replications=1, grid={"problem": ["dgp2"], "lambda": [0.7],
                                                         "method": ["cem-so"]})
    result = invoke("run", config, "-j", "1000", "-q")
    assert result.exit_code == 0, result.output
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert f"note: n_jobs 1000 is more than the {cores} cores here: {cores} processes" in (
        result.stderr)
    assert "(this process)" in result.stderr  # never more workers than cells
    from acfs_cli.cli.run import local_workers

    assert local_workers(1000, 50) == (cores, f"n_jobs 1000 is more than the {cores} cores "
                                              f"here: {cores} processes")
    assert local_workers(-1, 50) == (cores, "") and local_workers(1, 50) == (1, "")


def test_unwritable_results_table_is_one_line_and_keeps_the_cells(workdir, monkeypatch):
    import acfs_cli.results.store as store

    real = store.write_parquet_atomic

    def refuse_results(table, path):
        if Path(path).name == "results.parquet":
            raise PermissionError(13, "Permission denied")
        return real(table, path)

    config = write_config(workdir, replications=1)
    with monkeypatch.context() as patch:
        patch.setattr(store, "write_parquet_atomic", refuse_results)
        result = invoke("run", config, "-q")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and result.stderr.count("error:") == 1
    assert "cannot write results/tiny/results.parquet: Permission denied" in result.stderr
    assert "the 4 cells stay in results/tiny/cells" in result.stderr
    assert len(list((workdir / "results" / "tiny" / "cells").glob("*.parquet"))) == 4
    again = invoke("run", config, "-q")  # the folder writable again: consolidated, nothing rerun
    assert again.exit_code == 0 and "0 computed, 4 already done" in again.stderr
    assert (workdir / "results" / "tiny" / "results.parquet").is_file()


@pytest.mark.skipif(os.geteuid() == 0, reason="permission bits do not bind root")
def test_an_unwritable_experiment_folder_with_a_writable_cells_folder_is_refused(workdir):
    config = write_config(workdir, replications=1)
    cells = workdir / "results" / "tiny" / "cells"
    cells.mkdir(parents=True)
    cells.parent.chmod(0o555)
    try:
        result = invoke("run", config, "-q")
    finally:
        cells.parent.chmod(0o755)
    assert result.exit_code == 2 and "cannot write results" in result.stderr
    assert list(cells.iterdir()) == []


def test_another_experiments_folder_is_refused_and_left_intact(workdir):
    first = write_config(workdir, "a.yaml", replications=1,
                         grid={**CONFIG["grid"], "method": ["cem-so"]})
    assert invoke("run", first, "-o", "shared", "-q").exit_code == 0
    before = {p: p.read_bytes() for p in (workdir / "shared").rglob("*") if p.is_file()}
    second = workdir / "b.yaml"
    second.write_text(yaml.safe_dump({**CONFIG, "name": "other", "replications": 1,
                                      "grid": {**CONFIG["grid"], "method": ["cem-so"]}}))
    result = invoke("run", second, "-o", "shared", "-q")
    assert result.exit_code == 2, result.output
    assert "holds the results of experiment 'tiny'" in result.stderr
    assert {p: p.read_bytes() for p in (workdir / "shared").rglob("*") if p.is_file()} == before


def test_a_non_finite_j_is_a_failed_cell_with_a_message(workdir):
    config = write_config(workdir, replications=1, grid={"problem": ["dgp2"], "lambda": [1e308],
                                                         "method": ["cem-so"]})
    result = invoke("run", config, "-q")
    assert result.exit_code == 1, result.output
    row = read_stored(workdir / "results" / "tiny").iloc[0]
    assert row["status"] == "error"
    assert row["error"].startswith("NonFiniteResult: J = inf at x*")


def zero_data_pages(path: Path) -> None:
    """Overwrite everything between the leading magic and the footer with zeros."""
    data = bytearray(path.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")
    data[4 : len(data) - 8 - footer] = bytes(len(data) - 12 - footer)
    path.write_bytes(bytes(data))


def test_a_cell_zeroed_behind_its_footer_is_damaged_then_computed_again(workdir, reference):
    import pyarrow.parquet as pq

    config = write_config(workdir)
    assert invoke("run", config, "-q").exit_code == 0
    victim = sorted((workdir / "results" / "tiny" / "cells").glob("*.parquet"))[2]
    zero_data_pages(victim)
    assert pq.read_metadata(victim).num_rows == 1  # the footer alone looks fine
    status = invoke("status", config)
    assert status.exit_code == 0, status.output
    assert f"{N_CELLS} cells: {N_CELLS - 1} done, 0 failed, 1 missing" in status.stdout
    assert "1 cell file(s) are damaged; `acfs run` computes them again" in status.stdout
    result = invoke("run", config, "-q")
    assert result.exit_code == 0, result.output
    assert "1 stored cell file(s) could not be read back (damaged): computed again" in (
        " ".join(result.stderr.split()))
    assert f"1 computed, {N_CELLS - 1} already done" in result.stderr
    same_rows(read_stored(workdir / "results" / "tiny"), reference)


def test_report_reads_the_cells_when_the_results_table_is_truncated(workdir):
    config = write_config(workdir, replications=1)
    assert invoke("run", config, "-q").exit_code == 0
    table = workdir / "results" / "tiny" / "results.parquet"
    table.write_bytes(table.read_bytes()[: table.stat().st_size // 2])
    result = invoke("report", "results/tiny", "--no-figures")
    assert result.exit_code == 0, result.output
    assert "note: results.parquet cannot be read" in result.stdout
    assert "4 cells: 4 complete, 0 failed, 0 missing" in result.stdout
    for cell in (workdir / "results" / "tiny" / "cells").glob("*.parquet"):
        cell.unlink()
    alone = invoke("report", "results/tiny", "--no-figures")
    assert alone.exit_code == 2 and "Traceback" not in alone.output
    assert alone.stderr.startswith("error: ") and alone.stderr.count("\n") == 1


MIX = {"name": "mix", "seed": 1, "budget": 20_000, "replications": 4, "n_jobs": 1,
       "final_eval": {"draws": 500, "bootstrap": 50},
       "grid": {"problem": ["dgp2"], "lambda": [0.7], "method": ["cem-so", "saa-ps"]},
       "methods": {"cem-so": TINY["cem-so"], "saa-ps": {"cem_iter": 2, "final_candidates": 2}}}


def _mix(folder: Path, name: str, **changes) -> Path:
    path = folder / name
    path.write_text(yaml.safe_dump({**MIX, **changes}, sort_keys=False))
    return path


@pytest.mark.parametrize("change", ["method setting", "seed"])
def test_report_describes_the_current_configuration_and_names_what_it_leaves_out(workdir,
                                                                                 change):
    first = _mix(workdir, "first.yaml")
    assert invoke("run", first, "-q").exit_code == 0
    if change == "seed":
        second = _mix(workdir, "second.yaml", seed=2)
        left_out, differ = 8, "seed 1 (current 2)"
    else:
        cem = {**MIX["methods"]["cem-so"], "population": 12, "n_mc": 24}
        second = _mix(workdir, "second.yaml", methods={**MIX["methods"], "cem-so": cem})
        left_out, differ = 4, "cem-so n_mc 30 (current 24); cem-so population 10 (current 12)"
    assert invoke("run", second, "-q").exit_code == 0
    current = read_stored(workdir / "results" / "mix" / "results.parquet")
    result = invoke("report", "results/mix", "--no-figures", "--baseline", "saa-ps",
                    "--csv")
    assert result.exit_code == 0, result.output
    out = " ".join(result.stdout.split())
    assert f"left out {left_out} cell(s) of another configuration" in out and differ in out
    assert "8 cells: 8 complete, 0 failed, 0 missing" in out
    tables = workdir / "results" / "mix" / "tables"
    summary = pd.read_csv(tables / "full.csv").set_index("config")
    for method in ("cem-so", "saa-ps"):
        ok = current[current["method"] == method]
        assert summary.loc[method, "J_med"] == pytest.approx(ok["J"].median(), rel=1e-12)
    tests = pd.read_csv(tables / "wilcoxon.csv")
    assert tests["n_pairs"].tolist() == [4]
    ours = current.set_index(["method", "rep"])["J"]
    diffs = [ours[("saa-ps", r)] - ours[("cem-so", r)] for r in range(4)]
    assert tests.loc[0, "med_diff"] == pytest.approx(float(np.median(diffs)), rel=1e-12)
