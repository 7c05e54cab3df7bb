"""``rankstats rank --stream --order any`` (and ``rs.scan_scores(order=...)``) on bad input.

The classification of ``tests/cli/test_bad_input.py``: exit code 2, one line ``rankstats rank:
error: …`` naming the problem — the file and, where there is one, the line —, in the CLI's words
(``--order any``, ``--na-values``, never ``order='any'``); no ``--out`` directory and no
partition spill directory left behind. Valid input in any order gives the in-memory ranking.
"""

from __future__ import annotations

import gzip
import re
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import one_error_line, run

import rankstats as rs
from rankstats.scan.partition import SPILL_PREFIX

GOOD = "system,task,instance,score\n" + "".join(
    f"{s},t{t},{i},{v}\n"
    for t in range(2)
    for i in range(3)
    for s, v in (("a", 3), ("b", 2), ("c", 1))
)  # 18 rows: lines 2 to 19; an added row is line 20

TEXT_CASES = {
    # name: (file content, needles of the error line)
    "duplicate": (GOOD + "a,t0,0,5\n", ["duplicated", "dup.csv line 2", "dup.csv line 20"]),
    "na_word": (GOOD + "a,t9,1,NA\nb,t9,1,1\n", ["line 20", "--na-values NA"]),
    "text_score": (GOOD + "a,t9,1,high\n", ["line 20", "'high'"]),
    "infinite": (GOOD + "a,t9,1,inf\nb,t9,1,1\n", ["line 20", "infinite"]),
    "blank_system": (GOOD + " ,t9,1,1\nb,t9,1,2\n", ["line 20", "'system'"]),
    "blank_instance": (GOOD + "a,t9,,1\nb,t9,1,2\n", ["line 20", "'instance'"]),
    "extra_field": (GOOD + "a,t9,1,1,surprise\n", ["line(s) 20", "more fields"]),
    "no_score_column": (GOOD.replace(",score\n", ",value\n", 1), ["'score'", "--score"]),
    "header_only": ("system,task,instance,score\n", ["no rows"]),
    "empty": ("", ["empty"]),
    "whitespace_names": (GOOD.replace("a,t0,0", "a ,t0,0"), ["'a '", "whitespace"]),
}

FILE_NAMES = {"duplicate": "dup.csv"}


_run = run


def _error_line(err: str) -> str:
    return one_error_line(err, "rank")


def _python_spelling(text: str) -> list[str]:
    """Python argument spellings (``order='any'``, ``na_values=[``, ``score=``)."""
    return re.findall(r"\b[a-z_]+=", text)


@pytest.fixture
def spill_dir(tmp_path, monkeypatch) -> Path:
    """A private TMPDIR: the partition spill directories of this test land here."""
    d = tmp_path / "tmp"
    d.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(d))
    return d


def _assert_nothing_left(out: Path, spill: Path) -> None:
    assert not out.exists(), list(out.iterdir())
    assert not [p for p in spill.iterdir() if p.name.startswith(SPILL_PREFIX)]
    assert not [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("name", sorted(TEXT_CASES))
def test_bad_text_file(name, workers, tmp_path, spill_dir, capsys):
    content, needles = TEXT_CASES[name]
    path = tmp_path / FILE_NAMES.get(name, f"{name}.csv")
    path.write_text(content)
    out = tmp_path / "out"
    argv = ["rank", str(path), "--stream", "--order", "any", "--n-jobs", workers]
    code, _, err = _run([*argv, "--out", str(out), "--no-figures"], capsys)
    assert code == 2, err
    line = _error_line(err)
    assert path.name in line, line
    for needle in needles:
        assert needle in line, (needle, line)
    assert not _python_spelling(line), line
    _assert_nothing_left(out, spill_dir)


BINARY_CASES = {
    "binary.csv": (bytes(range(256)) * 8, "binary"),
    "cut.csv.gz": (gzip.compress(GOOD.encode() * 50)[:60], "truncated"),
    "fake.parquet": (GOOD.encode(), "Parquet"),
}


@pytest.mark.parametrize("name", sorted(BINARY_CASES))
def test_unreadable_file(name, tmp_path, spill_dir, capsys):
    content, needle = BINARY_CASES[name]
    path = tmp_path / name
    path.write_bytes(content)
    out = tmp_path / "out"
    code, _, err = _run(
        ["rank", str(path), "--stream", "--order", "any", "--out", str(out)], capsys
    )
    assert code == 2, err
    line = _error_line(err)
    assert name in line and needle in line, line
    _assert_nothing_left(out, spill_dir)


def _parquet_with_duplicate(tmp_path: Path) -> Path:
    frame = pd.read_csv(pd.io.common.StringIO(GOOD))
    frame = pd.concat([frame, frame.iloc[[4]]], ignore_index=True)  # row 5 again as row 19
    path = tmp_path / "dup.parquet"
    frame.to_parquet(path, row_group_size=5)
    return path


@pytest.mark.parametrize("workers", ["1", "2"])
def test_parquet_duplicate_names_the_rows(workers, tmp_path, spill_dir, capsys):
    path = _parquet_with_duplicate(tmp_path)
    out = tmp_path / "out"
    argv = ["rank", str(path), "--stream", "--order", "any", "--n-jobs", workers]
    code, _, err = _run([*argv, "--out", str(out)], capsys)
    assert code == 2, err
    line = _error_line(err)
    assert "dup.parquet data row 5" in line and "dup.parquet data row 19" in line, line
    _assert_nothing_left(out, spill_dir)


def test_duplicate_across_files_names_both(tmp_path, spill_dir, capsys):
    d = tmp_path / "parts"
    d.mkdir()
    (d / "one.csv").write_text(GOOD)
    (d / "two.csv").write_text("system,task,instance,score\nb,t1,2,9\n")
    out = tmp_path / "out"
    code, _, err = _run(
        ["rank", str(d), "--stream", "--order", "any", "--n-jobs", "2", "--out", str(out)],
        capsys,
    )
    assert code == 2, err
    line = _error_line(err)
    # b, t1, instance 2 is the 17th data row of one.csv: line 18.
    assert "one.csv line 18" in line and "two.csv line 2" in line, line
    _assert_nothing_left(out, spill_dir)


def test_grouped_names_the_rows_and_the_flag(tmp_path, spill_dir, capsys):
    path = tmp_path / "apart.csv"
    path.write_text(GOOD + "d,t0,0,5\n")
    out = tmp_path / "out"
    code, _, err = _run(
        ["rank", str(path), "--stream", "--order", "grouped", "--out", str(out)], capsys
    )
    assert code == 2, err
    line = _error_line(err)
    assert "apart.csv line 2" in line and "apart.csv line 20" in line, line
    assert "--order any" in line and not _python_spelling(line), line
    _assert_nothing_left(out, spill_dir)


def test_auto_warning_speaks_the_cli(tmp_path, spill_dir, capsys):
    path = tmp_path / "apart.csv"
    path.write_text(GOOD + "d,t0,0,5\n")
    code, _, err = _run(
        ["rank", str(path), "--stream", "--out", str(tmp_path / "out"), "--no-figures"], capsys
    )
    assert code == 0, err
    warning = [line for line in err.splitlines() if ": warning:" in line]
    assert len(warning) == 1 and "--order any" in warning[0], err
    assert not _python_spelling(warning[0]), warning
    assert not [p for p in spill_dir.iterdir() if p.name.startswith(SPILL_PREFIX)]


@pytest.mark.parametrize(
    ("pattern", "needle"), [("nothing*.csv", "no file matches"), ("missing.csv", "no such")]
)
def test_missing_input(pattern, needle, tmp_path, spill_dir, capsys):
    out = tmp_path / "out"
    code, _, err = _run(
        ["rank", str(tmp_path / pattern), "--stream", "--order", "any", "--out", str(out)], capsys
    )
    assert code == 2
    assert needle in _error_line(err)
    _assert_nothing_left(out, spill_dir)


def test_api_names_file_and_line(tmp_path, spill_dir):
    path = tmp_path / "dup.csv"
    path.write_text(GOOD + "a,t0,0,5\n")
    scanned = rs.scan_scores(path, order="any")
    with pytest.raises(rs.InvalidScoresError, match=r"dup\.csv line 2 and .*dup\.csv line 20"):
        rs.aggregate(scanned, method="borda")
    assert not [p for p in spill_dir.iterdir() if p.name.startswith(SPILL_PREFIX)]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_shuffled_rows_give_the_in_memory_ranking(workers, tmp_path, spill_dir, capsys):
    """Rows of every instance scattered over two files: the streamed ranking and pairs equal
    the in-memory command's on the same rows."""
    rng = np.random.default_rng(7)
    systems, rows = [f"s{k}" for k in range(6)], []
    for t in range(3):
        for i in range(25):
            for k, s in enumerate(systems):
                if rng.random() > 0.15:
                    rows.append((s, f"t{t}", i, round(float(rng.normal(k / 3)), 3)))
    frame = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
    frame = frame.iloc[rng.permutation(len(frame))]
    d = tmp_path / "parts"
    d.mkdir()
    half = len(frame) // 2
    frame.iloc[:half].to_csv(d / "a.csv", index=False)
    frame.iloc[half:].to_csv(d / "b.csv", index=False)
    frame.to_csv(tmp_path / "all.csv", index=False)
    streamed, memory = tmp_path / "streamed", tmp_path / "memory"
    argv = ["rank", str(d), "--stream", "--order", "any", "--n-jobs", workers, "--batch-rows"]
    code, _, err = _run([*argv, "50", "--out", str(streamed), "--no-figures"], capsys)
    assert code == 0, err
    code, _, err = _run(
        ["rank", str(tmp_path / "all.csv"), "--out", str(memory), "--no-figures"], capsys
    )
    assert code == 0, err
    a = pd.read_csv(streamed / "ranking.csv")
    b = pd.read_csv(memory / "ranking.csv")
    assert a["system"].tolist() == b["system"].tolist()
    np.testing.assert_allclose(a["borda"], b["borda"], rtol=1e-12)
    pa_, pb = pd.read_csv(streamed / "pairs.csv"), pd.read_csv(memory / "pairs.csv")
    np.testing.assert_allclose(pa_["estimate"], pb["estimate"], rtol=1e-12)
    assert not [p for p in spill_dir.iterdir() if p.name.startswith(SPILL_PREFIX)]


def test_library_hints_in_cli_words():
    """Every hint of ``rs.scan_scores`` that names a Python argument is an option of its
    message with a command-line spelling (:mod:`rankstats._util.advice`), which the CLI prints
    as it is, never rewritten."""
    from rankstats.scan.reader import UNGROUPED_HINT
    from rankstats.scan.scanned import CLUSTER_ANY

    for hint in (UNGROUPED_HINT, CLUSTER_ANY):
        assert "--order" in hint.cli and not _python_spelling(hint.cli), hint.cli
        assert "rs.scan_scores" not in hint.cli and "dask.dataframe" not in hint.cli
        assert "order='any'" in hint.python
    assert "--scheduler" in CLUSTER_ANY.cli
