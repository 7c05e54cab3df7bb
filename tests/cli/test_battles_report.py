"""``rankstats battles FILE --report DIR``: the paper-ready report of the fit the command made.

The report's numbers are those of ``ratings.csv`` (the same fit), hostile names stay data, and
bad options are one ``rankstats battles: error: …`` line with exit code 2, before anything is
read or written.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cli_run import one_error_line, run

import rankstats as rs

NAMES = {
    "model-000": "<script>x</script>",
    "model-001": "50% & $y$",
    "model-002": "=HYPERLINK(1)",
    "model-003": "plain",
}


@pytest.fixture(scope="module")
def log_file(tmp_path_factory):
    frame, _ = rs.simulate_battles(n_models=4, n_battles=2000, order_effect=0.1, seed=7)
    frame = frame.astype(str).replace({"model_a": NAMES, "model_b": NAMES})
    rng = np.random.default_rng(7)
    frame["len_a"] = rng.integers(50, 900, len(frame))
    frame["len_b"] = rng.integers(50, 900, len(frame))
    frame["prompt"] = rng.integers(0, 300, len(frame))
    path = tmp_path_factory.mktemp("log") / "battles.csv"
    frame.to_csv(path, index=False)
    return path


def test_report_with_covariates(log_file, tmp_path, capsys):
    out, report = tmp_path / "out", tmp_path / "report"
    argv = [
        "battles",
        str(log_file),
        "--battle-covariate",
        "length=len_a,len_b",
        "--cluster",
        "prompt",
    ]
    argv += ["--n-resamples", "30", "--no-figures", "--out", str(out), "--report", str(report)]
    code, printed, err = run([*argv, "--title", "Arena <b>"], capsys)
    assert code == 0, err
    assert f"report: {report / 'report.html'}" in printed
    ratings = pd.read_csv(out / "ratings.csv", keep_default_na=False)
    board = pd.read_csv(report / "leaderboard.csv", keep_default_na=False)
    assert board["model"].tolist() == ratings["model"].tolist()
    for column in ("rating", "bootstrap_low", "rank_ub", "rating_unadjusted", "rank_unadjusted"):
        np.testing.assert_allclose(board[column], ratings[column], rtol=1e-12)
    page = (report / "report.html").read_text()
    assert "Arena &lt;b&gt;" in page and "&lt;script&gt;x&lt;/script&gt;" in page
    assert "<script>" not in page and "id='covariate-effects'" in page
    assert r"50\% \& \$y\$" in (report / "leaderboard.tex").read_text()
    assert "'=HYPERLINK(1)" in (report / "leaderboard.csv").read_text()
    assert {"covariates.png", "rank_change.png", "adjusted_ranking.tex"} <= {
        p.name for p in report.iterdir()
    }
    assert not (out / "intervals.png").exists()  # --no-figures is for --out only


BAD = [
    (["--title", "x"], "--title"),
    (["--report", "{out}"], "--report"),
    (["--report", "{out}/inside"], "--report"),
    (["--report", "{file}"], "--report"),
    (["--report", "{foreign}"], "--report"),
]


@pytest.mark.parametrize(("extra", "needle"), BAD, ids=lambda x: str(x))
def test_bad_report_options(log_file, tmp_path, capsys, extra, needle):
    out = tmp_path / "out"
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("mine")
    paths = {"out": out, "file": tmp_path / "a_file", "foreign": tmp_path / "foreign"}
    extra = [e.format(**paths) for e in extra]
    argv = ["battles", str(log_file), "--n-resamples", "0", "--no-figures", "--out", str(out)]
    code, _, err = run([*argv, *extra], capsys)
    assert code == 2
    one_error_line(err, "battles", needle, forbidden=("out=", "title="))
    assert not out.exists()
    assert (tmp_path / "foreign" / "notes.txt").read_text() == "mine"


def test_a_failing_report_leaves_both_directories(log_file, tmp_path, capsys, monkeypatch):
    out, report = tmp_path / "out", tmp_path / "report"
    monkeypatch.setenv("RANKSTATS_FAIL_AT", "report-file:2:oserror")
    import rankstats._util.atomic as atomic

    atomic._FAIL_COUNTS.clear()
    argv = ["battles", str(log_file), "--n-resamples", "0", "--no-figures"]
    code, _, err = run([*argv, "--out", str(out), "--report", str(report)], capsys)
    atomic._FAIL_COUNTS.clear()
    assert code != 0 and "No space left" in err
    assert not out.exists() and not report.exists()
