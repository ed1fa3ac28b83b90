"""Send a grid's own modules to the workers of a Dask cluster.

A problem or method named by import path (``shelf_space:ShelfSpace``) lives beside the
configuration, in a folder the workers may not see (no shared filesystem). Before the first
cell is sent, the modules the grid names are uploaded and imported on arrival
(:func:`acfs_cli.parallel.ship.ship_folder`), so an edited simulator replaces the old one on
a long-lived worker; the folder's other ``.py`` files go along without being imported (a named
module may import them); a package goes as a zip. An upload that fails is a warning: the
cells that need the module then fail with their own one-line import error.
"""

from __future__ import annotations

from collections.abc import Iterable

from acfs_cli.experiment.grid import Cell
from acfs_cli.parallel.ship import Shipment, ship_folder, shipment, zipped

__all__ = ["Shipment", "named_modules", "ship_modules", "shipment", "zipped"]


def named_modules(cells: Iterable[Cell]) -> dict[str, set[str]]:
    """The top-level modules each configuration folder's grid names by import path."""
    out: dict[str, set[str]] = {}
    for cell in cells:
        for spec in (cell.built_as, cell.method):
            module, sep, _ = spec.partition(":")
            if sep and cell.search_path:
                out.setdefault(cell.search_path, set()).add(module.split(".")[0])
    return out


def ship_modules(client, cells: Iterable[Cell]) -> list[str]:
    """Upload the grid's own modules to ``client``'s workers; the names sent. A failed upload
    is logged as a warning and leaves the cells to fail with their own import error."""
    sent: list[str] = []
    for folder, names in named_modules(cells).items():
        sent += ship_folder(client, folder, names)
    return sent
