"""The numba backend of the Metropolis–Hastings Mallows sampler draws the NumPy reference's chain.

Same generator → identical draws of ρ and α, latent rankings, D(ρ), acceptance counts, α's
adapted proposal scale and generator state afterwards, for every distance, on complete rankings,
sub-rankings and top-k lists with ties, and pairwise preferences, with either proposal of ρ
(leap-and-shift, swap); tuning (α's adaptation and the
jumps to the conditional mode) and thinning included. The kernels' log Z equals
``PartitionFunction.log_z`` to 1e-12 for every distance and way of computing it. The
statistical checks of the reference (test_mallows_metropolis.py, test_mallows_augmentation.py)
therefore hold for both.
"""

from __future__ import annotations

import math
import pickle
import sys

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.core.permutations.distances import DISTANCES, rank_distance
from rankstats.core.permutations.partition import partition_function
from rankstats.core.preferences import AssessorPreferences
from rankstats.models.mallows import _metropolis as mm

pytest.importorskip("numba")

from rankstats.models.mallows import _distances_numba as distances
from rankstats.models.mallows import _metropolis_numba as kernels
from rankstats.models.mallows._partition_numba import log_z

PROPOSALS = pytest.mark.parametrize("rho_proposal", mm.RHO_PROPOSALS)

#: Tuning (adaptation of α's proposal, a jump to the mode at iteration 250 and 500), then kept
#: draws with thin = 7, in blocks that do not fall on those boundaries.
PLAN = [(130, 10**9, True), (390, 10**9, True), (203, 7, False), (97, 7, False)]


def complete(n=8, size=12, seed=0):
    """Simulated Mallows rankings (rank vectors, 1 = best)."""
    return rs.simulate.mallows(n, 0.3, size=size, seed=seed).ranks


def partial_with_ties(n=8, size=12, seed=0):
    """Simulated rankings, 30 % unranked, neighbours tied in pairs, renumbered."""
    ranks = np.ceil(complete(n, size, seed) / 2.0)
    ranks[np.random.default_rng(seed).random(ranks.shape) < 0.3] = np.nan
    return rs.Rankings.from_rank_matrix(pd.DataFrame(ranks)).ranks


def preferences():
    """Five assessors' stated preferences over six items (transitive closures differ)."""
    pairs = [("a", "b"), ("b", "c"), ("d", "c"), ("e", "a"), ("f", "d")]
    rows = [(j, a, b) for j in range(5) for k, (a, b) in enumerate(pairs) if (j + k) % 4]
    return AssessorPreferences.from_table(
        pd.DataFrame(rows, columns=["assessor", "preferred", "other"])
    )


def assert_same_chains(data, distance, plan=PLAN, seed=0, **options):
    """Both backends from the same seed, block by block: everything a chain holds is equal."""
    a = mm.MetropolisChain(data, distance, np.random.default_rng(seed), backend="numpy", **options)
    b = mm.MetropolisChain(data, distance, np.random.default_rng(seed), backend="numba", **options)
    assert (a.backend, b.backend) == ("numpy", "numba")
    for iterations, thin, adapt in plan:
        x, y = a.run(iterations, thin=thin, adapt=adapt), b.run(iterations, thin=thin, adapt=adapt)
        np.testing.assert_array_equal(x.rho, y.rho)
        np.testing.assert_array_equal(x.alpha, y.alpha)
        assert (x.acceptance_rho, x.acceptance_alpha) == (y.acceptance_rho, y.acceptance_alpha)
        np.testing.assert_array_equal(a.augmentation.completions, b.augmentation.completions)
        np.testing.assert_array_equal(a.rho, b.rho)
        assert (a.total, a.alpha, a.alpha_sd, a.window, a.window_accepted, a.iterations) == (
            b.total, b.alpha, b.alpha_sd, b.window, b.window_accepted, b.iterations,
        )  # fmt: skip
        assert a.log_z == pytest.approx(b.log_z, rel=1e-12, abs=1e-12)
        aug_a, aug_b = a.augmentation, b.augmentation
        assert (aug_a.accepted, aug_a.proposed) == (aug_b.accepted, aug_b.proposed)
        if a.costs is not None:
            np.testing.assert_array_equal(a.costs.cost, b.costs.cost)
    assert a.rng.random() == b.rng.random()  # the generators were left in the same state
    # the chain moved: not a trivially equal pair of frozen states
    assert 0 < a.accepted_rho < a.iterations and 0 < a.accepted_alpha < a.iterations
    return a, b


@PROPOSALS
@pytest.mark.parametrize("distance", DISTANCES)
def test_identical_chains_complete_rankings(distance, rho_proposal):
    """Leap up to 3: adjacent swaps (the Cayley and Ulam shortcuts) and longer leaps or swaps
    (their whole-distance counts, the swap's transpositions) both occur."""
    assert_same_chains(complete(), distance, leap=3, rho_proposal=rho_proposal)
    assert_same_chains(complete(n=6, size=30, seed=1), distance, seed=1, rho_proposal=rho_proposal)


@PROPOSALS
@pytest.mark.parametrize("kind", ["subset", "top_k"])
@pytest.mark.parametrize("distance", DISTANCES)
def test_identical_chains_partial_rankings_with_ties(distance, kind, rho_proposal):
    a, _ = assert_same_chains(
        partial_with_ties(), distance, kind=kind, leap=2, seed=2, rho_proposal=rho_proposal
    )
    assert 0 < a.augmentation.accepted < a.augmentation.proposed


@PROPOSALS
@pytest.mark.parametrize("distance", DISTANCES)
def test_identical_chains_preferences(distance, rho_proposal):
    a, _ = assert_same_chains(preferences(), distance, seed=3, rho_proposal=rho_proposal)
    assert a.augmentation.accepted > 0


@PROPOSALS
@pytest.mark.parametrize("distance", ["footrule", "spearman", "kendall", "hamming"])
def test_identical_chains_without_sufficient_statistics(distance, monkeypatch, rho_proposal):
    """D(ρ) from the rankings themselves (RankCosts and the Kendall pair counts off)."""
    monkeypatch.setattr(mm, "SUFFICIENT", False)
    a, b = assert_same_chains(
        partial_with_ties(seed=4), distance, seed=4, leap=2, rho_proposal=rho_proposal
    )
    assert a.costs is None and b._pairs is None


def test_identical_chains_with_the_importance_sampling_partition_function():
    """Spearman on 20 items: log Z from the spline of the importance-sampling estimate."""
    ranks = complete(n=20, size=10, seed=5)
    pf = partition_function(20, "spearman", method="importance sampling", draws=500)  # quick
    assert pf.method == "importance sampling"
    assert_same_chains(ranks, "spearman", seed=5, leap=4, partition=pf)


@PROPOSALS
@pytest.mark.parametrize("distance", DISTANCES)
def test_identical_chains_on_two_items_and_another_bit_generator(distance, rho_proposal):
    """The smallest rankings (n = 2: every leap an adjacent swap, one ranking unranked), and a
    Mersenne Twister instead of the default PCG64: numba draws from any bit generator."""
    ranks = np.array([[1.0, 2.0], [2.0, 1.0], [1.0, np.nan], [1.0, 2.0]])
    for make in (np.random.default_rng, lambda s: np.random.Generator(np.random.MT19937(s))):
        a = mm.MetropolisChain(
            ranks, distance, make(12), backend="numpy", rho_proposal=rho_proposal
        )
        b = mm.MetropolisChain(
            ranks, distance, make(12), backend="numba", rho_proposal=rho_proposal
        )
        x, y = a.run(400, thin=3, adapt=True), b.run(400, thin=3, adapt=True)
        np.testing.assert_array_equal(x.rho, y.rho)
        np.testing.assert_array_equal(x.alpha, y.alpha)
        assert a.rng.random() == b.rng.random()


def test_blocks_of_random_numbers_do_not_change_the_draws(monkeypatch):
    """The driver draws the random numbers of a few iterations at a time when memory asks."""
    ranks = partial_with_ties(seed=6)
    full = mm.MetropolisChain(ranks, "footrule", np.random.default_rng(6)).run(300, thin=3)
    monkeypatch.setattr(mm, "BLOCK_NUMBERS", 40)  # 1 iteration per block (m ≈ 12)
    small = mm.MetropolisChain(ranks, "footrule", np.random.default_rng(6)).run(300, thin=3)
    np.testing.assert_array_equal(full.rho, small.rho)
    np.testing.assert_array_equal(full.alpha, small.alpha)


def test_a_pickled_chain_continues_alike():
    """Chains go to worker processes pickled: the copy continues as the original does."""
    chain = mm.MetropolisChain(partial_with_ties(seed=7), "cayley", np.random.default_rng(7))
    chain.run(200, adapt=True)
    copy = pickle.loads(pickle.dumps(chain))
    x, y = chain.run(300), copy.run(300)
    np.testing.assert_array_equal(x.rho, y.rho)
    np.testing.assert_array_equal(x.alpha, y.alpha)


def test_an_alpha_beyond_the_estimate_is_refused_by_both_backends():
    """α proposed beyond the importance-sampling grid: the reference's ValueError."""
    ranks = np.tile(np.arange(1.0, 16.0), (30, 1))  # unanimous: α grows
    pf = partition_function(15, "spearman", method="importance sampling", alpha_max=2.0, draws=500)
    for backend in ("numpy", "numba"):
        chain = mm.MetropolisChain(
            ranks, "spearman", np.random.default_rng(8), partition=pf, backend=backend
        )
        with pytest.raises(ValueError, match="beyond the importance-sampling estimate"):
            chain.run(2000)


def test_backend_choice(monkeypatch):
    assert mm.resolve_backend("numpy") == "numpy"
    assert mm.resolve_backend("auto") == mm.resolve_backend("numba") == "numba"
    with pytest.raises(ValueError, match="backend must be one of"):
        mm.resolve_backend("cuda")
    monkeypatch.setitem(sys.modules, "rankstats.models.mallows._metropolis_numba", None)
    monkeypatch.delattr(rs.models, "_mallows_metropolis_numba", raising=False)
    assert mm.resolve_backend("auto") == "numpy"
    with pytest.raises(ImportError, match='backend="numba" needs numba'):
        mm.resolve_backend("numba")
    assert mm.MetropolisChain(complete(), "footrule", np.random.default_rng(0)).backend == "numpy"


LOG_Z_CASES = [
    *[(d, n) for d in DISTANCES for n in (2, 5, 12)],
    ("footrule", 20),  # exact counts, and an importance-sampling estimate
    ("footrule", 100),  # exact counts, Horner over 2,500 terms
    ("footrule", 165),  # the largest exact footrule (counts spread over ~13,600 distances)
    ("footrule", 200),  # exact on a grid beyond 165 items: the spline of the grid
    ("spearman", 14),  # exact counts up to 14 items ...
    ("spearman", 21),  # ... the importance-sampling spline beyond 20 (draws=500: quick)
    ("kendall", 100),
    ("cayley", 100),
    ("hamming", 100),
    ("hamming", 300),  # log-counts spread beyond one block of counts_table
    ("ulam", 40),
]


@pytest.mark.parametrize(("distance", "n"), LOG_Z_CASES)
def test_the_kernels_log_z_equals_the_partition_function(distance, n):
    pf = partition_function(n, distance, draws=500)
    methods = [pf]
    if distance == "footrule" and n == 20:  # the footrule's spline too (500 draws: quick)
        methods.append(
            partition_function(n, distance, method="importance sampling", draws=500, seed=1)
        )
    for pf in methods:
        table = pf.log_z_table()
        arguments = kernels.fixed_arguments(_NoAugmentation(), table)[5:]
        top = 40.0 * n if pf.alpha_grid is None else pf.alpha_grid[-1]
        alphas = np.concatenate([[0.0, 1e-13, 1e-6], np.geomspace(1e-3, top, 150), [top]])
        if pf.alpha_grid is not None:
            alphas = np.concatenate([alphas, pf.alpha_grid])  # on the breakpoints
        ours = np.array([log_z(arguments[0], n, *arguments[1:], a) for a in alphas])
        np.testing.assert_allclose(ours, pf.log_z(alphas), rtol=1e-12, atol=1e-12)
        if pf.alpha_grid is not None:  # beyond the grid: NaN, which the driver refuses
            assert math.isnan(log_z(arguments[0], n, *arguments[1:], top * 1.001))


class _NoAugmentation:
    """What fixed_arguments reads of an Augmentation, for complete rankings."""

    active, above = False, None
    rows = np.empty(0, dtype=np.int64)
    latent = np.zeros((0, 1), dtype=bool)
    key = np.empty((0, 1))


@pytest.mark.parametrize("distance", DISTANCES)
def test_the_kernels_distance_equals_the_reference(distance):
    rng = np.random.default_rng(9)
    code = DISTANCES.index(distance)
    for n in (1, 2, 3, 7, 40):
        for _ in range(50):
            ranks, rho = rng.permutation(n) + 1, rng.permutation(n) + 1
            scratch = np.empty(n + 1, np.int64)
            ours = distances.distance(code, ranks, rho, np.argsort(rho), scratch)
            assert ours == int(rank_distance(ranks, rho, distance))


def test_the_ulam_profile_equals_a_quadratic_count():
    """The longest increasing runs ending and starting at each position, and the positions on
    every longest run, against the O(n²) dynamic programme and the enumeration of runs."""
    rng = np.random.default_rng(13)
    for n in (1, 2, 5, 9, 40):
        for _ in range(40):
            pi = rng.permutation(n)
            ending, starting = np.empty(n, np.int64), np.empty(n, np.int64)
            critical = np.empty(n, np.bool_)
            longest = distances.profile(pi, ending, starting, critical, np.empty(n + 1, np.int64))
            want_end, want_start = np.ones(n, np.int64), np.ones(n, np.int64)
            for k in range(n):
                for i in range(k):
                    if pi[i] < pi[k]:
                        want_end[k] = max(want_end[k], want_end[i] + 1)
            for k in range(n - 1, -1, -1):
                for i in range(k + 1, n):
                    if pi[i] > pi[k]:
                        want_start[k] = max(want_start[k], want_start[i] + 1)
            np.testing.assert_array_equal(ending, want_end)
            np.testing.assert_array_equal(starting, want_start)
            assert longest == want_end.max()
            on = want_end + want_start - 1 == longest
            levels = np.bincount(want_end[on], minlength=n + 1)
            np.testing.assert_array_equal(critical, on & (levels[want_end] == 1))
            if n >= 2:  # the swap of two values: the count used by the augmentation
                a, b = rng.choice(n, 2, replace=False)
                swapped = pi.copy()
                swapped[[a, b]] = swapped[[b, a]]
                assert distances.longest_swapped(pi, a, b) == n - int(
                    rank_distance(swapped + 1, np.arange(1, n + 1), "ulam")
                )


@pytest.mark.slow
@PROPOSALS
@pytest.mark.parametrize("distance", DISTANCES)
def test_identical_long_chains_on_potato_visual(distance, rho_proposal):
    """potato_visual (12 × 20): 5,000 tuning iterations and 10,000 kept ones (the fit's
    default tuning), leap 1 and 4."""
    ranks = rs.load_rankings("potato_visual").ranks
    plan = [(2_500, 10**9, True), (2_500, 10**9, True), (10_000, 10, False)]
    for leap in (1, 4):
        assert_same_chains(
            ranks, distance, plan=plan, seed=10, leap=leap, rho_proposal=rho_proposal
        )


@pytest.mark.slow
def test_identical_chains_on_sushi():
    """sushi (5,000 × 10, footrule and Kendall): many rankings, large D(ρ)."""
    ranks = rs.load_rankings("sushi").ranks
    plan = [(1_000, 10**9, True), (2_000, 10, False)]
    for distance in ("footrule", "kendall"):
        for rho_proposal in mm.RHO_PROPOSALS:
            assert_same_chains(ranks, distance, plan=plan, seed=11, rho_proposal=rho_proposal)
