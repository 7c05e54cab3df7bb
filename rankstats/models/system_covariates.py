r"""System covariates in Bradley–Terry: log-worths as a linear function of the systems' covariates.

A system ``i`` with covariates :math:`x_i` (a row of the user's table) has the log-worth

.. math:: \theta_i = x_i^\top \beta,

and a system without (absent from the table, or with a missing value) keeps a log-worth of its
own, as BradleyTerry2's ``BTm`` does for players with missing covariates (Turner & Firth 2012,
§ "Missing values").  So :math:`\theta = A\varphi` with
:math:`\varphi = (\beta, \theta_{\text{own}})` and a fixed matrix :math:`A`
(:class:`CovariateMap`), and the Bradley–Terry likelihood
(:mod:`rankstats.core.bradley_terry_likelihood`) is maximised over :math:`\varphi` (and
Davidson's tie parameter): gradient :math:`A^\top g_\theta`, Hessian :math:`A^\top H_\theta A`
by the chain rule (:func:`fit_with_covariates`), standard errors from the observed information.

**Identification.**  The likelihood depends on differences of log-worths only, so a shift
:math:`\theta \to \theta + c` must not be reachable through :math:`\varphi`: the covariates of the
systems that have them must not span the constant (no intercept column, no dummies adding up to
one) and must be linearly independent.  Both are checked before fitting, and the message names the
columns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from rankstats.core.bradley_terry_mle import firth_newton, newton
from rankstats.errors import InvalidScoresError


@dataclass(frozen=True, eq=False)
class CovariateMap:
    """How the log-worths follow from the parameters: :math:`\\theta = A\\varphi`.

    Attributes
    ----------
    systems : tuple of str
    names : tuple of str
        The covariates (the coefficients :math:`\\beta`, first in :math:`\\varphi`).
    own : tuple of str
        The systems without covariates, each with a log-worth of its own (after :math:`\\beta`).
    matrix : ndarray, shape (N, K + len(own))
        :math:`A`.
    """

    systems: tuple[str, ...]
    names: tuple[str, ...]
    own: tuple[str, ...]
    matrix: np.ndarray

    @property
    def covered(self) -> np.ndarray:
        """Whether each system has covariates (no log-worth of its own), a boolean mask."""
        return ~self.matrix[:, len(self.names) :].any(axis=1)

    @property
    def means(self) -> np.ndarray:
        """The mean covariates of the systems that have them, :math:`\\bar x`."""
        return self.matrix[self.covered, : len(self.names)].mean(axis=0)

    @property
    def parameter_names(self) -> list[str]:
        return [f"beta: {name}" for name in self.names] + [f"own: {s}" for s in self.own]


def covariate_map(systems: Sequence[str], covariates: pd.DataFrame) -> CovariateMap:
    """The :class:`CovariateMap` of ``covariates`` (one row per system, indexed by its name; numeric
    columns) for ``systems``; errors name the offending system or column."""
    if not isinstance(covariates, pd.DataFrame):
        raise TypeError(f"covariates must be a DataFrame indexed by system, not {type(covariates)}")
    systems = tuple(str(s) for s in systems)
    index = [str(s) for s in covariates.index]
    unknown = sorted(set(index) - set(systems))
    if unknown:
        raise InvalidScoresError(
            f"covariates name system(s) {', '.join(map(repr, unknown[:5]))} that the data do "
            f"not have; its systems: {', '.join(map(repr, systems[:8]))}"
        )
    if len(set(index)) != len(index):
        twice = sorted({s for s in index if index.count(s) > 1})
        raise InvalidScoresError(f"covariates have several rows for {', '.join(map(repr, twice))}")
    names = tuple(str(c) for c in covariates.columns)
    if not names:
        raise InvalidScoresError("covariates have no column")
    values = np.full((len(systems), len(names)), np.nan)
    rows = [systems.index(s) for s in index]
    for k, column in enumerate(covariates.columns):
        raw = covariates[column]
        if pd.api.types.is_bool_dtype(raw) or not pd.api.types.is_numeric_dtype(raw):
            raise InvalidScoresError(
                f"covariate column {str(column)!r} is not numeric (code categories as 0/1 "
                "columns, one fewer than the categories)"
            )
        column_values = raw.to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isinf(column_values).any():
            where = index[int(np.flatnonzero(np.isinf(column_values))[0])]
            raise InvalidScoresError(f"covariate {str(column)!r} is infinite for {where!r}")
        values[rows, k] = column_values
    covered = ~np.isnan(values).any(axis=1)
    x = values[covered]
    if np.linalg.matrix_rank(x) < len(names):
        raise InvalidScoresError(
            f"the covariates {', '.join(map(repr, names))} are linearly dependent over the "
            f"{int(covered.sum())} systems that have them: their effects are not identified"
        )
    spans = np.linalg.lstsq(x, np.ones(len(x)), rcond=None)
    if len(x) and np.allclose(x @ spans[0], 1.0, atol=1e-9):
        raise InvalidScoresError(
            "the covariates span a constant (an intercept column, or dummies that add up to "
            "one): Bradley–Terry log-worths are defined up to a constant, so that combination "
            "is not identified; leave out the intercept, or one dummy"
        )
    own = tuple(s for s, c in zip(systems, covered, strict=True) if not c)
    matrix = np.zeros((len(systems), len(names) + len(own)))
    matrix[covered, : len(names)] = x
    for k, s in enumerate(own):
        matrix[systems.index(s), len(names) + k] = 1.0
    return CovariateMap(systems, names, own, matrix)


def free_map(systems: Sequence[str]) -> CovariateMap:
    """The map of a model without covariates whose every log-worth is a random effect (the
    log-worths are :math:`u_i \\sim N(0, \\sigma^2)`): no coefficient, no own log-worth."""
    systems = tuple(str(s) for s in systems)
    return CovariateMap(systems, (), (), np.zeros((len(systems), 0)))


@dataclass(frozen=True, eq=False)
class CovariateOptimum:
    """The MLE over :math:`\\varphi` (and the model's other parameters, e.g. log ν): ``params``
    :math:`(\\varphi, \\text{extra})`, its ``covariance`` (inverse observed information), the
    log-likelihood, and the log-worths :math:`\\theta = A\\varphi` with their covariance
    :math:`A\\Sigma A^\\top`.  With a random effect (:func:`fit_random_effect`), ``sigma`` is
    its MLE and ``sigma_se`` the standard error, ``log_worth`` the conditional modes
    :math:`A\\hat\\varphi + \\hat u` and ``objective`` the Laplace log marginal likelihood."""

    params: np.ndarray
    covariance: np.ndarray
    objective: float
    log_worth: np.ndarray
    worth_covariance: np.ndarray
    sigma: float | None = None
    sigma_se: float | None = None
    #: Every estimated parameter ψ (with the random effects u, before the model's other
    #: parameters), its covariance, and the map of the log-worths θ = M ψ[:M.shape[1]]: the
    #: joint normal (Laplace) draws of a fit (:mod:`rankstats.models.covariate_fit`).
    full_params: np.ndarray | None = None
    full_covariance: np.ndarray | None = None
    full_map: np.ndarray | None = None


Objective = Callable[[np.ndarray, bool], tuple[float, Any, Any]]


def fit_with_covariates(
    function: Objective, cmap: CovariateMap, n_extra: int, bias_reduction: bool = False
) -> CovariateOptimum:
    """The MLE of a rank model whose log-likelihood ``function(params, derivatives)`` takes the
    ``N`` log-worths followed by ``n_extra`` other parameters (a model's ``_objective``), with
    the log-worths :math:`A\\varphi` (module docstring): gradient :math:`J^\\top g`, Hessian
    :math:`J^\\top H J` with :math:`J = \\operatorname{diag}(A, I)`.  ``bias_reduction``:
    Firth's estimate, the likelihood penalised by :math:`\\tfrac12\\log\\det(J^\\top I J)`
    (:func:`rankstats.core.bradley_terry_mle.firth_newton`)."""
    a = cmap.matrix
    n, p = a.shape
    jacobian = np.zeros((n + n_extra, p + n_extra))
    jacobian[:n, :p] = a
    jacobian[n:, p:] = np.eye(n_extra)
    fitter = firth_newton if bias_reduction else newton
    optimum = fitter(_through(function, jacobian), 0, p + n_extra)
    phi = optimum.params
    log_worth = a @ phi[:p]
    worth_covariance = a @ optimum.covariance[:p, :p] @ a.T
    return CovariateOptimum(
        phi,
        optimum.covariance,
        optimum.objective,
        log_worth,
        worth_covariance,
        full_params=phi,
        full_covariance=optimum.covariance,
        full_map=a,
    )


def _through(function: Objective, jacobian: np.ndarray, penalty: np.ndarray | None = None):
    """``function`` of ``jacobian @ params`` (minus ``½ paramsᵀ diag(penalty) params``)."""

    def composed(params: np.ndarray, derivatives: bool):
        value, grad, hess = function(jacobian @ params, derivatives)
        if penalty is not None:
            value = value - 0.5 * float(penalty @ params**2)
        if not derivatives:
            return value, None, None
        grad, hess = jacobian.T @ grad, jacobian.T @ hess @ jacobian
        if penalty is not None:
            grad = grad - penalty * params
            hess = hess - np.diag(penalty)
        return value, grad, hess

    return composed


SIGMA_BOUNDS = (1e-4, 20.0)


def fit_random_effect(function: Objective, cmap: CovariateMap, n_extra: int) -> CovariateOptimum:
    r"""Maximum (Laplace) likelihood of :math:`\theta = A\varphi + u`, :math:`u_i \sim N(0,
    \sigma^2)` for the systems with covariates (a system with a log-worth of its own needs none).

    For a given :math:`\sigma` the joint mode of
    :math:`h(\varphi, u) = \ell(A\varphi + u) - u^\top u / 2\sigma^2` is found by Newton's
    method (:func:`fit_with_covariates`' chain rule), and the marginal likelihood of
    :math:`(\varphi, \sigma)` is approximated by Laplace's method,

    .. math:: \log L(\sigma) \approx h(\hat\varphi, \hat u)
              - \tfrac12 \log\det(I + \sigma^2 K_{uu}), \qquad
              K_{uu} = -\partial^2 \ell / \partial u\, \partial u^\top,

    maximised over :math:`\log\sigma` (bounded, :data:`SIGMA_BOUNDS`).  The fixed effects are
    taken at the joint mode rather than maximising the marginal, as lme4's ``nAGQ = 0`` and the
    penalised quasi-likelihood of BradleyTerry2's ``BTm`` (Breslow & Clayton 1993; Turner & Firth
    2012) do; standard errors of :math:`\varphi` from the inverse of :math:`-\nabla^2 h`, of
    :math:`\sigma` from the curvature of :math:`\log L` in :math:`\log\sigma`.  When the
    maximum is at the lower bound, :math:`\hat\sigma = 0` (no detectable variation beyond the
    covariates; no standard error) and the fit is the fixed-effect one.
    """
    from scipy.optimize import minimize_scalar

    a = cmap.matrix
    n, p = a.shape
    covered = np.flatnonzero(cmap.covered)
    q = len(covered)
    size = p + q + n_extra
    jacobian = np.zeros((n + n_extra, size))
    jacobian[:n, :p] = a
    jacobian[covered, p + np.arange(q)] = 1.0
    jacobian[n:, p + q :] = np.eye(n_extra)
    cache: dict[float, tuple[float, Any]] = {}

    def profile(log_sigma: float) -> float:
        if log_sigma not in cache:
            penalty = np.zeros(size)
            penalty[p : p + q] = np.exp(-2.0 * log_sigma)
            optimum = newton(_through(function, jacobian, penalty), 0, size)
            info_uu = optimum.information[p : p + q, p : p + q] - np.diag(penalty[p : p + q])
            _, logdet = np.linalg.slogdet(np.eye(q) + np.exp(2.0 * log_sigma) * info_uu)
            cache[log_sigma] = (optimum.objective - 0.5 * logdet, optimum)
        return -cache[log_sigma][0]

    low, high = np.log(SIGMA_BOUNDS)
    found = minimize_scalar(profile, bounds=(low, high), method="bounded", options={"xatol": 1e-5})
    log_sigma = float(found.x)
    if log_sigma - low <= 1e-2:  # σ̂ = 0: no variation beyond the covariates, the fixed fit
        fixed = fit_with_covariates(function, cmap, n_extra)
        return replace(fixed, sigma=0.0)
    value, optimum = cache[log_sigma]
    sigma_se = None
    if high - log_sigma > 1e-2:
        step = 1e-3
        curvature = (profile(log_sigma + step) - 2 * -value + profile(log_sigma - step)) / step**2
        if curvature > 0:
            sigma_se = float(np.exp(log_sigma) / np.sqrt(curvature))
    params = optimum.params
    log_worth = (jacobian @ params)[:n]
    keep = np.r_[np.arange(p), np.arange(p + q, size)]
    covariance = optimum.covariance
    theta_j = jacobian[:n, : p + q]
    return CovariateOptimum(
        params[keep],
        covariance[np.ix_(keep, keep)],
        float(value),
        log_worth,
        theta_j @ covariance[: p + q, : p + q] @ theta_j.T,
        float(np.exp(log_sigma)),
        sigma_se,
        params,
        covariance,
        theta_j,
    )
