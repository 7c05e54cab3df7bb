r"""Effect sizes of every pair of systems on a blocks × systems score table, as autorank reports
them (Herbold, 2020), oriented so that positive means the first system scores higher:

- Cliff's δ (Cliff, 1993): :math:`P(x_a > x_b) - P(x_a < x_b)` over all ``N²`` pairs of blocks;
- Cohen's d (Cohen, 1988): difference of the means over the pooled standard deviation
  (``ddof = 1``);
- Akinshin's γ (Akinshin, 2020): difference of the medians over the pooled median absolute
  deviation, each MAD scaled by :data:`MAD_SCALE` (comparable to a standard deviation under
  normality).

Cliff's δ of all ``k (k − 1) / 2`` pairs is the costly one (``k² N²`` comparisons by
definition): it is counted from one sort of the whole table, in chunks of the sorted values
(:func:`_earlier_pairs`), so that no loop runs over systems, pairs or blocks.

References
----------
Cliff, N. (1993). Dominance statistics: ordinal analyses to answer ordinal questions.
*Psychological Bulletin* 114(3), 494–509.

Cohen, J. (1988). *Statistical power analysis for the behavioral sciences*, 2nd ed. Erlbaum.

Akinshin, A. (2020). Nonparametric Cohen's d-consistent effect size. https://aakinshin.net/posts/nonparametric-effect-size/

Herbold, S. (2020). Autorank: a Python package for automated ranking of classifiers. *Journal of
Open Source Software* 5(48), 2173.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankstats._util.blas_threads import one_blas_thread

#: Scale of the median absolute deviation to a standard deviation under normality.
MAD_SCALE = 1.4826


def pairwise_effect_sizes(values: np.ndarray, a: np.ndarray, b: np.ndarray) -> pd.DataFrame:
    r"""Cliff's δ, Cohen's d and Akinshin's γ of the pairs ``(a[i], b[i])`` of columns of an
    ``(N, k)`` score matrix (higher = better): positive when column ``a`` scores higher.

    Cliff's δ over all ``N²`` pairs of blocks is counted from one sort of the whole matrix
    (:func:`_earlier_pairs`: no loop over systems, pairs or blocks).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 5.0]])
    >>> pairwise_effect_sizes(x, np.array([0]), np.array([1])).round(3).to_dict("records")
    [{'cliffs_delta': 0.222, 'cohens_d': 0.0, 'akinshin_gamma': 0.674}]
    """
    values = np.asarray(values, dtype=np.float64)
    n, k = values.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = values.mean(axis=0)
        var = values.var(axis=0, ddof=1) if n > 1 else np.full(k, np.nan)
        cohen = (mean[a] - mean[b]) / np.sqrt((var[a] + var[b]) / 2.0)
        median = np.median(values, axis=0)
        mad = MAD_SCALE * np.median(np.abs(values - median), axis=0)
        gamma = (median[a] - median[b]) / np.sqrt((mad[a] ** 2 + mad[b] ** 2) / 2.0)
    return pd.DataFrame(
        {"cliffs_delta": _cliffs_delta(values)[a, b], "cohens_d": cohen, "akinshin_gamma": gamma}
    )


#: Sorted positions per chunk of :func:`_earlier_pairs`: pairs inside a chunk are counted one by
#: one (``kN · chunk / 2``), pairs across chunks by one matrix product (``k² · kN / chunk``).
_CHUNK = 32


def _cliffs_delta(values: np.ndarray) -> np.ndarray:
    """``(k, k)`` matrix of Cliff's δ between the columns of ``values``: ``δ[s, j] = (#(x_s >
    x_j) − #(x_s < x_j)) / N²``, from exact integer counts (the same numbers whatever the order
    of the sums)."""
    n, k = values.shape
    flat = values.ravel(order="F")  # column after column: element i belongs to system i // n
    # Equal values form one run, counted as a unit, so their order in the sort does not matter
    # and the faster unstable sort gives the same counts; NaN (each NaN its own run) keeps the
    # stable order.
    order = np.argsort(flat, kind="stable" if np.isnan(flat).any() else "quicksort")
    ordered = flat[order]
    label = order // n
    run_start = np.empty(len(flat), dtype=bool)
    run_start[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=run_start[1:])
    starts = np.flatnonzero(run_start)
    first = starts[np.cumsum(run_start) - 1]  # elements before the run of equal values: smaller
    less = _earlier_pairs(label, first, k)
    return (less - less.T) / (n * n)


def _earlier_pairs(label: np.ndarray, first: np.ndarray, k: int) -> np.ndarray:
    """``less[s, j]``: the number of pairs ``(x, y)``, ``x`` of system ``s`` and ``y`` of system
    ``j``, with ``y`` at a sorted position before ``first[x]`` (the start of ``x``'s run of
    equal values), i.e. ``y < x``.

    The sorted positions are cut into chunks of :data:`_CHUNK`. ``y`` in a chunk before the
    chunk of ``first[x]`` is counted by one product of ``(chunks, k)`` count matrices (integers
    below 2⁵³: exact in floating point); ``y`` in the chunk of ``first[x]`` by
    :func:`_within_chunks`. About ``k² · kN / chunk + kN · chunk`` operations instead of one
    pass over all ``kN`` values per system.
    """
    size, m = len(label), _CHUNK
    n_chunks = -(-size // m)
    chunk_of = first // m  # the chunk of the start of each element's run
    position_chunk = np.arange(size) // m
    # (chunks, k) counts, keyed chunk-major: the keys rise with the sorted position, so the
    # counts are written in order (a system-major key scatters them over the whole array).
    per_chunk = np.bincount(position_chunk * k + label, minlength=n_chunks * k)
    per_chunk = per_chunk.reshape(n_chunks, k)
    before = np.cumsum(per_chunk, axis=0, dtype=np.float64) - per_chunk  # j in earlier chunks
    starting = np.bincount(chunk_of * k + label, minlength=n_chunks * k).reshape(n_chunks, k)
    with one_blas_thread():  # a thin product: threads only add synchronisation
        less = starting.T.astype(np.float64) @ before
    return np.rint(less).astype(np.int64) + _within_chunks(label, first, k, position_chunk)


def _within_chunks(
    label: np.ndarray, first: np.ndarray, k: int, position_chunk: np.ndarray
) -> np.ndarray:
    """The pairs of :func:`_earlier_pairs` with ``y`` in the chunk of ``first[x]``.

    Every pair ``t < u`` of positions of one chunk counts unless ``t`` and ``u`` are in one run
    (equal values), one distance ``u − t`` at a time (``chunk − 1`` vectorised steps over all
    chunks); an element whose run started in an earlier chunk adds, per run, the labels
    of that chunk before the run's start.
    """
    size, m = len(label), _CHUNK
    n_chunks = len(position_chunk) and int(position_chunk[-1]) + 1
    pad = n_chunks * m - size
    small = np.int32 if (k + 1) ** 2 < 2**31 else np.int64  # half the memory traffic
    labels = np.concatenate([label, np.full(pad, k)]).astype(small).reshape(n_chunks, m)
    runs = np.concatenate([first, np.full(pad, -1, first.dtype)]).reshape(n_chunks, m)
    any_tie = bool(np.any(first != np.arange(size)))  # without ties no pair is of one run
    counts = np.zeros((k + 1) * (k + 1), dtype=np.int64)
    for d in range(1, m):  # the pairs (t, t + d) of every chunk at once: strided views, no copy
        codes = labels[:, d:] * (k + 1) + labels[:, :-d]
        if any_tie:  # pairs of one run (equal values): not counted
            codes = codes[runs[:, d:] != runs[:, :-d]]
        counts += np.bincount(codes.ravel(), minlength=(k + 1) * (k + 1))
    within = counts.reshape(k + 1, k + 1)[:k, :k]  # row and column k: the padding
    span = np.flatnonzero(first // m != position_chunk)
    if len(span):
        # Runs across a chunk boundary: their elements past the chunk of the run's start (by
        # label) times the labels of that chunk before the start.
        run_start, run_index = np.unique(first[span], return_inverse=True)
        n_runs = len(run_start)
        past = np.bincount(run_index * k + label[span], minlength=n_runs * k)
        position = (run_start // m)[:, None] * m + np.arange(m)
        keep = position < run_start[:, None]
        row = np.broadcast_to(np.arange(n_runs)[:, None], position.shape)[keep]
        ahead = np.bincount(row * k + label[position[keep]], minlength=n_runs * k)
        with one_blas_thread():
            product = past.reshape(n_runs, k).T.astype(np.float64) @ ahead.reshape(
                n_runs, k
            ).astype(np.float64)
        within = within + np.rint(product).astype(np.int64)
    return within


EFFECT_SIZES = ("cliffs_delta", "cohens_d", "akinshin_gamma")
