"""Objects named from outside the package: by an installed package's entry point
(``acfs.methods``, ``acfs.problems``) or by import path (``package.module:Name``), from a
folder put on the import path."""

from __future__ import annotations

import importlib
import sys
from typing import Any


def entry_point(group: str, name: str):
    """The object an installed package registers under ``name`` in the entry-point ``group``
    (``acfs.methods`` or ``acfs.problems``), or None."""
    from importlib.metadata import entry_points

    for ep in entry_points(group=group, name=name):
        try:
            return ep.load()
        except Exception as exc:
            raise ValueError(f"the entry point {name!r} of {group} cannot be loaded: "
                             f"{type(exc).__name__}: {exc}") from None
    return None


def import_object(spec: str, what: str = "object") -> Any:
    """The object named ``"package.module:attribute"``; ``ValueError`` in one line."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"{what} {spec!r} is not of the form package.module:Name")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # ImportError, or whatever the module raises at import
        raise ValueError(f"cannot import {what} {spec!r}: {type(exc).__name__}: {exc}") from None
    try:
        obj = module
        for part in attr.split("."):
            obj = getattr(obj, part)
    except AttributeError:
        raise ValueError(f"cannot import {what} {spec!r}: module {module_name!r} has no "
                         f"{attr!r}") from None
    return obj


def named(group: str, name: str, what: str, folder: str | None = None) -> Any:
    """The object ``name`` names from outside the package: an installed package's entry
    point of ``group``, else (a name with a colon) ``package.module:Name`` imported with
    ``folder`` first on the import path; None when it is neither. ``ValueError`` in one line
    when it cannot be loaded or imported."""
    found = entry_point(group, name)
    if found is None and ":" in name:
        add_import_path(folder)
        found = import_object(name, what)
    return found


def add_import_path(folder: str | None) -> None:
    """Put ``folder`` first on the import path (once): the folder of a configuration or a
    problem file, whose modules a grid or a call names by import path."""
    if folder and folder not in sys.path:
        sys.path.insert(0, folder)
