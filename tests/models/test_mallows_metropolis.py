"""The Metropolis–Hastings sampler of the Mallows model with any distance: its proposal against
the enumeration of every move, and its draws against the exact posterior (every consensus of
4 items, α on a fine grid)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.special import logsumexp

from rankstats.core.mallows_partition import partition_function
from rankstats.core.permutation_distances import DISTANCES, rank_distance
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
ALPHA_RATE = 0.05


def _exact_posterior(distance: str) -> tuple[dict[tuple[int, ...], float], float]:
    """P(ρ | R) of every consensus and E[α | R], by summing over the 24 consensuses and
    integrating α on a grid of 20,000 points up to 200 (the tail beyond is below 1e-12)."""
    n = RANKINGS.shape[1]
    consensuses = [np.array(p) for p in itertools.permutations(range(1, n + 1))]
    grid = np.linspace(0.0, 200.0, 20_001)
    log_z = partition_function(n, distance).log_z(grid)
    log_joint = []
    for rho in consensuses:
        total = rank_distance(RANKINGS, rho, distance).sum()
        log_joint.append(-grid / n * total - len(RANKINGS) * log_z - ALPHA_RATE * grid)
    log_joint = np.array(log_joint)
    weight = np.exp(log_joint - log_joint.max())
    mass = np.trapezoid(weight, grid, axis=1)
    marginal = {tuple(rho): m / mass.sum() for rho, m in zip(consensuses, mass, strict=True)}
    mean_alpha = np.trapezoid(weight * grid, grid, axis=1).sum() / mass.sum()
    return marginal, float(mean_alpha)


def _batch_se(x: np.ndarray, batches: int = 40) -> float:
    means = x[: len(x) // batches * batches].reshape(batches, -1).mean(axis=1)
    return float(means.std(ddof=1) / math.sqrt(batches))


def _check_against_exact(distance: str, draws: int, seed: int, leap: int) -> None:
    marginal, mean_alpha = _exact_posterior(distance)
    chain = run_chain(
        RANKINGS,
        distance,
        draws,
        np.random.default_rng(seed),
        leap=leap,
        alpha_sd=0.5,
        alpha_rate=ALPHA_RATE,
    )
    burn = draws // 10
    rho, alpha = chain.rho[burn:], chain.alpha[burn:]
    assert 0.05 < chain.acceptance_rho < 0.95 and 0.05 < chain.acceptance_alpha < 0.95
    # every consensus's frequency against its exact probability (4 batch s.e. + 0.01)
    codes = np.array([hash(tuple(r)) for r in rho])
    for key, probability in marginal.items():
        hit = (codes == hash(key)).astype(float)
        assert abs(hit.mean() - probability) < 4 * _batch_se(hit) + 0.01, (distance, key)
    assert abs(alpha.mean() - mean_alpha) < 4 * _batch_se(alpha) + 0.02 * mean_alpha, distance


def test_draws_follow_the_exact_posterior_footrule():
    """Leap size 1 (BayesMallows' default): adjacent swaps, one choice at either end."""
    _check_against_exact("footrule", 30_000, seed=1, leap=1)


@pytest.mark.slow
@pytest.mark.parametrize("distance", [d for d in DISTANCES if d != "footrule"])
def test_draws_follow_the_exact_posterior(distance):
    _check_against_exact(distance, 30_000, seed=2, leap=2)


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
    with pytest.raises(AssertionError):
        _check_against_exact("footrule", 30_000, seed=1, leap=1)


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


PARTIAL = np.array(  # 7 assessors, 4 items: unranked items (NaN), ties, complete rankings
    [
        [1, 2, 3, 4],
        [2, 1, np.nan, np.nan],
        [1, np.nan, 2, 3],
        [np.nan, 1, 1, 2],
        [1, 3, 2, 4],
        [np.nan, np.nan, 1, 2],
        [2, 1, 3, np.nan],
    ]
)


def _compatible_completions(row: np.ndarray, kind: str) -> list[np.ndarray]:
    """Every complete ranking of 4 items that keeps the row's strict preferences (and, for
    top-k, puts the unranked items below the ranked ones), by enumeration."""
    out = []
    for perm in itertools.permutations(range(1, 5)):
        ok = True
        for a, b in itertools.permutations(range(4), 2):
            ranked_a, ranked_b = not np.isnan(row[a]), not np.isnan(row[b])
            if ranked_a and ranked_b and row[a] < row[b] and perm[a] > perm[b]:
                ok = False
            if kind == "top_k" and ranked_a and not ranked_b and perm[a] > perm[b]:
                ok = False
        if ok:
            out.append(np.array(perm))
    return out


def _exact_partial_posterior(distance: str, kind: str) -> tuple[dict, float]:
    n = PARTIAL.shape[1]
    consensuses = [np.array(p) for p in itertools.permutations(range(1, n + 1))]
    grid = np.linspace(0.0, 200.0, 20_001)
    log_z = partition_function(n, distance).log_z(grid)
    completions = [np.array(_compatible_completions(row, kind)) for row in PARTIAL]
    log_joint = []
    for rho in consensuses:
        total = -ALPHA_RATE * grid - len(PARTIAL) * log_z
        for options in completions:  # each assessor: the sum over its compatible completions
            d = rank_distance(options, rho, distance)
            total = total + logsumexp(-grid[:, None] / n * d[None, :], axis=1)
        log_joint.append(total)
    log_joint = np.array(log_joint)
    weight = np.exp(log_joint - log_joint.max())
    mass = np.trapezoid(weight, grid, axis=1)
    marginal = {tuple(rho): m / mass.sum() for rho, m in zip(consensuses, mass, strict=True)}
    return marginal, float(np.trapezoid(weight * grid, grid, axis=1).sum() / mass.sum())


@pytest.mark.parametrize("kind", ["subset", "top_k"])
def test_partial_rankings_follow_the_exact_posterior(kind):
    """Unranked and tied items completed by the latent ranks: the draws of ρ and α match the
    posterior whose likelihood sums over every compatible completion (footrule)."""
    marginal, mean_alpha = _exact_partial_posterior("footrule", kind)
    chain = run_chain(
        PARTIAL,
        "footrule",
        30_000,
        np.random.default_rng(5),
        kind=kind,
        leap=2,
        alpha_sd=0.5,
        alpha_rate=ALPHA_RATE,
    )
    rho, alpha = chain.rho[3_000:], chain.alpha[3_000:]
    codes = np.array([hash(tuple(r)) for r in rho])
    for key, probability in marginal.items():
        hit = (codes == hash(key)).astype(float)
        assert abs(hit.mean() - probability) < 4 * _batch_se(hit) + 0.01, (kind, key)
    assert abs(alpha.mean() - mean_alpha) < 4 * _batch_se(alpha) + 0.02 * mean_alpha


@pytest.mark.slow
@pytest.mark.parametrize("distance", ["spearman", "kendall", "cayley", "hamming", "ulam"])
def test_partial_rankings_follow_the_exact_posterior_for_every_distance(distance):
    marginal, mean_alpha = _exact_partial_posterior(distance, "subset")
    chain = run_chain(
        PARTIAL,
        distance,
        30_000,
        np.random.default_rng(6),
        leap=2,
        alpha_sd=0.5,
        alpha_rate=ALPHA_RATE,
    )
    rho, alpha = chain.rho[3_000:], chain.alpha[3_000:]
    codes = np.array([hash(tuple(r)) for r in rho])
    for key, probability in marginal.items():
        hit = (codes == hash(key)).astype(float)
        assert abs(hit.mean() - probability) < 4 * _batch_se(hit) + 0.01, (distance, key)
    assert abs(alpha.mean() - mean_alpha) < 4 * _batch_se(alpha) + 0.02 * mean_alpha


def test_pairwise_preferences_follow_the_exact_posterior():
    """Each assessor's stated preferences (closed under transitivity) constrain a latent
    complete ranking: the draws match the posterior whose likelihood sums over every ranking
    of 4 items that respects the assessor's stated preferences (footrule)."""
    import pandas as pd

    from rankstats.core.preferences import AssessorPreferences

    stated = {
        "p1": [("a", "b"), ("b", "c")],
        "p2": [("b", "a")],
        "p3": [("a", "d"), ("c", "d"), ("a", "c")],
        "p4": [("a", "b"), ("c", "d")],
        "p5": [("d", "b")],
        "p6": [("a", "c"), ("b", "d"), ("a", "d")],
    }
    table = pd.DataFrame(
        [(who, x, y) for who, pairs in stated.items() for x, y in pairs],
        columns=["assessor", "preferred", "other"],
    )
    prefs = AssessorPreferences.from_table(table)
    index = {name: i for i, name in enumerate(prefs.systems)}
    n = len(index)
    completions = [
        np.array(
            [
                p
                for p in itertools.permutations(range(1, n + 1))
                if all(p[index[x]] < p[index[y]] for x, y in pairs)
            ]
        )
        for pairs in stated.values()
    ]
    consensuses = [np.array(p) for p in itertools.permutations(range(1, n + 1))]
    grid = np.linspace(0.0, 200.0, 20_001)
    log_z = partition_function(n, "footrule").log_z(grid)
    log_joint = []
    for rho in consensuses:
        total = -ALPHA_RATE * grid - len(completions) * log_z
        for options in completions:
            d = rank_distance(options, rho, "footrule")
            total = total + logsumexp(-grid[:, None] / n * d[None, :], axis=1)
        log_joint.append(total)
    weight = np.exp(np.array(log_joint) - np.max(log_joint))
    mass = np.trapezoid(weight, grid, axis=1)
    mean_alpha = np.trapezoid(weight * grid, grid, axis=1).sum() / mass.sum()
    chain = run_chain(
        prefs,
        "footrule",
        30_000,
        np.random.default_rng(7),
        leap=2,
        alpha_sd=0.5,
        alpha_rate=ALPHA_RATE,
    )
    rho, alpha = chain.rho[3_000:], chain.alpha[3_000:]
    codes = np.array([hash(tuple(r)) for r in rho])
    for consensus, m in zip(consensuses, mass, strict=True):
        hit = (codes == hash(tuple(consensus))).astype(float)
        assert abs(hit.mean() - m / mass.sum()) < 4 * _batch_se(hit) + 0.01, consensus
    assert abs(alpha.mean() - mean_alpha) < 4 * _batch_se(alpha) + 0.02 * mean_alpha


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
        run_chain(ranks, "kendall", 30_000, np.random.default_rng(seed), leap=2)
        for seed in range(4)
    ]
    alpha = np.concatenate([c.alpha[5_000:] for c in chains])
    rank = np.concatenate([c.rho[5_000:] for c in chains]).mean(axis=0)
    se = math.hypot(_batch_se(alpha), _batch_se(gibbs_alpha))
    assert abs(alpha.mean() - gibbs_alpha.mean()) < 5 * se
    np.testing.assert_allclose(rank, gibbs_rank, atol=0.1)


def test_a_chain_run_in_blocks_draws_what_one_run_draws():
    from rankstats.models._mallows_metropolis import MetropolisChain

    one = MetropolisChain(PARTIAL, "cayley", np.random.default_rng(9), leap=2).run(900)
    chain = MetropolisChain(PARTIAL, "cayley", np.random.default_rng(9), leap=2)
    blocks = [chain.run(300) for _ in range(3)]
    np.testing.assert_array_equal(np.concatenate([b.rho for b in blocks]), one.rho)
    np.testing.assert_array_equal(np.concatenate([b.alpha for b in blocks]), one.alpha)
    assert blocks[-1].acceptance_rho == one.acceptance_rho
