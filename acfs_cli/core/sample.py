"""Common samples: scenarios that several decisions see on the same random numbers.

Simulation optimisation compares decisions on common random numbers. A problem with
``transform(x, z)`` gets them by pushing the same standard normals through the transform at
every decision; a black-box simulator that only takes a random generator gets them by
re-seeding - every decision is simulated with a generator in the same state (SimOpt does
this with its MRG32k3a streams). A :class:`CommonSample` is that seed: decisions evaluated
on it see the same stream. Where the simulator's use of the stream depends on the decision
(Poisson counts, acceptance-rejection, event-driven logic) the streams drift apart and the
variance reduction is partial, but every estimate stays valid (DESIGN.md section 3).

Both kinds use the same seeds: a transform problem's normals are the first ``n * dim_w``
standard normals of the seeded generator, so a sample-only copy of a transform problem (one
whose ``sample`` draws its normals from the generator first) sees exactly the scenarios of
the transform mode. A sample can grow by chunks (:meth:`CommonSample.extended`), each with
its own seed, so its first rows never change.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def generator(seed: np.random.SeedSequence) -> np.random.Generator:
    """The generator of a seed (PCG64, as every stream of the project)."""
    return np.random.Generator(np.random.PCG64(seed))


def child_seed(root: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    """The seed named ``key`` under ``root``, without spawning (no state in ``root`` moves)."""
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *key))


def antithetic_normals(n: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` standard-normal rows as antithetic pairs: z_1..z_{n/2}, then -z_1..-z_{n/2}.

    For odd ``n`` the last row is an unpaired draw. Pairs (Z, -Z) pushed through a monotone
    transform induce negative covariance between costs (paper Section 2.4).
    """
    half = rng.standard_normal((n // 2, dim))
    parts = [half, -half]
    if n % 2:
        parts.append(rng.standard_normal((1, dim)))
    return np.concatenate(parts, axis=0)


@dataclass(frozen=True, eq=False)
class CommonSample:
    """``n`` scenario rows identified by seeds, the same at every decision they are drawn at.

    ``chunks`` are (seed, rows) pairs; ``antithetic`` pairs the rows of each chunk as (z, -z)
    (a transform problem only). ``key`` names the sample in the oracle that issued it.
    """

    chunks: tuple[tuple[np.random.SeedSequence, int], ...]
    antithetic: bool = False
    key: int = -1
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, seed: np.random.SeedSequence, n: int, antithetic: bool = False,
           key: int = -1) -> CommonSample:
        return cls(((seed, int(n)),), antithetic, key)

    @property
    def n(self) -> int:
        return sum(rows for _, rows in self.chunks)

    def extended(self, m: int, seed: np.random.SeedSequence) -> CommonSample:
        """The same rows followed by ``m`` more from ``seed`` (a new chunk)."""
        return CommonSample((*self.chunks, (seed, int(m))), self.antithetic, self.key)

    def normals(self, dim: int) -> np.ndarray:
        """The standard normals (n, dim) of a transform problem (computed once)."""
        z = self._cache.get(dim)
        if z is None:
            parts = []
            for seed, rows in self.chunks:
                g = generator(seed)
                parts.append(antithetic_normals(rows, dim, g) if self.antithetic
                             else g.standard_normal((rows, dim)))
            z = np.concatenate(parts, axis=0) if parts else np.empty((0, dim))
            z.setflags(write=False)
            self._cache[dim] = z
        return z

    def generators(self, block: int | None = None) -> list[tuple[np.random.Generator, int]]:
        """Fresh generators in the same state for every decision, with the rows each draws:
        one per chunk, or one per ``block`` rows of a chunk (each block re-seeded, so a
        simulator whose use of the stream depends on the decision drifts within a block
        only)."""
        out = []
        for seed, rows in self.chunks:
            if block is None or block >= rows:
                out.append((generator(seed), rows))
            else:
                out.extend((generator(child_seed(seed, j)), min(block, rows - start))
                           for j, start in enumerate(range(0, rows, block)))
        return out
