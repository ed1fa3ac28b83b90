"""What a run scores: the incumbent each checkpoint evaluates, and the report's regret and gap
when the objective is negative (a profit written as a negative cost).

The checkpoint tests run a scripted user method, named by import path from a YAML
configuration as a user would, that records its incumbents at chosen draw counts on the
price-setting newsvendor (whose J is a profit, so negative, and known exactly); the expected
values come from the newsvendor's closed form and from a hand evaluation on the common pool.
"""

from __future__ import annotations

import json
import math
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from acfs_cli.common.seeding import seed_sequence
from acfs_cli.experiment.cell import run_cell
from acfs_cli.experiment.config import load
from acfs_cli.experiment.grid import build_cells
from acfs_cli.problems.library import PriceNewsvendor
from acfs_cli.report.quality import GAP, PAIRED, REGRET, checkpoint_quality, with_quality
from acfs_cli.report.stats import gap_pct
from acfs_cli.report.tables import true_gap_table
from acfs_cli.results.schema import COLUMNS

LAM, ALPHA, SEED, BUDGET, POOL = 0.7, 0.95, 11, 1000, 400

#: The scripted incumbents: (draws used when recorded, decision (price, quantity)).
SCRIPT = [
    (50, (5.0, 20.0)),  # A
    (100, (6.0, 25.0)),  # B: exactly at the 0.1 checkpoint (100 draws)
    (251, (7.0, 30.0)),  # C: one draw after the 0.25 checkpoint (250 draws)
    (333, (8.0, 28.0)),  # D: at floor(0.3337 * 1000) = 333
    (334, (9.0, 24.0)),  # E: one draw after it (round or ceil would reach it)
    (500, (10.0, 20.0)),  # F: exactly at the 0.5 checkpoint
    (800, (7.5, 26.0)),  # G: the trajectory's last entry
]
#: What the method returns: never recorded, so it differs from the trajectory's last entry.
X_STAR = (6.5, 27.0)
CHECKPOINTS = [0.02, 0.1, 0.25, 0.3337, 0.5, 1.0]
#: floor(f * 1000) for each checkpoint, and the incumbent scored there (None: none yet).
CP_DRAWS = [20, 100, 250, 333, 500, 1000]
SCORED = [None, SCRIPT[1][1], SCRIPT[1][1], SCRIPT[3][1], SCRIPT[5][1], X_STAR]

METHOD_MODULE = textwrap.dedent(f"""
    import numpy as np

    from acfs_cli.methods import Method, MethodResult, Settings

    SCRIPT = {SCRIPT!r}
    X_STAR = {X_STAR!r}


    def search(task, oracle, settings, rng):
        x_prev = np.asarray(SCRIPT[0][1], dtype=float)
        for draws, x in SCRIPT:
            oracle.draw(x_prev, draws - oracle.used)
            oracle.record_best(np.asarray(x, dtype=float), -float(draws), replace=True)
            x_prev = np.asarray(x, dtype=float)
        return MethodResult(x=np.asarray(X_STAR, dtype=float), value=-1.0)


    SCRIPTED = Method("scripted", Settings, search, summary="incumbents at chosen draws")
""")


@pytest.fixture
def scripted_cell(tmp_path, monkeypatch):
    """The one cell of a configuration that runs the scripted method on the newsvendor."""
    monkeypatch.setattr(sys, "path", list(sys.path))  # load() puts tmp_path on it
    (tmp_path / "scripted_incumbents.py").write_text(METHOD_MODULE)
    (tmp_path / "scripted.yaml").write_text(textwrap.dedent(f"""
        name: scripted
        seed: {SEED}
        budget: {BUDGET}
        replications: 1
        checkpoints: {CHECKPOINTS}
        final_eval: {{draws: {POOL}, bootstrap: 0}}
        grid:
          dgp: [price-newsvendor]
          lambda: [{LAM}]
          method: ["scripted_incumbents:SCRIPTED"]
    """))
    yield build_cells(load(tmp_path / "scripted.yaml"))[0]
    sys.modules.pop("scripted_incumbents", None)


def pool_J(x) -> float:
    """J of decision x on the cell's common evaluation pool, by hand: the pool is the first
    POOL standard normals of the stream (seed, "final-pool", dgp, rep); demand
    D = (a - b p) exp(sigma z - sigma^2 / 2), cost (c - s) q - (p - s) min(D, q), and
    J = mean + lam CVaR with tau the ceil(alpha n)-th smallest cost."""
    z = np.random.Generator(np.random.PCG64(
        seed_sequence(SEED, "final-pool", "price-newsvendor", 0))).standard_normal((POOL, 1))
    p, q = x
    demand = (50.0 - 4.0 * p) * np.exp(0.4 * z[:, 0] - 0.5 * 0.4**2)
    c = np.sort((3.0 - 1.0) * q - (p - 1.0) * np.minimum(demand, q))
    tau = c[math.ceil(ALPHA * c.size) - 1]
    return float(c.mean() + LAM * (tau + np.mean(np.maximum(c - tau, 0.0)) / (1 - ALPHA)))


def exact_J(x) -> float:
    return float(PriceNewsvendor().exact_J(np.asarray(x, dtype=float), LAM, ALPHA))


# ---------------------------------------------------------------------------------------------
# Checkpoints


def test_the_scripted_decisions_are_told_apart_by_their_exact_J():
    # every decision of the script has its own J, so a scored value names its decision
    values = [exact_J(x) for _, x in SCRIPT] + [exact_J(X_STAR)]
    assert len({round(v, 6) for v in values}) == len(values)
    assert all(v < 0 for v in values)  # profits: J is negative


def test_each_checkpoint_scores_the_last_incumbent_recorded_within_its_share_of_the_budget(
        scripted_cell):
    row = run_cell(scripted_cell)
    assert row["status"] == "ok", row["error"]
    assert [d for d, _ in json.loads(row["trajectory"])] == [d for d, _ in SCRIPT]
    assert row["cp_fraction"] == CHECKPOINTS
    assert row["cp_draws"] == [float(d) for d in CP_DRAWS]
    expected_exact = [math.nan if x is None else exact_J(x) for x in SCORED]
    assert row["cp_J_exact"] == pytest.approx(expected_exact, rel=1e-12, nan_ok=True)
    expected_pool = [math.nan if x is None else pool_J(x) for x in SCORED]
    assert row["cp_J"] == pytest.approx(expected_pool, rel=1e-10, nan_ok=True)
    assert all(math.isnan(v) for v in row["cp_J_true"])  # no precise_draws asked


def test_an_incumbent_recorded_exactly_at_the_checkpoint_is_the_one_scored(scripted_cell):
    row = run_cell(scripted_cell)
    at = CHECKPOINTS.index(0.1)  # 100 draws: B was recorded at 100, A at 50
    assert row["cp_J_exact"][at] == pytest.approx(exact_J(SCRIPT[1][1]), rel=1e-12)
    assert row["cp_J_exact"][at] != pytest.approx(exact_J(SCRIPT[0][1]), rel=1e-6)
    at = CHECKPOINTS.index(0.5)  # 500 draws: F was recorded at 500
    assert row["cp_J_exact"][at] == pytest.approx(exact_J(SCRIPT[5][1]), rel=1e-12)


def test_an_incumbent_recorded_one_draw_after_the_checkpoint_is_not_scored(scripted_cell):
    row = run_cell(scripted_cell)
    at = CHECKPOINTS.index(0.25)  # 250 draws: C came at 251, so B is still the incumbent
    assert row["cp_J_exact"][at] == pytest.approx(exact_J(SCRIPT[1][1]), rel=1e-12)
    assert row["cp_J_exact"][at] != pytest.approx(exact_J(SCRIPT[2][1]), rel=1e-6)
    # 0.3337 of 1,000 draws is 333.7: the checkpoint is draw 333 (floor), where D was
    # recorded; E came at 334
    at = CHECKPOINTS.index(0.3337)
    assert row["cp_draws"][at] == 333.0
    assert row["cp_J_exact"][at] == pytest.approx(exact_J(SCRIPT[3][1]), rel=1e-12)
    assert row["cp_J_exact"][at] != pytest.approx(exact_J(SCRIPT[4][1]), rel=1e-6)


def test_a_checkpoint_before_the_first_incumbent_has_no_value(scripted_cell):
    row = run_cell(scripted_cell)
    at = CHECKPOINTS.index(0.02)  # 20 draws; the first incumbent came at 50
    assert math.isnan(row["cp_J_exact"][at]) and math.isnan(row["cp_J"][at])


def test_the_full_budget_checkpoint_scores_the_returned_x_star_not_the_last_incumbent(
        scripted_cell):
    row = run_cell(scripted_cell)
    assert row["x"] == list(X_STAR)
    assert row["cp_J_exact"][-1] == pytest.approx(exact_J(X_STAR), rel=1e-12)
    assert row["cp_J_exact"][-1] != pytest.approx(exact_J(SCRIPT[-1][1]), rel=1e-6)
    assert row["cp_J_exact"][-1] == row["J_exact"]
    assert row["cp_J"][-1] == row["J"] == pytest.approx(pool_J(X_STAR), rel=1e-10)


# ---------------------------------------------------------------------------------------------
# Regret and gap with a negative optimum

#: J* of the hand-made setting: a profit of 50 as a cost of -50.
NEG_STAR = -50.0
OPTIMA = pd.DataFrame({"problem": ["profit"], "lam": [LAM], "alpha": [ALPHA], "J_star": [NEG_STAR],
                       "J_star_se": [0.0]})


def results_row(method: str, rep: int, **values) -> dict:
    """One completed results row with every column the runner writes."""
    empty = {"float64": np.nan, "string": "", "int64": 0, "bool": False, "list<float64>": None}
    out = {c: empty[t] for c, t in COLUMNS.items()}
    out.update(experiment="neg", kind="comparison", cell_id=f"{method}-{rep}", problem="profit",
               lam=LAM, alpha=ALPHA, method=method, label=method, rep=rep, seed=1, J=-1.0,
               EC=-1.0, CVaR=-1.0, oracle_draws=1000, budget=1000, status="ok")
    out.update(values)
    return out


def paired_frame() -> pd.DataFrame:
    """Two replications of two methods on a profit: the reference floor J_ref_true is -50.2
    and -49.9; saa-ps lands 0.3 and 0.4 above it, cem-so 4.0 and 6.0 above."""
    floor = [-50.2, -49.9]
    rows = []
    for method, above in (("saa-ps", [0.3, 0.4]), ("cem-so", [4.0, 6.0])):
        for rep in range(2):
            rows.append(results_row(method, rep, J_true=floor[rep] + above[rep],
                                    J_ref_true=floor[rep], cp_fraction=[0.5, 1.0],
                                    cp_draws=[500.0, 1000.0],
                                    cp_J_true=[floor[rep] + 2 * above[rep],
                                               floor[rep] + above[rep]]))
    return pd.DataFrame(rows)


def test_paired_regret_of_a_worse_method_is_positive_when_J_star_is_negative():
    rated = with_quality(paired_frame(), OPTIMA)
    assert set(rated["measure"]) == {PAIRED}
    q = rated.set_index(["method", "rep"])["quality"]
    # 100 (J_true - J_ref_true) / |J*| = 100 * above / 50
    assert q[("saa-ps", 0)] == pytest.approx(0.6)
    assert q[("saa-ps", 1)] == pytest.approx(0.8)
    assert q[("cem-so", 0)] == pytest.approx(8.0)
    assert q[("cem-so", 1)] == pytest.approx(12.0)
    assert (q > 0).all()


def test_checkpoint_paired_regret_is_positive_when_J_star_is_negative():
    points = checkpoint_quality(with_quality(paired_frame(), OPTIMA))
    q = points.set_index(["config", "rep", "fraction"])["quality"]
    # the incumbent at half the budget is twice as far above the floor as x*
    assert q[("cem-so", 0, 0.5)] == pytest.approx(16.0)
    assert q[("cem-so", 1, 1.0)] == pytest.approx(12.0)
    assert q[("saa-ps", 1, 0.5)] == pytest.approx(1.6)
    assert (q > 0).all()


def test_plain_regret_of_a_worse_method_is_positive_when_J_star_is_negative():
    frame = paired_frame().drop(columns="J_ref_true")
    rated = with_quality(frame, OPTIMA)
    assert set(rated["measure"]) == {REGRET}
    q = rated.set_index(["method", "rep"])["quality"]
    # 100 (J_true - J*) / |J*|: cem-so rep 0 at -46.2 is 3.8 above -50
    assert q[("cem-so", 0)] == pytest.approx(100 * 3.8 / 50)
    assert q[("saa-ps", 1)] == pytest.approx(100 * 0.5 / 50)
    assert q[("saa-ps", 0)] == pytest.approx(100 * 0.1 / 50)


def test_normalised_gap_with_negative_J_values_is_positive_for_a_worse_decision():
    # exact values of a profit: J* = -50, J(x0) = -20; x* at -47 is 10 % of the way to x0
    frame = pd.DataFrame([
        results_row("saa-ps", 0, J_exact=-47.0, J_star_exact=-50.0, J_x0=-20.0),
        results_row("cem-so", 0, J_exact=-35.0, J_star_exact=-50.0, J_x0=-20.0),
    ])
    rated = with_quality(frame, OPTIMA)
    assert set(rated["measure"]) == {GAP}
    q = rated.set_index("method")["quality"]
    assert q["saa-ps"] == pytest.approx(10.0)  # 100 * 3 / 30
    assert q["cem-so"] == pytest.approx(50.0)  # 100 * 15 / 30


def test_true_gap_table_paired_regret_is_positive_when_J_star_is_negative():
    table = true_gap_table(paired_frame(), OPTIMA).set_index("config")
    # medians of 100 * above / 50 over the two replications
    assert table.loc["saa-ps", "paired_med_pct"] == pytest.approx(0.7)
    assert table.loc["saa-ps", "paired_max_pct"] == pytest.approx(0.8)
    assert table.loc["cem-so", "paired_med_pct"] == pytest.approx(10.0)
    assert table.loc["cem-so", "paired_max_pct"] == pytest.approx(12.0)
    # the unpaired regret of the median J: cem-so's J_true are -46.2 and -43.9, median
    # -45.05, 4.95 above -50
    assert table.loc["cem-so", "regret_med_pct"] == pytest.approx(100 * 4.95 / 50)
    assert table.loc["cem-so", "regret_max_pct"] == pytest.approx(100 * 6.1 / 50)


def test_gap_pct_against_a_negative_reference_is_positive_for_the_worse_method():
    assert gap_pct(-45.0, -50.0) == pytest.approx(10.0)
    assert gap_pct(-55.0, -50.0) == pytest.approx(-10.0)
