r"""Normalising constants and expected distances of the Mallows model for every distance of
:mod:`rankstats.core.permutation_distances`, in BayesMallows' parametrisation.

.. math::

    P(r \mid \alpha, \rho) = \frac{\exp\{-\tfrac{\alpha}{n}\, d(r, \rho)\}}{Z_n(\alpha)}, \qquad
    Z_n(\alpha) = \sum_{\sigma \in S_n} e^{-\alpha d(\sigma, \mathrm{id}) / n}
                = \sum_{d} N_n(d)\, e^{-\alpha d / n}

(Vitelli et al., 2018), with :math:`N_n(d)` the number of permutations at distance ``d`` from
the identity (the same from any ρ: every distance is right-invariant). For Kendall's distance
θ = α / n is the dispersion of :mod:`rankstats.core.mallows_kendall`. The expected distance is
:math:`E_\alpha[d] = \sum_d d\, N_n(d)\, e^{-\alpha d/n} / Z_n(\alpha)`.

How :math:`Z_n` is computed (:func:`partition_function`; each ``(distance, n)`` once per process):

- **closed form** — Kendall: :math:`\prod_{j=1}^{n} (1 - q^j)/(1 - q)`; Cayley:
  :math:`\prod_{j=1}^{n-1} (1 + j q)` (Fligner & Verducci, 1986), :math:`q = e^{-\alpha/n}`;
- **exact counts** :math:`N_n(d)` — Hamming: :math:`\binom{n}{k} D_k` (``D_k`` derangements), any
  ``n``; footrule: a transfer recursion over the cuts between positions — the footrule is
  :math:`2 \sum_i c_i` with :math:`c_i` the items ranked at most ``i`` placed after position ``i``,
  and from one cut to the next ``c`` stays (``2c + 1`` ways), falls by one (``c²`` ways) or rises
  by one (one way) — up to :data:`EXACT_MAX` ``["footrule"]`` items; Spearman: the sum
  :math:`\sum_i i\,\sigma(i)` over the subsets of values placed (exact integers, ``2ⁿ`` subsets) up
  to 14 items, as BayesMallows; Ulam: by RSK, :math:`\#\{\mathrm{LIS} = l\} = \sum_{\lambda
  \vdash n,\ \lambda_1 = l} (f^\lambda)^2` with ``f^λ`` from the hook length formula, up to
  :data:`EXACT_MAX` ``["ulam"]`` items;
- **importance sampling** beyond those sizes (footrule, Spearman): the pseudo-likelihood
  proposal of Vitelli et al. (2018, Sec. 4.1) — the items in a random order, each given one of
  the ranks left with probability :math:`\propto e^{-\alpha |r - \rho_i|^p / n}` (``p`` = 2 for
  Spearman, 1 otherwise) — on a grid of α denser at small α (quadratic spacing), where it
  estimates :math:`E_\alpha[d]` (the self-normalised weighted mean, 20,000 draws per point) and
  :math:`\log \hat Z` with its Monte Carlo standard error (delta method). ``E[d]`` is
  interpolated monotonically (PCHIP) and :math:`\log Z` is its integral, by thermodynamic
  integration: :math:`\log Z(\alpha) = \log n! - \frac1n \int_0^\alpha E_a[d]\, da`, so the
  slope of :math:`\log Z` — what the posterior of α depends on — is exactly ``−E[d]/n``
  (interpolating the direct estimates of :math:`\log Z` instead left slopes 10 % off between
  grid points, and α's posterior mean 4 % off on potato_visual). An α beyond the grid is
  refused, never extrapolated.
  Ulam beyond :data:`EXACT_MAX` is refused: the item-wise proposal is far from the Ulam model,
  and on 20 items its estimate missed the exact value by 90 of its own standard errors.

References
----------
Fligner, M. A. and Verducci, J. S. (1986). Distance based ranking models. *JRSS B* 48(3), 359–369.

Vitelli, V., Sørensen, Ø., Crispino, M., Frigessi, A. and Arjas, E. (2018). Probabilistic
preference learning with the Mallows rank model. *JMLR* 18(158), 1–49.

Diaconis, P. (1988). *Group representations in probability and statistics*, ch. 6. IMS.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from rankstats.core.permutation_distances import check_distance, rank_distance

#: Largest number of items whose counts :math:`N_n(d)` are computed exactly (beyond: importance
#: sampling). Hamming's counts are exact for any ``n``; Kendall and Cayley have closed forms.
#: The footrule's recursion rescales by its largest count (about n!) at every cut: beyond
#: about 170 items (170! ≈ 7e306) the counts of small distances — the identity's is 1 —
#: underflow to zero and log Z goes wrong at large α (−296 instead of 0.07 at n = 200,
#: α = 4n), so its exact range stops at 165 (checked against the counts of distance 0 and 2).
EXACT_MAX = {"footrule": 165, "spearman": 14, "ulam": 40}
#: The distances with an importance-sampling estimate beyond :data:`EXACT_MAX`: their item-wise
#: proposal matches the distance, and the estimate agrees with the exact counts within its
#: standard error (tests/core/test_mallows_partition.py).
IS_DISTANCES = ("footrule", "spearman")
#: Draws per grid point of the importance-sampling estimate (20,000: ``E[d]`` within 0.2 % of
#: a long Metropolis run on 20 items at α = 2–4, and within 3 % of the exact value on 14 items
#: wherever α ≤ 2n; 2,000 left it 3–16 % off).
IS_DRAWS = 20_000
#: Grid of α of the importance-sampling estimate: ``IS_POINTS`` points on ``[0, alpha_max]``.
IS_POINTS = 41


@dataclass(frozen=True, eq=False)
class PartitionFunction:
    r""":math:`\log Z_n(\alpha)` and :math:`E_\alpha[d]` of one distance and number of items.

    Attributes
    ----------
    distance : str
    n : int
        Number of items.
    method : str
        ``"closed form"``, ``"exact counts"`` or ``"importance sampling"``.
    log_counts : ndarray or None
        ``log N_n(d)`` for ``d = 0 … max`` (``-inf`` where no permutation is at ``d``); exact
        counts only.
    alpha_grid, log_z_grid, log_z_se, expected_grid : ndarray or None
        Importance sampling only: the grid of α, :math:`\log Z` there (the integral of ``E[d]``),
        the Monte Carlo standard error of the direct estimate of :math:`\log Z` at each point,
        and the estimated ``E[d]``.
    draws : int
        Importance sampling: draws per grid point (0 otherwise).
    """

    distance: str
    n: int
    method: str
    log_counts: np.ndarray | None = field(default=None, repr=False)
    alpha_grid: np.ndarray | None = field(default=None, repr=False)
    log_z_grid: np.ndarray | None = field(default=None, repr=False)
    log_z_se: np.ndarray | None = field(default=None, repr=False)
    expected_grid: np.ndarray | None = field(default=None, repr=False)
    draws: int = 0

    def __repr__(self) -> str:
        extra = ""
        if self.method == "importance sampling":
            extra = (
                f", alpha in [0, {self.alpha_grid[-1]:g}] on {len(self.alpha_grid)} points × "
                f"{self.draws} draws, max s.e. of log Z {float(np.max(self.log_z_se)):.2g}"
            )
        return f"PartitionFunction({self.distance}, n={self.n}, {self.method}{extra})"

    def log_z(self, alpha: float | np.ndarray) -> np.ndarray:
        r""":math:`\log Z_n(\alpha)` (vectorised over ``alpha ≥ 0``)."""
        return self._evaluate(alpha, _CLOSED_LOG_Z, _counts_log_z, self.log_z_grid)

    def expected_distance(self, alpha: float | np.ndarray) -> np.ndarray:
        r""":math:`E_\alpha[d(r, \rho)]` under the model (vectorised over ``alpha ≥ 0``)."""
        return self._evaluate(alpha, _CLOSED_EXPECTED, _counts_expected, self.expected_grid)

    def _evaluate(self, alpha, closed: dict, from_counts, grid: np.ndarray | None) -> np.ndarray:
        r"""One quantity by this function's method: its closed form, the exact counts, or the
        importance-sampling grid (``E[d]`` interpolated, :math:`\log Z` its integral)."""
        alpha = self._alpha(alpha)
        if self.method == "closed form":
            return closed[self.distance](self.n, alpha / max(self.n, 1))
        if self.method == "exact counts":
            return from_counts(self.log_counts, alpha / max(self.n, 1))
        if grid is self.log_z_grid:
            integral = self._splines["log_z"](alpha)
            return np.asarray(math.lgamma(self.n + 1) - integral / self.n)
        return self._interpolate(grid, alpha)

    @functools.cached_property
    def _splines(self) -> dict:
        """The interpolants of the importance-sampling grid, built once (a sampler evaluates
        :math:`\\log Z` at every proposal of α)."""
        from scipy.interpolate import PchipInterpolator  # the estimate alone needs SciPy

        return {
            "log_z": _antiderivative(self.alpha_grid, self.expected_grid),
            "expected": PchipInterpolator(self.alpha_grid, self.expected_grid),
            "se": PchipInterpolator(self.alpha_grid, self.log_z_se),
        }

    def standard_error(self, alpha: float | np.ndarray) -> np.ndarray:
        """Monte Carlo standard error of :meth:`log_z` (0 where it is exact)."""
        alpha = self._alpha(alpha)
        if self.method != "importance sampling":
            return np.zeros_like(alpha)
        return self._interpolate(self.log_z_se, alpha)

    def _alpha(self, alpha: float | np.ndarray) -> np.ndarray:
        alpha = np.asarray(alpha, dtype=np.float64)
        if np.any(~np.isfinite(alpha)) or np.any(alpha < 0):
            raise ValueError(f"alpha must be finite and ≥ 0, not {alpha!r}")
        if self.method == "importance sampling" and np.any(alpha > self.alpha_grid[-1]):
            raise ValueError(
                f"alpha = {float(np.max(alpha)):g} is beyond the importance-sampling estimate of "
                f"the {self.distance} partition function for n = {self.n} (alpha ≤ "
                f"{self.alpha_grid[-1]:g}); estimate it further with "
                f"partition_function({self.n}, {self.distance!r}, alpha_max=...)"
            )
        return alpha

    def _interpolate(self, values: np.ndarray, alpha: np.ndarray) -> np.ndarray:
        key = "expected" if values is self.expected_grid else "se"
        return np.asarray(self._splines[key](alpha))

    def log_z_table(self) -> LogZTable:
        r""":meth:`log_z` as plain numbers and arrays, for a compiled sampler that evaluates
        :math:`\log Z_n(\alpha)` at every proposal of α
        (:mod:`rankstats.models._mallows_metropolis_numba`): the closed form's name, the log-counts
        of the exact counts, or the breakpoints and coefficients of the spline of the
        importance-sampling estimate (:class:`LogZTable`)."""
        empty = np.empty(0)
        if self.method == "closed form":
            return LogZTable(self.distance, self.n, empty, empty, np.empty((0, 0)), 0.0)
        if self.method == "exact counts":
            counts = np.ascontiguousarray(self.log_counts, dtype=np.float64)
            return LogZTable("counts", self.n, counts, empty, np.empty((0, 0)), 0.0)
        spline = self._splines["log_z"]
        return LogZTable(
            "spline",
            self.n,
            empty,
            np.ascontiguousarray(spline.x, dtype=np.float64),
            np.ascontiguousarray(spline.c, dtype=np.float64),
            math.lgamma(self.n + 1),
        )


#: The forms of :class:`LogZTable`, in the order of their codes.
LOG_Z_FORMS = ("kendall", "cayley", "counts", "spline")


@dataclass(frozen=True, eq=False)
class LogZTable:
    r"""What it takes to evaluate :meth:`PartitionFunction.log_z` without Python objects.

    Attributes
    ----------
    form : {"kendall", "cayley", "counts", "spline"}
        The closed forms (:math:`\sum_{j=1}^{n} \log \frac{1 - q^j}{1 - q}` and
        :math:`\sum_{j=1}^{n-1} \log(1 + j q)`, :math:`q = e^{-\alpha/n}`), the exact counts
        (:math:`\log \sum_d N_n(d)\, q^d`) or the importance-sampling spline
        (:math:`\log n! - \frac1n \int_0^\alpha E_a[d]\, da`, a piecewise quartic).
    n : int
    log_counts : ndarray
        ``"counts"``: :math:`\log N_n(d)`, ``d = 0 … max`` (``-inf`` where none); else empty.
    breaks, coefficients : ndarray
        ``"spline"``: the breakpoints ``x`` (the grid of α; a larger α is refused) and the
        coefficients ``c`` ``(k, len(x) − 1)`` of the integral, as
        :class:`scipy.interpolate.PPoly` holds them (on ``[x_i, x_{i+1})`` the value is
        :math:`\sum_m c_{m, i}\, (\alpha - x_i)^{k - 1 - m}`); else empty.
    log_factorial : float
        ``"spline"``: :math:`\log n!`; else 0.
    """

    form: str
    n: int
    log_counts: np.ndarray = field(repr=False)
    breaks: np.ndarray = field(repr=False)
    coefficients: np.ndarray = field(repr=False)
    log_factorial: float

    @property
    def code(self) -> int:
        """The index of :attr:`form` in :data:`LOG_Z_FORMS` (what a compiled kernel switches on)."""
        return LOG_Z_FORMS.index(self.form)


def partition_function(
    n: int,
    distance: str,
    *,
    method: str = "auto",
    alpha_max: float | None = None,
    draws: int = IS_DRAWS,
    seed: int = 0,
) -> PartitionFunction:
    """The normalising constant of the Mallows model with ``distance`` on ``n`` items.

    Parameters
    ----------
    n : int
        Number of items (≥ 1).
    distance : {"footrule", "spearman", "kendall", "cayley", "hamming", "ulam"}
    method : {"auto", "exact", "importance sampling"}
        ``"auto"``: the closed form or the exact counts where :data:`EXACT_MAX` allows, else
        importance sampling. ``"importance sampling"`` also where an exact value exists (to check
        the estimate against it).
    alpha_max : float, optional
        Importance sampling: the largest α estimated (default ``4 n``, where ``α / n = 4``
        leaves :math:`e^{-4 d}` of every permutation at distance ``d``).
    draws, seed
        Importance sampling: draws per grid point, and the seed (the same seed, the same
        estimate).

    Returns
    -------
    PartitionFunction
        Computed once per argument set and process (cached).

    Examples
    --------
    >>> round(float(partition_function(10, "cayley").log_z(3.0)), 10)  # BayesMallows
    13.0481794289
    >>> round(float(partition_function(10, "spearman").expected_distance(40.0)), 6)
    0.006033
    """
    check_distance(distance)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a whole number of items ≥ 1, not {n!r}")
    if method not in ("auto", "exact", "importance sampling"):
        raise ValueError(f"method must be 'auto', 'exact' or 'importance sampling', not {method!r}")
    if alpha_max is not None and not (np.isfinite(alpha_max) and alpha_max > 0):
        raise ValueError(f"alpha_max must be a positive number, not {alpha_max!r}")
    if not isinstance(draws, (int, np.integer)) or draws < 2:
        raise ValueError(f"draws must be a whole number ≥ 2, not {draws!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(
            f"seed must be a whole number (the estimate is cached by it), not {seed!r}"
        )
    return _partition_function(
        int(n),
        distance,
        method,
        None if alpha_max is None else float(alpha_max),
        int(draws),
        int(seed),
    )


@functools.lru_cache(maxsize=128)
def _partition_function(
    n: int, distance: str, method: str, alpha_max: float | None, draws: int, seed: int
) -> PartitionFunction:
    exact = distance in _CLOSED_LOG_Z or distance == "hamming" or n <= EXACT_MAX[distance]
    if method == "exact" and not exact:
        raise ValueError(
            f"no exact {distance} partition function for n = {n} here (exact up to "
            f"{EXACT_MAX[distance]} items); use method='importance sampling' or 'auto'"
        )
    if method == "importance sampling" or not exact:
        if distance not in IS_DISTANCES:
            raise ValueError(
                f"the {distance} partition function "
                + (
                    "is exact for every n: use method='exact' or 'auto'"
                    if exact
                    else f"is exact up to {EXACT_MAX[distance]} items and has no importance-"
                    f"sampling estimate here (its item-wise proposal is too far from the Ulam "
                    f"model for a trustworthy error); n = {n}"
                )
            )
        top = alpha_max if alpha_max is not None else 4.0 * n
        grid = top * np.linspace(0.0, 1.0, IS_POINTS) ** 2  # E[d] bends most at small α
        _, se, expected = _importance_sampling(n, distance, grid, draws, seed)
        log_z = math.lgamma(n + 1) - _antiderivative(grid, expected)(grid) / n
        return PartitionFunction(
            distance, n, "importance sampling", None, grid, log_z, se, expected, draws
        )
    if distance in _CLOSED_LOG_Z:
        return PartitionFunction(distance, n, "closed form")
    counts = _LOG_COUNTS[distance](n)
    counts.setflags(write=False)
    return PartitionFunction(distance, n, "exact counts", counts)


# ---------------------------------------------------------------------------- closed forms
def _kendall_log_z(n: int, c: np.ndarray) -> np.ndarray:
    j = np.arange(1, n + 1, dtype=np.float64)
    t = c[..., None]
    small = t < 1e-12  # the limit of (1 − q^j) / (1 − q) as q → 1: j
    safe = np.where(small, 1.0, t)
    terms = np.where(small, np.log(j), np.log(-np.expm1(-j * safe)) - np.log(-np.expm1(-safe)))
    return terms.sum(axis=-1)


def _kendall_expected(n: int, c: np.ndarray) -> np.ndarray:
    r""":math:`\sum_{j=1}^{n} \left(\frac{q}{1-q} - \frac{j q^j}{1-q^j}\right)` (→ ``n(n−1)/4``
    as ``q → 1``)."""
    j = np.arange(1, n + 1, dtype=np.float64)
    t = c[..., None]
    small = t < 1e-12
    safe = np.where(small, 1.0, t)
    terms = 1.0 / np.expm1(safe) - j / np.expm1(j * safe)
    return np.where(small[..., 0], n * (n - 1) / 4.0, terms.sum(axis=-1))


def _cayley_log_z(n: int, c: np.ndarray) -> np.ndarray:
    j = np.arange(1, n, dtype=np.float64)
    return np.log1p(j * np.exp(-c)[..., None]).sum(axis=-1)


def _cayley_expected(n: int, c: np.ndarray) -> np.ndarray:
    jq = np.arange(1, n, dtype=np.float64) * np.exp(-c)[..., None]
    return (jq / (1.0 + jq)).sum(axis=-1)


_CLOSED_LOG_Z = {"kendall": _kendall_log_z, "cayley": _cayley_log_z}
_CLOSED_EXPECTED = {"kendall": _kendall_expected, "cayley": _cayley_expected}


# ---------------------------------------------------------------------------- exact counts
def _counts_log_z(log_counts: np.ndarray, c: np.ndarray) -> np.ndarray:
    d = np.arange(len(log_counts), dtype=np.float64)
    terms = log_counts - c[..., None] * d
    top = terms.max(axis=-1, keepdims=True)
    return (top + np.log(np.exp(terms - top).sum(axis=-1, keepdims=True)))[..., 0]


def _counts_expected(log_counts: np.ndarray, c: np.ndarray) -> np.ndarray:
    d = np.arange(len(log_counts), dtype=np.float64)
    terms = log_counts - c[..., None] * d
    weight = np.exp(terms - terms.max(axis=-1, keepdims=True))
    return (weight * d).sum(axis=-1) / weight.sum(axis=-1)


def _log(counts: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(counts.astype(np.float64))


def _hamming_log_counts(n: int) -> np.ndarray:
    """``log N(k) = log C(n, k) + log D_k``, ``D_k = (k − 1)(D_{k−1} + D_{k−2})``."""
    log_d = np.full(n + 1, -np.inf)
    log_d[0] = 0.0
    for k in range(2, n + 1):  # n steps, once per n
        log_d[k] = math.log(k - 1) + np.logaddexp(log_d[k - 1], log_d[k - 2])
    k = np.arange(n + 1)
    log_choose = math.lgamma(n + 1) - np.array(
        [math.lgamma(i + 1) + math.lgamma(n - i + 1) for i in k]
    )
    return log_choose + log_d


def _footrule_log_counts(n: int) -> np.ndarray:
    """Transfer recursion over the ``n`` cuts (module docstring): ``ways[c, s]`` counts the ways
    to fill the first positions with ``c`` crossings at the cut and ``Σ c = s`` so far; rescaled
    at every cut (the counts reach ``n!``), the scale kept as a logarithm."""
    top_c = n // 2 + 1
    top_s = n * n // 4 + 1
    ways = np.zeros((top_c + 1, top_s + 1))
    ways[0, 0] = 1.0
    c = np.arange(top_c + 1, dtype=np.float64)[:, None]
    log_scale = 0.0
    for _ in range(n):
        moved = (2.0 * c + 1.0) * ways  # c stays
        moved[:-1] += (c[1:] ** 2) * ways[1:]  # c falls by one
        moved[1:] += ways[:-1]  # c rises by one
        moved[-1] = 0.0  # never more than n / 2 crossings
        shifted = np.zeros_like(moved)
        for k in range(top_c + 1):  # the new crossings add to the sum: row k moves by k
            if k <= top_s:
                shifted[k, k:] = moved[k, : top_s + 1 - k]
        peak = shifted.max()
        ways = shifted / peak
        log_scale += math.log(peak)
    sums = _log(ways[0]) + log_scale  # no crossing after the last cut
    out = np.full(n * n // 2 + 1, -np.inf)
    out[0::2][: len(sums)] = sums[: len(out[0::2])]  # footrule = 2 Σ c
    return out


def _spearman_log_counts(n: int) -> np.ndarray:
    """``Σ_i (σ(i) − i)² = 2 Σ i² − 2 Σ i σ(i)``: the distribution of ``Σ i σ(i)`` by a
    recursion over the subsets of values given to the first positions, one layer of subsets
    (of one size) at a time (exact integers; at most ``C(n, n/2)`` rows held)."""
    high = n * (n + 1) * (2 * n + 1) // 6  # Σ i²: the identity, the largest Σ i σ(i)
    low = n * (n + 1) * (n + 2) // 6  # Σ i (n + 1 − i): the reversed ranking, the smallest
    size = 1 << n
    popcount = np.array([bin(s).count("1") for s in range(size)])
    row_of = np.zeros(size, dtype=np.int64)  # a subset's row in its layer
    layer = np.array([0])
    ways = np.zeros((1, high + 1), dtype=np.int64)  # ways[row, t]: orderings with Σ i σ(i) = t
    ways[0, 0] = 1
    for filled in range(n):
        following = np.flatnonzero(popcount == filled + 1)
        row_of[following] = np.arange(len(following))
        nxt = np.zeros((len(following), high + 1), dtype=np.int64)
        position = filled + 1
        for value in range(1, n + 1):
            bit = 1 << (value - 1)
            free = np.flatnonzero((layer & bit) == 0)
            add = position * value
            nxt[row_of[layer[free] | bit], add:] += ways[free, : high + 1 - add]
        layer, ways = following, nxt
    sums = ways[0, low:]  # Σ i σ(i) = low … high
    counts = np.zeros(2 * (high - low) + 1, dtype=np.int64)
    counts[0::2] = sums[::-1]  # d = 2 (high − Σ i σ(i))
    return _log(counts)


def _ulam_log_counts(n: int) -> np.ndarray:
    """``#{σ : LIS(σ) = l} = Σ_{λ ⊢ n, λ₁ = l} (f^λ)²`` (RSK), ``f^λ`` by the hook length
    formula in logarithms; ``d = n − l``."""
    log_fact = math.lgamma(n + 1)
    by_length: dict[int, list[float]] = {}
    for shape in _partitions(n):
        conj = [sum(1 for part in shape if part > j) for j in range(shape[0])]
        hooks = sum(
            math.log(shape[i] - j + conj[j] - i - 1)
            for i in range(len(shape))
            for j in range(shape[i])
        )
        by_length.setdefault(shape[0], []).append(2.0 * (log_fact - hooks))
    out = np.full(n, -np.inf)
    for length, terms in by_length.items():
        top = max(terms)
        out[n - length] = top + math.log(sum(math.exp(t - top) for t in terms))
    return out


def _partitions(n: int):
    """The partitions of ``n`` as non-increasing tuples."""

    def parts(remaining: int, largest: int):
        if remaining == 0:
            yield ()
            return
        for first in range(min(remaining, largest), 0, -1):
            for rest in parts(remaining - first, first):
                yield (first, *rest)

    return parts(n, n)


_LOG_COUNTS = {
    "footrule": _footrule_log_counts,
    "spearman": _spearman_log_counts,
    "hamming": _hamming_log_counts,
    "ulam": _ulam_log_counts,
}


# ---------------------------------------------------------------------------- importance sampling
def _antiderivative(grid: np.ndarray, expected: np.ndarray):
    """The integral from 0 of the monotone (PCHIP) interpolation of ``E[d]`` on ``grid``."""
    from scipy.interpolate import PchipInterpolator

    return PchipInterpolator(grid, expected).antiderivative()


def _importance_sampling(
    n: int, distance: str, grid: np.ndarray, draws: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:math:`\\log \\hat Z`, its standard error and ``E[d]`` at each α of ``grid``."""
    rng = np.random.default_rng(seed)
    power = 2 if distance == "spearman" else 1
    identity = np.arange(1, n + 1)
    log_z = np.empty(len(grid))
    se = np.empty(len(grid))
    expected = np.empty(len(grid))
    for g, alpha in enumerate(grid):  # one proposal per α of the grid
        ranks, log_q = _pseudo_likelihood_draws(n, alpha / n, power, draws, rng)
        dist = rank_distance(ranks, identity, distance).astype(np.float64)
        log_w = -alpha / n * dist - log_q
        top = log_w.max()
        w = np.exp(log_w - top)
        mean = w.mean()
        log_z[g] = top + math.log(mean)
        se[g] = w.std(ddof=1) / (mean * math.sqrt(draws))
        expected[g] = float((w * dist).sum() / w.sum())
    return log_z, se, expected


def _pseudo_likelihood_draws(
    n: int, c: float, power: int, draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``draws`` rankings from the proposal and their log-probabilities: the items in a random
    order, each given a rank left with probability ∝ ``exp(−c |r − i|^power)`` (Gumbel-max,
    all draws at once, ``n`` steps)."""
    order = rng.permuted(np.broadcast_to(np.arange(n), (draws, n)), axis=1)
    taken = np.zeros((draws, n), dtype=bool)
    ranks = np.empty((draws, n), dtype=np.int64)
    log_q = np.zeros(draws)
    positions = np.arange(n)
    rows = np.arange(draws)
    for step in range(n):
        item = order[:, step]
        logits = -c * np.abs(positions[None, :] - item[:, None]).astype(np.float64) ** power
        logits[taken] = -np.inf
        top = logits.max(axis=1, keepdims=True)
        log_norm = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1))
        choice = np.argmax(logits + rng.gumbel(size=(draws, n)), axis=1)
        log_q += logits[rows, choice] - log_norm
        taken[rows, choice] = True
        ranks[rows, item] = choice + 1
    return ranks, log_q
