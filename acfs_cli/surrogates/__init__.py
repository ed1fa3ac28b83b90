"""Conditional samplers of W | x learned from oracle draws (paper Sections 2.2-2.3, 3).

* :class:`ForestSampler` - the conditional weighted forest sampler (CWFS) of ACFS;
* :class:`KDESampler` - the decision-weighted Gaussian KDE of ACFS's DE phase and KDE-SO;
* :func:`surrogate_objective` - a fitted sampler as a batch surrogate of J.
"""

from __future__ import annotations

from acfs_cli.surrogates.forest import ForestSampler
from acfs_cli.surrogates.kde import KDESampler
from acfs_cli.surrogates.resampling import (
    silverman_bandwidth,
    surrogate_objective,
    systematic_resample,
)

__all__ = [
    "ForestSampler",
    "KDESampler",
    "silverman_bandwidth",
    "surrogate_objective",
    "systematic_resample",
]
