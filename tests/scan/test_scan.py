"""Streaming statistics equal the in-memory ones, whatever the batch boundaries."""

import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs


def _data(seed=0):
    sim = rs.simulate.gumbel(
        7, 4, 30, phi=0.3, seed=seed, missing_rate=0.25, missing_pattern="block", round_to=1
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
        rs.scan_scores(path, batch_rows=64, order="grouped").statistics()


def test_bad_values_and_columns(tmp_path):
    df = _data(3)
    df.loc[10, "score"] = np.inf
    path = tmp_path / "bad.parquet"
    df.to_parquet(path)
    with pytest.raises(rs.InvalidScoresError, match="infinite"):
        rs.scan_scores(path).statistics()
    with pytest.raises(rs.InvalidScoresError, match="not found") as err:
        rs.scan_scores(path, score="value")
    # the remedy as the reader passes it: keyword arguments in Python, flags on the command line
    assert str(err.value).endswith("(name them with system=, task=, instance=, score=)")
    assert err.value.cli().endswith("(name them with --system, --task, --instance, --score)")
    with pytest.raises(FileNotFoundError):
        rs.scan_scores(tmp_path / "nope.parquet")


def test_memory_does_not_grow_with_the_number_of_files(tmp_path):
    """Peak traced memory of the single-process stream: 16 files cost no more than 4."""
    import tracemalloc

    sim = rs.simulate.gumbel(10, 16, 2000, seed=0, missing_rate=0.1)
    df = sim.data.astype({"system": str, "task": str})
    df = df.sort_values(["task", "instance"], kind="stable")
    files = []
    for k, (_, part) in enumerate(df.groupby("task", sort=True)):
        files.append(tmp_path / f"part{k:02d}.parquet")
        part.to_parquet(files[-1], index=False)
    rows = len(df) // 16
    peaks = {}
    for n in (4, 16):
        scanned = rs.scan_scores(files[:n], batch_rows=rows)
        tracemalloc.start()
        try:
            st = scanned.statistics()
            peaks[n] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert st.pairwise.n_rankings == n * 2000
    assert peaks[16] < 1.5 * peaks[4], peaks


def test_client_needs_the_dask_extra(tmp_path, monkeypatch):
    path = tmp_path / "scores.parquet"
    _data().to_parquet(path)
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    with pytest.raises(ImportError, match=r"rankstats\[dask\]"):
        rs.scan_scores(path, client=object())
    with pytest.raises(TypeError, match="Client"):
        rs.scan_scores(path).statistics(client=True)


@pytest.mark.long
def test_local_worker_processes_equal_one_process(tmp_path):
    """n_jobs=2: row groups reduced in two processes, the instances cut by row-group and file
    boundaries merged by the driver; equal to the one-process scan (itself equal to the in-memory
    statistics) to 1e-12, and an instance written in two files is refused by name."""
    sim = rs.simulate.gumbel(
        7, 4, 60, seed=11, missing_rate=0.25, missing_pattern="block", round_to=1
    )
    df = sim.data.astype({"system": str, "task": str})
    df = df.sort_values(["task", "instance"], kind="stable").reset_index(drop=True)
    half = len(df) // 2 + 3  # cuts an instance between the two files
    df.iloc[:half].to_parquet(tmp_path / "a.parquet", row_group_size=29)
    df.iloc[half:].to_parquet(tmp_path / "b.parquet", row_group_size=29)
    one = rs.scan_scores(tmp_path).statistics()
    two = rs.scan_scores(tmp_path, n_jobs=2).statistics()
    assert two.pairwise.n_rankings == one.pairwise.n_rankings == 4 * 60
    for name in ("wins", "wins_observed", "compared"):
        np.testing.assert_allclose(
            getattr(two.pairwise, name), getattr(one.pairwise, name), atol=1e-12
        )
    for name in ("task_borda", "task_seen", "instance_sum", "instance_count"):
        np.testing.assert_allclose(getattr(two, name), getattr(one, name), atol=1e-12)

    bad = tmp_path / "bad"
    bad.mkdir()
    first = df[(df.task == "task01") & (df.instance == 0)]
    pd.concat([first, df.iloc[len(first) : 200]]).to_parquet(bad / "a.parquet", row_group_size=50)
    pd.concat([df.iloc[200:400], first]).to_parquet(bad / "b.parquet", row_group_size=50)
    with pytest.raises(rs.InvalidScoresError, match=r"\('task01', 0\) are not contiguous"):
        rs.scan_scores(bad, n_jobs=2, order="grouped").statistics()
    with pytest.raises(ValueError, match="n_jobs"):
        rs.scan_scores(bad, n_jobs=0)


def test_streamed_bradley_terry_equals_the_fit_to_in_memory_counts(tmp_path):
    """rs.aggregate(scanned, "bt"): the Bradley–Terry MLE on the streamed win counts equals the
    fit to the in-memory Pairwise counts (ties as half wins), and the streamed path refuses the
    methods that need all rankings in memory."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.DataWarning)
        sim = rs.simulate.gumbel(6, 3, 30, seed=0, missing_rate=0.2, round_to=1)
    path = sim.to_parquet(tmp_path / "b.parquet")[0]
    scanned = rs.scan_scores(path, batch_rows=17)
    streamed = rs.aggregate(scanned, "bt").scores
    memory = rs.aggregate(rs.pairwise(rs.Rankings.from_scores(sim, by="instance")), "bt").scores
    pd.testing.assert_series_equal(
        streamed.sort_index(), memory.sort_index(), check_names=False, atol=1e-9, rtol=0
    )
    assert streamed.idxmax() == "sys06"
    with pytest.raises(ValueError, match="streamed aggregation supports"):
        rs.aggregate(scanned, "copeland")
