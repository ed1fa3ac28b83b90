"""The ``acfs`` command line: run experiments, check their progress, and report them.

Parses, calls and prints; the work is done by the experiment layer
(:mod:`acfs_cli.experiment`), the results (:mod:`acfs_cli.results`) and the report
(:mod:`acfs_cli.report`). One module per command or command group (:mod:`.run`, :mod:`.report`,
:mod:`.reference`, :mod:`.listing`) and one of shared options and output helpers
(:mod:`.common`, :mod:`.progress`). Heavy modules are imported inside the commands, so
``acfs --help`` is instant and works whatever else is broken.

Exit codes: 0 success; 1 some cells failed (they are stored as errors and retried by the next
run); 2 bad input (one line on stderr, nothing written); 130 interrupted by Ctrl-C and 143 by
SIGTERM (finished cells are stored; the same command resumes).
"""

from __future__ import annotations

import os
import sys
import threading

import typer

from acfs_cli.cli import init, listing, reference, report, run, solve

_EXAMPLES = """\
[bold]Examples[/bold]

  acfs run                            the quick study (configs/quick.yaml)

  acfs run configs/main.yaml -j 2     the paper's main comparison

  acfs ablate                         the ablation study (configs/ablation.yaml)

  acfs sensitivity -r 5               a short one-at-a-time sensitivity study

  acfs status configs/main.yaml       cells done / failed / missing

  acfs list acfs                      ACFS's parameters and their defaults

  acfs solve shop:Shop -b 20000       one problem of yours, no configuration

  acfs report --latex                 tables of every experiment under results/

  acfs init my-study                  the configurations and examples, to work in
"""

app = typer.Typer(
    name="acfs",
    help=(
        "ACFS (Adaptive Conditional Forest Sampling) and its competitors for spectral-risk "
        "minimisation under decision-dependent uncertainty: run the paper's experiments under "
        "a hard oracle budget and report them.\n\n"
        "An experiment is a YAML grid of problem x lambda x method x replication. Each cell is "
        "stored as results/<experiment>/cells/<cell_id>.parquet as soon as it finishes, so an "
        "interrupted run resumes where it stopped."
    ),
    epilog=_EXAMPLES,
    rich_markup_mode="rich",
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback(invoke_without_command=True)
def _main(
    ctx: typer.Context,
    verbose: int = typer.Option(0, "--verbose", "-v", count=True,
                                help="Say what is being done (-v), and in detail (-vv)."),
    version: bool = typer.Option(False, "--version", is_eager=True,
                                 help="Print acfs's version and exit."),
) -> None:
    from acfs_cli.logs import configure

    if version:
        typer.echo(f"acfs {installed_version()}")
        raise typer.Exit(0)
    configure(verbose)
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit(0)


def installed_version() -> str:
    """The version of the installed distribution (the package's own where none is installed,
    as in a checkout run in place)."""
    from importlib.metadata import PackageNotFoundError, version

    from acfs_cli import __version__

    try:
        return version("acfs")
    except PackageNotFoundError:
        return __version__


app.command(name="run")(run.run)
app.command(name="ablate")(run.ablate)
app.command(name="sensitivity")(run.sensitivity)
app.command(name="status")(run.status)
app.command(name="list")(listing.list_)
app.command(name="report")(report.report)
app.command(name="reference")(reference.reference)
app.command(name="init")(init.init)
app.command(name="solve")(solve.solve)


def main() -> None:
    """The console-script entry point (and ``python -m acfs_cli``).

    A simulator or method of a user's may leave a thread behind that never ends; Python would
    wait for it after the command has printed its results, so the command would never exit.
    Here the command ends when its work is done, whatever threads are left, and says so.
    The installed ``acfs`` script calls this function too (pyproject's ``[project.scripts]``).
    """
    try:
        app(prog_name="acfs")
        code = 0
    except SystemExit as exc:
        code = exc.code
    lingering = [t for t in threading.enumerate()
                 if t is not threading.main_thread() and not t.daemon and t.is_alive()]
    if lingering:
        names = ", ".join(t.name for t in lingering[:3]) + (", ..." if len(lingering) > 3 else "")
        print(f"note: {len(lingering)} thread(s) left running ({names}): the command ends "
              "without them", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code if isinstance(code, int) else 1)
    raise SystemExit(code)


__all__ = ["app", "main"]
