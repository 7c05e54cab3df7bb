"""Parameter recovery and interval coverage by simulation (slow tier)."""

import numpy as np
import pytest

import rankstats as rs
from rankstats.irt.simulation import simulate_responses


@pytest.mark.slow
@pytest.mark.parametrize("model", ["rasch", "2pl", "graded"])
def test_parameter_recovery(model):
    sim = simulate_responses(2000, 10, model, missing_rate=0.2, seed=7)
    fit = rs.irt.fit(sim.responses, model, max_se_parameters=0)
    truth = sim.items
    if model != "rasch":
        np.testing.assert_allclose(fit.items["a"], truth.slope, atol=0.2)
    d = fit.items[["d"] if model != "graded" else ["d1", "d2", "d3"]].to_numpy()
    np.testing.assert_allclose(d, truth.intercept, atol=0.25)
    # 8 observed items of 10 a system: the reliability (squared correlation) is about 0.6.
    assert np.corrcoef(fit.theta, sim.theta)[0, 1] > 0.7


@pytest.mark.slow
def test_item_intervals_cover_at_their_level():
    """95 % Wald intervals of the 2PL intercepts and slopes (observed information) cover the
    truth in about 95 % of 40 replications × 6 items (binomial 2.5–97.5 %: 0.925–0.971)."""
    hits = []
    for seed in range(40):
        sim = simulate_responses(500, 6, "2pl", missing_rate=0.1, seed=100 + seed)
        fit = rs.irt.fit(sim.responses)
        for name, true in (("a", sim.items.slope), ("d", sim.items.intercept[:, 0])):
            est, se = fit.items[name].to_numpy(), fit.items[f"se_{name}"].to_numpy()
            hits.append(np.abs(est - true) <= 1.959964 * se)
    coverage = np.mean(hits)
    assert 0.91 < coverage < 0.98


@pytest.mark.slow
def test_ability_intervals_cover_at_their_level():
    """EAP ± 1.96 posterior SD covers the true ability about 95 % of the time (the posterior is
    calibrated over θ ~ N(0, 1) when the items are known well)."""
    sim = simulate_responses(3000, 20, "2pl", seed=9)
    fit = rs.irt.fit(sim.responses, max_se_parameters=0)
    inside = (fit.theta - 1.96 * fit.theta_se <= sim.theta) & (
        sim.theta <= fit.theta + 1.96 * fit.theta_se
    )
    assert 0.935 < inside.mean() < 0.965
