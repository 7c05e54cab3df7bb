"""The shape of the package (docs/architecture.md), checked on the source.

The layer, circle and private-module contracts are import-linter's (``[tool.importlinter]`` in
pyproject.toml; CI runs ``lint-imports``); the rules here are those it has no contract for.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "rankstats"
MODULES = sorted(p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts)

#: The most lines a module may have.
MAX_LINES = 600

#: Modules still over MAX_LINES while issue 24 splits them; the list may only shrink.
OVER_MAX_LINES = {}


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_pyproject_lists_every_package():
    # The package list is explicit (the model zoo is mapped from the top-level models/): a new
    # subpackage that is not listed would be missing from the wheel.
    import tomllib

    pyproject = tomllib.loads((ROOT.parent / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(pyproject["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(ROOT.parent).parts)
        for p in ROOT.rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert listed == on_disk | {"rankstats.zoo_fits"}


def test_the_top_level_holds_packages_and_three_modules():
    modules = {p.name for p in ROOT.glob("*.py")}
    assert modules == {"__init__.py", "__main__.py", "errors.py"}


@pytest.mark.parametrize("path", MODULES, ids=_relative)
def test_no_module_is_longer_than_the_limit(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    if _relative(path) in OVER_MAX_LINES:
        assert lines > MAX_LINES, f"{_relative(path)} is short enough now: strike it from the list"
    else:
        assert lines <= MAX_LINES, f"{_relative(path)}: {lines} lines"


@pytest.mark.parametrize("path", MODULES, ids=_relative)
def test_no_public_function_shares_its_module_name(path):
    # A package binds each imported submodule under its name, which would hide the function.
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    public = {name for name in defined if not name.startswith("_")}
    assert path.stem not in public


def _package(module: str) -> str:
    """``rankstats.core.scores`` → ``rankstats.core``; top-level modules are their own."""
    parts = module.split(".")
    return ".".join(parts[:2])


@pytest.mark.parametrize("path", MODULES, ids=_relative)
def test_no_private_name_is_imported_from_another_package(path):
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    importer = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("rankstats"):
            continue
        private = [a.name for a in node.names if a.name.startswith("_")]
        if private and _package(node.module) != _package(importer):
            pytest.fail(f"{importer} imports {private} from {node.module} (line {node.lineno})")
