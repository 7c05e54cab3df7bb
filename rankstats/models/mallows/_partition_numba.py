r"""numba kernels of :math:`\log Z_n(\alpha)` for the Metropolis–Hastings Mallows sampler
(:mod:`rankstats.models.mallows._metropolis_numba`), from a
:class:`~rankstats.core.permutations.partition.LogZTable`: the closed forms, the exact counts as
polynomials in :math:`q = e^{-\alpha/n}` (:func:`counts_table`), the importance-sampling
spline. :func:`log_z` agrees with
:meth:`~rankstats.core.permutations.partition.PartitionFunction.log_z` within 6e-14 relative
(tested; the spline bit for bit) at a fraction of its cost: the sampler evaluates it at every
proposal of α.

numba caches the machine code of a kernel with the functions it calls, but checks only the
kernel's own file for changes: after editing this one, delete the cache of
``_metropolis_numba`` (``rankstats/models/mallows/__pycache__/_metropolis_numba*.nb*``).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import types

_OPTIONS = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}
_F1 = types.float64[::1]
_F2 = types.float64[:, ::1]
_I1 = types.int64[::1]
_I2 = types.int64[:, ::1]

#: :data:`rankstats.core.permutations.partition.LOG_Z_FORMS`' codes.
CLOSED_KENDALL, CLOSED_CAYLEY, COUNTS, SPLINE = range(4)
#: Largest spread of the log-counts within one block of :func:`counts_table` (its coefficients
#: lie within e^±600 of each other: representable, with room for the sums).
SPREAD = 1200.0


def counts_table(log_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    r"""The exact counts as polynomials for :func:`log_z`: :math:`Z = \sum_d N_n(d)\, q^d` with
    ``d`` a multiple of ``stride`` (the gcd of the distances that occur: 2 for the footrule and
    Spearman), cut into blocks of consecutive terms that begin with a count > 0 and whose
    log-counts lie within :data:`SPREAD`; block ``k`` holds
    ``coefficients[starts[k] : starts[k + 1]]`` = :math:`N_n(d)\, e^{-s_k}`, ``scales[k]`` =
    :math:`s_k` the middle of its log-counts.
    Returns ``(coefficients, starts, scales, stride)``."""
    support = np.flatnonzero(np.isfinite(log_counts))
    stride = int(np.gcd.reduce(support)) if len(support) > 1 else 1
    values = log_counts[::stride]
    coefficients = np.zeros(len(values))
    # Every block begins with a count > 0, so that its polynomial does not underflow however
    # large α (the first may be beyond d = 0: see the footrule's counts beyond 170 items).
    starts, scales = [int(support[0]) // stride], []
    low = high = math.nan  # the finite log-counts of the block so far

    def close(stop: int) -> None:
        scale = 0.5 * (low + high)
        block = values[starts[-1] : stop]
        finite = np.isfinite(block)
        coefficients[starts[-1] : stop][finite] = np.exp(block[finite] - scale)
        scales.append(scale)
        starts.append(stop)

    for i, v in enumerate(values):
        if not math.isfinite(v):
            continue
        if math.isnan(low):
            low = high = v
        elif max(high, v) - min(low, v) > SPREAD:
            close(i)
            low = high = v
        else:
            low, high = min(low, v), max(high, v)
    close(len(values))
    return coefficients, np.array(starts, dtype=np.int64), np.array(scales), stride


@numba.njit(types.float64(_F1, types.int64, types.int64, types.float64), **_OPTIONS)
def polynomial(coefficients, start, stop, y):  # pragma: no cover
    r""":math:`\sum_i a_i y^i`, ``a`` = ``coefficients[start:stop]``, by Horner's rule in eight
    interleaved chains (the terms ``i ≡ r mod 8`` in :math:`y^8`, then
    :math:`\sum_r y^r A_r`): bound by the throughput of the multiplications, not by their
    latency (one chain waits for each product)."""
    groups = (stop - start + 7) // 8
    y2 = y * y
    y4 = y2 * y2
    y8 = y4 * y4
    top = start + 8 * (groups - 1)  # the last group may be short
    a0 = coefficients[top]
    a1 = coefficients[top + 1] if top + 1 < stop else 0.0
    a2 = coefficients[top + 2] if top + 2 < stop else 0.0
    a3 = coefficients[top + 3] if top + 3 < stop else 0.0
    a4 = coefficients[top + 4] if top + 4 < stop else 0.0
    a5 = coefficients[top + 5] if top + 5 < stop else 0.0
    a6 = coefficients[top + 6] if top + 6 < stop else 0.0
    a7 = coefficients[top + 7] if top + 7 < stop else 0.0
    for base in range(top - 8, start - 1, -8):
        a0 = a0 * y8 + coefficients[base]
        a1 = a1 * y8 + coefficients[base + 1]
        a2 = a2 * y8 + coefficients[base + 2]
        a3 = a3 * y8 + coefficients[base + 3]
        a4 = a4 * y8 + coefficients[base + 4]
        a5 = a5 * y8 + coefficients[base + 5]
        a6 = a6 * y8 + coefficients[base + 6]
        a7 = a7 * y8 + coefficients[base + 7]
    return a0 + y * (a1 + y * (a2 + y * (a3 + y * (a4 + y * (a5 + y * (a6 + y * a7))))))


@numba.njit(
    types.float64(types.int64, types.int64, _F1, _I1, _F1, types.int64, _F1, _F2, types.float64,
                  types.float64),
    **_OPTIONS,
)  # fmt: skip
def log_z(
    form, n, coefficients, starts, scales, stride, breaks, spline, log_factorial, alpha
):  # pragma: no cover
    r""":math:`\log Z_n(\alpha)` of a :class:`~rankstats.core.permutations.partition.LogZTable`
    (``coefficients, starts, scales, stride``: its counts by :func:`counts_table`; ``breaks,
    spline``: its breakpoints and coefficients). NaN beyond the grid of a spline (the
    reference refuses such an α).

    With :math:`q = e^{-\alpha/n}`: Kendall :math:`\prod_{j=1}^{n} s_j`, :math:`s_j = 1 + q
    s_{j-1}` (= :math:`(1 - q^j)/(1 - q)` without its cancellation; :math:`q = 1` below
    ``α/n = 1e-12``, as the reference); Cayley :math:`\prod_{j=1}^{n-1} (1 + j q)`; the counts
    by Horner's rule in :math:`q^{stride}`, block by block, and a log-sum-exp of the blocks
    (one ``exp`` and ``log`` per block instead of one per count); the spline as
    :class:`scipy.interpolate.PPoly` evaluates it (the interval closed on the left, the last one
    also on the right; the powers of ``α − x_i`` by repeated multiplication). Products are
    rescaled into their logarithm before they overflow. Within 6e-14 (relative) of
    :meth:`~rankstats.core.permutations.partition.PartitionFunction.log_z` (tested)."""
    c = alpha / max(n, 1)
    if form == CLOSED_KENDALL:
        q = 1.0 if c < 1e-12 else math.exp(-c)
        s = 1.0
        product = 1.0
        extra = 0.0
        for _ in range(2, n + 1):
            s = 1.0 + q * s
            product *= s
            if product > 1e280:
                extra += math.log(product)
                product = 1.0
        return extra + math.log(product)
    if form == CLOSED_CAYLEY:
        q = math.exp(-c)
        product = 1.0
        extra = 0.0
        for j in range(1, n):
            product *= 1.0 + j * q
            if product > 1e280:
                extra += math.log(product)
                product = 1.0
        return extra + math.log(product)
    if form == COUNTS:
        y = math.exp(-c * stride)
        blocks = scales.shape[0]
        top = -math.inf
        for k in range(blocks):
            value = polynomial(coefficients, starts[k], starts[k + 1], y)
            term = scales[k] - c * stride * starts[k] + math.log(value)
            if k == 0 or term > top:
                top = term
        if blocks == 1:
            return top
        total = 0.0
        for k in range(blocks):  # rare: log-counts spread beyond SPREAD (n in the hundreds)
            value = polynomial(coefficients, starts[k], starts[k + 1], y)
            total += math.exp(scales[k] - c * stride * starts[k] + math.log(value) - top)
        return top + math.log(total)
    # the spline of the importance-sampling estimate
    last = breaks.shape[0] - 1
    if alpha > breaks[last]:
        return math.nan
    if alpha == breaks[last]:
        interval = last - 1
    else:
        low = 0
        high = last - 1
        while low < high:
            mid = (low + high) // 2
            if alpha < breaks[mid]:
                high = mid
            elif alpha >= breaks[mid + 1]:
                low = mid + 1
            else:
                low = mid
                break
        interval = low
    s = alpha - breaks[interval]
    k = spline.shape[0]
    integral = 0.0
    power = 1.0
    for kp in range(k):
        integral = integral + spline[k - kp - 1, interval] * power
        if kp < k - 1:
            power *= s
    return log_factorial - integral / n
