"""Messy score files through ``rs.read_scores`` and ``rs.scan_scores``: what is read (exactly as
written) and what is refused (with the count, the lines and what to do).

The corpus is written by a fixture; every expected value below is spelled out from the file
contents, never computed by the code under test.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rankstats as rs
from rankstats import DataWarning, InvalidScoresError
from rankstats.errors import UnreadableFileError

LONG = "system,task,score\na,t1,3\nb,t1,2\nc,t1,1\na,t2,0.9\nb,t2,0.8\nc,t2,0.7\n"
# The ranking of LONG on both tasks: a > b > c, task-level scores as written.
LONG_SCORES = {("a", "t1"): 3.0, ("b", "t1"): 2.0, ("c", "t1"): 1.0}


def _write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_bytes(content.encode("utf-8"))
    return path


@pytest.fixture
def corpus(tmp_path: Path) -> dict[str, Path]:
    d = tmp_path / "corpus"
    d.mkdir()
    f: dict[str, Path] = {}
    # ---- valid
    f["names"] = _write(
        d / "names.csv",
        "system,task,score\n"
        + "".join(
            f"{s},t1,{k}\n" for k, s in enumerate(["NA", "None", "null", "true", "1", "01", "007"])
        ),
    )
    f["bom_crlf"] = _write(d / "bom.csv", "\ufeff" + LONG.replace("\n", "\r\n"))
    f["tsv"] = _write(d / "long.tsv", LONG.replace(",", "\t"))
    f["tab"] = _write(d / "long.tab", LONG.replace(",", "\t"))
    f["semicolon"] = _write(d / "semi.csv", LONG.replace(",", ";"))
    f["excel_sep"] = _write(d / "excel.csv", "sep=;\n" + LONG.replace(",", ";"))
    f["pipe"] = _write(d / "pipe.txt", LONG.replace(",", "|"))
    f["no_extension"] = _write(d / "scores", LONG)
    f["gzip"] = _write(d / "long.csv.gz", gzip.compress(LONG.encode()))
    f["gzip_named_csv"] = _write(d / "zipped.csv", gzip.compress(LONG.encode()))
    f["bz2"] = _write(d / "long.csv.bz2", bz2.compress(LONG.encode()))
    f["xz"] = _write(d / "long.tsv.xz", lzma.compress(LONG.replace(",", "\t").encode()))
    f["latin1"] = _write(
        d / "latin1.csv", "system,task,score\ncaf\xe9,t1,1\nna\xefve,t1,2\n".encode("latin-1")
    )
    f["utf16"] = _write(d / "utf16.csv", "system,task,score\nä,t1,1\nö,t1,2\n".encode("utf-16"))
    f["quoted"] = _write(d / "quoted.csv", 'system,task,score\n"x, large",t1,1\n"y ""big""",t1,2\n')
    f["blank_line"] = _write(d / "blank.csv", "system,task,score\na,t1,1\n\nb,t1,2\n")
    f["spaces"] = _write(d / "spaces.csv", "system,task,score\na,t1, 1.5 \nb,t1,\t2\n")
    f["wide"] = _write(d / "wide.csv", "system,t1,t2\n007,0.9,\n7,0.8,0.3\nNA,0.7,0.4\n")
    f["instance"] = _write(
        d / "inst.csv",
        "system,task,instance,score\na,t,01,1\nb,t,01,2\na,t,1,4\nb,t,1,3\na,t,007,5\nb,t,007,6\n",
    )
    f["na_words"] = _write(
        d / "na.csv",
        "system,task,score\na,t1,1\nb,t1,n/a\nc,t1,3\na,t2,NA\nb,t2,2\nc,t2,5\n",
    )
    # ---- refused
    f["text_only"] = _write(d / "text2.csv", "system,task,score\na,t1,1\nb,t1,good\nc,t1,high\n")
    f["infinite"] = _write(d / "inf.csv", "system,task,score\na,t1,1\nb,t1,inf\n")
    f["more_fields"] = _write(
        d / "more.csv", "system,task,score\na,t1,1\nb,t1,2,5\n\nc,t1,3,6\nd,t1,4\n"
    )
    f["fewer_fields"] = _write(d / "fewer.csv", "system,task,score\na,t1,1\nb,t1\n")
    f["duplicate_columns"] = _write(d / "dupcol.csv", "system,t1,t1\na,1,2\nb,2,1\n")
    f["empty"] = _write(d / "empty.csv", "")
    f["header_only"] = _write(d / "header.csv", "system,task,score\n")
    f["not_utf8"] = _write(
        d / "latin.csv", "system,task,score\na,t1,1\ncaf\xe9,t1,2\n".encode("latin-1")
    )
    f["binary"] = _write(d / "binary.csv", bytes(range(256)) * 8)
    big = gzip.compress(("system,task,instance,score\n" + "a,t,1,1\n" * 5000).encode())
    f["truncated_gz"] = _write(d / "cut.csv.gz", big[: len(big) // 2])
    f["fake_parquet"] = _write(d / "fake.parquet", LONG)
    f["zip"] = _write(d / "sheet.xlsx", b"PK\x03\x04" + bytes(40))
    f["long_as_wide"] = _write(
        d / "longish.csv", "model,metric,value\na,t1,1\nb,t1,2\na,t2,3\nb,t2,4\n"
    )
    f["average"] = _write(d / "avg.csv", "system,t1,t2,Average\na,1,4,2.5\nb,2,3.5,2.75\nc,3,1,2\n")
    f["blank_key"] = _write(d / "blankkey.csv", "system,task,score\na,t1,1\n  ,t1,2\n")
    f["duplicate_keys"] = _write(d / "dupkey.csv", "system,task,score\na,t1,1\nb,t1,2\n\na,t1,3\n")
    f["wide_text"] = _write(d / "widetext.csv", "system,t1,url\na,1,http://a\nb,2,http://b\n")
    return f


def _score(scores: rs.Scores, system: str, task: str) -> float:
    data = scores.data
    return float(data.loc[(data.system == system) & (data.task == task), "score"].iloc[0])


# ---------------------------------------------------------------------------- valid files
def test_key_spellings_are_distinct_systems(corpus):
    scores = rs.read_scores(corpus["names"])
    assert scores.systems == ("NA", "None", "null", "true", "1", "01", "007")
    assert [_score(scores, s, "t1") for s in ("NA", "01", "007")] == [0.0, 5.0, 6.0]
    assert rs.aggregate(scores, "mean").order[:3] == ["007", "01", "1"]


@pytest.mark.parametrize(
    "name",
    [
        "bom_crlf",
        "tsv",
        "tab",
        "semicolon",
        "excel_sep",
        "pipe",
        "no_extension",
        "gzip",
        "gzip_named_csv",
        "bz2",
        "xz",
    ],
)
def test_valid_shapes_read_the_same(corpus, name):
    scores = rs.read_scores(corpus[name])
    assert scores.systems == ("a", "b", "c")
    assert scores.tasks == ("t1", "t2")
    for (system, task), value in LONG_SCORES.items():
        assert _score(scores, system, task) == value
    assert _score(scores, "c", "t2") == 0.7
    assert rs.aggregate(scores, "borda").order == ["a", "b", "c"]


def test_explicit_sep_and_its_aliases(corpus):
    for sep in (";", "semicolon"):
        assert rs.read_scores(corpus["semicolon"], sep=sep).systems == ("a", "b", "c")
    for sep in ("\t", "\\t", "tab"):
        assert rs.read_scores(corpus["tsv"], sep=sep).tasks == ("t1", "t2")
    with pytest.raises(ValueError, match="one character"):
        rs.read_scores(corpus["tsv"], sep=";;")


def test_other_encodings_when_named(corpus):
    scores = rs.read_scores(corpus["latin1"], encoding="latin-1")
    assert scores.systems == ("café", "naïve")
    assert rs.read_scores(corpus["utf16"], encoding="utf-16").systems == ("ä", "ö")
    with pytest.raises(UnreadableFileError, match=r"UTF-16.*encoding='utf-16'"):
        rs.read_scores(corpus["utf16"])
    with pytest.raises(ValueError, match="unknown encoding"):
        rs.read_scores(corpus["latin1"], encoding="klingon")


def test_quoted_fields_blank_lines_and_spaces(corpus):
    assert rs.read_scores(corpus["quoted"]).systems == ("x, large", 'y "big"')
    assert rs.read_scores(corpus["blank_line"]).data.score.tolist() == [1.0, 2.0]
    assert rs.read_scores(corpus["spaces"]).data.score.tolist() == [1.5, 2.0]


def test_wide_table_keys_and_empty_cells(corpus):
    scores = rs.read_scores(corpus["wide"])
    assert scores.systems == ("007", "7", "NA")
    assert scores.tasks == ("t1", "t2")
    assert len(scores.data) == 5  # the empty cell is "not evaluated"
    assert _score(scores, "007", "t1") == 0.9 and _score(scores, "NA", "t2") == 0.4


def test_instance_column_is_recognised_and_kept_as_text(corpus):
    scores = rs.read_scores(corpus["instance"])
    assert scores.has_instances
    assert sorted(set(scores.data.instance)) == ["007", "01", "1"]  # 01 and 1 stay distinct
    assert rs.Rankings.from_scores(scores, by="instance").n_rankings == 3
    # instance=False: no instance column; the (system, task) keys then repeat.
    with pytest.raises(InvalidScoresError, match=r"duplicated \(system, task\) keys"):
        rs.read_scores(corpus["instance"], instance=False)


def test_simulated_parquet_is_read_at_instance_level(tmp_path):
    """``simulate --out b.parquet`` then ``rank b.parquet --by instance``: no --instance."""
    sim = rs.simulate.gumbel(4, 2, 5, seed=1)
    path = sim.to_parquet(tmp_path / "b.parquet")[0]
    scores = rs.read_scores(path)
    assert scores.has_instances and len(scores.data) == 4 * 2 * 5
    assert set(scores.data.instance) == {"0", "1", "2", "3", "4"}  # integer keys read as text


def test_parquet_keys_of_any_type_become_text(tmp_path):
    path = tmp_path / "ints.parquet"
    pq.write_table(
        pa.table({"system": [7, 8, 7, 8], "task": [1, 1, 2, 2], "score": [1.0, 2.0, 3.0, 4.0]}),
        path,
    )
    scores = rs.read_scores(path)
    assert scores.systems == ("7", "8") and scores.tasks == ("1", "2")
    assert _score(scores, "8", "2") == 4.0


def test_na_values_read_as_missing_with_a_count(corpus):
    with pytest.warns(DataWarning, match=r"read 2 score cell\(s\) holding NA, n/a as missing"):
        scores = rs.read_scores(corpus["na_words"], na_values=["NA", "n/a"])
    assert len(scores.data) == 4
    assert _score(scores, "c", "t1") == 3.0
    # Means of the evaluated tasks: a 1 (t1 only), b 2 (t2 only), c (3 + 5) / 2 = 4.
    assert rs.aggregate(scores, "mean").order == ["c", "b", "a"]


# ---------------------------------------------------------------------------- refused cells
def test_missing_words_refused_with_count_lines_and_option(corpus):
    with pytest.raises(InvalidScoresError) as err:
        rs.read_scores(corpus["na_words"])
    message = str(err.value)
    assert "2 score cell(s)" in message and "missing-value words" in message
    assert "line 3: 'n/a'" in message and "line 5: 'NA'" in message
    assert "na_values=['n/a', 'NA']" in message and "--na-values n/a NA" in err.value.cli()
    # Only the listed words are accepted.
    with pytest.raises(InvalidScoresError, match="line 5: 'NA'"):
        rs.read_scores(corpus["na_words"], na_values=["n/a"])


def test_non_numeric_and_infinite_cells_name_their_lines(corpus):
    with pytest.raises(InvalidScoresError, match=r"2 non-numeric score\(s\).*line 3: 'good'"):
        rs.read_scores(corpus["text_only"])
    with pytest.raises(InvalidScoresError, match=r"line 3: 'inf'.*empty cell"):
        rs.read_scores(corpus["infinite"])


def test_wide_errors_name_the_system_and_the_task(corpus):
    with pytest.raises(InvalidScoresError) as err:
        rs.read_scores(corpus["wide_text"])
    message = str(err.value)
    assert "column 'url'" in message and "line 2 (system 'a')" in message
    assert message.endswith("choose the task columns with tasks=")
    assert err.value.cli().endswith("choose the task columns with --tasks")
    scores = rs.read_scores(corpus["wide_text"], tasks=["t1"])
    assert scores.tasks == ("t1",)
    # The DataFrame API: system and task, not the row of a melted table.
    wide = pd.DataFrame({"system": ["a", "b"], "t1": [1.0, 2.0], "t2": ["x", 3.0]})
    with pytest.raises(InvalidScoresError, match=r"system='a', task='t2', score='x'") as err:
        rs.Scores.from_wide(wide)
    assert "row " not in str(err.value)


# ---------------------------------------------------------------------------- refused shapes
def test_rows_with_more_or_fewer_fields(corpus):
    with pytest.raises(InvalidScoresError) as err:
        rs.read_scores(corpus["more_fields"])
    assert "2 row(s) with more fields than the header's 3 at line(s) 3, 5" in str(err.value)
    with pytest.raises(InvalidScoresError, match=r"fewer fields .* 3 at line\(s\) 3"):
        rs.read_scores(corpus["fewer_fields"])


def test_duplicate_column_names(corpus):
    with pytest.raises(UnreadableFileError, match=r"duplicated column names.*'t1' \(columns 2, 3"):
        rs.read_scores(corpus["duplicate_columns"])


@pytest.mark.parametrize(
    ("name", "pattern"),
    [
        ("empty", "is empty"),
        ("header_only", "has a header but no rows"),
        ("not_utf8", r"not valid UTF-8 text: byte 28 \(line 3\) is 0xe9.*encoding="),
        ("binary", "binary file"),
        ("truncated_gz", "truncated or corrupt gzip file"),
        ("fake_parquet", "not one .*PAR1"),
        ("zip", "zip archive"),
    ],
)
def test_unreadable_files_in_one_line(corpus, name, pattern):
    with pytest.raises(UnreadableFileError, match=pattern) as err:
        rs.read_scores(corpus[name])
    assert "\n" not in str(err.value)
    assert isinstance(err.value, InvalidScoresError)  # the CLI's error path catches it


def test_a_directory_and_a_missing_file(corpus):
    with pytest.raises(UnreadableFileError, match=r"is a directory.*scan_scores"):
        rs.read_scores(corpus["names"].parent)
    with pytest.raises(FileNotFoundError, match="no such score file"):
        rs.read_scores(corpus["names"].parent / "nope.csv")


def test_truncated_parquet(tmp_path):
    path = tmp_path / "cut.parquet"
    pd.DataFrame({"system": ["a", "b"], "task": "t", "score": [1.0, 2.0]}).to_parquet(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(UnreadableFileError, match="not a readable Parquet file"):
        rs.read_scores(path)


def test_long_table_without_task_and_score_names(corpus):
    with pytest.raises(InvalidScoresError) as err:
        rs.read_scores(corpus["long_as_wide"], system="model")
    message = str(err.value)
    assert "a system is repeated" in message and "'metric'" in message and "'value'" in message
    assert message.endswith("name them with task= and score=")
    assert err.value.cli().endswith("name them with --task NAME --score NAME")
    scores = rs.read_scores(corpus["long_as_wide"], system="model", task="metric", score="value")
    assert _score(scores, "b", "t2") == 4.0


def test_aggregate_column_in_a_wide_table(corpus):
    with pytest.raises(InvalidScoresError, match=r"'Average'.*aggregate.*tasks="):
        rs.read_scores(corpus["average"])
    kept = rs.read_scores(corpus["average"], tasks=["t1", "t2"])
    assert kept.tasks == ("t1", "t2")
    assert rs.aggregate(kept, "mean").order == ["b", "a", "c"]  # 2.75, 2.5, 2
    ranked = rs.read_scores(corpus["average"], tasks=["t1", "t2", "Average"])
    assert ranked.tasks == ("t1", "t2", "Average")
    for name in ("Mean", " overall ", "AVG", "Total", "macro avg"):
        frame = pd.DataFrame({"system": ["a", "b"], "t1": [1, 2], name: [1, 2]})
        with pytest.raises(InvalidScoresError, match="aggregate"):
            rs.Scores.from_wide(frame)
    # One task column named "score" aggregates nothing.
    assert rs.Scores.from_wide(pd.DataFrame({"system": ["a", "b"], "score": [1, 2]})).n_tasks == 1


def test_column_options_naming_absent_columns(corpus):
    for option in ({"task": "metric"}, {"score": "value"}, {"instance": "example"}):
        with pytest.raises(InvalidScoresError) as err:
            rs.read_scores(corpus["names"], **option)
        message = str(err.value)
        assert f"{next(iter(option))}={next(iter(option.values()))!r}" in message
        assert "'system', 'task', 'score'" in message
    with pytest.raises(InvalidScoresError, match=r"tasks=\['t9'\]"):
        rs.read_scores(corpus["wide"], tasks=["t9"])


def test_blank_and_duplicated_keys_name_file_lines(corpus):
    with pytest.raises(InvalidScoresError, match=r"empty 'system' key \(line 3\)"):
        rs.read_scores(corpus["blank_key"])
    # Line 5 (a blank line 4 in between), not row 2 of a DataFrame.
    with pytest.raises(InvalidScoresError) as err:
        rs.read_scores(corpus["duplicate_keys"])
    assert "dupkey.csv line 2" in str(err.value) and "dupkey.csv line 5" in str(err.value)


@pytest.mark.parametrize(
    ("column", "pattern"),
    [
        (pa.array(pd.to_datetime(["2024-01-01", "2024-01-02"])), "timestamp"),
        (pa.array([True, False]), "boolean"),
    ],
)
def test_parquet_scores_that_are_not_numbers(tmp_path, column, pattern):
    path = tmp_path / "odd.parquet"
    pq.write_table(pa.table({"system": ["a", "b"], "task": ["t", "t"], "score": column}), path)
    with pytest.raises(InvalidScoresError, match=f"column 'score' is .*{pattern}"):
        rs.read_scores(path)
    with pytest.raises(InvalidScoresError, match=f"column 'score' is .*{pattern}"):
        rs.scan_scores(path, instance="task")


def test_parquet_text_scores_use_the_same_rules(tmp_path):
    path = tmp_path / "text.parquet"
    table = pa.table(
        {"system": ["a", "b", "c", "d"], "task": ["t"] * 4, "score": ["1.5", "NA", None, "2.5"]}
    )
    pq.write_table(table, path)
    with pytest.raises(InvalidScoresError, match=r"row 2: 'NA'"):
        rs.read_scores(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = rs.read_scores(path, na_values=["NA"])
    messages = " | ".join(str(w.message) for w in caught)
    assert "read 1 score cell(s) holding NA as missing" in messages  # b; c's null is missing too
    assert "evaluated on no task are kept but carry no information: b, c" in messages
    assert scores.data.score.tolist() == [1.5, 2.5]


# ---------------------------------------------------------------------------- streamed
def _instance_frame() -> pd.DataFrame:
    rows = []
    for task in ("t1", "t2"):
        for inst in range(4):
            for k, system in enumerate(["007", "7", "NA", "01"]):
                rows.append((system, task, f"{inst:02d}", float((k * (inst + 1)) % 5)))
    return pd.DataFrame(rows, columns=["system", "task", "instance", "score"])


def _csv_text(frame: pd.DataFrame, sep: str = ",") -> str:
    return frame.to_csv(index=False, sep=sep)


def test_stream_reads_mixed_formats_like_memory(tmp_path):
    frame = _instance_frame()
    d = tmp_path / "mixed"
    d.mkdir()
    parts = [frame.iloc[:8], frame.iloc[8:16], frame.iloc[16:24], frame.iloc[24:]]
    (d / "a.csv").write_text(_csv_text(parts[0]))
    (d / "b.tsv.gz").write_bytes(gzip.compress(_csv_text(parts[1], "\t").encode()))
    parts[2].to_parquet(d / "c.parquet", index=False)
    (d / "d.csv").write_bytes(gzip.compress(_csv_text(parts[3], ";").encode()))  # gzip as .csv
    (d / ".hidden.csv").write_text("junk")
    (d / "_SUCCESS").write_text("")
    (d / "c.truth.json").write_text("{}")
    scanned = rs.scan_scores(d, batch_rows=3)
    assert scanned.systems == ("007", "7", "NA", "01")
    assert scanned.format == "mixed"
    memory = rs.Scores.from_long(frame.astype(str).astype({"score": float}), instance="instance")
    for method in ("mean", "borda", "borda2"):
        streamed = rs.aggregate(scanned, method).scores
        expected = rs.aggregate(memory, method).scores
        np.testing.assert_allclose(streamed[list(expected.index)], expected, atol=1e-12)
    assert rs.pairwise(scanned).n_rankings == 8


def test_stream_keys_are_text_like_memory(tmp_path):
    path = tmp_path / "keys.csv"
    path.write_text(
        "system,task,instance,score\n007,1,01,1\n7,1,01,2\n007,1,1,3\n7,1,1,1\n1.0,1,1,0\n"
    )
    scanned = rs.scan_scores(path)
    assert scanned.systems == ("007", "7", "1.0") and scanned.tasks == ("1",)
    assert rs.pairwise(scanned).n_rankings == 2  # instances "01" and "1" are distinct
    memory = rs.read_scores(path)
    assert memory.systems == scanned.systems
    assert rs.aggregate(scanned, "borda").order == rs.aggregate(memory, "borda").order


def test_stream_refuses_missing_words_like_memory(tmp_path):
    path = tmp_path / "na.csv"
    path.write_text("system,task,instance,score\na,t,1,1\nb,t,1,n/a\nc,t,1,3\na,t,2,2\nb,t,2,1\n")
    for read in (rs.read_scores, rs.scan_scores):
        with pytest.raises(InvalidScoresError, match=r"line 3: 'n/a'.*na_values=\['n/a'\]") as err:
            read(path)
        assert "pass --na-values n/a, or leave" in err.value.cli()
    with pytest.warns(DataWarning, match=r"read 1 score cell"):
        scanned = rs.scan_scores(path, na_values=["n/a"])
    with pytest.warns(DataWarning, match=r"read 1 score cell"):
        memory = rs.read_scores(path, na_values=["n/a"])
    assert rs.aggregate(scanned, "borda").order == rs.aggregate(memory, "borda").order
    np.testing.assert_allclose(
        rs.aggregate(scanned, "mean").scores.sort_index(),
        rs.aggregate(memory, "mean").scores.sort_index(),
    )


def test_stream_refuses_bad_rows_and_columns_like_memory(tmp_path, corpus):
    path = tmp_path / "more.csv"
    path.write_text("system,task,instance,score\na,t,1,1\nb,t,1,2,9\n")
    for read in (rs.read_scores, rs.scan_scores):
        with pytest.raises(InvalidScoresError, match=r"more fields .* line\(s\) 3"):
            read(path)
    with pytest.raises(InvalidScoresError, match=r"'inst' not found; its columns are: 'system'"):
        rs.scan_scores(path, instance="inst")
    for name in ("empty", "binary", "truncated_gz", "fake_parquet", "not_utf8"):
        with pytest.raises(UnreadableFileError):
            rs.scan_scores(corpus[name], instance="task")


def test_stream_refuses_files_it_would_skip(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    _instance_frame().to_parquet(d / "part.parquet", index=False)
    (d / "notes.md").write_text("hello")
    (d / "scores").write_text("x")
    with pytest.raises(UnreadableFileError, match=r"2 file\(s\) .*skipped: notes.md, scores"):
        rs.scan_scores(d)
    (d / "notes.md").unlink()
    (d / "scores").unlink()
    assert rs.scan_scores(d).systems == ("007", "7", "NA", "01")


def _simulate_dir(tmp_path: Path) -> Path:
    d = tmp_path / "sim"
    d.mkdir()
    frame = _instance_frame()
    frame.iloc[:16].to_parquet(d / "part-00000.parquet", index=False)
    frame.iloc[16:].to_parquet(d / "part-00001.parquet", index=False)
    (d / "truth.json").write_text(json.dumps({"truth": ["007"]}))
    return d


def _manifest(d: Path, files: list[str], rows: int = 32, complete: bool = True) -> None:
    (d / "rankstats-manifest.json").write_text(
        json.dumps({"complete": complete, "files": files, "rows": rows})
    )


def test_incomplete_simulate_outputs_are_refused(tmp_path):
    d = _simulate_dir(tmp_path)
    with pytest.raises(UnreadableFileError, match=r"incomplete rankstats simulate output"):
        rs.scan_scores(d)
    _manifest(d, ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet"])
    with pytest.raises(UnreadableFileError, match=r"interrupted\?.*missing: part-00002.parquet"):
        rs.scan_scores(d)
    _manifest(d, ["part-00000.parquet"])
    with pytest.raises(UnreadableFileError, match=r"not listed .*part-00001.parquet"):
        rs.scan_scores(d)
    _manifest(d, ["part-00000.parquet", "part-00001.parquet"], complete=False)
    with pytest.raises(UnreadableFileError, match="complete"):
        rs.scan_scores(d)
    _manifest(d, ["part-00000.parquet", "part-00001.parquet"], rows=40)
    with pytest.raises(UnreadableFileError, match=r"promises 40 rows but the files hold 32"):
        rs.scan_scores(d)
    _manifest(d, ["part-00000.parquet", "part-00001.parquet"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rs.pairwise(rs.scan_scores(d)).n_rankings == 8


def test_simulate_partitions_pass_the_completeness_check(tmp_path):
    rs.simulate.gumbel_files(tmp_path / "p", 4, 2, 30, partitions=3, seed=0)
    assert (tmp_path / "p" / "rankstats-manifest.json").exists()
    assert rs.pairwise(rs.scan_scores(tmp_path / "p")).n_rankings == 60


@pytest.mark.parametrize("sep", ["{", "}", "#"])
def test_a_header_without_an_unusual_separator_is_refused_with_its_columns(sep, tmp_path):
    """The separator's name is text in the message template (a brace is not a field)."""
    path = tmp_path / "scores.csv"
    path.write_text("system,task,score\na,t,1\nb,t,2\n", encoding="utf-8")
    with pytest.raises(rs.InvalidScoresError, match="the columns are") as err:
        rs.read_scores(path, sep=sep)
    assert repr(sep) in str(err.value) and str(err.value).endswith("pass sep=)")
    assert err.value.cli().endswith("pass --sep)")


def test_option_names_in_reader_messages_are_keyword_arguments(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text("system,A,B\na,1,2\nb,2,1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"give tasks= or drop_columns=, not both"):
        rs.read_scores(path, tasks=["A"], drop_columns=["B"])
    with pytest.raises(rs.InvalidScoresError, match=r"no column named as drop_columns=\['C'\]"):
        rs.read_scores(path, drop_columns=["C"])
