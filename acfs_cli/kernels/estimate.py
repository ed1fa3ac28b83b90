"""Direct-oracle estimates of J for a batch of decisions (shared by every method).

One oracle call draws ``n`` scenarios at each of m decisions and returns the spectral-risk
estimate of each. Options:

* ``crn``: one common sample for the whole batch (common random numbers, by normals or by
  re-seeding, :meth:`~acfs_cli.core.oracle.Oracle.common_sample`), so differences between
  candidates are not swamped by sampling noise;
* ``antithetic``: the rows come as n/2 pairs (z, -z) (paper Section 2.4; a sample-only
  simulator gets plain rows, and the oracle notes it).
"""

from __future__ import annotations

import numpy as np

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task


def estimate_batch(task: Task, oracle: Oracle, X: np.ndarray, n: int, *, crn: bool = False,
                   antithetic: bool = False):
    """``(J, EC, CVaR)`` arrays of shape (m,) for decisions X (m, d_x); charges m * n draws."""
    X = np.atleast_2d(X)
    if crn:
        W = oracle.draw_common(X, oracle.common_sample(n, antithetic=antithetic))
    else:
        W = oracle.draw_batch(X, n, antithetic=antithetic)
    return task.risk(task.cost(W, X))
