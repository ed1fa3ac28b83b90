"""Why a grid's cells run in worker processes of the project's own (experiment/pool.py) and
not in joblib's loky pool: when a worker dies, loky fails every task it still holds, the pool
fails one group, its own, and a fresh worker computes the rest (real worker processes)."""

from __future__ import annotations

import os
import signal

import pytest
from joblib.externals.loky import ProcessPoolExecutor
from joblib.externals.loky.process_executor import BrokenProcessPool

from acfs_cli.experiment.pool import WorkerPool, ended_how


def task(what: str) -> list[dict]:
    """A group of cells as a worker computes it: ``"dies"`` ends its process the way a
    simulator's ``os._exit`` or a crash in native code does."""
    if what == "dies":
        os._exit(3)
    return [{"group": what}]


GROUPS = ["dies", "first", "second"]


def test_a_dying_worker_fails_every_task_loky_holds():
    # one worker, the dying task first: the others wait behind it, and die with the pool
    with ProcessPoolExecutor(max_workers=1) as pool:
        futures = [pool.submit(task, g) for g in GROUPS]
        for future in futures:
            with pytest.raises(BrokenProcessPool):
                future.result()


def test_a_dying_worker_fails_only_its_own_group_in_the_pool():
    with WorkerPool(1, task) as pool:
        got = {o.group: o for o in pool.run(GROUPS)}
    assert got["dies"].failure == "died" and got["dies"].rows is None
    assert "its worker process ended (exit code 3)" in got["dies"].detail
    assert got["first"].rows == [{"group": "first"}]
    assert got["second"].rows == [{"group": "second"}]


@pytest.mark.parametrize(("code", "said"), [
    (0, "exit code 0"), (3, "exit code 3"), (-signal.SIGKILL, "killed by SIGKILL"),
    (None, "gone")])
def test_how_a_worker_ended_is_said_from_its_exit_code(code, said):
    assert ended_how(code) == said
