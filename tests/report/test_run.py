"""report/run.py, called directly: which tables a study gets and in which order, a budget of
a budget axis named in its tables, the experiments a report covers, and what a report says
about failed cells (report/notes.py)."""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np
import pandas as pd
from rich.console import Console

from acfs_cli.report.notes import say_failures
from acfs_cli.report.run import at_budget, build_tables, experiments_under, resolve_experiment
from acfs_cli.results.read import count_cells, normalise
from acfs_cli.results.schema import new_row


def rows(kind: str = "comparison", precise: bool = False, failed: int = 0) -> pd.DataFrame:
    out = []
    for method, offset in (("astro", 0.0), ("saa-ps", 1.0)):
        for rep in range(4):
            r = new_row(experiment="e", kind=kind, cell_id=f"{method}-{rep}", problem="dgp1",
                        lam=0.7, alpha=0.95, method=method, method_display=method.upper(),
                        label=method, varied="", varied_value=math.nan, rep=rep, seed=1,
                        budget=600, final_draws=200, status="ok", J=10.0 + offset + rep,
                        EC=5.0, CVaR=8.0, x=[0.5], dim_x=1, oracle_draws=600)
            if precise:
                r.update(J_true=9.0 + offset + rep, precise_draws=2000)
            out.append(r)
    for k in range(failed):
        out[k].update(status="error", J=math.nan, error=f"ValueError: boom {k}\nsecond line")
    return normalise(pd.DataFrame(out))


def names(tables) -> list[str]:
    return [layout.name for layout, _ in tables]


def test_a_comparison_gets_its_statistics_tests_draws_and_answers_in_reading_order():
    assert names(build_tables(rows(), "comparison", "astro")) == [
        "summary", "full", "wilcoxon", "budget", "answers"]
    # the large-sample J first, with its gap to the best known J, then the paper's protocol
    precise = names(build_tables(rows(precise=True), "comparison", "astro"))
    assert precise[:4] == ["summary_true", "full_true", "wilcoxon_true", "true_gap"]
    assert precise[4:] == ["summary", "full", "wilcoxon", "budget", "answers"]
    # without a baseline: no tests
    assert "wilcoxon" not in names(build_tables(rows(), "comparison", None))


def test_each_budget_of_a_budget_axis_is_named_in_its_tables():
    layout = build_tables(rows(), "comparison", "astro")[0][0]
    shown = at_budget(layout, 26_000)
    assert shown.title == f"{layout.title}, budget 26,000"
    assert shown.caption == f"{layout.caption} Budget: $26{{,}}000$ draws."
    assert shown.rows == layout.rows


def test_the_experiments_of_a_results_root_are_its_folders_with_results_but_the_reference(
        tmp_path: Path):
    for name in ("b", "a", "reference", "empty"):
        (tmp_path / name).mkdir()
    for name in ("a", "b", "reference"):
        rows().to_parquet(tmp_path / name / "results.parquet")
    assert [p.name for p in experiments_under(tmp_path)] == ["a", "b"]
    assert experiments_under(tmp_path / "nowhere") == []
    assert resolve_experiment(Path("a"), tmp_path) == tmp_path / "a"  # a name under the root
    assert resolve_experiment(tmp_path / "b", tmp_path) == tmp_path / "b"


def test_failed_cells_are_named_by_their_first_line_and_the_rest_counted():
    console = Console(file=io.StringIO(), width=200, color_system=None)
    say_failures(console, count_cells(rows(failed=7)))
    lines = console.file.getvalue().splitlines()
    assert lines[0] == "failed: DGP1 lambda=0.70 ASTRO rep 0: ValueError: boom 0"
    assert len(lines) == 6 and lines[-1] == "... and 2 more failed cells"
    assert np.all(["second line" not in line for line in lines])
