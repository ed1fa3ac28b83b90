"""Parallel draws of one run: who simulates the pieces of its requests (DESIGN.md section 3).

:func:`open_draws` gives the executor a run asks for - none (this process, the default),
local worker processes (``n_jobs``) or a Dask cluster (``scheduler``) - and the oracle and
the evaluations hand it their pieces (:mod:`acfs_cli.core.draws`). The answer is the same
with any of them. The arguments are checked before anything starts or is sent
(:func:`check_jobs`, :func:`check_scheduler`), and a problem that cannot travel to another
process is drawn here with a note that says why (:func:`drawn_here`).
"""

from __future__ import annotations

import logging

from acfs_cli.core.draws import Executor
from acfs_cli.core.problem import Problem

__all__ = ["PARALLEL_REFUSED", "check_jobs", "check_scheduler", "close_workers", "drawn_here",
           "open_draws"]

log = logging.getLogger("acfs")

#: The note of a run that asked for parallel draws on a problem whose draws stay here.
PARALLEL_REFUSED = ("parallel draws: the problem's transform_batch draws every decision in "
                    "one call, which cannot be cut without changing it; drawn in this process")


def check_jobs(n_jobs, what: str = "n_jobs") -> int | None:
    """``n_jobs`` as given (None, a positive count, or -1 for every core), or ``ValueError``
    in one line naming ``what``."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or not (
            n_jobs >= 1 or n_jobs == -1):
        raise ValueError(f"{what} must be a positive count of workers or -1 (every core), "
                         f"got {n_jobs!r:.40}")
    return int(n_jobs)


def check_scheduler(scheduler, what: str = "scheduler"):
    """``scheduler`` as given - None, a scheduler's address, or a running
    ``distributed.Client`` - or ``ValueError`` in one line naming ``what``, before anything is
    sent (an address is asked whether it is a scheduler when the run connects to it)."""
    if scheduler is None or isinstance(scheduler, str):
        return scheduler
    try:
        from distributed import Client
    except ImportError:
        Client = None  # noqa: N806 - nothing else can be a Client
    if Client is None or not isinstance(scheduler, Client):
        raise ValueError(f"{what} must be a dask distributed.Client or a scheduler's address "
                         f"('tcp://HOST:8786'), got {type(scheduler).__name__} "
                         f"{scheduler!r:.40}")
    status = getattr(scheduler, "status", None)
    if status != "running":
        raise ValueError(f"{what}: the dask Client is {status or 'not running'} (status "
                         f"{status!r}); pass a running Client or the scheduler's address")
    return scheduler


def drawn_here(problem: Problem) -> str | None:
    """Why ``problem``'s draws stay in this process whatever is asked (the note of the run),
    or None: a ``transform_batch`` cannot be cut without changing it, and a problem that
    cannot be pickled (it holds a lock, a socket, a licence handle) cannot reach another
    process."""
    if not problem.splits_draws:
        return PARALLEL_REFUSED
    from acfs_cli.parallel.ship import unpicklable

    why = unpicklable(problem)
    if why is None:
        return None
    return (f"parallel draws: problem {problem.name!r} cannot be sent to another process "
            f"({why}); drawn in this process - to draw in parallel, give its class "
            "__getstate__ and __setstate__ that leave the handle out and open a new one where "
            "it arrives")


def open_draws(problem: Problem, n_jobs: int | None = None, scheduler=None, *,
               keep: bool = False) -> Executor | None:
    """The executor of a run's draws on ``problem``, or None when this process draws.

    Without a ``scheduler``: local worker processes (None or 1: none), no more than the
    cores and ``n_jobs`` (-1: the cores), started as the requests have work for them, more
    than the cores only while the simulator waits (on a licence server or a sleep) rather
    than computes, and with ``keep`` kept for the next run
    (:class:`~acfs_cli.parallel.executors.LocalDraws`; a cell ends its own: it leaves no
    thread behind).
    With one (a running ``distributed.Client`` or a scheduler's address): tasks on that
    cluster, at most ``n_jobs`` workers' worth per request (None or -1: the cluster's
    threads). A problem whose draws cannot leave this process (:func:`drawn_here`) is drawn
    here, with a one-line warning where it cannot be pickled.
    """
    n_jobs = check_jobs(n_jobs)
    scheduler = check_scheduler(scheduler)
    if scheduler is None and n_jobs in (None, 1):
        return None
    why = drawn_here(problem)
    if why is not None:
        if why != PARALLEL_REFUSED:
            log.warning("%s", why)
        return None
    if scheduler is None:
        from acfs_cli.parallel.executors import LocalDraws, draw_workers

        limit, note = draw_workers(n_jobs)
        draws = LocalDraws(problem, limit, keep=keep)
        draws.note = note
        return draws
    from acfs_cli.parallel.executors import DaskDraws

    own = isinstance(scheduler, str)
    if own:
        from acfs_cli.parallel.cluster import connect

        client = connect(scheduler, "scheduler")
    else:
        client = scheduler
    try:
        return DaskDraws(client, problem, None if n_jobs in (None, -1) else n_jobs,
                         module=problem.module, own_client=own)
    except BaseException:
        if own:
            client.close()
        raise


def close_workers() -> None:
    """End the local draw workers kept for the next run (they end by themselves after
    :data:`~acfs_cli.parallel.executors.IDLE_SECONDS` idle, and with this process)."""
    from acfs_cli.parallel.executors import close_kept

    close_kept()
