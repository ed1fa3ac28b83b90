"""The progress of ``acfs run``: a rich bar on a terminal, a plain line now and then in a log."""

from __future__ import annotations

import time
from typing import Any

from acfs_cli.cli.common import clock


class ProgressBar:
    """Progress fed by :func:`acfs_cli.experiment.runner.run_grid`: a rich bar on a terminal, and a
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
        if skipped:
            self.console.print(f"{skipped} of {total} cells already done: skipped")
        self.todo = todo
        self.started = self.logged = time.monotonic()
        self.task = self.bar.add_task("cells", total=todo, failed=0)

    def advance(self, rows: list[dict[str, Any]]) -> None:
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
                f"{self.failed} failed, elapsed {clock(elapsed)}, ETA {clock(eta)}",
                highlight=False,
            )
