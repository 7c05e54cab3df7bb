"""The `rankstats tree` command: the library's tree, its files written as a whole, and user
errors in one line with exit code 2."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cli_run import one_error_line, run

import rankstats as rs


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Scores of 4 systems on 60 tasks (one score per task); on the tasks of kind "b" system
    d wins; covariates: kind (a/b) and a numeric noise column."""
    rng = np.random.default_rng(9)
    folder = tmp_path_factory.mktemp("tree")
    kind = rng.choice(["a", "b"], size=60)
    rows = []
    for t in range(60):
        worth = np.array([1.0, 0.5, 0.0, 2.0 if kind[t] == "b" else -0.5])
        for system, value in zip("abcd", worth + rng.gumbel(size=4), strict=True):
            rows.append((system, f"task {t}", value))
    scores_file = folder / "scores.csv"
    pd.DataFrame(rows, columns=["system", "task", "score"]).to_csv(scores_file, index=False)
    covariates = pd.DataFrame(
        {"task": [f"task {t}" for t in range(60)], "kind": kind, "noise": rng.normal(size=60)}
    )
    covariates_file = folder / "covariates.csv"
    covariates.to_csv(covariates_file, index=False)
    return folder, scores_file, covariates_file, covariates


def test_tree_writes_the_library_tree(inputs, tmp_path, capsys):
    _, scores_file, covariates_file, covariates = inputs
    out = tmp_path / "out"
    code, printed, err = run(
        ["tree", str(scores_file), "--covariates", str(covariates_file), "--out", str(out)],
        capsys,
    )
    assert code == 0, err
    expected = rs.models.rank_tree(
        rs.read_scores(scores_file), covariates.set_index("task"), min_size=10
    )
    assert "split on kind" in printed
    names = {"leaves.csv", "worths.csv", "tests.csv", "tree.png", "tree.pdf"}
    assert names <= {p.name for p in out.iterdir()}
    leaves = pd.read_csv(out / "leaves.csv")
    np.testing.assert_allclose(leaves["log_worth"], expected.leaves()["log_worth"], rtol=1e-9)
    tests = pd.read_csv(out / "tests.csv")
    np.testing.assert_allclose(tests["p_value"], expected.tests()["p_value"], rtol=1e-9)
    assert tests["p_at_floor"].tolist() == expected.tests()["p_at_floor"].tolist()
    assert pd.read_csv(out / "worths.csv")["leaf"].tolist() == expected.worths().index.tolist()


@pytest.mark.parametrize(
    ("extra", "needles"),
    [
        (["--trim", "0.7"], ["--trim"]),
        (["--key", "nope"], ["--key", "nope"]),
        (["--categorical", "ghost"], ["--categorical", "ghost"]),
        (["--systems", "a", "zz"], ["'zz'"]),
    ],
)
def test_user_errors_are_one_line(inputs, capsys, extra, needles):
    _, scores_file, covariates_file, _ = inputs
    code, _, err = run(
        ["tree", str(scores_file), "--covariates", str(covariates_file), *extra], capsys
    )
    assert code == 2
    one_error_line(err, "tree", *needles)


def test_a_task_without_covariates_is_named(inputs, tmp_path, capsys):
    _, scores_file, _, covariates = inputs
    partial = tmp_path / "partial.csv"
    covariates.iloc[1:].to_csv(partial, index=False)
    code, _, err = run(["tree", str(scores_file), "--covariates", str(partial)], capsys)
    assert code == 2
    one_error_line(err, "tree", "'task 0'", "no row")
    missing = tmp_path / "missing.csv"
    code, _, err = run(["tree", str(scores_file), "--covariates", str(missing)], capsys)
    assert code == 2
    one_error_line(err, "tree", "no such file")


def test_categorical_columns_add_to_the_text_columns(inputs, tmp_path, capsys):
    """--categorical year keeps kind (text) categorical: declared columns are added to the
    detected ones, not a replacement."""
    _, scores_file, _, covariates = inputs
    path = tmp_path / "with_year.csv"
    covariates.assign(year=np.where(covariates["noise"] > 0, 2015, 2016)).to_csv(path, index=False)
    out = tmp_path / "out"
    code, _, err = run(
        [
            "tree",
            str(scores_file),
            "--covariates",
            str(path),
            "--categorical",
            "year",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    tests = pd.read_csv(out / "tests.csv")
    kinds = dict(zip(tests["covariate"], tests["test"], strict=False))
    assert kinds == {"kind": "chi2", "noise": "supLM", "year": "chi2"}


@pytest.mark.parametrize("cell", ["inf", "0.3l"])
def test_a_bad_cell_of_a_numeric_covariate_is_named(inputs, tmp_path, capsys, cell):
    _, scores_file, _, covariates = inputs
    bad = covariates.astype({"noise": object})
    bad.loc[4, "noise"] = cell
    path = tmp_path / "bad.csv"
    bad.to_csv(path, index=False)
    code, _, err = run(["tree", str(scores_file), "--covariates", str(path)], capsys)
    assert code == 2
    one_error_line(err, "tree", "'noise'", "line 6", "'task 4'", repr(cell), "--categorical noise")
