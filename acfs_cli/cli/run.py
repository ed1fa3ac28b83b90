"""``acfs run``, ``ablate``, ``sensitivity`` and ``status``: compute a grid, or say how far
it is."""

from __future__ import annotations

import shlex
from pathlib import Path

import typer

from acfs_cli.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED_CELLS,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    AcceptCodeOpt,
    BackendOpt,
    ConfigArg,
    DrawJobsOpt,
    ForceOpt,
    NJobsOpt,
    OutputOpt,
    QuietOpt,
    RecomputeStaleOpt,
    ReplicationsOpt,
    SchedulerOpt,
    console,
    fail,
    fmt,
    fmt_seconds,
    load_config,
    parse_replications,
    resolve_config,
)
from acfs_cli.cli.progress import ProgressBar
from acfs_cli.parallel.process import available_cores


def experiment(
    command: str,
    default_config: str,
    config_path: Path | None,
    expect_kind: str | None,
    replications: str | None,
    n_jobs: int | None,
    output: str | None,
    force: bool,
    backend: str | None,
    scheduler: str | None,
    quiet: bool,
    recompute_stale: bool = False,
    accept_code: bool = False,
    draw_jobs: int | None = None,
) -> None:
    """Everything ``run``, ``ablate`` and ``sensitivity`` do: check, plan, compute, summarise."""
    from acfs_cli.experiment.config import ConfigError
    from acfs_cli.experiment.dispatch import BACKENDS
    from acfs_cli.experiment.signals import Terminated, sigterm_stops_the_run
    from acfs_cli.results.files import StoreError
    from acfs_cli.results.store import ResultStore, check_writable

    if backend == "loky":  # the name of the local backend before it had its own workers
        backend = "local"
    if backend is not None and backend not in BACKENDS:
        raise fail(f"--backend: unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if scheduler is not None and backend == "local":
        raise fail("--scheduler is for --backend dask")
    if recompute_stale and accept_code:
        raise fail("--recompute-stale and --accept-code exclude each other: choose one")
    stale = "recompute" if recompute_stale else "accept" if accept_code else "stop"
    backend = backend or ("dask" if scheduler else "local")
    if backend == "dask" and not scheduler:
        raise fail("--backend dask needs --scheduler ADDRESS (a running Dask scheduler)")

    path = resolve_config(config_path, default_config)
    overrides = {
        "replications": parse_replications(replications),
        "n_jobs": n_jobs,
        "draw_jobs": draw_jobs,
        "output": output,
    }
    config, cells = load_config(path, overrides)
    if expect_kind is not None and config.kind != expect_kind:
        raise fail(
            f"{path}: kind is {config.kind!r}, not {expect_kind!r}; run it with `acfs run`"
        )
    try:
        check_writable(config.output_dir)
        ResultStore(config.output_dir).check_folder(config.name)
    except StoreError as exc:
        raise fail(str(exc)) from None

    # What to type to carry on: the same selection of cells, without --force.
    selection = []
    if replications is not None:
        selection += ["--replications", replications]
    if output is not None:
        selection += ["--output", output]
    resume_args = [*selection, *(["--scheduler", scheduler] if scheduler else [])]
    resume = shlex.join(["acfs", command, str(path), *resume_args])
    status_hint = shlex.join(["acfs", "status", str(path), *selection])

    client = None
    store = ResultStore(config.output_dir, config_hash=config.config_hash())
    with sigterm_stops_the_run():
        try:
            if backend == "dask":
                client = connect(scheduler)
            run_cells(config, cells, force=force, backend=backend, client=client, quiet=quiet,
                      store=store, scheduler=scheduler, resume=resume, status_hint=status_hint,
                      stale=stale)
        except (StoreError, ConfigError) as exc:
            raise fail(str(exc)) from None
        except (KeyboardInterrupt, Terminated) as exc:
            # Outside the cell loop (planning, the final table): nothing is half written.
            typer.echo(f"interrupted; run `{resume}` to resume.", err=True)
            code = EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED
            raise typer.Exit(code) from None
        finally:
            if client is not None:
                client.close()


def connect(address: str):
    """A client of the Dask scheduler at ``address`` (:func:`acfs_cli.experiment.dispatch.
    connect`), or exit 2 in one line."""
    from acfs_cli.experiment.dispatch import connect as connect_scheduler

    try:
        return connect_scheduler(address)
    except ValueError as exc:
        raise fail(str(exc)) from None


def local_workers(requested: int, groups: int) -> tuple[int, str]:
    """Worker processes for ``groups`` pieces of work, at most one per group and per core,
    and a note when the request was cut to the cores."""
    cores = available_cores()
    n = cores if requested == -1 else requested
    note = ""
    if n > cores:
        note = f"n_jobs {requested} is more than the {cores} cores here: {cores} processes"
        n = cores
    return max(1, min(n, groups)), note


def draws_kept_here(cells) -> dict[str, str]:
    """The problems of ``cells`` whose draws stay in their cells' own process, and why: a
    transform_batch draws every decision in one call and cannot be cut, and a simulator that
    cannot be pickled (a lock, a socket, a licence handle) cannot reach another process."""
    from acfs_cli.parallel import PARALLEL_REFUSED, drawn_here

    out: dict[str, str | None] = {}
    for cell in cells:
        if cell.problem not in out:
            why = drawn_here(cell.found.build_problem())
            out[cell.problem] = why if why is None or why == PARALLEL_REFUSED else (
                "cannot be pickled, so it cannot be sent to another process (its cells' "
                "notes say what to change)")
    return {problem: why for problem, why in out.items() if why is not None}


def run_cells(config, cells, *, force, backend, client, quiet, store,
              scheduler=None, resume: str = "", status_hint: str = "", stale: str = "stop"
              ) -> None:
    """Compute the grid into ``store`` with a progress bar, then print its summary table."""
    from acfs_cli.experiment.grid import work_groups
    from acfs_cli.experiment.runner import refuse_stale, run_grid
    from acfs_cli.parallel import PARALLEL_REFUSED
    from acfs_cli.results.store import read_stored

    err = console(stderr=True)
    if stale == "stop" and not force:  # before anything is said about the run
        refuse_stale(cells, store.records(c.id for c in cells))
    n_jobs, note = -1, ""
    if backend == "local":
        n_jobs, note = local_workers(config.n_jobs, len(work_groups(cells)))
    if note:
        err.print(f"[yellow]note:[/yellow] {note}", soft_wrap=True)
    left_out = config.n_cells() - len(cells)
    if left_out > 0:
        why = " or ".join(w for w, on in (
            ("their budgets are below their method's minimum (below_minimum: skip)",
             config.below_minimum == "skip"),
            ("their method cannot keep their problem's integers or stochastic constraints "
             "(refused: skip)", config.refused == "skip")) if on)
        err.print(f"[yellow]note:[/yellow] {left_out:,} cell(s) left out: {why}",
                  soft_wrap=True)
    foreign = store.foreign_cells(c.id for c in cells)
    if foreign:
        err.print(
            f"[yellow]note:[/yellow] {store.cells_dir} holds {len(foreign)} cell file(s) from "
            "another configuration of this experiment; they are kept, and `acfs report` "
            "leaves them out (use --output to separate experiments).",
            soft_wrap=True,
        )
    where = (f"{n_jobs} local process(es)" if backend == "local" and (n_jobs > 1 or config.timeout)
             else "this process" if backend == "local" else f"dask at {scheduler}")
    if config.draw_jobs != 1:
        where += (", each cell's draws on "
                  + ("every" if config.draw_jobs == -1 else f"{config.draw_jobs}")
                  + (" worker(s) of the cluster" if backend == "dask" else
                     " local process(es) of its own"))
        for problem, why in draws_kept_here(cells).items():
            reason = ("draws every decision in one call (transform_batch), which cannot be "
                      "cut without changing it" if why == PARALLEL_REFUSED else why)
            err.print(f"[yellow]note:[/yellow] {problem}: {reason}; its cells draw in their "
                      "own process", soft_wrap=True)
    err.print(f"[bold]{config.name}[/bold]: {len(cells)} cells -> {store.root} ({where})",
              soft_wrap=True)
    progress = ProgressBar(err, quiet=quiet)
    with progress:
        summary = run_grid(cells, store, n_jobs=n_jobs, backend=backend, client=client,
                           force=force, progress=progress, stale=stale,
                           timeout=config.timeout, draw_jobs=config.draw_jobs)
    if summary.damaged:
        err.print(f"[yellow]note:[/yellow] {summary.damaged} stored cell file(s) could not be "
                  "read back (damaged): computed again", soft_wrap=True)
    if summary.interrupted:
        done = summary.skipped + summary.computed
        what = "stopped by SIGTERM" if summary.terminated else "interrupted"
        typer.echo(
            f"{what}: {done} of {len(cells)} cells are stored in {store.root}; "
            f"run `{resume}` to resume.",
            err=True,
        )
        raise typer.Exit(EXIT_TERMINATED if summary.terminated else EXIT_INTERRUPTED)
    if summary.aborted:
        typer.echo(
            f"error: the run stopped: {summary.aborted}; the {summary.computed} cells finished "
            f"before are stored; run `{resume}` to resume.",
            err=True,
        )
        raise typer.Exit(EXIT_FAILED_CELLS)
    if summary.unconsolidated:
        typer.echo(f"error: {summary.unconsolidated}; fix that and run `{resume}` to write it.",
                   err=True)
        raise typer.Exit(EXIT_BAD_INPUT)
    # The consolidated table holds exactly this grid's cells: one file to read, not thousands.
    rows = read_stored(store.results_path)
    from acfs_cli.report.run import quiet_pandas

    with quiet_pandas():
        print_summary(rows, cells)
    failed = int((rows["status"] != "ok").sum())
    err.print(
        f"{summary.computed} computed, {summary.skipped} already done, "
        f"{failed} failed; results in {store.results_path}",
        soft_wrap=True,
    )
    if failed:
        for row in summary.failures[:3]:
            err.print(f"  failed: {row['problem']} lam={row['lam']:g} {_shown(row)} "
                      f"rep={row['rep']}: {row['error']}", markup=False, highlight=False,
                      soft_wrap=True)
        err.print(f"{failed} cell(s) failed; `{status_hint}` lists them and `{resume}` retries "
                  "them.", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_FAILED_CELLS)


def print_summary(rows, cells) -> None:
    """Medians over replications per problem x lambda (x budget, when the grid has several) x
    configuration: cells ok (and failed, when some did), J_true (the better estimate, first,
    where the grid has it) and J, the normalised gap where the problem knows its optimum,
    draws and wall time; the title says what each J was estimated on."""
    from rich import box
    from rich.table import Table

    from acfs_cli.report.layout import number, se_decimals
    from acfs_cli.report.quality import GAP, with_quality
    from acfs_cli.report.tables import PRECISE, cell_se

    if rows.empty:
        return
    order = {}
    for c in cells:
        order.setdefault(c.label, len(order))
    several_lam = rows["lam"].nunique() > 1
    several_budgets = rows["budget"].nunique() > 1
    any_failed = bool((rows["status"] != "ok").any())
    has_true = bool(rows["J_true"].notna().any())
    rated = with_quality(rows)
    rated = rated[rated["measure"] == GAP]
    keys = ["problem", "lam", "budget", "label"]
    gaps = rated.groupby(keys)["quality"].median() if len(rated) else None
    names = {label: method_label(label, method, display)
             for label, method, display in zip(rows["label"], rows["method"],
                                               rows["method_display"], strict=True)}
    title = "Results (medians over replications)"
    if not several_lam:
        title += f" at lambda {rows['lam'].iloc[0]:g}"
    title += ": " + "; ".join(
        [*([f"J_true on a {_draws(rows, 'precise_draws')}large sample"] if has_true else []),
         f"J on the {_draws(rows, 'final_draws')}common pool"])
    # One space between columns: at 80 columns a long problem name folds, nothing is cut.
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                  padding=(0, 1, 0, 0))
    # Numbers never wrap; a long problem name (a user's import path) folds instead.
    table.add_column("problem", overflow="fold",
                     min_width=min(16, int(rows["problem"].str.len().max())))
    columns = [*(["lambda"] if several_lam else []), *(["budget"] if several_budgets else []),
               "method", "ok", *(["failed"] if any_failed else []),
               *(["J_true"] if has_true else []), "J", *(["gap %"] if gaps is not None else []),
               "draws", "wall s"]
    for name in columns:
        table.add_column(name, justify="left" if name == "method" else "right", no_wrap=True)
    # J to the first significant digit of its standard error, alike for every method of a
    # setting: the typical cell's error there
    setting = ["problem", "lam", "budget"]
    se = rows[setting].assign(J=cell_se(rows), J_true=cell_se(rows, PRECISE))
    digits = se.groupby(setting)[["J", "J_true"]].median()
    rows = rows.assign(_order=rows["label"].map(order))
    groups = list(rows.groupby(["problem", "lam", "budget", "_order", "label"], sort=True))
    for i, ((problem, lam, budget, _, label), block) in enumerate(groups):
        ok = block[block["status"] == "ok"]
        first = i == 0 or groups[i - 1][0][0] != problem
        last = i + 1 == len(groups) or groups[i + 1][0][0] != problem
        out = [problem if first else "", *([f"{lam:g}"] if several_lam else []),
               *([fmt(budget)] if several_budgets else []), names[label], str(len(ok))]
        if any_failed:
            out.append(str(len(block) - len(ok)))
        places = digits.loc[(problem, lam, budget)]
        if has_true:
            J_true = ok["J_true"].median()
            out.append(number(J_true, decimals=se_decimals(places["J_true"], J_true)).plain)
        J = ok["J"].median()
        out.append(number(J, decimals=se_decimals(places["J"], J)).plain)
        if gaps is not None:
            gap = gaps.get((problem, lam, budget, label))
            out.append("-" if gap is None else _percent(gap))
        out += [fmt(ok["oracle_draws"].median()), fmt_seconds(ok["wall_s"].median())]
        table.add_row(*out, end_section=last and len(groups) > i + 1)
    console().print(table)


def _draws(rows, column: str) -> str:
    """The draws of an evaluation as the rows give them, to lead its name: ``"20,000-draw "``,
    ``"2,000-200,000-draw "``, or "" where they do not say."""
    values = sorted(set(rows[column].dropna().astype(int)) - {0}) if column in rows else []
    shown = "-".join(f"{v:,}" for v in values[:: max(len(values) - 1, 1)])
    return f"{shown}-draw " if shown else ""


def method_label(label: str, method: str, display: str) -> str:
    """A configuration as the terminal names it: a method by its display name (a user's
    method by its Method name, not its import path), a grid point by its label."""
    return (display or method) if label == method else label


def _shown(row) -> str:
    display = row.get("method_display", "")
    return method_label(row["label"], row["method"], display if isinstance(display, str) else "")


def _percent(value: float) -> str:
    """A gap in percent to two or three significant digits."""
    digits = 0 if abs(value) >= 9.95 else 1 if abs(value) >= 0.995 else 2
    return f"{value:,.{digits}f}"


# -- commands ------------------------------------------------------------------------------------
def run(
    config: ConfigArg = None,
    replications: ReplicationsOpt = None,
    n_jobs: NJobsOpt = None,
    draw_jobs: DrawJobsOpt = None,
    output: OutputOpt = None,
    force: ForceOpt = False,
    backend: BackendOpt = None,
    scheduler: SchedulerOpt = None,
    quiet: QuietOpt = False,
    recompute_stale: RecomputeStaleOpt = False,
    accept_code: AcceptCodeOpt = False,
) -> None:
    """Run an experiment (default: configs/quick.yaml, about a minute on two cores).

    Finished cells are skipped, failed ones retried; --force recomputes everything.

    [bold]Examples[/bold]

      acfs run configs/main.yaml

      acfs run configs/main.yaml --replications 10 --n-jobs 2

      acfs run configs/main.yaml --replications 50-99 --scheduler tcp://10.0.0.5:8786
    """
    experiment("run", "quick.yaml", config, None, replications, n_jobs, output, force,
               backend, scheduler, quiet, recompute_stale, accept_code, draw_jobs)


def ablate(
    config: ConfigArg = None,
    replications: ReplicationsOpt = None,
    n_jobs: NJobsOpt = None,
    draw_jobs: DrawJobsOpt = None,
    output: OutputOpt = None,
    force: ForceOpt = False,
    backend: BackendOpt = None,
    scheduler: SchedulerOpt = None,
    quiet: QuietOpt = False,
    recompute_stale: RecomputeStaleOpt = False,
    accept_code: AcceptCodeOpt = False,
) -> None:
    """Run the ablation study (default: configs/ablation.yaml).

    ACFS against its variants without antithetic variates, CEM warm-start, oracle reranking
    or focused augmentation (paper Section 5.4).

    [bold]Example[/bold]

      acfs ablate --replications 10
    """
    experiment("ablate", "ablation.yaml", config, "ablation", replications, n_jobs, output,
               force, backend, scheduler, quiet, recompute_stale, accept_code, draw_jobs)


def sensitivity(
    config: ConfigArg = None,
    replications: ReplicationsOpt = None,
    n_jobs: NJobsOpt = None,
    draw_jobs: DrawJobsOpt = None,
    output: OutputOpt = None,
    force: ForceOpt = False,
    backend: BackendOpt = None,
    scheduler: SchedulerOpt = None,
    quiet: QuietOpt = False,
    recompute_stale: RecomputeStaleOpt = False,
    accept_code: AcceptCodeOpt = False,
) -> None:
    """Run the one-at-a-time sensitivity study (default: configs/sensitivity.yaml).

    Each value of each parameter is one grid point with the others at their defaults
    (paper Section 5.5); the grid points share random streams, so they are paired.

    [bold]Example[/bold]

      acfs sensitivity --replications 5
    """
    experiment("sensitivity", "sensitivity.yaml", config, "sensitivity", replications,
               n_jobs, output, force, backend, scheduler, quiet, recompute_stale, accept_code,
               draw_jobs)


def _status_sources(config: Path, results: Path) -> list[str]:
    """Which configuration ``acfs status`` read and which results it counted, both in full:
    a configuration found outside this folder (the checkout's, the installed package's)
    still counts the results here, where ``acfs run`` of it from this folder writes them."""
    here = Path.cwd().resolve()
    config, results = config.resolve(), (here / results).resolve()
    elsewhere = not config.is_relative_to(here)
    said = (["this folder's, where `acfs run` from here writes them"]
            if elsewhere and results.is_relative_to(here) else [])
    said += [] if results.exists() else ["none yet"]
    return [f"configuration {config}" + (" (outside this folder)" if elsewhere else ""),
            f"results       {results}" + (f" ({'; '.join(said)})" if said else "")]


def status(
    config: ConfigArg = None,
    replications: ReplicationsOpt = None,
    output: OutputOpt = None,
) -> None:
    """Cells done / failed / missing of an experiment (default: configs/quick.yaml).

    [bold]Example[/bold]

      acfs status configs/main.yaml
    """
    from rich.table import Table

    from acfs_cli.experiment.runner import stale_cells, stale_summary
    from acfs_cli.results.files import StoreError
    from acfs_cli.results.store import BLOCKED, DAMAGED, ResultStore

    path = resolve_config(config, "quick.yaml")
    selection = [*(["--replications", replications] if replications is not None else []),
                 *(["--output", output] if output is not None else [])]
    config_obj, cells = load_config(path, {"output": output,
                                           "replications": parse_replications(replications)})
    store = ResultStore(config_obj.output_dir)
    records = store.records(c.id for c in cells)
    states = {i: (None if r is None else r.status) for i, r in records.items()}
    stale = {c.id for c in stale_cells(cells, records)}
    several_budgets = len({c.budget for c in cells}) > 1
    counts: dict[tuple, list[int]] = {}
    for c in cells:
        key = (c.problem, c.lam, *([c.budget] if several_budgets else []),
               method_label(c.label, c.method, c.method_display))
        entry = counts.setdefault(key, [0, 0, 0, 0])
        state = states[c.id]
        entry[1 if c.id in stale else 0 if state == "ok" else 2 if state == "error" else 3] += 1
    damaged = [c for c in cells if states[c.id] in (DAMAGED, BLOCKED)]
    table = Table(title=f"{config_obj.name}: {store.root}", title_justify="left")
    out = console()
    for line in _status_sources(path, Path(store.root)):
        out.print(line, markup=False, soft_wrap=True)
    names = ("problem", "lambda", *(["budget"] if several_budgets else []), "method", "done",
             *(["stale"] if stale else []), "failed", "missing")
    for name in names:
        table.add_column(name, justify="left" if name in ("problem", "method") else "right")
    for (problem, lam, *budget, label), (done, old, failed, missing) in counts.items():
        table.add_row(problem, f"{lam:g}", *[fmt(b) for b in budget], label, str(done),
                      *([str(old)] if stale else []), str(failed), str(missing))
    out.print(table)
    totals = [sum(v[i] for v in counts.values()) for i in range(4)]
    out.print(f"{len(cells)} cells: {totals[0]} done, "
              + (f"{totals[1]} stale, " if stale else "")
              + f"{totals[2]} failed, {totals[3]} missing")
    failed_ids = [c.id for c in cells if states[c.id] == "error"]
    if failed_ids:
        try:
            rows = store.read_rows(failed_ids[:5])
        except StoreError:
            rows = None
        for _, row in (rows.iterrows() if rows is not None else []):
            out.print(f"  failed {row['problem']} lam={row['lam']:g} {_shown(row)} "
                      f"rep={row['rep']}: {row['error']}", markup=False)
    for c in damaged[:5]:
        what = "is not a file: remove it" if states[c.id] == BLOCKED else (
            "cannot be read back (counted as missing)")
        out.print(f"  damaged {c.describe()}: {store.cell_path(c.id)} {what}", markup=False)
    if damaged:
        out.print(f"{len(damaged)} cell file(s) are damaged; `acfs run` computes them again "
                  "(a folder in a cell's place must be removed first).", markup=False)
    run = shlex.join(["acfs", "run", str(path), *selection])
    if stale:
        old = [c for c in cells if c.id in stale]
        out.print(f"{stale_summary(old, records)}; `{run} --recompute-stale` computes them "
                  f"again, `{run} --accept-code` keeps them.", markup=False)
    if totals[2] or totals[3]:
        out.print(f"`{run}` computes the failed and missing cells.", markup=False)
