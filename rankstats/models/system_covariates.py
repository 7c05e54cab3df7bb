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

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankstats.core.bradley_terry_likelihood import Pairs, bt_derivatives, bt_loglik
from rankstats.core.bradley_terry_mle import newton
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


@dataclass(frozen=True, eq=False)
class CovariateOptimum:
    """The MLE over :math:`\\varphi` (and log ν): ``params`` :math:`(\\varphi, [\\log\\nu])`, its
    ``covariance`` (inverse observed information), the log-likelihood, and the log-worths
    :math:`\\theta = A\\varphi` with their covariance :math:`A\\Sigma A^\\top`."""

    params: np.ndarray
    covariance: np.ndarray
    objective: float
    log_worth: np.ndarray
    worth_covariance: np.ndarray


def fit_with_covariates(counts: Pairs, cmap: CovariateMap, ties: bool) -> CovariateOptimum:
    """Bradley–Terry MLE with the log-worths :math:`A\\varphi` (module docstring)."""
    a = cmap.matrix
    n, p = a.shape
    size = p + int(ties)

    def expand(phi: np.ndarray) -> np.ndarray:
        return np.concatenate([a @ phi[:p], phi[p:]])

    def function(phi: np.ndarray, derivatives: bool):
        params = expand(phi)
        if not derivatives:
            return bt_loglik(counts, params, ties), None, None
        value, grad, hess = bt_derivatives(counts, params, ties)
        jacobian = np.zeros((n + int(ties), size))
        jacobian[:n, :p] = a
        if ties:
            jacobian[n, p] = 1.0
        return value, jacobian.T @ grad, jacobian.T @ hess @ jacobian

    optimum = newton(function, 0, size)
    phi = optimum.params
    covariance = optimum.covariance
    log_worth = a @ phi[:p]
    worth_covariance = a @ covariance[:p, :p] @ a.T
    return CovariateOptimum(phi, covariance, optimum.objective, log_worth, worth_covariance)
