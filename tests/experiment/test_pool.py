"""The local worker pool: a group whose worker dies, hangs or fails to answer fails alone,
with the reason, and the other groups' rows come back (real worker processes)."""

from __future__ import annotations

import os
import signal
import time

import pytest

from acfs_cli.experiment.pool import WorkerPool, _Worker


def runner(group):
    """What a worker computes: ``("ok", k)`` gives a row; the others misbehave."""
    what, arg = group
    if what == "signal":
        os.kill(os.getpid(), arg)
        time.sleep(60)  # the signal ends the process first
    if what == "sleep":
        time.sleep(arg)
    if what == "raise":
        raise RuntimeError("a bug in the runner")
    return [{"group": arg}]


def outcomes(groups, **kw):
    with WorkerPool(2, runner, **kw) as pool:
        return {o.group: o for o in pool.run(groups)}


@pytest.mark.skipif(not hasattr(signal, "SIGRTMIN"), reason="needs real-time signals")
def test_a_worker_killed_by_a_real_time_signal_fails_its_group_alone():
    number = signal.SIGRTMIN + 6  # 40 on Linux: no name in signal.Signals
    with pytest.raises(ValueError):
        signal.Signals(number)
    got = outcomes([("signal", number), ("ok", 1)])
    killed = got[("signal", number)]
    assert killed.failure == "died" and killed.rows is None
    assert f"its worker process ended (killed by signal {number})" in killed.detail
    assert got[("ok", 1)].rows == [{"group": 1}]


def test_an_error_reply_of_a_worker_fails_its_group_and_is_never_taken_as_rows():
    got = outcomes([("raise", 0), ("ok", 1), ("ok", 2)])
    failed = got[("raise", 0)]
    assert failed.failure == "error" and failed.rows is None
    assert failed.detail == "RuntimeError: a bug in the runner"
    assert got[("ok", 1)].rows == [{"group": 1}] and got[("ok", 2)].rows == [{"group": 2}]


def test_a_group_past_its_time_limit_is_stopped_and_the_others_finish():
    got = outcomes([("sleep", 120), ("ok", 1)], timeout=1.0)
    late = got[("sleep", 120)]
    assert late.failure == "timeout" and late.rows is None
    assert late.seconds < 60  # stopped, not waited for
    assert got[("ok", 1)].rows == [{"group": 1}]


def test_the_time_limit_is_kept_to_the_clock_not_late():
    """The pool waits exactly until the first running group's limit and stops a group as
    soon as it is past it (a clock of the test's own: no race)."""
    now = [100.0]
    pool = WorkerPool(1, runner, timeout=5.0, clock=lambda: now[0])
    first = _Worker(process=None, conn=None, group=("a", 0), started=98.0, running=True)
    second = _Worker(process=None, conn=None, group=("b", 0), started=99.0, running=True)
    starting = _Worker(process=None, conn=None, group=("c", 0), started=90.0, running=False)
    busy = [first, second, starting]
    assert pool._wait_time(busy) == pytest.approx(3.0, abs=0.02)  # first's limit at 103
    assert pool._overdue(busy) == []
    now[0] = 103.001
    assert pool._overdue(busy) == [first]  # the one still importing is not counted
    now[0] = 104.5
    assert pool._overdue(busy) == [first, second]
    assert pool._wait_time(busy) == pytest.approx(0.0, abs=0.02)
    assert WorkerPool(1, runner)._wait_time(busy) is None  # no limit: wait for results
