r"""Pairwise probabilities of the Mallows model with any distance: ``P(i ranked above j)`` as a
function of the consensus ranks of ``i`` and ``j`` and of α.

Every distance of :mod:`rankstats.core.permutations.distances` is right-invariant, so a ranking
drawn around ρ is :math:`r = \pi \circ \rho` with π drawn around the identity, and

.. math:: P(r_i < r_j \mid \rho, \alpha) = T_\alpha[\rho_i, \rho_j], \qquad
          T_\alpha[a, b] = P_{\pi \sim \text{Mallows}(\mathrm{id}, \alpha)}(\pi_a < \pi_b):

one ``n × n`` table per α serves every pair and every consensus. It is computed

- in closed form for Kendall's distance (Fligner & Verducci 1986:
  :func:`rankstats.core.permutations.kendall.pair_probability` of the gap ``b − a`` at θ = α/n);
- exactly for every distance up to :data:`~rankstats.core.permutations.sampling.ENUMERATED`
  items, by summing over the ``n!`` permutations;
- beyond, as the share of ``size`` rankings drawn by
  :func:`~rankstats.core.permutations.sampling.sample_mallows` (Metropolis) with ``π_a < π_b``,
  with its binomial standard error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rankstats.core.permutations.distances import check_distance, row_distances
from rankstats.core.permutations.kendall import pair_probability
from rankstats.core.permutations.sampling import ENUMERATED, all_permutations, sample_mallows

#: Rankings drawn per α where the table is estimated (standard error ≤ 0.5/√size = 0.011).
SIZE = 2000


@dataclass(frozen=True, eq=False)
class PairTable:
    """``values[k, a, b]`` = :math:`T_{\\alpha_k}[a, b]` (consensus ranks ``a, b`` 0-based) at
    every α of ``alpha``; ``standard_error`` its largest Monte Carlo standard error (0 when
    exact); ``method``: ``"closed form"``, ``"enumeration"`` or ``"monte carlo"``. The tables
    of :func:`rank_table` have the same form (``b``: a rank)."""

    alpha: np.ndarray = field(repr=False)
    values: np.ndarray = field(repr=False)
    standard_error: float
    method: str

    def at(self, alpha: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """:math:`T_\\alpha[a, b]` for draws ``alpha`` ``(S,)`` and consensus ranks ``a``, ``b``
        (0-based, broadcast against ``(S, 1, 1)``): exact where the table is computed at that
        α, else linear in α between the two nearest grid points (the ends extended flat)."""
        alpha = np.asarray(alpha, dtype=np.float64)
        grid = self.alpha
        s = np.arange(len(alpha))[:, None, None]
        if len(grid) == 1:
            return self.values[np.zeros_like(s), a, b]
        k = np.clip(np.searchsorted(grid, alpha, side="right") - 1, 0, len(grid) - 2)
        w = np.clip((alpha - grid[k]) / (grid[k + 1] - grid[k]), 0.0, 1.0)[:, None, None]
        k = k[:, None, None]
        return (1.0 - w) * self.values[k, a, b] + w * self.values[k + 1, a, b]


def pair_table(
    n: int,
    alpha: np.ndarray,
    distance: str,
    *,
    size: int = SIZE,
    rng: np.random.Generator | None = None,
) -> PairTable:
    """:math:`T_\\alpha` (module docstring) at each α of ``alpha`` (sorted on return).

    Parameters
    ----------
    n : int
        Number of items (≥ 2).
    alpha : array-like
        Values of α ≥ 0.
    distance : str
    size : int
        Rankings drawn per α when neither the closed form nor enumeration applies.
    rng : numpy.random.Generator, optional
        For those draws (default: seeded 0, so a table is reproducible).
    """
    grid = _alpha_grid(n, alpha, distance)
    ranks = np.arange(n)
    gap = ranks[None, :] - ranks[:, None]  # b − a: > 0 when a is above b in the consensus
    if distance == "kendall":
        p = pair_probability(np.maximum(np.abs(gap), 1)[None], (grid / n)[:, None, None])
        values = np.where(gap > 0, p, np.where(gap < 0, 1.0 - p, 0.5))
        return PairTable(grid, values, 0.0, "closed form")
    if n <= ENUMERATED:
        perms, weight = _enumerated(n, grid, distance)
        above = (perms[:, :, None] < perms[:, None, :]).reshape(len(perms), -1).astype(float)
        values = (weight @ above / weight.sum(axis=1, keepdims=True)).reshape(-1, n, n)
        values[:, ranks, ranks] = 0.5
        return PairTable(grid, values, 0.0, "enumeration")
    rng = np.random.default_rng(0) if rng is None else rng
    identity = np.arange(1, n + 1)
    values = np.empty((len(grid), n, n))
    for k, a in enumerate(grid):  # one Metropolis sample per α (each vectorised over size)
        pi = sample_mallows(identity, float(a), distance, size, rng, method="metropolis")
        values[k] = np.count_nonzero(pi[:, :, None] < pi[:, None, :], axis=0) / size
    values[:, ranks, ranks] = 0.5
    error = float(np.sqrt(values * (1.0 - values) / size).max())
    return PairTable(grid, values, error, "monte carlo")


def rank_table(
    n: int,
    alpha: np.ndarray,
    distance: str,
    *,
    size: int = SIZE,
    rng: np.random.Generator | None = None,
) -> PairTable:
    """:math:`M_\\alpha[a, r]` = P(the item at consensus rank ``a + 1`` is ranked ``r + 1``)
    under the Mallows model, at each α of ``alpha``: the rank marginals of a new ranking, by
    right-invariance the same for every consensus (module docstring). Summed over all ``n!``
    rankings up to :data:`~rankstats.core.permutations.sampling.ENUMERATED` items, else the shares
    of ``size`` rankings drawn by :func:`~rankstats.core.permutations.sampling.sample_mallows`
    (exactly, by repeated insertion, for Kendall; by Metropolis otherwise), with the binomial
    standard error."""
    grid = _alpha_grid(n, alpha, distance)
    if n <= ENUMERATED:
        perms, weight = _enumerated(n, grid, distance)
        onehot = np.zeros((len(perms), n, n))
        np.put_along_axis(onehot, (perms - 1)[:, :, None], 1.0, axis=2)
        values = (weight @ onehot.reshape(len(perms), -1)) / weight.sum(axis=1, keepdims=True)
        return PairTable(grid, values.reshape(-1, n, n), 0.0, "enumeration")
    rng = np.random.default_rng(0) if rng is None else rng
    identity = np.arange(1, n + 1)
    values = np.zeros((len(grid), n, n))
    items = np.tile(np.arange(n), size)
    for k, a in enumerate(grid):  # one sample per α (each vectorised over size)
        pi = sample_mallows(identity, float(a), distance, size, rng)
        np.add.at(values[k], (items, pi.ravel() - 1), 1.0 / size)
    error = float(np.sqrt(values * (1.0 - values) / size).max())
    return PairTable(grid, values, error, "monte carlo")


def _alpha_grid(n: int, alpha: np.ndarray, distance: str) -> np.ndarray:
    """The distinct values of ``alpha``, sorted, after the arguments are checked."""
    check_distance(distance)
    grid = np.unique(np.asarray(alpha, dtype=np.float64).ravel())
    if n < 2 or len(grid) == 0 or not np.all(np.isfinite(grid)) or grid.min() < 0:
        raise ValueError("need n ≥ 2 and finite values of alpha ≥ 0")
    return grid


def _enumerated(n: int, grid: np.ndarray, distance: str) -> tuple[np.ndarray, np.ndarray]:
    """Every ranking of ``n`` items (``perms[k, a]``: the rank of the item at consensus rank
    ``a + 1``) and its unnormalised Mallows weight at each α of ``grid``, ``(len(grid), n!)``."""
    perms = all_permutations(n)
    d = row_distances(perms, np.arange(1, n + 1), distance).astype(np.float64)
    return perms, np.exp(-grid[:, None] / n * (d - d.min())[None, :])
