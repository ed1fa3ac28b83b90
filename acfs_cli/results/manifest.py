"""The manifest of a results folder: the cells of its current configuration (DESIGN.md
section 5).

It names the last run's grid, together with the cells of earlier runs of the same settings
(other replications). Cells of other settings in the same folder (another seed, other method
parameters) stay on disk, but a report leaves them out (:mod:`acfs_cli.results.read`). A file
of that name that acfs did not write is an error, never a guess.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acfs_cli.results.files import StoreError, first_line

MANIFEST_FILE = "manifest.json"


@dataclass(frozen=True)
class Manifest:
    """The current configuration of a results folder: its experiment, a key of its settings
    (everything but the replications) and the ids of its cells."""

    experiment: str
    settings: str
    cells: frozenset[str]
    #: The configuration's folder relative to the results folder ("" when unknown): problems
    #: and methods named by import path are found there again (the reference floor).
    source: str = ""
    #: The methods in the configuration's order (empty in older manifests): every table of
    #: the report lists them so.
    methods: tuple[str, ...] = ()

    def to_json(self) -> str:
        return json.dumps({"format": 1, "experiment": self.experiment,
                           "settings": self.settings, "source": self.source,
                           "methods": list(self.methods), "cells": sorted(self.cells)},
                          indent=0)


_CELL_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")  # the stem of a cell file's name


def read_manifest(root: Path | str) -> Manifest | None:
    """The manifest of a results folder, None when there is none; :class:`StoreError` (one
    line) when there is a file of that name that acfs did not write or that was damaged:
    nothing is read from it, and a run refuses the folder rather than replace it."""
    path = Path(root) / MANIFEST_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise StoreError(f"{path} cannot be read as an acfs manifest ({first_line(exc)}); "
                         "move it away or choose another folder") from None
    problem = _manifest_problem(data)
    if problem:
        raise StoreError(f"{path} is not an acfs manifest ({problem}); move it away or choose "
                         "another folder")
    return Manifest(data["experiment"], data["settings"], frozenset(data["cells"]),
                    data.get("source", ""), tuple(data.get("methods", ())))


def _manifest_problem(data: Any) -> str:
    """What makes ``data`` something other than a manifest this module wrote ("" : nothing)."""
    if not isinstance(data, dict):
        return "not a JSON object"
    if data.get("format") != 1:
        return "no format 1"
    for key in ("experiment", "settings"):
        if not isinstance(data.get(key), str) or not data[key]:
            return f"{key} is not a name"
    if not isinstance(data.get("source", ""), str):
        return "source is not a path"
    methods = data.get("methods", [])
    if not (isinstance(methods, list) and all(isinstance(m, str) for m in methods)):
        return "methods is not a list of names"
    cells = data.get("cells")
    if not isinstance(cells, list):
        return "cells is not a list"
    bad = [c for c in cells if not (isinstance(c, str) and _CELL_ID.fullmatch(c))]
    if bad:
        return f"cells holds {len(bad)} entries that are not cell ids, e.g. {bad[0]!r:.40}"
    return ""
