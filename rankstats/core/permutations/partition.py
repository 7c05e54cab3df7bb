r"""Normalising constants and expected distances of the Mallows model for every distance of
:mod:`rankstats.core.permutations.distances`, in BayesMallows' parametrisation.

.. math::

    P(r \mid \alpha, \rho) = \frac{\exp\{-\tfrac{\alpha}{n}\, d(r, \rho)\}}{Z_n(\alpha)}, \qquad
    Z_n(\alpha) = \sum_{\sigma \in S_n} e^{-\alpha d(\sigma, \mathrm{id}) / n}
                = \sum_{d} N_n(d)\, e^{-\alpha d / n}

(Vitelli et al., 2018), with :math:`N_n(d)` the number of permutations at distance ``d`` from
the identity (the same from any ρ: every distance is right-invariant). For Kendall's distance
θ = α / n is the dispersion of :mod:`rankstats.core.permutations.kendall`. The expected distance is
:math:`E_\alpha[d] = \sum_d d\, N_n(d)\, e^{-\alpha d/n} / Z_n(\alpha)`.

How :math:`Z_n` is computed (:func:`partition_function`; each ``(distance, n)`` once per process,
and the costly ones once per machine: kept on disk, see below):

- **closed form** — Kendall: :math:`\prod_{j=1}^{n} (1 - q^j)/(1 - q)`; Cayley:
  :math:`\prod_{j=1}^{n-1} (1 + j q)` (Fligner & Verducci, 1986), :math:`q = e^{-\alpha/n}`;
- **exact counts** :math:`N_n(d)` (:mod:`rankstats.core.permutations.counts`: the algorithms)
  — Hamming, any ``n``; footrule, Spearman (as BayesMallows) and Ulam up to :data:`EXACT_MAX`
  items;
- **exact on a grid** (:mod:`rankstats.core.permutations.exact_grid`) beyond those sizes:
  :math:`\log Z` and :math:`E_\alpha[d]` computed exactly at :data:`GRID_POINTS` values of α on
  ``[0, alpha_max]`` (cubic spacing: denser at small α, where ``E[d]`` bends most) — the footrule
  by its transfer over cuts at a fixed α (any ``n``), Spearman by the permanent's recursion over
  subsets up to :data:`GRID_MAX` items — and between them the cubic Hermite spline of
  :math:`\log Z` with slopes ``−E[d]/n``: within 2e-6 of the exact counts (measured: 1.1e-6
  for Spearman on 14 items, 9e-7 for the footrule on 150). An α beyond the grid is refused;
- **importance sampling** (:mod:`rankstats.core.permutations.importance`) beyond those
  (Spearman from ``GRID_MAX + 1`` items, or on request): the pseudo-likelihood proposal of
  Vitelli et al. (2018, Sec. 4.1) on a grid of :data:`IS_POINTS` values of α,
  :math:`\log \hat Z` with the consensus's term exact (so :math:`\log \hat Z \ge 0`),
  bias-corrected to second order, with the standard error of that same value, and ``E[d]`` from
  the same weights; interpolated as the exact grid (the slope at a grid point is ``−E[d]/n``).
  (Version 1 integrated the self-normalised ``E[d]`` instead: its bias accumulated, log Z 0.05–
  0.15 too low on 15–20 items, 4–18 times the standard error it stated, which was that of
  another estimate.) Ulam beyond :data:`EXACT_MAX` is
  refused: the item-wise proposal is far from the Ulam model, and on 20 items its estimate
  missed the exact value by 90 of its own standard errors.

**Disk cache, export and import** (:mod:`rankstats.core.permutations.partition_store`). An estimate,
and the exact counts that take ≥ 0.1 s (:data:`DISK_CACHE_FROM`), are written to a cache folder and
loaded by the next process that asks for them (``cache=False`` or ``RANKSTATS_CACHE_DIR=""``
turns it off); :data:`ALGORITHM_VERSION` in the file name retires the files of an older
estimator. :meth:`PartitionFunction.save` writes a CSV table of α, :math:`\log Z`, its standard
error and ``E[d]`` (:meth:`PartitionFunction.to_frame`) that
:func:`rankstats.io.partition_files.read_partition_function` reads back; a table brought from
elsewhere (BayesMallows) becomes a function of method ``"imported"``
(:func:`partition_function_from_grid`): a cubic Hermite spline through its :math:`\log Z` with
slopes ``−E[d]/n`` (``E[d]`` its column, or else the monotone PCHIP slopes of :math:`\log Z`),
so that its ``E[d]`` is exactly the derivative of its :math:`\log Z` — as for the estimate.

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
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rankstats._util.arguments import count
from rankstats.core.permutations import partition_in_use, partition_store
from rankstats.core.permutations.counts import (
    CLOSED_EXPECTED,
    CLOSED_LOG_Z,
    LOG_COUNTS,
    counts_expected,
    counts_log_z,
)
from rankstats.core.permutations.distances import check_distance
from rankstats.core.permutations.exact_grid import footrule_grid, spearman_grid
from rankstats.core.permutations.importance import importance_sampling

if TYPE_CHECKING:
    import pandas as pd

#: Largest number of items whose counts :math:`N_n(d)` are computed exactly (beyond: importance
#: sampling). Hamming's counts are exact for any ``n``; Kendall and Cayley have closed forms.
#: The footrule's recursion rescales by its largest count (about n!) at every cut: beyond
#: about 170 items (170! ≈ 7e306) the counts of small distances — the identity's is 1 —
#: underflow to zero and log Z goes wrong at large α (−296 instead of 0.07 at n = 200,
#: α = 4n), so its exact range stops at 165 (checked against the counts of distance 0 and 2).
EXACT_MAX = {"footrule": 165, "spearman": 14, "ulam": 40}
#: Largest number of items of the exact values on a grid of α beyond :data:`EXACT_MAX` (the
#: footrule: any; Spearman: ``2ⁿ n`` operations and ``2ⁿ × 128`` bytes per block of 8 values of
#: α — 20 items: 0.1–0.3 s per α with numba, the grid in 20–60 s once per machine, 134 MB).
GRID_MAX = {"footrule": math.inf, "spearman": 20}
#: Values of α of an exact grid (cubic spacing on ``[0, alpha_max]``): the spline through them
#: is within 2e-6 of the exact log Z (measured against the counts: Spearman on 14 items, 201
#: values, 1.1e-6; footrule on 150, 401 values, 9e-7).
GRID_POINTS = {"footrule": 401, "spearman": 201}
#: The distances with an importance-sampling estimate (item-wise proposal). Spearman's is within
#: 3 of its standard errors of the exact values on 15–24 items (tests); the footrule's (never the
#: default) has heavy-tailed weights: 7 standard errors off on 50 items at 2,000 draws.
IS_DISTANCES = ("footrule", "spearman")
#: The exact grids' algorithms (:mod:`rankstats.core.permutations.exact_grid`).
GRID_FUNCTIONS = {"footrule": footrule_grid, "spearman": spearman_grid}
#: Draws per grid point of the importance-sampling estimate (20,000: ``E[d]`` within 0.2 % of
#: a long Metropolis run on 20 items at α = 2–4, and within 3 % of the exact value on 14 items
#: wherever α ≤ 2n; 2,000 left it 3–16 % off).
IS_DRAWS = 20_000
#: Grid of α of the importance-sampling estimate: ``IS_POINTS`` points on ``[0, alpha_max]``
#: (cubic spacing).
IS_POINTS = 81
#: Version of the estimator and of the exact counts, in the name of every cache file: raise it
#: when either changes, so that no process loads what the old code computed.
ALGORITHM_VERSION = 2
#: Exact counts from this many items on are kept in the disk cache too: they take ≥ 0.1 s to
#: compute (measured idle: Spearman 0.15 s on 13 items, 0.42 s on 14; Ulam 0.20 s on 35, 0.55 s
#: on 40; footrule 0.13 s on 150, 0.21 s on 165), a file takes about 1 ms to load.
DISK_CACHE_FROM = {"footrule": 150, "spearman": 13, "ulam": 35}
#: The grid of :meth:`PartitionFunction.to_frame` for a closed form or exact counts:
#: ``EXPORT_POINTS`` points on ``[0, 4 n]``, quadratic spacing as the estimate's. On 201 points the
#: table read back is within 2e-6 of the exact log Z of Spearman on 10 items
#: (tests/core/test_partition_files.py).
EXPORT_POINTS = 201


@dataclass(frozen=True, eq=False)
class PartitionFunction:
    r""":math:`\log Z_n(\alpha)` and :math:`E_\alpha[d]` of one distance and number of items.

    Attributes
    ----------
    distance : str
    n : int
        Number of items.
    method : str
        ``"closed form"``, ``"exact counts"``, ``"exact on a grid"``, ``"importance sampling"``
        or ``"imported"`` (a table read by
        :func:`~rankstats.io.partition_files.read_partition_function`).
    log_counts : ndarray or None
        ``log N_n(d)`` for ``d = 0 … max`` (``-inf`` where no permutation is at ``d``); exact
        counts only.
    alpha_grid, log_z_grid, log_z_se, expected_grid : ndarray or None
        Exact grids, importance sampling and imported tables: the grid of α, :math:`\log Z`
        there, the Monte Carlo standard error of that value at each point (0 where exact or
        where a table gave none), and ``E[d]``.
    draws : int
        Importance sampling: draws per grid point (0 otherwise).
    seed : int or None
        Importance sampling: the seed of the estimate (``None`` otherwise).
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
    seed: int | None = None

    def __repr__(self) -> str:
        extra = ""
        if self.alpha_grid is not None:
            extra = f", alpha in [0, {self.alpha_grid[-1]:g}] on {len(self.alpha_grid)} points"
        if self.method == "importance sampling":
            extra += f" × {self.draws} draws, max s.e. of log Z {float(np.max(self.log_z_se)):.2g}"
        return f"PartitionFunction({self.distance}, n={self.n}, {self.method}{extra})"

    def log_z(self, alpha: float | np.ndarray) -> np.ndarray:
        r""":math:`\log Z_n(\alpha)` (vectorised over ``alpha ≥ 0``)."""
        return self._evaluate(alpha, CLOSED_LOG_Z, counts_log_z, self.log_z_grid)

    def expected_distance(self, alpha: float | np.ndarray) -> np.ndarray:
        r""":math:`E_\alpha[d(r, \rho)]` under the model (vectorised over ``alpha ≥ 0``)."""
        return self._evaluate(alpha, CLOSED_EXPECTED, counts_expected, self.expected_grid)

    def _evaluate(self, alpha, closed: dict, from_counts, grid: np.ndarray | None) -> np.ndarray:
        r"""One quantity by this function's method: its closed form, the exact counts, or the
        spline of its grid (:meth:`_splines`)."""
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
        """The interpolants of the grid, built once (a sampler evaluates :math:`\\log Z` at
        every proposal of α): ``"log_z"`` is :math:`\\int_0^\\alpha E_a[d]\\, da` as a
        :class:`~scipy.interpolate.PPoly` (:math:`\\log Z = \\log n! - \\int / n`, also in
        :meth:`log_z_table`): the cubic Hermite spline of the grid's :math:`\\log Z` with slopes
        ``−E[d]/n``, rewritten as that integral, and ``E[d]`` is the integral's derivative."""
        from scipy.interpolate import CubicHermiteSpline, PchipInterpolator, PPoly

        n, grid = max(self.n, 1), self.alpha_grid
        hermite = CubicHermiteSpline(grid, self.log_z_grid, -self.expected_grid / n)
        coefficients = -n * hermite.c
        coefficients[-1] += n * math.lgamma(self.n + 1)
        integral = PPoly(coefficients, hermite.x)
        expected = integral.derivative()
        return {
            "log_z": integral,
            "expected": expected,
            "se": PchipInterpolator(grid, self.log_z_se),
        }

    def standard_error(self, alpha: float | np.ndarray) -> np.ndarray:
        """Monte Carlo standard error of :meth:`log_z` (0 where it is exact)."""
        alpha = self._alpha(alpha)
        if self.alpha_grid is None:
            return np.zeros_like(alpha)
        return self._interpolate(self.log_z_se, alpha)

    def _alpha(self, alpha: float | np.ndarray) -> np.ndarray:
        alpha = np.asarray(alpha, dtype=np.float64)
        if np.any(~np.isfinite(alpha)) or np.any(alpha < 0):
            raise ValueError(f"alpha must be finite and ≥ 0, not {alpha!r}")
        if self.alpha_grid is not None and np.any(alpha > self.alpha_grid[-1]):
            computed = self.method != "imported"
            further = (
                f"compute it further with partition_function({self.n}, {self.distance!r}, "
                f"alpha_max=...)"
                if computed
                else "import a table that reaches further"
            )
            what = _GRID_NAMES[self.method]
            raise ValueError(
                f"alpha = {float(np.max(alpha)):g} is beyond the {what} of the "
                f"{self.distance} partition function for n = {self.n} (alpha ≤ "
                f"{self.alpha_grid[-1]:g}); {further}"
            )
        return alpha

    def _interpolate(self, values: np.ndarray, alpha: np.ndarray) -> np.ndarray:
        key = "expected" if values is self.expected_grid else "se"
        return np.asarray(self._splines[key](alpha))

    def log_z_table(self) -> LogZTable:
        r""":meth:`log_z` as plain numbers and arrays, for a compiled sampler that evaluates
        :math:`\log Z_n(\alpha)` at every proposal of α
        (:mod:`rankstats.models.mallows._metropolis_numba`): the closed form's name, the log-counts
        of the exact counts, or the breakpoints and coefficients of the spline of its
        grid (:class:`LogZTable`)."""
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

    def to_frame(self, alpha: float | np.ndarray | None = None) -> pd.DataFrame:
        r"""The function as a table: one row per α, the columns ``alpha``, ``log_z``,
        ``log_z_se`` (its Monte Carlo standard error, 0 where exact) and ``expected_distance``
        (:math:`E_\alpha[d]`).

        Parameters
        ----------
        alpha : array_like, optional
            Where to evaluate. Default: the grid of an estimate or imported table (its own
            numbers, as :meth:`save` writes them), else :data:`EXPORT_POINTS` values on
            ``[0, 4 n]`` (quadratic spacing): read back by
            :func:`~rankstats.io.partition_files.read_partition_function`, such a table
            reproduces the exact :math:`\log Z` within 2e-6 (Spearman, 10 items).

        Returns
        -------
        pandas.DataFrame
            ``.attrs`` holds the metadata that :meth:`save` writes (distance, n, method, …).

        Examples
        --------
        >>> partition_function(5, "kendall").to_frame([0.0, 5.0]).round(4)
           alpha   log_z  log_z_se  expected_distance
        0    0.0  4.7875       0.0             5.0000
        1    5.0  1.6130       0.0             1.7491
        """
        import pandas as pd

        if alpha is None and self.alpha_grid is not None:
            alpha = self.alpha_grid
            columns = (self.log_z_grid, self.log_z_se, self.expected_grid)
        else:
            if alpha is None:
                alpha = 4.0 * self.n * np.linspace(0.0, 1.0, EXPORT_POINTS) ** 2
            alpha = np.atleast_1d(self._alpha(alpha))
            columns = (self.log_z(alpha), self.standard_error(alpha), self.expected_distance(alpha))
        frame = pd.DataFrame(dict(zip(partition_store.COLUMNS, (alpha, *columns), strict=True)))
        frame.attrs.update(self._metadata())
        return frame

    def save(self, path: str | os.PathLike) -> Path:
        """Write :meth:`to_frame` as a CSV table with its metadata (``# key: value`` lines:
        format version, distance, n, method, draws, seed), atomically; read it back with
        :func:`~rankstats.io.partition_files.read_partition_function` (an estimate comes back
        identical, bit for bit; exact values come back as an ``"imported"`` table on a grid).
        Outside rankstats: ``pandas.read_csv(path, comment="#")``, or in R
        ``read.csv(path, comment.char = "#")``.

        Returns
        -------
        pathlib.Path
            ``path``.
        """
        return partition_store.write_table(path, self.to_frame(), self._metadata())

    def _metadata(self) -> dict:
        estimate = self.method == "importance sampling"
        return {
            "distance": self.distance,
            "n": self.n,
            "method": self.method,
            "draws": self.draws if estimate else None,
            "seed": self.seed if estimate else None,
            "algorithm_version": ALGORITHM_VERSION if estimate else None,
        }


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
        (:math:`\log \sum_d N_n(d)\, q^d`) or the spline of a grid
        (:math:`\log n! - \frac1n \int_0^\alpha E_a[d]\, da`: the cubic Hermite spline of the
        grid's :math:`\log Z`).
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
    cache: bool = True,
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
    cache : bool
        Keep an estimate, and exact counts that take ≥ 0.1 s (:data:`DISK_CACHE_FROM`), in
        the disk cache, and load them from it: ``$RANKSTATS_CACHE_DIR/partition/`` (else
        ``$XDG_CACHE_HOME/rankstats/partition/``, else ``~/.cache/rankstats/partition/``).
        ``False``, or ``RANKSTATS_CACHE_DIR=""``, computes without reading or writing files.

    Returns
    -------
    PartitionFunction
        Computed once per argument set and process (kept in memory), and the costly ones once
        per machine (kept on disk; a loaded one equals the computed one, array for array). With
        ``method="auto"``, the one chosen by :func:`~rankstats.models.use_partition_function`
        for this distance and ``n``, if any.

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
    count("draws", draws, 2)
    count("seed", seed, 0)  # an integer: the estimate is cached by it
    chosen = partition_in_use.in_use(distance, int(n)) if method == "auto" else None
    if chosen is not None:  # rs.models.use_partition_function
        return chosen
    top = None if alpha_max is None else float(alpha_max)
    return _partition_function(int(n), distance, method, top, int(draws), int(seed), bool(cache))


#: The arrays of a cache file, by method.
_STORED = {
    "exact counts": ("log_counts",),
    "exact on a grid": ("alpha_grid", "log_z_grid", "log_z_se", "expected_grid"),
    "importance sampling": ("alpha_grid", "log_z_grid", "log_z_se", "expected_grid"),
}
#: What the grid of each method is called in a message.
_GRID_NAMES = {
    "exact on a grid": "exact grid",
    "importance sampling": "importance-sampling estimate",
    "imported": "imported table",
}


@functools.lru_cache(maxsize=128)
def _partition_function(
    n: int, distance: str, method: str, alpha_max: float | None, draws: int, seed: int, cache: bool
) -> PartitionFunction:
    """The cached :func:`partition_function`: from the disk cache where it is kept there, else
    computed (and written there)."""
    method = _method(n, distance, method)
    key = {"distance": distance, "n": n, "method": method}
    if method in _GRID_NAMES:  # the grid's top, so that alpha_max=None and 4n share
        key["alpha_max"] = alpha_max or 4.0 * n
    if method == "importance sampling":
        key |= {"draws": draws, "seed": seed}
    worth = method in _GRID_NAMES or n >= DISK_CACHE_FROM.get(distance, math.inf)
    path = partition_store.cache_file(key, ALGORITHM_VERSION) if cache and worth else None
    stored = None if path is None else partition_store.read_cached(path, key, _STORED[method])
    if stored is not None:
        if method == "exact counts":
            stored["log_counts"].setflags(write=False)
        extra = {"draws": draws, "seed": seed} if method == "importance sampling" else {}
        return PartitionFunction(distance, n, method, **stored, **extra)
    pf = _computed(n, distance, method, key.get("alpha_max"), draws, seed)
    if path is not None:
        partition_store.write_cached(path, key, {k: getattr(pf, k) for k in _STORED[method]})
    return pf


def _method(n: int, distance: str, method: str) -> str:
    """Which method computes it: closed form, exact counts, exact on a grid, importance
    sampling, or refused."""
    counts = distance in CLOSED_LOG_Z or distance == "hamming" or n <= EXACT_MAX[distance]
    on_grid = not counts and n <= GRID_MAX.get(distance, 0)
    exact = counts or on_grid
    if method == "exact" and not exact:
        top = max(EXACT_MAX[distance], GRID_MAX.get(distance, 0))
        raise ValueError(
            f"no exact {distance} partition function for n = {n} here (exact up to "
            f"{top} items); use method='importance sampling' or 'auto'"
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
        return "importance sampling"
    if on_grid:
        return "exact on a grid"
    return "closed form" if distance in CLOSED_LOG_Z else "exact counts"


def _computed(
    n: int, distance: str, method: str, alpha_max: float | None, draws: int, seed: int
) -> PartitionFunction:
    if method in _GRID_NAMES:  # cubic spacing: E[d] bends most at small α
        points = IS_POINTS if method == "importance sampling" else GRID_POINTS[distance]
        grid = alpha_max * np.linspace(0.0, 1.0, points) ** 3
        if method == "exact on a grid":
            log_z, expected = GRID_FUNCTIONS[distance](n, grid)
            log_z[0] = math.lgamma(n + 1)  # α = 0: n! exactly (the recursion rounds it)
            return PartitionFunction(
                distance, n, method, None, grid, log_z, np.zeros_like(grid), expected
            )
        log_z, se, expected = importance_sampling(n, distance, grid, draws, seed)
        return PartitionFunction(distance, n, method, None, grid, log_z, se, expected, draws, seed)
    if method == "closed form":
        return PartitionFunction(distance, n, "closed form")
    counts = LOG_COUNTS[distance](n)
    counts.setflags(write=False)
    return PartitionFunction(distance, n, "exact counts", counts)


def partition_function_from_grid(
    distance: str,
    n: int,
    alpha: np.ndarray,
    log_z: np.ndarray,
    *,
    expected_distance: np.ndarray | None = None,
    log_z_se: np.ndarray | None = None,
    method: str = "imported",
    draws: int = 0,
    seed: int | None = None,
) -> PartitionFunction:
    r"""A partition function from a table of :math:`\log Z_n(\alpha)` on a grid of α.

    Parameters
    ----------
    distance, n
        The distance and the number of items the table is for.
    alpha, log_z : array_like
        The grid (from 0, increasing) and :math:`\log Z_n` there.
    expected_distance, log_z_se : array_like, optional
        :math:`E_\alpha[d]` (default: ``−n`` times the slopes of the monotone PCHIP
        interpolant of ``log_z``) and the standard error of ``log_z`` (default 0).
    method : {"imported", "importance sampling"}
        ``"imported"``: ``log_z`` between the grid's points is the cubic Hermite spline
        through ``log_z`` with slopes ``−E[d]/n``. ``"importance sampling"``: an estimate of
        this module written by :meth:`PartitionFunction.save` (``expected_distance`` required;
        interpolated as an imported table).
    draws, seed
        Importance sampling: what the estimate was computed with.

    Returns
    -------
    PartitionFunction

    Raises
    ------
    ValueError
        One line naming what is wrong with the table (see
        :func:`rankstats.core.permutations.partition_store.check_table`).
    """
    from scipy.interpolate import PchipInterpolator

    alpha, log_z = (np.array(a, dtype=np.float64, ndmin=1) for a in (alpha, log_z))
    expected, se = (
        None if a is None else np.array(a, dtype=np.float64, ndmin=1)
        for a in (expected_distance, log_z_se)
    )
    partition_store.check_table(distance, n, alpha, log_z, expected, se)
    n = int(n)
    se = np.zeros_like(alpha) if se is None else se
    if method == "importance sampling":
        if expected is None:
            raise ValueError("an importance-sampling estimate needs its expected_distance column")
        return PartitionFunction(
            distance, n, method, None, alpha, log_z, se, expected, int(draws), seed
        )
    if method != "imported":
        raise ValueError(f"method must be 'imported' or 'importance sampling', not {method!r}")
    if expected is None:
        expected = -max(n, 1) * PchipInterpolator(alpha, log_z).derivative()(alpha)
        expected = np.clip(expected, 0.0, None)  # -0.0 and rounding below 0 at a flat end
        partition_store.check_table(distance, n, alpha, log_z, expected, None)
    return PartitionFunction(distance, n, "imported", None, alpha, log_z, se, expected)
