"""Write your own method: a local random search on common samples (the README's example).

Each round draws a fresh common sample and compares the incumbent with ``n_candidates``
Gaussian perturbations of it on that sample (paired), keeping the best. The method sees the
simulator only through the oracle, as every method does.

    .venv/bin/acfs run examples/my_method.yaml
"""

import numpy as np
from pydantic import Field

from acfs_cli.methods import Method, MethodResult, Settings


class RandomSearchSettings(Settings):
    n_candidates: int = Field(16, ge=2, description="decisions compared per round")
    rows: int = Field(400, ge=2, description="rows of each round's common sample")
    radius: float = Field(0.1, gt=0, description="perturbation, in units of each range")


def search(task, oracle, s, rng) -> MethodResult:
    x = task.space_filling(1, rng)[0]
    value = np.inf
    while oracle.can_draw(s.n_candidates * s.rows):
        steps = s.radius * task.steps() * rng.standard_normal((s.n_candidates - 1, task.dim_x))
        X = np.vstack([x, task.project(x + steps)])
        sample = oracle.common_sample(s.rows)
        J = task.objective(oracle.draw_common(X, sample), X)
        i = int(np.argmin(J))
        x, value = X[i], float(J[i])
        oracle.record_best(x, value, replace=True)
    return MethodResult(x=x, value=value)


RANDOM_SEARCH = Method("random-search", RandomSearchSettings, search,
                       summary="local random search on common samples")
