"""Build hook: a wheel carries copies of the repository's ``configs/`` and ``examples/`` in
``acfs_cli/_shipped/``, so ``acfs run`` and ``acfs init`` work wherever acfs is installed.

The repository keeps one copy of each file; an editable install reads the checkout's folders
(:mod:`acfs_cli.shipped`). Everything else is declared in pyproject.toml.
"""

from __future__ import annotations

import shutil
from fnmatch import fnmatch
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
SHIPPED = ("configs", "examples")
#: The files of those folders that ship (as MANIFEST.in and acfs_cli.shipped.FILE_PATTERNS):
#: a run's results, its lock or a figure left in a checkout's examples do not.
PATTERNS = ("*.py", "*.yaml")


def _not_shipped(folder: str, names: list[str]) -> set[str]:
    """What copytree leaves out of ``folder``: caches, hidden and results folders, files of
    other kinds."""
    out = set()
    for name in names:
        if (Path(folder) / name).is_dir():
            if name in ("__pycache__", "results") or name.startswith("."):
                out.add(name)
        elif not any(fnmatch(name, p) for p in PATTERNS):
            out.add(name)
    return out


class BuildWithShipped(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # the checkout's own folders are read in place
        target = Path(self.build_lib) / "acfs_cli" / "_shipped"
        for name in SHIPPED:
            source = HERE / name
            if not source.is_dir():  # an sdist without them is broken: say so at build time
                raise FileNotFoundError(f"{source} is missing: the wheel would have no {name}")
            shutil.rmtree(target / name, ignore_errors=True)
            shutil.copytree(source, target / name, ignore=_not_shipped)


setup(cmdclass={"build_py": BuildWithShipped})
