r"""Item fit: S-X² (Orlando & Thissen, 2000) and infit / outfit mean squares.

**S-X²** compares, within each group of systems with the same summed score ``k``, the observed
proportion :math:`O_{ik}` right on item ``i`` with the model's

.. math:: E_{ik} = \frac{\int P_i(\theta)\, S^{(-i)}_{k-1}(\theta)\, \phi(\theta)\, d\theta}
                        {\int S_k(\theta)\, \phi(\theta)\, d\theta},

where :math:`S_k(\theta)` is the probability of summed score ``k`` (the Lord–Wingersky recursion
over items on the quadrature grid) and :math:`S^{(-i)}` the same without item ``i``;
:math:`S\text{-}X^2_i = \sum_k N_k (O_{ik} - E_{ik})^2 / (E_{ik}(1 - E_{ik}))`, on
(groups − free parameters of the item) degrees of freedom. Scores 0 and ``I`` carry no
information and are left out; adjacent groups are merged from the tails inward until every
group expects at least ``min_expected`` right and wrong answers (mirt's ``mincell = 1``; mirt's
merging rule differs in detail when cells are sparse). It needs complete binary responses.

**Infit / outfit** (Wright & Masters, 1982) are the information-weighted and unweighted means
of the squared standardised residuals :math:`z_{si} = (y_{si} - P_i(\hat\theta_s)) /
\sqrt{P_i(1 - P_i)}` over the systems that answered item ``i`` (expected value 1 under the
model), at the fit's abilities.

References
----------
Orlando, M. and Thissen, D. (2000). Likelihood-based item-fit indices for dichotomous item
response theory models. *Applied Psychological Measurement* 24(1), 50–64.
Lord, F. M. and Wingersky, M. S. (1984). Comparison of IRT true-score and equipercentile observed-
score "equatings". *Applied Psychological Measurement* 8(4), 453–461.
Wright, B. D. and Masters, G. N. (1982). *Rating Scale Analysis*. MESA Press.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import chi2

from rankstats.irt.item_models import ItemParameters, Quadrature, correct_probability

#: Most items S-X² is computed for (one Lord–Wingersky recursion per item: O(I² Q)).
MAX_ITEMS_SX2 = 2000


def summed_score_probabilities(p: np.ndarray) -> np.ndarray:
    """``(I + 1) × Q`` probabilities of each summed score given θ (Lord–Wingersky), from the
    ``(I × Q)`` probabilities of a right answer."""
    n_items, n_points = p.shape
    dist = np.zeros((n_items + 1, n_points))
    dist[0] = 1.0
    for i in range(n_items):
        shifted = np.zeros_like(dist)
        shifted[1:] = dist[:-1] * p[i]
        dist = dist * (1.0 - p[i]) + shifted
    return dist


def _merge(observed: np.ndarray, expected: np.ndarray, counts: np.ndarray, min_expected: float):
    """Merge adjacent score groups from both tails until each expects ``min_expected`` right
    and wrong answers; returns (right observed, right expected, group sizes) of the groups."""
    right_o, right_e, n = list(observed * counts), list(expected * counts), list(counts)

    def small(k):
        return right_e[k] < min_expected or n[k] - right_e[k] < min_expected

    for side in (0, -1):
        while len(n) > 1 and small(side):
            k, j = (0, 1) if side == 0 else (len(n) - 1, len(n) - 2)
            right_o[j] += right_o[k]
            right_e[j] += right_e[k]
            n[j] += n[k]
            del right_o[k], right_e[k], n[k]
    return np.array(right_o), np.array(right_e), np.array(n)


def s_x2(
    values: np.ndarray,
    items: ItemParameters,
    quadrature: Quadrature,
    n_free: np.ndarray,
    min_expected: float = 1.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(statistic, df, p-value)`` of S-X² for every item of a complete 0/1 matrix."""
    n_items = values.shape[1]
    p = correct_probability(items, quadrature.points)
    weights = quadrature.weights
    full = summed_score_probabilities(p)
    totals = values.sum(axis=1).astype(int)
    scores = np.arange(1, n_items)
    counts = np.bincount(totals, minlength=n_items + 1)[scores].astype(np.float64)
    denominators = full[scores] @ weights
    stat, df = np.full(n_items, np.nan), np.full(n_items, np.nan)
    for i in range(n_items):
        rest = summed_score_probabilities(np.delete(p, i, axis=0))
        expected = (rest[scores - 1] * p[i]) @ weights / denominators
        right = np.bincount(totals, weights=values[:, i], minlength=n_items + 1)[scores]
        observed = right / np.clip(counts, 1, None)
        keep = counts > 0
        o, e, n = _merge(observed[keep], expected[keep], counts[keep], min_expected)
        stat[i] = np.sum((o - e) ** 2 / (e * (1.0 - e / n)))
        df[i] = len(n) - n_free[i]
    pvalue = np.where(df > 0, chi2.sf(stat, np.clip(df, 1, None)), np.nan)
    return stat, df, pvalue


def infit_outfit(
    values: np.ndarray, items: ItemParameters, theta: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Infit and outfit mean squares of each item at abilities ``theta`` (observed cells)."""
    observed = ~np.isnan(values)
    p = correct_probability(items, theta).T  # S × I
    var = p * (1.0 - p)
    resid2 = np.where(observed, (np.nan_to_num(values) - p) ** 2, 0.0)
    n = observed.sum(axis=0)
    outfit = np.sum(np.where(observed, resid2 / np.clip(var, 1e-300, None), 0.0), axis=0) / n
    infit = resid2.sum(axis=0) / np.sum(np.where(observed, var, 0.0), axis=0)
    return infit, outfit
