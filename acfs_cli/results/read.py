"""Reading an experiment's results, for anyone who needs them - the report, the reference
optima, the command line (DESIGN.md section 5): one configuration, never a mixture.

An experiment folder holds ``cells/<cell_id>.parquet`` (one row each, written by the runner),
``results.parquet`` (the consolidated table written after a complete run) and
``manifest.json`` (the cells of the folder's current configuration, written when a run
starts). A report describes the current configuration only: cells of other settings in the
same folder (an earlier seed, other method parameters, another budget or final evaluation)
are left out and named - how many, and which settings differ. The current configuration is
the manifest's; for folders without one, that of ``results.parquet``; and for a folder of
cells alone, the cells, provided they agree on their settings.

Rows come from the cell files (the truth) unless the consolidated table is at least as new
as every current cell and holds all of them; a consolidated table that cannot be read is
passed over with a note, a damaged cell file is left out with one. Files are read and
validated by the store; this module adds the choice between them and the common view of
the rows (keys, pairs, completeness), and reads the reference optima and the regret floor.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from acfs_cli.common.naming import label_value, problem_label
from acfs_cli.results.files import StoreError
from acfs_cli.results.manifest import read_manifest
from acfs_cli.results.parquet import read_rows_of
from acfs_cli.results.store import CELLS_DIR, RESULTS_FILE, read_stored

REFERENCE_DIR = "reference"
REFERENCE_FILE = "reference.parquet"
#: Written by ``acfs report`` beside the results (acfs_cli.experiment.floor.reference_floor).
FLOOR_FILE = "reference_floor.parquet"
REQUIRED_REFERENCE_COLUMNS = ("problem", "lam", "alpha", "J_star")

#: What makes a row one cell of the design: a setting, a configuration and a replication.
SETTING = ["problem", "lam", "alpha"]
CONFIGURATION = ["kind", "method", "varied", "varied_value"]
#: The budget is an axis of the design (``grid.budget``: each method plans for its budget).
IDENTITY = SETTING + CONFIGURATION + ["budget", "rep"]
#: What two cells of one replication share when they are paired: the replication, the base
#: seed of every stream, the budget, and the final evaluation (the runner's columns, where a
#: results file has them).
REPLICATION = ["rep", "seed", "budget"]
EVALUATION = ["final_draws", "bootstrap", "precise_draws"]
#: Settings every cell of one configuration shares, whatever its method.
SHARED_SETTINGS = ["experiment", "seed", "budget", *EVALUATION]
#: Of those, the ones that may not differ between the rows of one configuration: a budget
#: axis gives several budgets in one.
UNIQUE_SETTINGS = [c for c in SHARED_SETTINGS if c != "budget"]

#: Characters of the line that names the settings of left-out cells.
_DIFF_CHARS = 300


class ResultsError(ValueError):
    """A problem with the user's input, reported as one line without a traceback."""


@dataclass(frozen=True)
class Experiment:
    """The current configuration's rows of one experiment and what was left out of it.

    ``expected`` is the number of cells of the configuration when the folder's manifest says
    it (None otherwise: the design is then read from the rows); ``foreign`` holds the rows of
    other configurations, ``notes`` what the reader had to pass over.
    """

    rows: pd.DataFrame
    foreign: pd.DataFrame
    expected: int | None = None
    notes: list[str] = field(default_factory=list)

    def foreign_summary(self) -> str:
        """One line naming the left-out cells and the settings in which they differ."""
        if self.foreign.empty:
            return ""
        return (f"left out {len(self.foreign):,} cell(s) of another configuration in the "
                f"same folder ({describe_difference(self.foreign, self.rows)})")


def cell_files(directory: Path) -> list[Path]:
    """The per-cell parquet files of an experiment folder, sorted by name."""
    return sorted((directory / CELLS_DIR).glob("*.parquet"))


def has_results(directory: Path) -> bool:
    """True when ``directory`` holds a consolidated table or at least one cell file."""
    return (directory / RESULTS_FILE).is_file() or bool(cell_files(directory))


def read_results(directory: Path) -> pd.DataFrame:
    """The validated rows of the current configuration of one experiment folder (or of one
    parquet file); see :func:`read_experiment`."""
    return read_experiment(directory).rows


def read_experiment(path: Path) -> Experiment:
    """The current configuration of an experiment folder, or the rows of one results file.

    Raises :class:`ResultsError` when there is nothing to read, the table is not a results
    table (a missing column, say) or a file holds several configurations and nothing says
    which one is meant.
    """
    path = Path(path)
    try:
        if path.is_file():
            rows = normalise(read_stored(path))
            return Experiment(one_configuration(rows, str(path)), rows.iloc[:0])
        if not path.is_dir():
            raise ResultsError(f"{path}: no such experiment folder")
        return _read_folder(path)
    except StoreError as exc:
        raise ResultsError(str(exc)) from None


def _read_folder(directory: Path) -> Experiment:
    cells = {p.stem: p for p in cell_files(directory)}
    consolidated_path = directory / RESULTS_FILE
    if not cells and not consolidated_path.is_file():
        raise ResultsError(
            f"{directory}: no results yet (no {RESULTS_FILE} and no {CELLS_DIR}/*.parquet)"
        )
    notes: list[str] = []
    consolidated = None
    if consolidated_path.is_file():
        try:
            consolidated = read_stored(consolidated_path)
        except StoreError as exc:
            if not cells:
                raise
            reason = str(exc).removeprefix(f"{consolidated_path}: ")
            notes.append(f"{RESULTS_FILE} cannot be read ({reason}); read the cells instead")
    manifest = read_manifest(directory)
    if manifest is not None:
        current = set(manifest.cells)
    elif consolidated is not None:
        current = set(consolidated["cell_id"])
    else:
        current = set(cells)

    present = [cells[i] for i in sorted(current) if i in cells]
    if consolidated is not None and _is_current(consolidated_path, consolidated, present):
        frame = consolidated[consolidated["cell_id"].isin(current)]
    else:
        frame, damaged = read_rows_of(present)
        if damaged:
            notes.append(f"left out {len(damaged):,} damaged cell file(s) (they count as "
                         "missing; `acfs run` computes them again): "
                         + ", ".join(p.name for p in damaged[:3]))
        if consolidated is not None:  # current cells found only in the consolidated table
            rest = consolidated[consolidated["cell_id"].isin(current - set(cells))]
            frame = _concat([frame, rest])
    foreign_ids = sorted(set(cells) - current)
    foreign, _ = read_rows_of([cells[i] for i in foreign_ids])
    if consolidated is not None:
        stale = consolidated[~consolidated["cell_id"].isin(current | set(cells))]
        foreign = _concat([foreign, stale])
    rows = normalise(frame)
    if manifest is None:
        rows = one_configuration(rows, str(directory))
    elif manifest.methods:  # the configuration's order of its methods, for every table
        rows["method_order"] = rows["method"].map(
            {m: i for i, m in enumerate(manifest.methods)}).astype(float)
    expected = len(current) if manifest is not None else None
    return Experiment(rows, normalise(foreign), expected, notes)


def _is_current(path: Path, table: pd.DataFrame, cell_paths: Sequence[Path]) -> bool:
    """Whether the consolidated table holds every current cell that has a file and is at
    least as new as each of those files."""
    if not {p.stem for p in cell_paths} <= set(table["cell_id"]):
        return False
    if not cell_paths:
        return True
    newest = max(p.stat().st_mtime_ns for p in cell_paths)
    return path.stat().st_mtime_ns >= newest


def _concat(frames: Iterable[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    if not frames:
        return read_rows_of([])[0]
    if len(frames) == 1:
        return frames[0]
    return pd.concat(frames, ignore_index=True)


def normalise(frame: pd.DataFrame) -> pd.DataFrame:
    """Round the float keys, name unlabelled rows by their method, drop a cell read twice
    (keeping its successful row) and sort by cell identity."""
    frame = frame.copy()
    for column in ("lam", "alpha", "varied_value"):
        # Keys compare equal after a float round trip through YAML, parquet and arithmetic.
        frame[column] = frame[column].astype(float).round(10)
    frame["label"] = frame["label"].where(frame["label"] != "", frame["method"])
    ok_last = frame.assign(_ok=frame["status"] == "ok").sort_values("_ok", kind="stable")
    deduplicated = ok_last.drop_duplicates("cell_id", keep="last").drop(columns="_ok")
    return deduplicated.sort_values(IDENTITY, kind="stable").reset_index(drop=True)


def one_configuration(rows: pd.DataFrame, source: str) -> pd.DataFrame:
    """``rows`` when they form one configuration; else :class:`ResultsError` naming how they
    differ (two cells at one position of the design, or settings that should be shared).
    Several budgets are a budget axis of one configuration, not two configurations."""
    clash = rows[rows.duplicated(IDENTITY, keep=False)]
    shared = [c for c in UNIQUE_SETTINGS if c in rows.columns
              and _key(rows[c]).nunique() > 1]
    if clash.empty and not shared:
        return rows
    if shared:
        first = _key(rows[shared[0]])
        part = rows[first == first.iloc[0]]
        other = rows[first != first.iloc[0]]
    else:
        first_ids = set(clash.drop_duplicates(IDENTITY)["cell_id"])
        part, other = rows[rows["cell_id"].isin(first_ids)], clash[
            ~clash["cell_id"].isin(first_ids)]
    raise ResultsError(
        f"{source}: the rows hold more than one configuration ({describe_difference(other, part)})"
        " and nothing says which is current; report one configuration (rerun `acfs run` with "
        "it, which marks it current)"
    )


def _key(values: pd.Series) -> pd.Series:
    """A column as comparable text: NaN, None and missing compare equal."""
    return values.astype(object).where(values.notna(), None).map(repr)


def describe_difference(foreign: pd.DataFrame, current: pd.DataFrame) -> str:
    """Which settings set ``foreign`` rows apart from ``current`` ones, e.g. ``seed 1 (current
    2)`` or ``cem-so n_mc 100 (current 60)``, cut to a few hundred characters."""
    parts: list[str] = []

    def compare(name: str, theirs: pd.Series, ours: pd.Series | None) -> None:
        mine = _values(ours) if ours is not None else []
        other = [v for v in _values(theirs) if v not in mine]
        if other:
            parts.append(f"{name} {', '.join(other)} (current {', '.join(mine) or '-'})")

    for column in SHARED_SETTINGS:
        if column in foreign.columns and column in current.columns:
            compare(column, foreign[column], current[column])
    for label, block in foreign.groupby("label", sort=True):
        mine = current[current["label"] == label]
        if mine.empty:
            parts.append(f"{label} not in the current grid")
            continue
        theirs, ours = _settings(block), _settings(mine)
        for name in sorted(set(theirs) | set(ours)):
            compare(f"{label} {name}", theirs.get(name, _NONE),
                    ours.get(name, _NONE) if ours else None)
    for column, name in (("problem", "problem"), ("lam", "lambda")):
        missing = sorted(set(foreign[column]) - set(current[column]))
        if missing:
            parts.append(f"{name} {', '.join(map(label_value, missing))} not in the current grid")
    if not parts:
        parts.append("same settings, other cells")
    text = "; ".join(parts)
    return text if len(text) <= _DIFF_CHARS else text[: _DIFF_CHARS - 3] + "..."


_NONE = pd.Series([], dtype=object)


def _settings(rows: pd.DataFrame) -> dict[str, pd.Series]:
    """Each method setting of ``rows`` as a series of its values (from ``settings``)."""
    records = [json.loads(text) if text else {} for text in rows["settings"]]
    names = sorted({k for r in records for k in r})
    return {k: pd.Series([_scalar(r.get(k)) for r in records], dtype=object) for k in names}


def _scalar(value):
    return json.dumps(value, sort_keys=True) if isinstance(value, list | dict) else value


def _values(column: pd.Series) -> list[str]:
    """The distinct values of a column as text, at most three and "..."."""
    shown = sorted({label_value(v) for v in column.dropna().unique()})
    return shown[:3] + (["..."] if len(shown) > 3 else [])


def pair_columns(frame: pd.DataFrame) -> list[str]:
    """The columns that identify one replication for pairing: :data:`REPLICATION` and the
    final evaluation's settings where every row has them (rows of older versions do not;
    their cell ids, which hash the evaluation, keep a read to one configuration)."""
    return REPLICATION + [c for c in EVALUATION
                          if c in frame.columns and frame[c].notna().all()]


#: How a cell's x* compares with its start x0, most precise first: (J of x*, J of x0, on what
#: the two were estimated alike).
START_PAIRS = (("J_exact", "J_x0", "exactly"),
               ("J_true", "J_x0_true", "on the replication's precise sample"),
               ("J", "J_x0_pool", "on the common pool"))


def versus_start(frame: pd.DataFrame) -> pd.DataFrame:
    """Per row, J of x* and of the start x0 from the most precise evaluation that has both
    (:data:`START_PAIRS`; NaN where none has: no x0), ``on`` what they were estimated (""
    for none), and ``no_better``: whether x* is no better than x0 there (J not below
    J(x0))."""
    J = pd.Series(np.nan, index=frame.index)
    J0 = pd.Series(np.nan, index=frame.index)
    on = pd.Series("", index=frame.index, dtype=object)
    for at, start, where in reversed(START_PAIRS):  # the most precise pair is written last
        if at in frame.columns and start in frame.columns:
            a = pd.to_numeric(frame[at], errors="coerce").astype(float)
            b = pd.to_numeric(frame[start], errors="coerce").astype(float)
            both = np.isfinite(a) & np.isfinite(b)
            J, J0, on = J.where(~both, a), J0.where(~both, b), on.where(~both, where)
    return pd.DataFrame({"J": J, "J_x0": J0, "on": on,
                         "no_better": np.isfinite(J0) & (J >= J0)}, index=frame.index)


def usable(frame: pd.DataFrame, metric: str = "J") -> pd.DataFrame:
    """Rows that ran to completion (``status == "ok"``) and have a finite ``metric``."""
    values = pd.to_numeric(frame[metric], errors="coerce")
    return frame[(frame["status"] == "ok") & np.isfinite(values)]


@dataclass(frozen=True)
class CellCount:
    """How complete an experiment is: the design against the usable rows.

    The expected design is the manifest's cells when the folder has one; otherwise, per
    setting (in one kind of study), every configuration seen in it crossed with every
    replication seen in it. ``missing`` cells are absent from the table, ``failed`` cells are
    present but errored (or have no J).
    """

    expected: int
    complete: int
    failed: int
    missing: int
    failures: pd.DataFrame

    def summary(self) -> str:
        return (
            f"{self.expected:,} cells: {self.complete:,} complete, "
            f"{self.failed:,} failed, {self.missing:,} missing"
        )


def count_cells(frame: pd.DataFrame, expected: int | None = None) -> CellCount:
    """Completeness of one experiment's results (see :class:`CellCount`)."""
    if expected is None:
        expected = 0
        for _, block in frame.groupby([*SETTING, "kind"], sort=False):
            configurations = block[[*CONFIGURATION, "budget"]].drop_duplicates().shape[0]
            expected += configurations * block["rep"].nunique()
    good = usable(frame)
    failures = frame.drop(index=good.index)
    return CellCount(
        expected=expected,
        complete=len(good),
        failed=len(failures),
        missing=max(0, expected - len(frame)),
        failures=failures,
    )


def optima_candidates(folder: Path, results_root: Path, asked: Path | None = None) -> list[Path]:
    """Where reference optima are looked for: the file (or the folder's reference file)
    asked for only; else beside the experiment, then under the results root."""
    if asked is not None:
        asked = Path(asked)
        return [asked / REFERENCE_FILE if asked.is_dir() else asked]
    return [Path(folder).parent / REFERENCE_DIR / REFERENCE_FILE,
            Path(results_root) / REFERENCE_DIR / REFERENCE_FILE]


def read_reference_optima(experiment_dir: Path, results_root: Path) -> pd.DataFrame | None:
    """Reference optima J* per (problem, lam, alpha) from the first file of
    :func:`optima_candidates`, or None when there is none."""
    for path in optima_candidates(experiment_dir, results_root):
        if path.is_file():
            return read_optima_file(path)
    return None


def read_optima_file(path: Path) -> pd.DataFrame:
    """The reference optima of one file (as ``acfs reference`` writes them)."""
    try:
        optima = pd.read_parquet(path).rename(columns={"dgp": "problem"})
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{path}: unreadable parquet file ({exc})") from None
    missing = [c for c in REQUIRED_REFERENCE_COLUMNS if c not in optima.columns]
    if missing:
        raise ResultsError(f"{path}: reference optima lack column(s): {', '.join(missing)}")
    optima = optima.copy()
    optima["problem"] = optima["problem"].astype(str)
    for column in ("lam", "alpha"):
        optima[column] = optima[column].astype(float).round(10)
    return optima


def read_floor(experiment_dir: Path) -> pd.DataFrame | None:
    """J_ref_true per (problem, lam, alpha, seed, rep, n) - the reference minimiser on each
    replication's precise normals - or None when it was not computed or cannot be read."""
    path = Path(experiment_dir) / FLOOR_FILE
    if not path.is_file():
        return None
    try:
        floor = pd.read_parquet(path).rename(columns={"dgp": "problem"})
    except (OSError, ValueError):
        return None
    needed = {"problem", "lam", "alpha", "seed", "rep", "J_ref_true"}
    if not needed <= set(floor.columns):
        return None
    floor = floor.copy()
    floor["problem"] = floor["problem"].astype(str)
    for column in ("lam", "alpha"):
        floor[column] = floor[column].astype(float).round(10)
    return floor.astype({"seed": int, "rep": int})


#: Problem options that change how a problem is simulated, not what it is: a problem offered
#: as a black box shares its reference optimum with the problem itself.
EXECUTION_OPTIONS = ("sample_only", "rows_per_stream", "x0")


def problems_of(results: pd.DataFrame) -> dict[str, tuple[str, dict]]:
    """Each problem of a results table by its name in results, with how to build it: (its
    registered name or import path, options), from the rows' ``problem_name`` and
    ``problem_params``."""
    out: dict[str, tuple[str, dict]] = {}
    for row in results.drop_duplicates("problem").itertuples(index=False):
        out[row.problem] = (row.problem_name or row.problem,
                            json.loads(row.problem_params or "{}"))
    return out


def optima_for(results: pd.DataFrame, optima: pd.DataFrame | None) -> pd.DataFrame | None:
    """``optima`` with a row for every problem of ``results`` that differs from a problem of
    the table only by how it is simulated (``dgp1(sample_only=true)`` takes dgp1's)."""
    if optima is None:
        return None
    extra = []
    for label, (name, options) in problems_of(results).items():
        if (optima["problem"] == label).any():
            continue
        base = problem_label(name, {k: v for k, v in options.items()
                                    if k not in EXECUTION_OPTIONS})
        rows = optima[optima["problem"] == base]
        if len(rows):
            extra.append(rows.assign(problem=label))
    return pd.concat([optima, *extra], ignore_index=True) if extra else optima
