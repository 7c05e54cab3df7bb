"""The rank tree end to end: a known split is found (the right covariate, the right levels, a
cut near the true threshold), instance rankings are clustered by task, a node without an MLE is
a leaf that says why, prediction routes rows and refuses what it cannot place, and bad
covariates are refused in one line naming the row and the column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.errors import InvalidScoresError

SYSTEMS = np.array(["a", "b", "c", "d"])


def pl_rankings(theta, rng):
    """Complete Plackett–Luce rankings (Gumbel-max), one per row of ``theta``."""
    order = np.argsort(-(theta + rng.gumbel(size=theta.shape)), axis=1)
    return rs.Rankings.from_rank_matrix(
        pd.DataFrame(np.argsort(order, axis=1) + 1.0, columns=SYSTEMS)
    )


@pytest.fixture(scope="module")
def two_groups():
    """Worths differ by a categorical level (``g == "q"``: d best) and not by ``x``."""
    rng = np.random.default_rng(5)
    n = 240
    g = rng.choice(["p", "q", "r"], size=n)
    theta = np.tile([1.0, 0.5, 0.0, -0.5], (n, 1))
    theta[g == "q", 3] = 2.0
    rk = pl_rankings(theta, rng)
    covariates = pd.DataFrame({"g": g, "x": rng.uniform(size=n)}, index=rk.rankers)
    return rk, covariates, rs.models.rank_tree(rk, covariates)


def test_a_categorical_split_is_found(two_groups):
    _, covariates, tree = two_groups
    root = tree.node(1)
    assert root.split is not None and root.split.covariate == "g"
    assert {root.split.left_levels, root.split.right_levels} == {("p", "r"), ("q",)}
    leaves = tree.worths()
    assert len(leaves) == 2
    q_leaf = tree.predict(pd.DataFrame({"g": ["q"], "x": [0.5]})).iloc[0]
    assert leaves.loc[q_leaf].idxmax() == "d"
    assert leaves.drop(index=q_leaf).iloc[0].idxmax() == "a"
    tests = tree.tests()
    assert set(tests.columns) >= {"node", "covariate", "test", "statistic", "df", "p_value"}
    adjusted = tests["p_adjusted"].to_numpy()
    assert np.all(adjusted == np.minimum(1.0, 2 * tests["p_value"].to_numpy()))
    assert "split on g" in repr(tree)
    assert sorted(tree.predict(covariates).unique()) == sorted(leaves.index)


def test_a_numeric_threshold_is_found_near_the_truth():
    rng = np.random.default_rng(6)
    n = 200
    x = rng.uniform(0, 10, size=n)
    theta = np.tile([1.0, 0.5, 0.0, -0.5], (n, 1))
    theta[x > 6.0] = [-0.5, 0.0, 0.5, 1.0]
    rk = pl_rankings(theta, rng)
    covariates = pd.DataFrame({"x": x, "noise": rng.choice(["u", "v"], size=n)}, index=rk.rankers)
    tree = rs.models.rank_tree(rk, covariates)
    split = tree.node(1).split
    assert split is not None and split.covariate == "x"
    assert abs(split.threshold - 6.0) < 0.5
    assert len(tree.worths()) == 2
    leaves = tree.leaves()
    assert list(leaves.columns) == [
        "leaf",
        "rule",
        "n_units",
        "n_rankings",
        "system",
        "log_worth",
        "se",
        "rank",
    ]
    assert set(leaves["rule"]) == {f"x <= {split.threshold:g}", f"x > {split.threshold:g}"}
    # The change is so strong that no simulated null draw reaches the statistic: the p-value is
    # the simulation's floor 1 / (n_draws + 1), a bound, printed as one (repr, figure).
    root = tree.tests().query("node == 1").set_index("covariate")
    assert root.loc["x", "statistic"] > rs.models.instability.sup_lm_null(3, 0.1)[-1]
    assert root.loc["x", "p_value"] == 1 / 10_001 and root.loc["x", "p_at_floor"]
    assert root.loc["x", "p_adjusted"] == 2 / 10_001
    assert not root.loc["noise", "p_at_floor"]  # a χ² p-value is never at a floor
    assert "adjusted p ≤ 0.0002)" in repr(tree)
    texts = [t.get_text() for ax in tree.plot().axes for t in ax.texts]
    assert any("p ≤ 0.0002" in t for t in texts), texts


def test_a_bound_is_printed_rounded_up():
    from rankstats.models.rank_tree_result import p_cell, p_relation

    assert p_cell(3 / 10_001, True) == "≤ 0.0003"
    assert p_cell(0.00012341, True) == "≤ 0.000124"  # rounded up: still a bound
    assert p_cell(0.00012341) == "0.0001" and p_cell(1.94e-19) == "1.94e-19"
    assert p_relation(0.0432) == "= 0.0432" and p_relation(1 / 10_001, True) == "≤ 0.0001"


def test_instance_rankings_are_clustered_by_task():
    """Task covariates of (task, instance) rankings: a task is a unit (its scores summed), so
    copying every instance leaves the statistics unchanged, while the rankings double."""
    rng = np.random.default_rng(7)
    rows = []
    for t in range(30):
        shift = 1.5 if t % 3 == 0 else 0.0
        for i in range(4):
            worth = np.array([1.0, 0.5, 0.0, -0.5]) + np.array([0, 0, 0, shift])
            noise = rng.gumbel(size=4)
            rows += [(s, f"t{t}", f"i{i}", w) for s, w in zip(SYSTEMS, worth + noise, strict=True)]
    long = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
    twice = pd.concat([long, long.assign(instance=long["instance"] + "b")])
    kind = pd.DataFrame({"kind": ["x" if t % 3 == 0 else "y" for t in range(30)]})
    kind.index = [f"t{t}" for t in range(30)]
    trees = [
        rs.models.rank_tree(rs.Scores.from_long(frame, instance="instance"), kind, max_depth=0)
        for frame in (long, twice)
    ]
    assert trees[0].unit == "task" and trees[0].node(1).n_units == 30
    assert trees[0].node(1).n_rankings == 120 and trees[1].node(1).n_rankings == 240
    first, second = (t.tests().set_index("covariate").loc["kind"] for t in trees)
    assert second["statistic"] == pytest.approx(first["statistic"], rel=1e-8)
    assert first["p_value"] < 0.01


def test_a_node_without_mle_is_a_leaf_that_says_why():
    rk = rs.Rankings.from_orderings([["a", "b", "c"]] * 20 + [["a", "c", "b"]] * 20)
    covariates = pd.DataFrame({"g": ["u"] * 20 + ["v"] * 20}, index=rk.rankers)
    tree = rs.models.rank_tree(rk, covariates)
    assert len(tree.nodes) == 1
    assert "MLE does not exist" in tree.node(1).note
    assert tree.worths().isna().all().all()


def test_predict_refuses_in_one_line(two_groups):
    _, _, tree = two_groups
    cases = [
        (pd.DataFrame({"g": ["p", "zz"]}, index=["r1", "r2"]), ["'r2'", "'g'", "'zz'"]),
        (pd.DataFrame({"g": ["p", None]}, index=["r1", "r2"]), ["'r2'", "'g'", "missing"]),
        (pd.DataFrame({"h": ["p"]}), ["'h'", "unknown"]),
        (pd.DataFrame({"x": [0.3]}), ["'g'", "missing"]),
    ]
    for frame, needles in cases:
        with pytest.raises(InvalidScoresError) as err:
            tree.predict(frame)
        message = str(err.value)
        assert "\n" not in message
        for needle in needles:
            assert needle in message, (needle, message)


def test_numeric_prediction_refuses_text():
    rng = np.random.default_rng(8)
    x = rng.uniform(0, 10, size=100)
    theta = np.where((x > 5)[:, None], [[-1.0, 0, 0, 1]], [[1.0, 0, 0, -1]])
    rk = pl_rankings(theta, rng)
    tree = rs.models.rank_tree(rk, pd.DataFrame({"x": x}, index=rk.rankers))
    assert tree.predict(pd.DataFrame({"x": [1.0, 9.0]})).tolist() == [2, 3]
    with pytest.raises(InvalidScoresError, match="'x' = 'high' is not a number"):
        tree.predict(pd.DataFrame({"x": [1.0, "high"]}, index=["r1", "r2"]))


def test_bad_covariates_are_refused_naming_row_and_column(two_groups):
    rk, covariates, _ = two_groups
    nan = covariates.copy()
    nan.loc[nan.index[3], "x"] = np.nan
    cases = [
        (nan, ["'x'", repr(str(nan.index[3]))]),
        (covariates.iloc[1:], ["no row", repr(str(covariates.index[0]))]),
        (pd.concat([covariates, covariates.iloc[:1].set_axis(["ghost"])]), ["'ghost'"]),
        (covariates.assign(when=pd.Timestamp("2024-01-01")), ["'when'", "datetime"]),
        (pd.concat([covariates.iloc[:1], covariates]), ["several rows"]),
    ]
    for frame, needles in cases:
        with pytest.raises(InvalidScoresError) as err:
            rs.models.rank_tree(rk, frame)
        message = str(err.value)
        assert "\n" not in message
        for needle in needles:
            assert needle in message, (needle, message)
    with pytest.raises(ValueError, match="alpha"):
        rs.models.rank_tree(rk, covariates, alpha=1.5)


def test_a_text_column_of_numbers_with_a_typo_is_refused(two_groups):
    """pandas.read_csv reads a numeric column with one typo as text: as categories it would have
    one level per ranker and another test. Refused naming the cell; a category dtype is meant."""
    rk, covariates, _ = two_groups
    typo = covariates.assign(x=covariates["x"].map(str).astype(object))
    typo.loc[typo.index[5], "x"] = "0.3O"
    typo.loc[typo.index[7], "x"] = "inf"
    with pytest.raises(InvalidScoresError) as err:
        rs.models.rank_tree(rk, typo)
    message = str(err.value)
    assert "\n" not in message
    for needle in ("'x'", "2 value(s)", repr(str(typo.index[5])), "'0.3O'", "'inf'", "category"):
        assert needle in message, (needle, message)
    # numbers written as text throughout, or a category column, are categories as asked
    codes = covariates.assign(x=np.where(covariates["x"] > 0.5, "1", "2"))
    assert rs.models.rank_tree(rk, codes).covariates["x"] == "categorical"
    assert (
        rs.models.rank_tree(rk, typo.astype({"x": "category"}), max_depth=0).covariates["x"]
        == "categorical"
    )


def test_figure_draws_names_literally(two_groups):
    rk, covariates, _ = two_groups
    renamed = rs.Rankings(rk.ranks, ("$a$", "b_1", "c^2", "d"), rk.rankers)
    tree = rs.models.rank_tree(renamed, covariates.rename(columns={"g": "$g$"}))
    fig = tree.plot()
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    ticks = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels()]
    assert r"\$a\$" in ticks
    assert any(r"\$g\$" in t for t in texts)


def test_many_levels_are_ordered_then_cut():
    """Above ``max_levels`` the levels are ordered by their mean scores and cut like a number:
    the two levels whose worths differ end up on one side."""
    rng = np.random.default_rng(10)
    n = 320
    level = rng.choice(["k", "l", "m", "o"], size=n)
    theta = np.tile([1.0, 0.5, 0.0, -0.5], (n, 1))
    theta[np.isin(level, ["l", "o"]), 3] = 2.0
    rk = pl_rankings(theta, rng)
    covariates = pd.DataFrame({"level": level}, index=rk.rankers)
    split = rs.models.rank_tree(rk, covariates, max_levels=2, max_depth=1).node(1).split
    assert {split.left_levels, split.right_levels} == {("k", "m"), ("l", "o")}
