"""The Mallows marginal likelihood of partial observations (rankstats.core.permutations.marginal)
against brute force: every complete ranking of n ≤ 7 items, filtered by compatibility with the
observation and weighted by its Mallows probability, all written here independently (the six
distances from their definitions, compatibility from the stated preferences themselves, not
from their transitive closure). The importance-sampling estimate is checked against the same
sums (within four of its standard errors) and its standard error for honesty (coverage over
many independent estimates)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from rankstats.core.permutations import insertion as amp
from rankstats.core.permutations.marginal import (
    constraints,
    kendall_marginal,
    linear_extensions,
    marginal_likelihood,
)
from rankstats.core.preferences import AssessorPreferences

DISTANCES = ("footrule", "spearman", "kendall", "cayley", "hamming", "ulam")
NAN = np.nan


# ---------------------------------------------------------------------------- brute force
def _distance(r: tuple, rho: np.ndarray, name: str) -> int:
    """d(r, ρ) of two rank vectors, from the definitions."""
    n = len(r)
    if name == "footrule":
        return sum(abs(r[i] - rho[i]) for i in range(n))
    if name == "spearman":
        return sum((r[i] - rho[i]) ** 2 for i in range(n))
    if name == "hamming":
        return sum(r[i] != rho[i] for i in range(n))
    if name == "kendall":
        return sum((r[i] < r[j]) != (rho[i] < rho[j]) for i in range(n) for j in range(i + 1, n))
    # σ = r ∘ ρ⁻¹ as a map on ranks: the item at rank k of ρ has rank sigma[k] in r
    sigma = [0] * n
    for i in range(n):
        sigma[rho[i] - 1] = r[i] - 1
    if name == "cayley":  # n − number of cycles
        seen, cycles = set(), 0
        for start in range(n):
            if start not in seen:
                cycles += 1
                k = start
                while k not in seen:
                    seen.add(k)
                    k = sigma[k]
        return n - cycles
    # ulam: n − the longest increasing subsequence of σ (quadratic dynamic programme)
    best = [1] * n
    for j in range(n):
        for i in range(j):
            if sigma[i] < sigma[j]:
                best[j] = max(best[j], best[i] + 1)
    return n - max(best)


def _compatible(r: tuple, obs, kind: str) -> bool:
    """Whether the complete ranking ``r`` keeps the observation: a rank vector (NaN unranked,
    equal ranks tied) read as ``kind``, or a list of stated preferences (a, b): a above b."""
    if isinstance(obs, list):
        return all(r[a] < r[b] for a, b in obs)
    n = len(r)
    for a in range(n):
        for b in range(n):
            ka, kb = obs[a], obs[b]
            if kind == "top_k":
                ka = n + 1 if math.isnan(ka) else ka
                kb = n + 1 if math.isnan(kb) else kb
            if ka < kb and not r[a] < r[b]:  # NaN compares False: no constraint
                return False
    return True


def brute_force(obs, rho: np.ndarray, alpha: float, distance: str, kind: str = "subset"):
    """log Σ_{r compatible} e^{−α d(r, ρ)/n} − log Σ_r e^{−α d(r, ρ)/n}."""
    n = len(rho)
    total = kept = 0.0
    for r in itertools.permutations(range(1, n + 1)):
        w = math.exp(-alpha * _distance(r, rho, distance) / n)
        total += w
        if _compatible(r, obs, kind):
            kept += w
    return math.log(kept) - math.log(total)


def _preferences(stated: list[list[tuple[int, int]]], n: int) -> AssessorPreferences:
    rows = [(j, a, b) for j, pairs in enumerate(stated) for a, b in pairs]
    table = pd.DataFrame(rows, columns=["assessor", "preferred", "other"])
    prefs = AssessorPreferences.from_table(table)
    # put the items in the order 0 … n − 1 (from_table orders them by first appearance; item
    # ids are text)
    index = [list(prefs.systems).index(str(i)) for i in range(n)]
    above = prefs.above[:, index][:, :, index]
    return AssessorPreferences(tuple(map(str, range(n))), prefs.assessors, above, prefs.n_stated)


N = 6
#: One observation of every pattern, 6 items (the unranked NaN).
RANKS = np.array(
    [
        [3, 1, 2, 6, 4, 5],  # complete
        [2, 1, 1, 4, 4, 4],  # complete with ties
        [2, NAN, 1, NAN, 3, NAN],  # a sub-ranking (top-k list with kind="top_k")
        [NAN, 1, 2, 2, NAN, 3],  # a sub-ranking with a tie
        [1, NAN, NAN, NAN, 2, NAN],  # two items
        [1, 1, NAN, NAN, NAN, NAN],  # two tied items: no constraint
    ]
)
STATED = [[(0, 1), (1, 2), (4, 3)], [(5, 0), (5, 1), (2, 3), (3, 4)], [(3, 2)]]
DRAWS = np.array([[1, 2, 3, 4, 5, 6], [4, 1, 6, 2, 5, 3], [6, 5, 4, 3, 2, 1]])
ALPHAS = np.array([1.5, 5.0, 12.0])


def _truth(distance: str, kind: str) -> np.ndarray:
    return np.array(
        [
            [brute_force(row, DRAWS[s], ALPHAS[s], distance, kind) for row in RANKS]
            for s in range(len(DRAWS))
        ]
    )


def _truth_preferences(distance: str) -> np.ndarray:
    return np.array(
        [
            [brute_force(pairs, DRAWS[s], ALPHAS[s], distance) for pairs in STATED]
            for s in range(len(DRAWS))
        ]
    )


# ---------------------------------------------------------------------------- exact paths
@pytest.mark.parametrize("kind", ["subset", "top_k"])
@pytest.mark.parametrize("distance", DISTANCES)
def test_exact_values_equal_brute_force(distance, kind):
    """Closed forms (Kendall: ties, top-k, pairs; every distance: complete untied rankings) and
    the enumeration of the compatible rankings (the rest) equal the brute-force sum."""
    found = marginal_likelihood(RANKS, DRAWS, ALPHAS, distance, kind=kind)
    assert set(found.method) <= {"closed form", "enumeration"}
    np.testing.assert_allclose(found.log_likelihood, _truth(distance, kind), atol=1e-10)
    assert (found.standard_error == 0).all()
    if distance == "kendall":
        expected = ["closed form"] * 2 + ["closed form" if kind == "top_k" else "enumeration"]
        assert found.method[:3].tolist() == expected


@pytest.mark.parametrize("distance", DISTANCES)
def test_preferences_equal_brute_force(distance):
    prefs = _preferences(STATED, N)
    found = marginal_likelihood(prefs, DRAWS, ALPHAS, distance)
    np.testing.assert_allclose(found.log_likelihood, _truth_preferences(distance), atol=1e-10)
    # one stated preference: P(a ≻ b), the Kendall closed form
    assert found.method[2] == ("closed form" if distance == "kendall" else "enumeration")


def test_kendall_top_k_closed_form_equals_brute_force_at_seven_items():
    """Top-k lists, ties among the ranked included: the ranked items fill the top places, the
    unranked ones sum to a q-factorial (5,040 rankings summed by brute force)."""
    ranks = np.array([[NAN, 1, NAN, 2, 3, NAN, NAN], [2, NAN, 1, 1, NAN, NAN, 3]])
    rho = np.array([[3, 1, 7, 2, 5, 4, 6], [1, 2, 3, 4, 5, 6, 7]])
    theta = np.array([0.4, 1.3])
    found = kendall_marginal(ranks, rho, theta, kind="top_k", exact_max=0)
    assert found.method.tolist() == ["closed form"] * 2
    truth = [
        [brute_force(r, rho[s], 7 * theta[s], "kendall", "top_k") for r in ranks] for s in range(2)
    ]
    np.testing.assert_allclose(found.log_likelihood, truth, atol=1e-10)


def test_linear_extensions_are_the_compatible_rankings():
    above = constraints(RANKS[3:4])[0]
    listed = linear_extensions(above, cap=10_000)
    expected = [
        r for r in itertools.permutations(range(1, N + 1)) if _compatible(r, RANKS[3], "subset")
    ]
    assert sorted(map(tuple, listed)) == sorted(expected)
    assert linear_extensions(above, cap=len(expected) - 1) is None


# ---------------------------------------------------------------------------- importance sampling
@pytest.mark.parametrize("distance", DISTANCES)
def test_importance_sampling_is_within_four_standard_errors(distance):
    """Every pattern by importance sampling (``exact_max=0``; Kendall's closed forms stay),
    both kinds and preferences, against brute force."""
    for kind in ("subset", "top_k"):
        found = marginal_likelihood(
            RANKS, DRAWS, ALPHAS, distance, kind=kind, samples=2000, exact_max=0, seed=1
        )
        truth = _truth(distance, kind)
        estimated = found.method == "importance sampling"
        # Kendall keeps its closed forms (complete rankings, top-k lists, pairs); the others
        # only that of the complete untied ranking (and of the unconstrained sub-ranking)
        expected = {"subset": 2, "top_k": 0} if distance == "kendall" else {"subset": 4, "top_k": 5}
        assert estimated.sum() == expected[kind]
        se = found.standard_error[:, estimated]
        error = np.abs(found.log_likelihood - truth)[:, estimated]
        assert np.all(error <= 4 * se + 1e-9), (kind, error / se)
        # not honest by being useless (Hamming at α/n = 2 is the hardest case for a Kendall
        # proposal: its far transpositions are cheap)
        assert se.max(initial=0.0) < (0.25 if distance == "hamming" else 0.15)
    prefs = _preferences(STATED, N)
    found = marginal_likelihood(prefs, DRAWS, ALPHAS, distance, samples=2000, exact_max=0, seed=2)
    error = np.abs(found.log_likelihood - _truth_preferences(distance))
    assert np.all(error <= 4 * found.standard_error + 1e-9)


@pytest.mark.parametrize("distance", ["kendall", "footrule", "cayley"])
def test_the_standard_error_is_honest(distance):
    """400 independent estimates of the same sub-ranking's likelihood (the draw repeated: each
    repetition gets its own random numbers), 50 rankings each: (estimate − truth) / s.e. has
    standard deviation about 1 and ±2 s.e. covers the truth about 95 % of the time."""
    obs = np.array([[NAN, 2, 1, NAN, 3, NAN, 4]])
    rho = np.array([5, 3, 1, 7, 2, 4, 6])
    alpha = 6.0
    truth = brute_force(obs[0], rho, alpha, distance)
    found = marginal_likelihood(
        obs, np.tile(rho, (400, 1)), np.full(400, alpha), distance, samples=50, exact_max=0, seed=3
    )
    z = (found.log_likelihood[:, 0] - truth) / found.standard_error[:, 0]
    assert 0.8 < z.std() < 1.25, z.std()
    assert 0.9 <= np.mean(np.abs(z) < 2) <= 0.99
    assert abs(z.mean()) < 0.25  # the log's downward bias is small next to the error


def test_the_skeleton_makes_top_k_exact():
    """With its ranked items laid out first a top-k list leaves every later insertion a fixed
    range: the importance weights are all equal, the estimate exact (standard error 0)."""
    ranks = np.array([[2, NAN, 1, NAN, 3, NAN, NAN]])
    rho = np.array([[4, 1, 6, 2, 5, 3, 7], [7, 6, 5, 4, 3, 2, 1]])
    theta = np.array([0.3, 1.1])
    value, se, ess = amp.importance_estimate(
        constraints(ranks, "top_k"),
        rho,
        [theta],
        8,
        seed=0,
        log_z=_log_z_kendall(7, theta),
        skeleton=amp.ranked_chains(ranks),
    )
    truth = [[brute_force(ranks[0], rho[s], 7 * theta[s], "kendall", "top_k")] for s in range(2)]
    np.testing.assert_allclose(value, truth, atol=1e-10)
    assert (se < 1e-12).all() and np.allclose(ess, 8)


def _log_z_kendall(n: int, theta: np.ndarray) -> np.ndarray:
    j = np.arange(1, n + 1)[None, :]
    return np.log((1 - np.exp(-j * theta[:, None])) / (1 - np.exp(-theta[:, None]))).sum(axis=1)


# ---------------------------------------------------------------------------- sums to one
@pytest.mark.parametrize("distance", DISTANCES)
def test_every_order_of_a_subset_sums_to_one(distance):
    """The 3! sub-rankings of one subset of 6 items are the possible outcomes of comparing
    those 3: their probabilities sum to 1, summed exactly and estimated."""
    subset = [1, 3, 4]
    ranks = np.full((6, N), NAN)
    for row, order in enumerate(itertools.permutations(subset)):
        ranks[row, list(order)] = [1, 2, 3]
    exact = marginal_likelihood(ranks, DRAWS, ALPHAS, distance)
    np.testing.assert_allclose(np.exp(exact.log_likelihood).sum(axis=1), 1.0, atol=1e-12)
    estimate = marginal_likelihood(ranks, DRAWS, ALPHAS, distance, samples=1000, exact_max=0)
    p = np.exp(estimate.log_likelihood)
    se = np.sqrt(((p * estimate.standard_error) ** 2).sum(axis=1))  # delta method, independent
    assert np.all(np.abs(p.sum(axis=1) - 1) <= 4 * se + 1e-12)


@pytest.mark.parametrize("distance", ["kendall", "hamming"])
def test_every_top_k_list_sums_to_one(distance):
    """The 5 × 4 top-2 lists of 5 items (kind="top_k") partition the rankings."""
    lists = list(itertools.permutations(range(5), 2))
    ranks = np.full((len(lists), 5), NAN)
    for row, (a, b) in enumerate(lists):
        ranks[row, [a, b]] = [1, 2]
    rho = np.array([[1, 2, 3, 4, 5], [3, 5, 1, 2, 4]])
    found = marginal_likelihood(ranks, rho, np.array([2.0, 7.0]), distance, kind="top_k")
    np.testing.assert_allclose(np.exp(found.log_likelihood).sum(axis=1), 1.0, atol=1e-12)


# ---------------------------------------------------------------------------- the machinery
def test_longest_chains_are_chains_of_maximal_length():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = 6
        order = rng.permutation(n)
        relation = np.zeros((n, n), dtype=bool)
        for a, b in itertools.combinations(range(n), 2):  # a random partial order
            if rng.random() < 0.35:
                relation[order[a], order[b]] = True
        closure = relation.copy()
        for _ in range(n):
            closure |= (closure.astype(int) @ closure.astype(int)) > 0
        chain = amp.longest_chains(closure[None])[0]
        chain = chain[chain >= 0]
        assert all(closure[chain[k], chain[k + 1]] for k in range(len(chain) - 1))
        longest = max(
            len(c)
            for size in range(1, n + 1)
            for c in itertools.permutations(range(n), size)
            if size <= len(chain) + 1 and all(closure[c[k], c[k + 1]] for k in range(len(c) - 1))
        )
        assert len(chain) == longest


def test_same_seed_same_numbers_another_seed_other_numbers():
    obs = RANKS[2:4]
    a = marginal_likelihood(obs, DRAWS, ALPHAS, "footrule", exact_max=0, samples=20, seed=5)
    b = marginal_likelihood(obs, DRAWS, ALPHAS, "footrule", exact_max=0, samples=20, seed=5)
    c = marginal_likelihood(obs, DRAWS, ALPHAS, "footrule", exact_max=0, samples=20, seed=6)
    np.testing.assert_array_equal(a.log_likelihood, b.log_likelihood)
    assert not np.array_equal(a.log_likelihood, c.log_likelihood)


@pytest.mark.parametrize("distance", ["kendall", "footrule", "ulam"])
def test_numba_and_numpy_give_the_same_numbers(distance):
    pytest.importorskip("numba")
    rng = np.random.default_rng(4)
    n = 11
    ranks = np.full((5, n), NAN)
    for row in range(5):
        items = rng.choice(n, 6, replace=False)
        ranks[row, items] = rng.permutation(6) + 1.0
    ranks[4, items[:2]] = 1.0  # a tie
    rho = np.array([rng.permutation(n) + 1 for _ in range(7)])
    alpha = rng.uniform(0.0, 30.0, 7)
    options = dict(samples=9, exact_max=0, seed=7)
    for kind in ("subset", "top_k"):
        a = marginal_likelihood(ranks, rho, alpha, distance, kind=kind, backend="numpy", **options)
        b = marginal_likelihood(ranks, rho, alpha, distance, kind=kind, backend="numba", **options)
        np.testing.assert_array_equal(a.log_likelihood, b.log_likelihood)
        np.testing.assert_array_equal(a.standard_error, b.standard_error)
        np.testing.assert_array_equal(a.ess, b.ess)


def test_arguments_are_checked():
    prefs = _preferences(STATED, N)
    cyclic = AssessorPreferences(
        prefs.systems, prefs.assessors, prefs.above, prefs.n_stated, cyclic=(prefs.assessors[0],)
    )
    with pytest.raises(ValueError, match="with a cycle"):
        marginal_likelihood(cyclic, DRAWS, ALPHAS, "footrule")
    with pytest.raises(ValueError, match="samples must be"):
        marginal_likelihood(RANKS, DRAWS, ALPHAS, "kendall", samples=1)
    with pytest.raises(ValueError, match="kind must be"):
        marginal_likelihood(RANKS, DRAWS, ALPHAS, "kendall", kind="top")
    with pytest.raises(ValueError, match="distance must be"):
        marginal_likelihood(RANKS, DRAWS, ALPHAS, "euclid")
