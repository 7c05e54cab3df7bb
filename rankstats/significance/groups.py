"""Groups of systems not significantly different: the bars of a critical-difference diagram.

After a post-hoc test of every pair (Nemenyi, Conover, Wilcoxon–Holm, Tukey, the test of
imputed ranks), the systems are listed in order (average rank, or mean score) and a *group* is a
maximal run of consecutive systems in which no pair differs significantly (Demšar, 2006,
Fig. 1): the bars under the axis of a CD diagram and the letters of a compact letter display.
A system that differs from all its neighbours is a group of its own.

Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. *Journal of
Machine Learning Research* 7, 1–30.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def consecutive_groups(order: Sequence[str], significant: np.ndarray) -> list[tuple[str, ...]]:
    """The maximal runs of systems, consecutive in ``order``, in which no pair differs
    significantly, first run first.

    Parameters
    ----------
    order : sequence of str
        The ``k`` systems in the order of the diagram (best first).
    significant : ndarray of bool, shape (k, k)
        Symmetric: whether systems ``order[i]`` and ``order[j]`` differ significantly.

    Returns
    -------
    list of tuple of str
        Every maximal run (a system that differs from both neighbours is a run of one); runs may
        overlap.

    Examples
    --------
    >>> import numpy as np
    >>> significant = np.zeros((4, 4), dtype=bool)
    >>> significant[0, 2] = significant[2, 0] = True  # a ≠ c: runs a–b and b–d
    >>> consecutive_groups(["a", "b", "c", "d"], significant)
    [('a', 'b'), ('b', 'c', 'd')]
    """
    order = list(order)
    k = len(order)
    # first[a]: the first system after a (in order) that differs from a.
    later = np.triu(np.asarray(significant, dtype=bool), 1)
    first = np.where(later.any(axis=1), np.argmax(later, axis=1), k)
    groups = []
    last_end = -1
    for start in range(k):  # k steps, each O(1) amortised: not a loop over pairs or blocks
        end = start
        bound = first[start]
        while end + 1 < min(bound, k):
            end += 1
            bound = min(bound, first[end])
        if end > last_end:
            groups.append(tuple(order[start : end + 1]))
            last_end = end
    return groups
