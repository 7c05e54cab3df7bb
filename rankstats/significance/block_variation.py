"""The one decision on blocks without variation, shared by every rank test on blocks.

A block (a task, an instance, a ranking) in which every evaluated system has the same score
carries no information about which system is better. When *no* block has two systems that
differ, Friedman's statistic is 0/0, the post-hoc variances vanish and the imputed-rank
covariance is zero: instead of NaN read as a decision, :func:`require_variation` raises
:class:`NoVariationError`. It sits below :mod:`rankstats.significance.blocks` and
:mod:`rankstats.significance.imputed_ranks`, which both ask it."""

from __future__ import annotations

import numpy as np


class NoVariationError(ValueError):
    """Every block ranks all its systems as one tie: no rank test has anything to test."""


def require_variation(matrix: np.ndarray, by: str = "block") -> None:
    """The one decision on blocks without variation, for every test of rankstats on blocks
    (Friedman, the post-hoc tests, the imputed-rank test, the rank sets, the automatic choice,
    the command line): when no block of ``matrix`` (blocks × systems ranks or scores; NaN = not
    evaluated) has two evaluated systems that differ, there is nothing to test, and
    :class:`NoVariationError` says so (rather than χ² = NaN, a division by zero, or a p-value of
    NaN read as a decision).  Blocks that are one tie among others are fine: they carry no
    information and the tests account for them (Friedman's tie correction, the permutation
    covariance of the imputed ranks)."""
    matrix = np.asarray(matrix, dtype=np.float64)
    if not matrix.size:
        return
    with np.errstate(invalid="ignore"):
        spread = np.nanmax(matrix, axis=1) - np.nanmin(matrix, axis=1)
    scale = max(1.0, float(np.nanmax(np.abs(matrix))))
    if not np.any(spread > 1e-12 * scale):
        n, k = matrix.shape
        word = "blocks" if by in ("block", "ranking") else f"{by} blocks"
        raise NoVariationError(
            f"every one of the {n} {word} gives all of its evaluated systems (of {k}) the same "
            "score: there is no difference to test (the rank tests, post-hoc tests, rank sets "
            "and the automatic choice all need a block where two systems differ)"
        )
