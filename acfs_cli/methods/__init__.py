"""Methods: ACFS, its ablation variants, the paper's competitors and SAA-PS (Sections 2-3).

One module per method (its settings model and its search); :mod:`acfs_cli.methods.registry`
names them all.
"""

from __future__ import annotations

from acfs_cli.methods.base import Method, MethodResult, Settings
from acfs_cli.methods.registry import METHODS, PAPER_METHODS, get_method

__all__ = ["METHODS", "PAPER_METHODS", "Method", "MethodResult", "Settings", "get_method"]
