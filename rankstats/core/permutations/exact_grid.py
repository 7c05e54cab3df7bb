r"""Exact :math:`\log Z_n(\alpha)` and :math:`E_\alpha[d]` at given values of α, where the counts
:math:`N_n(d)` of :mod:`rankstats.core.permutations.counts` are out of reach: the partition
function is computed at each α directly, with sums of positive terms only (no cancellation:
full double precision), and :mod:`rankstats.core.permutations.partition` interpolates a dense
grid of them (method ``"exact on a grid"``).

- **Spearman** — :math:`Z_n(\alpha)` is the permanent of :math:`A_{ij} = e^{-c (i-j)^2}`,
  :math:`c = \alpha / n`, computed by the dynamic programme over subsets
  :math:`f(S) = \sum_{j \in S} f(S \setminus j)\, A_{|S|, j}`, :math:`f(\emptyset) = 1`,
  :math:`Z = f(\{1..n\})` (``2ⁿ n`` multiply-adds per α; Ryser's formula costs the same but
  alternates signs and loses up to ``n log10 3.7`` digits). Alongside,
  :math:`h(S) = \sum_{j} h(S \setminus j) A_{|S|j} + f(S \setminus j) A_{|S|j} (|S|-j)^2`
  sums :math:`d\, e^{-c d}` over the same assignments: :math:`E_\alpha[d] = h / f`.
- **Footrule** — the footrule is :math:`2 \sum_i c_i` with :math:`c_i` the crossings of the cut
  after position ``i`` (:func:`~rankstats.core.permutations.counts.footrule_log_counts`); at a
  fixed α the weight :math:`e^{-2 c\, c_i}` is applied at each cut, so the transfer runs over
  ``c`` alone (``O(n²)`` per α, any ``n``), in logarithms.

Diaconis, P. (1988). *Group representations in probability and statistics*, ch. 6. IMS.

Ryser, H. J. (1963). *Combinatorial mathematics*. MAA. (The permanent.)
"""

from __future__ import annotations

import numpy as np

#: At most this many α processed together by :func:`spearman_grid` (memory: ``2ⁿ`` × the
#: block × 2 floats, at most 134 MB, or ``2ⁿ × 16`` bytes from 24 items on).
BLOCK = 8


def spearman_grid(n: int, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`\log Z_n(\alpha)` and :math:`E_\alpha[d]` of the Spearman distance at each α of
    ``alpha`` by the permanent's subset recursion (module docstring). Memory
    ``max(2ⁿ, 2²³) × 16`` bytes (134 MB up to 23 items, 268 MB at 24).

    Examples
    --------
    >>> log_z, expected = spearman_grid(3, np.array([0.0, 3.0]))
    >>> np.round(np.exp(log_z), 6).tolist()  # 3! rankings; 1 + 2 e^{-2} + 2 e^{-6} + e^{-8}
    [6.0, 1.275964]
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    try:
        from rankstats.core.permutations._permanent_numba import spearman_block
    except ImportError:  # numba is optional: the same recursion with NumPy's indexing
        spearman_block = None
    layers = _layers(n) if spearman_block is None else None
    log_z = np.empty(len(alpha))
    expected = np.empty(len(alpha))
    width = max(1, min(BLOCK, (1 << 23) >> n))  # at most 2²³ × 16 bytes: 134 MB
    for start in range(0, len(alpha), width):
        block = alpha[start : start + width]
        if spearman_block is None:
            f, h = _spearman_block(n, block, layers)
        else:
            f, h = spearman_block(n, *_spearman_tables(n, block))
        log_z[start : start + width], expected[start : start + width] = np.log(f), h / f
    return log_z, expected


def _spearman_tables(n: int, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The kernel's inputs: ``weight[k n + j, a]`` = :math:`e^{-\alpha_a (k-j)^2 / n}` and
    ``gap[k, j]`` = :math:`(k-j)^2`."""
    positions = np.arange(n)
    gap = ((positions[:, None] - positions[None, :]) ** 2).astype(np.float64)
    weight = np.exp(-gap.reshape(-1, 1) * (alpha / max(n, 1))[None, :])
    return np.ascontiguousarray(weight), np.ascontiguousarray(gap)


def _layers(n: int) -> list[np.ndarray]:
    """The subsets of ``{0 … n−1}`` (as bit masks) by size: ``layers[k]`` has ``k`` members."""
    size = 1 << n
    popcount = np.zeros(size, dtype=np.int8)
    for bit in range(n):  # popcount by doubling: the masks with bit set add one
        popcount[1 << bit : 2 << bit] = popcount[: 1 << bit] + 1
    order = np.argsort(popcount, kind="stable").astype(np.int64)
    bounds = np.searchsorted(popcount[order], np.arange(n + 2))
    return [order[bounds[k] : bounds[k + 1]] for k in range(n + 1)]


def _spearman_block(
    n: int, alpha: np.ndarray, layers: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """The NumPy recursion, one layer of subsets at a time: ``f`` and ``h`` of the full set."""
    c = alpha / max(n, 1)
    f = np.zeros((1 << n, len(alpha)))
    h = np.zeros_like(f)
    f[0] = 1.0
    for k in range(1, n + 1):  # position k takes value j + 1 (its square gap (k − 1 − j)²)
        masks = layers[k]
        for j in range(n):
            bit = 1 << j
            members = masks[(masks & bit) != 0]
            before = members ^ bit
            gap = float((k - 1 - j) ** 2)
            weight = np.exp(-c * gap)
            f_before = f[before]
            f[members] += f_before * weight
            h[members] += (h[before] + gap * f_before) * weight
    full = (1 << n) - 1
    return f[full], h[full]


def footrule_grid(n: int, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`\log Z_n(\alpha)` and :math:`E_\alpha[d]` of the footrule at each α of ``alpha``:
    the transfer over the crossings of each cut (module docstring), vectorised over α, with the
    derivative carried alongside (:math:`E[d] = -n\, \partial_\alpha \log Z`).

    Examples
    --------
    >>> log_z, expected = footrule_grid(3, np.array([0.0]))
    >>> float(np.round(np.exp(log_z[0]), 10)), float(np.round(expected[0], 10))
    (6.0, 2.6666666667)
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    c = alpha / max(n, 1)
    top = n // 2 + 1
    crossings = np.arange(top + 1, dtype=np.float64)[:, None]
    log_decay = -2.0 * c[None, :] * crossings  # e^{-2 c k} for k crossings after a cut
    with np.errstate(divide="ignore"):
        log_ways = np.log(np.eye(top + 1, 1)) + np.zeros(len(alpha))  # log Σ weights, by k
        log_stay, log_fall = np.log(2.0 * crossings + 1.0), 2.0 * np.log(crossings)
    mean = np.zeros_like(log_ways)  # E[2 Σ crossings so far | k crossings now]
    for _ in range(n):
        log_ways, mean = _transfer(log_ways, mean, log_stay, log_fall)
        mean += 2.0 * crossings  # the new cut's crossings add to the distance
        log_ways += log_decay
    return log_ways[0], mean[0]


def _transfer(
    log_ways: np.ndarray, mean: np.ndarray, log_stay: np.ndarray, log_fall: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One cut to the next, in logarithms (the weights of small and large crossings differ by
    more than a double holds beyond about 170 items): ``k`` stays (``2k + 1`` ways), falls by
    one (from ``k + 1``: ``(k+1)²`` ways) or rises by one (from ``k − 1``: one way); never more
    than ``n / 2`` crossings. ``mean`` is the weighted mean of the distance so far."""
    minus_inf = np.full((1, log_ways.shape[1]), -np.inf)
    zeros = np.zeros((1, log_ways.shape[1]))
    sources = np.stack(
        [
            log_stay + log_ways,
            np.vstack([log_fall[1:] + log_ways[1:], minus_inf]),
            np.vstack([minus_inf, log_ways[:-1]]),
        ]
    )
    means = np.stack([mean, np.vstack([mean[1:], zeros]), np.vstack([zeros, mean[:-1]])])
    sources[:, -1] = -np.inf
    peak = sources.max(axis=0)
    safe = np.where(np.isfinite(peak), peak, 0.0)
    weight = np.exp(sources - safe)
    total = weight.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        new_mean = np.where(total > 0, (weight * means).sum(axis=0) / total, 0.0)
        return safe + np.log(total), new_mean
