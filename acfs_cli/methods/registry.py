"""The explicit registry of methods (variants included) and import-path plugins.

Nothing is discovered by scanning: this file names every built-in method. A user's method
is named by import path, ``"package.module:NAME"`` for a :class:`~acfs_cli.methods.base.Method`
object, and gets the same treatment as a built-in one (the oracle counts its draws, its
settings are validated, the conformance checks apply).
"""

from __future__ import annotations

from acfs_cli.core.naming import did_you_mean
from acfs_cli.core.plugins import entry_point, import_object
from acfs_cli.methods.acfs import ACFS_METHODS
from acfs_cli.methods.astro import ASTRO
from acfs_cli.methods.auto import AUTO
from acfs_cli.methods.base import Method
from acfs_cli.methods.cem_so import CEM_SO
from acfs_cli.methods.gp_bo import GP_BO
from acfs_cli.methods.kde_so import KDE_SO
from acfs_cli.methods.saa_ps import SAA_PS
from acfs_cli.methods.sgd_cvar import SGD_CVAR
from acfs_cli.methods.simopt import SIMOPT_METHODS


def _register(*methods: Method) -> dict[str, Method]:
    table: dict[str, Method] = {}
    for m in methods:
        if m.name in table:
            raise ValueError(f"method {m.name!r} is registered twice")
        table[m.name] = m
    return table


METHODS: dict[str, Method] = _register(*ACFS_METHODS, GP_BO, CEM_SO, SGD_CVAR, KDE_SO, SAA_PS,
                                       ASTRO, AUTO, *SIMOPT_METHODS)

def _as_method(obj, name: str) -> Method:
    if not isinstance(obj, Method):
        raise ValueError(f"method {name!r} is a {type(obj).__name__}, not an "
                         "acfs_cli.methods.Method")
    return obj


#: The paper's five methods, in its order.
PAPER_METHODS = ("acfs", "gp-bo", "cem-so", "sgd-cvar", "kde-so")


def get_method(name: str) -> Method:
    """A registered method or variant by name, or a user's :class:`Method` by import path
    (``"package.module:NAME"``); ``ValueError`` in one line otherwise."""
    if name in METHODS:
        return METHODS[name]
    plugin = entry_point("acfs.methods", name)
    if plugin is not None:
        return _as_method(plugin, name)
    if ":" in name:
        return _as_method(import_object(name, "method"), name)
    raise ValueError(f"unknown method {name!r}{did_you_mean(name, METHODS)}; known methods: "
                     f"{', '.join(METHODS)} (or a user method by import path, "
                     "package.module:NAME)")
