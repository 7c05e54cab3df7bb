"""The vectorised normal approximation of Wilcoxon's signed-rank test
(rankstats.significance.signed_rank_sums) against ``scipy.stats.wilcoxon`` row by row, and the
post-hoc test that uses it against scipy pair by pair on a larger table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats.significance.posthoc_tests import posthoc
from rankstats.significance.signed_rank_sums import signed_rank_asymptotic
from rankstats.significance.zero_methods import ZERO_METHODS


def _differences(kind: str, rows: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "continuous":
        return rng.normal(size=(rows, n))
    if kind == "ties":  # tied |d| of both signs, a few zeros
        return rng.integers(-4, 5, size=(rows, n)) * 0.25
    return rng.integers(-1, 2, size=(rows, n)) * rng.integers(1, 3, size=(rows, n)) * 1.5


@pytest.mark.parametrize("zero_method", ZERO_METHODS)
@pytest.mark.parametrize("kind", ["continuous", "ties", "zeros"])
@pytest.mark.parametrize("n", [3, 14, 51, 400])
def test_equals_scipy_row_by_row(zero_method, kind, n):
    d = _differences(kind, 30, n, n)
    d[0] = 0.0  # nothing left (wilcox), or only zeros
    d[1, : n // 2] = 0.0  # many zeros
    d[2] = -d[2]
    statistic, p = signed_rank_asymptotic(d, zero_method)
    for row in range(len(d)):
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = stats.wilcoxon(d[row], method="asymptotic", zero_method=zero_method)
        assert statistic[row] == pytest.approx(expected.statistic, rel=1e-12, nan_ok=True)
        assert p[row] == pytest.approx(expected.pvalue, rel=1e-10, abs=0, nan_ok=True)


def test_signs_and_ties_hand_counted():
    # |d| = 1, 2, 2, 3 → ranks 1, 2.5, 2.5, 4; W+ = 1 + 2.5 = 3.5, W− = 6.5; n = 4,
    # Σ(t³ − t) = 6: σ² = (4·5·9 − 3) / 24 = 7.375, z = (3.5 − 5) / √7.375.
    statistic, p = signed_rank_asymptotic(np.array([[1.0, -2.0, 2.0, -3.0]]))
    assert statistic[0] == 3.5
    assert p[0] == pytest.approx(2 * stats.norm.sf(1.5 / np.sqrt(7.375)), rel=1e-13)


def test_posthoc_on_a_larger_table_equals_scipy_for_a_subset_of_pairs():
    rng = np.random.default_rng(7)
    n, k = 400, 30
    values = np.round(rng.normal(size=(n, k)) + np.linspace(0, 1, k), 1)  # ties and zeros
    frame = pd.DataFrame(values.T, columns=[f"b{i}" for i in range(n)])
    frame.insert(0, "system", [f"s{j}" for j in range(k)])
    res = posthoc(rs.Scores.from_wide(frame), method="wilcoxon-holm", effect_sizes=False)
    table = res.table.iloc[::17]
    for a, b, statistic, p in table[["system_a", "system_b", "statistic", "p_value"]].itertuples(
        index=False
    ):
        expected = stats.wilcoxon(values[:, int(a[1:])], values[:, int(b[1:])])
        assert statistic == pytest.approx(expected.statistic, rel=1e-12)
        assert p == pytest.approx(expected.pvalue, rel=1e-10)
