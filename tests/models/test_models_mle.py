"""Maximum likelihood (NumPy) for Plackett–Luce and Bradley–Terry against independent references:
published estimates (salad, pudding, sushi), a direct scipy.optimize fit of the same likelihood,
and explicit-loop implementations of the likelihoods."""

from __future__ import annotations

import doctest
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

import rankstats as rs
from rankstats.errors import DataWarning, InvalidRankingsError
from rankstats.models import MLEDoesNotExistError
from rankstats.models.pair_counts import rank_breaking


# ---------------------------------------------------------------- independent references
def loop_pl_loglik(orderings, theta, systems, kind="subset"):
    """Plackett–Luce with Efron ties, one ranking and one stage at a time (no vectorisation)."""
    alpha = {s: np.exp(t) for s, t in zip(systems, theta, strict=True)}
    total = 0.0
    for ordering in orderings:
        groups = [list(g) if isinstance(g, tuple) else [g] for g in ordering]
        ranked = [s for g in groups for s in g]
        if kind == "top_k":
            rest = [s for s in systems if s not in ranked]
            if rest:
                groups.append(rest)
        for gi, group in enumerate(groups[:-1]):
            risk = sum(alpha[s] for g in groups[gi:] for s in g)
            tied = sum(alpha[s] for s in group)
            d = len(group)
            for k, s in enumerate(group):
                total += np.log(alpha[s]) - np.log(risk - k / d * tied)
    return total


def scipy_bt(counts: pd.DataFrame, ties: bool):
    """Davidson / Bradley–Terry MLE by Nelder–Mead-free BFGS on a direct likelihood."""
    systems = sorted(set(counts.item1) | set(counts.item2))
    code = {s: k for k, s in enumerate(systems)}
    i = counts.item1.map(code).to_numpy()
    j = counts.item2.map(code).to_numpy()
    w1, w2 = counts.wins1.to_numpy(float), counts.wins2.to_numpy(float)
    t = counts.ties.to_numpy(float) if ties else np.zeros_like(w1)
    n = len(systems)

    def negloglik(x):
        theta = np.append(x[: n - 1], 0.0)
        pi, pj = np.exp(theta[i]), np.exp(theta[j])
        nu = np.exp(x[n - 1]) if ties else 0.0
        denom = pi + pj + nu * np.sqrt(pi * pj)
        value = w1 * np.log(pi / denom) + w2 * np.log(pj / denom)
        if ties:
            value = value + t * np.log(nu * np.sqrt(pi * pj) / denom)
        return -value.sum()

    res = optimize.minimize(negloglik, np.zeros(n - 1 + ties), method="BFGS", tol=1e-12)
    theta = np.append(res.x[: n - 1], 0.0)
    return pd.Series(theta - theta.mean(), index=systems), -res.fun, res


# ---------------------------------------------------------------- published values
def test_salad_reproduces_published_pl_estimates():
    # Critchlow & Fligner (1991); PlackettLuce R package: relative to A, with SEs.
    fit = rs.models.PlackettLuce().fit(rs.load_rankings("salad"), method="mle")
    rel = fit.relative_to("A")
    expected = {"B": (2.729914, 0.4481), "C": (1.561539, 0.3965), "D": (1.026836, 0.3771)}
    for system, (estimate, se) in expected.items():
        assert rel.loc[system, "estimate"] == pytest.approx(estimate, abs=1e-4)
        assert rel.loc[system, "se"] == pytest.approx(se, abs=1e-4)
    assert fit.log_likelihood == pytest.approx(-76.41529, abs=1e-4)
    assert fit.order == ["B", "C", "D", "A"]
    assert abs(fit.worth.sum()) < 1e-12


def test_pudding_reproduces_davidson_1970():
    fit = rs.models.BradleyTerry().fit(rs.load_paired("pudding"), method="mle")
    worth = np.exp(fit.worth)
    worth = worth / worth.sum()
    published = [0.138803, 0.173001, 0.161747, 0.165373, 0.158685, 0.202389]
    np.testing.assert_allclose(worth[[str(k) for k in range(1, 7)]], published, atol=1e-6)
    assert fit.parameters["tie"] == pytest.approx(0.746823, abs=1e-6)
    assert fit.log_likelihood == pytest.approx(-809.7095, abs=1e-4)


def test_sushi_reproduces_published_pl_estimates():
    fit = rs.models.PlackettLuce().fit(rs.load_rankings("sushi"), method="mle")
    published = {
        "fatty tuna": 1.030,
        "tuna": 0.486,
        "shrimp": 0.238,
        "salmon roe": 0.071,
        "sea eel": 0.045,
        "tuna roll": -0.018,
        "squid": -0.126,
        "sea urchin": -0.245,
        "egg": -0.541,
        "cucumber roll": -0.939,
    }
    for system, value in published.items():
        assert fit.worth[system] == pytest.approx(value, abs=5e-4)
    assert fit.log_likelihood == pytest.approx(-71211.60, abs=5e-3)
    # the model-implied pairwise probability quoted in the data README
    table = fit.pairwise().set_index(["system_a", "system_b"])
    assert table.loc[("fatty tuna", "sea urchin"), "estimate"] == pytest.approx(0.7816, abs=1e-4)


# ---------------------------------------------------------------- BT against scipy.optimize
@pytest.mark.parametrize("name", ["pudding", "citations", "baseball"])
def test_bt_mle_agrees_with_direct_scipy_fit(name):
    counts = rs.load_paired(name)
    ties = "ties" in counts and counts["ties"].sum() > 0
    fit = rs.models.BradleyTerry().fit(counts, method="mle")
    reference, loglik, res = scipy_bt(counts, ties)
    np.testing.assert_allclose(fit.worth[reference.index], reference, atol=1e-5)
    assert fit.log_likelihood == pytest.approx(loglik, abs=1e-6)
    if ties:
        assert fit.parameters["log_tie"] == pytest.approx(res.x[-1], abs=1e-5)
    # standard errors: inverse of a finite-difference Hessian of the direct likelihood
    n = len(reference)
    h = np.zeros((len(res.x), len(res.x)))
    eps = 1e-4
    f = lambda x: scipy_bt_negloglik(counts, ties, x)  # noqa: E731
    for a, b in itertools.product(range(len(res.x)), repeat=2):
        ea, eb = np.eye(len(res.x))[a] * eps, np.eye(len(res.x))[b] * eps
        h[a, b] = (
            f(res.x + ea + eb) - f(res.x + ea - eb) - f(res.x - ea + eb) + f(res.x - ea - eb)
        ) / (4 * eps**2)
    cov = np.linalg.inv(h)
    last = reference.index[-1]  # the scipy fit fixes the last system at 0
    rel = fit.relative_to(last)
    np.testing.assert_allclose(
        rel["se"][reference.index[:-1]], np.sqrt(np.diag(cov))[: n - 1], rtol=1e-3
    )


def scipy_bt_negloglik(counts, ties, x):
    systems = sorted(set(counts.item1) | set(counts.item2))
    code = {s: k for k, s in enumerate(systems)}
    i, j = counts.item1.map(code).to_numpy(), counts.item2.map(code).to_numpy()
    n = len(systems)
    theta = np.append(x[: n - 1], 0.0)
    pi, pj = np.exp(theta[i]), np.exp(theta[j])
    nu = np.exp(x[n - 1]) if ties else 0.0
    d = pi + pj + nu * np.sqrt(pi * pj)
    value = counts.wins1 * np.log(pi / d) + counts.wins2 * np.log(pj / d)
    if ties:
        value = value + counts.ties * np.log(nu * np.sqrt(pi * pj) / d)
    return -float(np.sum(value))


def test_bt_from_rankings_uses_rank_breaking_counts():
    rk = rs.Rankings.from_scores(rs.load_dataset("superglue"))
    counts = rank_breaking(rk)
    w, t = counts.matrices()
    pw = rs.pairwise(rk)
    # wins + ½ ties is the foundation's independently computed observed-pair statistic
    np.testing.assert_allclose(w + 0.5 * t, pw.wins_observed)
    np.testing.assert_allclose(w + w.T + t, pw.compared)
    fit = rs.models.BradleyTerry().fit(rk, method="mle")
    reference, _, _ = scipy_bt(counts.to_frame(), ties=True)
    np.testing.assert_allclose(fit.worth[reference.index], reference, atol=1e-4)


# ---------------------------------------------------------------- PL likelihood
ORDERINGS = [
    ["a", "b", "c", "d"],
    ["b", ("a", "c"), "d"],
    [("c", "d", "e"), "a"],
    ["e", "a"],
    ["d", "e", ("b", "c")],
    ["a", "e", "b"],
]


@pytest.mark.parametrize("kind", ["subset", "top_k"])
def test_pl_loglik_matches_explicit_loop(kind):
    rk = rs.Rankings.from_orderings(ORDERINGS)
    theta = np.random.default_rng(3).normal(size=rk.n_systems)
    model = rs.models.PlackettLuce(kind=kind)
    expected = loop_pl_loglik(ORDERINGS, theta, rk.systems, kind)
    assert model.log_likelihood(rk, theta) == pytest.approx(expected, rel=1e-12)


def test_pl_mle_is_the_maximum_of_the_explicit_likelihood():
    rk = rs.Rankings.from_orderings(ORDERINGS)
    fit = rs.models.PlackettLuce().fit(rk, method="mle")
    res = optimize.minimize(
        lambda x: -loop_pl_loglik(ORDERINGS, np.append(x, 0.0), rk.systems),
        np.zeros(rk.n_systems - 1),
        method="BFGS",
        tol=1e-12,
    )
    theta = np.append(res.x, 0.0)
    np.testing.assert_allclose(fit.worth, theta - theta.mean(), atol=1e-5)
    assert fit.log_likelihood == pytest.approx(-res.fun, abs=1e-8)


def test_top_k_equals_subset_for_complete_rankings():
    rk = rs.load_rankings("salad")
    a = rs.models.PlackettLuce(kind="subset").fit(rk, method="mle")
    b = rs.models.PlackettLuce(kind="top_k").fit(rk, method="mle")
    np.testing.assert_allclose(a.worth, b.worth, atol=1e-10)


def test_top_k_treats_unranked_as_beaten():
    # A top-1 list ["a"] says a beat everyone (top_k); as a sub-ranking it says nothing.
    base = [["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"]]
    model = rs.models.PlackettLuce(kind="top_k")
    without = model.fit(rs.Rankings.from_orderings(base), method="mle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        rk = rs.Rankings.from_orderings([*base, ["a"]], systems=["a", "b", "c"])
    with_top1 = model.fit(rk, method="mle")
    assert with_top1.worth["a"] > without.worth["a"] + 0.1
    with pytest.warns(DataWarning, match="no choice"):
        sub = rs.models.PlackettLuce(kind="subset").fit(rk, method="mle")
    np.testing.assert_allclose(sub.worth, without.worth, atol=1e-10)


def test_pl_mle_on_pairs_equals_bt_mle():
    # Plackett–Luce on rankings of two systems is Bradley–Terry (without ties).
    counts = rs.load_paired("baseball")
    orderings = []
    for row in counts.itertuples():
        orderings += [[row.item1, row.item2]] * row.wins1 + [[row.item2, row.item1]] * row.wins2
    pl = rs.models.PlackettLuce().fit(rs.Rankings.from_orderings(orderings), method="mle")
    bt = rs.models.BradleyTerry().fit(counts, method="mle")
    np.testing.assert_allclose(pl.worth[bt.worth.index], bt.worth, atol=1e-8)
    np.testing.assert_allclose(pl.se[bt.se.index], bt.se, atol=1e-8)


# ---------------------------------------------------------------- bad input
def test_disconnected_graph_names_the_systems_and_suggests_map():
    rk = rs.Rankings.from_orderings([["a", "b"], ["b", "a"], ["a", "c"], ["b", "c"], ["d", "a"]])
    for model in (rs.models.PlackettLuce(), rs.models.BradleyTerry()):
        with pytest.raises(MLEDoesNotExistError) as err:
            model.fit(rk, method="mle")
        message = str(err.value)
        assert "systems that never lose (nor tie), 1: d; that never win (nor tie), 1: c" in message
        assert "method='map'" in message and "bias_reduction=True" in message
        fit = model.fit(rk, method="map")  # the prior keeps it finite
        assert fit.order[0] == "d" and fit.order[-1] == "c"


def test_two_islands_are_reported_as_never_compared():
    rk = rs.Rankings.from_orderings([["a", "b"], ["b", "a"], ["c", "d"], ["d", "c"], ["c", "d"]])
    with pytest.raises(MLEDoesNotExistError, match="never compared with the others"):
        rs.models.PlackettLuce().fit(rk, method="mle")


def test_system_in_no_ranking_is_an_error():
    rk = rs.Rankings.from_orderings([["a", "b"], ["b", "a"]], systems=["a", "b", "ghost"])
    for model in (rs.models.PlackettLuce(), rs.models.BradleyTerry()):
        with pytest.raises(InvalidRankingsError, match="ghost"):
            model.fit(rk, method="mle")


def test_one_item_ranking_is_dropped_with_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)  # Rankings itself warns too
        rk = rs.Rankings.from_orderings([["a", "b"], ["b", "a", "c"], ["c", "a"], ["b"]])
    clean = rs.Rankings.from_orderings([["a", "b"], ["b", "a", "c"], ["c", "a"]])
    with pytest.warns(DataWarning, match="dropped: 3"):
        fit = rs.models.PlackettLuce().fit(rk, method="mle")
    ref = rs.models.PlackettLuce().fit(clean, method="mle")
    np.testing.assert_allclose(fit.worth, ref.worth, atol=1e-12)


def test_paired_table_with_missing_columns():
    with pytest.raises(InvalidRankingsError, match="wins2"):
        rs.models.BradleyTerry().fit(
            pd.DataFrame({"item1": ["a"], "item2": ["b"], "wins1": [1]}), method="mle"
        )


def test_bad_arguments():
    with pytest.raises(ValueError, match="method"):
        rs.models.PlackettLuce().fit(rs.load_rankings("salad"), method="em")
    with pytest.raises(ValueError, match="sampler"):
        rs.models.PlackettLuce().fit(rs.load_rankings("salad"), sampler="stan")
    with pytest.raises(ValueError, match="kind"):
        rs.models.PlackettLuce(kind="top")


# ---------------------------------------------------------------- Fit
def test_fit_tables_have_the_hoeffding_shape():
    rk = rs.load_rankings("salad")
    fit = rs.models.PlackettLuce().fit(rk, method="mle", seed=1)
    table = fit.pairwise(ci_prob=0.9)
    ci = rs.hoeffding(rs.pairwise(rk), order=fit.order)
    assert table[["system_a", "system_b"]].equals(ci[["system_a", "system_b"]])
    for column in ("estimate", "low", "high", "significant", "winner", "distance"):
        assert column in table
    # plug-in estimate of P(a above b) = α_a / (α_a + α_b)
    w = np.exp(fit.worth)
    row = table.iloc[0]
    assert row.estimate == pytest.approx(w[row.system_a] / (w[row.system_a] + w[row.system_b]))
    assert (table.low <= table.estimate).all() and (table.estimate <= table.high).all()
    dist = fit.rank_distribution()
    np.testing.assert_allclose(dist.sum(axis=0), 1.0)
    np.testing.assert_allclose(dist.sum(axis=1), 1.0)
    assert list(dist.index) == fit.order
    # same seed, same numbers
    again = rs.models.PlackettLuce().fit(rk, method="mle", seed=1).pairwise(ci_prob=0.9)
    pd.testing.assert_frame_equal(table, again)


def test_wald_summary_and_laplace_draws_agree():
    fit = rs.models.PlackettLuce().fit(rs.load_rankings("salad"), method="mle", seed=0)
    summary = fit.summary()
    draws = fit.draws()["log_worth"]
    np.testing.assert_allclose(draws.std(axis=0), summary["se"].to_numpy(), rtol=0.05)
    np.testing.assert_allclose(draws.mean(axis=0), summary["estimate"], atol=0.03)


def test_davidson_pairwise_counts_ties_half():
    fit = rs.models.BradleyTerry().fit(rs.load_paired("pudding"), method="mle")
    pi = np.exp(fit.worth)
    nu = fit.parameters["tie"]
    a, b = "6", "1"
    d = pi[a] + pi[b] + nu * np.sqrt(pi[a] * pi[b])
    expected = (pi[a] + 0.5 * nu * np.sqrt(pi[a] * pi[b])) / d
    table = fit.pairwise().set_index(["system_a", "system_b"])
    assert table.loc[(a, b), "estimate"] == pytest.approx(expected)
    assert table.loc[(a, b), "estimate"] + table.loc[(b, a), "estimate"] == pytest.approx(1.0)


def test_netcdf_round_trip(tmp_path):
    fit = rs.models.BradleyTerry().fit(rs.load_paired("pudding"), method="mle")
    path = rs.models.save(fit, "pudding", tmp_path)
    back = rs.models.load("pudding", "bt", tmp_path)
    pd.testing.assert_series_equal(back.worth, fit.worth, check_names=False)
    assert back.parameters["tie"] == pytest.approx(fit.parameters["tie"])
    assert back.method == "mle" and back.model == "bt" and path.exists()
    with pytest.raises(FileNotFoundError, match=r"rs.models.save\(fit, .nope., DIR\)"):
        rs.models.load("nope", "pl", tmp_path)


def test_aggregate_methods_pl_and_bt():
    rk = rs.load_rankings("salad")
    res = rs.aggregate(rk, method="pl")
    assert res.order == ["B", "C", "D", "A"]
    assert res.details["fit"].log_likelihood == pytest.approx(-76.41529, abs=1e-4)
    assert rs.aggregate(rk, method="bt").order == ["B", "C", "D", "A"]
    # a system never evaluated gets NaN (no information), as in the other methods
    rk2 = rs.Rankings.from_orderings(
        [list("abc"), list("bca"), list("cab"), list("abc")], systems=list("abcz")
    )
    res = rs.aggregate(rk2, method="pl")
    assert np.isnan(res.scores["z"]) and res.order[-1] == "z" and res.order[0] == "a"


def test_doctests_of_the_models_package():
    import rankstats.datasets
    import rankstats.models
    import rankstats.models._data
    import rankstats.models.bradley_terry
    import rankstats.models.plackett_luce

    for module in (
        rankstats.models,
        rankstats.models._data,
        rankstats.models.plackett_luce,
        rankstats.models.bradley_terry,
        rankstats.datasets,
    ):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0, module.__name__


def test_bradley_terry_refuses_pair_counts_without_system_names():
    """Unnamed counts (the bootstrap's, pairs_from_matrices') cannot be reported by system:
    refused by type, as before they shared the one Pairs type with named counts."""
    from rankstats.core.bradley_terry_mle import pairs_from_matrices

    wins = np.array([[0, 3, 2], [1, 0, 4], [2, 1, 0]], dtype=float)
    for method in ("mle", "map"):
        with pytest.raises(TypeError, match=r"with system names.*3 systems have none"):
            rs.models.BradleyTerry().fit(pairs_from_matrices(wins), method=method)
    named = pairs_from_matrices(wins)
    named = type(named).named(["a", "b", "c"], named.item1, named.item2, named.wins1,
                              named.wins2, named.ties)  # fmt: skip
    assert list(rs.models.BradleyTerry().fit(named, method="mle").worth.index) == ["a", "b", "c"]
