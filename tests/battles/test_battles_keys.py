"""Model names of a battle log are text, one spelling per model (issue 23, items 3, 8, 11, 7)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from rankstats.battles.battle_options import EloScale
from rankstats.battles.fitting import fit_battles
from rankstats.battles.log import InvalidBattlesError, read_battles


def test_numeric_ids_in_json_lines_are_one_model_each(tmp_path):
    """``1`` and ``2.0`` in one column: pandas made floats of the column, so model 1 was "1.0"
    in model_a and "1" in model_b — two models.  The ids are the text as written."""
    path = tmp_path / "b.jsonl"
    rows = [(1, 2.0, "a"), (2.0, 1, "b"), (3, 1, "tie"), (1, 3, "b"), (2.0, 3, "a")]
    path.write_text(
        "".join(f'{{"model_a": {a}, "model_b": {b}, "winner": "{w}"}}\n' for a, b, w in rows)
    )
    battles = read_battles(path)
    assert sorted(battles.models) == ["1", "2.0", "3"]
    # Independent count of the battles model 1 played, from the raw rows.
    expected = sum((a == 1) + (b == 1) for a, b, _ in rows)
    assert battles.battles_per_model()[battles.models.index("1")] == expected
    # The same log as CSV (every cell text) gives the same table.
    (tmp_path / "b.csv").write_text(
        "model_a,model_b,winner\n" + "".join(f"{a},{b},{w}\n" for a, b, w in rows)
    )
    pd.testing.assert_frame_equal(read_battles(tmp_path / "b.csv").table(), battles.table())


def test_json_array_and_lines_agree_and_blank_lines_are_skipped(tmp_path):
    records = [{"model_a": 7, "model_b": "x", "winner": "model_a", "extra": {"k": [1]}}] * 2
    records += [{"model_a": "x", "model_b": 7, "winner": "model_a"}]
    import json

    (tmp_path / "b.json").write_text(json.dumps(records))
    (tmp_path / "b.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n\n")
    one, two = read_battles(tmp_path / "b.json"), read_battles(tmp_path / "b.jsonl")
    assert one.models == two.models == ("7", "x")
    pd.testing.assert_frame_equal(one.table(), two.table())
    (tmp_path / "bad.jsonl").write_text(json.dumps(records[0]) + "\n\n{oops\n")
    with pytest.raises(InvalidBattlesError, match="line 3"):
        read_battles(tmp_path / "bad.jsonl")
    (tmp_path / "bad2.jsonl").write_text('{"model_a": ["x"], "model_b": "y", "winner": "a"}\n')
    with pytest.raises(InvalidBattlesError, match=r"line 1.*'model_a'"):
        read_battles(tmp_path / "bad2.jsonl")


def test_distinct_keys_that_read_alike_are_refused():
    """In a DataFrame, ``1`` and ``"1"`` were merged into one model silently."""
    frame = pd.DataFrame({"model_a": [1, "1"], "model_b": ["x", "x"], "winner": ["a", "b"]})
    with pytest.raises(InvalidBattlesError, match=r"same name as text.*1 \(int\).*'1' \(str\)"):
        read_battles(frame)
    # One value, two columns: an integer column and a float column name the same model 1.
    frame = pd.DataFrame({"model_a": [1, 2], "model_b": [2.0, 1.0], "winner": ["a", "b"]})
    assert read_battles(frame).n_models == 2


@pytest.mark.parametrize(("first", "second"), [("gpt-4", "gpt-4 "), ("A", " A"), ("m", "m\t")])
def test_names_differing_by_surrounding_whitespace_are_refused(first, second, tmp_path):
    frame = pd.DataFrame(
        {
            "model_a": [first, "z", "z", second],
            "model_b": ["z", first, second, "z"],
            "winner": ["a", "b", "tie", "a"],
        }
    )
    with pytest.raises(InvalidBattlesError) as err:
        read_battles(frame)
    message = str(err.value)
    assert repr(first) in message and repr(second) in message
    assert "row 0" in message and "row 2" in message
    path = tmp_path / "b.parquet"
    frame.to_parquet(path)
    with pytest.raises(InvalidBattlesError, match=r"row 1\b.*row 3\b"):
        read_battles(path)


def test_a_name_with_spaces_that_collides_with_nothing_is_kept():
    frame = pd.DataFrame({"model_a": [" a", "b"], "model_b": ["b", " a"], "winner": ["a", "a"]})
    assert read_battles(frame).models == (" a", "b")


@pytest.mark.parametrize("content", ["model_a,model_b,winner\n", None])
def test_an_empty_log_is_a_clear_error(content, tmp_path):
    if content is None:
        data = pd.DataFrame(columns=["model_a", "model_b", "winner"])
    else:
        data = tmp_path / "b.csv"
        data.write_text(content)
    with pytest.raises(InvalidBattlesError, match="no battles"):
        read_battles(data)
    (tmp_path / "e.jsonl").write_text("\n")
    with pytest.raises(InvalidBattlesError, match="no battles"):
        read_battles(tmp_path / "e.jsonl")


def test_no_battles_left_after_dropping_both_bad():
    frame = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "x"], "winner": ["both-bad"] * 2})
    with pytest.raises(InvalidBattlesError, match=r"no battles to fit.*both_bad='drop'"):
        fit_battles(read_battles(frame), both_bad="drop", n_resamples=0)


@pytest.mark.parametrize("rating", [math.nan, math.inf, -math.inf, "1000"])
def test_anchor_rating_must_be_a_finite_number(rating):
    frame = pd.DataFrame(
        {"model_a": ["x", "y", "x"], "model_b": ["y", "x", "y"], "winner": ["a", "a", "b"]}
    )
    with pytest.raises(ValueError, match="rating of EloScale must be a finite number"):
        fit_battles(read_battles(frame), n_resamples=0, elo=EloScale(rating=rating))
    elo = EloScale(rating=1200)
    fit = fit_battles(read_battles(frame), n_resamples=0, order_effect=False, elo=elo)
    assert np.isclose(fit.ratings().mean(), 1200.0)


def test_a_missing_column_names_the_columns_and_how_to_name_them():
    frame = pd.DataFrame({"a": ["x"], "model_b": ["y"], "winner": ["model_b"]})
    with pytest.raises(InvalidBattlesError, match="no column 'model_a'") as err:
        read_battles(frame)
    text = str(err.value)
    assert "its columns are 'a', 'model_b', 'winner'" in text
    assert text.endswith("(name them with model_a=, model_b=, winner=, cluster=)")
    assert err.value.cli().endswith("(name them with --model-a, --model-b, --winner, --cluster)")
