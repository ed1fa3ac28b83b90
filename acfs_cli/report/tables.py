"""The tables of the paper's Section 5 and Appendix A as tidy DataFrames.

Every builder takes the results table (see :mod:`acfs_cli.results.read`) and returns one row per
setting (problem, lam, alpha) and configuration, with plain numbers and readable column names; this
is what the CSV files hold. :mod:`acfs_cli.report.views` lays the frames out as the paper does.

A configuration is a method (comparison and ablation studies) or one grid point of one
parameter (sensitivity study). Each builder reads only the usable rows (status ok, finite
metric); paired statistics use only replications complete for both configurations.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from acfs_cli.common.seeding import stream
from acfs_cli.report.stats import (
    SIGNIFICANCE,
    gap_pct,
    holm,
    median_diff_ci,
    rank_biserial,
    sigma_ratio,
    smallest_p,
    stars,
    wilcoxon_paired_less,
    win_rate,
)
from acfs_cli.results.read import SETTING, pair_columns, usable, versus_start


@dataclass(frozen=True)
class Protocol:
    """Which evaluation of x* a table summarises: the paper's final evaluation of J, EC and
    CVaR on the common pool (2,000 draws in the paper), or the optional large-sample
    ("precise") evaluation of the same x*. ``draws`` is the results' own count (0: not
    known), which the description names."""

    name: str
    J: str
    EC: str
    CVaR: str
    suffix: str
    what: str
    draws: int = 0

    @property
    def description(self) -> str:
        """``"2,000-draw final evaluation"``: the draws and what evaluation it is."""
        return f"{self.draws:,}-draw {self.what}" if self.draws else self.what

    @property
    def precise(self) -> bool:
        return self.name == "precise"


ORACLE = Protocol("oracle", "J", "EC", "CVaR", "", "final evaluation", 2000)
PRECISE = Protocol("precise", "J_true", "EC_true", "CVaR_true", "_true", "large-sample evaluation")

#: The paper's order of the sensitivity parameters; others follow alphabetically.
PARAMETER_ORDER = ("n_a", "n_f", "k", "n_d")

#: The order of methods in tables and figures: the paper's, then the project's own; others
#: follow in the order they come.
METHOD_ORDER = ("acfs", "acfs-plus", "gp-bo", "cem-so", "sgd-cvar", "kde-so", "saa-ps",
                "acfs-noav", "acfs-nocem", "acfs-norerank", "acfs-noaug")
_METHOD_ORDER = {name: i for i, name in enumerate(METHOD_ORDER)}

#: Base seed of the bootstrap streams: fixed, so the same results give the same intervals.
_BOOTSTRAP_SEED = 20240601

STATISTICS_COLUMNS = [
    *SETTING,
    "config",
    "name",
    "n",
    "feasible",
    "J_med",
    "J_SD",
    "J_Q25",
    "J_Q75",
    "EC_med",
    "CVaR_med",
    "diff_pct",
    "sigma_ratio",
    "is_reference",
    "beats_reference",
    "J_se",
]

WILCOXON_COLUMNS = [
    *SETTING,
    "config",
    "name",
    "n_pairs",
    "med_diff",
    "ci_lo",
    "ci_hi",
    "V",
    "test",
    "p",
    "p_holm",
    "stars",
    "r_rb",
    "win_pct",
    "p_floor",
]


def protocols_in(results: pd.DataFrame) -> list[Protocol]:
    """The protocols of the results, the better estimate first: the large-sample one when
    some completed cell has ``J_true``, then the paper's; each with the draws the results
    say (where every row says the same)."""
    out = [ORACLE]
    if not usable(results, PRECISE.J).empty:
        out.insert(0, PRECISE)
    return [replace(p, draws=_draws_of(results, p)) for p in out]


def _draws_of(results: pd.DataFrame, protocol: Protocol) -> int:
    column = "precise_draws" if protocol.precise else "final_draws"
    if column not in results.columns:
        return protocol.draws
    draws = set(usable(results, protocol.J)[column].dropna().astype(int)) - {0}
    return draws.pop() if len(draws) == 1 else 0


def method_rank(method: str) -> int:
    """Position of a method in the paper's order (unknown methods last)."""
    return _METHOD_ORDER.get(method, len(_METHOD_ORDER))


def configuration_name(method: str, display: str, kind: str) -> str:
    """Display name of a method (its rows' ``method_display``); in an ablation study the
    full ACFS is "ACFS-Full"."""
    if kind == "ablation" and method == "acfs":
        return "ACFS-Full"
    return display or method


def _displays(results: pd.DataFrame) -> list[str]:
    """Each row's method display name (the method's name where a row has none)."""
    shown = results["method_display"] if "method_display" in results.columns else None
    methods = results["method"].astype(str).tolist()
    if shown is None:
        return methods
    return [d if isinstance(d, str) and d else m
            for d, m in zip(shown.tolist(), methods, strict=True)]


def parameter_rank(parameter: str) -> tuple[int, str]:
    """Sort key of a sensitivity parameter: the paper's order, then alphabetical."""
    if parameter in PARAMETER_ORDER:
        return PARAMETER_ORDER.index(parameter), parameter
    return len(PARAMETER_ORDER), parameter


def prepare(results: pd.DataFrame) -> pd.DataFrame:
    """Add ``config`` (identity), ``name`` (display) and ``order`` (sort key) of each row's
    configuration: the method, or for a sensitivity cell the varied parameter and its value.
    ``order`` is one order for every table and figure: the methods as the configuration
    lists them (``method_order``, from the folder's manifest), else the paper's order, then
    by name; a sensitivity study's parameters and values within."""
    varied = results["varied"] != ""
    grid_point = results["varied"] + "=" + results["varied_value"].map("{:g}".format)
    config = results["method"].where(~varied, grid_point)
    methods, kinds = (results[c].to_numpy(dtype=object) for c in ("method", "kind"))
    displays = _displays(results)
    names = [configuration_name(m, d, k)
             for m, d, k in zip(methods, displays, kinds, strict=True)]
    name = pd.Series(names, index=results.index).where(
        ~varied, pd.Series(displays, index=results.index) + " " + grid_point
    )
    configured = (results["method_order"].astype(float) if "method_order" in results.columns
                  else pd.Series(np.nan, index=results.index))
    sort_key = pd.DataFrame(
        {
            # the configuration's order where the results say it, else the paper's
            "configured": configured.fillna(np.inf),
            "method_rank": results["method"].map(method_rank),
            "method": results["method"],
            "parameter_rank": results["varied"].map(lambda p: parameter_rank(p)[0]),
            "parameter": results["varied"],
            "value": results["varied_value"].fillna(-np.inf),
        }
    )
    order = sort_key.groupby(list(sort_key.columns), sort=True).ngroup()
    # copy(): one block per dtype, so the added columns do not fragment a wide table
    return results.copy().assign(config=config, name=name, order=order)


def _describe(rows: pd.DataFrame, by: list[str], protocol: Protocol) -> pd.DataFrame:
    """Median, SD (ddof 1, as R's ``sd``), quartiles (R's default type 7) of J per group."""
    groups = rows.groupby(by, sort=False, dropna=False)
    j = groups[protocol.J]
    described = pd.DataFrame(
        {
            "n": j.size(),
            "J_med": j.median(),
            "J_SD": j.std(ddof=1),
            "J_Q25": j.quantile(0.25),
            "J_Q75": j.quantile(0.75),
            "EC_med": groups[protocol.EC].median(),
            "CVaR_med": groups[protocol.CVaR].median(),
            "feasible": _feasible_share(rows, by),
        }
    )
    return described.reset_index()


def _feasible_share(rows: pd.DataFrame, by: list[str]) -> pd.Series:
    """Per group, the share of replications whose answer was shown feasible (the
    ``feasible`` verdict), NaN where the problem declares no stochastic constraint: an answer
    not shown feasible is counted as such beside its J, never left out."""
    flag = (rows["feasible"] if "feasible" in rows else pd.Series("", index=rows.index))
    flag = flag.fillna("").astype(str)
    parts = rows[by].assign(_shown=(flag == "feasible").astype(float),
                            _declared=(flag != "").astype(float))
    sums = parts.groupby(by, sort=False, dropna=False)[["_shown", "_declared"]].sum()
    return 100.0 * sums["_shown"] / sums["_declared"].where(sums["_declared"] > 0)


def method_statistics(
    results: pd.DataFrame, protocol: Protocol = ORACLE, reference: str = "acfs"
) -> pd.DataFrame:
    """Per setting and method: J median, SD, quartiles, EC and CVaR medians, Diff% (the
    relative difference of the medians) and the SD ratio to the reference (paper Tables
    "results summary", "full statistics", "ablation"), and the setting's typical standard
    error of J (``J_se``, see :func:`setting_se`).

    Methods are ordered by J median within each setting; Diff% and the SD ratio are NaN in a
    setting without the reference.
    """
    rows = usable(prepare(results), protocol.J)
    stats = _describe(rows, [*SETTING, "config", "name", "order"], protocol)
    ref = stats.loc[stats["config"] == reference, [*SETTING, "J_med", "J_SD"]]
    stats = stats.merge(ref, on=SETTING, how="left", suffixes=("", "_ref"))
    stats["diff_pct"] = gap_pct(stats["J_med"], stats["J_med_ref"])
    stats["sigma_ratio"] = sigma_ratio(stats["J_SD"], stats["J_SD_ref"])
    stats["is_reference"] = stats["config"] == reference
    stats["beats_reference"] = stats["J_med"] < stats["J_med_ref"]
    stats = stats.merge(setting_se(rows, protocol), on=SETTING, how="left")
    stats = stats.sort_values([*SETTING, "order"], kind="stable")
    return stats[STATISTICS_COLUMNS].reset_index(drop=True)


#: Half-width of a 95 % interval in standard errors.
_Z95 = 1.959964


def cell_se(rows: pd.DataFrame, protocol: Protocol = ORACLE) -> pd.Series:
    """Each cell's standard error of J: from its bootstrap 95 % interval (J_lo, J_hi), or
    the large-sample evaluation's ``J_true_se``."""
    def column(name: str) -> pd.Series:
        if name not in rows.columns:
            return pd.Series(np.nan, index=rows.index)
        return pd.to_numeric(rows[name], errors="coerce").astype(float)

    if protocol.precise:
        return column("J_true_se")
    return (column("J_hi") - column("J_lo")) / (2 * _Z95)


def setting_se(rows: pd.DataFrame, protocol: Protocol = ORACLE) -> pd.DataFrame:
    """The median standard error of J over the cells of each setting (``J_se``): the
    precision every method of the setting is shown to, so their digits line up."""
    se = cell_se(rows, protocol)
    se = se.where(np.isfinite(se) & (se > 0))
    out = rows[SETTING].assign(J_se=se).groupby(SETTING, sort=False)["J_se"].median()
    return out.reset_index()


def _paired_comparison(
    ref: pd.Series, other: pd.Series, rng: np.random.Generator, n_boot: int
) -> dict:
    """Every paired statistic of one comparison, on the replications complete for both."""
    pairs = pd.concat([ref, other], axis=1).dropna()
    a, b = pairs.iloc[:, 0].to_numpy(), pairs.iloc[:, 1].to_numpy()
    if a.size == 0:
        return {"n_pairs": 0, "test": ""}
    test = wilcoxon_paired_less(a, b)
    ci = median_diff_ci(a, b, n_boot=n_boot, rng=rng)
    return {
        "n_pairs": int(a.size),
        "med_diff": ci.median,
        "ci_lo": ci.lo,
        "ci_hi": ci.hi,
        "V": test.statistic,
        "test": "exact" if test.exact else "normal",
        "p": test.pvalue,
        "r_rb": rank_biserial(a, b),
        "win_pct": 100.0 * win_rate(a, b),
    }


def wilcoxon_table(
    results: pd.DataFrame,
    protocol: Protocol = ORACLE,
    reference: str = "acfs",
    n_boot: int = 400,
    seed: int = _BOOTSTRAP_SEED,
) -> pd.DataFrame:
    """Paired one-sided Wilcoxon tests of the reference against every other method (paper
    Table "Wilcoxon", DESIGN.md section 6): median difference (reference minus competitor) with its
    bootstrap 95 % interval, Holm-adjusted p-value across the comparisons of each (problem, lam,
    alpha) block, rank-biserial correlation and win rate.

    The bootstrap stream of a comparison is named by its setting and competitor, so a table
    does not depend on which other methods or settings are present.
    """
    rows = usable(prepare(results), protocol.J)
    # Pairs share the whole replication - rep, seed, budget, evaluation - never the rep alone.
    pair = pair_columns(rows)
    records = []
    for setting, block in rows.groupby(SETTING, sort=True):
        wide = block.pivot(index=pair, columns="config", values=protocol.J)
        if reference not in wide.columns:
            continue
        names = block.drop_duplicates("config").set_index("config")
        competitors = names.drop(index=reference).sort_values("order").index
        block_records = [
            {
                **dict(zip(SETTING, setting, strict=True)),
                "config": c,
                "name": names.at[c, "name"],
                **_paired_comparison(
                    wide[reference],
                    wide[c],
                    rng=stream(seed, "report-bootstrap", *setting, c),
                    n_boot=n_boot,
                ),
            }
            for c in competitors
        ]
        adjusted = holm([r.get("p", np.nan) for r in block_records])
        # with few pairs no test of the block can reach 5 % (Holm multiplies the smallest p
        # by the number of tests): its stars would only say "ns"
        floors = [smallest_p(r["n_pairs"], r["test"] == "exact") for r in block_records
                  if r["n_pairs"]]
        floor = int(np.isfinite(adjusted).sum()) * min(floors, default=np.nan)
        for record, p_holm in zip(block_records, adjusted, strict=True):
            record["p_holm"] = p_holm
            record["p_floor"] = floor
            record["stars"] = stars(p_holm) if floor < SIGNIFICANCE else ""
        records.extend(block_records)
    return pd.DataFrame.from_records(records, columns=WILCOXON_COLUMNS)


def budget_table(results: pd.DataFrame) -> pd.DataFrame:
    """Median counted oracle draws per replication for each setting and method (paper Table
    "oracle budget"), with the budget cap and the share of it used."""
    rows = prepare(results)
    rows = rows[rows["status"] == "ok"]
    groups = rows.groupby([*SETTING, "config", "name", "order"], sort=False)
    table = pd.DataFrame(
        {
            "n": groups.size(),
            "draws_med": groups["oracle_draws"].median(),
            "budget": groups["budget"].median(),
        }
    ).reset_index()
    table["share_pct"] = 100.0 * table["draws_med"] / table["budget"]
    table = table.sort_values([*SETTING, "order"], kind="stable")
    return table.drop(columns="order").reset_index(drop=True)


def ablation_table(
    results: pd.DataFrame,
    protocol: Protocol = ORACLE,
    reference: str = "acfs",
    tests: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Ablation variants against the full method (paper Table "Ablation"): J median and SD,
    Diff%, SD ratio and the Holm-adjusted one-sided Wilcoxon p-value (H1: full < variant).

    ``tests`` is the :func:`wilcoxon_table` of the same results when already computed.
    """
    stats = method_statistics(results, protocol, reference)
    if tests is None:
        tests = wilcoxon_table(results, protocol, reference)
    tests = tests[[*SETTING, "config", "n_pairs", "p", "p_holm", "stars", "p_floor"]]
    return stats.merge(tests, on=[*SETTING, "config"], how="left")


def sensitivity_defaults(results: pd.DataFrame) -> dict[str, float]:
    """The value of each varied parameter at the study's base point, as its rows say
    (``varied_default``)."""
    defaults = {}
    for parameter in sorted(set(results["varied"]) - {""}):
        values = results.loc[results["varied"] == parameter, "varied_default"].dropna()
        defaults[parameter] = float(values.mode().iloc[0]) if len(values) else np.nan
    return defaults


def sensitivity_table(results: pd.DataFrame, protocol: Protocol = ORACLE) -> pd.DataFrame:
    """J median, SD and quartiles per parameter value (paper Table "sensitivity"); the row at
    the parameter's default is flagged (see :func:`sensitivity_defaults`)."""
    rows = usable(results, protocol.J)
    rows = rows[rows["varied"] != ""]
    table = _describe(rows, [*SETTING, "varied", "varied_value"], protocol)
    table = table.merge(setting_se(rows, protocol), on=SETTING, how="left")
    table = table.rename(columns={"varied": "parameter", "varied_value": "value"})
    default = sensitivity_defaults(results)
    table["default"] = table["parameter"].map(default).astype(float)
    table["is_default"] = np.isclose(table["value"], table["default"])
    table["rank"] = table["parameter"].map(parameter_rank)
    table = table.sort_values([*SETTING, "rank", "value"], kind="stable")
    return table.drop(columns=["rank", "EC_med", "CVaR_med"]).reset_index(drop=True)


def true_gap_table(results: pd.DataFrame, optima: pd.DataFrame | None = None) -> pd.DataFrame:
    """Large-sample J of each configuration against the best known J of its setting.

    The best known J is the reference optimum J* (``results/reference/reference.parquet``) when
    one exists for the setting, else the lowest median ``J_true`` among the configurations of
    the setting. Regret% of a replication is ``100 * (J_true - best) / best``; the table gives
    its median and maximum over replications.
    """
    rows = usable(prepare(results), PRECISE.J)
    stats = _describe(rows, [*SETTING, "config", "name", "order"], PRECISE)
    j_max = rows.groupby([*SETTING, "config"], sort=False)[PRECISE.J].max().rename("J_max")
    stats = stats.merge(j_max.reset_index(), on=[*SETTING, "config"], how="left")
    stats = stats.merge(_best_known(stats, optima), on=SETTING, how="left")
    stats["regret_med_pct"] = gap_pct(stats["J_med"], stats["best_known"])
    stats["regret_max_pct"] = gap_pct(stats["J_max"], stats["best_known"])
    stats = stats.merge(_paired(rows, optima), on=[*SETTING, "config"], how="left")
    stats = stats.merge(_normalised_gap(rows), on=[*SETTING, "config"], how="left")
    stats = stats.merge(setting_se(rows, PRECISE), on=SETTING, how="left")
    stats = stats.sort_values([*SETTING, "order"], kind="stable")
    columns = [*SETTING, "config", "name", "n", "J_med", "J_SD", "J_Q25", "J_Q75", "J_se"]
    columns += ["best_known", "best_known_se", "best_source", "regret_med_pct", "regret_max_pct"]
    columns += ["paired_med_pct", "paired_max_pct", "gap_med_pct", "gap_max_pct"]
    return stats[columns].reset_index(drop=True)


def normalised_gap(rows: pd.DataFrame) -> pd.Series:
    """SimOpt's normalised gap on each replication's precise sample, 100 (J_true -
    J_ref_true) / (J_x0_true - J_ref_true): 0 at the reference minimiser, 100 no better than
    the start x0 (NaN where ``J_x0_true`` or ``J_ref_true`` is missing)."""
    if "J_ref_true" not in rows.columns or "J_x0_true" not in rows.columns:
        return pd.Series(np.nan, index=rows.index)
    ref = pd.to_numeric(rows["J_ref_true"], errors="coerce").astype(float)
    spread = pd.to_numeric(rows["J_x0_true"], errors="coerce").astype(float) - ref
    with np.errstate(invalid="ignore", divide="ignore"):
        return 100.0 * (rows[PRECISE.J].astype(float) - ref) / spread.where(spread > 0)


def _normalised_gap(rows: pd.DataFrame) -> pd.DataFrame:
    """Median and maximum normalised gap (:func:`normalised_gap`) per configuration."""
    r = rows[[*SETTING, "config"]].assign(gap=normalised_gap(rows))
    agg = r.groupby([*SETTING, "config"], sort=False)["gap"].agg(["median", "max"])
    agg = agg.rename(columns={"median": "gap_med_pct", "max": "gap_max_pct"})
    return r[[*SETTING, "config"]].drop_duplicates().merge(agg.reset_index(),
                                                          on=[*SETTING, "config"], how="left")


def _paired(rows: pd.DataFrame, optima: pd.DataFrame | None) -> pd.DataFrame:
    """Median and maximum paired regret, 100 (J_true - J_ref_true) / J*, per configuration:
    the reference minimiser estimated on each replication's own precise normals (NaN where
    ``J_ref_true`` or J* is missing)."""
    out = rows[[*SETTING, "config"]].drop_duplicates()
    if optima is None or "J_ref_true" not in rows.columns:
        return out.assign(paired_med_pct=np.nan, paired_max_pct=np.nan)
    star = optima.drop_duplicates(SETTING)[[*SETTING, "J_star"]]
    r = rows.merge(star, on=SETTING, how="left")
    r["paired"] = 100.0 * (r[PRECISE.J] - r["J_ref_true"]) / r["J_star"].abs()
    agg = r.groupby([*SETTING, "config"], sort=False)["paired"].agg(["median", "max"])
    agg = agg.rename(columns={"median": "paired_med_pct", "max": "paired_max_pct"})
    return out.merge(agg.reset_index(), on=[*SETTING, "config"], how="left")


def _best_known(stats: pd.DataFrame, optima: pd.DataFrame | None) -> pd.DataFrame:
    best = stats.groupby(SETTING, sort=False)["J_med"].min().rename("best_known").reset_index()
    best["best_known_se"] = np.nan
    best["best_source"] = "best median"
    if optima is None:
        return best
    star = optima.drop_duplicates(SETTING).set_index(SETTING)
    key = pd.MultiIndex.from_frame(best[SETTING])
    j_star = star["J_star"].reindex(key).to_numpy(dtype=float)
    se = star["J_star_se"] if "J_star_se" in star.columns else pd.Series(np.nan, index=star.index)
    has_star = np.isfinite(j_star)
    best.loc[has_star, "best_known"] = j_star[has_star]
    best.loc[has_star, "best_known_se"] = se.reindex(key).to_numpy(dtype=float)[has_star]
    best.loc[has_star, "best_source"] = "J*"
    return best


ANSWER_COLUMNS = [*SETTING, "config", "name", "n", "x_med", "J_med", "J_x0_med", "x0_on",
                  "no_better", "compared"]


def answers_table(results: pd.DataFrame) -> pd.DataFrame:
    """What each configuration answered and how it compares with the start x0: per setting
    and configuration, the coordinate-wise median x* over replications, and, on the most
    precise evaluation that has both x* and x0 (exact, the precise sample, the common pool:
    :func:`~acfs_cli.results.read.versus_start`), the median J of x* and of x0 and the
    replications whose answer is no better than x0 (``no_better`` of ``compared``)."""
    rows = usable(prepare(results))
    start = versus_start(rows)
    rows = rows.assign(_J=start["J"], _J0=start["J_x0"], _no_better=start["no_better"],
                       _on=start["on"])
    records = []
    for key, block in rows.groupby([*SETTING, "config", "name", "order"], sort=True):
        xs = [x for x in block["x"] if x is not None]
        compared = block[np.isfinite(block["_J0"])]
        on = compared["_on"].mode()
        records.append({
            **dict(zip([*SETTING, "config", "name", "order"], key, strict=True)),
            "n": len(block),
            "x_med": np.median(np.vstack(xs), axis=0).tolist() if xs else None,
            "J_med": compared["_J"].median() if len(compared) else np.nan,
            "J_x0_med": compared["_J0"].median() if len(compared) else np.nan,
            "x0_on": on.iloc[0] if len(on) else "",
            "no_better": int(compared["_no_better"].sum()),
            "compared": len(compared),
        })
    table = pd.DataFrame.from_records(records, columns=[*ANSWER_COLUMNS, "order"])
    table = table.sort_values([*SETTING, "order"], kind="stable")
    return table[ANSWER_COLUMNS].reset_index(drop=True)

