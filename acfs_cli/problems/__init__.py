"""Problems: the paper's benchmarks (Section 4.1, Appendix B) and users' own by import path.

:func:`get_problem` is the one way a problem is named - from the command line, a YAML grid or
Python - and always returns the normalised :class:`~acfs_cli.core.problem.Problem`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acfs_cli.common.naming import did_you_mean, problem_label
from acfs_cli.core.plugins import add_import_path, import_object, named
from acfs_cli.core.problem import Problem, ProblemError, as_problem
from acfs_cli.problems.copula import GaussianCopulaProblem
from acfs_cli.problems.dgp1 import DGP1
from acfs_cli.problems.dgp2 import DGP2
from acfs_cli.problems.library import DECLARED, LIBRARY

#: The paper's benchmarks.
BENCHMARKS: dict[str, type] = {"dgp1": DGP1, "dgp2": DGP2}
#: Registered problems, by name: the benchmarks, the library and the library's problems with
#: integer coordinates or stochastic constraints. An explicit dict: nothing is discovered by
#: scanning.
PROBLEMS: dict[str, type] = {**BENCHMARKS, **LIBRARY, **DECLARED}


class SampleOnly:
    """A problem with ``transform`` offered as a black box that only takes a generator.

    ``sample(x, n, rng)`` draws its normals from ``rng`` first and transforms them, so the
    scenarios are exactly those of the transform mode on the same stream; the methods see a
    sample-only simulator (common random numbers by re-seeding, no antithetic pairs).
    Everything else - cost, decision set, known optimum - is the problem's own.
    """

    _hidden = ("transform", "transform_batch", "sample")

    def __init__(self, problem):
        self._problem = problem
        self.__wrapped__ = problem  # its code is the problem's

    def __getattr__(self, name: str):
        # the wrapped problem's own attributes only: a copy being unpickled (for a worker) has
        # no _problem yet and is asked for __setstate__ and the like first
        if name in self._hidden or name == "_problem" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._problem, name)

    def sample(self, x, n, rng):
        return self._problem.transform(x, rng.standard_normal((n, self._problem.dim_w)))


def get_problem(name: str, *, sample_only: bool = False, rows_per_stream: int | None = None,
                x0=None, **params: Any) -> Problem:
    """A registered problem (``"dgp1"``, ``"dgp2"``, a library problem), a user problem by
    import path (``"package.module:ClassName"``) or by file (``"models/shop.py:Shop"``, called
    ``shop:Shop``), found as :func:`find_problem` says, built with ``params`` and normalised.

    A class is instantiated with ``params``; an instance (or any other object) is used as it
    is and then takes no parameters. ``sample_only`` offers a problem with ``transform`` as
    a black-box simulator (:class:`SampleOnly`). Raises ``ValueError`` (one line) for an
    unknown name, a failed import, bad parameters or a problem that does not follow the
    protocol.
    """
    return build_problem(find_problem(name), module_name(name), sample_only=sample_only,
                         rows_per_stream=rows_per_stream, x0=x0, **params)


def module_name(name: str) -> str:
    """``name`` with a file's path (``models/shop.py:Shop``) as the import path of the file's
    module (``shop:Shop``), as a problem built from it is called; any other name as it is."""
    module, sep, attribute = name.partition(":")
    if sep and module.endswith(".py"):
        return f"{Path(module).stem}:{attribute}"
    return name


def _from_file(name: str, folder: str | None) -> str:
    """The import path of the file ``name`` names (``models/shop.py:Shop``, relative to
    ``folder``, by default the current folder), its folder put first on the import path; any
    other name as it is. ``ValueError`` in one line for a file that is not there."""
    module, sep, attribute = name.partition(":")
    if not (sep and module.endswith(".py")):
        return name
    if not attribute.strip() or not Path(module).stem.isidentifier():
        raise ValueError(f"problem {name!r} is not of the form path/file.py:Class (a file "
                         "whose name is a Python module's)")
    path = Path(folder or ".") / module
    if not path.is_file():
        raise ValueError(f"problem {name!r}: no file {path.resolve()}")
    add_import_path(str(path.resolve().parent))
    return module_name(name)


def find_problem(name: str, folder: str | None = None) -> Any:
    """What ``name`` names (a class, or an object used as it is): a registered problem, one
    of SimOpt's (``simopt:<ABBR>``), an installed package's (entry point ``acfs.problems``),
    a user's by import path (``module:Class``, found from ``folder`` first, by default the
    current folder) or a user's file (``path/to/file.py:Class``, relative to ``folder``, by
    default the current folder) - one grammar for ``minimize``, ``acfs solve`` and a grid,
    whose ``folder`` is its configuration's; ``ValueError`` in one line for anything else."""
    if name in PROBLEMS:
        return PROBLEMS[name]
    if name.startswith("simopt:"):  # SimOpt's problems, by abbreviation (the simopt extra)
        from acfs_cli.problems.simopt import problem_class

        return problem_class(name)
    spec = _from_file(name, folder)
    top = spec.partition(":")[0].split(".")[0]
    here = Path(folder or Path.cwd())
    if folder is None and ((here / f"{top}.py").is_file() or (here / top).is_dir()):
        folder = str(here.resolve())  # a module of the current folder, as a script's
    found = named("acfs.problems", spec, "problem", folder)
    if found is not None:
        return found
    raise ValueError(f"unknown problem {name!r}{did_you_mean(name, PROBLEMS)}; known "
                     f"problems: {', '.join(PROBLEMS)} (or a user problem by import path, "
                     "package.module:ClassName, or file, path/file.py:ClassName)")


def build_problem(target: Any, name: str, *, sample_only: bool = False,
                  rows_per_stream: int | None = None, x0=None, **params: Any) -> Problem:
    """The problem ``target`` (what :func:`find_problem` found for ``name``) built with
    ``params`` and its options, normalised (see :func:`get_problem`)."""
    if isinstance(target, type):
        try:
            obj = target(**params)
        except Exception as exc:
            raise ValueError(f"problem {problem_label(name, params)!r} cannot be built: "
                             f"{type(exc).__name__}: {exc}") from None
    elif params:
        raise ValueError(f"problem {name!r} is an object, not a class: it takes no parameters")
    else:
        obj = target
    label_params = dict(params)
    if sample_only:
        if not callable(getattr(obj, "transform", None)):
            raise ValueError(f"problem {name!r} has no transform(x, z): it is sample-only "
                             "already")
        obj = SampleOnly(obj)
        label_params["sample_only"] = True
    if rows_per_stream is not None:
        label_params["rows_per_stream"] = rows_per_stream
    if x0 is not None:
        label_params["x0"] = x0
    try:
        problem = as_problem(obj, name=problem_label(name, label_params), x0=x0)
    except ProblemError as exc:
        raise ValueError(str(exc)) from None
    if rows_per_stream is not None:
        if isinstance(rows_per_stream, bool) or not isinstance(rows_per_stream, int) or \
                rows_per_stream < 1:
            raise ValueError(f"rows_per_stream must be a positive integer, got "
                             f"{rows_per_stream!r}")
        problem.rows_per_stream = rows_per_stream
    return problem


__all__ = [
    "BENCHMARKS",
    "DGP1",
    "DGP2",
    "GaussianCopulaProblem",
    "PROBLEMS",
    "Problem",
    "SampleOnly",
    "build_problem",
    "find_problem",
    "get_problem",
    "import_object",
    "module_name",
    "problem_label",
]
