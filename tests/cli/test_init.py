"""``acfs init``, where a command given no configuration finds one, and ``-v``/``-vv``."""

from __future__ import annotations

import shutil
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


def test_init_writes_the_configs_and_examples_as_laid_out_in_the_repository(tmp_path):
    result = invoke("init", tmp_path / "study")
    assert result.exit_code == 0, result.output
    written = files(tmp_path / "study")
    expected = {f"{name}/{k}": v for name in ("configs", "examples")
                for k, v in files(ROOT / name).items()}
    assert written == expected
    assert "configs/quick.yaml" in written and "examples/shelf_space.py" in written
    # an empty folder is taken too
    (tmp_path / "empty").mkdir()
    assert invoke("init", tmp_path / "empty").exit_code == 0
    assert files(tmp_path / "empty") == expected


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
    real = shutil.copytree

    def copy_then_interrupt(*args, **kwargs):
        copies.append(args[1])
        if len(copies) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(init_command.shutil, "copytree", copy_then_interrupt)
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
