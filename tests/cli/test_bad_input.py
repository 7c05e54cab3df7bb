"""The CLI on bad and hostile input: one line, one exit-code convention, nothing half-written.

Every case runs ``rankstats`` in-process (``main``) and asserts the exit code (2 = usage or
input error, 1 = failure while computing, 130 = interrupted), a single ``rankstats <command>:
error: …`` line on stderr naming the problem, and that ``--out`` holds no file (or the previous
set, untouched). A few cases run in a subprocess to check that no traceback reaches the user.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import one_error_line, run

GOOD_ROWS = [
    ("a", "t1", 3.0),
    ("b", "t1", 2.0),
    ("c", "t1", 1.0),
    ("a", "t2", 0.9),
    ("b", "t2", 0.8),
    ("c", "t2", 0.7),
]


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def _good_csv() -> str:
    return "system,task,score\n" + "".join(f"{s},{t},{v}\n" for s, t, v in GOOD_ROWS)


@pytest.fixture
def corpus(tmp_path: Path) -> dict[str, Path]:
    """Small bad (and a few valid) input files."""
    d = tmp_path / "in"
    d.mkdir()
    files = {
        "good": _write(d / "good.csv", _good_csv()),
        "empty": _write(d / "empty.csv", ""),
        "header_only": _write(d / "header.csv", "system,task,score\n"),
        "latin1": _write(
            d / "latin1.csv", "system,task,score\ncaf\xe9,t1,1\nb,t1,2\n".encode("latin-1")
        ),
        "binary": _write(d / "binary.csv", bytes(range(256)) * 8),
        "gzip_named_csv": _write(d / "zipped.csv", gzip.compress(_good_csv().encode(), mtime=0)),
        "truncated_gz": _write(
            d / "cut.csv.gz", gzip.compress(_good_csv().encode() * 50, mtime=0)[:60]
        ),
        "fake_parquet": _write(d / "fake.parquet", "system,task,score\na,t,1\n"),
        "na_words": _write(d / "na.csv", _good_csv() + "a,t3,NA\nb,t3,1\nc,t3,n/a\n"),
        "extra_fields": _write(d / "extra.csv", _good_csv() + "a,t3,1,surprise\n"),
        "dup_columns": _write(d / "dup.csv", "system,task,score,score\na,t1,1,2\nb,t1,2,3\n"),
        "long_as_wide": _write(
            d / "long.csv",
            "model,metric,value\n" + "".join(f"{s},{t},{v}\n" for s, t, v in GOOD_ROWS),
        ),
        "wide_average": _write(
            d / "wide.csv", "system,t1,t2,Average\na,3,0.9,1.95\nb,2,0.8,1.4\nc,1,0.7,0.85\n"
        ),
        # Issue 45, item 8: one system; one id written 2 and 2.0 (scores, battles).
        "one_system": _write(d / "one.csv", "system,task,score\nA,t1,1\nA,t2,2\nA,t3,3\n"),
        "mixed_ids": _write(d / "ids.csv", "system,task,score\n2,t1,1\n3,t1,2\n2.0,t2,3\n3,t2,1\n"),
        "battles": _write(
            d / "log.csv", "model_a,model_b,winner\n1,2,model_a\n2,3,tie\n3,1,model_b\n"
        ),
        "mixed_battles": _write(
            d / "mixed.csv", "model_a,model_b,winner\n1,2,model_a\n2.0,3,tie\n3,1,model_b\n"
        ),
    }
    ts = pd.DataFrame(
        {
            "system": ["a", "b"],
            "task": ["t", "t"],
            "score": pd.to_datetime(["2024-01-01", "2024-01-02"]),
        }
    )
    ts.to_parquet(d / "timestamps.parquet")
    files["timestamps"] = d / "timestamps.parquet"
    files["dir"] = d
    return files


_run = run
_assert_one_error_line = one_error_line


# ---------------------------------------------------------------------------- arguments
ARGUMENT_CASES = [
    (["rank", "{good}", "--delta", "1.5"], "rank", "--delta"),
    (["rank", "{good}", "--delta", "abc"], "rank", "--delta"),
    (["report", "{good}", "--delta", "0"], "report", "--delta"),
    (["paired", "{good}", "--confidence-level", "1.2"], "paired", "--confidence-level"),
    (["paired", "{good}", "--n-resamples", "0"], "paired", "--n-resamples"),
    (["kemeny", "{good}", "--time-limit", "-1"], "kemeny", "--time-limit"),
    (["rank", "{good}", "--stream", "--batch-rows", "0"], "rank", "--batch-rows"),
    (["rank", "{good}", "--stream", "--n-jobs", "0"], "rank", "--n-jobs"),
    (
        ["robustness", "--experiment", "colombo2022-scaling", "--n-replications", "0"],
        "robustness",
        "--n-replications",
    ),
    (
        ["robustness", "--experiment", "colombo2022-scaling", "--n-jobs", "0"],
        "robustness",
        "--n-jobs",
    ),
    (["simulate", "--systems", "1", "--out", "{tmp}/s.csv"], "simulate", "--systems"),
    (["simulate", "--missing-rate", "1.0", "--out", "{tmp}/s.csv"], "simulate", "--missing-rate"),
    (["simulate", "--out", "{tmp}/sim.xlsx"], "simulate", ".xlsx"),
    (
        ["simulate", "--tasks", "2", "--adversarial", "3", "--out", "{tmp}/s.csv"],
        "simulate",
        "--adversarial",
    ),
    (["fit", "{good}", "--draws", "0"], "fit", "--draws"),
    (["fit", "{good}", "--chains", "0"], "fit", "--chains"),
    (["rank", "{good}", "--method", "nope"], "rank", "--method"),
    (["rank", "{good}", "--instance", "nosuch"], "rank", "nosuch"),
    (["rank", "{good}", "--score", "nosuch"], "rank", "nosuch"),
    (["rank", "{good}", "--by", "instance"], "rank", "--instance"),
    (["rank", "{good}", "--dataset", "glue"], "rank", "exactly one"),
    (["rank", "--dataset", "glue", "--lower-is-better", "x"], "rank", "--lower-is-better"),
    (["paired", "--dataset", "tac08", "--task", "nosuch"], "paired", "nosuch"),
    (
        ["paired", "--dataset", "tac08", "--task", "H:pyramid", "--pair", "zzz", "yyy"],
        "paired",
        "zzz",
    ),
    (["report", "--dataset", "glue", "--paired", "nosuch"], "report", "nosuch"),
    (["rank", "{good}", "--out", "{good}"], "rank", "existing file"),
    (["rank", "{dir}"], "rank", "directory"),
    (["rank", "{tmp}/missing.csv"], "rank", "missing.csv"),
    (["rank", "{tmp}/nothing*.parquet", "--stream"], "rank", "no file matches"),
    (["rank", "{good}", "--n-jobs", "2"], "rank", "--stream"),
    # Issue 45, item 8: refused before computing, in the library's words, spelled as flags.
    (["significance", "{one_system}", "--out", "{tmp}/out"], "significance", "at least 2"),
    (
        ["significance", "{one_system}", "--choose", "--out", "{tmp}/out"],
        "significance",
        "the table has 1: A",
    ),
    (["rank", "{mixed_ids}"], "rank", "'2' (ids.csv line 2) and '2.0' (ids.csv line 4)"),
    (["battles", "{mixed_battles}", "--out", "{tmp}/out"], "battles", "'2.0' (line 3)"),
    (["battles", "{battles}", "--seed", "-1", "--out", "{tmp}/out"], "battles", "--seed"),
    (["kemeny", "{good}", "--seed", "-1"], "kemeny", "--seed must be"),
    (["fit", "{good}", "--seed", "-1"], "fit", "--seed must be"),
]


@pytest.mark.parametrize(("argv", "command", "needle"), ARGUMENT_CASES, ids=lambda x: str(x))
def test_bad_arguments(argv, command, needle, corpus, tmp_path, capsys):
    out = tmp_path / "out"
    argv = [a.format(tmp=tmp_path, **{k: str(v) for k, v in corpus.items()}) for a in argv]
    if "--out" not in argv and command in ("rank", "report", "paired", "fit"):
        argv += ["--out", str(out)]
    code, _, err = _run(argv, capsys)
    assert code == 2, err
    _assert_one_error_line(err, command, needle)
    assert not out.exists()
    assert not list(tmp_path.glob(".*partial*"))


def test_foreign_output_directory_is_refused(corpus, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    code, _, err = _run(["rank", str(corpus["good"]), "--out", str(out)], capsys)
    assert code == 2
    _assert_one_error_line(err, "rank", "did not write")
    assert [p.name for p in out.iterdir()] == ["thesis.tex"]


@pytest.mark.slow  # distributed retries for the whole 10 s connect timeout
def test_unreachable_scheduler(corpus, tmp_path, capsys):
    pytest.importorskip("distributed")
    path = tmp_path / "s.parquet"
    pd.DataFrame(GOOD_ROWS, columns=["system", "task", "score"]).assign(instance=0).to_parquet(path)
    argv = [
        "rank",
        str(path),
        "--stream",
        "--scheduler",
        "tcp://127.0.0.1:9",
        "--out",
        str(tmp_path / "out"),
    ]
    code, _, err = _run(argv, capsys)
    assert code == 2
    _assert_one_error_line(err, "rank", "scheduler")


# ---------------------------------------------------------------------------- unreadable files
FILE_CASES = [
    ("empty", "empty"),
    ("header_only", "no rows"),
    ("latin1", "utf-8"),
    ("binary", "binary"),
    ("truncated_gz", "gz"),
    ("fake_parquet", "parquet"),
    ("na_words", "NA"),
    ("extra_fields", "line"),
    ("dup_columns", "score"),
    ("long_as_wide", "--task"),
    ("wide_average", "Average"),
    ("timestamps", "score"),
]


@pytest.mark.parametrize(("name", "needle"), FILE_CASES)
def test_unreadable_or_ambiguous_files(name, needle, corpus, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["rank", str(corpus[name]), "--out", str(out)]
    if name == "long_as_wide":
        argv += ["--system", "model"]
    code, _, err = _run(argv, capsys)
    assert code == 2, err
    _assert_one_error_line(err, "rank", needle)
    assert not out.exists()


def _order(out: Path) -> list[str]:
    return pd.read_csv(out / "ranking.csv")["system"].tolist()


def test_na_words_accepted_when_named(corpus, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["rank", str(corpus["na_words"]), "--na-values", "NA", "n/a", "--out", str(out)]
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    assert "2" in err and "missing" in err  # says how many cells it read as missing


def test_gzip_named_csv_is_read(corpus, tmp_path, capsys):
    out = tmp_path / "out"
    code, _, err = _run(["rank", str(corpus["gzip_named_csv"]), "--out", str(out)], capsys)
    assert code == 0, err
    assert _order(out) == ["a", "b", "c"]


# ---------------------------------------------------------------------------- valid shapes
@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("bom.csv", "\ufeff" + _good_csv()),
        ("crlf.csv", _good_csv().replace("\n", "\r\n")),
        ("tabs.tsv", _good_csv().replace(",", "\t")),
        ("semicolons.csv", _good_csv().replace(",", ";")),
        ("noextension", _good_csv()),
        ("zipped.csv.gz", gzip.compress(_good_csv().encode(), mtime=0)),
    ],
)
def test_valid_shapes_keep_working(name, content, tmp_path, capsys):
    path = _write(tmp_path / name, content)
    out = tmp_path / "out"
    code, _, err = _run(["rank", str(path), "--out", str(out)], capsys)
    assert code == 0, err
    assert _order(out) == ["a", "b", "c"]


def test_names_that_look_like_missing_or_numbers_are_distinct(tmp_path, capsys):
    names = ["NA", "None", "null", "true", "1", "01", "007"]
    rows = [(s, t, float(k + j)) for k, s in enumerate(names) for j, t in enumerate(["x", "y"])]
    path = tmp_path / "names.csv"
    path.write_text("system,task,score\n" + "".join(f"{s},{t},{v}\n" for s, t, v in rows))
    out = tmp_path / "out"
    code, _, err = _run(["rank", str(path), "--out", str(out)], capsys)
    assert code == 0, err
    ranking = pd.read_csv(out / "ranking.csv", dtype={"system": str}, keep_default_na=False)
    assert sorted(ranking["system"]) == sorted(names)
    assert ranking["system"].iloc[0] == "007"


def test_file_after_many_valued_option(tmp_path, capsys):
    """``--lower-is-better ppl scores.csv`` must not swallow the file name."""
    path = tmp_path / "s.csv"
    rows = [*GOOD_ROWS, ("a", "ppl", 9.0), ("b", "ppl", 5.0), ("c", "ppl", 1.0)]
    pd.DataFrame(rows, columns=["system", "task", "score"]).to_csv(path, index=False)
    out = tmp_path / "out"
    code, _, err = _run(["rank", "--lower-is-better", "ppl", str(path), "--out", str(out)], capsys)
    assert code == 0, err
    summary = pd.read_json(out / "summary.json", typ="series")
    assert summary["data"]["lower_is_better"] == ["ppl"]


def test_simulated_file_round_trips_without_flags(tmp_path, capsys):
    bench = tmp_path / "b.parquet"
    code, _, err = _run(
        ["simulate", "--systems", "4", "--tasks", "2", "--instances", "40", "--out", str(bench)],
        capsys,
    )
    assert code == 0, err
    out = tmp_path / "out"
    code, _, err = _run(["rank", str(bench), "--by", "instance", "--out", str(out)], capsys)
    assert code == 0, err
    summary = pd.read_json(out / "summary.json", typ="series")
    assert summary["data"]["rankings"] == 80


def test_incomplete_partitioned_output_is_refused(tmp_path, capsys):
    bench = tmp_path / "parts"
    argv = [
        "simulate",
        "--systems",
        "4",
        "--tasks",
        "2",
        "--instances",
        "40",
        "--partitions",
        "2",
        "--out",
        str(bench),
    ]
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    (bench / "rankstats-manifest.json").unlink()  # as if the run had stopped before the end
    code, _, err = _run(["rank", str(bench), "--stream", "--out", str(tmp_path / "o")], capsys)
    assert code == 2
    _assert_one_error_line(err, "rank", "incomplete")


# ---------------------------------------------------------------------------- atomic outputs
def _snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


@pytest.mark.parametrize("kind", ["interrupt", "oserror"])
@pytest.mark.parametrize("at", [1, 2, 3])
def test_rank_interrupted_while_writing(kind, at, corpus, tmp_path, capsys, monkeypatch):
    import rankstats._util.atomic as atomic

    out = tmp_path / "out"
    argv = ["rank", str(corpus["good"]), "--out", str(out)]
    code, _, _ = _run(argv, capsys)
    assert code == 0
    before = _snapshot(out)
    # A rerun on other data that fails after `at` files: the first set must stay as it was.
    other = tmp_path / "other.csv"
    other.write_text(_good_csv().replace("a,t1,3.0", "a,t1,0.5"))
    monkeypatch.setattr(atomic, "_FAIL_COUNTS", {})
    monkeypatch.setenv(
        "RANKSTATS_FAIL_AT", f"cli-file:{at}" + (":oserror" if kind == "oserror" else "")
    )
    code, _, err = _run(["rank", str(other), "--out", str(out)], capsys)
    assert code == (130 if kind == "interrupt" else 1), err
    assert "Traceback" not in err
    assert _snapshot(out) == before
    assert not list(tmp_path.glob(".out.*"))
    # And a clean rerun replaces the whole set.
    monkeypatch.delenv("RANKSTATS_FAIL_AT")
    assert _run(["rank", str(other), "--out", str(out), "--no-figures"], capsys)[0] == 0
    assert not (out / "significance_heatmap.png").exists()  # no stale figure of the first run
    assert _order(out)[0] == "b"


@pytest.mark.long
def test_no_traceback_in_a_real_process(corpus, tmp_path):
    env = {**os.environ, "RANKSTATS_FAIL_AT": "cli-file:1", "MPLBACKEND": "Agg"}
    argv = [
        sys.executable,
        "-m",
        "rankstats",
        "rank",
        str(corpus["good"]),
        "--out",
        str(tmp_path / "o"),
    ]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 130
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().startswith("rankstats rank: interrupted")
    assert not (tmp_path / "o").exists()
    bad = subprocess.run(
        [sys.executable, "-m", "rankstats", "rank", str(corpus["binary"])],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    debug = subprocess.run(
        [sys.executable, "-m", "rankstats", "--debug", "rank", str(corpus["empty"])],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert "Traceback" in debug.stderr


def test_numbers_stay_numbers(tmp_path, capsys):
    """Negative scores are data, not formulas: only text cells are neutralised."""
    path = tmp_path / "s.csv"
    rows = [("=cmd", "t", -1.0), ("b", "t", -2.0), ("c", "t", -3.0)]
    pd.DataFrame(rows, columns=["system", "task", "score"]).to_csv(path, index=False)
    out = tmp_path / "out"
    assert _run(["rank", str(path), "--out", str(out), "--no-figures"], capsys)[0] == 0
    ranking = pd.read_csv(out / "ranking.csv")
    assert ranking["system"].tolist() == ["'=cmd", "b", "c"]
    np.testing.assert_allclose(ranking["mean"], [-1.0, -2.0, -3.0])


def test_sigint_during_partitioned_simulation(tmp_path):
    """A real Ctrl-C after the first part is written: exit 130, no directory, no temp files."""
    import signal
    import time

    target = tmp_path / "parts"
    argv = [
        sys.executable,
        "-m",
        "rankstats",
        "simulate",
        "--systems",
        "20",
        "--tasks",
        "20",
        "--instances",
        "100000",  # 400 small parts: ≈ 8 s after the first one, a margin for a loaded machine
        "--partitions",
        "400",
        "--out",
        str(target),
    ]
    # Ctrl-C as a terminal delivers it: the default disposition, whatever this worker inherited.
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        partial = [p for d in tmp_path.glob(".parts.partial-*") for p in d.glob("part-*")]
        if partial:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the generation ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert not target.exists()
    assert not list(tmp_path.glob(".parts*"))


def test_paired_systems_as_columns_reads_like_read_scores(tmp_path, capsys):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        rng.normal(size=(30, 3)) + np.array([0.0, 0.5, 1.0]), columns=["x", "y", "z"]
    )
    text = frame.to_csv(index=False).splitlines()
    text[5] = "NA," + text[5].split(",", 1)[1]
    path = _write(tmp_path / "pairformance.csv", "\n".join(text) + "\n")
    argv = ["paired", str(path), "--systems-as-columns", "--n-resamples", "50", "--no-figures"]
    code, _, err = _run([*argv, "--out", str(tmp_path / "o1")], capsys)
    assert code == 2
    _assert_one_error_line(err, "paired", "line 6")
    code, _, err = _run([*argv, "--na-values", "NA", "--out", str(tmp_path / "o2")], capsys)
    assert code == 0, err
    assert "1 score cell" in err
    strengths = pd.read_csv(tmp_path / "o2" / "strengths.csv").set_index("system")
    assert strengths.loc["x", "mean"] == pytest.approx(frame["x"].drop(index=4).mean())


def test_outputs_have_ordinary_permissions(corpus, tmp_path, capsys):
    """Temporary names are private while writing; the results are not."""
    mask = os.umask(0)
    os.umask(mask)
    out = tmp_path / "out"
    assert _run(["rank", str(corpus["good"]), "--out", str(out), "--no-figures"], capsys)[0] == 0
    assert out.stat().st_mode & 0o777 == 0o777 & ~mask
    assert (out / "ranking.csv").stat().st_mode & 0o777 == 0o666 & ~mask
    sim = tmp_path / "sim.csv"
    assert _run(["simulate", "--systems", "3", "--tasks", "2", "--out", str(sim)], capsys)[0] == 0
    assert sim.stat().st_mode & 0o777 == 0o666 & ~mask


@pytest.mark.long
def test_memory_checked_before_computing(tmp_path, capsys, monkeypatch):
    """The N² statistics are estimated from the shape and refused up front (override: flag)."""
    import rankstats._util.resources as resources

    n = 600  # 600 systems: about 0.1 GB of pairwise statistics, against 10 MB "available"
    wide = pd.DataFrame({"system": [f"s{i}" for i in range(n)], "t1": np.arange(n) * 1.0})
    wide["t2"] = wide["t1"][::-1].to_numpy()
    path = tmp_path / "wide.csv"
    wide.to_csv(path, index=False)
    monkeypatch.setattr(resources, "available_memory", lambda: 10 * 2**20)
    out = tmp_path / "out"
    code, _, err = _run(["rank", str(path), "--out", str(out), "--no-figures"], capsys)
    assert code == 2
    _assert_one_error_line(err, "rank", "600 systems", "--ignore-memory-check")
    assert not out.exists()
    argv = ["rank", str(path), "--out", str(out), "--no-figures", "--ignore-memory-check"]
    assert _run(argv, capsys)[0] == 0
    assert "RANKSTATS_IGNORE_MEMORY" not in os.environ  # the flag does not leak


def test_closed_output_pipe_ends_quietly():
    """``rankstats rank … | head -1``: the reader goes away; no message, exit 141 (SIGPIPE)."""
    env = {**os.environ, "MPLBACKEND": "Agg"}
    argv = [sys.executable, "-m", "rankstats", "--quiet", "rank", "--dataset", "glue"]
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    proc.stdout.readline()
    proc.stdout.close()  # as `head -1` does after its line
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141, err
    # nothing but the data check's warning (GLUE's CoLA holds 10 exact zeros), printed first
    assert [line for line in err.splitlines() if "warning: data check:" not in line] == []
