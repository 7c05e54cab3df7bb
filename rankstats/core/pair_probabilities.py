r"""Pairwise statistics of partial rankings under uniform-linear-extension imputation.

A partial ranking (some systems not evaluated, some tied) is replaced by the distribution of a
uniformly random complete ranking compatible with it (Himmi et al., 2023, "Towards more robust NLP
system evaluation: handling missing scores in benchmarks").  The probability that ``i`` is ranked
above ``j`` has a closed form.  With ``k`` observed systems and ``m_j`` the mid-rank of ``j`` among
them (1 = best):

.. math::

    P[i, j] = \begin{cases}
        \mathbb 1[r_i < r_j] + \tfrac12 \mathbb 1[r_i = r_j] & i, j \text{ observed} \\
        m_j / (k + 1) & i \text{ unobserved}, j \text{ observed} \\
        1 - m_i / (k + 1) & i \text{ observed}, j \text{ unobserved} \\
        \tfrac12 & \text{neither observed}
    \end{cases}

(inserting ``i`` uniformly into one of the ``k + 1`` gaps of a uniformly tie-broken order puts
it above ``j`` with probability ``m_j / (k + 1)``).  This replaces the paper's ``O(n^3)`` counting
formula; ``tests/core/test_pairwise.py`` checks it against exhaustive enumeration.

Every statistic here is a sum over rankings, so chunks of rankings can be reduced separately and
added (``Pairwise.__add__``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankstats._util.blas_threads import one_blas_thread
from rankstats._util.resources import pairwise_bytes, require_memory
from rankstats.core.rankings import Rankings, default_level
from rankstats.core.scores import Scores
from rankstats.core.sufficient import StatisticsSource

# Rankings per block: bounds the (N, block) temporaries to a few tens of MB.
_BLOCK_CELLS = 4_000_000
# Below this many (ranking, i, j) cells one broadcast comparison beats the loop over systems.
_BROADCAST_CELLS = 1_000_000


@dataclass(frozen=True, eq=False, repr=False)
class Pairwise:
    """Additive pairwise sufficient statistics of a set of partial rankings.

    Attributes
    ----------
    wins : ndarray, shape (N, N)
        ``wins[i, j] = Σ_rankings P[i, j]``: expected number of rankings in which ``i`` is above
        ``j`` under imputation.  ``wins + wins.T = n_rankings`` off the diagonal.
    wins_observed : ndarray, shape (N, N)
        Same sum restricted to rankings in which both were evaluated (1 / 0 / ½ for a tie).
        ``wins_observed + wins_observed.T = compared``.
    compared : ndarray, shape (N, N)
        ``Z[i, j]``: number of rankings in which both ``i`` and ``j`` were evaluated.
    n_rankings : int
        Number of rankings summed.
    systems : tuple of str
        Labels of the rows and columns.
    n_evaluated : ndarray, shape (N,)
        Number of rankings in which each system was evaluated.
    """

    wins: np.ndarray
    wins_observed: np.ndarray
    compared: np.ndarray
    n_rankings: int
    systems: tuple[str, ...]
    n_evaluated: np.ndarray

    def __add__(self, other: Pairwise) -> Pairwise:
        if not isinstance(other, Pairwise):
            return NotImplemented
        if tuple(other.systems) != tuple(self.systems):
            raise ValueError("cannot add Pairwise statistics over different systems (or order)")
        return Pairwise(
            self.wins + other.wins,
            self.wins_observed + other.wins_observed,
            self.compared + other.compared,
            self.n_rankings + other.n_rankings,
            self.systems,
            self.n_evaluated + other.n_evaluated,
        )

    @classmethod
    def empty(cls, systems: tuple[str, ...]) -> Pairwise:
        """Statistics of zero rankings (the neutral element of ``+``)."""
        n = len(systems)
        zero = np.zeros((n, n))
        return cls(zero, zero.copy(), zero.copy(), 0, tuple(systems), np.zeros(n))

    @classmethod
    def from_ranks(cls, ranks: np.ndarray, systems: tuple[str, ...]) -> Pairwise:
        """Statistics of the rows of a canonical rank matrix (:func:`pair_sums`), without the
        memory check of :func:`pairwise` (for blocks already in memory)."""
        sums = pair_sums(ranks)
        return cls(
            sums.wins,
            sums.wins_observed,
            sums.compared,
            sums.n_rankings,
            tuple(systems),
            sums.n_evaluated,
        )

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    def borda(self) -> pd.Series:
        """Borda score: expected number of systems beaten, summed over rankings (σ^l)."""
        return pd.Series(self.wins.sum(axis=1), index=list(self.systems), name="borda")

    def probability(self, estimand: str = "imputed") -> pd.DataFrame:
        """Estimated ``P(row system above column system)`` as a labelled matrix.

        ``imputed``: ``wins / n_rankings``; ``observed``: ``wins_observed / compared`` (NaN where
        the two were never compared).
        """
        if estimand == "imputed":
            p = self.wins / max(self.n_rankings, 1)
        elif estimand == "observed":
            with np.errstate(invalid="ignore", divide="ignore"):
                p = np.where(self.compared > 0, self.wins_observed / self.compared, np.nan)
        else:
            raise ValueError(f"estimand must be 'imputed' or 'observed', not {estimand!r}")
        p = p.copy()
        np.fill_diagonal(p, np.nan)
        return pd.DataFrame(p, index=list(self.systems), columns=list(self.systems))

    def __repr__(self) -> str:
        n = self.n_systems
        off = ~np.eye(n, dtype=bool)
        never = int((self.compared[off] == 0).sum() // 2)
        return (
            f"Pairwise({n} systems, {self.n_rankings} rankings, "
            f"{never} of {n * (n - 1) // 2} pairs never compared)"
        )


def insertion_probability(ranks: np.ndarray) -> np.ndarray:
    """``q[l, j] = m_j / (k + 1)``: probability that a system unobserved in ranking ``l`` lands
    above the observed system ``j`` (mid-rank ``m_j`` among ``k`` observed); 0 where ``j`` is
    unobserved.

    Parameters
    ----------
    ranks : ndarray, shape (L, N)
        Canonical mid-ranks (:attr:`Rankings.ranks`); NaN = not evaluated.
    """
    observed = ~np.isnan(ranks)
    k = observed.sum(axis=-1, keepdims=True)
    return np.where(observed, ranks, 0.0) / (k + 1.0)


def ranking_borda(ranks: np.ndarray) -> np.ndarray:
    r"""Per-ranking Borda counts :math:`b_{li} = \sum_j P^{(l)}[i, j]` in closed form.

    For an observed system with mid-rank ``m`` among ``k`` observed of ``N``:
    ``b = (k − m) + (N − k)(1 − m / (k + 1))``; for an unobserved system ``b = (N − 1) / 2``
    (it is equally likely to land anywhere).  Each row sums to ``N (N − 1) / 2``.
    """
    n = ranks.shape[1]
    observed = ~np.isnan(ranks)
    k = observed.sum(axis=1, keepdims=True).astype(np.float64)
    b = (k - ranks) + (n - k) * (1.0 - ranks / (k + 1.0))
    return np.where(observed, b, (n - 1) / 2.0)


@dataclass(frozen=True, eq=False, repr=False)
class PairSums:
    r"""Sums over rankings of the pair states (the output of :func:`pair_sums`).

    Attributes
    ----------
    wins, wins_observed, compared : ndarray, shape (N, N)
        As in :class:`Pairwise` (zero diagonal).
    ties : ndarray, shape (N, N)
        Rankings in which ``i`` and ``j`` are both evaluated and tied (zero diagonal).
    n_evaluated : ndarray, shape (N,)
        Rankings in which each system is evaluated.
    n_rankings : int
        Rankings summed.
    self_product : ndarray, shape (N, N), or None
        :math:`\sum_l P^{(l)}[i, j] P^{(l)}[j, i]` (non-zero only for imputed pairs; the
        second moment behind the exact dispersion), when asked for.
    """

    wins: np.ndarray
    wins_observed: np.ndarray
    compared: np.ndarray
    ties: np.ndarray
    n_evaluated: np.ndarray
    n_rankings: int
    self_product: np.ndarray | None = None

    def __add__(self, other: PairSums) -> PairSums:
        both = self.self_product is not None and other.self_product is not None
        return PairSums(
            self.wins + other.wins,
            self.wins_observed + other.wins_observed,
            self.compared + other.compared,
            self.ties + other.ties,
            self.n_evaluated + other.n_evaluated,
            self.n_rankings + other.n_rankings,
            self.self_product + other.self_product if both else None,
        )


def pair_sums(ranks: np.ndarray, second_moment: bool = False) -> PairSums:
    r"""The imputation kernel: pairwise sums over partial rankings, block by block.

    One implementation for every caller (:func:`pairwise`, the streamed scan, the simulation
    cube, the exact dispersion). Cost ``O(L N^2)`` without a Python loop over rankings; memory
    is bounded by processing ``_BLOCK_CELLS / N`` rankings at a time. The small matrix products
    run on one BLAS thread (see :func:`rankstats._util.blas_threads.one_blas_thread`).

    Parameters
    ----------
    ranks : ndarray, shape (L, N)
        Canonical mid-ranks (:attr:`Rankings.ranks`); NaN = not evaluated.
    second_moment : bool
        Also return ``self_product`` (:math:`\sum_l P[i, j] P[j, i]`).

    Returns
    -------
    PairSums
    """
    n_rows, n = ranks.shape
    block = max(1, _BLOCK_CELLS // max(n, 1))
    total: PairSums | None = None
    with one_blas_thread():
        for start in range(0, n_rows, block):
            part = _block_sums(ranks[start : start + block], second_moment)
            total = part if total is None else total + part
    if total is None:  # no rankings: the neutral element (separate arrays, as Pairwise.empty)
        zeros = [np.zeros((n, n)) for _ in range(5)]
        return PairSums(*zeros[:4], np.zeros(n), 0, zeros[4] if second_moment else None)
    return total


def _block_sums(ranks: np.ndarray, second_moment: bool) -> PairSums:
    """:func:`pair_sums` of one block of rankings."""
    arrays = pair_sum_arrays(ranks, second_moment=second_moment)
    return PairSums(*arrays[:5], ranks.shape[0], arrays[6])


def pair_sum_arrays(
    ranks: np.ndarray, keep: np.ndarray | None = None, second_moment: bool = False
) -> tuple[np.ndarray, ...]:
    r"""The sums of :class:`PairSums` over the rankings of each batch, as arrays.

    The one computation behind :func:`pair_sums` (one batch) and the power simulations
    (:mod:`rankstats.planning`), which sum many simulated benchmarks at once.

    Parameters
    ----------
    ranks : ndarray, shape (..., L, N)
        Canonical mid-ranks; NaN = not evaluated. Leading axes are batches summed separately.
    keep : ndarray of bool, shape (..., L), optional
        Rankings that count (default all): a simulated benchmark drops its rankings with fewer
        than two scores, as :class:`~rankstats.Scores` does, so each batch has its own ``L``.
    second_moment : bool
        Also return ``self_product``.

    Returns
    -------
    tuple
        ``wins, wins_observed, compared, ties`` (shape ``(..., N, N)``, zero diagonal),
        ``n_evaluated`` (``(..., N)``), ``n_rankings`` (``(...)``, float) and ``self_product``
        (``(..., N, N)`` or None), as the fields of :class:`PairSums`.
    """
    observed = ~np.isnan(ranks)
    if keep is not None:
        observed &= keep[..., None]
        ranks = np.where(observed, ranks, np.nan)
    obs = observed.astype(np.float64)
    counted = np.ones(ranks.shape[:-1]) if keep is None else keep.astype(np.float64)
    unobs = counted[..., None] - obs
    q = insertion_probability(ranks)

    n_rows, n = ranks.shape[-2:]
    batch = int(np.prod(ranks.shape[:-2], dtype=np.int64))
    # Both observed: strict wins (NaN compares False); ties then follow from compared − wins − winsᵀ
    # without a second comparison.
    if batch * n_rows * n * n <= _BROADCAST_CELLS:
        strict = np.count_nonzero(ranks[..., :, :, None] < ranks[..., :, None, :], axis=-3).astype(
            np.float64
        )
    else:
        # Column by column: a loop over systems, vectorised over rankings, bounded memory.
        strict = np.empty((*ranks.shape[:-2], n, n))
        for j in range(n):
            strict[..., :, j] = np.count_nonzero(ranks < ranks[..., j : j + 1], axis=-2)
    t_obs = np.swapaxes(obs, -1, -2)
    t_unobs = np.swapaxes(unobs, -1, -2)
    diagonal = np.eye(n, dtype=bool)
    compared = t_obs @ obs
    ties = compared - strict - np.swapaxes(strict, -1, -2)
    ties[..., diagonal] = 0.0
    wins_observed = strict + 0.5 * ties

    both_missing = t_unobs @ unobs
    wins = wins_observed + t_unobs @ q + np.swapaxes(obs - q, -1, -2) @ unobs + 0.5 * both_missing
    wins[..., diagonal] = 0.0
    self_product = None
    if second_moment:
        # P[i, j] P[j, i] = q (1 − q) when exactly one of the two is observed, ¼ when neither.
        v = obs * q * (1.0 - q)
        self_product = t_unobs @ v + np.swapaxes(v, -1, -2) @ unobs + 0.25 * both_missing
        self_product[..., diagonal] = 0.0
    n_evaluated = compared[..., diagonal].copy()
    compared[..., diagonal] = 0.0
    wins_observed[..., diagonal] = 0.0
    n_rankings = counted.sum(axis=-1)
    return wins, wins_observed, compared, ties, n_evaluated, n_rankings, self_product


def pairwise(data: Rankings | Scores, by: str | None = None) -> Pairwise:
    """Pairwise statistics of partial rankings with uniform-linear-extension imputation.

    Parameters
    ----------
    data : Rankings, Scores or a StatisticsSource
        Scores are ranked first with ``Rankings.from_scores(data, by=by)``; a
        :class:`~rankstats.core.sufficient.StatisticsSource` (``rs.scan_scores``) computes its own.
    by : {"task", "instance"}, optional
        Level for Scores input (default: ``"instance"`` when the table has instances).

    Returns
    -------
    Pairwise
        ``wins`` (Σ P), ``wins_observed``, ``compared`` (Z), ``n_rankings``, ``systems``.

    Notes
    -----
    Cost is ``O(L N^2)`` with no Python loop over rankings or pairs; memory is bounded by
    processing the rankings in blocks.  The peak memory (about ``72 N²`` bytes plus the
    blocks) is estimated from the shape first: a ``ResourceError`` refuses an input larger than
    the available memory, unless ``RANKSTATS_IGNORE_MEMORY=1`` (see
    :func:`rankstats._util.resources.pairwise_bytes`).

    Raises
    ------
    ResourceError
        The estimated memory exceeds what this machine has available.

    Examples
    --------
    >>> import rankstats as rs
    >>> rk = rs.Rankings.from_orderings([["a", "b", "c"], ["c", "a"]])
    >>> rs.pairwise(rk).wins.round(3).tolist()   # b unobserved in ranking 2: P(b > a) = 2/3
    [[0.0, 1.333, 1.0], [0.667, 0.0, 1.333], [1.0, 0.667, 0.0]]
    """
    if isinstance(data, StatisticsSource):  # e.g. rs.scan_scores: one pass over the files
        return data.statistics().pairwise
    if isinstance(data, Scores):
        level = default_level(data, by)
        # Memory from the table's shape, before ranking (L ≈ rows / N at instance level).
        n = max(len(data.systems), 1)
        n_rows = data.n_tasks if level == "task" else -(-len(data.data) // n)
        require_memory(
            pairwise_bytes(n, n_rows, from_scores=True),
            "rs.pairwise",
            n_systems=n,
            n_rankings=n_rows,
        )
        data = Rankings.from_scores(data, by=level)
    if not isinstance(data, Rankings):
        raise TypeError(f"pairwise() takes Rankings or Scores, not {type(data).__name__}")
    rankings = data

    def build() -> Pairwise:
        n_rows, n = rankings.ranks.shape
        require_memory(pairwise_bytes(n, n_rows), "rs.pairwise", n_systems=n, n_rankings=n_rows)
        return Pairwise.from_ranks(rankings.ranks, rankings.systems)

    # Computed once per Rankings object: σ^l, Copeland and the intervals read the same sums.
    return rankings.cached("pairwise", build)
