"""Where cells run: in this process, in worker processes of our own
(:mod:`acfs_cli.experiment.pool`) or on a Dask cluster; a group of cells that yields no rows of
its own (its worker died, it ran out of time) gets failed rows that say why (DESIGN.md
section 5). A Dask scheduler's address is checked by :mod:`acfs_cli.parallel.cluster`.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from acfs_cli.experiment.cell import failed_rows, load_native_libraries, run_group
from acfs_cli.experiment.grid import Cell
from acfs_cli.experiment.pool import WorkerPool, pin_threads
from acfs_cli.experiment.ship import ship_modules
from acfs_cli.experiment.signals import interrupts_flagged
from acfs_cli.parallel.cluster import check_scheduler, connect

__all__ = ["BACKENDS", "check_scheduler", "connect", "dispatch"]

BACKENDS = ("local", "dask")

log = logging.getLogger("acfs")


def _dask_group(cells: Sequence[Cell], timeout: float | None, draw_jobs: int | None = 1
                ) -> list[dict[str, Any]]:
    """A group on a Dask worker: threads pinned for the worker's life (it may run several
    groups at once in threads, and a scoped limit would be undone by whichever finishes
    first), the per-cell time limit kept by a thread of its own, and the cells' draws spread
    over the cluster with ``draw_jobs`` - as tasks sent through the worker's client, this
    task's thread leaving the worker's pool while they run."""
    load_native_libraries()
    pin_threads()
    if draw_jobs in (None, 1):
        scope = contextlib.nullcontext(None)
    else:
        from distributed import worker_client  # the dask extra is optional

        scope = worker_client()
    with scope as client:
        if timeout is None:
            return run_group(cells, draw_jobs, client)
        out: list[list[dict[str, Any]]] = []
        thread = threading.Thread(target=lambda: out.append(run_group(cells, draw_jobs, client)),
                                  daemon=True, name="acfs-cell")
        start = time.perf_counter()
        thread.start()
        thread.join(timeout)
    if out:
        return out[0]
    return failed_rows(cells, f"timed out: no result after {timeout:g} s (on a Dask worker the "
                       "computation goes on in a thread until it ends)",
                       time.perf_counter() - start)


def dispatch(
    groups: Sequence[Sequence[Cell]],
    *,
    n_jobs: int = 1,
    backend: str = "local",
    client=None,
    timeout: float | None = None,
    started: Callable[[Sequence[Cell]], None] | None = None,
    draw_jobs: int | None = 1,
) -> Iterator[list[dict[str, Any]]]:
    """Rows of each group of cells, in order of completion; ``started`` is told of each group
    as it begins where that is known (here and in local workers, not on Dask).

    ``local`` runs in this process when ``n_jobs == 1`` and no ``timeout`` is set, else in
    worker processes (:class:`~acfs_cli.experiment.pool.WorkerPool`: a worker that dies or
    runs past the time limit fails its own cells only); ``dask`` submits each group to ``client``'s
    cluster. A group that yields no rows of its own gets failed rows naming why. Each cell's
    draws go to ``draw_jobs`` workers of its own (local processes, or the cluster's workers
    for a cell on the cluster: :func:`~acfs_cli.experiment.cell.run_cell`).
    """
    runner = run_group if draw_jobs in (None, 1) else functools.partial(run_group,
                                                                         draw_jobs=draw_jobs)
    backend = "local" if backend == "loky" else backend
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "local":
        log.info("%d group(s) of cells in %s", len(groups), "this process"
                 if n_jobs == 1 and timeout is None else f"{n_jobs} worker process(es)")
        if n_jobs == 1 and timeout is None:
            with interrupts_flagged():
                for group in groups:
                    if started is not None:
                        started(group)
                    yield runner(group)
            return
        # a cell worker that starts draw workers of its own cannot be a daemon process
        with WorkerPool(n_jobs, runner, timeout=timeout, initializer=load_native_libraries,
                        daemon=draw_jobs in (None, 1)) as pool:
            for outcome in pool.run(groups, started=started):
                if outcome.rows is not None:
                    yield outcome.rows
                elif outcome.failure == "timeout":
                    yield failed_rows(outcome.group, f"timed out: {outcome.detail}",
                                      outcome.seconds)
                else:
                    yield failed_rows(outcome.group, outcome.detail, outcome.seconds)
        return
    if client is None:
        raise ValueError("the dask backend needs a distributed.Client")
    from distributed import as_completed  # the dask extra is optional

    # The workers may not see the configuration's folder: its modules go first.
    ship_modules(client, [cell for group in groups for cell in group])
    log.info("%d group(s) of cells to the Dask cluster", len(groups))
    futures = {client.submit(_dask_group, tuple(g), timeout, draw_jobs, pure=False): tuple(g)
               for g in groups}
    try:
        for future in as_completed(futures, loop=client.loop):
            try:
                yield future.result()
            except Exception as exc:  # the worker died (KilledWorker) or the task was lost
                yield failed_rows(futures[future], f"the Dask worker computing it failed: "
                                  f"{type(exc).__name__}: {exc}")
    finally:
        with contextlib.suppress(Exception):
            client.cancel(list(futures))
