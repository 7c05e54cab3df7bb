"""Memory estimates against measured peaks; the up-front check and its override."""

import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats._util import resources as _resources
from rankstats._util.resources import (
    available_memory,
    hoeffding_bytes,
    pairwise_bytes,
    rankings_bytes,
    require_memory,
)
from rankstats.core.rankings import average_ranks
from rankstats.errors import ResourceError


def _rankings(n, n_rankings, seed=0, missing=0.2):
    rng = np.random.default_rng(seed)
    x = rng.random((n_rankings, n))
    x[rng.random(x.shape) < missing] = np.nan
    x[:, :2] = np.nan_to_num(x[:, :2])  # every ranking ranks at least two systems
    return rs.Rankings(
        average_ranks(x), tuple(f"s{i}" for i in range(n)), pd.RangeIndex(n_rankings)
    )


def _instance_scores(n, n_tasks, n_instances, seed=0):
    rng = np.random.default_rng(seed)
    rows = n_tasks * n_instances
    system = np.tile(np.arange(n), rows)
    ranking = np.repeat(np.arange(rows), n)
    frame = pd.DataFrame(
        {
            "system": pd.Categorical.from_codes(system, [f"s{i}" for i in range(n)]),
            "task": pd.Categorical.from_codes(
                ranking // n_instances, [f"t{i}" for i in range(n_tasks)]
            ),
            "instance": ranking % n_instances,
            "score": rng.random(rows * n),
        }
    )
    return rs.Scores.from_long(frame, instance="instance")


def _peak(function, *args, **kwargs):
    """Bytes allocated at the peak of the call, beyond what was allocated before it."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        function(*args, **kwargs)
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def _assert_close(estimate, measured):
    ratio = estimate / measured
    assert 0.7 <= ratio <= 2.0, (
        f"estimate {estimate / 2**20:.1f} MiB, measured {measured / 2**20:.1f}"
    )


@pytest.mark.parametrize(
    ("n", "n_rankings"),
    [
        (200, 20),  # small blocks: the boolean comparison cube
        (500, 20),
        (1000, 20),  # N² dominates
        (10, 500_000),  # L dominates: two blocks of 400,000 rankings, the loop over systems
    ],
)
def test_pairwise_estimate_against_measured_peak(n, n_rankings):
    rk = _rankings(n, n_rankings)
    _assert_close(pairwise_bytes(n, n_rankings), _peak(rs.pairwise, rk))


@pytest.mark.parametrize("n", [200, 600])
def test_hoeffding_estimate_against_measured_peak(n):
    pw = rs.pairwise(_rankings(n, 10))
    _assert_close(hoeffding_bytes(n), _peak(rs.hoeffding, pw))
    # Both steps, as a command runs them: the Pairwise stays alive under the table.
    rk = _rankings(n, 10)
    measured = _peak(lambda: rs.hoeffding(rs.pairwise(rk)))
    _assert_close(pairwise_bytes(n, 10, hoeffding=True), measured)


@pytest.mark.parametrize(("n", "n_tasks", "n_instances"), [(20, 10, 3000), (300, 5, 200)])
def test_scores_estimates_against_measured_peak(n, n_tasks, n_instances):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = _instance_scores(n, n_tasks, n_instances)
    n_rankings = n_tasks * n_instances
    measured = _peak(rs.Rankings.from_scores, scores, by="instance")
    _assert_close(rankings_bytes(n, n_rankings), measured)
    for method in ("borda", "borda2"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # A fresh table: its rankings are built once and then reused by every estimator.
            scores = _instance_scores(n, n_tasks, n_instances)
        measured = _peak(rs.aggregate, scores, method=method)
        # borda2 ranks the same instance rankings, then sums per task: at most the borda peak.
        estimate = pairwise_bytes(n, n_rankings, from_scores=True)
        assert estimate >= 0.7 * measured
        if method == "borda":
            _assert_close(estimate, measured)


def test_the_issue_sizes():
    # 50,000 systems: one N × N float64 matrix is the 18.6 GiB of the issue; pairwise needs 9.
    assert 50_000**2 * 8 / 2**30 == pytest.approx(18.6, abs=0.05)
    assert pairwise_bytes(50_000, 20) >= 9 * 50_000**2 * 8
    # 2,000 systems: a few hundred MB for pairwise, close to 1 GB with the Hoeffding table.
    assert 250 * 2**20 < pairwise_bytes(2_000, 20) < 350 * 2**20
    assert 0.8 * 2**30 < pairwise_bytes(2_000, 20, hoeffding=True) < 1.2 * 2**30


def test_refuses_up_front_with_a_clear_message(monkeypatch):
    monkeypatch.delenv(_resources.IGNORE_ENV, raising=False)
    monkeypatch.setattr(_resources, "available_memory", lambda: 10 * 2**20)
    rk = _rankings(1000, 2)
    with pytest.raises(ResourceError) as info:
        rs.pairwise(rk)
    message = str(info.value)
    assert isinstance(info.value, MemoryError)
    assert "\n" not in message
    assert message.startswith("rs.pairwise needs about 0.")
    assert "1,000 systems" in message and "2 rankings" in message
    assert "0.0098 GiB available" in message
    assert "set RANKSTATS_IGNORE_MEMORY=1 to try anyway" in message
    assert "pass --ignore-memory-check to try anyway" in info.value.cli()  # as the CLI says it
    # Through aggregate, and with Scores input (checked before ranking).
    with pytest.raises(ResourceError, match="1,000 systems"):
        rs.aggregate(rk, method="borda")
    wide = pd.DataFrame(np.random.default_rng(0).random((1000, 3)), columns=["t1", "t2", "t3"])
    scores = rs.Scores.from_wide(wide.assign(system=[f"s{i}" for i in range(1000)]))
    with pytest.raises(ResourceError, match="1,000 systems"):
        rs.pairwise(scores)
    # hoeffding: N (N − 1) rows.
    monkeypatch.setenv(_resources.IGNORE_ENV, "1")
    pw = rs.pairwise(rk)
    monkeypatch.delenv(_resources.IGNORE_ENV)
    with pytest.raises(ResourceError, match=r"rs\.hoeffding needs about .*1,000 systems"):
        rs.hoeffding(pw)


def test_the_override_goes_on(monkeypatch):
    monkeypatch.setattr(_resources, "available_memory", lambda: 10 * 2**20)
    monkeypatch.setenv(_resources.IGNORE_ENV, "1")
    rk = _rankings(1000, 2)
    pw = rs.pairwise(rk)
    assert pw.n_systems == 1000
    assert len(rs.hoeffding(pw)) == 1000 * 999


def test_small_inputs_are_never_refused_and_the_check_is_cheap(monkeypatch):
    monkeypatch.delenv(_resources.IGNORE_ENV, raising=False)
    calls = []
    monkeypatch.setattr(_resources, "available_memory", lambda: calls.append(1) or 0)
    rs.pairwise(_rankings(10, 5))  # 32 MiB and less: /proc is not even read
    assert not calls
    monkeypatch.undo()
    start = time.perf_counter()
    for _ in range(1000):
        require_memory(pairwise_bytes(30, 5), "x", n_systems=30)
    assert (time.perf_counter() - start) / 1000 < 20e-6
    start = time.perf_counter()
    for _ in range(100):
        require_memory(64 * 2**20, "x")  # reads /proc/meminfo and the cgroup files
    assert (time.perf_counter() - start) / 100 < 2e-3


def test_available_memory_reads_the_cgroup_limit(tmp_path, monkeypatch):
    assert available_memory() > 0
    limit, usage, stat = tmp_path / "memory.max", tmp_path / "memory.current", tmp_path / "stat"
    limit.write_text(f"{2**30}\n")
    usage.write_text(f"{2**29}\n")
    stat.write_text(f"anon 123\ninactive_file {2**27}\nactive_file 5\n")
    monkeypatch.setattr(_resources, "_meminfo_available", lambda: 8 * 2**30)
    monkeypatch.setattr(
        _resources, "_cgroup_files", lambda: ((limit, usage, stat, "inactive_file"),)
    )
    # limit − usage + reclaimable cache, below the machine's MemAvailable.
    assert available_memory() == 2**30 - 2**29 + 2**27
    limit.write_text("max\n")  # cgroup v2: no limit
    assert available_memory() == 8 * 2**30
    limit.write_text(f"{2**63 - 4096}\n")  # cgroup v1: no limit
    assert available_memory() == 8 * 2**30
    # No /proc/meminfo (macOS): os.sysconf.
    monkeypatch.setattr(_resources, "_meminfo_available", lambda: None)
    monkeypatch.setattr(_resources, "_sysconf_memory", lambda: 3 * 2**30)
    assert available_memory() == 3 * 2**30


def test_power_counts_the_chunk_of_simulated_scores():
    """One benchmark larger than a chunk is simulated whole: 1e9 instances of 10 systems need
    about 30 float64 arrays of 1e10 scores (they died in a MemoryError), and the refusal names
    what to reduce (rs.power has no streaming)."""
    from rankstats._util.resources import power_bytes
    from rankstats.errors import ResourceError

    small = power_bytes(10, 100, 3, scores=10 * 100)
    assert power_bytes(10, 100, 3, scores=10**10) - small == 240 * (10**10 - 10**6)
    with pytest.raises(ResourceError, match="instances per benchmark") as err:
        rs.power(n_systems=10, n_tasks=1, n_instances=10**9, n_replications=10, progress=False)
    assert "stream" not in str(err.value)
