"""What every worker process of acfs does for itself, whoever started it (a grid's cell
workers, a run's draw workers): BLAS pinned to one thread, and an end when its parent is gone.
"""

from __future__ import annotations

import os
import threading
import time

#: BLAS/OpenMP thread variables set in every worker.
THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

_watchdog: threading.Thread | None = None


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the platform says)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def busy_seconds() -> tuple[float, bool]:
    """Seconds this thread has run or waited for a core (Linux's schedstat: not the time it
    slept or waited for I/O), and True; where the platform does not say, its CPU time and
    False."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            ran, queued = f.read().split()[:2]
        return (int(ran) + int(queued)) / 1e9, True
    except (OSError, ValueError):
        return time.thread_time(), False


def machine_load() -> float:
    """Processes running or ready to run on this machine, averaged over the last minute (inf
    where the platform does not say)."""
    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):
        return float("inf")


def watch_parent(parent: int, interval: float = 0.5) -> None:
    """End this process as soon as process ``parent`` is no longer its parent (it died, even
    by SIGKILL, and this one was adopted): a killed run leaves no process computing for
    nobody. Once per process."""
    global _watchdog
    if _watchdog is not None:
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)

    _watchdog = threading.Thread(target=watch, name="acfs-parent-watchdog", daemon=True)
    _watchdog.start()


def pin_threads() -> None:
    """BLAS/OpenMP at one thread for the life of this process (a threaded BLAS may sum in
    another order, and results must not depend on the workers; nor may the workers of one
    machine fight over its cores)."""
    for name in THREAD_ENV:
        os.environ[name] = "1"
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
