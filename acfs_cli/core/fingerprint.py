"""What code computed a result: a fingerprint of a problem's or a method's code (DESIGN.md
section 5).

A cell's id names everything a configuration says about it; the code that ran is not in the
configuration, so a simulator edited between two runs would leave the first run's numbers
standing as if they were the second's. Every stored cell therefore records the fingerprint
of its problem's and its method's code, and a run compares it with the code it has now.

The fingerprint is the ``version`` the code declares (a class attribute of a problem, the
``version`` of a :class:`~acfs_cli.methods.base.Method`), which its author changes when the
results change; without one, the sha256 of the source of the module that defines it, which
changes with every edit of that module (edits of other modules it imports go unseen: declare
a ``version`` to say exactly when results change). The project's own problems and methods
declare versions; the committed cells of the pinned studies are recomputed by the tests, so
a change of their numbers without a new version fails there first.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from types import ModuleType
from typing import Any

#: The fingerprint of code whose source cannot be read (defined at an interactive prompt).
UNKNOWN = "unknown"


def module_fingerprint(module: ModuleType | str | None) -> str:
    """``"source <sha256[:16]>"`` of a module's source, or :data:`UNKNOWN`."""
    if isinstance(module, str):
        module = sys.modules.get(module)
    if module is None:
        return UNKNOWN
    try:
        text = inspect.getsource(module)
    except (OSError, TypeError):
        return UNKNOWN
    return "source " + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def declared(version: Any) -> str:
    """The fingerprint of a declared version."""
    return f"version {version}"


def fingerprint(obj: Any) -> str:
    """The fingerprint of a problem class or object: its declared ``version``, else its
    defining module's source."""
    obj = getattr(obj, "__wrapped__", obj)  # a problem offered in another form
    version = getattr(obj, "version", None)
    if version is not None and not callable(version):
        return declared(version)
    cls = obj if isinstance(obj, type) else type(obj)
    return module_fingerprint(cls.__module__)
