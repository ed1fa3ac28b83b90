"""The Markdown tables of REPRODUCTION.md, from the committed results beside the paper's numbers.

Reads ``results/main``, ``results/ablation``, ``results/sensitivity`` (their
``results.parquet``) and ``results/reference/reference.parquet`` (with
``reference_floor.parquet`` beside each study for the paired regret, written by
``acfs report``), and prints every table of REPRODUCTION.md with the paper's values (its
Tables "Comparative results summary", "Paired Wilcoxon signed-rank tests", "Ablation study
results" and "Hyperparameter sensitivity analysis") beside ours. The tables of the studies
beyond the paper (``results/budget``, ``results/library``, ``results/sample_only``) are read
from the CSV tables ``acfs report --csv`` wrote beside them.

Usage (after the studies and ``acfs report --csv``)::

    .venv/bin/python benchmarks/reproduction_tables.py [main|wilcoxon|plus|budget|ablation|
        sensitivity|quality_budget|library|ranking|sample_only|simopt|simopt_declared]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from acfs_cli.report import (
    ORACLE,
    PRECISE,
    ablation_table,
    method_statistics,
    read_reference_optima,
    read_results,
    sensitivity_table,
    true_gap_table,
    wilcoxon_table,
)
from acfs_cli.results.read import read_floor

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"

#: Paper Table "Comparative results summary": (J_med, SD) per (dgp, lam, method).
PAPER_MAIN = {
    ("dgp1", 0.5): {"acfs": (141_747, 24_652), "gp-bo": (147_284, 25_438),
                    "cem-so": (151_888, 19_222), "sgd-cvar": (175_824, 64_673),
                    "kde-so": (217_294, 198_869)},
    ("dgp1", 0.7): {"acfs": (187_260, 20_623), "gp-bo": (178_842, 38_294),
                    "cem-so": (198_361, 30_500), "sgd-cvar": (218_659, 75_463),
                    "kde-so": (266_973, 237_362)},
    ("dgp1", 0.9): {"acfs": (233_910, 26_041), "gp-bo": (225_628, 65_961),
                    "cem-so": (238_327, 34_701), "sgd-cvar": (266_483, 240_418),
                    "kde-so": (324_096, 257_886)},
    ("dgp2", 0.5): {"acfs": (263_935, 32_517), "gp-bo": (321_585, 63_980),
                    "cem-so": (306_693, 37_653), "sgd-cvar": (367_103, 364_697),
                    "kde-so": (432_431, 925_061)},
    ("dgp2", 0.7): {"acfs": (340_990, 43_139), "gp-bo": (370_213, 72_320),
                    "cem-so": (385_170, 50_802), "sgd-cvar": (452_874, 140_107),
                    "kde-so": (580_007, 981_140)},
    ("dgp2", 0.9): {"acfs": (429_811, 48_324), "gp-bo": (466_859, 108_800),
                    "cem-so": (489_005, 73_009), "sgd-cvar": (556_919, 185_992),
                    "kde-so": (716_947, 1_890_284)},
}

#: Paper Table "Ablation study results": (J_med, Gap%) per (dgp, variant), lambda 0.7.
PAPER_ABLATION = {
    "dgp1": {"acfs": (188_161, 0.00), "acfs-noav": (185_513, -1.41),
             "acfs-noaug": (191_811, 1.94), "acfs-norerank": (188_068, -0.05),
             "acfs-nocem": (187_048, -0.59)},
    "dgp2": {"acfs": (341_074, 0.00), "acfs-noaug": (348_895, 2.29),
             "acfs-norerank": (345_101, 1.18), "acfs-noav": (345_029, 1.16),
             "acfs-nocem": (346_793, 1.68)},
}

#: Paper Table "Hyperparameter sensitivity analysis": (J_med, SD), DGP1, lambda 0.7.
PAPER_SENSITIVITY = {
    ("n_a", 800): (186_972, 29_871), ("n_a", 1200): (181_710, 25_950),
    ("n_a", 1600): (188_906, 25_952), ("n_f", 400): (186_490, 29_504),
    ("n_f", 800): (185_769, 18_602), ("n_f", 1200): (186_915, 20_014),
    ("k", 2): (189_982, 21_270), ("k", 4): (183_797, 11_193), ("k", 6): (196_687, 21_061),
    ("n_d", 300): (182_131, 23_917), ("n_d", 450): (178_102, 28_268),
    ("n_d", 600): (188_185, 19_854),
}

ORDER = ["acfs", "acfs-plus", "auto", "astro", "saa-ps", "gp-bo", "cem-so", "sgd-cvar", "kde-so"]
#: SimOpt's solvers, the gradient-free ones first.
SIMOPT = ["simopt-astrodf", "simopt-neldmd", "simopt-strong", "simopt-spsa", "simopt-adam",
          "simopt-aloe"]
GRADIENT_FREE = SIMOPT[:4]


def _load(study: str) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    folder = RESULTS / study
    results = read_results(folder)
    floor = read_floor(folder)
    if floor is not None:
        keys = ["problem", "lam", "alpha", "seed", "rep"]
        results = results.astype({"seed": int, "rep": int}).merge(
            floor[[*keys, "J_ref_true"]], on=keys, how="left")
    return results, read_reference_optima(folder, RESULTS)


def _n(v: float) -> str:
    return "-" if not np.isfinite(v) else f"{v:,.0f}"


def _p(p: float, stars: str = "") -> str:
    if not np.isfinite(p):
        return "-"
    return (f"< 0.001 {stars}" if p < 0.001 else f"{p:.3f} {stars}").strip()


def _pct(v: float, sign: bool = True) -> str:
    return "-" if not np.isfinite(v) else (f"{v:+.1f}" if sign else f"{v:.1f}")


def main_table() -> None:
    results, optima = _load("main")
    oracle = method_statistics(results, ORACLE, "acfs").set_index(["problem", "lam", "config"])
    true = true_gap_table(results, optima).set_index(["problem", "lam", "config"])
    print("| DGP | lambda | method | n | paper J_med (SD) | ours J_med (SD), 2,000 draws | "
          "ours true J_med (SD) | regret med / max % | paired regret med / max % |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for dgp, lam in PAPER_MAIN:
        for m in ORDER:
            if (dgp, lam, m) not in oracle.index:
                continue
            o, t = oracle.loc[(dgp, lam, m)], true.loc[(dgp, lam, m)]
            paper = PAPER_MAIN[(dgp, lam)].get(m)
            p = f"{paper[0]:,} ({paper[1]:,})" if paper else "-"
            print(f"| {dgp.upper()} | {lam} | {o['name']} | {int(o['n'])} | {p} | "
                  f"{_n(o['J_med'])} ({_n(o['J_SD'])}) | {_n(t['J_med'])} ({_n(t['J_SD'])}) | "
                  f"{_pct(t['regret_med_pct'])} / {_pct(t['regret_max_pct'])} | "
                  f"{_pct(t['paired_med_pct'], False)} / {_pct(t['paired_max_pct'], False)} |")


def wilcoxon(reference: str = "acfs") -> None:
    results, _ = _load("main")
    o = wilcoxon_table(results, ORACLE, reference).set_index(["problem", "lam", "config"])
    t = wilcoxon_table(results, PRECISE, reference).set_index(["problem", "lam", "config"])
    print("| DGP | lambda | competitor | med. diff (95 % CI), 2,000-draw J | p_Holm | r_rb | Win% "
          "| med. diff, true J | p_Holm | r_rb | Win% |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key in o.index:
        a, b = o.loc[key], t.loc[key]
        print(f"| {key[0].upper()} | {key[1]} | {a['name']} | {a['med_diff']:+,.0f} "
              f"[{a['ci_lo']:+,.0f}; {a['ci_hi']:+,.0f}] | {_p(a['p_holm'])} | "
              f"{a['r_rb']:+.2f} | {a['win_pct']:.0f} % | {b['med_diff']:+,.0f} | "
              f"{_p(b['p_holm'])} | {b['r_rb']:+.2f} | {b['win_pct']:.0f} % |")


def budget() -> None:
    results, _ = _load("main")
    ok = results[results["status"] == "ok"]
    med = ok.groupby(["problem", "method"])["oracle_draws"].agg(["median", "max"])
    print("| DGP | method | draws, median | draws, max |")
    print("| --- | --- | ---: | ---: |")
    for (dgp, m), r in med.iterrows():
        print(f"| {dgp.upper()} | {m} | {r['median']:,.0f} | {r['max']:,.0f} |")


def ablation() -> None:
    results, optima = _load("ablation")
    o = ablation_table(results, ORACLE, "acfs").set_index(["problem", "config"])
    t = ablation_table(results, PRECISE, "acfs").set_index(["problem", "config"])
    print("| DGP | variant | n | paper J_med | paper Gap% | ours J_med (2,000 draws) | Gap% | "
          "sigma-ratio | p_Holm | ours true J_med | Gap% | p_Holm |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |")
    for dgp, variants in PAPER_ABLATION.items():
        for m, (pj, pg) in variants.items():
            if (dgp, m) not in o.index:
                continue
            a, b = o.loc[(dgp, m)], t.loc[(dgp, m)]
            ph, ph2 = _p(a["p_holm"], a["stars"]), _p(b["p_holm"], b["stars"])
            print(f"| {dgp.upper()} | {a['name']} | {int(a['n'])} | {pj:,} | {pg:+.2f} | "
                  f"{_n(a['J_med'])} | {a['diff_pct']:+.2f} | {a['sigma_ratio']:.2f} | {ph} | "
                  f"{_n(b['J_med'])} | {b['diff_pct']:+.2f} | {ph2} |")


def sensitivity() -> None:
    results, _ = _load("sensitivity")
    o = sensitivity_table(results, ORACLE).set_index(["parameter", "value"])
    t = sensitivity_table(results, PRECISE).set_index(["parameter", "value"])
    print("| parameter | value | n | paper J_med (SD) | ours J_med (SD), 2,000 draws | "
          "ours true J_med (SD) |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for (param, value), (pj, ps) in PAPER_SENSITIVITY.items():
        key = (param, float(value))
        if key not in o.index:
            continue
        a, b = o.loc[key], t.loc[key]
        shown = f"**{value:,}**" if a["is_default"] else f"{value:,}"
        print(f"| {param} | {shown} | {int(a['n'])} | {pj:,} ({ps:,}) | {_n(a['J_med'])} "
              f"({_n(a['J_SD'])}) | {_n(b['J_med'])} ({_n(b['J_SD'])}) |")


def _table(study: str, name: str) -> pd.DataFrame:
    return pd.read_csv(RESULTS / study / "tables" / f"{name}.csv")


def _mw(median: float, worst: float) -> str:
    """'median / worst' with the precision a percentage of this size deserves."""
    def f(v: float) -> str:
        return "-" if not np.isfinite(v) else (f"{v:.2f}" if abs(v) < 10 else f"{v:.0f}")
    return f"{f(median)} / {f(worst)}"


def _best_in_bold(rows: pd.DataFrame, methods: list[str], median: str, worst: str) -> list[str]:
    """'median / worst' per method of one row (indexed by config), the best median in bold,
    '-' for a method without a cell there."""
    best = rows[median].min()
    cells = []
    for m in methods:
        if m not in rows.index:
            cells.append("-")
            continue
        text = _mw(rows.loc[m, median], rows.loc[m, worst])
        cells.append(f"**{text}**" if rows.loc[m, median] == best else text)
    return cells


def quality_budget() -> None:
    """Paired regret (%) of the final x* against the budget each method planned for."""
    t = _table("budget", "quality_budget")
    budgets = sorted(t["budget"].unique())
    print("| DGP | method | " + " | ".join(f"{b:,}" for b in budgets) + " |")
    print("| --- | --- | " + " | ".join("---:" for _ in budgets) + " |")
    for dgp in sorted(t["problem"].unique()):
        for m in ORDER:
            rows = t[(t["problem"] == dgp) & (t["config"] == m)].set_index("budget")
            if rows.empty:
                continue
            cells = [_mw(rows.loc[b, "median"], rows.loc[b, "worst"]) if b in rows.index
                     else "-" for b in budgets]
            print(f"| {dgp.upper()} | {rows['name'].iloc[0]} | " + " | ".join(cells) + " |")


def library() -> None:
    """Normalised gap (%) per library problem, median / worst per method, at each budget."""
    t = _table("library", "library_gap")
    methods = [m for m in ORDER if m in set(t["config"])]
    names = t.drop_duplicates("config").set_index("config")["name"]
    for budget in sorted(t["budget"].unique()):
        print(f"\nbudget {budget:,}\n")
        print("| problem | " + " | ".join(names[m] for m in methods) + " |")
        print("| --- | " + " | ".join("---:" for _ in methods) + " |")
        block = t[t["budget"] == budget]
        for dgp in block["problem"].drop_duplicates():
            rows = block[block["problem"] == dgp].set_index("config")
            cells = _best_in_bold(rows, methods, "median", "worst")
            print(f"| {dgp} | " + " | ".join(cells) + " |")


def ranking() -> None:
    """Mean rank of the median gap across the library problems and the share solved."""
    t = _table("library", "library_rank")
    print("| budget | method | mean rank | median gap <= 1 % | <= 5 % | worst gap <= 1 % | "
          "<= 5 % |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for _, r in t.iterrows():
        print(f"| {r['budget']:,} | {r['name']} | {r['mean_rank']:.2f} | "
              f"{r['solved_1_median']:.0f} % | {r['solved_5_median']:.0f} % | "
              f"{r['solved_1_worst']:.0f} % | {r['solved_5_worst']:.0f} % |")


def sample_only() -> None:
    """Paired regret (%) with the benchmarks offered as sample-only simulators, beside the
    same methods, seeds and replications in transform mode (the budget study at 260,000)."""
    so = _table("sample_only", "true_gap")
    so["problem"] = so["problem"].str.replace(r"\(.*\)", "", regex=True)
    tr = _table("budget", "budget260000_true_gap")
    print("| DGP | method | sample-only median / worst | transform median / worst |")
    print("| --- | --- | ---: | ---: |")
    for dgp in sorted(so["problem"].unique()):
        a = so[so["problem"] == dgp].set_index("config")
        b = tr[tr["problem"] == dgp].set_index("config")
        for m in ORDER:
            if m not in a.index:
                continue
            other = (_mw(b.loc[m, "paired_med_pct"], b.loc[m, "paired_max_pct"])
                     if m in b.index else "-")
            print(f"| {dgp.upper()} | {a.loc[m, 'name']} | "
                  f"{_mw(a.loc[m, 'paired_med_pct'], a.loc[m, 'paired_max_pct'])} | {other} |")


def simopt() -> None:
    """Normalised gap (%) per SimOpt problem, budget and lambda, median / worst of the
    replications, the best median in bold; and the default (auto) against the best
    gradient-free SimOpt solver of each row (lowest median, then lowest worst)."""
    paths = sorted((RESULTS / "simopt" / "tables").glob("budget*_true_gap.csv"))
    t = pd.concat([pd.read_csv(path).assign(budget=int(path.name[6:].split("_")[0]))
                   for path in paths])
    methods = [m for m in ["auto", "astro", "saa-ps", "sgd-cvar", *SIMOPT] if m in set(
        t["config"])]
    names = t.drop_duplicates("config").set_index("config")["name"]
    print("| problem | budget | lambda | " + " | ".join(names[m] for m in methods) + " |")
    print("| --- | ---: | ---: | " + " | ".join("---:" for _ in methods) + " |")
    verdict = []
    for (problem, budget, lam), rows in t.groupby(["problem", "budget", "lam"], sort=True):
        rows = rows.set_index("config")
        cells = _best_in_bold(rows, methods, "gap_med_pct", "gap_max_pct")
        print(f"| {problem.removeprefix('simopt:')} | {budget:,} | {lam:g} | "
              + " | ".join(cells) + " |")
        free = rows.loc[[m for m in GRADIENT_FREE if m in rows.index]].sort_values(
            ["gap_med_pct", "gap_max_pct"])
        a, b = rows.loc["auto"], free.iloc[0]
        verdict.append((problem.removeprefix("simopt:"), budget, lam, a["gap_med_pct"],
                        a["gap_max_pct"], free.index[0], b["gap_med_pct"], b["gap_max_pct"]))
    print("\n| problem | budget | lambda | auto median / worst | best gradient-free SimOpt "
          "solver | its median / worst | auto's median, worst no worse |")
    print("| --- | ---: | ---: | ---: | --- | ---: | --- |")
    for problem, budget, lam, am, aw, name, bm, bw in verdict:
        ok = ("yes" if am <= bm + 1e-9 else "no") + ", " + ("yes" if aw <= bw + 1e-9 else "no")
        print(f"| {problem} | {budget:,} | {lam:g} | {_mw(am, aw)} | {names[name]} | "
              f"{_mw(bm, bw)} | {ok} |")


DECLARED_METHODS = ["auto", "simopt-rndsrch", "simopt-fcsa", "simopt-dasso"]


def simopt_declared() -> None:
    """SimOpt's constrained and discrete problems: per problem, budget and lambda, each
    method's normalised gap (%) 100 (J(x*) - J(x_ref)) / (J(x0) - J(x_ref)) against the best
    answer shown feasible (x_ref, each replication's precise sample: the floor), median /
    worst of the replications, and [k/n] the answers shown feasible where the problem has
    stochastic constraints; the best median of the answers all shown feasible in bold."""
    folder = RESULTS / "simopt_declared"
    rows = pd.read_parquet(folder / "results.parquet")
    rows = rows[rows["status"] == "ok"]
    floor = pd.read_parquet(folder / "reference_floor.parquet")[
        ["problem", "lam", "rep", "J_ref_true"]]
    rows = rows.merge(floor, on=["problem", "lam", "rep"], how="left")
    rows["gap"] = 100 * (rows["J_true"] - rows["J_ref_true"]) / (
        rows["J_x0_true"] - rows["J_ref_true"])
    methods = [m for m in DECLARED_METHODS if m in set(rows["method"])]
    names = rows.drop_duplicates("method").set_index("method")["method_display"]
    print("| problem | budget | lambda | " + " | ".join(names[m] for m in methods) + " |")
    print("| --- | ---: | ---: | " + " | ".join("---:" for _ in methods) + " |")
    for (problem, budget, lam), block in rows.groupby(["problem", "budget", "lam"]):
        stats = {}
        for m, b in block.groupby("method"):
            flag = b["feasible"].fillna("").astype(str)
            stats[m] = (b["gap"].median(), b["gap"].max(), int((flag == "feasible").sum()),
                        int((flag != "").sum()), len(b))
        shown = [m for m, v in stats.items() if v[3] == 0 or v[2] == v[4]]
        best = min(shown, key=lambda m: stats[m][0]) if shown else None
        cells = []
        for m in methods:
            if m not in stats:
                cells.append("-")
                continue
            med, worst, k, declared, n = stats[m]
            text = _mw(med, worst) + (f" [{k}/{n}]" if declared else "")
            cells.append(f"**{text}**" if m == best else text)
        print(f"| {problem.removeprefix('simopt:')} | {budget:,} | {lam:g} | "
              + " | ".join(cells) + " |")


if __name__ == "__main__":
    which = sys.argv[1:] or ["main", "wilcoxon", "plus", "budget", "ablation", "sensitivity",
                             "quality_budget", "library", "ranking", "sample_only", "simopt"]
    for name in which:
        print(f"\n## {name}\n")
        {"main": main_table, "wilcoxon": wilcoxon, "plus": lambda: wilcoxon("acfs-plus"),
         "budget": budget, "ablation": ablation, "sensitivity": sensitivity,
         "quality_budget": quality_budget, "library": library, "ranking": ranking,
         "sample_only": sample_only, "simopt": simopt,
         "simopt_declared": simopt_declared}[name]()
