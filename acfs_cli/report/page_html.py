"""The study page's HTML: the report's layouts as sortable tables, the study's facts, the
figures' places and the page around them, with the package's script and style inline
(:mod:`acfs_cli.report.page` gathers what goes in)."""

from __future__ import annotations

import json
import math
import re
from html import escape
from importlib import resources

from acfs_cli.report.layout import Entry, Layout

#: Where each figure is explained on the page (title, what it shows).
FIGURES = (
    ("progress", "Progress curves",
     "Median quality of each method's incumbent against draws (log axis), with SimOpt's "
     "25-75 % quantile band over replications; one panel per problem. Hover a point for its "
     "numbers."),
    ("solvability", "Solvability profiles (SimOpt)",
     "Share of problems solved within a relative gap against the fraction of the budget: "
     "the CDF profile is the mean over problems of the share of replications whose "
     "normalised gap is below the tolerance by then; the quantile profile the share of "
     "problems whose median solve time is reached."),
    ("area", "Area scatter (SimOpt)",
     "Per problem and method, the mean area under the replications' progress curves "
     "(normalised gap against budget fraction; 0 best, 1 never better than x0) against its "
     "standard deviation over replications."),
    ("boxes", "Final quality",
     "Box plots of the quality of each replication's final x* (boxes: quartiles, whiskers: "
     "1.5 IQR, dots: beyond), one panel per problem."),
)

#: Columns of long text, folded rather than stretched.
WRAP = {"notes", "error", "status", "measure"}

_NUMBER = re.compile(r"^[+-]?[0-9][0-9,]*(\.[0-9]+)?(e[+-]?[0-9]+)?")


def asset(name: str) -> str:
    """A file of the package's ``assets`` folder (shipped in the wheel)."""
    return resources.files("acfs_cli.report").joinpath("assets", name).read_text("utf-8")


def sort_value(text: str) -> str | None:
    """The number a cell sorts by: its leading number (thousands separators, a sign, a ``%``
    or stars after it), ``<0.001`` as 0.0005, the lower end of an interval; None for text."""
    t = text.strip().lstrip("[").replace("\u2212", "-")
    if t.startswith("<"):
        t = t[1:]
        match = _NUMBER.match(t)
        return str(float(match.group(0).replace(",", "")) / 2) if match else None
    match = _NUMBER.match(t)
    if not match:
        return None
    return str(float(match.group(0).replace(",", "")))


def _cell(entry: Entry, tag: str = "td", cls: str = "") -> str:
    text = escape(entry.plain)
    if entry.style == "bold":
        text = f"<b>{text}</b>"
    elif entry.style == "italic":
        text = f"<i>{text}</i>"
    value = sort_value(entry.plain)
    attrs = f' data-v="{value}"' if value is not None else ""
    if cls:
        attrs += f' class="{cls}"'
    return f"<{tag}{attrs}>{text}</{tag}>"


def table_html(layout: Layout, ident: str) -> str:
    """A layout as a sortable table: keys repeated on every row (so a sort keeps them), a
    header row of spanners where the layout has them, the notes under it."""
    head = []
    n_keys = len(layout.key_columns)
    if layout.spanners:
        cells = [f'<th colspan="{n_keys}"></th>'] if n_keys else []
        at = 0
        for s in sorted(layout.spanners, key=lambda s: s.first):
            if s.first > at:
                cells.append(f'<th colspan="{s.first - at}"></th>')
            cells.append(f'<th colspan="{s.last - s.first + 1}" class="span">'
                         f"{escape(s.label.plain)}</th>")
            at = s.last + 1
        if at < len(layout.columns):
            cells.append(f'<th colspan="{len(layout.columns) - at}"></th>')
        head.append('<tr class="spanners">' + "".join(cells) + "</tr>")
    names = [*layout.key_columns, *layout.columns]
    head.append("<tr>" + "".join(
        f'<th class="sort" title="sort by this column">{escape(c.plain)}</th>'
        for c in names) + "</tr>")
    body = []
    wraps = ["wrap" if c.wrap else "" for c in layout.columns]
    for row in layout.rows:
        keys = "".join(_cell(k, cls="key") for k in row.keys)
        cells = "".join(_cell(c, cls=w) for c, w in zip(row.cells, wraps, strict=False))
        body.append(f"<tr>{keys}{cells}</tr>")
    notes = "".join(f'<p class="note">{escape(n)}</p>' for n in layout.notes)
    return (f'<div class="table" id="{ident}"><h4>{escape(layout.title)}</h4>'
            f'<div class="scroll"><table class="sortable" data-keys="{n_keys}">'
            f'<thead>{"".join(head)}</thead><tbody>{"".join(body)}</tbody></table></div>'
            f"{notes}</div>")


def plain_table(title: str, columns: list[tuple[str, str]], rows: list[dict],
                ident: str) -> str:
    """A table of dictionaries (``columns``: key, header), sortable like the report's."""
    head = "<tr>" + "".join(f'<th class="sort{" wrap" if k in WRAP else ""}">{escape(h)}</th>'
                            for k, h in columns) + "</tr>"
    body = "".join("<tr>" + "".join(_cell(Entry(str(r[k]), ""), cls="wrap" if k in WRAP else "")
                                    for k, _ in columns) + "</tr>" for r in rows)
    return (f'<div class="table" id="{ident}"><h4>{escape(title)}</h4><div class="scroll">'
            f'<table class="sortable" data-keys="0"><thead>{head}</thead>'
            f"<tbody>{body}</tbody></table></div></div>")


def _section_name(prefix: str) -> str:
    """``comparison_budget100_`` -> ``comparison, budget 100``."""
    parts = [p for p in prefix.strip("_").split("_") if p]
    named = [f"budget {int(p[6:]):,}" if p.startswith("budget") and p[6:].isdigit() else p
             for p in parts]
    return ", ".join(named)


def report_html(events: list, x: int) -> tuple[str, list[tuple[str, str]]]:
    """The report's notes and tables in the order it says them, a heading where the kind or
    budget changes; and the (anchor, title) of each table for the contents."""
    out, contents = [], []
    prefix = None
    for i, event in enumerate(events):
        if event[0] == "note":
            cls = "note warn" if event[1].startswith(("warning", "failed", "no ")) else "note"
            out.append(f'<p class="{cls}">{escape(event[1])}</p>')
            continue
        _, at, layout = event
        if at != prefix and at:
            out.append(f"<h3>{escape(_section_name(at))}</h3>")
        prefix = at
        ident = f"x{x}-t{i}"
        contents.append((ident, layout.title))
        out.append(table_html(layout, ident))
    return "".join(out), contents


def _facts(facts: list[tuple[str, str]]) -> str:
    rows = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts)
    return f'<dl class="facts">{rows}</dl>'


def _answers(answers: list[dict], x: int) -> str:
    out = []
    columns = [("setting", "setting"), ("budget", "budget"), ("n", "replications"),
               ("x", "median x*"), ("J", "J of x*, median"), ("J_range", "J, 25-75 %"),
               ("J_x0", "J of x0, median"), ("no_better", "no better than x0"),
               ("notes", "notes")]
    for i, method in enumerate(answers):
        on = "large-sample J_true" if method["J_on"] == "J_true" else "final-evaluation J"
        table = plain_table(f"{method['name']}: answers, J on the {on}", columns,
                            method["rows"], f"x{x}-a{i}")
        out.append(f'<details class="answers"><summary>{escape(method["name"])} '
                   f'<span class="muted">({len(method["rows"])} rows)</span></summary>'
                   f"{table}</details>")
    return "".join(out)


def _figures(notes: dict, x: int, has: dict) -> str:
    out = []
    if "all" in notes:
        return f'<p class="note warn">{escape(notes["all"])}</p>'
    if "left_out" in notes:
        out.append(f'<p class="note warn">{escape(notes["left_out"])}</p>')
    for key, title, what in FIGURES:
        out.append(f'<div class="figblock" id="x{x}-{key}"><h3>{escape(title)}</h3>'
                   f'<p class="muted">{escape(what)}</p>')
        for extra in (f"{key}_band", f"{key}_left_out"):
            if extra in notes:
                out.append(f'<p class="note">{escape(notes[extra])}</p>')
        if key in notes and not has.get(key):
            out.append(f'<p class="note warn nofig">{escape(notes[key])}</p>')
        else:
            if key in notes:
                out.append(f'<p class="note">{escape(notes[key])}</p>')
            out.append(f'<div class="figure" data-fig="{key}" data-x="x{x}"></div>')
        out.append("</div>")
    return "".join(out)


def experiment_html(data: dict, x: int) -> str:
    """One experiment's section: the study, the figures, the report's tables, the answers."""
    report, contents = report_html(data["events"], x)
    toc = "".join(f'<li><a href="#{a}">{escape(t)}</a></li>' for a, t in contents)
    failures = data["failures"]
    if failures:
        failed = plain_table(f"Failed cells ({len(failures):,}): the first line of each error",
                             [("problem", "problem"), ("lam", "lambda"),
                              ("method", "method"), ("budget", "budget"), ("rep", "rep"),
                              ("error", "error")], failures[:500], f"x{x}-failed")
        if len(failures) > 500:
            failed += f'<p class="note">... and {len(failures) - 500:,} more failed cells</p>'
    else:
        failed = '<p class="muted">No failed cells.</p>'
    optima = ""
    if data["optima"]:
        optima = plain_table("Reference optima J* per setting, whether they are current, "
                             "and the quality measure each setting is rated on",
                             [("problem", "problem"), ("lam", "lambda"), ("alpha", "alpha"),
                              ("J_star", "J*"), ("status", "reference optimum"),
                              ("floor", "reference floor"), ("measure", "quality measure")],
                             data["optima"], f"x{x}-optima")
    has = {k: bool(v) for k, v in data["figures"].items()}
    return (f'<section class="experiment" id="x{x}" data-name="{escape(data["name"])}">'
            f'<h2>{escape(data["name"])} <span class="muted">{escape(data["folder"])}</span>'
            f"</h2>"
            f'<nav class="local"><a href="#x{x}-study">Study</a> · '
            f'<a href="#x{x}-figures">Figures</a> · <a href="#x{x}-report">Tables</a> · '
            f'<a href="#x{x}-answers">Answers</a></nav>'
            f'<h2 class="part" id="x{x}-study">The study</h2>{_facts(data["facts"])}'
            f"{optima}{failed}"
            f'<h2 class="part" id="x{x}-figures">Figures</h2>'
            f'{_figures(data["figure_notes"], x, has)}'
            f'<h2 class="part" id="x{x}-report">Tables</h2>'
            f'<details class="toc"><summary>Contents ({len(contents)} tables)</summary>'
            f"<ol>{toc}</ol></details>{report}"
            f'<h2 class="part" id="x{x}-answers">Answers per method</h2>'
            f'{_answers(data["answers"], x) or "<p class=muted>No answers.</p>"}'
            "</section>")


def _finite(value):
    """``value`` for JSON: NaN as null, an infinity as +-1e308 (the script's "no answer")."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else math.copysign(1e308, value)
    return value


def page_html(title: str, sections: list[str], data: dict, names: list[str]) -> str:
    """The whole page: style, the experiments (tabs when there are several), the figures'
    data and the script, all inline."""
    from acfs_cli import __version__

    tabs = ""
    if len(names) > 1:
        tabs = '<nav class="tabs">' + "".join(
            f'<button data-tab="x{i}">{escape(n)}</button>' for i, n in enumerate(names)
        ) + '<button data-tab="all">side by side</button></nav>'
    payload = json.dumps(_finite(data), separators=(",", ":"), allow_nan=False)
    payload = payload.replace("</", "<\\/")  # safe inside <script>
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>acfs report: {escape(title)}</title><style>{asset('page.css')}</style>"
        "</head><body>"
        f'<header><h1>acfs report: {escape(title)}</h1><p class="muted">Written by acfs '
        f"{escape(__version__)} from the results it names; opens from disk, no network. "
        "Click a column's header to sort a table.</p>"
        f"{tabs}</header><main>{''.join(sections)}</main>"
        '<div id="tip" role="tooltip" hidden></div>'
        f'<script type="application/json" id="figdata">{payload}</script>'
        f"<script>{asset('page.js')}</script></body></html>\n"
    )
