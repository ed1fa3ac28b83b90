"""Reference optima: a known optimum found, honest standard errors, the table kept on disk."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from toys import BENCH_X, GaussianToy

import acfs_cli.experiment.floor as floor_module
import acfs_cli.experiment.reference as reference
from acfs_cli.core.problem import as_problem
from acfs_cli.core.risk import spectral_risk
from acfs_cli.experiment.reference import (
    ReferenceSettings,
    compute_references,
    crn_objective,
    read_references,
    reference_optimum,
    reference_row,
)
from acfs_cli.problems import feasible
from acfs_cli.results.schema import REFERENCE_COLUMNS

FAST = ReferenceSettings(n_search=4_000, n_eval=40_000, n_select=20_000, n_screen=200,
                         n_screen_draws=200, cem_iter=4, cem_pop=20, n_cem_draws=400, starts=2,
                         max_evals=300)


def test_crn_objective_matches_the_estimator_on_the_same_normals():
    toy = GaussianToy()
    z = np.random.default_rng(0).standard_normal((500, 1))
    X = BENCH_X.space_filling(7, np.random.default_rng(1))
    f = crn_objective(toy, z, 0.7, 0.95, max_rows=1_200)  # forces several groups
    expected = [spectral_risk(toy.cost(toy.transform(x, z), x), 0.7, 0.95)[0] for x in X]
    np.testing.assert_allclose(f(X), expected, rtol=1e-12)


@pytest.mark.parametrize("lam", [0.5, 0.9])
def test_finds_the_closed_form_optimum_of_a_toy_problem(lam):
    toy = GaussianToy()
    row = reference_optimum(toy, lam, 0.95, FAST, seed=1)
    assert set(row) == set(REFERENCE_COLUMNS)
    x = np.array(row["x"])
    x_star = toy.argmin(lam, 0.95)
    assert x_star[:5].sum() == pytest.approx(feasible.SUM_CAP)
    j_star = toy.J(x_star, lam, 0.95)
    assert np.linalg.norm(x - x_star) < 0.02
    assert toy.J(x, lam, 0.95) - j_star < 1e-3 * j_star
    # J* re-estimated on fresh draws agrees with the closed form within its standard error.
    assert abs(row["J_star"] - toy.J(x, lam, 0.95)) < 4 * row["J_star_se"]
    k = norm.pdf(norm.ppf(0.95)) / 0.05
    ec = toy.c0 + toy.Q * ((x - toy.a) ** 2).sum()
    assert row["EC_star"] == pytest.approx(ec, abs=5 * toy.spread(x) / np.sqrt(FAST.n_eval))
    assert row["CVaR_star"] == pytest.approx(ec + k * toy.spread(x), rel=0.01)
    assert row["problem"] == "gaussian-toy" and row["lam"] == lam and row["alpha"] == 0.95
    assert row["draws"] > FAST.n_eval


def test_standard_error_matches_the_spread_of_repeated_estimates():
    toy = GaussianToy()
    rows = [reference_optimum(toy, 0.7, 0.95, replace(FAST, n_eval=10_000), seed=s)
            for s in range(24)]
    values = np.array([r["J_star"] for r in rows])
    se = np.array([r["J_star_se"] for r in rows])
    # The x* differ by a negligible amount; the spread is the estimation error of J*.
    ratio = values.std(ddof=1) / se.mean()
    assert 0.6 < ratio < 1.5
    # And the estimates are centred on the truth at their x*.
    truth = np.array([toy.J(r["x"], 0.7, 0.95) for r in rows])
    assert abs((values - truth).mean()) < 3 * se.mean() / np.sqrt(len(rows))


def test_same_seed_same_reference():
    toy = GaussianToy()
    assert (reference_optimum(toy, 0.7, settings=FAST, seed=3)
            == reference_optimum(toy, 0.7, settings=FAST, seed=3))


def test_compute_references_writes_atomically_and_skips_rows_already_present(tmp_path,
                                                                            monkeypatch):
    toy = GaussianToy()
    calls = []
    search = reference.reference_optimum

    def spy(problem, lam, *args, **kwargs):
        calls.append(lam)
        return search(problem, lam, *args, **kwargs)

    monkeypatch.setattr(reference, "get_problem", lambda name: toy)
    monkeypatch.setattr(reference, "reference_optimum", spy)
    kw = {"settings": replace(FAST, n_eval=10_000)}
    df = compute_references(["toy"], [0.5, 0.7], 0.95, seed=0, out_dir=tmp_path, **kw)
    path = tmp_path / "reference.parquet"
    assert path.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["reference.parquet"]  # no temp files left
    assert list(df.columns) == list(REFERENCE_COLUMNS)
    assert len(df) == 2 and calls == [0.5, 0.7]
    on_disk = read_references(path)
    pd.testing.assert_frame_equal(on_disk, df)
    assert reference_row(on_disk, "toy", 0.7, 0.95) is not None  # named as asked

    # A second call with one new lambda computes only that one.
    calls.clear()
    compute_references(["toy"], [0.7, 0.9], 0.95, seed=0, out_dir=tmp_path, **kw)
    table = read_references(path)
    assert calls == [0.9] and len(table) == 3
    assert list(table["lam"]) == [0.5, 0.7, 0.9]
    calls.clear()
    again = compute_references(["toy"], [0.7, 0.9], 0.95, seed=0, out_dir=tmp_path, **kw)
    assert calls == []  # everything present: nothing recomputed
    pd.testing.assert_frame_equal(again, table)
    forced = compute_references(["toy"], [0.9], 0.95, seed=0, out_dir=tmp_path, force=True, **kw)
    assert calls == [0.9]
    assert len(forced) == len(table)  # the forced row replaced its old version


def test_the_reference_table_stores_the_decision_whole_and_reads_the_old_problem_key(tmp_path):
    # a table of the version that named the problem "dgp" and recorded no code
    row = {"dgp": "toy", "lam": 0.7, "alpha": 0.95, "J_star": 1.0, "J_star_se": 0.1,
           "EC_star": 0.5, "CVaR_star": 2.0, "draws": 10,
           "x": [0.1 * i for i in range(1, 7)], "dim_x": 6}
    pd.DataFrame([row]).to_parquet(tmp_path / "old.parquet", index=False)
    table = read_references(tmp_path / "old.parquet")
    assert list(table.columns) == list(REFERENCE_COLUMNS)
    assert table.loc[0, "problem"] == "toy" and table.loc[0, "code"] == ""
    np.testing.assert_allclose(table.loc[0, "x"], [0.1 * i for i in range(1, 7)])
    np.testing.assert_array_equal(reference.decision(table.iloc[0]), table.loc[0, "x"])


def test_read_references_of_a_missing_file_is_empty_with_the_columns(tmp_path):
    df = read_references(tmp_path / "nothing.parquet")
    assert df.empty and list(df.columns) == list(REFERENCE_COLUMNS)


def test_paired_difference_matches_the_closed_form_and_its_se_the_spread():
    toy = GaussianToy()
    x_a = toy.argmin(0.7, 0.95)
    x_b = feasible.project(x_a + np.array([0.05, -0.05, 0.0, 0.02, 0.0, -0.1]))
    truth = toy.J(x_a, 0.7, 0.95) - toy.J(x_b, 0.7, 0.95)
    out = [reference.paired_difference(toy, x_a, x_b, 0.7, 0.95, 20_000,
                                       np.random.default_rng(s), chunk=7_000)
           for s in range(20)]
    diffs = np.array([o["diff"] for o in out])
    se = np.mean([o["diff_se"] for o in out])
    assert abs(diffs.mean() - truth) < 3 * se / np.sqrt(len(out))
    assert 0.6 < diffs.std(ddof=1) / se < 1.5
    # paired: far more precise than either value alone
    single = reference.evaluate_precise(toy, x_a, 0.7, 0.95, n=20_000,
                                        rng=np.random.default_rng(0))["J_true_se"]
    assert se < single / 3


def test_reference_floor_is_the_reference_minimiser_on_each_replications_precise_normals(
        tmp_path):
    from acfs_cli.experiment.evaluate import evaluate_precise, precise_stream

    x_ref = [0.0, 0.3, 0.55, 0.0, 0.0, 1.0]
    decision = {"x": x_ref, "dim_x": 6}
    optima = pd.DataFrame([{"problem": "dgp1", "lam": lam, "alpha": 0.95, "J_star": 1.0,
                            **decision} for lam in (0.5, 0.9)])
    keys = pd.DataFrame({"problem": "dgp1", "lam": [0.5, 0.9, 0.5], "alpha": 0.95, "seed": 7,
                         "rep": [0, 0, 1]})
    calls = []
    floor = floor_module.reference_floor(keys, optima, 3_000, cache=tmp_path / "f.parquet",
                                         progress=lambda done, total: calls.append(total))
    assert len(floor) == 3 and calls[-1] == 2  # one set of normals per (dgp, seed, rep)
    problem = reference.get_problem("dgp1")
    for r in floor.itertuples(index=False):
        direct = evaluate_precise(problem, np.array(x_ref), r.lam, 0.95, n=3_000,
                                  rng=precise_stream(7, "dgp1", r.rep))["J_true"]
        assert r.J_ref_true == pytest.approx(direct, rel=1e-12)
    calls.clear()
    again = floor_module.reference_floor(keys, optima, 3_000, cache=tmp_path / "f.parquet",
                                      progress=lambda done, total: calls.append(total))
    assert calls == [] and again["J_ref_true"].tolist() == floor["J_ref_true"].tolist()
    # another sample size is not the same estimate: recomputed
    other = floor_module.reference_floor(keys, optima, 2_000, cache=tmp_path / "f.parquet")
    assert not np.allclose(other["J_ref_true"], floor["J_ref_true"])


def test_floor_rows_of_other_code_or_another_optimum_are_computed_again(tmp_path, monkeypatch):
    class Edited(GaussianToy):
        version = "1"

    monkeypatch.setattr(floor_module, "get_problem",
                        lambda name, **options: as_problem(Edited()))
    x_ref = GaussianToy().argmin(0.7, 0.95)
    optima = pd.DataFrame([{"problem": "toy", "lam": 0.7, "alpha": 0.95, "J_star": 1.0,
                            "x": x_ref, "dim_x": 6}])
    keys = pd.DataFrame({"problem": "toy", "lam": 0.7, "alpha": 0.95, "seed": 3,
                         "rep": [0, 1]})
    cache = tmp_path / "floor.parquet"

    def computed(optima=optima, **kw) -> int:
        return floor_module.reference_floor(keys, optima, 1_000, cache=cache, **kw).attrs[
            "computed"]

    assert computed() == 2
    stored = pd.read_parquet(cache)
    assert set(stored["code"]) == {"version 1"}
    assert all(np.array_equal(x, x_ref) for x in stored["x_ref"])
    assert computed() == 0  # current: kept
    Edited.version = "2"  # the simulator changed, its optimum did not
    assert computed() == 2 and set(pd.read_parquet(cache)["code"]) == {"version 2"}
    moved = optima.assign(x=[feasible.project(x_ref + 0.01)])  # another reference optimum
    assert computed(moved) == 2 and computed(moved) == 0
    assert computed(moved, force=True) == 2
    assert len(pd.read_parquet(cache)) == 2  # replaced, never doubled
    # a file of an older version records neither: computed again, with the record
    pd.read_parquet(cache).drop(columns=["code", "x_ref"]).to_parquet(cache)
    assert computed(moved) == 2


def _results_with_precise_j(folder, reps=(0, 1), j_true=float("nan")):
    from acfs_cli.results.schema import COLUMNS

    rows = []
    for rep in reps:
        empty = {"float64": np.nan, "string": "", "int64": 0, "bool": False, "list<float64>": None}
        row = {c: empty[t] for c, t in COLUMNS.items()}
        row.update(experiment="e", kind="comparison", cell_id=f"c{rep}", problem="dgp1", lam=0.5,
                   alpha=0.95, method="saa-ps", label="saa-ps", rep=rep, seed=7, J=1.0,
                   J_true=j_true, status="ok", budget=1000)
        rows.append(row)
    folder.mkdir(parents=True)
    pd.DataFrame(rows).to_parquet(folder / "results.parquet")
    return folder


def test_update_floor_covers_every_replication_with_a_precise_j_and_caches_it(tmp_path):
    x_ref = [0.0, 0.3, 0.55, 0.0, 0.0, 1.0]
    (tmp_path / "reference").mkdir()
    pd.DataFrame([{"problem": "dgp1", "lam": 0.5, "alpha": 0.95, "J_star": 1.0, "x": x_ref,
                   "dim_x": 6}]).to_parquet(tmp_path / "reference" / "reference.parquet")
    folder = _results_with_precise_j(tmp_path / "exp", j_true=2.0)
    optima = tmp_path / "reference" / "reference.parquet"
    floor = floor_module.update_floor(folder, optima, 2_000)
    assert sorted(floor["rep"]) == [0, 1] and (floor["n"] == 2_000).all()
    assert (folder / floor_module.FLOOR_FILE).is_file()
    # Without a precise J, or without reference optima, nothing is computed.
    bare = _results_with_precise_j(tmp_path / "bare")
    assert floor_module.update_floor(bare, optima, 2_000) is None
    assert not (bare / floor_module.FLOOR_FILE).exists()
    lone = _results_with_precise_j(tmp_path / "x" / "lone", j_true=2.0)
    nowhere = tmp_path / "nowhere" / "reference.parquet"
    assert floor_module.update_floor(lone, nowhere, 2_000) is None


def test_a_problem_that_knows_its_optimum_gives_it_exactly():
    from acfs_cli.problems import get_problem

    problem = get_problem("huff-location")
    row = reference_optimum(problem, 0.7, 0.95)
    x_star, j_star = problem.optimum(0.7, 0.95)
    assert row["J_star"] == j_star and row["J_star_se"] == 0 and row["draws"] == 0
    np.testing.assert_array_equal(row["x"], x_star)
    # J is linear in lam: E[C] and CVaR from the exact J at lam = 0 and 1
    assert row["EC_star"] + 0.7 * row["CVaR_star"] == pytest.approx(j_star, rel=1e-12)


def test_a_reference_computed_by_other_code_of_the_problem_is_computed_again(tmp_path,
                                                                             monkeypatch):
    calls = []
    search = reference.reference_optimum

    def spy(problem, lam, *args, **kwargs):
        calls.append(problem.code)
        return search(problem, lam, *args, **kwargs)

    monkeypatch.setattr(reference, "reference_optimum", spy)
    kw = {"settings": replace(FAST, n_eval=10_000)}

    class Edited(GaussianToy):
        version = "1"

    monkeypatch.setattr(reference, "get_problem", lambda name: Edited())
    compute_references(["toy"], [0.7], 0.95, out_dir=tmp_path, **kw)
    compute_references(["toy"], [0.7], 0.95, out_dir=tmp_path, **kw)
    assert calls == ["version 1"]  # the second call found it
    Edited.version = "2"
    table = compute_references(["toy"], [0.7], 0.95, out_dir=tmp_path, **kw)
    assert calls == ["version 1", "version 2"] and list(table["code"]) == ["version 2"]


def test_a_reference_found_by_another_search_is_found_again(tmp_path, monkeypatch):
    calls = []
    search = reference.reference_optimum

    def spy(problem, lam, *args, **kwargs):
        calls.append(kwargs.get("seed"))
        return search(problem, lam, *args, **kwargs)

    monkeypatch.setattr(reference, "reference_optimum", spy)
    monkeypatch.setattr(reference, "get_problem", lambda name: GaussianToy())
    small = replace(FAST, n_eval=10_000)
    path = tmp_path / "reference.parquet"
    table = compute_references(["toy"], [0.7], 0.95, seed=0, out_dir=tmp_path, settings=small)
    assert json.loads(table.loc[0, "settings"]) == {
        "version": reference.SEARCH_VERSION, "seed": 0, **dataclasses.asdict(small)}
    compute_references(["toy"], [0.7], 0.95, seed=0, out_dir=tmp_path, settings=small)
    assert calls == [0]  # the same search: kept
    compute_references(["toy"], [0.7], 0.95, seed=1, out_dir=tmp_path, settings=small)
    compute_references(["toy"], [0.7], 0.95, seed=1, out_dir=tmp_path,
                       settings=replace(small, n_eval=20_000))
    assert calls == [0, 1, 1]  # another seed, other sizes: found again
    # a row that records no settings (an older table), or the best answer of an experiment's
    # cells, is kept while the problem's code is the same
    for source, settings in (("search", ""), ("best found", '{"n":100,"seed":0,"top":5}')):
        old = read_references(path).assign(source=source, settings=settings)
        old.to_parquet(path)
        compute_references(["toy"], [0.7], 0.95, seed=2, out_dir=tmp_path, settings=small)
        assert calls == [0, 1, 1]
        assert read_references(path).loc[0, "settings"] == settings


@pytest.mark.parametrize(("bad", "match"), [(dict(starts=0), "start"),
                                            (dict(max_evals=0), "max_evals")])
def test_reference_settings_refuse_a_search_without_starts_or_evaluations(bad, match):
    with pytest.raises(ValueError, match=match):
        ReferenceSettings(**bad)


def test_the_floor_command_reads_the_optima_of_its_output_folder(tmp_path, monkeypatch):
    """`acfs reference --floor EXP -o DIR` pairs EXP with the optima in DIR, as `--best-found
    EXP -o DIR` writes them, not with those of results/reference."""
    from typer.testing import CliRunner

    from acfs_cli.cli import app

    monkeypatch.chdir(tmp_path)
    elsewhere = tmp_path / "my_optima"
    elsewhere.mkdir()
    pd.DataFrame([{"problem": "dgp1", "lam": 0.5, "alpha": 0.95, "J_star": 1.0,
                   "x": [0.0, 0.3, 0.55, 0.0, 0.0, 1.0], "dim_x": 6}]).to_parquet(
        elsewhere / "reference.parquet")
    folder = _results_with_precise_j(tmp_path / "exp", j_true=2.0)
    result = CliRunner().invoke(app, ["reference", "--floor", str(folder), "-o", str(elsewhere),
                                      "--floor-draws", "2000"])
    assert result.exit_code == 0, result.output
    assert sorted(pd.read_parquet(folder / floor_module.FLOOR_FILE)["rep"]) == [0, 1]
    result = CliRunner().invoke(app, ["reference", "--floor", str(folder), "-o",
                                      str(tmp_path / "empty")])
    assert result.exit_code == 2 and "empty/reference.parquet" in result.output
