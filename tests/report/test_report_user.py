"""A user's own study end to end: their problem label, their method, a grid without acfs,
reference optima kept elsewhere, and the report, tables and figures they get from it."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pandas as pd
import pytest
import yaml
from matplotlib.image import imread
from test_report import experiment, report, results, synthetic_comparison
from typer.testing import CliRunner

from acfs_cli.cli import app
from acfs_cli.report import figures
from acfs_cli.report.baseline import choose_baseline
from acfs_cli.report.layout import number, se_decimals
from acfs_cli.report.render import LATEX_BLOCKS, to_latex
from acfs_cli.report.tables import ORACLE, method_statistics, true_gap_table
from acfs_cli.report.views import summary_layout

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LABEL = "a-staffing-study-with-a-long-label(wage=6,shifts=3)"
STUDY = {
    "name": "study",
    "seed": 3,
    "budget": 20_000,
    "replications": 2,
    "n_jobs": 1,
    "checkpoints": [0.5, 1],
    "final_eval": {"draws": 500, "bootstrap": 50, "precise_draws": 2000},
    "grid": {"problem": [{"problem": "dgp2", "label": LABEL}], "lambda": [0.7],
             "method": ["cem-so", "saa-ps", "my_method:RANDOM_SEARCH"]},
    "methods": {"cem-so": {"n_iter": 3, "population": 10, "n_mc": 30, "polish_n": 20,
                           "polish_draws": 400, "polish_maxiter": 3},
                "saa-ps": {"cem_iter": 2, "final_candidates": 2}},
}

runner = CliRunner()


def invoke(*args, env: dict | None = None):
    return runner.invoke(app, [str(a) for a in args], env=env)


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    """A user's folder: their method beside their configuration, the grid run once."""
    folder = tmp_path_factory.mktemp("user")
    shutil.copy(EXAMPLES / "my_method.py", folder / "my_method.py")
    (folder / "study.yaml").write_text(yaml.safe_dump(STUDY, sort_keys=False))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = invoke("run", folder / "study.yaml", "--output",
                        folder / "results" / "study", "-q")
    assert result.exit_code == 0, result.output
    (folder / "run_warnings.txt").write_text(
        "\n".join(f"{w.category.__name__}: {w.message}" for w in caught))
    return folder


@pytest.fixture
def user(study, monkeypatch) -> Path:
    monkeypatch.chdir(study)
    return study


def write_optima(folder: Path, j_star: float = 250_000.0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "reference.parquet"
    pd.DataFrame([{"problem": LABEL, "lam": 0.7, "alpha": 0.95, "J_star": j_star,
                   "J_star_se": 100.0}]).to_parquet(path)
    return path


# -- baseline ----------------------------------------------------------------------------------
def test_a_grid_without_acfs_is_compared_with_the_recommended_method_present(user):
    result = invoke("report", "results/study", "--no-figures")
    assert result.exit_code == 0, result.output
    out = words(result.stdout)
    assert "baseline: SAA-PS (the recommended method present in the study" in out
    assert "absent" not in out and "Diff%" in out and "Gap%" not in out
    assert "Wilcoxon signed-rank tests on J: SAA-PS vs each competitor" in out


def test_the_default_method_is_the_baseline_before_the_other_recommended_ones():
    frame = results({"saa-ps": [5.0, 6.0, 7.0], "auto": [6.0, 7.0, 8.0], "astro": [1.0, 2.0, 3.0],
                     "acfs": [2.0, 3.0, 4.0]})
    assert choose_baseline(frame, None).method == "auto"
    without = frame[frame["method"] != "auto"]
    assert choose_baseline(without, None).method == "saa-ps"


def test_a_grid_without_a_recommended_method_takes_the_lowest_median_j():
    frame = results({"cem-so": [5.0, 6.0, 7.0], "gp-bo": [3.0, 4.0, 9.0]})
    chosen = choose_baseline(frame, None)
    assert chosen.method == "gp-bo" and "lowest median J" in chosen.reason


@pytest.mark.parametrize("asked", ["my_method:RANDOM_SEARCH", "random-search", "saa-ps",
                                   "SAA-PS"])
def test_the_baseline_is_named_by_method_import_path_or_display_name(user, asked):
    result = invoke("report", "results/study", "--no-figures", "--baseline", asked)
    assert result.exit_code == 0, result.output
    shown = "random-search" if "RANDOM" in asked or "random" in asked else "SAA-PS"
    assert f"baseline: {shown} (--baseline)" in words(result.stdout)


def test_a_baseline_missing_from_the_study_names_the_study_methods(user):
    result = invoke("report", "results/study", "--no-figures", "--baseline", "acfs")
    assert result.exit_code == 0, result.output
    assert ("no baseline ('acfs' is not among this study's methods: CEM-SO, random-search, "
            "SAA-PS): no Diff% or tests") in words(result.stdout)


# -- reference optima --------------------------------------------------------------------------
def test_without_optima_the_report_says_where_it_looked_and_what_is_lost(user):
    result = invoke("report", "results/study", "--no-figures")
    out = words(result.stdout)
    assert "no reference optima (looked for results/reference/reference.parquet)" in out
    assert f"no reference optimum for {LABEL} lambda=0.70: no regret, progress or " \
           "solvability tables there" in out
    assert "Quality: regret %" not in out


def test_optima_in_another_folder_are_used_with_optima_and_named(user, tmp_path):
    path = write_optima(tmp_path / "elsewhere")
    for given in (path, path.parent):
        result = invoke("report", "results/study", "--no-figures", "--optima", given)
        assert result.exit_code == 0, result.output
        out = words(result.stdout)
        assert f"reference optima: {path}" in out
        assert "no reference optimum" not in out
        assert "Quality: regret %" in out  # the progress tables are back
    missing = invoke("report", "results/study", "--optima", tmp_path / "nowhere.parquet")
    assert missing.exit_code == 2 and "--optima: no reference optima at" in missing.stderr


# -- readable tables ---------------------------------------------------------------------------
def test_long_problem_labels_cut_nothing_at_100_columns(user):
    result = invoke("report", "results/study", "--no-figures", env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert "\u2026" not in result.stdout
    tables = [line for line in result.stdout.splitlines() if line.startswith(" ")]
    assert all(len(line) <= 100 for line in tables)
    for name in ("SAA-PS", "random-search", "CEM-SO"):
        assert f" {name} " in result.stdout
    assert LABEL in result.stdout  # whole where it fits, folded elsewhere


def test_j_is_shown_to_the_first_significant_digit_of_its_standard_error_and_whole_units():
    assert se_decimals(0.03) == 2 and se_decimals(4.0) == 0 and se_decimals(None) is None
    assert se_decimals(480.0) == 0  # never rounded to hundreds: the paper's tables keep units
    assert number(141_747.2, decimals=se_decimals(480.0)).plain == "141,747"
    assert number(-244.532, decimals=se_decimals(0.03)).plain == "-244.53"
    frame = results({"saa-ps": [-244.53, -244.61, -244.47], "cem-so": [-243.2, -243.9, -243.5]})
    frame = frame.assign(J_lo=frame["J"] - 0.06, J_hi=frame["J"] + 0.06)  # SE 0.03
    layout = summary_layout(method_statistics(frame, ORACLE, "saa-ps"), ORACLE, "SAA-PS")
    medians = [row.cells[1].plain for row in layout.rows]
    assert medians == ["-243.50", "-244.53"]  # the same digits for every method (paper's order)


def test_a_paired_difference_takes_its_digits_from_its_own_interval(user):
    result = invoke("report", "results/study", "--no-figures", "--csv",
                    env={"COLUMNS": "200"})
    tests = pd.read_csv(user / "results" / "study" / "tables" / "wilcoxon.csv")
    row = tests.iloc[0]
    digits = se_decimals((row["ci_hi"] - row["ci_lo"]) / 3.92)
    assert f"{round(row['med_diff'], digits):+,.{max(digits, 0)}f}" in result.stdout


def test_latex_puts_at_most_three_problems_side_by_side():
    frames = [results({"acfs": [1.0, 2.0, 3.0], "gp-bo": [2.0, 3.0, 4.0]}, problem=f"p{i}")
              for i in range(5)]
    stats = method_statistics(pd.concat(frames, ignore_index=True), ORACLE, "acfs")
    tex = to_latex(summary_layout(stats, ORACLE, "ACFS"), "tbl:x")
    assert tex.count(r"\begin{tabular}") == 2 and tex.count(r"\begin{table}") == 1
    first = tex.split(r"\begin{tabular}")[1]
    assert sum(f"{{p{i}}}" in first for i in range(5)) == LATEX_BLOCKS


def test_the_normalised_gap_on_the_precise_sample_follows_simopt():
    frame = results({"acfs": [110.0, 120.0], "gp-bo": [130.0, 150.0]})
    frame = frame.assign(J_true=frame["J"], J_ref_true=100.0, J_x0_true=200.0)
    table = true_gap_table(frame).set_index("config")
    assert table.loc["acfs", "gap_med_pct"] == pytest.approx(15.0)  # 100 (115-100)/(200-100)
    assert table.loc["gp-bo", "gap_max_pct"] == pytest.approx(50.0)


def test_the_quality_measure_is_the_normalised_gap_where_x0_has_a_precise_j():
    from acfs_cli.report.quality import GAP_TRUE, with_quality

    frame = results({"acfs": [110.0, 120.0], "gp-bo": [130.0, 150.0]})
    frame = frame.assign(J_true=frame["J"], J_ref_true=100.0, J_x0_true=200.0)
    optima = frame[["problem", "lam", "alpha"]].drop_duplicates().assign(J_star=100.0)
    rated = with_quality(frame, optima)
    assert set(rated["measure"]) == {GAP_TRUE}
    assert sorted(rated["quality"]) == pytest.approx([10.0, 20.0, 30.0, 50.0])


# -- figures -----------------------------------------------------------------------------------
def test_figures_are_byte_identical_across_runs_and_carry_no_date(user):
    def draw() -> dict[str, bytes]:
        result = invoke("report", "results/study", "--optima", write_optima(user / "ref"))
        assert result.exit_code == 0, result.output
        return {p.name: p.read_bytes()
                for p in sorted((user / "results" / "study" / "figures").iterdir())}

    first, second = draw(), draw()
    assert first and first == second
    assert {Path(n).suffix for n in first} == {".png", ".pdf"}
    for name, data in first.items():
        assert b"CreationDate" not in data and b"Matplotlib" not in data, name


@pytest.fixture
def drawn(monkeypatch) -> list:
    """The figures drawn, kept instead of written."""
    kept = []
    monkeypatch.setattr(figures, "save", lambda fig, paths: kept.append(fig))
    return kept


def texts(fig) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_box_plots_name_the_baseline_in_a_legend(drawn, tmp_path):
    figures.comparison_boxplots(synthetic_comparison(reps=6), tmp_path / "b", ORACLE, "gp-bo")
    legend = [t.get_text() for leg in drawn[0].legends for t in leg.get_texts()]
    assert legend == ["GP-BO (baseline)"]


def test_the_regret_figure_labels_the_same_thresholds_as_the_quality_figures(drawn, tmp_path):
    frame = synthetic_comparison(reps=6, precise=True)
    frame = frame.assign(J_ref_true=frame["J_true"].min())
    optima = frame[["problem", "lam", "alpha"]].drop_duplicates().assign(J_star=1.0e5)
    figures.regret_boxplots(frame, optima, tmp_path / "r", "acfs")
    labels = texts(drawn[0])
    assert labels.count("1 %") == 6 and labels.count("5 %") == 6
    for ax in drawn[0].axes:
        assert ax.get_yscale() == "symlog"
        assert ax.yaxis.get_transform().linthresh == figures.LINEAR_WITHIN


def test_below_five_replications_a_panel_shows_points_and_a_warning(drawn, tmp_path):
    figures.comparison_boxplots(synthetic_comparison(reps=2), tmp_path / "b", ORACLE, "acfs")
    warnings_shown = [t for t in texts(drawn[0]) if "only 2 replications" in t]
    assert len(warnings_shown) == 6
    assert not any(ax.patches for ax in drawn[0].axes)  # no boxes


def test_many_panels_wrap_into_a_page_sized_grid(tmp_path):
    assert [figures.panel_shape(n) for n in (1, 3, 5, 9, 16, 17)] == [
        (1, 1), (2, 2), (2, 3), (3, 3), (4, 4), (5, 4)]
    frame = pd.concat([results({"acfs": [1.0, 2.0, 3.0, 4.0, 5.0], "gp-bo": [2, 3, 4, 5, 6.0]},
                               problem=f"problem-{i}") for i in range(16)], ignore_index=True)
    png = figures.comparison_boxplots(frame, tmp_path / "library", ORACLE, "acfs")[0]
    height, width = imread(png).shape[:2]
    assert 0.7 < width / height < 1.6  # 4 x 4 panels, not 16 in one column


# -- smaller fixes -----------------------------------------------------------------------------
def test_acfs_list_shows_a_user_method_by_import_path(user):
    result = invoke("list", "my_method:RANDOM_SEARCH")
    assert result.exit_code == 0, result.output
    assert "local random search on common samples" in result.stdout
    assert "n_candidates" in result.stdout
    assert invoke("list", "nope:NOTHING").exit_code == 2


def test_a_configuration_with_several_mistakes_reports_each_on_its_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nseed: 1\nbudget: 30000\nreplications: -3\nalpha: 2\n"
                   "grid:\n  problem: [dgp2, nosuch]\n  lambda: [0.7]\n"
                   "  method: [saa-ps, nomethod]\nmethods:\n  saa-ps: {bogus: 1}\n")
    result = invoke("run", bad, "-o", tmp_path / "out")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert [line.split(": ")[1] for line in lines] == [f"{bad}:{n}" for n in (4, 5, 7, 9, 11)]
    for what in ("replications", "alpha", "unknown problem 'nosuch'",
                 "unknown method 'nomethod'", "no parameter bogus"):
        assert sum(what in line for line in lines) == 1, what
    assert not (tmp_path / "out").exists()


def test_the_status_hint_keeps_the_output_folder(user, tmp_path):
    # wide enough that the temporary folder's path, long on some machines, is never broken
    result = invoke("status", "study.yaml", "--output", tmp_path / "elsewhere",
                    env={"COLUMNS": "1000"})
    assert result.exit_code == 0, result.output
    assert f"`acfs run study.yaml --output {tmp_path / 'elsewhere'}` computes the failed and " \
           "missing cells." in words(result.stdout)


def test_the_status_table_names_a_user_method_by_its_name(user):
    result = invoke("status", "study.yaml", "--output", "results/study", env={"COLUMNS": "200"})
    assert "random-search" in result.stdout and "my_method:RANDOM_SEARCH" not in result.stdout


def test_a_problem_label_goes_from_run_to_report(user):
    rows = pd.read_parquet(user / "results" / "study" / "results.parquet")
    assert set(rows["problem"]) == {LABEL} and set(rows["problem_name"]) == {"dgp2"}
    result = invoke("report", "results/study", "--no-figures", "--csv",
                    env={"COLUMNS": "200"})
    assert LABEL in result.stdout
    summary = pd.read_csv(user / "results" / "study" / "tables" / "summary.csv")
    assert set(summary["problem"]) == {LABEL}


def test_run_and_report_leak_no_performance_warnings(user):
    assert "PerformanceWarning" not in (user / "run_warnings.txt").read_text()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = invoke("report", "results/study", "--no-figures")
    assert result.exit_code == 0
    assert not [w for w in caught if issubclass(w.category, pd.errors.PerformanceWarning)]
    assert "PerformanceWarning" not in result.stderr


def test_reference_says_how_each_optimum_was_found():
    from acfs_cli.cli.reference import Searching

    assert Searching.how({"source": "exact"}, 0.0) == "exact (the problem knows its optimum)"
    assert Searching.how({"source": "search", "draws": 26_500_000}, 61.4) == \
        "search, 26,500,000 draws, 61 s"


def test_a_study_with_its_optima_beside_it_needs_no_option(tmp_path):
    folder = experiment(tmp_path / "results", "exp", synthetic_comparison(reps=5,
                                                                          precise=True))
    optima = pd.DataFrame({"problem": ["dgp1", "dgp2"], "lam": 0.7, "alpha": 0.95,
                           "J_star": [1.8e5, 3.4e5]})
    write = tmp_path / "results" / "reference"
    write.mkdir()
    optima.to_parquet(write / "reference.parquet")
    _, out = report([folder], tmp_path / "nowhere")
    assert f"reference optima: {write / 'reference.parquet'}" in words(out)


def test_panels_by_budget_wrap_when_a_setting_lacks_one_of_the_budgets():
    """Budgets as columns only when every setting has every budget: panels fill the grid in
    reading order, so a missing (setting, budget) would shift every later panel's column."""
    from acfs_cli.report.quality_figures import _panel_grid

    def table(pairs):
        return pd.DataFrame([{"problem": p, "lam": 0.0, "alpha": 0.95, "budget": b}
                             for p, b in pairs])

    full = table([(p, b) for p in ("a", "b") for b in (100, 1000)])
    _, fig, axes = _panel_grid(full, by_budget=True)
    assert len(axes) == 4
    assert fig.axes[1].get_position().x0 > fig.axes[0].get_position().x0
    uneven = table([("a", 100), ("a", 1000), ("b", 1000), ("b", 10000), ("c", 100), ("c", 1000)])
    panels, fig, axes = _panel_grid(uneven, by_budget=True)
    visible = [ax for ax in axes if ax.axison]
    assert len(panels) == len(visible) == 6 and len(axes) < 3 * 3
