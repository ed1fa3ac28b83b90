"""A renderer-neutral table layout and the paper's number formats.

Each :class:`Entry` carries its text twice, for the terminal and for LaTeX, because the paper's
formats differ between the two (``141{,}747`` and ``$+3.91$`` in LaTeX). Layouts group rows by
up to two leading key columns (problem, lambda), which LaTeX prints with ``\\multirow`` and rules.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}

DASH = "---"


@dataclass(frozen=True)
class Entry:
    """One table entry: terminal text, LaTeX text and an emphasis ("", "bold" or "italic")."""

    plain: str
    latex: str
    style: str = ""


@dataclass(frozen=True)
class Column:
    """A column header; ``in_latex=False`` keeps a column out of the paper's layout, ``wrap``
    lets a long entry fold onto further lines in the terminal rather than be cut; a column
    with a higher ``optional`` is left out of a terminal that is too narrow sooner (0: never)."""

    plain: str
    latex: str
    align: str = "r"
    in_latex: bool = True
    wrap: bool = False
    optional: int = 0


def optional(column: Column, level: int) -> Column:
    """``column``, left out of a narrow terminal at ``level`` (higher: sooner)."""
    return Column(column.plain, column.latex, column.align, column.in_latex, column.wrap, level)


@dataclass(frozen=True)
class Spanner:
    """A header spanning the value columns ``first..last`` (0-based, inclusive)."""

    label: Entry
    first: int
    last: int


@dataclass(frozen=True)
class Row:
    keys: tuple[Entry, ...]
    cells: tuple[Entry, ...]


@dataclass(frozen=True)
class Layout:
    """A table ready to render: ``name`` is the file stem, ``title`` the terminal heading,
    ``caption`` the LaTeX caption, ``notes`` lines printed under the terminal table."""

    name: str
    title: str
    caption: str
    key_columns: tuple[Column, ...]
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    spanners: tuple[Spanner, ...] = ()
    notes: tuple[str, ...] = ()


def latex_escape(text: str) -> str:
    """Text with LaTeX's special characters escaped."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def text(value: str, style: str = "") -> Entry:
    """A plain-text cell (escaped for LaTeX)."""
    return Entry(value, latex_escape(value), style)


def _missing(value) -> bool:
    return value is None or not math.isfinite(float(value))


#: A standard error at or below this share of its values is the rounding of a double, not
#: sampling (:func:`se_decimals`).
ROUNDING = 1e-9


def _decimals(value: float) -> int:
    """Whole numbers from 100 up (the paper's J values) and for integers (grid values such as
    K = 4); four significant digits otherwise, so small objectives stay readable."""
    magnitude = abs(value)
    if magnitude >= 100 or value == round(value):
        return 0
    return max(0, 3 - math.floor(math.log10(magnitude)))


def se_decimals(se, scale=None) -> int | None:
    """Decimals that show a value to the first significant digit of its standard error
    ``se``, and never fewer than whole units (a J in the hundred thousands keeps its units, as
    the paper prints them, where a per-cell error in the thousands would round it to 133,000
    and hide the paired differences the tests are about); None when the error is unknown.

    An error at or below :data:`ROUNDING` of the values' ``scale`` (a J every replication
    computes alike: a deterministic cost) is a double's rounding, not a precision: the
    values keep the decimals of ``scale`` itself, and a spread of that size shows as 0."""
    if _missing(se):
        return None
    if scale is not None and not _missing(scale) and float(scale) != 0 and (
            float(se) <= ROUNDING * abs(float(scale))):
        return _decimals(float(scale))
    if float(se) <= 0:
        return None
    return max(0, -math.floor(math.log10(float(se))))


def _grouped(value: float, decimals: int, sign: bool = False) -> str:
    if decimals < 0:  # a standard error in the hundreds: digits below it are noise
        value, decimals = round(value, decimals), 0
    text = f"{value:{'+' if sign else ''},.{decimals}f}"
    return text.replace("-0", "0", 1) if text.lstrip("+-").strip("0.,") == "" else text


def number(value, style: str = "", decimals: int | None = None) -> Entry:
    """A J-scale number with thousands separators: ``141,747`` / ``141{,}747``; to
    ``decimals`` (:func:`se_decimals`) when its precision is known."""
    if _missing(value):
        return Entry("-", DASH, style)
    places = _decimals(float(value)) if decimals is None else decimals
    plain = _grouped(float(value), places)
    return Entry(plain, plain.replace(",", "{,}"), style)


def signed_number(value, decimals: int | None = None) -> Entry:
    """A signed difference in math mode: ``$-6{,}026$``, ``$+7{,}833$``."""
    if _missing(value):
        return Entry("-", DASH)
    places = _decimals(float(value)) if decimals is None else decimals
    plain = _grouped(float(value), places, sign=True)
    return Entry(plain, f"${plain.replace(',', '{,}')}$")


def interval(lo, hi, decimals: int | None = None) -> Entry:
    """A bootstrap interval: ``[$-9{,}380$;\\,$+4{,}610$]``."""
    if _missing(lo) or _missing(hi):
        return Entry("-", DASH)
    a, b = signed_number(lo, decimals), signed_number(hi, decimals)
    return Entry(f"[{a.plain}; {b.plain}]", f"[{a.latex};\\,{b.latex}]")


def percent_gap(value, is_reference: bool = False, style: str = "") -> Entry:
    """Diff% (relative to the baseline) with two decimals: the baseline shows ``0.00``,
    others ``$+3.91$``."""
    if _missing(value):
        return Entry("-", DASH, style)
    if is_reference:
        return Entry("0.00", "0.00", style)
    plain = f"{float(value):+.2f}"
    return Entry(plain, f"${plain}$", style)


def decimal(value, digits: int = 3, style: str = "") -> Entry:
    """A ratio or correlation in math mode: ``$0.126$``, ``$-0.112$``."""
    if _missing(value):
        return Entry("-", DASH, style)
    plain = f"{float(value):.{digits}f}"
    return Entry(plain, f"${plain}$", style)


def percent(value, style: str = "") -> Entry:
    """A whole percentage: ``50%`` / ``50\\%``."""
    if _missing(value):
        return Entry("-", DASH, style)
    plain = f"{float(value):.0f}"
    return Entry(f"{plain}%", f"{plain}\\%", style)


def pvalue(p, mark: str) -> Entry:
    """A p-value with its stars: ``$0.138$\\,ns``, ``$0.013$*``, ``$<\\!0.001$***``."""
    if _missing(p):
        return Entry("-", DASH)
    if p < 0.001:
        plain, latex = "<0.001", r"$<\!0.001$"
    else:
        plain = f"{float(p):.3f}"
        latex = f"${plain}$"
    separator = "\\," if mark == "ns" else ""
    return Entry(f"{plain} {mark}".rstrip(), f"{latex}{separator}{mark}")


def lam_key(lam: float, alpha: float | None = None) -> Entry:
    """The lambda key of a block, with alpha when a study mixes several."""
    if alpha is None:
        return Entry(f"{lam:.2f}", f"{lam:.2f}")
    return Entry(f"{lam:.2f} (a={alpha:.2f})", f"{lam:.2f} ($\\alpha={alpha:.2f}$)")


_BENCHMARK = re.compile(r"dgp[0-9]+")  # the paper's benchmarks' names


def problem_name(problem: str) -> str:
    """A problem as tables and figures name it: the paper's benchmarks in capitals (``dgp1``
    -> ``DGP1``, ``dgp1(sample_only=true)`` -> ``DGP1(sample_only=true)``), every other
    problem as the grid names it (``performative-pricing(dim=50)``)."""
    base, bracket, rest = problem.partition("(")
    if _BENCHMARK.fullmatch(base):
        base = base.upper()
    return base + bracket + rest


def problem_key(problem: str) -> Entry:
    """The problem key of a block: ``dgp1`` -> ``DGP1``; other problems as named (see
    :func:`problem_name`)."""
    return text(problem_name(problem))
