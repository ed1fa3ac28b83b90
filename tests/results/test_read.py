"""results/read.py: one configuration's rows, never a mixture, and the common view of them
(keys, the comparison with the start, completeness), on rows written by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from acfs_cli.results.read import (
    ResultsError,
    count_cells,
    normalise,
    one_configuration,
    read_experiment,
    versus_start,
)
from acfs_cli.results.schema import new_row
from acfs_cli.results.store import ResultStore


def row(cell_id: str, **changes) -> dict:
    base = new_row(experiment="e", kind="comparison", cell_id=cell_id, problem="dgp1",
                   lam=0.7, alpha=0.95, method="astro", label="astro", varied="",
                   varied_value=math.nan, rep=0, seed=1, budget=600, final_draws=200,
                   status="ok", J=1.0, x=[0.5], dim_x=1, oracle_draws=600)
    base.update(changes)
    return base


def frame(*rows) -> pd.DataFrame:
    return pd.DataFrame(list(rows))


def test_normalise_rounds_keys_names_configurations_and_keeps_a_cells_finished_row():
    rows = normalise(frame(row("b", rep=1, lam=0.7 + 1e-13), row("a", label=""),
                           row("a", status="error", J=math.nan)))
    assert list(rows["cell_id"]) == ["a", "b"]  # one row per cell, by identity
    assert rows["lam"].tolist() == [0.7, 0.7] and rows.loc[0, "status"] == "ok"
    assert rows.loc[0, "label"] == "astro"  # an unlabelled row is named by its method


def test_rows_of_two_seeds_are_refused_as_two_configurations_naming_how_they_differ():
    rows = frame(row("a", seed=1), row("b", seed=2, rep=1))
    with pytest.raises(ResultsError, match=r"more than one configuration \(seed 2 \(current "
                                           r"1\)\)"):
        one_configuration(rows, "somewhere")
    budgets = frame(row("a"), row("b", budget=6000))  # a budget axis is one configuration
    assert one_configuration(budgets, "somewhere") is budgets


def test_the_start_is_compared_on_the_most_precise_evaluation_that_has_both():
    rows = frame(row("a", J=5.0, J_x0_pool=4.0, J_true=3.0, J_x0_true=3.5),
                 row("b", J=5.0, J_x0_pool=6.0),
                 row("c", J=5.0))
    got = versus_start(rows)
    assert got.loc[0, "on"] == "on the replication's precise sample"
    assert (got.loc[0, "J"], got.loc[0, "J_x0"], got.loc[0, "no_better"]) == (3.0, 3.5, False)
    assert got.loc[1, "on"] == "on the common pool" and not got.loc[1, "no_better"]
    assert got.loc[2, "on"] == "" and np.isnan(got.loc[2, "J_x0"])
    exact = versus_start(frame(row("d", J=5.0, J_x0_pool=6.0, J_exact=2.0, J_x0=2.0)))
    assert exact.loc[0, "on"] == "exactly" and exact.loc[0, "no_better"]  # not below x0


def test_without_a_manifest_the_design_is_every_configuration_times_every_replication():
    rows = frame(*[row(f"a{r}", rep=r) for r in range(3)],
                 row("s0", method="saa-ps", label="saa-ps"),
                 row("s1", method="saa-ps", label="saa-ps", rep=1, status="error", J=math.nan))
    counts = count_cells(rows)
    assert (counts.expected, counts.complete, counts.failed, counts.missing) == (6, 4, 1, 1)
    assert counts.summary() == "6 cells: 4 complete, 1 failed, 1 missing"
    assert count_cells(rows, expected=10).missing == 5


def test_a_folder_is_read_as_its_manifests_configuration_and_names_the_cells_it_leaves_out(
        tmp_path):
    store = ResultStore(tmp_path)
    store.prepare()
    for r in (row("a"), row("b", rep=1), row("old", seed=9)):
        store.write_row(r)
    store.claim("e", "settings", ["a", "b"])
    read = read_experiment(tmp_path)
    assert sorted(read.rows["cell_id"]) == ["a", "b"] and read.expected == 2
    assert list(read.foreign["cell_id"]) == ["old"]
    assert "left out 1 cell(s) of another configuration" in read.foreign_summary()
    assert "seed 9 (current 1)" in read.foreign_summary()
