"""``acfs solve``: parallel draws from the command line (``--n-jobs``, ``--scheduler``), with
the answer of one process and each mistake in one line."""

from __future__ import annotations

import os

import pytest
from sleepers import children, spread
from typer.testing import CliRunner

from acfs_cli.cli import app
from acfs_cli.parallel import close_workers, process

runner = CliRunner()

ARGS = ["-b", "600", "--n-eval", "400", "--seed", "2", "-q"]


def solve(*args):
    return runner.invoke(app, ["solve", *[str(a) for a in args]])


def answer(result) -> list[str]:
    """The answer's lines but its notes (a run with workers may note how many it had)."""
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    return [line for line in lines[:next((i for i, line in enumerate(lines)
                                          if line.startswith("notes")), len(lines))]]


@pytest.mark.timeout(300)
def test_n_jobs_spreads_the_draws_over_local_workers_with_the_answer_of_one_process(
        tmp_path, monkeypatch):
    monkeypatch.setattr(process, "available_cores", lambda: 2)  # any machine: two workers
    close_workers()
    folder = tmp_path / "rows"
    folder.mkdir()
    one = solve("sleepers:Sleeper", *ARGS)
    before = children()
    spread_run = solve("sleepers:Recorder", "--problem-param", f"folder={folder}",
                       "--problem-param", "pause=0.01", *ARGS, "--n-jobs", "2")
    assert answer(spread_run)[1:] == answer(one)[1:]  # but the problem's name
    workers = {k: v for k, v in spread(folder).items() if k != f"pid-{os.getpid()}"}
    assert len(workers) == 2 and all(v > 0 for v in workers.values()), workers
    assert children() == before  # the command keeps no worker: it ends
    close_workers()


@pytest.mark.timeout(300)
def test_scheduler_sends_the_draws_to_a_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    one = solve("sleepers:Sleeper", *ARGS)
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        run = solve("sleepers:Recorder", "--problem-param", f"folder={tmp_path}", *ARGS,
                    "--scheduler", cluster.scheduler_address)
    assert answer(run)[1:] == answer(one)[1:]
    assert sum(k.startswith("dask-") for k in spread(tmp_path)) == 2


@pytest.mark.parametrize(("args", "said"), [
    (["--n-jobs", "0"], "error: --n-jobs must be a positive count of workers or -1 (every "
                        "core), got 0"),
    (["-j", "-3"], "error: --n-jobs must be a positive count of workers or -1"),
    (["--scheduler", "42"], "error: --scheduler: '42' is not a scheduler address "
                            "(tcp://HOST:PORT)"),
    (["--scheduler", "tcp://127.0.0.1:1"], "error: --scheduler: nothing answers at "
                                           "tcp://127.0.0.1:1"),
])
def test_a_bad_worker_count_or_scheduler_is_one_line(args, said):
    result = solve("sleepers:Sleeper", *ARGS, *args)
    assert result.exit_code == 2
    assert result.stderr.startswith(said) and result.stderr.count("\n") == 1
    assert "Traceback" not in result.output


def test_the_help_names_the_parallel_options():
    text = " ".join(runner.invoke(app, ["solve", "--help"]).output.split())
    assert "--n-jobs" in text and "--scheduler" in text


@pytest.mark.timeout(120)
def test_timeout_ends_the_search_with_its_best_answer_and_says_so():
    # 20,000 draws at a millisecond a row would take 20 s; the search ends after about one
    result = solve("sleepers:Sleeper", "--problem-param", "pause=0.001", "-b", "20000",
                   "--n-eval", "400", "--timeout", "1", "-q")
    assert result.exit_code == 0, result.output
    lines = {line[:9].strip(): line[9:] for line in result.stdout.splitlines() if line[:9].strip()}
    used = int(lines["draws"].split(" of ")[0].replace(",", ""))
    assert used < 20_000 and "(stopped: timeout" in lines["draws"]
    assert "timeout" in result.stdout.split("notes", 1)[1]
    bad = solve("sleepers:Sleeper", "--timeout", "-1")
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1
    assert "timeout must be a positive number of seconds" in bad.stderr


@pytest.mark.timeout(300)
def test_every_example_of_the_help_runs_from_the_checkout_root(monkeypatch):
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    text = solve("--help").stdout
    examples = [line.split()[2:] for line in text.splitlines()
                if line.strip().startswith("acfs solve ")]
    assert len(examples) >= 4
    for args in examples:  # a small budget: the example's own options, then these
        result = solve(*args, "--budget", "600", "--n-eval", "400", "-q")
        assert result.exit_code == 0, (args, result.output)
    close_workers()
