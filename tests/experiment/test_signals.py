"""A run stopped from outside, as a real process with two local workers: SIGTERM stops it in
order (exit 143, workers shut down, the command to resume), SIGKILL leaves no worker behind,
and the resumed run gives the table of an uninterrupted one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from gates import closed_gate

from acfs_cli.experiment.config import parse
from acfs_cli.experiment.grid import build_cells
from acfs_cli.experiment.runner import run_grid
from acfs_cli.results.store import ResultStore, read_stored

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(),
                                reason="reads the process tree from /proc")

TESTS = Path(__file__).resolve().parents[1]
TIMING = ["wall_s", "eval_s", "cpu_s", "warnings"]


#: Two problems, one of whose cells never finish in the processes the tests start (a closed
#: gate: tests/gates.py); in this process both compute DGP2's numbers. So whatever the speed
#: of the machine, a signal always finds cells unfinished, and at least one finished.
PROBLEMS = [{"problem": "gates:GatedDGP2", "params": {"gated": False}, "label": "open"},
            {"problem": "gates:GatedDGP2", "params": {"gated": True}, "label": "held"}]
CONFIG = {
    "name": "signals", "seed": 3, "budget": 20_000, "replications": 3, "n_jobs": 2,
    "final_eval": {"draws": 400, "bootstrap": 20},
    "grid": {"problem": PROBLEMS, "lambda": [0.7], "method": ["cem-so"]},
    "methods": {"cem-so": {"n_iter": 3, "population": 10, "n_mc": 30, "polish_n": 20,
                           "polish_draws": 400, "polish_maxiter": 3}},
}
N_CELLS = 6


def children(pid: int) -> set[int]:
    """Direct children of a process."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            pass
    return found


def alive(pid: int) -> bool:
    """Running and not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def workers(pid: int) -> set[int]:
    """The worker processes among a process's children."""
    out = set()
    for child in children(pid):
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                out.add(child)
        except OSError:
            pass
    return out


def start(folder: Path) -> subprocess.Popen:
    config = folder / "signals.yaml"
    config.write_text(yaml.safe_dump(CONFIG))
    env = {**closed_gate(), "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get(
        "PYTHONPATH", "")])}
    return subprocess.Popen(
        [sys.executable, "-m", "acfs_cli", "run", "signals.yaml", "-o", "out", "-q"],
        cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )


def wait_for_two_busy_workers(proc: subprocess.Popen, folder: Path) -> set[int]:
    """The two workers, once the first cell has landed (the held cells keep them busy)."""
    cells = folder / "out" / "cells"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        busy = workers(proc.pid)
        if len(busy) >= 2 and cells.is_dir() and any(cells.glob("*.parquet")):
            return busy
        time.sleep(0.02)
    raise AssertionError(f"no two workers at work; the run ended with {proc.poll()}")


def wait_gone(pids: set[int], seconds: float = 5.0) -> set[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = {p for p in pids if alive(p)}
        if not left:
            return left
        time.sleep(0.05)
    return {p for p in pids if alive(p)}


def same_rows(a: pd.DataFrame, b: pd.DataFrame) -> None:
    a = a.drop(columns=TIMING).sort_values("cell_id").reset_index(drop=True)
    b = b.drop(columns=TIMING).sort_values("cell_id").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b[a.columns])


@pytest.fixture
def uninterrupted(tmp_path):
    """The experiment run in this process, without interruption."""
    store = ResultStore(tmp_path / "uninterrupted")
    assert run_grid(build_cells(parse(CONFIG)), store).failed == 0
    return read_stored(store.root)


def test_sigterm_shuts_the_workers_down_and_says_how_to_resume(tmp_path):
    proc = start(tmp_path)
    pool = wait_for_two_busy_workers(proc, tmp_path)
    everything = children(proc.pid)
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert "stopped by SIGTERM" in err
    assert "run `acfs run signals.yaml --output out` to resume" in err
    assert "Traceback" not in err
    assert wait_gone(pool | everything) == set()
    store = ResultStore(tmp_path / "out")
    assert not store.results_path.exists()
    landed = sorted(store.cells_dir.glob("*.parquet"))
    assert 1 <= len(landed) <= N_CELLS // 2  # the held cells never finish
    assert all(store.status(p.stem) == "ok" for p in landed)
    assert not list(store.cells_dir.glob(".*"))  # nothing half written


def test_sigkill_leaves_no_worker_and_the_resumed_run_gives_the_same_table(tmp_path,
                                                                          uninterrupted):
    proc = start(tmp_path)
    pool = wait_for_two_busy_workers(proc, tmp_path)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert wait_gone(pool) == set(), "workers outlived their parent"
    store = ResultStore(tmp_path / "out")
    with store.lock():  # no stale lock: the dead run's lock went with it
        pass
    landed = len(list(store.cells_dir.glob("*.parquet")))
    assert 1 <= landed <= N_CELLS // 2
    summary = run_grid(build_cells(parse(CONFIG)), store)
    assert (summary.skipped, summary.computed, summary.failed) == (landed, N_CELLS - landed, 0)
    same_rows(read_stored(store.root), uninterrupted)
