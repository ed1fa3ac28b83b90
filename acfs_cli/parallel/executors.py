"""Who simulates the pieces of a run's requests (:mod:`acfs_cli.core.draws`): local worker
processes or a Dask cluster (DESIGN.md section 3).

Both receive the run's problem once - each local worker when it starts, each Dask worker by
one broadcast - and then only pieces: a decision, a seed and a number of rows (or a decision's
normals). A piece's scenarios are the same wherever it is simulated, so the answer of a run
does not depend on the executor or the number of workers. A request's pieces are grouped
into a few tasks per worker; the answers are put back in the request's order, and the first
piece (in that order) whose simulator failed fails the request with the problem's one-line
SimulatorError and the worker named. A worker that dies, or Ctrl-C, stops every worker of
the run before the error goes on; :meth:`close` ends them when the run is over.

* :class:`LocalDraws`: loky worker processes (joblib's), started with the ``spawn``-like
  loky method, BLAS pinned to one thread, SIGINT left to the parent, each watching its parent;
  the problem goes by cloudpickle, so a class defined in ``__main__`` or a notebook works.
* :class:`DaskDraws`: a ``distributed.Client`` (or a scheduler's address); the module that
  defines the problem's class is uploaded first when it is a file of the user's
  (:mod:`acfs_cli.parallel.ship`), so an edited simulator replaces the old one.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from collections.abc import Sequence
from typing import Any

import numpy as np

from acfs_cli.core.draws import Piece, task_groups
from acfs_cli.core.problem import SimulatorError
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
_PROBLEM: Any = None


def _receive(blob: bytes, parent: int) -> None:
    """A local worker's start: Ctrl-C is the parent's, BLAS at one thread, an end with the
    parent, and the run's problem."""
    global _PROBLEM
    import cloudpickle

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent(parent)
    pin_threads()
    _PROBLEM = cloudpickle.loads(blob)


def _draw_local(pieces: Sequence[Piece]) -> list[Any]:
    return draw_pieces(_PROBLEM, pieces, f"local draw worker pid {os.getpid()}")


class LocalDraws:
    """``workers`` local processes simulating the pieces of one run's requests."""

    def __init__(self, problem, workers: int):
        import cloudpickle
        from joblib.externals.loky import ProcessPoolExecutor

        if workers < 1:
            raise ValueError(f"parallel draws need at least one worker, got {workers}")
        self.workers = int(workers)
        self._name = problem.name
        self._pool = ProcessPoolExecutor(
            max_workers=self.workers, initializer=_receive,
            initargs=(cloudpickle.dumps(problem), os.getpid()),
            env={name: "1" for name in THREAD_ENV})

    def run(self, pieces: Sequence[Piece]) -> list[np.ndarray]:
        from joblib.externals.loky.process_executor import BrokenProcessPool

        groups = task_groups(len(pieces), self.workers)
        futures = [self._pool.submit(_draw_local, [pieces[i] for i in g]) for g in groups]
        try:
            answers = [f.result() for f in futures]
        except BrokenProcessPool as exc:
            self.close(now=True)
            raise SimulatorError(
                f"problem {self._name!r}: a local draw worker process ended while simulating "
                f"(os._exit or a crash in the simulator, or the system stopped it): "
                f"{' '.join(str(exc).split())[:300]}") from None
        except BaseException:  # Ctrl-C, or the pool itself failed
            self.close(now=True)
            raise
        return _answers(pieces, groups, answers)

    def close(self, now: bool = False) -> None:
        """End the workers - killed at once when ``now`` (a failure, Ctrl-C), else once
        idle - and wait until they are gone."""
        with contextlib.suppress(Exception):
            self._pool.shutdown(wait=True, kill_workers=now)

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


class DaskDraws:
    """The pieces of one run's requests as tasks of a Dask cluster (``client``), at most
    ``workers`` tasks' worth at a time per request (default: the cluster's threads)."""

    def __init__(self, client, problem, workers: int | None = None, *,
                 module: str | None = None, own_client: bool = False):
        from acfs_cli.parallel.ship import defining_folder, ship_folder

        self._client, self._own = client, own_client
        self._name = problem.name
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
