"""Posterior predictive checks (rankstats.models.predictive_checks).

1. The replicated-data samplers are right: Plackett–Luce top-1 frequencies equal w_i / Σw; the
   Mallows repeated insertion equals the enumerated Mallows distribution for n = 4 (all 24
   permutations), and its restriction to three items the enumerated marginal; Davidson's
   win / tie probabilities for Bradley–Terry.  Each comparison is a chi-square test at a fixed
   seed, and each is shown to reject a slightly wrong parameter (the tests can fail).
2. Calibration: data simulated from a fixed PL (and a fixed Mallows) model, checked against the
   same true parameters as if they were posterior draws.  Then each p-value is (discretely)
   uniform, so about 5% of the statistics are flagged at 0.05; over 20 data sets × 23 checked
   statistics we require between 1% and 9% flagged and a mean p-value within 0.42–0.58.
3. Misfit: PL data with heterogeneous worths (a strong top, an exchangeable bottom) checked
   against a Mallows posterior must flag the top system's top-1 share and pairs (Mallows, with
   one θ, cannot keep the top that stable while the bottom is exchangeable: it compromises and
   predicts the top too weak) and the spread of the Kendall distances; polarised data (two
   camps that reverse the top and the bottom) checked against PL must flag the top-1
   frequencies of the two polar systems and the spread of the Kendall distances.
4. Errors: a Mallows MAP fit is refused, draws < 1, bad thresholds, mismatched data.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from scipy import stats

import rankstats as rs
from rankstats.models.ppc_replicate import (
    bt_replicate,
    mallows_complete,
    mallows_replicate,
    pl_replicate,
)
from rankstats.models.ppc_result import PPCResult, p_values
from rankstats.models.ppc_statistics import ranking_statistics
from rankstats.models.predictive_checks import ppc, ppc_draws

pytestmark = pytest.mark.pymc  # runs PyMC / ArviZ: CI runs it on both stacks

ALPHA = 1e-3  # chi-square acceptance level of the sampler tests (fixed seeds: deterministic)


# ------------------------------------------------------------------ 1. samplers
def _top1_counts(log_worth: np.ndarray, observed: np.ndarray, kind: str, seed: int) -> np.ndarray:
    keys = pl_replicate(log_worth, observed, np.random.default_rng(seed), kind)
    return np.bincount(np.argmin(keys, axis=2).ravel(), minlength=observed.shape[1])


@pytest.mark.parametrize("kind", ["subset", "top_k"])
def test_pl_top1_frequencies_are_worth_shares(kind):
    w = np.array([4.0, 2.0, 1.0, 0.5, 0.5])
    draws = np.log(w)[None].repeat(10, axis=0)
    observed = np.zeros((2000, 5), dtype=bool)
    if kind == "subset":
        observed[:1000] = True  # complete rankings
        observed[1000:, [0, 3, 4]] = True  # sub-rankings of three systems
    else:
        observed[:, :2] = True  # top-2 lists (which two is random: only k matters)
    keys = pl_replicate(draws, observed, np.random.default_rng(1), kind)
    assert keys.shape == (10, 2000, 5)
    assert (np.isfinite(keys).sum(axis=2) == observed.sum(axis=1)).all()
    first = np.argmin(keys, axis=2)
    full = np.bincount(first[:, :1000].ravel(), minlength=5)
    assert stats.chisquare(full, w / w.sum() * full.sum()).pvalue > ALPHA
    # A wrong worth vector (the best system 20% weaker) is rejected at the same sample size.
    wrong = w * np.array([0.8, 1, 1, 1, 1])
    assert stats.chisquare(full, wrong / wrong.sum() * full.sum()).pvalue < 1e-6
    if kind == "subset":
        part = np.bincount(first[:, 1000:].ravel(), minlength=5)
        assert part[[1, 2]].sum() == 0  # unobserved systems are never placed
        sub = w[[0, 3, 4]]
        assert stats.chisquare(part[[0, 3, 4]], sub / sub.sum() * part.sum()).pvalue > ALPHA
    else:
        assert (
            stats.chisquare(
                np.bincount(first.ravel(), minlength=5), w / w.sum() * first.size
            ).pvalue
            > ALPHA
        )


def _mallows_exact(sigma_pos: np.ndarray, theta: float):
    """All permutations of n items (as position vectors, 0 = best) and their Mallows
    probabilities, by enumeration."""
    n = len(sigma_pos)
    perms = [np.array(p) for p in itertools.permutations(range(n))]
    pairs = list(itertools.combinations(range(n), 2))
    d = np.array(
        [sum((sigma_pos[i] < sigma_pos[j]) != (p[i] < p[j]) for i, j in pairs) for p in perms]
    )
    prob = np.exp(-theta * d)
    return perms, prob / prob.sum()


@pytest.mark.parametrize(("sigma", "theta"), [([2, 4, 1, 3], 0.7), ([1, 2, 3, 4], 1e-12)])
def test_mallows_insertion_equals_enumeration(sigma, theta):
    position = np.array([sigma, [4, 3, 2, 1]], dtype=float)  # two draws: a per-draw σ
    thetas = np.array([theta, 2.0])
    sample = mallows_complete(position, thetas, 40_000, np.random.default_rng(3))
    assert sample.shape == (2, 40_000, 4)
    counts = []
    for s in range(2):
        perms, prob = _mallows_exact(position[s] - 1, thetas[s])
        code = {tuple(p): k for k, p in enumerate(perms)}
        counts.append(np.bincount([code[tuple(r)] for r in sample[s]], minlength=24))
        assert stats.chisquare(counts[s], prob * counts[s].sum()).pvalue > ALPHA
    if theta > 0.1:  # the test can fail: θ off by 25% is rejected
        _, wrong = _mallows_exact(position[0] - 1, 0.75 * theta)
        assert stats.chisquare(counts[0], wrong * counts[0].sum()).pvalue < 1e-6


def test_mallows_restriction_is_the_marginal():
    sigma, theta = np.array([[2.0, 4.0, 1.0, 3.0]]), np.array([0.9])
    items = [0, 2, 3]
    observed = np.zeros((30_000, 4), dtype=bool)
    observed[:, items] = True
    keys = mallows_replicate(sigma, theta, observed, np.random.default_rng(5))[0]
    assert np.isinf(keys[:, 1]).all()
    orders = [tuple(np.array(items)[np.argsort(k[items])]) for k in keys]
    perms, prob = _mallows_exact(sigma[0] - 1, theta[0])
    marginal: dict[tuple, float] = {}
    for p, pr in zip(perms, prob, strict=True):
        order = tuple(sorted(items, key=lambda i: p[i]))
        marginal[order] = marginal.get(order, 0.0) + pr
    labels = sorted(marginal)
    counts = np.array([sum(o == lab for o in orders) for lab in labels])
    expected = np.array([marginal[lab] for lab in labels]) * len(orders)
    assert stats.chisquare(counts, expected).pvalue > ALPHA
    # The test can fail: a three-item Mallows with a 50% larger θ is rejected.
    sub_sigma = np.argsort(np.argsort(sigma[0, items]))
    perms3, prob3 = _mallows_exact(sub_sigma, theta[0] * 1.5)
    by_order = {
        tuple(np.array(items)[np.argsort(p)]): pr for p, pr in zip(perms3, prob3, strict=True)
    }
    wrong = np.array([by_order[lab] for lab in labels]) * len(orders)
    assert stats.chisquare(counts, wrong).pvalue < 1e-6


def test_bt_davidson_replication():
    log_worth = np.log([[2.0, 1.0, 0.5]])
    nu = 0.8
    item1, item2 = np.array([0, 0, 1]), np.array([1, 2, 2])
    n = np.array([3000, 3000, 3000])
    wins, ties = bt_replicate(
        log_worth.repeat(20, 0), np.full(20, np.log(nu)), item1, item2, n, np.random.default_rng(0)
    )
    pi = np.exp(log_worth[0])
    a, b = pi[item1], pi[item2]
    tie = nu * np.sqrt(a * b)
    for k in range(3):
        total = n[k] * 20
        observed = [wins[:, k].sum(), ties[:, k].sum(), total - wins[:, k].sum() - ties[:, k].sum()]
        expected = np.array([a[k], tie[k], b[k]]) / (a[k] + b[k] + tie[k]) * total
        assert stats.chisquare(observed, expected).pvalue > ALPHA
    plain, no_ties = bt_replicate(log_worth, None, item1, item2, n, np.random.default_rng(0))
    assert no_ties.sum() == 0 and (plain <= n).all()


def test_ranking_statistics_by_hand():
    rk = rs.Rankings.from_orderings([["a", "b", "c"], ["c", ("a", "b")], ["b", "a"]])
    keys = np.where(np.isnan(rk.ranks), np.inf, rk.ranks)[None]
    out = ranking_statistics(keys, np.array([0.0, 1.0, 2.0]))
    assert out["top1"][0].tolist() == [1.0, 1.0, 1.0]
    # d(a b c) = 0; d(c (a b)) = 2 discordant + ½ tie; d(b a) = 1.
    assert out["distance"][0].tolist() == [0.0, 2.5, 1.0]
    assert out["ties"][0] == 1.0
    assert out["wins"][0, 0, 1] == 1.5 and out["compared"][0, 0, 1] == 3  # a over b: 1 + ½
    tied_first = rs.Rankings.from_orderings([[("a", "b"), "c"]])
    keys = np.where(np.isnan(tied_first.ranks), np.inf, tied_first.ranks)[None]
    assert ranking_statistics(keys, np.arange(3.0))["top1"][0].tolist() == [0.5, 0.5, 0.0]


def test_p_values_mid_p():
    rep = np.array([[1.0, 0.0, 5.0], [1.0, 0.0, 6.0], [1.0, 0.0, 7.0], [1.0, 0.0, 8.0]])
    p = p_values(np.array([1.0, 1.0, 6.5]), rep)
    # reproduced exactly → 1; never reached → 0; in the middle → 1
    assert p.tolist() == [1.0, 0.0, 1.0]
    assert np.isnan(p_values(np.array([0.5]), np.full((3, 1), np.nan)))[0]


# ------------------------------------------------------------------ 2. calibration
def _flag_rate(results: list[PPCResult]) -> tuple[float, float, int]:
    tables = [r.table() for r in results]
    checked = pd.concat([t[t["p_value"].notna()] for t in tables])
    return float(checked["missed"].mean()), float(checked["p_value"].mean()), len(checked)


def test_calibration_plackett_luce():
    w = np.array([3.0, 2.0, 1.5, 1.0, 0.7, 0.5])
    truth = {"log_worth": np.log(w)[None]}
    results = [
        ppc_draws("pl", truth, rs.simulate.plackett_luce(w, size=60, seed=100 + k), seed=k)
        for k in range(20)
    ]
    rate, mean_p, checked = _flag_rate(results)
    assert checked == 20 * (6 + 15 + 2)
    assert 0.01 <= rate <= 0.09, rate
    assert 0.42 <= mean_p <= 0.58, mean_p
    # The calibration check itself can fail: the same data against worths twice as spread out.
    wrong = {"log_worth": 2 * np.log(w)[None]}
    bad = [
        ppc_draws("pl", wrong, rs.simulate.plackett_luce(w, size=60, seed=100 + k), seed=k)
        for k in range(5)
    ]
    assert _flag_rate(bad)[0] > 0.2


def test_calibration_mallows():
    truth = {"position": np.arange(1.0, 7.0)[None], "theta": np.array([0.5])}
    results = []
    for k in range(20):
        rk = rs.simulate.mallows(6, 0.5, size=60, seed=200 + k)
        # partial rankings: each ranking drops one or two systems (as latent)
        ranks = rk.ranks.copy()
        ranks[np.random.default_rng(k).random(ranks.shape) < 0.15] = np.nan
        ranks[np.isnan(ranks).sum(axis=1) > 4] = rk.ranks[np.isnan(ranks).sum(axis=1) > 4]
        part = rs.Rankings.from_rank_matrix(pd.DataFrame(ranks, columns=rk.systems))
        results.append(ppc_draws("mallows", truth, part, seed=k))
    rate, mean_p, _ = _flag_rate(results)
    assert 0.01 <= rate <= 0.09, rate
    assert 0.42 <= mean_p <= 0.58, mean_p


# ------------------------------------------------------------------ 3. misfit
def test_heterogeneous_pl_data_fail_the_mallows_check():
    w = np.array([20.0, 5.0, 1.0, 1.0, 1.0, 1.0])  # a clear top, an exchangeable bottom
    rk = rs.simulate.plackett_luce(w, size=400, seed=1)
    fit = rs.models.Mallows().fit(rk, draws=400, tune=200, chains=2, progress=False)
    res = ppc(fit, rk, draws=200, seed=0)
    missed = res.missed().set_index("statistic")
    # One θ cannot make the top as stable as it is while the bottom is exchangeable: the fit
    # compromises and predicts the top too weak.
    top = [f"sys01 ≻ sys0{k}" for k in range(2, 7)] + ["first: sys01"]
    assert set(top) <= set(missed.index)
    assert (missed.loc[top, "observed"] > missed.loc[top, "high"]).all()
    assert "sd of Kendall distance to consensus" in missed.index
    # The same data pass the check against the model that generated them.
    ok = ppc_draws("pl", {"log_worth": np.log(w)[None]}, rk, seed=0)
    assert ok.missed()["group"].eq("pairs").sum() <= 1


def test_polarised_data_fail_the_plackett_luce_check():
    camp_a = rs.simulate.mallows(6, 2.0, size=100, center=list("ABCDEF"), seed=1)
    camp_f = rs.simulate.mallows(6, 2.0, size=100, center=list("FBCDEA"), seed=2)
    rk = rs.Rankings.from_orderings(camp_a.orderings() + camp_f.orderings())
    fit = rs.models.PlackettLuce().fit(rk, method="mle")
    res = ppc(fit, rk, draws=200, seed=0)
    missed = set(res.missed()["statistic"])
    assert {"first: A", "first: F", "sd of Kendall distance to consensus"} <= missed
    assert res.approximation is not None and "normal approximation" in res.approximation
    assert "normal approximation" in repr(res)


# ------------------------------------------------------------------ results, BT, ties, plots
def test_result_table_summary_and_determinism():
    rk = rs.load_rankings("salad")
    fit = rs.models.PlackettLuce().fit(rk, method="map")
    a, b = ppc(fit, rk, draws=50, seed=3), ppc(fit, rk, draws=50, seed=3)
    assert a.table().equals(b.table())
    assert a.replicated.shape == (50, len(a.table()))
    summary = a.summary()
    assert summary.index.tolist() == ["top1", "pairs", "kendall", "ties"]
    assert summary.loc["pairs", "checked"] == 6
    assert a.table()["group"].eq("top1").sum() == 4
    assert a.table().loc[a.table()["group"] == "top1", "system_a"].tolist() == fit.order
    with pytest.raises(AttributeError):
        a.draws = 3  # frozen


def test_bt_defines_pair_and_tie_statistics_only():
    counts = rs.load_paired("pudding")
    fit = rs.models.BradleyTerry().fit(counts, method="map")
    res = ppc(fit, counts, draws=100)
    assert set(res.undefined) == {"top1", "kendall"}
    assert set(res.table()["group"]) == {"pairs", "ties"}
    assert "not defined" in repr(res)
    ties = res.table().set_index("group").loc["ties"]
    assert fit.info["ties"] == "davidson" and np.isfinite(ties["p_value"])
    assert set(res.plots()) == {"pairs", "ties"}
    with pytest.raises(ValueError, match="not defined"):
        res.plot("top1")
    rk = rs.load_rankings("salad")  # BT fitted to rankings: the pairs of each ranking
    res = ppc(rs.models.BradleyTerry().fit(rk, method="map"), rk, draws=50)
    assert res.n_rankings == 6 and res.summary().loc["pairs", "checked"] == 6


def test_ties_without_a_tie_mechanism_are_shown_against_zero():
    rk = rs.Rankings.from_orderings(
        [["a", ("b", "c")], ["b", "a", "c"], [("a", "b"), "c"], ["a", "c", "b"]] * 5
    )
    fit = rs.models.PlackettLuce().fit(rk, method="map")
    res = ppc(fit, rk, draws=50)
    row = res.table().set_index("group").loc["ties"]
    assert row["observed"] == pytest.approx(10 / 60) and row["mean"] == 0.0
    assert np.isnan(row["p_value"]) and not row["missed"]
    assert any("no tie mechanism" in n for n in res.notes)
    assert "generates none" in repr(res)


def test_figures_forty_systems_names_literal():
    names = [f"$s_{i}$" if i % 5 == 0 else f"system {i:02d}" for i in range(40)]
    w = pd.Series(np.exp(np.linspace(2, -2, 40)), index=names)
    rk = rs.simulate.plackett_luce(w, size=80, seed=0)
    res = ppc_draws("pl", {"log_worth": np.log(w.to_numpy())[None]}, rk, draws=40)
    figures = res.plots()
    assert set(figures) == {"top1", "pairs", "kendall", "ties"}
    assert all(isinstance(f, Figure) for f in figures.values())
    ticks = [t.get_text() for t in figures["top1"].axes[0].get_yticklabels()]
    assert len(ticks) == 40 and r"\$s_0\$" in ticks
    pair_ticks = [t.get_text() for t in figures["pairs"].axes[0].get_xticklabels()]
    assert len(pair_ticks) == 40
    with pytest.raises(ValueError, match="statistic must be"):
        res.plot("nonsense")


# ------------------------------------------------------------------ 4. errors
def test_mallows_map_fit_is_refused():
    rk = rs.load_rankings("salad")
    fit = rs.models.Mallows().fit(rk, method="map")
    with pytest.raises(ValueError, match="method='mcmc'"):
        ppc(fit, rk)
    # a plug-in check at the point estimate stays possible, explicitly
    assert ppc_draws("mallows", fit.point(), rk, consensus=fit.order).draws == 200


@pytest.mark.parametrize("draws", [0, -1, 1.5, True])
def test_bad_draws(draws):
    rk = rs.load_rankings("salad")
    fit = rs.models.PlackettLuce().fit(rk, method="map")
    with pytest.raises(ValueError, match="draws must be"):
        ppc(fit, rk, draws=draws)


def test_bad_arguments_and_data():
    rk = rs.load_rankings("salad")
    fit = rs.models.PlackettLuce().fit(rk, method="map")
    with pytest.raises(ValueError, match="threshold"):
        ppc(fit, rk, threshold=0)
    with pytest.raises(ValueError, match="prob"):
        ppc(fit, rk, ci_prob=1.0)
    other = rs.Rankings.from_orderings([["A", "B", "X"]])
    with pytest.raises(ValueError, match="do not match"):
        ppc(fit, other)
    with pytest.raises(ValueError, match="model must be"):
        ppc_draws("kemeny", {"log_worth": np.zeros((1, 4))}, rk)
    with pytest.raises(ValueError, match="kind='subset'"):
        ppc_draws("mallows", {"position": np.ones((1, 4)), "theta": [1.0]}, rk, kind="top_k")


# ------------------------------------------------------------------ a real posterior (PyMC)
@pytest.fixture(scope="module")
def salad_nuts():
    pytest.importorskip("pymc")
    with warnings.catch_warnings():
        # short chains: the bulk ESS is below the 400 of the convergence check
        warnings.simplefilter("ignore", rs.models.ConvergenceWarning)
        return rs.models.PlackettLuce().fit(
            rs.load_rankings("salad"),
            method="nuts",
            seed=1,
            draws=300,
            tune=300,
            chains=2,
            n_jobs=1,  # one process: no second compile in a chain process (4x faster here)
            progress=False,
        )


@pytest.mark.long
def test_nuts_fit_path(salad_nuts):
    rk = rs.load_rankings("salad")
    res = ppc(salad_nuts, rk, draws=100, seed=1)
    assert res.method == "nuts" and res.approximation is None
    assert res.draws == 100 and res.replicated.shape[0] == 100
    assert res.summary().loc["pairs", "checked"] == 6
    assert res.missed().empty  # salad is the textbook PL example
    # more draws than the fit holds: reused, and said so
    res = ppc(salad_nuts, rk, draws=700, seed=1)
    assert any("reused" in n for n in res.notes)


@pytest.mark.filterwarnings("ignore::FutureWarning")  # one per old keyword; "method" is checked
def test_the_old_provenance_keywords_warn_and_give_the_same_result():
    """``method=``, ``approximation=``, ``notes=`` of ``ppc_draws`` are now
    ``source=DrawSource(...)``: both spellings give the same check, the old one warns."""
    from rankstats.models.predictive_checks import DrawSource

    w = np.array([3.0, 2.0, 1.0])
    rk = rs.simulate.plackett_luce(w, size=40, seed=5)
    truth = {"log_worth": np.log(w)[None]}
    old = {"method": "map", "approximation": "normal approximation", "notes": ["given"]}
    with pytest.warns(FutureWarning, match=r"method is now source=DrawSource\(method=\.\.\.\)"):
        before = ppc_draws("pl", truth, rk, draws=30, **old)
    after = ppc_draws(
        "pl", truth, rk, draws=30, source=DrawSource("map", old["approximation"], ("given",))
    )
    pd.testing.assert_frame_equal(before.statistics, after.statistics)
    assert (before.method, before.approximation) == ("map", "normal approximation")
    assert (before.method, before.approximation, before.notes) == (
        after.method,
        after.approximation,
        after.notes,
    )
    assert "given" in after.notes
    with pytest.raises(TypeError, match="give only source"):
        ppc_draws("pl", truth, rk, source=DrawSource(), method="map")
