"""What must not move: cell ids, random streams and the committed results.

A change to the canonical form of a cell (its id hashes every field that defines its result)
or to the naming of a random stream silently orphans every committed cell, and a refactor of
a method that changes one random number silently changes every committed number. These tests
fail first when that happens.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acfs_cli.common.seeding import stream
from acfs_cli.experiment.cell import run_cell
from acfs_cli.experiment.config import load
from acfs_cli.experiment.grid import build_cells

ROOT = Path(__file__).resolve().parents[2]
STUDIES = ("main", "ablation", "sensitivity", "budget", "sample_only", "library", "simopt",
           "simopt_declared")


@functools.cache  # building a study's cells takes seconds (SimOpt's: its problems' codes)
def _cells(name: str):
    return build_cells(load(ROOT / "configs" / f"{name}.yaml"))


def _committed(name: str) -> pd.DataFrame:
    return pd.read_parquet(ROOT / "results" / name / "results.parquet")


@pytest.mark.parametrize("name", STUDIES)
def test_shipped_configs_define_exactly_the_committed_cells(name):
    ids = {c.id for c in _cells(name)}
    committed = _committed(name)
    assert ids == set(committed["cell_id"])
    assert committed["cell_id"].is_unique


def test_one_cell_id_is_the_literal_committed_one():
    cell = next(c for c in _cells("main")
                if (c.problem, c.lam, c.rep, c.method) == ("dgp2", 0.7, 0, "saa-ps"))
    assert cell.id == "f13683d1c5f58a23bdaf"


def test_random_streams_are_the_literal_committed_ones():
    # The oracle's stream of (seed, dgp1, rep 0, acfs) and the common evaluation pool.
    assert stream(20240607, "oracle", "dgp1", 0, "acfs").standard_normal() == 0.4902332721536728
    assert stream(20240607, "final-pool", "dgp1", 0).standard_normal() == 0.18651586604640524


#: One committed cell per method, recomputed from its configuration (2,000-draw protocol).
#: The L-BFGS-B runs of gp-bo and of acfs on DGP2 amplify last-bit differences into another
#: path, so those are pinned by the same-seed tests of the conformance suite instead.
PINNED = [("acfs", "dgp1"), ("acfs-plus", "dgp2"), ("cem-so", "dgp2"), ("sgd-cvar", "dgp1"),
          ("kde-so", "dgp2"), ("saa-ps", "dgp1")]

#: How far a pinned cell may move between machines. The objective is bit-identical across
#: CPUs, but OpenBLAS picks its kernels by CPU and scipy's L-BFGS-B takes its inner products
#: from it: measured on one machine under OPENBLAS_CORETYPE Prescott, Sandybridge, Haswell,
#: Zen and SkylakeX (the committed cells were computed under this machine's default kernel,
#: which gives them to the last bit under Haswell and Zen), the acfs-plus cell on DGP2 moves x*
#: by up to 7.2e-6 and J by 1.3e-6 relative under SkylakeX - its first polish differs in the
#: last bit and the search ends elsewhere within its stopping tolerance on a J that is flat
#: along x4 - the acfs cell on DGP1 by 5.4e-10, and every other pinned cell by less than
#: 3e-13. A changed random number moves x* and J much more: of the 4,950 pairs of
#: replications of each pinned method in the main study (each pair two runs on other random
#: numbers) none lies within these bounds.
X_TOL = 1e-4  # absolute, in the benchmarks' units (X has widths 0.7 and 1)
J_RTOL = 1e-5


@pytest.mark.parametrize(("method", "dgp"), PINNED)
def test_committed_cell_recomputes_within_the_machines_rounding(method, dgp):
    committed, row = _recompute(method, dgp)
    assert row["status"] == "ok", row["error"]
    np.testing.assert_allclose(_x(row), _x(committed), rtol=0, atol=X_TOL)
    for key in ("J", "EC", "CVaR", "J_lo", "J_hi"):
        assert row[key] == pytest.approx(committed[key], rel=J_RTOL), key
    assert row["oracle_draws"] == committed["oracle_draws"]


def test_the_pin_tolerance_covers_another_blas_kernel():
    """The most sensitive pinned cell, recomputed in a process whose OpenBLAS runs the
    kernels of another CPU (an SSE3 machine's), stays within the pins' bounds."""
    here = str(Path(__file__).parent)
    code = (f"import sys, json; sys.path.insert(0, {here!r}); "
            "from test_pins import _recompute; c, r = _recompute('acfs-plus', 'dgp2'); "
            "print(json.dumps([list(map(float, r['x'])), r['J'], list(map(float, c['x'])), "
            "float(c['J'])]))")
    env = {**os.environ, "OPENBLAS_CORETYPE": "Prescott"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300, check=True).stdout
    x, J, x_committed, J_committed = json.loads(out.splitlines()[-1])
    np.testing.assert_allclose(x, x_committed, rtol=0, atol=X_TOL)
    assert J == pytest.approx(J_committed, rel=J_RTOL)


#: Small-budget cells of astro and auto (the default), pinned beside those above: each moves
#: when astro's region stops widening after very successful steps, when a model is trusted on
#: fewer rows than trust_rows, or when the sample grows by other factors (checked by making
#: each change). They are (study, method, problem, lambda, budget) of replication 1, chosen
#: among the committed cells that recompute to the last bit under the OpenBLAS kernels of
#: Haswell, SkylakeX, Sandybridge and Prescott (a cell whose path turns on the last bit of a
#: BLAS sum cannot be pinned), and compared with whatever the committed rows hold: a new
#: version of either method recomputes its committed cells, and these pins follow.
SMALL_BUDGET = [("simopt", "astro", "simopt:SSCONT-1", 0.0, 100),
                ("budget", "auto", "dgp2", 0.7, 13000),  # three epochs
                # the default under declarations: whole numbers on two rows a sample, and an
                # indicator-valued constraint's line search
                ("simopt_declared", "auto", "simopt:EXAMPLE-2", 0.0, 100),
                ("simopt_declared", "auto", "simopt:FACSIZE-1", 0.0, 1000)]


@pytest.mark.parametrize(("study", "method", "problem", "lam", "budget"), SMALL_BUDGET)
def test_committed_small_budget_cell_recomputes_within_the_machines_rounding(
        study, method, problem, lam, budget):
    cell = next(c for c in _cells(study) if (c.method, c.problem, c.lam, c.budget, c.rep)
                == (method, problem, lam, budget, 1))
    committed = _committed(study).set_index("cell_id").loc[cell.id]
    row = run_cell(replace(cell, precise_draws=None))
    assert row["status"] == "ok", row["error"]
    assert row["oracle_draws"] == committed["oracle_draws"]
    assert row["stop_reason"] == committed["stop_reason"]
    # bit-identical under four BLAS kernels: the pins' relative bounds hold with room
    np.testing.assert_allclose(_x(row), _x(committed), rtol=1e-6, atol=0)
    for key in ("J", "EC", "CVaR"):
        assert row[key] == pytest.approx(committed[key], rel=J_RTOL), key
    np.testing.assert_allclose(row["cp_J"], committed["cp_J"], rtol=J_RTOL)


def _recompute(method: str, dgp: str):
    """The committed main-study row of (method, dgp, lambda 0.7, rep 1) and a fresh run."""
    cell = next(c for c in _cells("main")
                if (c.problem, c.lam, c.rep, c.method) == (dgp, 0.7, 1, method))
    committed = _committed("main").set_index("cell_id").loc[cell.id]
    return committed, run_cell(replace(cell, precise_draws=None))


def _x(row) -> np.ndarray:
    """The decision of a row, stored whole (``x``) or by coordinate (``x1``..)."""
    if "x" in row and not isinstance(row["x"], float):
        return np.asarray(row["x"], dtype=float)
    return np.array([row[f"x{i}"] for i in range(1, 7)], dtype=float)
