"""Running cells: one method under one budgeted oracle, then the paired final evaluation.

:func:`run_cell` is everything one replication does (paper Sections 4.2-4.3, DESIGN.md sections 3
and 5): build the problem and the method's view of it, give the method its own random stream
and a fresh oracle with the budget, run the search, and evaluate x* on the common pool of
(dgp, rep) - outside the budget - with an optional large-sample estimate of the true J(x*). Any
exception becomes a row with status "error"; it never stops a run.

:func:`run_grid` sends cells to joblib (loky processes by default, or a Dask cluster) and
writes each row as soon as it arrives, so an interrupted run loses only the cells in flight
and a rerun resumes. Rows do not depend on ``n_jobs``, the backend or the order of cells:
every random stream is named by the cell, and BLAS/OpenMP are pinned to one thread wherever a
cell runs (a threaded BLAS may sum in another order).

Local worker processes never outlive the run: a watchdog thread in each ends it when its
parent process is gone (killed, even by SIGKILL), and :func:`sigterm_stops_the_run` turns a
SIGTERM of the parent into an orderly stop that shuts the pool down.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import signal
import socket
import threading
import time
import traceback as tb
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from acfs_cli.grid import Cell, settings_key, work_groups
from acfs_cli.schema import PARAM_PREFIX
from acfs_cli.store import BLOCKED, DAMAGED, ResultStore, StoreError, code_key

BACKENDS = ("local", "dask")
_MAX_MESSAGE = 500


def _one_line(text: str, limit: int = _MAX_MESSAGE) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def base_row(cell: Cell) -> dict[str, Any]:
    """The identity part of a cell's row, with empty results."""
    row: dict[str, Any] = {
        "experiment": cell.experiment,
        "kind": cell.kind,
        "cell_id": cell.id,
        "dgp": cell.dgp,
        "lam": cell.lam,
        "alpha": cell.alpha,
        "method": cell.method,
        "label": cell.label,
        "varied": cell.varied,
        "varied_value": cell.varied_value,
        "rep": cell.rep,
        "seed": cell.seed,
        "budget": cell.budget,
        "final_draws": cell.final_draws,
        "bootstrap": cell.bootstrap,
        "precise_draws": cell.precise_draws or 0,
        "problem": cell.problem or cell.dgp,
        "problem_params": json.dumps(dict(cell.problem_params), sort_keys=True),
        "oracle_draws": 0,
        "status": "error",
        "error": "",
    }
    for name in ("J", "EC", "CVaR", "J_lo", "J_hi", "J_true", "EC_true", "CVaR_true",
                 "J_true_se", "wall_s", "eval_s", "cpu_s", "method_value", "J_exact",
                 "J_star_exact", "J_x0"):
        row[name] = math.nan
    row["x"] = None  # the decision, whole: no decision until the method returns one
    row["dim_x"] = 0
    for name, value in cell.params:
        row[PARAM_PREFIX + name] = value
    return row


def run_cell(cell: Cell) -> dict[str, Any]:
    """Run one cell and return its row; failures become ``status == "error"`` rows."""
    from threadpoolctl import threadpool_limits

    _load_native_libraries()
    with threadpool_limits(1):
        return _run_cell(cell)


def _load_native_libraries() -> None:
    """Import the methods first: a thread limit reaches only the BLAS/OpenMP libraries that
    are already loaded, and scikit-learn's OpenMP runtime loads with its first import."""
    with contextlib.suppress(Exception):  # a broken registry is reported by the cell itself
        import acfs_cli.methods.registry  # noqa: F401


def _run_cell(cell: Cell) -> dict[str, Any]:
    from acfs_cli.config import add_import_path
    from acfs_cli.core.guard import SearchGuard, probe
    from acfs_cli.core.oracle import Oracle
    from acfs_cli.core.task import Task
    from acfs_cli.problems import get_problem
    from acfs_cli.seeding import stream

    row = base_row(cell)
    oracle = None
    threads = set(threading.enumerate())
    start = time.perf_counter()
    # BLAS is pinned to one thread, so the cell's CPU time is its thread's.
    cpu_start = time.thread_time()
    # Warnings are recorded in the row, not printed over the progress bar. The warnings
    # machinery is process-global, so a cell in a worker thread (Dask) leaves it alone.
    capture = threading.current_thread() is threading.main_thread()
    recorder = warnings.catch_warnings(record=True) if capture else contextlib.nullcontext([])
    with recorder as caught:
        if capture:
            warnings.simplefilter("always")
        try:
            from acfs_cli.methods.registry import get_method

            add_import_path(cell.search_path)
            problem = get_problem(cell.problem or cell.dgp, **dict(cell.problem_params))
            row["problem_kind"] = "transform" if problem.has_transform else "sample-only"
            method = get_method(cell.method)
            row["problem_code"], row["method_code"] = problem.code, method.code
            _check_code(cell, problem.code, method.code)
            settings = method.settings(dict(cell.overrides))
            task = Task.from_problem(problem, cell.lam, cell.alpha)
            probe(problem)
            # lambda is deliberately not in the stream names: replications pair across lambda.
            names = (cell.dgp, cell.rep, cell.method)
            oracle = Oracle(problem, cell.budget, stream(cell.seed, "oracle", *names))
            with SearchGuard() as guard:
                result = method(task, oracle, stream(cell.seed, "method", *names), settings)
            guard.verify(oracle.used, cell.budget)
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
            measure = _Measure(problem, cell)
            row.update(measure(x))
            if cell.checkpoints:
                row.update(_checkpoints(measure, cell, result, x))
            row["eval_s"] = time.perf_counter() - eval_start
            _check_finite(row, precise=bool(cell.precise_draws))
            row["status"] = "ok"
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            if isinstance(exc, KeyboardInterrupt) and interrupt_requested():
                raise  # Ctrl-C: the run stops; a KeyboardInterrupt raised by a plugin does not
            row["status"] = "error"
            row["error"] = _one_line(_describe(exc))
            row["traceback"] = tb.format_exc()
            if oracle is not None:
                row["oracle_draws"] = oracle.used
            if math.isnan(row["wall_s"]):
                row["wall_s"] = time.perf_counter() - start
    row["cpu_s"] = time.thread_time() - cpu_start
    messages = dict.fromkeys(_one_line(f"{w.category.__name__}: {w.message}", 200) for w in caught)
    left = [t.name for t in threading.enumerate()
            if t not in threads and t.is_alive() and not t.daemon]
    if left:  # a thread of the simulator or method that outlives the cell
        messages[f"the cell left {len(left)} thread(s) running: {', '.join(left[:3])}"] = None
    row["warnings"] = " | ".join(list(messages)[:5])
    for key in ("J", "EC", "CVaR", "J_lo", "J_hi", "J_true", "EC_true", "CVaR_true", "J_true_se"):
        row[key] = float(row[key])
    return row


class CodeChanged(RuntimeError):
    """The code a cell runs with is not the code its run was planned with."""


def _check_code(cell: Cell, problem_code: str, method_code: str) -> None:
    """A worker must run the code the run was planned with: a Dask worker with another
    version, or a simulator edited while the run goes on, would mix two codes in one table."""
    for what, planned, here in (("problem", cell.problem_code, problem_code),
                                ("method", cell.method_code, method_code)):
        if planned and planned != here:
            raise CodeChanged(f"the {what}'s code here ({here}) is not the code the run was "
                              f"planned with ({planned}): it changed while the run went on, or "
                              "this worker has another version")


def _describe(exc: BaseException) -> str:
    """One line for a failed cell: what was raised, and who can raise what a cell never
    does by itself."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r}): the simulator or the method called sys.exit"
    if isinstance(exc, KeyboardInterrupt):
        return "KeyboardInterrupt raised by the simulator or the method (nobody pressed Ctrl-C)"
    return text


# -- Ctrl-C, told apart from a KeyboardInterrupt a plugin raises ---------------------------------
_INTERRUPTED = threading.Event()


def interrupt_requested() -> bool:
    """Whether SIGINT reached this process while :func:`interrupts_flagged` was in force."""
    return _INTERRUPTED.is_set()


@contextlib.contextmanager
def interrupts_flagged() -> Iterator[None]:
    """Within the block, SIGINT sets a flag before it raises KeyboardInterrupt, so a cell can
    tell Ctrl-C (the run stops) from a KeyboardInterrupt a simulator raises (the cell fails,
    the run goes on). Elsewhere (another thread) the block changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        _INTERRUPTED.set()
        raise KeyboardInterrupt()

    _INTERRUPTED.clear()
    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _finite_or_none(value: float):
    return float(value) if np.isfinite(value) else None


class _Measure:
    """The evaluation of a decision, outside the budget: J, EC, CVaR and a bootstrap interval
    on the common pool of (dgp, rep); with ``precise_draws``, the large-sample estimate on the
    common precise stream; with a known optimum, the exact J (and J*, J(x0)). Decisions met
    again (an incumbent unchanged between checkpoints) are not evaluated twice."""

    def __init__(self, problem, cell: Cell):
        from acfs_cli.evaluate import final_pool
        from acfs_cli.seeding import stream

        self.problem, self.cell = problem, cell
        self.pool = final_pool(cell.seed, cell.dgp, cell.rep, cell.final_draws)
        self.boot_names = ("bootstrap", cell.dgp, cell.lam, cell.rep, cell.method)
        self.stream = stream
        self.seen: dict[bytes, dict[str, Any]] = {}

    def __call__(self, x: np.ndarray) -> dict[str, Any]:
        from acfs_cli.evaluate import evaluate, evaluate_precise, precise_stream

        key = np.asarray(x, dtype=float).tobytes()
        if key in self.seen:
            return self.seen[key]
        cell, problem = self.cell, self.problem
        out = evaluate(problem, x, self.pool, cell.lam, cell.alpha, cell.bootstrap,
                       self.stream(cell.seed, *self.boot_names))
        if cell.precise_draws:
            out.update(evaluate_precise(problem, x, cell.lam, cell.alpha, n=cell.precise_draws,
                                        rng=precise_stream(cell.seed, cell.dgp, cell.rep)))
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


class NonFiniteResult(ArithmeticError):
    """The evaluation of x* gave an infinite or undefined J: never a result."""


def _check_finite(row: dict[str, Any], precise: bool) -> None:
    keys = ["J", "EC", "CVaR", *(["J_true", "EC_true", "CVaR_true"] if precise else [])]
    bad = [k for k in keys if not math.isfinite(float(row[k]))]
    if bad:
        raise NonFiniteResult(
            f"{bad[0]} = {float(row[bad[0]])} at x*: the costs or lam * CVaR overflow a float"
        )


def run_group(cells: Sequence[Cell]) -> list[dict[str, Any]]:
    """Rows of cells that share one work key: computed once, labelled per cell."""
    first = run_cell(cells[0])
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
        row.update(error=_one_line(message), wall_s=seconds, warnings="", traceback="")
        rows.append(row)
    return rows


def _dask_group(cells: Sequence[Cell], timeout: float | None) -> list[dict[str, Any]]:
    """A group on a Dask worker: threads pinned for the worker's life (it may run several
    groups at once in threads, and a scoped limit would be undone by whichever finishes
    first), and the per-cell time limit kept by a thread of its own."""
    from acfs_cli.pool import pin_threads

    _load_native_libraries()
    pin_threads()
    if timeout is None:
        return run_group(cells)
    out: list[list[dict[str, Any]]] = []
    thread = threading.Thread(target=lambda: out.append(run_group(cells)), daemon=True,
                              name="acfs-cell")
    start = time.perf_counter()
    thread.start()
    thread.join(timeout)
    if out:
        return out[0]
    return failed_rows(cells, f"timed out: no result after {timeout:g} s (on a Dask worker the "
                       "computation goes on in a thread until it ends)",
                       time.perf_counter() - start)


# -- a Dask scheduler's address ------------------------------------------------------------------
_SCHEDULER = re.compile(
    r"(?:(?P<scheme>tcp|tls)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(?P<port>[0-9]{1,5})"
)
#: Seconds to wait for a scheduler's TCP connection and for its greeting.
SCHEDULER_TIMEOUT = 3.0


def check_scheduler(address: str, timeout: float | None = None) -> None:
    """``ValueError`` (one line) unless ``address`` is a Dask scheduler that answers.

    Checks the form (``[tcp://|tls://]HOST:PORT`` or ``inproc://...``, the in-process cluster
    of a test), then asks the server who it is over Dask's own protocol, within ``timeout``
    seconds for the whole exchange: a wrong port, a web server, a server that greets like
    Dask and then says nothing, or a Dask worker all fail at once instead of hanging.
    """
    import asyncio

    from acfs_cli.config import excerpt

    timeout = SCHEDULER_TIMEOUT if timeout is None else timeout
    text = address.strip()
    if text.startswith("inproc://"):
        return
    match = _SCHEDULER.fullmatch(text)
    if match is None or not 0 < int(match["port"]) < 65536:
        raise ValueError(f"{excerpt(address)} is not a scheduler address (tcp://HOST:PORT)")
    scheme = match["scheme"] or "tcp"
    host, port = match["host"].strip("[]"), int(match["port"])
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise ValueError(f"nothing answers at {text}: {exc.strerror or exc}") from None
    try:
        identity = asyncio.run(_identity(f"{scheme}://{match['host']}:{port}", timeout))
    except TimeoutError:
        raise ValueError(f"{text} is not a Dask scheduler (no answer to Dask's handshake within "
                         f"{timeout:g} s; the scheduler's port is usually 8786)") from None
    except Exception as exc:
        raise ValueError(f"{text} is not a Dask scheduler ({type(exc).__name__}: "
                         f"{excerpt(str(exc))})") from None
    kind = identity.get("type") if isinstance(identity, dict) else None
    if kind != "Scheduler":
        raise ValueError(f"{text} is not a Dask scheduler (it says it is {kind or 'nothing'})")


async def _identity(address: str, timeout: float) -> dict:
    """The ``identity`` a Dask server gives over its own protocol (the whole exchange within
    ``timeout`` seconds)."""
    import asyncio

    from distributed.core import rpc

    async def ask() -> dict:
        remote = rpc(address, timeout=timeout)
        try:
            return await remote.identity()
        finally:
            await remote.close_rpc()

    return await asyncio.wait_for(ask(), timeout)


# -- stopping ------------------------------------------------------------------------------------
class Terminated(BaseException):
    """SIGTERM, raised in the main thread like KeyboardInterrupt for Ctrl-C."""


@contextlib.contextmanager
def sigterm_stops_the_run() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in the main thread, so a run stops
    as on Ctrl-C: the workers are shut down, finished cells stay, nothing is half written.
    Elsewhere (another thread, another platform) the block changes nothing."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
            signal, "SIGTERM"):
        yield
        return

    def terminate(signum, frame):
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# -- dispatch ------------------------------------------------------------------------------------
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
        for what, name, now in (("problem", cell.problem or cell.dgp, cell.problem_code),
                                ("method", cell.method, cell.method_code)):
            if old.get(what) != now:
                changes[f"{what} {name} ({old.get(what) or 'unknown'} -> {now})"] = None
    parts = list(changes)
    more = f" and {len(parts) - 3} more" if len(parts) > 3 else ""
    return "; ".join(parts[:3]) + more


def _todo(cells: Sequence[Cell], status: dict[str, str | None], force: bool) -> list[Cell]:
    return list(cells) if force else [c for c in cells if status[c.id] != "ok"]


def dispatch(
    groups: Sequence[Sequence[Cell]],
    *,
    n_jobs: int = 1,
    backend: str = "local",
    client=None,
    timeout: float | None = None,
) -> Iterator[list[dict[str, Any]]]:
    """Rows of each group of cells, in order of completion.

    ``local`` runs in this process when ``n_jobs == 1`` and no ``timeout`` is set, else in
    worker processes (:class:`acfs_cli.pool.WorkerPool`: a worker that dies or runs past the
    time limit fails its own cells only); ``dask`` submits each group to ``client``'s
    cluster. A group that yields no rows of its own gets failed rows naming why.
    """
    backend = "local" if backend == "loky" else backend
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "local":
        if n_jobs == 1 and timeout is None:
            with interrupts_flagged():
                for group in groups:
                    yield run_group(group)
            return
        from acfs_cli.pool import WorkerPool

        with WorkerPool(n_jobs, run_group, timeout=timeout,
                        initializer=_load_native_libraries) as pool:
            for outcome in pool.run(groups):
                if outcome.rows is not None:
                    yield outcome.rows
                elif outcome.failure == "timeout":
                    yield failed_rows(outcome.group, f"timed out: {outcome.detail}",
                                      outcome.seconds)
                else:
                    yield failed_rows(outcome.group, outcome.detail, outcome.seconds)
        return
    if client is None:
        raise ValueError("the dask backend needs a distributed.Client")
    from distributed import as_completed

    futures = {client.submit(_dask_group, tuple(g), timeout, pure=False): tuple(g)
               for g in groups}
    try:
        for future in as_completed(futures, loop=client.loop):
            try:
                yield future.result()
            except Exception as exc:  # the worker died (KilledWorker) or the task was lost
                yield failed_rows(futures[future], f"the Dask worker computing it failed: "
                                  f"{type(exc).__name__}: {exc}")
    finally:
        with contextlib.suppress(Exception):
            client.cancel(list(futures))


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
    recorded as failed.
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
        old = stale_cells(cells, records)
        if old and stale == "stop" and not force:
            raise StaleCells(
                f"{len(old):,} finished cell(s) were computed by other code: "
                f"{describe_stale(old, records)}; run again with --recompute-stale to compute "
                "them with the code here, or --accept-code to keep their results")
        store.prepare()
        current = set(c.id for c in cells)
        if cells:
            manifest = store.claim(cells[0].experiment, settings_key(cells), current,
                                   source=cells[0].search_path)
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
                             timeout=timeout)
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
            summary.aborted = _one_line(f"{type(exc).__name__}: {exc}")
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
