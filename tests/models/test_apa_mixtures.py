"""The numbers of docs/reproductions/apa-mixtures.md, recomputed: the first-order marginals and
the one-cluster fits (default tier), every mixture of the table and each distance's best K by
BIC (slow tier). The APA data (Rankcluster, GPL) are not bundled: the tests run where
../shared/data/converted holds them."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankstats as rs

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reproductions" / "apa-mixtures.md"
NAME = "apa1980_rank_matrix.csv"
FOUND = [
    p / "shared" / "data" / "converted" / NAME
    for p in ROOT.parents
    if (p / "shared" / "data" / "converted" / NAME).exists()
]
pytestmark = pytest.mark.skipif(
    not FOUND, reason="Rankcluster's APA data (../shared/data/converted, GPL) is absent"
)

sys.path.insert(0, str(ROOT / "examples"))


def page_table(header_start: str) -> pd.DataFrame:
    """The pipe table of the page whose header row starts with ``header_start``."""
    lines = PAGE.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    header = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([c.strip().strip("*") for c in line.strip("|").split("|")])
    return pd.DataFrame(rows, columns=header)


@pytest.fixture(scope="module")
def apa() -> pd.DataFrame:
    return pd.read_csv(FOUND[0], index_col=0)


def test_first_order_marginals(apa):
    from reproduce_apa_mixtures import marginals

    table = page_table("| candidate | rank 1")
    measured = marginals(apa)
    assert list(table["candidate"]) == list(measured.index)
    assert table.drop(columns="candidate").astype(int).to_numpy().tolist() == (
        measured.to_numpy().tolist()
    )
    assert len(apa) == 5738


def grid_rows() -> pd.DataFrame:
    table = page_table("| distance | K |")
    for c in ("K", "starts_at_best"):
        table[c] = table[c].astype(int)
    for c in ("log_likelihood", "bic", "icl"):
        table[c] = table[c].astype(float)
    return table


def test_one_cluster_fits(apa):
    table = grid_rows()
    for row in table[table["K"] == 1].itertuples():
        fit = rs.models.mallows_em(apa, 1, distance=row.distance, starts=1)
        assert fit.log_likelihood == pytest.approx(row.log_likelihood, abs=0.006)
        assert fit.bic == pytest.approx(row.bic, abs=0.006)


@pytest.mark.slow
@pytest.mark.parametrize("distance", rs.models.DISTANCES)
def test_mixtures_and_best_k(apa, distance):
    from reproduce_apa_mixtures import starts

    table = grid_rows()
    rows = table[table["distance"] == distance]
    bic = {}
    for row in rows.itertuples():
        fit = rs.models.mallows_em(apa, row.K, distance=distance, starts=starts(distance), seed=0)
        assert fit.log_likelihood == pytest.approx(row.log_likelihood, abs=0.006)
        assert fit.icl == pytest.approx(row.icl, abs=0.006)
        bic[row.K] = fit.bic
    best = page_table("| distance | best K")
    assert int(best.set_index("distance").loc[distance, "best K"]) == min(bic, key=bic.get)


def test_page_numbers_are_the_table():
    """The prose quotes the table: the lowest BIC over all distances and K."""
    table = grid_rows()
    winner = table.loc[table["bic"].idxmin()]
    text = PAGE.read_text()
    assert re.search(
        rf"lowest BIC of all[^.]*{winner['distance']}[^.]*K = {winner['K']}", text, re.S | re.I
    ), (winner["distance"], winner["K"])
    assert np.isfinite(table["bic"]).all()
