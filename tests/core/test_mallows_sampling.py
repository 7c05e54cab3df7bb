"""Draws of the Mallows model with any distance against the exact distribution: every
permutation's probability (chi-square) and the rank marginals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from rankstats.core.permutations.distances import DISTANCES, rank_distance
from rankstats.core.permutations.sampling import sample_mallows


def _exact(n: int, alpha: float, distance: str, rho: np.ndarray):
    perms = np.array(list(itertools.permutations(range(1, n + 1))))
    weight = np.exp(-alpha / n * rank_distance(perms, rho, distance))
    return perms, weight / weight.sum()


def _frequencies(draws: np.ndarray, perms: np.ndarray) -> np.ndarray:
    index = {tuple(p): i for i, p in enumerate(perms)}
    return np.bincount([index[tuple(d)] for d in draws], minlength=len(perms))


@pytest.mark.parametrize("distance", DISTANCES)
def test_exact_draws_have_the_model_probabilities(distance):
    """n = 4 (every distance by enumeration; Kendall by repeated insertion): a chi-square test of
    the 24 frequencies at the 1e-4 level."""
    rho = np.array([3, 1, 4, 2])
    perms, p = _exact(4, 6.0, distance, rho)
    draws = sample_mallows(rho, 6.0, distance, 20_000, np.random.default_rng(1), method="exact")
    counts = _frequencies(draws, perms)
    assert stats.chisquare(counts, 20_000 * p).pvalue > 1e-4


def test_kendall_insertion_at_five_items():
    rho = np.array([2, 5, 1, 3, 4])
    perms, p = _exact(5, 4.0, "kendall", rho)
    draws = sample_mallows(rho, 4.0, "kendall", 40_000, np.random.default_rng(2))
    assert stats.chisquare(_frequencies(draws, perms), 40_000 * p).pvalue > 1e-4


@pytest.mark.slow  # 3-4 s (each distance): the README's test run stays under 4 minutes
@pytest.mark.parametrize("distance", DISTANCES)
def test_metropolis_draws_have_the_exact_rank_marginals(distance):
    """n = 6 by Metropolis chains: P(item i at rank r) within 0.02 of the exact marginals, and
    the mean distance to ρ within 3 % (8,000 draws)."""
    rho = np.array([4, 1, 6, 2, 5, 3])
    perms, p = _exact(6, 5.0, distance, rho)
    draws = sample_mallows(rho, 5.0, distance, 8_000, np.random.default_rng(3), method="metropolis")
    exact = np.zeros((6, 6))
    for perm, prob in zip(perms, p, strict=True):
        exact[np.arange(6), perm - 1] += prob
    got = np.zeros((6, 6))
    for r in range(6):
        got[:, r] = (draws == r + 1).mean(axis=0)
    assert np.abs(got - exact).max() < 0.02
    mean_d = (p * rank_distance(perms, rho, distance)).sum()
    assert rank_distance(draws, rho, distance).mean() == pytest.approx(mean_d, rel=0.03)


def test_large_alpha_draws_the_consensus_and_bad_arguments_are_named():
    rho = np.array([2, 3, 1])
    draws = sample_mallows(rho, 500.0, "ulam", 50, np.random.default_rng(0))
    assert (draws == rho).all()
    with pytest.raises(ValueError, match="rho must be a permutation"):
        sample_mallows(np.array([1, 1, 2]), 1.0, "footrule", 5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="no exact sampler of the footrule model for 9 items"):
        sample_mallows(
            np.arange(1, 10), 1.0, "footrule", 5, np.random.default_rng(0), method="exact"
        )
    with pytest.raises(ValueError, match="size must be a whole number ≥ 1, not 0"):
        sample_mallows(rho, 1.0, "footrule", 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="steps must be a whole number ≥ 1"):
        sample_mallows(rho, 1.0, "footrule", 5, np.random.default_rng(0), steps=0)
    with pytest.raises(ValueError, match="alpha must be finite and ≥ 0"):
        sample_mallows(rho, -1.0, "footrule", 5, np.random.default_rng(0))
