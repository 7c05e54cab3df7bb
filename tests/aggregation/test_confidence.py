"""Hoeffding intervals: coverage by simulation, multiplicity corrections, and the table format."""

import itertools

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.aggregation.hoeffding_intervals import holm_adjust
from rankstats.core.rankings import Rankings, average_ranks

SYSTEMS = ("a", "b", "c", "d")
LOCS = np.array([0.6, 0.3, 0.1, 0.0])  # Gumbel locations: a best


def draw_rankings(rng, n_rankings, missing, locs=LOCS):
    scores = rng.gumbel(loc=locs, size=(n_rankings, len(locs)))
    scores[rng.random(scores.shape) < missing] = np.nan
    return Rankings(average_ranks(scores), SYSTEMS, pd.RangeIndex(n_rankings))


def true_observed_probability(locs=LOCS):
    # X_a - X_b is logistic(loc_a - loc_b, 1) for independent unit-scale Gumbels.
    diff = locs[:, None] - locs[None, :]
    return 1.0 / (1.0 + np.exp(-diff))


def coverage(n_draws, n_rankings, missing, estimand, form, correction, delta, truth, seed):
    rng = np.random.default_rng(seed)
    off = ~np.eye(len(SYSTEMS), dtype=bool)
    covered_pair = np.zeros(off.sum())
    covered_all = 0
    for _ in range(n_draws):
        pw = rs.pairwise(draw_rankings(rng, n_rankings, missing))
        ci = rs.hoeffding(pw, delta=delta, correction=correction, form=form, estimand=estimand)
        # Rows are the ordered pairs in row-major order of the off-diagonal cells.
        inside = (ci["low"].to_numpy() <= truth[off]) & (truth[off] <= ci["high"].to_numpy())
        covered_pair += inside
        covered_all += inside.all()
    return covered_pair / n_draws, covered_all / n_draws


@pytest.mark.slow  # simulated coverage, ~2 s
@pytest.mark.parametrize("estimand", ["observed", "imputed"])
def test_coverage_at_least_one_minus_delta(estimand):
    missing = 0.3
    if estimand == "observed":
        truth = true_observed_probability()
    else:
        # E[P] of the imputed probability: a very long run of the same design.
        big = rs.pairwise(draw_rankings(np.random.default_rng(99), 400_000, missing))
        truth = big.wins / big.n_rankings
    delta = 0.2  # large δ: a tight requirement, so an interval that is too narrow shows up
    # 400 draws, sized to the claim: a pair whose coverage is 0.05 below the bound (0.75 for
    # 1 − δ, 0.55 for 1 − 2δ) fails with probability ≥ Φ(0.05 √400 / 0.5) = 0.98, while the
    # measured coverages (min over the pairs: 0.97 and 0.91 observed, 1.00 and 0.998 imputed)
    # are ≥ 6 binomial SEs above the bounds; 2000 draws added nothing to either.
    per_pair, _ = coverage(400, 30, missing, estimand, "two-sided", "none", delta, truth, 1)
    assert per_pair.min() >= 1 - delta
    # The paper's (one-sided) width still covers with probability ≥ 1 - 2δ, as documented.
    paper, _ = coverage(400, 30, missing, estimand, "paper", "none", delta, truth, 2)
    assert paper.min() >= 1 - 2 * delta


def test_bonferroni_simultaneous_coverage():
    truth = true_observed_probability()
    _, simultaneous = coverage(2000, 20, 0.0, "observed", "two-sided", "bonferroni", 0.2, truth, 3)
    assert simultaneous >= 0.8


def test_holm_family_wise_error_under_the_null():
    rng = np.random.default_rng(4)
    locs = np.zeros(4)
    false_rejections = 0
    n_draws = 2000
    for _ in range(n_draws):
        pw = rs.pairwise(draw_rankings(rng, 40, 0.0, locs))
        false_rejections += rs.hoeffding(pw, delta=0.3, correction="holm")["significant"].any()
    assert false_rejections / n_draws <= 0.3


def brute_force_holm_rejections(p, alpha):
    """Holm's step-down procedure as stated: reject p_(1..k) while p_(i) <= alpha/(m-i+1)."""
    m = len(p)
    reject = np.zeros(m, dtype=bool)
    for rank, idx in enumerate(np.argsort(p, kind="stable")):
        if p[idx] <= alpha / (m - rank):
            reject[idx] = True
        else:
            break
    return reject


def test_holm_adjusted_p_values_match_the_procedure():
    rng = np.random.default_rng(5)
    for _ in range(200):
        p = rng.random(rng.integers(1, 12)) ** 3
        adjusted = holm_adjust(p)
        for alpha in (0.01, 0.05, 0.2):
            np.testing.assert_array_equal(adjusted <= alpha, brute_force_holm_rejections(p, alpha))


def test_half_widths_and_levels():
    rk = Rankings.from_orderings([["a", "b", "c"]] * 25)
    pw = rs.pairwise(rk)
    z = 25
    none = rs.hoeffding(pw, delta=0.05, correction="none")
    assert none["half_width"].iloc[0] == pytest.approx(np.sqrt(np.log(2 / 0.05) / (2 * z)))
    paper = rs.hoeffding(pw, delta=0.05, correction="none", form="paper")
    assert paper["half_width"].iloc[0] == pytest.approx(np.sqrt(-np.log(0.05) / (2 * z)))
    bonf = rs.hoeffding(pw, delta=0.05, correction="bonferroni")
    assert bonf["half_width"].iloc[0] == pytest.approx(np.sqrt(np.log(2 * 3 / 0.05) / (2 * z)))
    assert bonf.attrs["n_pairs"] == 3


def test_table_format_and_consistency():
    rng = np.random.default_rng(6)
    pw = rs.pairwise(draw_rankings(rng, 200, 0.2))
    order = ["d", "c", "b", "a"]
    ci = rs.hoeffding(pw, delta=0.05, correction="none", order=order)
    assert len(ci) == 12
    assert list(ci.columns[:5]) == ["system_a", "system_b", "estimate", "low", "high"]
    assert ci["system_a"].iloc[0] == "d"
    # Without correction, "significant" means exactly "the interval excludes 1/2".
    excludes = (ci["low"] > 0.5) | (ci["high"] < 0.5)
    pd.testing.assert_series_equal(ci["significant"], excludes, check_names=False)
    # (a, b) and (b, a) are mirror images.
    flip = ci.set_index(["system_b", "system_a"])["estimate"]
    direct = ci.set_index(["system_a", "system_b"])["estimate"]
    np.testing.assert_allclose(direct.to_numpy() + flip[direct.index].to_numpy(), 1.0)
    winners = ci.loc[ci.significant, ["system_a", "system_b", "estimate", "winner"]]
    for _, row in winners.iterrows():
        assert row.winner == (row.system_a if row.estimate > 0.5 else row.system_b)
    matrix = rs.significance_matrix(ci)
    assert list(matrix.index) == order and np.isnan(np.diag(matrix)).all()


def test_never_compared_pairs_are_uninformative():
    rk = Rankings.from_orderings([["a", "b"], ["c", "d"]] * 10)
    ci = rs.hoeffding(rs.pairwise(rk), correction="none", estimand="observed")
    row = ci[(ci.system_a == "a") & (ci.system_b == "c")].iloc[0]
    assert row.compared == 0 and row.low == 0 and row.high == 1 and not row.significant


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"delta": 0}, "delta must be a number in"),
        ({"correction": "fdr"}, "correction must be one of"),
        ({"form": "one-sided"}, "form must be one of"),
        ({"estimand": "raw"}, "estimand must be one of"),
        ({"order": ["a", "b"]}, "order must be a permutation"),
    ],
)
def test_argument_errors(kwargs, message):
    pw = rs.pairwise(Rankings.from_orderings([list("abc")]))
    with pytest.raises(ValueError, match=message):
        rs.hoeffding(pw, **kwargs)


def test_all_pairs_listed_once_per_direction():
    pw = rs.pairwise(Rankings.from_orderings([list("abcde")]))
    ci = rs.hoeffding(pw)
    pairs = set(zip(ci.system_a, ci.system_b, strict=True))
    assert pairs == set(itertools.permutations("abcde", 2))


def test_smallest_significant_unanimous_sample():
    # Unanimous pair, Bonferroni over 3 pairs: significant iff z > 2 log(2 * 3 / δ).
    z_min = int(np.floor(2 * np.log(2 * 3 / 0.05))) + 1
    for z, expected in ((z_min - 1, False), (z_min, True)):
        pw = rs.pairwise(Rankings.from_orderings([["a", "b", "c"]] * z))
        ci = rs.hoeffding(pw, delta=0.05, correction="bonferroni")
        assert ci["significant"].all() == expected, z


@pytest.mark.parametrize("form", ["two-sided", "paper"])
@pytest.mark.parametrize(("correction", "delta"), [("none", 0.05), ("holm", 0.05), ("none", 0.3)])
def test_min_compared_for_significance_is_the_switch(form, correction, delta):
    """The result's z for a unanimous pair is where significance switches on, for every form."""
    kwargs = {"delta": delta, "correction": correction, "form": form}
    z_min = rs.hoeffding_test(rs.pairwise(Rankings.from_orderings([["a", "b", "c"]])), **kwargs)
    z_min = z_min.min_compared_for_significance()
    for z, expected in ((z_min - 1, False), (z_min, True)):
        pw = rs.pairwise(Rankings.from_orderings([["a", "b", "c"]] * z))
        assert rs.hoeffding_test(pw, **kwargs).table["significant"].all() == expected, z


def test_hoeffding_is_the_table_of_hoeffding_test():
    pw = rs.pairwise(draw_rankings(np.random.default_rng(3), 80, 0.2))
    kwargs = {"delta": 0.1, "correction": "bonferroni", "estimand": "observed"}
    ci = rs.hoeffding(pw, order=["b", "a", "d", "c"], **kwargs)
    res = rs.hoeffding_test(pw, order=["b", "a", "d", "c"], **kwargs)
    pd.testing.assert_frame_equal(ci, res.table)
    assert ci.attrs == res.table.attrs == res.parameters


def test_heatmap_without_significant_pairs_says_so():
    """A blank heatmap gets a sentence, not a colour bar of ±1e-6."""
    from rankstats.aggregation.hoeffding_figure import significance_heatmap

    scores = rs.load_dataset("xtreme_table5")  # 4 task rankings: nothing can be significant
    ci = rs.hoeffding_test(rs.pairwise(rs.Rankings.from_scores(scores)))
    assert ci.n_significant == 0
    fig = significance_heatmap(ci)
    assert len(fig.axes) == 1  # no colour bar axis
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any("no pair is significant" in t for t in texts)
    busy = rs.load_dataset("summeval")
    ci = rs.hoeffding_test(rs.pairwise(rs.Rankings.from_scores(busy, by="instance")))
    assert ci.n_significant > 0
    assert len(significance_heatmap(ci).axes) == 2
