r"""Kemeny objective and heuristics: the cost of an order, bounds, and good orders fast.

:math:`\operatorname{cost}(\sigma) = \sum_{a \text{ above } b} W[b, a]` (:func:`kemeny_cost`),
bounded below by :math:`\sum_{i<j} \min(W_{ij}, W_{ji})` (:func:`trivial_bound`).  The heuristics
of :func:`rankstats.kemeny`: Borda and Copeland orders, KwikSort with seeded pivots (Ailon,
Charikar & Newman, 2008), each polished by an insertion local search (:func:`local_search`); the
best polished order is :func:`heuristic_order`.
"""

from __future__ import annotations

import time

import numpy as np

#: KwikSort starts of :func:`heuristic_order` (besides Borda and Copeland).
_N_KWIKSORT = 16


# ---------------------------------------------------------------------------- objective
def kemeny_cost(wins: np.ndarray, order: np.ndarray) -> float:
    """``Σ_{a above b} wins[b, a]`` for an order given as best-first indices."""
    permuted = wins[np.ix_(order, order)]
    return float(np.tril(permuted, -1).sum())


def trivial_bound(wins: np.ndarray) -> float:
    """Every pair costs at least ``min(W[i, j], W[j, i])``."""
    return float(np.triu(np.minimum(wins, wins.T), 1).sum())


# ---------------------------------------------------------------------------- heuristics
def majority_tolerance(wins: np.ndarray) -> float:
    """Margins within this of 0 are exact ties (rounding of the summed probabilities)."""
    return 1e-9 * max(1.0, float(np.abs(wins).max(initial=0.0)))


def borda_order(wins: np.ndarray) -> np.ndarray:
    """Best-first indices by Borda score ``Σ_j W[i, j]`` (stable on ties)."""
    return np.argsort(-wins.sum(axis=1), kind="stable")


def copeland_order(wins: np.ndarray) -> np.ndarray:
    """Best-first indices by Copeland score (majority wins, ½ per exact tie), Borda on ties."""
    margin = wins - wins.T
    tol = majority_tolerance(wins)
    score = (margin > tol).sum(axis=1) + 0.5 * (np.abs(margin) <= tol).sum(axis=1)
    return np.lexsort((-wins.sum(axis=1), -score))


def kwiksort(wins: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """KwikSort (Ailon, Charikar & Newman, 2008): random pivot, majority split, recurse.

    Exact ties go to either side with probability ½.  The recursion is an explicit stack, so
    deep splits cannot hit Python's recursion limit.
    """
    n = wins.shape[0]
    margin = wins - wins.T
    tol = majority_tolerance(wins)
    out: list[int] = []
    stack: list[np.ndarray | int] = [np.arange(n)]
    while stack:
        top = stack.pop()
        if isinstance(top, int | np.integer):
            out.append(int(top))
            continue
        items = top
        if len(items) <= 1:
            out.extend(int(i) for i in items)
            continue
        pivot = items[rng.integers(len(items))]
        rest = items[items != pivot]
        m = margin[rest, pivot]
        above = (m > tol) | ((np.abs(m) <= tol) & (rng.random(len(rest)) < 0.5))
        # Pushed in reverse: the part above the pivot is emitted first.
        stack.extend([rest[~above], pivot, rest[above]])
    return np.asarray(out, dtype=np.int64)


def local_search(
    wins: np.ndarray,
    order: np.ndarray,
    max_moves: int | None = None,
    deadline: float | None = None,
) -> np.ndarray:
    r"""Insertion local search: move one system to its best position until no move helps.

    With ``D = W - Wᵀ`` permuted to the current order and ``S[p, k] = Σ_{s<k} D[p, s]``,
    moving the system at position ``p`` to ``q`` changes the cost by ``S[p, q] - S[p, p]``
    (``q < p``) or ``S[p, q + 1] - S[p, p]`` (``q > p``): all ``N²`` moves are priced with one
    cumulative sum, and the best one is applied (best improvement).

    Parameters
    ----------
    wins : ndarray, shape (n, n)
    order : ndarray
        Best-first start.
    max_moves : int, optional
        At most this many moves (default ``50 n²``).
    deadline : float, optional
        ``time.perf_counter()`` value after which no further move is made.

    Returns
    -------
    ndarray
        A best-first order whose cost is at most that of ``order``.
    """
    order = np.asarray(order, dtype=np.int64).copy()
    n = len(order)
    if n < 2:
        return order
    margin = wins - wins.T
    tol = majority_tolerance(wins)
    positions = np.arange(n)
    target = positions[None, :] + (positions[None, :] > positions[:, None])
    max_moves = max_moves if max_moves is not None else 50 * n * n
    for _ in range(max_moves):
        if deadline is not None and time.perf_counter() >= deadline:
            break
        d = margin[np.ix_(order, order)]
        prefix = np.zeros((n, n + 1))
        np.cumsum(d, axis=1, out=prefix[:, 1:])
        delta = np.take_along_axis(prefix, target, axis=1) - prefix[positions, positions][:, None]
        best = int(np.argmin(delta))
        p, q = divmod(best, n)
        if delta[p, q] >= -tol:
            break
        item = order[p]
        order = np.insert(np.delete(order, p), q, item)
    return order


def heuristic_order(
    wins: np.ndarray, seed: int | np.random.Generator = 0, deadline: float | None = None
) -> np.ndarray:
    """Best of Borda, Copeland and repeated KwikSort starts, each polished by local search.

    With a ``deadline`` (a ``time.perf_counter()`` value) no start begins and no move is made
    after it; the Borda order is always returned at least.
    """
    rng = np.random.default_rng(seed)
    n = wins.shape[0]
    if n <= 1:
        return np.arange(n)
    starts = [borda_order(wins), copeland_order(wins)]
    starts += [kwiksort(wins, rng) for _ in range(_N_KWIKSORT if n > 3 else 1)]
    best, best_cost = None, np.inf
    seen: set[bytes] = set()
    for start in starts:
        if best is not None and deadline is not None and time.perf_counter() >= deadline:
            break
        key = start.tobytes()
        if key in seen:
            continue
        seen.add(key)
        polished = local_search(wins, start, deadline=deadline)
        cost = kemeny_cost(wins, polished)
        if cost < best_cost - majority_tolerance(wins):
            best, best_cost = polished, cost
    return best
