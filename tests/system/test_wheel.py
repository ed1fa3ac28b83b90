"""A wheel built from the sources installs into a fresh venv and works from any folder: the
shipped configurations are found, ``acfs init`` writes them, and a shipped example runs.

Slow (a wheel build and a venv): ``make test-all``. The fresh venv borrows the dependencies of
the one running the tests (a ``.pth`` line), since what is under test is what the wheel
carries, not the resolution of its dependencies.
"""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("acfs_cli", "configs", "examples", "pyproject.toml", "setup.py", "MANIFEST.in",
           "README.md")

pytestmark = pytest.mark.slow


def run(*args, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    out = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                         timeout=900)
    if check:
        assert out.returncode == 0, f"{args}: {out.stdout}\n{out.stderr}"
    return out


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The bin folder of a fresh venv with the wheel installed."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    source.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "_shipped"))
        else:
            shutil.copy2(path, source / name)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp / "dist", source,
        cwd=tmp)
    (wheel,) = (tmp / "dist").glob("acfs-*.whl")
    env = tmp / "fresh"
    venv.EnvBuilder(with_pip=True).create(env)
    bin_dir = env / "bin"
    purelib = run(bin_dir / "python", "-c", "import sysconfig; print(sysconfig.get_paths()"
                  "['purelib'])", cwd=tmp).stdout.strip()
    (Path(purelib) / "borrowed_dependencies.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n")
    run(bin_dir / "python", "-m", "pip", "install", "--no-deps", "-q", wheel, cwd=tmp)
    shutil.rmtree(source)  # nothing of the sources is left to be found
    return bin_dir


def test_the_wheel_carries_the_configs_and_runs_from_an_empty_folder(installed, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    where = run(installed / "python", "-c", "import acfs_cli; print(acfs_cli.__file__)",
                cwd=empty).stdout
    assert where.startswith(str(installed.parent)), where
    status = run(installed / "acfs", "-v", "status", cwd=empty)
    assert "42 cells: 0 done, 0 failed, 42 missing" in status.stdout
    assert "_shipped/configs/quick.yaml" in status.stderr

    run(installed / "acfs", "init", "study", cwd=empty)
    study = empty / "study"
    assert sorted(p.name for p in (study / "configs").iterdir()) == sorted(
        p.name for p in (ROOT / "configs").glob("*.yaml"))
    assert (study / "examples" / "shelf_space.py").read_text() == (
        ROOT / "examples" / "shelf_space.py").read_text()
    refused = run(installed / "acfs", "init", "study", cwd=empty, check=False)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1

    done = run(installed / "acfs", "run", "examples/my_method.yaml", "-r", "1", "-q",
               cwd=study)
    assert "my-method" in done.stdout or "random-search" in done.stdout
    assert any((study / "results" / "my-method" / "cells").glob("*.parquet"))
