"""Rank posteriors (``Fit.rank_posterior``): sums, hand counts, exact Mallows enumeration,
the normal approximation of MAP fits, the heat map and ``Comparison.rank_posteriors``."""

import io
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from matplotlib import cbook
from matplotlib.image import AxesImage

import rankstats as rs
from rankstats._pymc.compat import from_dict
from rankstats.models import Fit
from rankstats.models.rank_posteriors import RankPosterior, rank_posterior, rank_probabilities
from rankstats.plotting.fonts import fitted_fonts
from rankstats.plotting.names import label


def hand_fit(log_worth: np.ndarray, systems, model="pl", method="nuts") -> Fit:
    """A Fit holding the given draws (chains, draws, systems) of the log-worths."""
    idata = from_dict(
        {"log_worth": log_worth},
        coords={"system": list(systems)},
        dims={"log_worth": ["system"]},
        attrs={"rankstats_model": model, "rankstats_method": method},
    )
    worth = pd.Series(log_worth.reshape(-1, len(systems)).mean(axis=0), index=list(systems))
    return Fit(model, method, tuple(systems), idata, worth)


def loop_counts(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """P(rank = r) by a plain loop over the draws (no ties)."""
    s, n = values.shape
    out = np.zeros((n, n))
    for row in values:
        best_first = sorted(range(n), key=lambda i: -row[i] if higher_is_better else row[i])
        for r, i in enumerate(best_first):
            out[i, r] += 1
    return out / s


# ---------------------------------------------------------------------- the shared counts
def test_rows_and_columns_sum_to_one_with_and_without_ties():
    rng = np.random.default_rng(1)
    continuous = rng.normal(size=(500, 7))
    rounded = np.round(rng.normal(size=(500, 7)), 0)  # many ties
    for values in (continuous, rounded):
        for hib in (True, False):
            p = rank_probabilities(values, hib)
            assert p.shape == (7, 7)
            np.testing.assert_allclose(p.sum(axis=0), 1.0, atol=1e-12)
            np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
            assert (p >= -1e-15).all()


def test_ties_split_the_weight_over_the_tied_ranks():
    # Draw 1: a and b tied for the top, c last.  Draw 2: a first, b and c tied below.
    values = np.array([[1.0, 1.0, 0.0], [2.0, 1.0, 1.0]])
    expected = np.array(
        [
            [(0.5 + 1) / 2, (0.5 + 0) / 2, 0.0],
            [(0.5 + 0) / 2, (0.5 + 0.5) / 2, (0 + 0.5) / 2],
            [0.0, (0 + 0.5) / 2, (1 + 0.5) / 2],
        ]
    )
    np.testing.assert_allclose(rank_probabilities(values), expected)
    # A tie does not depend on the order of the columns.
    np.testing.assert_allclose(rank_probabilities(values[:, ::-1]), expected[::-1])


def test_bad_draws_are_refused():
    with pytest.raises(ValueError, match="NaN"):
        rank_probabilities(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="prob"):
        rank_posterior(np.zeros((3, 2)), ["a", "b"], ci_prob=1.0)
    with pytest.raises(ValueError, match="systems"):
        rank_posterior(np.zeros((3, 2)), ["a", "b", "c"])


# ---------------------------------------------------------------------- PL / BT by hand
def test_pl_rank_posterior_equals_a_direct_count_of_hand_made_draws():
    rng = np.random.default_rng(7)
    systems = ["w", "x", "y", "z", "v"]
    centre = np.array([0.9, 0.6, 0.5, -0.2, -1.8])
    draws = centre + rng.normal(scale=0.5, size=(3, 400, 5))
    fit = hand_fit(draws, systems)
    rp = fit.rank_posterior(ci_prob=0.8)
    flat = draws.reshape(-1, 5)
    direct = pd.DataFrame(loop_counts(flat, True), index=systems, columns=range(1, 6))
    assert isinstance(rp, RankPosterior)
    assert rp.draws == 1200 and rp.approximation is None
    pd.testing.assert_frame_equal(
        rp.probabilities, direct.loc[rp.order], check_names=False, check_column_type=False
    )
    # Derived quantities, from the ranks of the draws.
    ranks = np.array([[1 + np.sum(row > row[i]) for i in range(5)] for row in flat])
    for k, s in enumerate(systems):
        assert rp.p_best[s] == pytest.approx(np.mean(ranks[:, k] == 1))
        assert rp.expected_rank[s] == pytest.approx(ranks[:, k].mean())
        cdf = np.array([np.mean(ranks[:, k] <= r) for r in range(1, 6)])
        assert rp.intervals.loc[s, "low"] == 1 + np.flatnonzero(cdf > 0.1)[0]
        assert rp.intervals.loc[s, "high"] == 1 + np.flatnonzero(cdf >= 0.9 - 1e-12)[0]
        coverage = np.mean(
            (ranks[:, k] >= rp.intervals.loc[s, "low"])
            & (ranks[:, k] <= rp.intervals.loc[s, "high"])
        )
        assert coverage >= 0.8
    # Rows by expected rank; the tidy table holds the same numbers.
    assert list(rp.expected_rank) == sorted(rp.expected_rank)
    tidy = rp.table()
    assert len(tidy) == 25 and list(tidy.columns[:3]) == ["system", "rank", "probability"]
    wide = tidy.pivot(index="system", columns="rank", values="probability").loc[rp.order]
    np.testing.assert_allclose(wide.to_numpy(), rp.probabilities.to_numpy())
    # rank_distribution (the older accessor) agrees.
    dist = fit.rank_distribution()
    np.testing.assert_allclose(dist.loc[rp.order].to_numpy(), rp.probabilities.to_numpy())
    text = repr(rp)
    assert "RankPosterior(model='pl'" in text and "1200 draws" in text and "P(best)" in text


def test_bt_mle_rank_posterior_sums_and_orders():
    fit = rs.models.BradleyTerry().fit(rs.load_paired("pudding"), method="mle")
    rp = fit.rank_posterior()
    values = rp.probabilities.to_numpy()
    np.testing.assert_allclose(values.sum(axis=0), 1.0)
    np.testing.assert_allclose(values.sum(axis=1), 1.0)
    assert rp.model == "bt" and "normal approximation" in rp.approximation
    # Expected ranks follow the worths (best = highest log-worth) up to Monte Carlo noise.
    assert rp.order[0] == fit.order[0] or rp.p_best[fit.order[0]] > 0.3


# ---------------------------------------------------------------------- MAP: normal approximation
def test_map_rank_posterior_equals_a_large_direct_simulation_of_the_normal_approximation():
    orders = [
        list("abcd"),
        list("bacd"),
        list("acbd"),
        list("badc"),
        list("cabd"),
        list("abdc"),
        list("bcad"),
        list("dabc"),
    ]
    rk = rs.Rankings.from_orderings(orders)
    fit = rs.models.PlackettLuce().fit(rk, method="map")
    rp = fit.rank_posterior()
    assert rp.approximation.startswith("normal approximation at the optimum")
    assert "approximate: normal approximation at the optimum" in repr(rp)
    rng = np.random.default_rng(2024)
    mean = fit.worth.to_numpy()
    cov = fit.covariance.loc[list(fit.systems), list(fit.systems)].to_numpy()
    sim = rng.multivariate_normal(mean, cov, size=200_000, method="eigh")
    best_first = np.argsort(-sim, axis=1)
    direct = np.zeros((4, 4))
    for r in range(4):
        direct[:, r] = np.bincount(best_first[:, r], minlength=4) / len(sim)
    direct = pd.DataFrame(direct, index=list(fit.systems)).loc[rp.order].to_numpy()
    got = rp.probabilities.to_numpy()
    se = np.sqrt(direct * (1 - direct) / rp.draws)
    assert np.all(np.abs(got - direct) <= 5 * se + 0.003), (got, direct)
    assert 0.05 < direct.max(axis=1).min()  # a non-degenerate test: ranks are uncertain
    assert direct[:, 0].max() < 0.95


# ---------------------------------------------------------------------- Mallows: exact
def kendall(p, s):
    n = len(p)
    return sum((p[i] < p[j]) != (s[i] < s[j]) for i in range(n) for j in range(i + 1, n))


def exact_mallows_rank_posterior(positions, shape=1.0, rate=0.1):
    """P(consensus rank of item i = r) by enumerating the 24 consensus permutations and
    integrating θ (Gamma(shape, rate) prior) on a fine grid; complete rankings, no ties."""
    n_rank, n = positions.shape
    grid = np.linspace(1e-6, 60.0, 600_001)
    j = np.arange(1, n + 1)[:, None]
    # Kendall normaliser in closed form: Z_n(θ) = Π_j (1 − e^{−jθ}) / (1 − e^{−θ}).
    log_z = np.sum(np.log1p(-np.exp(-j * grid)) - np.log1p(-np.exp(-grid)), axis=0)
    log_prior = (shape - 1) * np.log(grid) - rate * grid
    perms = list(itertools.permutations(range(n)))
    # The closed form equals the enumerated sum at a few θ.
    for k in np.searchsorted(grid, [0.3, 1.7]):
        brute = sum(np.exp(-grid[k] * kendall(p, range(n))) for p in perms)
        assert np.log(brute) == pytest.approx(log_z[k], abs=1e-9)
    log_weight = []
    for sigma in perms:
        total = sum(kendall(pi, sigma) for pi in positions)
        integrand = log_prior - grid * total - n_rank * log_z
        top = integrand.max()
        log_weight.append(top + np.log(np.trapezoid(np.exp(integrand - top), grid)))
    weight = np.exp(np.array(log_weight) - max(log_weight))
    weight /= weight.sum()
    out = np.zeros((n, n))
    for w, sigma in zip(weight, perms, strict=True):
        for item in range(n):
            out[item, sigma[item]] += w
    return out


def test_mallows_rank_posterior_equals_exact_enumeration():
    orders = [
        list("abcd"),
        list("bacd"),
        list("acbd"),
        list("badc"),
        list("cabd"),
        list("abdc"),
    ]
    rk = rs.Rankings.from_orderings(orders)
    systems = list(rk.systems)
    positions = np.array([[o.index(s) for s in systems] for o in orders])
    exact = exact_mallows_rank_posterior(positions)
    fit = rs.models.Mallows().fit(
        rk, draws=6000, tune=300, chains=4, seed=3, progress=False, max_draws=6000
    )
    rp = fit.rank_posterior()
    assert rp.model == "mallows" and rp.approximation is None and rp.draws == 24_000
    got = rp.probabilities.loc[systems].to_numpy()
    np.testing.assert_allclose(got.sum(axis=0), 1.0)
    np.testing.assert_allclose(got.sum(axis=1), 1.0)
    # Monte Carlo error: autocorrelated draws, an effective sample of at least a quarter.
    se = np.sqrt(exact * (1 - exact) / (rp.draws / 4))
    assert np.all(np.abs(got - exact) <= 5 * se + 0.002), (got, exact)
    assert 0.1 < exact[0, 1] < 0.9  # the consensus is genuinely uncertain


def test_mallows_map_has_no_rank_posterior():
    rk = rs.Rankings.from_orderings([list("abc"), list("bac"), list("abc")])
    fit = rs.models.Mallows().fit(rk, method="map")
    with pytest.raises(ValueError, match="method='mcmc'"):
        fit.rank_posterior()


# ---------------------------------------------------------------------- heat map
HOSTILE = ["$x$", "a_b^c", r"\frac{1}{2}", "plain", "$$", "寿司"]


def test_heat_map_draws_one_cell_per_system_and_rank_and_shows_names_literally():
    rng = np.random.default_rng(0)
    draws = rng.normal(size=(2, 300, len(HOSTILE))) + np.linspace(1, -1, len(HOSTILE))
    rp = hand_fit(draws, HOSTILE).rank_posterior()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.plotting.MissingFontWarning)
        fig = rp.plot()
        ax = fig.axes[0]
        images = [im for im in ax.get_images() if isinstance(im, AxesImage)]
        assert len(images) == 1
        np.testing.assert_allclose(np.asarray(images[0].get_array()), rp.probabilities.to_numpy())
        shown = [t.get_text() for t in ax.get_yticklabels()]
        assert shown == [label(s) for s in rp.order]
        for text in shown:
            assert not cbook.is_math_text(text)
            assert text.replace(r"\$", "$") in HOSTILE
        assert fig.axes[1].get_ylabel() == "P(rank = r)"
        with fitted_fonts(fig):
            fig.savefig(io.BytesIO(), format="png")


def test_heat_map_of_forty_systems_stays_readable():
    n = 40
    rng = np.random.default_rng(5)
    systems = [f"system-{i:02d}" for i in range(n)]
    draws = rng.normal(scale=0.6, size=(1, 500, n)) + np.linspace(3, -3, n)
    fig = hand_fit(draws, systems).rank_posterior().plot()
    ax = fig.axes[0]
    assert np.asarray(ax.get_images()[0].get_array()).shape == (n, n)
    assert len(ax.get_yticks()) == n
    assert min(t.get_fontsize() for t in ax.get_yticklabels()) >= 5
    _, height = fig.get_size_inches()
    assert height <= 30 and height / n >= 0.2  # at least 0.2 inch per row


# ---------------------------------------------------------------------- compare
def test_comparison_rank_posteriors():
    rk = rs.load_rankings("salad")
    pl = rs.models.PlackettLuce().fit(rk, method="mle")
    mallows_map = rs.models.Mallows().fit(rk, method="map")
    cmp = rs.compare(rs.pairwise(rk), [pl, mallows_map])
    with pytest.warns(UserWarning, match="no rank posterior for mallows"):
        posts = cmp.rank_posteriors()
    assert list(posts) == ["pl"]
    pd.testing.assert_frame_equal(posts["pl"].probabilities, pl.rank_posterior().probabilities)
    assert posts["pl"].ci_prob == 0.95
