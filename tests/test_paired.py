"""Paired instance-level analysis against scipy.stats and independent computations."""

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import rankstats as rs
from rankstats.ratings import _match, bradley_terry, elo, trueskill, win_matrix

TOY = pd.DataFrame({"A": [0, 0, 10, 10, 10], "B": [1, 1, 11, 11, 6], "C": [2, 2, 12, 12, 2]})


def test_peyrard_figure_1_toy_example():
    res = rs.paired(TOY, n_bootstrap=200)
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
    res = rs.paired(tac, task="ROUGE_2", n_bootstrap=100)
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
    from rankstats.confidence import holm_adjust

    np.testing.assert_allclose(res.pairs.sign_p_holm[ok], holm_adjust(res.pairs.sign_p[ok]))


def test_bootstrap_level_and_reproducibility():
    rng = np.random.default_rng(1)
    x = pd.DataFrame({"a": rng.normal(0.3, 1, 60), "b": rng.normal(0, 1, 60)})
    one = rs.paired(x, n_bootstrap=500, seed=3, confidence=0.9)
    two = rs.paired(x, n_bootstrap=500, seed=3, confidence=0.9)
    pd.testing.assert_frame_equal(one.pairs, two.pairs)
    # The interval is the (5 %, 95 %) percentile interval of the same seeded resamples.
    counts = np.random.default_rng(3).multinomial(60, np.full(60, 1 / 60), size=500)
    diffs = (counts @ (x.a - x.b).to_numpy()) / 60
    lo, hi = np.quantile(diffs, [0.05, 0.95])
    assert one.pairs.mean_diff_low[0] == pytest.approx(lo)
    assert one.pairs.mean_diff_high[0] == pytest.approx(hi)


@pytest.mark.slow
def test_bootstrap_coverage():
    rng = np.random.default_rng(2)
    covered = 0
    for _ in range(300):
        x = pd.DataFrame({"a": rng.normal(0.5, 1, 40), "b": rng.normal(0, 1, 40)})
        r = rs.paired(
            x,
            n_bootstrap=400,
            seed=int(rng.integers(1 << 30)),
            confidence=0.9,
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
    # One factor: the EP fixed point is reached after one update, exactly the closed form.
    np.testing.assert_allclose(mean[0], [mu_w + s2_w / c * v, mu_l - s2_l / c * v], rtol=1e-10)
    np.testing.assert_allclose(
        var[0], [s2_w * (1 - s2_w / c**2 * w), s2_l * (1 - s2_l / c**2 * w)], rtol=1e-10
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
    res = rs.paired(tac, task="ROUGE_2", n_bootstrap=50)
    assert res.plot_pair("M0", "M1").axes
    assert "ROUGE_2" in repr(res)


def test_cli(tmp_path, capsys):
    from rankstats.cli import main

    assert (
        main(
            [
                "paired",
                "--dataset",
                "dialogue_tc",
                "--task",
                "BLEU",
                "--bootstrap",
                "200",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "BLEU" in out and (tmp_path / "pairs.csv").exists()
