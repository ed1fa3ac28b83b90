"""`acfs reference`: keeps finished optima, refuses an unwritable folder in one line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml
from typer.testing import CliRunner

from acfs_cli.cli import app
from acfs_cli.results.schema import REFERENCE_COLUMNS, pandas_types

runner = CliRunner()


def _config(folder, dgps=("dgp1",), lams=(0.7,)):
    path = folder / "ref.yaml"
    path.write_text(yaml.safe_dump({
        "name": "ref", "seed": 1, "replications": 1,
        "grid": {"problem": list(dgps), "lambda": list(lams), "method": ["cem-so"]},
    }))
    return path


def _types_of(row: dict) -> dict:
    """The column types of a reference row of a version that did not record its settings."""
    return pandas_types({name: REFERENCE_COLUMNS[name] for name in row})


def test_reference_keeps_rows_already_computed_and_lists_them(tmp_path):
    out = tmp_path / "reference"
    out.mkdir()
    row = {"problem": "dgp1", "lam": 0.7, "alpha": 0.95, "J_star": 171_000.0, "J_star_se": 900.0,
           "EC_star": 43_700.0, "CVaR_star": 182_000.0, "x": [0.0, 0.32, 0.53, 0.0, 0.0, 1.0],
           "dim_x": 6, "draws": 1, "code": "version 1", "source": "search"}
    pd.DataFrame([row]).astype(_types_of(row)).to_parquet(out / "reference.parquet")
    result = runner.invoke(app, ["reference", str(_config(tmp_path)), "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert "1 reference optima" in result.output
    kept = pd.read_parquet(out / "reference.parquet")
    assert kept["J_star"].tolist() == [171_000.0]  # nothing recomputed: the same code


def test_reference_into_an_unwritable_place_exits_2_with_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = runner.invoke(app, ["reference", str(_config(tmp_path)), "--output",
                                 str(blocker / "reference")])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_the_report_computes_nothing_and_says_which_command_computes_the_paired_regret(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({
        "name": "tiny", "seed": 2, "budget": 20_000, "replications": 2, "n_jobs": 1,
        "final_eval": {"draws": 400, "bootstrap": 0, "precise_draws": 2_000},
        "grid": {"problem": ["dgp2"], "lambda": [0.7], "method": ["cem-so"]},
        "methods": {"cem-so": {"n_iter": 3, "population": 10, "n_mc": 30, "polish_n": 20,
                               "polish_draws": 400, "polish_maxiter": 3}}}))
    assert runner.invoke(app, ["run", str(config), "-q"]).exit_code == 0
    out = tmp_path / "results" / "reference"
    out.mkdir(parents=True)
    row = {"problem": "dgp2", "lam": 0.7, "alpha": 0.95, "J_star": 320_000.0, "J_star_se": 500.0,
           "EC_star": 90_000.0, "CVaR_star": 330_000.0, "x": [0.0, 0.0, 0.0, 0.45, 0.0, 0.0],
           "dim_x": 6, "draws": 1, "code": "version 1", "source": "search"}
    pd.DataFrame([row]).astype(_types_of(row)).to_parquet(out / "reference.parquet")
    folder = tmp_path / "results" / "tiny"
    before = sorted(p.name for p in folder.iterdir())
    report = runner.invoke(app, ["report", str(folder), "--no-figures"])
    assert report.exit_code == 0, report.output
    assert f"`acfs reference --floor {folder}` estimates" in " ".join(report.output.split())
    assert not (folder / "reference_floor.parquet").exists()
    assert [p for p in sorted(p.name for p in folder.iterdir()) if p != "tables"] == before
    floor = runner.invoke(app, ["reference", "--floor", str(folder)])
    assert floor.exit_code == 0, floor.output
    stored = pd.read_parquet(folder / "reference_floor.parquet")
    assert len(stored) == 2 and (stored["n"] == 2_000).all()  # the cells' own precise sample
    again = runner.invoke(app, ["report", str(folder), "--no-figures"])
    assert "no paired regret yet" not in again.output


def test_the_floor_of_a_folder_without_reference_optima_is_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["reference", "--floor", str(tmp_path / "nothing")])
    assert result.exit_code == 2 and "no such experiment folder" in result.output


def test_best_found_takes_the_best_answer_of_the_cells_on_one_common_sample(tmp_path,
                                                                           monkeypatch):
    import numpy as np

    from acfs_cli.results.store import read_stored

    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(Path(__file__).parents[1]))
    config = tmp_path / "quad.yaml"
    config.write_text(yaml.safe_dump({
        "name": "quad", "seed": 3, "budget": 600, "replications": 3, "alpha": 0.9, "n_jobs": 1,
        "final_eval": {"draws": 200, "bootstrap": 0, "precise_draws": 1_000},
        "grid": {"problem": [{"problem": "hostile:Quad", "x0": [-0.5, 0.5]}], "lambda": [0.5],
                 "method": ["hostile:HONEST", "astro"]}}))
    assert runner.invoke(app, ["run", str(config), "-q"]).exit_code == 0
    rows = read_stored(tmp_path / "results" / "quad")
    assert rows["J_x0_true"].notna().all()  # x0 on the same precise sample as x*
    assert rows.groupby("rep")["J_x0_true"].nunique().eq(1).all()  # one per replication
    out = tmp_path / "optima"
    result = runner.invoke(app, ["reference", "--best-found", str(tmp_path / "results" / "quad"),
                                 "-o", str(out), "--best-draws", "4000"])
    assert result.exit_code == 0, result.output
    table = pd.read_parquet(out / "reference.parquet")
    assert len(table) == 1 and table.loc[0, "source"] == "best found"
    found = np.asarray(table.loc[0, "x"])
    assert any(np.array_equal(found, np.asarray(x)) for x in rows["x"])  # one of the answers
    # the target t = (0.3, -0.2) minimises J: the best answer is the nearest to it
    nearest = min(rows["x"], key=lambda x: np.linalg.norm(np.asarray(x) - [0.3, -0.2]))
    assert np.linalg.norm(found - [0.3, -0.2]) <= np.linalg.norm(np.asarray(nearest)
                                                                - [0.3, -0.2]) + 0.05
