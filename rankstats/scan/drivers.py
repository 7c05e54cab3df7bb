"""The drivers of ``rs.scan_scores``: who runs the batch loop of :mod:`rankstats.scan.reader`.

- one process (default): all files in order, one stream;
- local worker processes (``n_jobs=``): one stream per work unit (a CSV file or a Parquet row
  group), merged as on a cluster;
- a Dask cluster (``client=``): one stream per work unit on the workers;
- a ``dask.dataframe.DataFrame``: shuffled by (task, instance) so that every instance lives in one
  partition (the input need not be grouped), then one stream per partition.

A parallel work unit sets aside its first and last instance (possibly cut by the unit
boundary); the driver concatenates these edges in unit order and reduces them with the same loop
(so an instance cut between two units is merged, not refused). The parts are added by one tree
reduction (:func:`tree_reduce`), which also refuses an instance reduced in two units.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from rankstats._util.advice import escape
from rankstats._util.progress import Meter, displayed, meter
from rankstats.core.reduction import BenchmarkStatistics
from rankstats.scan.reader import (
    UNGROUPED_HINT,
    NotGroupedError,
    Spec,
    Stream,
    Unit,
    edge_stream,
    locate,
    normalise,
    scan_units,
    unit_rows,
)

T = TypeVar("T")

_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class ScanMeter:
    """The progress of a scan (:func:`rankstats._util.progress.meter`), in the best unit known.

    - every unit a Parquet row group: a bar of the rows read against the rows of the footers
      (read only when progress is shown), with an ETA;
    - else several units: a bar of the units (files, row groups) done, the rows read beside it;
    - else (one text file): a counter of the rows read and rows/s.
    """

    def __init__(self, meter: Meter, by_rows: bool, by_units: bool) -> None:
        self.meter, self.by_rows, self.by_units = meter, by_rows, by_units
        self.read = 0

    def rows(self, rows: int) -> None:
        self.read += rows
        if self.by_units:
            self.meter.note(f"{self.read:,} rows read")
        else:
            self.meter.advance(rows)

    def unit(self) -> None:
        if self.by_units:
            self.meter.advance()


@contextmanager
def scan_meter(
    units: Sequence[Unit], spec: Spec, progress: bool, label: str = "scan"
) -> Iterator[ScanMeter]:
    total = unit_rows(units, spec) if displayed(progress) else None
    by_units = total is None and len(units) > 1
    if by_units:
        shown = meter(label, total=len(units), unit="parts", enabled=progress)
    else:
        shown = meter(label, total=total, unit="rows read", enabled=progress)
    with shown as m:
        yield ScanMeter(m, total is not None, by_units)


def tree_reduce(leaves: Sequence[T], node: Callable[[T, T], T]) -> T:
    """Pairwise reduction keeping the order of ``leaves`` (depth log2 n).

    ``node(a, b)`` makes one inner node: a future on a cluster, a delayed call in a Dask graph,
    a value in this process.
    """
    leaves = list(leaves)
    while len(leaves) > 1:
        pairs = [node(a, b) for a, b in zip(leaves[::2], leaves[1::2], strict=False)]
        leaves = pairs + ([leaves[-1]] if len(leaves) % 2 else [])
    return leaves[0]


# ---------------------------------------------------------------------------- one process
def single_process_statistics(
    units: Sequence[Unit], spec: Spec, progress: bool
) -> BenchmarkStatistics:
    """Every unit in order, one stream. Row group by row group: the dataset-wide scanner reads
    several row groups ahead on its own threads (≈ 650 MB of Arrow buffers on the 131 M-score
    benchmark)."""
    with scan_meter(units, spec, progress) as shown:
        stream = scan_units(units, spec, on_rows=shown.rows, on_unit=shown.unit)
    return stream.total


# ---------------------------------------------------------------------------- split units
@dataclass(frozen=True, eq=False)
class UnitResult:
    stats: BenchmarkStatistics
    keys: np.ndarray  # sorted hashes of the instances reduced in the unit
    head: pd.DataFrame | None
    tail: pd.DataFrame | None
    rows: int


Core = tuple[BenchmarkStatistics, np.ndarray]  # statistics and the sorted instance hashes


class _RepeatedKey(Exception):
    """A (task, instance) hash reduced in two work units (named afterwards by the driver)."""


def _unit_task(unit: Unit, spec: Spec) -> UnitResult:
    stream = scan_units([unit], spec, split_edges=True)
    return UnitResult(stream.total, stream.interior_keys, stream.head, stream.tail, stream.rows)


def _unit_edges(result: UnitResult) -> tuple[pd.DataFrame | None, pd.DataFrame | None, int]:
    return result.head, result.tail, result.rows


def _unit_core(result: UnitResult) -> Core:
    return result.stats, result.keys


def _edge_core(edges: Sequence[tuple[pd.DataFrame | None, ...]], spec: Spec) -> Core:
    """The edges of all units reduced in unit order (:func:`.reader.edge_stream`)."""
    stream = edge_stream(edges, spec)
    return stream.total, stream.closed


def _merge_cores(a: Core, b: Core) -> Core:
    """One node of the tree reduction: add the statistics, refuse an instance seen on both sides."""
    common = np.intersect1d(a[1], b[1], assume_unique=True)
    if len(common):
        raise _RepeatedKey(int(common[0]))
    return a[0] + b[0], np.sort(np.concatenate([a[1], b[1]]), kind="stable")


def _first(core: Core) -> BenchmarkStatistics:
    return core[0]


def _describe(unit: Unit) -> str:
    path, group = unit
    return path if group is None else f"{path} (row group {group})"


def _not_contiguous(
    units: Sequence[Unit], hits: Sequence[list[tuple[str, object]]]
) -> NotGroupedError:
    """The error for an instance key reduced in two work units, naming it and its units
    (``hits``: the keys of each unit that have the repeated hash, :func:`locate`)."""
    where = [(units[i], key) for i, found in enumerate(hits) for key in found]
    task, instance = where[0][1] if where else ("?", "?")
    return NotGroupedError(
        escape(
            f"the rows of (task, instance) ({task!r}, {instance!r}) are not contiguous: they "
            f"occur in {', '.join(_describe(u) for u, _ in where[:3])}"
        )
        + " ({hint})",
        (task, instance),
        hint=UNGROUPED_HINT,
    )


def local_statistics(
    units: Sequence[Unit], spec: Spec, workers: int, progress: bool
) -> BenchmarkStatistics:
    """Units reduced by ``workers`` local processes, then merged here as on a cluster.

    ``concurrent.futures`` instead of Dask. Processes are started with ``spawn`` (Arrow's reader
    threads make ``fork`` unsafe) and with one BLAS / OpenMP thread each unless the caller set
    those variables: two processes with multi-threaded BLAS on two cores ran 3.4 times slower
    than one process (82 s against 24 s on the 131 M-score benchmark), with one thread each 1.9
    times faster. Ctrl-C cancels the units not yet started.
    """
    results: list[UnitResult] = []
    with (
        scan_meter(units, spec, progress, f"scan ({workers} processes)") as shown,
        process_pool(workers) as pool,
    ):
        for result in pool.map(_unit_task, units, [spec] * len(units)):
            results.append(result)
            shown.rows(result.rows)
            shown.unit()
    edges = _edge_core([(r.head, r.tail) for r in results], spec)
    try:
        return tree_reduce([edges, *map(_unit_core, results)], _merge_cores)[0]
    except _RepeatedKey as err:
        raise _not_contiguous(units, [locate(u, spec, err.args[0]) for u in units]) from None


@contextmanager
def process_pool(workers: int) -> Iterator[Any]:
    """``workers`` local processes (``concurrent.futures``, ``spawn``, one BLAS thread each
    unless the caller set the variables; see :func:`local_statistics`). The workers never
    import the caller's ``__main__`` (:func:`rankstats._util.spawn.spawn_context`): a script without
    an ``if __name__ == "__main__":`` guard runs once. An error or Ctrl-C cancels the tasks not
    yet started."""
    import os
    from concurrent.futures import ProcessPoolExecutor

    from rankstats._util.spawn import spawn_context

    context = spawn_context()
    single = {k: "1" for k in _THREAD_VARIABLES if k not in os.environ}
    os.environ.update(single)  # inherited by the spawned workers only: restored below
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            try:
                yield pool
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    finally:
        for key in single:
            os.environ.pop(key, None)


def require_distributed() -> Any:
    try:
        import distributed
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the Dask path of rs.scan_scores needs dask and distributed: "
            'pip install "rankstats[dask]"'
        ) from err
    return distributed


def cluster_statistics(
    units: Sequence[Unit], spec: Spec, client: Any, progress: bool
) -> BenchmarkStatistics:
    """Files on a cluster: one unit per CSV file / Parquet row group, edges merged on the driver,
    the parts added by a tree reduction on the cluster."""
    distributed = require_distributed()
    results = client.map(_unit_task, units, spec=spec, pure=False)
    edge_futures = client.map(_unit_edges, results, pure=False)
    cores = client.map(_unit_core, results, pure=False)
    edges: dict[int, tuple] = {}
    position = {f.key: i for i, f in enumerate(edge_futures)}
    with scan_meter(units, spec, progress, "scan (cluster)") as shown:
        done = distributed.as_completed(edge_futures, with_results=True)
        for future, (head, tail, rows) in done:
            edges[position[future.key]] = (head, tail)
            shown.rows(rows)
            shown.unit()
    del results
    # Computed on a worker from the (small) edge list, not scattered from here: the scatter RPC
    # failed in CI on Python 3.12 (a tornado write-buffer assertion) with a second client in
    # the process; a task argument travels with the ordinary submit.
    edge_part = client.submit(_edge_core, [edges[i] for i in range(len(units))], spec, pure=False)
    root = tree_reduce(
        [edge_part, *cores], lambda a, b: client.submit(_merge_cores, a, b, pure=False)
    )
    try:
        return client.submit(_first, root, pure=False).result()
    except _RepeatedKey as err:
        hits = client.gather(client.map(locate, units, spec=spec, wanted=err.args[0], pure=False))
        raise _not_contiguous(units, hits) from None


# ---------------------------------------------------------------------------- dask DataFrame
def _partition_statistics(frame: pd.DataFrame, spec: Spec) -> BenchmarkStatistics:
    """One partition of a shuffled dask DataFrame: group its instances, then the batch loop."""
    return group_statistics(normalise(frame, spec), spec)


def group_statistics(rows: pd.DataFrame, spec: Spec) -> BenchmarkStatistics:
    """Normalised rows (t, i, s, v) in any order, holding every row of their instances (a
    partition of a shuffled dask DataFrame, a spill file of ``order="any"``): group the
    instances (stable: rows keep their order inside an instance), then the batch loop, which
    refuses duplicated (system, task, instance) keys as on grouped input."""
    group = rows.groupby(["t", "i"], sort=False).ngroup().to_numpy()
    rows = rows.iloc[np.argsort(group, kind="stable")].reset_index(drop=True)
    stream = Stream(spec)
    for start in range(0, len(rows), spec.batch_rows):
        stream.feed(rows.iloc[start : start + spec.batch_rows])
    stream.finish()
    return stream.total


def frame_statistics(
    frame: Any, spec: Spec, client: Any, progress: bool = False
) -> BenchmarkStatistics:
    """A dask DataFrame: shuffle by (task, instance), one stream per partition, tree reduction.

    ``progress``: Dask's own progress bar, counting tasks, not rows (``distributed.progress`` on
    stdout on a cluster — the given or the default Client —, ``dask.diagnostics.ProgressBar`` on
    stderr with the local scheduler). It is Dask's display, not :mod:`rankstats._util.progress`, but
    follows the same rules (:func:`rankstats._util.progress.displayed`): drawn on a terminal, off a
    terminal only with ``--progress`` (:func:`~rankstats._util.progress.set_log`), never when quiet
    (``--quiet`` / ``RANKSTATS_QUIET=1``).
    """
    import dask

    progress = displayed(progress)

    c = spec.columns
    frame = frame[[c["system"], c["task"], c["instance"], c["score"]]]
    shuffled = frame.shuffle(on=[c["task"], c["instance"]])
    leaves = [dask.delayed(_partition_statistics)(p, spec) for p in shuffled.to_delayed()]
    root = tree_reduce(leaves, dask.delayed(operator.add))
    if client is None:
        # dask.compute runs on a default distributed Client when one exists: report on it.
        try:
            from distributed import default_client

            client = default_client()
        except (ImportError, ValueError):
            client = None
    if client is not None:
        future = client.compute(root)
        if progress:
            from distributed import progress as show

            show(future)
        return future.result()
    if progress:
        from dask.diagnostics import ProgressBar

        with ProgressBar(out=sys.stderr):
            return dask.compute(root)[0]
    return dask.compute(root)[0]


def is_dask_frame(data: object) -> bool:
    return type(data).__module__.startswith("dask") and hasattr(data, "map_partitions")
