"""Where cells run: in this process, in worker processes of our own
(:mod:`acfs_cli.experiment.pool`) or on a Dask cluster; a group of cells that yields no rows of
its own (its worker died, it ran out of time) gets failed rows that say why (DESIGN.md
section 5). Also the check of a Dask scheduler's address, by its own handshake.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from acfs_cli.experiment.cell import failed_rows, load_native_libraries, run_group
from acfs_cli.experiment.config import excerpt
from acfs_cli.experiment.grid import Cell
from acfs_cli.experiment.pool import WorkerPool, pin_threads
from acfs_cli.experiment.ship import ship_modules
from acfs_cli.experiment.signals import interrupts_flagged

BACKENDS = ("local", "dask")

log = logging.getLogger("acfs")


def _dask_group(cells: Sequence[Cell], timeout: float | None) -> list[dict[str, Any]]:
    """A group on a Dask worker: threads pinned for the worker's life (it may run several
    groups at once in threads, and a scoped limit would be undone by whichever finishes
    first), and the per-cell time limit kept by a thread of its own."""
    load_native_libraries()
    pin_threads()
    if timeout is None:
        return run_group(cells)
    out: list[list[dict[str, Any]]] = []
    thread = threading.Thread(target=lambda: out.append(run_group(cells)), daemon=True,
                              name="acfs-cell")
    start = time.perf_counter()
    thread.start()
    thread.join(timeout)
    if out:
        return out[0]
    return failed_rows(cells, f"timed out: no result after {timeout:g} s (on a Dask worker the "
                       "computation goes on in a thread until it ends)",
                       time.perf_counter() - start)


# -- a Dask scheduler's address ------------------------------------------------------------------
_SCHEDULER = re.compile(
    r"(?:(?P<scheme>tcp|tls)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(?P<port>[0-9]{1,5})"
)
#: Seconds to wait for a scheduler's TCP connection and for its greeting.
SCHEDULER_TIMEOUT = 3.0


def check_scheduler(address: str, timeout: float | None = None) -> None:
    """``ValueError`` (one line) unless ``address`` is a Dask scheduler that answers.

    Checks the form (``[tcp://|tls://]HOST:PORT`` or ``inproc://...``, the in-process cluster
    of a test), then asks the server who it is over Dask's own protocol, within ``timeout``
    seconds for the whole exchange: a wrong port, a web server, a server that greets like
    Dask and then says nothing, or a Dask worker all fail at once instead of hanging.
    """
    timeout = SCHEDULER_TIMEOUT if timeout is None else timeout
    text = address.strip()
    if text.startswith("inproc://"):
        return
    match = _SCHEDULER.fullmatch(text)
    if match is None or not 0 < int(match["port"]) < 65536:
        raise ValueError(f"{excerpt(address)} is not a scheduler address (tcp://HOST:PORT)")
    scheme = match["scheme"] or "tcp"
    host, port = match["host"].strip("[]"), int(match["port"])
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise ValueError(f"nothing answers at {text}: {exc.strerror or exc}") from None
    try:
        identity = asyncio.run(_identity(f"{scheme}://{match['host']}:{port}", timeout))
    except TimeoutError:
        raise ValueError(f"{text} is not a Dask scheduler (no answer to Dask's handshake within "
                         f"{timeout:g} s; the scheduler's port is usually 8786)") from None
    except Exception as exc:
        raise ValueError(f"{text} is not a Dask scheduler ({type(exc).__name__}: "
                         f"{excerpt(str(exc))})") from None
    kind = identity.get("type") if isinstance(identity, dict) else None
    if kind != "Scheduler":
        raise ValueError(f"{text} is not a Dask scheduler (it says it is {kind or 'nothing'})")


async def _identity(address: str, timeout: float) -> dict:
    """The ``identity`` a Dask server gives over its own protocol (the whole exchange within
    ``timeout`` seconds)."""
    from distributed.core import rpc  # the dask extra is optional

    async def ask() -> dict:
        remote = rpc(address, timeout=timeout)
        try:
            return await remote.identity()
        finally:
            await remote.close_rpc()

    return await asyncio.wait_for(ask(), timeout)



def dispatch(
    groups: Sequence[Sequence[Cell]],
    *,
    n_jobs: int = 1,
    backend: str = "local",
    client=None,
    timeout: float | None = None,
    started: Callable[[Sequence[Cell]], None] | None = None,
) -> Iterator[list[dict[str, Any]]]:
    """Rows of each group of cells, in order of completion; ``started`` is told of each group
    as it begins where that is known (here and in local workers, not on Dask).

    ``local`` runs in this process when ``n_jobs == 1`` and no ``timeout`` is set, else in
    worker processes (:class:`~acfs_cli.experiment.pool.WorkerPool`: a worker that dies or
    runs past the time limit fails its own cells only); ``dask`` submits each group to ``client``'s
    cluster. A group that yields no rows of its own gets failed rows naming why.
    """
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
                    yield run_group(group)
            return
        with WorkerPool(n_jobs, run_group, timeout=timeout,
                        initializer=load_native_libraries) as pool:
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
    futures = {client.submit(_dask_group, tuple(g), timeout, pure=False): tuple(g)
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



def connect(address: str):
    """A ``distributed.Client`` of the scheduler at ``address``; ``ValueError`` in one line
    when dask is not installed, the address is not a scheduler's (:func:`check_scheduler`),
    or the connection fails."""
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("the dask backend needs dask[distributed] (pip install "
                         "'acfs[dask]')") from None
    try:
        check_scheduler(address)
    except ValueError as exc:
        raise ValueError(f"--scheduler: {exc}") from None
    try:
        return Client(address, timeout="5s", set_as_default=False)
    except Exception as exc:  # it answered the check and then went away
        message = f"cannot connect to the Dask scheduler at {address}: {type(exc).__name__}"
        raise ValueError(message + (f": {exc}" if str(exc) else "")) from None
