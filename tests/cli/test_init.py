"""``acfs init``, where a command given no configuration finds one, and ``-v``/``-vv``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

import acfs_cli.shipped as shipped
from acfs_cli.cli import app
from acfs_cli.cli import init as init_command
from acfs_cli.cli.common import resolve_config

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def shipped_files(folder: Path) -> dict[str, bytes]:
    """The files of a shipped folder that MANIFEST.in names (*.py, *.yaml)."""
    return {k: v for k, v in files(folder).items()
            if k.endswith((".py", ".yaml")) and "results" not in Path(k).parts}


def test_init_writes_the_configs_and_examples_as_laid_out_in_the_repository(tmp_path):
    result = invoke("init", tmp_path / "study")
    assert result.exit_code == 0, result.output
    written = files(tmp_path / "study")
    expected = {f"{name}/{k}": v for name in ("configs", "examples")
                for k, v in shipped_files(ROOT / name).items()}
    assert written == expected
    assert "configs/quick.yaml" in written and "examples/shelf_space.py" in written
    # an empty folder is taken too
    (tmp_path / "empty").mkdir()
    assert invoke("init", tmp_path / "empty").exit_code == 0
    assert files(tmp_path / "empty") == expected


def test_init_in_a_checkout_where_the_examples_were_run_copies_only_a_fresh_study(
        tmp_path, monkeypatch):
    # A checkout's examples after the README's walk: `acfs run shelf.yaml` from examples/
    # (results/shelf with its lock), the convergence figure, Python's caches.
    checkout = tmp_path / "checkout"
    for name in ("configs", "examples"):
        shutil.copytree(ROOT / name, checkout / name,
                        ignore=shutil.ignore_patterns("__pycache__", "results"))
    left = {"examples/results/shelf/run.lock": b"", "examples/results/shelf/manifest.json": b"{}",
            "examples/results/shelf/cells/a.parquet": b"PAR1", "examples/convergence.png": b"png",
            "examples/__pycache__/shelf_space.cpython-311.pyc": b"pyc",
            "examples/.ipynb_checkpoints/shelf_space.py": b"old", "configs/notes.txt": b"mine"}
    for relative, data in left.items():
        (checkout / relative).parent.mkdir(parents=True, exist_ok=True)
        (checkout / relative).write_bytes(data)
    monkeypatch.setattr(shipped, "checkout", lambda: checkout)
    assert invoke("init", tmp_path / "study").exit_code == 0
    written = files(tmp_path / "study")
    assert written == {f"{name}/{k}": v for name in ("configs", "examples")
                       for k, v in shipped_files(ROOT / name).items()}
    assert not set(left) & set(written)
    # and git keeps what a walk of the examples leaves in a checkout out of a commit
    ignored = subprocess.run(["git", "check-ignore", *left], cwd=ROOT, capture_output=True,
                             text=True)
    if ignored.returncode == 128:  # not a git checkout (an sdist): nothing to check
        return
    assert set(ignored.stdout.split()) >= {k for k in left if not k.startswith("configs/")}


@pytest.mark.parametrize("make, says", [
    (lambda p: p.write_text("x"), "is a file"),
    (lambda p: (p.mkdir(), (p / "notes.txt").write_text("mine")), "is not empty"),
])
def test_init_refuses_a_file_or_a_non_empty_folder_in_one_line(tmp_path, make, says):
    target = tmp_path / "target"
    make(target)
    before = files(tmp_path)
    result = invoke("init", target)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and says in result.stderr
    assert result.stderr.startswith("error: ")
    assert files(tmp_path) == before


def test_an_interrupted_init_leaves_nothing_behind(tmp_path, monkeypatch):
    copies = []
    real = shutil.copyfile

    def copy_then_interrupt(*args, **kwargs):
        copies.append(args[1])
        if len(copies) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(init_command.shutil, "copyfile", copy_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        init_command.write_starter(tmp_path / "study")
    assert list(tmp_path.iterdir()) == []


def test_a_command_without_a_configuration_looks_here_then_in_the_checkout_then_the_package(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # 1. the checkout's (this repository's)
    assert resolve_config(None, "quick.yaml") == ROOT / "configs" / "quick.yaml"
    # 2. the current folder's first
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "quick.yaml").write_text("name: mine\n")
    assert resolve_config(None, "quick.yaml") == tmp_path / "configs" / "quick.yaml"
    # 3. an installed wheel's copy when there is no checkout
    package = tmp_path / "site" / "acfs_cli"
    (package / "_shipped" / "configs").mkdir(parents=True)
    (package / "_shipped" / "configs" / "main.yaml").write_text("name: main\n")
    monkeypatch.setattr(shipped, "PACKAGE", package)
    monkeypatch.setattr(shipped, "checkout", lambda: None)
    assert resolve_config(None, "main.yaml") == package / "_shipped" / "configs" / "main.yaml"
    assert shipped.shipped("configs") == package / "_shipped" / "configs"
    # a configuration named on the command line is taken as given
    assert resolve_config(Path("x.yaml"), "quick.yaml") == Path("x.yaml")


def test_status_inside_an_initialised_folder_uses_its_configs(tmp_path, monkeypatch):
    assert invoke("init", tmp_path / "study").exit_code == 0
    monkeypatch.chdir(tmp_path / "study")
    result = invoke("-v", "status")
    assert result.exit_code == 0, result.output
    assert "42 cells: 0 done, 0 failed, 42 missing" in result.stdout
    here = tmp_path / "study" / "configs" / "quick.yaml"
    assert f"info: configuration: {here}" in result.stderr


def test_status_from_another_folder_names_the_configuration_and_the_results_it_counted(
        tmp_path, monkeypatch):
    # No configs/ here: the checkout's quick.yaml is read, and the results counted are this
    # folder's, where `acfs run` from here writes them - both said in full.
    monkeypatch.chdir(tmp_path)
    result = invoke("status")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"configuration {ROOT / 'configs' / 'quick.yaml'} (outside this folder)"
    assert lines[1] == (f"results       {tmp_path.resolve() / 'results' / 'quick'} (this "
                        "folder's, where `acfs run` from here writes them; none yet)")
    # a run's cell here is what status counts
    (tmp_path / "results" / "quick").mkdir(parents=True)
    again = invoke("status").stdout.splitlines()
    assert again[1] == (f"results       {tmp_path.resolve() / 'results' / 'quick'} (this "
                        "folder's, where `acfs run` from here writes them)")
    # in an initialised folder both are its own
    assert invoke("init", tmp_path / "study").exit_code == 0
    monkeypatch.chdir(tmp_path / "study")
    own = invoke("status").stdout.splitlines()
    study = (tmp_path / "study").resolve()
    assert own[:2] == [f"configuration {study / 'configs' / 'quick.yaml'}",
                       f"results       {study / 'results' / 'quick'} (none yet)"]


def test_verbosity_warnings_by_default_info_with_v_debug_with_vv(tmp_path, monkeypatch):
    assert invoke("init", tmp_path / "study").exit_code == 0
    monkeypatch.chdir(tmp_path / "study")
    quiet, info, debug = invoke("status"), invoke("-v", "status"), invoke("-vv", "status")
    assert quiet.stdout == info.stdout == debug.stdout  # command output unchanged
    assert "info:" not in quiet.stderr and "debug:" not in quiet.stderr
    assert "info: configuration:" in info.stderr and "debug:" not in info.stderr
    assert "info: configuration:" in debug.stderr
    assert "debug: looking for configs/quick.yaml in:" in debug.stderr
    # one-line errors are unchanged by -v
    assert invoke("-v", "status", "nope.yaml").stderr == invoke("status", "nope.yaml").stderr
