"""Paired instance-level analysis against scipy.stats and independent computations."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import rankstats as rs
from rankstats.paired_analysis.ratings import _match, bradley_terry, elo, trueskill, win_matrix

TOY = pd.DataFrame({"A": [0, 0, 10, 10, 10], "B": [1, 1, 11, 11, 6], "C": [2, 2, 12, 12, 2]})


def test_peyrard_figure_1_toy_example():
    res = rs.paired(TOY, n_resamples=200)
    s = res.strengths.set_index("system")
    assert s["mean"].nunique() == 1  # the mean cannot tell them apart
    assert list(s["median"].sort_values(ascending=False).index) == ["A", "B", "C"]
    for col in ("bt", "elo", "trueskill"):
        assert list(s[col].sort_values(ascending=False).index) == ["C", "B", "A"], col
    row = res.pairs[(res.pairs.system_a == "A") & (res.pairs.system_b == "B")].iloc[0]
    assert (row.wins_a, row.wins_b, row.ties) == (1, 4, 0)


@pytest.fixture(scope="module")
def tac():
    scores = rs.load_dataset("tac08", tasks=["ROUGE_2"])
    df = scores.data.astype({"system": str, "task": str})
    keep = df.system.isin([f"M{i}" for i in range(8)])
    df = df[keep].copy()
    df["score"] = df["score"].round(2)  # ties and zero differences
    rng = np.random.default_rng(0)
    df.loc[rng.random(len(df)) < 0.1, "score"] = np.nan  # missing instances
    return rs.Scores.from_long(df, instance="instance")


def test_p_values_equal_scipy(tac):
    res = rs.paired(tac, task="ROUGE_2", n_resamples=100)
    wide = tac.data.pivot(index="instance", columns="system", values="score")
    for _, row in res.pairs.iterrows():
        both = wide[[row.system_a, row.system_b]].dropna()
        a, b = both[row.system_a].to_numpy(), both[row.system_b].to_numpy()
        assert row.n == len(both)
        assert row.ttest_p == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)
        d = a - b
        if np.any(d != 0):
            assert row.wilcoxon_p == pytest.approx(stats.wilcoxon(a, b).pvalue, rel=1e-9)
        w, l = int((d > 0).sum()), int((d < 0).sum())
        assert (row.wins_a, row.wins_b, row.ties) == (w, l, len(d) - w - l)
        assert row.sign_p == pytest.approx(stats.binomtest(w, w + l).pvalue, rel=1e-9)
        try:
            expected = stats.median_test(a, b).pvalue
        except ValueError:
            expected = np.nan
        if np.isnan(expected):
            assert np.isnan(row.mood_p)
        else:
            assert row.mood_p == pytest.approx(expected, rel=1e-9)
    ok = res.pairs.sign_p.notna()
    from rankstats.aggregation.hoeffding_intervals import holm_adjust

    np.testing.assert_allclose(res.pairs.sign_p_holm[ok], holm_adjust(res.pairs.sign_p[ok]))


def test_bootstrap_level_and_reproducibility():
    rng = np.random.default_rng(1)
    x = pd.DataFrame({"a": rng.normal(0.3, 1, 60), "b": rng.normal(0, 1, 60)})
    one = rs.paired(x, n_resamples=500, seed=3, confidence_level=0.9)
    two = rs.paired(x, n_resamples=500, seed=3, confidence_level=0.9)
    pd.testing.assert_frame_equal(one.pairs, two.pairs)
    # The interval is the (5 %, 95 %) percentile interval of the same seeded resamples.
    counts = np.random.default_rng(3).multinomial(60, np.full(60, 1 / 60), size=500)
    diffs = (counts @ (x.a - x.b).to_numpy()) / 60
    lo, hi = np.quantile(diffs, [0.05, 0.95])
    assert one.pairs.mean_diff_low[0] == pytest.approx(lo)
    assert one.pairs.mean_diff_high[0] == pytest.approx(hi)


@pytest.mark.slow
def test_bootstrap_coverage():
    # Already sized to the claim (a 90 % interval covers at 0.84–0.96): an interval 20 % too
    # narrow covers at 0.81 and fails with probability Φ(0.03 √300 / 0.39) = 0.91; fewer
    # replications would lose that power, so the 300 stay.
    rng = np.random.default_rng(2)
    covered = 0
    for _ in range(300):
        x = pd.DataFrame({"a": rng.normal(0.5, 1, 40), "b": rng.normal(0, 1, 40)})
        r = rs.paired(
            x,
            n_resamples=400,
            seed=int(rng.integers(1 << 30)),
            confidence_level=0.9,
            n_orders=2,
            trueskill_orders=1,
        )
        covered += r.pairs.mean_diff_low[0] <= 0.5 <= r.pairs.mean_diff_high[0]
    assert 0.84 <= covered / 300 <= 0.96


def test_bradley_terry_equals_direct_optimisation():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(40, 5)) + np.arange(5) * 0.3
    x = np.round(x, 1)
    bt = bradley_terry(x, list("abcde"))
    wins, draws = win_matrix(x)
    w = wins + 0.5 * draws

    def nll(theta):
        theta = np.append(theta, -theta.sum())
        diff = theta[:, None] - theta[None, :]
        return -np.sum(w * (diff - np.logaddexp(0, diff)))

    direct = optimize.minimize(nll, np.zeros(4), method="BFGS", options={"gtol": 1e-10}).x
    np.testing.assert_allclose(bt, np.append(direct, -direct.sum()), atol=1e-5)
    with pytest.raises(ValueError, match="MLE does not exist"):
        bradley_terry(np.array([[1.0, 0.0], [2.0, 1.0]]), ["a", "b"])


def test_ratings_do_not_depend_on_row_order():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(30, 4)) + np.arange(4) * 0.4
    shuffled = x[rng.permutation(30)]
    # Averages over 400 random orders: Monte-Carlo error of a few rating points.
    np.testing.assert_allclose(elo(x, n_orders=400), elo(shuffled, n_orders=400), atol=8.0)
    mu1, _ = trueskill(x, n_orders=60)
    mu2, _ = trueskill(shuffled, n_orders=60)
    np.testing.assert_allclose(mu1, mu2, atol=0.5)


def test_trueskill_two_player_closed_form():
    # Herbrich et al. (2007): winner μ + σ²/c·v(t, ε/c), variance σ²(1 − σ²/c²·w), written out.
    mu_w, mu_l, s2_w, s2_l, beta = 27.0, 24.0, 30.0, 50.0, 25 / 6
    eps = stats.norm.ppf((0.1 + 1) / 2) * np.sqrt(2) * beta
    c = np.sqrt(2 * beta**2 + s2_w + s2_l)
    t, e = (mu_w - mu_l) / c, eps / c
    v = stats.norm.pdf(t - e) / stats.norm.cdf(t - e)
    w = v * (v + t - e)
    mean, var = _match(
        np.array([[mu_w, mu_l]]),
        np.array([[s2_w, s2_l]]),
        np.array([[False]]),
        np.array([[True]]),
        beta,
        eps,
    )
    # One factor: EP is a single exact update, so the closed form holds to rounding.
    np.testing.assert_allclose(mean[0], [mu_w + s2_w / c * v, mu_l - s2_l / c * v], rtol=1e-12)
    np.testing.assert_allclose(
        var[0], [s2_w * (1 - s2_w / c**2 * w), s2_l * (1 - s2_l / c**2 * w)], rtol=1e-12
    )


def test_bad_input_and_figures(tac):
    with pytest.raises(rs.InvalidScoresError, match="choose one task"):
        rs.paired(rs.load_dataset("dialogue_tc"))
    with pytest.raises(rs.InvalidScoresError, match="unknown task 'BLEURT'"):
        rs.paired(tac, task="BLEURT")
    with pytest.raises(rs.InvalidScoresError, match="instance-level"):
        rs.paired(rs.load_dataset("xtreme"))
    with pytest.raises(rs.InvalidScoresError, match="at least two systems"):
        rs.paired(pd.DataFrame({"a": [1.0, 2.0]}))
    res = rs.paired(tac, task="ROUGE_2", n_resamples=50)
    assert res.plot_pair("M0", "M1").axes
    assert "ROUGE_2" in repr(res)


def _scipy_pair(a: np.ndarray, b: np.ndarray) -> dict:
    """Every p-value of one pair straight from scipy.stats (the oracle)."""
    d = a - b
    w, l = int((d > 0).sum()), int((d < 0).sum())
    try:
        mood = stats.median_test(a, b).pvalue
    except ValueError:  # scipy refuses when all values are on one side of the grand median
        mood = np.nan
    return {
        "ttest_p": stats.ttest_rel(a, b).pvalue,
        "wilcoxon_p": stats.wilcoxon(a, b).pvalue,
        "sign_p": stats.binomtest(w, w + l).pvalue if w + l else 1.0,
        "mood_p": mood,
    }


def test_p_values_equal_scipy_mixed_ties_zeros_and_missing():
    # Pairs with and without tied |differences| and zeros, with the same n: scipy.wilcoxon
    # picks its method once for a whole batch, so a naive vectorisation would differ from scipy.
    rng = np.random.default_rng(11)
    base = rng.normal(size=24)
    df = pd.DataFrame(
        {
            "a": base,
            "b": base - rng.normal(0.4, 1.0, 24),
            "c": np.round(base - rng.normal(0.3, 1.0, 24)),
            "d": base,  # all differences with a are zero
            "e": np.where(rng.random(24) < 0.3, np.nan, base + rng.normal(0, 1, 24)),
            "f": np.where(np.arange(24) < 10, base + 0.5, np.nan),  # n = 10: exact/permutation
        }
    )
    df.loc[5, "c"] = df.loc[5, "a"]  # one zero difference a − c
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rs.paired(df, n_resamples=50)
    assert len(res.pairs) == 15
    for _, row in res.pairs.iterrows():
        both = df[[row.system_a, row.system_b]].dropna()
        a, b = both[row.system_a].to_numpy(), both[row.system_b].to_numpy()
        assert row.n == len(both)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = _scipy_pair(a, b)
        for key, value in expected.items():
            where = (row.system_a, row.system_b, key)
            if np.isnan(value):
                assert np.isnan(row[key]), where
            else:
                assert row[key] == pytest.approx(value, rel=1e-10), where
    # Holm across the pairs that have a p-value, for every test.
    from rankstats.aggregation.hoeffding_intervals import holm_adjust

    for test in ("sign", "wilcoxon", "ttest", "mood"):
        p = res.pairs[f"{test}_p"].to_numpy()
        ok = ~np.isnan(p)
        np.testing.assert_allclose(res.pairs[f"{test}_p_holm"].to_numpy()[ok], holm_adjust(p[ok]))
        assert res.pairs[f"{test}_p_holm"].isna().sum() == (~ok).sum()


def test_holm_adjust_is_holm():
    # Holm (1979) written out: sorted p_(k) times (m − k + 1), running maximum, capped at 1.
    from rankstats.aggregation.hoeffding_intervals import holm_adjust

    p = np.array([0.01, 0.04, 0.03, 0.005, 0.2])
    order = np.argsort(p)
    steps = np.maximum.accumulate(np.minimum(1, (5 - np.arange(5)) * p[order]))
    expected = np.empty(5)
    expected[order] = steps
    np.testing.assert_allclose(holm_adjust(p), expected)


def test_sign_test_excludes_and_reports_ties():
    a = np.array([5.0, 5, 5, 5, 5, 5, 1, 3, 3, 3])
    b = np.array([4.0, 4, 4, 4, 4, 4, 2, 3, 3, 3])  # 6 wins, 1 loss, 3 ties
    res = rs.paired(pd.DataFrame({"a": a, "b": b}), n_resamples=20)
    row = res.pairs.iloc[0]
    assert (row.wins_a, row.wins_b, row.ties, row.n) == (6, 1, 3, 10)
    assert row.sign_p == pytest.approx(stats.binomtest(6, 7, 0.5).pvalue, rel=1e-12)
    # pairformance counted ties as losses (n = all instances): a different number.
    assert row.sign_p != pytest.approx(stats.binomtest(6, 10, 0.5).pvalue)
    assert row.p_a_beats_b == pytest.approx((6 + 1.5) / 10)
    all_ties = rs.paired(pd.DataFrame({"a": a, "b": a}), n_resamples=20).pairs.iloc[0]
    assert (all_ties.ties, all_ties.sign_p) == (10, 1.0)


def test_bootstrap_percentiles_for_every_interval_with_missing_data():
    rng = np.random.default_rng(7)
    x = pd.DataFrame({"a": rng.normal(0.2, 1, 30), "b": rng.normal(0, 1, 30)})
    x.loc[[2, 9, 17], "b"] = np.nan
    x["b"] = x["b"].round(1)
    x["a"] = x["a"].round(1)
    conf, n_boot, seed = 0.8, 300, 12
    res = rs.paired(x, n_resamples=n_boot, seed=seed, confidence_level=conf).pairs.iloc[0]
    # Independent re-implementation: resample rows, keep those where both were evaluated.
    counts = np.random.default_rng(seed).multinomial(30, np.full(30, 1 / 30), size=n_boot)
    a, b = x.a.to_numpy(), x.b.to_numpy()
    means, medians, shares = [], [], []
    for c in counts:
        rows = np.repeat(np.arange(30), c)
        rows = rows[~np.isnan(b[rows])]
        d = a[rows] - b[rows]
        means.append(d.mean())
        medians.append(np.median(a[rows]) - np.median(b[rows]))
        shares.append(np.mean((d > 0) + 0.5 * (d == 0)))
    q = [(1 - conf) / 2, (1 + conf) / 2]
    for name, values in (("mean_diff", means), ("median_diff", medians), ("p_a_beats_b", shares)):
        lo, hi = np.quantile(values, q)
        assert res[f"{name}_low"] == pytest.approx(lo), name
        assert res[f"{name}_high"] == pytest.approx(hi), name
    # The point estimates use the common instances only.
    keep = ~np.isnan(b)
    assert res.mean_diff == pytest.approx(np.mean(a[keep] - b[keep]))
    assert res.median_diff == pytest.approx(np.median(a[keep]) - np.median(b[keep]))


def test_trueskill_draw_closed_form():
    # Two players who draw: v, w of the doubly truncated Gaussian (Herbrich et al. 2007), with
    # the normal pdf/cdf of scipy.
    mu_1, mu_2, s2_1, s2_2, beta = 29.0, 22.0, 40.0, 20.0, 25 / 6
    eps = stats.norm.ppf((0.1 + 1) / 2) * np.sqrt(2) * beta
    c = np.sqrt(2 * beta**2 + s2_1 + s2_2)
    t, e = (mu_1 - mu_2) / c, eps / c
    mass = stats.norm.cdf(e - t) - stats.norm.cdf(-e - t)
    v = (stats.norm.pdf(-e - t) - stats.norm.pdf(e - t)) / mass
    w = v**2 + ((e - t) * stats.norm.pdf(e - t) + (e + t) * stats.norm.pdf(-e - t)) / mass
    mean, var = _match(
        np.array([[mu_1, mu_2]]),
        np.array([[s2_1, s2_2]]),
        np.array([[True]]),
        np.array([[True]]),
        beta,
        eps,
    )
    np.testing.assert_allclose(mean[0], [mu_1 + s2_1 / c * v, mu_2 - s2_2 / c * v], rtol=1e-12)
    np.testing.assert_allclose(
        var[0], [s2_1 * (1 - s2_1 / c**2 * w), s2_2 * (1 - s2_2 / c**2 * w)], rtol=1e-12
    )
    assert mean[0, 0] < mu_1 and mean[0, 1] > mu_2  # a draw pulls the two together


def test_trueskill_free_for_all_matches_reference_package():
    # Four players, ranks [0, 1, 1, 2] (a draw between the 2nd and 3rd) and [0, 1, 2, 3]:
    # posteriors printed by the `trueskill` package 0.4.5 (H. Lee; an independent
    # implementation of the same factor graph), TrueSkill(mu=25, sigma=25/3, beta=25/6,
    # tau=25/300, draw_probability=0.1).rate(..., min_delta=1e-12). Its own normal cdf
    # approximation and 10-iteration cap limit the agreement to about 1e-6.
    reference = {
        (False, True, False): [
            (30.45415406509492, 4.172408400325845),
            (26.183784372515603, 4.463608381176009),
            (28.972109409421606, 2.7287255927066094),
            (19.531129916682932, 5.067465626609605),
        ],
        (False, False, False): [
            (31.447622836449302, 4.154531188842627),
            (27.978450842439205, 4.61152254102009),
            (28.425175382049297, 2.746689801343532),
            (18.968529373082937, 4.977878405247815),
        ],
    }
    beta, tau = 25 / 6, 25 / 300
    eps = stats.norm.ppf((0.1 + 1) / 2) * np.sqrt(2) * beta
    mu = np.array([[27.0, 24.0, 30.0, 22.0]])
    sd = np.array([[5.0, 7.0, 3.0, 6.0]])
    for draws, expected in reference.items():
        mean, var = _match(mu, sd**2 + tau**2, np.array([draws]), np.ones((1, 3), bool), beta, eps)
        np.testing.assert_allclose(mean[0], [m for m, _ in expected], atol=2e-6)
        np.testing.assert_allclose(np.sqrt(var[0]), [s for _, s in expected], atol=2e-6)


def test_trueskill_absent_players_are_untouched():
    # A row where only the first two of four players played equals the two-player match.
    beta = 25 / 6
    eps = stats.norm.ppf(0.55) * np.sqrt(2) * beta
    mu = np.array([[26.0, 24.0, 30.0, 20.0], [26.0, 24.0, 30.0, 20.0]])
    var = np.array([[30.0, 40.0, 10.0, 50.0]] * 2)
    active = np.array([[True, False, False], [True, True, True]])
    draws = np.zeros((2, 3), bool)
    mean, post = _match(mu, var, draws, active, beta, eps)
    two_mean, two_var = _match(mu[:1, :2], var[:1, :2], draws[:1, :1], active[:1, :1], beta, eps)
    np.testing.assert_allclose(mean[0, :2], two_mean[0], rtol=1e-12)
    np.testing.assert_allclose(post[0, :2], two_var[0], rtol=1e-12)
    np.testing.assert_allclose(mean[0, 2:], mu[0, 2:])
    np.testing.assert_allclose(post[0, 2:], var[0, 2:])


def test_elo_single_game_closed_form():
    # Elo (1978): one game from 1500 each, K = 16: winner +8, loser −8; a draw changes nothing.
    x = np.array([[1.0, 0.0]])
    np.testing.assert_allclose(elo(x, k=16, start=1500, n_orders=1), [1508.0, 1492.0])
    np.testing.assert_allclose(elo(np.array([[1.0, 1.0]]), n_orders=1), [1500.0, 1500.0])
    # Two games in a row, written out: the second expectation uses the updated ratings.
    r = np.array([1500.0, 1500.0])
    for winner in (0, 0):
        e = 1 / (1 + 10 ** ((r[1 - winner] - r[winner]) / 400))
        r[winner] += 16 * (1 - e)
        r[1 - winner] -= 16 * (1 - e)
    np.testing.assert_allclose(elo(np.array([[1.0, 0.0], [2.0, 1.0]]), n_orders=3), r)


def test_agreement_diagnostics_against_kendalltau():
    rng = np.random.default_rng(3)
    x = pd.DataFrame(rng.normal(size=(40, 7)) + np.linspace(0, 1, 7), columns=list("abcdefg"))
    res = rs.paired(x, n_resamples=20)
    s = res.strengths.set_index("system")
    for _, row in res.agreement.iterrows():
        tau = stats.kendalltau(s[row.a], s[row.b]).statistic
        assert row.kendall_tau == pytest.approx(tau)
        assert row.share_discordant == pytest.approx((1 - tau) / 2)  # no ties here
        best_a, best_b = s[row.a].idxmax(), s[row.b].idxmax()
        assert row.same_top1 == (best_a == best_b)
        top_a, top_b = set(s[row.a].nlargest(3).index), set(s[row.b].nlargest(3).index)
        assert row.same_top3 == (top_a == top_b)
    # The toy example: the mean ties all three systems, so it orders no pair like the median.
    toy = rs.paired(TOY, n_resamples=20).agreement.set_index(["a", "b"])
    assert toy.loc[("median", "bt"), "share_discordant"] == 1.0
    assert toy.loc[("bt", "elo"), "share_discordant"] == 0.0
    assert toy.loc[("mean", "bt"), "share_discordant"] == 0.5


def test_more_bad_input():
    df = pd.DataFrame({"a": [1.0, 2.0, np.nan], "b": [np.nan, np.nan, 1.0], "c": [1.0, 0, 2]})
    with pytest.raises(rs.InvalidScoresError, match="never evaluated on a common instance: a/b"):
        rs.paired(df)
    with pytest.raises(rs.InvalidScoresError, match="no score on task 'score': z"):
        rs.paired(pd.DataFrame({"a": [1.0, 2.0], "z": [np.nan, np.nan]}))
    with pytest.raises(rs.InvalidScoresError, match="non-numeric score in column 'b'"):
        rs.paired(pd.DataFrame({"a": [1.0, 2.0], "b": ["x", 1.0]}))
    with pytest.raises(ValueError, match="confidence_level"):
        rs.paired(TOY, confidence_level=95)
    with pytest.raises(ValueError, match="n_resamples"):
        rs.paired(TOY, n_resamples=0)
    res = rs.paired(TOY, n_resamples=20)
    with pytest.raises(KeyError, match="unknown system 'Z'"):
        res.plot_pair("A", "Z")
    with pytest.raises(ValueError, match="unknown test"):
        res.plot_matrix(test="anova")
    assert res.plot_matrix().axes


def test_bradley_terry_mle_absent_is_reported():
    # C beats everyone on every instance: no finite MLE; the bt columns are NaN, with a warning.
    x = pd.DataFrame({"A": [1.0, 2, 3], "B": [2.0, 1, 2], "C": [9.0, 9, 9]})
    with pytest.warns(UserWarning, match="MLE does not exist"):
        res = rs.paired(x, n_resamples=20)
    assert res.strengths["bt"].isna().all() and res.pairs["bt_probability"].isna().all()
    assert "bt" not in set(res.agreement["a"]) | set(res.agreement["b"])


def test_pairformance_example_matches_its_published_output():
    # pairformance's examples/example_usage.ipynb (same data) prints, per pair, the paired t-test,
    # Mood's test, BT P(A > B) and the sign test to 3 decimals (no ties in these data, so its
    # ties-as-losses sign test coincides with ours).
    published = {
        ("M0", "M1"): (0.617, 0.584, 0.650, 0.027),
        ("M0", "M2"): (0.622, 0.361, 0.617, 0.092),
        ("M0", "M3"): (0.192, 0.201, 0.617, 0.092),
        ("M0", "M4"): (0.239, 0.855, 0.433, 0.366),
        ("M1", "M2"): (0.508, 1.000, 0.467, 0.699),
        ("M1", "M3"): (0.241, 0.584, 0.483, 0.897),
        ("M1", "M4"): (0.839, 0.201, 0.350, 0.027),
        ("M2", "M3"): (0.741, 0.201, 0.583, 0.245),
        ("M2", "M4"): (0.165, 0.201, 0.317, 0.006),
        ("M3", "M4"): (0.012, 0.018, 0.383, 0.092),
    }
    from rankstats.datasets import data_path

    wide = pd.read_csv(data_path("pairformance_dialogue_tc_moverscore.csv.gz"))
    pairs = rs.paired(wide, n_resamples=20).pairs.set_index(["system_a", "system_b"])
    assert (pairs["ties"] == 0).all()
    for key, values in published.items():
        row = pairs.loc[key]
        ours = (row.ttest_p, row.mood_p, row.p_a_beats_b, row.sign_p)
        np.testing.assert_allclose(ours, values, atol=5e-4 + 1e-12, err_msg=str(key))


def test_davidson_ties_against_a_direct_maximisation():
    """bt_ties="davidson": the strengths and ν equal a direct scipy maximisation of Davidson's
    (1970) likelihood on win / draw counts computed here by brute force."""

    rng = np.random.default_rng(4)
    x = np.round(rng.normal(np.linspace(0, 1.2, 5), 1.0, size=(80, 5)), 0)  # many ties
    res = rs.paired(pd.DataFrame(x, columns=list("abcde")), n_resamples=50, bt_ties="davidson")
    n = x.shape[1]
    w = np.zeros((n, n))
    t = np.zeros((n, n))
    for row in x:
        for i in range(n):
            for j in range(n):
                if i != j:
                    w[i, j] += row[i] > row[j]
                    t[i, j] += row[i] == row[j]

    def negative_log_likelihood(params):
        theta = np.r_[params[: n - 1], 0.0]
        log_nu = params[-1]
        total = 0.0
        for i in range(n):
            for j in range(i + 1, n):
                tie = log_nu + 0.5 * (theta[i] + theta[j])
                log_norm = np.logaddexp(np.logaddexp(theta[i], theta[j]), tie)
                total += w[i, j] * theta[i] + w[j, i] * theta[j] + t[i, j] * tie
                total -= (w[i, j] + w[j, i] + t[i, j]) * log_norm
        return -total

    best = optimize.minimize(negative_log_likelihood, np.zeros(n), method="BFGS", tol=1e-10)
    theta = np.r_[best.x[: n - 1], 0.0]
    np.testing.assert_allclose(res.strengths["bt"], theta - theta.mean(), atol=1e-4)
    assert res.parameters["bt_tie_nu"] == pytest.approx(np.exp(best.x[-1]), rel=1e-4)
    half = rs.paired(pd.DataFrame(x, columns=list("abcde")), n_resamples=50)
    assert half.parameters["bt_ties"] == "half" and half.parameters["bt_tie_nu"] is None
    with pytest.raises(ValueError, match="bt_ties"):
        rs.paired(pd.DataFrame(x, columns=list("abcde")), bt_ties="rao-kupper")
