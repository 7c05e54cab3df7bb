"""rs.hoeffding_test: the result object equals the DataFrame route, field by field."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.aggregation.hoeffding_figure import significance_heatmap
from rankstats.aggregation.hoeffding_intervals import HoeffdingResult, significance_marks
from rankstats.core.rankings import Rankings, average_ranks

SYSTEMS = ("a", "b", "c", "d", "e")


@pytest.fixture(scope="module")
def pw():
    rng = np.random.default_rng(4)
    scores = rng.gumbel(loc=[1.5, 1.0, 0.9, 0.0, -1.0], size=(150, 5))
    scores[rng.random(scores.shape) < 0.25] = np.nan
    return rs.pairwise(Rankings(average_ranks(scores), SYSTEMS, pd.RangeIndex(150)))


PARAMETERS = [
    {},
    {"delta": 0.1, "correction": "none", "form": "paper"},
    {"delta": 0.01, "correction": "bonferroni", "estimand": "observed"},
    {"correction": "holm", "order": ["e", "c", "a", "d", "b"]},
]


@pytest.mark.parametrize("kwargs", PARAMETERS)
def test_fields_equal_the_dataframe_route(pw, kwargs):
    res = rs.hoeffding_test(pw, **kwargs)
    ci = rs.hoeffding(pw, **kwargs)
    pd.testing.assert_frame_equal(res.table, ci)
    for key, value in ci.attrs.items():
        field = getattr(res, key)
        assert (list(field) if key == "order" else field) == value, key
    assert res.delta == kwargs.get("delta", 0.05)
    assert res.correction == kwargs.get("correction", "holm")
    assert res.n_pairs == 10 and res.n_rankings == pw.n_rankings
    expected_level = res.delta if res.correction == "none" else res.delta / 10
    assert res.interval_level == pytest.approx(expected_level)
    assert list(res.order) == list(kwargs.get("order", SYSTEMS))
    assert res.n_significant == int(ci["significant"].sum() // 2)
    # The table's own parameters: the same result rebuilt from the attrs of rs.hoeffding.
    again = HoeffdingResult.from_table(ci)
    assert again.parameters == res.parameters


@pytest.mark.parametrize("kwargs", PARAMETERS)
def test_rank_range_and_marks_equal_significance_marks(pw, kwargs):
    res = rs.hoeffding_test(pw, **kwargs)
    marks = significance_marks(rs.hoeffding(pw, **kwargs), list(res.order))
    pd.testing.assert_frame_equal(res.marks(), marks)
    pd.testing.assert_frame_equal(res.rank_range(), marks[["system", "rank_low", "rank_high"]])
    assert res.rank_range()["system"].tolist() == list(res.order)


def test_matrices_equal_significance_matrix(pw):
    res = rs.hoeffding_test(pw, order=["d", "a", "e", "b", "c"])
    ci = res.table
    pd.testing.assert_frame_equal(res.matrix(), rs.significance_matrix(ci))
    pd.testing.assert_frame_equal(rs.significance_matrix(res, "estimate"), res.matrix("estimate"))
    significant = res.significant_matrix()
    assert significant.dtypes.eq(bool).all()
    assert list(significant.index) == list(res.order) == list(significant.columns)
    np.testing.assert_array_equal(significant.to_numpy(), significant.to_numpy().T)
    assert not np.diag(significant).any()
    expected = rs.significance_matrix(ci, "significant").fillna(False).astype(bool)
    np.testing.assert_array_equal(significant.to_numpy(), expected.to_numpy())
    assert significant.to_numpy().sum() == 2 * res.n_significant


def test_min_compared_for_significance_is_the_cli_bound(pw):
    for form in ("two-sided", "paper"):
        res = rs.hoeffding_test(pw, delta=0.05, correction="holm", form=form)
        level = 0.05 / 10
        log_term = np.log(2 / level) if form == "two-sided" else -np.log(level)
        assert res.log_term == pytest.approx(log_term)
        assert res.min_compared_for_significance() == int(np.floor(log_term / 0.5)) + 1


def test_frozen_readable_and_lost_attrs_refused(pw):
    res = rs.hoeffding_test(pw, delta=0.05)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.delta = 0.1
    text = repr(res)
    assert text.startswith(f"HoeffdingResult(5 systems, 10 pairs, {res.n_significant} significant)")
    assert "δ = 0.05, holm correction" in text and f"{pw.n_rankings} rankings" in text
    low, high = res.rank_range().iloc[0, 1:]
    assert f"{low}–{high}" in text.splitlines()[3]
    merged = res.table.merge(res.table[["system_a"]].drop_duplicates(), on="system_a")
    merged.attrs.clear()  # what a pandas operation or a CSV round trip leaves
    with pytest.raises(ValueError, match="hoeffding_test"):
        HoeffdingResult.from_table(merged)


def test_heatmap_accepts_the_result(pw):
    res = rs.hoeffding_test(pw, order=["b", "a", "c", "e", "d"])
    from_result = significance_heatmap(res).axes[0]
    from_table = significance_heatmap(res.table).axes[0]
    np.testing.assert_array_equal(
        from_result.images[0].get_array(), from_table.images[0].get_array()
    )
    assert from_result.get_title() == from_table.get_title()
    assert "δ = 0.05, holm correction, imputed estimand" in from_result.get_title()
    assert [t.get_text() for t in from_result.get_yticklabels()] == list(res.order)
