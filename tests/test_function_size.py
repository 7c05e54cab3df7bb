"""Functions a reader can hold in their head (issue 46): no public function over 80 lines of
code or 12 parameters, and no function at all over 120 lines.

Lines are counted from ``def`` to the function's last line, without its docstring (a NumPy
docstring with the formula and its paper is welcome at any length). The functions that were
longer when the rule was set are listed in ``tests/data/long_functions.json`` with their size
then: a listed function may shrink but not grow, and it leaves the list (the test says so) once
it keeps the rule. No function joins the list. ``python tests/test_function_size.py`` rewrites
the list after functions were split: the sizes that went down, and without the functions that
keep the rule now.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "rankstats"
LISTED = Path(__file__).with_name("data") / "long_functions.json"

PUBLIC_LINES, PUBLIC_PARAMETERS, ANY_LINES = 80, 12, 120


def code_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from ``def`` to the end, without the docstring."""
    first = node.body[0]
    docstring = (
        first.end_lineno - first.lineno + 1
        if isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
        else 0
    )
    return node.end_lineno - node.lineno + 1 - docstring


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Named parameters, ``self`` / ``cls`` not counted."""
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    return len(names) - (1 if names[:1] in (["self"], ["cls"]) else 0)


def functions(tree: ast.Module, module: str):
    """Every function of a module with its qualified name and whether it is public (itself, its
    module path and its class carry no leading underscore)."""

    def walk(node, prefix: str, public: bool):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}.{child.name}", public and _public(child.name))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}.{child.name}"
                yield name, child, public and _public(child.name)
                yield from walk(child, name, False)

    # A package's __init__ is as public as the package (rs.report lives in reporting/__init__).
    parts = [part for part in module.split(".") if part != "__init__"]
    yield from walk(tree, module, all(_public(part) for part in parts))


def _public(name: str) -> bool:
    return not name.startswith("_")


def measured() -> dict[str, tuple[int, int, bool]]:
    sizes = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for name, node, public in functions(tree, module):
            sizes[name] = (code_lines(node), parameters(node), public)
    return sizes


def breaks_the_rule(lines: int, n_parameters: int, public: bool) -> bool:
    if lines > ANY_LINES:
        return True
    return public and (lines > PUBLIC_LINES or n_parameters > PUBLIC_PARAMETERS)


def test_no_function_breaks_the_rule_unless_listed_and_none_grows():
    listed = json.loads(LISTED.read_text(encoding="utf-8"))
    sizes = measured()
    new = {
        name: (lines, n)
        for name, (lines, n, public) in sizes.items()
        if breaks_the_rule(lines, n, public) and name not in listed
    }
    assert not new, (
        f"over the limits ({PUBLIC_LINES} lines or {PUBLIC_PARAMETERS} parameters for a public "
        f"function, {ANY_LINES} lines for any): split them into named steps: {new}"
    )
    grown = {
        name: (sizes[name][:2], tuple(was))
        for name, was in listed.items()
        if name in sizes and (sizes[name][0] > was[0] or sizes[name][1] > was[1])
    }
    assert not grown, f"listed long functions grew (now, then): {grown}"


def test_the_list_holds_only_functions_that_still_break_the_rule():
    listed = json.loads(LISTED.read_text(encoding="utf-8"))
    sizes = measured()
    gone = sorted(set(listed) - set(sizes))
    kept = sorted(name for name in listed if name in sizes and not breaks_the_rule(*sizes[name]))
    assert not gone and not kept, (
        f"take these off {LISTED.name}: renamed or removed {gone}; within the limits now {kept}"
    )


@pytest.mark.parametrize(
    ("source", "lines", "n"),
    [
        ('def f(a, b):\n    """Doc\n    string."""\n    return a\n', 2, 2),
        ("class C:\n    def m(self, x, *, y=1):\n        x += 1\n        return x + y\n", 3, 2),
    ],
)
def test_the_counts_skip_docstrings_and_self(source, lines, n):
    tree = ast.parse(source)
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    assert (code_lines(node), parameters(node)) == (lines, n)


def test_a_long_public_function_is_caught():
    body = "\n".join(f"    x{i} = {i}" for i in range(PUBLIC_LINES))
    tree = ast.parse(f"def f(a):\n{body}\n")
    [(name, node, public)] = list(functions(tree, "rankstats.demo"))
    assert name == "rankstats.demo.f" and public
    assert breaks_the_rule(code_lines(node), parameters(node), public)
    assert not breaks_the_rule(code_lines(node), parameters(node), False)


def write_list(listed: dict[str, list[int]], sizes: dict[str, tuple[int, int, bool]]) -> None:
    """The list, one function per line: sizes that went down lowered, kept functions left out."""
    rows = {
        name: [min(was[0], sizes[name][0]), min(was[1], sizes[name][1])]
        for name, was in sorted(listed.items())
        if name in sizes and breaks_the_rule(*sizes[name])
    }
    lines = [f"  {json.dumps(name)}: [{a}, {b}]" for name, (a, b) in rows.items()]
    LISTED.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")


if __name__ == "__main__":
    write_list(json.loads(LISTED.read_text(encoding="utf-8")), measured())
