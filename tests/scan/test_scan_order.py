"""``rs.scan_scores(..., order=)``: rows in any order (hash partition on disk), and one pass
serving every estimate (the statistics are cached on the scanned object)."""

import os
import re
import tempfile
import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.errors import UnreadableFileError
from rankstats.scan import partition, scanned

pytestmark = pytest.mark.long

ARRAYS = ("task_borda", "task_seen", "instance_sum", "instance_count")
PAIRWISE = ("wins", "wins_observed", "compared")


def _frame(seed=0, instances=40):
    sim = rs.simulate.gumbel(
        7, 4, instances, phi=0.3, seed=seed, missing_rate=0.2, missing_pattern="block", round_to=1
    )  # missing blocks + ties
    df = sim.data.astype({"system": str, "task": str})
    # Single-score instances too, and a missing score kept as a row (NaN).
    df = df[~((df.instance == 3) & (df.system != "sys01"))].reset_index(drop=True)
    df.loc[5, "score"] = np.nan
    return df


def _write(df, directory, fmt, pieces):
    directory.mkdir()
    for k, part in enumerate(pieces):
        path = directory / f"part{k}.{fmt}"
        if fmt == "csv":
            part.to_csv(path, index=False)
        else:
            part.to_parquet(path, index=False, row_group_size=23)
    return directory


def _layout(df, directory, fmt, layout):
    """grouped: sorted by (task, instance), cut into 3 files inside instances; ungrouped: one
    file per task, system after system; shuffled: random rows over 3 files."""
    if layout == "grouped":
        rows = df.sort_values(["task", "instance"], kind="stable").reset_index(drop=True)
        cuts = np.array_split(np.arange(len(rows)), 3)
        return _write(df, directory, fmt, [rows.iloc[c] for c in cuts])
    if layout == "ungrouped":
        rows = df.sort_values(["task", "system", "instance"], kind="stable")
        return _write(df, directory, fmt, [g for _, g in rows.groupby("task", sort=True)])
    rows = df.sample(frac=1.0, random_state=1).reset_index(drop=True)
    cuts = np.array_split(np.arange(len(rows)), 3)
    return _write(df, directory, fmt, [rows.iloc[c] for c in cuts])


def _aligned(st, systems, tasks):
    """The arrays of a BenchmarkStatistics in the order of ``systems`` / ``tasks``."""
    s = [list(st.systems).index(x) for x in systems]
    t = [list(st.tasks).index(x) for x in tasks]
    out = {name: getattr(st, name)[np.ix_(t, s)] for name in ARRAYS}
    out.update({name: getattr(st.pairwise, name)[np.ix_(s, s)] for name in PAIRWISE})
    out["n_rankings"] = st.pairwise.n_rankings
    return out


@pytest.fixture(scope="module")
def memory():
    df = _frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.DataWarning)
        scores = rs.Scores.from_long(df, instance="instance")
    return df, scores


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_every_layout_gives_the_in_memory_statistics(tmp_path, memory, fmt):
    """Grouped, ungrouped (system after system per task file) and shuffled rows over several
    files, with order="auto" and order="any": every array of the statistics is equal to that of
    the grouped scan, and the aggregates and Pairwise equal the in-memory ones, to 1e-12."""
    df, scores = memory
    pw = rs.pairwise(scores)
    # (bt is a function of wins_observed, compared above; test_scan.py checks it streamed.)
    expected = {m: rs.aggregate(scores, m).scores for m in ("mean", "borda", "borda2")}
    grouped = rs.scan_scores(_layout(df, tmp_path / "g", fmt, "grouped"), batch_rows=97)
    reference = _aligned(grouped.statistics(), pw.systems, scores.tasks)
    for layout in ("grouped", "ungrouped", "shuffled"):
        directory = tmp_path / layout if layout != "grouped" else tmp_path / "g"
        if layout != "grouped":
            _layout(df, directory, fmt, layout)
        for order in ("auto", "any"):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                scan = rs.scan_scores(directory, batch_rows=97, order=order)
                st = scan.statistics()
            label = f"{layout}, order={order}"
            grouped_warning = [w for w in caught if "not grouped" in str(w.message)]
            assert len(grouped_warning) == (order == "auto" and layout != "grouped"), label
            got = _aligned(st, pw.systems, scores.tasks)
            assert got["n_rankings"] == reference["n_rankings"] == pw.n_rankings, label
            for name in (*ARRAYS, *PAIRWISE):
                np.testing.assert_allclose(got[name], reference[name], atol=1e-12, err_msg=label)
            for name in PAIRWISE:
                np.testing.assert_allclose(
                    got[name], getattr(pw, name), atol=1e-12, err_msg=f"{label}: {name}"
                )
            streamed = rs.pairwise(scan)
            s = [list(streamed.systems).index(x) for x in pw.systems]
            np.testing.assert_allclose(streamed.wins[np.ix_(s, s)], pw.wins, atol=1e-12)
            for method, want in expected.items():
                have = rs.aggregate(scan, method).scores
                np.testing.assert_allclose(
                    have[list(want.index)], want, atol=1e-12, err_msg=f"{label}: {method}"
                )


@pytest.mark.slow  # starts two pools of two processes (~5 s)
def test_any_order_with_local_worker_processes(tmp_path, memory):
    """n_jobs=2 reduces the partitions in two processes: the same statistics; with
    order="auto" the refusal raised in a worker process names the instance in the warning."""
    df, _ = memory
    directory = _layout(df, tmp_path / "u", "parquet", "ungrouped")
    one = rs.scan_scores(directory, batch_rows=50, order="any").statistics()
    # The grouped attempt in two processes fails in one of them; the partitions are then
    # reduced in two processes.
    with pytest.warns(rs.DataWarning, match=r"\('task01', \d+\) are apart"):
        two = rs.scan_scores(directory, batch_rows=50, n_jobs=2).statistics()
    a, b = _aligned(one, one.systems, one.tasks), _aligned(two, one.systems, one.tasks)
    for name in (*ARRAYS, *PAIRWISE):
        np.testing.assert_allclose(b[name], a[name], atol=1e-12, err_msg=name)


def test_grouped_refuses_auto_warns_once(tmp_path, memory):
    df, _ = memory
    directory = _layout(df, tmp_path / "u", "parquet", "ungrouped")
    with pytest.raises(rs.InvalidScoresError, match=r"\('task01', 0\) are not contiguous"):
        rs.scan_scores(directory, order="grouped").statistics()
    scan = rs.scan_scores(directory)  # order="auto"
    with pytest.warns(rs.DataWarning, match="not grouped by \\(task, instance\\)") as caught:
        rs.aggregate(scan, "borda")
    assert len(caught) == 1
    assert "order='any'" in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the cached pass: no second attempt, no warning
        rs.aggregate(scan, "borda2")
        rs.pairwise(scan)


def test_bad_order_is_refused_before_reading(tmp_path):
    with pytest.raises(ValueError, match="order must be one of 'auto', 'grouped', 'any'"):
        rs.scan_scores(tmp_path / "does-not-exist.parquet", order="sorted")
    with pytest.raises(ValueError, match="dask DataFrame"):
        rs.scan_scores(tmp_path / "does-not-exist.parquet", order="any", client=object())


@pytest.mark.parametrize("order", ["auto", "any"])
def test_duplicated_rows_are_refused_by_name(tmp_path, memory, order):
    """A (system, task, instance) written twice, far apart: the partition path names it as the
    grouped path does (where the two rows are next to each other)."""
    df, _ = memory
    row = df[(df.system == "sys03") & (df.task == "task02") & (df.instance == 7)]
    assert len(row) == 1
    message = (
        "duplicated (system, task, instance) key: system 'sys03', task 'task02', instance 7 "
        "appears more than once: "
    )
    grouped = pd.concat([df, row]).sort_values(["task", "instance"], kind="stable")
    grouped.to_parquet(tmp_path / "grouped.parquet", index=False)
    # The two rows, by their position in the file (data rows from 1).
    at = np.flatnonzero(
        (grouped.system == "sys03") & (grouped.task == "task02") & (grouped.instance == 7)
    )
    rows = " and ".join(f"{tmp_path / 'grouped.parquet'} data row {r + 1}" for r in at)
    with pytest.raises(rs.InvalidScoresError, match=re.escape(message + rows)):
        rs.scan_scores(tmp_path / "grouped.parquet", order="grouped").statistics()
    directory = _layout(df, tmp_path / "u", "parquet", "ungrouped")
    row.to_parquet(directory / "zz-again.parquet", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.DataWarning)
        with pytest.raises(rs.InvalidScoresError) as err:
            rs.scan_scores(directory, order=order, batch_rows=40).statistics()
    assert str(err.value).startswith(message), err.value
    assert f"{directory / 'zz-again.parquet'} data row 1;" in str(err.value)


def test_partition_memory_does_not_grow_with_the_rows(tmp_path):
    """Peak traced memory of the partition path: 16 ungrouped files (4 × the rows) cost no more
    than 4, as for the grouped stream (test_scan.py): a partition holds about batch_rows rows."""
    import tracemalloc

    sim = rs.simulate.gumbel(10, 16, 1000, seed=0, missing_rate=0.1)
    df = sim.data.astype({"system": str, "task": str})
    files = []
    for k, (_, part) in enumerate(df.groupby("task", sort=True)):
        files.append(tmp_path / f"part{k:02d}.parquet")
        part.sort_values(["system", "instance"]).to_parquet(files[-1], index=False)
    rows = len(df) // 16
    peaks = {}
    for n in (4, 16):
        scan = rs.scan_scores(files[:n], batch_rows=rows, order="any")
        tracemalloc.start()
        try:
            st = scan.statistics()
            peaks[n] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert st.pairwise.n_rankings == n * 1000
    assert peaks[16] < 1.5 * peaks[4], peaks


def test_one_pass_serves_every_estimate(tmp_path, monkeypatch, memory):
    """mean, σ^l, σ^2l and the Pairwise of one scanned object read the files once; a file
    changed afterwards is noticed."""
    df, _ = memory
    directory = _layout(df, tmp_path / "g", "parquet", "grouped")
    calls = []
    original = scanned.single_process_statistics

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(scanned, "single_process_statistics", counted)
    scan = rs.scan_scores(directory)
    for method in ("mean", "borda", "borda2"):
        rs.aggregate(scan, method)
    rs.hoeffding(rs.pairwise(scan))
    assert scan.statistics(progress=True) is scan.statistics()
    assert len(calls) == 1
    assert len(rs.scan_scores(directory).statistics().systems) == 7  # a new scan: a new pass
    assert len(calls) == 2

    touched = directory / "part1.parquet"
    stat = touched.stat()
    os.utime(touched, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    with pytest.raises(UnreadableFileError, match=r"part1\.parquet changed"):
        rs.aggregate(scan, "borda")
    assert len(calls) == 2


def _spill_root(tmp_path, monkeypatch):
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def test_spill_directory_is_removed(tmp_path, monkeypatch, memory):
    """After a pass, after an error (a duplicated row found in the reduction) and after Ctrl-C
    the spill files are gone; while partitioning they are in a rankstats-spill-* directory."""
    df, _ = memory
    root = _spill_root(tmp_path, monkeypatch)
    directory = _layout(df, tmp_path / "u", "parquet", "ungrouped")
    seen = []
    original = partition.reduce_spilled

    def watched(path, spec):
        seen.append(path.parent.name)
        return original(path, spec)

    monkeypatch.setattr(partition, "reduce_spilled", watched)
    rs.scan_scores(directory, order="any", batch_rows=30).statistics()
    assert seen and all(name.startswith(partition.SPILL_PREFIX) for name in seen)
    assert list(root.iterdir()) == []

    def interrupted(path, spec):
        raise KeyboardInterrupt

    monkeypatch.setattr(partition, "reduce_spilled", interrupted)
    with pytest.raises(KeyboardInterrupt):
        rs.scan_scores(directory, order="any").statistics()
    assert list(root.iterdir()) == []

    monkeypatch.setattr(partition, "reduce_spilled", original)
    df.iloc[:1].to_parquet(directory / "zz-again.parquet", index=False)
    with pytest.raises(rs.InvalidScoresError, match="duplicated"):
        rs.scan_scores(directory, order="any").statistics()
    assert list(root.iterdir()) == []


def test_partition_count_follows_batch_rows():
    assert partition.partition_count(10, 2_000_000) == 1
    assert partition.partition_count(4_000_001, 2_000_000) == 3
    assert partition.partition_count(10**12, 10) == partition.MAX_PARTITIONS


def test_cli_order(tmp_path, capsys, memory):
    """``rankstats rank --stream --order``: grouped refuses ungrouped files (exit 2 with the
    message), any and auto rank them as the in-memory run."""
    from rankstats.cli import main

    df, _ = memory
    directory = _layout(df, tmp_path / "u", "parquet", "ungrouped")
    argv = ["rank", str(directory), "--by", "instance", "--no-figures"]
    df.to_parquet(tmp_path / "whole.parquet", index=False)
    whole = ["rank", str(tmp_path / "whole.parquet"), *argv[2:]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.DataWarning)
        assert main([*whole, "--out", str(tmp_path / "memory")]) == 0
    expected = capsys.readouterr().out.splitlines()[2:-1]
    assert main([*argv, "--stream", "--order", "grouped", "--out", str(tmp_path / "g")]) == 2
    assert "not contiguous" in capsys.readouterr().err
    for order in ("any", "auto"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rs.DataWarning)
            out = str(tmp_path / order)
            assert main([*argv, "--stream", "--order", order, "--out", out]) == 0
        assert capsys.readouterr().out.splitlines()[2:-1] == expected, order
    assert main([*argv, "--order", "any"]) == 2
    assert "apply to --stream" in capsys.readouterr().err


def test_partition_progress_shows_two_phases(tmp_path, monkeypatch, capsys, memory):
    """order="any": the rows partitioned (against the Parquet footers), then the partitions
    reduced; plain lines with --progress off a terminal, nothing by default."""
    from rankstats._util import progress as _progress

    df, _ = memory
    directory = _layout(df, tmp_path / "u", "parquet", "ungrouped")
    monkeypatch.delenv("RANKSTATS_QUIET", raising=False)
    state = _progress.settings()
    try:
        _progress.set_quiet(False)
        _progress.set_log(False)
        rs.scan_scores(directory, order="any", batch_rows=200).statistics(progress=True)
        assert capsys.readouterr().err == ""  # off a terminal
        _progress.set_log(True)
        rs.scan_scores(directory, order="any", batch_rows=200).statistics(progress=True)
    finally:
        _progress.set_quiet(state[0])
        _progress.set_log(state[1])
    err = capsys.readouterr().err
    rows = len(df)
    assert f"partition (1/2, {-(-rows // 200)} parts)" in err
    assert "rows read (100%)" in err and "reduce (2/2)" in err, err
