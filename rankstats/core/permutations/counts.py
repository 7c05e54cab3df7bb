r"""The numbers :math:`N_n(d)` of permutations of ``n`` items at each distance ``d`` from the
identity, as logarithms (``-inf`` where there is none): the exact normalising constants of
:mod:`rankstats.core.permutations.partition`, :math:`Z_n(\alpha) = \sum_d N_n(d)\, e^{-\alpha d/n}`.

- Hamming: :math:`\binom{n}{k} D_k` (``D_k`` derangements), any ``n``;
- footrule: a transfer recursion over the cuts between positions — the footrule is
  :math:`2 \sum_i c_i` with :math:`c_i` the items ranked at most ``i`` placed after position
  ``i``, and from one cut to the next ``c`` stays (``2c + 1`` ways), falls by one (``c²`` ways)
  or rises by one (one way);
- Spearman: the sum :math:`\sum_i i\,\sigma(i)` over the subsets of values placed (exact
  integers, ``2ⁿ`` subsets), as BayesMallows;
- Ulam: by RSK, :math:`\#\{\mathrm{LIS} = l\} = \sum_{\lambda \vdash n,\ \lambda_1 = l}
  (f^\lambda)^2` with ``f^λ`` from the hook length formula.

And their generating functions, :math:`\log Z_n` and :math:`E_\alpha[d]` at
:math:`c = \alpha / n` (:data:`CLOSED_LOG_Z` and :data:`CLOSED_EXPECTED` for Kendall and
Cayley, :math:`q = e^{-c}`; :func:`counts_log_z` and :func:`counts_expected` from the counts).

Their sizes, and the costs that decide which are kept on disk, are in
:data:`rankstats.core.permutations.partition.EXACT_MAX` and ``DISK_CACHE_FROM``.

Fligner, M. A. and Verducci, J. S. (1986). Distance based ranking models. *JRSS B* 48(3), 359–369.

Diaconis, P. (1988). *Group representations in probability and statistics*, ch. 6. IMS.
"""

from __future__ import annotations

import math

import numpy as np


# ---------------------------------------------------------------------------- closed forms
def _kendall_log_z(n: int, c: np.ndarray) -> np.ndarray:
    j = np.arange(1, n + 1, dtype=np.float64)
    t = c[..., None]
    small = t < 1e-12  # the limit of (1 − q^j) / (1 − q) as q → 1: j
    safe = np.where(small, 1.0, t)
    terms = np.where(small, np.log(j), np.log(-np.expm1(-j * safe)) - np.log(-np.expm1(-safe)))
    return terms.sum(axis=-1)


def _kendall_expected(n: int, c: np.ndarray) -> np.ndarray:
    r""":math:`\sum_{j=1}^{n} \left(\frac{q}{1-q} - \frac{j q^j}{1-q^j}\right)` (→ ``n(n−1)/4``
    as ``q → 1``)."""
    j = np.arange(1, n + 1, dtype=np.float64)
    t = c[..., None]
    small = t < 1e-12
    safe = np.where(small, 1.0, t)
    terms = 1.0 / np.expm1(safe) - j / np.expm1(j * safe)
    return np.where(small[..., 0], n * (n - 1) / 4.0, terms.sum(axis=-1))


def _cayley_log_z(n: int, c: np.ndarray) -> np.ndarray:
    j = np.arange(1, n, dtype=np.float64)
    return np.log1p(j * np.exp(-c)[..., None]).sum(axis=-1)


def _cayley_expected(n: int, c: np.ndarray) -> np.ndarray:
    jq = np.arange(1, n, dtype=np.float64) * np.exp(-c)[..., None]
    return (jq / (1.0 + jq)).sum(axis=-1)


CLOSED_LOG_Z = {"kendall": _kendall_log_z, "cayley": _cayley_log_z}
CLOSED_EXPECTED = {"kendall": _kendall_expected, "cayley": _cayley_expected}


def counts_log_z(log_counts: np.ndarray, c: np.ndarray) -> np.ndarray:
    d = np.arange(len(log_counts), dtype=np.float64)
    terms = log_counts - c[..., None] * d
    top = terms.max(axis=-1, keepdims=True)
    return (top + np.log(np.exp(terms - top).sum(axis=-1, keepdims=True)))[..., 0]


def counts_expected(log_counts: np.ndarray, c: np.ndarray) -> np.ndarray:
    d = np.arange(len(log_counts), dtype=np.float64)
    terms = log_counts - c[..., None] * d
    weight = np.exp(terms - terms.max(axis=-1, keepdims=True))
    return (weight * d).sum(axis=-1) / weight.sum(axis=-1)


# ---------------------------------------------------------------------------- counts
def _log(counts: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(counts.astype(np.float64))


def hamming_log_counts(n: int) -> np.ndarray:
    """``log N(k) = log C(n, k) + log D_k``, ``D_k = (k − 1)(D_{k−1} + D_{k−2})``."""
    log_d = np.full(n + 1, -np.inf)
    log_d[0] = 0.0
    for k in range(2, n + 1):  # n steps, once per n
        log_d[k] = math.log(k - 1) + np.logaddexp(log_d[k - 1], log_d[k - 2])
    k = np.arange(n + 1)
    log_choose = math.lgamma(n + 1) - np.array(
        [math.lgamma(i + 1) + math.lgamma(n - i + 1) for i in k]
    )
    return log_choose + log_d


def footrule_log_counts(n: int) -> np.ndarray:
    """Transfer recursion over the ``n`` cuts (module docstring): ``ways[c, s]`` counts the ways
    to fill the first positions with ``c`` crossings at the cut and ``Σ c = s`` so far; rescaled
    at every cut (the counts reach ``n!``), the scale kept as a logarithm."""
    top_c = n // 2 + 1
    top_s = n * n // 4 + 1
    ways = np.zeros((top_c + 1, top_s + 1))
    ways[0, 0] = 1.0
    c = np.arange(top_c + 1, dtype=np.float64)[:, None]
    log_scale = 0.0
    for _ in range(n):
        moved = (2.0 * c + 1.0) * ways  # c stays
        moved[:-1] += (c[1:] ** 2) * ways[1:]  # c falls by one
        moved[1:] += ways[:-1]  # c rises by one
        moved[-1] = 0.0  # never more than n / 2 crossings
        shifted = np.zeros_like(moved)
        for k in range(top_c + 1):  # the new crossings add to the sum: row k moves by k
            if k <= top_s:
                shifted[k, k:] = moved[k, : top_s + 1 - k]
        peak = shifted.max()
        ways = shifted / peak
        log_scale += math.log(peak)
    sums = _log(ways[0]) + log_scale  # no crossing after the last cut
    out = np.full(n * n // 2 + 1, -np.inf)
    out[0::2][: len(sums)] = sums[: len(out[0::2])]  # footrule = 2 Σ c
    return out


def spearman_log_counts(n: int) -> np.ndarray:
    """``Σ_i (σ(i) − i)² = 2 Σ i² − 2 Σ i σ(i)``: the distribution of ``Σ i σ(i)`` by a
    recursion over the subsets of values given to the first positions, one layer of subsets
    (of one size) at a time (exact integers; at most ``C(n, n/2)`` rows held)."""
    high = n * (n + 1) * (2 * n + 1) // 6  # Σ i²: the identity, the largest Σ i σ(i)
    low = n * (n + 1) * (n + 2) // 6  # Σ i (n + 1 − i): the reversed ranking, the smallest
    size = 1 << n
    popcount = np.array([bin(s).count("1") for s in range(size)])
    row_of = np.zeros(size, dtype=np.int64)  # a subset's row in its layer
    layer = np.array([0])
    ways = np.zeros((1, high + 1), dtype=np.int64)  # ways[row, t]: orderings with Σ i σ(i) = t
    ways[0, 0] = 1
    for filled in range(n):
        following = np.flatnonzero(popcount == filled + 1)
        row_of[following] = np.arange(len(following))
        nxt = np.zeros((len(following), high + 1), dtype=np.int64)
        position = filled + 1
        for value in range(1, n + 1):
            bit = 1 << (value - 1)
            free = np.flatnonzero((layer & bit) == 0)
            add = position * value
            nxt[row_of[layer[free] | bit], add:] += ways[free, : high + 1 - add]
        layer, ways = following, nxt
    sums = ways[0, low:]  # Σ i σ(i) = low … high
    counts = np.zeros(2 * (high - low) + 1, dtype=np.int64)
    counts[0::2] = sums[::-1]  # d = 2 (high − Σ i σ(i))
    return _log(counts)


def ulam_log_counts(n: int) -> np.ndarray:
    """``#{σ : LIS(σ) = l} = Σ_{λ ⊢ n, λ₁ = l} (f^λ)²`` (RSK), ``f^λ`` by the hook length
    formula in logarithms; ``d = n − l``."""
    log_fact = math.lgamma(n + 1)
    by_length: dict[int, list[float]] = {}
    for shape in _partitions(n):
        conj = [sum(1 for part in shape if part > j) for j in range(shape[0])]
        hooks = sum(
            math.log(shape[i] - j + conj[j] - i - 1)
            for i in range(len(shape))
            for j in range(shape[i])
        )
        by_length.setdefault(shape[0], []).append(2.0 * (log_fact - hooks))
    out = np.full(n, -np.inf)
    for length, terms in by_length.items():
        top = max(terms)
        out[n - length] = top + math.log(sum(math.exp(t - top) for t in terms))
    return out


def _partitions(n: int):
    """The partitions of ``n`` as non-increasing tuples."""

    def parts(remaining: int, largest: int):
        if remaining == 0:
            yield ()
            return
        for first in range(min(remaining, largest), 0, -1):
            for rest in parts(remaining - first, first):
                yield (first, *rest)

    return parts(n, n)


LOG_COUNTS = {
    "footrule": footrule_log_counts,
    "spearman": spearman_log_counts,
    "hamming": hamming_log_counts,
    "ulam": ulam_log_counts,
}
