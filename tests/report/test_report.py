"""The report (paper Section 5, Appendix A; DESIGN.md section 6) on hand-built results tables.

Run this file as a script to time a report of 3,000 synthetic replications:
``.venv/bin/python tests/report/test_report.py``.
"""

from __future__ import annotations

import ast
import importlib.util
import io
import json
import os
import re
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

from acfs_cli.report import (
    ResultsError,
    ablation_table,
    budget_table,
    method_statistics,
    read_results,
    report_experiments,
    sensitivity_defaults,
    sensitivity_table,
    true_gap_table,
    wilcoxon_table,
)
from acfs_cli.report.layout import interval, number, percent_gap, pvalue, signed_number
from acfs_cli.report.render import to_latex
from acfs_cli.report.stats import holm
from acfs_cli.report.tables import ORACLE
from acfs_cli.report.views import summary_layout
from acfs_cli.results.schema import COLUMNS

DATA = Path(__file__).parent / "data"
#: The methods' display names, as their rows carry them.
DISPLAY = {"acfs": "ACFS", "gp-bo": "GP-BO", "cem-so": "CEM-SO", "sgd-cvar": "SGD-CVaR",
           "kde-so": "KDE-SO", "acfs-noav": "ACFS-NoAV", "acfs-nocem": "ACFS-NoCEM",
           "acfs-noaug": "ACFS-NoAug", "acfs-norerank": "ACFS-NoRerank", "saa-ps": "SAA-PS"}


# ---------------------------------------------------------------------------------------------
# Hand-built results tables


def cell(method: str, rep: int, j: float, **values) -> dict:
    """One results row with every schema column; a NaN ``j`` makes a failed cell."""
    empty = {"float64": np.nan, "string": "", "int64": 0, "bool": False, "list<float64>": None}
    row = {c: empty[t] for c, t in COLUMNS.items()}
    failed = not np.isfinite(j)
    row.update(
        experiment="hand",
        kind="comparison",
        cell_id="-".join(
            str(values.get(k, default))
            for k, default in (("problem", "dgp1"), ("lam", 0.7), ("varied_value", ""))
        )
        + f"-{method}-{rep}",
        problem="dgp1",
        lam=0.7,
        alpha=0.95,
        method=method,
        method_display=DISPLAY.get(method, method),
        label=method,
        rep=rep,
        seed=1,
        J=j,
        EC=j / 4,
        CVaR=1.5 * j,
        oracle_draws=1000 * (rep + 1),
        budget=260_000,
        status="error" if failed else "ok",
        error="ValueError: boom" if failed else "",
    )
    row.update(values)
    return row


def results(j_by_method: dict[str, list], **values) -> pd.DataFrame:
    """Rows for each method and replication; ``None`` leaves a cell out (missing)."""
    rows = [
        cell(method, rep, float(j), **values)
        for method, js in j_by_method.items()
        for rep, j in enumerate(js)
        if j is not None
    ]
    return pd.DataFrame(rows)


def experiment(root: Path, name: str, frame: pd.DataFrame) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    frame.to_parquet(folder / "results.parquet")
    return folder


def quiet_console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=200, color_system=None), buffer


def report(paths, root: Path, **options) -> tuple[int, str]:
    console, buffer = quiet_console()
    options = {"latex": False, "csv": False, "figures": False, **options}
    code = report_experiments(paths, results_root=root, console=console, **options)
    return code, buffer.getvalue()


REF_BETTER = {"acfs": [10.0, 11.0, 12.0, 13.0, 14.0, 15.0], "gp-bo": [11, 13, 15, 17, 19, 21]}


# ---------------------------------------------------------------------------------------------
# Statistics tables


def test_win_rate_is_100_and_r_rb_is_1_when_reference_better_in_every_replication():
    tests = wilcoxon_table(results(REF_BETTER))
    row = tests.iloc[0]
    assert row["win_pct"] == 100.0
    assert row["r_rb"] == 1.0
    # Exact test, every difference negative: p = 1 / 2^6; one comparison, so Holm changes nothing.
    assert row["test"] == "exact"
    assert row["p"] == pytest.approx(1 / 64)
    assert row["p_holm"] == pytest.approx(1 / 64)
    assert row["stars"] == "*"
    assert row["med_diff"] == pytest.approx(-3.5)
    assert row["ci_lo"] <= row["med_diff"] <= row["ci_hi"] < 0


def test_summary_statistics_match_hand_computation():
    stats = method_statistics(results({"acfs": [1, 2, 3, 6], "gp-bo": [3, 4, 5, 4]}))
    acfs = stats.set_index("config").loc["acfs"]
    gp = stats.set_index("config").loc["gp-bo"]
    assert acfs["J_med"] == 2.5
    assert acfs["J_SD"] == pytest.approx(np.std([1, 2, 3, 6], ddof=1))
    assert (acfs["J_Q25"], acfs["J_Q75"]) == (1.75, 3.75)  # R's type-7 quantiles
    assert acfs["EC_med"] == pytest.approx(2.5 / 4)
    assert gp["diff_pct"] == pytest.approx(100 * (4 - 2.5) / 2.5)
    assert acfs["diff_pct"] == 0.0 and acfs["is_reference"]
    assert gp["sigma_ratio"] == pytest.approx(np.std([3, 4, 5, 4], ddof=1) / acfs["J_SD"])


def _orders(frame: pd.DataFrame) -> dict[str, list[str]]:
    """The configurations' order in each table of a two-problem frame, per table and setting."""
    stats = method_statistics(frame, reference="gp-bo")
    true = true_gap_table(with_true_j(frame))
    tests = wilcoxon_table(frame, reference="gp-bo")
    out = {}
    for problem in ("dgp1", "dgp2"):
        out[f"statistics {problem}"] = list(stats.loc[stats["problem"] == problem, "config"])
        out[f"large-sample J {problem}"] = list(true.loc[true["problem"] == problem, "config"])
        # the tests compare the reference (gp-bo) with the others, in the same order
        out[f"tests {problem}"] = list(tests.loc[tests["problem"] == problem, "config"])
    summary = summary_layout(stats, ORACLE, "gp-bo")
    out["summary"] = [row.cells[0].plain for row in summary.rows]
    return out


def test_every_table_lists_the_methods_in_one_order_the_configurations(tmp_path):
    # The medians order the methods differently on the two problems; every table keeps one
    # order: the configuration's (kde-so, gp-bo, acfs, as its manifest lists them), else the
    # paper's (acfs, gp-bo, kde-so).
    medians = {"dgp1": {"acfs": 5, "gp-bo": 3, "kde-so": 9},
               "dgp2": {"acfs": 2, "gp-bo": 7, "kde-so": 1}}
    frame = pd.concat([results({m: [j, j + 1, j + 2, j + 1, j, j + 2] for m, j in js.items()},
                               problem=problem) for problem, js in medians.items()],
                      ignore_index=True)
    paper = ["acfs", "gp-bo", "kde-so"]
    names = {"acfs": "ACFS", "gp-bo": "GP-BO", "kde-so": "KDE-SO"}
    def expected(table, order):
        if table.startswith("tests"):
            return [m for m in order if m != "gp-bo"]
        return [names[m] for m in order] if table == "summary" else order

    for table, order in _orders(frame).items():
        assert order == expected(table, paper), table
    # a folder whose manifest says the configuration's order
    from acfs_cli.results.manifest import Manifest

    folder = experiment(tmp_path, "hand", frame)
    configured = ["kde-so", "gp-bo", "acfs"]
    (folder / "manifest.json").write_text(Manifest(
        "hand", "s", frozenset(frame["cell_id"]), "", tuple(configured)).to_json())
    rows = read_results(folder)
    assert list(rows["method_order"].drop_duplicates().sort_values()) == [0.0, 1.0, 2.0]
    for table, order in _orders(rows).items():
        assert order == expected(table, configured), table


def test_holm_is_applied_within_each_dgp_lambda_block():
    rng = np.random.default_rng(0)
    blocks = []
    for lam in (0.5, 0.9):
        base = rng.normal(10, 1, 12)
        js = {"acfs": base, "gp-bo": base + rng.normal(0.4, 1, 12), "cem-so": base + 1.0}
        blocks.append(results(js, lam=lam))
    tests = wilcoxon_table(pd.concat(blocks))
    assert len(tests) == 4
    for _, block in tests.groupby("lam"):
        assert block["p_holm"].to_numpy() == pytest.approx(holm(block["p"].to_numpy()))


def test_paired_tests_use_only_replications_complete_for_both_methods():
    frame = results(
        {
            "acfs": [np.nan, 1.0, 2.0, 3.0, 4.0, 5.0],  # rep 0 failed
            "gp-bo": [0.0, None, 3.0, 5.0, 7.0, 9.0],  # rep 1 missing
        }
    )
    row = wilcoxon_table(frame).iloc[0]
    assert row["n_pairs"] == 4
    assert row["med_diff"] == pytest.approx(np.median([2 - 3, 3 - 5, 4 - 7, 5 - 9]))
    assert row["win_pct"] == 100.0
    # The summary still uses every usable replication of each method.
    stats = method_statistics(frame).set_index("config")
    assert stats.loc["acfs", "n"] == 5 and stats.loc["gp-bo", "n"] == 5


def test_wilcoxon_table_skips_settings_without_the_reference():
    assert wilcoxon_table(results({"gp-bo": [1, 2], "cem-so": [2, 3]})).empty


def test_budget_table_reports_median_oracle_draws():
    table = budget_table(results(REF_BETTER)).set_index("config")
    assert table.loc["acfs", "draws_med"] == 3500.0  # median of 1000..6000
    assert table.loc["acfs", "share_pct"] == pytest.approx(100 * 3500 / 260_000)


def test_ablation_compares_variants_with_the_full_method():
    full = np.arange(10.0, 20.0)
    frame = results(
        {"acfs": full, "acfs-noav": full + 1.0, "acfs-noaug": 2 * full - 10.0}, kind="ablation"
    )
    table = ablation_table(frame).set_index("config")
    assert table.loc["acfs", "name"] == "ACFS-Full"
    assert table.loc["acfs", "sigma_ratio"] == 1.0
    assert table.loc["acfs-noaug", "sigma_ratio"] == pytest.approx(2.0)
    assert table.loc["acfs-noav", "diff_pct"] == pytest.approx(100 * 1.0 / 14.5)
    raw = table.loc[["acfs-noav", "acfs-noaug"], "p"].to_numpy()
    assert table.loc[["acfs-noav", "acfs-noaug"], "p_holm"].to_numpy() == pytest.approx(holm(raw))


def sensitivity_frame(default_n_a: float = 1000.0) -> pd.DataFrame:
    """n_a in {800, default, 1600} and k in {2, 4, 6}: each row names the varied parameter's
    value at the study's base point (``varied_default``) and holds it in ``p_<param>``."""
    rows = []
    defaults = {"n_a": default_n_a, "k": 4.0}
    for parameter, grid in (("n_a", (800.0, default_n_a, 1600.0)), ("k", (2.0, 4.0, 6.0))):
        for value in grid:
            settings = {**defaults, parameter: value}
            for rep in range(4):
                rows.append(
                    cell(
                        "acfs",
                        rep,
                        100.0 + value / 100 + rep,
                        kind="sensitivity",
                        varied=parameter,
                        varied_value=value,
                        varied_default=defaults[parameter],
                        settings=json.dumps(settings, sort_keys=True),
                        **{f"p_{parameter}": value},
                    )
                )
    return pd.DataFrame(rows)


def test_sensitivity_default_is_read_from_the_rows():
    frame = sensitivity_frame(default_n_a=1000.0)
    assert sensitivity_defaults(frame) == {"k": 4.0, "n_a": 1000.0}
    table = sensitivity_table(frame)
    marked = table[table["is_default"]].set_index("parameter")["value"]
    assert marked.to_dict() == {"n_a": 1000.0, "k": 4.0}
    assert list(table["parameter"]) == ["n_a"] * 3 + ["k"] * 3  # the paper's order


def test_a_single_parameter_study_knows_its_default_from_its_own_rows():
    frame = sensitivity_frame()
    only_k = frame[frame["varied"] == "k"]
    assert sensitivity_defaults(only_k) == {"k": 4.0}


def with_true_j(frame: pd.DataFrame, factor: float = 1.1) -> pd.DataFrame:
    return frame.assign(J_true=frame["J"] * factor, EC_true=frame["EC"], CVaR_true=frame["CVaR"])


def test_true_gap_uses_the_reference_optimum_when_present():
    frame = with_true_j(results(REF_BETTER))
    optima = pd.DataFrame({"problem": ["dgp1"], "lam": [0.7], "alpha": [0.95], "J_star": [10.0]})
    table = true_gap_table(frame, optima).set_index("config")
    acfs = table.loc["acfs"]
    assert acfs["best_source"] == "J*"
    assert acfs["regret_med_pct"] == pytest.approx(100 * (1.1 * 12.5 - 10) / 10)
    assert acfs["regret_max_pct"] == pytest.approx(100 * (1.1 * 15 - 10) / 10)


def test_paired_regret_subtracts_the_reference_on_the_same_normals():
    frame = with_true_j(results(REF_BETTER))
    frame["J_ref_true"] = frame["J_true"] - 0.5 * (frame["rep"] + 1)  # 0.5, 1.0, ... per rep
    optima = pd.DataFrame({"problem": ["dgp1"], "lam": [0.7], "alpha": [0.95], "J_star": [10.0]})
    table = true_gap_table(frame, optima).set_index("config")
    reps = np.sort(frame["rep"].unique())
    expected = 100 * 0.5 * (reps + 1) / 10
    assert table.loc["acfs", "paired_med_pct"] == pytest.approx(np.median(expected))
    assert table.loc["acfs", "paired_max_pct"] == pytest.approx(expected.max())
    unpaired = true_gap_table(with_true_j(results(REF_BETTER)), optima)
    assert np.isnan(unpaired["paired_med_pct"]).all()


def test_true_gap_falls_back_to_the_lowest_median_of_the_setting():
    table = true_gap_table(with_true_j(results(REF_BETTER))).set_index("config")
    assert (table["best_source"] == "best median").all()
    assert table.loc["acfs", "regret_med_pct"] == 0.0
    assert table.loc["gp-bo", "regret_med_pct"] == pytest.approx(100 * (16 - 12.5) / 12.5)


# ---------------------------------------------------------------------------------------------
# Reading results


def test_reader_prefers_a_consolidated_table_newer_than_every_cell(tmp_path):
    folder = tmp_path / "exp"
    (folder / "cells").mkdir(parents=True)
    frame = results(REF_BETTER)
    for i in range(len(frame)):
        frame.iloc[[i]].to_parquet(folder / "cells" / f"{frame['cell_id'][i]}.parquet")
    frame.assign(J=frame["J"] + 100).to_parquet(folder / "results.parquet")
    future = time.time() + 60
    os.utime(folder / "results.parquet", (future, future))
    assert read_results(folder)["J"].min() == 110.0


def test_reader_reads_cells_newer_than_the_consolidated_table(tmp_path):
    folder = tmp_path / "exp"
    (folder / "cells").mkdir(parents=True)
    frame = results(REF_BETTER)
    frame.assign(J=frame["J"] + 100).to_parquet(folder / "results.parquet")
    os.utime(folder / "results.parquet", (0, 0))
    for i, row in frame.iterrows():
        # Cells of different methods carry different parameter columns.
        frame.iloc[[i]].assign(**{f"p_{row['method']}": 1.0}).to_parquet(
            folder / "cells" / f"{row['cell_id']}.parquet"
        )
    table = read_results(folder)
    assert table["J"].min() == 10.0
    assert {"p_acfs", "p_gp-bo"} <= set(table.columns)


def test_reader_names_the_missing_columns_in_one_line(tmp_path):
    folder = experiment(tmp_path, "exp", results(REF_BETTER).drop(columns=["J", "status"]))
    with pytest.raises(ResultsError, match=r"missing J, status\)$"):
        read_results(folder)
    code, out = report([folder], tmp_path)
    assert code == 2 and len(out.strip().splitlines()) == 1


# ---------------------------------------------------------------------------------------------
# The entry point


def test_report_states_how_many_cells_are_missing_or_failed(tmp_path):
    frame = results({"acfs": [1.0, np.nan, 3.0, 4.0], "gp-bo": [2.0, 3.0, None, 5.0]})
    code, out = report([experiment(tmp_path, "exp", frame)], tmp_path)
    assert code == 0
    assert "8 cells: 6 complete, 1 failed, 1 missing" in out
    assert "failed: DGP1 lambda=0.70 ACFS rep 1: ValueError: boom" in out
    assert re.search(r"GP-BO .* 2 *$", out, re.M)  # two complete pairs


def test_experiment_whose_cells_all_failed_reports_counts_without_tables(tmp_path):
    frame = results({"acfs": [np.nan, np.nan], "gp-bo": [np.nan, np.nan]})
    code, out = report([experiment(tmp_path, "exp", frame)], tmp_path, figures=True)
    assert code == 0
    assert "4 cells: 0 complete, 4 failed, 0 missing" in out
    assert "no complete cells in the comparison study" in out
    assert not (tmp_path / "exp" / "figures").exists()


@pytest.mark.parametrize("make", ["empty", "absent"])
def test_empty_or_absent_folder_exits_2_with_one_line(tmp_path, make):
    folder = tmp_path / "exp"
    if make == "empty":
        folder.mkdir()
    code, out = report([folder], tmp_path)
    assert code == 2
    assert len(out.strip().splitlines()) == 1


def test_no_experiment_under_the_results_root_exits_2_with_one_line(tmp_path):
    (tmp_path / "reference").mkdir()
    pd.DataFrame({"problem": ["dgp1"], "lam": [0.7], "alpha": [0.95], "J_star": [1.0]}).to_parquet(
        tmp_path / "reference" / "reference.parquet"
    )
    code, out = report([], tmp_path)
    assert code == 2
    assert out.strip() == f"no results under {tmp_path}/ (run an experiment first)"


def test_every_experiment_under_the_root_is_reported_but_the_reference(tmp_path):
    for name in ("first", "second", "reference"):
        experiment(tmp_path, name, results(REF_BETTER))
    code, out = report([], tmp_path)
    assert code == 0
    titles = re.findall(r"─ (\w+) ─", out)
    assert titles == ["first", "second"]


def test_an_experiment_name_resolves_under_the_results_root(tmp_path):
    experiment(tmp_path, "exp", results(REF_BETTER))
    code, _ = report([Path("exp")], tmp_path)
    assert code == 0


def test_latex_and_csv_tables_are_written_per_kind(tmp_path):
    comparison = experiment(tmp_path, "cmp", with_true_j(results(REF_BETTER)))
    ablation = experiment(
        tmp_path, "abl", results({"acfs": [1, 2, 3], "acfs-noav": [2, 3, 4]}, kind="ablation")
    )
    sensitivity = experiment(tmp_path, "sens", sensitivity_frame())
    code, _ = report([comparison, ablation, sensitivity], tmp_path, latex=True, csv=True)
    assert code == 0
    names = {p.name for p in (comparison / "tables").iterdir()}
    for table in ("summary", "full", "wilcoxon", "budget", "summary_true", "true_gap",
                  "answers"):
        assert {f"{table}.tex", f"{table}.csv"} <= names
    assert {p.stem for p in (ablation / "tables").iterdir()} == {"ablation", "wilcoxon", "budget",
                                                                 "answers"}
    assert {p.name for p in (sensitivity / "tables").iterdir()} == {
        "sensitivity.tex",
        "sensitivity.csv",
    }
    csv = pd.read_csv(comparison / "tables" / "wilcoxon.csv")
    assert csv.loc[0, "win_pct"] == 100.0


def test_figures_are_written_as_png_and_pdf(tmp_path):
    comparison = experiment(tmp_path, "cmp", results(REF_BETTER))
    sensitivity = experiment(tmp_path, "sens", sensitivity_frame())
    code, _ = report([comparison, sensitivity], tmp_path, figures=True)
    assert code == 0
    assert {p.name for p in (comparison / "figures").iterdir()} == {"boxplot.png", "boxplot.pdf"}
    assert {p.name for p in (sensitivity / "figures").iterdir()} == {
        "sensitivity.png",
        "sensitivity.pdf",
    }
    assert (comparison / "figures" / "boxplot.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(("sign", "scale"), [(1.0, "log"), (-1.0, "linear")])
def test_box_plots_of_j_use_a_log_axis_only_when_every_j_is_positive(tmp_path, monkeypatch,
                                                                    sign, scale):
    from acfs_cli.report import figures

    drawn = []
    monkeypatch.setattr(figures, "_save", lambda fig, stem: drawn.append(fig) or [])
    frame = results({m: [sign * j for j in js] for m, js in REF_BETTER.items()})
    figures.comparison_boxplots(frame, tmp_path / "boxplot")
    (ax,) = [a for a in drawn[0].axes if a.has_data()]
    assert ax.get_yscale() == scale
    low, high = ax.get_ylim()  # a profit written as a negative cost is drawn, not clipped
    values = sign * np.array([10.0, 21.0])
    assert low <= values.min() and values.max() <= high


def test_paired_regret_figure_needs_the_floor_and_the_reference_optima(tmp_path):
    frame = with_true_j(results(REF_BETTER))
    folder = experiment(tmp_path, "cmp", frame)
    code, _ = report([folder], tmp_path, figures=True)
    assert code == 0 and not (folder / "figures" / "regret.png").exists()
    (tmp_path / "reference").mkdir()
    pd.DataFrame({"problem": ["dgp1"], "lam": [0.7], "alpha": [0.95], "J_star": [10.0]}).to_parquet(
        tmp_path / "reference" / "reference.parquet")
    keys = frame[["problem", "lam", "alpha", "seed", "rep"]].drop_duplicates()
    keys.assign(n=200_000, J_ref_true=10.5).to_parquet(folder / "reference_floor.parquet")
    code, _ = report([folder], tmp_path, figures=True)
    assert code == 0
    assert (folder / "figures" / "regret.png").read_bytes()[:4] == b"\x89PNG"
    assert (folder / "figures" / "regret.pdf").exists()


def test_terminal_report_has_one_row_per_method(tmp_path):
    frame = results({"acfs": [1, 2, 3], "gp-bo": [2, 3, 4], "kde-so": [5, 6, 7]})
    code, out = report([experiment(tmp_path, "exp", frame)], tmp_path)
    summary = out.split("Summary of J")[1].split("Full statistics")[0]
    assert [m for m in ("ACFS", "GP-BO", "KDE-SO") if re.search(rf"\b{m}\b", summary)] == [
        "ACFS",
        "GP-BO",
        "KDE-SO",
    ]
    assert len(re.findall(r"^ .*\d+\.\d\d *$", summary, re.M)) == 3


def module_spec(name: str):
    """The import spec of ``name``, or None when it names no module (an attribute, say)."""
    try:
        return importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return None


def imported_project_modules(module: str, seen: set[str] | None = None) -> set[str]:
    """Every ``acfs_cli`` module reachable from ``module`` through import statements, including
    imports inside functions (read from the source, so nothing is executed)."""
    seen = set() if seen is None else seen
    if module in seen:
        return seen
    seen.add(module)
    spec = module_spec(module)
    if spec is None or spec.origin is None:
        return seen
    tree = ast.parse(Path(spec.origin).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name.startswith("acfs_cli") and module_spec(name) is not None:
                imported_project_modules(name, seen)
    return seen


def test_report_and_stats_never_import_methods_or_problems():
    reached = imported_project_modules("acfs_cli.report") | imported_project_modules(
        "acfs_cli.report.figures"
    )
    assert "acfs_cli.report.stats" in reached and "acfs_cli.report.views" in reached
    assert not {m for m in reached if m.startswith(("acfs_cli.methods", "acfs_cli.problems"))}


# ---------------------------------------------------------------------------------------------
# LaTeX


def latex_columns(line: str) -> int:
    """Columns a tabular row fills: cells separated by & plus the extra width of multicolumns."""
    separators = len(re.findall(r"(?<!\\)&", line))
    spans = sum(int(k) - 1 for k in re.findall(r"\\multicolumn\{(\d+)\}", line))
    return separators + 1 + spans


def braces_balance(tex: str) -> bool:
    depth, i = 0, 0
    while i < len(tex):
        if tex[i] == "\\":
            i += 2  # an escaped character, \{ or \\ included
            continue
        depth += {"{": 1, "}": -1}.get(tex[i], 0)
        if depth < 0:
            return False
        i += 1
    return depth == 0


def small_comparison() -> pd.DataFrame:
    js = {
        "acfs": [100.0, 120.0, 140.0, 160.0, 180.0],
        "gp-bo": [1_150.0, 1_250.0, 1_350.0, 1_450.0, 1_550.0],
        "cem-so": [90.0, 110.0, 130.0, 150.0, 170.0],
    }
    shifted = {m: [2 * j + 1000 for j in v] for m, v in js.items()}
    return pd.concat([results(js), results(shifted, problem="dgp2")], ignore_index=True)


def test_latex_table_is_compiles_shaped(tmp_path):
    folder = experiment(tmp_path, "exp", small_comparison())
    report([folder], tmp_path, latex=True)
    for path in (folder / "tables").glob("*.tex"):
        tex = path.read_text()
        assert braces_balance(tex), path.name
        assert tex.count(r"\begin{") == tex.count(r"\end{"), path.name
        for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
            assert rule in tex, (path.name, rule)
        spec = re.search(r"\\begin\{tabular\}\{@\{\}([lrc]+)@\{\}\}", tex).group(1)
        body = tex.split(r"\toprule")[1].split(r"\bottomrule")[0]
        rows = [line for line in body.splitlines() if line.endswith(r"\\")]
        assert all(latex_columns(row) == len(spec) for row in rows), path.name
        assert all(line.count("$") % 2 == 0 for line in tex.splitlines()), path.name
    full = (folder / "tables" / "full.tex").read_text()
    for name in ("ACFS", "GP-BO", "CEM-SO"):
        assert len(re.findall(rf"(?:\\textbf\{{|\\textit\{{|& ){name}\b", full)) == 2  # per DGP


def test_latex_summary_table_matches_snapshot():
    stats = method_statistics(small_comparison())
    tex = to_latex(summary_layout(stats, ORACLE, "ACFS"), label="tbl:snapshot")
    assert tex == (DATA / "summary_snapshot.tex").read_text()


def test_latex_number_formats_follow_the_paper():
    assert number(141_747.2).latex == "141{,}747"
    assert number(141_747.2, "bold").style == "bold"
    assert percent_gap(3.9061).latex == "$+3.91$"
    assert percent_gap(0.0, is_reference=True).latex == "0.00"
    assert signed_number(-6_026.4).latex == "$-6{,}026$"
    assert interval(-9_380, 4_610).latex == r"[$-9{,}380$;\,$+4{,}610$]"
    assert pvalue(0.1381, "ns").latex == r"$0.138$\,ns"
    assert pvalue(0.0004, "***").latex == r"$<\!0.001$***"
    assert number(4.0).plain == "4" and number(1.23456).plain == "1.235"


# ---------------------------------------------------------------------------------------------
# Timing by hand (not a test): 2 DGPs x 3 lambda x 5 methods x 100 replications.


def synthetic_comparison(reps: int = 100, seed: int = 0, precise: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    scale = {"acfs": 1.0, "gp-bo": 1.02, "cem-so": 1.06, "sgd-cvar": 1.17, "kde-so": 1.45}
    frames = []
    for dgp, base in (("dgp1", 180_000.0), ("dgp2", 340_000.0)):
        for lam in (0.5, 0.7, 0.9):
            js = {m: base * s * np.exp(rng.normal(0, 0.12, reps)) for m, s in scale.items()}
            frames.append(results(js, problem=dgp, lam=lam))
    frame = pd.concat(frames, ignore_index=True)
    return with_true_j(frame, 1.02) if precise else frame


def timing_cases(root: Path) -> dict[str, Path]:
    """The 3,000-replication experiment consolidated (with and without J_true) and as cells."""
    cases = {
        "results.parquet, J only": experiment(root, "only_j", synthetic_comparison()),
        "results.parquet, J and J_true": experiment(
            root, "with_true", synthetic_comparison(precise=True)
        ),
    }
    cells = root / "cells_only" / "cells"
    cells.mkdir(parents=True)
    frame = synthetic_comparison()
    for i in range(len(frame)):
        frame.iloc[[i]].to_parquet(cells / f"c{i:04d}.parquet")
    cases["3,000 cell files, J only"] = cells.parent
    return cases


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for label, folder in timing_cases(root).items():
            start, cpu = time.perf_counter(), time.process_time()
            code, _ = report([folder], root, latex=True, csv=True, figures=True)
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
            print(
                f"3,000 replications ({label}): {elapsed:.2f} s wall ({cpu:.2f} s CPU) "
                f"with figures, exit code {code}"
            )


if __name__ == "__main__":
    main()


# ---------------------------------------------------------------------------------------------
# One configuration at a time


def test_pairs_are_matched_on_seed_budget_and_evaluation_not_on_the_replication_alone():
    same = results(REF_BETTER)
    other_seed = pd.concat([results({"acfs": REF_BETTER["acfs"]}),
                            results({"gp-bo": REF_BETTER["gp-bo"]}, seed=2)])
    other_budget = pd.concat([results({"acfs": REF_BETTER["acfs"]}),
                              results({"gp-bo": REF_BETTER["gp-bo"]}, budget=1000)])
    other_eval = pd.concat([results({"acfs": REF_BETTER["acfs"]}, final_draws=2000),
                            results({"gp-bo": REF_BETTER["gp-bo"]}, final_draws=500)])
    assert wilcoxon_table(same)["n_pairs"].tolist() == [6]
    for frame in (other_seed, other_budget, other_eval):
        assert wilcoxon_table(frame)["n_pairs"].tolist() == [0]


def test_a_results_file_with_two_configurations_is_refused_in_one_line(tmp_path):
    mixed = pd.concat([results(REF_BETTER), results({"gp-bo": [1, 2]}, seed=2,
                                                    cell_id="x")], ignore_index=True)
    mixed["cell_id"] = [f"c{i}" for i in range(len(mixed))]
    path = tmp_path / "mixed.parquet"
    mixed.to_parquet(path)
    with pytest.raises(ResultsError, match=r"more than one configuration \(seed 2 \(current 1\)"):
        read_results(path)
    code, out = report([path], tmp_path)
    assert code == 2 and len(out.strip().splitlines()) == 1


def test_a_folder_of_cells_of_two_seeds_without_a_manifest_is_refused(tmp_path):
    folder = tmp_path / "exp"
    (folder / "cells").mkdir(parents=True)
    frame = pd.concat([results(REF_BETTER), results(REF_BETTER, seed=2)], ignore_index=True)
    frame["cell_id"] = [f"c{i:02d}" for i in range(len(frame))]
    for i in range(len(frame)):
        frame.iloc[[i]].to_parquet(folder / "cells" / f"c{i:02d}.parquet")
    with pytest.raises(ResultsError, match="more than one configuration"):
        read_results(folder)


def _folder_with_manifest(tmp_path, current: pd.DataFrame, foreign: pd.DataFrame,
                          expected: list[str] | None = None) -> Path:
    from acfs_cli.results.store import ResultStore

    folder = tmp_path / "exp"
    (folder / "cells").mkdir(parents=True)
    for frame in (current, foreign):
        for i in range(len(frame)):
            frame.iloc[[i]].to_parquet(folder / "cells" / f"{frame['cell_id'].iloc[i]}.parquet")
    ids = expected if expected is not None else list(current["cell_id"])
    ResultStore(folder).claim("hand", "settings", ids)
    return folder


def test_the_manifest_decides_which_cells_are_reported_and_the_rest_is_named(tmp_path):
    current = results(REF_BETTER).assign(settings='{"n_iter":12}')
    foreign = results(REF_BETTER).assign(
        settings='{"n_iter":7}', cell_id=lambda f: "old-" + f["cell_id"],
        J=lambda f: f["J"] + 1000)
    folder = _folder_with_manifest(tmp_path, current, foreign)
    code, out = report([folder], tmp_path)
    assert code == 0
    text = " ".join(out.split())
    assert "note: left out 12 cell(s) of another configuration in the same folder" in text
    assert "acfs n_iter 7 (current 12); gp-bo n_iter 7 (current 12)" in text
    assert "12 cells: 12 complete, 0 failed, 0 missing" in text
    assert read_results(folder)["J"].max() == 21.0


def test_manifest_cells_without_a_file_count_as_missing_and_damaged_files_are_named(tmp_path):
    current = results(REF_BETTER)
    folder = _folder_with_manifest(tmp_path, current, current.iloc[:0],
                                   expected=[*current["cell_id"], "never-ran"])
    (folder / "cells" / f"{current['cell_id'][0]}.parquet").write_bytes(b"PAR1 garbage PAR1")
    code, out = report([folder], tmp_path)
    assert code == 0
    text = " ".join(out.split())
    assert "left out 1 damaged cell file(s)" in text
    assert "13 cells: 11 complete, 0 failed, 2 missing" in text
