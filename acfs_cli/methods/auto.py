"""``auto``: the method ``minimize`` runs when none is named - a choice among the others by the
problem's dimension and the budget, made by the measured studies (REPRODUCTION.md, "Which
method"; README "Which method").

It answers at every budget from ten draws per decision dimension up: the choice is
``astro``, the adaptive trust region built for small budgets, below :data:`SMALL` draws per
dimension, and above it ``saa-ps`` up to :data:`SAA_PS_MAX_DIM` dimensions and ``astro``
beyond. Which method ran, and why, is in the result's notes and in ``info["chosen"]``.
"""

from __future__ import annotations

from acfs_cli.core.oracle import Oracle
from acfs_cli.core.task import Task
from acfs_cli.methods.astro import ASTRO
from acfs_cli.methods.base import Method, MethodResult, Settings
from acfs_cli.methods.saa_ps import SAA_PS

#: The methods auto chooses among.
CHOICES: dict[str, Method] = {m.name: m for m in (ASTRO, SAA_PS)}

#: Draws per decision dimension below which the small-budget method answers.
SMALL = 2_000
#: Largest dimension in which saa-ps answers at large budgets: its coordinate polls cost two
#: evaluations a dimension, so in 50 dimensions it stops short of the optimum (REPRODUCTION.md).
SAA_PS_MAX_DIM = 10


def choose(dim: int, budget: int) -> tuple[str, str]:
    """The method ``auto`` runs on a ``dim``-dimensional problem with ``budget`` draws, and
    why."""
    per_dim = budget / dim
    if per_dim < SMALL:
        return "astro", (f"{per_dim:,.0f} draws per dimension, below {SMALL:,}: the adaptive "
                         "trust region built for small budgets")
    if dim <= SAA_PS_MAX_DIM:
        return "saa-ps", (f"{dim} dimensions and {per_dim:,.0f} draws per dimension: "
                          "retrospective approximation on growing common samples")
    return "astro", (f"{dim} dimensions, more than {SAA_PS_MAX_DIM}: the trust region's "
                     "models need fewer draws per step than coordinate polls")


class AutoSettings(Settings):
    """``auto`` takes no settings: the method it chooses runs with its own defaults (name that
    method to set them)."""

    def minimum_budget(self, dim: int) -> int:
        """The small-budget method's: auto picks it where budgets are small."""
        return ASTRO.minimum_budget(dim)


def _search(task: Task, oracle: Oracle, s: AutoSettings, rng) -> MethodResult:
    name, why = choose(task.dim_x, oracle.budget)
    oracle.note(f"auto chose {name}: {why}")
    method = CHOICES[name]
    settings = method.settings().for_budget(oracle.budget, task.dim_x)
    result = method.search(task, oracle, settings, rng)
    result.info["chosen"] = name
    return result


AUTO = Method("auto", AutoSettings, _search, version="2", display="Auto",
              summary="the method minimize runs when none is named: astro below 2,000 draws "
              "per dimension or above 10 dimensions, saa-ps otherwise",
              sample_only="as the method it chooses")
