"""Mallows partition functions and expected distances: exhaustive enumeration (n ≤ 8),
BayesMallows' published values, the Kendall closed form of core/permutations/kendall, and the
importance-sampling estimate against the exact values within its own standard error."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from rankstats.core.permutations.distances import DISTANCES
from rankstats.core.permutations.kendall import log_z as kendall_log_z
from rankstats.core.permutations.kendall import mallows_expected_distance
from rankstats.core.permutations.partition import EXACT_MAX, partition_function

ALPHAS = np.array([0.0, 0.05, 0.7, 3.0, 12.0, 60.0])


def _enumerated(n: int, distance: str) -> np.ndarray:
    """The distance of every permutation of ``n`` items to the identity, from Python loops."""
    out = []
    for perm in itertools.permutations(range(n)):
        if distance == "footrule":
            out.append(sum(abs(p - i) for i, p in enumerate(perm)))
        elif distance == "spearman":
            out.append(sum((p - i) ** 2 for i, p in enumerate(perm)))
        elif distance == "kendall":
            out.append(sum(perm[i] > perm[j] for i, j in itertools.combinations(range(n), 2)))
        elif distance == "cayley":
            seen, cycles = set(), 0
            for start in range(n):
                if start not in seen:
                    cycles += 1
                    while start not in seen:
                        seen.add(start)
                        start = perm[start]
            out.append(n - cycles)
        elif distance == "hamming":
            out.append(sum(p != i for i, p in enumerate(perm)))
        else:  # ulam: n − the longest increasing subsequence (quadratic dynamic programme)
            best = [1] * n
            for j in range(n):
                for i in range(j):
                    if perm[i] < perm[j]:
                        best[j] = max(best[j], best[i] + 1)
            out.append(n - max(best, default=0))
    return np.array(out, dtype=np.float64)


@pytest.mark.parametrize("distance", DISTANCES)
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_partition_function_and_expected_distance_equal_enumeration(distance, n):
    d = _enumerated(n, distance)
    pf = partition_function(n, distance)
    for alpha in ALPHAS:
        weight = np.exp(-alpha / n * d)
        assert pf.log_z(alpha) == pytest.approx(math.log(weight.sum()), rel=1e-12, abs=1e-12)
        expected = float((d * weight).sum() / weight.sum())
        assert pf.expected_distance(alpha) == pytest.approx(expected, rel=1e-10, abs=1e-13)
    np.testing.assert_allclose(
        pf.log_z(ALPHAS), [pf.log_z(a) for a in ALPHAS], rtol=0, atol=0
    )  # vectorised as one by one
    if pf.log_counts is not None:  # the counts themselves, exactly
        counts = np.bincount(d.astype(int), minlength=len(pf.log_counts))
        with np.errstate(divide="ignore"):
            np.testing.assert_allclose(pf.log_counts, np.log(counts), rtol=1e-12, atol=1e-12)


def test_bayesmallows_published_values():
    """BayesMallows' tests: compute_exact_partition_function(alpha = 3, n_items = 10) and
    expected_dist(alpha, n_items, metric) (ocbe-uio/BayesMallows, tests/testthat)."""
    for distance, value in [
        ("cayley", 13.0481794289176),
        ("hamming", 12.4542713806513),
        ("kendall", 9.69641008390133),
    ]:
        assert partition_function(10, distance).log_z(3.0) == pytest.approx(value, abs=1e-12)
    published = [
        (5.0, 5, "kendall", 1.749137),
        (12.0, 6, "cayley", 1.375779),
        (1.5 * 7, 7, "hamming", 2.69246),
        (5.0 * 30, 30, "ulam", 4.133538),
        (3.5 * 45, 45, "footrule", 0.080459),
        (4.0 * 10, 10, "spearman", 0.006033),
    ]
    for alpha, n, distance, value in published:
        got = float(partition_function(n, distance).expected_distance(alpha))
        assert round(got, 6) == pytest.approx(value, abs=1e-12), distance


def test_kendall_equals_the_closed_forms_of_the_kendall_model():
    pf = partition_function(40, "kendall")
    for theta in (0.01, 0.3, 1.0, 4.0):
        assert pf.log_z(theta * 40) == pytest.approx(float(kendall_log_z(40, theta)), rel=1e-13)
        assert pf.expected_distance(theta * 40) == pytest.approx(
            mallows_expected_distance(40, theta), rel=1e-12
        )
    assert pf.log_z(0.0) == pytest.approx(math.lgamma(41), rel=1e-14)
    assert pf.expected_distance(0.0) == pytest.approx(40 * 39 / 4)


def test_large_n_counts_sum_to_n_factorial():
    """Every permutation is counted once: Σ_d N(d) = n! at the largest exact sizes."""
    for distance in ("footrule", "spearman", "ulam", "hamming"):
        n = EXACT_MAX.get(distance, 300)
        pf = partition_function(n, distance)
        assert pf.log_z(0.0) == pytest.approx(math.lgamma(n + 1), rel=1e-12), distance


@pytest.mark.parametrize(
    ("n", "distance"),
    [
        (9, "spearman"),
        pytest.param(14, "spearman", marks=pytest.mark.slow),
        pytest.param(12, "footrule", marks=pytest.mark.slow),
    ],
)
def test_importance_sampling_agrees_with_the_exact_value(n, distance):
    """With the default draws, at every α up to 4n (300 points, between the grid's too): E[d]
    within 3 % of the exact value wherever α ≤ 2n, log Z within 0.05, and the slope of log Z is
    −E[d]/n (what α's posterior depends on); the same seed gives the same estimate."""
    est = partition_function(n, distance, method="importance sampling", seed=1)
    exact = partition_function(n, distance)
    alpha = np.linspace(0.0, 4 * n, 300)
    assert est.log_z(0.0) == pytest.approx(math.lgamma(n + 1), rel=1e-14)  # uniform proposal
    assert est.standard_error(est.alpha_grid).max() > 0
    assert np.max(np.abs(est.log_z(alpha) - exact.log_z(alpha))) < 0.05
    true = exact.expected_distance(alpha)
    rel = np.abs(est.expected_distance(alpha) - true) / true
    assert np.max(rel[alpha <= 2 * n]) < 0.03
    h = 1e-4
    slope = (est.log_z(alpha[1:-1] + h) - est.log_z(alpha[1:-1] - h)) / (2 * h)
    np.testing.assert_allclose(-slope * n, est.expected_distance(alpha[1:-1]), rtol=1e-5)
    again = partition_function(n, distance, method="importance sampling", seed=1)
    assert again is est  # computed once
    other = partition_function(n, distance, method="importance sampling", draws=1_000, seed=2)
    assert not np.array_equal(other.log_z_grid, est.log_z_grid)


def test_importance_sampling_refuses_to_extrapolate_and_bad_arguments_are_named():
    est = partition_function(15, "spearman", draws=200)
    assert est.method == "importance sampling"
    assert "alpha in [0, 60]" in repr(est)
    est.log_z(60.0)
    with pytest.raises(ValueError, match="alpha = 61 is beyond the importance-sampling estimate"):
        est.log_z(61.0)
    with pytest.raises(ValueError, match="exact up to 40 items and has no importance-sampling"):
        partition_function(41, "ulam")
    with pytest.raises(ValueError, match="exact for every n"):
        partition_function(5, "kendall", method="importance sampling")
    with pytest.raises(ValueError, match="no exact spearman partition function for n = 15"):
        partition_function(15, "spearman", method="exact")
    with pytest.raises(ValueError, match="n must be a whole number of items"):
        partition_function(0, "footrule")
    with pytest.raises(ValueError, match="alpha must be finite and ≥ 0"):
        partition_function(5, "footrule").log_z(-1.0)
    with pytest.raises(ValueError, match="distance must be one of"):
        partition_function(5, "manhattan")
    with pytest.raises(ValueError, match="seed must be an integer"):
        partition_function(20, "spearman", seed=np.random.default_rng(0))


@pytest.mark.parametrize("n", [100, EXACT_MAX["footrule"]])
def test_the_footrule_counts_keep_the_small_distances_at_the_largest_sizes(n):
    """N(0) = 1 (the identity), N(2) = n − 1 (adjacent transpositions) and N(4) = (n − 2)(n −
    3)/2 + 3(n − 2) (two disjoint adjacent transpositions, a transposition two apart, the two
    3-cycles of three neighbours; checked by enumeration for n ≤ 7) survive the rescaling of the
    recursion, so that at α = 4n, where they dominate, log Z = log(1 + N(2) e^{−8} + N(4)
    e^{−16}) up to O(n³ e^{−24}). Beyond about 170 items they underflowed to zero (log Z =
    −296.5 at n = 200)."""
    pf = partition_function(n, "footrule")
    assert pf.method == "exact counts"
    n4 = (n - 2) * (n - 3) / 2 + 3 * (n - 2)
    assert pf.log_counts[0] == pytest.approx(0.0, abs=1e-9)
    assert pf.log_counts[2] == pytest.approx(math.log(n - 1), rel=1e-9)
    assert pf.log_counts[4] == pytest.approx(math.log(n4), rel=1e-9)
    expected = math.log1p((n - 1) * math.exp(-8) + n4 * math.exp(-16))
    assert float(pf.log_z(4.0 * n)) == pytest.approx(expected, rel=1e-3)
