"""Results of rs.irt.fit: ranking with rank sets, comparison with other aggregations, item fit,
information, flags, ability estimators."""

import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.errors import DataWarning
from rankstats.irt.simulation import simulate_responses


@pytest.fixture(scope="module")
def sim():
    return simulate_responses(12, 150, "2pl", missing_rate=0.1, seed=4)


@pytest.fixture(scope="module")
def fit(sim):
    # 12 systems: without a slope prior many items separate them perfectly (runaway slopes).
    return rs.irt.fit(sim.responses, prior=rs.irt.ItemPrior(slope_sd=0.5), max_se_parameters=0)


def test_runaway_slopes_warn_without_a_prior(sim):
    with pytest.warns(DataWarning, match="slope_sd"):
        fit = rs.irt.fit(sim.responses, max_se_parameters=0, max_iter=50)
    assert "runaway slope" in fit.flags["flag"].tolist()


def test_rank_sets_contain_the_rank_and_narrow_when_far_apart(fit):
    sets = fit.ranking()
    assert (sets["rank_low"] <= sets["rank"]).all() and (sets["rank"] <= sets["rank_high"]).all()
    marginal = fit.ranking(simultaneous=False)
    width = lambda t: (t["rank_high"] - t["rank_low"]).sum()  # noqa: E731
    assert width(marginal) <= width(sets)


def test_rank_sets_by_hand():
    """Three systems, abilities 0, 0.1 and 5 with SE 0.1: the top one is alone at rank 1,
    the others share ranks 2–3 (the critical value is between 0.71 and 5 / √0.02 = 35)."""
    from rankstats.irt.ranking import _critical_values

    c = _critical_values(np.full(3, 0.1), 0.05, True, 4000, 0)
    # The maximum of three |N(0, 1)| differences (correlated): its 95 % point is near 2.3.
    assert 2.1 < c < 2.5


def test_comparison_columns_and_agreement(sim, fit):
    table = fit.compare_rankings()
    assert list(table.columns) == ["system", "ability", "mean", "borda", "bt"]
    tau = table.drop(columns="system").corr(method="kendall")
    assert (tau.to_numpy() > 0.6).all()
    truth = pd.Series(sim.theta, index=sim.responses.systems)
    order = truth.rank(ascending=False)[table["system"]].to_numpy()
    assert np.corrcoef(order, table["ability"])[0, 1] > 0.9


def test_information_and_measurement_range(fit):
    info = fit.information()
    assert (info["information"] > 0).all()
    low, high = fit.measurement_range()
    peak = info["theta"][info["information"].idxmax()]
    assert low < peak < high
    # By hand for one Rasch item: I(θ) = P(1 − P), peak 1/4 at θ = −d.
    one = rs.irt.fit(np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1.0]]), "rasch")
    grid = one.information(np.array([0.0]))
    p = 1 / (1 + np.exp(-one.items["d"].to_numpy()))
    assert grid["information"][0] == pytest.approx(np.sum(p * (1 - p)), rel=1e-9)


def test_flags_items_everyone_answered_alike():
    values = simulate_responses(40, 8, seed=1).responses.to_frame()
    values["easy"], values["hard"] = 1.0, 0.0
    with pytest.warns(DataWarning, match="2 item"):
        fit = rs.irt.fit(values)
    flags = fit.flags.set_index("item")
    assert flags.loc["easy", "detail"] == "every system right"
    assert flags.loc["hard", "detail"] == "every system wrong"
    assert "easy" not in fit.items["item"].tolist()


def test_negative_discrimination_is_flagged():
    sim = simulate_responses(400, 6, seed=3)
    values = sim.responses.values.copy()
    values[:, 0] = 1 - values[:, 0]  # a reversed item: the able get it wrong
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = rs.irt.fit(values)
    assert fit.items["a"][0] < 0
    assert fit.flags["flag"].tolist() == ["negative discrimination"]


def test_ml_is_infinite_for_perfect_systems_and_map_finite():
    sim = simulate_responses(60, 10, seed=2)
    values = sim.responses.values.copy()
    values[0] = 1.0
    ml = rs.irt.fit(values, method="ML", max_se_parameters=0)
    assert ml.theta[0] == np.inf and ml.theta_se[0] == np.inf
    map_ = rs.irt.fit(values, method="MAP", max_se_parameters=0)
    assert np.isfinite(map_.theta).all()
    assert map_.theta[0] == map_.theta.max()
    with pytest.raises(ValueError, match="method='EAP' or 'MAP'"):
        ml.ranking()


def test_item_fit_statistics_near_one_under_the_model():
    sim = simulate_responses(1000, 30, "rasch", seed=6)
    table = rs.irt.fit(sim.responses, "rasch", max_se_parameters=0).item_fit()
    assert table["infit"].between(0.9, 1.1).all()
    assert (table["p_value"] > 0.001).all()


def test_repr_is_readable(fit):
    text = repr(fit)
    assert text.startswith("IRTFit(2pl, 12 systems × 143 items")
    assert "θ =" in text
