"""The one progress display (:mod:`rankstats._util.progress`): a bar with an ETA on a terminal,
nothing off a terminal, ``--quiet`` / ``RANKSTATS_QUIET=1`` silence it, Ctrl-C leaves the terminal
clean.

"A terminal" is faked by making ``sys.stderr.isatty()`` true (pytest's capture then holds what
rich draws); one test runs the command on a real pseudo-terminal."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats._util import progress as _progress
from rankstats.cli import main
from rankstats.simulate import robustness_experiments as robustness

SHOW_CURSOR = "\x1b[?25h"  # rich's last word when a bar stops

SMALL = {"n_systems": 4, "n_tasks": 3, "n_instances": 3}


@pytest.fixture(autouse=True)
def _restore(monkeypatch):
    monkeypatch.delenv("RANKSTATS_QUIET", raising=False)
    state = _progress.settings()
    yield
    _progress.set_quiet(state[0])
    _progress.set_log(state[1])


@pytest.fixture
def tty(monkeypatch, capsys):
    """stderr (pytest's capture of the test, ``capsys``) claims to be a terminal."""
    from _pytest.capture import CaptureIO

    monkeypatch.setattr(CaptureIO, "isatty", lambda self: True, raising=False)
    monkeypatch.setenv("COLUMNS", "120")
    return capsys


def _files(tmp_path, progress=True, partitions=3):
    return rs.simulate.gumbel_files(
        tmp_path / "parts", 4, 3, 30, partitions=partitions, seed=1, progress=progress
    )


def _grid(**kwargs):
    return rs.simulate.robustness(
        grid={"phi": [0.3, 0.6, 0.9]}, n_replications=2, base=SMALL, **kwargs
    )


# ---------------------------------------------------------------------------- off a terminal
def test_nothing_is_written_off_a_terminal(tmp_path, capsys):
    files, _ = _files(tmp_path)
    rs.scan_scores(files).statistics(progress=True)
    _grid(progress=True)
    rs.kemeny(rs.load_dataset("xtreme"), progress=True)
    assert capsys.readouterr().err == ""


def test_show_follows_the_three_rules(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not _progress.show(True)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert _progress.show(True) and not _progress.show(False)
    monkeypatch.setenv("RANKSTATS_QUIET", "1")
    assert not _progress.show(True)
    monkeypatch.setenv("RANKSTATS_QUIET", "0")
    _progress.set_quiet(True)
    assert not _progress.show(True)


# ---------------------------------------------------------------------------- on a terminal
def test_simulate_draws_a_bar_with_an_eta(tmp_path, tty):
    _files(tmp_path)
    err = tty.readouterr().err
    assert "simulate" in err and "3/3 files" in err and "ETA" in err
    assert "\r" in err and err.endswith(SHOW_CURSOR)


def test_simulate_progress_false_draws_nothing(tmp_path, tty):
    _files(tmp_path, progress=False)
    assert tty.readouterr().err == ""


def test_robustness_grid_bar(tty):
    res = _grid(progress=True)
    err = tty.readouterr().err
    assert res.complete and "3/3 grid cells" in err and "ETA" in err


def test_perturbation_grid_bar(tty):
    rs.simulate.perturbation(rs.load_dataset("xtreme"), grid={"missing_rate": [0.1, 0.2]},
                             n_replications=2, progress=True)  # fmt: skip
    assert "2/2 grid cells" in tty.readouterr().err


def test_scan_bar_counts_rows_against_the_parquet_footers(tmp_path, tty):
    files, _ = _files(tmp_path)
    rows = sum(len(pd.read_parquet(f)) for f in files)
    tty.readouterr()
    rs.scan_scores(files, batch_rows=50).statistics(progress=True)
    err = tty.readouterr().err
    assert f"{rows:,}/{rows:,} rows read" in err and "ETA" in err


def test_scan_of_text_files_counts_the_files(tmp_path, tty):
    parts = tmp_path / "csv"
    parts.mkdir()
    for i, g in enumerate(np.array_split(np.arange(2 * 3 * 4), 3)):
        lines = ["system,task,instance,score"]
        lines += [f"s{k % 2},t{k // 8},{k // 2 % 4},{k * 0.37 % 1:.3f}" for k in g]
        (parts / f"p{i}.csv").write_text("\n".join(lines) + "\n")
    rs.scan_scores(sorted(parts.glob("*.csv"))).statistics(progress=True)
    err = tty.readouterr().err
    assert "3/3 parts" in err and "24 rows read" in err


def _cycle() -> rs.Rankings:
    """Rotations of 7 systems, one of them reversed: one Condorcet block, solved by rounds."""
    names = list("abcdefg")
    orders = [names[k:] + names[:k] for k in range(7)]
    return rs.Rankings.from_orderings([*orders, orders[3][::-1]])


def test_kemeny_bar_shows_the_time_limit_and_the_gap(tty):
    res = rs.kemeny(_cycle(), method="exact", time_limit=30, progress=True)
    err = tty.readouterr().err
    assert res.optimal and "kemeny" in err and "/30 s" in err and "ETA" in err and "gap" in err


def test_kemeny_aggregate_draws_the_same_bar(tty):
    """``rs.aggregate(..., method="kemeny")`` (and so ``rankstats rank --method kemeny``)."""
    from rankstats.aggregation.kemeny_search import DEFAULT_TIME_LIMIT

    agg = rs.aggregate(_cycle(), method="kemeny")
    err = tty.readouterr().err
    assert agg.details["optimal"] and "kemeny" in err and f"/{DEFAULT_TIME_LIMIT:g} s" in err


def test_kemeny_callable_still_gets_text_lines(tty):
    lines: list[str] = []
    rs.kemeny(_cycle(), method="exact", progress=lines.append)
    assert lines and all("bound" in line for line in lines)
    assert tty.readouterr().err == ""


def test_quiet_silences_every_meter(tmp_path, tty, monkeypatch):
    _progress.set_quiet(True)
    _files(tmp_path)
    _grid(progress=True)
    assert tty.readouterr().err == ""
    _progress.set_quiet(False)
    monkeypatch.setenv("RANKSTATS_QUIET", "1")
    _grid(progress=True)
    assert tty.readouterr().err == ""
    monkeypatch.setenv("RANKSTATS_QUIET", "0")
    _grid(progress=True)
    assert "grid cells" in tty.readouterr().err


def test_one_display_at_a_time(tty):
    with _progress.meter("outer", total=2) as outer:
        with _progress.meter("inner", total=5) as inner:
            inner.advance(5)
        outer.advance(2)
    err = tty.readouterr().err
    assert "outer" in err and "inner" not in err and inner.done == 5


def test_names_are_not_markup(tty):
    with _progress.meter("[bold]x[/bold]", total=1) as m:
        m.note("[red]note[/red]")
        m.advance()
    err = tty.readouterr().err
    assert "[bold]x[/bold]" in err and "[red]note[/red]" in err


def test_ctrl_c_closes_the_bar_and_keeps_the_interrupt_semantics(tty, monkeypatch):
    def cells(jobs, n_jobs, backend, run):
        yield run(*jobs[0])
        raise KeyboardInterrupt

    monkeypatch.setattr(robustness, "run_cells", cells)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = _grid(progress=True)
    err = tty.readouterr().err
    assert not res.complete and len(res.table) > 0
    assert any("interrupted" in str(w.message) for w in caught)
    assert "1/3 grid cells" in err and err.endswith(SHOW_CURSOR)
    assert not _progress._ACTIVE  # a later meter draws again

    with pytest.raises(KeyboardInterrupt), _progress.meter("x", total=3) as m:
        m.advance()
        raise KeyboardInterrupt
    assert tty.readouterr().err.endswith(SHOW_CURSOR)


# ---------------------------------------------------------------------------- the command
def test_cli_bar_by_default_and_quiet_flag(tmp_path, tty):
    args = ["simulate", "--systems", "4", "--tasks", "3", "--instances", "20"]
    assert main([*args, "--partitions", "2", "--out", str(tmp_path / "a")]) == 0
    assert "2/2 files" in tty.readouterr().err
    assert main([*args, "--partitions", "2", "--out", str(tmp_path / "b"), "--quiet"]) == 0
    assert "files" not in tty.readouterr().err
    assert main(["--quiet", *args, "--partitions", "2", "--out", str(tmp_path / "c")]) == 0
    assert "files" not in tty.readouterr().err
    assert _progress.settings() == (False, False)  # restored after main()
    assert main([*args, "--partitions", "2", "--out", str(tmp_path / "d")]) == 0
    assert "2/2 files" in tty.readouterr().err


def test_cli_progress_writes_lines_off_a_terminal_and_quiet_wins(tmp_path, capsys):
    _files(tmp_path)
    capsys.readouterr()
    args = ["rank", str(tmp_path / "parts"), "--stream", "--no-figures"]
    assert main(args) == 0
    assert "rows read" not in capsys.readouterr().err
    assert main([*args, "--progress"]) == 0
    err = capsys.readouterr().err
    assert "scan: " in err and "rows read (100%)" in err and "\r" not in err
    assert main([*args, "--progress", "--quiet"]) == 0
    assert "rows read" not in capsys.readouterr().err


@pytest.mark.long
def test_cli_on_a_real_pseudo_terminal(tmp_path):
    pty = pytest.importorskip("pty")
    argv = [sys.executable, "-m", "rankstats", "simulate", "--systems", "4", "--tasks", "3"]
    argv += ["--instances", "20", "--partitions", "3"]

    def run(out, *extra, env=None):
        master, slave = pty.openpty()
        env = {**os.environ, "COLUMNS": "100", **(env or {})}
        proc = subprocess.Popen(
            [*argv, "--out", str(tmp_path / out), *extra],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=slave,
            env=env,
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        proc.communicate(timeout=60)
        os.close(master)
        assert proc.returncode == 0
        return b"".join(chunks).decode(errors="replace")

    drawn = run("a")
    assert "3/3 files" in drawn and "ETA" in drawn and SHOW_CURSOR in drawn
    assert "files" not in run("b", "--quiet")
    assert "files" not in run("c", env={"RANKSTATS_QUIET": "1"})
