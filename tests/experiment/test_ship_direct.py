"""experiment/ship.py: which of a grid's modules go to a Dask cluster, and how (a client of
the test's own records what it is asked; the real upload is tests/test_dask_ship.py's)."""

from __future__ import annotations

import math
from pathlib import Path

from acfs_cli.experiment.grid import Cell
from acfs_cli.experiment.ship import named_modules, ship_modules


def cell(problem: str, method: str, search_path: str = "") -> Cell:
    return Cell(experiment="e", kind="comparison", problem=problem, lam=0.5, alpha=0.9,
                method=method, label=method, varied="", varied_value=math.nan, overrides=(),
                params=(), rep=0, seed=1, budget=600, final_draws=200, bootstrap=0,
                precise_draws=None, search_path=search_path)


class Client:
    """What ship_modules asks of a Dask client, recorded; uploads named in ``fail`` fail."""

    def __init__(self, fail=()):
        self.forgotten, self.uploads, self.fail = [], [], tuple(fail)

    def run(self, fn, names):
        self.forgotten.append(sorted(names))

    def upload_file(self, path, load):
        name = Path(path).name
        if name.startswith(self.fail):
            raise OSError("the worker is gone")
        self.uploads.append((name, load))


def folder_with_modules(tmp_path: Path) -> str:
    (tmp_path / "shop.py").write_text("class Shop: ...\n")
    (tmp_path / "helpers.py").write_text("SHIFT = 1\n")
    (tmp_path / "mymethods").mkdir()
    (tmp_path / "mymethods" / "__init__.py").write_text("METHOD = None\n")
    return str(tmp_path)


def test_the_modules_a_grid_names_by_import_path_are_found_per_folder(tmp_path):
    folder = folder_with_modules(tmp_path)
    cells = [cell("shop:Shop", "mymethods.search:METHOD", folder),
             cell("dgp1", "astro", folder),  # registered names: nothing to send
             cell("other:Problem", "astro")]  # no folder: installed, or missing on the workers
    assert named_modules(cells) == {folder: {"shop", "mymethods"}}


def test_named_modules_are_imported_on_arrival_and_the_folders_others_copied(tmp_path):
    folder = folder_with_modules(tmp_path)
    client = Client()
    sent = ship_modules(client, [cell("shop:Shop", "mymethods:METHOD", folder)])
    # the workers forget the modules first, so an edited simulator replaces the old one
    assert client.forgotten == [["helpers", "mymethods", "shop"]]
    names = [name for name, _ in client.uploads]
    assert names[0] == "helpers.py" and client.uploads[0][1] is False  # copied, not imported
    assert names[1].startswith("mymethods-") and names[1].endswith(".zip")  # a package, zipped
    assert client.uploads[1][1] is True and client.uploads[2] == ("shop.py", True)
    assert sent == names


def test_an_upload_that_fails_is_a_warning_and_the_rest_still_go(tmp_path, caplog):
    folder = folder_with_modules(tmp_path)
    client = Client(fail=("helpers",))
    sent = ship_modules(client, [cell("shop:Shop", "astro", folder)])
    assert sent == ["shop.py"]
    assert "could not send helpers.py to the Dask workers" in caplog.text
