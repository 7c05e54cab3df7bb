r"""Marginal maximum likelihood by EM (Bock & Aitkin, 1981) and the standard errors.

EM alternates the E-step of :mod:`rankstats.irt.estep` (posterior of each system's ability over
the fixed grid, expected counts) with the M-step of :mod:`rankstats.irt.mstep` (item parameters
from the counts) until no parameter moves by more than ``tol`` (mirt's ``TOL``, 1e-4 by
default). EM crawls near the optimum when an item is steep or a parameter weakly determined
(mirt accelerates it, Ramsay 1975); here the EM solution is then **polished** by L-BFGS on the
marginal log-likelihood itself, whose exact gradient is the M-step gradient at the posterior of
the same parameters (Fisher's identity), until its largest component is below ``gtol`` per
system. The polish changes the estimates by less than EM's own tolerance when EM had
converged, and reaches the optimum where EM would take thousands of iterations.

**Standard errors** come from the observed information of the marginal log-likelihood: its
Hessian by central differences of the exact gradient (Fisher's identity: the gradient of the
marginal log-likelihood is the M-step gradient at the posterior of the same parameters), the
same quantity as mirt's ``SE.type = "Richardson"`` / ``"Oakes"`` up to the differencing error.
The Hessian takes two E-steps per free parameter; beyond ``max_se_parameters`` free parameters
the standard errors are not computed (NaN) and the fit says so.

References
----------
Bock, R. D. and Aitkin, M. (1981). *Psychometrika* 46(4), 443–459.
Louis, T. A. (1982). Finding the observed information matrix when using the EM algorithm.
*JRSS B* 44(2), 226–233.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import logit

from rankstats.irt import estep, mstep
from rankstats.irt.item_models import MODELS, NO_PRIOR, ItemParameters, ItemPrior, Quadrature
from rankstats.irt.responses import Responses


class NotConvergedWarning(UserWarning):
    """EM stopped at its iteration limit before the parameters settled."""


@dataclass(frozen=True, repr=False)
class EMResult:
    """What the EM driver returns: final items, posterior, iterations, convergence, notes."""

    items: ItemParameters
    posterior: estep.Posterior
    n_iterations: int
    converged: bool
    at_bound: bool
    covariance: np.ndarray | None

    def __repr__(self) -> str:
        return f"EMResult({self.n_iterations} iterations, converged={self.converged})"


def start_values(responses: Responses, model: str) -> ItemParameters:
    """Starting items: slope 1, intercepts the logits of the observed proportions (graded: of
    ``P(Y ≥ k)``), guessing 0.2 (3PL)."""
    values, observed = responses.values, responses.mask
    n_obs = observed.sum(axis=0)
    n_items = values.shape[1]
    if model == "graded":
        k = int(responses.n_categories.max())
        d = np.full((n_items, k - 1), np.nan)
        for c in range(1, k):
            above = np.nansum(values >= c, axis=0) / n_obs
            d[:, c - 1] = logit(np.clip(above, 0.01, 0.99))
        d[np.arange(1, k)[None, :] >= responses.n_categories[:, None]] = np.nan
        # Keep the thresholds strictly decreasing (ties between empty categories).
        d = np.where(np.isnan(d), np.nan, d - 1e-3 * np.arange(k - 1)[None, :])
        return ItemParameters(np.ones(n_items), d, np.zeros(n_items))
    p = np.clip(np.nansum(values, axis=0) / n_obs, 0.01, 0.99)
    guessing = np.full(n_items, 0.2 if model == "3pl" else 0.0)
    return ItemParameters(np.ones(n_items), logit(p)[:, None], guessing)


def _maximise(model, r, n, theta, items, prior):
    if model == "2pl":
        return mstep.newton_2pl(r, n, theta, items, prior), False
    if model == "rasch":
        return mstep.newton_rasch(r, n, theta, items, prior), False
    return mstep.lbfgs_step(model, r, n, theta, items, prior)


def run_em(
    responses: Responses,
    model: str,
    quadrature: Quadrature,
    *,
    tol: float = 1e-4,
    max_iter: int = 500,
    gtol: float = 1e-6,
    prior: ItemPrior = NO_PRIOR,
    max_se_parameters: int = 2000,
) -> EMResult:
    """Fit ``model`` by EM; the standard errors when the model is small enough."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, not {model!r}")
    data = estep.ResponseArrays.build(responses, binary=model != "graded")
    items = start_values(responses, model)
    theta = quadrature.points
    at_bound, iteration, change = False, 0, np.inf
    for iteration in range(1, max_iter + 1):  # noqa: B007 (the count is reported)
        post = estep.posterior(data, items, quadrature)
        r, n = estep.expected_counts(data, post.weights)
        new, at_bound = _maximise(model, r, n, theta, items, prior)
        change = np.max(np.abs(new.vector(model) - items.vector(model)), initial=0.0)
        items = new
        if change < tol:
            break
    items, converged, bound = polish(data, model, items, quadrature, prior, gtol)
    at_bound = at_bound or bound
    if not converged:
        warnings.warn(
            f"the {model} fit did not converge: after {iteration} EM iterations (last change "
            f"{change:.2g}, tol={tol:g}) and the L-BFGS polish, the gradient of the marginal "
            f"log-likelihood is still above gtol={gtol:g} per system: look for items nobody "
            "answers differently, or a 3PL guessing parameter running to 0 (the flags of the fit)",
            NotConvergedWarning,
            stacklevel=3,
        )
    post = estep.posterior(data, items, quadrature)
    n_free = len(items.vector(model))
    covariance = None
    if n_free <= max_se_parameters:
        covariance = covariance_matrix(data, model, items, quadrature, prior)
    return EMResult(items, post, iteration, converged, at_bound, covariance)


def polish(data, model, items, quadrature, prior, gtol, max_iter=2000):
    """L-BFGS on the marginal log-likelihood (+ the guessing prior) from the EM solution;
    returns (items, converged, on a bound)."""
    n_systems = data.mask.shape[0]

    def objective(x):
        current = mstep.from_internal(model, x, items)
        post = estep.posterior(data, current, quadrature)
        r, n = estep.expected_counts(data, post.weights)
        grad = mstep.gradient(model, r, n, quadrature.points, current, prior)[1]
        value = post.loglik.sum() + prior.log_density(model, current)
        return value / n_systems, mstep.chain(model, x, grad, items) / n_systems

    x0 = mstep.to_internal(model, items)
    # A small ftol: stop on the gradient, or when the log-likelihood per system changes by less
    # than 1e-12 relative (weakly determined items, e.g. few systems and many items).
    x, at_bound, success = mstep.maximise(objective, x0, max_iter, gtol=gtol, ftol=1e-12)
    return mstep.from_internal(model, x, items), success, at_bound


def marginal_gradient(data, model, items, quadrature, prior=NO_PRIOR) -> np.ndarray:
    """Exact gradient of the marginal log-likelihood (Fisher's identity)."""
    post = estep.posterior(data, items, quadrature)
    r, n = estep.expected_counts(data, post.weights)
    return mstep.gradient(model, r, n, quadrature.points, items, prior)[1]


def covariance_matrix(data, model, items, quadrature, prior=NO_PRIOR, step=1e-4) -> np.ndarray:
    r"""Inverse observed information: :math:`-H^{-1}`, ``H`` by central differences of
    :func:`marginal_gradient` (symmetrised). NaN where ``H`` is not negative definite."""
    x = items.vector(model)
    hessian = np.empty((len(x), len(x)))
    for j in range(len(x)):
        h = step * max(1.0, abs(x[j]))
        up, down = x.copy(), x.copy()
        up[j] += h
        down[j] -= h
        g_up = marginal_gradient(data, model, items.from_vector(model, up), quadrature, prior)
        g_down = marginal_gradient(data, model, items.from_vector(model, down), quadrature, prior)
        hessian[:, j] = (g_up - g_down) / (2 * h)
    hessian = 0.5 * (hessian + hessian.T)
    try:
        np.linalg.cholesky(-hessian)
    except np.linalg.LinAlgError:
        return np.full_like(hessian, np.nan)
    return np.linalg.inv(-hessian)
