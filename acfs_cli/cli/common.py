"""What the commands share: exit codes, one-line errors, configuration lookup, the
``--replications`` parser and the options of ``run``, ``ablate`` and ``sensitivity``."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Annotated, Any

import typer

EXIT_FAILED_CELLS = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM, what a shell reports for a process SIGTERM ended

_COUNT = re.compile(r"-?[0-9]+")
_SPAN = re.compile(r"([0-9]+)(?:-([0-9]+))?")


def fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print one line on stderr (at most a few hundred characters) and return the exit to
    raise."""
    from acfs_cli.experiment.config import bounded

    typer.echo(f"error: {bounded(message)}", err=True)
    return typer.Exit(code)


def console(stderr: bool = False):
    from rich.console import Console

    # emoji=False: a name such as sleepers:Locked: is text, never an emoji code
    return Console(stderr=stderr, highlight=False, emoji=False)


def resolve_config(path: Path | None, default: str) -> Path:
    """The configuration to use: ``path`` as given, or ``configs/<default>`` looked up in the
    current folder, then in the checkout, then in the installed package."""
    import logging

    from acfs_cli.shipped import config_candidates

    if path is not None:
        return path
    log = logging.getLogger("acfs")
    places = config_candidates(default)
    log.debug("looking for configs/%s in: %s", default, ", ".join(map(str, places)))
    for candidate in places:
        if candidate.is_file():
            log.info("configuration: %s", candidate)
            return candidate
    return Path("configs") / default


def parse_replications(text: str | None) -> int | list[int] | None:
    """``"5"`` (a count), ``"0,3,7"`` (indices) or ``"10-19"`` (an inclusive range), in plain
    digits; more replications than one run may hold are refused before any list is built."""
    from acfs_cli.experiment.config import MAX_CELLS, excerpt

    if text is None:
        return None
    text = text.strip()
    if _COUNT.fullmatch(text):
        return int(text)
    spans = []
    for part in text.split(","):
        match = _SPAN.fullmatch(part.strip())
        lo, hi = (int(match[1]), int(match[2] or match[1])) if match else (1, 0)
        if hi < lo:
            raise fail(
                "--replications: expected a count (5), indices (0,3,7) or a range (10-19), "
                f"got {excerpt(text)}"
            )
        spans.append((lo, hi))
    total = sum(hi - lo + 1 for lo, hi in spans)
    if total > MAX_CELLS:
        raise fail(f"--replications: {total:,} replications are more than one run may hold "
                   f"({MAX_CELLS:,} cells); run them in parts")
    return [rep for lo, hi in spans for rep in range(lo, hi + 1)]


def load_config(config_path: Path, overrides: dict[str, Any]):
    """Configuration and cells, or exit 2 with the configuration's error."""
    from acfs_cli.experiment.config import ConfigError, ConfigErrors, load
    from acfs_cli.experiment.grid import build_cells

    try:
        config = load(config_path, overrides)
        cells = build_cells(config)
    except ConfigErrors as exc:
        for line in exc.lines:  # one line per mistake, all of them: fixed in one go
            typer.echo(f"error: {line}", err=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except ConfigError as exc:
        raise fail(str(exc)) from None
    return config, cells


def fmt(value: float) -> str:
    """A count or a J for a terminal table: thousands separated, "-" when missing."""
    return "-" if value is None or not math.isfinite(value) else f"{value:,.0f}"


def fmt_seconds(value: float) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:.2f}" if value < 10 else f"{value:,.0f}"


def clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


# -- options shared by run / ablate / sensitivity -------------------------------------------
ConfigArg = Annotated[
    Path | None,
    typer.Argument(help="Experiment configuration (YAML).", show_default=False),
]
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
DrawJobsOpt = Annotated[
    int | None,
    typer.Option("--draw-jobs", help="Workers of each cell's draws: local processes of the "
                 "cell's own, or workers of the Dask cluster with --scheduler (-1: every core, "
                 "every worker of the cluster). The results do not depend on it.",
                 show_default=False),
]
OutputOpt = Annotated[
    str | None,  # not a Path: "" would become "." (this folder) before it could be refused
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
        help="Where cells run: local (worker processes here, default) or dask (a running "
        "cluster).",
        show_default=False,
    ),
]
RecomputeStaleOpt = Annotated[
    bool, typer.Option("--recompute-stale",
                       help="Compute again the finished cells whose problem or method code "
                       "has changed since they were computed.")
]
AcceptCodeOpt = Annotated[
    bool, typer.Option("--accept-code",
                       help="Keep the finished cells whose problem or method code has changed, "
                       "as computed (the change does not change their results), and record "
                       "the code here as theirs.")
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
