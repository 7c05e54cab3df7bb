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

from rankstats.core.bradley_terry_mle import ConvergenceError
from rankstats.errors import InvalidRankingsError
from rankstats.models._fit import Fit, optimum_fit
from rankstats.models.system_covariates import fit_random_effect, fit_with_covariates


class CovariateMLEError(InvalidRankingsError):
    """The maximum-likelihood estimate with these covariates was not found (it may not exist)."""


def fit_structured_mle(model: Any, prepared: Any, seed: int | None) -> Fit:
    """``model.fit(data, method="mle")`` for a model with covariates or a random effect."""
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
        "covariates": list(cmap.names),
        "own_log_worth": list(cmap.own),
        "random_effect": model.random_effect,
    }
    if model.random_effect:
        info["likelihood"] = "Laplace approximation, fixed effects at the joint mode"
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
    )
    se = np.sqrt(np.clip(np.diag(optimum.covariance), 0.0, None))
    for k, name in enumerate(cmap.parameter_names):
        fit.parameters[name] = float(optimum.params[k])
        fit.parameters[f"{name}_se"] = float(se[k])
    if optimum.sigma is not None:
        fit.parameters["sigma"] = optimum.sigma
        fit.parameters["sigma_se"] = np.nan if optimum.sigma_se is None else optimum.sigma_se
    return fit
