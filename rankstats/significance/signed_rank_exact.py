r"""The exact null distribution of Wilcoxon's signed-rank statistic with zeros and ties.

Under the null hypothesis every sign pattern of the differences is equally likely; with zeros or
tied magnitudes the statistic :math:`T^+ = \sum_{d_i > 0} r_i` (mid-ranks :math:`r_i` of
:math:`|d_i|`) has no tabulated law, and ``scipy.stats.wilcoxon`` then runs a permutation test
over the :math:`2^n` sign flips, exact for :math:`n \le 13` (``method="auto"``). That enumeration
costs :math:`2^n` evaluations of the statistic per sample, which made power simulations of small
samples with zeros slow. Here the same distribution comes from the standard recursion over the
observations (doubled mid-ranks are integers):

.. math:: c_k(s) = c_{k-1}(s) + c_{k-1}(s - 2r_k), \qquad c_0 = \delta_0,

the count of sign patterns of the first ``k`` observations whose doubled :math:`T^+` is ``s``; a
zero difference contributes nothing to :math:`T^+` whatever its sign (its factor 2 cancels). The
two-sided p-value is scipy's, :math:`\min(1, 2 \min(P(T^+ \le t), P(T^+ \ge t)))`, vectorised over
samples: the same numbers, exactly (dyadic fractions), without the enumeration.
"""

from __future__ import annotations

import numpy as np

from rankstats.core.rankings import average_ranks

#: Largest sample scipy's ``method="auto"`` tests by enumerating its sign flips.
EXACT_MAX = 13


def signed_rank_exact_p_values(d: np.ndarray, zero_method: str = "wilcox") -> np.ndarray:
    """Two-sided p-values of the Wilcoxon signed-rank test, one per column of ``d`` (``(n, C)``,
    no NaN), by the exact law of :math:`T^+` over the :math:`2^n` sign patterns: those of
    ``scipy.stats.wilcoxon(column, zero_method=zero_method, method=PermutationMethod())`` for
    ``n`` ≤ 13. ``zero_method`` as scipy's (``"wilcox"``: zeros left out of the ranking;
    ``"pratt"``: ranked, counted in neither sum; ``"zsplit"``: ranked, half of their ranks on
    each side — a constant shift of :math:`T^+` and of its law). A column of zeros has
    p-value 1, as scipy's enumeration.
    """
    d = np.asarray(d, dtype=np.float64)
    n, columns = d.shape
    zero = d == 0
    magnitude = np.abs(d).T  # one sample per row
    if zero_method == "wilcox":
        magnitude = np.where(zero.T, np.nan, magnitude)  # NaN: left out, ranked last
    ranks = np.nan_to_num(average_ranks(-magnitude))  # mid-ranks of |d|, 1 = the least
    doubled = np.rint(2 * ranks).astype(np.int64)
    doubled = np.where(zero.T, 0, doubled)  # a zero adds nothing to T⁺ whatever its sign
    observed = np.where(d.T > 0, doubled, 0).sum(axis=1)
    total = doubled.sum(axis=1)
    counts = np.zeros((columns, int(total.max(initial=0)) + 1))
    counts[:, 0] = 1.0
    sums = np.arange(counts.shape[1])
    rows = np.arange(columns)[:, None]
    for k in range(n):  # the recursion over observations, every sample at once
        back = sums - doubled[:, k : k + 1]
        counts = counts + np.where(back >= 0, counts[rows, np.maximum(back, 0)], 0.0)
    cumulative = np.cumsum(counts, axis=1)
    patterns = cumulative[:, -1]
    below = cumulative[np.arange(columns), observed] / patterns
    before = cumulative[np.arange(columns), np.maximum(observed - 1, 0)]
    above = 1.0 - np.where(observed > 0, before, 0.0) / patterns
    return np.clip(2.0 * np.minimum(below, above), 0.0, 1.0)
