"""The oracle's common samples grow by new chunks: an extended sample keeps its rows bit for bit
and its new rows are new random numbers, never a repeat of a chunk it already has - for a
transform problem (its normals) and for a sample-only simulator (its seeded blocks)."""

from __future__ import annotations

import numpy as np
import pytest

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.sample import CommonSample
from acfs_cli.problems import get_problem

N, M = 40, 25  # the new chunk is shorter than the first: a repeat would match its first rows
X_NV = np.array([7.0, 25.0])


class WhiteNoise:
    """A sample-only simulator that returns its generator's next standard normals: the rows
    are the random numbers themselves, whatever the decision."""

    name = "white-noise"
    dim_x, dim_w = 1, 2
    bounds = [(0.0, 1.0)]

    def sample(self, x, n, rng):
        return rng.standard_normal((n, self.dim_w))

    def cost(self, W, x):
        return W[..., 0] + x[..., 0]


def rows_are_new(new: np.ndarray, old: np.ndarray) -> bool:
    """No row of ``new`` equals any row of ``old``, and no value is shared."""
    same_row = (new[:, None, :] == old[None, :, :]).all(axis=-1)
    return not same_row.any() and not np.isin(new, old).any()


def newsvendor_oracle(seed: int = 3) -> Oracle:
    return Oracle(get_problem("price-newsvendor"), 100_000, np.random.default_rng(seed))


@pytest.mark.parametrize("antithetic", [False, True])
def test_an_extended_transform_sample_keeps_its_normals_and_adds_new_ones(antithetic):
    oracle = newsvendor_oracle()
    sample = oracle.common_sample(N, antithetic=antithetic)
    first = sample.normals(1).copy()
    longer = oracle.extend(sample, M)
    z = longer.normals(1)
    assert z.shape == (N + M, 1)
    np.testing.assert_array_equal(z[:N], first)  # bit for bit
    assert rows_are_new(z[N:], first)
    # the sample it grew from is unchanged
    np.testing.assert_array_equal(sample.normals(1), first)
    assert (longer.key, longer.antithetic, sample.n) == (sample.key, antithetic, N)


def test_an_extended_transform_sample_draws_the_same_first_scenarios_and_new_ones_after():
    oracle = newsvendor_oracle()
    sample = oracle.common_sample(N)
    W = oracle.draw_common(X_NV, sample)
    longer = oracle.extend(sample, M)
    used = oracle.used
    W2 = oracle.draw_common(X_NV, longer)
    assert oracle.used - used == N + M  # every row of the longer sample is charged
    np.testing.assert_array_equal(W2[:N], W)
    assert rows_are_new(W2[N:], W)


def test_extending_twice_gives_three_distinct_chunks():
    oracle = newsvendor_oracle()
    sample = oracle.common_sample(N)
    twice = oracle.extend(oracle.extend(sample, M), M)
    z = twice.normals(1)
    assert z.shape == (N + 2 * M, 1)
    first, second, third = z[:N], z[N:N + M], z[N + M:]
    assert rows_are_new(second, first)
    assert rows_are_new(third, first) and rows_are_new(third, second)
    once = oracle.extend(sample, M)
    np.testing.assert_array_equal(once.normals(1), z[:N + M])  # chunks are named, not drawn


def test_a_sample_only_simulator_gets_its_original_stream_then_a_new_one():
    oracle = Oracle(WhiteNoise(), 100_000, np.random.default_rng(4))
    x = np.array([0.5])
    sample = oracle.common_sample(N)
    W = oracle.draw_common(x, sample)
    longer = oracle.extend(sample, M)
    W2 = oracle.draw_common(x, longer)
    assert W2.shape == (N + M, 2)
    np.testing.assert_array_equal(W2[:N], W)
    assert rows_are_new(W2[N:], W)
    twice = oracle.extend(longer, M)
    W3 = oracle.draw_common(x, twice)
    np.testing.assert_array_equal(W3[:N + M], W2)
    assert rows_are_new(W3[N + M:], W2)


def _drawn(blocks) -> list[np.ndarray]:
    return [np.random.Generator(np.random.PCG64(seed)).standard_normal((rows, 2))
            for seed, rows in blocks]


def test_blocks_of_an_extended_sample_are_the_first_chunks_then_new_ones():
    oracle = Oracle(WhiteNoise(), 100_000, np.random.default_rng(5))
    sample = oracle.common_sample(N)
    first = _drawn(sample.blocks())
    longer = oracle.extend(oracle.extend(sample, M), M)
    blocks = longer.blocks()
    # 40 rows in 16 blocks (8 of 3 rows, 8 of 2), then 25 rows twice (9 of 2, 7 of 1)
    sizes = [3] * 8 + [2] * 8
    grown = [2] * 9 + [1] * 7
    assert [rows for _, rows in blocks] == sizes + grown + grown
    drawn = _drawn(blocks)
    for a, b in zip(drawn[:16], first, strict=True):
        np.testing.assert_array_equal(a, b)
    for i in range(len(drawn)):
        for j in range(i):
            assert rows_are_new(drawn[i], drawn[j])
    # every call names the same seeds, so generators in the same states
    for a, b in zip(drawn, _drawn(longer.blocks()), strict=True):
        np.testing.assert_array_equal(a, b)


def test_rows_per_stream_sets_the_blocks_and_a_single_block_keeps_the_chunks_seed():
    oracle = Oracle(WhiteNoise(), 100_000, np.random.default_rng(6))
    longer = oracle.extend(oracle.common_sample(10), 7)
    blocks = longer.blocks(per_stream=4)
    # 10 rows in blocks of 4: 4, 4, 2; then 7 rows: 4, 3
    assert [rows for _, rows in blocks] == [4, 4, 2, 4, 3]
    drawn = _drawn(blocks)
    for i in range(len(drawn)):
        for j in range(i):
            assert rows_are_new(drawn[i], drawn[j])
    # a block as large as a chunk leaves the chunk its own seed
    whole = longer.blocks(per_stream=10)
    assert [(seed, rows) for seed, rows in whole] == list(longer.chunks)


def test_a_sample_only_simulator_with_rows_per_stream_keeps_the_rows_of_an_extended_sample():
    problem = get_problem("price-newsvendor", sample_only=True, rows_per_stream=8)
    oracle = Oracle(problem, 100_000, np.random.default_rng(7))
    sample = oracle.common_sample(N)
    W = oracle.draw_common(X_NV, sample)
    W2 = oracle.draw_common(X_NV, oracle.extend(sample, M))
    np.testing.assert_array_equal(W2[:N], W)
    assert rows_are_new(W2[N:], W)


def test_normals_of_a_chunked_sample_are_each_chunks_own_stream_in_order():
    # built by hand from three seeds: the normals are each seed's first rows, in order
    seeds = [np.random.SeedSequence(100 + i) for i in range(3)]
    sample = CommonSample.of(seeds[0], 5).extended(3, seeds[1]).extended(4, seeds[2])
    expected = np.concatenate([
        np.random.Generator(np.random.PCG64(s)).standard_normal((rows, 2))
        for s, rows in zip(seeds, (5, 3, 4), strict=True)])
    np.testing.assert_array_equal(sample.normals(2), expected)
    assert sample.n == 12
    pairs = CommonSample.of(seeds[0], 4, antithetic=True).extended(2, seeds[1]).normals(1)
    g0 = np.random.Generator(np.random.PCG64(seeds[0])).standard_normal((2, 1))
    g1 = np.random.Generator(np.random.PCG64(seeds[1])).standard_normal((1, 1))
    np.testing.assert_array_equal(pairs, np.concatenate([g0, -g0, g1, -g1]))


def test_two_common_samples_of_one_oracle_are_different_samples():
    oracle = newsvendor_oracle()
    a, b = oracle.common_sample(N), oracle.common_sample(N)
    assert a.key != b.key
    assert rows_are_new(b.normals(1), a.normals(1))


# ---- stratified pairs: antithetic pairs that form a Latin hypercube --------------------------

@pytest.mark.parametrize("n", [2, 7, 20, 41, 100])
def test_stratified_pairs_put_one_row_in_each_stratum_of_every_column(n):
    from scipy.special import ndtr

    from acfs_cli.core.sample import stratified_pairs

    z = stratified_pairs(n, 6, np.random.default_rng(n))
    strata = np.floor(ndtr(z) * n)  # the equiprobable stratum of each value
    np.testing.assert_array_equal(np.sort(strata, axis=0), np.repeat(np.arange(n)[:, None], 6, 1))
    h = n // 2
    np.testing.assert_array_equal(z[:h], -z[h:2 * h])  # rows i and n/2 + i are (z, -z)
    assert z.shape == (n, 6) and np.isfinite(z).all()


def test_twenty_stratified_rows_always_hold_exactly_one_one_in_twenty_shock():
    """The point of the strata: a shock beyond the 0.95-quantile is in every 20-row sample
    once (z > 1.6449), where 20 independent rows hold none in 0.95^20 = 36 % of samples."""
    from scipy.stats import norm

    from acfs_cli.core.sample import stratified_pairs

    rng = np.random.default_rng(8)
    counts = [(stratified_pairs(20, 3, rng) > norm.ppf(0.95)).sum(axis=0) for _ in range(500)]
    np.testing.assert_array_equal(np.array(counts), 1)


def test_stratified_pairs_are_standard_normal_in_each_row():
    """Each row on its own is N(0, 1): the mean, the variance and the tail share over many
    samples agree with the normal's within five standard errors (and a KS test at the
    0.001 level on a fixed seed, row 3 of every sample)."""
    from scipy.stats import kstest, norm

    from acfs_cli.core.sample import stratified_pairs

    rng = np.random.default_rng(9)
    z = np.stack([stratified_pairs(10, 2, rng) for _ in range(20_000)])  # (samples, 10, 2)
    row = z[:, 3, 0]
    m = row.size
    assert abs(row.mean()) < 5 / np.sqrt(m)
    assert abs(row.var() - 1) < 5 * np.sqrt(2 / m)
    tail = (row > norm.ppf(0.9)).mean()
    assert abs(tail - 0.1) < 5 * np.sqrt(0.09 / m)
    assert kstest(row, "norm").pvalue > 1e-3


def test_stratified_samples_keep_their_strata_in_every_chunk_and_only_where_asked():
    from scipy.special import ndtr

    oracle = newsvendor_oracle()
    plain = oracle.common_sample(N, antithetic=True)
    strat = oracle.common_sample(N, antithetic=True, stratified=True)
    assert strat.stratified and not plain.stratified
    grown = oracle.extend(strat, M)
    assert grown.stratified and grown.antithetic
    z = grown.normals(3)
    np.testing.assert_array_equal(z[:N], strat.normals(3))  # the first chunk unchanged
    for part, n in ((z[:N], N), (z[N:], M)):  # each chunk a Latin hypercube of its own rows
        strata = np.sort(np.floor(ndtr(part) * n), axis=0)
        np.testing.assert_array_equal(strata, np.repeat(np.arange(n)[:, None], 3, 1))
    # no pairs, no strata: a plain sample, and a sample-only simulator's
    assert not oracle.common_sample(N, stratified=True).stratified
    box = Oracle(WhiteNoise(), 10_000, np.random.default_rng(2))
    assert not box.common_sample(N, antithetic=True, stratified=True).stratified
