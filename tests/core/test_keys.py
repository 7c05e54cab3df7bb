"""Names of systems and tasks (issue 23): spellings that differ only by surrounding whitespace are
refused naming both and a row of each; keys made of several columns; a wide table that repeats a
system names it, its rows, and the key columns that would make the rows unique."""

import pandas as pd
import pytest

import rankstats as rs
from rankstats import InvalidScoresError
from rankstats.datasets import data_path

OPENCLIP = data_path("openclip_results.csv")  # bundled: open_clip's file, byte for byte


# ---------------------------------------------------------------------------- whitespace
def test_long_table_systems_differing_by_a_trailing_space_are_refused():
    df = pd.DataFrame(
        {"system": ["gpt-4", "b", "gpt-4 "], "task": ["t", "t", "t"], "score": [1.0, 2.0, 3.0]}
    )
    with pytest.raises(
        InvalidScoresError,
        match=r"system names that differ only by surrounding whitespace: 'gpt-4' \(row 0\) and "
        r"'gpt-4 ' \(row 2\)",
    ):
        rs.Scores.from_long(df)


def test_task_names_differing_by_a_leading_space_are_refused():
    df = pd.DataFrame(
        {
            "system": ["a", "b", "a", "b"],
            "task": ["acc", "acc", " acc", " acc"],
            "score": [1, 2, 3, 4],
        }
    )
    with pytest.raises(
        InvalidScoresError, match=r"task names .*'acc' \(row 0\) and ' acc' \(row 2\)"
    ):
        rs.Scores.from_long(df)


def test_wide_table_systems_and_columns_differing_by_whitespace(tmp_path):
    df = pd.DataFrame({"system": ["A", "B", " A"], "t1": [1, 2, 3], "t2": [3, 2, 1]})
    with pytest.raises(InvalidScoresError, match=r"'A' \(row 0\) and ' A' \(row 2\)"):
        rs.Scores.from_wide(df)
    path = tmp_path / "w.csv"
    path.write_text("system,t1,t2\nA,1,2\nB,2,3\n A,3,4\n")
    with pytest.raises(
        InvalidScoresError, match=r"w.csv: system names .*'A' \(line 2\) and ' A' \(line 4\)"
    ):
        rs.read_scores(path)
    path.write_text("system,t1,t1 \nA,1,2\nB,2,3\n")
    with pytest.raises(
        InvalidScoresError, match=r"task names .*'t1' \(column 2\) and 't1 ' \(column 3\)"
    ):
        rs.read_scores(path)


def test_long_file_names_the_lines_of_both_spellings(tmp_path):
    path = tmp_path / "l.csv"
    path.write_text("system,task,score\ngpt-4,t,1\nb,t,2\ngpt-4 ,t,3\n")
    with pytest.raises(
        InvalidScoresError, match=r"'gpt-4' \(l.csv line 2\) and 'gpt-4 ' \(l.csv line 4\)"
    ):
        rs.read_scores(path)


def test_a_name_with_spaces_that_collides_with_nothing_is_kept_as_written():
    df = pd.DataFrame({"system": [" a", "b"], "task": ["t", "t"], "score": [1.0, 2.0]})
    assert rs.Scores.from_long(df).systems == (" a", "b")


# ---------------------------------------------------------------------------- several columns
def test_from_wide_with_two_key_columns_joins_them_readably():
    df = pd.DataFrame(
        {
            "name": ["RN50", "RN50", "ViT"],
            "pretrained": ["openai", "yfcc15m", "openai"],
            "t1": [0.5, 0.4, 0.7],
            "t2": [0.2, 0.3, 0.1],
        }
    )
    scores = rs.Scores.from_wide(df, system=["name", "pretrained"])
    assert scores.systems == ("RN50 / openai", "RN50 / yfcc15m", "ViT / openai")
    assert scores.tasks == ("t1", "t2")
    assert scores.to_wide().loc["RN50 / yfcc15m", "t2"] == 0.3


def test_from_long_with_two_key_columns():
    df = pd.DataFrame(
        {
            "name": ["a", "a", "a", "a"],
            "seed": ["1", "2", "1", "2"],
            "task": ["t1", "t1", "t2", "t2"],
            "score": [1.0, 2.0, 3.0, 4.0],
        }
    )
    scores = rs.Scores.from_long(df, system=["name", "seed"])
    assert scores.systems == ("a / 1", "a / 2")
    assert len(scores.data) == 4


def test_joining_that_would_merge_two_keys_is_refused():
    df = pd.DataFrame({"n": ["a / b", "a"], "p": ["c", "b / c"], "t": [1.0, 2.0], "u": [2.0, 1.0]})
    with pytest.raises(
        InvalidScoresError,
        match=r"read the same once .* joined .*'a / b / c' \(row 0: n='a / b', p='c'; row 1: "
        r"n='a', p='b / c'\)",
    ):
        rs.Scores.from_wide(df, system=["n", "p"])


def test_read_scores_with_two_key_columns_long_and_wide(tmp_path):
    wide = tmp_path / "wide.csv"
    wide.write_text("name,pretrained,t1,t2\nRN50,openai,1,2\nRN50,cc12m,3,4\n")
    assert rs.read_scores(wide, system=["name", "pretrained"]).systems == (
        "RN50 / openai",
        "RN50 / cc12m",
    )
    long = tmp_path / "long.csv"
    long.write_text("name,seed,task,score\na,1,t,1\na,2,t,2\n")
    assert rs.read_scores(long, system=["name", "seed"]).systems == ("a / 1", "a / 2")
    with pytest.raises(InvalidScoresError, match=r"system=\['name', 'nope'\]"):
        rs.read_scores(long, system=["name", "nope"])


# ---------------------------------------------------------------------------- repeated systems
def test_repeated_system_in_a_wide_frame_names_rows_and_suggests_keys():
    df = pd.DataFrame(
        {"name": ["a", "a", "b"], "pretrained": ["x", "y", "x"], "t": [1, 2, 3], "u": [1, 2, 3]}
    )
    with pytest.raises(
        InvalidScoresError,
        match=r"system is repeated .*'a' on 2 rows \(row 0, row 1\).*'name', 'pretrained' "
        r"together identify every row: pass system=\['name', 'pretrained'\]",
    ):
        rs.Scores.from_wide(df, system="name")


def test_openclip_repeated_names_suggest_name_and_pretrained():
    """The real file: 121 models identified by name + pretrained (README of the data)."""
    raw = pd.read_csv(OPENCLIP, dtype=str, keep_default_na=False)
    first = raw["name"][raw["name"].duplicated(keep=False)].iloc[0]  # the first one in the file
    lines = [i + 2 for i in raw.index[raw["name"] == first]]  # header = line 1
    with pytest.raises(InvalidScoresError) as err:
        rs.read_scores(OPENCLIP, system="name")
    text = str(err.value)
    assert "pass system=['name', 'pretrained']" in text  # and as the CLI prints it:
    assert err.value.cli().endswith("pass --system name pretrained")
    assert all(f"line {n}" in text for n in lines[:2])  # every repeated system names its lines
    scores = rs.read_scores(OPENCLIP, system=["name", "pretrained"], tasks=["ImageNet 1k", "MNIST"])
    assert len(scores.systems) == len(raw) == 121
    assert "RN50 / openai" in scores.systems


def test_long_table_read_as_wide_keeps_its_advice(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("model,metric,value\na,t1,1\nb,t1,2\na,t2,3\nb,t2,4\n")
    with pytest.raises(
        InvalidScoresError, match=r"'a' on 2 rows \(line 2, line 4\).*task= and score="
    ):
        rs.read_scores(path, system="model")


def test_a_key_part_differing_by_whitespace_is_refused():
    df = pd.DataFrame({"n": ["RN50", "RN50 "], "p": ["openai", "openai"], "t": [1, 2], "u": [2, 1]})
    with pytest.raises(InvalidScoresError, match=r"'RN50' \(row 0\) and 'RN50 ' \(row 1\)"):
        rs.Scores.from_wide(df, system=["n", "p"])


# -------------------------------------------------------------- one integer spelled two ways
# Issue 45, item 8: a battle log whose model ids were written ``2`` and ``2.0`` split one model
# in two and then reported a disconnected graph. Every surface that reads names goes through
# core/keys.py; each must refuse, naming both spellings and where each is first seen.
def _long(tmp_path, a="2", b="2.0"):
    path = tmp_path / "long.csv"
    path.write_text(f"system,task,score\n{a},t1,1\n3,t1,2\n{b},t2,3\n3,t2,1\n")
    return path


def _battles(tmp_path, a="2", b="2.0"):
    path = tmp_path / "log.csv"
    path.write_text(f"model_a,model_b,winner\n{a},3,model_a\n3,{b},model_b\n1,3,tie\n")
    return path


SURFACES = {
    "Scores.from_long": lambda tmp, a, b: rs.Scores.from_long(
        pd.DataFrame(
            {"system": [a, "3", b, "3"], "task": ["t1", "t1", "t2", "t2"], "score": [1, 2, 3, 4]}
        )
    ),
    "read_scores long": lambda tmp, a, b: rs.read_scores(_long(tmp, a, b)),
    "read_scores wide": lambda tmp, a, b: rs.read_scores(
        _write(tmp / "wide.csv", f"system,t1,t2\n{a},1,2\n{b},3,4\n3,5,6\n")
    ),
    "scan_scores": lambda tmp, a, b: rs.scan_scores(
        _write(
            tmp / "inst.csv",
            f"system,task,instance,score\n{a},t1,1,1\n3,t1,1,2\n{b},t1,2,3\n3,t1,2,1\n",
        )
    ).statistics(),
    "read_battles csv": lambda tmp, a, b: rs.read_battles(_battles(tmp, a, b)),
    "read_battles jsonl": lambda tmp, a, b: rs.read_battles(
        _write(
            tmp / "log.jsonl",
            f'{{"model_a": {a}, "model_b": 3, "winner": "model_a"}}\n'
            f'{{"model_a": 3, "model_b": {b}, "winner": "model_b"}}\n',
        )
    ),
    "read_battles DataFrame": lambda tmp, a, b: rs.read_battles(
        pd.DataFrame({"model_a": [a, "3"], "model_b": ["3", b], "winner": ["model_a", "tie"]})
    ),
    "Rankings.from_orderings": lambda tmp, a, b: rs.Rankings.from_orderings([[a, "3"], ["3", b]]),
    "Rankings.from_rank_matrix": lambda tmp, a, b: rs.Rankings.from_rank_matrix(
        pd.DataFrame({a: [1, 2], "3": [2, 1], b: [3, 3]})
    ),
    "read_rankings orderings": lambda tmp, a, b: rs.read_rankings(
        _write(tmp / "orders.csv", f"first,second\n{a},3\n3,{b}\n"), format="orderings"
    ),
}


def _write(path, text):
    path.write_text(text)
    return path


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_one_integer_spelled_two_ways_is_refused_everywhere(tmp_path, surface):
    with pytest.raises(ValueError, match=r"spell one number two ways: '2(\.0)?' .*and '2(\.0)?'"):
        SURFACES[surface](tmp_path, "2", "2.0")


@pytest.mark.parametrize(
    "surface", ["read_scores long", "read_battles csv", "Rankings.from_orderings"]
)
@pytest.mark.parametrize(("a", "b"), [("3.1", "3.10"), ("007", "7"), ("2", "2.5")])
def test_other_numbers_stay_two_names(tmp_path, surface, a, b):
    """Versions (3.1 / 3.10) and ids with leading zeros are distinct names, as written."""
    result = SURFACES[surface](tmp_path, a, b)
    names = result.models if hasattr(result, "models") else result.systems
    assert {a, b} <= set(names)
