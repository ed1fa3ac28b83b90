"""Send a grid's own modules to the workers of a Dask cluster.

A problem or method named by import path (``shelf_space:ShelfSpace``) lives beside the
configuration, in a folder the workers may not see (no shared filesystem). Before the first
cell is sent, the modules the grid names are uploaded (``Client.upload_file``) and imported on
arrival, so an edited simulator replaces the old one on a long-lived worker; the folder's other
``.py`` files go along without being imported (a named module may import them); a package goes
as a zip. An upload that fails is a warning: the cells that need the module then fail with
their own one-line import error.
"""

from __future__ import annotations

import hashlib
import logging
import sys
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from acfs_cli.experiment.grid import Cell

log = logging.getLogger("acfs")


@dataclass
class Shipment:
    """What one configuration folder sends: named modules (imported on arrival), packages
    (zipped, imported) and the folder's other modules (copied only)."""

    folder: Path
    named: list[Path] = field(default_factory=list)
    packages: list[Path] = field(default_factory=list)
    siblings: list[Path] = field(default_factory=list)

    @property
    def module_names(self) -> list[str]:
        return [p.stem if p.suffix == ".py" else p.name
                for p in (*self.siblings, *self.packages, *self.named)]

    def __bool__(self) -> bool:
        return bool(self.named or self.packages)


def named_modules(cells: Iterable[Cell]) -> dict[str, set[str]]:
    """The top-level modules each configuration folder's grid names by import path."""
    out: dict[str, set[str]] = {}
    for cell in cells:
        for spec in (cell.built_as, cell.method):
            module, sep, _ = spec.partition(":")
            if sep and cell.search_path:
                out.setdefault(cell.search_path, set()).add(module.split(".")[0])
    return out


def shipment(folder: str, names: Iterable[str]) -> Shipment:
    """What to send from ``folder`` for the modules ``names`` (those not found there are
    installed elsewhere, or missing: the cells say so)."""
    root = Path(folder)
    ship = Shipment(root)
    for name in sorted(names):
        if (root / f"{name}.py").is_file():
            ship.named.append(root / f"{name}.py")
        elif (root / name / "__init__.py").is_file():
            ship.packages.append(root / name)
    if ship:
        taken = set(ship.named)
        ship.siblings = [p for p in sorted(root.glob("*.py")) if p not in taken]
    return ship


def zipped(package: Path, into: Path) -> Path:
    """``package`` as a zip in ``into``, named by its content: a worker's import system
    caches a zip's directory by path, so a changed package must arrive under a new name."""
    files = sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(package.parent)).encode())
        digest.update(path.read_bytes())
    target = into / f"{package.name}-{digest.hexdigest()[:12]}.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            archive.write(path, path.relative_to(package.parent))
    return target


def _forget(names: list[str]) -> None:
    """On a worker: drop the modules ``names`` (and their submodules), so the next import
    reads what has just arrived, not what an earlier run left."""
    for loaded in list(sys.modules):
        if loaded.split(".")[0] in names:
            del sys.modules[loaded]


def ship_modules(client, cells: Iterable[Cell]) -> list[str]:
    """Upload the grid's own modules to ``client``'s workers; the names sent. A failed upload
    is logged as a warning and leaves the cells to fail with their own import error."""
    sent: list[str] = []
    for folder, names in named_modules(cells).items():
        ship = shipment(folder, names)
        if not ship:
            continue
        try:
            client.run(_forget, ship.module_names)
        except Exception as exc:  # noqa: BLE001 - a worker that cannot answer fails its cells
            log.warning("could not reach the Dask workers before sending modules: %s", exc)
        here: list[str] = []
        with tempfile.TemporaryDirectory(prefix="acfs-ship-") as tmp:
            uploads = ([(p, False) for p in ship.siblings]
                       + [(zipped(p, Path(tmp)), True) for p in ship.packages]
                       + [(p, True) for p in ship.named])
            for path, load in uploads:
                try:
                    client.upload_file(str(path), load=load)
                except Exception as exc:  # noqa: BLE001 - the cells report the import error
                    log.warning("could not send %s to the Dask workers (%s: %s); cells that "
                                "need it will fail", path.name, type(exc).__name__, exc)
                    continue
                here.append(path.name)
        log.info("sent to the Dask workers from %s: %s", folder, ", ".join(here) or "nothing")
        sent += here
    return sent
