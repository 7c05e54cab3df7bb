"""Paired-comparison counts, the data of the Bradley–Terry model (Bradley & Terry 1952;
Davidson 1970).

:class:`Pairs` holds one row per unordered compared pair ``(item1, item2, wins1, wins2,
ties)``; :func:`rank_breaking` makes them from rankings (full rank-breaking: every pair of every
ranking is a comparison), :func:`counts_from_frame` from a table of counts and
:func:`comparison_counts` from any data a Bradley–Terry fit accepts.  Used by the model
(:class:`rankstats.models.BradleyTerry`), its posterior predictive check, the fit-time
estimate and the Bayesian battle ratings (:mod:`rankstats.battles.bayes`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from rankstats.core.bradley_terry_mle import Pairs
from rankstats.core.pair_probabilities import Pairwise
from rankstats.core.rankings import Rankings
from rankstats.core.scores import Scores
from rankstats.errors import InvalidRankingsError, preview
from rankstats.models._data import KINDS, as_rankings, check_systems_ranked


def _from_matrices(systems: tuple[str, ...], w: np.ndarray, t: np.ndarray) -> Pairs:
    i, j = np.triu_indices(len(systems), k=1)
    keep = (w[i, j] + w[j, i] + t[i, j]) > 0
    i, j = i[keep], j[keep]
    return Pairs.named(systems, i, j, w[i, j], w[j, i], t[i, j])


def rank_breaking(rk: Rankings, kind: str = "subset") -> Pairs:
    """Break every ranking into all its pairs (full rank-breaking).

    Within a ranking every pair of observed systems gives one win or one tie; with
    ``kind="top_k"`` every ranked system also beats every unranked one.  A loop over systems,
    vectorised over rankings (``O(L N^2)``).

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.models.pair_counts import rank_breaking
    >>> rank_breaking(rs.Rankings.from_orderings([["a", "b", "c"], [("a", "c")]])).to_frame()
      item1 item2  wins1  wins2  ties
    0     a     b    1.0    0.0   0.0
    1     a     c    1.0    0.0   1.0
    2     b     c    1.0    0.0   0.0
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    check_systems_ranked(rk)
    ranks = rk.ranks
    n = ranks.shape[1]
    observed = ~np.isnan(ranks)
    if kind == "top_k":
        key = np.where(observed, ranks, np.inf)
        both_unranked = (~observed).astype(np.float64)
    else:
        key = ranks
    key_t = np.ascontiguousarray(key.T)
    w = np.empty((n, n))
    t = np.empty((n, n))
    for j in range(n):
        w[:, j] = np.count_nonzero(key_t < key_t[j], axis=1)
        t[:, j] = np.count_nonzero(key_t == key_t[j], axis=1)
    if kind == "top_k":
        t -= both_unranked.T @ both_unranked  # inf == inf is no tie
    np.fill_diagonal(t, 0.0)
    return _from_matrices(tuple(rk.systems), w, t)


def counts_from_frame(
    df: pd.DataFrame,
    item1: str = "item1",
    item2: str = "item2",
    wins1: str = "wins1",
    wins2: str = "wins2",
    ties: str | None = None,
) -> Pairs:
    """Pair counts from a DataFrame ``item1, item2, wins1, wins2[, ties]`` (rows may repeat).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankstats.models.pair_counts import counts_from_frame
    >>> df = pd.DataFrame({"item1": ["x", "y"], "item2": ["y", "x"], "wins1": [3, 1],
    ...                    "wins2": [1, 0]})
    >>> counts_from_frame(df).to_frame()
      item1 item2  wins1  wins2  ties
    0     x     y    3.0    2.0   0.0
    """
    if ties is None and "ties" in df.columns:
        ties = "ties"
    needed = [item1, item2, wins1, wins2] + ([ties] if ties else [])
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise InvalidRankingsError(
            f"paired-count table lacks column(s) {preview(missing)}; expected "
            "item1, item2, wins1, wins2[, ties] (rename or pass the column names)"
        )
    a = df[item1].astype(str).to_numpy()
    b = df[item2].astype(str).to_numpy()
    values = df[[wins1, wins2] + ([ties] if ties else [])].apply(pd.to_numeric, errors="coerce")
    bad = values.isna().any(axis=1) | (values < 0).any(axis=1)
    if bad.any():
        raise InvalidRankingsError(
            f"counts must be non-negative numbers; bad rows: {preview(df.index[bad].tolist())}"
        )
    if np.any(a == b):
        raise InvalidRankingsError(
            f"a system compared with itself in rows {preview(df.index[a == b].tolist())}"
        )
    systems = tuple(pd.unique(np.concatenate([a, b])))
    code = {s: i for i, s in enumerate(systems)}
    ia = np.array([code[s] for s in a], dtype=np.int64)
    ib = np.array([code[s] for s in b], dtype=np.int64)
    n = len(systems)
    w = np.zeros((n, n))
    t = np.zeros((n, n))
    np.add.at(w, (ia, ib), values[wins1].to_numpy(np.float64))
    np.add.at(w, (ib, ia), values[wins2].to_numpy(np.float64))
    if ties:
        tie = values[ties].to_numpy(np.float64)
        np.add.at(t, (ia, ib), tie)
        np.add.at(t, (ib, ia), tie)
    return _from_matrices(systems, w, t)


def comparison_counts(data: Any, kind: str = "subset", ignore_ties: bool = False) -> Pairs:
    """The paired-comparison counts of any data a Bradley–Terry fit accepts.

    Parameters
    ----------
    data : Pairs, DataFrame of counts, Pairwise, Rankings or Scores
        Rankings and Scores are rank-broken (:func:`rank_breaking`), a Pairwise gives the
        expected wins of its compared pairs, a DataFrame is read by :func:`counts_from_frame`.
    kind : {"subset", "top_k"}
        How rankings were observed (rank-breaking of ``top_k`` also pairs ranked with unranked).
    ignore_ties : bool
        Drop the tie counts (``BradleyTerry(ties="ignore")``).

    Raises
    ------
    InvalidRankingsError
        A system is in no comparison.
    """
    if isinstance(data, Pairs):
        if len(data.systems) != data.n_systems:  # the bootstrap's and pairs_from_matrices'
            raise TypeError(
                f"BradleyTerry.fit takes pair counts with system names (Pairs.named); these "
                f"Pairs of {data.n_systems} systems have none"
            )
        counts = data
    elif isinstance(data, pd.DataFrame):
        counts = counts_from_frame(data)
    elif isinstance(data, Pairwise):
        n = data.n_systems
        i, j = np.triu_indices(n, k=1)
        w = data.wins_observed
        keep = data.compared[i, j] > 0
        i, j = i[keep], j[keep]
        counts = Pairs.named(data.systems, i, j, w[i, j], w[j, i], np.zeros(len(i)))
    elif isinstance(data, Rankings | Scores):
        counts = rank_breaking(as_rankings(data), kind=kind)
    else:
        raise TypeError(
            "BradleyTerry.fit takes Rankings, Scores, Pairwise or a DataFrame of counts, "
            f"not {type(data).__name__}"
        )
    if ignore_ties and counts.has_ties:
        counts = Pairs.named(
            counts.systems,
            counts.item1,
            counts.item2,
            counts.wins1,
            counts.wins2,
            np.zeros_like(counts.ties),
        )
    seen = np.zeros(counts.n_systems, dtype=bool)
    total = counts.wins1 + counts.wins2 + counts.ties
    seen[counts.item1[total > 0]] = True
    seen[counts.item2[total > 0]] = True
    if not seen.all():
        never = [s for s, k in zip(counts.systems, seen, strict=True) if not k]
        raise InvalidRankingsError(
            f"system(s) in no comparison, about which the data say nothing: {preview(never)}"
        )
    return counts
