"""Messages of the ``acfs`` logger: warnings only by default, ``-v`` adds what the command
is doing (INFO), ``-vv`` the details (DEBUG). Command output and one-line errors do not go
through here."""

from __future__ import annotations

import logging
import sys

LOGGER = "acfs"
LEVELS = (logging.WARNING, logging.INFO, logging.DEBUG)


class CurrentStderr(logging.StreamHandler):
    """A handler writing to whatever ``sys.stderr`` is when a message is logged (a test's
    captured stream, a redirected one), not to the stream of the moment it was made."""

    def __init__(self):
        super().__init__(sys.stderr)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:  # StreamHandler sets it; the current stderr wins
        pass


class _Lowercase(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname.lower()}: {record.getMessage()}"


def configure(verbosity: int = 0) -> logging.Logger:
    """The ``acfs`` logger at the level of ``verbosity`` (0, 1 or 2 and more), printing to
    the current stderr; one handler however often it is called."""
    logger = logging.getLogger(LOGGER)
    logger.setLevel(LEVELS[min(max(verbosity, 0), len(LEVELS) - 1)])
    if not any(isinstance(h, CurrentStderr) for h in logger.handlers):
        handler = CurrentStderr()
        handler.setFormatter(_Lowercase())
        logger.addHandler(handler)
    return logger
