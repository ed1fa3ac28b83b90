"""A cell's id names everything that defines its result - checkpoints included - and nothing
else: two configurations that differ in one defining field give cells with different ids, and
two that differ only in where they are read from, the results folder or the worker count give
the same ids (a stored cell is reused exactly when it would be computed again the same way)."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

from acfs_cli.experiment.cell import run_cell
from acfs_cli.experiment.config import load, parse
from acfs_cli.experiment.grid import build_cells

BASE = {
    "name": "ident",
    "seed": 5,
    "budget": 3000,
    "alpha": 0.95,
    "replications": 1,
    "checkpoints": [0.25, 0.5, 1.0],
    "final_eval": {"draws": 400, "bootstrap": 50},
    "grid": {"problem": [{"problem": "price-newsvendor", "params": {"sigma": 0.4}}],
             "lambda": [0.7], "method": ["kde-so"]},
}


def cell(**changes):
    """The one cell of the base configuration with top-level keys replaced."""
    cells = build_cells(parse({**BASE, **changes}))
    assert len(cells) == 1
    return cells[0]


def with_grid(**changes):
    return cell(grid={**BASE["grid"], **changes})


def test_the_cell_id_changes_with_the_checkpoints():
    base = cell()
    assert cell(checkpoints=[0.25, 0.75, 1.0]).id != base.id  # one fraction moved
    assert cell(checkpoints=[0.5, 1.0]).id != base.id  # one fewer
    assert cell(checkpoints=[0.1, 0.25, 0.5, 1.0]).id != base.id  # one more
    without = {k: v for k, v in BASE.items() if k != "checkpoints"}
    assert build_cells(parse(without))[0].id != base.id  # none at all


def test_the_same_checkpoints_in_another_order_are_the_same_cell():
    assert cell(checkpoints=[1.0, 0.5, 0.25]).id == cell().id


@pytest.mark.parametrize("what, changes", [
    ("budget", {"budget": 3001}),
    ("seed", {"seed": 6}),
    ("alpha", {"alpha": 0.9}),
    ("final_eval draws", {"final_eval": {"draws": 401, "bootstrap": 50}}),
    ("final_eval bootstrap", {"final_eval": {"draws": 400, "bootstrap": 51}}),
    ("final_eval precise_draws", {"final_eval": {"draws": 400, "bootstrap": 50,
                                                 "precise_draws": 1000}}),
    ("method parameter", {"methods": {"kde-so": {"n_c": 99}}}),
    ("experiment", {"name": "ident2"}),
])
def test_the_cell_id_changes_with_each_defining_top_level_field(what, changes):
    base, other = cell(), cell(**changes)
    same = ("problem", "lam", "method", "rep")
    assert [getattr(other, k) for k in same] == [getattr(base, k) for k in same]
    assert other.id != base.id, what


def test_the_cell_id_changes_with_lambda_and_the_method():
    base = cell()
    assert with_grid(**{"lambda": [0.5]}).id != base.id
    assert with_grid(method=["cem-so"]).id != base.id


def test_the_cell_id_changes_with_a_problem_parameter():
    base = cell()
    sigma = with_grid(problem=[{"problem": "price-newsvendor", "params": {"sigma": 0.5}}])
    slope = with_grid(problem=[{"problem": "price-newsvendor",
                            "params": {"sigma": 0.4, "slope": 3.0}}])
    for other in (sigma, slope):
        assert other.id != base.id
    # the same parameters under a label given by hand: the label is the name in results
    labelled = with_grid(problem=[{"problem": "price-newsvendor", "params": {"sigma": 0.5},
                               "label": "nv"}])
    other_params = with_grid(problem=[{"problem": "price-newsvendor", "params": {"sigma": 0.6},
                                   "label": "nv"}])
    assert labelled.problem == other_params.problem == "nv"
    assert labelled.id != other_params.id


def test_the_cell_id_changes_with_the_sample_only_option():
    plain = with_grid(problem=[{"problem": "price-newsvendor", "params": {"sigma": 0.4},
                            "label": "nv"}])
    black_box = with_grid(problem=[{"problem": "price-newsvendor", "params": {"sigma": 0.4},
                                "sample_only": True, "label": "nv"}])
    assert plain.id != black_box.id


def test_the_cell_id_changes_with_the_replication_but_not_with_the_others_run():
    one = build_cells(parse({**BASE, "replications": 1}))
    three = build_cells(parse({**BASE, "replications": 3}))
    assert one[0].id == three[0].id  # rep 0 is rep 0 whichever replications run
    assert len({c.id for c in three}) == 3


def test_the_cell_id_does_not_change_with_the_output_folder_or_the_worker_count():
    base = cell()
    assert cell(output="elsewhere").id == base.id
    assert cell(n_jobs=2).id == base.id
    assert cell(output="elsewhere", n_jobs=4).id == base.id


def test_the_cell_id_does_not_change_with_the_folder_the_configuration_is_read_from(tmp_path):
    text = textwrap.dedent("""
        name: ident
        seed: 5
        budget: 3000
        replications: 1
        checkpoints: [0.25, 0.5, 1]
        final_eval: {draws: 400, bootstrap: 50}
        grid:
          dgp: [{problem: price-newsvendor, params: {sigma: 0.4}}]
          lambda: [0.7]
          method: [kde-so]
    """)
    cells = []
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "grid.yaml").write_text(text)
        cells.append(build_cells(load(tmp_path / folder / "grid.yaml"))[0])
    assert cells[0].search_path != cells[1].search_path
    assert cells[0].id == cells[1].id == cell().id
    assert dataclasses.replace(cells[0], search_path="/nowhere").id == cells[0].id


def test_the_work_key_follows_the_checkpoints_too():
    # cells computed once for several labels must agree on their checkpoints
    assert cell(checkpoints=[0.5, 1.0]).work_key != cell().work_key


def labelled(problem: str):
    return with_grid(problem=[{"problem": problem, "label": "shop"}])


def test_the_cell_id_changes_with_the_problem_behind_a_label():
    assert labelled("price-newsvendor").id != labelled("huff-location").id


def test_a_labelled_problem_without_parameters_runs():
    row = run_cell(dataclasses.replace(labelled("price-newsvendor"), method="saa-ps",
                                       params=(), overrides=()))
    assert row["status"] == "ok", row["error"]
