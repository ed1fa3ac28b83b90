"""A user's own study walked through once, a step per friction a new user met: their problem
by name in ``minimize``, scipy's ``None`` bounds, ``acfs --version``, astro's settings under
``auto`` (and a misspelt one), the search as a table, a small grid read as a table and
reported with headers that name what they measure, and ``acfs solve`` for one problem.

The simulator is ``tests/system/test_user_study.py``'s shop, sample-only with two decisions and no
upper bounds, whose J has a closed form: the numbers are checked against it, against scipy's
minimum of it, and against what the simulator itself saw.
"""

from __future__ import annotations

from importlib.metadata import version

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize as scipy_minimize
from test_user_study import LAM, SHOP, exact_J, invoke

from acfs_cli.api import minimize, read_results

#: The shop, and the same shop telling which decisions its simulator was asked for.
SIMULATORS = SHOP + '''

class Seen(Shop):
    """The shop, keeping the rows its simulator made at each decision."""

    rows = {}

    def sample(self, x, n, rng):
        key = tuple(float(v) for v in x)
        Seen.rows[key] = Seen.rows.get(key, 0) + n
        return super().sample(x, n, rng)
'''

GRID = """\
name: walk
seed: 2
budget: 600
replications: 2
n_jobs: 1
final_eval: {draws: 1000, bootstrap: 50, precise_draws: 5000}
grid:
  problem: [{problem: "shop:Shop", label: shop}]
  lambda: [0.7]
  method: [auto, saa-ps]
"""

BUDGET = 4_000  # auto's epochs and final comparison: 0.3 of it holds 8 models on 20 rows
X0 = (0.0, 2.0)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "shop.py").write_text(SIMULATORS)
    (tmp_path / "walk.yaml").write_text(GRID)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    import shop

    importlib.reload(shop)
    return tmp_path


def test_a_users_study_walks_from_minimize_by_name_to_the_report_and_acfs_solve(folder):
    import shop

    # 1. The problem by name, as a grid names it: the same search as the object's.
    sol = minimize("shop:Seen", budget=BUDGET, seed=1)
    seen = dict(shop.Seen.rows)  # what the simulator made for this run
    same = minimize(shop.Seen(), budget=BUDGET, seed=1)
    assert np.array_equal(sol.x, same.x) and sol.trajectory[-1][0] == same.trajectory[-1][0]
    assert any(n.startswith("auto ran astro in") for n in sol.notes)  # epochs, a comparison
    assert sol.draws_used <= BUDGET
    assert abs(sol.J - exact_J(sol.x)) < 4 * sol.J_se  # J on 20,000 fresh draws at x*
    registered = minimize("dgp1", budget=400, seed=1, n_eval=2_000)
    assert registered.x.shape == (6,) and registered.draws_used <= 400

    # 2. scipy's conventions: None is no bound (x_1 has a lower bound only), and --version.
    assert shop.Shop.bounds == [(None, None), (0.0, None)] and sol.x[1] >= 0.0
    assert invoke("--version").stdout == f"acfs {version('acfs')}\n"

    # 2. astro's settings under auto: n0 is the rows of the first sample, at x0.
    wider = minimize("shop:Shop", budget=BUDGET, seed=1, n0=30, kappa=2.0)
    first = wider.trials_dataframe().iloc[0]
    assert (first["x_0"], first["x_1"], first["rows"]) == (*X0, 30)
    assert sol.trials_dataframe()["rows"].iloc[0] == 20  # astro's default
    with pytest.raises(ValueError) as caught:
        minimize("shop:Shop", budget=BUDGET, kapa=2.0)
    said = str(caught.value)
    assert said.startswith("method 'auto' has no parameter kapa (did you mean 'kappa'?); "
                           "its parameters: radius0,")
    assert said.endswith("first_share, growth, final_share")  # auto's own, after astro's

    # 4. The search as a table, checked against what the simulator saw.
    table = sol.trials_dataframe()
    xs = ["x_0", "x_1"]
    assert list(table.columns) == ["draws", "phase", *xs, "rows", "sample", "value",
                                   "incumbent"]
    assert table["draws"].is_monotonic_increasing
    assert table["rows"].sum() == sol.draws_used == table["draws"].iloc[-1]
    per_request = table.groupby("draws", sort=False)["rows"].sum()
    assert np.array_equal(per_request.index, np.cumsum(per_request.to_numpy()))
    marked = table[table["incumbent"]]
    assert np.array_equal(marked[xs].iloc[-1].to_numpy(), sol.x)
    assert [(d, tuple(x), v) for d, x, v in sol.trajectory] == [
        (d, (a, b), v) for d, a, b, v in marked[["draws", *xs, "value"]].to_numpy()]
    phases = table.groupby("phase")["rows"].sum()
    assert phases.to_dict() == {k: v["draws"] for k, v in sol.phases.items() if v["draws"]}
    # every decision the simulator was asked for, with the rows it made there: at x* the
    # final estimate's 20,000 besides, at x0 J(x0)'s and the probe's
    drawn = table[table["rows"] > 0].groupby(xs)["rows"].sum()
    assert set(seen) == set(drawn.index) and len(drawn) > 10
    for x, rows in drawn.items():
        if x != X0:
            assert seen[x] == rows + (sol.n_eval if x == tuple(sol.x) else 0)

    # 3. A small grid, read as a table and reported against the closed form's optimum.
    run = invoke("run", "walk.yaml", "-q")
    assert run.exit_code == 0, run.output
    cells = read_results("results/walk")
    assert len(cells) == 4 and (cells["status"] == "ok").all()
    assert (cells["draws"] <= cells["budget"]).all() and cells["J_true"].notna().all()
    best = scipy_minimize(exact_J, x0=[0.5, 0.5], bounds=[(None, None), (0.0, None)])
    J_star = float(best.fun)
    pd.DataFrame({"problem": ["shop"], "lam": [LAM], "alpha": [0.95], "J_star": [J_star]}
                 ).to_parquet("optima.parquet")
    report = invoke("report", "results/walk", "--no-figures", "--optima", "optima.parquet")
    assert report.exit_code == 0, report.output
    text = " ".join(report.stdout.split())
    assert "DGP" not in text and "problem lambda Method" in text
    large = "Summary of Jtrue (5,000-draw large-sample evaluation)"
    assert text.index(large) < text.index("Summary of J (1,000-draw final evaluation)")
    quality = text.split("Large-sample J against the best known J")[1]
    assert quality.split()[:8] == ["problem", "lambda", "Method", "Jtrue_med", "Best", "known",
                                   "Regret%", "med"]
    for method, display in (("auto", "Auto"), ("saa-ps", "SAA-PS")):
        J_true = cells.loc[cells["method"] == method, "J_true"]
        regret = np.median(100 * (J_true - J_star) / abs(J_star))
        assert f"{display} {J_true.median():.2f} {J_star:.2f} {regret:.2f}" in quality
    # two pairs: the smallest one-sided signed-rank p is 1/2^2, Holm over one comparison
    assert "With 2 pairs and 1 comparison(s), no p_Holm can fall below 0.25" in text

    # 5. One problem, no YAML: acfs solve prints minimize's answer.
    solve = invoke("solve", "shop:Seen", "--budget", BUDGET, "--lam", LAM, "--seed", 1)
    assert solve.exit_code == 0, solve.output
    lines = {line[:9].strip(): line[9:] for line in solve.stdout.splitlines()}
    assert np.allclose(eval(lines["x*"]), sol.x, rtol=1e-5)
    assert lines["J"].startswith(f"{sol.J:g}, 95 % interval [{sol.J_lo:g}, {sol.J_hi:g}]")
    assert lines["draws"].startswith(f"{sol.draws_used:,} of {BUDGET:,}")
    assert lines["notes"] == sol.notes[0]
