"""The parameter-instability tests of the rank tree against independent references: with two
systems Plackett–Luce is a binomial model, and the tests are Pearson's χ² of the level × winner
table (categorical) and the largest 2 × 2 Pearson χ² over the admissible cuts (supLM); with more
systems the categorical statistic is the score test of the interaction model (separate worths
per level), computed here by scipy's optimiser and finite differences of the log-likelihood.
The statistics do not depend on which N − 1 contrasts identify the worths, and the simulated
null distribution of supLM does not depend on its grid."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import linalg, optimize, stats

import rankstats as rs
from rankstats.models import instability
from rankstats.models._data import pl_data
from rankstats.models._mle import pl_loglik


def pl_orderings(theta, rng):
    """Complete Plackett–Luce rankings (Gumbel-max), one per row of ``theta``; best first."""
    keys = theta + rng.gumbel(size=theta.shape)
    return np.argsort(-keys, axis=1)


def root_tests(rk, covariates, **options):
    tree = rs.models.rank_tree(rk, covariates, max_depth=0, **options)
    return tree.tests().set_index("covariate")


def test_two_systems_categorical_is_pearson_chi2():
    rng = np.random.default_rng(0)
    level = rng.choice(["x", "y", "z"], size=90)
    p = np.where(level == "x", 0.7, 0.5)
    a_first = rng.uniform(size=90) < p
    rk = rs.Rankings.from_orderings([["a", "b"] if w else ["b", "a"] for w in a_first])
    tests = root_tests(rk, pd.DataFrame({"level": level}, index=rk.rankers))
    table = pd.crosstab(level, a_first).to_numpy()
    chi2, p_value, df, _ = stats.chi2_contingency(table, correction=False)
    assert tests.loc["level", "statistic"] == pytest.approx(chi2, rel=1e-9)
    assert tests.loc["level", "df"] == df == 2
    assert tests.loc["level", "p_value"] == pytest.approx(p_value, rel=1e-9)


def test_two_systems_sup_lm_is_the_largest_two_by_two_chi2():
    rng = np.random.default_rng(1)
    n, trim = 80, 0.1
    x = rng.uniform(size=n)
    a_first = rng.uniform(size=n) < np.where(x > 0.6, 0.75, 0.4)
    rk = rs.Rankings.from_orderings([["a", "b"] if w else ["b", "a"] for w in a_first])
    tests = root_tests(rk, pd.DataFrame({"x": x}, index=rk.rankers), trim=trim)
    order = np.argsort(x)
    best = 0.0
    for m in range(int(np.ceil(trim * n)), int(np.floor((1 - trim) * n)) + 1):
        left = np.zeros(n, bool)
        left[order[:m]] = True
        table = pd.crosstab(left, a_first).to_numpy()
        best = max(best, stats.chi2_contingency(table, correction=False)[0])
    assert tests.loc["x", "statistic"] == pytest.approx(best, rel=1e-9)
    assert tests.loc["x", "df"] == 1


def interaction_score_test(orderings, levels):
    """Score (LM) test of separate worths per level at the common MLE, with the information of
    each level estimated by its share of the pooled outer product of the per-ranking scores —
    all by scipy.optimize and central finite differences of ``pl_loglik``."""
    rk = rs.Rankings.from_orderings(orderings)
    data = pl_data(rk)
    n_sys = data.n_systems

    def rows(mask):
        return pl_data(rs.Rankings(rk.ranks[mask], rk.systems, rk.rankers[mask]))

    fit = optimize.minimize(
        lambda free: -pl_loglik(data, np.append(free, 0.0)),
        np.zeros(n_sys - 1),
        method="BFGS",
        options={"gtol": 1e-11},
    )
    theta = np.append(fit.x, 0.0)

    def gradient(part):
        h, eye = 1e-5, np.eye(n_sys)[: n_sys - 1]
        return np.array(
            [(pl_loglik(part, theta + h * e) - pl_loglik(part, theta - h * e)) / 2 / h for e in eye]
        )

    levels = np.asarray(levels)
    names = np.unique(levels)
    score = np.concatenate([gradient(rows(levels == c)) for c in names])
    per_ranking = np.array(
        [gradient(rows(np.arange(len(levels)) == r)) for r in range(len(levels))]
    )
    opg = per_ranking.T @ per_ranking
    n = len(levels)
    information = linalg.block_diag(*[(np.sum(levels == c) / n) * opg for c in names])
    return float(score @ np.linalg.solve(information, score)), len(score) - (n_sys - 1)


def test_categorical_statistic_is_the_score_test_of_the_interaction_model():
    rng = np.random.default_rng(2)
    level = rng.choice(["u", "v", "w"], size=60)
    theta = np.zeros((60, 3))
    theta[:, 0] = np.where(level == "u", 1.0, 0.0)
    systems = np.array(["a", "b", "c"])
    orderings = [list(systems[o]) for o in pl_orderings(theta, rng)]
    rk = rs.Rankings.from_orderings(orderings)
    tests = root_tests(rk, pd.DataFrame({"level": level}, index=rk.rankers))
    expected, df = interaction_score_test(orderings, level)
    assert tests.loc["level", "df"] == df == 4
    assert tests.loc["level", "statistic"] == pytest.approx(expected, rel=1e-5)


def test_statistics_do_not_depend_on_the_identification():
    rng = np.random.default_rng(4)
    scores = rng.normal(size=(50, 5))
    scores -= scores.mean(axis=1, keepdims=True)  # rows of a PL score sum to zero
    covariates = {"x": (rng.uniform(size=50), True), "g": (rng.integers(0, 3, size=50), False)}
    contrasts = rng.normal(size=(5, 4))
    variants = [scores[:, :-1], scores[:, 1:], scores @ contrasts]
    results = [instability.instability_tests(s, covariates, 0.1, 2000, 0) for s in variants]
    for other in results[1:]:
        for a, b in zip(results[0], other, strict=True):
            assert a.statistic == pytest.approx(b.statistic, rel=1e-9)
            assert a.p_value == pytest.approx(b.p_value, rel=1e-9)


def test_sup_lm_null_is_seeded_and_cached():
    first = instability.sup_lm_null(2, 0.1, 500, 7)
    assert instability.sup_lm_null(2, 0.1, 500, 7) is first
    instability.sup_lm_null.cache_clear()
    again = instability.sup_lm_null(2, 0.1, 500, 7)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, instability.sup_lm_null(2, 0.1, 500, 8))
    assert instability.sup_lm_p_value(np.inf * 0, 2, 0.1, 500, 7) == 1.0  # NaN: no change point
    assert instability.sup_lm_p_value(1e9, 2, 0.1, 500, 7) == pytest.approx(1 / 501)


@pytest.mark.slow
@pytest.mark.parametrize("k", [1, 4])
def test_sup_lm_null_does_not_depend_on_the_grid(k, monkeypatch):
    """The continuity-corrected sup on the default grid agrees with a grid four times finer
    (and both with a plain Brownian bridge of 4,000 steps, whose uncorrected discrete sup can
    only be lower) in the 90/95/99% quantiles, to Monte Carlo error."""
    draws = 20_000
    default = instability.sup_lm_null(k, 0.15, draws, 11)
    monkeypatch.setattr(instability, "GRID_STEP", instability.GRID_STEP / 4)
    instability.sup_lm_null.cache_clear()
    fine = instability.sup_lm_null(k, 0.15, draws, 12)
    instability.sup_lm_null.cache_clear()
    levels = [0.9, 0.95, 0.99]
    q_default, q_fine = np.quantile(default, levels), np.quantile(fine, levels)
    # Monte Carlo s.e. of a quantile: sqrt(p (1 − p) / R) / density, the density from the draws
    density = [np.mean(np.abs(fine - q) < 0.25) / 0.5 for q in q_fine]
    se = np.sqrt(np.array(levels) * (1 - np.array(levels)) / draws) / np.array(density)
    assert np.all(np.abs(q_default - q_fine) < 4 * np.sqrt(2) * se), (q_default, q_fine, se)
    rng = np.random.default_rng(13)
    steps, bridge_sup = 4_000, []
    t = np.arange(1, steps) / steps
    inside = (t >= 0.15) & (t <= 0.85)
    for _ in range(10):  # 5,000 bridges
        walk = np.cumsum(rng.standard_normal((500, steps, k)), axis=1) / np.sqrt(steps)
        bridge = walk[:, :-1] - t[None, :, None] * walk[:, -1:, :]
        q = np.einsum("rtk,rtk->rt", bridge, bridge)[:, inside] / (t * (1 - t))[inside]
        bridge_sup.append(q.max(axis=1))
    q_bridge = np.quantile(np.concatenate(bridge_sup), levels)
    assert np.all(q_bridge < q_fine + 4 * 2 * se), (q_bridge, q_fine)  # 5,000 draws: 2 × s.e.
    assert np.all(q_bridge > q_fine - 0.05 * q_fine - 4 * se), (q_bridge, q_fine)
