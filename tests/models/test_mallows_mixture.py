"""Mixtures of Mallows models (issue 25, item 4): the sampler against the exact posterior, the
recovery of simulated clusters, label switching, the fit's outputs and its refusals."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, special, stats

import rankstats as rs
from rankstats.core.permutations.partition import partition_function
from rankstats.core.permutations.sampling import sample_mallows
from rankstats.models.mallows._mixture import MixtureChain, pivot_permutation

# A small data set with two unequal groups: 3 items, 5 assessors.
SMALL = np.array([[1, 2, 3], [1, 2, 3], [1, 3, 2], [3, 2, 1], [2, 3, 1]])
PIVOT = np.array([[1, 2, 3], [3, 2, 1]])
SHAPE, RATE, PSI = 3.0, 1.0, 2.0


def _footrule(r, rho):
    return int(np.abs(np.asarray(r) - np.asarray(rho)).sum())


def _exact_relabelled_posterior(data, distance_of, log_z, n, clusters=2):
    """Posterior expectations of the relabelled α, τ, assignments and within-cluster distance,
    by enumerating every (ρ_1, ρ_2, z) and integrating α_k (quadrature) and τ (Beta) out —
    written from the model's definition, independently of the sampler."""
    perms = [np.array(p) + 1 for p in itertools.permutations(range(n))]
    m = len(data)
    integrals: dict[tuple[int, int], tuple[float, float]] = {}

    def alpha_integrals(total: int, members: int) -> tuple[float, float]:
        # ∫ Gamma(α; a, b) e^{−α D / n} Z(α)^{−N_k} dα and the same times α.
        key = (total, members)
        if key not in integrals:

            def f(a, power):
                return (
                    a**power
                    * stats.gamma.pdf(a, SHAPE, scale=1 / RATE)
                    * math.exp(-a * total / n - members * float(log_z(a)))
                )

            i0 = integrate.quad(f, 0, 80, args=(0,), limit=200)[0]
            i1 = integrate.quad(f, 0, 80, args=(1,), limit=200)[0]
            integrals[key] = (i0, i1)
        return integrals[key]

    weight_sum = 0.0
    e_alpha = np.zeros(clusters)
    e_weight = np.zeros(clusters)
    e_assign = np.zeros((m, clusters))
    e_within = 0.0
    for rhos in itertools.product(perms, repeat=clusters):
        rho = np.stack(rhos)
        new = pivot_permutation(rho, PIVOT)
        d = np.array([[distance_of(r, rho[k]) for k in range(clusters)] for r in data])
        for z in itertools.product(range(clusters), repeat=m):
            z = np.array(z)
            counts = np.bincount(z, minlength=clusters)
            totals = np.array([d[z == k, k].sum() for k in range(clusters)])
            ints = [alpha_integrals(int(totals[k]), int(counts[k])) for k in range(clusters)]
            # Dirichlet(ψ) integrated against τ^counts: B(ψ + counts) / B(ψ).
            w = math.exp(
                special.gammaln(PSI + counts).sum() - special.gammaln(clusters * PSI + m)
            ) * np.prod([i[0] for i in ints])
            weight_sum += w
            mean_alpha = np.array([i[1] / i[0] for i in ints])
            mean_weight = (PSI + counts) / (clusters * PSI + m)
            e_alpha[new] += w * mean_alpha
            e_weight[new] += w * mean_weight
            e_assign[np.arange(m), new[z]] += w
            e_within += w * totals.sum()
    return (
        e_alpha / weight_sum,
        e_weight / weight_sum,
        e_assign / weight_sum,
        e_within / weight_sum,
    )


def _batch_se(x: np.ndarray, batches: int = 40) -> np.ndarray:
    """Monte Carlo standard error of the mean of ``x`` (draws first) by batch means."""
    b = np.array_split(x, batches)
    means = np.stack([c.mean(axis=0) for c in b])
    return means.std(axis=0, ddof=1) / math.sqrt(batches)


@pytest.mark.parametrize(
    ("proposal", "leap"),
    [("leap_and_shift", 1), ("swap", 2)],
)
@pytest.mark.slow  # a sampler's long chain against exact enumeration (18 s)
def test_the_sampler_reproduces_the_exact_relabelled_posterior(proposal, leap):
    n = 3
    pf = partition_function(n, "footrule")
    exact_alpha, exact_weight, exact_assign, exact_within = _exact_relabelled_posterior(
        SMALL, _footrule, pf.log_z, n
    )
    chain = MixtureChain(
        SMALL.astype(float),
        "footrule",
        np.random.default_rng(3),
        2,
        alpha_shape=SHAPE,
        alpha_rate=RATE,
        psi=PSI,
        alpha_sd=0.5,
        rho_proposal=proposal,
        leap=leap,
    )
    chain.run(2000, adapt=True)
    chain.set_pivot(PIVOT)
    draws = chain.run(60_000, thin=2)
    est = {
        "alpha": (draws.alpha.mean(axis=0), _batch_se(draws.alpha), exact_alpha),
        "weight": (draws.weight.mean(axis=0), _batch_se(draws.weight), exact_weight),
        "within": (draws.within.mean(), _batch_se(draws.within), exact_within),
    }
    for name, (value, se, exact) in est.items():
        assert np.all(np.abs(value - exact) <= 4.5 * se + 1e-3), (name, value, exact, se)
    assigned = draws.assigned / len(draws.alpha)
    # The assignment shares: their MC error is at most that of a proportion over ~2,000
    # effective draws (the chain mixes in a few iterations here).
    assert np.abs(assigned - exact_assign).max() < 0.03, (assigned, exact_assign)


def _simulated(seed: int = 0, n: int = 10, sizes=(60, 40), alphas=(6.0, 9.0)):
    rng = np.random.default_rng(seed)
    rhos = [np.arange(1, n + 1)] + [rng.permutation(n) + 1 for _ in sizes[1:]]
    ranks = np.vstack(
        [
            sample_mallows(rho, a, "footrule", size, rng)
            for rho, a, size in zip(rhos, alphas, sizes, strict=True)
        ]
    ).astype(float)
    truth = np.repeat(np.arange(len(sizes)), sizes)
    rk = rs.Rankings(
        ranks,
        tuple(f"item{i}" for i in range(n)),
        pd.Index([f"a{j}" for j in range(len(ranks))]),
    )
    return rk, rhos, truth


@pytest.mark.slow  # sampled fits of simulated mixtures
def test_simulated_clusters_are_recovered():
    rk, rhos, truth = _simulated()
    fit = rs.models.Mallows(distance="footrule", clusters=2, prior="bayesmallows").fit(
        rk, draws=400, tune=1500, thin=5, progress=False
    )
    assert fit.info["convergence_problems"] == []
    table = fit.assignments()
    # Clusters are numbered by the pivot: match them to the truth by their consensus.
    consensus = np.array(
        [[c.order.index(s) + 1 for s in rk.systems] for c in fit.clusters], dtype=np.int64
    )
    new = pivot_permutation(np.stack(rhos), consensus)
    assert (table["cluster"].to_numpy() - 1 == new[truth]).mean() >= 0.97
    for k, rho in enumerate(rhos):
        assert np.abs(consensus[new[k]] - rho).sum() <= 4  # the consensus, within two swaps
    weights = fit.weights()
    assert weights["low"].iloc[new[0]] < 0.6 < weights["high"].iloc[new[0]]
    assert set(fit.summary().index) >= {"alpha[1]", "weight[2]", "position[1,item0]"}


@pytest.mark.slow  # 3-4 s (each distance): the README's test run stays under 4 minutes
def test_every_chain_reports_the_same_numbering():
    """Chains started from different seeds find the clusters under different numbers; the
    relabelling to the shared pivot makes their draws agree (R-hat ≈ 1)."""
    rk, _, _ = _simulated(seed=1)
    fit = rs.models.Mallows(distance="footrule", clusters=2).fit(
        rk, draws=300, tune=1500, thin=5, chains=3, progress=False, max_draws=300
    )
    summary = fit.summary()
    assert summary.loc[["alpha[1]", "alpha[2]", "weight[1]"], "r_hat"].max() < 1.02


def test_pairwise_and_top_k_of_a_new_assessor_equal_enumeration_over_all_rankings():
    # A new assessor's ranking, per draw: Σ_k τ_k e^{−α_k d(r, ρ_k)/n} / Z(α_k) over all n!
    # rankings, Z by the same enumeration (not the partition function, not the pair tables).
    # Unequal clusters (weights ≈ 0.7 / 0.3), so that swapping the weights moves every
    # probability by about 0.38 (the error found here is 0.0014).
    n = 6
    rk, _, _ = _simulated(seed=2, n=n, sizes=(45, 15), alphas=(8.0, 8.0))
    fit = rs.models.Mallows(distance="footrule", clusters=2).fit(
        rk, draws=200, tune=1000, thin=5, chains=2, progress=False, max_draws=200
    )
    draws = fit.draws()
    perms = np.array(list(itertools.permutations(range(1, n + 1))))  # (n!, n) rank vectors
    rho = np.rint(draws["position"]).astype(int)  # (S, K, n)
    d = np.abs(perms[None, None] - rho[:, :, None]).sum(axis=-1)  # (S, K, n!)
    kernel = np.exp(-draws["alpha"][:, :, None] / n * d)
    p = np.einsum("sk,skr->sr", draws["weight"], kernel / kernel.sum(axis=2, keepdims=True))
    above = perms[:, :, None] < perms[:, None, :]  # (n!, n, n), systems in fit order
    exact_pair = np.einsum("sr,rab->ab", p, above) / len(p)
    pairs = fit.pairwise().set_index(["system_a", "system_b"])["estimate"]
    for (a, b), estimate in pairs.items():
        i, j = fit.systems.index(a), fit.systems.index(b)
        assert estimate == pytest.approx(exact_pair[i, j], abs=0.01), (a, b)
    k = 3
    exact_top = (p @ (perms <= k)).mean(axis=0)  # (n,) per system, systems in fit order
    top = fit.top_k(k).set_index("system").loc[list(fit.systems), "probability"]
    np.testing.assert_allclose(top.to_numpy(), exact_top, atol=0.01)
    assert top.sum() == pytest.approx(k, abs=1e-6)  # k places to fill


@pytest.mark.slow  # 3-4 s (each distance): the README's test run stays under 4 minutes
def test_loo_prefers_two_clusters_on_two_cluster_data():
    rk, _, _ = _simulated(seed=4, n=8, sizes=(40, 40), alphas=(10.0, 10.0))
    fits = {
        f"K={k}": rs.models.Mallows(distance="footrule", clusters=k).fit(
            rk, draws=300, tune=1000, thin=5, chains=2, progress=False, max_draws=300
        )
        for k in (1, 2)
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = rs.models.compare_fits(fits)
    assert comparison.table.index[0] == "K=2"


def test_bad_arguments_are_refused():
    rk, _, _ = _simulated(n=5, sizes=(5, 5))
    with pytest.raises(ValueError, match="clusters"):
        rs.models.Mallows(clusters=0)
    with pytest.raises(ValueError, match="psi"):
        rs.models.Mallows(clusters=2, psi=0)
    with pytest.raises(ValueError, match="the number of rankings"):
        rs.models.Mallows(distance="footrule", clusters=11).fit(rk, progress=False)
    with pytest.raises(ValueError, match="mcmc"):
        rs.models.Mallows(clusters=2).fit(rk, method="map")
    with pytest.raises(ValueError, match="metropolis"):
        rs.models.Mallows(clusters=2).fit(rk, sampler="gibbs")


def test_a_mixture_round_trips_through_netcdf(tmp_path):
    rk, _, _ = _simulated(seed=5, n=5, sizes=(10, 10))
    fit = rs.models.Mallows(distance="footrule", clusters=2).fit(
        rk, draws=50, tune=200, chains=2, progress=False, max_draws=50
    )
    path = fit.to_netcdf(tmp_path / "mix.nc")
    back = rs.models.Fit.from_idata(_read(path))
    assert isinstance(back, rs.models.MallowsMixtureFit)
    assert back.info["consensus"] == fit.info["consensus"]
    pd.testing.assert_frame_equal(back.assignments(), fit.assignments())
    pd.testing.assert_frame_equal(back.weights(), fit.weights())


def _read(path):
    from rankstats._pymc import compat

    return compat.from_netcdf(path)


def test_fits_of_other_distances_and_mixtures_have_their_own_zoo_files(tmp_path):
    rk, _, _ = _simulated(seed=6, n=5, sizes=(10, 10))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # short chains
        mixture = rs.models.Mallows(distance="footrule", clusters=2).fit(
            rk, draws=40, tune=200, chains=2, progress=False, max_draws=40
        )
        one = rs.models.Mallows(distance="footrule").fit(
            rk, draws=40, tune=200, chains=2, progress=False, max_draws=40
        )
    paths = [rs.models.save(f, "groups", tmp_path, keep=20) for f in (mixture, one)]
    assert [p.name for p in paths] == [
        "groups_mallows_footrule_2clusters.nc",
        "groups_mallows_footrule.nc",
    ]
    back = rs.models.load("groups", "mallows_footrule_2clusters", tmp_path)
    assert isinstance(back, rs.models.MallowsMixtureFit)
    assert back.info["consensus"] == mixture.info["consensus"]
    pd.testing.assert_frame_equal(back.assignments(), mixture.assignments())
    single = rs.models.load("groups", "mallows_footrule", tmp_path)
    assert isinstance(single, rs.models.MallowsFit) and single.distance == "footrule"


def test_the_start_is_the_best_k_medians_clustering():
    # Three clusters: the best of the k-medians restarts finds their consensuses exactly, and
    # no other k-medians clustering has a smaller summed distance. (On these data one k-medians
    # run from this seed, RESTARTS = 1, stops in a poorer local optimum and fails both checks;
    # so do consensuses that are not moved to their members' central ranking.)
    rk, rhos, _ = _simulated(seed=0, n=10, sizes=(80, 60, 40), alphas=(6.0, 6.0, 6.0))
    chain = MixtureChain(rk.ranks, "footrule", np.random.default_rng(0), 3)
    found = {tuple(r) for r in chain.rho}
    assert found == {tuple(r) for r in rhos}
    comp = chain.augmentation.completions

    def cost(centres):
        return np.abs(comp[:, None, :] - centres[None]).sum(axis=2).min(axis=1).sum()

    rng = np.random.default_rng(1)
    for _ in range(20):  # random starts refined: never better than the chain's start
        chain.rng = rng
        tried, _ = chain._k_medians(comp, chain._k_means_pp(comp))
        assert cost(tried) >= cost(chain.rho)


def test_a_chain_stuck_far_below_the_best_continues_from_it():
    from rankstats.models.mallows._mixture import restart_stragglers

    rk, _, _ = _simulated(seed=2, n=6, sizes=(30, 30))
    chains = [MixtureChain(rk.ranks, "footrule", np.random.default_rng(s), 2) for s in range(3)]
    chains[0].trace = list(np.linspace(-500, -400, 100))  # second half -450 … -400
    chains[1].trace = list(-600 + np.zeros(100))  # always below the best: restarted
    chains[2].trace = list(np.linspace(-700, -440, 100))  # reaches the best's range: kept
    chains[0].rho = chains[0].rho[::-1].copy()
    before = chains[2].rho.copy()
    restarted = restart_stragglers(chains)
    assert [c for c, _ in restarted] == [1]
    assert restarted[0][1] == pytest.approx(-424.747 + 600, abs=0.01)
    np.testing.assert_array_equal(chains[1].rho, chains[0].rho)
    np.testing.assert_array_equal(chains[1].z, chains[0].z)
    assert chains[1].rng is not chains[0].rng  # its own random numbers from there
    np.testing.assert_array_equal(chains[2].rho, before)
    assert restart_stragglers([chains[0], chains[0]]) == []


def test_the_mixture_likelihood_in_blocks_of_draws_is_the_same(monkeypatch):
    from rankstats.models.mallows import mixture_fit as mixture

    rng = np.random.default_rng(0)
    n, draws, clusters = 6, 40, 3
    ranks = np.array([rng.permutation(n) + 1.0 for _ in range(30)])
    ranks[:10, :2] = np.nan  # sub-rankings of 4 items: 30 compatible rankings, enumerated
    alpha = rng.uniform(1, 8, (draws, clusters))
    weight = rng.dirichlet(np.ones(clusters), draws)
    rho = np.array([[rng.permutation(n) + 1 for _ in range(clusters)] for _ in range(draws)])
    whole = mixture.mixture_marginal(ranks, alpha, weight, rho, "footrule", "subset")
    monkeypatch.setattr(mixture, "MIXTURE_BLOCK", 7 * 30 * clusters)  # blocks of 7 draws
    blocked = mixture.mixture_marginal(ranks, alpha, weight, rho, "footrule", "subset")
    np.testing.assert_allclose(blocked.log_likelihood, whole.log_likelihood, rtol=1e-12)
    assert set(whole.method) == {"closed form", "enumeration"}
    # by hand, one draw and ranking: log Σ_k τ_k e^{−α_k d/n} / Z(α_k)
    pf = partition_function(n, "footrule")
    s, j = 5, 20
    terms = [
        np.log(weight[s, k])
        - alpha[s, k] / n * np.abs(ranks[j] - rho[s, k]).sum()
        - float(pf.log_z(alpha[s, k]))
        for k in range(clusters)
    ]
    assert blocked.log_likelihood[s, j] == pytest.approx(np.logaddexp.reduce(terms), abs=1e-9)


@pytest.mark.slow  # 3-4 s (each distance): the README's test run stays under 4 minutes
def test_choose_clusters_picks_the_best_converged_number():
    from rankstats.models.cluster_choice import best_converged

    rk, _, _ = _simulated(seed=4, n=8, sizes=(40, 40), alphas=(10.0, 10.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        choice = rs.models.choose_clusters(
            rk,
            [1, 2],
            distance="footrule",
            draws=300,
            tune=1000,
            thin=5,
            chains=2,
            progress=False,
        )
    assert list(choice.table.index) == [1, 2]
    assert choice.table.loc[2, "within"] < choice.table.loc[1, "within"]
    assert choice.table["converged"].all()
    assert choice.best == 2 and "best converged K = 2" in repr(choice)
    # an unconverged fit's elpd is never the choice, however high
    elpd = pd.Series({1: -500.0, 2: -400.0, 3: -300.0})
    assert best_converged(elpd, pd.Series({1: True, 2: True, 3: False})) == 2
    assert best_converged(elpd, pd.Series({1: False, 2: False, 3: False})) is None
