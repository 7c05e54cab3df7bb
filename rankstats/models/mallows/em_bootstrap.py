r"""Parametric bootstrap of the likelihood-ratio test of ``K`` against ``K + 1`` Mallows clusters
(McLachlan 1987), for the EM fits of :mod:`rankstats.models.mallows.em`.

The statistic :math:`\Lambda = 2(\ell_{K+1} - \ell_K)` has no chi-square law here (the ``K``
model sits on the boundary of the ``K + 1`` one, and the consensuses are discrete), so its null
law is simulated: ``draws`` data sets of the same size from the fitted ``K``-cluster mixture
(each cluster's exact sampler, :func:`~rankstats.core.permutations.sampling.sample_mallows`),
each refitted with ``K`` and ``K + 1`` clusters; :math:`p = (1 + \#\{\Lambda_b \ge \Lambda\}) /
(1 + B)`.

McLachlan, G. J. (1987). On bootstrapping the likelihood ratio test statistic for the number of
components in a normal mixture. *JRSS C* 36(3), 318–324.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from rankstats.core.permutations.sampling import sample_mallows
from rankstats.models.mallows.em import _check_ranks, mallows_em
from rankstats.models.mallows.em_result import MallowsEMFit


@dataclass(frozen=True)
class ClustersTest:
    """The bootstrap likelihood-ratio test of ``clusters`` against ``clusters + 1``.

    Attributes
    ----------
    clusters : int
    statistic : float
        :math:`2(\\ell_{K+1} - \\ell_K)` on the data.
    p_value : float
    null : ndarray
        The statistic on each simulated data set.
    """

    clusters: int
    statistic: float
    p_value: float
    null: np.ndarray = field(repr=False)


def simulate_mixture(fit: MallowsEMFit, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` rankings from the fitted mixture (clusters drawn by weight, then each cluster's
    Mallows model)."""
    counts = rng.multinomial(size, fit.weight / fit.weight.sum())
    parts = [
        sample_mallows(rho, float(alpha), fit.distance, int(m), rng)
        for rho, alpha, m in zip(fit.consensus, fit.alpha, counts, strict=True)
        if m > 0
    ]
    return rng.permutation(np.concatenate(parts))


def bootstrap_clusters(
    data,
    clusters: int,
    *,
    distance: str = "kendall",
    draws: int = 99,
    starts: int = 20,
    seed: int = 0,
) -> ClustersTest:
    """Test ``clusters`` against ``clusters + 1`` Mallows clusters (module docstring).

    Each fit (on the data and on every simulated set) uses ``starts`` EM starts.
    """
    ranks, _, _ = _check_ranks(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the starts' notes, once per refit
        small = mallows_em(ranks, clusters, distance=distance, starts=starts, seed=seed)
        large = mallows_em(ranks, clusters + 1, distance=distance, starts=starts, seed=seed)
        statistic = max(2.0 * (large.log_likelihood - small.log_likelihood), 0.0)
        rng = np.random.default_rng(seed)
        null = np.empty(draws)
        for b in range(draws):
            sim = simulate_mixture(small, len(ranks), rng)
            fit_k = mallows_em(sim, clusters, distance=distance, starts=starts, seed=b)
            fit_k1 = mallows_em(sim, clusters + 1, distance=distance, starts=starts, seed=b)
            null[b] = max(2.0 * (fit_k1.log_likelihood - fit_k.log_likelihood), 0.0)
    p = (1 + int(np.sum(null >= statistic))) / (1 + draws)
    return ClustersTest(clusters, float(statistic), float(p), null)
