"""``rs.report`` on Rankings without scores (issue 23: rankings files, ``report`` takes them).

The sections that need only rankings are computed from them and equal the same statistics
computed directly (and, on a hand-written PrefLib file, Borda scores and pairwise estimates
enumerated over every complete order); what needs scores is refused up front and said to be
left out in one sentence on the page, in ``ranking.tex`` and in the methods paragraph.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import rankstats as rs

pytestmark = pytest.mark.long

#: 7 voters, 4 alternatives, strict orders of incomplete lists (PrefLib .soi).
SOI = """\
# FILE NAME: small.soi
# TITLE: hand-written
# DATA TYPE: soi
# NUMBER ALTERNATIVES: 4
# NUMBER VOTERS: 7
# NUMBER UNIQUE ORDERS: 4
# ALTERNATIVE NAME 1: alpha
# ALTERNATIVE NAME 2: beta
# ALTERNATIVE NAME 3: gamma
# ALTERNATIVE NAME 4: delta
3: 1,2,3,4
2: 2,1,3
1: 1,3
1: 4,2
"""
SYSTEMS = ("alpha", "beta", "gamma", "delta")
ORDERINGS = [["alpha", "beta", "gamma", "delta"]] * 3 + [["beta", "alpha", "gamma"]] * 2
ORDERINGS += [["alpha", "gamma"], ["delta", "beta"]]


def write_soi(directory) -> str:
    path = directory / "small.soi"
    path.write_text(SOI, encoding="utf-8")
    return str(path)


def enumerated_wins(orderings, systems) -> np.ndarray:
    """Σ over rankings of P(i above j) in a uniformly random complete order compatible with
    each partial one, by listing every complete order of the systems (independent of the
    closed form of rankstats.core.pair_probabilities)."""
    n = len(systems)
    index = {s: i for i, s in enumerate(systems)}
    total = np.zeros((n, n))
    for ordering in orderings:
        kept = [index[s] for s in ordering]
        wins, count = np.zeros((n, n)), 0
        for perm in itertools.permutations(range(n)):
            place = np.empty(n, dtype=int)
            place[list(perm)] = np.arange(n)
            if all(place[a] < place[b] for a, b in itertools.pairwise(kept)):
                count += 1
                wins += place[:, None] < place[None, :]
        total += wins / count
    return total


def assert_pairs_equal(report_pairs: pd.DataFrame, direct: pd.DataFrame) -> None:
    keys = ["system_a", "system_b"]
    a = report_pairs.sort_values(keys, ignore_index=True)
    b = direct.sort_values(keys, ignore_index=True)
    pd.testing.assert_frame_equal(a, b, check_like=True)


def test_report_of_a_preflib_file_equals_the_statistics_computed_directly(tmp_path):
    rk = rs.read_rankings(write_soi(tmp_path))
    rep = rs.report(rk, out=tmp_path / "r", models=["pl", "bt"], model_method="mle")
    table = rep.ranking.set_index("system")
    # Borda (σ^l): the expected number of systems beaten, enumerated over complete orders.
    wins = enumerated_wins(ORDERINGS, SYSTEMS)
    expected = pd.Series(wins.sum(axis=1), index=list(SYSTEMS))
    np.testing.assert_allclose(table.loc[list(SYSTEMS), "score_borda"], expected, rtol=1e-12)
    assert list(rep.ranking.columns[:5]) == [
        "system",
        "rank_borda",
        "score_borda",
        "rank_copeland",
        "score_copeland",
    ]
    for method in ("borda", "copeland"):
        direct = rs.aggregate(rk, method).table.set_index("system")
        np.testing.assert_allclose(table[f"score_{method}"], direct.loc[table.index, "score"])
        np.testing.assert_array_equal(table[f"rank_{method}"], direct.loc[table.index, "rank"])
    # Hoeffding intervals: the direct call, and its estimates equal the enumeration / L.
    direct = rs.hoeffding(rs.pairwise(rk), order=rep.ranking["system"].tolist())
    assert_pairs_equal(rep.pairs, direct)
    est = {(a, b): w / len(ORDERINGS) for (a, b), w in np.ndenumerate(wins) if a != b}
    for row in rep.pairs.itertuples():
        pair = (SYSTEMS.index(row.system_a), SYSTEMS.index(row.system_b))
        assert row.estimate == pytest.approx(est[pair], rel=1e-12)
    # The rank models are fitted on the same rankings.
    for model, name in ((rs.models.PlackettLuce(), "pl"), (rs.models.BradleyTerry(), "bt")):
        order = model.fit(rk, method="mle").order
        ranks = rep.ranking.set_index("system")[f"rank_{name}"]
        assert [s for s in ranks.sort_values(kind="stable").index] == list(order)
    assert rep.rank_posteriors is not None and set(rep.rank_posteriors.posteriors) == {"pl", "bt"}
    # What needs scores is left out, and each output says so in one sentence.
    out = tmp_path / "r"
    assert rep.data_check is None and not (out / "data_check.csv").exists()
    assert not any(c.endswith(("_mean", "_median", "_borda2")) for c in rep.ranking.columns)
    sentence = "Computed from rankings without scores: σ^μ (mean and median scores)"
    assert sentence in rep.html.read_text(encoding="utf-8")
    assert sentence in (out / "methods.txt").read_text(encoding="utf-8")
    tex = (out / "ranking.tex").read_text(encoding="utf-8")
    assert r"Computed from rankings without scores: $\sigma^{\mu}$ (mean and median" in tex
    page = rep.html.read_text(encoding="utf-8")
    assert "7 rankings given as rankings (no scores)" in page and "Data check" not in page
    assert "more rankings are needed" in rep.summary


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"methods": ("mean",)}, "methods='mean'"),
        ({"methods": ("borda", "median")}, "methods='median'"),
        ({"methods": ("borda", "borda2")}, "methods='borda2'"),
        ({"paired": ("x",)}, "paired="),
        ({"by": "task"}, "by="),
    ],
)
def test_requests_that_need_scores_are_refused_before_anything_is_written(
    tmp_path, options, needle
):
    rk = rs.read_rankings(write_soi(tmp_path))
    with pytest.raises(ValueError, match=needle) as err:
        rs.report(rk, out=tmp_path / "r", **options)
    assert "Rankings" in str(err.value)
    assert not (tmp_path / "r").exists()


def test_report_of_a_bundled_rankings_data_set(tmp_path):
    """NASCAR 2002 (36 races, 43 of 87 drivers each): Borda, Copeland, the intervals, the
    Plackett–Luce MAP fit and Friedman's test on imputed ranks equal the direct calls."""
    rk = rs.load_rankings("nascar")
    rep = rs.report(
        rk,
        out=tmp_path / "r",
        models=["pl"],
        model_method="map",
        significance={"missing": "imputed"},
        title="NASCAR 2002",
    )
    table = rep.ranking.set_index("system")
    assert len(table) == 87 and rep.data.by == "ranking"
    for method in ("borda", "copeland"):
        direct = rs.aggregate(rk, method).table.set_index("system")
        np.testing.assert_allclose(table[f"score_{method}"], direct.loc[table.index, "score"])
    assert rep.ranking["system"].tolist() == rs.aggregate(rk, "borda").order
    direct = rs.hoeffding(rs.pairwise(rk), order=rep.ranking["system"].tolist())
    assert_pairs_equal(rep.pairs, direct)
    fit = rs.models.PlackettLuce().fit(rk, method="map", seed=0)
    ranks = table["rank_pl"].sort_values(kind="stable")
    assert list(ranks.index) == list(fit.order)
    fr = rs.friedman(rk, missing="imputed")
    assert rep.significance.friedman.statistic == pytest.approx(fr.statistic, rel=1e-12)
    assert rep.significance.friedman.blocks.by == "ranking"
    assert "36 rankings of 87 systems" in rep.methods_text
    assert "two-level Borda σ^2l (it needs tasks)" in rep.methods_text


def test_rankings_with_tasks_keep_two_level_borda(tmp_path):
    """Rankings built per instance carry their tasks: σ^2l is available and equals the direct
    call on the same rankings; only σ^μ, the paired analyses and the data check are left out."""
    scores = rs.load_dataset("dialogue_tc")
    rk = rs.Rankings.from_scores(scores, by="instance")
    rep = rs.report(rk, out=tmp_path / "r", methods=("borda2", "borda"))
    direct = rs.aggregate(rk, "borda2").table.set_index("system")
    table = rep.ranking.set_index("system")
    np.testing.assert_allclose(table["score_borda2"], direct.loc[table.index, "score"])
    assert rep.data.by == "instance"
    assert "σ^2l" not in rep.methods_text.split("Data:")[0]
