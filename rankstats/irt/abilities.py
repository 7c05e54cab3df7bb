r"""Ability estimates of the systems given the item parameters: EAP, MAP and ML.

- **EAP** (Bock & Mislevy, 1982): the posterior mean :math:`\sum_q W_{sq}\theta_q` over the
  quadrature grid, its posterior standard deviation as the standard error (mirt's default
  ``fscores``).
- **MAP**: the posterior mode under the N(0, 1) prior, by Newton's method on every system at
  once; standard error :math:`(I(\hat\theta) + 1)^{-1/2}` with :math:`I` the test information of
  the system's observed items.
- **ML**: the mode of the likelihood alone; ±∞ for a system with every observed answer right (or
  wrong), standard error :math:`I(\hat\theta)^{-1/2}`.

Only the items a system answered enter its likelihood and its information.

References
----------
Bock, R. D. and Mislevy, R. J. (1982). Adaptive EAP estimation of ability in a microcomputer
environment. *Applied Psychological Measurement* 6(4), 431–444.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from rankstats.irt.estep import ResponseArrays
from rankstats.irt.item_models import (
    ItemParameters,
    Quadrature,
    category_probabilities,
    item_information,
)

METHODS = ("EAP", "MAP", "ML")


def eap(weights: np.ndarray, quadrature: Quadrature) -> tuple[np.ndarray, np.ndarray]:
    """Posterior means and standard deviations from the (S × Q) posterior weights."""
    theta = quadrature.points
    mean = weights @ theta
    var = np.clip(weights @ theta**2 - mean**2, 0.0, None)
    return mean, np.sqrt(var)


def _score_terms(data: ResponseArrays, items: ItemParameters, theta: np.ndarray, model: str):
    """Per system: derivative of the log-likelihood at its own ``theta`` and the information of
    its observed items there (binary: analytic; graded: by differences of the grid routine)."""
    if model == "graded":
        h = 1e-5
        up, mid, down = (_own_loglik(data, items, theta + e) for e in (h, 0.0, -h))
        return (up - down) / (2 * h), -(up - 2 * mid + down) / h**2
    a, g = items.slope[None, :], items.guessing[None, :]
    s = expit(theta[:, None] * a + items.intercept[:, 0][None, :])
    p = np.clip(g + (1 - g) * s, 1e-300, 1 - 1e-16)
    dp = a * (1 - g) * s * (1 - s)
    y, m = data.indicators[0], data.mask
    score = np.sum(m * (y - p) * dp / (p * (1 - p)), axis=1)
    info = np.sum(m * dp**2 / (p * (1 - p)), axis=1)
    return score, info


def _own_loglik(data: ResponseArrays, items: ItemParameters, theta: np.ndarray) -> np.ndarray:
    """Log-likelihood of each system's graded responses at its own ability ``theta[s]``."""
    log_p = np.log(np.clip(category_probabilities(items, theta), 1e-300, None))  # K × I × S
    return np.einsum("ksi,kis->s", data.indicators, log_p)


def modal(
    data: ResponseArrays,
    items: ItemParameters,
    model: str,
    start: np.ndarray,
    prior: bool,
    steps: int = 100,
    tol: float = 1e-8,
) -> tuple[np.ndarray, np.ndarray]:
    """MAP (``prior=True``) or ML abilities by Fisher scoring on all systems at once, and their
    standard errors. ML is +∞ / −∞ for a system with every answer right / wrong (mirt's
    convention) and NaN for a system with no answer."""
    theta = start.astype(np.float64).copy()
    y, m = data.indicators, data.mask
    observed = m.sum(axis=1)
    if data.binary:
        right = np.sum(y[0] * m, axis=1)
    else:
        right = np.sum(np.arange(y.shape[0])[:, None, None] * y * m[None], axis=(0, 2))
        top = np.sum(m * (items_categories(items) - 1)[None, :], axis=1)
    extreme_high = right == (observed if data.binary else top)
    extreme_low = right == 0
    free = (observed > 0) & (prior | ~(extreme_high | extreme_low))
    for _ in range(steps):
        score, info = _score_terms(data, items, theta, model)
        if prior:
            score, info = score - theta, info + 1.0
        step = np.where(free, score / np.clip(info, 1e-12, None), 0.0)
        theta = theta + np.clip(step, -1.0, 1.0)
        if np.max(np.abs(step), initial=0.0) < tol:
            break
    info = _score_terms(data, items, theta, model)[1] + (1.0 if prior else 0.0)
    se = 1.0 / np.sqrt(np.clip(info, 1e-300, None))
    if not prior:
        theta = np.where(extreme_high & (observed > 0), np.inf, theta)
        theta = np.where(extreme_low & (observed > 0), -np.inf, theta)
        se = np.where(np.isfinite(theta), se, np.inf)
    theta = np.where(observed > 0, theta, np.nan if not prior else 0.0)
    return theta, np.where(observed > 0, se, np.nan if not prior else 1.0)


def items_categories(items: ItemParameters) -> np.ndarray:
    """Categories of each item: 1 + its thresholds."""
    return 1 + np.sum(~np.isnan(items.intercept), axis=1)


def test_information(items: ItemParameters, theta: np.ndarray, model: str) -> np.ndarray:
    """Information of the whole benchmark at each ability: the sum over items."""
    return item_information(items, theta, model).sum(axis=0)
