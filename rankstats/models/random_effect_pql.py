r"""Penalised quasi-likelihood (PQL) for a system random effect: the estimator of
BradleyTerry2's ``BTm(..., ~ x[..] + (1|..))`` (Breslow & Clayton 1993; Turner & Firth 2012).

The log-worths are :math:`\theta = A\varphi + u`, :math:`u_i \sim N(0, \sigma^2)` for the
systems with covariates (:mod:`rankstats.models.system_covariates`).  PQL replaces the model by
its *working* linear mixed model at the current estimates and estimates σ by restricted
maximum likelihood (REML) in it:

* for a given σ, :math:`(\hat\varphi, \hat u)` is the joint mode of the penalised
  log-likelihood :math:`h = \ell(A\varphi + u) - u^\top u / 2\sigma^2` (the fixed point of
  the iteratively reweighted least squares of ``glmmPQL``);
* with :math:`K = -\nabla^2\ell` at the mode in :math:`\psi = (\varphi, u, \text{extra})`, the
  information of the random effects after the fixed ones is
  :math:`P = K_{uu} - K_{uf}K_{ff}^{-1}K_{fu}`, and the REML score of the working model in
  :math:`\sigma^2` is :math:`\tfrac12 G(\sigma)` with

  .. math:: G(\sigma) = \operatorname{tr}\{(I + \sigma^2 P)^{-1} P\} - \hat u^\top\hat u / \sigma^4

  (Harville 1977; at the mode the working response makes the REML best linear unbiased
  predictor :math:`\hat u`).  :math:`\hat\sigma` solves :math:`G = 0`, equivalently
  :math:`\hat\sigma^2 = (\hat u^\top\hat u + \operatorname{tr} C_{uu})/q` with
  :math:`C_{uu} = (P + I/\sigma^2)^{-1}`, Breslow & Clayton's (1993) eq. 12;
  :math:`\hat\sigma = 0` when :math:`G \le 0` near 0 (no variation beyond the covariates).

Standard errors: of :math:`\varphi` from :math:`(K + \operatorname{diag}(0, I/\sigma^2,
0))^{-1}` (the GLS covariance :math:`(X^\top V^{-1}X)^{-1}` of the working model), of σ from
the expected REML information in :math:`\log\sigma^2`,
:math:`\tfrac12\lVert I - C_{uu}/\sigma^2\rVert_F^2`, by the delta method.  This is
BradleyTerry2's ``glmmPQL.fit`` in the parameter space of the log-worths instead of the space
of the comparisons: the working quantities :math:`X^\top W X`, :math:`X^\top W Y`, … are
:math:`A^\top K_\theta A`, :math:`A^\top(K_\theta\theta + g_\theta)`, … for a binomial GLM
with the canonical link, and the same formulas serve Plackett–Luce (a multinomial logit of
each choice) and Davidson's ties (observed information).

PQL is known to underestimate σ (and with it the standard errors) when each system has few
comparisons (Breslow & Lin 1995); the docs' simulation compares it with the Laplace fit.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from scipy.optimize import brentq

from rankstats.models.system_covariates import (
    SIGMA_BOUNDS,
    CovariateMap,
    CovariateOptimum,
    Objective,
    fit_with_covariates,
    mode,
    random_design,
    random_optimum,
)

#: Where :math:`G` is looked at first (log-spaced between the bounds): the root taken is the
#: first one from below, where the REML score turns from positive to negative.
GRID = np.geomspace(*SIGMA_BOUNDS, 15)


def fit_pql(
    function: Objective, cmap: CovariateMap, n_extra: int, beats: np.ndarray | None = None
) -> CovariateOptimum:
    """The PQL fit of a random effect (module docstring) for the log-likelihood ``function``
    of a rank model (its ``_objective``: the ``N`` log-worths, then ``n_extra`` other
    parameters); ``beats`` finds the own log-worths that are infinite
    (:func:`~rankstats.models.system_covariates.unbounded_own`).  ``objective`` of the result
    is the Laplace approximation of the log marginal likelihood at the PQL estimates."""
    design = random_design(cmap, n_extra, beats)
    f, q = design.n_fixed, design.n_random
    random = design.random
    cache: dict[float, tuple[float, Any]] = {}
    last: list[np.ndarray] = []

    def score(log_sigma: float) -> float:
        if log_sigma not in cache:
            sigma = float(np.exp(log_sigma))
            found = mode(function, design, sigma, last[-1] if last else None)
            last.append(found.params)
            k = found.information.copy()
            k[random, random] -= np.eye(q) / sigma**2  # K: the information of ℓ alone
            p_matrix = _after_fixed(k, f, q)
            eigen = np.clip(np.linalg.eigvalsh(p_matrix), 0.0, None)
            u = found.params[random]
            value = float(u @ u / sigma**4 - np.sum(eigen / (1.0 + sigma**2 * eigen)))
            cache[log_sigma] = (value, found, eigen)
        return cache[log_sigma][0]

    logs = np.log(GRID)
    if score(logs[0]) <= 0.0 and not design.pinned:  # σ̂ = 0: the fixed-effect fit
        return _fixed(function, cmap, n_extra)
    root = None
    for lo, hi in itertools.pairwise(logs):
        if score(lo) > 0.0 >= score(hi):
            root = brentq(score, lo, hi, xtol=1e-12, rtol=1e-12)
            break
    if root is None:  # σ̂ at a bound: 0 (pinned systems keep the random-effect form) or 20
        root = logs[0] if score(logs[0]) <= 0.0 else logs[-1]
    root = float(root)
    score(root)
    _, found, eigen = cache[root]
    sigma = float(np.exp(root))
    sigma_se = None
    if logs[0] < root < logs[-1]:
        m = sigma**2 * eigen / (1.0 + sigma**2 * eigen)  # eigenvalues of I − C_uu/σ²
        information = 0.5 * float(np.sum(m**2))  # expected REML information in log σ²
        sigma_se = float(sigma / (2.0 * np.sqrt(information)))
    else:
        sigma = 0.0 if root == logs[0] else sigma
    logdet = float(np.sum(np.log1p(sigma**2 * eigen)))
    return random_optimum(design, cmap, found, found.objective - 0.5 * logdet, sigma, sigma_se)


def _after_fixed(information: np.ndarray, f: int, q: int) -> np.ndarray:
    r""":math:`P = K_{uu} - K_{uf}K_{ff}^{-1}K_{fu}`, with the fixed part ``f`` coefficients and
    own log-worths followed, after the ``q`` random effects, by the model's extras."""
    fixed = np.r_[np.arange(f), np.arange(f + q, information.shape[0])]
    random = np.arange(f, f + q)
    k_uu = information[np.ix_(random, random)]
    if not len(fixed):
        return k_uu
    k_uf = information[np.ix_(random, fixed)]
    k_ff = information[np.ix_(fixed, fixed)]
    p_matrix = k_uu - k_uf @ np.linalg.solve(k_ff, k_uf.T)
    return 0.5 * (p_matrix + p_matrix.T)


def _fixed(function: Objective, cmap: CovariateMap, n_extra: int) -> CovariateOptimum:
    from dataclasses import replace

    return replace(fit_with_covariates(function, cmap, n_extra), sigma=0.0)
