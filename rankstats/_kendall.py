r"""Kendall distance between rank vectors, batched, in ``O(N log² N)`` per pair.

The distance follows DESIGN.md (Fagin et al., 2006, "Comparing partial rankings", :math:`K^{(p)}`
with :math:`p = \tfrac12`): a pair of systems ordered one way by ``a`` and the other way by ``b``
counts 1; a pair tied in exactly one of the two counts ½; a pair tied in both counts 0.

With ``n_d`` the number of discordant pairs, ``t_a`` / ``t_b`` the pairs tied in ``a`` / ``b`` and
``t_ab`` the pairs tied in both,

.. math::

    K(a, b) = n_d + \tfrac12 (t_a - t_{ab}) + \tfrac12 (t_b - t_{ab}).

``n_d`` is counted as in Knight (1966): sort the pairs by ``(a, b)``, then count the strict
inversions of ``b`` with a bottom-up merge sort.  Every level of the merge is vectorised over all
blocks and all pairs at once (one ``searchsorted`` and one ``sort``), so there is no Python loop
over systems or pairs; the ``log N`` levels are the only loop.
"""

from __future__ import annotations

import numpy as np


def _dense_codes(sorted_values: np.ndarray) -> np.ndarray:
    """Integer codes ``0, 1, ...`` of row-wise sorted values (equal values share a code)."""
    step = np.zeros(sorted_values.shape, dtype=np.int64)
    step[:, 1:] = sorted_values[:, 1:] != sorted_values[:, :-1]
    return np.cumsum(step, axis=1)


def _tied_pairs(sorted_keys: list[np.ndarray]) -> np.ndarray:
    """Number of pairs equal in every key, for rows sorted lexicographically by the keys."""
    m, n = sorted_keys[0].shape
    if n < 2:
        return np.zeros(m)
    new_run = np.zeros((m, n), dtype=bool)
    new_run[:, 0] = True
    for key in sorted_keys:
        new_run[:, 1:] |= key[:, 1:] != key[:, :-1]
    position = np.broadcast_to(np.arange(n), (m, n))
    first = np.maximum.accumulate(np.where(new_run, position, 0), axis=1)
    # Element at position p is tied with the p - first earlier members of its run.
    return (position - first).sum(axis=1).astype(np.float64)


def strict_inversions(values: np.ndarray) -> np.ndarray:
    """Row-wise number of pairs ``p < q`` with ``values[p] > values[q]`` (ties do not count).

    Parameters
    ----------
    values : ndarray of int, shape (m, N)
        Codes in ``0 .. N - 1``.

    Returns
    -------
    ndarray of float, shape (m,)
    """
    values = np.asarray(values, dtype=np.int64)
    m, n = values.shape
    if n < 2:
        return np.zeros(m)
    size = 1 << (n - 1).bit_length()
    # Padding at the end with a value above every code never creates an inversion.
    work = np.full((m, size), n, dtype=np.int64)
    work[:, :n] = values
    total = np.zeros(m, dtype=np.int64)
    width = 1
    while width < size:
        n_blocks = size // (2 * width)
        blocks = work.reshape(m, n_blocks, 2, width)
        # Offsets separate the blocks so that one global searchsorted serves all of them.
        offset = (np.arange(m * n_blocks, dtype=np.int64) * (n + 1)).reshape(m, n_blocks, 1)
        left = (blocks[:, :, 0, :] + offset).ravel()
        right = blocks[:, :, 1, :] + offset
        not_greater = np.searchsorted(left, right.ravel(), side="right").reshape(right.shape)
        not_greater -= np.arange(m * n_blocks, dtype=np.int64).reshape(m, n_blocks, 1) * width
        total += (width - not_greater).reshape(m, -1).sum(axis=1)
        work = np.sort(blocks.reshape(m, n_blocks, 2 * width), axis=-1).reshape(m, size)
        width *= 2
    return total.astype(np.float64)


def kendall_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Kendall distance (ties ½) between the rows of two ``(m, N)`` rank matrices without NaN."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    m, n = a.shape
    if n < 2:
        return np.zeros(m)
    order = np.lexsort((b, a), axis=-1)
    a_sorted = np.take_along_axis(a, order, axis=1)
    b_by_a = np.take_along_axis(b, order, axis=1)
    by_b = np.argsort(b, axis=1, kind="stable")
    b_sorted = np.take_along_axis(b, by_b, axis=1)
    codes_of_b = np.empty((m, n), dtype=np.int64)
    np.put_along_axis(codes_of_b, by_b, _dense_codes(b_sorted), axis=1)
    codes = np.take_along_axis(codes_of_b, order, axis=1)
    discordant = strict_inversions(codes)
    tied_a = _tied_pairs([a_sorted])
    tied_b = _tied_pairs([b_sorted])
    tied_both = _tied_pairs([a_sorted, b_by_a])
    return discordant + 0.5 * (tied_a + tied_b - 2.0 * tied_both)
