"""Streaming statistics equal the in-memory ones, whatever the batch boundaries."""

import warnings

import numpy as np
import pytest

import rankstats as rs


def _data(seed=0):
    sim = rs.simulate.gumbel(
        7, 4, 30, phi=0.3, seed=seed, missing=0.25, missing_pattern="block", round_to=1
    )  # blocks + ties
    df = sim.data.astype({"system": str, "task": str})
    df = df.sort_values(["task", "instance"], kind="stable").reset_index(drop=True)
    # A few single-score instances too (set aside by both paths).
    return df[~((df.instance == 3) & (df.system != "sys01"))].reset_index(drop=True)


@pytest.mark.parametrize("batch_rows", [5, 37, 10_000])
def test_streamed_equals_in_memory(tmp_path, batch_rows):
    df = _data()
    path = tmp_path / "scores.parquet"
    df.to_parquet(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.DataWarning)
        memory = rs.Scores.from_long(df, instance="instance")
    scanned = rs.scan_scores(path, batch_rows=batch_rows)
    st = scanned.statistics()
    pw = rs.pairwise(memory)
    assert st.pairwise.n_rankings == pw.n_rankings
    # System order may differ: compare by name.
    order = [scanned.systems.index(s) for s in memory.systems]
    for field in ("wins", "wins_observed", "compared"):
        np.testing.assert_allclose(
            getattr(st.pairwise, field)[np.ix_(order, order)], getattr(pw, field), atol=1e-12
        )
    for method in ("mean", "borda", "borda2"):
        a = rs.aggregate(scanned, method).scores
        b = rs.aggregate(memory, method).scores
        np.testing.assert_allclose(a[list(b.index)], b, atol=1e-12, err_msg=method)


def test_several_files_and_csv(tmp_path):
    df = _data(1)
    tasks = sorted(df.task.unique())
    for i, t in enumerate(tasks):  # one file per task keeps instances contiguous
        df[df.task == t].to_csv(tmp_path / f"part{i}.csv", index=False)
    scanned = rs.scan_scores(tmp_path, batch_rows=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.DataWarning)
        memory = rs.Scores.from_long(df, instance="instance")
    b = rs.aggregate(memory, "borda2").scores
    np.testing.assert_allclose(rs.aggregate(scanned, "borda2").scores[list(b.index)], b, atol=1e-12)
    ci = rs.hoeffding(rs.pairwise(scanned))
    assert len(ci) == 7 * 6


def test_non_contiguous_instances_are_refused(tmp_path):
    df = _data(2).sample(frac=1.0, random_state=0)  # shuffled rows
    path = tmp_path / "shuffled.parquet"
    df.to_parquet(path)
    with pytest.raises(rs.InvalidScoresError, match="not contiguous"):
        rs.scan_scores(path, batch_rows=64).statistics()


def test_bad_values_and_columns(tmp_path):
    df = _data(3)
    df.loc[10, "score"] = np.inf
    path = tmp_path / "bad.parquet"
    df.to_parquet(path)
    with pytest.raises(rs.InvalidScoresError, match="infinite"):
        rs.scan_scores(path).statistics()
    with pytest.raises(rs.InvalidScoresError, match="not found"):
        rs.scan_scores(path, score="value")
    with pytest.raises(FileNotFoundError):
        rs.scan_scores(tmp_path / "nope.parquet")
