"""Explicit registries of methods (variants included). Nothing is discovered by scanning.

Each method module exports its :class:`~acfs_cli.methods.base.Method` objects; this file is
the one place that names them. A duplicate name is an error.
"""

from __future__ import annotations

from acfs_cli.methods.acfs import ACFS_METHODS
from acfs_cli.methods.base import Method
from acfs_cli.methods.cem import CEM_SO
from acfs_cli.methods.gp_bo import GP_BO
from acfs_cli.methods.kde_so import KDE_SO
from acfs_cli.methods.saa_ps import SAA_PS
from acfs_cli.methods.sgd_cvar import SGD_CVAR


def _register(*methods: Method) -> dict[str, Method]:
    table: dict[str, Method] = {}
    for m in methods:
        if m.name in table:
            raise ValueError(f"method {m.name!r} is registered twice")
        table[m.name] = m
    return table


METHODS: dict[str, Method] = _register(*ACFS_METHODS, GP_BO, CEM_SO, SGD_CVAR, KDE_SO, SAA_PS)

#: The paper's five methods, in its order.
PAPER_METHODS = ("acfs", "gp-bo", "cem-so", "sgd-cvar", "kde-so")


def get_method(name: str) -> Method:
    """A registered method or variant by name; ``ValueError`` listing the valid names."""
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(
            f"unknown method {name!r}; known methods: {', '.join(METHODS)}"
        ) from None
