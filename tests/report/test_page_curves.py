"""The study page's progress curves, solvability profiles and areas are SimOpt's: each is
computed here by SimOpt's own functions (simoptlib 1.2.4, ``simopt.curve`` and
``simopt.curve_utils``) on the same checkpoints and compared with the page's."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from acfs_cli.report.page_curves import (
    BAND,
    SOLVE_QUANTILE,
    TOLERANCES,
    area_scatter,
    progress_table,
    replication_curves,
    simopt_quantile,
    solvability_profiles,
)

curve = pytest.importorskip("simopt.curve", reason="simoptlib (the simopt extra) is not installed")
curve_utils = pytest.importorskip("simopt.curve_utils")

FRACTIONS = [0.1, 0.25, 0.5, 1.0]
BUDGET = 1000


def checkpoints(n_problems: int = 4, n_reps: int = 5, seed: int = 7) -> pd.DataFrame:
    """Checkpoint quality rows (as ``checkpoint_quality`` gives them) of three methods on
    ``n_problems`` problems: gaps that fall at random rates, ties at 100 (no incumbent yet:
    x0) and at 0, some below every tolerance and some never."""
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(n_problems):
        for order, config in enumerate(("fast", "slow", "stuck")):
            for rep in range(n_reps):
                rate = {"fast": 0.05, "slow": 0.5, "stuck": 1.0}[config] * rng.uniform(0.5, 1.5)
                gap = 100.0
                for f in FRACTIONS:
                    if config != "stuck" and not (f == FRACTIONS[0] and rep == 0):
                        gap = min(gap, 100.0 * rate ** (4 * f) * rng.uniform(0.5, 1.0))
                    if config == "fast" and rep == 1 and f == 1.0:
                        gap = 0.0
                    rows.append({"problem": f"p{p}", "lam": 0.7, "alpha": 0.95, "budget": BUDGET,
                                 "config": config, "name": config.upper(), "order": order,
                                 "rep": rep, "measure": "gap", "fraction": f,
                                 "draws": f * BUDGET, "quality": gap})
    return pd.DataFrame(rows)


def simopt_curves(points: pd.DataFrame) -> dict[tuple, list]:
    """Each replication's progress curve as SimOpt builds one: x0's point (0, 1), then the
    normalised gap (a fraction) of each recommended solution at its budget fraction."""
    out = {}
    for key, block in points.groupby(["problem", "lam", "alpha", "budget", "config"]):
        out[key] = [curve.Curve([0.0, *rep["fraction"]], [1.0, *(rep["quality"] / 100.0)])
                    for _, rep in block.sort_values("fraction").groupby("rep")]
    return out


def test_a_replications_curve_is_simopts_progress_curve():
    points = checkpoints()
    ours = replication_curves(points)
    theirs = simopt_curves(points)
    assert ours.keys() == theirs.keys()
    for key, curves in ours.items():
        for mine, simopt in zip(curves, theirs[key], strict=True):
            assert mine.x == simopt.x_vals and mine.y == pytest.approx(simopt.y_vals)
            for tol in TOLERANCES:
                assert mine.crossing(tol) == simopt.compute_crossing_time(tol)
            assert mine.area() == pytest.approx(simopt.compute_area_under_curve())


def test_the_median_and_band_are_simopts_quantiles_of_curves():
    points = checkpoints()
    table = progress_table(points)
    theirs = simopt_curves(points)
    for key, curves in theirs.items():
        rows = table[(table["problem"] == key[0]) & (table["config"] == key[4])]
        for column, beta in (("median", 0.5), ("lo", BAND[0]), ("hi", BAND[1])):
            q = curve_utils.quantile_of_curves(curves, beta)
            expected = [100.0 * q.lookup(f) for f in rows["fraction"]]
            assert rows[column].to_numpy() == pytest.approx(expected), (key, column)


def test_the_solvability_profiles_are_simopts():
    points = checkpoints()
    theirs = simopt_curves(points)
    profiles = solvability_profiles(replication_curves(points))
    for config in ("fast", "slow", "stuck"):
        problems = [c for k, c in sorted(theirs.items()) if k[4] == config]
        for tol in TOLERANCES:
            cdf = curve_utils.mean_of_curves(
                [curve_utils.cdf_of_curves_crossing_times(c, tol) for c in problems])
            jump = curve_utils.mean_of_curves(
                [curve_utils.quantile_cross_jump(c, tol, SOLVE_QUANTILE) for c in problems])
            for kind, expected in (("cdf", cdf), ("quantile", jump)):
                row = profiles[(profiles["config"] == config) & (profiles["tol"] == tol)
                               & (profiles["kind"] == kind)].iloc[0]
                assert row["problems"] == len(problems)
                assert row["x"] == pytest.approx(list(expected.x_vals)), (config, tol, kind)
                assert row["y"] == pytest.approx(list(expected.y_vals)), (config, tol, kind)


def test_the_profiles_tell_fast_from_stuck_methods():
    profiles = solvability_profiles(replication_curves(checkpoints()))
    at_end = profiles[(profiles["tol"] == 0.05) & (profiles["kind"] == "cdf")].set_index(
        "config")["y"].map(lambda y: y[-1])
    assert at_end["stuck"] == 0.0 and at_end["fast"] > at_end["slow"]


def test_the_area_scatter_is_simopts_mean_and_sd_of_areas():
    points = checkpoints()
    areas = area_scatter(replication_curves(points))
    for key, curves in simopt_curves(points).items():
        values = [c.compute_area_under_curve() for c in curves]
        row = areas[(areas["problem"] == key[0]) & (areas["config"] == key[4])].iloc[0]
        assert row["mean"] == pytest.approx(np.mean(values))
        assert row["sd"] == pytest.approx(np.std(values, ddof=1))


def test_a_stuck_methods_area_is_one_and_a_single_replication_has_no_sd():
    points = checkpoints(n_problems=1, n_reps=1)
    areas = area_scatter(replication_curves(points)).set_index("config")
    assert areas.loc["stuck", "mean"] == pytest.approx(1.0)
    assert math.isnan(areas.loc["fast", "sd"]) and areas.loc["fast", "n"] == 1


def test_simopts_quantile_of_one_value_is_that_value_and_infinity_stays_infinite():
    assert simopt_quantile([3.0], 0.25) == 3.0
    assert simopt_quantile([1.0, 2.0, math.inf, math.inf], 0.75) == math.inf
    values = [5.0, 1.0, 4.0, 2.0, 3.0]
    q = curve_utils.quantile_of_curves([curve.Curve([0, 1], [v, v]) for v in values], 0.25)
    assert simopt_quantile(values, 0.25) == pytest.approx(q.lookup(0.5))


def test_curves_start_at_x0_and_hold_the_last_checkpoint_to_the_full_budget():
    points = checkpoints(n_problems=1, n_reps=2)
    points = points[points["fraction"] < 1.0]
    curves = replication_curves(points)
    first = next(iter(curves.values()))[0]
    assert first.x[0] == 0.0 and first.y[0] == 1.0
    assert first.x[-1] == 1.0 and first.y[-1] == first.y[-2]


def test_regret_settings_have_no_simopt_curves():
    points = checkpoints(n_problems=1).assign(measure="regret")
    assert replication_curves(points) == {}
    assert not progress_table(points).empty  # the median curve is still drawn
