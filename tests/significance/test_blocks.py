"""The blocks × systems rank table of the Friedman-type tests (rankstats.significance.blocks)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats.significance.blocks import MISSING, Blocks, rank_blocks


def _wide(values: np.ndarray, tasks: list[str] | None = None) -> pd.DataFrame:
    """Systems × tasks leaderboard of a (systems, tasks) array."""
    tasks = tasks or [f"t{j}" for j in range(values.shape[1])]
    df = pd.DataFrame(values, columns=tasks)
    df.insert(0, "system", [f"s{i}" for i in range(values.shape[0])])
    return df


def test_task_level_ranks_follow_each_task_direction():
    raw = np.array([[0.9, 10.0, 3.0], [0.7, 12.0, 3.0], [0.8, 11.0, 1.0]])  # systems × tasks
    scores = rs.Scores.from_wide(_wide(raw), higher_is_better={"t1": False})
    blocks = rank_blocks(scores)
    # Independently: rank 1 = the highest score, except on t1 where the lowest is best.
    signed = raw * np.array([1.0, -1.0, 1.0])
    expected = stats.rankdata(-signed.T, axis=1, method="average")
    assert blocks.ranks.tolist() == expected.tolist()
    assert blocks.by == "task" and list(blocks.blocks) == ["t0", "t1", "t2"]
    assert blocks.systems == ("s0", "s1", "s2")
    assert blocks.ranks[2].tolist() == [1.5, 1.5, 3.0]  # a tie gets the average rank
    # the same rankings every other estimator of rankstats sees
    np.testing.assert_array_equal(blocks.ranks, rs.Rankings.from_scores(scores).ranks)
    np.testing.assert_array_equal(blocks.values, signed.T)


def _instance_table(rng: np.random.Generator, n_sys=4, n_tasks=2, n_inst=5) -> pd.DataFrame:
    rows = [
        (f"s{s}", f"T{t}", i, float(rng.integers(0, 4)))
        for t in range(n_tasks)
        for i in range(n_inst)
        for s in range(n_sys)
    ]
    return pd.DataFrame(rows, columns=["system", "task", "instance", "score"])


def test_instance_level_blocks_and_task_level_means():
    df = _instance_table(np.random.default_rng(1))
    scores = rs.Scores.from_long(df, instance="instance", higher_is_better={"T1": False})
    blocks = rank_blocks(scores)
    assert blocks.by == "instance" and blocks.ranks.shape == (10, 4)
    for (task, instance), ranks, values in zip(
        blocks.blocks, blocks.ranks, blocks.values, strict=True
    ):
        raw = df[(df.task == task) & (df.instance == instance)].set_index("system")["score"]
        raw = raw.reindex(list(blocks.systems)).to_numpy()
        sign = -1.0 if task == "T1" else 1.0
        np.testing.assert_array_equal(values, sign * raw)
        np.testing.assert_array_equal(ranks, stats.rankdata(-sign * raw, method="average"))
    task = rank_blocks(scores, by="task")
    means = df.groupby(["task", "system"])["score"].mean().unstack()
    means.loc["T1"] *= -1
    np.testing.assert_allclose(task.values, means.loc[list(task.blocks), list(task.systems)])
    np.testing.assert_array_equal(task.ranks, stats.rankdata(-task.values, axis=1))


def test_missing_error_names_the_first_incomplete_block():
    raw = np.array([[1.0, 2.0, 3.0], [2.0, np.nan, 1.0], [3.0, 1.0, np.nan]])
    scores = rs.Scores.from_wide(_wide(raw))
    with pytest.raises(ValueError, match=r"block 't1' has no score for s1 .*complete-case") as e:
        rank_blocks(scores)
    assert "\n" not in str(e.value)
    assert "2 of 3 blocks" in str(e.value)


def test_complete_case_reports_exactly_what_was_dropped():
    raw = np.array(
        [
            [1.0, 2.0, 3.0, 4.0, 5.0],
            [2.0, np.nan, 1.0, 3.0, 2.0],
            [3.0, 1.0, np.nan, 2.0, 1.0],
            [4.0, 3.0, 2.0, 1.0, np.nan],
        ]
    )
    scores = rs.Scores.from_wide(_wide(raw))
    blocks = rank_blocks(scores, missing="complete-case")
    incomplete = [f"t{j}" for j in range(5) if np.isnan(raw[:, j]).any()]
    assert list(blocks.dropped_blocks) == incomplete == ["t1", "t2", "t4"]
    assert list(blocks.blocks) == ["t0", "t3"] and blocks.dropped_systems == ()
    assert blocks.n_input_blocks == 5
    text = repr(blocks)
    assert "3 of 5 blocks dropped" in text and "t1, t2, t4" in text
    np.testing.assert_array_equal(blocks.ranks, stats.rankdata(-raw[:, [0, 3]].T, axis=1))


def test_complete_case_drops_rare_systems_first_when_asked():
    raw = np.array(
        [
            [1.0, 2.0, 3.0, 4.0],
            [2.0, 1.0, 1.0, 3.0],
            [3.0, np.nan, np.nan, np.nan],  # s2 is evaluated on one task of four
            [4.0, 3.0, 2.0, np.nan],
        ]
    )
    scores = rs.Scores.from_wide(_wide(raw))
    blocks = rank_blocks(scores, missing="complete-case", min_coverage=0.5)
    assert blocks.dropped_systems == ("s2",)
    assert list(blocks.dropped_blocks) == ["t3"]
    assert blocks.systems == ("s0", "s1", "s3")
    # ranks among the kept systems only
    kept = raw[[0, 1, 3]][:, :3]
    np.testing.assert_array_equal(blocks.ranks, stats.rankdata(-kept.T, axis=1))
    assert "1 system(s) dropped: s2" in repr(blocks)


def test_never_evaluated_systems_are_dropped_and_reported():
    with pytest.warns(rs.DataWarning):
        scores = rs.load_dataset("xtreme_table5")
    assert scores.unevaluated_systems == ("M5",)
    with pytest.raises(ValueError, match="no complete block"):
        rank_blocks(scores, missing="complete-case")
    blocks = rank_blocks(scores, missing="complete-case", min_coverage=0.5)
    wide = scores.to_wide()
    coverage = wide.notna().mean(axis=1)
    assert blocks.dropped_systems == tuple(wide.index[coverage < 0.5])
    kept = wide.loc[list(blocks.systems)]
    assert list(blocks.dropped_blocks) == list(wide.columns[kept.isna().any(axis=0)])
    assert blocks.n_blocks + len(blocks.dropped_blocks) == scores.n_tasks


def test_set_aside_by_scores_is_repeated():
    raw = np.array([[1.0, 2.0, 3.0], [2.0, 1.0, np.nan], [3.0, 3.0, np.nan]])
    with pytest.warns(rs.DataWarning):
        scores = rs.Scores.from_wide(_wide(raw))
    assert scores.skipped_tasks == ("t2",)
    blocks = rank_blocks(scores)
    assert blocks.set_aside == ("task t2",) and "set aside by Scores: task t2" in repr(blocks)


def test_options_are_checked():
    scores = rs.load_dataset("xtreme")
    assert set(MISSING) == {"error", "complete-case", "imputed"}
    with pytest.raises(ValueError, match="missing must be one of 'error', 'complete-case'"):
        rank_blocks(scores, missing="impute")
    with pytest.raises(ValueError, match="min_coverage"):
        rank_blocks(scores, missing="complete-case", min_coverage=2)
    with pytest.raises(TypeError):
        rank_blocks(scores.to_wide())


def test_rankings_and_blocks_inputs():
    rk = rs.Rankings.from_orderings([["a", "b", "c"], ["b", ("a", "c")], ["c", "a"]])
    with pytest.raises(ValueError, match="block '2' has no score for b"):
        rank_blocks(rk)
    blocks = rank_blocks(rk, missing="complete-case")
    assert isinstance(blocks, Blocks) and blocks.values is None
    assert blocks.ranks.tolist() == [[1.0, 2.0, 3.0], [2.5, 1.0, 2.5]]
    assert list(blocks.dropped_blocks) == [2]
    assert rank_blocks(blocks) is blocks
    assert blocks.mean_ranks.to_dict() == {"a": 1.75, "b": 1.5, "c": 2.75}


def test_imputed_blocks_keep_every_block_and_mark_the_evaluated_cells():
    rk = rs.Rankings.from_orderings([["a", "b", "c", "d"], ["b", ("a", "c")], ["c", "a"]])
    blocks = rank_blocks(rk, missing="imputed")
    assert blocks.imputed and blocks.n_blocks == 3 and not len(blocks.dropped_blocks)
    assert blocks.observed.tolist() == [
        [True, True, True, True],
        [True, True, True, False],
        [True, False, True, False],
    ]
    # e = m (n + 1) / (k + 1) observed, (n + 1) / 2 = 2.5 not evaluated (n = 4)
    np.testing.assert_allclose(blocks.ranks[1], [2.5 * 5 / 4, 1 * 5 / 4, 2.5 * 5 / 4, 2.5])
    np.testing.assert_allclose(blocks.ranks[2], [2 * 5 / 3, 2.5, 1 * 5 / 3, 2.5])
    assert blocks.n_imputed == 3 and "3 of 12 cells not evaluated" in repr(blocks)
    assert rank_blocks(blocks) is blocks
    # the complete-case table of the same rankings keeps one block
    assert rank_blocks(rk, missing="complete-case").n_blocks == 1


def test_imputed_min_coverage_reranks_the_kept_systems():
    raw = np.array(
        [
            [0.9, 0.5, 0.1, 0.4],
            [0.8, np.nan, 0.2, 0.5],
            [0.7, 0.6, np.nan, np.nan],
            [0.1, np.nan, 0.3, 0.6],
        ]
    )
    scores = rs.Scores.from_wide(_wide(raw))  # systems × tasks
    blocks = rank_blocks(scores, missing="imputed", min_coverage=0.6)
    assert blocks.dropped_systems == ("s2",) and blocks.systems == ("s0", "s1", "s3")
    assert list(blocks.dropped_blocks) == ["t1"]  # only s0 left there: no information
    assert "fewer than 2 systems evaluated" in blocks.dropped()
    # t0 among s0, s1, s3: 0.9, 0.8, 0.1 → ranks 1, 2, 3 (complete: e = m)
    np.testing.assert_allclose(blocks.ranks[0], [1.0, 2.0, 3.0])


# ------------------------------------------------------- blocks without variation (issue 23, 5)
def _all_tied(n_tasks: int = 6, with_gap: bool = False) -> rs.Scores:
    """Three systems, every task one tie (a different score per task); ``with_gap``: system c
    not evaluated on t0."""
    rows = [(s, f"t{t}", 0.1 * t) for t in range(n_tasks) for s in "abc"]
    if with_gap:
        rows = [r for r in rows if r[:2] != ("c", "t0")]
    return rs.Scores.from_long(pd.DataFrame(rows, columns=["system", "task", "score"]))


def test_blocks_without_variation_get_one_answer_on_every_path():
    """Every block ties all its systems: χ² was NaN ("NOT significant, p = nan"), Conover ended
    in ZeroDivisionError, the automatic choice "rejected the null (p = nan)", the imputed path
    said "nothing to test". Now one error, decided in blocks.require_variation, everywhere."""
    from rankstats.significance.block_variation import NoVariationError
    from rankstats.significance.friedman_test import friedman
    from rankstats.significance.posthoc_tests import posthoc
    from rankstats.significance.rank_sets import rank_confidence_sets
    from rankstats.significance.which_test import choose_test

    scores = _all_tied()
    calls = {
        "friedman": lambda: friedman(scores),
        "nemenyi": lambda: posthoc(scores),
        "conover": lambda: posthoc(scores, method="conover"),
        "wilcoxon": lambda: posthoc(scores, method="wilcoxon-holm"),
        "choose": lambda: choose_test(scores),
        "choose parametric": lambda: choose_test(scores, force="parametric"),
        "rank sets": lambda: rank_confidence_sets(scores, of="rank", n_resamples=200),
        "imputed": lambda: friedman(_all_tied(with_gap=True), missing="imputed"),
        "autorank frame": lambda: choose_test(pd.DataFrame({"a": [1.0] * 6, "b": [1.0] * 6})),
    }
    messages = set()
    for name, call in calls.items():
        with pytest.raises(NoVariationError) as err:
            call()
        messages.add(str(err.value).split(":")[1])  # after "every one of the N ... blocks"
        assert "\n" not in str(err.value), name
    assert messages == {
        " there is no difference to test (the rank tests, post-hoc tests, rank "
        "sets and the automatic choice all need a block where two systems "
        "differ)"
    }


def test_some_tied_blocks_are_fine():
    """One block with a difference is enough; the tied blocks count as Friedman's ties do
    (scipy's tie-corrected statistic, computed independently)."""
    from rankstats.significance.friedman_test import friedman

    rows = [(s, f"t{t}", 0.1 * t) for t in range(5) for s in "abc"]
    rows += [("a", "t5", 3.0), ("b", "t5", 2.0), ("c", "t5", 1.0)]
    scores = rs.Scores.from_long(pd.DataFrame(rows, columns=["system", "task", "score"]))
    res = friedman(scores)
    ranks = rank_blocks(scores).ranks
    assert res.statistic == pytest.approx(stats.friedmanchisquare(*ranks.T).statistic)
