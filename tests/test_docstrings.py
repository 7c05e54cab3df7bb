"""Docstrings hold no control character: ``"\\alpha"`` or ``"\\rho"`` in a docstring that is not
raw is a bell or a carriage return, which breaks the rendered formula (and the docs build)."""

from __future__ import annotations

import ast
from pathlib import Path

import rankstats

CONTROL = set("\a\b\f\v\r")


def test_no_docstring_holds_a_control_character():
    found = []
    for path in Path(rankstats.__file__).parent.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(node, clean=False)
                if doc and CONTROL & set(doc):
                    found.append(f"{path.name}:{getattr(node, 'lineno', 1)}")
    assert not found, f"control characters in docstrings (use r-strings): {found}"
