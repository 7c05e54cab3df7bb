"""``--bias-reduction`` (Firth's estimate) on ``rankstats fit`` and ``rankstats battles``: the
numbers printed and written are the library's, the refusal of a separated data set names the
system and the option, and misuse is one error line with exit code 2."""

from __future__ import annotations

import pandas as pd
import pytest
from cli_run import one_error_line, run

import rankstats as rs

# s0 never loses, s3 never wins.
PREFERENCES = [("s0", "s1"), ("s0", "s2"), ("s1", "s2"), ("s2", "s1"), ("s1", "s3"),
               ("s2", "s3"), ("s0", "s3"), ("s1", "s2")]  # fmt: skip


@pytest.fixture()
def pairwise_file(tmp_path):
    path = tmp_path / "contests.csv"
    pd.DataFrame(PREFERENCES, columns=["winner", "loser"]).to_csv(path, index=False)
    return path


def _fit_argv(path) -> list[str]:
    return ["fit", str(path), "--format", "pairwise", "--preferred", "winner", "--other", "loser"]


def test_fit_bias_reduction_prints_the_library_fit(tmp_path, capsys, pairwise_file):
    argv = [*_fit_argv(pairwise_file), "--model", "bt", "--method", "mle", "--no-figures"]
    code, _, err = run([*argv, "--out", str(tmp_path / "refused")], capsys)
    assert code == 2
    one_error_line(err, "fit", "s0", "never lose", "--bias-reduction", forbidden=["bias_reduction"])
    code, stdout, err = run([*argv, "--bias-reduction", "--out", str(tmp_path / "o")], capsys)
    assert code == 0, err
    counts = pd.DataFrame(
        {"item1": [w for w, _ in PREFERENCES], "item2": [lo for _, lo in PREFERENCES],
         "wins1": 1, "wins2": 0}
    )  # fmt: skip
    fit = rs.models.BradleyTerry().fit(counts, method="mle", bias_reduction=True)
    assert "--bias-reduction" in stdout and "bias-reduced estimate" in stdout
    for system, value in fit.worth.items():
        assert f"{system}  " in stdout and f"{value:.4f}" in stdout


@pytest.mark.parametrize(
    ("extra", "needles"),
    [
        (["--model", "bt", "--method", "map"], ["--bias-reduction", "--method mle"]),
        (["--model", "mallows"], ["--bias-reduction", "pl or bt"]),
        (["--model", "bt", "--method", "mle", "--random-effect"], ["--random-effect"]),
    ],
)
def test_fit_bias_reduction_misuse_is_one_line(tmp_path, capsys, pairwise_file, extra, needles):
    argv = [*_fit_argv(pairwise_file), *extra, "--bias-reduction", "--out", str(tmp_path / "o")]
    code, _, err = run(argv, capsys)
    assert code == 2, err
    one_error_line(err, "fit", *needles, forbidden=["bias_reduction", "method="])
    assert not (tmp_path / "o").exists()


def test_battles_bias_reduction(tmp_path, capsys):
    log = tmp_path / "battles.csv"
    rows = [("a", "b", "model_a"), ("b", "a", "model_b"), ("a", "c", "model_a"),
            ("c", "b", "model_a"), ("b", "c", "tie"), ("c", "a", "model_b")]  # fmt: skip
    pd.DataFrame(rows, columns=["model_a", "model_b", "winner"]).to_csv(log, index=False)
    code, _, err = run(["battles", str(log), "--no-figures", "--out", str(tmp_path / "x")], capsys)
    assert code == 2
    one_error_line(err, "battles", "a", "never lose", "--bias-reduction")
    out = tmp_path / "o"
    argv = ["battles", str(log), "--bias-reduction", "--no-figures", "--out", str(out)]
    code, stdout, err = run(argv, capsys)
    assert code == 0, err
    assert "bias-reduced (Firth)" in stdout and "bootstrap" not in stdout
    fit = rs.fit_battles(rs.read_battles(log), bias_reduction=True)
    written = pd.read_csv(out / "ratings.csv").set_index("model")["rating"]
    expected = fit.table().set_index("model")["rating"]
    pd.testing.assert_series_equal(written[expected.index], expected, atol=0.05)
    code, _, err = run([*argv[:-2], "--n-resamples", "10", "--out", str(tmp_path / "b")], capsys)
    assert code == 2
    one_error_line(err, "battles", "--bias-reduction", "--n-resamples 10")
