"""One cell: one method under one budgeted oracle, then the paired evaluation (paper Sections
4.2-4.3, DESIGN.md sections 3 and 5).

:func:`run_cell` is everything one replication does: build the problem from what the grid
found, run the guarded search (:class:`~acfs_cli.experiment.search.Search`: the method's view
of the problem, a probe of the simulator, a fresh oracle with the budget, the method's own
random stream, the guard that compares the rows drawn with the oracle's count), and evaluate
x* on the common pool of (problem, rep) - outside the budget - with an optional
large-sample estimate of the true J(x*) and, where the problem knows it, the exact J. Any
failure of the cell, a plugin's ``SystemExit`` or ``KeyboardInterrupt`` included, becomes a
row with status "error"; it never stops a run.
"""

from __future__ import annotations

import contextlib
import json
import math
import threading
import time
import traceback as tb
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from acfs_cli.common.seeding import stream
from acfs_cli.core.draws import Run
from acfs_cli.core.risk import start_note
from acfs_cli.experiment.evaluate import evaluate, evaluate_precise, final_pool, precise_stream
from acfs_cli.experiment.grid import Cell
from acfs_cli.experiment.search import Search
from acfs_cli.experiment.signals import interrupt_requested
from acfs_cli.parallel import drawn_here, open_draws
from acfs_cli.results.read import START_PAIRS, versus_start
from acfs_cli.results.schema import PARAM_PREFIX, new_row, settings_hash, settings_json

_MAX_MESSAGE = 500


def one_line(text: str, limit: int = _MAX_MESSAGE) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def base_row(cell: Cell) -> dict[str, Any]:
    """The row of a cell (:func:`acfs_cli.results.schema.new_row`): its identity, and empty
    results until the cell has some."""
    settings = settings_json(cell.params)
    row = new_row(
        experiment=cell.experiment, kind=cell.kind, cell_id=cell.id, problem=cell.problem,
        lam=cell.lam, alpha=cell.alpha, method=cell.method,
        method_display=cell.method_display or cell.method, label=cell.label,
        varied=cell.varied, varied_value=cell.varied_value, varied_default=cell.varied_default,
        rep=cell.rep, seed=cell.seed,
        budget=cell.budget, problem_name=cell.built_as,
        problem_params=json.dumps(dict(cell.problem_params), sort_keys=True),
        settings=settings, settings_hash=settings_hash(settings),
        final_draws=cell.final_draws, bootstrap=cell.bootstrap,
        precise_draws=cell.precise_draws or 0)
    if cell.varied:  # the parameter a one-at-a-time study varies has a column of its own
        row[PARAM_PREFIX + cell.varied] = dict(cell.params).get(cell.varied)
    return row


def run_cell(cell: Cell, draw_jobs: int | None = 1, client=None) -> dict[str, Any]:
    """Run one cell and return its row; failures become ``status == "error"`` rows.

    ``draw_jobs`` simulates the cell's draws (its search's requests and its evaluations) in
    that many local worker processes (-1: one per core), or, given the Dask ``client`` of the
    worker the cell runs on, spreads each request over that many of the cluster's workers
    (-1: all of them): the row is the same (DESIGN.md section 3)."""
    load_native_libraries()
    with threadpool_limits(1):
        return _run_cell(cell, draw_jobs, client)


class CellDraws:
    """Who simulates a cell's draws: :meth:`open` gives the executor's ``run``, or None (the
    cell's own process, also where the problem's draws cannot be cut: a ``transform_batch``);
    :meth:`close` ends every worker it started, at once after an error."""

    def __init__(self, problem, draw_jobs: int | None, client=None):
        self.problem, self.draw_jobs, self.client = problem, draw_jobs, client
        self._draws = None
        #: why draws asked to spread stay in the cell's process (a note of its row), or ""
        self.note = ""

    def open(self) -> Run | None:
        if self.draw_jobs in (None, 1) or not self.problem.splits_draws:
            return None
        why = drawn_here(self.problem)
        if why is not None:  # cannot be pickled: said in the row, not printed per cell
            self.note = why
            return None
        if self.client is not None:
            from acfs_cli.parallel.executors import DaskDraws

            self._draws = DaskDraws(self.client, self.problem,
                                    None if self.draw_jobs == -1 else self.draw_jobs)
        else:
            self._draws = open_draws(self.problem, self.draw_jobs)
        return None if self._draws is None else self._draws.run

    def close(self, now: bool = False) -> None:
        if self._draws is not None:
            self._draws.close(now=now)
            self._draws = None


def load_native_libraries() -> None:
    """Import the methods first: a thread limit reaches only the BLAS/OpenMP libraries that
    are already loaded, and scikit-learn's OpenMP runtime loads with its first import."""
    with contextlib.suppress(Exception):  # a broken registry is reported by the cell itself
        from acfs_cli.methods.registry import all_methods

        all_methods()


def _run_cell(cell: Cell, draw_jobs: int | None = 1, client=None) -> dict[str, Any]:
    row = base_row(cell)
    search = None
    threads = set(threading.enumerate())
    start = time.perf_counter()
    # BLAS is pinned to one thread, so the cell's CPU time is its thread's.
    cpu_start = time.thread_time()
    # Warnings are recorded in the row, not printed over the progress bar. The warnings
    # machinery is process-global, so a cell in a worker thread (Dask) leaves it alone.
    capture = threading.current_thread() is threading.main_thread()
    recorder = warnings.catch_warnings(record=True) if capture else contextlib.nullcontext([])
    workers = None
    with recorder as caught:
        if capture:
            warnings.simplefilter("always")
        try:
            problem, method = cell.found.resolve()  # before the search guard looks
            row["problem_kind"] = "transform" if problem.has_transform else "sample-only"
            row["problem_code"], row["method_code"] = problem.code, method.code_for(problem)
            search = Search(problem, method, method.settings(dict(cell.overrides)), cell.lam,
                            cell.alpha)
            workers = CellDraws(problem, draw_jobs, client)
            draws = workers.open()
            # lambda is deliberately not in the stream names: replications pair across lambda.
            names = (cell.problem, cell.rep, cell.method)
            result = search.run(cell.budget, stream(cell.seed, "oracle", *names),
                                stream(cell.seed, "method", *names), draws=draws,
                                notes=(workers.note,) if workers.note else ())
            row["wall_s"] = result.wall_s
            row["oracle_draws"] = result.oracle_draws
            row["method_value"] = result.value
            row["stopped_by_budget"] = result.stopped_by_budget
            row["draw_account"] = json.dumps(result.account, sort_keys=True)
            row["stop_reason"] = result.stop_reason
            row["notes"] = "; ".join(result.notes)
            row["trajectory"] = json.dumps([[d, _finite_or_none(v)]
                                            for d, _, v in result.trajectory])
            x = np.asarray(result.x, dtype=float).ravel()
            row["x"] = [float(v) for v in x]
            row["dim_x"] = int(x.size)

            eval_start = time.perf_counter()
            measure = _Measure(problem, cell, draws)
            row.update(measure(x))
            note = _start_note(row)
            if note:
                row["notes"] = "; ".join(filter(None, [row["notes"], note]))
            if cell.checkpoints:
                row.update(_checkpoints(measure, cell, result, x))
            row["eval_s"] = time.perf_counter() - eval_start
            _check_finite(row, precise=bool(cell.precise_draws))
            row["status"] = "ok"
            workers.close()  # the draw workers end with the cell
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            if workers is not None:
                workers.close(now=True)
            if isinstance(exc, KeyboardInterrupt) and interrupt_requested():
                raise  # Ctrl-C: the run stops; a KeyboardInterrupt raised by a plugin does not
            row["status"] = "error"
            row["error"] = one_line(_describe(exc))
            row["traceback"] = tb.format_exc()
            if search is not None and search.oracle is not None:
                row["oracle_draws"] = search.oracle.used
            if math.isnan(row["wall_s"]):
                row["wall_s"] = time.perf_counter() - start
    row["cpu_s"] = time.thread_time() - cpu_start
    messages = dict.fromkeys(one_line(f"{w.category.__name__}: {w.message}", 200) for w in caught)
    left = [t.name for t in threading.enumerate()
            if t not in threads and t.is_alive() and not t.daemon]
    if left:  # a thread of the simulator or method that outlives the cell
        messages[f"the cell left {len(left)} thread(s) running: {', '.join(left[:3])}"] = None
    row["warnings"] = " | ".join(list(messages)[:5])
    for key in ("J", "EC", "CVaR", "J_lo", "J_hi", "J_true", "EC_true", "CVaR_true", "J_true_se"):
        row[key] = float(row[key])
    return row


def _describe(exc: BaseException) -> str:
    """One line for a failed cell: what was raised, and who can raise what a cell never
    does by itself."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r}): the simulator or the method called sys.exit"
    if isinstance(exc, KeyboardInterrupt):
        return "KeyboardInterrupt raised by the simulator or the method (nobody pressed Ctrl-C)"
    return text



def _finite_or_none(value: float):
    return float(value) if np.isfinite(value) else None


class _Measure:
    """The evaluation of a decision, outside the budget: J, EC, CVaR and a bootstrap interval
    on the common pool of (problem, rep); with ``precise_draws``, the large-sample estimate on the
    common precise stream (and of the problem's x0, where it has one and no exact J); with a
    known optimum, the exact J (and J*, J(x0)). Decisions met
    again (an incumbent unchanged between checkpoints) are not evaluated twice."""

    def __init__(self, problem, cell: Cell, run: Run | None = None):
        self.problem, self.cell, self.run = problem, cell, run
        self.pool = final_pool(cell.seed, cell.problem, cell.rep, cell.final_draws)
        self.boot_names = ("bootstrap", cell.problem, cell.lam, cell.rep, cell.method)
        self.stream = stream
        self.seen: dict[bytes, dict[str, Any]] = {}
        self.start: dict[str, float] = {}
        if problem.x0 is not None:  # x0 on the common pool, paired with x*'s J
            self.start["J_x0_pool"] = evaluate(problem, problem.x0, self.pool, cell.lam,
                                               cell.alpha, n_boot=0, run=run)["J"]
        if cell.precise_draws and problem.x0 is not None and not problem.has_exact:
            self.start["J_x0_true"] = evaluate_precise(
                problem, problem.x0, cell.lam, cell.alpha, n=cell.precise_draws,
                rng=precise_stream(cell.seed, cell.problem, cell.rep), run=run)["J_true"]

    def __call__(self, x: np.ndarray) -> dict[str, Any]:
        key = np.asarray(x, dtype=float).tobytes()
        if key in self.seen:
            return self.seen[key]
        cell, problem = self.cell, self.problem
        out = evaluate(problem, x, self.pool, cell.lam, cell.alpha, cell.bootstrap,
                       self.stream(cell.seed, *self.boot_names), run=self.run)
        if cell.precise_draws:
            out.update(evaluate_precise(problem, x, cell.lam, cell.alpha, n=cell.precise_draws,
                                        rng=precise_stream(cell.seed, cell.problem, cell.rep),
                                        run=self.run))
        out.update(self.start)
        if problem.has_exact:
            _, j_star = problem.optimum(cell.lam, cell.alpha)
            out.update(J_exact=problem.exact_J(x, cell.lam, cell.alpha), J_star_exact=j_star,
                       J_x0=problem.exact_J(problem.x0, cell.lam, cell.alpha))
        self.seen[key] = out
        return out


def _checkpoints(measure: _Measure, cell: Cell, result, x_final: np.ndarray) -> dict[str, Any]:
    """The incumbent at each checkpoint (the last one recorded within that share of the
    budget; x* itself at 1), evaluated like x*: lists ``cp_*`` aligned with ``cp_fraction``."""
    out: dict[str, list] = {k: [] for k in ("cp_fraction", "cp_draws", "cp_J", "cp_J_true",
                                             "cp_J_exact")}
    for f in cell.checkpoints:
        draws = int(np.floor(f * cell.budget))
        if f >= 1.0:
            x = x_final
        else:
            before = [x for d, x, _ in result.trajectory if d <= draws]
            x = before[-1] if before else None
        values = measure(x) if x is not None else {}
        out["cp_fraction"].append(float(f))
        out["cp_draws"].append(float(draws))
        for key, name in (("cp_J", "J"), ("cp_J_true", "J_true"), ("cp_J_exact", "J_exact")):
            out[key].append(float(values.get(name, np.nan)))
    return out


def _start_note(row: dict[str, Any]) -> str | None:
    """The note of an answer no better than the problem's start x0, on the most precise
    evaluation that has both (exact, the precise sample, the common pool)."""
    columns = [c for pair in START_PAIRS for c in pair[:2]]
    first = versus_start(pd.DataFrame([{c: row.get(c, np.nan) for c in columns}])).iloc[0]
    return start_note(first["J"], first["J_x0"], first["on"])


class NonFiniteResult(ArithmeticError):
    """The evaluation of x* gave an infinite or undefined J: never a result."""


def _check_finite(row: dict[str, Any], precise: bool) -> None:
    keys = ["J", "EC", "CVaR", *(["J_true", "EC_true", "CVaR_true"] if precise else [])]
    bad = [k for k in keys if not math.isfinite(float(row[k]))]
    if bad:
        raise NonFiniteResult(
            f"{bad[0]} = {float(row[bad[0]])} at x*: the costs or lam * CVaR overflow a float"
        )


def run_group(cells: Sequence[Cell], draw_jobs: int | None = 1, client=None
              ) -> list[dict[str, Any]]:
    """Rows of cells that share one work key: computed once, labelled per cell (with
    ``draw_jobs`` and ``client`` as :func:`run_cell` takes them)."""
    first = run_cell(cells[0], draw_jobs, client)
    rows = [first]
    for cell in cells[1:]:
        row = dict(first)
        row.update(cell_id=cell.id, label=cell.label, varied=cell.varied,
                   varied_value=cell.varied_value)
        rows.append(row)
    return rows


def failed_rows(cells: Sequence[Cell], message: str, seconds: float = math.nan
                ) -> list[dict[str, Any]]:
    """Rows of cells that produced none themselves (their worker died, or they ran out of
    time): recorded as failed with ``message``, computed again by the next run."""
    rows = []
    for cell in cells:
        row = base_row(cell)
        row.update(error=one_line(message), wall_s=seconds, warnings="", traceback="")
        rows.append(row)
    return rows

