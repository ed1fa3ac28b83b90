"""Methods: ACFS, its ablation variants, the paper's competitors and SAA-PS (Sections 2-3).

One module per method (its settings model and its search; ACFS's settings, long enough, in
``acfs_settings``), the settings of the kernels several methods share
(``kernel_settings``); :mod:`acfs_cli.methods.registry` names them all and imports a method's
module when the method is asked for.
"""

from __future__ import annotations

from acfs_cli.methods.base import Method, MethodResult, Settings
from acfs_cli.methods.registry import PAPER_METHODS, get_method


def __getattr__(name: str):
    if name == "METHODS":  # the whole registry: every method's module imported
        from acfs_cli.methods.registry import all_methods

        return all_methods()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["METHODS", "PAPER_METHODS", "Method", "MethodResult", "Settings", "get_method"]
