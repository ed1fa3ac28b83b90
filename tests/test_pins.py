"""What must not move: cell ids, random streams and the committed results.

A change to the canonical form of a cell (its id hashes every field that defines its result)
or to the naming of a random stream silently orphans every committed cell, and a refactor of
a method that changes one random number silently changes every committed number. These tests
fail first when that happens.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acfs_cli.config import load
from acfs_cli.execute import run_cell
from acfs_cli.grid import build_cells
from acfs_cli.seeding import stream

ROOT = Path(__file__).resolve().parent.parent
STUDIES = ("main", "ablation", "sensitivity", "budget", "sample_only", "library")


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
                if (c.dgp, c.lam, c.rep, c.method) == ("dgp2", 0.7, 0, "saa-ps"))
    assert cell.id == "f13683d1c5f58a23bdaf"


def test_random_streams_are_the_literal_committed_ones():
    # The oracle's stream of (seed, dgp1, rep 0, acfs) and the common evaluation pool.
    assert stream(20240607, "oracle", "dgp1", 0, "acfs").standard_normal() == 0.4902332721536728
    assert stream(20240607, "final-pool", "dgp1", 0).standard_normal() == 0.18651586604640524


#: One committed cell per method, recomputed from its configuration (2,000-draw protocol).
#: Library versions move results by a few units in the last place (a BLAS or scipy update
#: changes the order of a sum), hence the relative tolerance; the L-BFGS-B runs of gp-bo and
#: of acfs on DGP2 amplify such differences into another path, so those are pinned by the
#: same-seed tests of the conformance suite instead.
PINNED = [("acfs", "dgp1"), ("acfs-plus", "dgp2"), ("cem-so", "dgp2"), ("sgd-cvar", "dgp1"),
          ("kde-so", "dgp2"), ("saa-ps", "dgp1")]


@pytest.mark.parametrize(("method", "dgp"), PINNED)
def test_committed_cell_recomputes_to_the_last_digits(method, dgp):
    cell = next(c for c in _cells("main")
                if (c.dgp, c.lam, c.rep, c.method) == (dgp, 0.7, 1, method))
    committed = _committed("main").set_index("cell_id").loc[cell.id]
    row = run_cell(replace(cell, precise_draws=None))
    assert row["status"] == "ok", row["error"]
    np.testing.assert_allclose(_x(row), _x(committed), rtol=1e-9, atol=1e-12)
    for key in ("J", "EC", "CVaR", "J_lo", "J_hi"):
        assert row[key] == pytest.approx(committed[key], rel=1e-9), key
    assert row["oracle_draws"] == committed["oracle_draws"]


def _x(row) -> np.ndarray:
    """The decision of a row, stored whole (``x``) or by coordinate (``x1``..)."""
    if "x" in row and not isinstance(row["x"], float):
        return np.asarray(row["x"], dtype=float)
    return np.array([row[f"x{i}"] for i in range(1, 7)], dtype=float)
