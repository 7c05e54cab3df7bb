"""The exact signed-rank law with zeros and ties against scipy's enumeration of the sign flips."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from rankstats.paired_analysis.paired_tests import wilcoxon_p_values
from rankstats.significance.signed_rank_exact import signed_rank_exact_p_values


def _scipy(d: np.ndarray, zero_method: str, method: object) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.array(
            [stats.wilcoxon(c, zero_method=zero_method, method=method).pvalue for c in d.T]
        )


# n = 10 and 13 (scipy enumerates 1,024 and 8,192 sign flips a column: 10 columns take 1 s and
# 7 s a case): with the slow checks
SLOW = pytest.mark.slow
SIZES = [2, 3, 5, 8, pytest.param(10, marks=SLOW), pytest.param(13, marks=SLOW)]


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("n", SIZES)
def test_equal_to_scipy_s_permutation_test(zero_method: str, n: int) -> None:
    rng = np.random.default_rng(n)
    columns = 40 if n <= 8 else 10  # scipy enumerates 2^n sign flips for each column
    d = rng.integers(-3, 4, size=(n, columns)) * 0.5  # zeros and tied magnitudes
    d[:, 0] = 0.0  # a column of zeros
    d[:, 1] = np.arange(1, n + 1) * (-1.0) ** np.arange(n)  # neither zeros nor ties
    mine = signed_rank_exact_p_values(d, zero_method)
    expected = _scipy(d, zero_method, stats.PermutationMethod())
    assert np.allclose(mine, expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_equal_to_scipy_s_exact_law_without_ties_or_zeros(zero_method: str) -> None:
    d = np.random.default_rng(3).normal(0.4, 1.0, size=(11, 30))
    mine = signed_rank_exact_p_values(d, zero_method)
    assert np.allclose(mine, _scipy(d, zero_method, "exact"), rtol=1e-12)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_wilcoxon_p_values_still_equal_per_column_scipy_calls(zero_method: str) -> None:
    rng = np.random.default_rng(7)
    d = np.round(rng.normal(0.3, 1.0, size=(13, 16)), 0)  # scipy: ~0.15 s a column
    d[rng.random(d.shape) < 0.2] = np.nan  # columns of 2 .. 13 differences
    d[:11, :5] = np.nan
    d[1:, 5] = np.nan
    d[0, 5] = 0.0  # one zero difference: p = 1 (scipy's permutation test refuses one value)
    mine = wilcoxon_p_values(d, zero_method=zero_method)
    expected = [
        _scipy(c[~np.isnan(c)][:, None], zero_method, "auto")[0]
        if (~np.isnan(c)).sum() >= 2
        else 1.0
        for c in d.T
    ]
    assert np.allclose(mine, expected, rtol=1e-12)
