"""Card et al. (2020, "With little power comes great responsibility"): accuracy and BLEU settings.

Two classifiers are right or wrong on the same n test items; the 2 × 2 table of paired outcomes
follows from the accuracies and the agreement, and the exact McNemar test (statsmodels'
``mcnemar``, exact, two-sided, α = 0.05) counts as a success when p ≤ α with the right sign. The
values printed in their notebooks (``notebooks_for_power_calculations/accuracy.ipynb`` and
``code_for_figures/Figure 01.ipynb`` of github.com/dallascard/NLP-power-analysis, commit
a3f63b5) are reproduced by simulation within the Monte Carlo error of both simulations, and
against the exact power summed here.

Their machine-translation setting (``notebooks_for_power_calculations/BLEU.ipynb``): per-sentence
swap effects, 0 with probability P0 = 0.13 and otherwise Laplace (b0 = 25.8), N = 2,000
sentences, a true difference of 1 BLEU point, a paired randomisation test: printed power 0.756
(500 simulated test sets). ``BenchmarkDesign.from_swap_effects`` is that model; the paired t-test
on its differences is the large-sample form of their test.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, optimize, stats

import rankstats as rs
from rankstats.planning.accuracy_gap import with_accuracy_gap
from rankstats.planning.analytic import mcnemar_exact_power
from rankstats.planning.power_analysis import _default_grid
from rankstats.simulate.gumbel_benchmark import cube_to_scores

R = 10_000


def _exact_right(p10: float, p01: float, n: int, alpha: float = 0.05) -> float:
    """P(exact McNemar rejects with more (1, 0) than (0, 1) pairs): a sum over the number m of
    discordant pairs and the count b one way, written out here."""
    total = 0.0
    for m in range(1, n + 1):
        b = np.arange(m + 1)
        p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(b, m - b), m, 0.5))
        given = stats.binom.pmf(b, m, p10 / (p10 + p01))
        total += stats.binom.pmf(m, n, p10 + p01) * given[(p <= alpha) & (b > m / 2)].sum()
    return float(total)


# (accuracies, agreement, n, printed power, printed Type M, printed Type S, their simulations)
ACCURACY = [
    ((0.70, 0.72), 0.42, 1000, 0.119, 3.004, 0.022, 10_000),  # L75-77: minimal agreement
    ((0.70, 0.72), 0.98, 1000, 1.000, 0.995, 0.000, 10_000),  # L63-65: maximal agreement
    ((0.80, 0.82), 0.975, 500, 0.800, 1.118, 0.000, 10_000),  # L151-153
]


@pytest.mark.parametrize(("acc", "agreement", "n", "power", "type_m", "type_s", "sims"), ACCURACY)
def test_card_accuracy_setting(acc, agreement, n, power, type_m, type_s, sims) -> None:
    design = rs.BenchmarkDesign.from_accuracies(acc, agreement=agreement, n_instances=n)
    p10, p01 = design.discordance("sys02", "sys01")
    assert p10 - p01 == pytest.approx(acc[1] - acc[0], abs=1e-9)  # the table Card builds
    assert p10 + p01 == pytest.approx(1 - agreement, abs=1e-9)
    res = rs.power(design, tests="mcnemar", n_replications=R, progress=False, seed=7)
    row = res.pairs.iloc[0]
    assert (row["system_a"], row["system_b"]) == ("sys02", "sys01")
    ours = np.sqrt(max(row["power"] * (1 - row["power"]), 1e-4) / R)
    theirs = np.sqrt(max(power * (1 - power), 1e-4) / sims)
    assert abs(row["power"] - power) <= 4 * np.hypot(ours, theirs)
    exact = _exact_right(p10, p01, n)
    assert abs(row["power"] - exact) <= 4 * max(ours, 1e-3)
    assert row["type_m"] == pytest.approx(type_m, rel=0.05)
    assert abs(row["type_s"] - type_s) <= 0.01


@pytest.mark.parametrize(("n", "printed"), [(100, 0.826), (25, 0.305)])
def test_card_figure_1_binomial_power(n: int, printed: float) -> None:
    # A system preferred with probability 0.65 against a null of ½ (exact binomial test,
    # 100,000 simulations in the notebook): the sign test of two systems whose Gumbel
    # locations differ by logit(0.65).
    design = rs.BenchmarkDesign(n_systems=2, n_instances=n, phi=float(np.log(0.65 / 0.35)))
    assert design.win_probability("sys02", "sys01") == pytest.approx(0.65)
    res = rs.power(design, tests="sign", n_replications=R, progress=False)
    p, se = res.power_of("sign", "adjacent")
    theirs = np.sqrt(printed * (1 - printed) / 100_000)
    assert abs(p - printed) <= 4 * np.hypot(se, theirs)


def test_agreement_bounds_and_independence() -> None:
    design = rs.BenchmarkDesign.from_accuracies([0.9, 0.8], n_instances=10)
    assert design.correlation == 0.0
    p10, p01 = design.discordance("sys01", "sys02")
    assert p10 == pytest.approx(0.9 * 0.2) and p01 == pytest.approx(0.1 * 0.8)
    np.testing.assert_allclose(design.accuracies, [0.9, 0.8])
    with pytest.raises(ValueError, match="impossible for these accuracies"):
        rs.BenchmarkDesign.from_accuracies([0.9, 0.8], agreement=0.95)  # at most 0.9
    with pytest.raises(ValueError, match="follows from the accuracies"):
        rs.BenchmarkDesign.from_accuracies([0.9, 0.8], agreement=0.85, scale=2.0)
    with pytest.raises(ValueError, match="binary outcomes"):
        rs.power(n_systems=2, tests="mcnemar")


def test_card_bleu_setting() -> None:
    design = rs.BenchmarkDesign.from_swap_effects(1.0, zeros=0.13, spread=25.8, n_instances=2000)
    res = rs.power(design, tests="t", pair=("candidate", "baseline"), n_replications=4000)
    power, se = res.power_of("t", "pair")
    card_se = np.sqrt(0.756 * 0.244 / 500)  # their 500 simulated test sets
    assert abs(power - 0.756) <= 4 * np.hypot(se, card_se), power
    # Against the noncentral t of the mixture's mean and standard deviation (the differences
    # are 0 with probability P0, else Laplace(Δ / (N (1 − P0)), b0 / 2N)), written out here.
    n, p0 = 2000, 0.13
    m, b = 1.0 / (n * (1 - p0)), 25.8 / (2 * n)
    mean = (1 - p0) * m
    sd = np.sqrt((1 - p0) * (2 * b**2 + m**2) - mean**2)
    df, nc = n - 1, mean / sd * np.sqrt(n)
    crit = stats.t.ppf(0.975, df)
    exact = stats.nct.sf(crit, df, nc)
    assert abs(power - exact) <= 4 * se, (power, exact)
    row = res.pairs.iloc[0]
    assert row["true_effect"] == pytest.approx(1.0 / n, rel=0.02)  # Δ per sentence
    assert row["type_s"] == 0


def test_the_swap_effect_model() -> None:
    design = rs.BenchmarkDesign.from_swap_effects(2.0, zeros=0.2, spread=20.0, n_instances=1000)
    cube = design.draw(40, np.random.default_rng(5))
    diff = cube[:, 1, 0] - cube[:, 0, 0]  # candidate − baseline, per sentence
    assert abs((diff == 0).mean() - 0.2) < 4 * np.sqrt(0.2 * 0.8 / diff.size)
    assert np.all(cube[:, 0] == 0)  # the baseline is the reference, without noise
    assert diff.sum(axis=1).mean() == pytest.approx(2.0, abs=4 * diff.sum(axis=1).std() / 6)
    nonzero = diff[diff != 0]
    loc, scale = stats.laplace.fit(nonzero)
    assert loc == pytest.approx(2.0 / (1000 * 0.8), rel=0.1)
    assert scale == pytest.approx(20.0 / 2000, rel=0.05)
    # The win probability (a closed form) against numerical integration of the Laplace tail.
    win = (1 - 0.2) * stats.laplace.sf(0, loc=2.0 / 800, scale=0.01)
    assert design.win_probability("candidate", "baseline") == pytest.approx(win, rel=1e-9)


@pytest.mark.parametrize("scales", [(1.0, 1.0), (0.5, 2.0), (2.0, 0.3)])
def test_laplace_win_probability_by_integration(scales) -> None:
    design = rs.BenchmarkDesign(
        n_systems=2, noise="laplace", locations=(0.0, 0.4), scales=scales, identical=0.1
    )
    sa, sb = scales[1], scales[0]  # sys02 − sys01 = 0.4 + s2 L2 − s1 L1
    inner, _ = integrate.quad(
        lambda x: stats.laplace.pdf(x, scale=sb) * stats.laplace.sf(-0.4 + x, scale=sa),
        -np.inf,
        np.inf,
    )
    assert design.win_probability("sys02", "sys01") == pytest.approx(0.9 * inner, rel=1e-7)


@pytest.mark.slow
def test_the_minimum_detectable_accuracy_gap_is_mcnemar_s() -> None:
    # Card et al.'s Table 2 question (the smallest Δacc a test set detects), at a fixed latent
    # correlation: the simulated crossing against the root of the exact McNemar power.
    design = rs.BenchmarkDesign.from_accuracies([0.80, 0.82], agreement=0.975, n_instances=500)
    found = rs.sample_size(design, test="mcnemar", vary="accuracy_gap", n_replications=2000)

    def exact(gap: float) -> float:
        p10, p01 = with_accuracy_gap(design, gap).discordance("sys02", "sys01")
        return float(mcnemar_exact_power(p10, p01, 500)) - 0.8

    root = optimize.brentq(exact, 0.005, 0.1)
    low, high = found.interval
    assert low <= root <= high, (low, root, high)
    assert "accuracy gap of" in found.sentence()
    with pytest.raises(ValueError, match="paired binary outcomes"):
        rs.sample_size(n_systems=3, test="sign", vary="accuracy_gap")
    with pytest.raises(ValueError, match="the most accurate would reach 1"):
        rs.sample_size(design, test="mcnemar", vary="accuracy_gap", sizes=[0.01, 0.5])


def test_a_binary_pilot_has_a_detectable_accuracy_gap() -> None:
    truth = rs.BenchmarkDesign.from_accuracies([0.70, 0.75, 0.80], agreement=0.8, n_instances=400)
    cube = truth.draw(1, np.random.default_rng(2))[0]
    frame = cube_to_scores(cube, truth.names, ["t"], instances=True)
    cal = rs.calibrate(rs.Scores.from_long(frame, instance="instance"))
    found = cal.detectable(n_replications=400, progress=False)
    assert found.kind == "binary" and found.curve.test == "mcnemar"
    assert found.step is not None and 0.01 < found.step < 0.2
    assert found.win_rate is None and found.points is None
    assert "accuracy gap" in found.sentence()


def test_a_gap_that_rounds_the_top_accuracy_to_one_is_left_out_and_refused() -> None:
    # 0.7 + 2 · 0.15 is exactly 1.0 in floating point although 0.15 < (1 − 0.7) / 2 as computed
    # (0.15000000000000002): the third system's latent location would be infinite.
    assert 0.7 + 0.15 * 2 == 1.0
    design = rs.BenchmarkDesign.from_accuracies([0.70, 0.75, 0.76], agreement=0.8, n_instances=400)
    with pytest.raises(ValueError, match="the most accurate would reach 1"):
        with_accuracy_gap(design, 0.15)
    low = with_accuracy_gap(design, 0.1499)
    assert np.all(np.isfinite(low.locations))
    with pytest.raises(ValueError, match="the most accurate would reach 1"):
        rs.sample_size(design, test="mcnemar", vary="accuracy_gap", sizes=(0.1, 0.15))
    assert 0.15 not in _default_grid(design, "accuracy_gap")
    assert 0.1 in _default_grid(design, "accuracy_gap")
