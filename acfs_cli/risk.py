"""The spectral-risk estimator, as the public interface names it: ``acfs_cli.risk.spectral_risk``.

The implementation is :mod:`acfs_cli.core.risk` (the one estimator of the project).
"""

from acfs_cli.core.risk import (
    MIN_TAIL_DRAWS,
    check_risk_params,
    influence,
    min_tail_draws,
    spectral_risk,
)

__all__ = ["MIN_TAIL_DRAWS", "check_risk_params", "influence", "min_tail_draws", "spectral_risk"]
