"""Quality against the optimum in the report: the one measure (normalised gap, paired regret,
regret), progress curves at checkpoints, the area under them, quality against the budget, the
library's ranking, and the end-of-run summary - on hand-built results, checked against hand
computations, and once end to end through the command line."""

from __future__ import annotations

import io
import math
import re

import numpy as np
import pandas as pd
import pytest
import yaml
from rich.console import Console
from test_report import braces_balance, latex_columns
from typer.testing import CliRunner

from acfs_cli.cli import app
from acfs_cli.report import report_experiments
from acfs_cli.report.quality import (
    GAP,
    PAIRED,
    REGRET,
    area_table,
    budget_quality_table,
    checkpoint_quality,
    checkpoint_table,
    library_gap_table,
    library_ranking_table,
    with_quality,
)
from acfs_cli.results.schema import COLUMNS, REQUIRED

FRACTIONS = [0.1, 0.5, 1.0]
#: Exact values of the hand-built library problems: J* = -10 and J(x0) = 0, so the
#: normalised gap of a decision is 10 (J + 10).
STAR, X0 = -10.0, 0.0


def row(dgp: str, method: str, rep: int, budget: int = 1000, **values) -> dict:
    """One completed results row with every column the runner writes."""
    empty = {"float64": np.nan, "string": "", "int64": 0, "bool": False, "list<float64>": None}
    out = {c: empty[t] for c, t in COLUMNS.items()}
    out.update(experiment="hand", kind="comparison", cell_id=f"{dgp}-{method}-{budget}-{rep}",
               problem=dgp, lam=0.7, alpha=0.95, method=method, label=method, rep=rep, seed=1,
               method_display=method.upper(),
               J=1.0, EC=1.0, CVaR=1.0, oracle_draws=budget, budget=budget, status="ok")
    out.update(values)
    return out


def exact(dgp: str, method: str, rep: int, gap: float, checkpoints=None, **values) -> dict:
    """A row of a problem with a known optimum whose x* has normalised gap ``gap`` (%); its
    checkpoints' gaps (None: no incumbent yet) when given."""
    extra = {}
    if checkpoints is not None:
        budget = values.get("budget", 1000)
        extra = dict(cp_fraction=FRACTIONS, cp_draws=[f * budget for f in FRACTIONS],
                     cp_J_exact=[np.nan if g is None else STAR + g / 10 for g in checkpoints])
    return row(dgp, method, rep, J_exact=STAR + gap / 10, J_star_exact=STAR, J_x0=X0,
               **extra, **values)


OPTIMA = pd.DataFrame({"problem": ["dgp1"], "lam": [0.7], "alpha": [0.95], "J_star": [200.0]})


# ---------------------------------------------------------------------------------------------
# The measure


def test_measure_is_the_normalised_gap_where_the_problem_knows_its_optimum():
    frame = pd.DataFrame([exact("lib", "saa-ps", 0, 2.5), exact("lib", "saa-ps", 1, 0.04),
                          row("lib", "cem-so", 0, J_exact=-7.0, J_star_exact=-10.0,
                              J_x0=-4.0)])
    rated = with_quality(frame, OPTIMA)
    assert set(rated["measure"]) == {GAP}
    assert rated["quality"].tolist() == pytest.approx([2.5, 0.04, 100 * 3 / 6], abs=1e-9)


def test_measure_falls_back_to_the_paired_regret_then_the_regret_then_none():
    j_true = np.array([202.0, 210.0])
    floor = np.array([201.0, 199.0])
    paired = pd.DataFrame([row("dgp1", "saa-ps", r, J_true=j_true[r], J_ref_true=floor[r])
                           for r in range(2)])
    rated = with_quality(paired, OPTIMA)
    assert set(rated["measure"]) == {PAIRED}
    assert rated["quality"].tolist() == pytest.approx(100 * (j_true - floor) / 200)
    plain = paired.drop(columns="J_ref_true")
    rated = with_quality(plain, OPTIMA)
    assert set(rated["measure"]) == {REGRET}
    assert rated["quality"].tolist() == pytest.approx(100 * (j_true - 200) / 200)
    # A floor for one replication only: the setting takes the measure every row has.
    partial = paired.assign(J_ref_true=[201.0, np.nan])
    assert set(with_quality(partial, OPTIMA)["measure"]) == {REGRET}
    assert with_quality(plain, None).empty  # no J*, no exact values: no measure
    assert with_quality(plain.assign(J_true=np.nan), OPTIMA).empty


@pytest.mark.parametrize("below", [0.0, 3.0])
def test_no_normalised_gap_where_x0_is_at_or_below_the_optimum(below):
    # J(x0) - J* = -below: a gap of +-inf (or of the wrong sign) would count as solved
    on_sample = pd.DataFrame([row("dgp1", "saa-ps", r, J_true=205.0, J_ref_true=201.0,
                                  J_x0_true=201.0 - below) for r in range(2)])
    rated = with_quality(on_sample, OPTIMA)
    assert set(rated["measure"]) == {PAIRED}  # the next measure every row has
    assert rated["quality"].tolist() == pytest.approx([2.0, 2.0])
    exact_rows = pd.DataFrame([row("lib", "saa-ps", r, J_exact=-5.0, J_star_exact=STAR,
                                   J_x0=STAR - below) for r in range(2)])
    assert with_quality(exact_rows, None).empty  # no measure at all: left out, never solved


def test_a_negative_optimum_scales_the_regret_by_its_magnitude():
    optima = OPTIMA.assign(J_star=-50.0)
    frame = pd.DataFrame([row("dgp1", "saa-ps", 0, J_true=-49.0)])
    assert with_quality(frame, optima)["quality"].tolist() == pytest.approx([2.0])


def test_checkpoints_share_the_definition_with_x0_or_inf_before_the_first_incumbent():
    frame = pd.DataFrame([
        exact("lib", "saa-ps", 0, 0.3, checkpoints=[None, 4.0, 0.3]),
        row("dgp1", "saa-ps", 0, J_true=204.0, J_ref_true=202.0, cp_fraction=FRACTIONS,
            cp_draws=[100.0, 500.0, 1000.0], cp_J_true=[np.nan, 230.0, 204.0]),
    ], index=[7, 7])  # rows of two concatenated tables may share an index label
    rated = with_quality(frame, OPTIMA)
    assert len(checkpoint_quality(rated)) == 2 * len(FRACTIONS)
    points = checkpoint_quality(rated).set_index(["problem", "fraction"])["quality"]
    # the normalised gap: x0 (100) before an incumbent; the paired regret: +inf
    assert points[("lib", 0.1)] == 100.0
    assert points[("lib", 0.5)] == pytest.approx(4.0)
    assert points[("dgp1", 0.1)] == np.inf
    assert points[("dgp1", 0.5)] == pytest.approx(100 * (230 - 202) / 200)
    final = rated.set_index("problem")["quality"]
    for dgp in ("lib", "dgp1"):  # the last checkpoint is x* itself
        assert points[(dgp, 1.0)] == pytest.approx(final[dgp])


def test_results_without_checkpoints_have_no_progress_points():
    frame = pd.DataFrame([exact("lib", "saa-ps", 0, 1.0)])
    assert checkpoint_quality(with_quality(frame)).empty
    older = frame.drop(columns=[c for c in frame.columns if c.startswith("cp_")])
    assert checkpoint_quality(with_quality(older)).empty


# ---------------------------------------------------------------------------------------------
# Progress, area, budget, library

#: Gaps of five replications of one method at the three checkpoints (None: no incumbent).
CURVES = {
    "saa-ps": [[None, 3.0, 0.5], [80.0, 0.8, 0.2], [60.0, 6.0, 0.9], [None, 2.0, 1.5],
               [90.0, 0.4, 0.1]],
    "cem-so": [[50.0, 10.0, 4.0], [40.0, 9.0, 0.7], [70.0, 12.0, 5.0], [30.0, 8.0, 6.0],
               [20.0, 1.0, 0.6]],
}


def curves_frame(dgp: str = "lib", scale: float = 1.0, budget: int = 1000) -> pd.DataFrame:
    return pd.DataFrame([
        exact(dgp, method, rep, scale * gaps[-1],
              checkpoints=[None if g is None else scale * g for g in gaps], budget=budget)
        for method, reps in CURVES.items() for rep, gaps in enumerate(reps)
    ])


def hand(method: str, column: int) -> np.ndarray:
    """One method's gaps at one checkpoint; no incumbent counts as x0, 100."""
    return np.array([100.0 if r[column] is None else r[column] for r in CURVES[method]])


def test_checkpoint_table_medians_worst_and_solved_shares_match_a_hand_count():
    table = checkpoint_table(checkpoint_quality(with_quality(curves_frame())))
    at = table.set_index(["config", "fraction"])
    for method in CURVES:
        for column, f in enumerate(FRACTIONS):
            values = hand(method, column)
            r = at.loc[(method, f)]
            assert r["median"] == pytest.approx(np.median(values))
            assert r["worst"] == pytest.approx(values.max())
            assert r["q25"] == pytest.approx(np.quantile(values, 0.25))
            assert r["solved_1"] == pytest.approx(100 * sum(v <= 1 for v in values) / 5)
            assert r["solved_5"] == pytest.approx(100 * sum(v <= 5 for v in values) / 5)
            assert r["draws"] == 1000 * f
    # by hand, at x*: saa-ps 0.5 0.2 0.9 1.5 0.1 -> 4 of 5 within 1 %; cem-so 0.7 0.6 -> 2
    assert at.loc[("saa-ps", 1.0), "solved_1"] == 80.0
    assert at.loc[("cem-so", 1.0), "solved_1"] == 40.0
    assert at.loc[("cem-so", 1.0), "solved_5"] == 80.0


def test_area_is_the_trapezoid_of_the_medians_with_an_interval_that_holds_it():
    table = area_table(checkpoint_quality(with_quality(curves_frame()))).set_index("config")
    for method in CURVES:
        m = [np.median(hand(method, c)) for c in range(3)]
        by_hand = 0.4 * (m[0] + m[1]) / 2 + 0.5 * (m[1] + m[2]) / 2
        r = table.loc[method]
        assert r["auc"] == pytest.approx(by_hand)
        assert r["auc_lo"] <= r["auc"] <= r["auc_hi"]
        assert (r["span_from"], r["span_to"], r["checkpoints"], r["n"]) == (0.1, 1.0, 3, 5)
    again = area_table(checkpoint_quality(with_quality(curves_frame()))).set_index("config")
    assert again["auc_lo"].equals(table["auc_lo"])  # named streams: the same interval


def test_area_spans_only_the_checkpoints_where_every_median_is_finite():
    # Under a regret a missing incumbent is +inf: saa-ps has none at 10 % in 3 of 5 runs.
    rows = []
    for method, reps in CURVES.items():
        for rep, gaps in enumerate(reps):
            cp = [np.nan if g is None else 200 * (1 + g / 100) for g in gaps]
            if method == "saa-ps" and rep == 2:
                cp[0] = np.nan
            rows.append(row("dgp1", method, rep, J_true=cp[-1], cp_fraction=FRACTIONS,
                            cp_draws=[100.0, 500.0, 1000.0], cp_J_true=cp))
    points = checkpoint_quality(with_quality(pd.DataFrame(rows), OPTIMA))
    table = area_table(points).set_index("config")
    assert (table["span_from"] == 0.5).all() and (table["checkpoints"] == 2).all()
    m = np.median([g[2] for g in CURVES["cem-so"]])
    m_half = np.median([g[1] for g in CURVES["cem-so"]])
    assert table.loc["cem-so", "auc"] == pytest.approx(0.5 * (m_half + m) / 2)
    medians = checkpoint_table(points).set_index(["config", "fraction"])["median"]
    assert medians[("saa-ps", 0.1)] == np.inf


def test_bootstrap_interval_narrows_with_more_replications():
    rng = np.random.default_rng(3)

    def frame(n):
        gaps = rng.lognormal(0, 1, size=(n, 3)) * [40, 4, 0.4]
        return pd.DataFrame([exact("lib", "saa-ps", r, g[2], checkpoints=list(g))
                             for r, g in enumerate(gaps)])

    few, many = (area_table(checkpoint_quality(with_quality(frame(n)))).iloc[0]
                 for n in (8, 200))
    assert many["auc_hi"] - many["auc_lo"] < 0.5 * (few["auc_hi"] - few["auc_lo"])


def test_budget_table_uses_each_budgets_final_decision():
    frame = pd.concat([curves_frame(budget=1000), curves_frame(scale=0.5, budget=4000)],
                      ignore_index=True)
    table = budget_quality_table(with_quality(frame)).set_index(["config", "budget"])
    for method in CURVES:
        final = hand(method, 2)
        assert table.loc[(method, 1000), "median"] == pytest.approx(np.median(final))
        assert table.loc[(method, 4000), "median"] == pytest.approx(np.median(final / 2))
        assert table.loc[(method, 4000), "worst"] == pytest.approx(final.max() / 2)


def library_frame() -> pd.DataFrame:
    """Median gaps by problem (rows of 3 replications: the median is the middle one)."""
    medians = {  # problem: (saa-ps, cem-so, kde-so)
        "p-a": (0.5, 0.8, 30.0),
        "p-b": (2.0, 0.3, 2.0),
        "p-c": (0.1, 6.0, 4.0),
    }
    rows = []
    for problem, gaps in medians.items():
        for method, g in zip(("saa-ps", "cem-so", "kde-so"), gaps, strict=True):
            for rep, factor in enumerate((0.5, 1.0, 3.0)):  # worst = 3 x median
                rows.append(exact(problem, method, rep, g * factor))
    return pd.DataFrame(rows)


def test_library_ranking_and_solved_shares_match_a_hand_computation():
    gaps = library_gap_table(with_quality(library_frame()))
    ranks = gaps.set_index(["problem", "config"])["rank"]
    assert ranks[("p-b", "saa-ps")] == ranks[("p-b", "kde-so")] == 2.5  # a tie
    ranking = library_ranking_table(gaps).set_index("config")
    # ranks: saa-ps 1, 2.5, 1; cem-so 2, 1, 3; kde-so 3, 2.5, 2
    assert ranking["mean_rank"].to_dict() == pytest.approx(
        {"saa-ps": 4.5 / 3, "cem-so": 2.0, "kde-so": 7.5 / 3})
    assert list(ranking.index) == ["cem-so", "kde-so", "saa-ps"]  # every table's order
    from acfs_cli.report import quality_figures

    # and the library's figure: its legend and colours in the same order
    assert [c for c, _ in quality_figures._methods(gaps)] == list(ranking.index)
    assert list(quality_figures.method_colours(gaps)) == list(ranking.index)
    assert (ranking["problems"] == 3).all() and (ranking["of"] == 3).all()
    # medians within 1 %: saa-ps 0.5, 0.1; cem-so 0.8, 0.3; kde-so none; within 5 %: ...
    assert ranking.loc["saa-ps", "solved_1_median"] == pytest.approx(200 / 3)
    assert ranking.loc["cem-so", "solved_5_median"] == pytest.approx(200 / 3)
    assert ranking.loc["kde-so", "solved_5_median"] == pytest.approx(200 / 3)
    # worst = 3 x median: saa-ps 1.5, 6, 0.3 -> one within 1 %, two within 5 %
    assert ranking.loc["saa-ps", "solved_1_worst"] == pytest.approx(100 / 3)
    assert ranking.loc["saa-ps", "solved_5_worst"] == pytest.approx(200 / 3)
    assert ranking.loc["kde-so", "solved_1_worst"] == 0.0


def test_library_tables_cover_only_problems_with_exact_optima():
    frame = pd.concat([library_frame(), pd.DataFrame([
        row("dgp1", "saa-ps", r, J_true=201.0, J_ref_true=200.0) for r in range(3)])])
    gaps = library_gap_table(with_quality(frame, OPTIMA))
    assert sorted(gaps["problem"].unique()) == ["p-a", "p-b", "p-c"]


# ---------------------------------------------------------------------------------------------
# The report


def report(paths, root, **options) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=200, color_system=None)
    options = {"latex": True, "csv": True, "figures": False, **options}
    assert report_experiments(paths, results_root=root, console=console, **options) == 0
    return buffer.getvalue()


def folder_of(root, name: str, frame: pd.DataFrame):
    folder = root / name
    folder.mkdir()
    frame.to_parquet(folder / "results.parquet")
    return folder


def test_quality_numbers_keep_two_or_three_significant_digits_and_show_no_answer():
    from acfs_cli.report.quality_views import median_worst, quality_value

    shown = {v: quality_value(v) for v in (1637.2, 52.4, 6.47, 0.996, 0.0412, -0.05, np.inf)}
    assert [c.plain for c in shown.values()] == ["1,637", "52", "6.5", "1.0", "0.04", "-0.05",
                                                 "inf"]
    assert shown[1637.2].latex == "1{,}637" and shown[-0.05].latex == "$-$0.05"
    assert shown[np.inf].latex == r"$\infty$"
    assert median_worst(0.11, 2.0, "bold").plain == "0.11 / 2.0"
    assert median_worst(np.nan, np.nan).plain == "-"


def test_report_writes_each_table_where_the_data_allow_it(tmp_path):
    budgets = pd.concat([curves_frame(budget=1000), curves_frame(scale=0.5, budget=4000),
                         curves_frame("lib-2", 2.0, 1000), curves_frame("lib-2", 1.0, 4000)],
                        ignore_index=True)
    with_axis = folder_of(tmp_path, "axis", budgets)
    no_checkpoints = folder_of(tmp_path, "plain", library_frame().drop(
        columns=[c for c in COLUMNS if c.startswith("cp_")]))
    out = report([with_axis, no_checkpoints], tmp_path)
    tables = {p.name for p in (with_axis / "tables").iterdir()}
    for stem in ("quality_checkpoints", "progress_auc", "quality_budget", "library_gap",
                 "library_rank", "budget1000_summary", "budget4000_summary"):
        assert {f"{stem}.tex", f"{stem}.csv"} <= tables, stem
    assert not any(n.startswith(("summary", "full")) for n in tables)  # no mixed budgets
    assert {p.stem for p in (no_checkpoints / "tables").iterdir()} >= {"library_gap",
                                                                        "library_rank"}
    assert not any(p.stem.startswith(("quality", "progress"))
                   for p in (no_checkpoints / "tables").iterdir())
    text = " ".join(out.split())
    # the title names the measure
    assert "Normalised gap % at each share of the budget" in text and "budget 4,000" in text
    # one configuration with a budget axis, every budget's cells expected
    assert "2 budgets" in text and "40 cells: 40 complete, 0 failed, 0 missing" in text
    csv = pd.read_csv(with_axis / "tables" / "quality_budget.csv")
    assert set(csv["budget"]) == {1000, 4000} and set(csv["measure"]) == {"gap"}
    for path in (with_axis / "tables").glob("*.tex"):
        tex = path.read_text()
        assert braces_balance(tex), path.name
        spec = re.search(r"\\begin\{tabular\}\{@\{\}([lrc]+)@\{\}\}", tex).group(1)
        body = tex.split(r"\toprule")[1].split(r"\bottomrule")[0]
        lines = [line for line in body.splitlines() if line.endswith(r"\\")]
        assert all(latex_columns(line) == len(spec) for line in lines), path.name
        assert all(line.count("$") % 2 == 0 for line in tex.splitlines()), path.name


def test_report_names_the_settings_left_out_for_want_of_a_measure(tmp_path):
    unrated = pd.DataFrame([row("dgp1(sample_only=true)", m, r) for m in CURVES
                            for r in range(5)])
    folder = folder_of(tmp_path, "mixed", pd.concat([curves_frame(), unrated],
                                                    ignore_index=True))
    text = " ".join(report([folder], tmp_path, latex=False, csv=False).split())
    assert ("no quality measure for DGP1(sample_only=true) lambda=0.70 (no exact optimum, "
            "and no large-sample J with a reference optimum)") in text
    assert "Normalised gap % at each share of the budget" in text


def test_older_results_get_none_of_the_quality_tables(tmp_path):
    # a table of an older version: none of the columns beyond the required ones
    older = curves_frame().drop(columns=[c for c in COLUMNS if c not in REQUIRED])
    folder = folder_of(tmp_path, "old", older)
    report([folder], tmp_path, figures=True)
    written = {p.stem for p in folder.rglob("*.*") if p.parent.name in ("tables", "figures")}
    # no recommended method: the lowest median is the baseline, so Wilcoxon tests too
    assert written == {"summary", "full", "budget", "boxplot", "wilcoxon", "answers"}


def test_quality_figures_are_written_where_the_data_allow_them(tmp_path):
    frame = pd.concat([curves_frame(budget=1000), curves_frame(scale=0.5, budget=4000),
                       curves_frame("lib-2", 2.0, 1000), curves_frame("lib-2", 1.0, 4000)],
                      ignore_index=True)
    folder = folder_of(tmp_path, "axis", frame)
    report([folder], tmp_path, latex=False, csv=False, figures=True)
    figures = {p.name for p in (folder / "figures").iterdir()}
    for stem in ("progress_curves", "solvability_draws_1pct", "solvability_draws_5pct",
                 "quality_budget", "solvability_budget_1pct", "solvability_budget_5pct",
                 "library_profile"):
        assert {f"{stem}.png", f"{stem}.pdf"} <= figures, stem
    assert (folder / "figures" / "progress_curves.png").read_bytes()[:4] == b"\x89PNG"


# ---------------------------------------------------------------------------------------------
# The end-of-run summary and one run end to end


def test_run_summary_shows_budgets_and_the_median_normalised_gap(capsys):
    from acfs_cli.cli.run import print_summary

    frame = pd.concat([library_frame().assign(budget=1000),
                       library_frame().assign(budget=4000)], ignore_index=True)
    cells = [type("Cell", (), {"label": m})() for m in ("saa-ps", "cem-so", "kde-so")]
    print_summary(frame, cells)
    lines = capsys.readouterr().out.splitlines()
    assert "Results (medians over replications) at lambda 0.7" in lines[0]
    assert "J on the common pool" in " ".join(" ".join(lines[:2]).split())  # draws unknown
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["problem"])
    header = lines[at].split()
    assert header[:3] == ["problem", "budget", "method"] and "gap" in header
    assert "failed" not in header  # no failed cell, no column
    first = lines[at + 2].split()  # p-a, budget 1,000, SAA-PS: median gap 0.50
    assert first[:3] == ["p-a", "1,000", "SAA-PS"] and "0.50" in first
    assert max(len(line) for line in lines) <= 80


def test_a_small_run_reports_progress_budget_and_library_end_to_end(tmp_path, monkeypatch):
    config = {
        "name": "tiny-quality", "seed": 3, "budget": 5000, "replications": 2, "n_jobs": 1,
        "checkpoints": [0.25, 0.5, 1], "final_eval": {"draws": 600, "bootstrap": 50},
        "grid": {"problem": ["huff-location", {"problem": "performative-pricing",
                                           "params": {"dim": 2}}],
                 "lambda": 0.7, "budget": [5000, 8000], "method": ["saa-ps", "cem-so"]},
    }
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    run = runner.invoke(app, ["run", str(path), "--output", "out", "--quiet"])
    assert run.exit_code == 0, run.output
    assert "gap %" in run.stdout and "8,000" in run.stdout
    done = runner.invoke(app, ["report", "out", "--csv", "--no-figures"])
    assert done.exit_code == 0, done.output
    checkpoints = pd.read_csv(tmp_path / "out" / "tables" / "quality_checkpoints.csv")
    assert set(checkpoints["fraction"]) == {0.25, 0.5, 1.0}
    assert set(checkpoints["problem"]) == {"huff-location", "performative-pricing(dim=2)"}
    final = checkpoints[checkpoints["fraction"] == 1.0].set_index(["problem", "budget", "config"])
    budget = pd.read_csv(tmp_path / "out" / "tables" / "quality_budget.csv").set_index(
        ["problem", "budget", "config"])
    # x* is the last checkpoint: the two tables agree
    assert np.allclose(final["median"], budget.loc[final.index, "median"])
    ranking = pd.read_csv(tmp_path / "out" / "tables" / "library_rank.csv")
    assert set(ranking["budget"]) == {5000, 8000}
    assert all(math.isclose(ranking.groupby("budget")["mean_rank"].sum()[b], 3.0)
               for b in (5000, 8000))  # two methods: ranks 1 and 2


def test_budget_quality_counts_the_answers_shown_feasible_and_the_layout_shows_them():
    from acfs_cli.report.quality_views import budget_quality_layout

    verdicts = ["feasible", "feasible", "not established", "infeasible"]
    frame = pd.DataFrame([exact("lib", "auto", rep, gap=float(rep), feasible=v)
                          for rep, v in enumerate(verdicts)]
                         + [exact("lib", "plain", rep, gap=1.0) for rep in range(4)])
    table = budget_quality_table(with_quality(frame, OPTIMA))
    counts = table.set_index("config")[["shown_feasible", "constrained"]]
    assert counts.loc["auto"].tolist() == [2, 4] and counts.loc["plain"].tolist() == [0, 0]
    text = " ".join(cell.plain for r in budget_quality_layout(table).rows for cell in r.cells)
    assert "[2/4]" in text and text.count("[") == 1  # the unconstrained method has no mark
