"""The ``acfs`` command line: run experiments, check their progress, and report them.

Parses, calls and prints; the work is done by :mod:`acfs_cli.config`, :mod:`acfs_cli.grid`,
:mod:`acfs_cli.execute`, :mod:`acfs_cli.store` and :mod:`acfs_cli.report`. Heavy modules are
imported inside the commands, so ``acfs --help`` is instant and works whatever else is broken.

Exit codes: 0 success; 1 some cells failed (they are stored as errors and retried by the next
run); 2 bad input (one line on stderr, nothing written); 130 interrupted (finished cells are
stored; the same command resumes).
"""

from __future__ import annotations

import math
import os
import shlex
from pathlib import Path
from typing import Annotated, Any

import typer

EXIT_FAILED_CELLS = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

_EXAMPLES = """\
[bold]Examples[/bold]

  acfs run                            the quick study (configs/quick.yaml)

  acfs run configs/main.yaml -j 2     the paper's main comparison

  acfs ablate                         the ablation study (configs/ablation.yaml)

  acfs sensitivity -r 5               a short one-at-a-time sensitivity study

  acfs status configs/main.yaml       cells done / failed / missing

  acfs list acfs                      ACFS's parameters and their defaults

  acfs report --latex                 tables of every experiment under results/
"""

app = typer.Typer(
    name="acfs",
    help=(
        "ACFS (Adaptive Conditional Forest Sampling) and its competitors for spectral-risk "
        "minimisation under decision-dependent uncertainty: run the paper's experiments under "
        "a hard oracle budget and report them.\n\n"
        "An experiment is a YAML grid of DGP x lambda x method x replication. Each cell is "
        "stored as results/<experiment>/cells/<cell_id>.parquet as soon as it finishes, so an "
        "interrupted run resumes where it stopped."
    ),
    epilog=_EXAMPLES,
    rich_markup_mode="rich",
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback(invoke_without_command=True)
def _main(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit(0)


# -- helpers ---------------------------------------------------------------------------------------
def _fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print one line on stderr and return the exit to raise."""
    typer.echo(f"error: {' '.join(str(message).split())}", err=True)
    return typer.Exit(code)


def repository_root() -> Path:
    """The folder above the package (the checkout, for an editable install)."""
    return Path(__file__).resolve().parent.parent


def resolve_config(path: Path | None, default: str) -> Path:
    """The configuration to use: ``path`` as given, or the shipped ``configs/<default>``
    looked up in the current folder first, then in the package's repository."""
    if path is not None:
        return path
    for base in (Path.cwd(), repository_root()):
        candidate = base / "configs" / default
        if candidate.is_file():
            return candidate
    return Path("configs") / default


def parse_replications(text: str | None) -> int | list[int] | None:
    """``"5"`` (a count), ``"0,3,7"`` (indices) or ``"10-19"`` (an inclusive range)."""
    if text is None:
        return None
    text = text.strip()
    try:
        if text.lstrip("-").isdigit():
            return int(text)
        reps: list[int] = []
        for part in text.split(","):
            part = part.strip()
            if "-" in part:
                lo, hi = (int(v) for v in part.split("-", 1))
                if hi < lo:
                    raise ValueError
                reps.extend(range(lo, hi + 1))
            else:
                reps.append(int(part))
        return reps
    except ValueError:
        raise _fail(
            f"--replications: expected a count (5), indices (0,3,7) or a range (10-19), "
            f"got {text!r}"
        ) from None


def _load(config_path: Path, overrides: dict[str, Any]):
    """Configuration and cells, or exit 2 with the configuration's error."""
    from acfs_cli.config import ConfigError, load
    from acfs_cli.grid import build_cells

    try:
        config = load(config_path, overrides)
        cells = build_cells(config)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    return config, cells


def _console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


# -- options shared by run / ablate / sensitivity -------------------------------------------
ReplicationsOpt = Annotated[
    str | None,
    typer.Option(
        "--replications", "-r",
        help="Replications to run: a count (5), indices (0,3,7) or a range (10-19).",
        show_default=False,
    ),
]
NJobsOpt = Annotated[
    int | None,
    typer.Option("--n-jobs", "-j", help="Local worker processes (-1: every core).",
                 show_default=False),
]
OutputOpt = Annotated[
    Path | None,
    typer.Option("--output", "-o", help="Results folder (default results/<name>).",
                 show_default=False),
]
ForceOpt = Annotated[
    bool, typer.Option("--force", help="Recompute cells that are already finished.")
]
BackendOpt = Annotated[
    str | None,
    typer.Option(
        "--backend",
        help="Where cells run: loky (local processes, default) or dask (a running cluster).",
        show_default=False,
    ),
]
SchedulerOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        help="Address of the Dask scheduler, e.g. tcp://10.0.0.5:8786 (implies --backend dask).",
        show_default=False,
    ),
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


def _experiment(
    command: str,
    default_config: str,
    config_path: Path | None,
    expect_kind: str | None,
    replications: str | None,
    n_jobs: int | None,
    output: Path | None,
    force: bool,
    backend: str | None,
    scheduler: str | None,
    quiet: bool,
) -> None:
    from acfs_cli.config import ConfigError
    from acfs_cli.execute import BACKENDS
    from acfs_cli.store import ResultStore, StoreError, check_writable

    if backend is not None and backend not in BACKENDS:
        raise _fail(f"--backend: unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if scheduler is not None and backend == "loky":
        raise _fail("--scheduler is for --backend dask")
    backend = backend or ("dask" if scheduler else "loky")
    if backend == "dask" and not scheduler:
        raise _fail("--backend dask needs --scheduler ADDRESS (a running Dask scheduler)")

    path = resolve_config(config_path, default_config)
    overrides = {
        "replications": parse_replications(replications),
        "n_jobs": n_jobs,
        "output": str(output) if output is not None else None,
    }
    config, cells = _load(path, overrides)
    if expect_kind is not None and config.kind != expect_kind:
        raise _fail(
            f"{path}: kind is {config.kind!r}, not {expect_kind!r}; run it with `acfs run`"
        )
    try:
        check_writable(config.output_dir)
    except StoreError as exc:
        raise _fail(str(exc)) from None

    # What to type to carry on: the same selection of cells, without --force.
    selection = []
    if replications is not None:
        selection += ["--replications", replications]
    if output is not None:
        selection += ["--output", str(output)]
    resume_args = [*selection, *(["--scheduler", scheduler] if scheduler else [])]
    resume = shlex.join(["acfs", command, str(path), *resume_args])
    status_hint = shlex.join(["acfs", "status", str(path), *selection])

    client = None
    if backend == "dask":
        client = _connect(scheduler)
    store = ResultStore(config.output_dir, config_hash=config.config_hash())
    try:
        _run(config, cells, path, force=force, backend=backend, client=client, quiet=quiet,
             store=store, scheduler=scheduler, resume=resume, status_hint=status_hint)
    except (StoreError, ConfigError) as exc:
        raise _fail(str(exc)) from None
    except KeyboardInterrupt:
        # Outside the cell loop (planning, the final table): nothing is half written.
        typer.echo(f"interrupted; run `{resume}` to resume.", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        if client is not None:
            client.close()


def _connect(address: str):
    try:
        from distributed import Client
    except ImportError:
        raise _fail("the dask backend needs dask[distributed] (pip install 'acfs[dask]')") from None
    try:
        return Client(address, timeout="10s", set_as_default=False)
    except Exception as exc:  # OSError, TimeoutError, ValueError for a malformed address
        raise _fail(f"cannot connect to the Dask scheduler at {address}: {exc}") from None


def _n_jobs(requested: int, groups: int) -> int:
    cores = os.cpu_count() or 1
    n = cores if requested == -1 else requested
    return max(1, min(n, groups))


def _run(config, cells, path: Path, *, force, backend, client, quiet, store,
         scheduler=None, resume: str = "", status_hint: str = "") -> None:
    from acfs_cli.execute import run_grid
    from acfs_cli.grid import work_groups
    from acfs_cli.store import read_results

    err = _console(stderr=True)
    n_jobs = _n_jobs(config.n_jobs, len(work_groups(cells))) if backend == "loky" else -1
    foreign = store.foreign_cells(c.id for c in cells)
    if foreign:
        err.print(
            f"[yellow]note:[/yellow] {store.cells_dir} holds {len(foreign)} cell file(s) from "
            "another configuration of this experiment; they are kept (use --output to "
            "separate experiments).",
            soft_wrap=True,
        )
    where = f"loky, {n_jobs} process(es)" if backend == "loky" else f"dask at {scheduler}"
    err.print(f"[bold]{config.name}[/bold]: {len(cells)} cells -> {store.root} ({where})",
              soft_wrap=True)
    progress = _ProgressBar(err, quiet=quiet)
    with progress:
        summary = run_grid(cells, store, n_jobs=n_jobs, backend=backend, client=client,
                           force=force, progress=progress)
    if summary.interrupted:
        done = sum(1 for s in store.statuses(c.id for c in cells).values() if s is not None)
        typer.echo(
            f"interrupted: {done} of {len(cells)} cells are stored in {store.root}; "
            f"run `{resume}` to resume.",
            err=True,
        )
        raise typer.Exit(EXIT_INTERRUPTED)
    if summary.aborted:
        typer.echo(
            f"error: the run stopped: {summary.aborted}; the {summary.computed} cells finished "
            f"before are stored; run `{resume}` to resume.",
            err=True,
        )
        raise typer.Exit(EXIT_FAILED_CELLS)
    # The consolidated table holds exactly this grid's cells: one file to read, not thousands.
    rows = read_results(store.results_path)
    _print_summary(rows, cells)
    failed = int((rows["status"] != "ok").sum())
    err.print(
        f"{summary.computed} computed, {summary.skipped} already done, "
        f"{failed} failed; results in {store.results_path}",
        soft_wrap=True,
    )
    if failed:
        for row in summary.failures[:3]:
            err.print(f"  failed: {row['dgp']} lam={row['lam']:g} {row['label']} "
                      f"rep={row['rep']}: {row['error']}", markup=False, highlight=False,
                      soft_wrap=True)
        err.print(f"{failed} cell(s) failed; `{status_hint}` lists them and `{resume}` retries "
                  "them.", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_FAILED_CELLS)


class _ProgressBar:
    """Progress fed by :func:`acfs_cli.execute.run_grid`: a rich bar on a terminal, and a
    plain line at most every ``log_every`` seconds when stderr is a file (batch jobs)."""

    def __init__(self, console, quiet: bool = False, log_every: float = 60.0):
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.console = console
        self.failed = 0
        self.done = 0
        self.todo = 0
        self.log = not quiet and not console.is_terminal
        self.log_every = log_every
        self.started = self.logged = 0.0
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[red]{task.fields[failed]} failed"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            disable=quiet or self.log,
            transient=False,
        )
        self.task = None

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        return self.bar.__exit__(*exc)

    def start(self, total: int, todo: int, skipped: int) -> None:
        import time

        if skipped:
            self.console.print(f"{skipped} of {total} cells already done: skipped")
        self.todo = todo
        self.started = self.logged = time.monotonic()
        self.task = self.bar.add_task("cells", total=todo, failed=0)

    def advance(self, rows: list[dict[str, Any]]) -> None:
        import time

        self.done += len(rows)
        self.failed += sum(r["status"] != "ok" for r in rows)
        self.bar.update(self.task, advance=len(rows), failed=self.failed)
        now = time.monotonic()
        if self.log and (now - self.logged >= self.log_every or self.done == self.todo):
            self.logged = now
            elapsed = now - self.started
            eta = elapsed / self.done * (self.todo - self.done)
            self.console.print(
                f"{time.strftime('%H:%M:%S')} {self.done}/{self.todo} cells, "
                f"{self.failed} failed, elapsed {_clock(elapsed)}, ETA {_clock(eta)}",
                highlight=False,
            )


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _print_summary(rows, cells) -> None:
    """Median J (and J_true), draws and wall time per dgp x lambda x configuration."""
    from rich import box
    from rich.table import Table

    from acfs_cli.schema import display_name

    if rows.empty:
        return
    order = {}
    for c in cells:
        order.setdefault(c.label, len(order))
    has_true = bool(rows["J_true"].notna().any())
    names = {label: display_name(label) if label == method else label
             for label, method in zip(rows["label"], rows["method"], strict=True)}
    table = Table(title="Results (medians over replications)", title_justify="left",
                  box=box.SIMPLE_HEAD)
    # Numbers never wrap; a long problem name (a user's import path) folds instead.
    table.add_column("DGP", overflow="fold", min_width=min(16, int(rows["dgp"].str.len().max())))
    for name in ("lambda", "method", "ok", "failed", "J", *(["J_true"] if has_true else []),
                 "draws", "wall s"):
        table.add_column(name, justify="left" if name == "method" else "right", no_wrap=True)
    rows = rows.assign(_order=rows["label"].map(order))
    for (dgp, lam, _, label), block in rows.groupby(["dgp", "lam", "_order", "label"],
                                                     sort=True):
        ok = block[block["status"] == "ok"]
        cells_out = [dgp, f"{lam:g}", names[label], str(len(ok)), str(len(block) - len(ok)),
                     _fmt(ok["J"].median())]
        if has_true:
            cells_out.append(_fmt(ok["J_true"].median()))
        cells_out += [_fmt(ok["oracle_draws"].median()), _fmt_seconds(ok["wall_s"].median())]
        table.add_row(*cells_out)
    _console().print(table)


def _fmt(value: float) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:,.0f}"


def _fmt_seconds(value: float) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:.2f}" if value < 10 else f"{value:,.0f}"


# -- commands ------------------------------------------------------------------------------------
ConfigArg = Annotated[
    Path | None,
    typer.Argument(help="Experiment configuration (YAML).", show_default=False),
]


@app.command()
def run(
    config: ConfigArg = None,
    replications: ReplicationsOpt = None,
    n_jobs: NJobsOpt = None,
    output: OutputOpt = None,
    force: ForceOpt = False,
    backend: BackendOpt = None,
    scheduler: SchedulerOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Run an experiment (default: configs/quick.yaml, a few minutes on two cores).

    Finished cells are skipped, failed ones retried; --force recomputes everything.

    [bold]Examples[/bold]

      acfs run configs/main.yaml

      acfs run configs/main.yaml --replications 10 --n-jobs 2

      acfs run configs/main.yaml --replications 50-99 --scheduler tcp://10.0.0.5:8786
    """
    _experiment("run", "quick.yaml", config, None, replications, n_jobs, output, force,
                backend, scheduler, quiet)


@app.command()
def ablate(
    config: ConfigArg = None,
    replications: ReplicationsOpt = None,
    n_jobs: NJobsOpt = None,
    output: OutputOpt = None,
    force: ForceOpt = False,
    backend: BackendOpt = None,
    scheduler: SchedulerOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Run the ablation study (default: configs/ablation.yaml).

    ACFS against its variants without antithetic variates, CEM warm-start, oracle reranking
    or focused augmentation (paper Section 5.4).

    [bold]Example[/bold]

      acfs ablate --replications 10
    """
    _experiment("ablate", "ablation.yaml", config, "ablation", replications, n_jobs, output, force,
                backend, scheduler, quiet)


@app.command()
def sensitivity(
    config: ConfigArg = None,
    replications: ReplicationsOpt = None,
    n_jobs: NJobsOpt = None,
    output: OutputOpt = None,
    force: ForceOpt = False,
    backend: BackendOpt = None,
    scheduler: SchedulerOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Run the one-at-a-time sensitivity study (default: configs/sensitivity.yaml).

    Each value of each parameter is one grid point with the others at their defaults
    (paper Section 5.5); the grid points share random streams, so they are paired.

    [bold]Example[/bold]

      acfs sensitivity --replications 5
    """
    _experiment("sensitivity", "sensitivity.yaml", config, "sensitivity", replications,
                n_jobs, output, force, backend, scheduler, quiet)


@app.command()
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

    from acfs_cli.store import ResultStore

    path = resolve_config(config, "quick.yaml")
    config_obj, cells = _load(path, {"output": str(output) if output is not None else None,
                                     "replications": parse_replications(replications)})
    store = ResultStore(config_obj.output_dir)
    states = store.statuses(c.id for c in cells)
    counts: dict[tuple, list[int]] = {}
    for c in cells:
        key = (c.dgp, c.lam, c.label)
        entry = counts.setdefault(key, [0, 0, 0])
        entry[{"ok": 0, "error": 1}.get(states[c.id], 2)] += 1
    table = Table(title=f"{config_obj.name}: {store.root}", title_justify="left")
    for name in ("DGP", "lambda", "method", "done", "failed", "missing"):
        table.add_column(name, justify="left" if name in ("DGP", "method") else "right")
    for (dgp, lam, label), (done, failed, missing) in counts.items():
        table.add_row(dgp, f"{lam:g}", label, str(done), str(failed), str(missing))
    console = _console()
    console.print(table)
    totals = [sum(v[i] for v in counts.values()) for i in range(3)]
    console.print(f"{len(cells)} cells: {totals[0]} done, {totals[1]} failed, "
                  f"{totals[2]} missing")
    failed_ids = [c.id for c in cells if states[c.id] == "error"]
    if failed_ids:
        rows = store.read_rows(failed_ids[:5])
        for _, row in rows.iterrows():
            console.print(f"  failed {row['dgp']} lam={row['lam']:g} {row['label']} "
                          f"rep={row['rep']}: {row['error']}", markup=False)
    if totals[1] or totals[2]:
        console.print(f"`acfs run {path}` computes the failed and missing cells.")


@app.command(name="list")
def list_(
    method: Annotated[
        str | None,
        typer.Argument(help="Show only this method's parameters.", show_default=False),
    ] = None,
) -> None:
    """Problems, methods, and each method's parameters with their defaults.

    Parameters are overridden per method under `methods:` in a configuration, for example
    `methods: {acfs: {n_a: 800}}`.
    """
    import sys

    from rich.table import Table

    from acfs_cli.problems import PROBLEMS

    console = _console()
    try:
        from acfs_cli.methods.registry import METHODS
    except ImportError as exc:
        raise _fail(f"the method registry cannot be imported: {exc}") from None
    if method is not None and method not in METHODS:
        raise _fail(f"unknown method {method!r}; known methods: {', '.join(METHODS)}")
    if method is None:
        problems = Table(title="Problems (grid.dgp)", title_justify="left", show_header=False)
        for name, cls in PROBLEMS.items():
            doc = cls.__doc__ or sys.modules[cls.__module__].__doc__ or ""
            problems.add_row(name, (doc.strip().splitlines() or [""])[0])
        problems.add_row("pkg.mod:Class", "a user problem by import path (transform/sample, "
                         "cost, project)")
        console.print(problems)
    parents: dict[tuple, str] = {}
    for name, m in METHODS.items():
        if method is not None and name != method:
            continue
        key = (m.settings_model, m.search)
        parent = parents.setdefault(key, name)
        if parent != name and method is None:
            fixed = ", ".join(f"{k}={_show(v)}" for k, v in m.fixed.items())
            console.print(f"[bold]{name}[/bold]: {m.summary} ({parent} with {fixed})")
            continue
        table = Table(title=f"[bold]{name}[/bold]: {m.summary}", title_justify="left")
        table.add_column("parameter")
        table.add_column("default", justify="right")
        table.add_column("meaning")
        fields = m.settings_model.model_fields
        for param, value in m.parameters().items():
            fixed = " (fixed)" if param in m.fixed else ""
            table.add_row(param, _show(value) + fixed, fields[param].description or "")
        console.print(table)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return format(value, "g")
    return str(value)


@app.command()
def report(
    experiments: Annotated[
        list[Path] | None,
        typer.Argument(help="Experiment folders (default: every experiment under results/).",
                       show_default=False),
    ] = None,
    latex: Annotated[bool, typer.Option("--latex", help="Also write LaTeX (booktabs) tables.")]
    = False,
    csv: Annotated[bool, typer.Option("--csv", help="Also write CSV tables.")] = False,
    no_figures: Annotated[bool, typer.Option("--no-figures", help="Skip the figures.")] = False,
    reference: Annotated[
        str, typer.Option("--reference", help="Method the others are compared with.")
    ] = "acfs",
    floor_draws: Annotated[
        int, typer.Option("--floor-draws", help="Draws of each replication's precise J "
                          "(the configs' precise_draws): the reference minimiser is estimated "
                          "on the same normals for the paired regret; 0 skips it.")
    ] = 200_000,
) -> None:
    """Tables (terminal, LaTeX, CSV) and figures of finished experiments.

    With precise evaluation and reference optima (acfs reference), the regret table also
    gives the paired regret: J(x*) minus J(x_ref) on the same large sample, cached in
    <experiment>/reference_floor.parquet (a few minutes the first time for a large study).

    [bold]Examples[/bold]

      acfs report

      acfs report results/main --latex --csv
    """
    try:
        from acfs_cli.report import ReportError, report_experiments
    except ImportError as exc:
        raise _fail(f"the report module cannot be imported: {exc}") from None
    if floor_draws > 0:
        _update_floors(list(experiments or []), floor_draws)
    try:
        code = report_experiments(
            list(experiments or []),
            latex=latex,
            csv=csv,
            figures=not no_figures,
            reference=reference,
            results_root=Path("results"),
            console=_console(),
        )
    except ReportError as exc:
        raise _fail(str(exc)) from None
    raise typer.Exit(int(code or 0))


def _update_floors(experiments: list[Path], n: int) -> None:
    """Before the report: each replication's reference minimiser on its precise normals
    (acfs_cli.reference.reference_floor), for the paired regret. Silent where the study has
    no precise J or there are no reference optima; the report then shows the unpaired regret
    only."""
    try:
        from acfs_cli.reference import FLOOR_FILE, reference_floor
        from acfs_cli.report import ReportError, read_reference_optima, read_results
        from acfs_cli.report.run import experiments_under, resolve_experiment
    except ImportError:
        return  # the report itself says what is missing

    root = Path("results")
    folders = [resolve_experiment(Path(p), root) for p in experiments] or experiments_under(root)
    console = _console()
    for path in folders:
        folder = path.parent if path.is_file() else path
        try:
            results = read_results(path)
            optima = read_reference_optima(folder, root)
        except ReportError:
            continue  # the report says why
        if optima is None or "J_true" not in results.columns:
            continue
        keys = results.loc[results["J_true"].notna(), ["dgp", "lam", "alpha", "seed", "rep"]]
        if keys.empty:
            continue
        with console.status(f"{folder.name}: reference minimisers on the replications' "
                            "precise normals (paired regret) ...") as status:
            def progress(done: int, total: int, status=status, name=folder.name) -> None:
                status.update(f"{name}: reference minimisers on {done}/{total} replications' "
                              "precise normals (paired regret)")

            try:
                reference_floor(keys.astype({"seed": int, "rep": int}), optima, n,
                                cache=folder / FLOOR_FILE, progress=progress)
            except OSError as exc:
                console.print(f"no paired regret for {folder}: {exc}", markup=False)


@app.command()
def reference(
    config: ConfigArg = None,
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Folder of reference.parquet.")
    ] = Path("results/reference"),
    force: ForceOpt = False,
    seed: Annotated[int, typer.Option("--seed", help="Base seed of the search streams.")] = 0,
) -> None:
    """Large-sample reference optima J* for every (dgp, lambda) of a configuration.

    Global search and pattern-search polish on common antithetic scenarios (no method budget).

    J*, EC and CVaR are then re-estimated on a fresh sample of 4,000,000 draws, with SE.

    `acfs report` uses them for the regret of every method. Finished rows are kept (--force).

    A few minutes per setting; built-in benchmarks (dgp1, dgp2) only.

    [bold]Example[/bold]

      acfs reference configs/main.yaml
    """
    cfg, _ = _load(resolve_config(config, "main.yaml"), {})
    dgps = [d for d in cfg.grid.dgp if d in ("dgp1", "dgp2")]
    if not dgps:
        raise _fail("the configuration has no built-in benchmark (dgp1, dgp2) to compute")
    try:
        from acfs_cli.store import check_writable

        check_writable(output)
    except Exception as exc:  # one line, never a traceback
        raise _fail(f"cannot write to {output}: {exc}") from None
    from acfs_cli.reference import compute_references

    console = _console()

    def show(row: dict) -> None:
        console.print(
            f"{row['dgp']} lam={row['lam']:g}: J* = {row['J_star']:,.0f} "
            f"(SE {row['J_star_se']:,.0f}), EC {row['EC_star']:,.0f}, "
            f"CVaR {row['CVaR_star']:,.0f}"
        )

    table = compute_references(dgps, cfg.grid.lam, cfg.alpha, seed=seed, out_dir=output,
                               force=force, progress=show)
    console.print(f"{len(table)} reference optima in {output / 'reference.parquet'}")


def main() -> None:  # pragma: no cover - the console-script entry point
    app(prog_name="acfs")
