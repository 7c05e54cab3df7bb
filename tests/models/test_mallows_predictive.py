"""The posterior predictive distribution of a new assessor's ranking
(:mod:`rankstats.models.mallows.predictive`): its probabilities against a double loop over the
draws and all ``n!`` rankings with the normalising constant summed by hand, its sum over all
rankings, its draws against its probabilities (chi-square), mixtures, the Gibbs sampler's θ,
and the refusals."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chisquare

import rankstats as rs
from rankstats.core.permutations.distances import DISTANCES, rank_distance
from rankstats.models.mallows import predictive as mp

RANKINGS = np.array(  # 6 assessors, 4 items (as tests/models/test_mallows_distance_fit.py)
    [[1, 2, 3, 4], [2, 1, 3, 4], [1, 3, 2, 4], [1, 2, 4, 3], [3, 1, 2, 4], [2, 1, 4, 3]]
)
ITEMS = ("a", "b", "c", "d")
# Short chains in the NumPy loop (no numba compilation): the tests compare with the fit's own draws
SMALL = {"draws": 100, "tune": 100, "chains": 2, "progress": False, "max_draws": 100}


def _rankings() -> rs.Rankings:
    return rs.Rankings(RANKINGS.astype(float), ITEMS, pd.Index([f"r{i}" for i in range(6)]))


def _fit(**model) -> rs.models.Fit:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 200 draws do not pass the convergence check
        metropolis = {"backend": "numpy", "thin": 2} if model else {}  # {}: the Gibbs sampler
        return rs.models.Mallows(**model).fit(_rankings(), seed=1, **metropolis, **SMALL)


@pytest.fixture(scope="module")
def footrule_fit():
    return _fit(distance="footrule")


def _all(n: int) -> np.ndarray:
    return np.array(list(itertools.permutations(range(1, n + 1))))


def _brute_force(rho, alpha, weight, distance: str) -> np.ndarray:
    r"""``p[j]`` of the ``j``-th ranking of :func:`_all`: a loop over the draws and clusters,
    :math:`Z` summed over every permutation (not the partition function under test)."""
    size, clusters, n = rho.shape
    perms = _all(n)
    p = np.zeros(len(perms))
    for s in range(size):
        for k in range(clusters):
            d = np.array([int(rank_distance(r, rho[s, k], distance)) for r in perms])
            kernel = np.exp(-alpha[s, k] * d / n)
            p += weight[s, k] * kernel / kernel.sum()
    return p / size


def _fake(n: int, distance: str, clusters: int = 1, size: int = 6, seed: int = 0):
    rng = np.random.default_rng(seed)
    rho = np.array([[rng.permutation(n) + 1 for _ in range(clusters)] for _ in range(size)])
    alpha = rng.uniform(0.5, 3.0 * n, (size, clusters))
    weight = rng.dirichlet(np.ones(clusters), size)
    systems = tuple("abcdefghij"[:n])
    return mp.PredictivePosterior.from_arrays(systems, rho, alpha, distance, weight)


@pytest.mark.parametrize("distance", DISTANCES)
@pytest.mark.parametrize("n", [3, 4])
def test_probabilities_equal_the_double_loop_and_sum_to_one(n, distance):
    post = _fake(n, distance, seed=n)
    exact = _brute_force(post.rho, post.alpha, post.weight, distance)
    table = mp.predictive_probability(post, pd.DataFrame(_all(n), columns=list(post.systems)))
    np.testing.assert_allclose(table["probability"], exact, rtol=1e-10, atol=1e-15)
    assert table["probability"].sum() == pytest.approx(1.0, abs=1e-12)
    per_draw = mp.draw_probabilities(_all(n), post)
    np.testing.assert_allclose(per_draw.sum(axis=1), 1.0, atol=1e-12)  # each draw: a distribution


@pytest.mark.parametrize("distance", ["footrule", "ulam"])
def test_a_mixture_is_the_weighted_sum_of_its_clusters(distance):
    post = _fake(4, distance, clusters=3, size=5, seed=7)
    exact = _brute_force(post.rho, post.alpha, post.weight, distance)
    got = mp.predictive_probability(
        post, [[post.systems[i] for i in np.argsort(r)] for r in _all(4)]
    )
    np.testing.assert_allclose(got["probability"], exact, rtol=1e-10)
    table = mp.predictive_distribution(post, top=30)
    assert len(table) == 24 and table.attrs["method"] == "exact"
    assert table["probability"].sum() == pytest.approx(1.0, abs=1e-12)
    assert table["probability"].is_monotonic_decreasing


def test_the_table_lists_the_most_probable_rankings_exactly():
    post = _fake(4, "spearman", size=8, seed=3)
    exact = _brute_force(post.rho, post.alpha, post.weight, "spearman")
    table = mp.predictive_distribution(post, top=5)
    assert table.attrs["method"] == "exact" and table.attrs["total"] == pytest.approx(1.0)
    np.testing.assert_allclose(table["probability"], np.sort(exact)[::-1][:5], rtol=1e-10)
    # the order string and the rank columns describe the same ranking
    ranks = table[list(post.systems)].to_numpy()
    assert table["ranking"].tolist() == mp.order_labels(ranks, post.systems)
    assert table["ranking"].iloc[0].split(" > ") == [post.systems[i] for i in np.argsort(ranks[0])]
    assert (table["se"] > 0).all()


@pytest.mark.parametrize(
    ("distance", "method"),
    [
        ("footrule", "auto"),
        ("cayley", "auto"),
        ("kendall", "auto"),
        ("footrule", "metropolis"),
        ("cayley", "metropolis"),
    ],
)
def test_drawn_rankings_follow_the_probabilities(distance, method):
    """Frequencies of 8,000 predictive rankings of a 2-cluster posterior against the exact
    probabilities (enumerated classes, repeated insertion for Kendall, Metropolis swaps);
    rankings expected fewer than 5 times are pooled into one cell."""
    post = _fake(4, distance, clusters=2, size=5, seed=11)
    expected = _brute_force(post.rho, post.alpha, post.weight, distance) * 8_000
    drawn = mp.predictive_rankings(post, 8_000, seed=5, method=method)
    code = {tuple(r): j for j, r in enumerate(_all(4))}
    counts = np.bincount([code[tuple(r)] for r in drawn.to_numpy()], minlength=24)
    cell = np.where(expected < 5, 24, np.arange(24))  # cell 24: the rare rankings together
    observed, pooled = np.bincount(cell, counts, 25), np.bincount(cell, expected, 25)
    keep = pooled > 0
    assert chisquare(observed[keep], pooled[keep]).pvalue > 0.001


def test_drawn_rankings_are_reproducible_by_seed(footrule_fit):
    one = footrule_fit.predictive_rankings(50, seed=3)
    assert list(one.columns) == list(ITEMS) and len(one) == 50
    assert (np.sort(one.to_numpy(), axis=1) == np.arange(1, 5)).all()
    pd.testing.assert_frame_equal(one, footrule_fit.predictive_rankings(50, seed=3))
    assert not one.equals(footrule_fit.predictive_rankings(50, seed=4))


def test_a_fit_predicts_from_its_own_draws(footrule_fit):
    draws = footrule_fit.draws()
    post = mp.PredictivePosterior.from_arrays(ITEMS, draws["position"], draws["alpha"], "footrule")
    exact = _brute_force(post.rho, post.alpha, post.weight, "footrule")
    got = footrule_fit.predictive_probability(pd.DataFrame(_all(4), columns=list(ITEMS)))
    np.testing.assert_allclose(got["probability"], exact, rtol=1e-10)
    assert (got["se"] > 0).all() and (got["se"] < got["probability"]).all()
    table = footrule_fit.predictive_distribution(top=3)
    assert table["probability"].iloc[0] == pytest.approx(exact.max())
    # the s.e. is ArviZ's MCSE of the per-draw values, two chains of 100 draws
    values = mp.draw_probabilities(_all(4)[:1], post)
    assert got["se"].iloc[0] == pytest.approx(mp.monte_carlo_se(values, 2)[0])


def test_the_gibbs_fit_predicts_with_alpha_n_theta():
    fit = _fit()  # Kendall, exact Gibbs sampler: draws of θ, no α
    draws = fit.draws()
    assert "theta" in draws and "alpha" not in draws
    n = 4
    rho = np.rint(draws["position"]).astype(int)[:, None, :]
    exact = _brute_force(rho, n * draws["theta"][:, None], np.ones((len(rho), 1)), "kendall")
    got = fit.predictive_probability({"b": 1, "a": 2, "c": 3, "d": 4})
    assert got["probability"].iloc[0] == pytest.approx(exact[_code((2, 1, 3, 4))], rel=1e-10)
    assert got["ranking"].iloc[0] == "b > a > c > d"
    assert fit.predictive_distribution(top=24)["probability"].sum() == pytest.approx(1.0)
    assert len(fit.predictive_rankings(10, seed=0)) == 10


def _code(ranks: tuple[int, ...]) -> int:
    return [tuple(r) for r in _all(len(ranks))].index(ranks)


def test_a_mixture_fit_mixes_its_clusters():
    fit = _fit(distance="cayley", clusters=2)
    draws = fit.draws()
    exact = _brute_force(
        np.rint(draws["position"]).astype(int), draws["alpha"], draws["weight"], "cayley"
    )
    got = fit.predictive_probability(pd.DataFrame(_all(4), columns=list(ITEMS)))
    np.testing.assert_allclose(got["probability"], exact, rtol=1e-10)
    drawn = fit.predictive_rankings(30, seed=2)
    assert drawn.shape == (30, 4)


def test_beyond_eight_systems_the_table_scores_what_it_finds():
    """n = 9: the candidates (drawn rankings and the consensuses) scored by the formula; with a
    peaked model the consensus is the most probable ranking, and its probability is the
    formula's (one draw, one cluster: e^0 / Z)."""
    rho = np.arange(1, 10)[None, :]
    post = mp.PredictivePosterior.from_arrays(tuple("abcdefghi"), rho, np.array([18.0]), "hamming")
    table = mp.predictive_distribution(post, top=3, draws=300, seed=0)
    assert table.attrs["method"] == "search"
    assert table["ranking"].iloc[0] == " > ".join("abcdefghi")
    z = sum(math.comb(9, k) * _derangements(k) * math.exp(-2.0 * k) for k in range(10))
    assert table["probability"].iloc[0] == pytest.approx(1 / z, rel=1e-10)
    assert 0 < table["frequency"].iloc[0] < 1


def _derangements(k: int) -> int:
    return round(math.factorial(k) / math.e) if k else 1


def test_bad_rankings_are_refused_with_their_names(footrule_fit):
    fit = footrule_fit
    with pytest.raises(ValueError, match=r"unknown system.*'e'"):
        fit.predictive_probability(["a", "b", "c", "e"])
    with pytest.raises(ValueError, match=r"lack.*'d'"):
        fit.predictive_probability([["a", "b", "c"]])
    with pytest.raises(ValueError, match="'a' more than once"):
        fit.predictive_probability(["a", "b", "c", "a", "d"])
    with pytest.raises(ValueError, match=r"lack.*'c'"):
        fit.predictive_probability({"a": 1, "b": 2, "d": 3})
    frame = pd.DataFrame([[1, 2, 3, np.nan]], columns=list(ITEMS), index=["x"])
    with pytest.raises(ValueError, match="'x' is incomplete: no rank for d"):
        fit.predictive_probability(frame)
    frame = pd.DataFrame([[1, 2, 2, 4]], columns=list(ITEMS), index=["tie"])
    with pytest.raises(ValueError, match=r"'tie' has ranks .* not a permutation of 1 … 4"):
        fit.predictive_probability(frame)
    with pytest.raises(ValueError, match="rankings must be"):
        fit.predictive_probability("a > b")
    with pytest.raises(ValueError, match="size must be"):
        fit.predictive_rankings(0)
    with pytest.raises(ValueError, match="top must be"):
        fit.predictive_distribution(top=0)
    mean_positions = [[1, 2, 3, 4], [1.5, 1.5, 3, 4]]  # not a consensus: refused, not rounded
    with pytest.raises(ValueError, match="rho of draw 1 is not a permutation of 1 … 4"):
        mp.PredictivePosterior.from_arrays(ITEMS, mean_positions, [1.0, 1.0], "footrule")
