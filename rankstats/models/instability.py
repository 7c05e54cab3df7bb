r"""Score-based tests of parameter instability along a covariate (Zeileis & Hornik 2007).

A model fitted by maximum likelihood to ``n`` independent units (rankers, or tasks whose
instance rankings are summed) has score contributions :math:`\psi_i = \psi(y_i, \hat\theta)`
that add up to zero.  Ordered by a covariate, their partial sums fluctuate like a Brownian
bridge when the parameters are the same for every unit, and drift when they change with the
covariate.  With the outer product of gradients :math:`\hat J = \sum_i \psi_i\psi_i^\top`
(the ``k``-dimensional identified scores: the Plackett–Luce log-likelihood depends on
differences of log-worths only, so the last system's coordinate is dropped; any ``N − 1``
contrasts give the same statistics, as the tests check):

**Numeric covariate** — the supremum of the LM statistics of a single change point
(Andrews 1993), evaluated at the changes of the covariate's value with both sides beyond the
trimming :math:`\pi`:

.. math:: \sup LM = \max_{\pi \le t_m \le 1 - \pi}
          \frac{S_m^\top \hat J^{-1} S_m}{t_m (1 - t_m)}, \qquad
          S_m = \sum_{i \le m} \psi_{(i)}, \quad t_m = m / n,

whose null limit is :math:`\sup_{\pi \le t \le 1-\pi} \|B(t)\|^2 / (t(1-t))` for a
``k``-dimensional Brownian bridge ``B``.  Its p-value is simulated (:func:`sup_lm_null`): with
:math:`s = \log(t / (1 - t))`, :math:`B(t) / \sqrt{t(1-t)}` is a stationary Ornstein–Uhlenbeck
process with correlation :math:`e^{-|s - s'|/2}`, drawn exactly as an AR(1) on a grid of step
``Δs``; the sup over the grid is corrected for the gaps between grid points by the
Broadie–Glasserman–Kou shift :math:`0.5826\sqrt{\Delta s}` of the running maximum of
:math:`\|Z\|`.  The draws are cached per ``(k, π)`` and seeded, so p-values are reproducible.

**Categorical covariate** with ``C`` levels observed — the LM (score) test of separate
parameters per level:

.. math:: \chi^2 = \sum_{c=1}^{C} \frac{S_c^\top \hat J^{-1} S_c}{n_c / n}
          \;\sim\; \chi^2_{k (C - 1)}, \qquad S_c = \sum_{i \in c} \psi_i .

References
----------
Andrews (1993) *Econometrica* 61, 821–856.  Hansen (1997) *J. Bus. Econ. Statist.* 15, 60–67.
Zeileis & Hornik (2007) *Statistica Neerlandica* 61, 488–508.  Zeileis, Hothorn & Hornik
(2008) *J. Comput. Graph. Statist.* 17, 492–514.  Broadie, Glasserman & Kou (1997) *Math.
Finance* 7, 325–349 (the continuity correction).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import signal, stats

#: Step of the simulation grid in log-odds time ``s`` (small enough that the corrected sup
#: agrees with a four times finer grid to Monte Carlo error; tests/models).
GRID_STEP = 0.01
#: The Broadie–Glasserman–Kou constant −ζ(1/2)/√(2π).
BGK = 0.5826
_DRAW_BLOCK = 4_000_000  # normal draws per block of the simulation


@dataclass(frozen=True)
class InstabilityTest:
    """One covariate's test: ``test`` is ``"supLM"`` (numeric) or ``"chi2"`` (categorical);
    ``df`` is ``k`` for supLM (the dimension of the Brownian bridge) and ``k (C − 1)`` for χ².
    ``at_floor``: the statistic exceeds every simulated null draw, so ``p_value`` is the
    smallest the simulation can give, ``1 / (n_draws + 1)``, and reads as a bound: p ≤ it."""

    covariate: str
    test: str
    statistic: float
    df: int
    p_value: float
    at_floor: bool = False


def identified(scores: np.ndarray) -> np.ndarray:
    """The score contributions without the last system's coordinate (rows sum to zero, so the
    dropped column is minus the sum of the others: no information is lost)."""
    return scores[:, :-1]


def information_inverse(scores: np.ndarray) -> np.ndarray | None:
    r""":math:`\hat J^{-1}` of the identified scores (``None`` when :math:`\hat J` is singular,
    e.g. fewer units than parameters: the tests are then not defined)."""
    opg = scores.T @ scores
    if np.linalg.matrix_rank(opg) < opg.shape[0]:
        return None
    return np.linalg.inv(opg)


def sup_lm(scores: np.ndarray, values: np.ndarray, trim: float, inverse: np.ndarray) -> float:
    """The supLM statistic of ``scores`` ordered by the numeric ``values`` (NaN when no change
    point lies within the trimming)."""
    n = len(values)
    order = np.argsort(values, kind="stable")
    x = values[order]
    partial = np.cumsum(scores[order], axis=0)[:-1]  # S_m, m = 1 .. n − 1
    m = np.arange(1, n)
    t = m / n
    admissible = (x[:-1] < x[1:]) & (m >= np.ceil(trim * n)) & (m <= np.floor((1 - trim) * n))
    if not admissible.any():
        return float("nan")
    quad = np.einsum("mi,ij,mj->m", partial[admissible], inverse, partial[admissible])
    return float(np.max(quad / (t[admissible] * (1.0 - t[admissible]))))


@lru_cache(maxsize=64)
def sup_lm_null(k: int, trim: float, n_draws: int = 10_000, seed: int = 0) -> np.ndarray:
    r"""Sorted draws of :math:`\sup_{\pi \le t \le 1-\pi} \|B(t)\|^2 / (t (1 - t))` for a
    ``k``-dimensional Brownian bridge (the module docstring gives the construction).

    Cached per ``(k, trim, n_draws, seed)``; the same arguments give the same draws.
    """
    if not 0 < trim < 0.5:
        raise ValueError(f"trim must be in (0, 0.5), got {trim}")
    half = np.log((1.0 - trim) / trim)
    steps = int(np.ceil(2 * half / GRID_STEP))
    step = 2 * half / steps
    rho = np.exp(-step / 2)
    gain = np.sqrt(1.0 - rho * rho)
    rng = np.random.Generator(np.random.PCG64(seed))
    block = max(1, _DRAW_BLOCK // ((steps + 1) * k))
    sup = np.empty(n_draws)
    for lo in range(0, n_draws, block):
        b = min(block, n_draws - lo)
        noise = rng.standard_normal((b, steps + 1, k))
        noise[:, 0] /= gain  # the first value is the stationary N(0, 1) start
        path = signal.lfilter([gain], [1.0, -rho], noise, axis=1)
        radius = np.sqrt(np.max(np.einsum("bsk,bsk->bs", path, path), axis=1))
        sup[lo : lo + b] = (radius + BGK * np.sqrt(step)) ** 2
    sup.sort()
    sup.flags.writeable = False
    return sup


def sup_lm_p_value(statistic: float, k: int, trim: float, n_draws: int, seed: int) -> float:
    """Monte Carlo p-value ``(1 + #{draws ≥ statistic}) / (1 + n_draws)`` (never 0)."""
    if not np.isfinite(statistic):
        return 1.0
    draws = sup_lm_null(k, float(trim), n_draws, seed)
    above = len(draws) - np.searchsorted(draws, statistic, side="left")
    return float((1 + above) / (1 + len(draws)))


def categorical_lm(scores: np.ndarray, codes: np.ndarray, inverse: np.ndarray) -> tuple[float, int]:
    """The χ² statistic and its degrees of freedom ``k (C − 1)`` over the ``C`` levels
    present in ``codes`` (integer level of each unit)."""
    n, k = scores.shape
    present, codes = np.unique(codes, return_inverse=True)
    sums = np.zeros((len(present), k))
    np.add.at(sums, codes, scores)
    counts = np.bincount(codes, minlength=len(present))
    quad = np.einsum("ci,ij,cj->c", sums, inverse, sums)
    return float(np.sum(quad / (counts / n))), k * (len(present) - 1)


def instability_tests(
    scores: np.ndarray,
    covariates: dict[str, tuple[np.ndarray, bool]],
    trim: float,
    n_draws: int = 10_000,
    seed: int = 0,
) -> list[InstabilityTest] | None:
    """Test every covariate: ``covariates`` maps a name to ``(values, numeric)`` (numeric
    values, or integer level codes), one value per row of ``scores`` (the identified score
    contributions at the MLE, one row per unit).  ``None`` when :math:`\\hat J` is singular."""
    inverse = information_inverse(scores)
    if inverse is None:
        return None
    k = scores.shape[1]
    results = []
    for name, (values, numeric) in covariates.items():
        if numeric:
            stat = sup_lm(scores, values, trim, inverse)
            p = sup_lm_p_value(stat, k, trim, n_draws, seed)
            floor = p * (1 + n_draws) < 1.5  # (1 + 0 draws above) / (1 + n_draws)
            results.append(InstabilityTest(name, "supLM", stat, k, p, floor))
        else:
            stat, df = categorical_lm(scores, values, inverse)
            p = float(stats.chi2.sf(stat, df)) if df > 0 else 1.0
            results.append(InstabilityTest(name, "chi2", stat if df > 0 else np.nan, df, p))
    return results
