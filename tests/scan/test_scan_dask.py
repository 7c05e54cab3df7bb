"""The Dask paths of rs.scan_scores equal the in-memory statistics to 1e-12.

A two-worker LocalCluster (separate processes, so every task and result is pickled) is started
once for the module.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs

pytestmark = pytest.mark.long

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

LOWER = {"task02": False}  # one lower-is-better task: the orientation travels to the workers


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def _data(seed=0, n_instances=40):
    sim = rs.simulate.gumbel(
        7,
        4,
        n_instances,
        phi=0.3,
        seed=seed,
        missing_rate=0.25,
        missing_pattern="block",
        round_to=1,
    )  # missing blocks + ties
    df = sim.data.astype({"system": str, "task": str})
    df = df.sort_values(["task", "instance"], kind="stable").reset_index(drop=True)
    # A single-score instance (set aside by both paths).
    return df[~((df.instance == 3) & (df.system != "sys01"))].reset_index(drop=True)


def _in_memory(df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.DataWarning)
        return rs.Scores.from_long(df, instance="instance", higher_is_better=LOWER)


def _assert_equal(scanned, df, statistics=None):
    memory = _in_memory(df)
    st = statistics or scanned.statistics()
    pw = rs.pairwise(rs.Rankings.from_scores(memory, by="instance"))
    assert st.pairwise.n_rankings == pw.n_rankings
    order = [scanned.systems.index(s) for s in memory.systems]
    for name in ("wins", "wins_observed", "compared"):
        np.testing.assert_allclose(
            getattr(st.pairwise, name)[np.ix_(order, order)], getattr(pw, name), atol=1e-12
        )
    for method in ("mean", "borda", "borda2"):
        a = scanned.aggregate(method, statistics=st).scores
        b = rs.aggregate(memory, method).scores
        np.testing.assert_allclose(a[list(b.index)], b, atol=1e-12, err_msg=method)


def _cut(df, n_parts, seed):
    """Cut points at random rows: instances are split between files."""
    rng = np.random.default_rng(seed)
    return np.r_[0, np.sort(rng.choice(np.arange(1, len(df)), n_parts - 1, replace=False)), len(df)]


@pytest.mark.parametrize(
    ("fmt", "row_group_size"), [("parquet", 3), ("parquet", 47), ("parquet", 10_000), ("csv", 0)]
)
def test_cluster_equals_in_memory(client, tmp_path, fmt, row_group_size):
    df = _data(seed=row_group_size, n_instances=8 if row_group_size < 10 else 40)
    cuts = _cut(df, 4, row_group_size)
    for k in range(4):
        part = df.iloc[cuts[k] : cuts[k + 1]]
        if fmt == "csv":
            part.to_csv(tmp_path / f"part{k}.csv", index=False)
        else:
            part.to_parquet(tmp_path / f"part{k}.parquet", row_group_size=row_group_size)
    scanned = rs.scan_scores(tmp_path, batch_rows=20, higher_is_better=LOWER, client=client)
    _assert_equal(scanned, df)
    # The stored client is used by rs.aggregate / rs.pairwise as well.
    a = rs.aggregate(scanned, "borda2").scores
    b = rs.aggregate(_in_memory(df), "borda2").scores
    np.testing.assert_allclose(a[list(b.index)], b, atol=1e-12)
    ci = rs.hoeffding(rs.pairwise(scanned))
    assert len(ci) == 7 * 6


def test_client_argument_of_statistics(client, tmp_path):
    df = _data(seed=5)
    path = tmp_path / "scores.parquet"
    df.to_parquet(path, row_group_size=31)
    scanned = rs.scan_scores(path, batch_rows=16, higher_is_better=LOWER)
    assert scanned.client is None
    _assert_equal(scanned, df, scanned.statistics(client=client, progress=True))


@pytest.mark.parametrize("use_client", [True, False])
def test_dask_dataframe_not_grouped(client, use_client):
    df = _data(seed=7)
    shuffled = df.sample(frac=1.0, random_state=1).reset_index(drop=True)  # rows in any order
    frame = dd.from_pandas(shuffled, npartitions=5)
    scanned = rs.scan_scores(
        frame, batch_rows=25, higher_is_better=LOWER, client=client if use_client else None
    )
    assert "dask DataFrame" in repr(scanned)
    _assert_equal(scanned, df)


def test_dask_dataframe_progress(client, capsys):
    """Dask's progress bar (on the cluster: the module's Client is the default one here)
    follows rankstats' rules: nothing off a terminal, unless asked for (``--progress``)."""
    from rankstats._util import progress as _progress

    df = _data(seed=8)
    frame = dd.from_pandas(df.sample(frac=1.0, random_state=2), npartitions=3)
    st = rs.scan_scores(frame, higher_is_better=LOWER).statistics(progress=True)
    _assert_equal(rs.scan_scores(frame, higher_is_better=LOWER), df, statistics=st)
    captured = capsys.readouterr()
    assert "Completed" not in captured.out + captured.err  # pytest's capture: not a terminal
    state = _progress.settings()
    _progress.set_log(True)
    try:
        rs.scan_scores(frame, higher_is_better=LOWER).statistics(progress=True)
    finally:
        _progress.set_quiet(state[0])
        _progress.set_log(state[1])
    captured = capsys.readouterr()
    assert "100% Completed" in captured.out + captured.err


def test_instance_split_across_files_is_refused(client, tmp_path):
    df = _data(seed=3)
    groups = [g for _, g in df.groupby(["task", "instance"], sort=False)]
    # (task, instance) number 30 is written in the first file, away from its neighbours.
    task, instance = groups[30].iloc[0][["task", "instance"]]
    pd.concat([*groups[:10], groups[30]]).to_parquet(tmp_path / "a.parquet", row_group_size=9)
    pd.concat(groups[10:]).to_parquet(tmp_path / "b.parquet", row_group_size=9)
    pattern = rf"\('{task}', {instance}\) are not contiguous"
    with pytest.raises(rs.InvalidScoresError, match=pattern):
        rs.scan_scores(tmp_path, client=client).statistics()
    with pytest.raises(rs.InvalidScoresError, match=pattern):  # the same rule in one process
        rs.scan_scores(tmp_path, order="grouped").statistics()


def test_instance_repeated_inside_a_unit_is_refused(client, tmp_path):
    df = _data(seed=4)
    df.sample(frac=1.0, random_state=0).to_parquet(tmp_path / "shuffled.parquet")
    with pytest.raises(rs.InvalidScoresError, match="not contiguous"):
        rs.scan_scores(tmp_path, client=client).statistics()


@pytest.mark.filterwarnings("ignore::rankstats.DataWarning")
def test_cli_scheduler(client, tmp_path, capsys):
    """``rankstats rank --stream --scheduler ADDRESS`` prints the table of the in-memory run."""
    from rankstats.cli import main

    df = _data(seed=9)
    path = tmp_path / "scores.parquet"
    df.to_parquet(path, row_group_size=50)
    argv = ["rank", str(path), "--by", "instance", "--instance", "instance", "--no-figures"]
    assert main([*argv, "--out", str(tmp_path / "memory")]) == 0
    memory = capsys.readouterr().out.splitlines()[2:-1]
    address = client.scheduler.address
    # --debug: a failure shows its traceback (this call once failed on an AssertionError
    # raised outside rankstats, which has no assert statement in its code)
    streamed = ["--debug", *argv, "--stream", "--scheduler", address]
    assert main([*streamed, "--out", str(tmp_path / "c")]) == 0
    assert capsys.readouterr().out.splitlines()[2:-1] == memory
