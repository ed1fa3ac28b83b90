"""The configurations and examples that come with acfs, wherever acfs is installed.

In a checkout (and an editable install) they are the repository's ``configs/`` and
``examples/``; a wheel carries copies in ``acfs_cli/_shipped/`` (made by ``setup.py`` when the
wheel is built, so the repository keeps one copy of each file).
"""

from __future__ import annotations

from pathlib import Path

FOLDERS = ("configs", "examples")
#: The files of those folders that come with acfs (MANIFEST.in and setup.py ship the same):
#: what a run, a report or a script leaves there (``results/``, ``run.lock``, a figure) does not.
FILE_PATTERNS = ("*.py", "*.yaml")
PACKAGE = Path(__file__).resolve().parent


def checkout() -> Path | None:
    """The repository this package runs from, or None for an installed wheel."""
    root = PACKAGE.parent
    return root if (root / "pyproject.toml").is_file() and (root / "configs").is_dir() else None


def shipped(name: str) -> Path | None:
    """The folder ``name`` (``configs`` or ``examples``) that comes with acfs: the checkout's,
    else the installed package's copy; None when neither exists."""
    root = checkout()
    for candidate in ((root / name) if root else None, PACKAGE / "_shipped" / name):
        if candidate is not None and candidate.is_dir():
            return candidate
    return None


def config_candidates(filename: str) -> list[Path]:
    """Where a command given no configuration looks for ``configs/<filename>``, in order:
    this folder, the checkout, the installed package."""
    places = [Path.cwd() / "configs" / filename]
    root = checkout()
    if root is not None:
        places.append(root / "configs" / filename)
    places.append(PACKAGE / "_shipped" / "configs" / filename)
    return places


def starter_files(folder: Path) -> list[Path]:
    """The files of ``folder`` that come with acfs, relative to it: the
    :data:`FILE_PATTERNS`, at any depth, outside ``__pycache__``, hidden folders and a
    ``results`` folder (a run's output, in a checkout where the examples were run)."""
    found = set()
    for pattern in FILE_PATTERNS:
        for path in folder.rglob(pattern):
            relative = path.relative_to(folder)
            if path.is_file() and not any(part == "__pycache__" or part == "results"
                                          or part.startswith(".") for part in relative.parts):
                found.add(relative)
    return sorted(found)
