"""Rankings: canonical mid-ranks, constructors, and errors."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata

import rankstats as rs
from rankstats import InvalidRankingsError
from rankstats.core.rankings import average_ranks, tied_entries


def test_average_ranks_matches_scipy():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, size=(500, 9)).astype(float)  # many ties
    x[rng.random(x.shape) < 0.25] = np.nan
    expected = rankdata(-x, axis=1, nan_policy="omit")
    np.testing.assert_array_equal(average_ranks(x), expected)


def test_from_orderings_with_ties_and_subsets():
    rk = rs.Rankings.from_orderings([["b", ("a", "c"), "d"], ["d", "a"]], systems="abcde")
    np.testing.assert_array_equal(
        rk.ranks, [[2.5, 1, 2.5, 4, np.nan], [2, np.nan, np.nan, 1, np.nan]]
    )
    assert rk.orderings() == [["b", "a", "c", "d"], ["d", "a"]]


def test_from_orderings_errors():
    with pytest.raises(InvalidRankingsError, match="ordering 1 names system\\(s\\) twice: a"):
        rs.Rankings.from_orderings([["a", "b"], ["a", ("a", "b")]])
    with pytest.raises(InvalidRankingsError, match="not in `systems`: z"):
        rs.Rankings.from_orderings([["a", "z"]], systems=["a", "b"])
    with pytest.raises(InvalidRankingsError, match="is a string"):
        rs.Rankings.from_orderings(["ab"])


def test_from_rank_matrix_canonicalises():
    df = pd.DataFrame({"a": [1, 10], "b": [7, 10], "c": [3, None]}, index=["r1", "r2"])
    rk = rs.Rankings.from_rank_matrix(df)
    np.testing.assert_array_equal(rk.ranks, [[1, 3, 2], [1.5, 1.5, np.nan]])
    assert list(rk.rankers) == ["r1", "r2"]


def test_from_rank_matrix_errors():
    with pytest.raises(InvalidRankingsError, match="non-numeric rank 'x' at ranker 1, system 'b'"):
        rs.Rankings.from_rank_matrix(pd.DataFrame({"a": [1, 2], "b": [2, "x"]}))
    with pytest.raises(InvalidRankingsError, match="infinite rank at ranker 0, system 'a'"):
        rs.Rankings.from_rank_matrix(pd.DataFrame({"a": [np.inf], "b": [1.0]}))


def test_from_scores_instance_level_groups():
    s = rs.load_dataset("dialogue_pc", tasks=["BLEU", "H:overall"])
    rk = rs.Rankings.from_scores(s, by="instance")
    assert rk.n_rankings == 120 and rk.n_systems == 4
    assert rk.group_names == ("BLEU", "H:overall")
    np.testing.assert_array_equal(np.bincount(rk.groups), [60, 60])
    # Row of (H:overall, instance 7) equals the ranks of those raw scores.
    raw = s.data[(s.data.task == "H:overall") & (s.data.instance == 7)].set_index("system")
    row = rk.to_frame().loc[("H:overall", 7)]
    expected = rankdata(-raw.loc[list(rk.systems), "score"].to_numpy())
    np.testing.assert_array_equal(row.to_numpy(), expected)
    with pytest.raises(ValueError, match="needs instance-level scores"):
        rs.Rankings.from_scores(rs.load_dataset("xtreme"), by="instance")


def test_average_ranks_in_blocks(monkeypatch):
    import importlib

    mod = importlib.import_module("rankstats.core.rankings")
    rng = np.random.default_rng(1)
    x = rng.integers(0, 4, size=(101, 7)).astype(float)
    x[rng.random(x.shape) < 0.3] = np.nan
    monkeypatch.setattr(mod, "_RANK_BLOCK_CELLS", 20)  # blocks of 2 rows
    np.testing.assert_array_equal(average_ranks(x), rankdata(-x, axis=1, nan_policy="omit"))


def test_tied_entries_finds_odd_ties_and_ignores_missing():
    """Against a double loop over every pair of entries; odd ties have integer mid-ranks."""
    rng = np.random.default_rng(1)
    ranks = average_ranks(rng.integers(0, 4, size=(300, 7)).astype(float))
    ranks[rng.random(ranks.shape) < 0.2] = np.nan
    expected = np.zeros(ranks.shape, dtype=bool)
    for i, (j, k) in itertools.product(range(len(ranks)), itertools.permutations(range(7), 2)):
        expected[i, j] |= bool(ranks[i, j] == ranks[i, k])
    np.testing.assert_array_equal(tied_entries(ranks), expected)
    three = rs.Rankings.from_rank_matrix(pd.DataFrame([[1.0, 3.0, 3.0, 3.0]], columns=list("abcd")))
    assert repr(three).endswith("3 tied entries)")


def test_names_differing_only_by_surrounding_whitespace_are_refused():
    with pytest.raises(InvalidRankingsError, match=r"'a' \(ordering 0\) and 'a ' \(ordering 1\)"):
        rs.Rankings.from_orderings([["a", "b"], ["b", "a "]])
    df = pd.DataFrame({"gpt-4": [1, 2], "gpt-4 ": [2, 1]})
    with pytest.raises(
        InvalidRankingsError, match=r"'gpt-4' \(column 1\) and 'gpt-4 ' \(column 2\)"
    ):
        rs.Rankings.from_rank_matrix(df)


# ------------------------------------------------------- the constructor's fields (issue 45, 8)
def test_lists_for_every_field_are_stored_as_the_class_types_and_fit_alike():
    """``rs.Rankings(ranks, systems=[...], rankers=[...])`` was accepted and failed later inside
    a fit (a list of rankers indexed by a boolean mask)."""
    ranks = [[1.0, 2.0, 3.0], [2.0, 1.0, 3.0], [1.0, 3.0, 2.0], [3.0, 1.0, 2.0]]
    given = rs.Rankings(ranks, systems=["a", "b", "c"], rankers=["r1", "r2", "r3", "r4"])
    assert isinstance(given.ranks, np.ndarray) and given.ranks.dtype == np.float64
    assert given.systems == ("a", "b", "c") and isinstance(given.rankers, pd.Index)
    frame = pd.DataFrame(ranks, columns=list("abc"), index=["r1", "r2", "r3", "r4"])
    reference = rs.Rankings.from_rank_matrix(frame)
    fit, expected = (
        rs.models.PlackettLuce().fit(r, method="mle").worth for r in (given, reference)
    )
    pd.testing.assert_series_equal(fit, expected)
    grouped = rs.Rankings(
        ranks, ["a", "b", "c"], [("t", 1), ("t", 2), ("u", 1), ("u", 2)], [0, 0, 1, 1], ["t", "u"]
    )
    assert grouped.groups.dtype == np.int64 and grouped.group_names == ("t", "u")


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"ranks": [["x", 1, 2]]}, "array of numbers"),
        ({"ranks": [[1, np.inf, 2]]}, "infinite rank"),
        ({"systems": "abc"}, "systems must be a sequence of names, not a string"),
        ({"rankers": "r"}, "rankers must be a sequence"),
        ({"systems": [1, "1", 2]}, "duplicated system names"),
        ({"groups": [0]}, "groups and group_names together"),
        ({"groups": [0.5], "group_names": ["t"]}, "integer codes"),
        ({"groups": [3], "group_names": ["t"]}, r"in \[0, len\(group_names\)\)"),
        ({"ranks": [[1, 2]]}, r"ranks must be \(L, 3\)"),
    ],
)
def test_a_bad_field_is_refused_at_construction(fields, pattern):
    base = {"ranks": [[1.0, 2.0, 3.0]], "systems": ["a", "b", "c"], "rankers": ["r"]}
    with pytest.raises(rs.InvalidRankingsError, match=pattern):
        rs.Rankings(**{**base, **fields})
