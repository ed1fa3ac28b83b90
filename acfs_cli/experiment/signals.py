"""Stopping a run from outside: Ctrl-C told apart from a KeyboardInterrupt a plugin raises,
and SIGTERM turned into the same orderly stop (DESIGN.md section 5)."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

# -- Ctrl-C, told apart from a KeyboardInterrupt a plugin raises ---------------------------------
_INTERRUPTED = threading.Event()


def interrupt_requested() -> bool:
    """Whether SIGINT reached this process while :func:`interrupts_flagged` was in force."""
    return _INTERRUPTED.is_set()


@contextlib.contextmanager
def interrupts_flagged() -> Iterator[None]:
    """Within the block, SIGINT sets a flag before it raises KeyboardInterrupt, so a cell can
    tell Ctrl-C (the run stops) from a KeyboardInterrupt a simulator raises (the cell fails,
    the run goes on). Elsewhere (another thread) the block changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        _INTERRUPTED.set()
        raise KeyboardInterrupt()

    _INTERRUPTED.clear()
    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)



# -- stopping ------------------------------------------------------------------------------------
class Terminated(BaseException):
    """SIGTERM, raised in the main thread like KeyboardInterrupt for Ctrl-C."""


@contextlib.contextmanager
def sigterm_stops_the_run() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in the main thread, so a run stops
    as on Ctrl-C: the workers are shut down, finished cells stay, nothing is half written.
    Elsewhere (another thread, another platform) the block changes nothing."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
            signal, "SIGTERM"):
        yield
        return

    def terminate(signum, frame):
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)

