"""Common samples: scenarios that several decisions see on the same random numbers.

Simulation optimisation compares decisions on common random numbers. A problem with
``transform(x, z)`` gets them by pushing the same standard normals through the transform at
every decision; a black-box simulator that only takes a random generator gets them by
re-seeding - every decision is simulated with a generator in the same state (SimOpt does
this with its MRG32k3a streams). A :class:`CommonSample` is that seed: decisions evaluated
on it see the same stream. Where the simulator's use of the stream depends on the decision
(Poisson counts, acceptance-rejection, event-driven logic) the streams drift apart and the
variance reduction is partial, but every estimate stays valid (DESIGN.md section 3).

A sample can grow by chunks (:meth:`CommonSample.extended`), each with its own seed, so its
first rows never change. A transform problem's normals are the first ``n * dim_w`` standard
normals of each chunk's seeded generator. A sample-only simulator consumes its generator row
after row, so rows can only be simulated apart - in worker processes, on a cluster - if each
block of rows has a seed of its own: every stream of rows a sample-only simulator is asked for
(a chunk here, one decision's independent draws, the rows of an evaluation) is cut into blocks
by a rule that depends on its number of rows only (:func:`block_rows`), each block drawn from
a generator of its own seed (:func:`stream_blocks`). The blocks are the same whether or not
workers exist, so the scenarios are too (DESIGN.md section 3).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtri


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


def stratified_pairs(n: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` standard-normal rows as antithetic pairs that form a Latin hypercube: rows i and
    n/2 + i are (z, -z), and in every column each of the n equiprobable strata holds one row.

    A sample of n rows then holds n (1 - a) rows beyond every a-quantile of every normal
    (rounded to a stratum), where independent pairs hold a binomial count that is often none:
    a shock that comes one scenario in twenty is in every 20-row sample, where 10 independent
    pairs miss it in 0.9^10 = 35 % of samples.
    Stratum i is paired with stratum n - 1 - i (its mirror); which pair of strata a pair of
    rows gets, and which of the two its first row takes, are random in each column, and the
    rows lie uniformly inside their strata, so each row is a standard normal. For odd ``n``
    the last row takes the middle stratum.
    """
    half = n // 2
    lower = np.argsort(rng.random((half, dim)), axis=0)  # pair of strata (j, n - 1 - j)
    flip = rng.random((half, dim)) < 0.5
    u = (lower + rng.random((half, dim))) / n  # inside stratum j < n / 2
    u = np.where(flip, 1.0 - u, u)
    tiny = np.finfo(float).tiny
    z = ndtri(np.clip(u, tiny, 1.0 - 1e-16))
    parts = [z, -z]
    if n % 2:
        parts.append(ndtri(np.clip((half + rng.random((1, dim))) / n, tiny, 1.0 - 1e-16)))
    return np.concatenate(parts, axis=0)


#: Blocks a stream of rows of a sample-only simulator is cut into (fewer when it has fewer
#: rows): each block can be simulated apart, so a request at one decision keeps up to this many
#: workers busy, and every block costs one more call of the simulator in one process (DESIGN.md
#: section 3 gives the measurements behind the number).
STREAM_BLOCKS = 16

def block_rows(rows: int, per_stream: int | None = None) -> list[int]:
    """The rows of each block of a stream of ``rows`` rows: ``per_stream`` rows each (the
    last block shorter) where the problem sets ``rows_per_stream``, else
    ``min(rows, STREAM_BLOCKS)`` blocks as equal as possible, the longer ones first. It
    depends on ``rows`` alone - never on how many workers there are."""
    if rows <= 0:
        return []
    if per_stream is not None:
        whole, rest = divmod(rows, per_stream)
        return [per_stream] * whole + ([rest] if rest else [])
    k = min(rows, STREAM_BLOCKS)
    q, r = divmod(rows, k)
    return [q + 1] * r + [q] * (k - r)


def stream_blocks(seed: np.random.SeedSequence, rows: int, per_stream: int | None = None
                  ) -> list[tuple[np.random.SeedSequence, int]]:
    """A stream of ``rows`` rows from ``seed`` as seeded blocks ``(seed_j, rows_j)``: block j
    is drawn from the seed named j under ``seed`` (:func:`child_seed`), and a stream of one
    block from ``seed`` itself."""
    sizes = block_rows(rows, per_stream)
    if len(sizes) == 1:
        return [(seed, sizes[0])]
    return [(child_seed(seed, j), n) for j, n in enumerate(sizes)]


@dataclass(frozen=True, eq=False)
class CommonSample:
    """``n`` scenario rows identified by seeds, the same at every decision they are drawn at.

    ``chunks`` are (seed, rows) pairs; ``antithetic`` pairs the rows of each chunk as (z, -z)
    (a transform problem only), and ``stratified`` makes each chunk's pairs a Latin hypercube
    (:func:`stratified_pairs`). ``key`` names the sample in the oracle that issued it.
    """

    chunks: tuple[tuple[np.random.SeedSequence, int], ...]
    antithetic: bool = False
    key: int = -1
    stratified: bool = False
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, seed: np.random.SeedSequence, n: int, antithetic: bool = False,
           key: int = -1, stratified: bool = False) -> CommonSample:
        return cls(((seed, int(n)),), antithetic, key, stratified)

    @property
    def n(self) -> int:
        return sum(rows for _, rows in self.chunks)

    def extended(self, m: int, seed: np.random.SeedSequence) -> CommonSample:
        """The same rows followed by ``m`` more from ``seed`` (a new chunk)."""
        return CommonSample((*self.chunks, (seed, int(m))), self.antithetic, self.key,
                            self.stratified)

    def normals(self, dim: int) -> np.ndarray:
        """The standard normals (n, dim) of a transform problem (computed once)."""
        z = self._cache.get(dim)
        if z is None:
            parts = []
            for seed, rows in self.chunks:
                g = generator(seed)
                pairs = stratified_pairs if self.stratified else antithetic_normals
                parts.append(pairs(rows, dim, g) if self.antithetic
                             else g.standard_normal((rows, dim)))
            z = np.concatenate(parts, axis=0) if parts else np.empty((0, dim))
            z.setflags(write=False)
            self._cache[dim] = z
        return z

    def blocks(self, per_stream: int | None = None) -> list[tuple[np.random.SeedSequence, int]]:
        """The seeded blocks a sample-only simulator draws the sample from, chunk after chunk
        (:func:`stream_blocks`): at every decision the same seeds, so generators in the same
        states (``per_stream``: the problem's ``rows_per_stream``)."""
        return [block for seed, rows in self.chunks
                for block in stream_blocks(seed, rows, per_stream)]
