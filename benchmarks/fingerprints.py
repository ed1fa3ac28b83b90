"""Fingerprints of what a change of structure must leave as it is, to the last bit.

For every registered method, ``acfs_cli.api.minimize`` on three problems - DGP1 through its
transform, DGP2 offered as a sample-only simulator, and a user's toy class - with small
budgets and fixed seeds: a sha256 of x*, J and the draws used. Then a few cells of the
shipped configurations (:data:`CELLS`) run as a grid runs them: a sha256 of each row's
numbers and of the strings that come from the search (status, notes, stop reason,
trajectory, draw account). Times are left out: they differ on every run.

    python benchmarks/fingerprints.py > /tmp/before.txt
    ... change the code ...
    python benchmarks/fingerprints.py | diff /tmp/before.txt -

A line is ``what  sha256[:16]``; the same environment gives the same lines (library versions
move last digits, so compare before and after on one machine). About two minutes on one
core; ``--methods`` and ``--cells`` choose fewer.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

#: Row columns that differ from one run to the next (times, and what a worker names).
TIMES = ("wall_s", "eval_s", "cpu_s")
#: Row strings the search and the evaluation produce (besides every number).
STRINGS = ("cell_id", "status", "error", "stop_reason", "notes", "trajectory",
           "draw_account", "problem_kind", "problem_code", "method_code", "settings")


class Toy:
    """A user's newsvendor (README's example): stock x, demand grows with the stock shown."""

    dim_x, dim_w = 1, 1
    bounds = [(0.0, 3.0)]

    def transform(self, x, z):
        return np.exp(0.2 + 0.3 * x[0] + 0.4 * z)

    def cost(self, W, x):
        return 1.0 * x[0] - 2.0 * np.minimum(W[:, 0], x[0])


def digest(*parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            h.update(np.ascontiguousarray(part, dtype=float).tobytes())
        else:
            h.update(repr(part).encode())
        h.update(b"|")
    return h.hexdigest()[:16]


def problems():
    from acfs_cli.problems import get_problem

    return {"dgp1": lambda: get_problem("dgp1"),
            "dgp2-sample-only": lambda: get_problem("dgp2", sample_only=True),
            "toy": Toy}


def minimize_lines(methods: list[str]) -> list[str]:
    from acfs_cli.api import minimize
    from acfs_cli.core.problem import as_problem
    from acfs_cli.methods.registry import get_method

    out = []
    for name in methods:
        method = get_method(name)
        for label, build in problems().items():
            problem = build()
            dim = as_problem(problem).dim_x
            budget = max(20_000, method.minimum_budget(dim, {}))
            try:
                sol = minimize(problem, lam=0.7, alpha=0.95, budget=budget, method=name,
                               seed=11, n_eval=2_000)
                line = digest(np.asarray(sol.x, dtype=float), float(sol.J),
                              int(sol.draws_used))
            except Exception as exc:  # a refusal is a fingerprint too
                line = "refused " + digest(type(exc).__name__, str(exc))
            out.append(f"minimize {name:16s} {label:18s} budget {budget:>7,}  {line}")
            print(out[-1], file=sys.stderr, flush=True)
    # parallel draws: the same answer as in one process, through the same door
    sol = minimize(problems()["dgp2-sample-only"](), lam=0.7, budget=20_000, method="astro",
                   seed=11, n_eval=2_000, n_jobs=2)
    out.append(f"minimize astro n_jobs=2      dgp2-sample-only   budget  20,000  "
               f"{digest(np.asarray(sol.x, dtype=float), float(sol.J), int(sol.draws_used))}")
    return out


def _number(value) -> object:
    if isinstance(value, list | tuple | np.ndarray):
        return tuple(_number(v) for v in value)
    if isinstance(value, bool | int | str) or value is None:
        return value
    value = float(value)
    return "nan" if math.isnan(value) else value.hex()


#: (configuration, what to take of its first replication): the paper's benchmarks, both
#: offered as sample-only simulators, a library problem with checkpoints, a sensitivity point.
CELLS = (("quick.yaml", lambda c: True),
         ("sample_only.yaml", lambda c: c.method in ("astro", "auto")),
         ("library.yaml", lambda c: c.problem == "tandem-mm1" and c.budget == 26_000
          and c.method in ("astro", "auto", "saa-ps")),
         ("sensitivity.yaml", lambda c: c.varied == "k"))


def cell_lines(count: int) -> list[str]:
    from acfs_cli.experiment.cell import run_group
    from acfs_cli.experiment.config import load
    from acfs_cli.experiment.grid import build_cells, work_groups

    out = []
    for config, wanted in CELLS:
        cells = [c for c in build_cells(load(ROOT / "configs" / config))
                 if c.rep == 0 and wanted(c)][:count]
        # small searches: the fingerprint is of the path a cell runs, not of the study
        cells = [replace(c, budget=min(c.budget, 20_000),
                         precise_draws=c.precise_draws and 20_000) for c in cells]
        for group in work_groups(cells):
            for cell, row in zip(group, run_group(group), strict=True):
                numbers = {k: _number(v) for k, v in sorted(row.items())
                           if k not in TIMES and k not in STRINGS and not isinstance(v, str)}
                strings = {k: row.get(k) for k in STRINGS}
                strings["draw_account"] = json.loads(strings["draw_account"] or "{}")
                line = digest(json.dumps(numbers, sort_keys=True, default=str),
                              json.dumps(strings, sort_keys=True, default=str))
                out.append(f"cell {config:16s} {cell.problem:12s} {cell.label:12s} status "
                           f"{row['status']}  {line}")
                print(out[-1], file=sys.stderr, flush=True)
    return out


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from acfs_cli.methods.registry import BUILTIN

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", default=",".join(BUILTIN),
                        help="comma-separated method names (default: every registered one)")
    parser.add_argument("--cells", type=int, default=14,
                        help="at most this many cells of each configuration")
    args = parser.parse_args()
    methods = [m for m in args.methods.split(",") if m]
    for line in minimize_lines(methods) + cell_lines(args.cells):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
