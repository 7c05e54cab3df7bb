"""Validation of score tables: every bad input raises an error that names the offending rows."""

import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats import DataWarning, InvalidScoresError


def long_table():
    return pd.DataFrame(
        {
            "system": ["a", "b", "c", "a", "b", "c"],
            "task": ["t1", "t1", "t1", "t2", "t2", "t2"],
            "score": [0.9, 0.8, 0.7, 3.0, 1.0, 2.0],
        }
    )


def test_lower_is_better_is_negated_once():
    s = rs.Scores.from_long(long_table(), higher_is_better={"t2": False})
    assert s.data.loc[s.data.task == "t2", "score"].tolist() == [-3.0, -1.0, -2.0]
    assert s.higher_is_better == {"t1": True, "t2": False}
    # Lower is better on t2: b (1.0) is best there.
    rk = rs.Rankings.from_scores(s)
    assert rk.ranks[1].tolist() == [3.0, 1.0, 2.0]
    # to_task_level and to_wide do not negate again.
    assert s.to_task_level().to_wide().loc["b", "t2"] == -1.0


def test_direction_words_and_unknown_direction():
    s = rs.Scores.from_long(long_table(), higher_is_better={"t2": "lower"})
    assert s.higher_is_better["t2"] is False
    with pytest.raises(InvalidScoresError, match=r"unknown direction 'down' for task 't2'"):
        rs.Scores.from_long(long_table(), higher_is_better={"t2": "down"})
    with pytest.raises(InvalidScoresError, match="unknown direction"):
        rs.Scores.from_long(long_table(), higher_is_better="sideways")


def test_unknown_task_in_direction_dict():
    with pytest.raises(InvalidScoresError, match="not in the table: t3"):
        rs.Scores.from_long(long_table(), higher_is_better={"t3": False})


def test_non_numeric_score_names_the_row():
    df = long_table().astype({"score": object})
    df.loc[4, "score"] = "n/a?"
    with pytest.raises(InvalidScoresError, match=r"row 4: system='b', task='t2'.*'n/a\?'"):
        rs.Scores.from_long(df)


def test_blank_text_is_missing_not_malformed():
    df = long_table().astype({"score": object})
    df.loc[4, "score"] = "  "
    s = rs.Scores.from_long(df)
    assert len(s.data) == 5


def test_infinite_score_names_the_row():
    df = long_table()
    df.loc[2, "score"] = np.inf
    with pytest.raises(InvalidScoresError, match=r"(?s)infinite.*row 2: system='c', task='t1'"):
        rs.Scores.from_long(df)
    df = df.astype({"score": object})
    df.loc[2, "score"] = "-inf"
    with pytest.raises(InvalidScoresError, match="infinite"):
        rs.Scores.from_long(df)


def test_boolean_scores_rejected():
    df = long_table().assign(score=[True, False] * 3)
    with pytest.raises(InvalidScoresError, match="boolean"):
        rs.Scores.from_long(df)


def test_duplicate_keys_name_the_rows():
    df = pd.concat([long_table(), long_table().iloc[[3]]], ignore_index=True)
    with pytest.raises(InvalidScoresError, match=r"(?s)duplicated \(system, task\).*row 3.*row 6"):
        rs.Scores.from_long(df)


def test_duplicate_instance_keys():
    df = pd.DataFrame(
        {"system": ["a", "b", "a"], "task": "t", "instance": [1, 1, 1], "score": [1.0, 2.0, 3.0]}
    )
    with pytest.raises(InvalidScoresError, match=r"duplicated \(system, task, instance\)"):
        rs.Scores.from_long(df, instance="instance")


def test_missing_columns_and_keys():
    with pytest.raises(InvalidScoresError, match="column\\(s\\) metric not found"):
        rs.Scores.from_long(long_table(), task="metric")
    df = long_table()
    df.loc[1, "system"] = None
    with pytest.raises(InvalidScoresError, match="missing 'system' key:\n  row 1"):
        rs.Scores.from_long(df)


def test_task_with_one_system_is_skipped_and_reported():
    df = pd.concat(
        [long_table(), pd.DataFrame({"system": ["a", "b"], "task": "t3", "score": [1.0, None]})]
    )
    with pytest.warns(DataWarning, match="skipped: t3"):
        s = rs.Scores.from_long(df)
    assert s.tasks == ("t1", "t2")
    assert s.skipped_tasks == ("t3",)
    assert "skipped tasks: t3" in repr(s)


def test_system_evaluated_nowhere_is_kept_and_reported():
    df = pd.concat(
        [long_table(), pd.DataFrame({"system": ["d", "d"], "task": ["t1", "t2"], "score": np.nan})]
    )
    with pytest.warns(DataWarning, match="evaluated on no task.*: d"):
        s = rs.Scores.from_long(df)
    assert s.systems == ("a", "b", "c", "d")
    assert s.unevaluated_systems == ("d",)
    res = rs.aggregate(s, method="mean")
    assert res.order[-1] == "d" and np.isnan(res.scores["d"])
    # Under imputation d is equally likely anywhere: (N - 1) / 2 per ranking.
    assert rs.aggregate(s, method="borda").scores["d"] == pytest.approx(2 * 1.5)


def test_instance_with_one_system_is_skipped_and_reported():
    df = pd.DataFrame(
        {
            "system": ["a", "b", "a", "b", "a"],
            "task": "t",
            "instance": [1, 1, 2, 2, 3],
            "score": [1.0, 2.0, 3.0, 1.0, 5.0],
        }
    )
    with pytest.warns(DataWarning, match=r"1 \(task, instance\) ranking"):
        s = rs.Scores.from_long(df, instance="instance")
    assert s.skipped_instances.to_dict("records") == [{"task": "t", "instance": 3}]
    assert rs.Rankings.from_scores(s, by="instance").n_rankings == 2


def test_task_whose_instances_all_rank_one_system_is_skipped():
    """Task x has two systems, but never two on one instance: no ranking, so it is skipped (the
    streamed path counts no ranking for it either)."""
    df = pd.DataFrame(
        {
            "system": ["a", "b", "a", "b"],
            "task": ["x", "x", "y", "y"],
            "instance": [1, 2, 1, 1],
            "score": [1.0, 2.0, 3.0, 4.0],
        }
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = rs.Scores.from_long(df, instance="instance")
    messages = [str(w.message) for w in caught]
    assert any(m.startswith("2 (task, instance) ranking(s)") for m in messages)
    assert any("no (task, instance) ranking has two evaluated systems" in m for m in messages)
    assert s.tasks == ("y",) and s.skipped_tasks == ("x",)
    assert len(s.skipped_instances) == 2
    # σ^2l: one second-level ranking (task y), b above a.
    assert rs.aggregate(s, "borda2").scores.to_dict() == {"a": 0.0, "b": 1.0}


def test_from_wide_equals_from_long():
    wide = pd.DataFrame({"system": ["a", "b", "c"], "t1": [0.9, 0.8, 0.7], "t2": [3, 1, 2]})
    a = rs.Scores.from_wide(wide, higher_is_better={"t2": False})
    b = rs.Scores.from_long(long_table(), higher_is_better={"t2": False})
    pd.testing.assert_frame_equal(a.to_wide(), b.to_wide())
    with pytest.raises(
        InvalidScoresError, match=r"system is repeated in this wide table: .a. on 2 rows"
    ):
        rs.Scores.from_wide(pd.concat([wide, wide.iloc[[0]]]))


def test_to_task_level_is_the_mean_over_instances():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "system": np.repeat(["a", "b", "c"], 8),
            "task": np.tile(np.repeat(["x", "y"], 4), 3),
            "instance": np.tile(np.arange(4), 6),
            "score": rng.normal(size=24),
        }
    )
    df.loc[[1, 10], "score"] = np.nan
    s = rs.Scores.from_long(df, instance="instance")
    expected = df.groupby(["system", "task"])["score"].mean().unstack()
    pd.testing.assert_frame_equal(
        s.to_task_level().to_wide(), expected, check_names=False, check_index_type=False
    )


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".parquet", ".csv.gz"])
def test_read_scores_long_and_wide(tmp_path, suffix):
    long = long_table()
    wide = long.pivot(index="system", columns="task", values="score").reset_index()
    for name, df in (("long", long), ("wide", wide)):
        path = tmp_path / f"{name}{suffix}"
        if suffix == ".parquet":
            df.to_parquet(path)
        else:
            df.to_csv(path, sep="\t" if suffix == ".tsv" else ",", index=False)
        s = rs.read_scores(path, higher_is_better={"t2": False})
        assert s.to_wide().loc["b", "t2"] == -1.0, name
        assert s.name == name


def test_read_scores_missing_file():
    with pytest.raises(FileNotFoundError, match="no such score file"):
        rs.read_scores("does/not/exist.csv")


def test_no_warning_on_clean_data():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rs.Scores.from_long(long_table())


def test_instance_keys_as_a_text_categorical_give_the_same_table():
    """The file reader hands its keys over as Categoricals of text: the instance column is then
    taken by code (no Python strings), and equals the column of plain text keys."""
    frame = pd.DataFrame(
        {
            "system": ["a", "b", "a", "b", "a", "b"],
            "task": "t",
            "instance": ["i2", "i2", "007", "007", "x y", "x y"],
            "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        }
    )
    plain = rs.Scores.from_long(frame, instance="instance")
    text = pd.Series(frame["instance"].to_numpy()).dtype
    keys = frame.assign(
        instance=frame["instance"].astype(
            pd.CategoricalDtype(pd.Index(["i2", "x y", "007"], dtype=text))
        )
    )
    categorical = rs.Scores.from_long(keys, instance="instance")
    assert categorical.data["instance"].dtype == plain.data["instance"].dtype == text
    pd.testing.assert_frame_equal(categorical.data, plain.data)
