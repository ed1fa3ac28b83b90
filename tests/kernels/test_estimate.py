"""kernels/estimate.py: a batch of decisions estimated on one oracle request, on common rows
or independent ones, checked against the toy's closed form and an independent draw."""

from __future__ import annotations

import numpy as np
import pytest
from toys import GaussianToy

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.problem import as_problem
from acfs_cli.core.risk import spectral_risk
from acfs_cli.core.task import Task
from acfs_cli.kernels.estimate import estimate_batch
from acfs_cli.problems import feasible

LAM, ALPHA = 0.7, 0.95
X = feasible.project(np.array([[0.3, 0.2, 0.1, 0.05, 0.0, 0.6],
                               [0.1, 0.1, 0.1, 0.1, 0.1, 0.5],
                               [0.45, 0.35, 0.0, 0.0, 0.0, 0.9]]))


def setup(seed=5):
    toy = GaussianToy()
    problem = as_problem(toy)
    return toy, Task.from_problem(problem, LAM, ALPHA), Oracle(problem, 10_000,
                                                              np.random.default_rng(seed))


def test_on_common_rows_every_decision_sees_the_same_normals_and_is_charged_its_rows():
    toy, task, oracle = setup()
    J, EC, CVaR = estimate_batch(task, oracle, X, 200, crn=True, antithetic=True)
    assert oracle.used == 3 * 200
    # independently: the oracle's first common sample, through the toy's own transform
    _, _, twin = setup()
    z = twin.common_sample(200, antithetic=True).normals(1)
    assert np.array_equal(z[:100], -z[100:])  # the pairs (z, -z)
    for i, x in enumerate(X):
        costs = toy.cost(toy.transform(x, z), x)
        assert (J[i], CVaR[i]) == pytest.approx(spectral_risk(costs, LAM, ALPHA)[::2], rel=1e-12)
        # antithetic pairs (z, -z): the mean of C = base(x) + s(x) z is base(x) exactly
        base = toy.c0 + toy.Q * ((x - toy.a) ** 2).sum()
        assert EC[i] == pytest.approx(base, rel=1e-12)


def test_one_decision_twice_gets_the_same_rows_in_common_and_other_rows_apart():
    twice = np.vstack([X[0], X[0]])
    _, task, oracle = setup()
    J = estimate_batch(task, oracle, twice, 100, crn=True)[0]
    assert J[0] == J[1] and oracle.used == 200
    _, task, oracle = setup()
    J = estimate_batch(task, oracle, twice, 100)[0]
    assert J[0] != J[1] and oracle.used == 200


def test_a_single_decision_is_a_batch_of_one():
    _, task, oracle = setup()
    J, EC, CVaR = estimate_batch(task, oracle, X[1], 50)
    assert J.shape == EC.shape == CVaR.shape == (1,) and oracle.used == 50
