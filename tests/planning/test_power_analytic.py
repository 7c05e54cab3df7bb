"""Analytic / exact power of the paired tests (rankstats.planning.analytic), issue 26.

Every value is checked against something computed another way: a seeded Monte Carlo
simulation of the test itself (scipy.stats.ttest_1samp, scipy.stats.binomtest), a numerical
integral over the chi-square distribution (not the noncentral t), an enumeration of the outcomes
with binomtest's p-values, and the textbook d = 0.5 → 34 pairs.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from scipy import integrate, stats

import rankstats as rs
from rankstats.planning.analytic import (
    hoeffding_pair_power,
    hoeffding_size,
    mcnemar_exact_power,
    minimum_detectable_effect,
    paired_t_power,
    paired_t_sample_size,
    sign_test_power,
    sign_test_sample_size,
)

REPS = 20_000


def _within_mc(exact: float, hits: np.ndarray) -> None:
    """The simulated rejection rate lies within 4 Monte Carlo standard errors of ``exact``."""
    se = np.sqrt(exact * (1 - exact) / hits.size)
    assert abs(hits.mean() - exact) <= 4 * se + 1e-12, (hits.mean(), exact, se)


@cache
def _binomtest_pvalues(n: int) -> np.ndarray:
    """scipy's two-sided exact binomial p-value (p = ½) of every win count 0..n (cached: the
    enumeration tests share them)."""
    return np.array([stats.binomtest(k, n, 0.5).pvalue for k in range(n + 1)])


# --- paired t-test ---------------------------------------------------------------------------


@pytest.mark.parametrize(("effect", "n"), [(0.5, 34), (0.3, 20), (0.8, 10), (-0.4, 15)])
def test_paired_t_power_matches_a_simulation_of_the_t_test(effect, n):
    rng = np.random.default_rng(26)
    differences = rng.normal(effect, 1.0, size=(REPS, n))
    hits = stats.ttest_1samp(differences, 0.0, axis=1).pvalue <= 0.05
    _within_mc(float(paired_t_power(effect, n)), hits)


@pytest.mark.parametrize(("effect", "n", "alpha"), [(0.5, 34, 0.05), (0.2, 7, 0.1), (1.5, 3, 0.01)])
def test_paired_t_power_matches_an_integral_over_the_variance(effect, n, alpha):
    # T = (Z + delta) / sqrt(V / df), V ~ chi2(df): integrate the normal tail over V.
    df, delta = n - 1, effect * np.sqrt(n)
    crit = stats.t.ppf(1 - alpha / 2, df)

    def rejects(v: float) -> float:
        c = crit * np.sqrt(v / df)
        return (stats.norm.sf(c - delta) + stats.norm.cdf(-c - delta)) * stats.chi2.pdf(v, df)

    expected, _ = integrate.quad(rejects, 0, np.inf, epsabs=1e-12, limit=200)
    assert paired_t_power(effect, n, alpha) == pytest.approx(expected, abs=1e-8)


def test_paired_t_size_is_exactly_alpha():
    sizes = np.arange(2, 200)
    for alpha in (0.01, 0.05, 0.2):
        np.testing.assert_allclose(paired_t_power(0.0, sizes, alpha), alpha, rtol=0, atol=1e-12)


def test_cohens_d_half_needs_34_pairs():
    # Cohen (1988), ch. 2: a paired (one-sample) two-sided t-test at alpha = .05 needs n = 34
    # for power .80 at d = 0.5. The exact noncentral-t power is 0.8078 at 34, 0.7954 at 33.
    assert paired_t_power(0.5, 34) == pytest.approx(0.8078, abs=5e-4)
    assert paired_t_power(0.5, 33) < 0.8 <= paired_t_power(0.5, 34)
    assert paired_t_sample_size(0.5, 0.8) == 34
    assert paired_t_sample_size(-0.5, 0.8, 0.05) == 34


def test_paired_t_sample_size_is_the_first_n_reaching_the_power():
    effects = np.array([0.05, 0.2, 0.35, 0.8, 1.2, 3.0])
    for power, alpha in ((0.8, 0.05), (0.9, 0.01)):
        n = paired_t_sample_size(effects, power, alpha)
        assert n.shape == effects.shape
        assert np.all(paired_t_power(effects, n, alpha) >= power)
        below = n > 2
        assert np.all(paired_t_power(effects[below], n[below] - 1, alpha) < power)


def test_paired_t_power_increases_with_n_and_effect():
    by_n = paired_t_power(0.3, np.arange(2, 400))
    assert np.all(np.diff(by_n) > 0)
    by_effect = paired_t_power(np.linspace(0, 3, 200), 12)
    assert np.all(np.diff(by_effect) > 0)
    # Symmetric in the sign of the effect, and broadcast.
    grid = paired_t_power(np.array([[-0.4], [0.4]]), np.array([5, 50]))
    assert grid.shape == (2, 2)
    np.testing.assert_allclose(grid[0], grid[1])


def test_minimum_detectable_effect_inverts_the_power():
    sizes = np.array([2, 3, 10, 33, 34, 500])
    mde = minimum_detectable_effect(sizes, 0.8)
    np.testing.assert_allclose(paired_t_power(mde, sizes), 0.8, atol=1e-9)
    assert np.all(np.diff(mde) < 0)
    # Consistent with the sample size: d = 0.5 is detectable with 34 pairs, not with 33.
    assert mde[3] > 0.5 >= mde[4]


# --- exact sign test -------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
@pytest.mark.parametrize("p_win", [0.5, 0.65, 0.8, 0.1])
def test_sign_test_power_matches_an_enumeration_with_binomtest(p_win, alpha):
    sizes = np.arange(2, 61)
    expected = [
        np.sum(stats.binom.pmf(np.arange(n + 1), n, p_win) * (_binomtest_pvalues(n) <= alpha))
        for n in sizes
    ]
    np.testing.assert_allclose(sign_test_power(p_win, sizes, alpha), expected, atol=1e-12)


@pytest.mark.parametrize(("p_win", "n"), [(0.65, 40), (0.7, 25), (0.6, 100), (0.3, 30)])
def test_sign_test_power_matches_a_simulation_of_the_sign_test(p_win, n):
    rng = np.random.default_rng(126)
    wins = (rng.random((REPS, n)) < p_win).sum(axis=1)  # pair by pair, not a binomial draw
    hits = _binomtest_pvalues(n)[wins] <= 0.05
    _within_mc(float(sign_test_power(p_win, n)), hits)


def test_sign_and_mcnemar_tests_are_conservative():
    sizes = np.arange(2, 400)
    size = sign_test_power(0.5, sizes)
    assert np.all(size <= 0.05)
    assert size.max() > 0.04  # not degenerate: the level is nearly reached for some n
    assert np.all(size[:4] == 0)  # n <= 5: even 0 or n wins have p = 2 / 2**n > .05
    assert np.all(mcnemar_exact_power([0.1, 0.3, 0.5], [0.1, 0.3, 0.5], 80) <= 0.05)


def test_sign_test_power_is_a_saw_tooth():
    # Why sign_test_sample_size needs a definition: the power drops as n grows by one.
    power = sign_test_power(0.7, np.arange(2, 200))
    assert np.any(np.diff(power) < -0.02)


@pytest.mark.parametrize("p_win", [0.6, 0.7, 0.25, 0.9])
def test_sign_test_sample_size_is_where_the_power_stays_above_the_target(p_win):
    max_n = 3000
    n = int(sign_test_sample_size(p_win, 0.8, 0.05, max_n=max_n))
    power = sign_test_power(p_win, np.arange(2, max_n + 1))
    assert np.all(power[n - 2 :] >= 0.8)
    if n > 2:
        assert power[n - 3] < 0.8
    first = 2 + int(np.argmax(power >= 0.8))
    assert first <= n


def test_sign_test_sample_size_can_exceed_the_first_n_reaching_the_target():
    power = sign_test_power(0.7, np.arange(2, 100))
    first = 2 + int(np.argmax(power >= 0.8))
    assert (first, int(sign_test_sample_size(0.7, 0.8))) == (49, 54)
    np.testing.assert_array_equal(sign_test_sample_size([[0.7], [0.3]], 0.8), [[54], [54]])


# --- exact McNemar test ----------------------------------------------------------------------


@pytest.mark.parametrize(("p10", "p01", "n"), [(0.3, 0.1, 15), (0.05, 0.25, 25), (0.2, 0.2, 20)])
def test_mcnemar_power_matches_an_enumeration_of_the_table(p10, p01, n):
    # Every 2 x 2 table's discordant cells (b, c), trinomial probability, binomtest decision.
    expected = 0.0
    for b in range(n + 1):
        for c in range(n + 1 - b):
            prob = stats.multinomial.pmf([b, c, n - b - c], n, [p10, p01, 1 - p10 - p01])
            if b + c > 0 and stats.binomtest(b, b + c, 0.5).pvalue <= 0.05:
                expected += prob
    assert mcnemar_exact_power(p10, p01, n) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("p10", "p01", "n"), [(0.25, 0.1, 60), (0.1, 0.02, 150)])
def test_mcnemar_power_matches_a_simulation_of_the_test(p10, p01, n):
    rng = np.random.default_rng(226)
    cells = rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=REPS)
    b, m = cells[:, 0], cells[:, 0] + cells[:, 1]
    pairs, where = np.unique(np.stack([b, m]), axis=1, return_inverse=True)
    pvalues = np.array([stats.binomtest(k, t, 0.5).pvalue if t else 1.0 for k, t in pairs.T])
    hits = pvalues[where.ravel()] <= 0.05
    _within_mc(float(mcnemar_exact_power(p10, p01, n)), hits)


def test_mcnemar_edge_cases():
    sizes = np.arange(2, 50)
    # Every pair discordant: the sign test on n pairs; none discordant: never rejects.
    np.testing.assert_allclose(mcnemar_exact_power(0.7, 0.3, sizes), sign_test_power(0.7, sizes))
    assert mcnemar_exact_power(0.0, 0.0, 30) == 0
    assert mcnemar_exact_power(np.array([0.2, 0.3]), 0.05, np.array([[10], [40]])).shape == (2, 2)


# --- arguments -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: paired_t_power(0.5, 1), "n"),
        (lambda: paired_t_power(0.5, 10.5), "n"),
        (lambda: paired_t_power(0.5, [10, np.nan]), "n"),
        (lambda: paired_t_power(0.5, "10"), "n"),
        (lambda: paired_t_power(np.inf, 10), "effect"),
        (lambda: paired_t_power(0.5, 10, alpha=0), "alpha"),
        (lambda: paired_t_power(0.5, 10, alpha=1.5), "alpha"),
        (lambda: sign_test_power(1.2, 10), "p_win"),
        (lambda: sign_test_power(-0.1, 10), "p_win"),
        (lambda: sign_test_power(0.6, 0), "n"),
        (lambda: mcnemar_exact_power(0.6, 0.5, 10), "p10 \\+ p01"),
        (lambda: mcnemar_exact_power(0.2, np.nan, 10), "p01"),
        (lambda: mcnemar_exact_power(-0.2, 0.1, 10), "p10"),
        (lambda: paired_t_sample_size(0.5, power=1.0), "power"),
        (lambda: paired_t_sample_size(0.5, power=0), "power"),
        (lambda: paired_t_sample_size(0.0), "effect"),
        (lambda: sign_test_sample_size(0.5), "p_win"),
        (lambda: sign_test_sample_size(0.55, max_n=50), "max_n"),
        (lambda: sign_test_sample_size(0.7, 0.8, alpha=-1), "alpha"),
        (lambda: minimum_detectable_effect(1), "n"),
        (lambda: minimum_detectable_effect(10, power=0.01), "power"),
    ],
)
def test_bad_arguments_are_refused(call, name):
    with pytest.raises(ValueError, match=f"^{name}"):
        call()


# --- the Hoeffding decision -------------------------------------------------------------------


@pytest.mark.parametrize("n", [5, 30, 80, 401])
@pytest.mark.parametrize("p_win", [0.5, 0.6, 0.8])
def test_hoeffding_power_is_the_binomial_sum_over_its_region(p_win, n):
    k = np.arange(n + 1)
    region = 2 * np.exp(-2 * n * (k / n - 0.5) ** 2) < 0.05  # the decision, written out
    expected = stats.binom.pmf(k, n, p_win)[region].sum()
    assert hoeffding_pair_power(p_win, n) == pytest.approx(expected, abs=1e-12)


def test_hoeffding_size_is_far_below_its_guarantee():
    sizes = hoeffding_size(np.array([10, 100, 1000, 10_000, 1_000_000]))
    assert np.all(sizes <= 0.05)
    # The normal limit of |K/n − ½| > √(log(2/α)/(2n)): 2Φ(−√(2 log(2/α))).
    limit = 2 * stats.norm.sf(np.sqrt(2 * np.log(2 / 0.05)))
    assert limit == pytest.approx(0.0066, abs=1e-4)
    assert sizes[-1] == pytest.approx(limit, rel=0.02)


def test_the_simulated_hoeffding_size_is_its_own_size():
    design = rs.BenchmarkDesign(n_systems=2, n_instances=200, locations=(0.0, 0.0))
    res = rs.power(
        design, tests="hoeffding", pair=("sys02", "sys01"), n_replications=20_000, progress=False
    )
    size = float(hoeffding_size(200))
    rate = res.power_of("hoeffding", "pair")[0]
    assert abs(rate - size) <= 4 * np.sqrt(size * (1 - size) / 20_000), (rate, size)
