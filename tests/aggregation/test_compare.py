"""rs.compare: Hoeffding intervals against posterior pairwise probabilities."""

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.core.rankings import Rankings, average_ranks


def pl_rankings(log_worth, n_rankings, seed, missing=0.0):
    """Plackett–Luce rankings by the Gumbel-max construction (independent of rankstats)."""
    rng = np.random.default_rng(seed)
    scores = np.asarray(log_worth) + rng.gumbel(size=(n_rankings, len(log_worth)))
    scores[rng.random(scores.shape) < missing] = np.nan
    names = tuple(f"s{i}" for i in range(len(log_worth)))
    return Rankings(average_ranks(scores), names, pd.RangeIndex(n_rankings))


@pytest.fixture(scope="module")
def simulated():
    log_worth = np.array([2.0, 1.2, 1.0, 0.0, -0.1, -1.5])
    rk = pl_rankings(log_worth, 300, seed=0)
    fit = rs.models.PlackettLuce().fit(rk, method="map", seed=0)
    return log_worth, rk, fit


def test_agreement_on_a_well_specified_model(simulated):
    log_worth, rk, fit = simulated
    cmp = rs.compare(rs.pairwise(rk), [fit], delta=0.01, correction="holm")
    assert cmp.agreement.loc[0, "conflicts"] == 0 and cmp.conflicts.empty
    # Clearly separated pairs (true P(a > b) outside [0.2, 0.8]) are decided, the same way, by both.
    truth = 1 / (1 + np.exp(-(log_worth[:, None] - log_worth[None, :])))
    idx = {f"s{i}": i for i in range(len(log_worth))}
    wide = cmp.wide
    a = wide["system_a"].map(idx).to_numpy()
    b = wide["system_b"].map(idx).to_numpy()
    clear = np.abs(truth[a, b] - 0.5) > 0.3
    assert clear.sum() >= 6
    assert wide.loc[clear, "hoeffding_significant"].astype(bool).all()
    assert wide.loc[clear, "pl_significant"].astype(bool).all()
    assert (wide.loc[clear, "hoeffding_winner"] == wide.loc[clear, "pl_winner"]).all()
    # Both estimate the same probability here: PL's marginal P(a precedes b) is w_a/(w_a + w_b).
    np.testing.assert_allclose(wide["hoeffding_estimate"], wide["pl_estimate"], atol=0.08)


def test_table_shape_and_levels(simulated):
    _, rk, fit = simulated
    pw = rs.pairwise(rk)
    cmp = rs.compare(pw, fit, delta=0.05, correction="bonferroni")
    n = rk.n_systems
    assert len(cmp.table) == 2 * n * (n - 1) // 2
    assert set(cmp.table["method"]) == {"hoeffding", "pl"}
    assert cmp.ci_prob == pytest.approx(1 - 0.05 / (n * (n - 1) / 2))
    # The Hoeffding rows equal rs.hoeffding's.
    ci = rs.hoeffding(pw, delta=0.05, correction="bonferroni", order=cmp.order)
    merged = cmp.table[cmp.table.method == "hoeffding"].merge(ci, on=["system_a", "system_b"])
    np.testing.assert_allclose(merged["low_x"], merged["low_y"])
    # Posterior rows use the same level.
    post = fit.pairwise(ci_prob=cmp.ci_prob, order=cmp.order)
    merged = cmp.table[cmp.table.method == "pl"].merge(post, on=["system_a", "system_b"])
    np.testing.assert_allclose(merged["high_x"], merged["high_y"])
    m = cmp.matrix("pl", "estimate").to_numpy()
    off = ~np.eye(n, dtype=bool)
    np.testing.assert_allclose((m + m.T)[off], 1.0, atol=1e-12)
    assert "conflicts 0" in repr(cmp)


def test_a_real_disagreement_sushi():
    rk = rs.load_rankings("sushi")
    fit = rs.models.PlackettLuce().fit(rk, method="mle")
    cmp = rs.compare(rs.pairwise(rk), [fit], delta=0.05)
    row = cmp.wide[(cmp.wide.system_a == "fatty tuna") & (cmp.wide.system_b == "sea urchin")]
    assert row["hoeffding_estimate"].iloc[0] == pytest.approx(0.7158, abs=5e-4)
    assert row["pl_estimate"].iloc[0] == pytest.approx(0.7816, abs=5e-4)


def test_figures(simulated):
    _, rk, fit = simulated
    cmp = rs.compare(rs.pairwise(rk), [fit])
    assert cmp.plot_matrix().axes and cmp.plot_forest(k=5).axes


def test_errors(simulated):
    _, rk, fit = simulated
    other = rs.pairwise(rs.Rankings.from_orderings([["x", "y"]]))
    with pytest.raises(ValueError, match="other systems"):
        rs.compare(other, [fit])
    with pytest.raises(ValueError, match="at least one"):
        rs.compare(rs.pairwise(rk), [])


@pytest.mark.slow
def test_agreement_with_nuts_posterior():
    log_worth = np.array([1.5, 0.8, 0.0, -0.2, -1.2])
    # With missing entries the imputed estimand is shrunk towards 1/2; the quantity a PL model
    # estimates is P(a above b | both ranked), the observed estimand.
    rk = pl_rankings(log_worth, 300, seed=3, missing=0.2)
    fit = rs.models.PlackettLuce().fit(
        rk, method="nuts", draws=500, tune=500, chains=2, seed=1, progress=False
    )
    cmp = rs.compare(rs.pairwise(rk), [fit], delta=0.01, estimand="observed")
    assert cmp.agreement.loc[0, "conflicts"] == 0
    truth = 1 / (1 + np.exp(-(log_worth[:, None] - log_worth[None, :])))
    idx = {f"s{i}": i for i in range(len(log_worth))}
    a = cmp.wide["system_a"].map(idx).to_numpy()
    b = cmp.wide["system_b"].map(idx).to_numpy()
    clear = np.abs(truth[a, b] - 0.5) > 0.3
    assert cmp.wide.loc[clear, "pl_significant"].astype(bool).all()
    assert cmp.wide.loc[clear, "hoeffding_significant"].astype(bool).all()


def test_given_intervals_are_used_as_they_are(simulated):
    """compare(HoeffdingResult or its table) equals compare(Pairwise): nothing is recomputed."""
    _, rk, fit = simulated
    pw = rs.pairwise(rk)
    direct = rs.compare(pw, [fit], delta=0.01, correction="bonferroni")
    res = rs.hoeffding_test(pw, delta=0.01, correction="bonferroni", order=fit.order)
    for given in (res, res.table):
        cmp = rs.compare(given, [fit])
        pd.testing.assert_frame_equal(cmp.table, direct.table)
        pd.testing.assert_frame_equal(cmp.wide, direct.wide)
        assert (cmp.ci_prob, cmp.delta, cmp.correction) == (
            direct.ci_prob,
            direct.delta,
            direct.correction,
        )
        assert cmp.intervals.parameters == direct.intervals.parameters
    assert rs.compare(res, [fit]).intervals is res
    # Another reference order: the same pairs, in that order.
    reverse = list(reversed(fit.order))
    flipped = rs.compare(res, [fit], order=reverse)
    assert flipped.order == reverse
    first = flipped.table.iloc[0]
    assert (first["system_a"], first["system_b"]) == (reverse[0], reverse[1])
    hoef = flipped.table[flipped.table.method == "hoeffding"].set_index(["system_a", "system_b"])
    table = res.table.set_index(["system_a", "system_b"])
    np.testing.assert_array_equal(hoef["low"], table.loc[hoef.index, "low"])
    with pytest.raises(ValueError, match=r"computed with delta=0\.01, not delta=0\.05"):
        rs.compare(res, [fit], delta=0.05)
