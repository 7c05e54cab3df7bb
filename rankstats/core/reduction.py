"""Scores reduced to their sufficient statistics (:mod:`rankstats.core.sufficient`).

Two implementations of :class:`~rankstats.core.sufficient.SufficientStatistics`:

- :class:`BenchmarkStatistics`: additive arrays (``a + b`` merges two parts of a benchmark),
  built block by block by :func:`reduce_scores` — the batches of the streamed scan
  (``rankstats.scan.StreamStatistics`` is this class), the work units of a cluster, the score
  cube of a simulation;
- :class:`TableStatistics`: a table in memory, each statistic computed on first use and once
  (``rs.aggregate(scores, "mean")`` never ranks anything; σ^2l never builds pairwise statistics
  of the instance rankings).

Both feed the same estimators, :func:`rankstats.aggregation.aggregators.estimate`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from rankstats._util.renamed import renamed_parameters
from rankstats.core.pair_probabilities import Pairwise, pairwise, ranking_borda
from rankstats.core.rankings import (
    Rankings,
    as_rankings,
    average_ranks,
    default_level,
    group_sum,
    informative,
)
from rankstats.core.scores import Scores


@renamed_parameters(level="by")
@dataclass(frozen=True, eq=False, repr=False)
class BenchmarkStatistics:
    """Additive sufficient statistics of a benchmark (``a + b`` merges two parts).

    Attributes
    ----------
    pairwise : Pairwise
        Over all (task, instance) rankings.
    task_borda : ndarray, shape (T, N)
        Σ over the task's rankings of the per-ranking Borda count.
    task_seen : ndarray, shape (T, N)
        Rankings of the task in which the system was evaluated.
    instance_sum : ndarray, shape (T, N)
        Σ of the (oriented) scores.
    instance_count : ndarray, shape (T, N)
        Number of scores.
    tasks : tuple of str
        Labels of the rows (empty: numbered).
    by : str
        What the rankings are (``"instance"``: one per (task, instance)).
    """

    pairwise: Pairwise
    task_borda: np.ndarray
    task_seen: np.ndarray
    instance_sum: np.ndarray
    instance_count: np.ndarray
    tasks: tuple[str, ...] = ()
    by: str = "instance"

    @property
    def systems(self) -> tuple[str, ...]:
        return self.pairwise.systems

    def __add__(self, other: BenchmarkStatistics) -> BenchmarkStatistics:
        if not isinstance(other, BenchmarkStatistics):
            return NotImplemented
        return BenchmarkStatistics(
            self.pairwise + other.pairwise,
            self.task_borda + other.task_borda,
            self.task_seen + other.task_seen,
            self.instance_sum + other.instance_sum,
            self.instance_count + other.instance_count,
            self.tasks or other.tasks,
            self.by,
        )

    @classmethod
    def empty(
        cls, systems: tuple[str, ...], n_tasks: int, tasks: tuple[str, ...] = ()
    ) -> BenchmarkStatistics:
        """Statistics of zero rankings (the neutral element of ``+``)."""
        zero = np.zeros((n_tasks, len(systems)))
        return cls(Pairwise.empty(systems), zero, zero.copy(), zero.copy(), zero.copy(), tasks)

    def __repr__(self) -> str:
        return (
            f"BenchmarkStatistics({len(self.systems)} systems × {len(self.task_borda)} tasks, "
            f"{self.pairwise.n_rankings} rankings, {self.instance_count.sum():.0f} scores)"
        )


def reduce_scores(
    scores: np.ndarray,
    task: np.ndarray,
    n_tasks: int,
    systems: tuple[str, ...],
    tasks: tuple[str, ...] = (),
) -> BenchmarkStatistics:
    """Sufficient statistics of complete (task, instance) score rows.

    The one reduction behind the streamed scan (each batch), the cluster (each work unit) and the
    simulation cube. Rows with fewer than two scores are set aside, as by
    :class:`~rankstats.Scores` (:func:`rankstats.core.rankings.informative`).

    Parameters
    ----------
    scores : ndarray, shape (L, N)
        One row per (task, instance): the scores of the systems, higher = better, NaN = not
        evaluated.
    task : ndarray of int, shape (L,)
        Task code of each row, in ``range(n_tasks)``.
    n_tasks : int
        Number of tasks (rows of the per-task arrays).
    systems : tuple of str
        Labels of the columns.
    tasks : tuple of str, optional
        Labels of the tasks.

    Returns
    -------
    BenchmarkStatistics

    Examples
    --------
    >>> import numpy as np
    >>> from rankstats.core.reduction import reduce_scores
    >>> st = reduce_scores(np.array([[3.0, 1.0, np.nan], [0.5, 2.0, 1.0]]), np.array([0, 0]), 1,
    ...                    ("a", "b", "c"))
    >>> st.pairwise.n_rankings, st.task_seen.tolist()
    (2, [[2.0, 2.0, 1.0]])
    """
    keep = informative(scores)
    scores, task = scores[keep], task[keep]
    ranks = average_ranks(scores)
    task_borda, task_seen = first_level(ranks, task, n_tasks)
    values = np.where(np.isnan(scores), 0.0, scores)
    return BenchmarkStatistics(
        Pairwise.from_ranks(ranks, systems),
        task_borda,
        task_seen,
        group_sum(task, values, n_tasks),
        task_seen.copy(),  # the scores kept are the systems evaluated
        tuple(tasks),
    )


def first_level(ranks: np.ndarray, groups: np.ndarray, n_groups: int) -> tuple[np.ndarray, ...]:
    """Per group (task) of rankings: Σ of the per-ranking Borda counts and the number of rankings
    in which each system was evaluated, both shape ``(n_groups, N)`` (the first level of σ^2l).
    """
    seen = (~np.isnan(ranks)).astype(np.float64)
    return group_sum(groups, ranking_borda(ranks), n_groups), group_sum(groups, seen, n_groups)


class TableStatistics:
    """The sufficient statistics of a table in memory, each computed on first use and once.

    Parameters
    ----------
    data : Scores, Rankings or Pairwise
        Scores provide every statistic; Rankings all but the score sums (σ^μ); Pairwise only
        ``pairwise``.
    by : {"task", "instance"}, optional
        For Scores: the rankings of ``pairwise`` (default
        :func:`rankstats.core.rankings.default_level`). The first level of σ^2l uses the same
        rankings: at ``"task"`` each task is its own group.
    """

    def __init__(self, data: Scores | Rankings | Pairwise, by: str | None = None) -> None:
        if isinstance(data, Scores):
            self.by = default_level(data, by)
        elif isinstance(data, Rankings):
            self.by = "rankings"
        elif isinstance(data, Pairwise):
            self.by = "pairwise"
        else:
            raise TypeError(f"expected Scores, Rankings or Pairwise, not {type(data).__name__}")
        self.data = data
        self.systems: tuple[str, ...] = tuple(data.systems)

    @cached_property
    def rankings(self) -> Rankings:
        """The rankings (built once from Scores; Pairwise input has none: TypeError)."""
        # ``level`` names the rankings of a score table; Rankings are ranked already.
        return as_rankings(self.data, self.by if isinstance(self.data, Scores) else None)

    @cached_property
    def pairwise(self) -> Pairwise:
        return self.data if isinstance(self.data, Pairwise) else pairwise(self.rankings)

    @property
    def tasks(self) -> tuple:
        rk = self.rankings
        return tuple(rk.group_names) if rk.groups is not None else tuple(rk.rankers)

    @cached_property
    def _first_level(self) -> tuple[np.ndarray, ...]:
        rk = self.rankings
        if rk.groups is None:  # every ranking is its own group
            return first_level(rk.ranks, np.arange(rk.n_rankings), rk.n_rankings)
        return first_level(rk.ranks, rk.groups, len(rk.group_names))

    @property
    def task_borda(self) -> np.ndarray:
        return self._first_level[0]

    @property
    def task_seen(self) -> np.ndarray:
        return self._first_level[1]

    @cached_property
    def _score_sums(self) -> tuple[np.ndarray, np.ndarray]:
        if not isinstance(self.data, Scores):
            raise TypeError("σ^μ (method 'mean') needs Scores (the raw score table), not rankings")
        data, n = self.data.data, len(self.systems)
        cell = data["task"].cat.codes.to_numpy(np.int64) * n + data["system"].cat.codes.to_numpy(
            np.int64
        )
        score = data["score"].to_numpy(np.float64)
        shape = (len(self.data.tasks), n)
        counts = np.bincount(cell, minlength=shape[0] * n).reshape(shape).astype(np.float64)
        return np.bincount(cell, weights=score, minlength=shape[0] * n).reshape(shape), counts

    @property
    def instance_sum(self) -> np.ndarray:
        return self._score_sums[0]

    @property
    def instance_count(self) -> np.ndarray:
        return self._score_sums[1]

    def __repr__(self) -> str:
        return f"TableStatistics({type(self.data).__name__}, by={self.by!r})"
