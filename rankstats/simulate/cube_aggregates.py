r"""σ^μ, σ^l and σ^2l straight from a simulated ``(N, T, K)`` score cube, without a Scores table.

The robustness experiments (:mod:`rankstats.simulate.robustness_experiments`) aggregate thousands
of simulated benchmarks; for ``mean``, ``borda`` and ``borda2`` they skip the labelled tables and
compute the same numbers as ``rs.aggregate`` from the array (Colombo et al. 2022, Sec. 3).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rankstats.aggregation.aggregators import borda2_ranks, mean_scores
from rankstats.core.pair_probabilities import ranking_borda
from rankstats.core.rankings import average_ranks, group_sum, informative
from rankstats.core.reduction import first_level

# Aggregators computed directly on the (N, T, K) score cube (same numbers as rs.aggregate).
FAST = ("mean", "borda", "borda2")


def cube_scores(cube: np.ndarray, methods: Sequence[str] = FAST) -> dict[str, np.ndarray]:
    r"""σ^μ, σ^l and σ^2l of every system from an ``(N, T, K)`` score cube (NaN = not evaluated).

    The numbers of ``rs.aggregate(scores, method)`` on the same data (tested), computed by the
    functions that :func:`rankstats.aggregation.aggregators.estimate` and
    :func:`rankstats.core.reduction.reduce_scores` are made of, without building a table, labels or
    the pairwise matrices:

    - the (task, instance) rows with fewer than two scores are set aside
      (:func:`~rankstats.core.rankings.informative`, as :class:`~rankstats.Scores` does), the others
      ranked (:func:`~rankstats.core.rankings.average_ranks`);
    - per task, the sums of the closed-form per-ranking Borda counts and the number of rankings
      evaluating each system (:func:`rankstats.core.reduction.first_level`), and the score sums
      (:func:`~rankstats.core.rankings.group_sum`);
    - ``mean`` (σ^μ): :func:`rankstats.aggregation.aggregators.mean_scores`, the mean over tasks of
      the mean score in the task;
    - ``borda`` (σ^l): the Borda counts summed over all rankings,
      :math:`\sum_l \sum_j P^{(l)}[i, j]` — :meth:`rankstats.Pairwise.borda` in the closed form of
      :func:`~rankstats.core.pair_probabilities.ranking_borda`, ``O(L N)`` instead of ``O(L N²)``;
    - ``borda2`` (σ^2l): the task rankings of
      :func:`rankstats.aggregation.aggregators.borda2_ranks`, then Borda over them (Colombo et al.
      2022, Sec. 3).

    Parameters
    ----------
    cube : ndarray, shape (N, T, K)
        Scores (higher = better) of system × task × instance.
    methods : sequence of str
        Some of ``"mean"``, ``"borda"``, ``"borda2"``.

    Returns
    -------
    dict
        Method → aggregate score of each system, shape ``(N,)`` (higher = better).
    """
    unknown = [m for m in methods if m not in FAST]
    if unknown:
        raise ValueError(f"no fast path for {unknown[0]!r}; fast methods: {FAST}")
    n_sys, n_tasks, n_inst = cube.shape
    rows = cube.transpose(1, 2, 0).reshape(n_tasks * n_inst, n_sys)
    task = np.repeat(np.arange(n_tasks), n_inst)
    keep = informative(rows)
    rows, task = rows[keep], task[keep]
    task_borda, task_seen = first_level(average_ranks(rows), task, n_tasks)
    out: dict[str, np.ndarray] = {}
    if "mean" in methods:
        score_sum = group_sum(task, np.where(np.isnan(rows), 0.0, rows), n_tasks)
        out["mean"] = mean_scores(score_sum, task_seen)
    if "borda" in methods:
        out["borda"] = task_borda.sum(axis=0)
    if "borda2" in methods:
        out["borda2"] = ranking_borda(borda2_ranks(task_borda, task_seen)[0]).sum(axis=0)
    return {method: out[method] for method in methods}


def cube_aggregate(cube: np.ndarray, method: str) -> np.ndarray:
    """Aggregate score of each system from an ``(N, T, K)`` cube: one method of
    :func:`cube_scores`."""
    return cube_scores(cube, (method,))[method]
