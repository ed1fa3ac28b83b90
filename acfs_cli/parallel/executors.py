"""Who simulates the pieces of a run's requests (:mod:`acfs_cli.core.draws`): local worker
processes or a Dask cluster (DESIGN.md section 3).

Both receive the run's problem once - each local worker at its first piece of the run, each
Dask worker by one broadcast - and then only pieces: a decision, a seed and a number of rows
(or a decision's normals). A piece's scenarios are the same wherever it is simulated, so the
answer of a run does not depend on the executor or the number of workers. A request's pieces
are grouped into a few tasks per worker; the answers are put back in the request's order,
and the first piece (in that order) whose simulator failed fails the request with the
problem's one-line SimulatorError and the worker named. A worker that dies, or Ctrl-C, stops
every worker of the run before the error goes on; :meth:`close` ends them when the run is
over (or keeps local ones for the next run).

* :class:`LocalDraws`: loky worker processes (joblib's), started with the ``spawn``-like
  loky method, BLAS pinned to one thread, SIGINT left to the parent, each watching its parent;
  the problem goes by cloudpickle, so a class defined in ``__main__`` or a notebook works.
  No more of them start than the requests have pieces and the cores allow, past the cores
  only for a simulator that waits (:func:`draw_workers`, :func:`waited`).
* :class:`DaskDraws`: a ``distributed.Client`` (or a scheduler's address); the module that
  defines the problem's class is uploaded first when it is a file of the user's
  (:mod:`acfs_cli.parallel.ship`), so an edited simulator replaces the old one.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np

from acfs_cli.core.draws import Piece, task_groups
from acfs_cli.core.problem import SimulatorError
from acfs_cli.parallel import process
from acfs_cli.parallel.process import THREAD_ENV, pin_threads, watch_parent

log = logging.getLogger("acfs")


def _answers(pieces: Sequence[Piece], groups: list[range], answers: list[list[Any]]
             ) -> list[np.ndarray]:
    """The scenarios of every piece in order, or the SimulatorError of the first piece that
    failed (each task stops at its own first failure, so every task before it is whole)."""
    out: list[np.ndarray] = []
    for group, answer in zip(groups, answers, strict=True):
        for item in answer:
            if isinstance(item, tuple):
                raise SimulatorError(item[1])
            out.append(item)
        if len(answer) != len(group):
            raise RuntimeError(f"a task of {len(group)} pieces answered {len(answer)}")
    if len(out) != len(pieces):
        raise RuntimeError(f"{len(out)} answers to {len(pieces)} pieces")
    return out


def draw_pieces(problem, pieces: Sequence[Piece], where: str) -> list[Any]:
    """On a worker: the scenarios of each piece, in order, until the first piece whose
    simulator fails; that one becomes ``(index, message)`` - the problem's one-line
    SimulatorError with the worker (``where``) named - and ends the list (the request
    fails there, as it would in one process)."""
    out: list[Any] = []
    for i, piece in enumerate(pieces):
        try:
            out.append(piece.draw(problem))
        except Exception as exc:  # the problem's checks wrap the simulator's own errors
            what = str(exc) if isinstance(exc, SimulatorError) else (
                f"problem {getattr(problem, 'name', '?')!r}: {type(exc).__name__}: {exc}")
            out.append((i, f"{' '.join(what.split())} (on {where})"))
            break
    return out


# -- local worker processes ------------------------------------------------------------------
#: Seconds a kept local draw worker waits idle for the next run before it ends.
IDLE_SECONDS = 300
#: Local draw workers per core at most, however many are asked for: more than the cores pays
#: only for a simulator that waits (BENCHMARKS.md "Parallel draws": 16 on 2 cores at 10 ms a
#: replication), and a large ``n_jobs`` must not start a process per request's piece.
MAX_PER_CORE = 8
#: The workers of a request waited rather than computed when the time they ran or waited for
#: a core was below this share of their wall time.
WAITING = 0.5
#: Wall seconds a request must keep each worker busy before workers beyond the cores are
#: started for the next (a worker takes about a second to start on a busy machine).
WAIT_WORTH = 0.5


def draw_workers(n_jobs: int | None, cores: int | None = None) -> tuple[int, str]:
    """The most local draw workers a run of ``n_jobs`` may have (-1: the cores), at most
    :data:`MAX_PER_CORE` a core, and the note of a run that asked for more than the cores
    (empty otherwise)."""
    cores = process.available_cores() if cores is None else cores
    want = cores if n_jobs in (None, -1) else int(n_jobs)
    ceiling = MAX_PER_CORE * cores
    if want <= cores:
        return max(1, want), ""
    note = (f"parallel draws: n_jobs {n_jobs} is more than the {cores} core(s) here: workers "
            "beyond the cores start only while the simulator waits rather than computes")
    if want > ceiling:
        note += f", {ceiling} at most ({MAX_PER_CORE} a core)"
    return min(want, ceiling), note


def waited(busy: float, wall: float, workers: int, cores: int, exact: bool = True) -> bool:
    """Whether ``workers`` that took ``wall`` seconds for a request's pieces, ``busy`` of them
    running or ready to run (:func:`process.busy_seconds`), waited rather than computed, long
    enough for another worker to pay: then more workers than the cores may start. Where
    ``busy`` is CPU time alone (not ``exact``), a worker that waited for a core of a loaded
    machine looks idle, so the machine must have cores to spare too."""
    return (wall >= WAIT_WORTH * workers and busy < WAITING * wall
            and (exact or process.machine_load() < cores))


_PROBLEM: Any = None
_TOKEN: str | None = None


def _start(parent: int) -> None:
    """A local worker's start: Ctrl-C is the parent's, BLAS at one thread, an end with the
    parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent(parent)
    pin_threads()


def _draw_local(token: str, path: str, pieces: Sequence[Piece]
                ) -> tuple[list[Any], float, float, bool]:
    """The pieces' scenarios (:func:`draw_pieces`), with the seconds the worker was busy
    (:func:`process.busy_seconds`) and the wall seconds they took; the run's problem is read
    from ``path`` the first time a worker sees the run ``token``."""
    global _PROBLEM, _TOKEN
    import cloudpickle

    if _TOKEN != token:
        _PROBLEM, _TOKEN = None, None
        with open(path, "rb") as f:
            _PROBLEM = cloudpickle.loads(f.read())
        _TOKEN = token
    (busy, exact), wall = process.busy_seconds(), time.perf_counter()
    out = draw_pieces(_PROBLEM, pieces, f"local draw worker pid {os.getpid()}")
    return out, process.busy_seconds()[0] - busy, time.perf_counter() - wall, exact


class _Pool:
    """``size`` loky worker processes, and the code of each module whose problems they have
    loaded (a worker keeps a module it imported: an edited one needs new workers)."""

    def __init__(self, size: int):
        from joblib.externals.loky import ProcessPoolExecutor

        self.size = int(size)
        self.served: dict[str, str] = {}
        self.executor = ProcessPoolExecutor(
            max_workers=self.size, initializer=_start, initargs=(os.getpid(),),
            timeout=IDLE_SECONDS, env={name: "1" for name in THREAD_ENV})

    @property
    def usable(self) -> bool:
        flags = getattr(self.executor, "_flags", None)
        return flags is None or not (flags.broken or flags.shutdown)

    def close(self, now: bool) -> None:
        with contextlib.suppress(Exception):
            self.executor.shutdown(wait=True, kill_workers=now)


#: Pools of ended runs, kept for the next (their workers end after IDLE_SECONDS idle).
_KEPT: list[_Pool] = []
_KEPT_LOCK = threading.Lock()


def _take(need: int, room: int, module: str | None, code: str) -> _Pool:
    """A kept pool of at most ``room`` workers that has not loaded another code of
    ``module`` - the smallest of at least ``need`` workers, else the largest (its workers
    run already: they cost no start) - or a new pool of ``need``; kept pools that can no
    longer serve end."""
    with _KEPT_LOCK:
        for pool in list(_KEPT):
            if not pool.usable or pool.served.get(module or "", code) != code:
                _KEPT.remove(pool)
                pool.close(now=False)
        fits = [p for p in _KEPT if p.size <= room]
        if fits:
            enough = [p for p in fits if p.size >= need]
            pool = (min(enough, key=lambda p: p.size) if enough
                    else max(fits, key=lambda p: p.size))
            _KEPT.remove(pool)
            return pool
    return _Pool(need)


def close_kept() -> None:
    """End every kept pool's workers now."""
    with _KEPT_LOCK:
        pools, _KEPT[:] = list(_KEPT), []
    for pool in pools:
        pool.close(now=False)  # idle: they end at once, and cleanly


class LocalDraws:
    """Local worker processes simulating the pieces of one run's requests: at most
    ``workers``, started as requests have pieces for them, no more than ``cores`` (default:
    this process's) until a request shows the workers waiting rather than computing (then
    twice as many a request, up to ``workers``). With ``keep``, a run's workers are kept
    after it for the next run (:func:`close_kept`); else they end with it.

    The problem goes to the workers by cloudpickle (a class defined in ``__main__`` or a
    notebook works), written once to a file that each worker reads at its first piece."""

    def __init__(self, problem, workers: int, *, cores: int | None = None, keep: bool = False):
        import cloudpickle

        if workers < 1:
            raise ValueError(f"parallel draws need at least one worker, got {workers}")
        self.limit = int(workers)
        self.cores = process.available_cores() if cores is None else int(cores)
        self.keep = keep
        self._name = problem.name
        self._module = problem.module if problem.module != "__main__" else None
        self._code = problem.code
        handle, self._path = tempfile.mkstemp(prefix="acfs-problem-", suffix=".pkl")
        with os.fdopen(handle, "wb") as f:
            f.write(cloudpickle.dumps(problem))
        self._token = uuid.uuid4().hex
        self._pools: list[_Pool] = []
        self._waiting = False

    @property
    def workers(self) -> int:
        """Workers started so far (before the first request: as many as it may start)."""
        started = sum(p.size for p in self._pools)
        return started or min(self.limit, self.cores)

    @property
    def pids(self) -> list[int]:
        """The process ids of the workers alive now."""
        return sorted(pid for p in self._pools
                      for pid in getattr(p.executor, "_processes", {}))

    def _grow(self, n_pieces: int) -> None:
        """Workers for a request of ``n_pieces``: up to the cores, and past them (doubling
        each request) while the last request waited."""
        have = sum(p.size for p in self._pools)
        allowed = min(self.limit, max(self.cores, 2 * have) if self._waiting else self.cores)
        want = min(allowed, n_pieces)
        if want > have:
            pool = _take(want - have, allowed - have, self._module, self._code)
            if self._module is not None:
                pool.served[self._module] = self._code
            self._pools.append(pool)

    def run(self, pieces: Sequence[Piece]) -> list[np.ndarray]:
        from joblib.externals.loky.process_executor import BrokenProcessPool

        if not pieces:
            return []
        self._grow(len(pieces))
        slots = [p.executor for p in self._pools for _ in range(p.size)]
        groups = task_groups(len(pieces), len(slots))
        try:
            futures = [slots[t % len(slots)].submit(_draw_local, self._token, self._path,
                                                    [pieces[i] for i in g])
                       for t, g in enumerate(groups)]
            done = [f.result() for f in futures]
        except BrokenProcessPool as exc:
            self.close(now=True)
            raise SimulatorError(
                f"problem {self._name!r}: a local draw worker process ended while simulating "
                f"(os._exit or a crash in the simulator, or the system stopped it): "
                f"{' '.join(str(exc).split())[:300]}") from None
        except BaseException:  # Ctrl-C, or the pool itself failed
            self.close(now=True)
            raise
        self._waiting = waited(sum(d[1] for d in done), sum(d[2] for d in done), len(slots),
                               self.cores, all(d[3] for d in done))
        return _answers(pieces, groups, [d[0] for d in done])

    def close(self, now: bool = False) -> None:
        """End the run: its workers are kept for the next run (``keep``, not ``now``), else
        end - killed at once when ``now`` (a failure, Ctrl-C), else once idle - and are
        waited for."""
        pools, self._pools = self._pools, []
        if self.keep and not now:
            with _KEPT_LOCK:
                room = MAX_PER_CORE * self.cores - sum(p.size for p in _KEPT)
                for pool in pools:
                    if pool.usable and pool.size <= room:
                        _KEPT.append(pool)
                        room -= pool.size
                    else:
                        pool.close(now=False)
        else:
            for pool in pools:
                pool.close(now=now)
        with contextlib.suppress(OSError):
            os.remove(self._path)

    def __enter__(self) -> LocalDraws:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(now=exc_type is not None)


# -- a Dask cluster --------------------------------------------------------------------------
_pinned = False


def _draw_dask(problem, pieces: Sequence[Piece]) -> list[Any]:
    global _pinned
    from distributed import get_worker

    if not _pinned:  # BLAS at one thread for the worker's life (threads share it)
        pin_threads()
        _pinned = True
    return draw_pieces(problem, pieces, f"Dask worker {get_worker().address}")


def _in_this_process(client) -> bool:
    """Whether every worker of ``client``'s cluster runs in this process (``inproc://``): they
    share its modules, so there is nothing to send (and nothing to forget)."""
    try:
        workers = client.scheduler_info()["workers"]
    except Exception:  # noqa: BLE001 - an answer is needed only to skip the upload
        return False
    return bool(workers) and all(str(w).startswith("inproc://") for w in workers)


#: Seconds a run waits for a first worker to join a Dask cluster that has none.
WORKERS_TIMEOUT = 10.0


def _has_workers(client) -> None:
    """``ValueError`` in one line unless ``client``'s cluster has a worker (or one joins
    within :data:`WORKERS_TIMEOUT` seconds): tasks sent to a cluster without workers wait
    for ever."""
    if client.nthreads():
        return
    with contextlib.suppress(Exception):  # a timeout: said below
        client.wait_for_workers(1, timeout=WORKERS_TIMEOUT)
    if not client.nthreads():
        where = getattr(getattr(client, "scheduler", None), "address", "") or "the scheduler"
        raise ValueError(f"scheduler: the Dask cluster of {where} has no workers (none joined "
                         f"within {WORKERS_TIMEOUT:g} s); start one (dask worker {where}) or "
                         "pass another scheduler")


class DaskDraws:
    """The pieces of one run's requests as tasks of a Dask cluster (``client``), at most
    ``workers`` tasks' worth at a time per request (default: the cluster's threads)."""

    def __init__(self, client, problem, workers: int | None = None, *,
                 module: str | None = None, own_client: bool = False):
        from acfs_cli.parallel.ship import defining_folder, ship_folder

        self._client, self._own = client, own_client
        self._name = problem.name
        _has_workers(client)
        where = defining_folder(module)
        if where is not None and not _in_this_process(client):
            # the workers may not see the file that defines the problem
            folder, top = where
            ship_folder(client, folder, [top])
        self.workers = int(workers) if workers else max(1, sum(client.nthreads().values()))
        try:
            self._problem = client.scatter(problem, broadcast=True, hash=False)
        except Exception as exc:  # the class's module is missing there, or not the same
            raise RuntimeError(f"the Dask workers cannot load problem {self._name!r}: "
                               f"{' '.join(str(exc).split())[:300]}") from None
        self._futures: list[Any] = []

    def run(self, pieces: Sequence[Piece]) -> list[np.ndarray]:
        groups = task_groups(len(pieces), self.workers)
        self._futures = [self._client.submit(_draw_dask, self._problem,
                                             [pieces[i] for i in g], pure=False)
                         for g in groups]
        try:
            answers = self._client.gather(self._futures)
        except Exception as exc:  # a worker died (KilledWorker) or the task was lost
            self._cancel()
            raise SimulatorError(
                f"problem {self._name!r}: the Dask worker simulating a piece failed: "
                f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}") from None
        except BaseException:  # Ctrl-C
            self._cancel()
            raise
        self._futures = []
        return _answers(pieces, groups, answers)

    def _cancel(self) -> None:
        with contextlib.suppress(Exception):
            self._client.cancel(self._futures)
        self._futures = []

    def close(self, now: bool = False) -> None:
        """Cancel what is in flight and let the cluster forget the problem (the cluster is
        the user's: it goes on)."""
        self._cancel()
        with contextlib.suppress(Exception):
            self._client.cancel([self._problem])
        if self._own:  # a client made from an address ends with the run
            with contextlib.suppress(Exception):
                self._client.close()

    def __enter__(self) -> DaskDraws:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(now=exc_type is not None)
