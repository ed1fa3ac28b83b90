"""acfs: spectral-risk optimisation under decision-dependent uncertainty.

ACFS (Adaptive Conditional Forest Sampling) and the paper's competitors on the DGP1/DGP2
benchmarks, a budgeted oracle, an experiment runner and the paper's statistical report.
"""

__version__ = "0.1.0"
