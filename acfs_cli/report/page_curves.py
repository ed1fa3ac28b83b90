"""SimOpt's progress curves, solvability profiles and area scatter, computed from the report's
checkpoints (:func:`~acfs_cli.report.quality.checkpoint_quality`) for the study page.

The definitions are SimOpt's (simoptlib 1.2.4, ``simopt.curve`` and ``simopt.curve_utils``),
written again here so that the page needs no SimOpt installed; a test checks each against
SimOpt's own functions on the same data:

* a replication's **progress curve** is its incumbent's normalised gap, as a fraction
  (``quality / 100``), against the fraction of the budget spent: a step function that starts
  at (0, 1) (x0 until there is an answer) and holds each checkpoint's value until the next;
* the median and the band of a method's curves are SimOpt's ``quantile_of_curves``: at each
  budget fraction, ``statistics.quantiles(values, n=100)[int(beta * 99)]`` of the
  replications' values;
* a replication solves a problem within ``tol`` at the first budget fraction where its curve
  is below ``tol`` (``Curve.compute_crossing_time``, strictly below);
* the **CDF solvability profile** of a method is the mean over problems of the share of
  replications that have solved by each budget fraction (``cdf_of_curves_crossing_times``,
  then ``mean_of_curves``); the **quantile solvability profile** the share of problems whose
  ``beta`` quantile of solve times is reached (``quantile_cross_jump``, then
  ``mean_of_curves``);
* the **area** of a replication is the area under its step curve (``compute_area_under_curve``);
  the scatter shows, per problem and method, the mean area and its standard deviation (ddof 1)
  over replications.

A problem here is a setting (problem, lam, alpha). Only settings whose measure is a normalised
gap (measured from x0: :data:`~acfs_cli.report.quality.FROM_X0`) have SimOpt's curves; the
regrets have no x0 to start from.
"""

from __future__ import annotations

import math
import statistics
from bisect import bisect_right
from dataclasses import dataclass

import numpy as np
import pandas as pd

from acfs_cli.report.quality import CURVE, FROM_X0
from acfs_cli.results.read import SETTING

#: Solve tolerances (fractions of the gap between x0 and the optimum): the report's 1 % and
#: 5 % and SimOpt's default 10 %.
TOLERANCES = (0.01, 0.05, 0.10)
#: The band around the median progress curve: SimOpt's quantiles at these levels.
BAND = (0.25, 0.75)
#: The quantile of solve times of the quantile solvability profile (SimOpt's default).
SOLVE_QUANTILE = 0.5


def simopt_quantile(values, beta: float) -> float:
    """SimOpt's quantile of ``values`` at level ``beta`` (``quantile_of_curves``): cut point
    ``int(beta * 99)`` of ``statistics.quantiles(values, n=100)``; a single value is its own
    quantile (SimOpt needs two), and a quantile that reaches an infinite value is +inf."""
    values = [float(v) for v in values]
    if not values:
        return math.nan
    if len(values) == 1:
        return values[0]
    value = statistics.quantiles(values, n=100)[int(beta * 99)]
    return math.inf if math.isnan(value) else float(value)


@dataclass(frozen=True)
class StepCurve:
    """A step function through ``(x[i], y[i])``, each value held until the next x."""

    x: tuple[float, ...]
    y: tuple[float, ...]

    def lookup(self, at: float) -> float:
        """The value at ``at``; NaN outside the curve's span (``Curve.lookup``)."""
        if at < self.x[0] or at > self.x[-1]:
            return math.nan
        return self.y[bisect_right(self.x, at) - 1]

    def crossing(self, tol: float) -> float:
        """The first x where the curve is below ``tol``, +inf if never
        (``Curve.compute_crossing_time``)."""
        for x, y in zip(self.x, self.y, strict=True):
            if y < tol:
                return x
        return math.inf

    def area(self) -> float:
        """The area under the steps (``Curve.compute_area_under_curve``)."""
        return float(sum(y * (b - a) for a, b, y in zip(self.x[:-1], self.x[1:], self.y[:-1],
                                                        strict=True)))


def mean_curve(curves: list[StepCurve]) -> StepCurve:
    """The pointwise mean of ``curves`` at the union of their x (``mean_of_curves``)."""
    xs = sorted({x for c in curves for x in c.x})
    return StepCurve(tuple(xs), tuple(float(np.mean([c.lookup(x) for c in curves]))
                                      for x in xs))


def cdf_of_crossings(curves: list[StepCurve], tol: float) -> StepCurve:
    """The share of ``curves`` below ``tol`` by each budget fraction
    (``cdf_of_curves_crossing_times``)."""
    times = sorted(c.crossing(tol) for c in curves)
    xs = [0.0, *sorted({t for t in times if t < math.inf}), 1.0]
    return StepCurve(tuple(xs), tuple(bisect_right(times, x) / len(times) for x in xs))


def quantile_jump(curves: list[StepCurve], tol: float, beta: float) -> StepCurve:
    """0, then 1 from the ``beta`` quantile of the solve times of ``curves`` on
    (``quantile_cross_jump``); 0 throughout when that quantile is not finite."""
    times = [c.crossing(tol) for c in curves]
    if len(times) == 1:
        at = times[0]
    else:
        at = statistics.quantiles(times, n=100)[int(beta * 99)]
    if math.isinf(at) or math.isnan(at):
        return StepCurve((0.0, 1.0), (0.0, 0.0))
    return StepCurve((0.0, float(at), 1.0), (0.0, 1.0, 1.0))


def replication_curves(points: pd.DataFrame) -> dict[tuple, list[StepCurve]]:
    """Per (setting, budget, config) of a normalised gap, each replication's progress curve
    from its checkpoints: (0, 1), then (fraction, quality / 100) at each checkpoint, held to
    the end of the budget (a point at 1 where the last checkpoint is earlier)."""
    normalised = points[points["measure"].isin(FROM_X0)]
    out: dict[tuple, list[StepCurve]] = {}
    for key, block in normalised.groupby([*SETTING, "budget", "config"], sort=True):
        curves = []
        for _, rep in block.groupby("rep", sort=True):
            rep = rep.sort_values("fraction")
            xs = [0.0, *rep["fraction"].astype(float)]
            ys = [1.0, *(rep["quality"].astype(float) / 100.0)]
            if xs[1] == 0.0:  # a checkpoint at the start replaces x0's point
                xs, ys = xs[1:], ys[1:]
            if xs[-1] < 1.0:
                xs, ys = [*xs, 1.0], [*ys, ys[-1]]
            curves.append(StepCurve(tuple(xs), tuple(ys)))
        out[key] = curves
    return out


def progress_table(points: pd.DataFrame) -> pd.DataFrame:
    """Per progress curve (setting, budget, config) and checkpoint: the median draws, the
    replications and SimOpt's median and band (:data:`BAND`) of the quality (%) over
    replications, for every measure (a regret without an incumbent is +inf)."""
    keys = [*CURVE, "measure", "fraction"]
    records = []
    for key, block in points.groupby(keys, sort=True):
        values = block["quality"].to_numpy(dtype=float)
        records.append({**dict(zip(keys, key, strict=True)),
                        "draws": float(block["draws"].median()), "n": len(values),
                        "median": simopt_quantile(values, 0.5),
                        "lo": simopt_quantile(values, BAND[0]),
                        "hi": simopt_quantile(values, BAND[1])})
    columns = [*keys, "draws", "n", "median", "lo", "hi"]
    table = pd.DataFrame.from_records(records, columns=columns)
    return table.sort_values([*SETTING, "budget", "order", "fraction"], kind="stable")


def solvability_profiles(curves: dict[tuple, list[StepCurve]],
                         tolerances=TOLERANCES, beta: float = SOLVE_QUANTILE) -> pd.DataFrame:
    """Per budget, config and tolerance, SimOpt's CDF and quantile solvability profiles over
    the settings of ``curves`` (:func:`replication_curves`): ``kind`` ("cdf" or
    "quantile"), the profile's ``x`` and ``y`` (lists) and the number of ``problems``."""
    by_method: dict[tuple, list[list[StepCurve]]] = {}
    for (*_, budget, config), reps in curves.items():
        by_method.setdefault((budget, config), []).append(reps)
    records = []
    for (budget, config), problems in sorted(by_method.items()):
        for tol in tolerances:
            for kind, one in (("cdf", lambda c, t=tol: cdf_of_crossings(c, t)),
                              ("quantile", lambda c, t=tol: quantile_jump(c, t, beta))):
                profile = mean_curve([one(reps) for reps in problems])
                records.append({"budget": budget, "config": config, "tol": tol, "kind": kind,
                                "problems": len(problems), "x": list(profile.x),
                                "y": list(profile.y)})
    return pd.DataFrame.from_records(
        records, columns=["budget", "config", "tol", "kind", "problems", "x", "y"])


def area_scatter(curves: dict[tuple, list[StepCurve]]) -> pd.DataFrame:
    """Per setting, budget and config: replications, and the mean and standard deviation
    (ddof 1, NaN for one replication) of the area under their progress curves."""
    records = []
    for key, reps in curves.items():
        areas = np.array([c.area() for c in reps])
        records.append({**dict(zip([*SETTING, "budget", "config"], key, strict=True)),
                        "n": areas.size, "mean": float(areas.mean()),
                        "sd": float(areas.std(ddof=1)) if areas.size > 1 else math.nan})
    return pd.DataFrame.from_records(
        records, columns=[*SETTING, "budget", "config", "n", "mean", "sd"])
