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
import os
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
from acfs_cli.store import DAMAGED, ResultStore, StoreError

BACKENDS = ("loky", "dask")
_THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
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
        except Exception as exc:
            row["status"] = "error"
            row["error"] = _one_line(f"{type(exc).__name__}: {exc}")
            row["traceback"] = tb.format_exc()
            if oracle is not None:
                row["oracle_draws"] = oracle.used
            if math.isnan(row["wall_s"]):
                row["wall_s"] = time.perf_counter() - start
    row["cpu_s"] = time.thread_time() - cpu_start
    messages = dict.fromkeys(_one_line(f"{w.category.__name__}: {w.message}", 200) for w in caught)
    row["warnings"] = " | ".join(list(messages)[:5])
    for key in ("J", "EC", "CVaR", "J_lo", "J_hi", "J_true", "EC_true", "CVaR_true", "J_true_se"):
        row[key] = float(row[key])
    return row


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


def _pin_threads_for_good() -> None:
    """Pin BLAS/OpenMP to one thread in a worker process and keep it so.

    A worker may run several cells at once in threads (Dask); a scoped limit would be undone
    by whichever cell finishes first, so the limit stays for the life of the worker.
    """
    from threadpoolctl import threadpool_limits

    for name in _THREAD_ENV:
        os.environ[name] = "1"
    _load_native_libraries()
    threadpool_limits(1)


_watchdog: threading.Thread | None = None


def watch_parent(parent: int, interval: float = 0.5) -> None:
    """End this worker process as soon as process ``parent`` is no longer its parent (it
    died, even by SIGKILL, and the worker was adopted): a killed run leaves no process
    computing for nobody. The initializer of every local worker; once per process."""
    global _watchdog
    if _watchdog is not None:
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)

    _watchdog = threading.Thread(target=watch, name="acfs-parent-watchdog", daemon=True)
    _watchdog.start()


def _worker_group(cells: Sequence[Cell]) -> list[dict[str, Any]]:
    _pin_threads_for_good()
    return run_group(cells)


# -- a Dask scheduler's address ------------------------------------------------------------------
_SCHEDULER = re.compile(
    r"(?:(?P<scheme>tcp|tls)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(?P<port>[0-9]{1,5})"
)
#: Seconds to wait for a scheduler's TCP connection and for its greeting.
SCHEDULER_TIMEOUT = 3.0


def check_scheduler(address: str, timeout: float | None = None) -> None:
    """``ValueError`` (one line) unless ``address`` looks like a reachable Dask scheduler.

    Checks the form (``[tcp://|tls://]HOST:PORT`` or ``inproc://...``, the in-process cluster
    of a test), that a TCP connection opens within ``timeout``, and for plain TCP that the
    server greets first with a Dask frame header (a scheduler sends its handshake at once;
    a web server, the dashboard's port for one, says nothing until asked).
    """
    from acfs_cli.config import excerpt

    timeout = SCHEDULER_TIMEOUT if timeout is None else timeout
    text = address.strip()
    if text.startswith("inproc://"):
        return
    match = _SCHEDULER.fullmatch(text)
    if match is None or not 0 < int(match["port"]) < 65536:
        raise ValueError(f"{excerpt(address)} is not a scheduler address (tcp://HOST:PORT)")
    host, port = match["host"].strip("[]"), int(match["port"])
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        raise ValueError(f"nothing answers at {text}: {exc.strerror or exc}") from None
    with sock:
        if match["scheme"] == "tls":
            return  # TLS speaks only after the client's hello
        sock.settimeout(timeout)
        greeting = b""
        try:
            while len(greeting) < 16:
                chunk = sock.recv(16 - len(greeting))
                if not chunk:
                    break
                greeting += chunk
        except OSError:
            pass
    if not _dask_greeting(greeting):
        raise ValueError(f"{text} is not a Dask scheduler (no Dask handshake within "
                         f"{timeout:g} s; the scheduler's port is usually 8786)")


def _dask_greeting(data: bytes) -> bool:
    """Whether ``data`` opens a Dask TCP message: its byte length, then a small frame count."""
    if len(data) < 16:
        return False
    size = int.from_bytes(data[:8], "little")
    frames = int.from_bytes(data[8:16], "little")
    return 16 <= size <= 2**20 and 1 <= frames <= 64


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


def plan(cells: Sequence[Cell], store: ResultStore, force: bool = False) -> list[Cell]:
    """The cells still to compute: all with ``force``, else those without a sound "ok" file
    (missing, failed or damaged)."""
    return _todo(cells, store.statuses(c.id for c in cells), force)


def _todo(cells: Sequence[Cell], status: dict[str, str | None], force: bool) -> list[Cell]:
    return list(cells) if force else [c for c in cells if status[c.id] != "ok"]


def dispatch(
    groups: Sequence[Sequence[Cell]],
    *,
    n_jobs: int = 1,
    backend: str = "loky",
    client=None,
) -> Iterator[list[dict[str, Any]]]:
    """Rows of each group of cells, in order of completion.

    ``n_jobs == 1`` with loky runs in this process; otherwise joblib's loky backend (worker
    processes, inner threads pinned to one) or its Dask backend on ``client``'s cluster.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "loky" and n_jobs == 1:
        for group in groups:
            yield run_group(group)
        return
    from joblib import Parallel, delayed, parallel_config

    jobs = (delayed(_worker_group)(tuple(g)) for g in groups)
    if backend == "loky":
        # Each worker watches this process from its first moment (a Dask worker belongs to
        # its nanny instead).
        config = parallel_config(backend="loky", n_jobs=n_jobs, inner_max_num_threads=1,
                                 initializer=watch_parent, initargs=(os.getpid(),))
    else:
        if client is None:
            raise ValueError("the dask backend needs a distributed.Client")
        # n_jobs=-1 lets the cluster's workers decide how many cells run at once.
        config = parallel_config(backend="dask", n_jobs=-1, client=client,
                                 wait_for_workers_timeout=60)
    with config:
        parallel = Parallel(return_as="generator_unordered", batch_size=1)
        yield from parallel(jobs)


def run_grid(
    cells: Sequence[Cell],
    store: ResultStore,
    *,
    n_jobs: int = 1,
    backend: str = "loky",
    client=None,
    force: bool = False,
    progress: Progress | None = None,
    dispatcher: Callable[..., Iterable[list[dict[str, Any]]]] = dispatch,
) -> RunSummary:
    """Compute the cells of a grid that are not done yet, storing each row as it arrives.

    Holds the folder's run lock, removes temporary files of a killed run, makes the grid the
    folder's current configuration (its manifest), and writes the consolidated
    ``results.parquet`` at the end. A ``KeyboardInterrupt`` (or :class:`Terminated`) stops the
    workers and returns with ``interrupted`` set; every stored cell stays valid, so a rerun
    resumes. Cells whose files are damaged are computed again.
    """
    progress = progress or Progress()
    summary = RunSummary(total=len(cells))
    with store.lock():
        store.prepare()
        if cells:
            store.claim(cells[0].experiment, settings_key(cells), (c.id for c in cells),
                        source=cells[0].search_path)
        status = store.statuses(c.id for c in cells)
        summary.damaged = sum(s == DAMAGED for s in status.values())
        todo = _todo(cells, status, force)
        summary.skipped = len(cells) - len(todo)
        groups = work_groups(todo)
        progress.start(len(cells), len(todo), summary.skipped)
        results = dispatcher(groups, n_jobs=n_jobs, backend=backend, client=client)
        try:
            for rows in results:
                for row in rows:
                    store.write_row(row)
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
            # The pool itself failed (a worker killed by the OS, a lost Dask cluster): cells
            # stored so far stay valid and a rerun resumes.
            summary.aborted = _one_line(f"{type(exc).__name__}: {exc}")
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    close()
        if not (summary.interrupted or summary.aborted):
            try:
                store.consolidate(c.id for c in cells)
            except StoreError as exc:
                summary.unconsolidated = str(exc)
    return summary
