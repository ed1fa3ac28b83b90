"""The candidate of ``benchmarks/tuning/tail_rows.py`` (measured, not kept; REPRODUCTION.md):
where COBYQA leads astro's epochs it raises their samples to two rows beyond the
alpha-quantile, and nothing else - the figures it printed are of that rule."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "methods"))

from test_astro import Bowl, task_of  # noqa: E402

from acfs_cli.core.oracle import Oracle  # noqa: E402
from acfs_cli.core.problem import as_problem  # noqa: E402
from acfs_cli.methods import auto, auto_declared  # noqa: E402
from acfs_cli.methods.auto import AUTO  # noqa: E402

PROTOTYPE = Path(__file__).resolve().parents[2] / "benchmarks" / "tuning" / "tail_rows.py"


@pytest.fixture
def prototype(monkeypatch):
    """The prototype's wrappers in place for one test (the modules' own restored after)."""
    monkeypatch.setattr(sys, "path", list(sys.path))  # the benchmark's imports add to it
    monkeypatch.setattr(auto_declared, "lead", auto_declared.lead)
    monkeypatch.setattr(auto, "_next_epoch", auto._next_epoch)
    spec = importlib.util.spec_from_file_location("tail_rows", PROTOTYPE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.two_tail_rows_where_cobyqa_leads()
    return module


def _run(problem, lam, budget=60_000):
    rows = []
    real = auto.astro_search

    def spy(task, oracle, settings, start=None, **kwargs):
        rows.append(settings.n0)
        return real(task, oracle, settings, start=start, **kwargs)

    auto.astro_search = spy
    try:
        task = task_of(problem, lam=lam, x0=problem.x0)
        oracle = Oracle(as_problem(problem), budget, np.random.default_rng([0, 1]))
        result = AUTO(task, oracle, np.random.default_rng([0, 2]), {})
    finally:
        auto.astro_search = real
    return result, rows, oracle


@pytest.mark.parametrize(("alpha", "rows"), [(0.95, 40), (0.9, 20), (0.99, 200)])
def test_tail_rows_are_the_fewest_even_rows_holding_two_beyond_the_quantile(prototype, alpha,
                                                                            rows):
    task = task_of(Bowl(3), lam=0.7)
    task = type(task)(**{**task.__dict__, "alpha": alpha})
    assert prototype.tail_rows(task) == rows
    assert rows * (1 - alpha) >= 2 - 1e-9 > (rows - 2) * (1 - alpha)


def test_the_lead_and_its_epochs_get_forty_rows_at_alpha_095_and_lam_0_keeps_twenty(prototype):
    bowl = Bowl(12)
    bowl.gradient = None
    # lam 0.7, alpha 0.95 (test_astro's): the lead's sqrt(0.1 x 9,000) = 30 rows become 40, and
    # every astro epoch after it starts on 40 rows at least
    result, rows, oracle = _run(bowl, 0.7)
    lead = result.info["epochs"][0]
    assert lead["solver"] == "COBYQA" and lead["rows"] == 40
    assert rows and min(rows) >= 40 and oracle.used <= 60_000
    # lam 0: the risk is the mean, version 7's 30-row lead and 20-row epochs
    result, rows, _ = _run(bowl, 0.0)
    assert result.info["epochs"][0]["rows"] == 30 and rows[0] == 20
    # below 10 dimensions no lead runs, and astro's epochs from x0 keep their 20 rows
    small = Bowl(9)
    small.gradient = None
    result, rows, _ = _run(small, 0.7)
    assert "solver" not in result.info["epochs"][0] and rows[0] == 20
