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

import warnings
from typing import Any

import numpy as np
import pandas as pd

from rankstats._pymc import compat as _compat
from rankstats._util.advice import Spelled
from rankstats._util.arguments import probability
from rankstats._util.renamed import renamed_parameters
from rankstats._util.user_frame import user_stacklevel
from rankstats.core.bradley_terry_mle import ConvergenceError, check_own_worths
from rankstats.core.firth import FIRTH
from rankstats.errors import DataWarning, InvalidRankingsError, InvalidScoresError, preview
from rankstats.models._fit import Fit, laplace_draws, optimum_fit
from rankstats.models.coefficient_table import listed
from rankstats.models.random_effect_pql import fit_pql
from rankstats.models.system_covariates import fit_random_effect, fit_with_covariates

#: What to do when a system without covariates never wins or never loses.
OWN_HINT = Spelled(
    "Fit with bias_reduction=True (Firth's penalised likelihood: finite estimates and standard "
    "errors, as BradleyTerry2's br = TRUE), give the system covariate values, or sample the "
    "posterior (method='nuts').",
    "Fit with --bias-reduction (Firth's penalised likelihood: finite estimates and standard "
    "errors, as BradleyTerry2's br = TRUE), give the system covariate values, or sample the "
    "posterior (--method nuts).",
)


class CovariateMLEError(InvalidRankingsError):
    """The maximum-likelihood estimate with these covariates was not found (it may not exist)."""


#: The estimator of each structured fit, as ``fit.info["estimator"]`` names it.
ESTIMATORS = {"pql": "pql", "mle": "laplace"}
LIKELIHOODS = {
    "laplace": "Laplace approximation, fixed effects at the joint mode",
    "pql": "penalised quasi-likelihood (Breslow & Clayton 1993), σ by REML of the working "
    "model; log_likelihood: the Laplace approximation at these estimates",
}


def fit_structured_mle(
    model: Any,
    prepared: Any,
    seed: int | None,
    found: dict[str, Any] | None = None,
    method: str = "mle",
    bias_reduction: bool = False,
) -> Fit:
    """``model.fit(data, method="mle")`` for a model with covariates or a random effect, or
    ``method="pql"`` (a random effect; :mod:`rankstats.models.random_effect_pql`) (``found``:
    what :func:`rankstats.models.information.check` recorded of the data; ``bias_reduction``:
    Firth's estimate, :mod:`rankstats.core.firth`)."""
    systems = tuple(prepared.systems)
    cmap = model._covariate_map(systems)
    extra = model._extra_names(prepared)
    estimator = ESTIMATORS[method] if model.random_effect else "mle"
    optimum = _optimum(model, prepared, cmap, len(extra), estimator, bias_reduction)
    params, covariance, finite = _centred(optimum, cmap, len(extra))
    info = {
        **model._info(prepared),
        "prior_scale": model.prior_scale,
        **(found or {}),
        "covariates": list(cmap.names),
        "own_log_worth": list(cmap.own),
        "random_effect": model.random_effect,
    }
    if cmap.names:
        info["covariate_means"] = [float(v) for v in cmap.means]
    info["estimator"] = estimator
    if model.random_effect:
        info["likelihood"] = LIKELIHOODS[estimator]
    if not finite.all():
        info["unbounded_own"] = _warn_unbounded(systems, optimum.log_worth, finite)
    if bias_reduction:
        info["bias_reduction"] = FIRTH
    draws, more = _joint_draws(optimum, cmap, finite, seed)
    fit = optimum_fit(
        model.name,
        method,
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
    found = _estimates(optimum, cmap)
    fit.parameters.update(found)
    _compat.set_attrs(fit.idata, {f"param_{k}": v for k, v in found.items()})  # kept by save
    return fit


def _optimum(
    model: Any, prepared: Any, cmap: Any, n_extra: int, estimator: str, bias_reduction: bool
) -> Any:
    """The (penalised, or random-effect) estimate; its failure said as the user's problem."""
    function = model._objective(prepared, prior=False)
    if not (bias_reduction or model.random_effect):
        # a system without covariates that never loses: no MLE, named (a random effect's fit
        # gives it an infinite own log-worth and a warning instead, as BTm does)
        check_own_worths(cmap.systems, model._beats(prepared), cmap.own, OWN_HINT)
    try:
        if estimator == "pql":
            return fit_pql(function, cmap, n_extra, model._beats(prepared))
        if model.random_effect:
            return fit_random_effect(function, cmap, n_extra, model._beats(prepared))
        return fit_with_covariates(function, cmap, n_extra, bias_reduction)
    except ConvergenceError as err:
        raise CovariateMLEError(
            f"the {'bias-reduced' if bias_reduction else 'maximum-likelihood'} estimate of "
            f"{model!r} was not found ({err}): "
            + (
                "the covariates and log-worths of their own are not identified by these comparisons"
                if bias_reduction
                else "covariates that separate winners from losers make it infinite; fit "
                "with bias_reduction=True (Firth's penalised likelihood) or sample the "
                "posterior (method='nuts') instead"
            )
        ) from err


def _centred(optimum: Any, cmap: Any, n_extra: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centred log-worths and extra parameters, their covariance, and which log-worths are
    finite (±∞: own log-worths of unbeaten / winless systems, with NaN covariances)."""
    n, p = cmap.matrix.shape
    finite = np.isfinite(optimum.log_worth)
    centre = np.eye(n) - finite / finite.sum()
    size = n + n_extra
    log_worth = optimum.log_worth - optimum.log_worth[finite].mean()
    params = np.concatenate([log_worth, optimum.params[p:]])
    covariance = np.zeros((size, size))
    covariance[:n, :n] = centre @ optimum.worth_covariance @ centre
    covariance[n:, n:] = optimum.covariance[p:, p:]
    kept = np.flatnonzero(np.isfinite(optimum.params[:p]))  # an infinite own one: no covariance
    covariance[:n, n:] = centre @ cmap.matrix[:, kept] @ optimum.covariance[kept, p:]
    covariance[n:, :n] = covariance[:n, n:].T
    unbounded = np.flatnonzero(~finite)
    covariance[unbounded, :] = covariance[:, unbounded] = np.nan
    return params, covariance, finite


def _warn_unbounded(systems: tuple[str, ...], log_worth: np.ndarray, finite: np.ndarray):
    """Warn of the systems with an infinite own log-worth; returns their names."""
    unbounded = np.flatnonzero(~finite)
    said = [f"{systems[i]} never {'loses' if log_worth[i] > 0 else 'wins'}" for i in unbounded]
    warnings.warn(
        f"{preview(said)}, with a log-worth of its own (no covariates): infinite (±inf in "
        "fit.worth; BTm prints a huge estimate with a huge standard error), and its "
        "comparisons tell nothing about the others",
        DataWarning,
        stacklevel=user_stacklevel(),
    )
    return [systems[i] for i in unbounded]


def _joint_draws(optimum: Any, cmap: Any, finite: np.ndarray, seed: int | None):
    """Joint normal draws of every parameter, so that the log-worths and β of one draw agree
    (predict_worth reads both): ``(draws, more)`` as :func:`optimum_fit` takes them."""
    n, p = cmap.matrix.shape
    k = len(cmap.names)
    full = laplace_draws(optimum.full_params, optimum.full_covariance, 4000, seed)
    m = optimum.full_map.shape[1]
    theta = full[:, :m] @ optimum.full_map.T
    # An infinite log-worth enters the draws as ±PINNED (the same probabilities to within
    # double precision), so that ranks and pairs of draws stay defined.
    unbounded = np.flatnonzero(~finite)
    if len(unbounded):
        theta[:, unbounded] = optimum.full_offset[unbounded]
    theta -= theta[:, finite].mean(axis=1, keepdims=True)
    draws = np.hstack([theta, full[:, m:]])
    more = {}
    if k:
        more["beta"] = (full[:, :k], "covariate", list(cmap.names))
    if cmap.own:  # the own log-worths estimated follow β in ψ; an infinite one is ±PINNED
        kept = np.flatnonzero(np.isfinite(optimum.params[:p]))
        offset = np.zeros(n) if optimum.full_offset is None else optimum.full_offset
        own = np.repeat(offset[~cmap.covered][None, :], len(full), axis=0)
        own[:, kept[k:] - k] = full[:, k : len(kept)]
        more["own"] = (own, "own_system", list(cmap.own))
    return draws, more


def _estimates(optimum: Any, cmap: Any) -> dict[str, float]:
    """The covariate effects, own log-worths and σ with their standard errors, by name."""
    se = np.sqrt(np.clip(np.diag(optimum.covariance), 0.0, None))
    found = {}
    for k, name in enumerate(cmap.parameter_names):
        found[name] = float(optimum.params[k])
        found[f"{name}_se"] = float(se[k])
    if optimum.sigma is not None:
        found["sigma"] = optimum.sigma
        found["sigma_se"] = np.nan if optimum.sigma_se is None else optimum.sigma_se
    return found


@renamed_parameters(prob="ci_prob")
def predict_worth(
    fit: Fit, covariates: pd.DataFrame, ci_prob: float = 0.95, new_system: bool = False
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
    ci_prob : float
        Interval probability (equal-tailed quantiles of the draws).
    new_system : bool
        Include a new system's random effect (fits with ``random_effect=True``).

    Returns
    -------
    DataFrame
        Indexed like ``covariates``: ``estimate`` (the MLE, or the posterior mean), ``se`` (sd
        of the draws), ``low``, ``high``.
    """
    probability("ci_prob", ci_prob)
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
    probability("ci_prob", ci_prob)
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
    low, high = np.quantile(values, [(1 - ci_prob) / 2, (1 + ci_prob) / 2], axis=1)
    return pd.DataFrame(
        {"estimate": estimate, "se": values.std(axis=1, ddof=1), "low": low, "high": high},
        index=covariates.index,
    )
