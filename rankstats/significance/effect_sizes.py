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
(:func:`_earlier_pairs`), so that no loop runs over systems, pairs or blocks. On a large table,
when the load average leaves a core idle (:func:`_spare_core`), a test starts it on a second
thread before computing its own statistics (:func:`effect_sizes_alongside`): NumPy's sort,
product and array arithmetic release the GIL (``np.bincount`` does not), so the two overlap in
part.

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

import functools
import os
import threading
from collections.abc import Callable
from typing import TypeVar

import numpy as np
import pandas as pd

from rankstats._util.blas_threads import one_blas_thread
from rankstats._util.parallel import cpu_count

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
    return _table(_cliffs_delta(values)[a, b], *_location_sizes(values, a, b))


T = TypeVar("T")

#: Scores (blocks × systems) from which :func:`effect_sizes_alongside` counts Cliff's δ on a
#: second thread; below, a thread costs more than the overlap saves.
THREAD_CELLS = 100_000


def effect_sizes_alongside(
    values: np.ndarray, a: np.ndarray, b: np.ndarray
) -> Callable[[], pd.DataFrame]:
    """:func:`pairwise_effect_sizes` with Cliff's δ started now on a second thread; the
    returned function waits for it and returns the table (an error of the count is raised
    there).

    A test calls this before computing its own statistics, which then run while Cliff's δ is
    counted; the pairs inside the chunks of the sort are counted on a third thread
    (:func:`_earlier_pairs`). On 100 systems × 10,000 blocks with two idle cores, Nemenyi's
    post-hoc test with its effect sizes took 0.234 s against 0.288 s on one thread (Cliff's δ
    alone: 0.158 s against 0.193 s; 2026-11-27, load 0.9). Below :data:`THREAD_CELLS` scores,
    or without a spare core (:func:`_spare_core`), everything runs on the caller's thread when
    the function is called. The numbers are the same either way (exact integer counts).
    """
    values = np.asarray(values, dtype=np.float64)
    if values.size < THREAD_CELLS or not _spare_core():
        return lambda: pairwise_effect_sizes(values, a, b)
    delta = _in_thread(_cliffs_delta, values)

    def table() -> pd.DataFrame:
        cohen, gamma = _location_sizes(values, a, b)  # while the count may still run
        return _table(delta()[a, b], cohen, gamma)

    return table


def _spare_core() -> bool:
    """Whether a second thread may have a core of its own: the one-minute load average (this
    process included) at least one below the cores this process may run on.

    On a busy machine the threads wait for a core and then for the GIL of each other: on two
    cores at load 5, Conover's test of 100 systems × 10,000 blocks with its effect sizes took
    1.06 s (best of 7; median 2.4 s) on threads against 0.37 s on one (2026-12-02). Platforms
    without a load average (Windows) count as idle.
    """
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # pragma: no cover - Windows
        return True
    return load + 1.0 <= cpu_count()


def _in_thread(function: Callable[..., T], *args: object) -> Callable[[], T]:
    """Start ``function(*args)`` on a new thread; the returned function waits for its value (an
    error is raised there). A daemon: an interrupted caller does not wait for it at exit."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = function(*args)
        except BaseException as err:  # re-raised in the caller's thread
            outcome["error"] = err

    worker = threading.Thread(target=run, name="rankstats-effect-sizes", daemon=True)
    worker.start()

    def value() -> T:
        worker.join()
        if "error" in outcome:
            raise outcome["error"]  # type: ignore[misc]
        return outcome["value"]  # type: ignore[return-value]

    return value


def _location_sizes(
    values: np.ndarray, a: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Cohen's d and Akinshin's γ of the pairs ``(a[i], b[i])``."""
    n, k = values.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = values.mean(axis=0)
        var = values.var(axis=0, ddof=1) if n > 1 else np.full(k, np.nan)
        cohen = (mean[a] - mean[b]) / np.sqrt((var[a] + var[b]) / 2.0)
        median = np.median(values, axis=0)
        mad = MAD_SCALE * np.median(np.abs(values - median), axis=0)
        gamma = (median[a] - median[b]) / np.sqrt((mad[a] ** 2 + mad[b] ** 2) / 2.0)
    return cohen, gamma


def _table(delta: np.ndarray, cohen: np.ndarray, gamma: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({"cliffs_delta": delta, "cohens_d": cohen, "akinshin_gamma": gamma})


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
    # On a large table the pairs inside the chunks are counted meanwhile on a second thread.
    if size >= THREAD_CELLS and _spare_core():
        within = _in_thread(_within_chunks, label, first, k, position_chunk)
    else:
        within = functools.partial(_within_chunks, label, first, k, position_chunk)
    if np.array_equal(chunk_of, position_chunk):  # every run starts in its element's chunk
        starting = per_chunk
    else:
        starting = np.bincount(chunk_of * k + label, minlength=n_chunks * k)
        starting = starting.reshape(n_chunks, k)
    return np.rint(_across_chunks(per_chunk, starting)).astype(np.int64) + within()


#: Cells of the ``(chunks, k)`` count matrices cast to floating point at once by
#: :func:`_across_chunks` (2 MiB each: they stay in the cache; whole matrices of 100 systems ×
#: 10,000 blocks are 25 MiB, whose casts took longer than the product on a busy machine).
_PRODUCT_CELLS = 262_144


def _across_chunks(per_chunk: np.ndarray, starting: np.ndarray) -> np.ndarray:
    """``Σ_c starting[c, s] · before[c, j]``, ``before[c]`` the counts of the chunks before
    ``c``: the pairs of :func:`_earlier_pairs` in different chunks, as floats holding integers
    below 2⁵³ (exact), a block of chunks at a time."""
    n_chunks, k = per_chunk.shape
    less = np.zeros((k, k))
    running = np.zeros(k)  # the counts of every chunk before the block
    step = max(1, _PRODUCT_CELLS // max(k, 1))
    with one_blas_thread():  # a thin product: threads only add synchronisation
        for start in range(0, n_chunks, step):  # blocks of chunks, each one product
            block = per_chunk[start : start + step].astype(np.float64)
            before = np.cumsum(block, axis=0)
            before -= block
            before += running
            running += block.sum(axis=0)
            less += starting[start : start + step].T.astype(np.float64) @ before
    return less


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
