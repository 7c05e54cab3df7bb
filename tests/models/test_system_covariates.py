"""Bradley–Terry with system covariates (issue 27, item 1): the MLE against a binomial GLM
written independently (statsmodels), the identification checks, systems without covariates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import rankstats as rs
from rankstats.errors import InvalidScoresError
from rankstats.models.system_covariates import covariate_map


def _counts(seed: int = 0, n: int = 12, m: int = 40):
    rng = np.random.default_rng(seed)
    systems = [f"s{k}" for k in range(n)]
    x = rng.normal(size=(n, 2))
    theta = x @ np.array([0.8, -0.5])
    theta[[3, 7]] = rng.normal(size=2)  # s3, s7: no covariates below
    i, j = np.triu_indices(n, 1)
    wins1 = rng.binomial(m, 1 / (1 + np.exp(-(theta[i] - theta[j])))).astype(float)
    frame = pd.DataFrame(
        {
            "item1": [systems[k] for k in i],
            "item2": [systems[k] for k in j],
            "wins1": wins1,
            "wins2": m - wins1,
        }
    )
    covariates = pd.DataFrame(x, index=systems, columns=["size", "age"]).drop(index=["s3"])
    covariates.loc["s7", "age"] = np.nan
    return frame, covariates, systems, i, j


def test_the_mle_is_a_binomial_glm() -> None:
    frame, covariates, *_ = _counts()
    fit = rs.models.BradleyTerry(covariates=covariates).fit(frame, method="mle")
    # The GLM: a column per coefficient, x_a − x_b; a ±1 column per system without covariates.
    cmap = covariate_map(fit.systems, covariates)
    index = {s: k for k, s in enumerate(fit.systems)}
    a = cmap.matrix
    ia = frame["item1"].map(index).to_numpy()
    ib = frame["item2"].map(index).to_numpy()
    glm = sm.GLM(
        frame[["wins1", "wins2"]].to_numpy(), a[ia] - a[ib], family=sm.families.Binomial()
    ).fit(tol=1e-12)
    names = cmap.parameter_names
    np.testing.assert_allclose([fit.parameters[n] for n in names], glm.params, atol=1e-6)
    np.testing.assert_allclose([fit.parameters[f"{n}_se"] for n in names], glm.bse, rtol=1e-6)
    theta = a @ glm.params
    np.testing.assert_allclose(fit.worth.loc[list(fit.systems)], theta - theta.mean(), atol=1e-6)
    assert fit.info["own_log_worth"] == ["s3", "s7"]


@pytest.mark.parametrize(
    ("covariates", "match"),
    [
        (
            pd.DataFrame({"one": 1.0, "x": np.arange(12.0)}, index=[f"s{k}" for k in range(12)]),
            "span a constant",
        ),
        (
            pd.DataFrame(
                {"x": np.arange(12.0), "y": 2 * np.arange(12.0)}, index=[f"s{k}" for k in range(12)]
            ),
            "the covariates 'x', 'y' are collinear",
        ),
        (  # the collinear pair named, the independent third covariate not
            pd.DataFrame(
                {"z": np.sin(np.arange(12.0)), "x": np.arange(12.0), "y": 3e18 * np.arange(12.0)},
                index=[f"s{k}" for k in range(12)],
            ),
            "the covariates 'x', 'y' are collinear",
        ),
        (pd.DataFrame({"x": [1.0]}, index=["nobody"]), "'nobody'"),
        (pd.DataFrame({"x": ["big"] * 12}, index=[f"s{k}" for k in range(12)]), "not numeric"),
    ],
)
def test_unidentified_or_bad_covariates_are_refused(covariates, match) -> None:
    frame, *_ = _counts()
    with pytest.raises(InvalidScoresError, match=match):
        rs.models.BradleyTerry(covariates=covariates).fit(frame, method="mle")


def test_map_is_refused_with_covariates() -> None:
    frame, covariates, *_ = _counts()
    with pytest.raises(ValueError, match="method='mle'"):
        rs.models.BradleyTerry(covariates=covariates).fit(frame, method="map")


def test_raw_scale_covariates_are_identified_and_fit_as_rescaled_ones() -> None:
    """FLOP counts (~1e18) beside a 0/1 column are independent (the check is scale-free); the
    coefficients of the raw columns are those of the rescaled ones divided by the scale, and
    both fits are the binomial GLM on the rescaled design."""
    frame, covariates, *_ = _counts()
    scaled = covariates.copy()
    covariates = covariates.assign(size=covariates["size"] * 1e18 + 5e18)
    raw = rs.models.BradleyTerry(covariates=covariates).fit(frame, method="mle").parameters
    small = (
        rs.models.BradleyTerry(covariates=scaled.assign(size=scaled["size"] + 5))
        .fit(frame, method="mle")
        .parameters
    )
    np.testing.assert_allclose(raw["beta: size"] * 1e18, small["beta: size"], rtol=1e-6)
    np.testing.assert_allclose(raw["beta: age"], small["beta: age"], rtol=1e-6)
