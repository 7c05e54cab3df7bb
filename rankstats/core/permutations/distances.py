r"""The six distances between complete rankings of the Mallows models (Vitelli et al., 2018).

Each distance compares two rank vectors ``r`` and ``ρ`` of the same ``n`` items (``r_i`` = the
rank of item ``i``, 1 = best), as BayesMallows does (Sørensen et al., 2020):

=========  ======================================================  ==========================
name       :math:`d(r, \rho)`                                      values
=========  ======================================================  ==========================
footrule   :math:`\sum_i |r_i - \rho_i|`                           0, 2, …, ⌊n²/2⌋
spearman   :math:`\sum_i (r_i - \rho_i)^2`                         0, 2, …, (n³ − n)/3
kendall    pairs of items ordered differently                      0, 1, …, n(n − 1)/2
cayley     fewest transpositions from ``r`` to ``ρ`` (``n`` −       0, 1, …, n − 1
           the number of cycles of :math:`r \circ \rho^{-1}`)
hamming    items whose ranks differ                                0, 2, 3, …, n
ulam       fewest moves of one item (``n`` − the longest common    0, 1, …, n − 1
           subsequence of the two orderings)
=========  ======================================================  ==========================

All six are right-invariant, :math:`d(r \circ \tau, \rho \circ \tau) = d(r, \rho)` for a
relabelling ``τ`` of the items, so a Mallows model's normalising constant depends on ``n`` and the
dispersion only (:mod:`rankstats.core.permutations.partition`). Cayley and Hamming are also
left-invariant (the same on the orderings as on the rank vectors); footrule, Spearman, Kendall
and Ulam are not, so the rank vectors are the convention (BayesMallows').

Every function takes ``(m, n)`` rank matrices (or one vector) and returns one distance per row,
vectorised over the rows (no loop over rankings): ``O(m n)`` for footrule, Spearman and
Hamming, ``O(m n log n)`` for Cayley (pointer doubling) and Kendall (Knight's merge count,
:func:`rankstats.core.metrics.kendall_rows`), ``O(m n²)`` for Ulam (patience sorting, one
position at a time for all rows).

References
----------
Diaconis, P. (1988). *Group representations in probability and statistics*, ch. 6. IMS.

Vitelli, V., Sørensen, Ø., Crispino, M., Frigessi, A. and Arjas, E. (2018). Probabilistic
preference learning with the Mallows rank model. *Journal of Machine Learning Research* 18(158).

Sørensen, Ø., Crispino, M., Liu, Q. and Vitelli, V. (2020). BayesMallows: an R package for the
Bayesian Mallows model. *The R Journal* 12(1), 324–342.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankstats.core.metrics import kendall_rows

#: The distances, in BayesMallows' order.
DISTANCES = ("footrule", "spearman", "kendall", "cayley", "hamming", "ulam")


def check_distance(name: str) -> str:
    """``name`` if it is one of :data:`DISTANCES`, else a ``ValueError`` naming them."""
    if name not in DISTANCES:
        raise ValueError(f"distance must be one of {', '.join(DISTANCES)}, not {name!r}")
    return name


def rank_distance(r: np.ndarray, rho: np.ndarray, distance: str) -> np.ndarray:
    """The ``distance`` between each row of ``r`` and ``rho``.

    Parameters
    ----------
    r : array-like, shape (n,) or (m, n)
        Complete rank vectors: each row a permutation of ``1 … n``.
    rho : array-like, shape (n,) or (m, n)
        One rank vector, or one per row of ``r``.
    distance : {"footrule", "spearman", "kendall", "cayley", "hamming", "ulam"}

    Returns
    -------
    ndarray of int64, shape (m,) (a 0-d array for one vector)

    Raises
    ------
    ValueError
        A row that is not a permutation of ``1 … n`` (the message names the first), or shapes
        that differ.

    Examples
    --------
    >>> import numpy as np
    >>> r, rho = np.array([2, 1, 3, 4]), np.array([1, 2, 3, 4])
    >>> [int(rank_distance(r, rho, d)) for d in DISTANCES]
    [2, 2, 1, 1, 2, 1]
    """
    check_distance(distance)
    one = np.ndim(r) == 1 and np.ndim(rho) == 1
    r, rho = _permutations(r, "r"), _permutations(rho, "rho")
    if r.shape[1] != rho.shape[1]:
        raise ValueError(f"r ranks {r.shape[1]} items, rho {rho.shape[1]}")
    if rho.shape[0] not in (1, r.shape[0]):
        raise ValueError(
            f"rho has {rho.shape[0]} rows; give one, or one per row of r ({r.shape[0]})"
        )
    out = _KERNELS[distance](r, rho)  # rho: one row (broadcast) or one per row of r
    return out[0] if one else out


def row_distances(r: np.ndarray, rho: np.ndarray, distance: str) -> np.ndarray:
    """:func:`rank_distance` of an ``(m, n)`` int64 matrix ``r`` of permutations already
    checked, against one ``ρ`` (a sampler's inner loop: :func:`rank_distance` checks its
    arguments at every call)."""
    return _KERNELS[distance](r, np.asarray(rho).reshape(-1, r.shape[1]))


def total_distance(r: np.ndarray, rho: np.ndarray, distance: str) -> int:
    """``Σ_rows d(r_row, ρ)``: :func:`row_distances` summed."""
    return int(row_distances(r, rho, distance).sum())


def _permutations(x: np.ndarray, name: str) -> np.ndarray:
    """``x`` as an ``(m, n)`` int64 matrix whose rows are permutations of ``1 … n``."""
    x = np.asarray(x)
    if x.ndim == 1:
        x = x[None, :]
    if x.ndim != 2:
        raise ValueError(f"{name} must be a rank vector or a matrix of them, not {x.ndim}-d")
    if x.dtype.kind == "f":
        if not np.all(np.isfinite(x)) or np.any(x != np.round(x)):
            raise ValueError(f"{name} must hold whole ranks 1 … n (no ties, no missing ranks)")
    ranks = x.astype(np.int64)
    n = ranks.shape[1]
    valid = np.sort(ranks, axis=1) == np.arange(1, n + 1)
    bad = np.flatnonzero(~valid.all(axis=1))
    if len(bad):
        raise ValueError(
            f"row {int(bad[0])} of {name} is not a permutation of 1 … {n}: {ranks[bad[0]].tolist()}"
            " (complete rankings without ties)"
        )
    return ranks


def _footrule(r: np.ndarray, rho: np.ndarray) -> np.ndarray:
    return np.abs(r - rho).sum(axis=1)


def _spearman(r: np.ndarray, rho: np.ndarray) -> np.ndarray:
    return ((r - rho) ** 2).sum(axis=1)


#: Up to this many items Kendall's distance between permutations counts the inverted pairs of
#: π directly (``m n²`` comparisons, 1 ms for 5,000 × 10); beyond, Knight's merge count.
_PAIRWISE_KENDALL = 48


def _kendall(r: np.ndarray, rho: np.ndarray) -> np.ndarray:
    n = r.shape[1]
    if n > _PAIRWISE_KENDALL:
        rho = np.broadcast_to(rho, r.shape)
        return np.rint(kendall_rows(r, rho)).astype(np.int64)  # no ties: whole numbers
    pi = relative_permutation(r, rho)
    out = np.zeros(len(pi), dtype=np.int64)
    for i in range(n - 1):  # n − 1 vectorised steps: the pairs (i, j > i) of every row
        out += (pi[:, i + 1 :] < pi[:, i : i + 1]).sum(axis=1)
    return out


def _hamming(r: np.ndarray, rho: np.ndarray) -> np.ndarray:
    return (r != rho).sum(axis=1)


def relative_permutation(r: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """:math:`\\pi = r \\circ \\rho^{-1}` as 0-based arrays: ``π[j]`` is the rank in ``r`` of the
    item ranked ``j + 1`` in ``ρ`` (minus one). ``d(r, ρ) = d(π, identity)`` for every distance
    here."""
    by_rho = np.argsort(rho, axis=1)  # the item at each rank of ρ
    if len(by_rho) == 1:  # one ρ for every row: one sort, one gather
        return r[:, by_rho[0]] - 1
    return np.take_along_axis(r, by_rho, axis=1) - 1


def _cayley(r: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """``n`` − the cycles of π, each cycle found by its smallest element: pointer doubling
    carries every element's orbit minimum in ``⌈log₂ n⌉`` steps."""
    pi = relative_permutation(r, rho)
    m, n = pi.shape
    smallest = np.broadcast_to(np.arange(n), (m, n)).copy()
    jump = pi.copy()
    covered = 1
    while covered < n:  # after the step, smallest[i] = min of π^0(i) … π^(2·covered − 1)(i)
        np.minimum(smallest, np.take_along_axis(smallest, jump, axis=1), out=smallest)
        jump = np.take_along_axis(jump, jump, axis=1)
        covered *= 2
    cycles = (smallest == np.arange(n)).sum(axis=1)
    return n - cycles


def _ulam(r: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """``n`` − the longest increasing subsequence of π (patience sorting, all rows at once)."""
    pi = relative_permutation(r, rho)
    m, n = pi.shape
    # tails[k]: the smallest last value of an increasing run of length k + 1 so far
    tails = np.full((m, n + 1), n, dtype=np.int64)
    length = np.zeros(m, dtype=np.int64)
    rows = np.arange(m)
    for j in range(n):  # n vectorised steps: each row places its j-th value on a pile
        value = pi[:, j]
        pile = (tails < value[:, None]).sum(axis=1)  # the first tail ≥ value (tails are sorted)
        tails[rows, pile] = value
        np.maximum(length, pile + 1, out=length)
    return n - length


_KERNELS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "footrule": _footrule,
    "spearman": _spearman,
    "kendall": _kendall,
    "cayley": _cayley,
    "hamming": _hamming,
    "ulam": _ulam,
}


def max_distance(n: int, distance: str) -> int:
    """The largest value of ``distance`` between two rankings of ``n`` items."""
    check_distance(distance)
    return {
        "footrule": n * n // 2,
        "spearman": (n**3 - n) // 3,
        "kendall": n * (n - 1) // 2,
        "cayley": max(n - 1, 0),
        "hamming": n if n > 1 else 0,
        "ulam": max(n - 1, 0),
    }[distance]


#: The distances that are sums of one term per item, ``Σ_i f(r_i − ρ_i)``: the ranking closest
#: to a set of rankings is an assignment problem (:func:`central_ranking`).
ITEMWISE = ("footrule", "spearman", "hamming")


def central_ranking(r: np.ndarray, distance: str) -> np.ndarray:
    """The rank vector ρ that minimises :math:`\\sum_j d(r_j, \\rho)` over the rows of ``r``
    (rank vectors, ``(m, n)``), for a distance of :data:`ITEMWISE`.

    The sum is :math:`\\sum_i \\sum_j f(r_{ji} - \\rho_i)`, a cost per (item, rank): the best ρ
    is the assignment of items to ranks of least total cost (Hungarian method,
    :func:`scipy.optimize.linear_sum_assignment`), exact. The cost matrix comes from the counts
    of each item at each rank, so the work is :math:`O(m n + n^3)`. (For footrule this is the
    footrule median of Diaconis & Graham 1977.)
    """
    from scipy.optimize import linear_sum_assignment

    if distance not in ITEMWISE:
        raise ValueError(f"central_ranking applies to {', '.join(ITEMWISE)}, not {distance!r}")
    r = np.asarray(r, dtype=np.int64)
    m, n = r.shape
    counts = np.zeros((n, n))  # counts[i, k]: rows that give item i the rank k + 1
    np.add.at(counts, (np.tile(np.arange(n), m), r.ravel() - 1), 1.0)
    ranks = np.arange(1, n + 1)
    gap = ranks[:, None] - ranks[None, :]  # [observed rank, assigned rank]
    term = {"footrule": np.abs(gap), "spearman": gap**2, "hamming": (gap != 0)}[distance]
    items, assigned = linear_sum_assignment(counts @ term)
    rho = np.empty(n, dtype=np.int64)
    rho[items] = assigned + 1
    return rho
