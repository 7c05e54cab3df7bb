"""One pipeline: every path reduces its data to the same sufficient statistics and computes each
estimate with the same function (rankstats.aggregation.aggregators.estimate)."""

import importlib
import threading
import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.core.reduction import BenchmarkStatistics, TableStatistics, reduce_scores
from rankstats.core.sufficient import StatisticsSource

# The modules (``rs.aggregate`` and ``rs.pairwise`` are the functions of the same names).
aggregate_module = importlib.import_module("rankstats.aggregation.aggregators")
pairwise_module = importlib.import_module("rankstats.core.pair_probabilities")

METHODS = ("mean", "borda", "borda2")


def _simulated(seed=0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.DataWarning)
        return rs.simulate.gumbel(
            6, 4, 25, phi=0.4, seed=seed, missing_rate=0.25, missing_pattern="block", round_to=1
        )


def _cube_rows(scores):
    """The (task, instance) × system score matrix of a Scores table, and the task of each row."""
    data = scores.data
    wide = data.pivot_table(
        index=["task", "instance"], columns="system", values="score", observed=True
    )
    wide = wide.reindex(columns=list(scores.systems))
    task = wide.index.get_level_values("task").map(list(scores.tasks).index).to_numpy()
    return wide.to_numpy(np.float64), np.asarray(task, dtype=np.int64)


class _Recorder:
    """Wraps a module function and records the type of statistics it was given."""

    def __init__(self, function):
        self.function, self.calls = function, []

    def __call__(self, stats, method):
        self.calls.append((type(stats).__name__, method))
        return self.function(stats, method)


def test_streamed_and_in_memory_call_the_same_estimator(tmp_path, monkeypatch):
    sim = _simulated()
    path = sim.to_parquet(tmp_path / "bench.parquet")[0]
    scanned = rs.scan_scores(path, batch_rows=41)
    recorder = _Recorder(aggregate_module.estimate)
    monkeypatch.setattr(aggregate_module, "estimate", recorder)
    kernels = []
    second_level = aggregate_module.borda2_ranks
    monkeypatch.setattr(
        aggregate_module,
        "borda2_ranks",
        lambda *args: kernels.append("borda2_ranks") or second_level(*args),
    )
    for method in METHODS:
        memory = rs.aggregate(sim, method).scores
        streamed = rs.aggregate(scanned, method).scores
        again = scanned.aggregate(method).scores
        np.testing.assert_allclose(streamed[memory.index], memory, rtol=0, atol=1e-12)
        pd.testing.assert_series_equal(streamed, again)
    assert recorder.calls == [
        (kind, method)
        for method in METHODS
        for kind in ("TableStatistics", "BenchmarkStatistics", "BenchmarkStatistics")
    ]
    assert kernels == ["borda2_ranks"] * 3  # σ^2l: the same second level for all three


class _Source:
    """The smallest StatisticsSource: a score matrix held by the caller."""

    def __init__(self, scores, task, tasks, systems):
        self.args = (scores, task, len(tasks), systems, tasks)
        self.passes = 0

    def statistics(self):
        self.passes += 1
        return reduce_scores(*self.args)


def test_a_custom_source_goes_through_the_protocol():
    sim = _simulated(1)
    rows, task = _cube_rows(sim)
    source = _Source(rows, task, tuple(sim.tasks), tuple(sim.systems))
    assert isinstance(source, StatisticsSource)
    for method in METHODS:
        got = rs.aggregate(source, method)
        want = rs.aggregate(sim, method)
        np.testing.assert_allclose(got.scores, want.scores, rtol=0, atol=1e-12, err_msg=method)
        assert got.order == want.order
    pw = rs.pairwise(source)
    memory = rs.pairwise(sim)
    np.testing.assert_allclose(pw.wins, memory.wins, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(pw.compared, memory.compared)
    assert source.passes == len(METHODS) + 1
    with pytest.raises(ValueError, match="streamed aggregation supports"):
        rs.aggregate(source, "copeland")
    assert source.passes == len(METHODS) + 1  # refused before any pass over the data


def test_reduce_scores_equals_the_table_in_memory():
    """The additive reduction (stream, cluster, simulation cube) and the lazy in-memory one give
    the same sufficient statistics, and two halves add up to the whole."""
    sim = _simulated(2)
    rows, task = _cube_rows(sim)
    whole = reduce_scores(rows, task, sim.n_tasks, tuple(sim.systems), tuple(sim.tasks))
    table = TableStatistics(sim)
    for name in ("task_borda", "task_seen", "instance_sum", "instance_count"):
        np.testing.assert_allclose(getattr(whole, name), getattr(table, name), atol=1e-12)
    for name in ("wins", "wins_observed", "compared", "n_evaluated"):
        np.testing.assert_allclose(
            getattr(whole.pairwise, name), getattr(table.pairwise, name), atol=1e-12
        )
    half = len(rows) // 2
    parts = [
        reduce_scores(rows[s], task[s], sim.n_tasks, tuple(sim.systems))
        for s in (slice(None, half), slice(half, None))
    ]
    summed = parts[0] + parts[1]
    assert isinstance(summed, BenchmarkStatistics)
    np.testing.assert_allclose(summed.task_borda, whole.task_borda, atol=1e-12)
    np.testing.assert_allclose(summed.pairwise.wins, whole.pairwise.wins, atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_one_call_builds_each_intermediate_once(method, monkeypatch):
    sim = _simulated(3)
    built, kernel_rows = [], []
    from_scores = rs.Rankings.from_scores.__func__
    pair_sums = pairwise_module.pair_sums

    def counting_from_scores(cls, scores, by="task"):
        built.append(by)
        return from_scores(cls, scores, by)

    def counting_pair_sums(ranks, second_moment=False):
        kernel_rows.append(len(ranks))
        return pair_sums(ranks, second_moment)

    monkeypatch.setattr(rs.Rankings, "from_scores", classmethod(counting_from_scores))
    monkeypatch.setattr(pairwise_module, "pair_sums", counting_pair_sums)
    monkeypatch.setattr(aggregate_module, "pair_sums", counting_pair_sums)
    rs.aggregate(sim, method)
    n_instances = sim.data.groupby(["task", "instance"], observed=True).ngroups
    expected = {
        "mean": ([], []),  # σ^μ ranks nothing
        "borda": (["instance"], [n_instances]),
        "borda2": (["instance"], [sim.n_tasks]),  # no pairwise matrices of the instances
    }[method]
    assert (built, kernel_rows) == expected


def test_borda2_details_are_the_two_levels():
    sim = _simulated(4)
    res = rs.aggregate(sim, "borda2")
    first, second = res.details["task_borda"], res.details["task_rankings"]
    assert list(first.index) == list(sim.tasks) and list(first.columns) == list(sim.systems)
    np.testing.assert_allclose(
        rs.pairwise(second).borda().to_numpy(), res.scores.to_numpy(), rtol=0, atol=0
    )


def test_the_kernel_runs_on_one_blas_thread_and_restores_the_setting():
    from threadpoolctl import threadpool_info, threadpool_limits

    from rankstats._util import blas_threads

    # Two threads to start from (tests/conftest.py runs the tests on one): a kernel that left
    # its limit of one behind would go unseen otherwise.
    with threadpool_limits(limits=2, user_api="blas"):
        before = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
        inside, after = _blas_threads_inside_and_after(blas_threads)
    assert set(before) == {2}, before
    assert set(inside) <= {1}
    assert after == before


def _blas_threads_inside_and_after(blas_threads) -> tuple[list[int], list[int]]:
    from threadpoolctl import threadpool_info

    inside = []
    with blas_threads.one_blas_thread():
        inside += [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
        # Concurrent kernels (Dask's threaded scheduler) nest: the outer one restores.
        threads = [
            threading.Thread(target=pairwise_module.pair_sums, args=(np.ones((50, 4)),))
            for _ in range(4)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        inside += [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    after = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    return inside, after


def test_the_scan_package_keeps_its_names():
    from rankstats.scan import STREAMED_METHODS, ScannedScores, StreamStatistics, scan_scores

    assert rs.scan_scores is scan_scores and rs.ScannedScores is ScannedScores
    assert StreamStatistics is BenchmarkStatistics
    assert STREAMED_METHODS is aggregate_module.STREAMED_METHODS  # one constant
    assert issubclass(ScannedScores, StatisticsSource)


def test_rankings_and_pairwise_are_built_once_per_table():
    """σ^l, σ^2l and the intervals of one table share its rankings and pairwise statistics."""
    import rankstats as rs

    scores = rs.simulate.gumbel(5, 3, 20, seed=4, missing_rate=0.2)
    rk = rs.Rankings.from_scores(scores, by="instance")
    assert rs.Rankings.from_scores(scores, by="instance") is rk
    assert rs.Rankings.from_scores(scores, by="task") is not rk
    assert rs.pairwise(rk) is rs.pairwise(rk)
    fresh = rs.Scores.from_long(
        scores.data.astype({"system": str, "task": str}), instance="instance"
    )
    # The shared objects give the numbers a fresh computation gives.
    np.testing.assert_array_equal(
        rs.pairwise(rs.Rankings.from_scores(fresh, by="instance")).wins, rs.pairwise(rk).wins
    )
    assert rs.aggregate(scores, "borda").order == rs.aggregate(fresh, "borda").order
