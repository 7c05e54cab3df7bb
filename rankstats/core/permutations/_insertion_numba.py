r"""numba kernel of the constrained repeated insertion of
:mod:`rankstats.core.permutations.insertion` (optional: ``pip install "rankstats[fast]"``).

The same draws as the NumPy reference :func:`rankstats.core.permutations.insertion._insert_numpy`,
bit for bit (tested): the uniforms and the table of :math:`e^{-\theta k}` come from the caller,
the weights of a step are summed in place order from zero, a place is the same inverse-CDF
comparison, and the kernel returns each step's normaliser rather than its logarithm (no
transcendental function in the kernel, no ``fastmath``). The reference works on every sample
at once with ``O(n)`` array operations per step; the kernel runs one sample after the other:
a NASCAR race (87 drivers, 43 ranked, 44 inserted around them) costs a few thousand integer
steps.

Imported only when a marginal likelihood is estimated by importance sampling with the numba
backend; compiled eagerly for the one signature the caller uses and cached on disk.
"""

from __future__ import annotations

import numba
import numpy as np

#: The products of normalisers are divided by this (exactly) whenever they exceed it.
BIG = 2.0**512
_OPTIONS = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}


@numba.njit(
    "void(int64[:, ::1], int64[:, ::1], int64[::1], int64[::1], int64[::1], int64[:, ::1], "
    "boolean[:, ::1], int64[::1], int64[::1], int64[::1], int64[::1], float64[:, ::1], "
    "float64[:, ::1], int64[::1], int64[::1], float64[:, ::1], int64[:, ::1], int64[:, ::1])",
    **_OPTIONS,
)
def insertions(
    order,
    rank,
    draw,
    obs_index,
    component,
    skeleton,
    on_skeleton,
    up_ptr,
    up_idx,
    down_ptr,
    down_idx,
    pw,
    u,
    cost,
    floor,
    norm,
    scale,
    positions,
):  # pragma: no cover
    """Arguments as :func:`rankstats.core.permutations.insertion.insert` (the observations'
    arrays spelled out); writes ``cost``, ``floor``, ``norm``, ``scale`` and (when it has
    rows) ``positions`` in place."""
    size, n = u.shape
    n_draws = order.shape[0]
    n_prop = norm.shape[1]
    seq = np.empty(n, dtype=np.int64)  # the items by place
    at = np.empty(n, dtype=np.int64)  # their ρ-ranks, by place
    pos = np.empty(n, dtype=np.int64)
    rel = np.empty(n + 1, dtype=np.int64)
    total = np.empty(n + 1)
    for b in range(size):
        s = draw[b]
        o = obs_index[b]
        mine = component[b]
        pos[:] = -1
        length = 0
        while length < n and skeleton[o, length] >= 0:
            seq[length] = skeleton[o, length]
            at[length] = rank[s, seq[length]]
            pos[seq[length]] = length
            length += 1
        spent = 0
        lowest = 0
        for i in range(n):  # the item of ρ-rank i: every better one is placed, so c(0) = i
            x = order[s, i]
            if on_skeleton[o, x]:
                continue
            base = o * n + x
            lo = 0
            for k in range(up_ptr[base], up_ptr[base + 1]):
                p = pos[up_idx[k]]
                if p >= lo:
                    lo = p + 1
            hi = length
            for k in range(down_ptr[base], down_ptr[base + 1]):
                p = pos[down_idx[k]]
                if p >= 0 and p < hi:
                    hi = p
            rel[0] = 0  # the cost of each place relative to the top one, and its least
            low = 0 if lo == 0 else n
            for q in range(hi):
                rel[q + 1] = rel[q] + (1 if at[q] > i else -1)
                if q + 1 >= lo and rel[q + 1] < low:
                    low = rel[q + 1]
            chosen = hi
            for c in range(n_prop):
                row = c * n_draws + s
                acc = 0.0
                if c == mine:
                    for p in range(lo, hi + 1):
                        acc += pw[row, rel[p] - low]
                        total[p] = acc
                    target = u[b, i] * acc
                    first, last = lo, hi  # the first place whose running total exceeds it
                    while first < last:
                        mid = (first + last) // 2
                        if total[mid] > target:
                            last = mid
                        else:
                            first = mid + 1
                    chosen = first
                else:
                    for p in range(lo, hi + 1):
                        acc += pw[row, rel[p] - low]
                norm[b, c] *= acc  # acc ≥ 1: the least cost weighs 1
                if norm[b, c] > BIG:
                    norm[b, c] *= 1.0 / BIG  # exact: a power of two
                    scale[b, c] += 1
            spent += i + rel[chosen]
            lowest += i + low
            for q in range(length, chosen, -1):
                seq[q] = seq[q - 1]
                at[q] = at[q - 1]
                pos[seq[q]] = q
            seq[chosen] = x
            at[chosen] = i
            pos[x] = chosen
            length += 1
        cost[b] = spent
        floor[b] = lowest
        if positions.shape[0] > 0:
            for y in range(n):
                positions[b, y] = pos[y]


@numba.njit(
    "void(int64[:, ::1], int64[:, ::1], int64[::1], int64[::1], int64[:, ::1], "
    "boolean[:, ::1], float64[:, ::1], float64[:, ::1], float64[:, ::1], int64[::1], int64[::1], "
    "float64[::1], int64[::1])",
    **_OPTIONS,
)
def free_insertions(
    order, rank, draw, obs_index, skeleton, on_skeleton, pw, cum, u, cost, floor, norm, scale
):  # pragma: no cover
    """:func:`rankstats.core.permutations.insertion.insert_free`: the items off the skeleton are
    unconstrained, so only the number of items inserted into each gap is kept."""
    size, n = u.shape
    count = np.empty(n + 1, dtype=np.int64)
    end = np.empty(n + 1, dtype=np.int64)  # the cost at the bottom of each gap, minus i
    index = np.full(n, -1, dtype=np.int64)  # each skeleton item's place in the skeleton
    running = np.empty(n + 1)
    for b in range(size):
        s = draw[b]
        o = obs_index[b]
        k = 0
        while k < n and skeleton[o, k] >= 0:
            index[skeleton[o, k]] = k
            k += 1
        # before any insertion every skeleton item has a worse ρ-rank than "i = −1": +1 each
        for g in range(k + 1):
            count[g] = 0
            end[g] = g
        spent = 0
        lowest = 0
        for i in range(n):
            x = order[s, i]
            if on_skeleton[o, x]:  # from now on it is better ranked: passing it costs −1
                for g in range(index[x] + 1, k + 1):
                    end[g] -= 2
                continue
            low = end[0]
            for g in range(1, k + 1):
                if end[g] < low:
                    low = end[g]
            acc = 0.0
            for g in range(k + 1):
                acc += pw[s, end[g] - low] * cum[s, count[g] + 1]
                running[g] = acc
            target = u[b, i] * acc
            first, last = 0, k  # the first gap whose running total exceeds the target
            while first < last:
                mid = (first + last) // 2
                if running[mid] > target:
                    last = mid
                else:
                    first = mid + 1
            g = first
            before = running[g - 1] if g > 0 else 0.0
            a = count[g]
            top = pw[s, end[g] - low]
            first, last = 0, a  # the first place t whose running total exceeds it
            while first < last:
                mid = (first + last) // 2
                if before + top * (cum[s, a + 1] - cum[s, a - mid]) > target:
                    last = mid
                else:
                    first = mid + 1
            spent += i + end[g] + a - first
            lowest += i + low
            norm[b] *= acc
            if norm[b] > BIG:
                norm[b] *= 1.0 / BIG
                scale[b] += 1
            count[g] += 1
            for h in range(g, k + 1):  # one more better-ranked item above these bottoms
                end[h] -= 1
        cost[b] = spent
        floor[b] = lowest
        for g in range(k):
            index[skeleton[o, g]] = -1
