"""Seeds from names, never from loop order or global state (DESIGN.md section 5).

A stream is identified by the base seed and a tuple of names, for example
``(seed, "method", "dgp1", 0.7, 3, "acfs")``. The names are hashed with sha256 (never Python's
salted ``hash()``), so a cell gets the same stream whatever the order of cells, ``n_jobs``, the
backend or the machine.
"""

from __future__ import annotations

import hashlib

import numpy as np


def stable_hash(*names) -> int:
    """A 128-bit integer from the ``repr``-free canonical text of ``names``."""
    text = "\x1f".join(_canonical(n) for n in names)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:16], "little")


def _canonical(name) -> str:
    if isinstance(name, float):
        return format(name, ".12g")
    return str(name)


def seed_sequence(seed: int, *names) -> np.random.SeedSequence:
    """The ``SeedSequence`` of the stream named ``names`` under base ``seed``."""
    h = stable_hash(*names)
    words = [int(seed) & 0xFFFFFFFF, int(seed) >> 32 & 0xFFFFFFFF]
    words += [(h >> (32 * i)) & 0xFFFFFFFF for i in range(4)]
    return np.random.SeedSequence(words)


def stream(seed: int, *names) -> np.random.Generator:
    """A fresh ``numpy.random.Generator`` for the stream named ``names`` under ``seed``."""
    return np.random.Generator(np.random.PCG64(seed_sequence(seed, *names)))
