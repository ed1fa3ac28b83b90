"""Render a :class:`~acfs_cli.report.layout.Layout` for the terminal (rich) or as LaTeX.

The LaTeX follows the paper's tables: booktabs rules, centred headers, ``\\multirow`` keys with a
``\\midrule`` between DGP groups and a ``\\cmidrule`` between lambda groups inside one.
"""

from __future__ import annotations

from dataclasses import replace

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from acfs_cli.report.layout import Column, Entry, Layout, Row, Spanner

LATEX_PACKAGES = "booktabs, multirow, graphicx"

#: The narrowest a long problem name is folded to in the terminal.
FOLD_WIDTH = 20

_LATEX_STYLE = {"bold": r"\textbf{%s}", "italic": r"\textit{%s}", "": "%s"}
_RICH_STYLE = {"bold": "bold", "italic": "italic", "": ""}


def _latex_cell(cell: Entry) -> str:
    if not cell.latex:
        return ""
    return _LATEX_STYLE[cell.style] % cell.latex


def _group_sizes(rows: tuple[Row, ...], level: int) -> list[int]:
    """For each row, the number of following rows (itself included) that share its first
    ``level + 1`` keys, when it starts such a run; 0 inside a run."""
    sizes = [0] * len(rows)
    start = 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or rows[i].keys[: level + 1] != rows[start].keys[: level + 1]:
            sizes[start] = i - start
            start = i
    return sizes


def _separator(previous: Row, row: Row, n_columns: int) -> str | None:
    """A rule between groups: across the table where the first key changes, from the
    changed key's column on where a later one does."""
    if not row.keys or previous.keys[0] != row.keys[0]:
        return r"\midrule" if row.keys else None
    for level in range(1, len(row.keys)):
        if previous.keys[level] != row.keys[level]:
            return rf"\cmidrule(l){{{level + 1}-{n_columns}}}"
    return None


def _header(text: str) -> str:
    return rf"\multicolumn{{1}}{{c}}{{{text}}}"


#: Problems side by side in a LaTeX table at most: more do not fit a page's width.
LATEX_BLOCKS = 3


def to_latex(layout: Layout, label: str) -> str:
    """The layout as a LaTeX ``table`` (needs the packages in :data:`LATEX_PACKAGES`), at
    most :data:`LATEX_BLOCKS` problems side by side: further ones in tabulars below."""
    parts = split_spanners(layout, LATEX_BLOCKS)
    lines = [
        f"% acfs report: {layout.name}; needs \\usepackage{{{LATEX_PACKAGES}}}",
        r"\begin{table}[htbp]",
        r"\centering",
        rf"\caption{{{layout.caption}}}",
        rf"\label{{{label}}}",
    ]
    for i, part in enumerate(parts):
        if i:
            lines.append(r"\par\medskip")
        lines += _tabular(part)
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def _tabular(layout: Layout) -> list[str]:
    shown = [i for i, c in enumerate(layout.columns) if c.in_latex]
    columns = [*layout.key_columns, *(layout.columns[i] for i in shown)]
    n_keys, n_columns = len(layout.key_columns), len(columns)
    align = "".join(c.align for c in columns)
    lines = [
        r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",
        rf"\begin{{tabular}}{{@{{}}{align}@{{}}}}",
        r"\toprule",
    ]
    if layout.spanners:
        lines += _latex_spanners(layout, shown, n_keys, n_columns)
    lines.append(" & ".join(_header(c.latex) for c in columns) + r" \\")
    lines.append(r"\midrule")
    sizes = [_group_sizes(layout.rows, level) for level in range(n_keys)]
    for i, row in enumerate(layout.rows):
        if i:
            separator = _separator(layout.rows[i - 1], row, n_columns)
            if separator:
                lines.append(separator)
        keys = [
            rf"\multirow{{{sizes[level][i]}}}{{*}}{{{_latex_cell(key)}}}"
            if sizes[level][i] > 1
            else (_latex_cell(key) if sizes[level][i] == 1 else "")
            for level, key in enumerate(row.keys)
        ]
        values = [_latex_cell(row.cells[j]) for j in shown]
        lines.append(" & ".join([*keys, *values]) + r" \\")
    return [*lines, r"\bottomrule", r"\end{tabular}}"]


def _latex_spanners(layout: Layout, shown: list[int], n_keys: int, n_columns: int) -> list[str]:
    position = {j: n_keys + k + 1 for k, j in enumerate(shown)}  # 1-based LaTeX column
    cells = [""] * n_columns
    rules = []
    for s in layout.spanners:
        first, last = position[s.first], position[s.last]
        cells[first - 1] = rf"\multicolumn{{{last - first + 1}}}{{c}}{{{_latex_cell(s.label)}}}"
        for col in range(first, last):
            cells[col] = None
        trim = "l" if last == n_columns else "lr"
        rules.append(rf"\cmidrule({trim}){{{first}-{last}}}")
    header = " & ".join(c for c in cells if c is not None) + r" \\"
    return [header, " ".join(rules)]


def to_rich(layout: Layout) -> Table:
    """The layout as a rich table; keys print once per group, a rule separates problems."""
    table = Table(title=layout.title, box=box.SIMPLE_HEAD, title_justify="left", pad_edge=False)
    spanned = {}
    for s in layout.spanners:
        for j in range(s.first, s.last + 1):
            spanned[j] = s.label.plain
    for column in layout.key_columns:
        if column.wrap:
            # folded, a name stays readable down to this width; narrower, a column goes
            table.add_column(column.plain, justify="left", overflow="fold", min_width=FOLD_WIDTH)
        else:
            table.add_column(column.plain, justify="left", no_wrap=True)
    for j, column in enumerate(layout.columns):
        heading = f"{spanned[j]}\n{column.plain}" if j in spanned else column.plain
        justify = "left" if column.align == "l" else "right"
        if column.wrap:  # a long text (a decision) folds at its spaces, as a long name does
            table.add_column(heading, justify=justify, overflow="fold", min_width=FOLD_WIDTH)
        else:
            table.add_column(heading, justify=justify, no_wrap=True)
    for i, row in enumerate(layout.rows):
        previous = layout.rows[i - 1].keys if i else None
        keys = [
            key.plain if previous is None or previous[: level + 1] != row.keys[: level + 1] else ""
            for level, key in enumerate(row.keys)
        ]
        following = layout.rows[i + 1].keys if i + 1 < len(layout.rows) else None
        end_section = bool(row.keys) and following is not None and following[0] != row.keys[0]
        values = [Text(c.plain, style=_RICH_STYLE[c.style]) for c in row.cells]
        table.add_row(*keys, *values, end_section=end_section)
    return table


def long_form(layout: Layout) -> Layout | None:
    """The layout with the blocks under its spanners (a problem each) stacked as rows, a
    row per problem and method; None when the blocks differ in their columns."""
    if not layout.spanners:
        return None
    blocks = [range(s.first, s.last + 1) for s in layout.spanners]
    heads = {tuple(layout.columns[j].plain for j in b) for b in blocks}
    if len(heads) != 1:
        return None
    spanned = {j for b in blocks for j in b}
    shared = [j for j in range(len(layout.columns)) if j not in spanned]
    rows = []
    for s, block in zip(layout.spanners, blocks, strict=True):
        for row in layout.rows:
            cells = tuple(row.cells[j] for j in [*shared, *block])
            if all(row.cells[j].plain == "-" for j in block):
                continue  # the method did not run on this problem
            rows.append(Row((s.label, *row.keys), cells))
    key = Column("problem", "Problem", "l", wrap=True)
    columns = tuple(layout.columns[j] for j in [*shared, *blocks[0]])
    return replace(layout, key_columns=(key, *layout.key_columns), columns=columns,
                   rows=tuple(rows), spanners=())


def without(layout: Layout, level: int) -> Layout:
    """The layout without its columns optional at ``level`` or above."""
    keep = [j for j, c in enumerate(layout.columns) if not c.optional or c.optional < level]
    if len(keep) == len(layout.columns):
        return layout
    position = {j: k for k, j in enumerate(keep)}
    spanners = tuple(
        Spanner(s.label, position[first], position[last])
        for s in layout.spanners
        for inside in [[j for j in range(s.first, s.last + 1) if j in position]]
        if inside
        for first, last in [(inside[0], inside[-1])]
    )
    rows = tuple(Row(r.keys, tuple(r.cells[j] for j in keep)) for r in layout.rows)
    return replace(layout, columns=tuple(layout.columns[j] for j in keep), rows=rows,
                   spanners=spanners)


def candidates(layout: Layout) -> list[Layout]:
    """Terminal layouts from widest to narrowest: as built, long, then without the least
    needed columns, one level at a time."""
    out = [layout]
    long = long_form(layout)
    if long is not None:
        out.append(long)
    levels = sorted({c.optional for c in layout.columns if c.optional}, reverse=True)
    base = out[-1]
    for level in levels:
        out.append(without(base, level))
    return out


def natural_width(console: Console, table: Table) -> int:
    """The width a table needs to print every cell whole on one line."""
    # measured as if the console were unbounded: rich clamps a measure to the console width
    return console.measure(table, options=console.options.update_width(100_000)).maximum


def cuts(table: Table, width: int) -> bool:
    """Whether printing ``table`` ``width`` columns wide cuts an entry short (rich marks a
    cut with an ellipsis; a long problem name that folds onto a second line is not cut)."""
    from io import StringIO

    probe = Console(file=StringIO(), width=width, color_system=None, legacy_windows=False,
                    emoji=False)
    probe.print(table, crop=False)
    printed = probe.file.getvalue()
    # a line longer than the width is one the terminal would crop
    return "\u2026" in printed or any(len(line) > width for line in printed.splitlines())


def fitted(console: Console, layout: Layout) -> tuple[Table, int | None]:
    """The first terminal table that prints whole at the console's width, and None; when
    none does, the narrowest and the width it needs."""
    tables = [to_rich(c) for c in candidates(layout)]
    for table in tables:
        if not cuts(table, console.width):
            return table, None
    widths = [narrowest_whole(t, console.width, natural_width(console, t)) for t in tables]
    narrowest = min(range(len(tables)), key=lambda i: widths[i])
    return tables[narrowest], widths[narrowest]


def narrowest_whole(table: Table, low: int, high: int) -> int:
    """The narrowest width from ``low`` to ``high`` (where nothing is cut) at which
    ``table`` prints whole: long names fold rather than widen the table."""
    while low < high:
        middle = (low + high) // 2
        if cuts(table, middle):
            low = middle + 1
        else:
            high = middle
    return high


def split_spanners(layout: Layout, most: int) -> list[Layout]:
    """The layout as several, each with at most ``most`` spanned blocks side by side (the
    shared columns repeated in each); the layout itself when it has no more."""
    if len(layout.spanners) <= most:
        return [layout]
    spanned = {j for s in layout.spanners for j in range(s.first, s.last + 1)}
    shared = [j for j in range(len(layout.columns)) if j not in spanned]
    parts = []
    for start in range(0, len(layout.spanners), most):
        group = layout.spanners[start:start + most]
        keep = shared + [j for s in group for j in range(s.first, s.last + 1)]
        position = {j: k for k, j in enumerate(keep)}
        rows = tuple(Row(r.keys, tuple(r.cells[j] for j in keep)) for r in layout.rows
                     if any(r.cells[j].plain != "-" for s in group
                            for j in range(s.first, s.last + 1)))
        parts.append(replace(
            layout, columns=tuple(layout.columns[j] for j in keep), rows=rows,
            spanners=tuple(Spanner(s.label, position[s.first], position[s.last])
                           for s in group)))
    return parts
