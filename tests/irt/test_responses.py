"""Responses: long and wide tables, missing cells kept missing, errors naming the cell."""

import numpy as np
import pandas as pd
import pytest

from rankstats.errors import InvalidScoresError
from rankstats.irt.responses import expand_patterns, responses_from_long, responses_from_wide


def test_long_and_wide_agree_and_absent_pairs_are_missing():
    long = pd.DataFrame(
        {"system": ["a", "a", "b", "c"], "item": ["q1", "q2", "q2", "q1"], "response": [1, 0, 1, 0]}
    )
    r = responses_from_long(long)
    assert r.systems == ("a", "b", "c") and r.items == ("q1", "q2")
    expected = np.array([[1, 0], [np.nan, 1], [0, np.nan]])
    np.testing.assert_array_equal(r.values, expected)
    np.testing.assert_array_equal(r.mask, ~np.isnan(expected))
    wide = responses_from_wide(pd.DataFrame(expected, index=list("abc"), columns=["q1", "q2"]))
    np.testing.assert_array_equal(wide.values, r.values)
    # A missing cell is not a wrong answer: it is in neither indicator.
    assert r.indicators(0)[1, 0] == 0 and r.indicators(1)[1, 0] == 0


def test_binary_refuses_other_values_naming_system_and_item():
    table = pd.DataFrame({"q1": [1, 0], "q2": [2, 1]}, index=["alpha", "beta"])
    with pytest.raises(InvalidScoresError, match=r"response 2 of system 'alpha' on item 'q2'"):
        responses_from_wide(table)
    with pytest.raises(InvalidScoresError, match="'beta' on item 'q1'"):
        responses_from_wide(pd.DataFrame({"q1": [1, 0.5]}, index=["alpha", "beta"]))


def test_graded_categories_must_be_consecutive():
    table = pd.DataFrame({"q1": [0, 2, 2], "q2": [0, 1, 2]}, index=list("abc"))
    with pytest.raises(InvalidScoresError, match=r"item 'q1' .* never 1"):
        responses_from_wide(table, kind="graded")
    ok = responses_from_wide(table.assign(q1=[0, 1, 2]), kind="graded")
    np.testing.assert_array_equal(ok.n_categories, [3, 3])


def test_long_table_errors_name_the_row():
    df = pd.DataFrame({"system": ["a", "a"], "item": ["q", "q"], "response": [1, 0]})
    with pytest.raises(InvalidScoresError, match="row 2: system 'a' on item 'q'"):
        responses_from_long(df)
    df = pd.DataFrame({"system": ["a", "b"], "item": ["q", "q"], "response": [1, None]})
    with pytest.raises(InvalidScoresError, match=r"row 2: .*'b' on item 'q' is empty"):
        responses_from_long(df)
    with pytest.raises(InvalidScoresError, match="'answer'"):
        responses_from_long(df, response="answer")


def test_duplicate_names_and_pattern_expansion():
    with pytest.raises(InvalidScoresError, match="system named twice: a"):
        responses_from_wide(np.zeros((2, 1)), systems=["a", "a"])
    patterns = pd.DataFrame({"x": [0, 1], "y": [1, 1], "count": [2, 3]})
    wide = expand_patterns(patterns, "count")
    assert len(wide) == 5 and wide["x"].sum() == 3
