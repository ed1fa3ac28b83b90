"""The progress of ``acfs run``: a rich bar on a terminal, a plain line now and then in a log;
both say which running cell has run longest and for how long, so a cell that never ends is
seen (a configuration without ``timeout:`` gives it no limit)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from acfs_cli.cli.common import clock


class Running:
    """The groups of cells being computed and since when. Written by the run, read by the
    bar's refresh thread and the log's ticker: hence the lock."""

    def __init__(self, now: Callable[[], float] = time.monotonic):
        self.now = now
        self._lock = threading.Lock()
        self._since: dict[str, tuple[str, float]] = {}  # first cell id -> (cell, start)

    def begin(self, cells: Sequence[Any]) -> None:
        with self._lock:
            self._since[cells[0].id] = (cells[0].describe(), self.now())

    def end(self, rows: list[dict[str, Any]]) -> None:
        with self._lock:
            for row in rows:
                self._since.pop(str(row.get("cell_id")), None)

    def longest(self) -> tuple[str, float] | None:
        """The running cell that began first, and its seconds so far (None: none known)."""
        with self._lock:
            if not self._since:
                return None
            cell, start = min(self._since.values(), key=lambda v: v[1])
        return cell, self.now() - start

    def describe(self) -> str:
        """``longest running: dgp1 lam=0.7 saa-ps rep=3 for 0:02:05``, or "" when nothing
        is known to run."""
        longest = self.longest()
        if longest is None:
            return ""
        cell, seconds = longest
        return f"longest running: {cell} for {clock(seconds)}"


class ProgressBar:
    """Progress fed by :func:`acfs_cli.experiment.runner.run_grid`: a rich bar on a terminal, and a
    plain line at most every ``log_every`` seconds when stderr is a file (batch jobs), also
    when no cell finishes (a ticker thread), so a stuck cell shows in the log too."""

    def __init__(self, console, quiet: bool = False, log_every: float = 60.0,
                 now: Callable[[], float] = time.monotonic):
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            ProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.text import Text

        self.console = console
        self.failed = 0
        self.done = 0
        self.todo = 0
        self.log = not quiet and not console.is_terminal
        self.log_every = log_every
        self.now = now
        self.running = Running(now)
        self.started = self.logged = 0.0
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        running = self.running

        class LongestRunning(ProgressColumn):
            """Re-rendered at every refresh, not only when a cell finishes."""

            def render(self, task) -> Text:
                return Text(running.describe(), style="dim")

        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[red]{task.fields[failed]} failed"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            LongestRunning(),
            console=console,
            disable=quiet or self.log,
            transient=False,
        )
        self.task = None

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(1.0)
        return self.bar.__exit__(*exc)

    def start(self, total: int, todo: int, skipped: int) -> None:
        if skipped:
            self.console.print(f"{skipped} of {total} cells already done: skipped")
        self.todo = todo
        self.started = self.logged = self.now()
        self.task = self.bar.add_task("cells", total=todo, failed=0)
        if self.log and todo:
            self._ticker = threading.Thread(target=self._tick_until_stopped, daemon=True,
                                            name="acfs-progress-log")
            self._ticker.start()

    def begin(self, cells: Sequence[Any]) -> None:
        self.running.begin(cells)

    def advance(self, rows: list[dict[str, Any]]) -> None:
        self.running.end(rows)
        self.done += len(rows)
        self.failed += sum(r["status"] != "ok" for r in rows)
        self.bar.update(self.task, advance=len(rows), failed=self.failed)
        if self.done == self.todo:
            self._stop.set()
        self.tick(last=self.done == self.todo)

    def tick(self, last: bool = False) -> None:
        """In a log, the progress line when ``log_every`` seconds have passed since the last
        one (or on the ``last`` cell)."""
        now = self.now()
        if self.log and (now - self.logged >= self.log_every or last):
            self.logged = now
            self.console.print(self.line(now), highlight=False, markup=False, soft_wrap=True)

    def line(self, now: float) -> str:
        """``12:00:00 3/10 cells, 0 failed, elapsed 0:01:00, ETA 0:02:20; longest running:
        ...``"""
        elapsed = now - self.started
        eta = clock(elapsed / self.done * (self.todo - self.done)) if self.done else "-"
        text = (f"{time.strftime('%H:%M:%S')} {self.done}/{self.todo} cells, "
                f"{self.failed} failed, elapsed {clock(elapsed)}, ETA {eta}")
        running = self.running.describe()
        return f"{text}; {running}" if running and self.done < self.todo else text

    def _tick_until_stopped(self) -> None:
        while not self._stop.wait(min(self.log_every, 5.0)):
            self.tick()
