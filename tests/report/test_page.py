"""``acfs report --html``: one self-contained page per study that shows what the terminal
report shows - its notes and tables, the study's grid, code and reference optima, failed
cells - and the data of its figures; on bad input it says why where a table or figure would
be and draws none. Built on small hand-made studies (``small_study``, also the browser
tests' study)."""

from __future__ import annotations

import io
import json
import re
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from test_report import imported_project_modules
from typer.testing import CliRunner

from acfs_cli.cli import app
from acfs_cli.report import report_experiments
from acfs_cli.report.page import write_page
from acfs_cli.report.page_html import sort_value
from acfs_cli.results.schema import COLUMNS

ROOT = Path(__file__).resolve().parents[2]
FRACTIONS = [0.1, 0.25, 0.5, 1.0]
#: Exact values of the small study's problems: J* = -10 and J(x0) = 0, so a decision's
#: normalised gap (%) is 10 (J + 10).
STAR, X0 = -10.0, 0.0
#: Method: (display name, how far its gap falls by the end of the budget).
METHODS = {"acfs": ("ACFS", 0.02), "saa-ps": ("SAA-PS", 0.2), "gp-bo": ("GP-BO", 0.7)}


def cell(problem: str, method: str, rep: int, budget: int, gaps: list[float] | None,
         rng: np.random.Generator, **values) -> dict:
    """One results row with every schema column: a completed cell whose incumbent has the
    normalised gaps ``gaps`` (%) at the checkpoints, or a failed one (``gaps`` None)."""
    empty = {"float64": np.nan, "string": "", "int64": 0, "bool": False, "list<float64>": None}
    row = {c: empty[t] for c, t in COLUMNS.items()}
    row.update(experiment="small", kind="comparison", problem=problem, lam=0.7, alpha=0.95,
               method=method, method_display=METHODS[method][0], label=method, rep=rep,
               seed=11, budget=budget, cell_id=f"{problem}-{method}-{budget}-{rep}",
               oracle_draws=budget, method_code="version 1", problem_code="version 1")
    if gaps is None:
        row.update(status="error", error="ValueError: the simulator returned NaN\n  at step 3")
        return {**row, **values}
    j = STAR + gaps[-1] / 10
    noisy = j + rng.normal(0, 0.05)
    row.update(status="ok", J=noisy, EC=noisy / 2, CVaR=noisy * 1.5, J_exact=j,
               J_star_exact=STAR, J_x0=X0, x=[round(gaps[-1] / 100, 4), 0.5], dim_x=2,
               cp_fraction=FRACTIONS, cp_draws=[f * budget for f in FRACTIONS],
               cp_J_exact=[STAR + g / 10 for g in gaps],
               notes="stopped early: the model fit was flat" if method == "gp-bo" and rep == 0
               else "")
    row.update(values)
    return row


def small_study(root: Path, name: str = "small", *, problems=("shop", "queue"), reps: int = 4,
                budgets=(500, 2000), failed=(), checkpoints: bool = True,
                seed: int = 5) -> Path:
    """A comparison of three methods on problems with known optima, with checkpoints;
    ``failed`` (problem, method) pairs have every cell failed."""
    rng = np.random.default_rng(seed)
    rows = []
    for problem in problems:
        for budget in budgets:
            for method, (_, fall) in METHODS.items():
                for rep in range(reps):
                    rate = fall * rng.uniform(0.6, 1.4) * (500 / budget) ** 0.3
                    gaps = [min(100.0, 100.0 * rate ** f * rng.uniform(0.7, 1.0))
                            for f in FRACTIONS]
                    gaps = list(np.minimum.accumulate(gaps))
                    bad = (problem, method) in failed
                    rows.append(cell(problem, method, rep, budget, None if bad else gaps, rng))
    frame = pd.DataFrame(rows)
    if not checkpoints:
        frame = frame.assign(cp_fraction=None, cp_draws=None, cp_J_exact=None)
    folder = root / name
    folder.mkdir(parents=True)
    frame.to_parquet(folder / "results.parquet")
    return folder


def page_of(folder: Path, **options) -> str:
    out = write_page([folder], results_root=folder.parent, **options)
    return out.read_text(encoding="utf-8")


def terminal(folder: Path) -> str:
    buffer = io.StringIO()
    report_experiments([folder], latex=False, csv=False, figures=False,
                       results_root=folder.parent,
                       console=Console(file=buffer, width=250, color_system=None))
    return buffer.getvalue()


def titles(page: str) -> list[str]:
    return re.findall(r'<div class="table" id="x0-t\d+"><h4>(.*?)</h4>', page)


def figure_divs(page: str) -> list[str]:
    return re.findall(r'<div class="figure" data-fig="(\w+)"', page)


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> tuple[Path, str]:
    folder = small_study(tmp_path_factory.mktemp("page"))
    return folder, page_of(folder)


def test_every_table_of_the_terminal_report_is_on_the_page(study):
    folder, page = study
    shown = titles(page)
    text = re.sub(r"\s+", "", terminal(folder))  # a long title folds in the terminal
    assert len(shown) >= 10
    for title in shown:
        assert re.sub(r"\s+", "", title.replace("&#x27;", "'")) in text
    assert any(t.startswith("Summary of J") for t in shown)
    assert any(t.startswith("Normalised gap % at each share") for t in shown)


def test_a_summary_table_has_a_row_per_method_and_setting(study):
    _, page = study
    at = page.index("<h4>Full statistics of J (")
    body = page[at:page.index("</tbody>", at)]
    assert body.count("<tr>") - 1 == len(METHODS) * 2  # a header row, then 3 methods x 2


def test_the_study_says_its_grid_budgets_seeds_and_code(study):
    _, page = study
    for fact in ("<dt>problems</dt><dd>2: queue, shop</dd>", "<dt>budgets</dt><dd>500, 2,000",
                 "<dt>replications</dt><dd>4 per cell", "<dt>base seeds</dt><dd>11",
                 "<dt>method code</dt><dd>version 1 (48 cells)",
                 "48 cells: 48 complete, 0 failed, 0 missing",
                 "exact optimum known to the problem", "No failed cells."):
        assert fact in page, fact


def test_the_page_carries_every_figure_and_the_data_to_draw_it(study):
    _, page = study
    assert figure_divs(page) == ["progress", "solvability", "area", "boxes"]
    data = re.search(r'<script type="application/json" id="figdata">(.*?)</script>', page,
                     re.S).group(1)
    assert '"progress":[' in data and '"solvability":[' in data and '"area":[' in data


def test_the_page_fetches_nothing(study):
    _, page = study
    assert not re.search(r"<link|<img|<iframe|\bsrc=|@import|url\(|fetch\(|XMLHttpRequest",
                         page)
    assert re.findall(r"https?://[^\s\"'<]+", page) == ["http://www.w3.org/2000/svg"]


def test_failed_cells_are_listed_with_the_first_line_of_their_error(tmp_path):
    folder = small_study(tmp_path, failed={("queue", "gp-bo")}, budgets=(500,))
    page = page_of(folder)
    assert "Failed cells (4): the first line of each error" in page
    assert page.count('<td class="wrap">ValueError: the simulator returned NaN</td>') == 4
    assert "at step 3" not in page
    assert "24 cells: 20 complete, 4 failed, 0 missing" in page
    # the method's answers say it has none there, rather than a row of dashes alone
    assert "no answer: every cell failed" in page


def test_one_replication_draws_no_band_no_area_scatter_and_says_so(tmp_path):
    page = page_of(small_study(tmp_path, reps=1, budgets=(500,)))
    assert "one replication: each line is that replication, no band" in page
    assert "one replication per problem: no spread of the area, no scatter" in page
    assert "one replication per method: each mark is that replication, not a box" in page
    assert "area" not in figure_divs(page)


def test_without_checkpoints_the_page_says_why_there_are_no_progress_curves(tmp_path):
    page = page_of(small_study(tmp_path, checkpoints=False, budgets=(500,)))
    assert page.count("the cells recorded no checkpoints") == 3
    assert figure_divs(page) == ["boxes"]


def test_without_an_optimum_the_page_draws_no_quality_figure_and_says_so(tmp_path):
    folder = small_study(tmp_path, budgets=(500,))
    frame = pd.read_parquet(folder / "results.parquet")
    frame[["J_exact", "J_star_exact", "J_x0"]] = np.nan
    frame.to_parquet(folder / "results.parquet")
    page = page_of(folder)
    assert figure_divs(page) == []
    assert page.count('class="note warn nofig">no quality measure (no exact optimum') == 4
    assert "none: not in the quality tables" in page
    assert any(t.startswith("Summary of J") for t in titles(page))  # the rest is still there


def test_stale_reference_optima_are_named_and_left_out(tmp_path):
    folder = small_study(tmp_path, budgets=(500,))
    frame = pd.read_parquet(folder / "results.parquet")
    frame[["J_exact", "J_star_exact", "J_x0"]] = np.nan
    frame["J_true"] = frame["J"]
    frame.to_parquet(folder / "results.parquet")
    (tmp_path / "reference").mkdir()
    pd.DataFrame({"problem": ["shop", "queue"], "lam": 0.7, "alpha": 0.95,
                  "J_star": [-10.0, -10.0], "code": ["version 0", "version 1"]}).to_parquet(
        tmp_path / "reference" / "reference.parquet")
    page = page_of(folder)
    assert "stale: made for version 0, cells have version 1 (left out)" in page
    assert "current (made for the cells&#x27; code)" in page
    assert "computed by other code of the problem than the cells" in page  # the report's note
    assert "not in the figures (no quality measure): shop" in page


def test_several_studies_make_one_page_in_the_folder_that_holds_them(tmp_path):
    a = small_study(tmp_path, "first", budgets=(500,))
    b = small_study(tmp_path, "second", budgets=(500,), reps=2)
    out = write_page([a, b], results_root=tmp_path)
    page = out.read_text(encoding="utf-8")
    assert out == tmp_path.resolve() / "report.html"
    assert 'data-tab="x0">first<' in page and 'data-tab="x1">second<' in page
    assert 'id="x1-figures"' in page and "side by side" in page


def test_the_command_writes_the_page_and_says_where(tmp_path):
    folder = small_study(tmp_path, budgets=(500,), reps=2)
    out = tmp_path / "out" / "study.html"
    result = CliRunner().invoke(app, ["report", str(folder), "--html", "--page", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output and out.stat().st_size > 10_000


def test_a_study_whose_every_cell_failed_says_so_and_draws_nothing(tmp_path):
    every = {(p, m) for p in ("shop", "queue") for m in METHODS}
    page = page_of(small_study(tmp_path, failed=every, budgets=(500,)))
    assert figure_divs(page) == [] and titles(page) == []
    assert page.count("no completed cells (every cell failed or is missing)") == 4
    assert "no complete cells in the comparison study: nothing to tabulate" in page
    assert "Failed cells (24)" in page


@pytest.mark.parametrize("args, message", [
    (["nowhere", "--html"], "nowhere"),
    (["--page", "x.html"], "--page names where --html writes the page"),
    (["nowhere", "--html", "--latex"], "--latex, --csv and --no-figures belong to the terminal"),
])
def test_bad_input_gets_one_line_and_exit_2(tmp_path, args, message):
    result = CliRunner().invoke(app, ["report", *[str(tmp_path / a) if a == "nowhere" else a
                                                  for a in args]])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.output


@pytest.mark.parametrize("text, value", [
    ("141,747", "141747.0"), ("-0.47", "-0.47"), ("+3.91", "3.91"), ("50%", "50.0"),
    ("<0.001 ***", "0.0005"), ("[-9,380; +4,610]", "-9380.0"), ("0.013 *", "0.013"),
    ("ACFS", None), ("-", None), ("1.5e-05", "1.5e-05"),
])
def test_cells_sort_by_their_leading_number(text, value):
    assert sort_value(text) == value


def test_the_script_and_style_ship_in_the_wheel():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    shipped = config["tool"]["setuptools"]["package-data"]["acfs_cli.report"]
    assets = ROOT / "acfs_cli" / "report" / "assets"
    files = {p.name for p in assets.iterdir()}
    assert files == {"page.js", "page.css"}
    assert all(any(Path(f).match(p.removeprefix("assets/")) for p in shipped) for f in files)
    assert "playwright" in " ".join(config["project"]["optional-dependencies"]["browser"])


def test_the_page_reads_results_only():
    reached = imported_project_modules("acfs_cli.report.page")
    assert "acfs_cli.report.run" in reached
    assert not {m for m in reached if m.startswith(("acfs_cli.methods", "acfs_cli.problems",
                                                    "acfs_cli.experiment"))}
    for name in ("page", "page_curves", "page_html"):
        source = (ROOT / "acfs_cli" / "report" / f"{name}.py").read_text()
        assert not re.search(r"^\s*(from|import) acfs_cli\.(core|methods)", source, re.M)


@pytest.mark.parametrize("name", ["simopt", "main"])
def test_the_committed_studies_pages_are_there_and_small(name):
    page = ROOT / "docs" / f"{name}.html"
    assert page.is_file(), "make pages writes it"
    text = page.read_text(encoding="utf-8")
    assert page.stat().st_size < 5_000_000
    assert f"<h1>acfs report: {name}</h1>" in text and "figdata" in text


def regret_study(root: Path, name: str = "regret") -> Path:
    """The small study without exact optima: a large-sample J and reference optima J*, so a
    regret (no x0 to measure from), and no incumbent yet at the first checkpoint."""
    folder = small_study(root, name, budgets=(500,))
    frame = pd.read_parquet(folder / "results.parquet")
    frame["J_true"] = frame["J_exact"] + 20.0  # J* = 10 below: a regret, never 0
    frame["cp_J_true"] = [[np.nan, *(np.asarray(v)[1:] + 20.0)] for v in frame["cp_J_exact"]]
    frame[["J_exact", "J_star_exact", "J_x0", "cp_J_exact"]] = None
    frame.to_parquet(folder / "results.parquet")
    (root / "reference").mkdir(exist_ok=True)
    pd.DataFrame({"problem": ["shop", "queue"], "lam": 0.7, "alpha": 0.95,
                  "J_star": [10.0, 10.0], "code": "version 1"}).to_parquet(
        root / "reference" / "reference.parquet")
    return folder


def test_a_study_rated_on_a_regret_draws_its_progress_but_not_simopts_profiles(tmp_path):
    page = page_of(regret_study(tmp_path))
    data = json.loads(re.search(r'id="figdata">(.*?)</script>', page, re.S).group(1))["x0"]
    first = data["progress"][0]["lines"][0]
    assert first["median"][0] == 1e308  # no incumbent yet at the first checkpoint: +inf
    assert data["progress"][0]["measure"] == "regret %"
    assert figure_divs(page) == ["progress", "boxes"]
    assert "a point is missing where half the replications had no incumbent yet" in page
    assert page.count("no setting is rated on a normalised gap (measured from x0)") == 2
