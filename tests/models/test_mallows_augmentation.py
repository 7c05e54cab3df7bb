"""The Metropolis sampler of the Mallows model on partial rankings (unranked and tied items as
latent ranks, sub-rankings or top-k) and on each assessor's pairwise preferences, against the
exact posterior whose likelihood sums over every compatible complete ranking of 4 items
(tests/mallows_posterior.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from mallows_posterior import ALPHA_RATE, assert_draws_match, exact_posterior

from rankstats.core.preferences import AssessorPreferences
from rankstats.models.mallows._metropolis import MetropolisChain, run_chain

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
    completions = [np.array(_compatible_completions(row, kind)) for row in PARTIAL]
    return exact_posterior(completions, PARTIAL.shape[1], distance)


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
    assert_draws_match(chain, marginal, mean_alpha, 3_000, kind)


@pytest.mark.slow
@pytest.mark.parametrize("distance", ["spearman", "kendall", "cayley", "hamming", "ulam"])
def test_partial_rankings_follow_the_exact_posterior_for_every_distance(distance):
    marginal, mean_alpha = _exact_partial_posterior(distance, "subset")
    chain = run_chain(
        PARTIAL,
        distance,
        15_000,
        np.random.default_rng(6),
        leap=2,
        alpha_sd=0.5,
        alpha_rate=ALPHA_RATE,
    )
    assert_draws_match(chain, marginal, mean_alpha, 1_500, distance)


def test_pairwise_preferences_follow_the_exact_posterior():
    """Each assessor's stated preferences (closed under transitivity) constrain a latent
    complete ranking: the draws match the posterior whose likelihood sums over every ranking
    of 4 items that respects the assessor's stated preferences (footrule)."""
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
    completions = [
        np.array(
            [
                p
                for p in itertools.permutations(range(1, 5))
                if all(p[index[x]] < p[index[y]] for x, y in pairs)
            ]
        )
        for pairs in stated.values()
    ]
    marginal, mean_alpha = exact_posterior(completions, 4, "footrule")
    chain = run_chain(
        prefs,
        "footrule",
        30_000,
        np.random.default_rng(7),
        leap=2,
        alpha_sd=0.5,
        alpha_rate=ALPHA_RATE,
    )
    assert_draws_match(chain, marginal, mean_alpha, 3_000, "preferences")


def test_a_chain_run_in_blocks_draws_what_one_run_draws():
    one = MetropolisChain(PARTIAL, "cayley", np.random.default_rng(9), leap=2).run(900)
    chain = MetropolisChain(PARTIAL, "cayley", np.random.default_rng(9), leap=2)
    blocks = [chain.run(300) for _ in range(3)]
    np.testing.assert_array_equal(np.concatenate([b.rho for b in blocks]), one.rho)
    np.testing.assert_array_equal(np.concatenate([b.alpha for b in blocks]), one.alpha)
    assert blocks[-1].acceptance_rho == one.acceptance_rho


@pytest.mark.parametrize("distance", ["footrule", "spearman", "hamming"])
def test_rank_costs_give_the_chains_of_the_whole_distance(distance, monkeypatch):
    """D(ρ) from the counts of each item at each rank (updated as latent ranks move) against
    D(ρ) summed over the rankings: the same chains, draw for draw, for sub-rankings, top-k lists
    and preferences, tuning included."""
    from rankstats.models.mallows import _metropolis as mm

    rng = np.random.default_rng(5)
    ranks = np.array([rng.permutation(7) + 1.0 for _ in range(9)])
    ranks[rng.random(ranks.shape) < 0.3] = np.nan
    table = pd.DataFrame(
        [(j, a, b) for j in range(4) for a, b in (("a", "b"), ("b", "c"), ("d", "c"))],
        columns=["assessor", "preferred", "other"],
    )
    cases = [(ranks, "subset"), (ranks, "top_k"), (AssessorPreferences.from_table(table), "subset")]
    for data, kind in cases:
        draws = []
        for sufficient in (True, False):
            monkeypatch.setattr(mm, "SUFFICIENT", sufficient)
            chain = mm.MetropolisChain(data, distance, np.random.default_rng(1), kind=kind)
            tuned, kept = chain.run(300, adapt=True), chain.run(200)
            draws.append((tuned.rho, tuned.alpha, kept.rho, kept.alpha))
        for a, b in zip(*draws, strict=True):
            np.testing.assert_array_equal(a, b)
