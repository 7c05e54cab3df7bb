r"""Distances and agreement between rankings: Kendall distance and τ_b, top-k overlap.

Every statistic here is computed from one count of the pairs of systems, :func:`kendall_counts`,
vectorised over many pairs of rank vectors at once:

Kendall distance (Fagin, Kumar, Mahdian, Sivakumar & Vee 2006, "Comparing partial
rankings", :math:`K^{(p)}` with :math:`p = \tfrac12`)
    a pair of systems ordered one way by ``a`` and the other way by ``b`` counts 1; a pair tied in
    exactly one of the two counts ½; a pair tied in both counts 0.  With ``n_d`` the discordant
    pairs, ``t_a`` / ``t_b`` the pairs tied in ``a`` / ``b`` and ``t_ab`` the pairs tied in both,

    .. math::

        K(a, b) = n_d + \tfrac12 (t_a - t_{ab}) + \tfrac12 (t_b - t_{ab}).

Kendall's τ_b (Kendall 1945, "The treatment of ties in ranking problems")
    with :math:`n_0 = N(N-1)/2` pairs and :math:`n_c = n_0 - n_d - t_a - t_b + t_{ab}` concordant
    pairs, :math:`\tau_b = (n_c - n_d) / \sqrt{(n_0 - t_a)(n_0 - t_b)}` (0 when either ranking
    ties every pair).

top-k overlap
    :math:`|T_k(a) \cap T_k(b)| / k`, the share of the ``k`` best systems in common (ties broken by
    position, as a stable sort).

``n_d`` is counted as in Knight (1966), "A computer method for calculating Kendall's tau with
ungrouped data": sort the pairs by ``(a, b)``, then count the strict inversions of ``b`` with a
bottom-up merge sort.  Every level of the merge is vectorised over all blocks and all rows at once
(one ``searchsorted`` and one ``sort``), so the ``log N`` levels are the only Python loop:
``O(N log² N)`` per pair of rank vectors, with no loop over systems, pairs or rows.

These metrics serve the robustness experiments (:mod:`rankstats.simulate.robustness_experiments`),
the dispersion of a ranking sample (:mod:`rankstats.aggregation.dispersion_analysis`) and the paired
analysis (:mod:`rankstats.paired_analysis.paired_tests`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rankstats._util.arguments import count
from rankstats.core.rankings import average_ranks


# ---------------------------------------------------------------------------- pair counts
def _dense_codes(sorted_values: np.ndarray) -> np.ndarray:
    """Integer codes ``0, 1, ...`` of row-wise sorted values (equal values share a code)."""
    step = np.zeros(sorted_values.shape, dtype=np.int64)
    step[:, 1:] = sorted_values[:, 1:] != sorted_values[:, :-1]
    return np.cumsum(step, axis=1)


def _tied_pairs(sorted_keys: list[np.ndarray]) -> np.ndarray:
    """Number of pairs equal in every key, for rows sorted lexicographically by the keys."""
    m, n = sorted_keys[0].shape
    if n < 2:
        return np.zeros(m)
    new_run = np.zeros((m, n), dtype=bool)
    new_run[:, 0] = True
    for key in sorted_keys:
        new_run[:, 1:] |= key[:, 1:] != key[:, :-1]
    position = np.broadcast_to(np.arange(n), (m, n))
    first = np.maximum.accumulate(np.where(new_run, position, 0), axis=1)
    # Element at position p is tied with the p - first earlier members of its run.
    return (position - first).sum(axis=1).astype(np.float64)


def strict_inversions(values: np.ndarray) -> np.ndarray:
    """Row-wise number of pairs ``p < q`` with ``values[p] > values[q]`` (ties do not count).

    A bottom-up merge sort vectorised over rows and blocks (Knight 1966).

    Parameters
    ----------
    values : ndarray of int, shape (m, N)
        Codes in ``0 .. N - 1``.

    Returns
    -------
    ndarray of float, shape (m,)
    """
    values = np.asarray(values, dtype=np.int64)
    m, n = values.shape
    if n < 2:
        return np.zeros(m)
    size = 1 << (n - 1).bit_length()
    # Padding at the end with a value above every code never creates an inversion.
    work = np.full((m, size), n, dtype=np.int64)
    work[:, :n] = values
    total = np.zeros(m, dtype=np.int64)
    width = 1
    while width < size:
        n_blocks = size // (2 * width)
        blocks = work.reshape(m, n_blocks, 2, width)
        # Offsets separate the blocks so that one global searchsorted serves all of them.
        offset = (np.arange(m * n_blocks, dtype=np.int64) * (n + 1)).reshape(m, n_blocks, 1)
        left = (blocks[:, :, 0, :] + offset).ravel()
        right = blocks[:, :, 1, :] + offset
        not_greater = np.searchsorted(left, right.ravel(), side="right").reshape(right.shape)
        not_greater -= np.arange(m * n_blocks, dtype=np.int64).reshape(m, n_blocks, 1) * width
        total += (width - not_greater).reshape(m, -1).sum(axis=1)
        work = np.sort(blocks.reshape(m, n_blocks, 2 * width), axis=-1).reshape(m, size)
        width *= 2
    return total.astype(np.float64)


@dataclass(frozen=True)
class KendallCounts:
    """Pair counts of the rows of two ``(m, N)`` rank matrices (each field has shape ``(m,)``).

    Attributes
    ----------
    n_pairs : int
        :math:`n_0 = N(N-1)/2`.
    discordant : ndarray
        Pairs ordered one way by ``a`` and the other way by ``b`` (:math:`n_d`).
    tied_a, tied_b, tied_both : ndarray
        Pairs tied in ``a`` (:math:`t_a`), in ``b`` (:math:`t_b`), in both (:math:`t_{ab}`).
    """

    n_pairs: int
    discordant: np.ndarray
    tied_a: np.ndarray
    tied_b: np.ndarray
    tied_both: np.ndarray

    @property
    def distance(self) -> np.ndarray:
        r"""Kendall distance :math:`n_d + \tfrac12 (t_a + t_b - 2 t_{ab})` (ties ½)."""
        return self.discordant + 0.5 * (self.tied_a + self.tied_b - 2.0 * self.tied_both)

    @property
    def tau_b(self) -> np.ndarray:
        r"""Kendall's :math:`\tau_b = (n_c - n_d) / \sqrt{(n_0 - t_a)(n_0 - t_b)}`."""
        n0 = self.n_pairs
        concordant = n0 - self.discordant - self.tied_a - self.tied_b + self.tied_both
        norm = np.sqrt(np.maximum((n0 - self.tied_a) * (n0 - self.tied_b), 1.0))
        return (concordant - self.discordant) / norm


def kendall_counts(a: np.ndarray, b: np.ndarray) -> KendallCounts:
    """Discordant and tied pairs between the rows of two ``(m, N)`` rank matrices without NaN.

    Only the order within a row matters (ranks or scores, either direction used consistently);
    ``±inf`` are ordinary values.  ``O(m N log² N)`` with the merge count of Knight (1966).
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    m, n = a.shape
    n_pairs = n * (n - 1) // 2
    if n < 2:
        zero = np.zeros(m)
        return KendallCounts(n_pairs, zero, zero, zero, zero)
    order = np.lexsort((b, a), axis=-1)
    a_sorted = np.take_along_axis(a, order, axis=1)
    b_by_a = np.take_along_axis(b, order, axis=1)
    by_b = np.argsort(b, axis=1, kind="stable")
    b_sorted = np.take_along_axis(b, by_b, axis=1)
    codes_of_b = np.empty((m, n), dtype=np.int64)
    np.put_along_axis(codes_of_b, by_b, _dense_codes(b_sorted), axis=1)
    codes = np.take_along_axis(codes_of_b, order, axis=1)
    return KendallCounts(
        n_pairs,
        strict_inversions(codes),
        _tied_pairs([a_sorted]),
        _tied_pairs([b_sorted]),
        _tied_pairs([a_sorted, b_by_a]),
    )


def kendall_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Kendall distance (ties ½) between the rows of two ``(m, N)`` rank matrices without NaN."""
    return kendall_counts(a, b).distance


# ---------------------------------------------------------------------------- public distance
def kendall_distance(a, b) -> float | np.ndarray:
    r"""Kendall distance between rank vectors; a pair tied in exactly one counts ½.

    .. math::

        d(a, b) = \#\{i<j : (a_i - a_j)(b_i - b_j) < 0\}
        + \tfrac12 \#\{i<j : \text{tied in exactly one of } a, b\}

    (Fagin et al., 2006, :math:`K^{(1/2)}`, a metric on rankings with ties).  ``O(N log² N)``
    with a vectorised merge sort (:func:`kendall_counts`).

    Parameters
    ----------
    a : array-like, shape (N,) or pandas Series
        Ranks (lower = better) or scores; only the order matters. No NaN.
    b : array-like, shape (N,) or (m, N), or pandas Series
        One or ``m`` rank vectors.  Two Series are aligned on their index.

    Returns
    -------
    float, or ndarray of shape (m,)

    Raises
    ------
    ValueError
        Shapes that do not match, two Series over different systems, or a missing (NaN) or
        infinite rank (named by system or position).

    Examples
    --------
    >>> import rankstats as rs
    >>> rs.kendall_distance([1, 2, 3, 4], [2, 1, 4, 3])
    2.0
    >>> rs.kendall_distance([1, 2, 3], [1.5, 1.5, 3])   # one pair tied in b only
    0.5
    """
    if isinstance(a, pd.Series) and isinstance(b, pd.Series):
        if set(a.index) != set(b.index):
            missing = sorted(set(a.index) ^ set(b.index), key=str)
            raise ValueError(f"the two rankings rank different systems: {missing[:8]}")
        b = b.reindex(a.index)
    a_arr = np.asarray(a, dtype=np.float64)
    b_arr = np.asarray(b, dtype=np.float64)
    if a_arr.ndim != 1:
        raise ValueError(f"a must be one rank vector, got shape {a_arr.shape}")
    single = b_arr.ndim == 1
    b2 = np.atleast_2d(b_arr)
    if b2.ndim != 2 or b2.shape[1] != a_arr.shape[0]:
        raise ValueError(f"b must have {a_arr.shape[0]} columns, got shape {b_arr.shape}")
    for name, values in (("a", a_arr[None, :]), ("b", b2)):
        bad = np.argwhere(~np.isfinite(values))
        if len(bad):
            label = _label(a if name == "a" else b, bad[0][-1])
            raise ValueError(
                f"{name} has a missing or infinite rank at {label}; the Kendall distance needs "
                f"complete rankings (dispersion() handles partial rankings by imputation)"
            )
    out = kendall_rows(np.broadcast_to(a_arr, b2.shape), b2)
    return float(out[0]) if single else out


def _label(values, position: int) -> str:
    if isinstance(values, pd.Series):
        return f"system {values.index[position]!r}"
    return f"position {position}"


# ---------------------------------------------------------------------------- ranking metrics
def _ranks_of_scores(score: np.ndarray) -> np.ndarray:
    """Mid-ranks (1 = best) of score rows, a missing score ranked last (tied with the others)."""
    return average_ranks(np.where(np.isnan(score), -np.inf, score))


def ranking_metrics(
    score: np.ndarray, truth_rank: np.ndarray, k: int
) -> dict[str, float | np.ndarray]:
    r"""Distance of the ranking induced by ``score`` to a reference ranking ``truth_rank``.

    The ranking of ``score`` (higher = better, NaN ranked last) is compared with
    ``truth_rank`` (1 = best) by

    - ``kendall_distance``: :math:`K / n_0`, the share of the :math:`n_0 = N(N-1)/2` pairs
      ordered differently (a pair tied by one ranking only counts ½);
    - ``kendall_tau``: :math:`\tau_b`;
    - ``top1``: 1 when ``score`` has a single best system and it is the best of ``truth_rank``;
    - ``top<k>``: :math:`|T_k \cap \hat T_k| / k`.

    Parameters
    ----------
    score : ndarray, shape (N,) or (m, N)
        Aggregate scores, higher = better (one row per ranking to evaluate).
    truth_rank : ndarray, shape (N,) or (m, N)
        Reference ranks, 1 = best, no NaN (one row, or one per row of ``score``).
    k : int
        Size of the top-k overlap.

    Returns
    -------
    dict
        ``kendall_distance``, ``kendall_tau``, ``top1``, ``top<k>``: floats for a 1-D
        ``score``, else arrays of shape ``(m,)``.

    Examples
    --------
    >>> from rankstats.core.metrics import ranking_metrics
    >>> m = ranking_metrics([3.0, 2.0, 1.0, 0.0], [2.0, 1.0, 3.0, 4.0], k=2)
    >>> {key: round(value, 4) for key, value in m.items()}
    {'kendall_distance': 0.1667, 'kendall_tau': 0.6667, 'top1': 0.0, 'top2': 1.0}
    """
    score = np.asarray(score, dtype=np.float64)
    single = score.ndim == 1
    score = np.atleast_2d(score)
    truth = np.broadcast_to(np.asarray(truth_rank, dtype=np.float64), score.shape)
    rank = _ranks_of_scores(score)
    counts = kendall_counts(rank, truth)
    with np.errstate(invalid="ignore", divide="ignore"):  # fewer than two systems: NaN
        distance = counts.distance / counts.n_pairs
    rows = np.arange(len(rank))
    best = rank == rank.min(axis=1, keepdims=True)
    top1 = (best.sum(axis=1) == 1) & best[rows, np.argmin(truth, axis=1)]
    out = {
        "kendall_distance": distance,
        "kendall_tau": counts.tau_b,
        "top1": top1.astype(np.float64),
        f"top{k}": top_k_overlap(rank, truth, k),
    }
    return {key: float(value[0]) for key, value in out.items()} if single else out


def top_k_overlap(rank_a: np.ndarray, rank_b: np.ndarray, k: int) -> np.ndarray:
    r"""Share of the ``k`` best systems two rankings have in common, :math:`|T_k \cap \hat T_k|/k`.

    Row-wise on ``(m, N)`` rank matrices (1 = best, no NaN); ties are broken by position (stable
    sort), so ``T_k`` always holds ``k`` systems.
    """
    rank_a = np.atleast_2d(rank_a)
    rank_b = np.atleast_2d(rank_b)
    rows = np.arange(len(rank_a))[:, None]
    in_top_b = np.zeros(rank_b.shape, dtype=bool)
    in_top_b[rows, np.argsort(rank_b, axis=1, kind="stable")[:, :k]] = True
    top_a = np.argsort(rank_a, axis=1, kind="stable")[:, :k]
    return in_top_b[rows, top_a].sum(axis=1) / k


def agreement(rankings: Mapping[str, Any], k: int = 3) -> pd.DataFrame:
    """Kendall τ and top-k overlap between several rankings of the same systems.

    Parameters
    ----------
    rankings : dict
        Name → an :class:`~rankstats.Aggregate`, a pandas Series of scores (higher = better),
        or a list of systems best first.
    k : int
        Size of the top-k overlap.

    Returns
    -------
    pandas.DataFrame
        One row per pair of rankings: ``a``, ``b``, ``kendall_tau`` (τ_b), ``share_discordant``
        (share of system pairs ordered differently, ties ½), ``same_top1``, ``top<k>_overlap``
        (see :func:`ranking_metrics`).

    Raises
    ------
    ValueError
        Two rankings over different systems.

    Examples
    --------
    >>> import rankstats as rs
    >>> x = rs.load_dataset("xtreme_missing")
    >>> table = rs.agreement({m: rs.aggregate(x, m) for m in ("mean", "borda", "borda2")})
    >>> list(table[["a", "b"]].itertuples(index=False, name=None))
    [('mean', 'borda'), ('mean', 'borda2'), ('borda', 'borda2')]
    """
    count("k", k, 1)
    scores = {}
    for name, value in rankings.items():
        if hasattr(value, "scores"):
            series = value.scores
        elif isinstance(value, pd.Series):
            series = value
        else:
            order = list(value)
            series = pd.Series(np.arange(len(order), 0, -1, dtype=float), index=order)
        scores[name] = series.astype(np.float64)
    names = list(scores)
    systems = list(scores[names[0]].index)
    for name in names[1:]:
        if set(scores[name].index) != set(systems):
            raise ValueError(f"rankings {names[0]!r} and {name!r} rank different systems")
    pairs = list(itertools.combinations(names, 2))
    if not pairs:
        return pd.DataFrame(
            columns=["a", "b", "kendall_tau", "share_discordant", "same_top1", f"top{k}_overlap"]
        )
    table = np.stack([scores[name].reindex(systems).to_numpy() for name in names])
    first = np.array([names.index(a) for a, _ in pairs])
    second = np.array([names.index(b) for _, b in pairs])
    metrics = ranking_metrics(table[first], _ranks_of_scores(table[second]), k)
    return pd.DataFrame(
        {
            "a": [a for a, _ in pairs],
            "b": [b for _, b in pairs],
            "kendall_tau": metrics["kendall_tau"],
            "share_discordant": metrics["kendall_distance"],
            "same_top1": metrics["top1"].astype(bool),
            f"top{k}_overlap": metrics[f"top{k}"],
        }
    )
