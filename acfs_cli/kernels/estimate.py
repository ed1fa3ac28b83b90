"""Direct-oracle estimates of J for a batch of decisions (shared by every method).

One oracle call draws ``n`` scenarios at each of m decisions and returns the spectral-risk
estimate of each. Options:

* ``crn``: the same standard normals at every decision of the batch (common random numbers),
  so differences between candidates are not swamped by sampling noise;
* ``antithetic``: the normals come as n/2 pairs (z, -z) (paper Section 2.4).
"""

from __future__ import annotations

import numpy as np

from acfs_cli.core.oracle import Oracle, antithetic_normals


def batch_normals(
    m: int, n: int, dim: int, rng: np.random.Generator, *, crn: bool, antithetic: bool
) -> np.ndarray:
    """Standard normals of shape (m, n, dim) for a batch request."""
    if crn:
        z = antithetic_normals(n, dim, rng) if antithetic else rng.standard_normal((n, dim))
        return np.broadcast_to(z, (m, n, dim))
    if antithetic:
        return np.stack([antithetic_normals(n, dim, rng) for _ in range(m)])
    return rng.standard_normal((m, n, dim))


def estimate_batch(
    task,
    oracle: Oracle,
    X: np.ndarray,
    n: int,
    rng: np.random.Generator,
    *,
    crn: bool = False,
    antithetic: bool = False,
):
    """``(J, EC, CVaR)`` arrays of shape (m,) for decisions X (m, d_x); charges m * n draws.

    Problems without ``transform`` (user simulators that only sample) get plain draws.
    """
    X = np.atleast_2d(X)
    if oracle.supports_normals:
        z = batch_normals(X.shape[0], n, oracle.dim_w, rng, crn=crn, antithetic=antithetic)
        W = oracle.draw_batch(X, n, z=z)
    else:
        W = oracle.draw_batch(X, n)
    return task.risk(task.cost(W, X))
