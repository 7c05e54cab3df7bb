"""Options in messages spelled for the reader (rankstats._util.advice): a suggested command line
is safe to paste, whatever the names in it."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from rankstats._util.advice import AdviceError, cli_spelling, keywords, shell_word

HOSTILE = [
    "bert-base",
    "a b",
    "a'$(echo INJECTED)",
    'b"`echo INJECTED`"',
    "{x}",
    "*",
    "!x",
    "a\nb",
    "x\x1b[31my",
    "mod\u202eel",
    "模型",
    "",
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_each_suggested_word_is_the_name_itself_in_bash():
    """bash reads each word back as the name: nothing is run, expanded or split."""
    for name in HOSTILE:
        word = shell_word(name)
        done = subprocess.run(
            ["bash", "-c", "printf %s " + word], capture_output=True, text=True, check=True
        )
        assert done.stdout == name, (name, word)


def test_a_suggested_word_shows_no_control_character():
    for name in HOSTILE:
        assert shell_word(name).isprintable(), name


def test_flags_and_keywords():
    assert cli_spelling("system", ["model", "a b"]) == "--system model 'a b'"
    err = AdviceError("name them with {a_b}", **keywords("a_b"))
    assert (str(err), err.cli()) == ("name them with a_b=", "name them with --a-b")
