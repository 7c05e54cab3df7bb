"""The Metropolis–Hastings sampler of the Mallows model with any distance on complete rankings:
its proposal against the enumeration of every move, its draws against the exact posterior (every
consensus of 4 items, α on a fine grid: tests/mallows_posterior.py) and against the exact Gibbs
sampler of the Kendall model. Partial rankings and preferences: test_mallows_augmentation.py."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from mallows_posterior import ALPHA_RATE, assert_draws_match, batch_se, exact_posterior

from rankstats.core.permutation_distances import DISTANCES
from rankstats.models._mallows_metropolis import (
    leap_and_shift,
    leap_and_shift_log_q,
    run_chain,
)


@pytest.mark.parametrize(("n", "leap"), [(5, 1), (5, 2), (6, 3), (6, 5)])
def test_proposal_probabilities_equal_the_enumerated_moves(n, leap):
    """Every (item, rank) move of leap-and-shift from every ρ, each with probability
    1 / (n × its choices): the distribution of the proposed ρ* is what log_q says."""
    for rho in itertools.permutations(range(1, n + 1)):
        rho = np.array(rho)
        reached: dict[tuple[int, ...], float] = {}
        for item in range(n):
            ranks = [
                r
                for r in range(max(1, rho[item] - leap), min(n, rho[item] + leap) + 1)
                if r != rho[item]
            ]
            for r in ranks:
                key = tuple(leap_and_shift(rho, item, r))
                reached[key] = reached.get(key, 0.0) + 1.0 / (n * len(ranks))
        assert sum(reached.values()) == pytest.approx(1.0)
        for key, probability in reached.items():
            new = np.array(key)
            assert sorted(key) == list(range(1, n + 1))
            assert math.exp(leap_and_shift_log_q(rho, new, leap)) == pytest.approx(probability)
        far = rho[::-1].copy()
        if tuple(far) not in reached:
            assert leap_and_shift_log_q(rho, far, leap) == -math.inf


RANKINGS = np.array(  # 6 assessors, 4 items, no consensus that all share
    [[1, 2, 3, 4], [2, 1, 3, 4], [1, 3, 2, 4], [1, 2, 4, 3], [3, 1, 2, 4], [2, 1, 4, 3]]
)


def _check_against_exact(
    distance: str, draws: int, seed: int, leap: int, backend: str = "auto"
) -> None:
    marginal, mean_alpha = exact_posterior(list(RANKINGS), 4, distance)
    chain = run_chain(
        RANKINGS,
        distance,
        draws,
        np.random.default_rng(seed),
        leap=leap,
        alpha_sd=0.5,
        alpha_rate=ALPHA_RATE,
        backend=backend,
    )
    assert 0.05 < chain.acceptance_rho < 0.95 and 0.05 < chain.acceptance_alpha < 0.95
    assert_draws_match(chain, marginal, mean_alpha, draws // 10, distance)


def test_draws_follow_the_exact_posterior_footrule():
    """Leap size 1 (BayesMallows' default): adjacent swaps, one choice at either end."""
    _check_against_exact("footrule", 30_000, seed=1, leap=1)


@pytest.mark.slow
@pytest.mark.parametrize("distance", [d for d in DISTANCES if d != "footrule"])
def test_draws_follow_the_exact_posterior(distance):
    _check_against_exact(distance, 20_000, seed=2, leap=2)


def test_a_defective_sampler_fails_the_check(monkeypatch):
    """The check can fail: a sampler that forgets the power ``N`` of the normalising constant
    (one ranking's ``log Z`` instead of ``N`` of them) draws α from another posterior."""
    from rankstats.models import _mallows_metropolis as sampler

    class OneRanking:  # log Z / N: what the ratio would use without the factor N
        def __init__(self, pf):
            self.pf = pf

        def log_z(self, alpha):
            return self.pf.log_z(alpha) / len(RANKINGS)

    real = sampler.partition_function
    monkeypatch.setattr(sampler, "partition_function", lambda n, d: OneRanking(real(n, d)))
    with pytest.raises(AssertionError):  # the NumPy chain: the kernels take log Z as a table
        _check_against_exact("footrule", 30_000, seed=1, leap=1, backend="numpy")


def test_bad_arguments_are_named():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="ranks must lie in 1 … 3"):
        run_chain(np.array([[1, 2, 3], [1, 5, 2]]), "footrule", 10, rng)
    with pytest.raises(ValueError, match="ranking 1 ranks no item"):
        run_chain(np.array([[1, 2, 3], [np.nan] * 3]), "footrule", 10, rng)
    with pytest.raises(ValueError, match="kind must be one of"):
        run_chain(RANKINGS, "footrule", 10, rng, kind="top-k")
    with pytest.raises(ValueError, match="leap must be between 1 and n − 1 = 2"):
        run_chain(RANKINGS[:, :3] * 0 + np.array([1, 2, 3]), "footrule", 10, rng, leap=3)
    with pytest.raises(ValueError, match="distance must be one of"):
        run_chain(RANKINGS, "chebyshev", 10, rng)


@pytest.mark.slow
def test_kendall_draws_agree_with_the_exact_gibbs_sampler_on_potato_visual():
    """A second algorithm: on potato_visual (12 × 20), the Metropolis chain with Kendall's
    distance and the exact Gibbs sampler of rs.models.Mallows (prior="bayesmallows": the same
    Exponential(0.001) prior on α = nθ) give the same E[α] within 5 Monte Carlo standard errors
    and the same posterior mean rank of every potato within 0.1."""
    import rankstats as rs

    rk = rs.load_rankings("potato_visual")
    ranks = rk.ranks.astype(np.int64)
    n = ranks.shape[1]
    fit = rs.models.Mallows(prior="bayesmallows").fit(
        rk, draws=4000, tune=1000, chains=4, seed=0, progressbar=False
    )
    gibbs_alpha = fit.idata.posterior["theta"].values.ravel() * n
    gibbs_rank = fit.idata.posterior["position"].values.reshape(-1, n).mean(axis=0)
    chains = [
        run_chain(ranks, "kendall", 15_000, np.random.default_rng(seed), leap=2)
        for seed in range(4)
    ]
    alpha = np.concatenate([c.alpha[2_500:] for c in chains])
    rank = np.concatenate([c.rho[2_500:] for c in chains]).mean(axis=0)
    se = math.hypot(batch_se(alpha), batch_se(gibbs_alpha))
    assert abs(alpha.mean() - gibbs_alpha.mean()) < 5 * se
    np.testing.assert_allclose(rank, gibbs_rank, atol=0.1)
