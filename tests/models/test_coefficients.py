"""``Fit.coefficients``: the coefficients of a fit with system covariates or a random effect,
with their intervals, checked against independent computations (statsmodels' binomial GLM and
``scipy.stats.norm`` for the Wald interval; NumPy quantiles of the draws for the posterior)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats._pymc import compat as _compat


def _counts(n: int = 14, per_pair: int = 30, seed: int = 3):
    """Bradley–Terry paired counts whose log-worths follow two covariates."""
    rng = np.random.default_rng(seed)
    systems = [f"s{k}" for k in range(n)]
    x = rng.normal(size=(n, 2))
    theta = x @ np.array([0.8, -0.5]) + 0.3 * rng.normal(size=n)
    i, j = np.triu_indices(n, 1)
    wins1 = rng.binomial(per_pair, 1 / (1 + np.exp(theta[j] - theta[i])))
    frame = pd.DataFrame(
        {
            "item1": np.array(systems)[i],
            "item2": np.array(systems)[j],
            "wins1": wins1,
            "wins2": per_pair - wins1,
        }
    )
    return frame, pd.DataFrame(x, index=systems, columns=["a", "b"]), i, j


@pytest.mark.parametrize("ci_prob", [0.95, 0.8])
def test_wald_intervals_are_the_glm_s(ci_prob) -> None:
    """Fixed effects only: the fit is the binomial GLM on covariate differences (no intercept);
    its coefficients, standard errors and Wald intervals are statsmodels'."""
    import statsmodels.api as sm

    frame, covariates, i, j = _counts()
    fit = rs.models.BradleyTerry(covariates=covariates).fit(frame, method="mle")
    x = covariates.to_numpy()
    glm = sm.GLM(
        frame[["wins1", "wins2"]].to_numpy(), x[i] - x[j], family=sm.families.Binomial()
    ).fit(tol=1e-12)
    table = fit.coefficients(ci_prob=ci_prob)
    assert list(table.index) == ["beta: a", "beta: b"]
    assert table.index.name == "parameter"
    np.testing.assert_allclose(table["estimate"], glm.params, atol=1e-6)
    np.testing.assert_allclose(table["se"], glm.bse, rtol=1e-5)
    low, high = glm.conf_int(alpha=1 - ci_prob).T
    np.testing.assert_allclose(table["low"], low, atol=1e-5)
    np.testing.assert_allclose(table["high"], high, atol=1e-5)


def test_wald_intervals_with_own_worths_and_sigma() -> None:
    """Every row, σ and own log-worths included: ``scipy.stats.norm.interval`` around the
    estimate with the standard error of ``fit.parameters``."""
    frame, covariates, _, _ = _counts(n=10, seed=5)
    model = rs.models.BradleyTerry(covariates=covariates.drop(index="s1"), random_effect=True)
    fit = model.fit(frame, method="mle")
    table = fit.coefficients(0.9)
    assert list(table.index) == ["beta: a", "beta: b", "own: s1", "sigma"]
    for name, row in table.iterrows():
        estimate, se = fit.parameters[name], fit.parameters[f"{name}_se"]
        low, high = stats.norm.interval(0.9, loc=estimate, scale=se)
        assert (row["estimate"], row["se"]) == (estimate, se)
        assert row["low"] == pytest.approx(low, abs=1e-12)
        assert row["high"] == pytest.approx(high, abs=1e-12)


def test_posterior_intervals_are_quantiles_of_the_draws() -> None:
    """A sampled fit: the equal-tailed quantiles of each coefficient's draws (a fit with known
    draws put in place of the posterior, so the test needs no sampler)."""
    frame, covariates, _, _ = _counts(n=10, seed=5)
    model = rs.models.BradleyTerry(covariates=covariates.drop(index="s1"), random_effect=True)
    mle = model.fit(frame, method="mle")
    rng = np.random.default_rng(0)
    beta = rng.normal(size=(2, 300, 2)) * [0.1, 0.3] + [0.8, -0.5]
    own = rng.normal(size=(2, 300, 1)) + 1.0
    sigma = rng.gamma(4.0, 0.1, size=(2, 300))
    idata = _compat.from_dict(
        {"beta": beta, "own": own, "sigma": sigma},
        coords={"covariate": ["a", "b"], "own_system": ["s1"]},
        dims={"beta": ["covariate"], "own": ["own_system"]},
        attrs={},
    )
    fit = dataclasses.replace(mle, method="nuts", idata=idata)
    table = fit.coefficients(ci_prob=0.9)
    columns = {
        "beta: a": beta[..., 0],
        "beta: b": beta[..., 1],
        "own: s1": own[..., 0],
        "sigma": sigma,
    }
    for name, values in columns.items():
        low, high = np.quantile(values.ravel(), [0.05, 0.95])
        assert table.loc[name, "low"] == pytest.approx(low, abs=1e-12), name
        assert table.loc[name, "high"] == pytest.approx(high, abs=1e-12), name
        assert table.loc[name, "estimate"] == fit.parameters[name]


def test_a_fit_without_coefficients_and_a_bad_probability_are_refused() -> None:
    frame, covariates, _, _ = _counts(n=6)
    free = rs.models.BradleyTerry().fit(frame, method="mle")
    with pytest.raises(ValueError, match=r"covariates=\.\.\., random_effect=True"):
        free.coefficients()
    fit = rs.models.BradleyTerry(covariates=covariates).fit(frame, method="mle")
    with pytest.raises(ValueError, match="ci_prob"):
        fit.coefficients(ci_prob=1.5)
