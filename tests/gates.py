"""A problem whose cells can be held at a gate, so a test can stop a run while some cells are
surely unfinished, whatever the speed of the machine.

``GatedDGP2(gated=True)`` is DGP2, except that in a process whose environment holds
``ACFS_TEST_GATE=closed`` its cost never returns; ``gated=False``, or an open gate, computes
exactly DGP2's numbers.
"""

from __future__ import annotations

import os
import time

from acfs_cli.problems.dgp2 import DGP2

GATE = "ACFS_TEST_GATE"


class GatedDGP2(DGP2):
    name = "gated-dgp2"

    def __init__(self, gated: bool = False):
        super().__init__()
        self.gated = bool(gated)

    def cost(self, W, x):
        while self.gated and os.environ.get(GATE) == "closed":
            time.sleep(0.05)
        return super().cost(W, x)


def closed_gate() -> dict[str, str]:
    """The environment of a process whose gated cells never finish."""
    return {**os.environ, GATE: "closed"}
