"""The library does not know the command line (issue 46): no string of :mod:`rankstats` outside
:mod:`rankstats.cli` spells a flag. A message that names an option is an
:class:`~rankstats._util.advice.Advice` template: ``str()`` spells the option as a Python
argument (``by='instance'``), ``.cli()`` as a flag (``--by instance``), and the command
line prints ``.cli()`` (:func:`rankstats.cli.usage.spoken`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats._util.advice import AdviceText

PACKAGE = Path(rs.__file__).parent
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")

#: (module, flag) pairs that may stay, each with its reason.
ALLOWED = {
    # The one table of flags that differ from their argument's name: where the mapping lives.
    **{
        (
            "_util/advice.py",
            flag,
        ): "advice.FLAGS maps a replaced name (docs/vocabulary.md) to its flag"
        for flag in (
            "--n-resamples",
            "--confidence-level",
            "--n-jobs",
            "--draws",
            "--correction",
            "--by",
        )
    },
    ("_util/advice.py", "--marginal"): "advice.FLAGS maps simultaneous to its flag",
    ("_util/advice.py", "--no-"): "cli_spelling: a switch given as False is --no-<flag>",
}


def _exempt(tree: ast.AST) -> set[int]:
    """Nodes that may spell flags: docstrings (they document both spellings) and the
    command-line half of a ``Spelled(python, cli)`` (the mechanism itself)."""
    exempt: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                exempt.add(id(first.value))
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name == "Spelled":
                cli = node.args[1:2] + [k.value for k in node.keywords if k.arg == "cli"]
                exempt.update(id(sub) for part in cli for sub in ast.walk(part))
    return exempt


def flag_spellings() -> list[tuple[str, int, str]]:
    """``(module, line, flag)`` for every flag spelled in a string outside the CLI."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module.startswith("cli/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        exempt = _exempt(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in exempt
            ):
                for flag in FLAG.findall(node.value):
                    if (module, flag) not in ALLOWED:
                        found.append((module, node.lineno, flag))
    return found


def test_no_library_string_spells_a_flag():
    assert flag_spellings() == [], (
        "name Python parameters in library messages: an Advice template ({name} fields, "
        "rankstats._util.advice) is printed with flags by the command line"
    )


def test_the_scan_finds_a_flag_and_ignores_rules_and_ranges():
    spelled = ['x = "use --level instance"', 'y = "---"', 'z = "1--2"', "w = \"ls='--'\""]
    hits = [
        FLAG.findall(node.value)
        for node in ast.walk(ast.parse("\n".join(spelled)))
        if isinstance(node, ast.Constant)
    ]
    assert [h for h in hits if h] == [["--level"]]


def test_allowed_entries_are_still_needed():
    """An allowlist entry whose flag is gone is removed, not kept as dead weight."""
    for module, flag in ALLOWED:
        assert flag in (PACKAGE / module).read_text(encoding="utf-8"), (module, flag)


# ----------------------------------------------------------------- converted messages
def test_output_directory_is_named_as_a_parameter_or_a_flag(tmp_path):
    from rankstats._util.atomic import check_output_dir
    from rankstats.errors import OutputError

    existing = tmp_path / "file.txt"
    existing.write_text("x")
    with pytest.raises(OutputError) as err:
        check_output_dir(existing)
    assert str(err.value) == f"out={str(existing)!r} is an existing file; give a directory"
    assert err.value.cli() == f"--out {existing} is an existing file; give a directory"


def test_report_names_out_in_python(tmp_path):
    from rankstats.errors import OutputError

    existing = tmp_path / "file.txt"
    existing.write_text("x")
    with pytest.raises(OutputError, match=r"^out='.*file\.txt' is an existing file"):
        rs.report(rs.load_dataset("glue"), out=existing)


def test_battle_log_encoding_in_both_spellings(tmp_path):
    path = tmp_path / "battles.jsonl"
    path.write_bytes(b'{"model_a": "a\xe9", "model_b": "b", "winner": "model_a"}\n')
    with pytest.raises(rs.errors.InvalidScoresError) as err:
        rs.read_battles(path)
    assert str(err.value).endswith("give its encoding (encoding=)")
    assert err.value.cli().endswith("give its encoding (--encoding)")


def test_data_check_remedy_in_both_spellings():
    """One template per finding: ``api`` names the arguments, ``option`` the flags."""
    rows = [(s, t, i) for t in ("t", "u") for i in range(3) for s in "abc"][:-1]  # c lacks u/2
    df = pd.DataFrame(rows, columns=["system", "task", "instance"]).assign(score=np.arange(17.0))
    scores = rs.Scores.from_long(df, instance="instance")
    (uneven,) = rs.check_data(scores).of_kind("uneven-instances")
    assert uneven.api.startswith("by='instance' compares systems instance by instance")
    assert uneven.option.startswith("--by instance compares systems instance by instance")
    assert "by='task' averages unequal sets" in uneven.api
    assert uneven.record()["option"] == uneven.option and uneven.record()["api"] == uneven.api
    with pytest.warns(rs.errors.DataWarning) as caught:
        rs.check_data(scores).warn()
    (warning,) = [w.message for w in caught if "instances" in str(w.message)]
    assert "--by task" in warning.cli() and "--by" not in str(warning)


def test_report_hint_names_level_for_its_reader():
    from rankstats.reporting.summary import claims

    rk = rs.Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"]])
    res = rs.hoeffding_test(rs.pairwise(rk), order=["a", "b", "c"])
    python = claims(res, by="task", has_instances=True)
    cli = claims(res, by="task", has_instances=True, cli=True)
    assert "rank per instance (by='instance')" in python and "--by" not in python
    assert "rank per instance (--by instance)" in cli and "by='instance'" not in cli


def test_advice_text_is_shown_in_either_spelling():
    text = AdviceText("{drop_columns} leaves them out", drop_columns=["a b", "c"])
    assert str(text) == "drop_columns=['a b', 'c'] leaves them out"
    assert text.cli() == "--drop-columns 'a b' c leaves them out"
    assert text == AdviceText("{drop_columns} leaves them out", drop_columns=["a b", "c"])
