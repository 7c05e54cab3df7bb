"""Power of the battle model's tests (rs.power with rs.BattleDesign), issue 26.

Checked against what is computed another way: rs.fit_battles on each simulated log one by one
(ratings, covariance, the Wald decisions of BattleFit.differences and the rank (UB) of
BattleFit.table, and which logs it refuses), the exact power and size of the Wald test with two
models (binomial sums written out here), the family-wise size under the null, monotonicity in
battles and in the rating step, and reproducibility.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import special, stats

import rankstats as rs
from rankstats.battles.log import Battles
from rankstats.errors import DataWarning, InvalidRankingsError
from rankstats.planning.battle_design import BattleDesign
from rankstats.planning.battle_replications import battle_chunk, fit_logs

R = 3000
ELO = 400 / np.log(10)


def _close(simulated: float, exact: float, n: int, k: float = 4.0) -> None:
    se = max(np.sqrt(exact * (1 - exact) / n), 1e-3)
    assert abs(simulated - exact) <= k * se, (simulated, exact, se)


def _fit_one(design: BattleDesign, counts: np.ndarray):
    first, second, _ = design.pair_support()
    log = Battles(
        design.names,
        first,
        second,
        counts[:, 0],
        counts[:, 1],
        counts[:, 2],
        np.zeros(len(first), dtype=np.int64),
    )
    ties = {"auto": None, "davidson": True, "half": False}[design.fit_ties]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        return rs.fit_battles(log, n_resamples=0, ties=ties, order_effect=design.fit_order)


@pytest.mark.parametrize(
    "fields",
    [
        {"tie": 0.0, "order_effect": 0.15},
        {"tie": None},
        {"tie": -1.0, "fit_ties": "half"},
        {"allocation": "star", "tie": 0.2},
        {"allocation": "balanced", "n_battles": 900, "order_effect": -0.2},
        {"n_battles": 14, "tie": -2.0},  # small logs: some have no MLE
        {"n_battles": 40, "tie": -3.0, "fit_ties": "davidson"},  # some without ties: no MLE
    ],
)
def test_each_simulated_log_is_fitted_and_decided_as_fit_battles_does(fields: dict) -> None:
    design = BattleDesign(n_models=5, elo_step=40, **{"n_battles": 600, **fields})
    first, second, _ = design.pair_support()
    counts = design.draw(12, np.random.default_rng(7))
    theta, cov, computable = fit_logs(design, counts, (first, second))
    chunk = battle_chunk(design, counts, (first, second), ("battles", "battles-ub"), 0.05)
    a, b = np.triu_indices(5, 1)
    for r in range(len(counts)):
        try:
            fit = _fit_one(design, counts[r])
        except InvalidRankingsError:  # MLEDoesNotExistError: the log has no MLE
            assert not computable[r]
            assert not chunk["decisions"]["battles"][r].any()
            continue
        assert computable[r]
        np.testing.assert_allclose(theta[r], fit.log_worth, atol=1e-7)
        np.testing.assert_allclose(cov[r], fit.covariance[:5, :5], atol=1e-8)
        # The Wald decisions of BattleFit.differences, signed by the design's pair order.
        diff = fit.differences(alpha=0.05)
        index = {m: k for k, m in enumerate(design.names)}
        expected = np.zeros(len(a), dtype=int)
        for _, row in diff[diff["significant"]].iterrows():
            i, j = index[row["model_a"]], index[row["model_b"]]
            k = int(np.flatnonzero((a == min(i, j)) & (b == max(i, j)))[0])
            expected[k] = 1 if i < j else -1
        np.testing.assert_array_equal(chunk["decisions"]["battles"][r], expected)
        # The leaderboard's rank (UB) from the separated intervals.
        ub = chunk["decisions"]["battles-ub"][r]
        beaten = np.zeros(5, dtype=int)
        np.add.at(beaten, b[ub > 0], 1)
        np.add.at(beaten, a[ub < 0], 1)
        table = fit.table().set_index("model")
        np.testing.assert_array_equal(1 + beaten, table.loc[list(design.names), "rank_ub"])
    assert computable.any()
    if design.n_battles < 50:  # both kinds of log were met
        assert not computable.all()


def _wald_two_models(m: int, p: float) -> tuple[float, float]:
    """Exact (power in the true direction, rejections the wrong way) of the two-model Wald test
    on ``m`` battles without ties or order effect: W ~ Bin(m, p) wins of the better model, MLE
    logit(W/m) with information m p̂ (1 − p̂); no MLE when W is 0 or m."""
    w = np.arange(1, m)
    phat = w / m
    z = special.logit(phat) * np.sqrt(m * phat * (1 - phat))
    crit = stats.norm.ppf(0.975)
    pmf = stats.binom.pmf(w, m, p)
    return float(pmf[z > crit].sum()), float(pmf[z < -crit].sum())


@pytest.mark.parametrize(("elo", "m"), [(70.0, 100), (35.0, 400), (120.0, 40)])
@pytest.mark.parametrize("allocation", ["uniform", "balanced"])
def test_two_models_match_the_exact_binomial_power(elo: float, m: int, allocation: str) -> None:
    design = BattleDesign(
        n_models=2, n_battles=m, elo_step=elo, allocation=allocation, fit_order=False
    )
    p = float(special.expit(elo / ELO))
    assert design.win_probability("model02", "model01") == pytest.approx(p)
    right, wrong = _wald_two_models(m, p)
    res = rs.power(design, pair=("model02", "model01"), n_replications=R, progress=False)
    for test in ("battles", "battles-ub"):  # with two models, the same decision
        row = res.pairs[res.pairs["test"] == test].iloc[0]
        _close(row["power"], right, R)
        _close(row["wrong_direction"], wrong, R)


def test_size_under_the_null() -> None:
    # Two equal models: the exact size of the Wald test at m battles (not exactly α).
    m = 60
    right, wrong = _wald_two_models(m, 0.5)
    res = rs.power(
        n_models=2, n_battles=m, elo_step=0.0, fit_order=False, n_replications=R, progress=False
    )
    row = res.pairs[res.pairs["test"] == "battles"].iloc[0]
    assert bool(row["null"])
    _close(row["power"], right + wrong, R)
    # Six equal models, ties and an order effect: P(any pair declared different) ≤ α (Holm).
    res = rs.power(
        n_models=6,
        n_battles=3000,
        elo_step=0.0,
        tie=0.0,
        order_effect=0.2,
        n_replications=2000,
        progress=False,
    )
    claims = res.summary.loc["battles", "false_claims"]
    se = np.sqrt(0.05 * 0.95 / 2000)
    assert claims <= 0.05 + 3 * se, claims
    assert res.pairs["null"].all()


def test_power_grows_with_battles_and_with_the_step() -> None:
    def adjacent(**fields) -> float:
        res = rs.power(
            n_models=5, tests="battles", tie=-1.0, n_replications=800, progress=False, **fields
        )
        return res.power_of("battles", "adjacent")[0]

    by_size = [adjacent(n_battles=m, elo_step=30) for m in (500, 2000, 8000)]
    by_step = [adjacent(n_battles=2000, elo_step=s) for s in (10, 30, 60)]
    assert by_size[0] < by_size[1] < by_size[2]
    assert by_step[0] < by_step[1] < by_step[2]


def test_same_seed_same_numbers_on_any_number_of_threads() -> None:
    design = BattleDesign(n_models=6, n_battles=1500, tie=0.0, order_effect=0.1)
    one = rs.power(design, n_replications=700, seed=3, n_jobs=1, progress=False)
    two = rs.power(design, n_replications=700, seed=3, n_jobs=2, progress=False)
    other = rs.power(design, n_replications=700, seed=4, n_jobs=2, progress=False)
    assert one.summary.equals(two.summary) and one.pairs.equals(two.pairs)
    assert not one.pairs.equals(other.pairs)


def test_an_order_effect_the_pairs_cannot_identify() -> None:
    # Each pair in one order only, along a chain: the ratings absorb any order effect.
    weights = np.zeros((3, 3))
    weights[0, 1] = weights[1, 2] = 1.0
    design = BattleDesign(n_models=3, n_battles=600, allocation=weights, order_effect=0.3)
    asked = rs.power(design.replace(fit_order=True), n_replications=200, progress=False)
    assert asked.summary.loc["battles", "computable"] == 0  # fit_battles would refuse each log
    assert asked.power_of("battles", "adjacent")[0] == 0
    auto = rs.power(design, n_replications=200, progress=False)  # left out, as fit_battles does
    assert auto.summary.loc["battles", "computable"] == 1


def test_a_design_from_a_fitted_pilot_log() -> None:
    frame, _ = rs.simulate_battles(n_models=5, n_battles=3000, seed=2)
    battles = rs.read_battles(frame)
    fit = rs.fit_battles(battles, n_resamples=0)
    design = BattleDesign.from_fit(fit, battles)
    np.testing.assert_allclose(design.mu, fit.log_worth, atol=1e-12)
    assert design.order_effect == pytest.approx(fit.log_order)
    assert design.tie == pytest.approx(fit.log_tie)
    assert design.n_battles == design.pilot_battles == 3000
    first, second, weight = design.pair_support()
    table = battles.table()
    index = {m: k for k, m in enumerate(design.names)}
    counts = np.zeros((5, 5))
    counts[table["model_a"].map(index), table["model_b"].map(index)] = table["n"]
    np.testing.assert_allclose(weight, counts[first, second] / 3000)
    with pytest.warns(DataWarning, match="extrapolated beyond the pilot"):
        res = rs.power(design.replace(n_battles=6000), n_replications=200, progress=False)
    assert "extrapolated from a pilot of 3,000 battles" in res.sentence()
    styled = rs.fit_battles(
        rs.read_battles(frame.assign(z=np.arange(3000) % 7), covariates=["z"]), n_resamples=0
    )
    with pytest.raises(ValueError, match="without covariates"):
        BattleDesign.from_fit(styled, battles)


def test_differences_of_two_models_are_the_closed_form_wald_test() -> None:
    log = Battles(
        ("x", "y"),
        np.array([0]),
        np.array([1]),
        np.array([37]),
        np.array([23]),
        np.array([0]),
        np.array([0]),
    )
    fit = rs.fit_battles(log, n_resamples=0, order_effect=False)
    row = fit.differences().iloc[0]
    phat = 37 / 60
    z = special.logit(phat) * np.sqrt(60 * phat * (1 - phat))
    assert (row["model_a"], row["model_b"]) == ("x", "y")
    assert row["z"] == pytest.approx(z, rel=1e-9)
    assert row["p"] == pytest.approx(2 * stats.norm.sf(z), rel=1e-9)
    assert row["difference"] == pytest.approx(ELO * special.logit(phat), rel=1e-9)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"tests": "hoeffding"}, "do not apply to battle logs"),
        ({"by": "task"}, "no blocks"),
        ({"n_models": 1}, "n_models"),
        ({"allocation": "round-robin"}, "allocation"),
        ({"baseline": "model02"}, "star"),
        ({"tie": float("nan")}, "tie"),
        ({"pair": ("model01", "zzz")}, "unknown model"),
        ({"n_systems": 3}, "unknown battle design parameter"),
        ({"rope": 0.05}, "Bayesian signed-rank"),
    ],
)
def test_bad_arguments_are_named(kwargs: dict, match: str) -> None:
    fields = {"n_models": 4, "n_battles": 400, **kwargs}
    with pytest.raises(ValueError, match=match):
        rs.power(n_replications=50, progress=False, **fields)


def test_sample_size_of_battles_and_detectable_step() -> None:
    design = BattleDesign(n_models=4, elo_step=40, tie=-1.0)
    found = rs.sample_size(
        design, sizes=[250, 500, 1000, 2000, 4000, 8000], n_replications=300, progress=False
    )
    assert found.size is not None and 250 < found.size < 8000
    assert "battles" in found.sentence()
    step = rs.sample_size(
        design.replace(n_battles=2000), vary="elo_step", n_replications=300, progress=False
    )
    assert step.size is not None and "Elo points" in step.sentence()
    with pytest.raises(ValueError, match="vary must be one of n_battles, elo_step"):
        rs.sample_size(design, vary="phi", progress=False)
    with pytest.raises(ValueError, match="own ratings"):
        rs.sample_size(design.replace(ratings=(0, 10, 20, 30)), vary="elo_step", progress=False)
