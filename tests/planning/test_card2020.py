"""Card et al. (2020, "With little power comes great responsibility"), their accuracy setting.

Two classifiers are right or wrong on the same n test items; the 2 × 2 table of paired outcomes
follows from the accuracies and the agreement, and the exact McNemar test (statsmodels'
``mcnemar``, exact, two-sided, α = 0.05) counts as a success when p ≤ α with the right sign. The
values printed in their notebooks (``notebooks_for_power_calculations/accuracy.ipynb`` and
``code_for_figures/Figure 01.ipynb`` of github.com/dallascard/NLP-power-analysis, commit
a3f63b5) are reproduced by simulation within the Monte Carlo error of both simulations, and
against the exact power summed here.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import rankstats as rs

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
    res = rs.power(design, tests="mcnemar", replications=R, progress=False, seed=7)
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
    res = rs.power(design, tests="sign", replications=R, progress=False)
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
