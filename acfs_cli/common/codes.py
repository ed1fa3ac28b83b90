"""The text of a problem's code fingerprint, as the core writes it and the report reads it."""

from __future__ import annotations

#: The convention by which sample-only simulators are handed their random numbers, part of
#: every sample-only problem's code fingerprint: "sampling 2" cuts every stream into seeded
#: blocks (:func:`acfs_cli.core.sample.stream_blocks`); before it, a stream was one
#: generator's, drawn in order.
SAMPLING = "sampling 2"


def sampled_code(code: str) -> str:
    """A sample-only problem's fingerprint: its code and the :data:`SAMPLING` convention."""
    return f"{code}, {SAMPLING}"


def law_code(code: str) -> str:
    """The part of a problem's code fingerprint that fixes the law of its scenarios: the
    fingerprint without its sampling convention, which changes the random numbers a
    sample-only simulator is handed but not their law, and so not J* (a reference optimum
    is current while this part matches; a floor, estimated on a replication's own random
    numbers, needs the whole code)."""
    return code.rsplit(", sampling ", 1)[0]
