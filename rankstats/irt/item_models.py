r"""Item response functions and the quadrature grid of the marginal likelihood.

Slope–intercept parameterisation of mirt (Chalmers, 2012): for a system of ability
:math:`\theta \sim N(0, 1)` and item ``i`` with slope :math:`a_i` and intercept :math:`d_i`,

- **2PL**: :math:`P_i(\theta) = \sigma(a_i\theta + d_i)`, :math:`\sigma(z) = 1 / (1 + e^{-z})`;
- **Rasch / 1PL**: one slope ``a`` shared by all items (reported as slope 1 and a latent standard
  deviation ``a``: the same model, mirt's ``itemtype="Rasch"``);
- **3PL**: :math:`P_i(\theta) = g_i + (1 - g_i)\,\sigma(a_i\theta + d_i)`, guessing
  :math:`g_i = \sigma(c_i)` estimated on the logit scale (mirt's ``logit(g)``);
- **graded response** (Samejima, 1969): :math:`P(Y_i \ge k \mid \theta) = \sigma(a_i\theta +
  d_{ik})`, :math:`d_{i1} > d_{i2} > \dots`, :math:`P(Y_i = k) = P^*_k - P^*_{k+1}`.

The IRT parameterisation reports the difficulty :math:`b_i = -d_i / a_i` (for graded items
:math:`b_{ik} = -d_{ik} / a_i`).

The marginal likelihood integrates θ over mirt's default fixed grid for one factor: 61 equally
spaced points on [−6, 6] with weights proportional to the standard normal density (Bock & Aitkin,
1981).

References
----------
Bock, R. D. and Aitkin, M. (1981). Marginal maximum likelihood estimation of item parameters:
application of an EM algorithm. *Psychometrika* 46(4), 443–459.
Chalmers, R. P. (2012). mirt: a multidimensional item response theory package for the R
environment. *Journal of Statistical Software* 48(6).
Samejima, F. (1969). Estimation of latent ability using a response pattern of graded scores.
*Psychometrika Monograph Supplement* 17.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

MODELS = ("rasch", "2pl", "3pl", "graded")


@dataclass(frozen=True, repr=False)
class Quadrature:
    """Fixed quadrature: ``points`` (Q,) and normalised ``weights`` (Q,) of N(0, 1)."""

    points: np.ndarray
    weights: np.ndarray

    def __repr__(self) -> str:
        return f"Quadrature({len(self.points)} points on [{self.points[0]:g}, {self.points[-1]:g}])"


def mirt_grid(n_points: int = 61, limit: float = 6.0) -> Quadrature:
    """mirt's default grid for one factor: ``n_points`` equally spaced on ``[-limit, limit]``,
    weights ∝ the standard normal density, summing to one.

    >>> mirt_grid()
    Quadrature(61 points on [-6, 6])
    """
    if n_points < 3:
        raise ValueError(f"n_points must be at least 3, not {n_points}")
    points = np.linspace(-limit, limit, n_points)
    weights = np.exp(-0.5 * points**2)
    return Quadrature(points, weights / weights.sum())


@dataclass(frozen=True)
class ItemPrior:
    """Priors of the item parameters (Bayes modal estimation, mirt's ``parprior``): slopes
    N(1, ``slope_sd``²) (not the Rasch model's shared slope, the latent SD), intercepts and
    thresholds N(0, ``intercept_sd``²), 3PL guessing Beta(``guessing``). ``None``: no prior
    (maximum likelihood, mirt's default). With few systems and many items a slope prior keeps
    items that separate the systems perfectly finite."""

    slope_sd: float | None = None
    intercept_sd: float | None = None
    guessing: tuple[float, float] | None = None

    def log_density(self, model: str, items: ItemParameters) -> float:
        """Log prior density (up to a constant) of ``items``."""
        total = 0.0
        if self.slope_sd is not None and model != "rasch":
            total -= np.sum((items.slope - 1.0) ** 2) / (2 * self.slope_sd**2)
        if self.intercept_sd is not None:
            total -= np.nansum(items.intercept**2) / (2 * self.intercept_sd**2)
        if self.guessing is not None and model == "3pl":
            alpha, beta = self.guessing
            g = items.guessing
            total += np.sum((alpha - 1) * np.log(g) + (beta - 1) * np.log1p(-g))
        return float(total)


NO_PRIOR = ItemPrior()


@dataclass(frozen=True, repr=False)
class ItemParameters:
    """Item parameters in the slope–intercept form, arrays over items.

    ``slope`` (I,), ``intercept`` (I, K − 1): the thresholds (one column for binary items; NaN
    beyond an item's own categories), ``guessing`` (I,) (zero unless 3PL).
    """

    slope: np.ndarray
    intercept: np.ndarray
    guessing: np.ndarray

    def __repr__(self) -> str:
        return f"ItemParameters({len(self.slope)} items)"

    def vector(self, model: str) -> np.ndarray:
        """The free parameters stacked: what the standard errors are about."""
        if model == "rasch":
            return np.concatenate([[self.slope[0]], self.intercept[:, 0]])
        if model == "2pl":
            return np.column_stack([self.slope, self.intercept[:, 0]]).ravel()
        if model == "3pl":
            logit_g = np.log(self.guessing) - np.log1p(-self.guessing)
            return np.column_stack([self.slope, self.intercept[:, 0], logit_g]).ravel()
        used = ~np.isnan(self.intercept)
        return np.concatenate([self.slope, self.intercept[used]])

    def from_vector(self, model: str, x: np.ndarray) -> ItemParameters:
        """The inverse of :meth:`vector` (shapes taken from ``self``)."""
        n = len(self.slope)
        if model == "rasch":
            return ItemParameters(np.full(n, x[0]), x[1:, None].copy(), self.guessing)
        if model == "2pl":
            x = x.reshape(n, 2)
            return ItemParameters(x[:, 0].copy(), x[:, 1:].copy(), self.guessing)
        if model == "3pl":
            x = x.reshape(n, 3)
            return ItemParameters(x[:, 0].copy(), x[:, 1:2].copy(), expit(x[:, 2]))
        intercept = self.intercept.copy()
        intercept[~np.isnan(intercept)] = x[n:]
        return ItemParameters(x[:n].copy(), intercept, self.guessing)


def correct_probability(items: ItemParameters, theta: np.ndarray) -> np.ndarray:
    """``(I × Q)`` probabilities of a right answer (binary models) at abilities ``theta``."""
    p = expit(items.slope[:, None] * theta[None, :] + items.intercept[:, :1])
    g = items.guessing[:, None]
    return g + (1.0 - g) * p


def category_probabilities(items: ItemParameters, theta: np.ndarray) -> np.ndarray:
    """``(K × I × Q)`` category probabilities of the graded response model (zero for
    categories an item does not have)."""
    n_items = items.intercept.shape[0]
    z = items.slope[:, None, None] * theta[None, None, :] + items.intercept[:, :, None]
    # A missing threshold (NaN) is a category the item lacks: P(Y ≥ k) = 0 there.
    upper = np.where(np.isnan(z), 0.0, expit(np.nan_to_num(z)))
    ones = np.ones((n_items, 1, len(theta)))
    cumulative = np.concatenate([ones, upper, np.zeros_like(ones)], axis=1)
    return np.moveaxis(cumulative[:, :-1] - cumulative[:, 1:], 1, 0)


def item_information(items: ItemParameters, theta: np.ndarray, model: str) -> np.ndarray:
    r"""``(I × Q)`` Fisher information of each item about θ.

    Binary: :math:`I_i(\theta) = P_i'(\theta)^2 / (P_i (1 - P_i))`, with
    :math:`P_i' = a_i (1 - g_i)\sigma(1 - \sigma)`; graded:
    :math:`\sum_k (\partial_\theta P_{ik})^2 / P_{ik}` (Samejima, 1969).
    """
    a = items.slope[:, None]
    if model != "graded":
        s = expit(a * theta[None, :] + items.intercept[:, :1])
        p = correct_probability(items, theta)
        dp = a * (1.0 - items.guessing[:, None]) * s * (1.0 - s)
        return dp**2 / np.clip(p * (1.0 - p), 1e-300, None)
    z = a[:, :, None] * theta[None, None, :] + items.intercept[:, :, None]
    star = np.where(np.isnan(z), 0.0, expit(np.nan_to_num(z)))
    d_star = a[:, :, None] * star * (1.0 - star)
    zeros = np.zeros((star.shape[0], 1, len(theta)))
    d_cat = np.concatenate([zeros, d_star, zeros], axis=1)
    d_cat = d_cat[:, :-1] - d_cat[:, 1:]
    probs = np.moveaxis(category_probabilities(items, theta), 0, 1)
    return np.sum(np.where(probs > 0, d_cat**2 / np.clip(probs, 1e-300, None), 0.0), axis=1)
