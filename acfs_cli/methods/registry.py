"""The explicit registry of methods (variants included) and import-path plugins.

Nothing is discovered by scanning: this file names every built-in method and where it is
defined, and a method's module is imported when the method is first asked for, so a search
imports what it runs and nothing else (ACFS's forest brings scikit-learn, GP-BO
scikit-optimize). A user's method is named by import path, ``"package.module:NAME"`` for a
:class:`~acfs_cli.methods.base.Method` object, and gets the same treatment as a built-in one
(the oracle counts its draws, its settings are validated, the conformance checks apply).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from acfs_cli.common.naming import did_you_mean
from acfs_cli.core.plugins import named

if TYPE_CHECKING:
    from acfs_cli.methods.base import Method

#: Every built-in method by name, in the order tables list them: the module that defines it
#: and the name of its :class:`Method` there (or of the tuple of Methods that holds it).
BUILTIN: dict[str, tuple[str, str]] = {
    "acfs": ("acfs_cli.methods.acfs", "ACFS"),
    "acfs-noav": ("acfs_cli.methods.acfs", "ACFS_NOAV"),
    "acfs-nocem": ("acfs_cli.methods.acfs", "ACFS_NOCEM"),
    "acfs-norerank": ("acfs_cli.methods.acfs", "ACFS_NORERANK"),
    "acfs-noaug": ("acfs_cli.methods.acfs", "ACFS_NOAUG"),
    "acfs-plus": ("acfs_cli.methods.acfs", "ACFS_PLUS"),
    "gp-bo": ("acfs_cli.methods.gp_bo", "GP_BO"),
    "cem-so": ("acfs_cli.methods.cem_so", "CEM_SO"),
    "sgd-cvar": ("acfs_cli.methods.sgd_cvar", "SGD_CVAR"),
    "kde-so": ("acfs_cli.methods.kde_so", "KDE_SO"),
    "saa-ps": ("acfs_cli.methods.saa_ps", "SAA_PS"),
    "astro": ("acfs_cli.methods.astro", "ASTRO"),
    "auto": ("acfs_cli.methods.auto", "AUTO"),
    **{f"simopt-{solver}": ("acfs_cli.methods.simopt", "SIMOPT_METHODS")
       for solver in ("astrodf", "neldmd", "strong", "spsa", "adam", "aloe")},
    **{f"simopt-{solver}": ("acfs_cli.methods.simopt_declared", "SIMOPT_DECLARED_METHODS")
       for solver in ("rndsrch", "fcsa", "dasso")},
}


def _builtin(name: str) -> Method:
    module, attribute = BUILTIN[name]
    found = getattr(importlib.import_module(module), attribute)
    for method in found if isinstance(found, tuple) else (found,):
        if method.name == name:
            return method
    raise RuntimeError(f"the registry places method {name!r} at {module}.{attribute}, which "
                       "does not define it")


def all_methods() -> dict[str, Method]:
    """Every built-in method by name (each module imported)."""
    return {name: _builtin(name) for name in BUILTIN}


def __getattr__(name: str):
    # ``METHODS``, the whole registry, imports every method: built when it is asked for.
    if name == "METHODS":
        return all_methods()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The paper's five methods, in its order.
PAPER_METHODS = ("acfs", "gp-bo", "cem-so", "sgd-cvar", "kde-so")


def get_method(name: str, folder: str | None = None) -> Method:
    """A registered method or variant by name (its module imported now), or a user's
    :class:`Method` by an installed package's entry point or by import path
    (``"package.module:NAME"``, found from ``folder`` first); ``ValueError`` in one line
    otherwise."""
    from acfs_cli.methods.base import Method

    if name in BUILTIN:
        return _builtin(name)
    found = named("acfs.methods", name, "method", folder)
    if found is None:
        raise ValueError(f"unknown method {name!r}{did_you_mean(name, BUILTIN)}; known "
                         f"methods: {', '.join(BUILTIN)} (or a user method by import path, "
                         "package.module:NAME)")
    if not isinstance(found, Method):
        raise ValueError(f"method {name!r} is a {type(found).__name__}, not an "
                         "acfs_cli.methods.Method")
    return found
