"""How values are written where they name something: labels, problem names, stream names.

Three spellings, each with one job, because each is part of an identity that must not move:

* :func:`label_value` - a value as a person reads it in a label or a table (``800``,
  ``0.025``, ``true``): six significant digits, enough to tell settings apart. Sensitivity
  labels such as ``"acfs n_a=800"`` are built from it, and cell ids hash those labels.
* :func:`exact_value` - a value in a problem's name (``mm1(rate=0.8)``): twelve significant
  digits, so two problems with different parameters never share a name (results and random
  streams are keyed by it).
* :func:`stream_token` - a name of a random stream (DESIGN.md section 5): floats to twelve
  significant digits, everything else as ``str``; every committed stream depends on it.

And :func:`did_you_mean`, the nearest known name to a misspelt one, and :func:`short_array`,
a decision in a message or a table, for one-line errors and reports.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np


def label_value(value: Any) -> str:
    """``800``, ``0.025``, ``true``: a value as labels and tables show it."""
    if isinstance(value, bool | np.bool_):
        return str(bool(value)).lower()
    if isinstance(value, float | np.floating):
        return format(float(value), "g")
    return str(value)


def exact_value(value: Any) -> str:
    """A value in a problem's name: floats to twelve significant digits."""
    if isinstance(value, bool | np.bool_):
        return str(bool(value)).lower()
    if isinstance(value, float | np.floating):
        return format(float(value), ".12g")
    return str(value)


def stream_token(name: Any) -> str:
    """A name of a random stream as it is hashed."""
    if isinstance(name, float):
        return format(name, ".12g")
    return str(name)


def problem_label(name: str, params: Mapping[str, Any] | None = None) -> str:
    """The name of a problem with its constructor parameters: ``"mm1(rate=0.8)"``."""
    if not params:
        return name
    inner = ",".join(f"{k}={exact_value(v)}" for k, v in sorted(params.items()))
    return f"{name}({inner})"


def did_you_mean(name: Any, known: Iterable[str]) -> str:
    """``" (did you mean 'kappa'?)"`` with the known name nearest to a misspelt ``name``
    (:func:`difflib.get_close_matches`, case ignored), or "" when none is near."""
    known = [str(k) for k in known]
    by_lower = {k.lower(): k for k in reversed(known)}
    near = difflib.get_close_matches(str(name).lower(), list(by_lower), n=1, cutoff=0.6)
    return f" (did you mean {by_lower[near[0]]!r}?)" if near else ""


def short_array(x, edge: int = 3) -> str:
    """A decision printed in a bounded space: a 50-D vector shows its ends."""
    return np.array2string(np.asarray(x, dtype=float), threshold=2 * edge + 1, edgeitems=edge,
                           separator=", ", max_line_width=10_000,
                           formatter={"float_kind": lambda v: f"{v:.4g}"})
