"""The automatic choice of test (rankstats.significance.which_test) against autorank's decisions.

autorank is not a test dependency: its outputs below were observed with autorank 1.3.0 (numpy
2.4.6, scipy 1.17.1, pandas 3.1.1, statsmodels 0.15.0) by running
``autorank.autorank(frame, alpha=0.05)`` on exactly the frames :func:`frames` builds;
tests/benchmarks/bench_significance.py repeats the comparison live in the benchmark environment.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.significance.parametric import TukeyResult
from rankstats.significance.posthoc_result import PosthocResult
from rankstats.significance.which_test import ChoiceResult, choose_test, magnitude


def frames() -> dict[str, pd.DataFrame]:
    """Four seeded data sets: normal, non-normal, normal but heteroscedastic, normal null."""
    out = {}
    rng = np.random.default_rng(20240601)
    out["normal"] = rng.normal([0.60, 0.62, 0.70, 0.71], 0.05, (30, 4))
    rng = np.random.default_rng(20240602)
    out["lognormal"] = rng.lognormal([0.0, 0.1, 0.5, 0.6], 0.8, (30, 4))
    rng = np.random.default_rng(20240603)
    out["heteroscedastic"] = rng.normal([0.60, 0.62, 0.70, 0.71], [0.01, 0.03, 0.08, 0.12], (30, 4))
    rng = np.random.default_rng(20240604)
    out["normal_null"] = rng.normal(0.5, 0.1, (20, 5))
    return {k: pd.DataFrame(v, columns=list("abcde")[: v.shape[1]]) for k, v in out.items()}


# autorank 1.3.0 on frames(): omnibus, posthoc, pvalue, all_normal, homogeneity_test,
# pval_homogeneity, effect_size, effect sizes of pairs (x, y) (autorank's _cohen_d(x, y) or
# _akinshin_gamma(x, y)) and the critical difference.
AUTORANK = {
    "normal": dict(
        omnibus="anova",
        pvalue=7.561801463963744e-18,
        all_normal=True,
        test="bartlett",
        p_homo=0.4243286153083885,
        effect="cohens_d",
        shapiro={"a": 0.48876241494467376, "b": 0.9331329592612841, "c": 0.2199400730908524},
        pairs={("a", "b"): -0.8863156210612907, ("a", "c"): -2.660006458179709,
               ("b", "d"): -1.515914229217444, ("d", "c"): -0.2885584372716527},
    ),
    "lognormal": dict(
        omnibus="friedman",
        pvalue=5.814427014277442e-05,
        all_normal=False,
        test="levene",
        p_homo=0.001536109343447684,
        effect="akinshin_gamma",
        shapiro={"a": 0.3861074461097883, "b": 0.00015493156084154267, "d": 8.576395885668149e-06},
        pairs={("a", "b"): -0.6178064896267058, ("a", "d"): -0.816014416579155,
               ("b", "c"): -0.2607219293696131, ("c", "d"): -0.008680528594898134},
        cd=0.856338536493276,
    ),
    "heteroscedastic": dict(
        omnibus="friedman",
        pvalue=6.909086358645852e-05,
        all_normal=True,
        test="bartlett",
        p_homo=1.4010722457761364e-28,
        effect="cohens_d",
        shapiro={"a": 0.37369879676914075, "c": 0.9935272309325994},
        pairs={("a", "b"): -0.9107299155510851, ("a", "c"): -1.5439661583617714,
               ("d", "c"): -0.3304000497297466},
        cd=0.856338536493276,
    ),
    "normal_null": dict(
        omnibus="anova",
        pvalue=0.8404286705510748,
        all_normal=True,
        test="bartlett",
        p_homo=0.13287477307405363,
        effect="cohens_d",
        shapiro={},  # autorank 1.3.0 mislabels these when it reorders (see the benchmark)
        pairs={("c", "e"): 0.137302002561981, ("c", "a"): -0.22925237073729735},
    ),
}  # fmt: skip


def pair_effect(res: ChoiceResult, x: str, y: str) -> float:
    """Effect size of x against y from the post-hoc table (its rows are oriented best first)."""
    table = res.posthoc.table
    column = res.effect_size
    hit = table[(table["system_a"] == x) & (table["system_b"] == y)]
    if len(hit):
        return float(hit[column].iloc[0])
    hit = table[(table["system_a"] == y) & (table["system_b"] == x)]
    return -float(hit[column].iloc[0])


@pytest.mark.parametrize("name", list(AUTORANK))
def test_decision_equals_autorank(name):
    ref = AUTORANK[name]
    res = choose_test(frames()[name])
    assert isinstance(res, ChoiceResult) and isinstance(res.posthoc, PosthocResult)
    assert res.decision == ("anova-tukey" if ref["omnibus"] == "anova" else "friedman-nemenyi")
    assert res.p_value == pytest.approx(ref["pvalue"], rel=1e-9)
    assert res.all_normal == ref["all_normal"]
    assert res.homoscedasticity_test == ref["test"]
    assert res.homoscedasticity_p == pytest.approx(ref["p_homo"], rel=1e-9)
    assert res.effect_size == ref["effect"]
    assert res.alpha_normality == pytest.approx(0.05 / res.n_systems)
    for system, p in ref["shapiro"].items():
        # scipy's Shapiro–Wilk p-values moved by ~1e-8 between scipy 1.17 and 1.18.
        assert res.normality[system] == pytest.approx(p, rel=1e-6)
    for (x, y), value in ref["pairs"].items():
        assert pair_effect(res, x, y) == pytest.approx(value, rel=1e-9)
    if "cd" in ref:
        # autorank's q_α comes from statsmodels' qsturng (interpolated tables), rankstats' from
        # scipy.stats.studentized_range (numerical integration): they agree to 1e-5.
        assert res.posthoc.critical_difference == pytest.approx(ref["cd"], rel=1e-5)
    else:
        assert isinstance(res.posthoc, TukeyResult)


def test_summary_magnitudes_and_explanation():
    res = choose_test(frames()["normal"])
    s = res.summary
    assert list(s.columns) == [
        "system", "mean_rank", "mean", "std", "median", "mad",
        "effect_size", "magnitude", "effect_size_above", "magnitude_above",
    ]  # fmt: skip
    assert s["mean_rank"].is_monotonic_increasing and s["effect_size"].iloc[0] == 0.0
    assert (s["magnitude"] == magnitude(s["effect_size"], "cohens_d")).all()
    text = res.explanation
    for phrase in ("4 systems with 30 paired samples", "Shapiro–Wilk", "Bartlett's test",
                   "repeated-measures ANOVA", "Tukey's HSD", "We reject"):  # fmt: skip
        assert phrase in text
    assert "\n" not in text
    assert "anova-tukey" not in repr(res) and "ANOVA + Tukey HSD" in repr(res)
    other = choose_test(frames()["lognormal"])
    assert "Levene's test" in other.explanation and "CD = 0.856" in other.explanation


@pytest.mark.parametrize("method", ["cohens_d", "akinshin_gamma", "cliffs_delta"])
def test_summary_without_pair_effect_sizes_is_the_same(method):
    x = frames()["lognormal"]
    full = choose_test(x, effect_size=method)
    lean = choose_test(x, effect_size=method, effect_sizes=False)
    assert lean.posthoc.table["cohens_d"].isna().all()
    pd.testing.assert_frame_equal(full.summary, lean.summary, rtol=1e-12)


def test_magnitude_thresholds():
    assert magnitude([0.19, 0.2, 0.49, 0.5, 0.79, 0.8, np.nan]).tolist() == [
        "negligible", "small", "small", "medium", "medium", "large", "undefined",
    ]  # fmt: skip
    assert magnitude([0.146, 0.147, 0.33, 0.474], "cliff_delta").tolist() == [
        "negligible", "small", "medium", "large",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="method must be one of"):
        magnitude(0.1, "eta")


def test_force_and_effect_size_options():
    x = frames()["lognormal"]
    forced = choose_test(x, force="parametric", effect_size="cliff_delta")
    assert forced.decision == "anova-tukey" and forced.forced == "parametric"
    assert forced.effect_size == "cliffs_delta"
    assert "forced the parametric tests" in forced.explanation
    assert not forced.all_normal  # the checks are still reported
    plain = choose_test(frames()["normal"], force="nonparametric")
    assert plain.decision == "friedman-nemenyi" and plain.posthoc.method == "nemenyi"
    independent = choose_test(frames()["normal"], tukey_error="independent")
    assert independent.posthoc.error == "independent"


def test_scores_input_and_errors():
    res = choose_test(rs.load_dataset("superglue"))
    assert res.n_blocks == 14 and res.n_systems == 24 and res.blocks.by == "task"
    with pytest.raises(ValueError, match="at least 5 complete blocks"):
        choose_test(rs.load_dataset("xtreme"))
    with pytest.raises(ValueError, match=r"at least 3 systems, got 2 \(a, b\)"):
        choose_test(frames()["normal"][["a", "b"]])
    x = frames()["normal"].copy()
    x.iloc[4, 2] = np.nan
    with pytest.raises(ValueError, match="block 4 has no score for c"):
        choose_test(x)
    assert choose_test(x, missing="complete-case").n_blocks == 29
    with pytest.raises(ValueError, match="force must be"):
        choose_test(x, force="bayesian")
    with pytest.raises(ValueError, match="effect_size must be one of"):
        choose_test(x, effect_size="eta")
