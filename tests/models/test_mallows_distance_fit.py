"""``rs.models.Mallows(distance=...)``: the fit by Metropolis–Hastings for every distance — its
posterior against the exact one (4 items), its consensus against brute force, its pairwise
probabilities against enumeration, its pointwise likelihood against the formula evaluated by
hand, its chains reproducible in worker processes, and the refusals where a tool is
Kendall-only."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from mallows_posterior import ALPHA_RATE, assert_draws_match, exact_posterior
from scipy.special import logsumexp

import rankstats as rs
from rankstats.core.permutations import sampling as mallows_sampling
from rankstats.core.permutations.pair_tables import pair_table
from rankstats.core.preferences import AssessorPreferences
from rankstats.models.mallows import _chains as _mallows_chains
from rankstats.models.mallows._metropolis import run_chain
from rankstats.models.mallows.metropolis_fit import bayes_consensus
from rankstats.models.pointwise_likelihood import distance_rankings

RANKINGS = np.array(  # 6 assessors, 4 items (as tests/models/test_mallows_metropolis.py)
    [[1, 2, 3, 4], [2, 1, 3, 4], [1, 3, 2, 4], [1, 2, 4, 3], [3, 1, 2, 4], [2, 1, 4, 3]]
)
ITEMS = ("a", "b", "c", "d")


def _rankings(ranks: np.ndarray = RANKINGS) -> rs.Rankings:
    return rs.Rankings(ranks.astype(float), ITEMS, pd.Index([f"r{i}" for i in range(len(ranks))]))


def test_a_gamma_prior_on_alpha_is_sampled_exactly():
    """α ~ Gamma(3, λ): the chain's consensus frequencies and E[α] are the exact posterior's."""
    marginal, mean_alpha = exact_posterior(list(RANKINGS), 4, "spearman", alpha_shape=3.0)
    chain = run_chain(
        RANKINGS,
        "spearman",
        20_000,
        np.random.default_rng(3),
        alpha_sd=0.5,
        alpha_shape=3.0,
        alpha_rate=ALPHA_RATE,
    )
    assert_draws_match(chain, marginal, mean_alpha, 2_000, "spearman, shape 3")


def test_the_fit_reproduces_the_exact_posterior():
    """Cayley model, α ~ Exp(λ) (θ = α/n ~ Exp(nλ)): every P(ρ_item = rank) and E[α] of the fit
    within Monte Carlo error of the exact posterior of every consensus."""
    marginal, mean_alpha = exact_posterior(list(RANKINGS), 4, "cayley")
    model = rs.models.Mallows(distance="cayley", shape=1.0, rate=4 * ALPHA_RATE)
    fit = model.fit(
        _rankings(), draws=3000, tune=500, thin=3, chains=2, progress=False, max_draws=3000
    )
    assert fit.info["extensions"] == 0
    assert fit.info["sampler"] == "metropolis" and fit.info["distance"] == "cayley"
    exact = np.zeros((4, 4))
    for rho, p in marginal.items():
        exact[np.arange(4), np.array(rho) - 1] += p
    table = fit.rank_distribution().loc[list(ITEMS)].to_numpy()
    assert np.abs(table - exact).max() < 0.03
    assert fit.parameters["alpha"] == pytest.approx(mean_alpha, rel=0.06)


@pytest.mark.parametrize("distance", rs.models.DISTANCES)
def test_the_consensus_minimises_the_mean_distance(distance):
    """Brute force over every ranking of 5 items (Cayley and Ulam: over the distinct draws,
    which is what the module promises for them)."""
    rng = np.random.default_rng(7)
    draws = mallows_sampling.sample_mallows(
        np.array([2, 1, 3, 5, 4]), 3.0, distance, 400, rng, method="exact"
    )
    systems = tuple("vwxyz")
    order = bayes_consensus(draws, systems, distance)
    chosen = np.array([order.index(s) + 1 for s in systems])

    def mean(rho):
        return rs.models.rank_distance(draws, rho, distance).mean()

    if distance in ("cayley", "ulam"):
        candidates = np.unique(draws, axis=0)
    else:
        candidates = np.array(list(itertools.permutations(range(1, 6))))
    assert mean(chosen) == pytest.approx(min(mean(c) for c in candidates))


def _enumerated_table(n: int, alpha: float, distance_of) -> np.ndarray:
    """T[a, b] = P(π_a < π_b) under Mallows(identity, α), by itertools (the test's own code)."""
    perms = np.array(list(itertools.permutations(range(1, n + 1))))
    logw = -alpha / n * distance_of(perms, np.arange(1, n + 1))
    w = np.exp(logw - logw.max())
    above = perms[:, :, None] < perms[:, None, :]
    table = np.tensordot(w, above, axes=1) / w.sum()
    np.fill_diagonal(table, 0.5)
    return table


def test_pair_tables_equal_enumeration():
    footrule = lambda p, r: np.abs(p - r).sum(axis=1)  # noqa: E731
    inversions = lambda p, r: sum(  # noqa: E731
        (p[:, i] > p[:, j]).astype(int) for i in range(p.shape[1]) for j in range(i + 1, p.shape[1])
    )
    exact = pair_table(6, [2.0, 7.5], "footrule")
    assert exact.method == "enumeration" and exact.standard_error == 0
    for k, alpha in enumerate((2.0, 7.5)):
        np.testing.assert_allclose(exact.values[k], _enumerated_table(6, alpha, footrule))
    closed = pair_table(6, [4.0], "kendall")
    assert closed.method == "closed form"
    np.testing.assert_allclose(closed.values[0], _enumerated_table(6, 4.0, inversions))
    # 9 items: past enumeration in the package, Monte Carlo within its standard error.
    estimate = pair_table(9, [9.0], "footrule", rng=np.random.default_rng(1))
    assert estimate.method == "monte carlo"
    truth = _enumerated_table(9, 9.0, footrule)
    se = np.sqrt(truth * (1 - truth) / 2000)  # pair_table's default size
    assert np.all(np.abs(estimate.values[0] - truth) <= 4.5 * se + 1e-3)


def test_adjacent_swaps_give_the_same_chains_either_way(monkeypatch):
    """The O(1) change of a swap (footrule, Spearman, Hamming) against the whole distance."""
    rho = np.array([3, 1, 2, 5, 4, 6, 7, 9, 8, 10])
    fast = {
        d: mallows_sampling.sample_mallows(
            rho, 6.0, d, 50, np.random.default_rng(2), method="metropolis", steps=400
        )
        for d in ("footrule", "spearman", "hamming")
    }
    monkeypatch.setattr(mallows_sampling, "_SWAP_TERM", {})
    for d, draws in fast.items():
        whole = mallows_sampling.sample_mallows(
            rho, 6.0, d, 50, np.random.default_rng(2), method="metropolis", steps=400
        )
        np.testing.assert_array_equal(draws, whole)


def test_pairwise_reads_the_table_at_each_draw():
    """P(a above b) per draw = T_α[ρ_a, ρ_b] (enumerated here), within the α-grid
    interpolation."""
    fit = rs.models.Mallows(distance="footrule").fit(
        _rankings(), draws=300, tune=200, chains=2, progress=False, max_draws=300
    )
    table = fit.pairwise()
    assert table.attrs["pair_table"] == "enumeration"
    draws = fit.draws()
    footrule = lambda p, r: np.abs(p - r).sum(axis=1)  # noqa: E731
    cache: dict[float, np.ndarray] = {}
    per_draw = np.empty((len(draws["alpha"]), 4, 4))
    for s, (alpha, rho) in enumerate(zip(draws["alpha"], draws["position"], strict=True)):
        key = round(float(alpha), 1)
        if key not in cache:
            cache[key] = _enumerated_table(4, key, footrule)
        r = rho.astype(int) - 1
        per_draw[s] = cache[key][np.ix_(r, r)]
    index = {s: i for i, s in enumerate(ITEMS)}
    for row in table.itertuples():
        expected = per_draw[:, index[row.system_a], index[row.system_b]].mean()
        assert row.estimate == pytest.approx(expected, abs=0.01)


def test_pointwise_likelihood_is_the_mallows_probability():
    """-α d(y, ρ)/n − log Z_n(α), Z by summing over the 24 rankings, for every draw; a tied
    ranking's is the sum over its two orders (every pattern:
    tests/core/test_mallows_marginal.py)."""
    rng = np.random.default_rng(0)
    rho = np.array([np.random.default_rng(s).permutation(4) + 1 for s in range(5)])
    alpha = rng.uniform(0.5, 8.0, 5)
    perms = np.array(list(itertools.permutations(range(1, 5))))
    values = distance_rankings(RANKINGS.astype(float), rho, alpha, "hamming")
    for s in range(5):
        log_z = logsumexp(-alpha[s] / 4 * (perms != rho[s]).sum(axis=1))
        expected = -alpha[s] / 4 * (RANKINGS != rho[s]).sum(axis=1) - log_z
        np.testing.assert_allclose(values[s], expected)
    # a tie: either order, the sum of the two rankings' probabilities
    tied = distance_rankings(np.array([[1.0, 1.0, 2.0, 3.0]]), rho, alpha, "hamming")
    both = np.array([[1, 2, 3, 4], [2, 1, 3, 4]])
    for s in range(5):
        log_z = logsumexp(-alpha[s] / 4 * (perms != rho[s]).sum(axis=1))
        expected = logsumexp(-alpha[s] / 4 * (both != rho[s]).sum(axis=1)) - log_z
        assert tied[s, 0] == pytest.approx(expected, abs=1e-12)


def test_chains_in_worker_processes_draw_the_same(monkeypatch):
    model = rs.models.Mallows(distance="ulam")
    options = dict(draws=200, tune=300, chains=2, progress=False, max_draws=200)
    one = model.fit(_rankings(), n_jobs=1, **options)
    monkeypatch.setattr(_mallows_chains, "PARALLEL_FROM", 0.0)
    two = model.fit(_rankings(), n_jobs=2, **options)
    assert two.info["workers"] == 2 and one.info["workers"] == 1
    for name in ("alpha", "position"):
        np.testing.assert_array_equal(one.draws()[name], two.draws()[name])


def test_a_fit_round_trips_through_netcdf(tmp_path):
    fit = rs.models.Mallows(distance="spearman").fit(
        _rankings(), draws=200, tune=200, chains=2, progress=False, max_draws=200
    )
    from rankstats._pymc import compat

    back = rs.models.Fit.from_idata(compat.from_netcdf(fit.to_netcdf(tmp_path / "fit.nc")))
    assert isinstance(back, rs.models.MallowsFit)
    assert back.info["distance"] == "spearman" and back.order == fit.order
    pd.testing.assert_frame_equal(back.pairwise(), fit.pairwise(), check_like=True)


def test_preferences_are_fitted_and_compared_by_loo():
    table = pd.DataFrame(
        [(j, a, b) for j in range(6) for a, b in (("a", "b"), ("b", "c"), ("c", "d"))]
        + [(6, "b", "a"), (7, "d", "c")],
        columns=["assessor", "preferred", "other"],
    )
    prefs = AssessorPreferences.from_table(table)
    fit = rs.models.Mallows(distance="footrule").fit(
        prefs, draws=500, tune=500, chains=2, progress=False
    )
    assert fit.order == ["a", "b", "c", "d"]
    assert fit.info["preferences"] == {"stated": prefs.n_stated, "implied": prefs.n_implied}
    result = rs.models.compare_fits({"one": fit, "two": fit})  # one value per assessor
    assert result.unit == "assessor" and result.n_units == len(prefs.assessors)


def test_kendall_by_metropolis_keeps_every_kendall_tool():
    fit = rs.models.Mallows().fit(
        _rankings(),
        sampler="metropolis",
        draws=300,
        tune=300,
        chains=2,
        progress=False,
        max_draws=300,
    )
    assert fit.info["sampler"] == "metropolis"
    np.testing.assert_allclose(fit.draws()["theta"], fit.draws()["alpha"] / 4)
    assert fit.pairwise().attrs.get("pair_table") is None  # the closed form, per draw


def test_bad_arguments_are_refused_before_sampling():
    rk = _rankings()
    with pytest.raises(ValueError, match="distance must be one of"):
        rs.models.Mallows(distance="euclid")
    with pytest.raises(ValueError, match="kind must be one of"):
        rs.models.Mallows(kind="top")
    with pytest.raises(ValueError, match="Gibbs sampler applies to the Kendall"):
        rs.models.Mallows(distance="footrule").fit(rk, sampler="gibbs")
    with pytest.raises(ValueError, match="thin, leap and rho_proposal apply"):
        rs.models.Mallows().fit(rk, thin=5)
    with pytest.raises(ValueError, match="Kemeny consensus"):
        rs.models.Mallows(distance="hamming").fit(rk, method="map")
    with pytest.raises(ValueError, match="leap must be at most"):
        rs.models.Mallows(distance="hamming").fit(rk, leap=4)
    with pytest.raises(ValueError, match="sampler must be one of"):
        rs.models.Mallows().fit(rk, sampler="nuts")


def test_ppc_says_it_is_kendall_only():
    fit = rs.models.Mallows(distance="footrule").fit(
        _rankings(), draws=100, tune=100, chains=2, progress=False, max_draws=100
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="footrule distance, for which"):
            rs.models.ppc(fit, _rankings())


def test_top_k_rankings_put_the_unranked_below():
    """Every assessor ranks a first and b second of 4: under top_k, c and d are below both."""
    ranks = np.array([[1, 2, np.nan, np.nan]] * 8)
    with warnings.catch_warnings():  # c and d swap freely: their positions mix slowly
        warnings.simplefilter("ignore", rs.models.ConvergenceWarning)
        fit = rs.models.Mallows(distance="footrule", kind="top_k").fit(
            _rankings(ranks), draws=500, tune=500, chains=2, progress=False, max_draws=500
        )
    assert fit.order[:2] == ["a", "b"]
    assert 0 < fit.info["acceptance_augmentation"] < 1


def _enumerated_ranks(n: int, alpha: float, distance_of) -> np.ndarray:
    """M[a, r] = P(π_a = r + 1) under Mallows(identity, α), by itertools."""
    perms = np.array(list(itertools.permutations(range(1, n + 1))))
    logw = -alpha / n * distance_of(perms, np.arange(1, n + 1))
    w = np.exp(logw - logw.max())
    table = np.zeros((n, n))
    for a in range(n):
        np.add.at(table[a], perms[:, a] - 1, w)
    return table / w.sum()


def test_rank_tables_equal_enumeration():
    from rankstats.core.permutations.pair_tables import rank_table

    footrule = lambda p, r: np.abs(p - r).sum(axis=1)  # noqa: E731
    exact = rank_table(5, [3.0], "footrule")
    assert exact.method == "enumeration"
    np.testing.assert_allclose(exact.values[0], _enumerated_ranks(5, 3.0, footrule))
    # 9 items, Kendall: the exact insertion sampler's shares within 4.5 standard errors.
    inversions = lambda p, r: sum(  # noqa: E731
        (p[:, i] > p[:, j]).astype(int) for i in range(p.shape[1]) for j in range(i + 1, p.shape[1])
    )
    estimate = rank_table(9, [6.0], "kendall", rng=np.random.default_rng(3))
    truth = _enumerated_ranks(9, 6.0, inversions)
    se = np.sqrt(truth * (1 - truth) / 2000)
    assert estimate.method == "monte carlo"
    assert np.all(np.abs(estimate.values[0] - truth) <= 4.5 * se + 1e-3)


@pytest.mark.parametrize("distance", ["footrule", "kendall"])
def test_top_k_probabilities_are_the_rank_marginals_at_each_draw(distance):
    """P(system in a new ranking's top k) per draw = Σ_{r ≤ k} M_α[ρ, r] (enumerated here); the
    probabilities of all systems sum to k; the Gibbs sampler's fits (θ) included."""
    fit = rs.models.Mallows(distance=distance).fit(
        _rankings(), draws=300, tune=200, chains=2, progress=False, max_draws=300
    )
    table = fit.top_k(2)
    assert table["system"].tolist() == fit.order
    assert table["probability"].sum() == pytest.approx(2.0)
    assert table.attrs["table"] == "enumeration"
    draws = fit.draws()
    alpha = draws["alpha"] if "alpha" in draws else draws["theta"] * 4
    of = {
        "footrule": lambda p, r: np.abs(p - r).sum(axis=1),
        "kendall": lambda p, r: sum(
            (p[:, i] > p[:, j]).astype(int) for i in range(4) for j in range(i + 1, 4)
        ),
    }[distance]
    cache: dict[float, np.ndarray] = {}
    per_draw = np.empty((len(alpha), 4))
    for s, (a, rho) in enumerate(zip(alpha, draws["position"], strict=True)):
        key = round(float(a), 1)
        if key not in cache:
            cache[key] = _enumerated_ranks(4, key, of)
        per_draw[s] = cache[key][rho.astype(int) - 1, :2].sum(axis=1)
    expected = dict(zip(ITEMS, per_draw.mean(axis=0), strict=True))
    for row in table.itertuples():
        assert row.probability == pytest.approx(expected[row.system], abs=0.01)
    with pytest.raises(ValueError, match="k must be a whole number between 1 and 4"):
        fit.top_k(5)


def test_the_swap_proposal_is_an_option_of_the_metropolis_fit_only():
    rk = rs.load_rankings("salad")
    fit = rs.models.Mallows(distance="footrule").fit(
        rk, draws=50, tune=100, chains=1, progress=False, rho_proposal="swap", leap=2
    )
    assert (fit.info["rho_proposal"], fit.info["leap"]) == ("swap", 2)
    with pytest.raises(ValueError, match="rho_proposal must be one of"):
        rs.models.Mallows(distance="footrule").fit(rk, rho_proposal="shift", progress=False)
    with pytest.raises(ValueError, match="apply to the Metropolis–Hastings sampler"):
        rs.models.Mallows().fit(rk, rho_proposal="swap", progress=False)
