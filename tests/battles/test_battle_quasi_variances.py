"""Quasi-variances of battle ratings: the Fisher covariance's, on either scale, whatever the
anchor; in the leaderboard and as comparison intervals in the figure."""

from __future__ import annotations

import numpy as np
import pytest

from rankstats.battles.battle_fit import ELO_SCALE
from rankstats.battles.battle_options import EloScale
from rankstats.battles.fitting import fit_battles
from rankstats.battles.log import read_battles, simulate_battles
from rankstats.models import quasi_variances


@pytest.fixture(scope="module")
def fits():
    frame, _ = simulate_battles(6, 4000, order_effect=0.3, tie=-0.3, seed=11)
    battles = read_battles(frame)
    return fit_battles(battles, n_resamples=0), fit_battles(
        battles, n_resamples=0, elo=EloScale(anchor="model-002")
    )


def test_battle_quasi_variances_are_those_of_the_fisher_covariance(fits):
    fit, anchored = fits
    n = fit.n_models
    # the ratings' block of the covariance only (the order effect and the tie parameter are
    # other parameters, correlated with the ratings but not compared with them)
    direct = quasi_variances(fit.covariance[:n, :n], fit.log_worth, fit.models)
    log = fit.quasi_variances("log")
    np.testing.assert_allclose(log.table["quasi_var"], direct.table["quasi_var"], rtol=1e-12)
    elo = fit.quasi_variances()
    np.testing.assert_allclose(elo.table["quasi_se"], ELO_SCALE * log.table["quasi_se"])
    np.testing.assert_allclose(elo.pairs["relative_error"], log.pairs["relative_error"], atol=1e-9)
    # an anchor moves every rating by the same amount: no quasi-variance changes
    np.testing.assert_allclose(
        anchored.quasi_variances().table["quasi_var"], elo.table["quasi_var"], rtol=1e-12
    )
    # the exact s.e. of each difference is the one the Wald tests use
    wald = fit.differences().set_index(["model_a", "model_b"])["se"]
    pairs = elo.pairs.set_index(["system_a", "system_b"])["se"]
    for (a, b), se in pairs.items():
        assert se == pytest.approx(wald.get((a, b), wald.get((b, a))), rel=1e-10)
    with pytest.raises(ValueError, match="scale"):
        fit.quasi_variances("points")


def test_leaderboard_and_figure_show_the_quasi_standard_errors(fits):
    fit, _ = fits
    table = fit.table().set_index("model")
    qv = fit.quasi_variances().quasi_se
    np.testing.assert_allclose(table["quasi_se"], qv[table.index])
    fig = fit.plot()
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    errors = fit.quasi_variances().worst_pair
    assert "comparison, ±1.96 quasi-s.e." in texts
    low, high = (round(100 * e, 1) + 0.0 for e in errors)
    assert f"pair s.e. errors {low:+.1f} % / {high:+.1f} %" in fig.axes[0].get_xlabel()
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_battles_command_writes_quasi_standard_errors(tmp_path, capsys):
    import json

    import pandas as pd

    from rankstats.cli import main

    frame, _ = simulate_battles(4, 1500, seed=5)
    log = tmp_path / "battles.csv"
    frame.to_csv(log, index=False)
    out = tmp_path / "out"
    assert main(["battles", str(log), "--n-resamples", "0", "--no-figures", "--out", str(out)]) == 0
    assert "comparison intervals rating ± 1.96 quasi_se" in capsys.readouterr().out
    fit = fit_battles(read_battles(frame), n_resamples=0)
    ratings = pd.read_csv(out / "ratings.csv").set_index("model")
    qv = fit.quasi_variances()
    np.testing.assert_allclose(ratings["quasi_se"], qv.quasi_se[ratings.index], rtol=1e-9)
    record = json.loads((out / "summary.json").read_text())["quasi_variances"]
    assert record["worst_pair_high"] == pytest.approx(qv.worst_pair[1])
