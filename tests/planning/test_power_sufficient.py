"""Power on sufficient statistics (rankstats.planning.sufficient) against the engine that draws
every score, against exact power, and against the draws it replaces."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

import rankstats as rs
from rankstats.paired_analysis.paired_tests import paired_t_from_moments, paired_t_p_values
from rankstats.planning.analytic import mcnemar_exact_power, paired_t_power, sign_test_power
from rankstats.planning.design import BenchmarkDesign
from rankstats.planning.power_result import power_tables
from rankstats.planning.replications import simulate_tests
from rankstats.planning.sufficient import (
    _wilcoxon_on_counts,
    plackett_luce_log_probabilities,
    sufficient_path,
)

R = 2000


def _engine(design: BenchmarkDesign, test: str, seed: int = 11, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = simulate_tests(
            design, (test,), n_replications=R, seed=seed, progress=False, n_jobs=1, **kw
        )
    return power_tables(rep, None)


def _close(a: float, a_se: float, b: float, b_se: float) -> bool:
    """Within 4 standard errors of the difference (a floor of 1/R for rates at 0 or 1)."""
    return abs(a - b) <= 4 * max(np.hypot(a_se, b_se), 1.0 / R)


CASES = [
    ("mcnemar", BenchmarkDesign.from_accuracies([0.70, 0.75], agreement=0.8, n_instances=150)),
    (
        "sign",
        BenchmarkDesign.from_accuracies([0.60, 0.65], agreement=0.7, n_instances=60, identical=0.3),
    ),
    ("sign", BenchmarkDesign(n_systems=2, n_instances=60, phi=0.3, identical=0.25)),
    ("sign", BenchmarkDesign.from_swap_effects(1.0, zeros=0.13, spread=25.8, n_instances=300)),
    (
        "sign",
        BenchmarkDesign(n_systems=2, n_instances=40, noise="normal", correlation=0.5, phi=0.2),
    ),
    ("sign", BenchmarkDesign(n_systems=4, n_tasks=2, n_instances=40, locations=(0, 0.2, 0.2, 0.5))),
    ("friedman", BenchmarkDesign(n_systems=4, n_instances=30, phi=0.1, identical=0.1)),
    ("friedman", BenchmarkDesign(n_systems=2, n_instances=40, phi=0.3)),
    (
        "t",
        BenchmarkDesign(
            n_systems=3,
            n_instances=25,
            noise="normal",
            correlation=0.4,
            scales=(1.0, 0.5, 2.0),
            locations=(0.0, 0.2, 0.5),
        ),
    ),
    ("t", BenchmarkDesign(n_systems=2, n_tasks=2, n_instances=5, noise="normal", phi=0.6)),
]


@pytest.mark.parametrize(("test", "design"), CASES)
def test_the_sufficient_statistic_agrees_with_the_engine(test: str, design) -> None:
    fast = rs.power(design, tests=test, n_replications=R, progress=False, seed=5)
    assert fast.method != "scores"
    summary, pairs, recovery = _engine(design, test)
    for target in ("adjacent", "all_adjacent", "all_pairs", "omnibus", "false_claims"):
        a, b = fast.summary.loc[test, target], summary.loc[test, target]
        if np.isnan(b):
            assert np.isnan(a), target
            continue
        a_se, b_se = fast.summary.loc[test, f"{target}_se"], summary.loc[test, f"{target}_se"]
        assert _close(a, a_se, b, b_se), (target, a, b)
    if test != "friedman":
        mine = fast.pairs.set_index(["system_a", "system_b"])
        theirs = pairs.set_index(["system_a", "system_b"])
        for key, row in mine.iterrows():
            other = theirs.loc[key]
            assert _close(row["power"], row["power_se"], other["power"], other["power_se"])
            scale = max(abs(other["true_effect"]), 1e-3)
            assert abs(row["true_effect"] - other["true_effect"]) < 0.1 * scale + 0.01
    assert set(fast.recovery.index) <= set(recovery.index)
    for aggregator, row in fast.recovery.iterrows():
        other = recovery.loc[aggregator]
        for column in ("kendall_tau", "top1"):
            a_se, b_se = row[f"{column}_se"], other[f"{column}_se"]
            assert _close(row[column], a_se, other[column], b_se), (aggregator, column)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("n", [12, 80])
def test_wilcoxon_of_binary_outcomes_agrees_with_the_engine(zero_method: str, n: int) -> None:
    design = BenchmarkDesign.from_accuracies([0.55, 0.75], agreement=0.7, n_instances=n)
    fast = rs.power(
        design, tests="wilcoxon", zero_method=zero_method, n_replications=R, progress=False
    )
    assert fast.method == "discordant counts" and fast.zero_method == zero_method
    summary, _, _ = _engine(design, "wilcoxon", zero_method=zero_method)
    a, a_se = fast.power_of("wilcoxon")
    assert _close(
        a, a_se, summary.loc["wilcoxon", "adjacent"], summary.loc["wilcoxon", "adjacent_se"]
    )


def test_wilcoxon_p_values_of_counts_are_scipy_s() -> None:
    triples = np.array([[3, 1, 8], [5, 0, 9], [7, 4, 30], [2, 2, 4], [20, 9, 60]])
    for zero_method in ("wilcox", "pratt", "zsplit"):
        p = _wilcoxon_on_counts(triples[:, 0], triples[:, 1], triples[:, 2], zero_method)[:, 0]
        for (pos, neg, n), value in zip(triples, p, strict=True):
            d = np.r_[np.ones(pos), -np.ones(neg), np.zeros(n - pos - neg)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = stats.wilcoxon(d, zero_method=zero_method).pvalue
            assert value == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    ("acc", "agreement", "n", "identical"),
    [([0.80, 0.82], 0.975, 500, 0.0), ([0.6, 0.7], 0.6, 120, 0.0), ([0.6, 0.7], 0.6, 120, 0.4)],
)
def test_mcnemar_power_is_the_exact_sum_over_the_rejection_region(
    acc, agreement, n, identical
) -> None:
    design = BenchmarkDesign.from_accuracies(
        acc, agreement=agreement, n_instances=n, identical=identical
    )
    res = rs.power(design, tests="mcnemar", n_replications=20_000, progress=False)
    p10, p01 = design.discordance("sys02", "sys01")
    exact = float(mcnemar_exact_power(p10 * (1 - identical), p01 * (1 - identical), n))
    p, se = res.power_of("mcnemar")
    assert abs(p - exact) <= 4 * se


@pytest.mark.parametrize(
    "design",
    [
        BenchmarkDesign(n_systems=2, n_instances=80, phi=0.35),
        BenchmarkDesign(n_systems=2, n_instances=80, phi=0.35, identical=0.3),
        BenchmarkDesign(n_systems=2, n_instances=50, noise="laplace", phi=0.4),
    ],
)
def test_sign_power_is_the_exact_binomial_sum(design) -> None:
    res = rs.power(design, tests="sign", n_replications=20_000, progress=False)
    assert res.method == "win counts"
    win, lose = (design.win_probability(*s) for s in (("sys02", "sys01"), ("sys01", "sys02")))
    exact = float(mcnemar_exact_power(win, lose, design.n_instances))  # ties: identical outputs
    if not design.identical:
        assert exact == pytest.approx(float(sign_test_power(win, design.n_instances)), abs=1e-12)
    p, se = res.power_of("sign")
    assert abs(p - exact) <= 4 * se


@pytest.mark.parametrize(("gap", "n"), [(0.3, 30), (0.6, 12)])
def test_paired_t_power_is_the_noncentral_t(gap: float, n: int) -> None:
    design = BenchmarkDesign(n_systems=2, n_instances=n, noise="normal", correlation=0.3, phi=gap)
    res = rs.power(design, tests="t", n_replications=20_000, progress=False)
    assert res.method == "normal moments"
    effect = gap / np.sqrt(2 * (1 - 0.3))
    exact = float(paired_t_power(effect, n))
    p, se = res.power_of("t")
    assert abs(p - exact) <= 4 * se


def test_the_paired_t_test_of_moments_is_the_one_of_the_differences() -> None:
    d = np.random.default_rng(1).normal(0.2, 1.0, size=(15, 40))
    d[:3, :5] = np.nan
    mean, p = paired_t_p_values(d)
    n = (~np.isnan(d)).sum(axis=0)
    sd = np.nanstd(d, axis=0, ddof=1)
    assert np.allclose(paired_t_from_moments(mean, sd, n), p, rtol=1e-12)
    expected = [stats.ttest_1samp(c[~np.isnan(c)], 0.0).pvalue for c in d.T]
    assert np.allclose(p, expected, rtol=1e-10)


def test_plackett_luce_probabilities_are_those_of_gumbel_maxima() -> None:
    lam = np.array([0.3, -0.2, 0.9, 0.0])
    orders = np.array(list(itertools.permutations(range(4))))
    p = np.exp(plackett_luce_log_probabilities(lam, orders))
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    w = np.exp(lam)
    by_hand = [np.prod([w[o[k]] / w[list(o[k:])].sum() for k in range(4)]) for o in orders]
    assert np.allclose(p, by_hand, rtol=1e-12)
    draws = 200_000
    keys = lam + np.random.default_rng(0).gumbel(size=(draws, 4))
    seen = np.argsort(-keys, axis=1)
    codes = seen @ (4 ** np.arange(4))
    freq = np.array([(codes == o @ (4 ** np.arange(4))).mean() for o in orders])
    assert np.all(np.abs(freq - p) <= 4.5 * np.sqrt(p * (1 - p) / draws))


@pytest.mark.parametrize(
    ("design", "tests", "level", "path"),
    [
        (BenchmarkDesign(n_systems=2), ("sign",), "instance", "win counts"),
        (BenchmarkDesign(n_systems=5), ("sign",), "instance", "ranking counts"),
        (BenchmarkDesign(n_systems=7), ("sign",), "instance", None),
        (BenchmarkDesign(n_systems=5), ("sign", "friedman"), "instance", None),
        (BenchmarkDesign(n_systems=5, n_tasks=3), ("friedman",), "task", None),
        (BenchmarkDesign(n_systems=5, n_tasks=3), ("friedman",), "instance", "ranking counts"),
        (BenchmarkDesign(n_systems=2, missing_rate=0.1), ("sign",), "instance", None),
        (BenchmarkDesign(n_systems=2, round_to=1), ("sign",), "instance", None),
        (BenchmarkDesign(n_systems=2, outliers=(0.1, 3.0)), ("sign",), "instance", None),
        (BenchmarkDesign(n_systems=3, noise="normal"), ("sign",), "instance", None),
        (BenchmarkDesign(n_systems=3, noise="normal"), ("t",), "instance", "normal moments"),
        (BenchmarkDesign(n_systems=3, noise="normal", identical=0.1), ("t",), "instance", None),
        (BenchmarkDesign(n_systems=3, noise="normal", n_instances=3), ("t",), "instance", None),
        (BenchmarkDesign(n_systems=2, noise="laplace"), ("t",), "instance", None),
        (BenchmarkDesign(n_systems=2), ("wilcoxon",), "instance", None),
        (BenchmarkDesign(n_systems=2), ("hoeffding",), "instance", None),
        (
            BenchmarkDesign.from_accuracies([0.7, 0.8]),
            ("wilcoxon",),
            "instance",
            "discordant counts",
        ),
        (BenchmarkDesign.from_accuracies([0.7, 0.8, 0.9]), ("mcnemar",), "instance", None),
    ],
)
def test_the_path_is_taken_only_for_its_designs(design, tests, level, path) -> None:
    assert sufficient_path(design, tests, level) == path


def test_the_result_says_which_path_ran_and_what_it_did_not_measure() -> None:
    fast = rs.power(n_systems=3, n_instances=50, tests="sign", n_replications=50, progress=False)
    assert fast.method == "ranking counts" and "sufficient statistic" in repr(fast)
    assert list(fast.recovery.index) == ["borda"]
    assert "recovery of the true order measured for borda only" in repr(fast)
    assert not fast.notes  # the methods sentence is about power
    with pytest.raises(ValueError, match="does not apply"):
        fast.power_of("sign", "mean_top1")
    full = rs.power(
        n_systems=3, n_instances=50, tests=["sign", "t"], n_replications=50, progress=False
    )
    assert full.method == "scores" and not full.notes
    again = rs.power(n_systems=3, n_instances=50, tests="sign", n_replications=50, progress=False)
    assert again.summary.equals(fast.summary)  # same seed, same numbers


def test_a_recovery_target_the_statistic_does_not_determine_runs_the_engine() -> None:
    common = dict(n_systems=3, phi=0.3, test="sign", sizes=[10, 40], refine=0, progress=False)
    by_mean = rs.sample_size(target="mean_top1", n_replications=100, **common)
    assert {r.method for r in by_mean.results} == {"scores"}
    by_borda = rs.sample_size(target="borda_top1", n_replications=100, **common)
    assert {r.method for r in by_borda.results} == {"ranking counts"}
    plain = rs.power(
        n_systems=3, n_instances=10, phi=0.3, tests="sign", n_replications=50, progress=False
    )
    assert plain.method == "ranking counts"  # the context of the curve is gone
