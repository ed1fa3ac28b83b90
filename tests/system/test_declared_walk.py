"""A user's problem with whole-number staff and a service level, walked through every door:
``minimize``, a grid (``acfs run``), ``acfs reference --best-found`` and ``acfs report``, each
keeping the staff whole and saying whether the service level holds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import yaml
from typer.testing import CliRunner

from acfs_cli.api import minimize
from acfs_cli.cli import app

runner = CliRunner()

DESK = '''
import numpy as np


class Desk:
    """Whole clerks x[0] and opening hours x[1] of a help desk whose arrivals grow with the
    hours; the queue left at closing must exceed 5 people on at most 10 % of days."""

    dim_x, dim_w = 2, 1
    bounds = [(1, 30), (4.0, 12.0)]
    x0 = [12, 8.0]
    integrality = [1, 0]
    stochastic_constraints = [{"name": "backlog", "chance": 0.1}]

    def transform(self, x, z):
        return 6.0 * x[1] * np.exp(0.3 * z - 0.045)  # arrivals

    def cost(self, W, x):
        served = 5.0 * x[0]
        return 8.0 * x[0] + 1.5 * x[1] * x[0] - 4.0 * np.minimum(W[:, 0], served) - 3.0 * x[1]

    def constraint_values(self, W, x):
        return W[:, 0] - 5.0 * x[0] - 5.0
'''


def test_a_constrained_integer_problem_walks_through_minimize_a_grid_reference_and_report(
        tmp_path, monkeypatch):
    (tmp_path / "desk.py").write_text(DESK)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    from desk import Desk

    sol = minimize(Desk(), budget=6_000, seed=1)
    assert sol.x[0] == round(sol.x[0]) and sol.feasible in ("feasible", "not established")
    (found,) = sol.constraints
    assert found.name == "backlog" and found.bound == 0.1 and found.rows == sol.n_eval

    config = tmp_path / "desk.yaml"
    config.write_text(yaml.safe_dump({
        "name": "desk", "seed": 2, "budget": 4_000, "replications": 2, "alpha": 0.9,
        "n_jobs": 1, "final_eval": {"draws": 500, "bootstrap": 0, "precise_draws": 4_000},
        "grid": {"problem": ["desk:Desk"], "lambda": [0.5], "method": ["auto"]}}))
    result = runner.invoke(app, ["run", str(config), "-q"])
    assert result.exit_code == 0, result.output
    from acfs_cli.results.store import read_stored

    rows = read_stored(tmp_path / "results" / "desk")
    assert (rows["status"] == "ok").all() and len(rows) == 2
    assert all(float(x[0]) == round(float(x[0])) for x in rows["x"])
    assert set(rows["feasible"]) <= {"feasible", "not established", "infeasible"}
    # the cells carry the code of the search under declarations: a change there makes them
    # stale, and only them
    assert (rows["method_code"] == "version 5, under declarations 9").all()
    assert all(pd.read_json(__import__("io").StringIO(c))["name"].tolist() == ["backlog"]
               for c in rows["constraints"])

    out = tmp_path / "optima"
    result = runner.invoke(app, ["reference", "--best-found", str(tmp_path / "results" / "desk"),
                                 "-o", str(out), "--best-draws", "4000"])
    shown = rows[rows["feasible"] == "feasible"]
    if len(shown):
        assert result.exit_code == 0, result.output
        table = pd.read_parquet(out / "reference.parquet")
        best = np.asarray(table.loc[0, "x"])
        assert best[0] == round(best[0])
        # the best is one of the answers their own evaluation showed feasible
        assert any(np.array_equal(best, np.asarray(x)) for x in shown["x"])
    else:  # no answer shown feasible: no best feasible answer, said in one line
        assert result.exit_code != 0 and "shown feasible" in result.output

    report = runner.invoke(app, ["report", str(tmp_path / "results" / "desk"), "--no-figures"])
    assert report.exit_code == 0, report.output
    assert "Feasible" in report.output


def test_the_reference_search_refuses_what_it_cannot_keep_in_one_line(tmp_path, monkeypatch):
    (tmp_path / "desk.py").write_text(DESK)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "desk.yaml").write_text(yaml.safe_dump({
        "name": "desk", "seed": 2, "budget": 4_000, "replications": 1,
        "grid": {"problem": ["desk:Desk"], "lambda": [0.5], "method": ["auto"]}}))
    result = runner.invoke(app, ["reference", "desk.yaml", "-o", str(tmp_path / "optima")])
    assert result.exit_code != 0
    assert "which the reference search does not keep" in result.output
    assert "Traceback" not in result.output
