"""How ``rankstats`` ends when a command fails while computing: one line on stderr and the exit
code of the convention (rankstats/cli/usage.py), never a traceback."""

from __future__ import annotations

import types

import pytest

import rankstats.cli as cli
from rankstats.cli.usage import EXIT_BROKEN_PIPE, EXIT_FAILURE, EXIT_USAGE
from rankstats.errors import ResourceError


def _failing(monkeypatch, error: BaseException) -> None:
    """``rankstats check`` whose run raises ``error`` (its options and check as usual)."""
    real = cli._command("check")

    def run(options):
        raise error

    fake = types.SimpleNamespace(**{k: getattr(real, k) for k in dir(real) if k != "run"}, run=run)
    monkeypatch.setattr(cli, "_command", lambda name: fake)


@pytest.mark.parametrize(
    ("error", "code", "line"),
    [
        (MemoryError(), EXIT_FAILURE, "out of memory while computing; use a smaller input (run"),
        (ResourceError("needs 90 GB"), EXIT_USAGE, "rankstats check: error: needs 90 GB"),
    ],
)
def test_memory_errors_end_in_one_line(monkeypatch, capsys, tmp_path, error, code, line):
    _failing(monkeypatch, error)
    assert cli.main(["check", "--dataset", "glue", "--out", str(tmp_path / "o")]) == code
    err = capsys.readouterr().err
    assert line in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_closed_pipe_ends_quietly(monkeypatch, capsys, tmp_path):
    _failing(monkeypatch, BrokenPipeError())
    code = cli.main(["check", "--dataset", "glue", "--out", str(tmp_path / "o")])
    assert code == EXIT_BROKEN_PIPE
    assert capsys.readouterr().err == ""
