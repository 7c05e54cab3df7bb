"""``zero_method=``: Wilcoxon's zero differences (scipy's "wilcox", "pratt", "zsplit") in
``rs.posthoc(method="wilcoxon-holm")`` and ``rs.paired``, checked against
``scipy.stats.wilcoxon`` called pair by pair here and against Pratt's statistic with Cureton's
normal approximation written out in the test.

The CD-diagram repository whose example motivated the option (hfawaz/cd-diagram, GPL-3) is not
copied: its ``example.csv`` gives p = 0.433 (zeros dropped) against 0.361 (Pratt) for the pair
clf3–clf5 (15 data sets, 3 zero differences); the data here are built independently with the
same shape (15 blocks, zero differences, normal approximation).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats._util.advice import AdviceError
from rankstats.paired_analysis.paired_tests import wilcoxon_p_values
from rankstats.significance.posthoc_tests import posthoc
from rankstats.significance.zero_methods import ZERO_METHODS, check_zero_method


def _scores(values: np.ndarray) -> rs.Scores:
    n, k = values.shape
    frame = pd.DataFrame(values, columns=[f"s{j}" for j in range(k)])
    frame["task"] = [f"t{i}" for i in range(n)]
    return rs.Scores.from_long(frame.melt(id_vars="task", var_name="system", value_name="score"))


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment, written out (Holm 1979)."""
    order = np.argsort(p)
    m = len(p)
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(1.0, adjusted)
    return out


def _pratt_p(d: np.ndarray) -> float:
    """Two-sided p of Pratt's (1959) signed-rank test by the normal approximation with Cureton's
    (1967) null moments, without continuity correction (scipy's default): every |d| ranked
    (zeros included, ties averaged), W+ = the ranks of the positive differences,
    E W+ = (n(n+1) − n0(n0+1)) / 4,
    Var W+ = (n(n+1)(2n+1) − n0(n0+1)(2n0+1)) / 24 − Σ (t³ − t) / 48 over the tied groups of
    non-zero |d|."""
    n, n0 = len(d), int((d == 0).sum())
    ranks = stats.rankdata(np.abs(d))
    w_plus = ranks[d > 0].sum()
    mean = (n * (n + 1) - n0 * (n0 + 1)) / 4
    _, counts = np.unique(np.abs(d[d != 0]), return_counts=True)
    var = (n * (n + 1) * (2 * n + 1) - n0 * (n0 + 1) * (2 * n0 + 1)) / 24
    var -= np.sum(counts**3 - counts) / 48
    z = (w_plus - mean) / np.sqrt(var)
    return float(2 * stats.norm.sf(abs(z)))


@pytest.mark.parametrize("zero_method", ZERO_METHODS)
@pytest.mark.parametrize(("n", "k", "levels"), [(10, 2, 3), (15, 4, 4), (30, 3, 5), (60, 3, 6)])
def test_posthoc_equals_scipy_pair_by_pair(zero_method, n, k, levels):
    # Few levels: zero and tied differences in most pairs (n = 10: scipy's permutation test;
    # 15, 30: normal approximation with zeros; 60: above scipy's exact limit).
    rng = np.random.default_rng(n + k)
    values = (rng.integers(0, levels, size=(n, k)) + np.arange(k) * 0.5).astype(float)
    res = posthoc(_scores(values), method="wilcoxon-holm", zero_method=zero_method)
    assert res.zero_method == zero_method
    column = {f"s{j}": j for j in range(k)}
    expected = [
        stats.wilcoxon(values[:, column[a]], values[:, column[b]], zero_method=zero_method)
        for a, b in zip(res.table.system_a, res.table.system_b, strict=True)
    ]
    p = np.array([e.pvalue for e in expected])
    np.testing.assert_allclose(res.table["p_value"], p, rtol=1e-10)
    np.testing.assert_allclose(res.table["statistic"], [e.statistic for e in expected])
    np.testing.assert_allclose(res.table["p_adjusted"], _holm(p), rtol=1e-10)
    assert (res.table["significant"] == (_holm(p) < 0.05)).all()


def test_pratt_against_its_formula_and_the_default_on_a_cd_diagram_sized_pair():
    # 15 blocks, 3 zero differences (as clf3–clf5 of the CD-diagram example): Pratt's p from
    # the formula above; the default drops the zeros and ranks the 12 others (normal
    # approximation too, as scipy chooses with zeros present: the same formula without zeros).
    d = np.array([0.0, 0.0, 0.0, 0.012, -0.004, 0.02, 0.031, -0.009, 0.015, 0.002, -0.027, 0.04,
                  0.006, -0.011, 0.018])  # fmt: skip
    base = np.linspace(0.6, 0.9, 15)
    values = np.column_stack([base + d, base])
    pratt = posthoc(_scores(values), method="wilcoxon-holm", zero_method="pratt")
    default = posthoc(_scores(values), method="wilcoxon-holm")
    got_pratt, got_default = pratt.table["p_value"][0], default.table["p_value"][0]
    assert got_pratt == pytest.approx(_pratt_p(d), rel=1e-9)
    assert got_default == pytest.approx(_pratt_p(d[d != 0]), rel=1e-9)
    assert got_default == pytest.approx(stats.wilcoxon(d).pvalue, rel=1e-10)
    assert default.zero_method == "wilcox" and abs(got_pratt - got_default) > 0.01


def test_without_zero_differences_the_three_agree():
    rng = np.random.default_rng(3)
    values = rng.normal(size=(20, 4)) + np.arange(4) * 0.3
    tables = [
        posthoc(_scores(values), method="wilcoxon-holm", zero_method=z).table["p_value"]
        for z in ZERO_METHODS
    ]
    for other in tables[1:]:
        np.testing.assert_array_equal(tables[0], other)


def test_paired_equals_scipy_column_by_column_with_missing():
    rng = np.random.default_rng(5)
    d = np.round(rng.normal(0.3, 1.0, size=(24, 6)))  # many zeros and ties
    d[:, 5] = 0.0  # no difference at all
    d[rng.random(d.shape) < 0.2] = np.nan
    d[9:, 1] = np.nan  # at most 9 pairs left: permutation test (2**9 sign patterns)
    for zero_method in ZERO_METHODS:
        got = wilcoxon_p_values(d, zero_method=zero_method)
        for j in range(d.shape[1]):
            column = d[~np.isnan(d[:, j]), j]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = stats.wilcoxon(column, zero_method=zero_method).pvalue
            np.testing.assert_allclose(got[j], expected, rtol=1e-10, err_msg=zero_method)


def test_paired_records_its_zero_method():
    rng = np.random.default_rng(1)
    base = np.round(rng.normal(size=30), 1)
    frame = pd.DataFrame({"a": base, "b": np.round(base + rng.normal(0.1, 0.3, 30), 1)})
    res = rs.paired(frame, n_resamples=20, zero_method="zsplit")
    assert res.parameters["zero_method"] == "zsplit"
    expected = stats.wilcoxon(frame["a"], frame["b"], zero_method="zsplit").pvalue
    assert res.pairs["wilcoxon_p"][0] == pytest.approx(expected, rel=1e-10)
    assert rs.paired(frame, n_resamples=20).parameters["zero_method"] == "wilcox"


@pytest.mark.parametrize("bad", ["drop", "Pratt", None, 0])
def test_bad_zero_method_names_the_parameter(bad):
    with pytest.raises(AdviceError, match=r"^zero_method must be one of 'wilcox', 'pratt'") as e:
        check_zero_method(bad)
    assert e.value.cli().startswith("--zero-method must be one of")
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [1.0, 3.0, 2.0]})
    if bad is not None:
        with pytest.raises(AdviceError, match="zero_method"):
            rs.paired(frame, zero_method=bad)
        with pytest.raises(AdviceError, match="zero_method"):
            posthoc(_scores(np.eye(3)), method="wilcoxon-holm", zero_method=bad)


def test_zero_method_is_refused_with_the_rank_tests():
    scores = _scores(np.arange(12.0).reshape(4, 3))
    for method in ("nemenyi", "conover"):
        with pytest.raises(AdviceError, match="zero_method applies to method='wilcoxon-holm'"):
            posthoc(scores, method=method, zero_method="pratt")
        assert posthoc(scores, method=method).zero_method is None
