r"""Maximum likelihood of a rank model whose log-worths follow system covariates, with or
without a system random effect: the :class:`~rankstats.models.Fit` of ``method="mle"``.

The likelihood is the model's own (:meth:`RankModel._objective`: Plackett–Luce's or
Bradley–Terry's, Davidson's tie parameter included), through the chain rule of
:func:`~rankstats.models.system_covariates.fit_with_covariates` (fixed effects) or the Laplace
approximation of :func:`~rankstats.models.system_covariates.fit_random_effect`.  The fit reports
the centred log-worths :math:`\theta - \bar\theta` and their covariance (the delta method
through the centring), the coefficients ``beta: <covariate>``, the own log-worths
``own: <system>`` and ``sigma``, each with its ``_se``, in ``fit.parameters``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from rankstats._pymc import compat as _compat
from rankstats._util.arguments import probability
from rankstats.core.bradley_terry_mle import ConvergenceError
from rankstats.errors import InvalidRankingsError, InvalidScoresError
from rankstats.models._fit import Fit, laplace_draws, optimum_fit
from rankstats.models.system_covariates import fit_random_effect, fit_with_covariates


class CovariateMLEError(InvalidRankingsError):
    """The maximum-likelihood estimate with these covariates was not found (it may not exist)."""


def fit_structured_mle(
    model: Any, prepared: Any, seed: int | None, found: dict[str, Any] | None = None
) -> Fit:
    """``model.fit(data, method="mle")`` for a model with covariates or a random effect
    (``found``: what :func:`rankstats.models.information.check` recorded of the data)."""
    systems = tuple(prepared.systems)
    cmap = model._covariate_map(systems)
    extra = model._extra_names(prepared)
    function = model._objective(prepared, prior=False)
    try:
        if model.random_effect:
            optimum = fit_random_effect(function, cmap, len(extra))
        else:
            optimum = fit_with_covariates(function, cmap, len(extra))
    except ConvergenceError as err:
        raise CovariateMLEError(
            f"the maximum-likelihood estimate of {model!r} was not found ({err}): a system "
            "with a log-worth of its own that never wins or never loses, or covariates that "
            "separate winners from losers, make it infinite; sample the posterior "
            "(method='nuts') instead"
        ) from err
    n, p = cmap.matrix.shape
    centre = np.eye(n) - 1.0 / n
    size = n + len(extra)
    params = np.concatenate([centre @ optimum.log_worth, optimum.params[p:]])
    covariance = np.zeros((size, size))
    covariance[:n, :n] = centre @ optimum.worth_covariance @ centre
    covariance[n:, n:] = optimum.covariance[p:, p:]
    covariance[:n, n:] = centre @ cmap.matrix @ optimum.covariance[:p, p:]
    covariance[n:, :n] = covariance[:n, n:].T
    info = {
        **model._info(prepared),
        "prior_scale": model.prior_scale,
        **(found or {}),
        "covariates": list(cmap.names),
        "own_log_worth": list(cmap.own),
        "random_effect": model.random_effect,
    }
    k = len(cmap.names)
    if k:
        info["covariate_means"] = [float(v) for v in cmap.means]
    if model.random_effect:
        info["likelihood"] = "Laplace approximation, fixed effects at the joint mode"
    # Joint normal draws of every parameter, so that the log-worths and β of one draw agree
    # (predict_worth reads both).
    full = laplace_draws(optimum.full_params, optimum.full_covariance, 4000, seed)
    m = optimum.full_map.shape[1]
    theta = full[:, :m] @ optimum.full_map.T
    draws = np.hstack([theta - theta.mean(axis=1, keepdims=True), full[:, m:]])
    more = {}
    if k:
        more["beta"] = (full[:, :k], "covariate", list(cmap.names))
    if cmap.own:
        more["own"] = (full[:, k:p], "own_system", list(cmap.own))
    fit = optimum_fit(
        model.name,
        "mle",
        systems,
        params,
        covariance,
        optimum.objective,
        extra,
        info,
        seed,
        draws=draws,
        more=more,
    )
    se = np.sqrt(np.clip(np.diag(optimum.covariance), 0.0, None))
    found = {}
    for k, name in enumerate(cmap.parameter_names):
        found[name] = float(optimum.params[k])
        found[f"{name}_se"] = float(se[k])
    if optimum.sigma is not None:
        found["sigma"] = optimum.sigma
        found["sigma_se"] = np.nan if optimum.sigma_se is None else optimum.sigma_se
    fit.parameters.update(found)
    _compat.set_attrs(fit.idata, {f"param_{k}": v for k, v in found.items()})  # kept by save
    return fit


def listed(value: Any) -> list[str]:
    """A list of names from ``fit.info`` (a NetCDF round trip stores a one-name list as the
    name itself, and any list as an array)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in np.atleast_1d(value)]


def predict_worth(
    fit: Fit, covariates: pd.DataFrame, prob: float = 0.95, new_system: bool = False
) -> pd.DataFrame:
    r"""The log-worth of a system with the given covariates, on the scale of ``fit.worth``.

    For covariates :math:`x` the prediction is
    :math:`\hat\theta(x) = (x - \bar x)^\top\beta + \overline{\theta}_{\text{cov}}`, with
    :math:`\bar x` and :math:`\overline{\theta}_{\text{cov}}` the mean covariates and mean
    (centred) log-worth of the fitted systems that have covariates: a system whose random
    effect is their average one.  So :math:`\hat\theta(x) - \theta_j` is the log-odds of
    "a system with covariates x above system j" (Bradley–Terry; Plackett–Luce for the pair),
    and ``fit.worth`` at a fitted system's own covariates is, without a random effect, its
    prediction.  ``new_system=True`` adds a new system's random effect
    :math:`u \sim N(0, \sigma^2)` (the predictive interval of one new system, not of the
    average one).

    Computed on every draw of the fit (the posterior for ``nuts``; joint normal draws for
    ``mle``, with the estimate itself at the MLE and ``new_system`` taking σ̂ as known).

    Parameters
    ----------
    fit : Fit
        A Plackett–Luce or Bradley–Terry fit with covariates (``covariates=`` in the model).
    covariates : DataFrame
        One row per system to predict (any index), a column for each of the fit's covariates.
    prob : float
        Interval probability (equal-tailed quantiles of the draws).
    new_system : bool
        Include a new system's random effect (fits with ``random_effect=True``).

    Returns
    -------
    DataFrame
        Indexed like ``covariates``: ``estimate`` (the MLE, or the posterior mean), ``se`` (sd
        of the draws), ``low``, ``high``.
    """
    probability("prob", prob)
    names = listed(fit.info.get("covariates"))
    if not names:
        raise ValueError("predict_worth needs a fit with system covariates (covariates=...)")
    if not isinstance(covariates, pd.DataFrame):
        raise TypeError(f"covariates must be a DataFrame, not {type(covariates).__name__}")
    missing = [c for c in names if c not in covariates.columns]
    if missing:
        raise InvalidScoresError(
            f"covariates lack column(s) {', '.join(map(repr, missing))} of the fit "
            f"(its covariates: {', '.join(map(repr, names))})"
        )
    probability("prob", prob)
    if new_system and "sigma" not in fit.parameters:
        raise ValueError("new_system=True needs a fit with random_effect=True")
    x = np.empty((len(covariates), len(names)))
    for k, name in enumerate(names):
        column = covariates[name]
        if not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
            raise InvalidScoresError(f"covariate {name!r} is not numeric")
        x[:, k] = column.to_numpy(dtype=np.float64, na_value=np.nan)
        bad = np.flatnonzero(~np.isfinite(x[:, k]))
        if len(bad):
            raise InvalidScoresError(
                f"covariate {name!r} is missing or infinite for row {covariates.index[bad[0]]!r}"
            )
    covered = [s for s in fit.systems if s not in set(listed(fit.info.get("own_log_worth")))]
    centre = np.atleast_1d(np.asarray(fit.info["covariate_means"], dtype=np.float64))
    draws = fit.draws()
    theta = pd.DataFrame(draws["log_worth"], columns=list(fit.systems))[covered].to_numpy()
    values = (x - centre) @ draws["beta"].T + theta.mean(axis=1)  # (rows, draws)
    if new_system:
        rng = np.random.default_rng(fit.info.get("seed"))
        sigma = (
            draws["sigma"]
            if "sigma" in draws
            else np.full(values.shape[1], fit.parameters["sigma"])
        )
        values = values + sigma * rng.standard_normal(values.shape)
    if fit.method == "nuts":
        estimate = values.mean(axis=1)
    else:
        beta = np.array([fit.parameters[f"beta: {name}"] for name in names])
        estimate = (x - centre) @ beta + fit.worth[covered].mean()
    low, high = np.quantile(values, [(1 - prob) / 2, (1 + prob) / 2], axis=1)
    return pd.DataFrame(
        {"estimate": estimate, "se": values.std(axis=1, ddof=1), "low": low, "high": high},
        index=covariates.index,
    )
