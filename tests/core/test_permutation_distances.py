"""The six Mallows distances against their definitions, written out one pair at a time."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rankstats.core.permutations.distances import DISTANCES, max_distance, rank_distance


def _ordering(r):
    """Items best first."""
    return [item for _, item in sorted((rank, item) for item, rank in enumerate(r))]


def _lcs(a, b) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = (
                table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
            )
    return table[-1][-1]


def _cayley(r, rho) -> int:
    """Fewest transpositions turning r into rho: swap greedily and count."""
    r = list(r)
    swaps = 0
    for i in range(len(r)):
        while r[i] != rho[i]:
            j = r.index(rho[i])
            r[i], r[j] = r[j], r[i]
            swaps += 1
    return swaps


def _by_definition(r, rho, distance) -> int:
    n = len(r)
    if distance == "footrule":
        return sum(abs(a - b) for a, b in zip(r, rho, strict=True))
    if distance == "spearman":
        return sum((a - b) ** 2 for a, b in zip(r, rho, strict=True))
    if distance == "kendall":
        return sum(
            (r[i] - r[j]) * (rho[i] - rho[j]) < 0 for i, j in itertools.combinations(range(n), 2)
        )
    if distance == "cayley":
        return _cayley(r, rho)
    if distance == "hamming":
        return sum(a != b for a, b in zip(r, rho, strict=True))
    return n - _lcs(_ordering(r), _ordering(rho))  # ulam: the orderings' longest common subsequence


@pytest.mark.parametrize("distance", DISTANCES)
def test_every_pair_of_small_rankings_equals_the_definition(distance):
    rng = np.random.default_rng(3)
    for n in range(1, 7):
        perms = np.array(list(itertools.permutations(range(1, n + 1))))
        rho = rng.permutation(n) + 1
        got = rank_distance(perms, rho, distance)
        expected = [_by_definition(p, rho, distance) for p in perms]
        np.testing.assert_array_equal(got, expected)
        assert got.max() <= max_distance(n, distance)
        if n >= 2 and distance != "hamming":  # every value up to the maximum is reached ...
            assert got.max() == max_distance(n, distance)
    # ... and on random rankings of 30 items, a row of rho each
    r = np.argsort(rng.random((40, 30)), axis=1) + 1
    rho = np.argsort(rng.random((40, 30)), axis=1) + 1
    expected = [_by_definition(a, b, distance) for a, b in zip(r, rho, strict=True)]
    np.testing.assert_array_equal(rank_distance(r, rho, distance), expected)


def test_cayley_and_hamming_are_the_same_on_orderings_the_others_are_not():
    rng = np.random.default_rng(4)
    r = np.argsort(rng.random((50, 9)), axis=1) + 1
    rho = np.argsort(rng.random(9)) + 1
    inverse_r, inverse_rho = np.argsort(r, axis=1) + 1, np.argsort(rho) + 1
    for distance in DISTANCES:
        same = np.array_equal(
            rank_distance(r, rho, distance), rank_distance(inverse_r, inverse_rho, distance)
        )
        assert same == (distance in ("cayley", "hamming")), distance


def test_bad_rankings_are_named():
    with pytest.raises(ValueError, match="row 1 of r is not a permutation of 1 … 3: \\[1, 1, 3\\]"):
        rank_distance(np.array([[1, 2, 3], [1, 1, 3]]), np.array([1, 2, 3]), "footrule")
    with pytest.raises(ValueError, match="whole ranks"):
        rank_distance(np.array([1.5, 2, 3]), np.array([1, 2, 3]), "kendall")
    with pytest.raises(ValueError, match="distance must be one of footrule, spearman"):
        rank_distance(np.array([1, 2]), np.array([1, 2]), "euclid")
    with pytest.raises(ValueError, match="r ranks 3 items, rho 2"):
        rank_distance(np.array([1, 2, 3]), np.array([1, 2]), "hamming")


@pytest.mark.parametrize("distance", ["footrule", "spearman", "hamming"])
def test_central_ranking_is_the_brute_force_minimum(distance):
    """The assignment's ranking has the least summed distance of all 720 rankings of 6."""
    from rankstats.core.permutations.distances import central_ranking

    rng = np.random.default_rng(11)
    r = np.array([rng.permutation(6) + 1 for _ in range(25)])
    best = central_ranking(r, distance)
    totals = [
        rank_distance(r, np.array(p), distance).sum() for p in itertools.permutations(range(1, 7))
    ]
    assert rank_distance(r, best, distance).sum() == min(totals)
    with pytest.raises(ValueError, match="applies to"):
        central_ranking(r, "kendall")
