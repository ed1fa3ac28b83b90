"""Build hook: a wheel carries copies of the repository's ``configs/`` and ``examples/`` in
``acfs_cli/_shipped/``, so ``acfs run`` and ``acfs init`` work wherever acfs is installed.

The repository keeps one copy of each file; an editable install reads the checkout's folders
(:mod:`acfs_cli.shipped`). Everything else is declared in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
SHIPPED = ("configs", "examples")


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
            shutil.copytree(source, target / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithShipped})
