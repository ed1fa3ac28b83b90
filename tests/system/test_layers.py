"""The package's layers as README's architecture table draws them, read from the source:
the report reads results and computes no simulation, ``minimize``'s module is the library's
path and reads no results, and what both share sits in ``acfs_cli.common``, which imports
nothing of the package's but itself."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "acfs_cli"


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at its top or inside a function (a lazy import is an
    import all the same)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: a relative import"
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def reaches(path: Path, layers: tuple[str, ...]) -> list[str]:
    return sorted(m for m in imports(path)
                  if any(m == f"acfs_cli.{layer}" or m.startswith(f"acfs_cli.{layer}.")
                         for layer in layers))


@pytest.mark.parametrize("path", sorted((PACKAGE / "report").glob("*.py")),
                         ids=lambda p: p.name)
def test_the_report_imports_no_simulation(path):
    assert reaches(path, ("core", "methods", "kernels", "surrogates", "problems",
                          "experiment", "parallel", "integrations", "api")) == []


def test_minimize_reads_no_results():
    assert reaches(PACKAGE / "api.py", ("results", "report")) == []


@pytest.mark.parametrize("path", sorted((PACKAGE / "common").glob("*.py")),
                         ids=lambda p: p.name)
def test_the_common_helpers_import_only_themselves_numpy_and_the_standard_library(path):
    for module in imports(path):
        top = module.split(".")[0]
        assert (module.startswith("acfs_cli.common") or top == "numpy"
                or top in sys.stdlib_module_names), (path.name, module)


def test_the_imports_are_read_whole():
    # the reader sees a lazy import inside a function, and a from-import's names
    assert "acfs_cli.frames.read_results" in imports(PACKAGE / "api.py")
    assert "acfs_cli.results.read" in imports(PACKAGE / "frames.py")
