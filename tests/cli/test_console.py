"""Console tables: wide characters aligned, names printed literally, one number format per column,
and no warning printed by the quick-start commands."""

import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from rich.cells import cell_len

from rankstats.cli import main
from rankstats.cli._console import format_numbers, method_label, print_matrix, print_table

WIDE = "倪仕文 DropAttack"
MARKUP = "[bold]x[/bold]"
BIDI = "a\u202eb"
LONG = "沈泽皓" * 12  # 72 cells: cut with an ellipsis at 44
NAMES = [WIDE, MARKUP, BIDI, "plain", LONG]
NUMERIC = ["rank σ^l", "σ^l", "rank σ^μ", "σ^μ", "sig.>", "sig.<"]


def _cells(line: str) -> str:
    """``line`` with each wide character followed by a filler, so an index is a terminal cell."""
    return "".join(ch + "\0" * (cell_len(ch) - 1) for ch in line)


def _ranking_table(printed: str) -> tuple[str, list[str]]:
    """The header and the rows of the printed ranking table, in terminal cells."""
    lines = printed.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("rank "))
    assert set(lines[start + 1]) == {"─"}
    end = lines.index("", start)
    return _cells(lines[start]), [_cells(line) for line in lines[start + 2 : end]]


def _column(header: str, rows: list[str], name: str) -> list[str]:
    """The cells of the right-aligned column ``name``: every one must end where its header ends."""
    ends = {m.group(): m.end() for m in re.finditer(r"\S+(?: \S+)*", header)}
    end = ends[name]
    cells = []
    for row in rows:
        assert row[end - 1] != " " and row[end : end + 1] in ("", " "), (name, row)
        cells.append(row[:end].split()[-1])
    return cells


def _decimals(cell: str) -> int:
    return len(cell.split(".")[1]) if "." in cell else 0


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """``rankstats rank`` on five systems with wide, markup, bidi and long names."""
    tmp = tmp_path_factory.mktemp("console")
    rng = np.random.default_rng(0)
    rows = [
        (name, "t", i, k + rng.normal(scale=0.8))
        for i in range(150)
        for k, name in enumerate(NAMES)
    ]
    frame = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
    frame.to_csv(tmp / "s.csv", index=False, encoding="utf-8")
    return tmp


def test_rank_table_aligns_wide_characters(hostile, capsys):
    argv = ["rank", str(hostile / "s.csv"), "--instance", "instance", "--no-figures"]
    assert main([*argv, "--out", str(hostile / "out")]) == 0
    printed = capsys.readouterr().out
    ranking = pd.read_csv(hostile / "out" / "ranking.csv", keep_default_na=False)
    header, rows = _ranking_table(printed)
    assert len(rows) == len(NAMES)
    # Every right-aligned column ends at the same terminal cell in every row, CJK names included.
    columns = {name: _column(header, rows, name) for name in NUMERIC}
    assert columns["σ^l"] == [f"{v:.4f}" for v in ranking["borda"]]
    assert columns["σ^μ"] == [f"{v:.4f}" for v in ranking["mean"]]
    # The marks column starts at one cell and holds exactly the marks of ranking.csv.
    start = header.index(">next")
    assert header.count("σ^l") == 2  # "rank σ^l" and "σ^l"
    for row, above, below in zip(
        rows, ranking["above_next_significant"], ranking["below_next_significant"], strict=True
    ):
        marks = [m for m, on in (("*", above), ("!", below)) if on]
        assert row[start:].split() == marks
        assert row[start - 1 : start] in ("", " ") and row[start : start + 1] in ("", *marks)
    assert any("*" in row for row in rows)
    # Names are printed literally: no markup interpreted, bidi overrides escaped, long names cut.
    assert WIDE in printed and MARKUP in printed
    assert "a\\u202eb" in printed and "\u202e" not in printed
    assert LONG not in printed
    long_row = next(row for row in rows if "沈\0泽\0皓" in row)
    name_start = header.index("system")
    cut = long_row[name_start:].split("…")[0] + "…"
    assert len(cut) <= 44 and cut.startswith("沈\0泽\0皓")
    # The matrix lines up too: its names start at one cell in every row.
    matrix = printed.split("pairwise significance in ranked order")[1].splitlines()[2:7]
    starts = {re.match(r"\s*\d+(\s+[-+.\\])+\s+", _cells(line)).end() for line in matrix}
    assert len(starts) == 1


def test_rank_table_one_number_format_per_column(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["rank", "--dataset", "xtreme_missing", "--no-figures", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    ranking = pd.read_csv(out / "ranking.csv")
    header, rows = _ranking_table(printed)
    for name in NUMERIC:
        cells = _column(header, rows, name)
        assert len({_decimals(c) for c in cells}) == 1, (name, cells)
    # Ranks with ties (4.5) are shown with one decimal in the whole column, the counts as
    # integers, the scores with the 4 decimals they always had; every number is the one written.
    rank_mean = _column(header, rows, "rank σ^μ")
    assert "4.5" in rank_mean and "1.0" in rank_mean
    np.testing.assert_allclose([float(c) for c in rank_mean], ranking["rank_mean"])
    assert _column(header, rows, "sig.>") == [str(v) for v in ranking["significantly_above"]]
    assert _column(header, rows, "σ^l") == [f"{v:.4f}" for v in ranking["borda"]]


def test_format_numbers_one_format_per_column():
    assert format_numbers([3432, 2418.5]) == ["3432.0", "2418.5"]
    assert format_numbers([3432, 2418]) == ["3432", "2418"]
    assert format_numbers([1, 2, 4.5]) == ["1.0", "2.0", "4.5"]
    assert format_numbers([0.5, 0.25, np.nan]) == ["0.50", "0.25", "nan"]
    assert format_numbers([1.0, 2.0], decimals=3) == ["1.000", "2.000"]
    # p-values spanning many orders of magnitude: scientific notation for the whole column
    assert format_numbers([1.344e-11, 0.03601]) == ["1.344e-11", "3.601e-02"]
    for values in ([987.4, 2269.31, 1010.2], [3.171, -0.0305, 0.0168], [0.6871, 0.08108]):
        assert len({_decimals(c) for c in format_numbers(values)}) == 1, values


def test_method_labels_are_the_sigma_names():
    assert [method_label(m) for m in ("mean", "borda", "borda2")] == ["σ^μ", "σ^l", "σ^2l"]
    assert method_label("kemeny") == "Kemeny"


def test_helpers_print_names_literally(capsys):
    print_table([("system", "left"), ("x", "right")], [(MARKUP, "1"), (WIDE, "22")])
    print_matrix([MARKUP, WIDE], lambda i, j: "+")
    printed = capsys.readouterr().out
    assert printed.count(MARKUP) == 2 and printed.count(WIDE) == 2
    lines = [_cells(line) for line in printed.splitlines()]
    assert all(line == line.rstrip() for line in printed.splitlines())
    assert lines[2].index("1") + 1 == lines[3].index("22") + 2  # right-aligned past a CJK name


QUICK_START = [
    ["rank", "--dataset", "xtreme_missing", "--out", "rank-out"],
    ["kemeny", "--dataset", "glue"],
    # A full paired analysis (1,000 resamples, Elo, TrueSkill) on 62 systems: ~10 s.
    pytest.param(
        ["paired", "--dataset", "tac08", "--task", "H:pyramid", "--out", "paired-out"],
        marks=pytest.mark.slow,
    ),
    ["simulate", "--systems", "5", "--tasks", "3", "--instances", "4", "--out", "b.parquet"],
    ["datasets"],
]


@pytest.mark.long
@pytest.mark.parametrize(
    "argv", QUICK_START, ids=[(a.values[0] if hasattr(a, "values") else a)[0] for a in QUICK_START]
)
def test_quick_start_commands_print_no_warning(argv, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    done = subprocess.run(
        [sys.executable, "-m", "rankstats", *argv],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=tmp_path,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr.lower(), done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert "warning" not in done.stdout.lower(), done.stdout
    assert done.stdout.strip()


def test_narrow_terminal_cuts_names_never_numbers(capsys, monkeypatch):
    import shutil

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(
        shutil, "get_terminal_size", lambda fallback=None: os.terminal_size((60, 24))
    )
    numbers = ["123456.7890", "2.0000"]
    print_table(
        [("system", "left"), ("score", "right"), ("other", "right")],
        [(LONG, numbers[0], "1"), (WIDE, numbers[1], "22")],
        max_width={0: 44},
    )
    printed = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
    assert all(n in printed for n in numbers) and "…" in printed
    assert max(cell_len(line) for line in printed.splitlines()) <= 60
