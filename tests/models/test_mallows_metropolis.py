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

from rankstats.core.permutations.distances import DISTANCES
from rankstats.models.mallows._metropolis import (
    leap_and_shift,
    leap_and_shift_log_q,
    propose_rho,
    run_chain,
    swap_ranks,
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


@pytest.mark.parametrize(("n", "leap"), [(2, 1), (5, 1), (5, 2), (6, 5)])
def test_swap_proposes_every_pair_of_ranks_within_leap_as_bayesmallows(n, leap):
    """The swap (BayesMallows' RhoSwap): l uniform on 1 … leap, then r on 1 … n − l; the pair
    of ranks (r, r + l) from a fine grid of the two uniforms has exactly that law, and the
    proposal exchanges the two items there and nothing else, with no Hastings term."""
    grid = (np.arange(420) + 0.5) / 420  # 420 = lcm(1, …, 7): each cell evenly split
    found: dict[tuple[int, int], float] = {}
    for u_leap in grid:
        for u_rank in grid:
            pair = swap_ranks(n, leap, u_rank, u_leap)
            found[pair] = found.get(pair, 0.0) + 1.0 / len(grid) ** 2
    want = {
        (r, r + l): 1.0 / (leap * (n - l)) for l in range(1, leap + 1) for r in range(1, n - l + 1)
    }
    assert found.keys() == want.keys()
    for pair, probability in want.items():
        assert found[pair] == pytest.approx(probability)
    rho = np.random.default_rng(n).permutation(n) + 1
    for u in np.random.default_rng(leap).random((20, 3)):
        new, back, forward = propose_rho(rho, u, "swap", leap)
        low, high = swap_ranks(n, leap, u[1], u[2])
        moved = np.flatnonzero(new != rho)
        assert sorted(rho[moved]) == [low, high] and sorted(new[moved]) == [low, high]
        assert (back, forward) == (0.0, 0.0)


def test_propose_rho_leap_and_shift_is_the_chains_move():
    """The shared proposal, leap-and-shift: the move and the log q of both directions."""
    rho = np.array([3, 1, 4, 2, 5])
    new, back, forward = propose_rho(rho, (0.1, 0.9, 0.7), "leap_and_shift", 2)
    np.testing.assert_array_equal(new, leap_and_shift(rho, 0, 5))  # item 0, leap 2: to rank 5
    assert back == leap_and_shift_log_q(new, rho, 2)
    assert forward == leap_and_shift_log_q(rho, new, 2)


RANKINGS = np.array(  # 6 assessors, 4 items, no consensus that all share
    [[1, 2, 3, 4], [2, 1, 3, 4], [1, 3, 2, 4], [1, 2, 4, 3], [3, 1, 2, 4], [2, 1, 4, 3]]
)


def _check_against_exact(
    distance: str,
    draws: int,
    seed: int,
    leap: int,
    backend: str = "auto",
    rho_proposal: str = "leap_and_shift",
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
        rho_proposal=rho_proposal,
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


@pytest.mark.parametrize(
    ("distance", "leap"),
    [("footrule", 1), ("spearman", 2), ("kendall", 2), ("cayley", 3), ("hamming", 1), ("ulam", 3)],
)
def test_swap_draws_follow_the_exact_posterior(distance, leap):
    """The swap proposal: adjacent ranks only (leap 1, BayesMallows' default), and ranks up to
    2 and 3 apart (the kernels' Kendall pair counts, Cayley cycle labels, Ulam counts)."""
    _check_against_exact(distance, 30_000, seed=3, leap=leap, rho_proposal="swap")


def test_a_defective_swap_fails_the_check(monkeypatch):
    """The check can fail: a swap whose lower rank ranges over 1 … n − l − 1 (one short) never
    moves the item ranked last, and its chain misses every consensus that moves it."""
    from rankstats.models.mallows import _metropolis as sampler

    def one_short(n, leap, u_rank, u_leap):
        size = 1 + int(u_leap * leap)
        low = 1 + int(u_rank * (n - size - 1))
        return low, low + size

    monkeypatch.setattr(sampler, "swap_ranks", one_short)
    with pytest.raises(AssertionError):  # the NumPy chain: the kernels repeat the proposal
        _check_against_exact(
            "footrule", 30_000, seed=3, leap=1, backend="numpy", rho_proposal="swap"
        )


def test_a_defective_sampler_fails_the_check(monkeypatch):
    """The check can fail: a sampler that forgets the power ``N`` of the normalising constant
    (one ranking's ``log Z`` instead of ``N`` of them) draws α from another posterior."""
    from rankstats.models.mallows import _metropolis as sampler

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
    with pytest.raises(ValueError, match="rho_proposal must be one of"):
        run_chain(RANKINGS, "footrule", 10, rng, rho_proposal="ls")
    with pytest.raises(ValueError, match="rho_proposal must be one of"):
        propose_rho(RANKINGS[0], (0.1, 0.2, 0.3), "ls", 1)


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
        rk, draws=4000, tune=1000, chains=4, seed=0, progress=False
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
