"""The growing common sample: chunks drawn once, and the independent units of a standard error
- the rows, or each antithetic pair's mean - checked against the normals the rows were made of."""

from __future__ import annotations

import numpy as np
import pytest

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.problem import as_problem
from acfs_cli.core.task import Task
from acfs_cli.kernels.growing_sample import GrowingSample, values


class _Identity:
    """W = z: the cost of a row is its normal, so the rows show how the sample was drawn."""

    dim_x, dim_w = 1, 1
    bounds = [(-1.0, 1.0)]
    x0 = np.array([0.0])
    vectorized = True

    def transform(self, x, z):
        return np.asarray(z, dtype=float).copy()

    def cost(self, W, x):
        return W[..., 0] + 0.0 * np.asarray(x, dtype=float)[..., :1]


def _costs(antithetic: bool, chunks=(8, 20)):
    problem = as_problem(_Identity())
    task = Task.from_problem(problem, 0.7, 0.95)
    samples = GrowingSample(task, Oracle(problem, 1_000, np.random.default_rng(3)), None,
                            antithetic=antithetic)
    for n in chunks:
        samples.grow(n)
    point = samples.point(np.array([0.0]), 1e-9)
    samples.cover([point], samples.n)
    return samples, point.costs


def test_antithetic_units_are_the_means_of_each_chunks_pairs_and_cancel_a_linear_cost():
    samples, z = _costs(antithetic=True)
    # each chunk of r rows holds the pairs (i, r/2 + i): z and -z
    for start, end in ((0, 8), (8, 20)):
        half = (end - start) // 2
        assert z[start:start + half] == pytest.approx(-z[start + half:end])
    units = samples.units(z, 20)
    assert units.shape == (4 + 6,)  # a unit per pair, not per row
    assert units == pytest.approx(np.zeros(10), abs=1e-12)  # a linear cost's pairs cancel
    A = np.arange(20.0)
    expected = [0.5 * (i + 4 + i) for i in range(4)] + [0.5 * (8 + i + 14 + i) for i in range(6)]
    assert samples.units(A, 20) == pytest.approx(expected)
    assert samples.units(A, 8) == pytest.approx(expected[:4])  # the first chunk alone


def test_without_pairs_every_row_is_a_unit():
    samples, z = _costs(antithetic=False)
    assert np.array_equal(samples.units(z, 20), z)
    assert np.std(z) > 0.3  # independent normals, not pairs


def test_values_weigh_the_searchs_level_whose_tail_holds_the_rows_asked_for():
    # 20 rows at alpha 0.95: J at alpha weighs the costliest row; with three tail rows the
    # mean of the three costliest (sorted by hand), and the influence values average to J
    samples, z = _costs(antithetic=False)
    point = samples.points[-1]
    for tail_rows, top in ((0, 1), (3, 3)):
        J, psi = values(samples.task, [point], 20, tail_rows)
        assert J[0] == pytest.approx(z.mean() + 0.7 * np.sort(z)[-top:].mean(), rel=1e-12)
        assert psi[0].mean() == pytest.approx(J[0], rel=1e-12)
