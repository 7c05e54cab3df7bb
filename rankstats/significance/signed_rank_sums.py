r"""Wilcoxon's signed-rank test of many rows of paired differences at once, by the normal
approximation: the ``method="asymptotic"`` route of ``scipy.stats.wilcoxon`` (no continuity
correction), with scipy's three treatments of zero differences
(:mod:`rankstats.significance.zero_methods`), vectorised over the rows.

For one row of differences :math:`d_1, \dots, d_n` with ``n_0`` zeros, the absolute differences
are ranked (ties averaged) and

.. math::  z = \frac{W^+ - \mu}{\sigma}, \qquad
           \sigma^2 = \frac{m (m + 1)(2m + 1) - \tfrac12 \sum_g (t_g^3 - t_g)}{24},

:math:`W^+` the sum of the ranks of the positive differences and :math:`t_g` the sizes of the
groups of tied :math:`|d|`:

- ``"wilcox"``: the zeros are dropped, ``m = n − n_0``, :math:`\mu = m (m + 1) / 4`;
- ``"pratt"``: the zeros are ranked (smallest ranks) but count in neither sum; ``m = n`` and
  :math:`\mu`, :math:`\sigma^2` lose the terms of ranks ``1 … n_0`` (Cureton, 1967), the zeros'
  group is left out of the tie sum;
- ``"zsplit"``: the zeros are ranked and half of their ranks go to each sum; ``m = n``.

The two-sided p-value is :math:`2 \Phi(-|z|)` and the statistic ``min(W+, W−)``, as scipy
reports them. The rows are ranked by one sort of every row at once: the bits of
:math:`|d|` (a non-negative double orders as its bit pattern read as an unsigned integer, whose
top bit is 0) shifted left by one, with the sign of ``d`` in the freed lowest bit, so that an
unstable SIMD sort of integers gives both the order and the signs (``scipy.stats.wilcoxon``
ranks with a stable ``argsort`` per call: the cost of a post-hoc test of every pair).

References
----------
Wilcoxon, F. (1945). Individual comparisons by ranking methods. *Biometrics Bulletin* 1(6),
80–83.

Cureton, E. E. (1967). The normal approximation to the signed-rank sampling distribution when
zero differences are present. *Journal of the American Statistical Association* 62(319),
1068–1069.
"""

from __future__ import annotations

import numpy as np
from scipy import special


def signed_rank_asymptotic(d: np.ndarray, zero_method: str = "wilcox") -> tuple[np.ndarray, ...]:
    """Wilcoxon's signed-rank test of every row of ``d`` (``(rows, n)`` differences, finite)
    by the normal approximation: ``(statistic, p_value)``, as
    ``scipy.stats.wilcoxon(d, axis=1, method="asymptotic", zero_method=zero_method)``.

    A row of zeros only (``wilcox``: nothing left) gives NaN, as scipy does.

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([[1.0, -2.0, 3.0, 4.0, 0.0, 5.0, -0.5]])
    >>> statistic, p = signed_rank_asymptotic(d)
    >>> float(statistic[0]), round(float(p[0]), 4)
    (4.0, 0.173)
    """
    d = np.asarray(d, dtype=np.float64)
    rows, n = d.shape
    ordered = _sorted_keys(d)
    value = ordered >> np.uint64(1)  # the bits of |d|, in increasing order per row
    positive = (ordered & np.uint64(1)).astype(bool)
    n_zero = np.count_nonzero(value == 0, axis=1).astype(np.float64)
    plus, tie_sum = _rank_sums(value, positive)  # ranks 1 … n, zeros included
    zero_ranks = n_zero * (n_zero + 1.0) / 2.0  # the zeros' group: the smallest ranks
    zero_ties = n_zero**3 - n_zero
    total = n * (n + 1.0) / 2.0
    if zero_method == "wilcox":
        m = n - n_zero
        plus -= n_zero * np.count_nonzero(positive, axis=1)  # ranks among the non-zero only
        minus = m * (m + 1.0) / 2.0 - plus
        mean, var = m * (m + 1.0) / 4.0, m * (m + 1.0) * (2.0 * m + 1.0)
        tie_sum -= zero_ties
    else:
        minus = total - zero_ranks - plus
        mean, var = np.full(rows, n * (n + 1.0) / 4.0), np.full(rows, n * (n + 1.0) * (2 * n + 1.0))
        if zero_method == "pratt":
            mean = mean - zero_ranks / 2.0
            var = var - n_zero * (n_zero + 1.0) * (2.0 * n_zero + 1.0)
            tie_sum -= zero_ties
        else:  # "zsplit"
            plus += zero_ranks / 2.0
            minus += zero_ranks / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (plus - mean) / np.sqrt((var - tie_sum / 2.0) / 24.0)
    return np.minimum(plus, minus), 2.0 * special.ndtr(-np.abs(z))


def _sorted_keys(d: np.ndarray) -> np.ndarray:
    """Every row of ``d`` as sorted keys ``bits(|d|) << 1 | (d > 0)`` (uint64)."""
    keys = np.abs(d).view(np.uint64) << np.uint64(1)
    keys |= (d > 0).astype(np.uint64)
    keys.sort(axis=1)  # integers: NumPy's SIMD sort, in place
    return keys


def _rank_sums(value: np.ndarray, positive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of sorted ``value``: the sum of the (tie-averaged) ranks ``1 … n`` of the
    ``positive`` elements and :math:`\\sum_g (t_g^3 - t_g)` over the groups of equal values."""
    rows, n = value.shape
    if n == 0:
        return np.zeros(rows), np.zeros(rows)
    tied = value[:, 1:] == value[:, :-1]
    if not tied.any():  # continuous scores: the rank is the position
        return positive @ np.arange(1.0, n + 1.0), np.zeros(rows)
    start = np.ones((rows, n), dtype=bool)
    np.logical_not(tied, out=start[:, 1:])
    first = np.flatnonzero(start)  # flat positions of the groups (a row starts a group)
    size = np.diff(np.append(first, rows * n)).astype(np.float64)
    row = first // n
    average = (first - row * n) + (size + 1.0) / 2.0  # the group's mean rank, 1-based
    n_positive = np.add.reduceat(positive.ravel().astype(np.float64), first)
    plus = np.bincount(row, weights=average * n_positive, minlength=rows)
    return plus, np.bincount(row, weights=size**3 - size, minlength=rows)
