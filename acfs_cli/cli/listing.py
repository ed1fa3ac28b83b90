"""``acfs list``: the problems and the methods, a line each; with ``--all`` or a method's name,
each method's parameters with defaults."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from acfs_cli.cli.common import console, fail
from acfs_cli.common.naming import label_value


def list_(
    method: Annotated[
        str | None,
        typer.Argument(help="Show only this method's parameters: a name, or your own method "
                       "by import path (my_method:RANDOM_SEARCH, from this folder).",
                       show_default=False),
    ] = None,
    every: Annotated[
        bool, typer.Option("--all", "-a", help="Every problem's table and every method's "
                           "parameters with their defaults.")
    ] = False,
) -> None:
    """Problems and methods, a line each; --all or a method's name: the parameters too.

    Parameters are overridden per method under `methods:` in a configuration, for example
    `methods: {acfs: {n_a: 800}}`, or given to `minimize` as keyword arguments.
    """
    from rich.table import Table

    from acfs_cli.problems import PROBLEMS

    out = console()
    if method is None and not every:
        for text in _summary(PROBLEMS, out.width):
            out.print(text, markup=False, highlight=False, soft_wrap=True)
        return
    try:
        from acfs_cli.methods.registry import METHODS
    except ImportError as exc:
        raise fail(f"the method registry cannot be imported: {exc}") from None
    methods = METHODS
    if method is not None:
        methods = {method: _method(method)}
    if method is None:
        out.print(_problems_table(PROBLEMS))
    parents: dict[tuple, str] = {}
    for name, m in methods.items():
        key = (m.settings_model, m.search)
        parent = parents.setdefault(key, name)
        if parent != name and method is None:
            fixed = ", ".join(f"{k}={label_value(v)}" for k, v in m.fixed.items())
            out.print(f"[bold]{name}[/bold]: {m.summary} ({parent} with {fixed})")
            continue
        table = Table(title=f"[bold]{name}[/bold]: {m.summary}", title_justify="left",
                      caption=f"On a sample-only simulator: {m.sample_only}.\n"
                      f"Parallel draws: {_parallel(m)}.", caption_justify="left")
        table.add_column("parameter")
        table.add_column("default", justify="right")
        table.add_column("meaning")
        fields = m.settings_model.model_fields
        for param, value in m.parameters().items():
            fixed = " (fixed)" if param in m.fixed else ""
            table.add_row(param, label_value(value) + fixed, fields[param].description or "")
        out.print(table)


def _summary(problems: dict[str, type], width: int) -> list[str]:
    """A line per problem (dimensions, kind, optimum, what it is) and per method (what it
    does), each cut at ``width`` (the whole text is in ``--all``), and where the rest is."""
    from acfs_cli.core.problem import as_problem
    from acfs_cli.methods.registry import METHODS

    def line(text: str) -> str:
        return text if len(text) <= width else text[:width - 1] + "\u2026"

    wide = max(map(len, problems))
    lines = ["Problems (a name in grid.problem or minimize; yours as module:Class):",
             line(f"  {'name':<{wide}}  dim_x  {'kind':<11}  optimum  what")]
    for name, cls in problems.items():
        p = as_problem(cls())
        doc = cls.__doc__ or sys.modules[cls.__module__].__doc__ or ""
        kind = "transform" if p.has_transform else "sample-only"
        optimum = "exact" if p.has_exact else "search"
        what = (doc.strip().splitlines() or [""])[0]
        lines.append(line(f"  {name:<{wide}}  {p.dim_x:>5}  {kind:<11}  {optimum:<7}  {what}"))
    wide = max(map(len, METHODS))
    lines += ["", "Methods (grid.method, or minimize's method; auto by default):"]
    lines += [line(f"  {name:<{wide}}  {m.summary}") for name, m in METHODS.items()]
    return [*lines, "", "acfs list METHOD: a method's parameters and their defaults",
            "acfs list --all: every method's, and each problem's source"]


def _parallel(m) -> str:
    """How a method's requests spread over workers (``n_jobs``, ``draw_jobs``)."""
    if not m.batched:
        return f"one decision at a time: {m.one_at_a_time or 'its algorithm is sequential'}"
    out = "asks for the rows of several decisions at once wherever its algorithm allows"
    return f"{out}; {m.one_at_a_time}" if m.one_at_a_time else out


def _method(name: str):
    """A registered method, or a user's by import path (``my_method:RANDOM_SEARCH``) found
    from this folder, as a grid beside its file finds it; exit 2 when there is none."""
    from acfs_cli.core.plugins import add_import_path
    from acfs_cli.methods.registry import get_method

    if ":" in name:
        add_import_path(str(Path.cwd()))
    try:
        return get_method(name)
    except (ValueError, ImportError) as exc:
        raise fail(str(exc)) from None


def _problems_table(problems: dict[str, type]):
    """Name, dimensions, kind and optimum of each problem; beneath, what it is and its source."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from acfs_cli.core.problem import as_problem

    table = Table(title="Problems (grid.problem; parameters as {problem: name, params: {...}})",
                  title_justify="left")
    for column in ("name", "dim_x", "dim_w", "kind", "optimum"):
        table.add_column(column, justify="right" if column.startswith("dim") else "left",
                         no_wrap=True)
    notes = Text()
    for name, cls in problems.items():
        p = as_problem(cls())
        doc = cls.__doc__ or sys.modules[cls.__module__].__doc__ or ""
        what = (doc.strip().splitlines() or [""])[0]
        table.add_row(name, str(p.dim_x), str(p.dim_w),
                      "transform" if p.has_transform else "sample-only",
                      "exact" if p.has_exact else "search")
        notes.append(f"{name}: ", style="bold").append(what)
        notes.append(f" Source: {p.source}\n" if p.source else "\n")
    table.add_row("pkg.mod:Class", "", "", "", "")
    notes.append("pkg.mod:Class: ", style="bold")
    notes.append("your own problem by import path (DESIGN.md section 1)\n")
    return Group(table, notes)


