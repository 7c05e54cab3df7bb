"""Running ``rankstats`` in-process in tests, and the one check of a CLI error line.

Shared by the bad-input tests of every command (importable because ``tests`` is on pytest's
``pythonpath``)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rankstats.cli import main


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    """``rankstats argv`` in this process: (exit code, stdout, stderr)."""
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own errors
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_error_line(
    err: str, command: str, *needles: str, forbidden: Iterable[str] | re.Pattern = ()
) -> str:
    """The single ``rankstats <command>: error: …`` line of ``err`` (warnings aside), which names
    every needle (case-insensitive) and none of ``forbidden`` (Python spellings of options)."""
    lines = [line for line in err.splitlines() if line.strip() and ": warning:" not in line]
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith(f"rankstats {command}: error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle.lower() in line.lower(), (needle, line)
    if isinstance(forbidden, re.Pattern):
        assert not forbidden.search(line), line
    else:
        for word in forbidden:
            assert word not in line, (word, line)
    return line
