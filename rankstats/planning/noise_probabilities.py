r"""Probabilities of the noise models of :class:`~rankstats.planning.design.BenchmarkDesign`.

- :func:`both_below` — the bivariate normal probability behind paired binary outcomes
  (:meth:`~rankstats.planning.design.BenchmarkDesign.from_accuracies`) and
  :func:`correlation_for`, the latent correlation that gives an agreement;
- :func:`laplace_difference_above` — the win probability under Laplace noise.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, optimize, special, stats

from rankstats.simulate.argument_checks import require

_INV_ROOT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def both_below(x: float, y: float, rho: float) -> float:
    """P(X < x, Y < y) for standard normals of correlation ρ (the bounds exactly at ρ = ±1)."""
    if rho >= 1 - 1e-12:
        return float(stats.norm.cdf(min(x, y)))
    if rho <= -1 + 1e-12:
        return float(max(0.0, stats.norm.cdf(x) + stats.norm.cdf(y) - 1))
    # ∫_{-∞}^{x} φ(u) Φ((y − ρu) / √(1 − ρ²)) du, to quad's precision (scipy's multivariate
    # normal CDF is a randomised integration with an absolute error near 1e-5).
    # The integrand with scipy.special and math rather than stats.norm's methods: the same
    # numbers, without a distribution object's argument checks at each of quad's points.
    root = math.sqrt(1 - rho * rho)
    value, _ = integrate.quad(
        lambda u: math.exp(-0.5 * u * u) * _INV_ROOT_2PI * special.ndtr((y - rho * u) / root),
        -np.inf,
        x,
        epsabs=1e-13,
        epsrel=1e-12,
    )
    return float(value)


def correlation_for(agreement: float, x: float, y: float, n_systems: int) -> float:
    """The ρ at which two systems wrong below ``x`` and ``y`` agree on a share ``agreement``."""
    require(
        isinstance(agreement, int | float) and not isinstance(agreement, bool),
        f"agreement must be a number in (0, 1], got {agreement!r}",
    )
    px, py = stats.norm.cdf(x), stats.norm.cdf(y)

    def agree(rho: float) -> float:  # both right or both wrong; increasing in ρ
        both_wrong = both_below(x, y, rho)
        return 1 - px - py + 2 * both_wrong

    low_rho = -1.0 / (n_systems - 1)
    low, high = agree(low_rho), agree(1.0)
    require(
        low - 1e-9 <= agreement <= high + 1e-9,
        f"agreement {agreement!r} is impossible for these accuracies: it can range from "
        f"{low:.4g} to {high:.4g} here",
    )
    if agreement <= low:
        return low_rho
    if agreement >= high:
        return 1.0
    return float(optimize.brentq(lambda r: agree(r) - agreement, low_rho, 1.0, xtol=1e-12))


def laplace_difference_above(gap: np.ndarray, sa: np.ndarray, sb: np.ndarray) -> np.ndarray:
    r""":math:`P(\Delta + s_a L_a - s_b L_b > 0)` for independent standard Laplace :math:`L`.

    :math:`Z = s_a L_a - s_b L_b` has the tail :math:`P(Z > t) = (s_a^2 e^{-t/s_a} - s_b^2
    e^{-t/s_b}) / (2(s_a^2 - s_b^2))` for :math:`t \ge 0` (from its density, a difference of two
    exponential mixtures), :math:`\tfrac12 e^{-t/s}(1 + t/(2s))` when :math:`s_a = s_b = s`, and
    :math:`\tfrac12 e^{-t/s}` when one scale is 0; :math:`Z` is symmetric.
    """
    gap, sa, sb = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (gap, sa, sb)))
    t = np.abs(gap)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        same = np.isclose(sa, sb)
        ea = np.where(sa > 0, np.exp(-t / np.where(sa > 0, sa, 1.0)), 0.0)
        eb = np.where(sb > 0, np.exp(-t / np.where(sb > 0, sb, 1.0)), 0.0)
        mixed = (sa**2 * ea - sb**2 * eb) / (2 * (sa**2 - sb**2))
        s = np.where(same, sa, 1.0)
        equal = 0.5 * np.exp(-t / s) * (1 + t / (2 * s))
        tail = np.where(same, equal, mixed)
    tail = np.where((sa == 0) & (sb == 0), 0.0, tail)  # no noise: the gap decides
    tail = np.where(t == 0, 0.5, tail)
    return np.where(gap >= 0, 1.0 - tail, tail)
