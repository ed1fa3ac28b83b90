"""Methods: ACFS, its ablation variants and the paper's competitors (Sections 2-3)."""

from __future__ import annotations


def get_method(name: str):
    """A registered method by name (see :mod:`acfs_cli.registry`)."""
    from acfs_cli.registry import get_method as _get

    return _get(name)


def __getattr__(name: str):
    if name == "METHODS":
        from acfs_cli.registry import METHODS

        return METHODS
    raise AttributeError(name)
