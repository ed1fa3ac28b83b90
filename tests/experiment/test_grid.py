"""From a configuration to cells: the design, stable ids, and the one-at-a-time study."""

from __future__ import annotations

import dataclasses
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acfs_cli.experiment.config import load, parse
from acfs_cli.experiment.grid import build_cells, work_groups

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def config(**changes):
    data = {
        "name": "g",
        "seed": 5,
        "budget": 1000,
        "replications": 2,
        "grid": {"problem": ["dgp1", "dgp2"], "lambda": [0.5, 0.7], "method": ["acfs", "kde-so"]},
    }
    data.update(changes)
    return parse(data)


def test_grid_is_the_full_cross_product_replication_major():
    cells = build_cells(config())
    assert len(cells) == 2 * 2 * 2 * 2
    keys = [(c.rep, c.problem, c.lam, c.method) for c in cells]
    expected = [(r, d, lam, m) for r in (0, 1) for d in ("dgp1", "dgp2") for lam in (0.5, 0.7)
                for m in ("acfs", "kde-so")]
    assert keys == expected
    assert len({c.id for c in cells}) == len(cells)


def test_cell_ids_do_not_depend_on_the_order_of_the_grid():
    a = build_cells(config())
    b = build_cells(config(grid={"problem": ["dgp2", "dgp1"], "lambda": [0.7, 0.5],
                                 "method": ["kde-so", "acfs"]}, replications=[1, 0]))
    assert {c.id: (c.problem, c.lam, c.method, c.rep) for c in a} == {
        c.id: (c.problem, c.lam, c.method, c.rep) for c in b
    }


def test_cell_ids_change_with_everything_that_changes_the_result():
    base = build_cells(config())[0]
    changed = {
        "seed": build_cells(config(seed=6))[0],
        "budget": build_cells(config(budget=999))[0],
        "final_eval": build_cells(config(final_eval={"draws": 1000}))[0],
        "precise": build_cells(config(final_eval={"precise_draws": 2000}))[0],
        "parameter": build_cells(config(methods={"acfs": {"n_a": 150}}))[0],
        "experiment": build_cells(config(name="h"))[0],
        "alpha": build_cells(config(alpha=0.9))[0],
    }
    for what, cell in changed.items():
        same = ("problem", "lam", "method", "rep")
        assert [getattr(cell, k) for k in same] == [getattr(base, k) for k in same]
        assert cell.id != base.id, what
    for field, value in [("lam", 0.55), ("rep", 7), ("problem", "dgp2"), ("label", "x")]:
        assert dataclasses.replace(base, **{field: value}).id != base.id, field
    # the results folder and the worker count are not part of a cell
    assert build_cells(config(output="elsewhere", n_jobs=2))[0].id == base.id


def test_cell_ids_are_the_same_in_another_interpreter():
    cells = build_cells(load(CONFIGS / "quick.yaml"))
    code = (
        "from acfs_cli.experiment.config import load; "
        "from acfs_cli.experiment.grid import build_cells; "
        f"print(' '.join(c.id for c in build_cells(load({str(CONFIGS / 'quick.yaml')!r}))))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True).stdout.split()
    assert out == [c.id for c in cells]


def test_cells_carry_the_methods_effective_parameters():
    from acfs_cli.methods.acfs_settings import ACFSSettings

    cells = build_cells(config(methods={"acfs": {"n_a": 150}},
                               grid={"problem": "dgp1", "lambda": 0.7,
                                     "method": ["acfs", "acfs-noav"]}))
    acfs, noav = cells[0], cells[1]
    params = dict(acfs.params)
    assert params["n_a"] == 150
    assert params["n_f"] == ACFSSettings.model_fields["n_f"].default
    assert dict(acfs.overrides) == {"n_a": 150}
    assert dict(noav.params)["antithetic"] is False and dict(acfs.params)["antithetic"] is True
    assert dict(noav.overrides) == {}


def test_sensitivity_grid_is_one_at_a_time_with_labels():
    c = parse({
        "name": "s", "kind": "sensitivity", "replications": 3,
        "grid": {"problem": "dgp1", "lambda": 0.7},
        "methods": {"acfs": {"n_b": 100}},
        "sensitivity": {"method": "acfs", "params": {"n_a": [800, 1200], "k": [2, 4, 6]}},
    })
    cells = build_cells(c)
    assert len(cells) == 3 * (2 + 3)
    rep0 = [cell for cell in cells if cell.rep == 0]
    assert [cell.label for cell in rep0] == [
        "acfs n_a=800", "acfs n_a=1200", "acfs k=2", "acfs k=4", "acfs k=6"
    ]
    first = rep0[0]
    assert (first.varied, first.varied_value, first.method, first.kind) == (
        "n_a", 800.0, "acfs", "sensitivity"
    )
    assert dict(first.params)["n_a"] == 800 and dict(first.params)["k"] == 4
    assert dict(first.params)["n_b"] == 100  # the study's base overrides stay
    assert dict(rep0[3].params)["n_a"] == 1200 and dict(rep0[3].params)["k"] == 4


def test_sensitivity_default_points_are_one_computation_per_replication():
    cells = build_cells(load(CONFIGS / "sensitivity.yaml"))
    assert len(cells) == 4 * 3 * 20
    groups = work_groups(cells)
    assert len(groups) == (4 * 2 + 1) * 20
    shared = [g for g in groups if len(g) > 1]
    assert len(shared) == 20
    for group in shared:
        assert sorted(c.label for c in group) == [
            "acfs k=4", "acfs n_a=1200", "acfs n_d=450", "acfs n_f=800"
        ]
        assert len({c.id for c in group}) == 4 and len({c.rep for c in group}) == 1


def test_comparison_cells_have_no_varied_parameter():
    cell = build_cells(config())[0]
    assert cell.varied == "" and math.isnan(cell.varied_value) and cell.label == cell.method


@pytest.mark.parametrize("name, cells", [("main", 4200), ("ablation", 500), ("quick", 42)])
def test_shipped_grids_have_the_papers_sizes(name, cells):
    assert len(build_cells(load(CONFIGS / f"{name}.yaml"))) == cells
