"""``rankstats battles`` on bad and unusual input: the classification of ``test_bad_input.py``.

Every case runs ``main`` in-process and asserts exit code 2 (usage or input error), a single
``rankstats battles: error: …`` line naming the problem in the CLI's language (flags, never
Python argument names), and that ``--out`` was not written.  Valid but unusual logs (a star
design, numeric ids) exit 0 and are checked against an independent computation.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import one_error_line, run

PYTHON_WORDS = (
    "order_effect=",
    "posterior=",
    "both_bad=",
    "ties=",
    "anchor_rating",
    "model_a=",
    "cluster=",
    "bootstrap must",
    "confidence must",
)


def _csv(rows, header="model_a,model_b,winner") -> str:
    return header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)


GOOD = [("x", "y", "a"), ("y", "x", "b"), ("y", "z", "tie"), ("z", "x", "a"), ("x", "z", "b")]
GOOD += [("z", "y", "a"), ("x", "y", "b"), ("y", "z", "b")]


STAR = [("h", "a", w) for w in ("a", "b", "b", "tie")]  # every battle against h, shown first
STAR += [("h", "b", w) for w in ("a", "a", "b", "tie", "tie")]
STAR += [("h", "c", w) for w in ("b", "b", "b", "a", "tie", "b")]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    d = tmp_path / "in"
    d.mkdir()

    def write(name: str, text: str) -> Path:
        (d / name).write_text(text)
        return d / name

    star = STAR
    return {
        "good": write("good.csv", _csv(GOOD)),
        "zero_bytes": write("zero.csv", ""),
        "header_only": write("header.csv", "model_a,model_b,winner\n"),
        "empty_jsonl": write("empty.jsonl", "\n\n"),
        "bad_winner": write("bad_winner.csv", _csv([*GOOD[:2], ("x", "y", "maybe")])),
        "self_play": write("self.csv", _csv([*GOOD, ("x", "x", "a")])),
        "no_winner": write("nowin.csv", _csv(GOOD, "model_a,model_b,who")),
        "spaces": write("spaces.csv", _csv([*GOOD, ("x ", "y", "a")])),
        "bad_json": write("bad.jsonl", '{"model_a": "x", "model_b": "y", "winner": "a"}\n{x\n'),
        "both_bad_only": write("bb.csv", _csv([("x", "y", "both-bad"), ("y", "x", "both-bad")])),
        "disconnected": write(
            "disc.csv", _csv([("x", "y", "a"), ("y", "x", "a"), ("z", "w", "a"), ("w", "z", "b")])
        ),
        "star": write("star.csv", _csv(star)),
        "cluster_gap": write(
            "gap.csv",
            _csv([("x", "y", "a", "q1"), ("y", "x", "b", "")], "model_a,model_b,winner,q"),
        ),
    }


_run = run


def _one_error_line(err: str, *needles: str) -> str:
    return one_error_line(err, "battles", *needles, forbidden=PYTHON_WORDS)


CASES = [
    (["{good}", "--rating", "nan"], "--rating"),
    (["{good}", "--rating", "inf"], "--rating"),
    (["{good}", "--rating", "-inf"], "--rating"),
    (["{good}", "--n-resamples", "-1"], "--n-resamples"),
    (["{good}", "--confidence-level", "1.5"], "--confidence-level"),
    (["{good}", "--order-effect", "--no-order-effect"], "--order-effect"),
    (["{good}", "--anchor", "nobody"], "--anchor 'nobody'"),
    (["{good}", "--cluster", "question"], "--cluster"),
    (["{good}", "--winner", "who"], "--winner"),
    (["{tmp}/missing.csv"], "missing.csv"),
    (["{zero_bytes}"], "empty"),
    (["{header_only}"], "no battles"),
    (["{empty_jsonl}"], "no battles"),
    (["{bad_winner}"], "line 4"),
    (["{self_play}"], "plays itself"),
    (["{no_winner}"], "--winner"),
    (["{spaces}"], "'x '"),
    (["{bad_json}"], "line 2"),
    (["{both_bad_only}", "--both-bad", "drop"], "--both-bad drop"),
    (["{disconnected}"], "--posterior"),
    (["{star}", "--order-effect"], "--no-order-effect"),
    (["{cluster_gap}", "--cluster", "q"], "line 3"),
]


@pytest.mark.parametrize(("argv", "needle"), CASES, ids=lambda x: str(x))
def test_bad_battles_input(argv, needle, files, tmp_path, capsys):
    out = tmp_path / "out"
    argv = [a.format(tmp=tmp_path, **{k: str(v) for k, v in files.items()}) for a in argv]
    code, _, err = _run(["battles", *argv, "--no-figures", "--out", str(out)], capsys)
    assert code == 2, err
    _one_error_line(err, needle)
    assert not out.exists()
    assert not list(tmp_path.glob(".*partial*"))


def test_whitespace_error_names_both_spellings_and_lines(files, tmp_path, capsys):
    out = tmp_path / "out"
    code, _, err = _run(["battles", str(files["spaces"]), "--out", str(out)], capsys)
    assert code == 2
    line = _one_error_line(err, "'x'", "'x '", "surrounding whitespace")
    assert "line 2" in line and "line 10" in line


def _star_ratings(rows) -> pd.Series:
    """Independent, closed form: in a star design without order effect and with a tie as half a
    win, every pair is its own binomial, so θ_m − θ_h = log((w_m + t/2) / (w_h + t/2))."""
    frame = pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])
    theta = {"h": 0.0}
    for leaf, group in frame.groupby("model_b"):
        wins = group["winner"].value_counts().reindex(["a", "b", "tie"], fill_value=0)
        theta[leaf] = np.log((wins["b"] + wins["tie"] / 2) / (wins["a"] + wins["tie"] / 2))
    theta = pd.Series(theta)
    return 400 / np.log(10) * (theta - theta.mean()) + 1000.0


def test_star_design_exits_0_with_a_warning_in_the_outputs(files, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["battles", str(files["star"]), "--ties", "half", "--n-resamples", "30", "--no-figures"]
    code, printed, err = _run([*argv, "--out", str(out)], capsys)
    assert code == 0, err
    assert "rankstats battles: warning: the order effect is left out" in err
    assert "--no-order-effect" in err and "order_effect=" not in err + printed
    assert "note: the order effect is left out" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["warnings"] and "--no-order-effect" in summary["warnings"][0]
    ratings = pd.read_csv(out / "ratings.csv").set_index("model")["rating"]
    expected = _star_ratings(STAR)
    np.testing.assert_allclose(ratings.loc[expected.index], expected, atol=1e-6)


def test_numeric_ids_stay_one_model_each(tmp_path, capsys):
    path = tmp_path / "b.jsonl"
    rows = [(1, 2.0, "a"), (2.0, 1, "b"), (3, 1, "tie"), (1, 3, "b"), (2.0, 3, "a"), (3, 2.0, "b")]
    path.write_text(
        "".join(f'{{"model_a": {a}, "model_b": {b}, "winner": "{w}"}}\n' for a, b, w in rows)
    )
    out = tmp_path / "out"
    argv = ["battles", str(path), "--n-resamples", "0", "--no-figures", "--out", str(out)]
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    ratings = pd.read_csv(out / "ratings.csv", dtype={"model": str})
    assert sorted(ratings["model"]) == ["1", "2.0", "3"]
    assert ratings.set_index("model").loc["1", "n_battles"] == 4  # counted from the rows


def test_cluster_option_bootstraps_questions(tmp_path, capsys):
    rows = [(q, a, b, w) for q in range(12) for (a, b, w) in GOOD]
    path = tmp_path / "c.csv"
    path.write_text(_csv(rows, "question,model_a,model_b,winner"))
    out = tmp_path / "out"
    argv = ["battles", str(path), "--cluster", "question", "--n-resamples", "40", "--no-figures"]
    code, printed, err = _run([*argv, "--out", str(out)], capsys)
    assert code == 0, err
    assert "bootstrap over clusters (12 values of --cluster question;" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["info"]["bootstrap_unit"] == "cluster (question)"
    assert summary["info"]["n_clusters"] == 12
