"""Every subcommand's ``--out`` goes through one check: an output that cannot be written is
refused before any computing, in one line that names the path the user gave and the reason."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from rankstats.cli import main

ARENA = (
    Path(__file__).parents[2] / ".." / "shared" / "data" / "outside" / "arena_hard_battles.jsonl"
)

COMMANDS = [
    ["check", "--dataset", "glue"],
    ["rank", "--dataset", "glue", "--no-figures"],
    ["report", "--dataset", "glue"],
    ["significance", "--dataset", "glue"],
    ["paired", "--dataset", "summeval", "--task", "coherence"],
    ["robustness", "--experiment", "colombo2022-scaling"],
    ["kemeny", "--dataset", "glue"],
    ["fit", "--dataset", "glue", "--model", "pl", "--method", "mle"],
    ["tree", "--dataset", "glue", "--ranker-covariates", "covariates.csv"],
    ["simulate", "--partitions", "2", "--instances", "3"],
    ["power", "--n-replications", "2"],
    ["irt", "--dataset", "glue"],
]


def _unwritable() -> str:
    """A directory that exists but takes no new file, even for root."""
    if not sys.platform.startswith("linux") or not os.path.isdir("/proc/self"):
        pytest.skip("needs Linux /proc")
    return "/proc"


def _run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    return code, capsys.readouterr().err


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_unwritable_out_names_the_given_path(argv, capsys):
    target = f"{_unwritable()}/rankstats-x"
    code, err = _run([*argv, "--out", target], capsys)
    assert code == 2, err
    lines = [line for line in err.splitlines() if ": warning:" not in line]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"rankstats {argv[0]}: error: --out {target}: cannot write in"), err
    assert ".partial" not in err and "Errno" not in err


def test_every_command_with_out_is_covered():
    """A new subcommand with ``--out`` joins :data:`COMMANDS` (and so this check)."""
    from rankstats.cli import COMMANDS as ALL
    from rankstats.cli import _subparser, build_parser

    parser = build_parser()
    with_out = {
        name
        for name in ALL
        if any("--out" in a.option_strings for a in _subparser(parser, name)._actions)
    }
    assert with_out <= {argv[0] for argv in COMMANDS} | {"battles"}


def test_unwritable_file_out(capsys):
    target = f"{_unwritable()}/rankstats-x.csv"
    code, err = _run(["simulate", "--out", target], capsys)
    assert code == 2
    assert err.startswith(f"rankstats simulate: error: --out {target}: cannot write in"), err


def test_battles_unwritable_out(capsys):
    if not ARENA.exists():
        pytest.skip("shared arena file not present")
    target = f"{_unwritable()}/rankstats-x"
    code, err = _run(["battles", str(ARENA), "--out", target], capsys)
    assert code == 2
    assert f"--out {target}: cannot write in" in err, err


def test_nested_missing_parents_name_the_given_path(capsys):
    target = f"{_unwritable()}/a/b/c"
    code, err = _run(["rank", "--dataset", "glue", "--no-figures", "--out", target], capsys)
    assert code == 2
    assert f"--out {target}: cannot write in /proc" in err, err


def test_library_report_names_out(tmp_path):
    import rankstats as rs
    from rankstats.errors import OutputError

    target = f"{_unwritable()}/rankstats-report"
    with pytest.raises(OutputError, match=f"out='{target}': cannot write in"):
        rs.report(rs.load_dataset("glue"), out=target)


def test_failure_after_the_check_still_names_the_path(tmp_path, monkeypatch):
    """A directory that becomes unwritable between the check and the write (simulated with a
    failing mkdtemp) is still reported with the path given."""
    import tempfile

    from rankstats._util.atomic import output_dir
    from rankstats.errors import OutputError

    real = tempfile.mkdtemp

    def failing(*args, **kwargs):
        if kwargs.get("prefix", "").startswith(".out.partial-"):
            raise OSError(30, "Read-only file system")
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkdtemp", failing)
    with pytest.raises(OutputError, match=r"out='.*out': cannot write in .*Read-only") as err:
        with output_dir(tmp_path / "out"):
            pass
    assert err.value.cli().startswith(f"--out {tmp_path / 'out'}: cannot write in")
    assert list(tmp_path.iterdir()) == []


def test_fit_save_is_checked_before_fitting(capsys, monkeypatch):
    """``fit --save DIR`` (a directory that may hold other files) is probed up front too."""
    import rankstats.models

    def no_fit(*args, **kwargs):
        raise AssertionError("fitted before the --save check")

    monkeypatch.setattr(rankstats.models.PlackettLuce, "fit", no_fit)
    target = f"{_unwritable()}/rankstats-save"
    code, err = _run(["fit", "--dataset", "glue", "--model", "pl", "--save", target], capsys)
    assert code == 2
    assert err.startswith(f"rankstats fit: error: --save {target}: cannot write in /proc"), err
