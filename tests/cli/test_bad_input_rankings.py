"""``rankstats fit FILE`` on rankings files (PrefLib, rank matrix, orderings, pairwise) and on
keys of several columns: every bad input is one ``rankstats fit: error: …`` line naming the line
of the file (or the flag), exit code 2, and no output left; valid files give the fit an
independent computation gives."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import one_error_line, run

import rankstats as rs

HEADER = (
    "# DATA TYPE: {kind}\n# NUMBER ALTERNATIVES: 3\n# ALTERNATIVE NAME 1: a\n"
    "# ALTERNATIVE NAME 2: b\n# ALTERNATIVE NAME 3: c\n"
)


_run = run


def _one_error_line(err: str, *needles: str) -> None:
    one_error_line(err, "fit", *needles)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    d = tmp_path / "in"
    d.mkdir()
    texts = {
        "good.toc": HEADER.format(kind="toc") + "2: 1,{2,3}\n1: 3,2,1\n1: 2,1,3\n",
        "tie.soc": HEADER.format(kind="soc") + "1: 1,2,3\n1: 1,{2,3}\n",
        "short.soc": HEADER.format(kind="soc") + "1: 1,2,3\n1: 1,2\n",
        "late_meta.toi": HEADER.format(kind="toi") + "1: 1,2\n# TITLE: x\n",
        "garbled.toi": HEADER.format(kind="toi") + "1: 1,2\nthree: 1\n",
        "unknown.soi": HEADER.format(kind="soi") + "1: 1,7\n",
        "type.soi": HEADER.format(kind="toc") + "1: 1,2,3\n",
        "matrix.csv": "ranker,a,b,c\nr1,1,2,3\nr2,2,1,\nr3,bad,1,2\n",
        "labelled.csv": "who,a,b\nr1,1,2\nr2,2,1\n",
        "orderings.csv": "p1,p2,p3\na,b,c\nb,,a\n",
        "pairs.csv": "preferred,other\na,b\nb,b\n",
        "pairs_good.csv": "assessor,preferred,other\n1,a,b\n1,b,c\n2,c,a\n2,a,b\n3,b,a\n",
    }
    for name, text in texts.items():
        (d / name).write_text(text)
    latin = HEADER.format(kind="soc").replace("NAME 1: a", "NAME 1: Müller") + "1: 1,2,3\n"
    (d / "latin.soc").write_bytes(latin.encode("latin-1"))
    (d / "cut.soc").write_bytes(gzip.compress((HEADER.format(kind="soc") * 50).encode())[:50])
    names = {"latin.soc": d / "latin.soc", "cut.soc": d / "cut.soc"}
    return {**{name: d / name for name in texts}, **names}


BAD = [
    (["latin.soc"], ["(line 3)", "--encoding latin-1"]),
    (["cut.soc"], ["truncated or corrupt gzip"]),
    (["tie.soc"], ["line 7", "a tie {2,3} in a .soc file"]),
    (["short.soc"], ["line 7", "lists 2 of the 3 alternatives"]),
    (["late_meta.toi"], ["line 7", "metadata line after the orders"]),
    (["garbled.toi"], ["line 7", "is not an order"]),
    (["unknown.soi"], ["line 6", "not among the 3"]),
    (["type.soi"], ["line 1", "DATA TYPE toc disagrees"]),
    (["matrix.csv", "--format", "rank-matrix", "--ranker", "ranker"], ["line 4: 'bad'"]),
    (["orderings.csv", "--format", "orderings"], ["line 3", "empty cell before a name"]),
    (["pairs.csv", "--format", "pairwise", "--model", "bt"], ["line 3: 'b'", "to itself"]),
    (["pairs.csv", "--format", "pairwise"], ["--format pairwise", "--model bt"]),
    (["good.toc", "--lower-is-better", "a"], ["--lower-is-better applies to score tables"]),
    (["good.toc", "--system", "name", "pretrained"], ["--system applies to score tables"]),
    (["matrix.csv", "--ranker", "ranker"], ["--ranker applies to --format rank-matrix"]),
    (["good.toc", "--preferred", "x"], ["--preferred applies to --format pairwise"]),
    (
        ["labelled.csv", "--format", "rank-matrix"],
        ["column 'who' are not ranks", "pass --ranker who"],
    ),
    (["matrix.csv", "--format", "orderings", "--ranker", "who"], ["--ranker who"]),
    (["pairs_good.csv", "--format", "pairwise", "--model", "bt", "--other", "x"], ["--other x"]),
]


@pytest.mark.parametrize(("argv", "needles"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_rankings_files(argv, needles, files, tmp_path, capsys):
    out = tmp_path / "out"
    path = str(files[argv[0]])
    code, _, err = _run(["fit", path, *argv[1:], "--method", "mle", "--out", str(out)], capsys)
    assert code == 2, err
    _one_error_line(err, *needles)
    assert not any(word in err for word in ("format=", "ranker=", "encoding=", "na_values="))
    assert not out.exists()


def test_format_without_a_file(capsys):
    code, _, err = _run(["fit", "--rankings", "salad", "--format", "toc"], capsys)
    assert code == 2
    _one_error_line(err, "--format toc applies to FILE input only")


def test_preflib_fit_equals_the_fit_of_the_same_rankings(files, tmp_path, capsys):
    """The CLI's PL MLE on the .toc file equals the library's on Rankings built by hand."""
    out = tmp_path / "out"
    code, text, err = _run(
        ["fit", str(files["good.toc"]), "--method", "mle", "--out", str(out), "--no-figures"],
        capsys,
    )
    assert code == 0, err
    assert "(toc rankings)" in text
    by_hand = rs.Rankings.from_orderings(
        [["a", ("b", "c")], ["a", ("b", "c")], ["c", "b", "a"], ["b", "a", "c"]]
    )
    fit = rs.models.PlackettLuce().fit(by_hand, method="mle")
    table = pd.read_csv(out / "pl_worth.csv").set_index("system")
    np.testing.assert_allclose(
        table.loc[list(fit.worth.index), "log_worth"], fit.worth.to_numpy(), atol=1e-6
    )


def test_pairwise_fit_counts_each_preference_once(files, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["fit", str(files["pairs_good.csv"]), "--format", "pairwise", "--model", "bt"]
    code, _, err = _run([*argv, "--method", "mle", "--out", str(out), "--no-figures"], capsys)
    assert code == 0, err
    counts = pd.DataFrame(
        {"item1": ["a", "b", "a"], "item2": ["b", "c", "c"], "wins1": [2, 1, 0], "wins2": [1, 0, 1]}
    )  # written by hand from the five rows
    fit = rs.models.BradleyTerry().fit(counts, method="mle")
    table = pd.read_csv(out / "bt_worth.csv").set_index("system")
    np.testing.assert_allclose(
        table.loc[list(fit.worth.index), "log_worth"], fit.worth.to_numpy(), atol=1e-6
    )


def test_several_key_columns_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "wide.csv"
    path.write_text("name,pretrained,t1,t2\nRN50,openai,1,2\nRN50,cc12m,3,1\nViT,openai,2,3\n")
    code, text, err = _run(["rank", str(path), "--system", "name"], capsys)
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "'RN50' on 2 rows (line 2, line 3)" in lines[0]
    assert "pass --system name pretrained" in lines[0] and "system=[" not in lines[0]
    code, text, err = _run(["rank", "--system", "name", "pretrained", str(path)], capsys)
    assert code == 0, err
    assert "RN50 / cc12m" in text
    code, _, err = _run(["rank", str(path), "--system", "name", "pretrained", "--stream"], capsys)
    assert code == 2 and "--stream reads one --system column" in err


@pytest.mark.parametrize("command", ["rank", "significance", "kemeny"])  # report reads them
def test_commands_that_read_scores_refuse_a_preflib_file(command, files, tmp_path, capsys):
    out = tmp_path / "out"
    code, _, err = _run([command, str(files["good.toc"]), "--out", str(out)], capsys)
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"rankstats {command}: error: "), err
    assert "is a PrefLib rankings file (.toc)" in lines[0] and "rankstats fit FILE" in lines[0]
    assert not out.exists()


def test_score_reader_advice_is_worded_in_flags(tmp_path, capsys):
    """The reader's advice names Python arguments beside the flag; the CLI shows the flag."""
    path = tmp_path / "na.csv"
    path.write_text("system,t1,t2\na,1,NA\nb,2,3\n")
    for argv, needle in (
        ([str(path)], "pass --na-values NA"),
        ([str(path), "--system", "model"], "no column named as --system model asks"),
    ):
        code, _, err = _run(["rank", *argv], capsys)
        assert code == 2
        assert needle in err and "na_values=" not in err and "system=" not in err, err
