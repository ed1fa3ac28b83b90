"""A user's simulator, named by import path, whose cost fails: the failing cell of the tests of
the runner and of the command line."""

from __future__ import annotations

from acfs_cli.problems.dgp2 import DGP2


class ExplodingProblem(DGP2):
    """A user simulator (by import path) whose cost function fails."""

    name = "exploding"

    def cost(self, W, x):
        raise RuntimeError("simulator crashed\non two lines")
