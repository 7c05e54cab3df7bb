r"""The E-step of Bock–Aitkin EM on sufficient statistics: matrix products, missing cells masked.

With ``Y`` the (S × I) matrix of right answers (0 where missing), ``M`` the (S × I) mask of
observed cells and :math:`P_{iq} = P_i(\theta_q)` on the quadrature points, the log-likelihood of
system ``s`` at point ``q`` is

.. math:: \ell_{sq} = \sum_i M_{si}\bigl[Y_{si}\log P_{iq} + (1 - Y_{si})\log(1 - P_{iq})\bigr]
          = \bigl(Y\,(\log P - \log(1-P)) + M \log(1-P)\bigr)_{sq},

two matrix products; graded items add one product per category (:math:`\sum_k Y^{(k)}\log
P^{(k)\top}`). The posterior weights are :math:`W_{sq} \propto w_q e^{\ell_{sq}}` and the
expected counts the M-step needs are again products: :math:`r_{iq} = (Y^\top W)_{iq}` (expected
right answers of item ``i`` at point ``q``) and :math:`n_{iq} = (M^\top W)_{iq}` (expected
respondents). A missing cell enters neither. The cost is O(S · I · Q) in BLAS; memory O((S + Q) ·
I).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from rankstats.irt.item_models import (
    ItemParameters,
    Quadrature,
    category_probabilities,
    correct_probability,
)
from rankstats.irt.responses import Responses

#: Floor of a probability inside a logarithm (a 3PL or graded item can reach 0 in floating point).
TINY = 1e-300


@dataclass(frozen=True, repr=False)
class ResponseArrays:
    """The responses as the E-step reads them: the mask and one indicator matrix per category."""

    mask: np.ndarray  # (S × I)
    indicators: np.ndarray  # (K × S × I): binary models keep only k = 1 (right answers)
    binary: bool

    @classmethod
    def build(cls, responses: Responses, binary: bool) -> ResponseArrays:
        if binary:
            return cls(responses.mask, responses.indicators(1)[None], True)
        k = int(responses.n_categories.max())
        stack = np.stack([responses.indicators(c) for c in range(k)])
        return cls(responses.mask, stack, False)

    def __repr__(self) -> str:
        return f"ResponseArrays({self.mask.shape[0]} × {self.mask.shape[1]})"


@dataclass(frozen=True, repr=False)
class Posterior:
    """``weights`` (S × Q) posterior over the grid of each system; ``loglik`` (S,) marginal."""

    weights: np.ndarray
    loglik: np.ndarray

    def __repr__(self) -> str:
        return f"Posterior({self.weights.shape[0]} systems, loglik {self.loglik.sum():.4f})"


def log_likelihood_grid(
    data: ResponseArrays, items: ItemParameters, theta: np.ndarray
) -> np.ndarray:
    """``(S × Q)`` log-likelihood of each system's observed responses at each ability."""
    if data.binary:
        p = np.clip(correct_probability(items, theta), TINY, 1.0 - 1e-16)
        log_p, log_q = np.log(p), np.log1p(-p)
        return data.indicators[0] @ (log_p - log_q) + data.mask @ log_q
    probs = category_probabilities(items, theta)
    out = np.zeros((data.mask.shape[0], len(theta)))
    for k in range(data.indicators.shape[0]):
        out += data.indicators[k] @ np.log(np.clip(probs[k], TINY, None))
    return out


def posterior(data: ResponseArrays, items: ItemParameters, quadrature: Quadrature) -> Posterior:
    """Posterior weights over the grid and marginal log-likelihood of every system."""
    joint = log_likelihood_grid(data, items, quadrature.points) + np.log(quadrature.weights)
    marginal = logsumexp(joint, axis=1)
    return Posterior(np.exp(joint - marginal[:, None]), marginal)


def expected_counts(data: ResponseArrays, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(r, n)``: expected responses per category ``(K × I × Q)`` (binary: right answers only,
    K = 1) and expected respondents ``(I × Q)`` at each point."""
    n = data.mask.T @ weights
    r = np.stack([y.T @ weights for y in data.indicators])
    return r, n
