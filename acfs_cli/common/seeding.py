"""Seeds from names, never from loop order or global state (DESIGN.md section 5).

A stream is identified by the base seed and a tuple of names, for example
``(seed, "method", "dgp1", 0.7, 3, "acfs")``. The names are hashed with sha256 (never Python's
salted ``hash()``), so a cell gets the same stream whatever the order of cells, ``n_jobs``, the
backend or the machine.
"""

from __future__ import annotations

import hashlib

import numpy as np

from acfs_cli.common.naming import stream_token


def stable_hash(*names) -> int:
    """A 128-bit integer from the ``repr``-free canonical text of ``names``."""
    text = "\x1f".join(stream_token(n) for n in names)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:16], "little")


def seed_sequence(seed: int, *names) -> np.random.SeedSequence:
    """The ``SeedSequence`` of the stream named ``names`` under base ``seed``."""
    h = stable_hash(*names)
    words = [int(seed) & 0xFFFFFFFF, int(seed) >> 32 & 0xFFFFFFFF]
    words += [(h >> (32 * i)) & 0xFFFFFFFF for i in range(4)]
    return np.random.SeedSequence(words)


def stream(seed: int, *names) -> np.random.Generator:
    """A fresh ``numpy.random.Generator`` for the stream named ``names`` under ``seed``."""
    return np.random.Generator(np.random.PCG64(seed_sequence(seed, *names)))


#: Base seeds are non-negative integers below 2**63 (what a results table's int64 holds).
MAX_SEED = 2**63 - 1


def check_seed(seed) -> int:
    """A base seed: a non-negative integer below 2**63 (not a bool, a float or a string: 1.5
    and "1" would otherwise name the streams of 1), or a ``numpy.random.Generator``, from
    which one is drawn, or None: one drawn from fresh entropy of the operating system (as
    ``numpy.random.default_rng(None)`` does); ``ValueError`` in one line otherwise. The seed
    returned names every stream, so a run given it again is repeated exactly."""
    if seed is None:
        seed = np.random.default_rng()
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(MAX_SEED, endpoint=True))
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise ValueError(f"seed must be an integer in [0, 2**63) or a numpy.random.Generator, "
                         f"got {type(seed).__name__} {seed!r:.40}")
    if not 0 <= int(seed) <= MAX_SEED:
        raise ValueError(f"seed must be an integer in [0, 2**63), got {seed}")
    return int(seed)
