"""A Dask cluster: the check of a scheduler's address, by Dask's own handshake, and a
client of it (for a grid's cells and for a run's draws)."""

from __future__ import annotations

import asyncio
import re
import socket

#: Characters of a user's text quoted in an error message (as a configuration's values are).
EXCERPT = 80


def excerpt(text: str) -> str:
    """``repr(text)`` cut to about :data:`EXCERPT` characters, whatever its size."""
    text = str(text)
    if len(text) > EXCERPT:
        return f"{text[:EXCERPT]!r}... ({len(text):,} characters)"
    return repr(text)


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


def connect(address: str, what: str = "--scheduler"):
    """A ``distributed.Client`` of the scheduler at ``address``; ``ValueError`` in one line
    (naming the option or argument ``what``) when dask is not installed, the address is not a
    scheduler's (:func:`check_scheduler`), or the connection fails."""
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("the dask backend needs dask[distributed] (pip install "
                         "'acfs[dask]')") from None
    try:
        check_scheduler(address)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None
    try:
        return Client(address, timeout="5s", set_as_default=False)
    except Exception as exc:  # it answered the check and then went away
        message = f"cannot connect to the Dask scheduler at {address}: {type(exc).__name__}"
        raise ValueError(message + (f": {exc}" if str(exc) else "")) from None
