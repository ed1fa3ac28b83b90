"""The noise floor of the regret: each setting's reference minimiser estimated on every
replication's own precise normals (DESIGN.md section 5).

A cell's precise J_true and the reference minimiser's J_ref_true share their sampling error,
so ``J_true - J_ref_true`` is the paired regret, and ``J_ref_true - J*`` the noise floor of
the unpaired one (:func:`reference_floor`); :func:`update_floor` keeps it beside an
experiment's results for the report.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from acfs_cli.core.plugins import add_import_path
from acfs_cli.experiment.evaluate import evaluate_precise, precise_stream
from acfs_cli.experiment.reference import decision, write_table_atomic
from acfs_cli.problems import get_problem
from acfs_cli.results.manifest import read_manifest
from acfs_cli.results.read import (
    FLOOR_FILE,
    ResultsError,
    optima_for,
    problems_of,
    read_optima_file,
    read_results,
)
from acfs_cli.results.schema import FLOOR_COLUMNS, pandas_types

FLOOR_KEYS = ["problem", "lam", "alpha", "seed", "rep"]


def reference_floor(
    keys: pd.DataFrame,
    optima: pd.DataFrame,
    n: int,
    cache: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    problems: dict[str, tuple[str, dict]] | None = None,
    *,
    force: bool = False,
) -> pd.DataFrame:
    """J of each setting's reference minimiser on each replication's precise normals.

    A cell's precise J_true is estimated on ``precise_stream(seed, problem, rep)``
    (:func:`~acfs_cli.experiment.evaluate.evaluate_precise`, ``n``); the reference minimiser x_ref
    estimated on the *same* normals gives J_ref_true, and ``J_true - J_ref_true`` is the
    paired regret: the sampling error of the two estimates is shared and mostly cancels,
    which matters on DGP1, where a 200,000-draw estimate of J has an SE near 1 % and the
    unpaired regret ``J_true - J*`` scatters by as much. ``J_ref_true - J*`` is the noise
    floor of the unpaired regret.

    ``keys`` holds the (problem, lam, alpha, seed, rep) to cover; rows of ``optima`` need the
    reference decision (``x``, or ``x1``..``xk`` of an older table). Results are kept in
    ``cache`` (extended, written atomically) with the decision and the problem's code they
    were computed with (:data:`~acfs_cli.results.schema.FLOOR_COLUMNS`), and reused while
    their ``n``, decision and code are today's; a cached row that does not say (an older
    version's) is computed again, as is every row with ``force``. Returns FLOOR_COLUMNS for
    the keys covered; ``attrs["computed"]`` counts the rows computed now.
    """
    columns = list(FLOOR_COLUMNS)
    empty = pd.DataFrame({c: pd.Series(dtype=t) for c, t in pandas_types(FLOOR_COLUMNS).items()})
    if "x" not in optima.columns:
        return _counted(empty, 0)
    keys = keys[FLOOR_KEYS].drop_duplicates().reset_index(drop=True)
    have = empty
    if cache is not None and Path(cache).is_file():
        try:
            have = pd.read_parquet(cache).rename(columns={"dgp": "problem"})
        except (OSError, ValueError):
            have = empty
        for column, unknown in (("code", ""), ("x_ref", None)):  # an older version's rows
            if column not in have.columns:
                have[column] = unknown
        have = have[have["n"] == n][columns]
    setting = ["problem", "lam", "alpha"]
    star = optima.drop_duplicates(setting).set_index(setting)
    built: dict[str, object] = {}

    def problem_of(label: str):
        if label not in built:
            name, options = (problems or {}).get(label, (label, {}))
            try:
                built[label] = get_problem(name, **options)
            except ValueError:
                built[label] = None  # a problem this process cannot build: no paired regret
        return built[label]

    merged = keys.merge(have, on=FLOOR_KEYS, how="left")
    todo = []
    for r in merged.itertuples(index=False):
        if (r.problem, r.lam, r.alpha) not in star.index:
            continue
        problem = problem_of(r.problem)
        if problem is None:
            continue
        x = decision(star.loc[(r.problem, r.lam, r.alpha)])
        cached = not force and np.isfinite(r.J_ref_true) and r.code == problem.code and (
            r.x_ref is not None and np.array_equal(np.asarray(r.x_ref, dtype=float), x))
        if not cached:
            todo.append((r.problem, r.lam, r.alpha, int(r.seed), int(r.rep), x))
    rows = []
    # The precise estimate exactly as the cells made theirs (the same stream, any problem).
    groups: dict[tuple, list] = {}
    for item in todo:
        groups.setdefault((item[0], item[3], item[4]), []).append(item)
    for i, ((label, seed, rep), block) in enumerate(sorted(groups.items())):
        problem = problem_of(label)
        for _, lam, alpha, _, _, x in block:
            J = evaluate_precise(problem, x, lam, alpha, n=n,
                                 rng=precise_stream(seed, label, rep))["J_true"]
            rows.append({"problem": label, "lam": lam, "alpha": alpha, "seed": seed, "rep": rep,
                         "n": n, "J_ref_true": float(J), "code": problem.code,
                         "x_ref": [float(v) for v in x]})
        if progress is not None:
            progress(i + 1, len(groups))
    new = pd.DataFrame(rows, columns=columns)
    if len(new):
        replaced = have.merge(new[FLOOR_KEYS], on=FLOOR_KEYS, how="left", indicator=True)
        have = have[(replaced["_merge"] == "left_only").to_numpy()]
    out = pd.concat([have, new], ignore_index=True) if len(have) else new
    out = out.astype(pandas_types(FLOOR_COLUMNS))
    if cache is not None and len(new):
        write_table_atomic(out.reset_index(drop=True), Path(cache))
    return keys.merge(out, on=FLOOR_KEYS, how="inner").pipe(_counted, len(new))


def _counted(frame: pd.DataFrame, computed: int) -> pd.DataFrame:
    frame.attrs["computed"] = computed
    return frame


def update_floor(
    path: Path,
    optima_file: Path,
    n: int,
    progress: Callable[[int, int], None] | None = None,
    *,
    force: bool = False,
) -> pd.DataFrame | None:
    """The reference floor of one experiment (a folder, or one results file) against the
    reference optima in ``optima_file``, computed where missing or not current (another
    decision of the optimum, other code of the problem, an older version's row; every row
    with ``force``) and cached in ``<experiment>/reference_floor.parquet``.

    Covers every (problem, lam, alpha, seed, rep) of the experiment's current configuration with
    a precise J, on the cells' own precise sample size where their rows say it (``n``
    otherwise). Returns None, without computing anything, when the experiment cannot be read,
    has no precise J or has no reference optima (the report then shows the unpaired regret
    only and says why).
    """
    path = Path(path)
    folder = path.parent if path.is_file() else path
    manifest = read_manifest(folder)
    if manifest is not None and manifest.source:  # problems named by import path live there
        add_import_path(str((folder / manifest.source).resolve()))
    try:
        results = read_results(path)
        optima = optima_for(results, read_optima_file(optima_file)
                            if Path(optima_file).is_file() else None)
    except ResultsError:
        return None
    if optima is None or optima.empty or "J_true" not in results.columns:
        return None
    precise = results[results["J_true"].notna()]
    if precise.empty:
        return None
    sizes = precise["precise_draws"] if "precise_draws" in precise.columns else None
    if sizes is not None and sizes.gt(0).all() and sizes.nunique() == 1:
        n = int(sizes.iloc[0])
    return reference_floor(precise[FLOOR_KEYS].astype({"seed": int, "rep": int}), optima, n,
                           cache=folder / FLOOR_FILE, progress=progress,
                           problems=problems_of(results), force=force)
