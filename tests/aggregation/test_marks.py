"""Every mark of the outputs is the test's claim: σ order and pairwise test disagree here.

Data: 3 systems, 2,000 instance rankings; 60 % say a > b > c, 40 % say b > c > a. Borda gives
b (1.4) > a (1.2) > c (0.4) but the pairwise test says a beats b (0.6, significant): the
adjacent pair (b, a) of the Borda order is significant *for the lower system*. A mark that
only checks "adjacent pair significant" would claim b significantly above a.
"""

import itertools
import json

import pandas as pd
import pytest

import rankstats as rs
from rankstats.aggregation.hoeffding_intervals import significance_marks
from rankstats.cli import main


@pytest.fixture(scope="module")
def disagreeing() -> pd.DataFrame:
    rows = []
    for inst in range(2000):
        order = ["a", "b", "c"] if inst % 5 < 3 else ["b", "c", "a"]
        for rank, system in enumerate(order):
            rows.append((system, "t", inst, 3.0 - rank))
    return pd.DataFrame(rows, columns=["system", "task", "instance", "score"])


def test_borda_and_majority_disagree(disagreeing):
    scores = rs.Scores.from_long(disagreeing, instance="instance")
    order = rs.aggregate(scores, method="borda").order
    assert order == ["b", "a", "c"]
    ci = rs.hoeffding(rs.pairwise(rs.Rankings.from_scores(scores, by="instance")), order=order)
    row = ci[(ci.system_a == "b") & (ci.system_b == "a")].iloc[0]
    assert row.significant and row.winner == "a"
    marks = significance_marks(ci, order).set_index("system")
    assert not marks.loc["b", "above_next"]
    assert marks.loc["b", "below_next"]
    assert marks.loc["a", "above_next"]  # a beats c significantly


def test_cli_marks_match_pairs_csv(disagreeing, tmp_path, capsys):
    path = tmp_path / "s.csv"
    disagreeing.to_csv(path, index=False)
    out = tmp_path / "out"
    argv = ["rank", str(path), "--instance", "instance", "--out", str(out), "--no-figures"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    ranking = pd.read_csv(out / "ranking.csv")
    pairs = pd.read_csv(out / "pairs.csv").set_index(["system_a", "system_b"])
    order = ranking["system"].tolist()
    for upper, lower, above, below in zip(
        order[:-1],
        order[1:],
        ranking["above_next_significant"],
        ranking["below_next_significant"],
        strict=False,
    ):
        winner = pairs.loc[(upper, lower), "winner"]
        assert above == (winner == upper)
        assert below == (winner == lower)
    assert ranking.set_index("system").loc["b", "below_next_significant"]
    line_b = next(line for line in printed.splitlines() if line.split()[1:2] == ["b"])
    assert "*" not in line_b and "!" in line_b
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ranking"][0]["above_next_significant"] is False


def test_report_marks_match_pairs(disagreeing, tmp_path):
    scores = rs.Scores.from_long(disagreeing, instance="instance")
    rep = rs.report(scores, out=tmp_path / "rep", methods=["borda"], by="instance")
    table = rep.ranking.set_index("system")
    assert not table.loc["b", "above_next"]
    assert table.loc["a", "above_next"]
    pairs = rep.pairs.set_index(["system_a", "system_b"])
    order = rep.ranking["system"].tolist()
    for upper, lower in itertools.pairwise(order):
        assert table.loc[upper, "above_next"] == (pairs.loc[(upper, lower), "winner"] == upper)
    # rank ranges: a can never be below b (a significantly beats b)
    assert table.loc["a", "rank_high"] <= 2
