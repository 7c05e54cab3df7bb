"""``rankstats significance --missing imputed``: the tests on imputed expected ranks from the
command line (the choices of ``--missing`` are ``list(rankstats.significance.blocks.MISSING)``)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.cli import main
from rankstats.significance.friedman_test import friedman
from rankstats.significance.posthoc_tests import posthoc


def _code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as done:
        return int(done.code)


@pytest.fixture(scope="module")
def table5():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rs.load_dataset("xtreme_table5")  # 10 systems × 4 tasks, 45 % missing


def test_imputed_run_writes_the_library_numbers(tmp_path, table5):
    out = tmp_path / "sig"
    argv = ["significance", "--dataset", "xtreme_table5", "--missing", "imputed"]
    assert main([*argv, "--no-rank-sets", "--out", str(out)]) == 0
    summary = json.loads((out / "friedman.json").read_text())
    fr = friedman(table5, missing="imputed")
    ph = posthoc(table5, missing="imputed")
    assert summary["data"]["missing"] == "imputed"
    assert summary["data"]["dropped_systems"] == ["M5"]  # evaluated nowhere: dropped, reported
    assert summary["friedman"]["chi2"] == pytest.approx(fr.statistic, rel=1e-12)
    assert summary["friedman"]["df"] == fr.df == 8
    assert summary["posthoc"]["critical_difference"] is None  # no single CD
    assert summary["posthoc"]["q_alpha"] == pytest.approx(ph.q_alpha)
    assert summary["posthoc"]["groups"] == [list(g) for g in ph.groups()]
    pairs = pd.read_csv(out / "posthoc_pairs.csv")
    np.testing.assert_allclose(pairs["p_adjusted"], ph.table["p_adjusted"], rtol=1e-12)
    assert pairs["significant"].tolist() == ph.table["significant"].tolist()
    assert "no single critical difference" in (out / "cd_table.tex").read_text()


def test_imputed_refuses_conover_with_one_line(tmp_path, capsys):
    argv = ["significance", "--dataset", "xtreme_table5", "--missing", "imputed"]
    code = _code([*argv, "--posthoc", "conover", "--out", str(tmp_path / "x")])
    assert code != 0
    err = capsys.readouterr().err
    assert "--posthoc conover needs complete blocks: with --missing imputed use" in err
    assert err.count("\n") == 1
    assert not (tmp_path / "x").exists()
