"""The flags of every subcommand against docs/vocabulary.md (one name per concept): no visible
flag is spelled as a replaced CLI word of the table, and each visible flag is a Python parameter
of the library in kebab case, a CLI word of the table, or listed in docs/user-guide/cli.md's
list of options that are not a library parameter. (The Python side: tests/test_vocabulary.py.)"""

import argparse
import ast
import re
from pathlib import Path

import pytest

import rankstats
from rankstats.cli import COMMANDS, _subparser, build_parser

ROOT = Path(__file__).resolve().parents[2]
VOCABULARY = ROOT / "docs" / "vocabulary.md"
CLI_GUIDE = ROOT / "docs" / "user-guide" / "cli.md"
#: argparse's own and the global options.
ALWAYS = {"--help"}


def _table() -> list[dict[str, str]]:
    """The rows of the vocabulary table (after its marker), by column name."""
    text = VOCABULARY.read_text(encoding="utf-8")
    body = text.split("<!-- vocabulary-table", 1)[1].splitlines()[1:]
    rows = [line for line in body if line.startswith("|")]
    header = [h.strip() for h in rows[0].strip("|").split("|")]
    out = []
    for line in rows[2:]:
        cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
        out.append(dict(zip(header, (c.strip() for c in cells), strict=True)))
    return out


def replaced_flags() -> list[tuple[str, str]]:
    """``(flag, qualifier)`` of every replaced CLI word: the backticked ``--words`` of the
    replaces column, with the parenthesis that follows one (``(a fraction)``, ``(`fit`)``)."""
    found = []
    for row in _table():
        for match in re.finditer(r"`(--[a-z][a-z-]*)[^`]*`\s*(\([^)]*\))?", row["replaces"]):
            found.append((match.group(1), match.group(2) or ""))
    return found


def table_cli_words() -> set[str]:
    return {w for row in _table() for w in re.findall(r"--[a-z][a-z-]*", row["CLI"])}


def _visible() -> list[tuple[str, str, argparse.Action]]:
    """``(command, flag, action)`` of every flag ``--help`` shows."""
    parser = build_parser()
    out = []
    for command in COMMANDS:
        for action in _subparser(parser, command)._actions:
            if action.help == argparse.SUPPRESS:
                continue
            out += [(command, o, action) for o in action.option_strings if o.startswith("--")]
    return out


def _applies(qualifier: str, command: str, action: argparse.Action) -> bool:
    """Whether a replaced word's qualifier covers this flag: ``(`fit`)`` names a command, ``(a
    fraction)`` a number (``--missing complete-case`` is another concept), else always."""
    commands = re.findall(r"`([a-z]+)`", qualifier)
    if commands:
        return command in commands
    if "fraction" in qualifier:
        return action.type is not None and action.choices is None
    return True


def test_the_table_is_read():
    flags = dict(replaced_flags())
    assert {"--boot", "--jobs", "--level", "--covariate", "--missing"} <= set(flags)
    assert "fraction" in flags["--missing"]
    assert {"--n-jobs", "--progress", "--no-progress", "--battle-covariate"} <= table_cli_words()


def test_no_visible_flag_is_a_replaced_word():
    replaced = replaced_flags()
    offenders = sorted(
        f"{command} {flag}"
        for command, flag, action in _visible()
        for old, qualifier in replaced
        if flag == old and _applies(qualifier, command, action)
    )
    assert offenders == []


def test_the_check_sees_a_replaced_flag():
    """Not vacuous: a parser with ``--jobs`` (and a numeric ``--missing``) is caught."""
    parser = argparse.ArgumentParser()
    jobs = parser.add_argument("--jobs", type=int)
    missing = parser.add_argument("--missing", type=float)
    treatment = argparse.ArgumentParser().add_argument("--missing", choices=["error"])
    replaced = dict(replaced_flags())
    assert _applies(replaced["--jobs"], "power", jobs)
    assert _applies(replaced["--missing"], "simulate", missing)
    assert not _applies(replaced["--missing"], "significance", treatment)
    assert not _applies(dict(replaced_flags())["--covariates"], "battles", jobs)


def python_parameters() -> set[str]:
    """Every parameter name of a public function or method of the library (outside the CLI),
    and every field of a public dataclass (an options object such as ``NutsSettings`` or
    ``Corruptions`` holds what were a function's keywords)."""
    names: set[str] = set()
    package = Path(rankstats.__file__).parent
    for path in package.rglob("*.py"):
        if "cli" in path.relative_to(package).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and (
                not node.name.startswith("_") or node.name == "__init__"
            ):
                a = node.args
                names |= {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
            elif isinstance(node, ast.ClassDef) and _public_dataclass(node):
                names |= {
                    f.target.id
                    for f in node.body
                    if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name)
                }
    return names


def _public_dataclass(node: ast.ClassDef) -> bool:
    def name(d: ast.expr) -> str:
        d = d.func if isinstance(d, ast.Call) else d
        return d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", "")

    return not node.name.startswith("_") and any(
        name(d) == "dataclass" for d in node.decorator_list
    )


def guide_options() -> set[str]:
    """The flags of cli.md's list of options that are not a library parameter."""
    text = CLI_GUIDE.read_text(encoding="utf-8")
    section = text.split("<!-- cli-options: ", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `(--[a-z][a-z-]*)", section, flags=re.M))


def test_every_visible_flag_is_a_parameter_a_table_word_or_listed():
    parameters = python_parameters()
    allowed = table_cli_words() | guide_options() | ALWAYS
    unexplained = sorted(
        {
            flag
            for _, flag, action in _visible()
            if flag not in allowed
            and flag[2:].replace("-", "_") not in parameters
            # --no-X of a --X/--no-X pair is the parameter X
            and not (
                isinstance(action, argparse.BooleanOptionalAction) and flag.startswith("--no-")
            )
        }
    )
    assert unexplained == []


@pytest.mark.parametrize("flag", ["--dataset", "--out"])
def test_the_guide_list_is_read(flag):
    assert flag in guide_options() or flag[2:] in python_parameters()


def test_the_guide_lists_no_flag_that_does_not_exist():
    visible = {flag for _, flag, _ in _visible()}
    assert guide_options() - visible - {"--quiet", "--debug"} == set()
