"""Repeated-measures ANOVA and Tukey's HSD (rankstats.significance.parametric) against independent
computations: textbook sums of squares written with loops, statsmodels' AnovaRM (when installed),
scipy.stats.tukey_hsd (the one-way design) and the paired t-test (k = 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import linalg, stats

import rankstats as rs
from rankstats.significance.blocks import rank_blocks
from rankstats.significance.parametric import (
    AnovaResult,
    TukeyResult,
    greenhouse_geisser,
    repeated_measures_anova,
    tukey_hsd,
)
from rankstats.significance.posthoc_result import PosthocResult
from rankstats.significance.scored_blocks import score_blocks


def table(seed: int = 0, n: int = 25, means=(0.0, 0.3, 0.35, 1.0), block_sd: float = 1.0):
    rng = np.random.default_rng(seed)
    x = rng.normal(means, 0.5, (n, len(means))) + rng.normal(0.0, block_sd, (n, 1))
    return pd.DataFrame(x, columns=[f"s{j}" for j in range(len(means))])


def textbook_anova(x: np.ndarray) -> tuple[float, float, float]:
    """F, p and MS_error from the sums of squares, with Python loops."""
    n, k = x.shape
    grand = sum(sum(row) for row in x) / (n * k)
    col = [sum(x[i][j] for i in range(n)) / n for j in range(k)]
    row = [sum(x[i]) / k for i in range(n)]
    ss_treat = n * sum((c - grand) ** 2 for c in col)
    ss_total = sum((x[i][j] - grand) ** 2 for i in range(n) for j in range(k))
    ss_blocks = k * sum((r - grand) ** 2 for r in row)
    ss_error = ss_total - ss_treat - ss_blocks
    df1, df2 = k - 1, (k - 1) * (n - 1)
    f = (ss_treat / df1) / (ss_error / df2)
    return f, float(stats.f.sf(f, df1, df2)), ss_error / df2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_anova_equals_textbook_sums_of_squares(seed):
    x = table(seed)
    res = repeated_measures_anova(x)
    f, p, mse = textbook_anova(x.to_numpy())
    assert res.statistic == pytest.approx(f, rel=1e-10)
    assert res.p_value == pytest.approx(p, rel=1e-8, abs=1e-300)
    assert res.mse == pytest.approx(mse, rel=1e-10)
    assert res.df == (3, 72)
    assert isinstance(res, AnovaResult)
    ss = res.table().set_index("source")["sum_squares"]
    assert ss["systems"] + ss["blocks"] + ss["error"] == pytest.approx(ss["total"])
    assert list(res.means.index) == ["s3", "s2", "s1", "s0"] or res.means.is_monotonic_decreasing


def test_anova_equals_statsmodels_anovarm():
    anova = pytest.importorskip("statsmodels.stats.anova")
    x = table(5, n=18, means=(0.0, 0.1, 0.5, 0.2, 0.4))
    long = x.rename_axis("block").reset_index().melt("block", var_name="system", value_name="y")
    ref = anova.AnovaRM(long, "y", "block", within=["system"]).fit().anova_table
    res = repeated_measures_anova(x)
    assert res.statistic == pytest.approx(ref["F Value"].iloc[0], rel=1e-10)
    assert res.p_value == pytest.approx(ref["Pr > F"].iloc[0], rel=1e-8)
    assert res.df == (int(ref["Num DF"].iloc[0]), int(ref["Den DF"].iloc[0]))


def test_greenhouse_geisser_equals_eigenvalue_form():
    x = table(3, n=30, means=(0.0, 0.2, 0.4, 0.1, 0.3)).to_numpy().copy()
    x[:, 4] += np.random.default_rng(9).normal(0, 2.0, 30)  # break sphericity
    c = linalg.helmert(5)  # (k − 1) × k orthonormal contrasts
    eig = np.linalg.eigvalsh(c @ np.cov(x, rowvar=False) @ c.T)
    expected = eig.sum() ** 2 / (4 * (eig**2).sum())
    assert greenhouse_geisser(x) == pytest.approx(expected, rel=1e-10)
    assert 0.25 <= greenhouse_geisser(x) < 1.0


def test_tukey_independent_equals_scipy_tukey_hsd():
    x = table(4, n=20, means=(0.0, 0.2, 0.6, 0.65, 1.2))
    res = tukey_hsd(x, error="independent")
    ref = stats.tukey_hsd(*[x[c].to_numpy() for c in x.columns])
    ci = ref.confidence_interval(confidence_level=0.95)
    pos = {s: i for i, s in enumerate(x.columns)}
    for row in res.table.itertuples(index=False):
        i, j = pos[row.system_a], pos[row.system_b]
        assert row.p_value == pytest.approx(ref.pvalue[i, j], rel=1e-6, abs=1e-12)
        assert row.mean_difference == pytest.approx(ref.statistic[i, j], rel=1e-12)
        assert row.ci_low == pytest.approx(ci.low[i, j], rel=1e-6)
        assert row.ci_high == pytest.approx(ci.high[i, j], rel=1e-6)
    assert res.df == 5 * 19


def test_tukey_repeated_two_systems_is_the_paired_t_test():
    """k = 2: the studentized range of two means is √2 |t|; the ANOVA F is t²."""
    x = table(6, n=15, means=(0.0, 0.4))
    res = tukey_hsd(x)
    t = stats.ttest_rel(x["s1"], x["s0"])
    assert res.table["p_value"].iloc[0] == pytest.approx(t.pvalue, rel=1e-6)
    assert res.table["statistic"].iloc[0] == pytest.approx(np.sqrt(2) * abs(t.statistic))
    assert repeated_measures_anova(x).statistic == pytest.approx(t.statistic**2)


def test_tukey_repeated_is_textbook_and_more_powerful_on_paired_data():
    """Repeated error term: q = |Δmean| / √(MS_error / N) on (k − 1)(N − 1) df; with strong
    block effects it finds more differences than the one-way (independent) error term."""
    x = table(7, n=20, means=(0.0, 0.3, 0.6), block_sd=3.0)
    res = tukey_hsd(x)
    _, _, mse = textbook_anova(x.to_numpy())
    means = x.mean()
    for row in res.table.itertuples(index=False):
        q = abs(means[row.system_a] - means[row.system_b]) / np.sqrt(mse / 20)
        assert row.statistic == pytest.approx(q)
        assert row.p_value == pytest.approx(stats.studentized_range.sf(q, 3, 38), rel=1e-6)
    independent = tukey_hsd(x, error="independent")
    assert res.n_significant > independent.n_significant


def test_tukey_result_is_a_posthoc_result():
    x = table(8, n=30, means=(0.0, 0.0, 1.0, 1.0, 2.5), block_sd=0.5)
    res = tukey_hsd(x, alpha=0.05)
    assert isinstance(res, PosthocResult) and isinstance(res, TukeyResult)
    assert res.method == "tukey" and res.correction == "single-step"
    assert list(res.means.index) == ["s4", "s2", "s3", "s0", "s1"]  # by mean score
    assert res.groups() == [("s4",), ("s2", "s3"), ("s0", "s1")]
    m = res.matrix("significant")
    assert list(m.index) == list(res.means.index) and not m.loc["s1", "s0"] and m.loc["s4", "s3"]
    # significant ⇔ |Δmean| > HSD ⇔ the intervals mean ± HSD/2 do not overlap ⇔ p < α
    t = res.table
    assert ((t["mean_difference"].abs() > res.honest_difference) == t["significant"]).all()
    assert ((t["p_value"] < 0.05) == t["significant"]).all()
    assert ((t["ci_low"] > 0) == t["significant"]).all()
    assert set(t.columns) >= {"cohens_d", "akinshin_gamma", "cliffs_delta", "mean_rank_a"}
    ax = res.plot()
    assert len(ax.get_yticklabels()) == 5
    text = repr(res)
    assert "TukeyResult(5 systems, 30 blocks" in text and "HSD =" in text


def test_scores_input_matches_the_block_table():
    scores = rs.load_dataset("xtreme")
    blocks = rank_blocks(scores)
    res = repeated_measures_anova(scores)
    frame = pd.DataFrame(blocks.values, columns=list(blocks.systems))
    assert res.statistic == pytest.approx(repeated_measures_anova(frame).statistic)
    assert res.blocks.by == "task" and "task blocks" in repr(res)


def test_errors_name_the_block_and_the_system():
    x = table(0, n=6)
    x.iloc[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"block 2 has no score for s1"):
        repeated_measures_anova(x)
    dropped = repeated_measures_anova(x, missing="complete-case")
    assert dropped.n_blocks == 5 and "1 of 6 blocks dropped" in repr(dropped)
    bad = table(0, n=6).astype(object)
    bad.iloc[3, 2] = "n/a"
    with pytest.raises(ValueError, match=r"system 's2' has a non-numeric score in block 3"):
        score_blocks(bad)
    with pytest.raises(ValueError, match="error must be one of"):
        tukey_hsd(table(), error="paired")
    with pytest.raises(TypeError, match="need scores"):
        repeated_measures_anova(rs.Rankings.from_scores(rs.load_dataset("xtreme"), by="task"))
    with pytest.raises(ValueError, match="missing='imputed' is not available for the tests on"):
        repeated_measures_anova(rs.load_dataset("xtreme_missing"), missing="imputed")
    with pytest.raises(ValueError, match="at least 2 complete blocks"):
        repeated_measures_anova(table(0, n=1))


def test_constant_differences():
    """Every block shifts all systems alike: no error variance, F infinite, p 0."""
    base = np.arange(6.0)[:, None]
    x = pd.DataFrame(base + np.array([0.0, 1.0, 3.0]), columns=list("abc"))
    res = repeated_measures_anova(x)
    assert res.statistic == np.inf and res.p_value == 0.0
    assert tukey_hsd(x).n_significant == 3
