"""Quasi-variances of Plackett–Luce / Bradley–Terry fits: against the Fisher information computed
here from the counts, a design where the quasi-variance form is exact, and the figures / CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.models import Fit, quasi_variances


def test_star_design_is_exactly_of_quasi_variance_form():
    # Every comparison is against "hub": the θ_i − θ_hub are independent, each with variance
    # 1 / (n_i p_i (1 − p_i)) at the MLE p_i = wins_i / n_i, so q_hub = 0, q_i = that variance.
    wins = np.array([30, 12, 45, 20])
    losses = np.array([10, 28, 15, 20])
    counts = pd.DataFrame(
        {"item1": ["a", "b", "c", "d"], "item2": "hub", "wins1": wins, "wins2": losses}
    )
    fit = rs.models.BradleyTerry().fit(counts, method="mle")
    qv = fit.quasi_variances().table.set_index("system")
    n, p = wins + losses, wins / (wins + losses)
    np.testing.assert_allclose(qv.loc[list("abcd"), "quasi_var"], 1 / (n * p * (1 - p)), rtol=1e-6)
    assert abs(qv.loc["hub", "quasi_var"]) < 1e-6 * qv["quasi_var"].max()
    result = fit.quasi_variances()
    np.testing.assert_allclose(result.worst_pair, 0.0, atol=1e-6)
    np.testing.assert_allclose(qv["estimate"], fit.worth[qv.index])


def test_bt_fit_of_baseball_against_the_fisher_information_computed_here():
    counts = rs.load_paired("baseball")
    fit = rs.models.BradleyTerry().fit(counts, method="mle")
    systems = list(fit.systems)
    index = {s: k for k, s in enumerate(systems)}
    theta = fit.worth[systems].to_numpy()
    # I = Σ_pairs n p (1 − p) (e_i − e_j)(e_i − e_j)', the covariance its pseudo-inverse
    # (the centred parametrisation: I's null space is the constant vector).
    info = np.zeros((len(systems), len(systems)))
    for row in counts.itertuples():
        i, j = index[row.item1], index[row.item2]
        p = 1 / (1 + np.exp(theta[j] - theta[i]))
        e = np.zeros(len(systems))
        e[i], e[j] = 1.0, -1.0
        info += (row.wins1 + row.wins2) * p * (1 - p) * np.outer(e, e)
    direct = quasi_variances(np.linalg.pinv(info), theta, systems)
    qv = fit.quasi_variances()
    np.testing.assert_allclose(qv.table["quasi_var"], direct.table["quasi_var"], rtol=1e-6)
    np.testing.assert_allclose(
        qv.pairs["relative_error"], direct.pairs["relative_error"], atol=1e-7
    )
    # the pair's exact standard error is the fit's own (relative_to)
    rel = fit.relative_to(systems[0])
    first = qv.pairs[qv.pairs["system_a"] == systems[0]].set_index("system_b")
    np.testing.assert_allclose(first["se"], rel.loc[first.index, "se"], rtol=1e-10)


def test_posterior_draws_give_their_covariance_and_mallows_has_none():
    from rankstats._pymc import compat  # either ArviZ (0.x / 1.x)

    rng = np.random.default_rng(3)
    draws = rng.multivariate_normal(np.zeros(4), np.diag([0.1, 0.2, 0.3, 0.4]) + 0.05, 2000)
    idata = compat.from_dict(
        {"log_worth": draws[None]}, {"system": list("wxyz")}, {"log_worth": ["system"]}, {}
    )
    worth = pd.Series(draws.mean(axis=0), index=list("wxyz"))
    fit = Fit("pl", "nuts", tuple("wxyz"), idata, worth)
    expected = quasi_variances(np.cov(draws, rowvar=False))
    np.testing.assert_allclose(
        fit.quasi_variances().table["quasi_var"], expected.table["quasi_var"], rtol=1e-10
    )
    mallows = Fit("mallows", "map", tuple("wxyz"), None, worth)
    with pytest.raises(ValueError, match="'mallows' fit has none"):
        mallows.quasi_variances()


def test_forest_plot_draws_comparison_intervals():
    from rankstats.models.plots import forest_pages, forest_plot

    fit = rs.models.PlackettLuce().fit(rs.load_rankings("salad"), method="mle")
    fig = forest_plot(fit, ci_prob=0.95)
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert texts[0] == "Wald interval"
    assert texts[1] == "comparison, ±1.96 quasi-s.e."
    note = "comparison intervals: pair s.e. errors -2.4 % / +3.7 %"
    assert fig.axes[0].get_xlabel().endswith(note)
    for page in forest_pages(fit, per_page=2):  # every page says it
        assert page.axes[0].get_xlabel().endswith(note)


def test_fit_command_writes_quasi_standard_errors(tmp_path, capsys):
    from rankstats.cli import main

    out = tmp_path / "out"
    args = ["fit", "--rankings", "salad", "--method", "mle", "--no-figures", "--out", str(out)]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "quasi-se" in text and "worst relative errors" in text
    fit = rs.models.PlackettLuce().fit(rs.load_rankings("salad"), method="mle")
    qv = fit.quasi_variances().quasi_se
    worth = pd.read_csv(out / "pl_worth.csv").set_index("system")
    np.testing.assert_allclose(worth["quasi_se"], qv[worth.index], rtol=1e-9)
    record = json.loads((out / "pl_fit.json").read_text())["quasi_variances"]
    assert record["worst_pair_relative_errors"] == pytest.approx(
        list(fit.quasi_variances().worst_pair)
    )
