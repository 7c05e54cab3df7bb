"""``rankstats report FILE`` on rankings files (PrefLib, rank-matrix and orderings CSVs), read by
the loader ``rankstats fit`` uses; options that need scores are refused with exit 2."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cli_run import one_error_line, run
from reporting.test_report_rankings import assert_pairs_equal, write_soi

import rankstats as rs

ORDERINGS_CSV = """\
first,second,third,fourth
alpha,beta,gamma,delta
alpha,beta,gamma,delta
alpha,beta,gamma,delta
beta,alpha,gamma,
beta,alpha,gamma,
alpha,gamma,,
delta,beta,,
"""
RANK_MATRIX_CSV = """\
ranker,alpha,beta,gamma,delta
r1,1,2,3,4
r2,1,2,3,4
r3,1,2,3,4
r4,2,1,3,
r5,2,1,3,
r6,1,,2,
r7,,2,,1
"""


def test_report_of_a_soi_file(tmp_path, capsys):
    path = write_soi(tmp_path)
    out = tmp_path / "r"
    code, stdout, err = run(
        ["report", path, "--models", "pl", "bt", "--model-method", "map", "--out", str(out)],
        capsys,
    )
    assert code == 0, err
    rk = rs.read_rankings(path)
    ranking = pd.read_csv(out / "ranking.csv").set_index("system")
    for method in ("borda", "copeland"):
        direct = rs.aggregate(rk, method).table.set_index("system")
        np.testing.assert_allclose(ranking[f"score_{method}"], direct.loc[ranking.index, "score"])
    pairs = pd.read_csv(out / "pairs.csv", keep_default_na=False, na_values=[""])
    direct = rs.hoeffding(rs.pairwise(rk), order=list(ranking.index))
    cols = ["system_a", "system_b", "estimate", "low", "high", "compared", "significant"]
    assert_pairs_equal(pairs[cols], direct[cols])
    fit = rs.models.PlackettLuce().fit(rk, method="map", seed=0)
    assert list(ranking["rank_pl"].sort_values(kind="stable").index) == list(fit.order)
    assert "Computed from rankings without scores" in stdout
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "Ranking report: small" in page and "Computed from rankings without scores" in page
    assert not (out / "data_check.csv").exists()


@pytest.mark.parametrize(
    ("name", "text", "fmt"),
    [("o.csv", ORDERINGS_CSV, "orderings"), ("m.csv", RANK_MATRIX_CSV, "rank-matrix")],
)
def test_rank_matrix_and_orderings_files_give_the_report_of_the_same_rankings(
    tmp_path, capsys, name, text, fmt
):
    soi = write_soi(tmp_path)
    (tmp_path / name).write_text(text, encoding="utf-8")
    assert run(["report", soi, "--out", str(tmp_path / "a")], capsys)[0] == 0
    code, _, err = run(
        ["report", str(tmp_path / name), "--format", fmt, "--out", str(tmp_path / "b")], capsys
    )
    assert code == 0, err
    for file in ("ranking.csv", "pairs.csv"):
        pd.testing.assert_frame_equal(
            pd.read_csv(tmp_path / "a" / file), pd.read_csv(tmp_path / "b" / file)
        )


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--paired", "x"], ["--paired", "holds rankings"]),
        (["--methods", "mean"], ["--methods mean", "needs scores"]),
        (["--methods", "borda", "median"], ["--methods median"]),
        (["--methods", "borda2"], ["--methods borda2", "needs tasks"]),
        (["--by", "task"], ["--by"]),
        (["--placeholders", "missing"], ["--placeholders"]),
        (["--lower-is-better", "alpha"], ["--lower-is-better"]),
        (["--format", "pairwise"], ["--format pairwise"]),
        (["--dataset", "glue"], ["--dataset"]),
        (["--significance"], ["--missing complete-case", "--missing imputed"]),
    ],
)
def test_options_that_need_scores_are_refused(tmp_path, capsys, args, needles):
    out = tmp_path / "r"
    code, _, err = run(["report", write_soi(tmp_path), *args, "--out", str(out)], capsys)
    assert code == 2, err
    one_error_line(err, "report", *needles, forbidden=["missing='", "methods=", "paired="])
    assert not out.exists()


def test_significance_on_the_rankings_as_blocks(tmp_path, capsys):
    """--significance --missing imputed: Friedman's test and the post-hoc tests with the
    rankings as blocks, equal to rs.posthoc on the same rankings."""
    path = write_soi(tmp_path)
    out = tmp_path / "r"
    args = ["report", path, "--significance", "--missing", "imputed", "--out", str(out)]
    code, _, err = run(args, capsys)
    assert code == 0, err
    direct = rs.posthoc(rs.read_rankings(path), missing="imputed").table
    written = pd.read_csv(out / "posthoc_pairs.csv")
    numbers = [c for c in direct.columns if pd.api.types.is_float_dtype(direct[c])]
    assert numbers
    np.testing.assert_allclose(written[numbers].to_numpy(float), direct[numbers].to_numpy(float))
    assert (out / "cd_table.tex").exists()
