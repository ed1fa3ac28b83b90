"""`acfs reference`: keeps finished optima, refuses an unwritable folder in one line."""

from __future__ import annotations

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
        "grid": {"dgp": list(dgps), "lambda": list(lams), "method": ["cem-so"]},
    }))
    return path


def test_reference_keeps_rows_already_computed_and_lists_them(tmp_path):
    out = tmp_path / "reference"
    out.mkdir()
    row = {"dgp": "dgp1", "lam": 0.7, "alpha": 0.95, "J_star": 171_000.0, "J_star_se": 900.0,
           "EC_star": 43_700.0, "CVaR_star": 182_000.0, "x": [0.0, 0.32, 0.53, 0.0, 0.0, 1.0],
           "dim_x": 6, "draws": 1, "code": "version 1"}
    pd.DataFrame([row]).astype(pandas_types(REFERENCE_COLUMNS)).to_parquet(
        out / "reference.parquet")
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
