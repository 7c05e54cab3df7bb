"""The exact posterior of a Mallows model on 4 items, against which the Metropolis sampler's
draws are checked (tests/models/test_mallows_metropolis.py, test_mallows_augmentation.py):
every consensus ρ, α on a 20,001-point grid up to 200, each assessor's likelihood summed over
the complete rankings compatible with what they stated."""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.special import logsumexp

from rankstats.core.permutations.distances import rank_distance
from rankstats.core.permutations.partition import partition_function

#: Rate of α's exponential prior in the checks (a proper, weak prior).
ALPHA_RATE = 0.05


def exact_posterior(
    completions: list[np.ndarray], n: int, distance: str, alpha_shape: float = 1.0
) -> tuple[dict[tuple[int, ...], float], float]:
    """P(ρ | data) of every consensus and E[α | data] under α ~ Gamma(``alpha_shape``,
    :data:`ALPHA_RATE`); ``completions[j]``: the complete rankings compatible with assessor
    ``j`` (one row for a complete ranking)."""
    consensuses = [np.array(p) for p in itertools.permutations(range(1, n + 1))]
    grid = np.linspace(0.0, 200.0, 20_001)
    log_z = partition_function(n, distance).log_z(grid)
    with np.errstate(divide="ignore"):
        log_prior = (alpha_shape - 1) * np.log(grid) if alpha_shape != 1 else 0.0
    log_joint = []
    for rho in consensuses:
        total = log_prior - ALPHA_RATE * grid - len(completions) * log_z
        for options in completions:
            d = rank_distance(np.atleast_2d(options), rho, distance)
            total = total + logsumexp(-grid[:, None] / n * d[None, :], axis=1)
        log_joint.append(total)
    weight = np.exp(np.array(log_joint) - np.max(log_joint))
    mass = np.trapezoid(weight, grid, axis=1)
    marginal = {tuple(rho): m / mass.sum() for rho, m in zip(consensuses, mass, strict=True)}
    return marginal, float(np.trapezoid(weight * grid, grid, axis=1).sum() / mass.sum())


def batch_se(x: np.ndarray, batches: int = 40) -> float:
    """Standard error of the mean of a chain by batch means."""
    means = x[: len(x) // batches * batches].reshape(batches, -1).mean(axis=1)
    return float(means.std(ddof=1) / math.sqrt(batches))


def assert_draws_match(chain, marginal: dict, mean_alpha: float, burn: int, label: object) -> None:
    """Every consensus's frequency within 4 batch s.e. + 0.01 of its probability, and E[α]
    within 4 s.e. + 2 %."""
    rho, alpha = chain.rho[burn:], chain.alpha[burn:]
    codes = np.array([hash(tuple(r)) for r in rho])
    for key, probability in marginal.items():
        hit = (codes == hash(key)).astype(float)
        assert abs(hit.mean() - probability) < 4 * batch_se(hit) + 0.01, (label, key)
    assert abs(alpha.mean() - mean_alpha) < 4 * batch_se(alpha) + 0.02 * mean_alpha, label
