"""Local worker processes for a grid: one group of cells per worker at a time, so a worker
that dies or hangs is known by the cell it was computing (DESIGN.md section 5).

A general process pool (joblib's loky, which serves a run's parallel draws, where one failed
piece fails the request anyway) fails every task it holds when one worker dies
(tests/test_pool_direct.py shows it) and cannot stop one task that never returns. Here each
worker is a process of our own, connected by a pipe, and the parent knows what each one is
computing:

* a worker that dies (``os._exit`` in a simulator, a crash in native code, the OS killing it)
  fails exactly its group, with the exit status, and a fresh worker takes its place;
* a group that runs past the per-cell ``timeout`` has its worker killed and is recorded as
  timed out;
* workers ignore SIGINT, so Ctrl-C is the parent's alone: it stops the workers in order and
  no worker prints a traceback;
* every worker watches its parent and ends when the parent is gone (even by SIGKILL);
* BLAS and OpenMP are pinned to one thread in every worker (a threaded BLAS may sum in
  another order, and results must not depend on ``n_jobs``).

Workers are started with the ``spawn`` method (a fresh interpreter: no threads or locks
inherited from the parent) and reused for the next group.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from acfs_cli.parallel.process import THREAD_ENV, pin_threads, watch_parent

__all__ = ["THREAD_ENV", "Outcome", "WorkerPool", "pin_threads", "watch_parent"]

#: Seconds a worker is given to end by itself before it is killed.
_GRACE = 2.0
#: What a worker says when it starts on a group.
_STARTED = "started"

Group = Sequence[Any]
Runner = Callable[[Group], list[dict[str, Any]]]


@dataclass
class Outcome:
    """What became of one group: its rows, or why it has none."""

    group: Group
    rows: list[dict[str, Any]] | None = None
    #: "died" (the worker process ended), "timeout", "error" (the rows could not be made or
    #: sent back), or "" when rows came back.
    failure: str = ""
    detail: str = ""
    seconds: float = 0.0


# -- in the worker -------------------------------------------------------------------------------
def _worker_main(conn: Connection, parent: int, runner: Runner,
                 initializer: Callable[[], None] | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent(parent)
    pin_threads()
    if initializer is not None:
        initializer()
    while True:
        try:
            group = conn.recv()
        except (EOFError, OSError):
            break
        if group is None:
            break
        conn.send(_STARTED)  # the time limit counts from here, not from the worker's start
        try:
            result: Any = runner(group)
        except BaseException as exc:  # the runner records failures itself; this is a bug
            result = ("error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(result)
        except (OSError, EOFError):  # the parent is gone
            break
        except Exception as exc:  # rows that cannot be pickled
            conn.send(("error", f"its rows cannot be sent back: {type(exc).__name__}: {exc}"))
    # A plugin may have left a non-daemon thread behind; it must not keep the worker alive.
    os._exit(0)


# -- in the parent -------------------------------------------------------------------------------
def ended_how(exitcode: int | None) -> str:
    """How a worker process ended, from its exit code: ``exit code 7``, ``killed by SIGKILL``,
    or ``killed by signal 40`` for a signal without a name (a real-time signal)."""
    if exitcode is None:
        return "gone"
    if exitcode >= 0:
        return f"exit code {exitcode}"
    try:
        return f"killed by {signal.Signals(-exitcode).name}"
    except ValueError:
        return f"killed by signal {-exitcode}"


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    group: Group | None = None
    started: float = 0.0
    #: Whether the worker has begun the group (a new worker imports first).
    running: bool = False


class WorkerPool:
    """``n`` worker processes running ``runner(group)``; :meth:`run` yields an
    :class:`Outcome` per group as each finishes. Use as a context manager: leaving it stops
    every worker (in order when the run is done, at once when it was interrupted)."""

    def __init__(self, n: int, runner: Runner, *, timeout: float | None = None,
                 initializer: Callable[[], None] | None = None,
                 clock: Callable[[], float] = time.monotonic, daemon: bool = True):
        if n < 1:
            raise ValueError(f"a pool needs at least one worker, got {n}")
        self.n, self.runner, self.timeout, self.initializer = n, runner, timeout, initializer
        self.clock = clock
        self._started: Callable[[Group], None] | None = None
        #: Daemon workers cannot start processes of their own (a cell's draw workers); the
        #: pool stops its workers itself either way, and each watches its parent.
        self.daemon = daemon
        self._ctx = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(now=exc_type is not None)

    def _start(self) -> _Worker:
        parent_end, child_end = self._ctx.Pipe(duplex=True)
        process = self._ctx.Process(
            target=_worker_main, args=(child_end, os.getpid(), self.runner, self.initializer),
            name="acfs-worker", daemon=self.daemon)
        process.start()
        child_end.close()
        worker = _Worker(process, parent_end)
        self._workers.append(worker)
        return worker

    def _retire(self, worker: _Worker, kill: bool) -> None:
        with contextlib.suppress(Exception):
            if kill and worker.process.is_alive():
                worker.process.kill()
            worker.process.join(_GRACE)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(_GRACE)
        with contextlib.suppress(Exception):
            worker.conn.close()
        if worker in self._workers:
            self._workers.remove(worker)

    def run(self, groups: Sequence[Group],
            started: Callable[[Group], None] | None = None) -> Iterator[Outcome]:
        """Compute every group; yield each outcome as it arrives. ``started`` is called with
        each group when its worker begins it."""
        self._started = started
        todo = list(groups)[::-1]
        while todo or any(w.group is not None for w in self._workers):
            idle = [w for w in self._workers if w.group is None]
            while todo and (idle or len(self._workers) < self.n):
                worker = idle.pop() if idle else self._start()
                group = todo.pop()
                try:
                    worker.conn.send(group)
                except (OSError, ValueError):
                    self._retire(worker, kill=True)
                    todo.append(group)
                    continue
                worker.group, worker.started = group, self.clock()
                worker.running = False
            busy = [w for w in self._workers if w.group is not None]
            waiting = {w.conn: w for w in busy} | {w.process.sentinel: w for w in busy}
            ready = wait(list(waiting), timeout=self._wait_time(busy))
            done: set[int] = set()
            for handle in ready:
                worker = waiting[handle]
                if id(worker) in done:
                    continue
                if self._began(worker):
                    continue
                done.add(id(worker))
                yield self._collect(worker)
            for worker in self._overdue([w for w in busy if id(w) not in done]):
                group, seconds = worker.group, self.clock() - worker.started
                self._retire(worker, kill=True)
                yield Outcome(group, failure="timeout", seconds=seconds,
                              detail=f"no result after {self.timeout:g} s; its worker "
                              "was stopped")

    def _overdue(self, busy: list[_Worker]) -> list[_Worker]:
        """The workers whose group has run past the time limit (counted from when the worker
        began it)."""
        if self.timeout is None:
            return []
        now = self.clock()
        return [w for w in busy if w.running and now - w.started > self.timeout]

    def _began(self, worker: _Worker) -> bool:
        """Read the worker's word that it has begun its group, if that is what waits; the
        time limit counts from then."""
        if worker.running:
            return False
        try:
            if worker.conn.poll() and worker.conn.recv() == _STARTED:
                worker.running, worker.started = True, self.clock()
                if self._started is not None:
                    self._started(worker.group)
                return True
        except (EOFError, OSError):
            pass
        return False

    def _wait_time(self, busy: list[_Worker]) -> float | None:
        running = [w for w in busy if w.running]
        if self.timeout is None or not running:
            return None
        first = min(w.started for w in running)
        return max(0.0, first + self.timeout - self.clock()) + 0.01

    def _collect(self, worker: _Worker) -> Outcome:
        group, seconds = worker.group, self.clock() - worker.started
        try:
            if worker.conn.poll():
                result = worker.conn.recv()
                worker.group = None
                if isinstance(result, tuple):
                    return Outcome(group, failure="error", detail=result[1], seconds=seconds)
                return Outcome(group, rows=result, seconds=seconds)
        except (EOFError, OSError):
            pass
        except Exception as exc:  # rows that cannot be unpickled here
            self._retire(worker, kill=True)
            return Outcome(group, failure="died", seconds=seconds,
                           detail=f"its result could not be read back: {type(exc).__name__}: "
                           f"{exc}")
        worker.process.join(_GRACE)
        code = worker.process.exitcode
        self._retire(worker, kill=True)
        return Outcome(group, failure="died", seconds=seconds,
                       detail=f"its worker process ended ({ended_how(code)}) while computing "
                       "it: os._exit or a crash in the simulator or method, or the system "
                       "stopped it (out of memory?)")

    def close(self, now: bool = False) -> None:
        """Stop every worker: ask idle ones to end, kill busy ones (all of them when
        ``now``)."""
        for worker in list(self._workers):
            if not now and worker.group is None:
                with contextlib.suppress(Exception):
                    worker.conn.send(None)
        for worker in list(self._workers):
            self._retire(worker, kill=now or worker.group is not None)
