r"""numba kernels of the distances between one ranking and ρ for the Metropolis–Hastings
Mallows sampler (:mod:`rankstats.models.mallows._metropolis_numba`), and of what makes their
changes cheap: Kendall's pair counts, the labels of the cycles of a relative permutation
(Cayley), the longest increasing runs through each position (Ulam). Each agrees with
:func:`rankstats.core.permutations.distances.rank_distance` (tested).

numba caches the machine code of a kernel with the functions it calls, but checks only the
kernel's own file for changes: after editing this one, delete the cache of
``_metropolis_numba`` (``rankstats/models/mallows/__pycache__/_metropolis_numba*.nb*``).

Hyyrö, H. (2004). Bit-parallel LCS-length computation revisited. *Proceedings of the 15th
Australasian Workshop on Combinatorial Algorithms (AWOCA)*, 16–27.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types

_OPTIONS = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}

#: The distances' codes (their index in :data:`rankstats.core.permutations.distances.DISTANCES`).
FOOTRULE, SPEARMAN, KENDALL, CAYLEY, HAMMING, ULAM = range(6)


@numba.njit(types.int64[:, ::1](types.int64[:, ::1]), **_OPTIONS)
def pair_counts(completions):  # pragma: no cover
    """``pairs[a, b]`` = the rankings (rank vectors) with item ``a`` above item ``b``."""
    n_rows, n = completions.shape
    pairs = np.zeros((n, n), dtype=np.int64)
    for row in range(n_rows):
        for a in range(n):
            ra = completions[row, a]
            for b in range(n):
                if ra < completions[row, b]:
                    pairs[a, b] += 1
    return pairs


@numba.njit(**_OPTIONS)
def distance(code, ranks, rho, rho_inv, scratch):  # pragma: no cover
    """The distance between one complete ranking ``ranks`` and ρ (``rho_inv[k]``: the item at
    rank ``k + 1`` of ρ; ``scratch``: ``n`` integers to spare)."""
    n = ranks.shape[0]
    d = 0
    if code == FOOTRULE or code == SPEARMAN or code == HAMMING:
        for i in range(n):
            gap = ranks[i] - rho[i]
            if code == FOOTRULE:
                d += abs(gap)
            elif code == SPEARMAN:
                d += gap * gap
            elif gap != 0:
                d += 1
        return d
    if code == KENDALL:
        for a in range(n):
            for b in range(a + 1, n):
                if (ranks[a] < ranks[b]) != (rho[a] < rho[b]):
                    d += 1
        return d
    if code == CAYLEY:  # n − the cycles of π = ranks ∘ ρ⁻¹
        for k in range(n):
            scratch[k] = 0
        cycles = 0
        for k in range(n):
            if scratch[k] == 0:
                cycles += 1
                j = k
                while scratch[j] == 0:
                    scratch[j] = 1
                    j = ranks[rho_inv[j]] - 1
        return n - cycles
    # Ulam: n − the longest increasing subsequence of π = the longest common subsequence of
    # the two orderings, by the bit-parallel LCS of Hyyrö (2004) with one machine word (n ≤ 64;
    # the Ulam partition function stops at 40 items): per rank k of ρ, with M the bit of the
    # item's rank in ``ranks``, V ← (V + (V & M)) | (V & ~M); the LCS is the zeros of V's n bits.
    one = np.uint64(1)
    word = ~np.uint64(0)
    for k in range(n):
        match = one << np.uint64(ranks[rho_inv[k]] - 1)
        word = (word + (word & match)) | (word & ~match)
    return popcount(word & ((one << np.uint64(n)) - one))


@numba.njit(**_OPTIONS)
def longest_swapped(pi, a, b):  # pragma: no cover
    """The longest increasing run of ``pi`` (0-based values) with its values at positions ``a``
    and ``b`` swapped, by the bit-parallel count of :func:`distance` (Ulam)."""
    n = pi.shape[0]
    one = np.uint64(1)
    word = ~np.uint64(0)
    for k in range(n):
        value = pi[b] if k == a else pi[a] if k == b else pi[k]
        match = one << np.uint64(value)
        word = (word + (word & match)) | (word & ~match)
    return n - popcount(word & ((one << np.uint64(n)) - one))


@numba.njit(**_OPTIONS)
def popcount(x):  # pragma: no cover
    """The set bits of a uint64 (SWAR)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@numba.njit(**_OPTIONS)
def relabel(pi, label, start, mark, stamp):  # pragma: no cover
    """Label the cycle of ``pi`` (one relative permutation π, 0-based) through position
    ``start`` by ``start``, unless this round (``stamp``) has labelled it already. Every cycle's
    label is one of its positions, so a relabelled cycle cannot take the label of another."""
    j = start
    while mark[j] != stamp:
        mark[j] = stamp
        label[j] = start
        j = pi[j]


@numba.njit(**_OPTIONS)
def profile(pi, ending, starting, critical, count):  # pragma: no cover
    """The length of the longest increasing runs of ``pi`` (0-based values, n ≤ 64);
    ``ending[k]`` / ``starting[k]`` the longest ending / starting at position ``k``, and
    ``critical[k]`` whether every longest run passes through ``k`` (it lies on one, and no
    other position on one has its ``ending``).

    Swapping the adjacent values ``a = π[k], b = π[k + 1]`` keeps every run that uses at most
    one of them: for ``a < b`` the longest shortens by one exactly when both positions are
    critical; for ``a > b`` it lengthens by one exactly when the run through ``b, a`` —
    ``ending[k + 1] + starting[k]`` long — beats it.

    ``ending`` from the bit vector of :func:`distance` without branches: after the values
    before ``k``, the zeros among its bits ``0 … v − 1`` are the longest run of values below
    ``v`` (Hyyrö's vector holds the differences of one row of the LCS table), so ``ending[k]``
    = 1 + those zeros for ``v = π[k]``; ``starting`` likewise from the end, on ``n − 1 − π``."""
    n = pi.shape[0]
    one = np.uint64(1)
    word = ~np.uint64(0)
    for k in range(n):
        value = np.uint64(pi[k])
        ending[k] = 1 + pi[k] - popcount(word & ((one << value) - one))
        match = one << value
        word = (word + (word & match)) | (word & ~match)
    length = n - popcount(word & ((one << np.uint64(n)) - one))
    word = ~np.uint64(0)
    for k in range(n - 1, -1, -1):
        value = np.uint64(n - 1 - pi[k])
        starting[k] = n - pi[k] - popcount(word & ((one << value) - one))
        match = one << value
        word = (word + (word & match)) | (word & ~match)
    for k in range(length + 1):
        count[k] = 0
    for k in range(n):
        if ending[k] + starting[k] - 1 == length:
            count[ending[k]] += 1
    for k in range(n):
        critical[k] = ending[k] + starting[k] - 1 == length and count[ending[k]] == 1
    return length


@numba.njit(**_OPTIONS)
def source(k, low, high, down):  # pragma: no cover
    """The position whose value π' = π ∘ s takes at ``k`` after leap and shift of the window
    ``[low, high]`` of ranks (0-based): towards the end (``down``) or towards the start."""
    if k < low or k > high:
        return k
    if down:
        return low if k == high else k + 1
    return high if k == low else k - 1
