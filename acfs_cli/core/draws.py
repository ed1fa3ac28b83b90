"""Parallel draws: the pieces a request for scenario rows is cut into, and the protocol of
whoever simulates them (DESIGN.md section 3).

A request of the oracle (rows at many decisions, on a common sample or fresh) becomes a list
of :class:`Piece` - the rows of one decision that can be simulated anywhere: a block of a
sample-only simulator's stream (its seed and its number of rows,
:func:`acfs_cli.core.sample.stream_blocks`), or the normals of one decision of a transform
problem that is called one decision at a time. The pieces depend on the seed and the request
only, so the scenarios are the same whether the pieces are simulated in this process, by
local worker processes or on a cluster: the answer does not depend on the workers.

An :class:`Executor` simulates pieces: ``run(pieces)`` returns the scenarios of each, in
order, or raises the :class:`~acfs_cli.core.problem.SimulatorError` of the first piece (in
the request's order) whose simulator failed, naming the worker. Its implementations (local
processes, a Dask cluster, and what they run on a worker) live above the core
(:mod:`acfs_cli.parallel`); the core only cuts requests and puts the answers together, and in
one process it simulates the pieces itself, in order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from acfs_cli.core.sample import generator

#: Simulates pieces: the scenarios of each, in order (an :class:`Executor`'s ``run``).
Run = Callable[[Sequence["Piece"]], list[np.ndarray]]


@dataclass(frozen=True, eq=False)
class Piece:
    """The rows of one decision that can be simulated anywhere: ``rows`` scenarios drawn with
    a generator of ``seed`` (a sample-only simulator), or the transform of the normals ``z``
    (a transform problem called one decision at a time)."""

    x: np.ndarray
    rows: int
    seed: np.random.SeedSequence | None = None
    z: np.ndarray | None = None

    def draw(self, problem) -> np.ndarray:
        """The piece's scenarios (rows, dim_w), checked by the problem's own interface."""
        if self.z is not None:
            return problem.transform(self.x, self.z)
        return problem.sample(self.x, self.rows, generator(self.seed))


class Executor(Protocol):
    """Simulates the pieces of one run's requests; made with the run's problem, which reaches
    each worker once (not with every piece)."""

    #: How many pieces it can simulate at once.
    workers: int

    def run(self, pieces: Sequence[Piece]) -> list[np.ndarray]:
        """The scenarios of every piece, in order; the first failure (in the order of
        ``pieces``) raises its SimulatorError, naming the worker."""

    def close(self, now: bool = False) -> None:
        """Stop every worker (an executor ends with the run that made it): at once when
        ``now`` (a failure, Ctrl-C), else once idle."""


def task_groups(n_pieces: int, workers: int, per_worker: int = 4) -> list[range]:
    """Consecutive pieces grouped into at most ``per_worker`` tasks per worker (fewer round
    trips for many small pieces; how pieces are grouped changes no scenario)."""
    if n_pieces <= 0:
        return []
    tasks = min(n_pieces, max(1, workers * per_worker))
    q, r = divmod(n_pieces, tasks)
    out, start = [], 0
    for t in range(tasks):
        stop = start + q + (1 if t < r else 0)
        out.append(range(start, stop))
        start = stop
    return out
