r"""Closed forms of the Mallows model with Kendall distance (Mallows 1957; Fligner & Verducci 1986).

:math:`P(\pi \mid \sigma, \theta) = e^{-\theta d(\pi, \sigma)} / Z_n(\theta)` with

.. math::

    \log Z_n(\theta) = \sum_{j=1}^{n}
        \left[\log(1 - e^{-j\theta}) - \log(1 - e^{-\theta})\right].

For two items at consensus positions :math:`a < b`, :math:`d = b - a`, :math:`q = e^{-\theta}`:

.. math:: P(\text{the item at } a \text{ is ranked above the one at } b)
          = \frac{d + 1}{1 - q^{d+1}} - \frac{d}{1 - q^d}.

The expected Kendall distance to the centre is
:math:`E[d] = \sum_{j=1}^{n} \left(\frac{q}{1-q} - \frac{j q^j}{1-q^j}\right)`.

Shared by the Mallows model (:class:`rankstats.models.Mallows`: likelihood, pairwise
probabilities, the moment estimate of θ) and the simulator (:func:`rankstats.simulate.mallows`).
"""

from __future__ import annotations

import numpy as np


def log_z(n: int, theta: float | np.ndarray) -> np.ndarray:
    """Log normalising constant :math:`\\log Z_n(\\theta)` (vectorised over θ > 0)."""
    theta = np.asarray(theta, dtype=np.float64)
    j = np.arange(1, n + 1, dtype=np.float64)
    t = theta[..., None]
    return np.sum(np.log(-np.expm1(-j * t)) - np.log(-np.expm1(-t)), axis=-1)


def pair_probability(gap: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``P(the item ``gap`` positions higher in σ is ranked above the other)``, ``gap ≥ 1``.

    Broadcasts ``gap`` against ``theta``; evaluated stably with ``expm1`` (→ ½ as θ → 0).
    """
    gap = np.asarray(gap, dtype=np.float64)
    theta = np.asarray(theta, dtype=np.float64)
    # (d + 1) / (1 - q^(d+1)) - d / (1 - q^d) with 1 - q^m = -expm1(-m θ).
    small = theta < 1e-8
    t = np.where(small, 1.0, theta)
    value = (gap + 1) / -np.expm1(-(gap + 1) * t) - gap / -np.expm1(-gap * t)
    return np.where(small, 0.5, value)


def mallows_expected_distance(n: int, theta: float) -> float:
    r""":math:`E[d] = \sum_{j=1}^{n} \left(\frac{q}{1-q} - \frac{j q^j}{1-q^j}\right)`,
    :math:`q = e^{-\theta}`: expected Kendall distance to the centre (Fligner & Verducci 1986)."""
    if not theta > 0:
        raise ValueError("theta must be > 0")
    q = np.exp(-theta)
    j = np.arange(1, n + 1)
    return float(np.sum(q / (1 - q) - j * q**j / (1 - q**j)))
