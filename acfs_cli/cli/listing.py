"""``acfs list``: the problems, the methods and each method's parameters with defaults."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from acfs_cli.cli.common import console, fail


def list_(
    method: Annotated[
        str | None,
        typer.Argument(help="Show only this method's parameters.", show_default=False),
    ] = None,
) -> None:
    """Problems, methods, and each method's parameters with their defaults.

    Parameters are overridden per method under `methods:` in a configuration, for example
    `methods: {acfs: {n_a: 800}}`.
    """
    from rich.table import Table

    from acfs_cli.problems import PROBLEMS

    out = console()
    try:
        from acfs_cli.methods.registry import METHODS
    except ImportError as exc:
        raise fail(f"the method registry cannot be imported: {exc}") from None
    if method is not None and method not in METHODS:
        raise fail(f"unknown method {method!r}; known methods: {', '.join(METHODS)}")
    if method is None:
        problems = Table(title="Problems (grid.dgp)", title_justify="left", show_header=False)
        for name, cls in PROBLEMS.items():
            doc = cls.__doc__ or sys.modules[cls.__module__].__doc__ or ""
            problems.add_row(name, (doc.strip().splitlines() or [""])[0])
        problems.add_row("pkg.mod:Class", "a user problem by import path (transform/sample, "
                         "cost, project)")
        out.print(problems)
    parents: dict[tuple, str] = {}
    for name, m in METHODS.items():
        if method is not None and name != method:
            continue
        key = (m.settings_model, m.search)
        parent = parents.setdefault(key, name)
        if parent != name and method is None:
            fixed = ", ".join(f"{k}={_show(v)}" for k, v in m.fixed.items())
            out.print(f"[bold]{name}[/bold]: {m.summary} ({parent} with {fixed})")
            continue
        table = Table(title=f"[bold]{name}[/bold]: {m.summary}", title_justify="left")
        table.add_column("parameter")
        table.add_column("default", justify="right")
        table.add_column("meaning")
        fields = m.settings_model.model_fields
        for param, value in m.parameters().items():
            fixed = " (fixed)" if param in m.fixed else ""
            table.add_row(param, _show(value) + fixed, fields[param].description or "")
        out.print(table)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return format(value, "g")
    return str(value)
