"""Aggregators against direct, loop-based implementations of their definitions."""

import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs


def naive_p(ranks):
    """P[i, j] for one partial ranking, written pair by pair from DESIGN.md."""
    n = len(ranks)
    obs = ~np.isnan(ranks)
    k = obs.sum()
    mid = ranks.copy()
    if k:  # canonical mid-ranks among observed
        order = ranks[obs]
        mid[obs] = [1 + np.sum(order < r) + 0.5 * (np.sum(order == r) - 1) for r in order]
    p = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            if obs[i] and obs[j]:
                p[i, j] = 1.0 if mid[i] < mid[j] else (0.5 if mid[i] == mid[j] else 0.0)
            elif obs[j]:
                p[i, j] = mid[j] / (k + 1)
            elif obs[i]:
                p[i, j] = 1 - mid[i] / (k + 1)
            else:
                p[i, j] = 0.5
    return p


def naive_borda(rank_rows):
    return sum(naive_p(r).sum(axis=1) for r in rank_rows)


def random_instance_scores(seed, n_sys=6, n_tasks=3, n_inst=5, missing=0.3):
    rng = np.random.default_rng(seed)
    rows = [
        (f"s{s}", f"t{t}", i, rng.integers(0, 4) if rng.random() > missing else np.nan)
        for s in range(n_sys)
        for t in range(n_tasks)
        for i in range(n_inst)
    ]
    return pd.DataFrame(rows, columns=["system", "task", "instance", "score"])


@pytest.mark.parametrize("seed", range(5))
def test_borda_and_borda2_against_naive(seed):
    df = random_instance_scores(seed)
    with warnings.catch_warnings():
        # Random tables may hold instances with a single score: skipped and reported, by design.
        warnings.simplefilter("ignore", rs.DataWarning)
        s = rs.Scores.from_long(df, instance="instance")
    rk = rs.Rankings.from_scores(s, by="instance")
    np.testing.assert_allclose(rs.aggregate(s, method="borda").scores, naive_borda(rk.ranks))

    # Two-level: Borda within each task; systems with no score in a task are unobserved there.
    task_rows = []
    for t in s.tasks:
        rows = rk.ranks[np.array(rk.group_names)[rk.groups] == t]
        b = naive_borda(rows)
        b[np.isnan(rows).all(axis=0)] = np.nan
        # Higher Borda = better rank: rank by -b (NaN stays NaN).
        task_rows.append(pd.Series(-b).rank(method="average").to_numpy())
    expected = naive_borda(np.array(task_rows))
    np.testing.assert_allclose(rs.aggregate(s, method="borda2").scores, expected)


def test_borda2_equals_borda_at_task_level():
    glue = rs.load_dataset("glue")
    np.testing.assert_allclose(
        rs.aggregate(glue, method="borda2").scores, rs.aggregate(glue, method="borda").scores
    )


def test_mean_and_median_are_the_pandas_ones():
    x = rs.load_dataset("xtreme_missing")
    wide = pd.read_csv(rs.datasets.data_path("xtreme_missing.csv")).set_index("system")
    np.testing.assert_allclose(rs.aggregate(x, method="mean").scores, wide.mean(axis=1))
    np.testing.assert_allclose(rs.aggregate(x, method="median").scores, wide.median(axis=1))
    tac = rs.load_dataset("tac08", tasks=["BLEU", "ROUGE_2"])
    raw = tac.data.astype({"system": str, "task": str})
    expected = raw.groupby(["system", "task"])["score"].mean().groupby("system").mean()
    got = rs.aggregate(tac, method="mean").scores
    np.testing.assert_allclose(got[expected.index], expected)


def test_copeland_against_naive_majority():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, size=(7, 5)).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    rk = rs.Rankings.from_rank_matrix(pd.DataFrame(x, columns=list("abcde")))
    p = sum(naive_p(r) for r in rk.ranks)
    expected = [
        sum(
            1.0 if p[i, j] > p[j, i] + 1e-9 else 0.5 if abs(p[i, j] - p[j, i]) <= 1e-9 else 0.0
            for j in range(5)
            if j != i
        )
        for i in range(5)
    ]
    np.testing.assert_allclose(rs.aggregate(rk, method="copeland").scores, expected)


def test_table_order_and_ties():
    rk = rs.Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"]])
    res = rs.aggregate(rk, method="borda")
    assert res.table["rank"].tolist() == [1.5, 1.5, 3.0]
    assert res.order == ["a", "b", "c"]
    assert "borda" in repr(res)


def test_errors():
    x = rs.load_dataset("xtreme")
    with pytest.raises(ValueError, match="unknown method 'best'; available: mean"):
        rs.aggregate(x, method="best")
    with pytest.raises(TypeError, match="needs Scores"):
        rs.aggregate(rs.Rankings.from_scores(x), method="mean")
    with pytest.raises(ValueError, match="by must be"):
        rs.aggregate(x, by="system")
