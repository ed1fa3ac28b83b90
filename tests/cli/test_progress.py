"""The progress of ``acfs run`` names the running cell that has run longest and for how long,
on a terminal and in a log, also while no cell finishes (a clock of the test's own)."""

from __future__ import annotations

import io

from rich.console import Console

from acfs_cli.cli.progress import ProgressBar
from acfs_cli.experiment.config import parse
from acfs_cli.experiment.dispatch import dispatch
from acfs_cli.experiment.grid import build_cells, work_groups

CONFIG = {"name": "p", "seed": 1, "budget": 400, "replications": 3,
          "final_eval": {"draws": 200, "bootstrap": 0},
          "grid": {"problem": ["dgp2"], "lambda": [0.7], "method": ["saa-ps", "astro"]}}


def cells():
    return build_cells(parse(CONFIG))


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_a_log_line_names_the_longest_running_cell_even_when_none_finishes():
    first, second, third = cells()[:3]
    out = io.StringIO()
    now = Clock()
    bar = ProgressBar(Console(file=out, width=200), log_every=60, now=now)
    with bar:
        bar.start(total=6, todo=6, skipped=0)
        bar.begin([first])
        now.t += 5
        bar.begin([second])
        now.t += 30
        bar.tick()
        assert out.getvalue() == ""  # within log_every of the start: nothing yet
        now.t += 90  # 125 s after the first cell began, and no cell finished
        bar.tick()
        assert f"0/6 cells, 0 failed, elapsed 0:02:05, ETA -; longest running: " \
               f"{first.describe()} for 0:02:05" in out.getvalue()
        now.t += 1
        bar.advance([{"cell_id": first.id, "status": "ok"}])
        bar.begin([third])
        now.t += 60
        bar.tick()
        # the first finished: the second has run longest now (5 s later than the first)
        assert f"1/6 cells, 0 failed, elapsed 0:03:06, ETA 0:15:30; longest running: " \
               f"{second.describe()} for 0:03:01" in out.getvalue().splitlines()[-1]


def test_the_bar_on_a_terminal_shows_the_longest_running_cell():
    first = cells()[0]
    now = Clock()
    out = io.StringIO()
    bar = ProgressBar(Console(file=out, width=250, force_terminal=True), now=now)
    bar.start(total=1, todo=1, skipped=0)
    bar.begin([first])
    now.t += 42
    shown = Console(file=io.StringIO(), width=250)
    with shown.capture() as capture:
        shown.print(bar.bar.get_renderable())
    assert f"longest running: {first.describe()} for 0:00:42" in capture.get()


def test_the_runner_says_when_each_group_begins_in_this_process_and_in_workers():
    groups = work_groups(cells()[:2])
    for n_jobs, timeout in ((1, None), (2, 60.0)):
        begun: list[str] = []
        rows = list(dispatch(groups, n_jobs=n_jobs, timeout=timeout,
                             started=lambda g, seen=begun: seen.append(g[0].id)))
        assert sorted(begun) == sorted(g[0].id for g in groups)
        assert len(rows) == len(groups)
