"""Reference optima and regret floors are never stale: they record the problem's code (and
the optimum's search, the floor's decision) that made them, ``acfs reference`` and ``acfs
reference --floor`` compute again what other code made, and ``acfs report`` leaves out and
names - with the command that refreshes it - a yardstick made for other code than the
cells'. The story: a user edits a simulator after ``acfs reference`` and ``--floor``."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from acfs_cli.cli import app
from acfs_cli.report.baseline import find_optima
from acfs_cli.report.freshness import check_references
from acfs_cli.results.read import FLOOR_FILE, optima_for, read_floor, read_results

ROOT = Path(__file__).resolve().parents[2]

SIMULATOR = '''import numpy as np


class Demand:
    """Order x of a product whose demand W is log-normal; each unit short costs PENALTY."""

    dim_x, dim_w = 1, 1
    bounds = [(0.0, 4.0)]
    x0 = np.array([3.0])

    def sample(self, x, n, rng):
        return np.exp(0.3 * rng.standard_normal((n, 1)))

    def cost(self, W, x):
        return x[..., 0] - PENALTY * np.minimum(W[..., 0], x[..., 0])


PENALTY = {penalty}
'''


def command(*args: str):
    return CliRunner().invoke(app, list(args))


def quoted(text: str) -> list[str]:
    """The commands a report quotes between backticks, in order."""
    return re.findall(r"`([^`]+)`", " ".join(text.split()))


def fresh_simulator(folder: Path, penalty: str) -> None:
    """Write the user's module and forget the imported one, as a new process would."""
    (folder / "shop.py").write_text(SIMULATOR.format(penalty=penalty))
    sys.modules.pop("shop", None)


def test_an_edited_simulator_after_reference_and_floor_is_warned_and_then_recomputed(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the configuration's folder joins it
    try:
        walk_the_story(tmp_path)
    finally:
        sys.modules.pop("shop", None)


def walk_the_story(tmp_path: Path) -> None:
    fresh_simulator(tmp_path, "2.0")
    (tmp_path / "shop.yaml").write_text(yaml.safe_dump({
        "name": "shop", "seed": 4, "budget": 2000, "replications": 3,
        "final_eval": {"draws": 400, "bootstrap": 0, "precise_draws": 2000},
        "grid": {"problem": ["shop:Demand"], "lambda": [0.5], "method": ["saa-ps"]}}))
    folder = Path("results") / "shop"
    reference_file = Path("results") / "reference" / "reference.parquet"
    assert command("run", "shop.yaml", "-q").exit_code == 0
    assert command("reference", "shop.yaml").exit_code == 0
    assert command("reference", "--floor", str(folder)).exit_code == 0
    report = command("report", str(folder), "--no-figures")
    assert report.exit_code == 0 and "warning" not in report.output
    assert "Gap% med" in report.output
    old = pd.read_parquet(reference_file).iloc[0]

    fresh_simulator(tmp_path, "2.5")  # a larger penalty for each unit short
    assert command("run", "shop.yaml", "-q").exit_code == 2  # stale cells stop the run
    assert command("run", "shop.yaml", "-q", "--recompute-stale").exit_code == 0
    report = command("report", str(folder), "--no-figures")
    assert report.exit_code == 0, report.output
    text = " ".join(report.output.split())
    assert (f"warning: {reference_file}: the reference optima of shop:Demand lambda=0.50 were "
            "computed by other code of the problem than the cells' (source ") in text
    assert (f"warning: {folder / FLOOR_FILE}: 3 replication(s) of shop:Demand lambda=0.50 "
            "were estimated for another reference optimum or other code of the problem") in text
    assert "Gap% med" not in text and "Paired% med" not in text  # nothing rated on old J*
    again_optima, again_floor = quoted(text)[-2:]
    assert again_optima == "acfs reference shop.yaml -o results/reference"
    assert again_floor == f"acfs reference --floor {folder} -o results/reference"

    # the commands the warnings name, as a user types them
    assert command(*again_optima.split()[1:]).exit_code == 0
    new = pd.read_parquet(reference_file).iloc[0]
    assert new["J_star"] < old["J_star"] - 0.3  # shortage costs more: far lower J*
    assert new["code"] != old["code"]
    floor_run = command(*again_floor.split()[1:])
    assert "(3 computed now, 0 kept)" in " ".join(floor_run.output.split())
    floor = pd.read_parquet(folder / FLOOR_FILE)
    assert (floor["code"] == new["code"]).all()
    assert all(np.array_equal(x, new["x"]) for x in floor["x_ref"])
    report = command("report", str(folder), "--no-figures")
    assert "warning" not in report.output and "Gap% med" in report.output
    # current rows are kept; --force computes every one again, to the same numbers
    kept = command("reference", "--floor", str(folder))
    assert "(0 computed now, 3 kept)" in " ".join(kept.output.split())
    forced = command("reference", "--floor", str(folder), "--force")
    assert "(3 computed now, 0 kept)" in " ".join(forced.output.split())
    assert pd.read_parquet(folder / FLOOR_FILE)["J_ref_true"].tolist() == (
        floor["J_ref_true"].tolist())


def _rows(codes, x=(0.5,)) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Completed cells of one setting (one per replication, with the given problem codes),
    its optimum and floor, made with code "v1" at decision ``x``."""
    results = pd.DataFrame({"problem": "p", "lam": 0.5, "alpha": 0.95, "seed": 1,
                            "rep": range(len(codes)), "status": "ok", "J": 1.0,
                            "problem_code": list(codes)})
    optima = pd.DataFrame([{"problem": "p", "lam": 0.5, "alpha": 0.95, "J_star": 0.0,
                            "code": "v1", "x": np.array(x)}])
    floor = pd.DataFrame({"problem": "p", "lam": 0.5, "alpha": 0.95, "seed": 1,
                          "rep": range(len(codes)), "n": 100, "J_ref_true": 0.1, "code": "v1",
                          "x_ref": [np.array([0.5])] * len(codes)})
    return results, optima, floor


def test_a_yardstick_made_for_the_cells_code_is_used_whole():
    checked = check_references(*_rows(["v1", "v1"]))
    assert not (checked.stale_optima or checked.stale_floor or checked.unknown_optima)
    assert len(checked.optima) == 1 and len(checked.floor) == 2


def test_an_optimum_of_other_code_is_left_out_with_its_floor():
    checked = check_references(*_rows(["v2", "v2"]))
    assert [(s.setting, s.made_with, s.cells_have) for s in checked.stale_optima] == [
        (("p", 0.5, 0.95), "v1", "v2")]
    assert checked.optima.empty and checked.floor.empty
    assert [s.count for s in checked.stale_floor] == [2]


def test_an_optimum_holds_for_the_cells_of_its_problem_under_another_sampling_convention():
    # a sample-only variant's cells ("v1, sampling 2") solve the problem whose row ("v1")
    # holds J*; its floor, estimated on the replications' own random numbers, does not hold
    checked = check_references(*_rows(["v1, sampling 2", "v1, sampling 2"]))
    assert not checked.stale_optima and len(checked.optima) == 1
    assert [(s.made_with, s.cells_have, s.count) for s in checked.stale_floor] == [
        ("v1", "v1, sampling 2", 2)]
    edited = check_references(*_rows(["v2, sampling 2", "v2, sampling 2"]))
    assert [(s.made_with, s.cells_have) for s in edited.stale_optima] == [
        ("v1", "v2, sampling 2")]


def test_floor_rows_of_another_replications_code_or_another_decision_are_left_out():
    results, optima, floor = _rows(["v1", "v1", "v1"])
    floor.loc[0, "code"] = "v0"  # estimated before an edit
    floor.at[2, "x_ref"] = np.array([0.4])  # estimated for an earlier optimum
    checked = check_references(results, optima, floor)
    assert not checked.stale_optima and len(checked.optima) == 1
    assert list(checked.floor["rep"]) == [1]
    assert [s.count for s in checked.stale_floor] == [2]


def test_unrecorded_fingerprints_are_used_and_said():
    results, optima, floor = _rows(["v1", ""])
    optima["code"] = ""
    old_floor = floor.drop(columns=["code", "x_ref"])
    checked = check_references(results, optima, old_floor)
    assert checked.unknown_optima == [("p", 0.5, 0.95)] and checked.unknown_floor
    assert len(checked.optima) == 1 and len(checked.floor) == 2
    cells_of_old = check_references(*_rows(["", ""]))  # cells that record no code: no claim
    assert not (cells_of_old.stale_optima or cells_of_old.unknown_optima)


#: Where each committed study's reference optima are (REPRODUCTION.md's report commands).
OPTIMA = {"main": "reference", "ablation": "reference", "sensitivity": "reference",
          "budget": "reference", "sample_only": "reference", "simopt": "simopt_reference"}


@pytest.mark.parametrize("name", sorted(OPTIMA))
def test_the_committed_studies_rate_on_optima_and_floors_made_for_their_code(name):
    folder = ROOT / "results" / name
    results = read_results(folder)
    source = find_optima(folder, ROOT / "results", ROOT / "results" / OPTIMA[name])
    checked = check_references(results, optima_for(results, source.optima), read_floor(folder))
    assert not (checked.stale_optima or checked.stale_floor or checked.unknown_optima
                or checked.unknown_floor)
    assert len(checked.floor) == len(read_floor(folder))


def test_floor_rows_of_a_stale_optimum_are_left_out_even_where_their_own_code_is_current():
    # the floor estimated again for the edited problem, but at the old optimum's decision:
    # its code matches the cells, yet the decision it rates against belongs to a stale J*
    results, optima, floor = _rows(["v2", "v2"])
    floor["code"] = "v2"
    checked = check_references(results, optima, floor)
    assert [s.made_with for s in checked.stale_optima] == ["v1"]
    assert checked.optima.empty and checked.floor.empty
    assert [s.count for s in checked.stale_floor] == [2]
