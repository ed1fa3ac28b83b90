"""How far each decision is from the optimum: one quality measure for every table and figure of
progress, budgets and the problem library.

The measure of a setting (problem, lam, alpha) is, lower being better and 0 the optimum:

* ``gap``: for a problem that knows its optimum, SimOpt's normalised gap
  ``100 (J(x) - J*) / (J(x0) - J*)`` on exact values (``J_exact``, ``J_star_exact``,
  ``J_x0``; x0 is the problem's stated reference decision, so 100 means no better than x0);
* ``gap_true``: else, with a large-sample ``J_true``, x0's on the same sample
  (``J_x0_true``) and the replication's reference floor ``J_ref_true``, the same normalised
  gap on that sample ``100 (J_true - J_ref_true) / (J_x0_true - J_ref_true)``;
* ``paired``: else, with a large-sample ``J_true`` and the replication's reference floor
  ``J_ref_true`` (the reference minimiser on the same precise sample), the paired regret
  ``100 (J_true - J_ref_true) / |J*|``;
* ``regret``: else, with ``J_true`` and a reference optimum J* only, the plain regret
  ``100 (J_true - J*) / |J*|``;
* none otherwise: the setting is left out.

A setting takes the first of these that every completed cell has (else the first that some
have). The same formula gives the quality of each checkpoint's incumbent from ``cp_J_exact``
or ``cp_J_true``; a replication had no incumbent yet at a checkpoint where these are NaN: its
quality there is that of x0 (100) under the normalised gaps, SimOpt's convention that a solver
recommends x0 until it has an answer, and +inf under the regrets, which have no x0 (worse than
anything, never solved; a median that reaches it is +inf).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acfs_cli.common.seeding import stream
from acfs_cli.report.stats import median_curve_area_ci, quantile, solved_share
from acfs_cli.report.tables import prepare
from acfs_cli.results.read import SETTING, usable

GAP, GAP_TRUE, PAIRED, REGRET = "gap", "gap_true", "paired", "regret"
MEASURES = (GAP, GAP_TRUE, PAIRED, REGRET)
#: The measures measured from x0: 100 is no better than the start.
FROM_X0 = (GAP, GAP_TRUE)

#: How tables and figures name each measure: (short plain, LaTeX, long description).
MEASURE_NAMES: dict[str, tuple[str, str, str]] = {
    GAP: ("normalised gap %", r"normalised gap (\%)",
          "normalised gap 100 (J(x) - J*) / (J(x0) - J*), exact values"),
    GAP_TRUE: ("normalised gap %", r"normalised gap (\%)",
               "normalised gap 100 (J_true - J_ref_true) / (J_x0_true - J_ref_true) on the "
               "replication's precise sample"),
    PAIRED: ("paired regret %", r"paired regret (\%)",
             "paired regret 100 (J_true - J_ref_true) / |J*| on the replication's precise sample"),
    REGRET: ("regret %", r"regret (\%)", "regret 100 (J_true - J*) / |J*|, large-sample J"),
}

#: Solvability thresholds (%): a replication is solved within 1 % and within 5 %.
THRESHOLDS = (1.0, 5.0)

#: Keys of one progress curve: a setting, a budget and a configuration.
CURVE = [*SETTING, "budget", "config", "name", "order"]

_AUC_SEED = 20240611
_AUC_RESAMPLES = 1000


def _numbers(frame: pd.DataFrame, column: str) -> pd.Series:
    if column not in frame.columns:
        return pd.Series(np.nan, index=frame.index)
    return pd.to_numeric(frame[column], errors="coerce").astype(float)


def _star(frame: pd.DataFrame, optima: pd.DataFrame | None) -> pd.Series:
    """The reference optimum J* of each row's setting (NaN where there is none)."""
    if optima is None or frame.empty:
        return pd.Series(np.nan, index=frame.index)
    star = optima.drop_duplicates(SETTING)[[*SETTING, "J_star"]]
    merged = frame[SETTING].merge(star, on=SETTING, how="left")
    return pd.Series(merged["J_star"].to_numpy(dtype=float), index=frame.index)


def _scales(frame: pd.DataFrame, optima: pd.DataFrame | None) -> dict[str, tuple]:
    """Per measure, the (offset, scale) of each row: quality = 100 (J - offset) / scale."""
    star_exact = _numbers(frame, "J_star_exact")
    star = _star(frame, optima)
    with np.errstate(invalid="ignore"):
        spread = _numbers(frame, "J_x0") - star_exact
    spread = spread.where(spread > 0)
    floor = _numbers(frame, "J_ref_true")
    with np.errstate(invalid="ignore"):
        spread_true = _numbers(frame, "J_x0_true") - floor
    return {
        GAP: (star_exact, spread),
        GAP_TRUE: (floor, spread_true.where(spread_true > 0)),
        PAIRED: (_numbers(frame, "J_ref_true"), star.abs().where(star != 0)),
        REGRET: (star, star.abs().where(star != 0)),
    }


#: The value each measure reads: of x*, and of the checkpoints' incumbents.
_FINAL = {GAP: "J_exact", GAP_TRUE: "J_true", PAIRED: "J_true", REGRET: "J_true"}
_CHECKPOINT = {GAP: "cp_J_exact", GAP_TRUE: "cp_J_true", PAIRED: "cp_J_true",
               REGRET: "cp_J_true"}


def _measure_of(values: dict[str, pd.Series]) -> str | None:
    """The first measure every row has, else the first some rows have, else None."""
    for need in ("all", "any"):
        for measure in MEASURES:
            finite = np.isfinite(values[measure])
            if len(finite) and getattr(finite, need)():
                return measure
    return None


def with_quality(results: pd.DataFrame, optima: pd.DataFrame | None = None) -> pd.DataFrame:
    """The completed rows (status ok, finite J) of settings that have a measure, prepared
    (:func:`~acfs_cli.report.tables.prepare`), with ``measure``, the row's ``q_offset`` and
    ``q_scale`` (quality = 100 (J - q_offset) / q_scale, for x* and for its checkpoints) and
    ``quality``: the quality (%) of the cell's final x*."""
    rows = usable(prepare(results))
    parts = []
    for _, block in rows.groupby(SETTING, sort=True):
        scales = _scales(block, optima)
        values = {}
        for measure in MEASURES:
            offset, scale = scales[measure]
            with np.errstate(invalid="ignore"):
                values[measure] = 100.0 * (_numbers(block, _FINAL[measure]) - offset) / scale
        measure = _measure_of(values)
        if measure is None:
            continue
        offset, scale = scales[measure]
        quality = values[measure]
        part = block.assign(measure=measure, q_offset=offset, q_scale=scale, quality=quality)
        parts.append(part[np.isfinite(quality)])
    if not parts:
        return rows.iloc[:0].assign(measure=pd.Series(dtype=str), q_offset=np.nan,
                                    q_scale=np.nan, quality=np.nan)
    return pd.concat(parts)


def checkpoint_quality(rated: pd.DataFrame) -> pd.DataFrame:
    """One row per cell and checkpoint of ``rated`` (:func:`with_quality`) that holds
    checkpoints: the curve's keys, ``rep``, ``fraction`` (of the budget), ``draws`` and the
    incumbent's ``quality`` (100 under the normalised gap and +inf under a regret where there
    was no incumbent yet: see the module's description)."""
    columns = [*CURVE, "rep", "measure", "fraction", "draws", "quality"]
    if "cp_fraction" not in rated.columns or rated.empty:
        return pd.DataFrame(columns=columns)
    rated = rated[rated["cp_fraction"].map(lambda v: v is not None and len(v) > 0)]
    if rated.empty:
        return pd.DataFrame(columns=columns)
    lengths = rated["cp_fraction"].map(len).to_numpy()

    def flat(column: str) -> np.ndarray:
        if column not in rated.columns:
            return np.full(lengths.sum(), np.nan)
        return np.concatenate([np.full(n, np.nan) if v is None else np.asarray(v, dtype=float)
                               for v, n in zip(rated[column], lengths, strict=True)])

    long = rated[[*CURVE, "rep", "measure"]].iloc[np.repeat(np.arange(len(rated)), lengths)]
    measure = long["measure"].to_numpy()
    value = np.full(len(long), np.nan)
    for name in MEASURES:
        at = measure == name
        if at.any():
            value[at] = flat(_CHECKPOINT[name])[at]
    offset = np.repeat(rated["q_offset"].to_numpy(dtype=float), lengths)
    scale = np.repeat(rated["q_scale"].to_numpy(dtype=float), lengths)
    with np.errstate(invalid="ignore"):
        quality = 100.0 * (value - offset) / scale
    none_yet = np.isnan(value)
    quality[none_yet] = np.where(np.isin(measure[none_yet], FROM_X0), 100.0, np.inf)
    long = long.assign(fraction=flat("cp_fraction"), draws=flat("cp_draws"), quality=quality)
    long = long[np.isfinite(long["fraction"].to_numpy())]
    return long[columns].reset_index(drop=True)


def _summary(values: np.ndarray) -> dict:
    return {
        "n": int(values.size),
        "median": quantile(values, 0.5),
        "q25": quantile(values, 0.25),
        "q75": quantile(values, 0.75),
        "worst": float(np.max(values)) if values.size else np.nan,
        **{f"solved_{t:g}": 100.0 * solved_share(values, t) for t in THRESHOLDS},
    }


def checkpoint_table(points: pd.DataFrame) -> pd.DataFrame:
    """Per progress curve and checkpoint: replications, median, quartiles and worst quality,
    the share (%) of replications solved within each threshold and the number without an
    incumbent yet."""
    records = []
    keys = [*CURVE, "measure", "fraction"]
    for key, block in points.groupby(keys, sort=True):
        values = block["quality"].to_numpy(dtype=float)
        records.append({**dict(zip(keys, key, strict=True)),
                        "draws": float(block["draws"].median()), **_summary(values),
                        "no_incumbent": int(np.isinf(values).sum())})
    columns = [*keys, "draws", "n", "median", "q25", "q75", "worst",
               *(f"solved_{t:g}" for t in THRESHOLDS), "no_incumbent"]
    table = pd.DataFrame.from_records(records, columns=columns)
    return _ordered(table, ["fraction"])


def _ordered(table: pd.DataFrame, then: list[str]) -> pd.DataFrame:
    table = table.sort_values([*SETTING, "budget", "order", *then], kind="stable")
    return table.drop(columns="order").reset_index(drop=True)


def area_table(points: pd.DataFrame, n_boot: int = _AUC_RESAMPLES,
               seed: int = _AUC_SEED) -> pd.DataFrame:
    """Area under each median progress curve (quality against the budget fraction, trapezoids
    between checkpoints; lower is better) with a 95 % percentile bootstrap interval over
    replications.

    Within a setting and budget every method is measured over the same span of checkpoints:
    the last ones, back to the earliest from which on every method's median is finite (the
    median of a method without an incumbent yet in half its replications is +inf under a
    regret). Replications missing a checkpoint are left out.
    The bootstrap stream is named by the setting, budget and configuration.
    """
    columns = [*CURVE, "measure", "n", "span_from", "span_to", "checkpoints", "auc", "auc_lo",
               "auc_hi"]
    records = []
    for key, block in points.groupby([*SETTING, "budget"], sort=True):
        wide = {c: g.pivot_table(index="rep", columns="fraction", values="quality",
                                 aggfunc="first").dropna()
                for c, g in block.groupby(["config", "name", "order", "measure"], sort=True)}
        fractions = sorted(block["fraction"].unique())
        span: list[float] = []  # the last checkpoints, back to the first with an infinite median
        for f in reversed(fractions):
            if not all(f in w.columns and np.isfinite(np.median(w[f]))
                       for w in wide.values() if len(w)):
                break
            span.insert(0, f)
        for (config, name, order, measure), w in wide.items():
            record = {**dict(zip([*SETTING, "budget"], key, strict=True)), "config": config,
                      "name": name, "order": order, "measure": measure, "n": len(w),
                      "checkpoints": len(span)}
            if len(span) >= 2 and len(w):
                values = w[span].to_numpy(dtype=float)
                rng = stream(seed, "report-auc", *key, config)
                ci = median_curve_area_ci(span, values, n_boot=n_boot, rng=rng)
                record.update(span_from=span[0], span_to=span[-1], auc=ci.area, auc_lo=ci.lo,
                              auc_hi=ci.hi)
            records.append(record)
    table = pd.DataFrame.from_records(records, columns=[*columns])
    return _ordered(table, [])


def budget_quality_table(rated: pd.DataFrame) -> pd.DataFrame:
    """Per setting, configuration and budget: the quality of the final x* (each method planned
    for its budget): replications, median, quartiles, worst and the share (%) solved within
    each threshold; where the problem declares stochastic constraints, how many answers were
    shown feasible (``shown_feasible`` of ``constrained``)."""
    records = []
    for key, block in rated.groupby(CURVE + ["measure"], sort=True):
        flag = (block["feasible"] if "feasible" in block else pd.Series("", index=block.index)
                ).fillna("").astype(str)
        records.append({**dict(zip([*CURVE, "measure"], key, strict=True)),
                        **_summary(block["quality"].to_numpy(dtype=float)),
                        # answers of a constrained problem shown feasible, beside those that
                        # were not: an answer not shown feasible keeps its gap, and is counted
                        "shown_feasible": int((flag == "feasible").sum()),
                        "constrained": int((flag != "").sum())})
    columns = [*CURVE, "measure", "n", "median", "q25", "q75", "worst",
               *(f"solved_{t:g}" for t in THRESHOLDS), "shown_feasible", "constrained"]
    return _ordered(pd.DataFrame.from_records(records, columns=columns), [])


def library_gap_table(rated: pd.DataFrame) -> pd.DataFrame:
    """Per problem (setting), budget and configuration, over the settings whose measure is the
    exact normalised gap: replications, median and worst gap, and the method's rank of the
    median within its problem (1 best, average ranks for ties)."""
    gaps = budget_quality_table(rated[rated["measure"] == GAP])
    gaps = gaps.drop(columns=["measure", "q25", "q75",
                              *(f"solved_{t:g}" for t in THRESHOLDS)])
    gaps["rank"] = gaps.groupby([*SETTING, "budget"])["median"].rank(method="average")
    return gaps


def library_ranking_table(gaps: pd.DataFrame) -> pd.DataFrame:
    """Per budget and configuration, across the problems of :func:`library_gap_table`: the
    mean rank of the median gap, the number of problems, and the share (%) of them solved
    within each threshold, by the median gap and by the worst replication's gap."""
    records = []
    for budget, block in gaps.groupby("budget", sort=True):
        n_problems = block[SETTING].drop_duplicates().shape[0]
        for (config, name), g in block.groupby(["config", "name"], sort=False):
            record = {"budget": budget, "config": config, "name": name,
                      "problems": len(g), "of": n_problems, "mean_rank": g["rank"].mean()}
            for by in ("median", "worst"):
                for t in THRESHOLDS:
                    record[f"solved_{t:g}_{by}"] = 100.0 * solved_share(g[by], t)
            records.append(record)
    columns = ["budget", "config", "name", "problems", "of", "mean_rank",
               *(f"solved_{t:g}_{by}" for by in ("median", "worst") for t in THRESHOLDS)]
    # the configurations in the order of every table (gaps come in it, problem by problem)
    table = pd.DataFrame.from_records(records, columns=columns)
    return table.sort_values("budget", kind="stable").reset_index(drop=True)
