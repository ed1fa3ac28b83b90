"""Parallel draws of one run: who simulates the pieces of its requests (DESIGN.md section 3).

:func:`open_draws` gives the executor a run asks for - none (this process, the default),
local worker processes (``n_jobs``) or a Dask cluster (``scheduler``) - and the oracle and
the evaluations hand it their pieces (:mod:`acfs_cli.core.draws`). The answer is the same
with any of them.
"""

from __future__ import annotations

from acfs_cli.core.draws import Executor
from acfs_cli.core.problem import Problem
from acfs_cli.parallel.process import available_cores

__all__ = ["check_jobs", "open_draws"]


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


def open_draws(problem: Problem, n_jobs: int | None = None, scheduler=None
               ) -> Executor | None:
    """The executor of a run's draws on ``problem``, or None when this process draws.

    Without a ``scheduler``: ``n_jobs`` local worker processes (None or 1: none; -1: one per
    core; more workers than cores is allowed - a simulator that waits, on a licence server or
    a sleep, frees its core). With one (a ``distributed.Client`` or a scheduler's address):
    tasks on that cluster, at most ``n_jobs`` workers' worth per request (None or -1: the
    cluster's threads). A problem whose draws cannot be cut without changing them (a
    ``transform_batch``, which draws every decision in one call) is drawn here.
    """
    n_jobs = check_jobs(n_jobs)
    if not problem.splits_draws:
        return None
    if scheduler is None:
        workers = available_cores() if n_jobs == -1 else (n_jobs or 1)
        if workers == 1:
            return None
        from acfs_cli.parallel.executors import LocalDraws

        return LocalDraws(problem, workers)
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
