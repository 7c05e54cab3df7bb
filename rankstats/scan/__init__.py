r"""Streaming aggregation of score files larger than memory: ``rs.scan_scores``.

Every statistic that σ^μ, σ^l, σ^2l and the Hoeffding intervals need is a sum over rankings
(:mod:`rankstats.core.sufficient`), so a benchmark can be read in chunks, each chunk reduced to
small arrays (:func:`rankstats.core.reduction.reduce_scores`), and the arrays added:

- ``Pairwise`` (``wins``, ``wins_observed``, ``compared``) over all (task, instance) rankings;
- per task: the sum of the per-ranking Borda counts and the number of rankings in which each
  system was evaluated (the first level of σ^2l);
- per (task, system): the sum and the number of the scores of each instance, averaged per task
  for σ^μ (mean of the task means, as :func:`rankstats.aggregate`).

The estimates are computed from these statistics by the code of the in-memory path
(:func:`rankstats.aggregation.aggregators.estimate`).

Files are read with ``pyarrow.dataset`` in record batches. When the rows of one (task, instance)
are contiguous in the input (as written by ``rankstats simulate`` or any table sorted by task and
instance), one pass suffices: the last, possibly incomplete instance of a batch is carried over to
the next one, so an instance cut by a batch boundary still counts as one ranking, and an instance
that reappears after other instances is noticed (8 bytes per instance: a 64-bit hash of every
(task, instance) key already closed). Rows in any other order (``order="any"``, or
``order="auto"`` once a reappearing instance is met) are hash-partitioned by (task, instance)
into Arrow files on disk, and each partition is reduced whole (:mod:`~rankstats.scan.partition`).
Memory is bounded by the batch size either way.

Modules: :mod:`~rankstats.scan.reader` (record batches, normalisation, the batch loop and the
edges of work units), :mod:`~rankstats.scan.drivers` (one process, local processes, a Dask
cluster, a dask DataFrame; one tree reduction), :mod:`~rankstats.scan.partition` (rows in any
order: the hash partition on disk), :mod:`~rankstats.scan.scanned`
(:func:`scan_scores`, :class:`ScannedScores`).
"""

from rankstats.aggregation.aggregators import STREAMED_METHODS
from rankstats.core.reduction import BenchmarkStatistics as StreamStatistics
from rankstats.scan.scanned import ScannedScores, scan_scores

__all__ = ["STREAMED_METHODS", "ScannedScores", "StreamStatistics", "scan_scores"]
