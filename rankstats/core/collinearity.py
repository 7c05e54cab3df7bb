r"""Are the columns of a covariate matrix linearly independent?  Decided on a scale-free copy.

The numerical rank of :math:`X` (``numpy.linalg.matrix_rank``: singular values above
:math:`\max(n, k)\,\varepsilon\,\sigma_1`) depends on the columns' units: a column of FLOP counts
(~1e18) next to a 0/1 column makes the small column's singular value fall below the tolerance,
and independent covariates are called dependent.  Rank is invariant under rescaling the
columns, so the decision is made on the column-equilibrated matrix :math:`X D^{-1}`, each column
divided by its root mean square (van der Sluis 1969: column equilibration nearly minimises the
condition number of such a scaling; Golub & Van Loan 2013, §3.5.2), with numpy's relative
tolerance.  The columns involved in a dependence are those with weight in the null space of
:math:`X D^{-1}` (its right singular vectors of the zero singular values): they are named.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: A column takes part in a dependence when its weight in a null vector exceeds this (the null
#: vectors have norm 1).
_INVOLVED = 1e-6


def equilibrated(x: np.ndarray) -> np.ndarray:
    """``x`` with each column divided by its root mean square (an all-zero column kept)."""
    x = np.asarray(x, dtype=np.float64)
    scale = np.sqrt(np.mean(x * x, axis=0)) if len(x) else np.ones(x.shape[1])
    return x / np.where(scale > 0, scale, 1.0)


def collinear_columns(x: np.ndarray, names: Sequence[str]) -> list[str]:
    """The names of the columns of ``x`` (rows: observations) that are linearly dependent,
    decided on the column-equilibrated matrix; ``[]`` when the columns are independent.

    >>> x = np.column_stack([[1e18, 2e18, 3e18, 5e18], [0.0, 1, 0, 1], [2e18, 4e18, 6e18, 1e19]])
    >>> collinear_columns(x[:, :2], ["flops", "open"])
    []
    >>> collinear_columns(x, ["flops", "open", "flops2"])
    ['flops', 'flops2']
    """
    z = equilibrated(x)
    k = z.shape[1]
    if k == 0:
        return []
    if len(z) < k:  # fewer observations than columns: every column is involved
        return list(names)
    _, sv, vt = np.linalg.svd(z, full_matrices=False)
    tol = sv.max(initial=0.0) * max(z.shape) * np.finfo(np.float64).eps
    null = vt[sv <= tol]
    if not len(null):
        return []
    involved = (np.abs(null) > _INVOLVED).any(axis=0)
    return [name for name, hit in zip(names, involved, strict=True) if hit]
