r"""The interface between data and estimators: the sufficient statistics of a benchmark.

σ^μ, σ^l, σ^2l (and Copeland, Bradley–Terry, the Hoeffding intervals, which read the pairwise
counts) depend on the scores only through a few sums over rankings:

- ``pairwise``: the :class:`~rankstats.Pairwise` statistics of all rankings (``wins``,
  ``wins_observed``, ``compared``);
- ``task_borda``, ``task_seen`` ``(T, N)``: per task, the sum of the per-ranking Borda counts and
  the number of its rankings in which each system was evaluated (the first level of σ^2l);
- ``instance_sum``, ``instance_count`` ``(T, N)``: per task, the sum and the number of the scores
  of each system (σ^μ averages the task means).

Whatever holds the data — a table in memory (:class:`rankstats.core.reduction.TableStatistics`),
files read in batches or on a Dask cluster (``rs.scan_scores``), a simulated score cube
(:func:`rankstats.core.reduction.reduce_scores`) — reduces it to these statistics, and one
estimator,
:func:`rankstats.aggregation.aggregators.estimate`, turns them into each estimate.

This module holds only the two protocols, so that every layer can name them: it imports nothing
from rankstats at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from rankstats.core.pair_probabilities import Pairwise


class SufficientStatistics(Protocol):
    """What the estimators read (:func:`rankstats.aggregation.aggregators.estimate`).

    Implemented by :class:`rankstats.core.reduction.BenchmarkStatistics` (additive arrays: the
    streamed scan, the simulation cube; ``rankstats.scan.StreamStatistics``) and by
    :class:`rankstats.core.reduction.TableStatistics` (a table in memory, each statistic computed on
    first use). Not ``runtime_checkable`` on purpose: on Python 3.11 ``isinstance`` would evaluate
    every property, i.e. compute every statistic of a lazy implementation.

    Attributes
    ----------
    systems : tuple of str
        Labels of the columns of every array.
    tasks : tuple
        Labels of the rows of the per-task arrays (may be empty: rows are then numbered).
    by : str
        What the rankings of ``pairwise`` are: ``"instance"``, ``"task"``, ``"rankings"`` or
        ``"pairwise"`` (reported by :class:`rankstats.Aggregate`).
    pairwise : Pairwise
        Pairwise statistics of all rankings (σ^l, Copeland, Bradley–Terry, Hoeffding).
    task_borda, task_seen : ndarray, shape (T, N)
        Per task: Σ of the per-ranking Borda counts; rankings in which the system was evaluated.
    instance_sum, instance_count : ndarray, shape (T, N)
        Per task: Σ and number of the (oriented) scores of each system.
    """

    @property
    def systems(self) -> tuple[str, ...]: ...

    @property
    def tasks(self) -> tuple: ...

    @property
    def by(self) -> str: ...

    @property
    def pairwise(self) -> Pairwise: ...

    @property
    def task_borda(self) -> np.ndarray: ...

    @property
    def task_seen(self) -> np.ndarray: ...

    @property
    def instance_sum(self) -> np.ndarray: ...

    @property
    def instance_count(self) -> np.ndarray: ...


@runtime_checkable
class StatisticsSource(Protocol):
    """Data that computes its own sufficient statistics in one pass, e.g.
    :class:`rankstats.scan.ScannedScores`.

    ``rs.aggregate(source, method)`` and ``rs.pairwise(source)`` dispatch on this protocol: they
    call ``source.statistics()`` and hand the result to the estimators. Any object with a
    ``statistics()`` method returning :class:`SufficientStatistics` qualifies.
    """

    def statistics(self) -> SufficientStatistics: ...
