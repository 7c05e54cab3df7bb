"""``rs.read_preferences`` and ``rs.load_preferences``: each assessor's stated preferences from a
file, closed under transitivity, and the refusals that name the file's lines."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.errors import InvalidRankingsError


def _write(tmp_path, text, name="prefs.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_closure_of_each_assessor_is_the_library_s(tmp_path):
    text = "assessor,preferred,other,note\n1,a,b,x\n1,b,c,y\n2,c,a,z\n2,c,b,\n"
    prefs = rs.read_preferences(_write(tmp_path, text))
    table = pd.DataFrame(
        [(1, "a", "b"), (1, "b", "c"), (2, "c", "a"), (2, "c", "b")],
        columns=["assessor", "preferred", "other"],
    )
    expected = rs.models.AssessorPreferences.from_table(table)
    assert prefs.systems == expected.systems and prefs.n_stated == 4
    np.testing.assert_array_equal(prefs.above, expected.above)
    a, c = prefs.systems.index("a"), prefs.systems.index("c")
    assert prefs.above[0, a, c]  # assessor 1: a ≻ b ≻ c implies a ≻ c


def test_bayesmallows_columns_and_a_tab_separated_file(tmp_path):
    text = "assessor\tbottom_item\ttop_item\n1\t2\t1\n1\t3\t2\n"
    prefs = rs.read_preferences(
        _write(tmp_path, text, "b.tsv"), preferred="top_item", other="bottom_item"
    )
    assert prefs.systems == ("1", "2", "3") and prefs.n_implied == 1


def test_the_bundled_beach_preferences():
    import networkx as nx

    from rankstats.datasets import data_path

    prefs = rs.load_preferences("beach")
    # BayesMallows' beach_preferences: 60 assessors, 1,442 stated preferences over 15 beaches.
    assert (len(prefs.assessors), len(prefs.systems), prefs.n_stated) == (60, 15, 1442)
    # The closure, by a second algorithm: networkx's transitive closure of each assessor's graph.
    raw = pd.read_csv(data_path("rankings/beach_preferences.csv"))
    total = 0
    for j, rows in raw.groupby("assessor", sort=False):
        edges = zip(rows["top_item"].astype(str), rows["bottom_item"].astype(str), strict=True)
        graph = nx.DiGraph(edges)
        closure = nx.transitive_closure(graph, reflexive=False)
        total += closure.number_of_edges()
        k = prefs.assessors.index(str(j))
        for a, b in closure.edges:
            assert prefs.above[k, prefs.systems.index(a), prefs.systems.index(b)]
    assert prefs.n_stated + prefs.n_implied == total
    with pytest.raises(KeyError, match="available: beach"):
        rs.load_preferences("lake")


@pytest.mark.parametrize(
    "text, message",
    [
        ("assessor,preferred,other\n1,a,b\n1,b,c\n1,c,a\n", "assessor '1' states preferences "
         "with a cycle: a ≻ b ≻ c ≻ a"),
        ("assessor,preferred,other\n1,a,a\n", "prefer a system to itself (line 2"),
        ("assessor,preferred,other\n1,a,\n", "line 2"),
        ("assessor,preferred\n1,a\n", "no column 'other'"),
        ("assessor,preferred,other\n", "no"),
    ],
)  # fmt: skip
def test_bad_files_are_refused_naming_the_line(tmp_path, text, message):
    with pytest.raises(InvalidRankingsError, match=message.replace("(", r"\(")) as info:
        rs.read_preferences(_write(tmp_path, text))
    assert "prefs.csv" in str(info.value)
