"""Running a grid: plan the cells still to compute, refuse stale results, dispatch the rest,
store each row as it arrives, and write the consolidated table (DESIGN.md section 5).

Rows do not depend on ``n_jobs``, the backend or the order of cells: every random stream is
named by the cell, and BLAS/OpenMP are pinned to one thread wherever a cell runs. An
interrupted run loses only the cells in flight, and a rerun resumes.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from acfs_cli.experiment.cell import failed_rows, one_line
from acfs_cli.experiment.dispatch import dispatch
from acfs_cli.experiment.grid import Cell, settings_key, work_groups
from acfs_cli.experiment.signals import Terminated
from acfs_cli.results.files import StoreError
from acfs_cli.results.schema import code_key
from acfs_cli.results.store import BLOCKED, DAMAGED, ResultStore


@dataclass
class RunSummary:
    """What a call of :func:`run_grid` did."""

    total: int  # cells in the grid
    skipped: int = 0  # already finished (status ok) and not forced
    computed: int = 0
    failed: int = 0
    damaged: int = 0  # stored cells that could not be read back, computed again
    interrupted: bool = False
    terminated: bool = False  # the interruption was a SIGTERM
    aborted: str = ""  # why the worker pool failed, when it did
    unconsolidated: str = ""  # why results.parquet could not be written, when it could not
    failures: list[dict[str, Any]] = field(default_factory=list)

    @property
    def remaining(self) -> int:
        return self.total - self.skipped - self.computed


class Progress:
    """Callbacks of :func:`run_grid` (the command line shows them as a progress bar)."""

    def start(self, total: int, todo: int, skipped: int) -> None:
        """Called once, after planning, before the first cell starts."""

    def begin(self, cells: Sequence[Cell]) -> None:
        """Called when a group of cells starts computing (in this process or a worker; a
        Dask cluster does not say)."""

    def advance(self, rows: list[dict[str, Any]]) -> None:
        """Called with the rows of each finished group of cells, after they are stored."""


class StaleCells(StoreError):
    """Finished cells computed by other code than the run's: the run stops before computing
    anything, with one line naming what changed and how to go on."""


#: What a run does with finished cells computed by other code: stop and say so, compute
#: them again, or keep them (the user says the change leaves their results as they are).
STALE_POLICIES = ("stop", "recompute", "accept")


def stale_cells(cells: Sequence[Cell], records: dict[str, Any]) -> list[Cell]:
    """The finished ("ok") cells whose stored code is not the code the grid has now."""
    out = []
    for cell in cells:
        rec = records.get(cell.id)
        if rec is not None and rec.status == "ok" and rec.code != code_key(
                cell.problem_code, cell.method_code):
            out.append(cell)
    return out


def describe_stale(stale: Sequence[Cell], records: dict[str, Any]) -> str:
    """What changed, in a few words: ``problem shelf_space:ShelfSpace (source 1a2b.. ->
    3c4d..)``, or that the cells predate fingerprints."""
    changes: dict[str, None] = {}
    for cell in stale:
        stored = records[cell.id].code
        if not stored:
            changes["they were computed before acfs recorded the code of a result"] = None
            continue
        old = json.loads(stored)
        for what, name, now in (("problem", cell.built_as, cell.problem_code),
                                ("method", cell.method, cell.method_code)):
            if old.get(what) != now:
                changes[f"{what} {name} ({old.get(what) or 'unknown'} -> {now})"] = None
    parts = list(changes)
    more = f" and {len(parts) - 3} more" if len(parts) > 3 else ""
    return "; ".join(parts[:3]) + more


def stale_summary(stale: Sequence[Cell], records: dict[str, Any]) -> str:
    """How many finished cells were computed by other code, and what changed."""
    return (f"{len(stale):,} finished cell(s) were computed by other code: "
            f"{describe_stale(stale, records)}")


def refuse_stale(cells: Sequence[Cell], records: dict[str, Any]) -> None:
    """Raise :class:`StaleCells` when finished cells of ``cells`` were computed by other code,
    saying how to go on."""
    old = stale_cells(cells, records)
    if old:
        raise StaleCells(f"{stale_summary(old, records)}; run again with --recompute-stale to "
                         "compute them with the code here, or --accept-code to keep their "
                         "results")


def _todo(cells: Sequence[Cell], status: dict[str, str | None], force: bool) -> list[Cell]:
    return list(cells) if force else [c for c in cells if status[c.id] != "ok"]


def run_grid(
    cells: Sequence[Cell],
    store: ResultStore,
    *,
    n_jobs: int = 1,
    backend: str = "local",
    client=None,
    force: bool = False,
    stale: str = "stop",
    timeout: float | None = None,
    draw_jobs: int | None = 1,
    progress: Progress | None = None,
    dispatcher: Callable[..., Iterable[list[dict[str, Any]]]] = dispatch,
) -> RunSummary:
    """Compute the cells of a grid that are not done yet, storing each row as it arrives.

    Refuses a folder acfs did not write (:meth:`ResultStore.check_folder`), holds its run
    lock, removes temporary files of a killed run, makes the grid the folder's current
    configuration (its manifest), and writes the consolidated ``results.parquet`` of every
    current cell at the end. Finished cells computed by other code stop the run before
    anything is computed (:class:`StaleCells`), unless ``stale`` says to compute them again
    or to keep them. A ``KeyboardInterrupt`` (or :class:`Terminated`) stops the workers and
    returns with ``interrupted`` set; every stored cell stays valid, so a rerun resumes.
    Cells whose files are damaged are computed again; a cell whose row cannot be stored is
    recorded as failed. ``draw_jobs`` simulates each cell's draws on workers of its own
    (:func:`~acfs_cli.experiment.cell.run_cell`); the rows are the same.
    """
    if stale not in STALE_POLICIES:
        raise ValueError(f"stale must be one of {', '.join(STALE_POLICIES)}, got {stale!r}")
    progress = progress or Progress()
    summary = RunSummary(total=len(cells))
    if cells:
        store.check_folder(cells[0].experiment)
    with store.lock():
        records = store.records(c.id for c in cells)
        blocked = [c for c in cells if records[c.id] is not None
                   and records[c.id].status == BLOCKED]
        if blocked:
            raise StoreError(f"{store.cell_path(blocked[0].id)} is not a cell file (a folder?) "
                             f"and {len(blocked)} cell(s) of this grid cannot be written; "
                             "remove it and run again")
        if stale == "stop" and not force:
            refuse_stale(cells, records)
        old = stale_cells(cells, records)
        store.prepare()
        current = set(c.id for c in cells)
        if cells:
            manifest = store.claim(cells[0].experiment, settings_key(cells), current,
                                   source=cells[0].search_path,
                                   methods=[c.method for c in cells])
            current = set(manifest.cells)
        if old and stale == "accept" and not force:
            store.accept_code([c.id for c in old], {c.id: c.problem_code for c in old},
                              {c.id: c.method_code for c in old})
        status = {i: (None if r is None else r.status) for i, r in records.items()}
        if stale == "recompute":
            status.update({c.id: None for c in old})
        summary.damaged = sum(s == DAMAGED for s in status.values())
        todo = _todo(cells, status, force)
        summary.skipped = len(cells) - len(todo)
        groups = work_groups(todo)
        by_id = {c.id: c for c in todo}
        progress.start(len(cells), len(todo), summary.skipped)
        results = dispatcher(groups, n_jobs=n_jobs, backend=backend, client=client,
                             timeout=timeout, started=progress.begin, draw_jobs=draw_jobs)
        try:
            for rows in results:
                rows = [_store_row(store, row, by_id) for row in rows]
                for row in rows:
                    summary.computed += 1
                    if row["status"] != "ok":
                        summary.failed += 1
                        summary.failures.append(row)
                progress.advance(rows)
        except KeyboardInterrupt:
            summary.interrupted = True
        except Terminated:
            summary.interrupted = summary.terminated = True
        except Exception as exc:
            # The pool itself failed (a lost Dask cluster, an unwritable folder): cells stored
            # so far stay valid and a rerun resumes.
            summary.aborted = one_line(f"{type(exc).__name__}: {exc}")
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    close()
        if not (summary.interrupted or summary.aborted):
            try:
                store.consolidate(sorted(current))
            except StoreError as exc:
                summary.unconsolidated = str(exc)
    return summary


def _store_row(store: ResultStore, row: dict[str, Any], cells: dict[str, Cell]
               ) -> dict[str, Any]:
    """Write one row; a row that cannot be stored (a value a plugin made that no table
    holds) is stored as the cell's failure instead. A folder that takes no file at all is
    the run's failure (:class:`StoreError`)."""
    try:
        store.write_row(row)
        return row
    except StoreError:
        raise
    except OSError as exc:
        raise StoreError(f"cannot write to {store.cells_dir}: {exc.strerror or exc}") from None
    except Exception as exc:
        cell = cells.get(str(row.get("cell_id")))
        if cell is None:
            raise
        failed = failed_rows([cell], f"its result cannot be stored: {type(exc).__name__}: "
                             f"{exc}")[0]
        store.write_row(failed)
        return failed
