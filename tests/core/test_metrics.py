"""Kendall distance, τ_b and top-k overlap (rankstats.core.metrics) against brute-force pair
counting and scipy; the old call sites (dispersion, robustness, paired, rs.simulate) use this one
implementation."""

import importlib
import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats.core import metrics
from rankstats.core.metrics import agreement, kendall_counts, ranking_metrics, top_k_overlap


def brute_kendall(a, b):
    """Pair-by-pair count: discordant 1, tied in exactly one ½."""
    d = 0.0
    for i, j in itertools.combinations(range(len(a)), 2):
        sa, sb = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
        if sa * sb < 0:
            d += 1
        elif (sa == 0) != (sb == 0):
            d += 0.5
    return d


def random_tied(rng, n, levels):
    return rng.integers(0, levels, size=n).astype(float)


# ---------------------------------------------------------------------------- Kendall distance
@pytest.mark.parametrize("n", [1, 2, 3, 7, 16, 17, 40])
def test_kendall_distance_equals_brute_force(n):
    rng = np.random.default_rng(n)
    for levels in (2, 3, n + 1, 1000):
        a = random_tied(rng, n, levels)
        b = random_tied(rng, n, levels)
        assert rs.kendall_distance(a, b) == brute_kendall(a, b)
    batch = rng.integers(0, 4, size=(5, n)).astype(float)
    expected = [brute_kendall(a, row) for row in batch]
    np.testing.assert_array_equal(rs.kendall_distance(a, batch), expected)


def test_pair_counts_equal_brute_force():
    rng = np.random.default_rng(11)
    a = rng.integers(0, 4, size=(30, 9)).astype(float)
    b = rng.integers(0, 3, size=(30, 9)).astype(float)
    counts = kendall_counts(a, b)
    for row in range(30):
        sa = [np.sign(a[row, i] - a[row, j]) for i, j in itertools.combinations(range(9), 2)]
        sb = [np.sign(b[row, i] - b[row, j]) for i, j in itertools.combinations(range(9), 2)]
        assert counts.discordant[row] == sum(x * y < 0 for x, y in zip(sa, sb, strict=True))
        assert counts.tied_a[row] == sum(x == 0 for x in sa)
        assert counts.tied_b[row] == sum(y == 0 for y in sb)
        assert counts.tied_both[row] == sum(x == 0 and y == 0 for x, y in zip(sa, sb, strict=True))
    assert counts.n_pairs == 36


def test_kendall_distance_is_a_metric():
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = int(rng.integers(2, 9))
        a, b, c = (random_tied(rng, n, int(rng.integers(1, n + 2))) for _ in range(3))
        ab, ba = rs.kendall_distance(a, b), rs.kendall_distance(b, a)
        assert ab == ba
        assert rs.kendall_distance(a, a) == 0
        assert ab <= rs.kendall_distance(a, c) + rs.kendall_distance(c, b) + 1e-12


def test_kendall_distance_large_against_scipy():
    rng = np.random.default_rng(0)
    n = 20_000
    a, b = rng.permutation(n), rng.permutation(n)
    tau = stats.kendalltau(a, b).statistic
    n_pairs = n * (n - 1) / 2
    assert rs.kendall_distance(a, b) == pytest.approx(n_pairs * (1 - tau) / 2, rel=1e-9)


def test_kendall_distance_inputs_and_missing_ranks():
    a = pd.Series([1, 2, 3], index=["x", "y", "z"])
    b = pd.Series([3, 1, 2], index=["z", "x", "y"])  # same ranking, other index order
    assert rs.kendall_distance(a, b) == 0
    # NaN convention: the distance needs complete rankings and names the missing one.
    with pytest.raises(ValueError, match="system 'y'"):
        rs.kendall_distance(a, pd.Series([1, np.nan, 3], index=["x", "y", "z"]))
    with pytest.raises(ValueError, match="missing or infinite rank at position 1"):
        rs.kendall_distance([1, np.inf, 3], [1, 2, 3])
    with pytest.raises(ValueError, match="different systems"):
        rs.kendall_distance(a, pd.Series([1, 2, 3], index=["x", "y", "w"]))
    with pytest.raises(ValueError, match="columns"):
        rs.kendall_distance([1, 2, 3], [1, 2])


# ---------------------------------------------------------------------------- τ_b and top-k
def test_tau_b_equals_scipy_with_ties():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 4, size=(40, 10)).astype(float)
    b = rng.integers(0, 5, size=(40, 10)).astype(float)
    tau = kendall_counts(a, b).tau_b
    for row in range(40):
        expected = stats.kendalltau(a[row], b[row], variant="b").statistic
        assert tau[row] == pytest.approx(expected, abs=1e-12)
    # A ranking that ties every pair has τ = 0 (scipy: NaN).
    assert kendall_counts(np.ones((1, 4)), np.arange(4.0)[None]).tau_b[0] == 0.0


def brute_metrics(score, truth, k):
    """ranking_metrics written out: NaN scores ranked last, tied among themselves."""
    key = np.where(np.isnan(score), -np.inf, score)
    rank = stats.rankdata(-key)
    n_pairs = len(score) * (len(score) - 1) / 2
    best = np.flatnonzero(rank == rank.min())
    top_true = set(np.argsort(truth, kind="stable")[:k])
    top_hat = set(np.argsort(rank, kind="stable")[:k])
    return {
        "kendall_distance": brute_kendall(rank, truth) / n_pairs,
        "kendall_tau": stats.kendalltau(rank, truth).statistic,
        "top1": float(len(best) == 1 and best[0] == np.argmin(truth)),
        f"top{k}": len(top_true & top_hat) / k,
    }


def test_ranking_metrics_against_brute_force_with_ties_and_missing_scores():
    rng = np.random.default_rng(6)
    truth = np.arange(8, 0, -1.0)
    scores = rng.integers(0, 4, size=(60, 8)).astype(float)
    scores[rng.random(scores.shape) < 0.15] = np.nan
    batch = ranking_metrics(scores, truth, k=3)
    for row, score in enumerate(scores):
        single = ranking_metrics(score, truth, k=3)
        expected = brute_metrics(score, truth, 3)
        for key, value in expected.items():
            assert single[key] == pytest.approx(value, abs=1e-12), key
            assert batch[key][row] == single[key], key
    assert ranking_metrics(-np.arange(5.0), truth[3:], k=2)["kendall_tau"] == -1.0


def test_top_k_overlap_against_sets():
    rng = np.random.default_rng(7)
    a = rng.integers(0, 6, size=(50, 9)).astype(float)
    b = rng.permutation(9)[None, :] + 1.0
    for k in (1, 3, 9):
        overlap = top_k_overlap(a, np.repeat(b, 50, axis=0), k)
        for row in range(50):
            top_a = set(np.argsort(a[row], kind="stable")[:k])
            top_b = set(np.argsort(b[0], kind="stable")[:k])
            assert overlap[row] == len(top_a & top_b) / k


def test_agreement_against_scipy_and_sets():
    x = rs.load_dataset("xtreme_missing")
    runs = {m: rs.aggregate(x, m) for m in ("mean", "borda", "borda2")}
    table = agreement(runs, k=3)
    for row in table.itertuples():
        a, b = runs[row.a].scores, runs[row.b].scores
        assert row.kendall_tau == pytest.approx(stats.kendalltau(a, b).statistic)
        assert row.share_discordant == pytest.approx(
            brute_kendall(a.to_numpy(), b.to_numpy()) / (len(a) * (len(a) - 1) / 2)
        )
        assert row.same_top1 == (a.idxmax() == b.idxmax())
        assert row.top3_overlap == len(set(a.nlargest(3).index) & set(b.nlargest(3).index)) / 3
    # Orders (best first) and Series are accepted; different systems are refused.
    order = runs["borda"].order
    same = agreement({"list": order, "series": runs["borda"].scores})
    assert same.loc[0, "kendall_tau"] == 1.0
    with pytest.raises(ValueError, match="rank different systems"):
        agreement({"a": ["x", "y"], "b": ["x", "z"]})
    assert list(agreement({"only": order}).columns)[:2] == ["a", "b"]


# ---------------------------------------------------------------------------- one implementation
def test_old_call_sites_are_the_metrics_module():
    # rs.dispersion is the function, so the modules are looked up by name.
    dispersion = importlib.import_module("rankstats.aggregation.dispersion_analysis")
    robustness = importlib.import_module("rankstats.simulate.robustness_experiments")
    assert rs.kendall_distance is metrics.kendall_distance
    assert dispersion.kendall_distance is metrics.kendall_distance
    assert rs.agreement is metrics.agreement
    assert rs.simulate.agreement is metrics.agreement
    assert robustness.agreement is metrics.agreement
    # dispersion's expected distance of complete rows is the Kendall distance itself
    rng = np.random.default_rng(8)
    a = np.argsort(rng.random((6, 12)), axis=1) + 1.0
    b = rng.integers(1, 5, size=(6, 12)).astype(float)
    np.testing.assert_array_equal(dispersion.expected_distance(a, b), metrics.kendall_rows(a, b))


def test_paired_agreement_is_the_metrics_agreement():
    rng = np.random.default_rng(3)
    x = pd.DataFrame(rng.normal(size=(40, 6)) + np.linspace(0, 1, 6), columns=list("abcdef"))
    res = rs.paired(x, n_resamples=20)
    s = res.strengths.set_index("system")
    expected = agreement({k: s[k] for k in ("mean", "median", "bt", "elo", "trueskill")})
    pd.testing.assert_frame_equal(res.agreement.drop(columns="same_top3"), expected)
