"""The benchmarks (paper Section 4.1, Appendix B) and the decision set X they share."""

from __future__ import annotations

from acfs_cli.problems.base import GaussianCopulaProblem, Problem
from acfs_cli.problems.dgp1 import DGP1
from acfs_cli.problems.dgp2 import DGP2
from acfs_cli.problems.feasible import design_map, is_feasible, project, space_filling

#: Registered benchmarks, by name. An explicit dict: nothing is discovered by scanning.
PROBLEMS: dict[str, type] = {"dgp1": DGP1, "dgp2": DGP2}


def get_problem(name: str) -> Problem:
    """A benchmark by name (``"dgp1"`` or ``"dgp2"``), or a user problem by import path.

    ``"package.module:ClassName"`` imports the class and instantiates it without arguments,
    so a user's own simulator runs through the same oracle and runner.
    """
    if name in PROBLEMS:
        return PROBLEMS[name]()
    if ":" in name:
        import importlib

        module_name, _, attr = name.partition(":")
        try:
            obj = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot import problem {name!r}: {exc}") from None
        problem = obj() if isinstance(obj, type) else obj
        missing = [a for a in ("cost", "project") if not hasattr(problem, a)]
        if not (hasattr(problem, "transform") or hasattr(problem, "sample")):
            missing.append("transform or sample")
        if missing:
            raise ValueError(f"problem {name!r} lacks {', '.join(missing)}")
        return problem
    raise ValueError(f"unknown problem {name!r}; known problems: {', '.join(PROBLEMS)}")


__all__ = [
    "DGP1",
    "DGP2",
    "GaussianCopulaProblem",
    "PROBLEMS",
    "Problem",
    "design_map",
    "get_problem",
    "is_feasible",
    "project",
    "space_filling",
]
