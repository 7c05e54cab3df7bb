r"""numba kernels of the Mallows Gibbs sampler (optional: ``pip install "rankstats[fast]"``).

The same moves as the NumPy reference functions of :mod:`rankstats.models.mallows._gibbs`
(:func:`~rankstats.models.mallows._gibbs.update_completions`, which also maintains the pair
counts, :func:`~rankstats.models.mallows._gibbs.update_consensus` and
:func:`~rankstats.models.mallows._gibbs.total_distance`), written as plain loops: the NumPy
versions spend most of their time in the Python overhead of many small array operations
(one round per latent item, one re-insertion per item of σ), which a compiled loop does not pay.
:func:`sweep_steps` runs both steps of a sweep, scan orders included, in one call from Python
(dialogue_tc, 1,140 tied rankings: 0.37 against 0.44 ms per sweep with one call per step and the
scan orders sorted in NumPy; its default fit 29.6 against 41.7 s, the same draws).

They give the same draws as the reference, bit for bit (tested): they receive the same uniforms
and the same weight table from the driver (:meth:`~rankstats.models.mallows._gibbs.Chain._sweep`),
compute the same integer costs, and invert the cumulative weights with the same floating-point
operations in the same order — sequential sums, ``(1 − u) × total``, no ``fastmath`` (which would
allow reassociation and fused multiply-adds) and no transcendental function (NumPy's SIMD ``exp``
and the C library's may differ in the last bit).

This module is imported only when a Mallows chain runs with the numba backend
(:func:`~rankstats.models.mallows._gibbs.resolve_backend`), so nobody else pays for compiling
or loading the kernels (numba itself may be loaded anyway: ArviZ uses it when it is installed).
The kernels are compiled eagerly for the one signature the driver uses (C-contiguous int64 /
float64 arrays; another layout raises instead of compiling again) and cached on disk
(``cache=True``: the first import compiles them, 6.5 s with an empty cache on the 2-core test
machine; later ones load the machine code in about 0.05 s); importing before the chains' worker
processes fork lets the workers inherit them.
"""

from __future__ import annotations

import numba
import numpy as np

_OPTIONS = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}


@numba.njit(
    "void(int64[:, ::1], float64[:, ::1], int64[:, ::1], int64[::1], int64[::1], float64[::1], "
    "float64[:, ::1], float64[:, ::1])",
    **_OPTIONS,
)
def update_completions(
    positions, ranks, scan, n_latent, sigma_pos, table, u, counts
):  # pragma: no cover
    """Gibbs re-insertion of every latent item of every ranking (in place), ranking by ranking.

    Arguments as :func:`rankstats.models.mallows._gibbs.update_completions`; ``counts`` (the
    pair counts of ``positions``) is kept up to date move by move (an item that moves past
    ``k`` others changes ``2 k`` counts) instead of being recounted, :math:`O(L n^2)`, after
    the sweep.  For the ``t``-th latent item of ranking ``l``: the integer cost of every gap
    among the other items (discordant pairs with σ, up to a constant), the gaps allowed by the
    observed strict preferences, the weights ``table[cost − lowest]`` and the inverse-CDF draw
    with ``u[l, t]``.  The ranking's items, their σ positions and their ranks are held by
    position (``order``, ``s_at``, ``r_at``) so that every pass reads contiguous memory.
    """
    n_rows, n = positions.shape
    sentinel = table.shape[0] - 1
    order = np.empty(n, dtype=np.int64)
    s_at = np.empty(n, dtype=np.int64)
    r_at = np.empty(n)
    cost = np.empty(n, dtype=np.int64)
    weights = np.empty(n)
    for row in range(n_rows):
        for p in range(n):
            order[positions[row, p]] = p
        for p in range(n):
            s_at[p] = sigma_pos[order[p]]
            r_at[p] = ranks[row, order[p]]
        for t in range(n_latent[row]):
            item = scan[row, t]
            where = positions[row, item]
            s_item = s_at[where]
            r_item = r_at[where]
            # Gap g (0 … n − 1) puts the item before the g-th of the others (index g of the
            # order without the item: p = g below ``where``, p = g + 1 from it on).  The gap
            # lies after every better-ranked observed item and before every worse-ranked one
            # (an unranked item, r_item NaN: anywhere).
            lo = 0
            hi = n - 1
            if r_item == r_item:
                found = False
                for g in range(n - 1):
                    r = r_at[g] if g < where else r_at[g + 1]
                    if r < r_item:
                        lo = g + 1
                    elif r > r_item and not found:
                        hi = g
                        found = True
            # cost(g) = 2 B(g) + (n − 1 − g) − A with B(g) = #{others before gap g below the
            # item in σ}; the constant A cancels in cost − lowest.
            before = 0
            for g in range(lo):
                s = s_at[g] if g < where else s_at[g + 1]
                if s_item < s:
                    before += 1
            lowest = 4 * n
            for g in range(lo, hi + 1):
                c = 2 * before + (n - 1 - g)
                cost[g] = c
                if c < lowest:
                    lowest = c
                if g < n - 1:
                    s = s_at[g] if g < where else s_at[g + 1]
                    if s_item < s:
                        before += 1
            # Weights are 0 outside [lo, hi]: adding 0.0 changes no sum, so summing over
            # [lo, hi] gives the reference's numbers exactly, and every gap below lo has a
            # cumulative weight 0 < level.
            total = 0.0
            for g in range(lo, hi + 1):
                w = table[min(cost[g] - lowest, sentinel)]
                weights[g] = w
                total += w
            level = (1.0 - u[row, t]) * total
            gap = lo
            cumulative = 0.0
            for g in range(lo, hi + 1):
                cumulative += weights[g]
                if cumulative < level:
                    gap += 1
                else:
                    break
            # Move the item from ``where`` to ``gap``: the items in between shift by one and
            # swap their order with the item in this ranking.
            if gap < where:
                for p in range(where, gap, -1):
                    other = order[p - 1]
                    order[p] = other
                    s_at[p] = s_at[p - 1]
                    r_at[p] = r_at[p - 1]
                    positions[row, other] = p
                    counts[other, item] -= 1.0
                    counts[item, other] += 1.0
            elif gap > where:
                for p in range(where, gap):
                    other = order[p + 1]
                    order[p] = other
                    s_at[p] = s_at[p + 1]
                    r_at[p] = r_at[p + 1]
                    positions[row, other] = p
                    counts[item, other] -= 1.0
                    counts[other, item] += 1.0
            order[gap] = item
            s_at[gap] = s_item
            r_at[gap] = r_item
            positions[row, item] = gap


@numba.njit(
    "int64[::1](int64[::1], float64[:, ::1], int64[::1], float64[::1], float64[::1])", **_OPTIONS
)
def update_consensus(sigma_order, counts, scan, table, u):  # pragma: no cover
    """Gibbs re-insertion of every item of σ; arguments as
    :func:`rankstats.models.mallows._gibbs.update_consensus`.  The costs are sums of integer
    counts, exact in float64, so their order of addition does not matter."""
    n = sigma_order.shape[0]
    sentinel = table.shape[0] - 1
    order = sigma_order.copy()
    rest = np.empty(n, dtype=np.int64)
    cost = np.empty(n)
    weights = np.empty(n)
    for k in range(n):
        item = scan[k]
        j = 0
        for p in range(n):
            if order[p] != item:
                rest[j] = order[p]
                j += 1
        # cost[p] = Σ_{y in rest[:p]} C[item, y] + Σ_{y in rest[p:]} C[y, item]
        below = 0.0
        for j in range(n - 1):
            below += counts[rest[j], item]
        above = 0.0
        cost[0] = below
        lowest = below
        for p in range(1, n):
            above += counts[item, rest[p - 1]]
            below -= counts[rest[p - 1], item]
            cost[p] = above + below
            if cost[p] < lowest:
                lowest = cost[p]
        total = 0.0
        for p in range(n):
            weights[p] = table[min(np.int64(cost[p] - lowest), sentinel)]
            total += weights[p]
        level = (1.0 - u[k]) * total
        at = 0
        cumulative = 0.0
        for p in range(n):
            cumulative += weights[p]
            if cumulative < level:
                at += 1
            else:
                break
        for p in range(at):
            order[p] = rest[p]
        order[at] = item
        for p in range(at, n - 1):
            order[p + 1] = rest[p]
    return order


@numba.njit("float64(float64[:, ::1], int64[::1])", **_OPTIONS)
def total_distance(counts, sigma_order):  # pragma: no cover
    """:math:`\\sum_l d(\\pi_l, \\sigma)`: the counts of every pair against σ's order (a sum of
    integers, exact in float64: the reference's number in any order of addition)."""
    n = sigma_order.shape[0]
    total = 0.0
    for a in range(1, n):
        below = sigma_order[a]
        for b in range(a):
            total += counts[below, sigma_order[b]]
    return total


@numba.njit(
    "Tuple((int64[::1], float64))(int64[:, ::1], float64[:, ::1], int64[:, ::1], int64[::1], "
    "int64[::1], float64[::1], float64[::1], float64[:, ::1], int64[::1])",
    **_OPTIONS,
)
def sweep_steps(
    positions, ranks, latent, n_latent, sigma_pos, table, u, counts, sigma_order
):  # pragma: no cover
    """Steps 1 and 2 of a sweep in one call; arguments and result as
    :func:`rankstats.models.mallows._gibbs.sweep_steps`.  The scan orders are the same
    ``argsort`` of the same uniform keys (an insertion sort within each ranking: its few latent
    items; the keys are distinct, so every sort gives the one order), and the moves are
    :func:`update_completions`, :func:`update_consensus` and :func:`total_distance`."""
    n_rows, n = positions.shape
    m = latent.shape[1]
    if m:
        scan = np.empty((n_rows, m), dtype=np.int64)
        keys = np.empty(m)
        for row in range(n_rows):
            k = n_latent[row]
            for t in range(k):
                key = u[row * m + t]
                item = latent[row, t]
                p = t
                while p > 0 and keys[p - 1] > key:
                    keys[p] = keys[p - 1]
                    scan[row, p] = scan[row, p - 1]
                    p -= 1
                keys[p] = key
                scan[row, p] = item
            for t in range(k, m):
                scan[row, t] = -1
        draws = u[n_rows * m : 2 * n_rows * m].reshape((n_rows, m))
        update_completions(positions, ranks, scan, n_latent, sigma_pos, table, draws, counts)
    rest = u[2 * n_rows * m :]
    order = update_consensus(sigma_order, counts, np.argsort(rest[:n]), table, rest[n:])
    return order, total_distance(counts, order)
