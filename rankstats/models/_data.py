r"""Model-ready arrays built once from :class:`~rankstats.Rankings` (no Python loop over rankings).

``PLData``
    Every ranking as a row of a padded ``(L, K)`` array of system indices, best first, with its tie
    groups described by the start / end position of the group of each entry.  The Plackett–Luce
    log-likelihood (NumPy in :mod:`._mle`) is then a handful of gathers and one reverse cumulative
    sum.
``ChoiceSets``
    The sufficient statistics of that likelihood: every distinct (Efron-weighted) choice set once,
    with the number of choices made from it, and how often each system was chosen.  The PyTensor
    graph of :mod:`.plackett_luce` (NUTS) runs on this collapsed table.
``as_rankings``
    The adaptor of every model: Rankings as they are, a score table ranked per (task, instance)
    when it has instances, else per task.

The paired-comparison counts of Bradley–Terry are in :mod:`.pair_counts`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankstats._util.advice import AdviceRankingsError, Spelled, escape
from rankstats._util.user_frame import user_stacklevel
from rankstats.core.rankings import Rankings, default_level
from rankstats.core.scores import Scores
from rankstats.errors import DataWarning, preview
from rankstats.models.information import no_rankings

KINDS = ("subset", "top_k")
#: ``layout="auto"`` takes the collapsed choice sets while their dense matrix has at most this many
#: entries per padded ranking entry (a matrix–vector product costs far less per entry than the
#: gathers and cumulative sums of the ``rankings`` layout).
SETS_PER_RANKING_ENTRY = 8


def as_rankings(data: Rankings | Scores) -> Rankings:
    """Rankings of Scores: per (task, instance) when the table has instances, else per task."""
    if isinstance(data, Rankings):
        return data
    if isinstance(data, Scores):
        return Rankings.from_scores(data, by=default_level(data))
    raise TypeError(f"expected Rankings or Scores, not {type(data).__name__}")


@dataclass(frozen=True, eq=False, repr=False)
class PLData:
    """Padded arrays of ``L`` rankings for the Plackett–Luce likelihood.

    Attributes
    ----------
    systems : tuple of str
        The ``N`` systems; index ``N`` is the padding slot (worth 0).
    index : ndarray of int, shape (L, K)
        System at each position of each ranking, best first (``N`` = padding).
    group_start, group_end : ndarray of int, shape (L, K)
        Position where the tie group of each entry starts, and one past its end.
    fraction : ndarray, shape (L, K)
        ``k / d`` for the ``k``-th (0-based) of the ``d`` members of a tie group (Efron 1977).
    term : ndarray of bool, shape (L, K)
        Entries that are a choice (all but the final group of a ranking, which is certain).
    rankers : pandas.Index
        Labels of the kept rankings.
    kind : str
        ``"subset"`` or ``"top_k"``.
    """

    systems: tuple[str, ...]
    index: np.ndarray
    group_start: np.ndarray
    group_end: np.ndarray
    fraction: np.ndarray
    term: np.ndarray
    rankers: pd.Index
    kind: str

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @property
    def shape(self) -> tuple[int, int]:
        return self.index.shape

    def __repr__(self) -> str:
        return (
            f"PLData({self.shape[0]} rankings of {self.n_systems} systems, kind={self.kind!r}, "
            f"padded width {self.shape[1]}, {int(self.term.sum())} choices)"
        )


def check_systems_ranked(rk: Rankings) -> None:
    """Raise when a system is ranked by no ranking (the likelihood says nothing about it)."""
    if rk.n_rankings == 0:
        raise no_rankings(0)
    never = np.flatnonzero(~(~np.isnan(rk.ranks)).any(axis=0))
    if len(never):
        names = [rk.systems[i] for i in never]
        raise AdviceRankingsError(
            escape(
                "system(s) ranked by no ranking, about which the data say nothing: "
                f"{preview(names)}. "
            )
            + "{remedy}",
            remedy=Spelled(
                "Remove them (e.g. Rankings.from_orderings(..., systems=[...]) without them); "
                "aggregate(..., method='pl'|'bt') does this for you and reports them as NaN.",
                "Remove their rows from the input (or give them scores).",
            ),
        )


def pl_layout(ranks: np.ndarray, kind: str = "subset") -> tuple[np.ndarray, ...]:
    """The padded per-ranking arrays of :class:`PLData` from a canonical rank matrix (NaN = not
    ranked): ``index``, ``group_start``, ``group_end``, ``fraction`` (Efron's ``k / d``) and
    ``term`` (the entries that are a choice); one row per row of ``ranks``.

    Shared by :func:`pl_data` and the pointwise log-likelihood
    (:mod:`rankstats.models.pointwise_likelihood`), which needs one row per ranking whatever the
    PyMC graph collapses.
    """
    n = ranks.shape[1]
    observed = ~np.isnan(ranks)
    n_obs = observed.sum(axis=1)
    key = np.where(observed, ranks, np.inf)
    width = int(n_obs.max()) if kind == "subset" and len(n_obs) else n
    order = np.argsort(key, axis=1, kind="stable")[:, :width]
    sorted_key = np.take_along_axis(key, order, axis=1)
    valid = np.isfinite(sorted_key) if kind == "subset" else np.ones_like(sorted_key, bool)
    index = np.where(valid, order, n)
    rows, width = index.shape
    position = np.broadcast_to(np.arange(width), (rows, width))
    start = np.ones((rows, width), dtype=bool)
    if width > 1:
        start[:, 1:] = sorted_key[:, 1:] != sorted_key[:, :-1]
    start |= ~valid
    group_start = np.maximum.accumulate(np.where(start, position, 0), axis=1)
    end = np.ones((rows, width), dtype=bool)
    end[:, :-1] = start[:, 1:]
    group_end = np.minimum.accumulate(np.where(end, position + 1, width)[:, ::-1], axis=1)[:, ::-1]
    fraction = (position - group_start) / (group_end - group_start)
    n_valid = valid.sum(axis=1)
    last_start = group_start[np.arange(rows), np.maximum(n_valid - 1, 0)]
    term = valid & (group_start < last_start[:, None])
    return index, group_start, group_end, fraction, term


def pl_data(rk: Rankings, kind: str = "subset") -> PLData:
    """Padded Plackett–Luce arrays of a :class:`~rankstats.Rankings`.

    ``kind="subset"``: each ranking orders only its observed systems; unobserved systems take no
    part (exact under Luce's choice axiom).  ``kind="top_k"``: the observed systems are the top of
    a ranking of *all* systems, so each of them beats every unobserved one; the unobserved form a
    final group that makes no choice.  Rankings with nothing to choose (one observed system of a
    sub-ranking) are dropped with a :class:`~rankstats.DataWarning`.

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.models._data import pl_data
    >>> d = pl_data(rs.Rankings.from_orderings([["a", ("b", "c")], ["c", "a"]]))
    >>> d.index.tolist(), d.term.tolist()
    ([[0, 1, 2], [2, 0, 3]], [[True, False, False], [True, False, False]])
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    check_systems_ranked(rk)
    ranks = rk.ranks
    n = ranks.shape[1]
    observed = ~np.isnan(ranks)
    n_obs = observed.sum(axis=1)
    informative = n_obs >= 2 if kind == "subset" else (n_obs >= 1) & (n_obs < n) | (n_obs >= 2)
    if not informative.any():
        raise no_rankings(len(informative))
    if not informative.all():
        dropped = rk.rankers[~informative].tolist()
        warnings.warn(
            f"{len(dropped)} ranking(s) contain no choice (fewer than two systems) and were "
            f"dropped: {preview(dropped)}",
            DataWarning,
            stacklevel=user_stacklevel(),
        )
        ranks, observed, n_obs = ranks[informative], observed[informative], n_obs[informative]
    rankers = rk.rankers[informative]
    index, group_start, group_end, fraction, term = pl_layout(ranks, kind)
    return PLData(
        tuple(rk.systems),
        index.astype(np.int64),
        group_start.astype(np.int64),
        group_end.astype(np.int64),
        fraction,
        term,
        pd.Index(rankers),
        kind,
    )


@dataclass(frozen=True, eq=False, repr=False)
class ChoiceSets:
    r"""The distinct choice sets of :class:`PLData`: the Plackett–Luce sufficient statistics.

    A choice contributes :math:`\theta_c - \log \sum_j m_j e^{\theta_j}` with weights
    :math:`m_j = 1` on the systems below its tie group, :math:`1 - k/d` on the members of its tie
    group (Efron 1977; ``1`` on the whole risk set without ties) and 0 elsewhere.  So

    .. math:: \ell(\theta) = \sum_i \text{chosen}_i\, \theta_i
              - \sum_u \text{count}_u \log \sum_j M_{uj} e^{\theta_j},

    with one row ``u`` of ``M`` per distinct weight vector.  Identical choice sets (frequent when
    many rankings share the same systems, e.g. complete rankings of a few items) collapse into one
    row with a count.

    Attributes
    ----------
    systems : tuple of str
    weights : ndarray, shape (U, N)
        ``M``: weight of each system in each distinct choice set (entries 0, 1 or ``1 - k/d``).
    count : ndarray of float, shape (U,)
        Number of choices made from each set.
    chosen : ndarray of float, shape (N,)
        Number of choices each system won (Efron: every member of a tie group counts once).
    """

    systems: tuple[str, ...]
    weights: np.ndarray
    count: np.ndarray
    chosen: np.ndarray

    @property
    def n_sets(self) -> int:
        return self.weights.shape[0]

    def __repr__(self) -> str:
        return (
            f"ChoiceSets({self.n_sets} distinct sets of {len(self.systems)} systems, "
            f"{self.count.sum():g} choices)"
        )


_CHOICE_BLOCK = 4_000_000  # entries of the (rankings, K + 1, N + 1) membership block


def choice_sets(data: PLData, max_entries: int | None = None) -> ChoiceSets | None:
    """Collapse the choices of :class:`PLData` into their distinct sets (:class:`ChoiceSets`).

    With ``max_entries``, returns None instead when the dense ``(U, N)`` weight matrix would have
    more entries (decided from the keys, before the matrix is built).

    Vectorised over blocks of rankings: the set of systems at or after each position is a reverse
    cumulative OR of one-hot rows; each choice becomes a key (packed bits of the weight-1 systems,
    packed bits of the Efron-weighted tie members, the fraction ``k / d``), and ``np.unique`` over
    the keys gives the distinct sets and their counts.

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.models._data import choice_sets, pl_data
    >>> rk = rs.Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"], ["c", "a"]])
    >>> cs = choice_sets(pl_data(rk))
    >>> cs.weights.tolist(), cs.count.tolist(), cs.chosen.tolist()
    ([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 1.0]], [1.0, 2.0, 2.0], [2.0, 2.0, 1.0])
    """
    n = data.n_systems
    rows, width = data.shape
    chosen = np.bincount(data.index[data.term], minlength=n + 1)[:n].astype(np.float64)
    block = max(1, _CHOICE_BLOCK // ((width + 1) * (n + 1)))
    keys = []
    for lo in range(0, rows, block):
        sl = slice(lo, lo + block)
        idx, term = data.index[sl], data.term[sl]
        b = idx.shape[0]
        member = np.zeros((b, width + 1, n + 1), dtype=bool)
        member[np.arange(b)[:, None], np.arange(width), idx] = True
        member = np.logical_or.accumulate(member[:, ::-1], axis=1)[:, ::-1, :n]  # at or after
        r, p = np.nonzero(term)
        fraction = data.fraction[sl][r, p]
        risk = member[r, data.group_start[sl][r, p]]
        below = member[r, data.group_end[sl][r, p]]
        tied = fraction > 0
        ones = np.where(tied[:, None], below, risk)
        part = tied[:, None] & risk & ~below
        keys.append(
            np.concatenate(
                [
                    np.packbits(ones, axis=1),
                    np.packbits(part, axis=1),
                    fraction.astype(np.float64)[:, None].view(np.uint8),
                ],
                axis=1,
            )
        )
    nbytes = (n + 7) // 8
    if keys:
        unique, count = np.unique(np.concatenate(keys), axis=0, return_counts=True)
    else:
        unique, count = np.zeros((0, 2 * nbytes + 8), np.uint8), np.zeros(0, np.int64)
    if max_entries is not None and unique.shape[0] * n > max_entries:
        return None
    ones = np.unpackbits(unique[:, :nbytes], axis=1, count=n).astype(bool)
    part = np.unpackbits(unique[:, nbytes : 2 * nbytes], axis=1, count=n).astype(bool)
    fraction = np.ascontiguousarray(unique[:, 2 * nbytes :]).view(np.float64)
    weights = np.where(ones, 1.0, 0.0) + np.where(part, 1.0 - fraction, 0.0)
    return ChoiceSets(data.systems, weights, count.astype(np.float64), chosen)
