"""``acfs init DIR``: a folder to work in, with the configurations and examples that come
with acfs laid out as in the repository, so the README's commands run there."""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from acfs_cli.cli.common import fail

log = logging.getLogger("acfs")


def write_starter(target: Path) -> list[Path]:
    """Copy ``configs/`` and ``examples/`` into ``target`` (absent or an empty folder); the
    files written. Only the files that come with acfs are copied
    (:func:`~acfs_cli.shipped.starter_files`): an editable checkout's examples may hold a
    run's results, its lock and figures, which are not a fresh study's. The copy is staged
    beside ``target`` and moved into place at the end, so an interrupted init leaves nothing
    behind."""
    from acfs_cli.shipped import FOLDERS, shipped, starter_files

    sources = {name: shipped(name) for name in FOLDERS}
    missing = [name for name, folder in sources.items() if folder is None]
    if missing:
        raise FileNotFoundError(f"this installation of acfs has no {' or '.join(missing)} "
                                "to copy (reinstall it)")
    target.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.acfs-init-", dir=target.parent))
    try:
        for name, folder in sources.items():
            files = starter_files(folder)
            for relative in files:
                (stage / name / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(folder / relative, stage / name / relative)
            log.info("copied %s (%d files) from %s", name, len(files), folder)
        if target.is_dir():
            target.rmdir()  # empty, checked by the caller
        stage.rename(target)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return sorted(p for p in target.rglob("*") if p.is_file())


def init(
    directory: Annotated[Path, typer.Argument(help="Folder to create (or an empty one).",
                                              metavar="DIRECTORY",
                                              show_default=False)],
) -> None:
    """Write the shipped configurations and examples into DIRECTORY (configs/, examples/).

    Then, in DIRECTORY:

      acfs run                        the quick study (configs/quick.yaml)

      acfs run examples/shelf.yaml    your own simulator in a grid
    """
    if directory.exists() and not directory.is_dir():
        raise fail(f"{directory} is a file; give a new or empty folder")
    if directory.is_dir() and any(directory.iterdir()):
        raise fail(f"{directory} is not empty; give a new or empty folder")
    try:
        files = write_starter(directory)
    except OSError as exc:
        raise fail(f"cannot write {directory}: {exc.strerror or exc}") from None
    typer.echo(f"wrote {len(files)} files to {directory}: configs/ and examples/")
    typer.echo(f"next: cd {directory} && acfs run")
