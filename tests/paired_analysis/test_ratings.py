"""TrueSkill's truncated-Gaussian corrections against scipy.stats.truncnorm; Bradley–Terry
strengths are the one Bradley–Terry MLE (rankstats.core.bradley_terry_mle), also behind rs.models
and paired."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats.core.bradley_terry_mle import MLEDoesNotExistError, fit_bt, pairs_from_matrices
from rankstats.paired_analysis.ratings import _v_w_draw, _v_w_win, bradley_terry, win_matrix


@pytest.mark.parametrize("t", [-30.0, -6.0, -0.4, 0.0, 0.3, 2.5, 9.0, 30.0])
def test_v_w_equal_truncated_normal_moments(t):
    # For N(t, 1) truncated to an interval, v = E[Z] and w = 1 − Var[Z] with Z = X − t
    # (Herbrich et al. 2007): a win truncates to (ε, ∞), a draw to [−ε, ε].
    eps = 0.7
    for (lo, hi), function in (((eps, np.inf), _v_w_win), ((-eps, eps), _v_w_draw)):
        mean, var = stats.truncnorm.stats(lo - t, hi - t, moments="mv")
        v, w = function(np.array([t]), np.array([eps]))
        assert v[0] == pytest.approx(float(mean), rel=1e-7, abs=1e-9), (t, function.__name__)
        assert w[0] == pytest.approx(1 - float(var), rel=1e-6, abs=1e-9), (t, function.__name__)


def _counts_frame(w: np.ndarray, t: np.ndarray, systems: list[str]) -> pd.DataFrame:
    i, j = np.triu_indices(len(systems), 1)
    names = np.array(systems, dtype=object)
    return pd.DataFrame(
        {"item1": names[i], "item2": names[j], "wins1": w[i, j], "wins2": w[j, i], "ties": t[i, j]}
    )


def test_bradley_terry_is_the_one_mle():
    """ratings.bradley_terry (a draw half a win each way) returns what the one Bradley–Terry MLE
    (rankstats.core.bradley_terry_mle.fit_bt) and rs.models.BradleyTerry(method="mle") return on the
    same counts."""
    rng = np.random.default_rng(4)
    x = np.round(rng.normal(size=(60, 6)) + np.arange(6) * 0.3, 1)
    systems = list("abcdef")
    strengths = bradley_terry(x, systems)
    wins, draws = win_matrix(x)
    w = wins + 0.5 * draws
    np.testing.assert_array_equal(strengths, fit_bt(pairs_from_matrices(w), ties=False).params)
    fit = rs.models.BradleyTerry(ties="ignore").fit(
        _counts_frame(w, np.zeros_like(w), systems), method="mle"
    )
    np.testing.assert_allclose(fit.worth[systems], strengths, atol=1e-12)
    # When the MLE does not exist, the same error as the models (a ValueError) names the systems.
    with pytest.raises(MLEDoesNotExistError, match=r"never lose \(nor tie\), 1: b"):
        bradley_terry(np.array([[1.0, 2.0, 0.0], [2.0, 3.0, 2.5]]), ["a", "b", "c"])


def test_davidson_route_of_paired_is_the_models_mle():
    rng = np.random.default_rng(4)
    x = np.round(rng.normal(np.linspace(0, 1.2, 5), 1.0, size=(80, 5)), 0)  # many ties
    systems = list("abcde")
    res = rs.paired(pd.DataFrame(x, columns=systems), n_resamples=20, bt_ties="davidson")
    wins, draws = win_matrix(x)
    fit = rs.models.BradleyTerry(ties="davidson").fit(
        _counts_frame(wins, draws, systems), method="mle"
    )
    np.testing.assert_allclose(res.strengths["bt"], fit.worth[systems], atol=1e-12)
    assert res.parameters["bt_tie_nu"] == pytest.approx(fit.parameters["tie"], rel=1e-12)
