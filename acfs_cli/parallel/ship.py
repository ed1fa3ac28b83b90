"""Send a user's own modules to the workers of a Dask cluster.

A problem or method of a user's lives in a folder the workers may not see (no shared
filesystem). Before any work is sent, the modules it comes from are uploaded
(``Client.upload_file``) and imported on arrival, so an edited simulator replaces the old one
on a long-lived worker; the folder's other ``.py`` files go along without being imported (a
named module may import them); a package goes as a zip. An upload that fails is a warning:
the work that needs the module then fails with its own one-line import error.

A grid names its modules by import path (:mod:`acfs_cli.experiment.ship`); a run of
``minimize`` ships the module that defines its problem's class (:func:`defining_folder`).
A problem that cannot be pickled is not sent anywhere (:func:`unpicklable` says why).
"""

from __future__ import annotations

import hashlib
import logging
import sys
import sysconfig
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("acfs")


@dataclass
class Shipment:
    """What one folder sends: named modules (imported on arrival), packages (zipped,
    imported) and the folder's other modules (copied only)."""

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


def shipment(folder: str, names: Iterable[str]) -> Shipment:
    """What to send from ``folder`` for the modules ``names`` (those not found there are
    installed elsewhere, or missing: the work that needs them says so)."""
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


def ship_folder(client, folder: str, names: Iterable[str]) -> list[str]:
    """Upload the modules ``names`` of ``folder`` (with the folder's other modules) to
    ``client``'s workers; the files sent. A failed upload is logged as a warning."""
    ship = shipment(folder, names)
    if not ship:
        return []
    try:
        client.run(_forget, ship.module_names)
    except Exception as exc:  # noqa: BLE001 - a worker that cannot answer fails its work
        log.warning("could not reach the Dask workers before sending modules: %s", exc)
    sent: list[str] = []
    with tempfile.TemporaryDirectory(prefix="acfs-ship-") as tmp:
        uploads = ([(p, False) for p in ship.siblings]
                   + [(zipped(p, Path(tmp)), True) for p in ship.packages]
                   + [(p, True) for p in ship.named])
        for path, load in uploads:
            try:
                client.upload_file(str(path), load=load)
            except Exception as exc:  # noqa: BLE001 - the work reports the import error
                log.warning("could not send %s to the Dask workers (%s: %s); work that "
                            "needs it will fail", path.name, type(exc).__name__, exc)
                continue
            sent.append(path.name)
    log.info("sent to the Dask workers from %s: %s", folder, ", ".join(sent) or "nothing")
    return sent


def _installed(path: Path) -> bool:
    """Whether ``path`` lies in an installed location (the standard library, site-packages):
    the workers have their own copy of what is installed."""
    roots = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    resolved = path.resolve()
    return any(resolved.is_relative_to(Path(root).resolve()) for root in roots if root)


def defining_folder(module_name: str | None) -> tuple[str, str] | None:
    """``(folder, top-level module)`` to ship for objects of module ``module_name``: a file
    of the user's, not acfs itself, not installed and not ``__main__`` (cloudpickle sends
    what ``__main__`` or a notebook defines by value); None when nothing needs shipping."""
    if not module_name or module_name == "__main__":
        return None
    top = module_name.split(".")[0]
    if top == "acfs_cli":
        return None
    module = sys.modules.get(top)
    path = getattr(module, "__file__", None)
    if not path:
        return None
    path = Path(path)
    if _installed(path):
        return None
    # a package ships from the folder that holds it, a module from its own
    folder = path.parent.parent if path.name == "__init__.py" else path.parent
    return str(folder), top


def unpicklable(problem) -> str | None:
    """Why ``problem`` cannot be sent to another process (cloudpickle's error, with the
    attribute of the user's object that holds what cannot be pickled where one does: a lock,
    a socket, a licence handle), or None when it can."""
    import cloudpickle

    try:
        cloudpickle.dumps(problem)
        return None
    except Exception as exc:  # noqa: BLE001 - pickling fails in many ways, all one answer
        reason = " ".join(f"{exc}".split())[:200] or type(exc).__name__
    for fn in ("_sample", "_transform", "_cost"):  # the user's object, behind its methods
        owner = getattr(getattr(problem, fn, None), "__self__", None)
        if owner is not None:
            break
    for name, value in (vars(owner).items() if hasattr(owner, "__dict__") else ()):
        try:
            cloudpickle.dumps(value)
        except Exception:  # noqa: BLE001
            return f"its attribute {name!r}: {reason}"
    return reason
