"""Sample-only simulators that take time (a sleep per row), ones that fail in a worker, one that
records who drew its rows, one that cannot be pickled and a 12-D bowl,
for the tests of parallel draws; importable by name, so worker processes find them."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np


class Sleeper:
    """A 2-D newsvendor-like black box whose every row sleeps ``pause`` seconds:
    W = x_1 - 1 + (0.5 + 0.3 x_2) Z, C = W^2 + 0.2 x_2^2 - 0.3 x_2."""

    dim_x, dim_w = 2, 1
    bounds = [(0.0, 4.0), (0.0, 4.0)]

    def __init__(self, pause: float = 0.0):
        self.pause = float(pause)

    def sample(self, x, n, rng):
        if self.pause:
            time.sleep(self.pause * n)
        return (x[0] - 1.0 + (0.5 + 0.3 * x[1]) * rng.standard_normal(n))[:, None]

    def cost(self, W, x):
        return W[:, 0] ** 2 + 0.2 * x[1] ** 2 - 0.3 * x[1]


class Bowl12:
    """A 12-D black box (no gradient): W = x - a + (1 + 0.1 |x|) Z, C = sum W^2 - 0.5 sum x,
    for the default's COBYQA epochs from 10 dimensions."""

    dim_x, dim_w = 12, 12
    x0 = np.full(12, 2.0)
    bounds = [(0.0, 10.0)] * 12

    def sample(self, x, n, rng):
        a = np.linspace(0.5, 1.5, 12)
        return x - a + (1.0 + 0.1 * np.abs(x).sum()) * rng.standard_normal((n, 12))

    def cost(self, W, x):
        return (W ** 2).sum(axis=1) - 0.5 * np.sum(x)


class FailsFar(Sleeper):
    """Raises for decisions with x_1 > 2.5 (never at the probes' decisions): a search that
    goes there fails in the middle of a request."""

    def sample(self, x, n, rng):
        if x[0] > 2.5:
            raise ZeroDivisionError("no demand model beyond x_1 = 2.5")
        return super().sample(x, n, rng)


class NaNFar(Sleeper):
    """Returns NaN rows for decisions with x_1 > 2.5."""

    def sample(self, x, n, rng):
        W = super().sample(x, n, rng)
        return W * np.nan if x[0] > 2.5 else W


class DiesFar(Sleeper):
    """Ends its own process for decisions with x_1 > 2.5 (a crash in native code)."""

    def sample(self, x, n, rng):
        if x[0] > 2.5:
            os._exit(7)
        return super().sample(x, n, rng)


class OneAtATime:
    """A transform problem called one decision at a time (no transform_batch, not
    vectorised): its decisions can be drawn apart with the same calls."""

    dim_x, dim_w = 2, 2
    bounds = [(0.0, 2.0), (0.0, 2.0)]

    def transform(self, x, z):
        return np.exp(0.3 * x + (0.2 + 0.1 * x) * z)

    def cost(self, W, x):
        return float(x @ x) - W @ np.array([1.0, 0.5]) + 0.5 * W[:, 0] * W[:, 1]


def _where() -> str:
    """Who simulates here: the Dask worker's address where there is one (the workers of an
    in-process cluster share this process), else the process id."""
    distributed = sys.modules.get("distributed")  # not imported where no cluster is
    try:
        address = distributed.get_worker().address
    except (AttributeError, ValueError):
        return f"pid-{os.getpid()}"
    return "dask-" + "".join(c if c.isalnum() else "_" for c in address)


class Recorder(Sleeper):
    """A :class:`Sleeper` that writes the rows of every call to a file of ``folder`` named by
    who drew them (:func:`_where`): :func:`spread` reads where a run's draws went."""

    def __init__(self, folder: str, pause: float = 0.0):
        super().__init__(pause)
        self.folder = str(folder)

    def sample(self, x, n, rng):
        with open(os.path.join(self.folder, _where()), "a") as f:
            f.write(f"{n}\n")
        return super().sample(x, n, rng)


def spread(folder) -> dict[str, int]:
    """Rows drawn by each worker (a file per worker, a line per call) in ``folder``."""
    out = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as f:
            out[name] = sum(int(line) for line in f if line.strip())
    return out


class Locked(Sleeper):
    """A simulator that holds a lock (as one that holds a socket or a licence handle): it
    cannot be pickled, so it cannot be sent to another process."""

    def __init__(self, pause: float = 0.0):
        import threading

        super().__init__(pause)
        self.lock = threading.Lock()

    def sample(self, x, n, rng):
        with self.lock:
            return super().sample(x, n, rng)


def pids(folder) -> set[int]:
    """The processes but this one that drew rows in ``folder`` (:class:`Recorder`)."""
    return {int(k[4:]) for k in spread(folder) if k.startswith("pid-")} - {os.getpid()}


def children() -> set[int]:
    """Processes whose parent is this one (Linux's /proc), but the resource trackers that
    multiprocessing and loky start once and keep for the life of the process."""
    me, out = os.getpid(), set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != "Z" and b"resource_tracker" not in command:
            out.add(int(stat.parent.name))
    return out
