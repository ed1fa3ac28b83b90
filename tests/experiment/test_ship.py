"""A grid's own problem, helper and method packages reach Dask workers that cannot see the
configuration's folder (no shared filesystem), and an edited simulator replaces the old one.

The worker is a real process (``LocalCluster(processes=True)``) started before the folder is
on the import path, and told to ignore the folder's path that the cells carry, so the only way
the modules can reach it is the upload.
"""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("distributed")

from acfs_cli.experiment import dispatch as dispatch_module  # noqa: E402
from acfs_cli.experiment.config import load  # noqa: E402
from acfs_cli.experiment.dispatch import dispatch  # noqa: E402
from acfs_cli.experiment.grid import build_cells, work_groups  # noqa: E402

PROBLEM = '''
import numpy as np
from shift_helper import SHIFT


class Toy:
    dim_x, dim_w = 2, 1
    bounds = [(0.0, 1.0), (0.0, 1.0)]

    def transform(self, x, z):
        return 0.1 * z

    def cost(self, W, x):
        return (x[0] - 0.3) ** 2 + (x[1] - 0.6) ** 2 + W[:, 0] + SHIFT
'''

METHOD = '''
from pydantic import Field

from acfs_cli.methods import Method, MethodResult, Settings
from mymethods.search import search


class CentreSettings(Settings):
    rows: int = Field(50, ge=2)


CENTRE = Method("centre", CentreSettings, search, summary="the box's centre")
'''

SEARCH = '''
import numpy as np

from acfs_cli.methods import MethodResult


def search(task, oracle, s, rng):
    x = np.full(task.dim_x, 0.5)
    value = float(task.objective(oracle.draw(x, s.rows)[None], x[None])[0])
    oracle.record_best(x, value)
    return MethodResult(x=x, value=value)
'''

CONFIG = '''
name: shipped
seed: 1
budget: 200
replications: 1
final_eval: {draws: 1000, bootstrap: 10}
grid:
  problem: ["toy_problem:Toy"]
  lambda: [0.7]
  method: ["mymethods:CENTRE"]
'''


def _write(folder, shift: float = 0.0):
    (folder / "mymethods").mkdir(exist_ok=True)
    (folder / "toy_problem.py").write_text(textwrap.dedent(PROBLEM))
    (folder / "shift_helper.py").write_text(f"SHIFT = {shift!r}\n")
    (folder / "mymethods" / "__init__.py").write_text(textwrap.dedent(METHOD))
    (folder / "mymethods" / "search.py").write_text(textwrap.dedent(SEARCH))
    (folder / "grid.yaml").write_text(CONFIG)
    return folder / "grid.yaml"


def _hide(folder: str) -> None:
    """On the worker: the configuration's folder is somewhere it cannot see."""
    import acfs_cli.core.plugins as plugins
    import acfs_cli.experiment.config.reading as reading

    if folder in sys.path:
        sys.path.remove(folder)
    original = plugins.add_import_path
    hidden = lambda path: None if path == folder else original(path)  # noqa: E731
    reading.add_import_path = plugins.add_import_path = hidden


def _forget_locally(names) -> None:
    for name in list(sys.modules):
        if name.split(".")[0] in names:
            del sys.modules[name]


@pytest.fixture
def client(tmp_path):
    from distributed import Client, LocalCluster

    folder = tmp_path / "study"
    folder.mkdir()
    # the worker starts before the folder is on this process's import path (it would inherit it)
    with LocalCluster(processes=True, n_workers=1, threads_per_worker=1,
                      dashboard_address=None) as cluster, Client(cluster) as c:
        c.run(_hide, str(folder))
        yield c, folder
    if str(folder) in sys.path:
        sys.path.remove(str(folder))
    _forget_locally({"toy_problem", "shift_helper", "mymethods"})


def _rows(client, config_path):
    _forget_locally({"toy_problem", "shift_helper", "mymethods"})
    cells = build_cells(load(config_path))
    return [row for rows in dispatch(work_groups(cells), backend="dask", client=client)
            for row in rows]


def test_without_the_upload_the_worker_cannot_import_the_grids_modules(client, monkeypatch):
    client, folder = client
    monkeypatch.setattr(dispatch_module, "ship_modules", lambda client, cells: [])
    (row,) = _rows(client, _write(folder))
    assert row["status"] == "error"
    assert "toy_problem" in row["error"] and "No module named" in row["error"]
    assert "\n" not in row["error"]


def test_problem_helper_and_method_package_reach_a_worker_that_cannot_see_the_folder(client):
    client, folder = client
    (row,) = _rows(client, _write(folder))
    assert row["status"] == "ok", row["error"]
    assert row["x"] == [0.5, 0.5] and row["oracle_draws"] == 50

    # an edited helper replaces the old one on the same long-lived worker
    (again,) = _rows(client, _write(folder, shift=10.0))
    assert again["status"] == "ok", again["error"]
    assert again["J"] == pytest.approx(row["J"] + 10.0 * 1.7, abs=1e-9)


def test_a_failed_upload_is_a_warning_and_the_cells_fail_with_their_import_error(
        client, caplog):
    client, folder = client
    config = _write(folder)
    (folder / "shift_helper.py").write_text("raise RuntimeError('broken helper')\n")
    with caplog.at_level("WARNING", logger="acfs"):
        rows = _rows_no_local_import(client, config)
    assert any("could not send toy_problem.py" in r.getMessage() for r in caplog.records)
    (row,) = rows
    assert row["status"] == "error" and "broken helper" in row["error"]


def _rows_no_local_import(client, config_path):
    """Cells built without importing the broken module here: built from a good copy."""
    import shutil

    good = config_path.parent.parent / "good"
    shutil.copytree(config_path.parent, good, dirs_exist_ok=True)
    (good / "shift_helper.py").write_text("SHIFT = 0.0\n")
    _forget_locally({"toy_problem", "shift_helper", "mymethods"})
    cells = build_cells(load(good / "grid.yaml"))
    sys.path.remove(str(good))
    import dataclasses

    cells = [dataclasses.replace(c, search_path=str(config_path.parent)) for c in cells]
    return [row for rows in dispatch(work_groups(cells), backend="dask", client=client)
            for row in rows]


BLACK_BOX = '''
import numpy as np
from shift_helper import SHIFT


class Black:
    dim_x, dim_w = 2, 1
    bounds = [(0.0, 1.0), (0.0, 1.0)]

    def sample(self, x, n, rng):
        return (0.1 + 0.2 * x[0]) * rng.standard_normal((n, 1)) + SHIFT

    def cost(self, W, x):
        return (x[0] - 0.3) ** 2 + (x[1] - 0.6) ** 2 + W[:, 0]
'''


def _black_box(folder, shift: float):
    (folder / "black_box.py").write_text(textwrap.dedent(BLACK_BOX))
    (folder / "shift_helper.py").write_text(f"SHIFT = {shift!r}\n")
    _forget_locally({"black_box", "shift_helper"})
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    from black_box import Black

    return Black()


def test_a_runs_simulator_reaches_the_workers_and_an_edited_one_replaces_it(client):
    from acfs_cli.api import minimize

    client, folder = client
    try:
        first = minimize(_black_box(folder, 0.0), budget=400, seed=1, n_eval=400,
                         scheduler=client)
        here = minimize(_black_box(folder, 0.0), budget=400, seed=1, n_eval=400)
        # the helper edited: the workers' rows carry the new shift, which moves J by
        # (1 + lam) times it and leaves the search's comparisons alone
        again = minimize(_black_box(folder, 10.0), budget=400, seed=1, n_eval=400,
                         scheduler=client)
    finally:
        _forget_locally({"black_box", "shift_helper"})
    np.testing.assert_array_equal(first.x, here.x)
    assert first.J == here.J
    assert again.J == pytest.approx(first.J + 10.0 * 1.7, abs=1e-9)
