"""Maximum-likelihood Mallows mixtures by EM (rs.models.mallows_em): the log-likelihood against
brute-force enumeration, the EM trace, recovery of a known mixture with tolerances from the
Fisher information, the consensus steps against exhaustive search, BIC's choice of K."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.core.permutations.distances import DISTANCES, rank_distance
from rankstats.core.permutations.partition import partition_function
from rankstats.core.permutations.sampling import all_permutations, sample_mallows
from rankstats.errors import InvalidRankingsError
from rankstats.models.mallows._em_consensus import ConsensusSearch

mallows_em = rs.models.mallows_em


def simulate(consensus, alpha, weight, size, distance, seed):
    """Rankings from a known mixture (each cluster's exact sampler), and the true clusters."""
    rng = np.random.default_rng(seed)
    z = rng.choice(len(weight), size=size, p=weight)
    out = np.empty((size, len(consensus[0])), dtype=np.int64)
    for k in range(len(weight)):
        members = np.flatnonzero(z == k)
        if len(members):
            out[members] = sample_mallows(
                np.asarray(consensus[k]), alpha[k], distance, len(members), rng
            )
    return out, z


def brute_log_likelihood(ranks, consensus, alpha, weight, distance):
    """ℓ by enumerating every permutation for each cluster's normalising constant."""
    n = ranks.shape[1]
    perms = all_permutations(n)
    total = np.zeros(len(ranks))
    for rho, a, w in zip(consensus, alpha, weight, strict=True):
        z = np.exp(-a / n * rank_distance(perms, rho, distance)).sum()
        total += w * np.exp(-a / n * rank_distance(ranks, rho, distance)) / z
    return float(np.log(total).sum())


def rng_ranks(n, size, seed):
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((size, n)), axis=1) + 1


@pytest.mark.parametrize("distance", DISTANCES)
def test_log_likelihood_by_enumeration_and_monotone_trace(distance):
    truth = [[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]]
    ranks, _ = simulate(truth, [6.0, 4.0], [0.6, 0.4], 300, distance, seed=1)
    fit = mallows_em(ranks, 2, distance=distance, starts=3, seed=0)
    brute = brute_log_likelihood(ranks, fit.consensus, fit.alpha, fit.weight, distance)
    assert fit.log_likelihood == pytest.approx(brute, abs=1e-8 * abs(brute))
    assert np.all(np.diff(fit.trace) >= -1e-9 * abs(fit.trace[-1]))
    assert fit.converged
    # ICL ≥ BIC (the entropy term is ≥ 0), ν = 2K − 1
    assert fit.n_parameters == 3
    assert fit.bic == pytest.approx(-2 * brute + 3 * math.log(300) + 4 * math.log(120), rel=1e-9)
    assert fit.icl >= fit.bic


def test_one_cluster_is_the_maximum_likelihood_fit():
    """K = 1: the consensus minimises the summed distance over all 120 permutations and α
    maximises ℓ on a fine grid (both by brute force)."""
    ranks, _ = simulate([[2, 1, 3, 5, 4]], [5.0], [1.0], 400, "cayley", seed=3)
    fit = mallows_em(ranks, 1, distance="cayley", starts=1)
    perms = all_permutations(5)
    totals = [rank_distance(ranks, p, "cayley").sum() for p in perms]
    assert rank_distance(ranks, fit.consensus[0], "cayley").sum() == min(totals)
    grid = np.linspace(0.01, 20, 4000)
    ll = [brute_log_likelihood(ranks, fit.consensus, [a], [1.0], "cayley") for a in grid[::40]]
    assert fit.log_likelihood >= max(ll) - 1e-9
    assert fit.alpha[0] == pytest.approx(grid[::40][int(np.argmax(ll))], abs=0.25)


def alpha_se(alpha, n, size, distance):
    """Standard error of α̂ for ``size`` rankings of one Mallows model: the Fisher information
    of α is Var_α(d) / n² per ranking, and Var_α(d) = −n dE_α[d]/dα."""
    pf = partition_function(n, distance)
    h = 1e-4
    slope = (pf.expected_distance(alpha + h) - pf.expected_distance(alpha - h)) / (2 * h)
    variance = -n * float(slope)
    return n / math.sqrt(size * variance)


@pytest.mark.parametrize(
    ("distance", "truth", "alpha", "weight"),
    [
        ("kendall", [[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]], [3.0, 6.0], [0.65, 0.35]),
        ("cayley", [[1, 2, 3, 4, 5, 6], [4, 5, 6, 1, 2, 3]], [6.0, 9.0], [0.5, 0.5]),
        (
            "footrule",
            [[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1], [3, 4, 1, 2, 6, 5]],
            [4.0, 6.0, 8.0],
            [0.5, 0.3, 0.2],
        ),
    ],
)
def test_recovers_a_known_mixture(distance, truth, alpha, weight):
    """Consensus exactly; weights within 4 binomial standard errors; α within 4 standard
    errors of the one-cluster Fisher information at the true α and the cluster's size, inflated
    by 1.5 for the mixture's uncertain memberships."""
    size, n = 3000, len(truth[0])
    ranks, _ = simulate(truth, alpha, weight, size, distance, seed=11)
    fit = mallows_em(ranks, len(weight), distance=distance, starts=5, seed=2)
    found = {tuple(r): k for k, r in enumerate(fit.consensus.tolist())}
    assert set(found) == {tuple(r) for r in truth}
    for k, rho in enumerate(truth):
        j = found[tuple(rho)]
        w_se = math.sqrt(weight[k] * (1 - weight[k]) / size)
        assert abs(fit.weight[j] - weight[k]) < 4 * w_se
        a_se = 1.5 * alpha_se(alpha[k], n, weight[k] * size, distance)
        assert abs(fit.alpha[j] - alpha[k]) < 4 * a_se, (fit.alpha[j], alpha[k], a_se)


@pytest.mark.parametrize("distance", DISTANCES)
def test_consensus_steps_against_exhaustive_search(distance):
    """The assignment (item-wise distances) is exact; the Kemeny heuristic and the local
    search are never worse than their start and reach the exhaustive optimum on these random
    weighted profiles of 6 items."""
    ranks = np.unique(rng_ranks(6, 300, seed=5), axis=0)
    search = ConsensusSearch(ranks, distance)
    assert search.method == "exhaustive"
    other = ConsensusSearch(ranks, distance)
    other.method = {
        "kendall": "kemeny heuristic",
        "cayley": "local search",
        "ulam": "local search",
    }.get(distance, "assignment")
    rng = np.random.default_rng(0)
    reached = 0
    for _ in range(5):
        weight = rng.gamma(0.3, size=len(ranks))
        start = ranks[0]
        best = search.best(weight, start)
        found = other.best(weight, start)
        assert other.total(weight, found) <= other.total(weight, start) + 1e-9
        assert other.total(weight, found) >= search.total(weight, best) - 1e-9
        reached += other.total(weight, found) <= search.total(weight, best) + 1e-9
    if other.method == "assignment":
        assert reached == 5
    else:
        assert reached >= 4


@pytest.mark.parametrize(
    ("distance", "method"),
    [("kendall", "kemeny heuristic"), ("footrule", "assignment"), ("cayley", "local search")],
)
def test_beyond_exhaustive_search(distance, method):
    """12 items: the consensus steps of larger n recover well-separated clusters."""
    truth = [list(range(1, 13)), list(range(12, 0, -1))]
    ranks, _ = simulate(truth, [24.0, 24.0], [0.6, 0.4], 400, distance, seed=4)
    fit = mallows_em(ranks, 2, distance=distance, starts=2)
    assert fit.consensus_method == method
    assert {tuple(r) for r in fit.consensus.tolist()} == {tuple(r) for r in truth}
    assert np.all(np.diff(fit.trace) >= -1e-9 * abs(fit.trace[-1]))


def test_result_tables_and_repr():
    ranks, z = simulate([[1, 2, 3, 4], [4, 3, 2, 1]], [8.0, 8.0], [0.7, 0.3], 200, "kendall", 0)
    frame = pd.DataFrame(ranks, columns=list("abcd"), index=[f"v{i}" for i in range(200)])
    fit = mallows_em(frame, 2, starts=2)
    table = fit.clusters()
    assert list(table.columns) == ["weight", "alpha", "rankings", "consensus"]
    assert table["consensus"].iloc[0] == "a > b > c > d"
    assignments = fit.assignments()
    assert assignments.index[0] == "v0"
    assert np.allclose(assignments.filter(like="P(").sum(axis=1), 1)
    # the clusters are numbered by weight: cluster 1 is the true cluster 0
    agree = np.mean(assignments["cluster"].to_numpy() - 1 == z)
    assert agree > 0.95
    text = repr(fit)
    assert "MallowsEMFit(kendall, 2 clusters, 4 systems, 200 rankings)" in text
    assert "consensus a > b > c > d" in text
    init = fit.init()
    assert init["rho"].shape == (2, 4) and init["z"].shape == (200,)


def test_rankings_input_and_bad_rows():
    rk = rs.Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"], ["a", "c", "b"]])
    assert mallows_em(rk, 1).consensus_orderings() == [["a", "b", "c"]]
    tied = np.array([[1, 2, 3], [1, 1, 3]])
    with pytest.raises(InvalidRankingsError, match=r"row 1.*tied"):
        mallows_em(tied, 1)
    missing = np.array([[1, 2, 3], [2, 1, 3], [1, np.nan, 2]])
    with pytest.raises(InvalidRankingsError, match=r"row 2.*missing"):
        mallows_em(missing, 1)
    with pytest.raises(InvalidRankingsError, match=r"row 0.*not 1 … n"):
        mallows_em(np.array([[1, 2, 4]]), 1)
    with pytest.raises(ValueError, match="clusters"):
        mallows_em(np.array([[1, 2, 3]]), 2)
    with pytest.raises(ValueError, match="distance"):
        mallows_em(np.array([[1, 2, 3]]), 1, distance="manhattan")


def test_seeded():
    ranks = rng_ranks(5, 200, seed=9)
    a = mallows_em(ranks, 3, starts=3, seed=4)
    b = mallows_em(ranks, 3, starts=3, seed=4)
    assert a.log_likelihood == b.log_likelihood
    assert np.array_equal(a.consensus, b.consensus)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bic_picks_the_true_number_of_clusters(seed):
    truth = [[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1], [2, 4, 6, 1, 3, 5]]
    ranks, _ = simulate(truth, [5.0, 5.0, 5.0], [0.4, 0.35, 0.25], 1500, "kendall", seed)
    bic = {k: mallows_em(ranks, k, starts=6, seed=seed).bic for k in range(1, 6)}
    assert min(bic, key=bic.get) == 3


def test_choose_clusters_by_em_and_the_edge_of_the_grid():
    from rankstats.models.cluster_choice import EdgeOfGridWarning

    truth = [[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]]
    ranks, _ = simulate(truth, [6.0, 6.0], [0.6, 0.4], 600, "kendall", seed=7)
    rk = rs.Rankings(ranks.astype(float), tuple("abcde"), pd.RangeIndex(600))
    with warnings.catch_warnings():
        warnings.simplefilter("error", EdgeOfGridWarning)
        choice = rs.models.choose_clusters(rk, [1, 2, 3], distance="kendall", method="em", starts=3)
    assert choice.best == 2 and choice.at_edge is None and choice.ic == "bic"
    assert list(choice.table.columns) == [
        "log_likelihood",
        "bic",
        "icl",
        "p",
        "within",
        "starts_at_best",
        "converged",
    ]
    assert choice.table["within"].is_monotonic_decreasing
    assert choice.table.loc[2, "bic"] == pytest.approx(choice.fits[2].bic)
    assert "ClusterChoice(EM, BIC: best K = 2; lower is better)" in repr(choice)
    with pytest.warns(EdgeOfGridWarning, match="largest tried"):
        upper = rs.models.choose_clusters(rk, [1, 2], distance="kendall", method="em", starts=3)
    assert upper.best == 2 and upper.at_edge == "upper"
    assert any("largest tried" in note for note in upper.notes)
    assert "(the largest K tried)" in repr(upper)
    with pytest.warns(EdgeOfGridWarning, match="smallest tried"):
        lower = rs.models.choose_clusters(rk, [2, 3], distance="kendall", method="em", ic="icl")
    assert lower.at_edge == "lower"
    with pytest.raises(ValueError, match="ic must be one of"):
        rs.models.choose_clusters(rk, [1, 2], method="em", ic="loo")
    with pytest.raises(TypeError, match="unknown EM options"):
        rs.models.choose_clusters(rk, [1, 2], method="em", draws=10)


@pytest.mark.slow  # 14 s on a loaded machine: the sampler's fixed costs
def test_em_start_of_the_bayesian_mixture():
    """The sampler's chains start at the EM estimate and its draws are numbered as the EM
    clusters (the pivot is the EM consensuses)."""
    from rankstats.models.mallows.mixture_fit import fit_model_mixture

    truth = [[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]]
    ranks, _ = simulate(truth, [6.0, 6.0], [0.4, 0.6], 60, "kendall", seed=2)
    rk = rs.Rankings(ranks.astype(float), tuple("abcde"), pd.RangeIndex(60))
    em = mallows_em(rk, 2, starts=2)
    model = rs.models.Mallows(distance="kendall", clusters=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_model_mixture(
            model, rk, tune=100, thin=1, draws=100, chains=2, seed=0, progress=False, start=em
        )
    assert fit.info["em_start"] is True
    assert "EM start" in fit.info["label_switching"]
    assert fit.info["consensus"] == em.consensus_orderings()
    weights = fit.weights()["weight"].to_numpy()
    assert weights[0] > weights[1]  # EM numbers by weight; the draws keep that numbering
    other = mallows_em(rk, 2, distance="footrule", starts=1)
    with pytest.raises(ValueError, match="EM start is a footrule mixture"):
        fit_model_mixture(
            model, rk, tune=10, thin=1, draws=10, chains=1, seed=0, progress=False, start=other
        )


@pytest.mark.slow
def test_bootstrap_likelihood_ratio_of_clusters():
    """One cluster simulated: K = 1 is not rejected against 2 at the 1 % level; two clusters
    simulated: K = 1 is rejected (p at its floor 1 / (1 + B))."""
    from rankstats.models.mallows.em_bootstrap import bootstrap_clusters

    one, _ = simulate([[1, 2, 3, 4, 5]], [4.0], [1.0], 300, "kendall", seed=5)
    test = bootstrap_clusters(one, 1, draws=19, starts=5, seed=0)
    assert test.p_value > 0.01 and len(test.null) == 19
    two, _ = simulate([[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]], [4.0, 4.0], [0.5, 0.5], 300, "kendall", 6)
    test = bootstrap_clusters(two, 1, draws=19, starts=5, seed=0)
    assert test.p_value == pytest.approx(1 / 20)
    assert test.statistic > test.null.max()


@pytest.mark.slow
def test_choose_clusters_with_em_started_chains():
    truth = [[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]]
    ranks, _ = simulate(truth, [6.0, 6.0], [0.4, 0.6], 60, "kendall", seed=2)
    rk = rs.Rankings(ranks.astype(float), tuple("abcde"), pd.RangeIndex(60))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        choice = rs.models.choose_clusters(
            rk,
            [1, 2],
            distance="kendall",
            em_start=True,
            draws=100,
            tune=100,
            chains=2,
            progress=False,
        )
    assert all(fit.info["em_start"] for fit in choice.fits.values())
    assert choice.fits[2].info["consensus"] == mallows_em(rk, 2).consensus_orderings()
