"""Rows in any order on one machine (``order="any"``): a hash partition by (task, instance).

Two passes, the heavy lifting done by Arrow:

1. **Partition.** The record batches of :func:`.reader.batches` are normalised by
   :func:`.reader.normalise_batch` (the one place that parses directions, missing values and
   keys); each row gets a partition number from the 64-bit hash of its (task code, instance key)
   (:func:`.reader.hash_keys`), and the rows of every partition are appended to their own Arrow
   IPC file: task code and system code (16 or 32 bits), the instance key as read, the oriented
   score (float64). Every row of an instance lands in the same file.
2. **Reduce.** Each file is read back whole and reduced by
   :func:`.drivers.group_statistics` — the reduction of a partition of a shuffled dask
   DataFrame: group the instances, then the batch loop of the grouped path, which also refuses
   duplicated (system, task, instance) keys with the same message. The statistics are added.

The number of partitions is the number of rows (Parquet footers; text files are counted by the
vocabulary pass of ``scan_scores``) over ``batch_rows``, so a partition holds about one batch:
memory is about that of the grouped path (plus one open file per partition, at most
:data:`MAX_PARTITIONS`). The files live in a :func:`tempfile.TemporaryDirectory` (``TMPDIR``),
removed at the end, also on an error or Ctrl-C; they take about 12 bytes per row plus the
instance key (checked against the free space before writing).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np

from rankstats._util.advice import AdviceResourceError, escape
from rankstats._util.progress import meter
from rankstats.core.reduction import BenchmarkStatistics
from rankstats.scan.drivers import group_statistics, process_pool, scan_meter
from rankstats.scan.reader import Spec, Unit, batches, hash_keys, normalise_batch

#: Upper bound on the number of spill files (open at once while partitioning; < 2**16).
MAX_PARTITIONS = 512
#: Bytes per row of a spill file besides the instance key (codes, score, Arrow overhead).
_ROW_BYTES = 20
SPILL_PREFIX = "rankstats-spill-"


def partition_count(rows: int, batch_rows: int) -> int:
    """Partitions of about ``batch_rows`` rows each (1 to :data:`MAX_PARTITIONS`)."""
    return int(min(MAX_PARTITIONS, max(1, -(-rows // max(batch_rows, 1)))))


def _code_type(size: int) -> Any:
    import pyarrow as pa

    return pa.int16() if size < 2**15 else pa.int32()


def _check_space(directory: str, rows: int) -> None:
    free = shutil.disk_usage(directory).free
    need = rows * (_ROW_BYTES + 8)
    if need > free:
        raise AdviceResourceError(
            "{any} spills the rows to disk by (task, instance): about "
            + escape(
                f"{need / 2**30:.1f} GiB for {rows:,} rows, but {directory} has "
                f"{free / 2**30:.1f} GiB free; set TMPDIR to a larger disk, or sort the input by "
            )
            + "task and instance ({grouped} reads it without spilling)",
            any=("order", "any"),
            grouped=("order", "grouped"),
        )


def spill(
    units: Sequence[Unit],
    spec: Spec,
    directory: Path,
    parts: int,
    on_rows: Callable[[int], None] | None = None,
    on_unit: Callable[[], None] | None = None,
) -> list[Path]:
    """Pass 1: the normalised rows of ``units`` appended to ``parts`` Arrow IPC files by the
    hash of their (task, instance); returns the files that received rows."""
    import pyarrow as pa

    paths = [directory / f"part-{p:04d}.arrow" for p in range(parts)]
    writers: list[Any] = [None] * parts
    schema = None
    with ExitStack() as stack:
        for unit in units:
            for batch in batches([unit], spec):
                rows = normalise_batch(batch, spec)
                if on_rows is not None:
                    on_rows(batch.num_rows)
                # A missing score counts nowhere (as in the grouped path): not spilled.
                rows = rows[~np.isnan(rows["v"].to_numpy())]
                if not len(rows):
                    continue
                task = rows["t"].to_numpy()
                # 16-bit partition numbers: NumPy's stable sort of them is a radix sort.
                part = (hash_keys(task, rows["i"]) % np.uint64(parts)).astype(np.uint16)
                order = np.argsort(part, kind="stable")
                bounds = np.r_[0, np.cumsum(np.bincount(part, minlength=parts))]
                instance = pa.Array.from_pandas(rows["i"].iloc[order])
                if pa.types.is_dictionary(instance.type):
                    instance = instance.dictionary_decode()
                table = pa.table(
                    {
                        "t": pa.array(task[order], _code_type(len(spec.tasks))),
                        "i": instance,
                        "s": pa.array(rows["s"].to_numpy()[order], _code_type(len(spec.systems))),
                        "v": pa.array(rows["v"].to_numpy()[order], pa.float64()),
                    }
                )
                if schema is None:
                    schema = table.schema
                elif table.schema != schema:  # e.g. int64 instance keys after int32 ones
                    table = table.cast(schema)
                for p in np.flatnonzero(np.diff(bounds)):
                    if writers[p] is None:
                        writers[p] = stack.enter_context(pa.ipc.new_file(str(paths[p]), schema))
                    writers[p].write_table(table.slice(bounds[p], bounds[p + 1] - bounds[p]))
            if on_unit is not None:
                on_unit()
    return [path for path, writer in zip(paths, writers, strict=True) if writer is not None]


def reduce_spilled(path: Path, spec: Spec) -> BenchmarkStatistics:
    """Pass 2 for one spill file: read it whole, group its instances, reduce them."""
    import pyarrow as pa

    with pa.memory_map(str(path)) as source:
        rows = pa.ipc.open_file(source).read_all().to_pandas()
    rows["t"] = rows["t"].astype(np.int64)
    rows["s"] = rows["s"].astype(np.int64)
    return group_statistics(rows, spec)


def partition_statistics(
    units: Sequence[Unit],
    spec: Spec,
    rows: int,
    progress: bool = False,
    workers: int = 1,
) -> BenchmarkStatistics:
    """Statistics of rows in any order: :func:`spill` into about ``rows / batch_rows``
    partitions, then :func:`reduce_spilled` each (in ``workers`` local processes when more
    than one), and add. ``rows``: the number of rows of the units (an estimate is enough)."""
    parts = partition_count(rows, spec.batch_rows)
    total = BenchmarkStatistics.empty(spec.systems, len(spec.tasks), spec.tasks)
    with tempfile.TemporaryDirectory(prefix=SPILL_PREFIX) as directory:
        _check_space(directory, rows)
        with scan_meter(units, spec, progress, f"partition (1/2, {parts} parts)") as shown:
            files = spill(units, spec, Path(directory), parts, shown.rows, shown.unit)
        with meter("reduce (2/2)", total=len(files), unit="parts", enabled=progress) as shown:
            if workers > 1 and len(files) > 1:
                with process_pool(workers) as pool:
                    for stats in pool.map(reduce_spilled, files, [spec] * len(files)):
                        total = total + stats
                        shown.advance()
            else:
                for path in files:
                    total = total + reduce_spilled(path, spec)
                    shown.advance()
    return total
