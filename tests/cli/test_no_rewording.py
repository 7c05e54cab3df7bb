"""Issue 24, item 5: the command line never rewrites a library message. The library raises
message templates whose fields are options (:mod:`rankstats._util.advice`); the command's
handler prints ``err.cli()`` (:func:`rankstats.cli.usage.spoken`). The modules and helpers that
rewrote messages with ``str.replace`` and regular expressions are gone, and stay gone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rankstats

CLI = Path(rankstats.__file__).parent / "cli"
LIBRARY = Path(rankstats.__file__).parent

#: The rewriting helpers deleted by issue 24, item 5.
GONE = (
    "cli_words",
    "in_cli_words",
    "stream_words",
    "cli_spelling",
    "_cli_words",
    "flag_names",
    "CLI_WORDS",
    "for_cli",
    "_CLI_RULES",
)
#: ``.replace(`` / ``.sub(`` on the text of a message (an error, a warning, a note).
REWRITE = re.compile(
    r"(str\(\s*(err|error|exc|w|item|warning)(\.message)?\s*\)|\b(text|note|message|said)\b)"
    r"\s*\.(replace|sub)\("
)


def _sources(root: Path) -> list[Path]:
    return sorted(root.rglob("*.py"))


@pytest.mark.parametrize("module", ["_fit_words", "_scan_words"])
def test_the_rewriting_modules_are_gone(module):
    assert not (CLI / f"{module}.py").exists()


def test_no_command_rewrites_a_message():
    found = []
    for path in _sources(CLI):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            names = [n for n in GONE if re.search(rf"\b{re.escape(n)}\b", code)]
            if names or REWRITE.search(code):
                found.append(f"{path.name}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_library_messages_name_no_flag_beside_the_argument():
    """The old convention, ``option=value (CLI: --flag value)`` in the library's text, which the
    command line cut out again: a message now names each option once, as a field."""
    found = [
        f"{path.relative_to(LIBRARY)}:{number}"
        for path in _sources(LIBRARY)
        if "cli" not in path.relative_to(LIBRARY).parts[:1]
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\(CLI: (--|rankstats )", line)
    ]
    assert not found, found


def test_the_handler_prints_the_flags_of_an_advice():
    from rankstats._util.advice import AdviceError, AdviceWarning
    from rankstats.cli.usage import spoken

    err = AdviceError(
        "pass {missing} (or raise {min_coverage})", missing="complete-case", min_coverage=None
    )
    assert str(err) == "pass missing='complete-case' (or raise min_coverage)"
    assert spoken(err) == "pass --missing complete-case (or raise --min-coverage)"
    assert spoken(AdviceWarning("use {level}", level="instance")) == "use --by instance"
    assert spoken(ValueError("as it is")) == "as it is"
