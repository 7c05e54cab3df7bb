"""Every spelling of a task's direction gives the same order in memory, streamed, on a Dask
DataFrame and through the CLI (the streamed path once read ``"lower"`` as ``True``)."""

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.cli import main
from rankstats.errors import InvalidScoresError


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    rows = []
    for task, sign in (("acc", 1.0), ("ppl", -1.0)):
        for inst in range(30):
            for k, system in enumerate("pqrs"):
                rows.append((system, task, f"i{inst}", sign * (k + 0.8 * rng.normal())))
    return pd.DataFrame(rows, columns=["system", "task", "instance", "score"])


SPELLINGS = [
    {"ppl": False},
    {"ppl": "lower"},
    {"ppl": "LOWER"},
    {"ppl": "min"},
    {"ppl": "lower_is_better"},
    {"ppl": "lower", "acc": "higher"},
    {"ppl": np.False_, "acc": "max"},
]


def _expected(table):
    flipped = table.assign(score=np.where(table.task == "ppl", -table.score, table.score))
    return rs.aggregate(rs.Scores.from_long(flipped, instance="instance"), method="borda").order


@pytest.mark.parametrize("spelling", SPELLINGS, ids=str)
def test_in_memory_and_streamed(table, tmp_path, spelling):
    expected = _expected(table)
    assert expected == ["s", "r", "q", "p"]
    scores = rs.Scores.from_long(table, instance="instance", higher_is_better=spelling)
    assert rs.aggregate(scores, method="borda").order == expected
    path = tmp_path / "s.parquet"
    table.to_parquet(path)
    scanned = rs.scan_scores(path, higher_is_better=spelling)
    assert scanned.higher_is_better == {"acc": True, "ppl": False}
    assert rs.aggregate(scanned, method="borda").order == expected
    for method in ("mean", "borda2"):
        streamed = rs.aggregate(scanned, method=method).order
        assert streamed == rs.aggregate(scores, method=method).order


def test_dask_dataframe(table):
    dd = pytest.importorskip("dask.dataframe")
    frame = dd.from_pandas(table, npartitions=3)
    scanned = rs.scan_scores(frame, higher_is_better={"ppl": "lower"})
    assert rs.aggregate(scanned, method="borda").order == _expected(table)


@pytest.mark.parametrize("bad", [{"ppl": "down"}, {"ppl": 0}, "yes", {"nope": False}])
def test_unknown_spelling_refused_on_both_paths(table, tmp_path, bad):
    with pytest.raises(InvalidScoresError):
        rs.Scores.from_long(table, instance="instance", higher_is_better=bad)
    path = tmp_path / "s.parquet"
    table.to_parquet(path)
    with pytest.raises(InvalidScoresError):
        rs.scan_scores(path, higher_is_better=bad)


@pytest.mark.parametrize("stream", [False, True])
def test_cli_flag(table, tmp_path, stream):
    path = tmp_path / "s.parquet"
    table.to_parquet(path)
    out = tmp_path / "out"
    argv = ["rank", str(path), "--instance", "instance", "--lower-is-better", "ppl"]
    argv += ["--out", str(out), "--no-figures"] + (["--stream"] if stream else [])
    assert main(argv) == 0
    assert pd.read_csv(out / "ranking.csv")["system"].tolist() == _expected(table)
