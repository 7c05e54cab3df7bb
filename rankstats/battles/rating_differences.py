r"""Which ratings of a battle fit differ: Wald tests of rating differences, interval separation.

Two decisions read off a Bradley–Terry fit of battles (:mod:`rankstats.battles.fitting`), each
computed here once, for one fit and for a stack of simulated fits (the power simulations of
:mod:`rankstats.planning.battle_replications`, leading axes):

- **Wald tests** of :math:`\theta_a - \theta_b` (:func:`wald_differences`): with the
  inverse observed information :math:`\Sigma` of the centred log-worths,
  :math:`z = (\hat\theta_a - \hat\theta_b) / \sqrt{\Sigma_{aa} + \Sigma_{bb} - 2\Sigma_{ab}}`,
  two-sided :math:`p = 2\Phi(-|z|)`, Holm-adjusted over every pair
  (:meth:`rankstats.BattleFit.differences`);
- **separated intervals** (:func:`intervals_above`): model ``a``'s Fisher interval
  :math:`\hat\theta_a \pm z_{1-\alpha/2}\sqrt{\Sigma_{aa}}` lies entirely above ``b``'s — the rule
  behind the leaderboard's "rank (UB)" (LMSYS; :meth:`rankstats.BattleFit.table`), stricter
  than the Wald test (two intervals can overlap while the difference is significant).
"""

from __future__ import annotations

import numpy as np
from scipy import stats


def pair_positions(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair ``a < b`` of ``n`` models, in ``np.triu_indices`` order."""
    return np.triu_indices(n, k=1)


def wald_differences(
    theta: np.ndarray, covariance: np.ndarray, a: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Difference :math:`\hat\theta_a - \hat\theta_b`, its standard error and the two-sided
    Wald p-value, for the pairs ``(a[k], b[k])``; ``theta (..., N)``, ``covariance (..., N, N)``
    (leading axes: a stack of fits)."""
    difference = theta[..., a] - theta[..., b]
    variance = covariance[..., a, a] + covariance[..., b, b] - 2.0 * covariance[..., a, b]
    se = np.sqrt(np.maximum(variance, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = difference / se
    p = 2.0 * stats.norm.sf(np.abs(z))
    return difference, se, np.where(np.isnan(p), 1.0, p)


def fisher_bounds(
    theta: np.ndarray, covariance: np.ndarray, confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    r"""Fisher (Wald) intervals :math:`\hat\theta_i \pm z\,\mathrm{se}_i` of the centred
    log-worths (:meth:`rankstats.BattleFit.intervals` without an anchor)."""
    n = theta.shape[-1]
    se = np.sqrt(np.maximum(covariance[..., np.arange(n), np.arange(n)], 0.0))
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    return theta - z * se, theta + z * se


def intervals_above(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``above[..., i, j]``: model ``i``'s interval lies entirely above model ``j``'s
    (``low_i > high_j``); ``1 + above.sum(axis=-2)`` is each model's rank (UB)."""
    return low[..., :, None] > high[..., None, :]
