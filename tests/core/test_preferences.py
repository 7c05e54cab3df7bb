"""Assessors' pairwise preferences: the transitive closure against networkx, cycles named, bad
rows refused."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from rankstats.core.preferences import AssessorPreferences
from rankstats.datasets import data_path
from rankstats.errors import InvalidRankingsError


def _closure_by_networkx(prefs: AssessorPreferences, table: pd.DataFrame, **columns) -> None:
    index = {s: i for i, s in enumerate(prefs.systems)}
    for j, who in enumerate(prefs.assessors):
        rows = table[table[columns.get("assessor", "assessor")] == who]
        graph = nx.DiGraph()
        graph.add_edges_from(
            zip(
                rows[columns.get("preferred", "preferred")],
                rows[columns.get("other", "other")],
                strict=True,
            )
        )
        expected = np.zeros((len(index), len(index)), dtype=bool)
        for a, b in nx.transitive_closure_dag(graph).edges:
            expected[index[str(a)], index[str(b)]] = True  # items are named as text
        np.testing.assert_array_equal(prefs.above[j], expected, err_msg=str(who))


def test_beach_closure_equals_networkx():
    table = pd.read_csv(data_path("rankings/beach_preferences.csv"))
    prefs = AssessorPreferences.from_table(table, preferred="top_item", other="bottom_item")
    assert (len(prefs.assessors), len(prefs.systems), prefs.n_stated) == (60, 15, 1442)
    # BayesMallows' integer item ids are named as text, as Rankings names systems
    assert sorted(prefs.systems, key=int) == [str(k) for k in range(1, 16)]
    _closure_by_networkx(prefs, table, preferred="top_item", other="bottom_item")


def test_random_orders_closure_equals_networkx():
    """Preferences sampled from a hidden ranking per assessor (no cycle), 12 items."""
    rng = np.random.default_rng(0)
    rows = []
    for who in range(30):
        order = rng.permutation(12)
        for _ in range(15):
            i, j = sorted(rng.choice(12, size=2, replace=False))
            rows.append((f"r{who}", f"item{order[i]}", f"item{order[j]}"))
    table = pd.DataFrame(rows, columns=["assessor", "preferred", "other"]).drop_duplicates()
    prefs = AssessorPreferences.from_table(table)
    _closure_by_networkx(prefs, table)
    assert "30 assessors, 12 systems" in repr(prefs)


def test_a_cycle_is_refused_and_named():
    table = pd.DataFrame(
        {
            "assessor": ["ok", "ok", "bad", "bad", "bad", "bad"],
            "preferred": ["a", "b", "a", "b", "c", "d"],
            "other": ["b", "c", "b", "c", "a", "a"],
        }
    )
    with pytest.raises(InvalidRankingsError) as err:
        AssessorPreferences.from_table(table)
    message = str(err.value)
    assert "assessor 'bad' states preferences with a cycle: " in message
    chain = message.split("cycle: ")[1].split(" (")[0].split(" ≻ ")
    assert chain[0] == chain[-1] and set(chain) == {"a", "b", "c"}  # a ≻ b ≻ c ≻ a, any start
    stated = set(zip(table["preferred"][2:], table["other"][2:], strict=True))
    assert all((x, y) in stated for x, y in itertools.pairwise(chain))


def test_bad_rows_are_named():
    with pytest.raises(
        InvalidRankingsError, match="row 1 of the preferences prefers 'b' to itself"
    ):
        AssessorPreferences.from_table(
            pd.DataFrame({"assessor": [1, 1], "preferred": ["a", "b"], "other": ["b", "b"]})
        )
    with pytest.raises(InvalidRankingsError, match="no column 'other'"):
        AssessorPreferences.from_table(pd.DataFrame({"assessor": [1], "preferred": ["a"]}))
    with pytest.raises(InvalidRankingsError, match="row 0 of the preferences has no"):
        AssessorPreferences.from_table(
            pd.DataFrame({"assessor": [None], "preferred": ["a"], "other": ["b"]})
        )


def test_an_empty_table_is_refused():
    empty = pd.DataFrame({"assessor": [], "preferred": [], "other": []})
    with pytest.raises(InvalidRankingsError, match="the preferences have no rows"):
        AssessorPreferences.from_table(empty)
    with pytest.raises(TypeError, match="table must be a pandas DataFrame"):
        AssessorPreferences.from_table([("1", "a", "b")])


@pytest.mark.parametrize(
    ("column", "values", "named"),
    [
        ("preferred", ["a", "a ", "b"], "system names that differ only by surrounding whitespace: "
         "'a' (row 0) and 'a ' (row 1)"),
        ("other", ["b", "c", " b"], "system names that differ only by surrounding whitespace: "
         "'b' (row 0) and ' b' (row 2)"),
        ("assessor", ["x", "x ", "y"], "assessor names that differ only by surrounding "
         "whitespace: 'x' (row 0) and 'x ' (row 1)"),
    ],
)  # fmt: skip
def test_names_differing_by_whitespace_are_refused_with_their_rows(column, values, named):
    table = pd.DataFrame({"assessor": ["x", "x", "y"], "preferred": ["a", "a", "d"],
                          "other": ["b", "c", "e"]})  # fmt: skip
    table[column] = values
    with pytest.raises(InvalidRankingsError) as err:
        AssessorPreferences.from_table(table)
    assert named in str(err.value)
