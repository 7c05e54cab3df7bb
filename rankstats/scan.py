r"""Streaming aggregation of score files larger than memory: ``rs.scan_scores``.

Every statistic that σ^μ, σ^l, σ^2l and the Hoeffding intervals need is a sum over rankings, so a
benchmark can be read in chunks, each chunk reduced to small arrays, and the arrays added:

- ``Pairwise`` (``wins``, ``wins_observed``, ``compared``) over all (task, instance) rankings;
- per task: the sum of the per-ranking Borda counts and the number of rankings in which each
  system was evaluated (the first level of σ^2l);
- per (task, system): the sum and the number of the scores of each instance... averaged per task
  for σ^μ (mean of the task means, as :func:`rankstats.aggregate`).

Files are read with ``pyarrow.dataset`` in record batches. The rows of one (task, instance) must be
contiguous in the input (as written by ``rankstats simulate`` or any table sorted by task and
instance): the last, possibly incomplete instance of a batch is carried over to the next one, so an
instance cut by a batch boundary still counts as one ranking. An instance that reappears after
other instances raises an error instead of being counted twice. Memory is bounded by the batch
size, plus 8 bytes per instance (a 64-bit hash of every (task, instance) key already closed, which
is what detects a reappearing instance).

The same batch loop (:class:`_Stream`) serves four drivers:

- one process (default): all files in order, one stream;
- local worker processes (``workers=``): one stream per work unit, merged as on a cluster;
- a Dask cluster (``client=``): one stream per work unit (a CSV file or a Parquet row group) on
  the workers; each unit sets aside its first and last instance (possibly cut by the unit
  boundary), the driver concatenates these edges in unit order and reduces them with the same
  loop (so an instance cut between two units is merged, not refused), and the statistics are
  added by a tree reduction on the cluster;
- a ``dask.dataframe.DataFrame``: shuffled by (task, instance) so that every instance lives in one
  partition (the input need not be grouped), then one stream per partition and a tree reduction.
"""

from __future__ import annotations

import operator
import sys
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rankstats import _read
from rankstats.aggregate import Aggregate, group_sum, ranking_borda, snap_ties
from rankstats.errors import DataWarning, InvalidScoresError, UnreadableFileError, preview
from rankstats.pairwise import Pairwise, _block_statistics
from rankstats.rankings import Rankings, average_ranks
from rankstats.scores import Direction, parse_directions

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # odd 64-bit constant that spreads the task code


@dataclass(frozen=True, eq=False, repr=False)
class StreamStatistics:
    """Additive sufficient statistics of a benchmark (``a + b`` merges two parts)."""

    pairwise: Pairwise
    task_borda: np.ndarray  # (T, N) Σ over the task's rankings of the per-ranking Borda count
    task_seen: np.ndarray  # (T, N) rankings of the task in which the system was evaluated
    instance_sum: np.ndarray  # (T, N) Σ of the scores
    instance_count: np.ndarray  # (T, N) number of scores

    def __add__(self, other: StreamStatistics) -> StreamStatistics:
        return StreamStatistics(
            self.pairwise + other.pairwise,
            self.task_borda + other.task_borda,
            self.task_seen + other.task_seen,
            self.instance_sum + other.instance_sum,
            self.instance_count + other.instance_count,
        )

    @classmethod
    def empty(cls, systems: tuple[str, ...], n_tasks: int) -> StreamStatistics:
        """Statistics of zero rankings (the neutral element of ``+``)."""
        zero = np.zeros((n_tasks, len(systems)))
        return cls(Pairwise.empty(systems), zero, zero.copy(), zero.copy(), zero.copy())


def _reduce(
    task: np.ndarray,
    key: np.ndarray,
    system: np.ndarray,
    score: np.ndarray,
    n_tasks: int,
    systems: tuple[str, ...],
    tasks: tuple[str, ...] = (),
    instance: np.ndarray | None = None,
) -> StreamStatistics:
    """Statistics of complete instances: rows sorted so that each (task, instance) is contiguous."""
    n = len(systems)
    change = np.r_[True, key[1:] != key[:-1]]
    starts = np.flatnonzero(change)
    row = np.cumsum(change) - 1
    matrix = np.full((len(starts), n), np.nan)
    matrix[row, system] = score
    # The scores are not NaN, so a duplicated (instance, system) key leaves fewer cells filled.
    if np.count_nonzero(~np.isnan(matrix)) != len(score):
        first = np.flatnonzero(pd.Series(row * n + system).duplicated().to_numpy())[0]
        where = f"system {systems[system[first]]!r}"
        if tasks and instance is not None:
            where += f", task {tasks[task[first]]!r}, instance {_plain(instance[first])!r}"
        raise InvalidScoresError(f"duplicated (system, task, instance) keys in the input: {where}")
    instance_task = task[starts]
    counts = (~np.isnan(matrix)).sum(axis=1)
    keep = counts >= 2  # as Scores: rankings of fewer than two systems are set aside
    matrix, instance_task = matrix[keep], instance_task[keep]
    ranks = average_ranks(matrix)
    stats = _block_statistics(ranks)
    pw = Pairwise(*stats[:3], len(ranks), systems, stats[3])
    borda = ranking_borda(ranks) if len(ranks) else np.zeros((0, n))
    seen = (~np.isnan(ranks)).astype(np.float64)
    values = np.where(np.isnan(matrix), 0.0, matrix)
    return StreamStatistics(
        pw,
        group_sum(instance_task, borda, n_tasks),
        group_sum(instance_task, seen, n_tasks),
        group_sum(instance_task, values, n_tasks),
        group_sum(instance_task, seen, n_tasks),
    )


# ---------------------------------------------------------------------------- the batch loop
@dataclass(frozen=True, eq=False, repr=False)
class _Spec:
    """What a worker needs to reduce rows: column names, vocabularies, directions, schema."""

    columns: dict
    systems: tuple[str, ...]
    tasks: tuple[str, ...]
    sign: np.ndarray  # (T,) +1 / −1: the orientation of each task
    batch_rows: int
    format: str = "parquet"
    schema: Any = None  # pyarrow.Schema shared by the Parquet files
    sources: dict = field(default_factory=dict)  # path -> _read.Source (how to parse it)
    na_values: tuple[str, ...] | None = None  # score words read as missing (as read_scores)
    instance_text: bool = False  # instance keys as text (text and non-text files are mixed)

    @property
    def read_columns(self) -> list[str]:
        c = self.columns
        return [c["system"], c["task"], c["instance"], c["score"]]


def _normalise(frame: pd.DataFrame, spec: _Spec) -> pd.DataFrame:
    """Validated rows with integer task / system codes and oriented scores (t, i, s, v)."""
    c = spec.columns
    raw = frame[c["score"]]
    score = pd.to_numeric(raw, errors="coerce").to_numpy(np.float64)
    bad = (np.isnan(score) & raw.notna().to_numpy()) | np.isinf(score)
    if bad.any():
        where = np.flatnonzero(bad)[0]
        raise InvalidScoresError(
            f"non-numeric or infinite score {raw.iloc[where]!r} for system "
            f"{frame[c['system']].iloc[where]!r}, task {frame[c['task']].iloc[where]!r}, "
            f"instance {_plain(frame[c['instance']].iloc[where])!r}"
        )
    task = pd.Categorical(frame[c["task"]].astype(str), categories=spec.tasks).codes
    system = pd.Categorical(frame[c["system"]].astype(str), categories=spec.systems).codes
    instance = frame[c["instance"]].reset_index(drop=True)
    if (task < 0).any() or (system < 0).any() or instance.isna().any():
        where = np.flatnonzero((task < 0) | (system < 0) | instance.isna().to_numpy())[0]
        raise InvalidScoresError(
            f"missing or unknown system / task / instance in row (system "
            f"{frame[c['system']].iloc[where]!r}, task {frame[c['task']].iloc[where]!r}, "
            f"instance {_plain(instance.iloc[where])!r})"
        )
    task = task.astype(np.int64)
    return pd.DataFrame(
        {"t": task, "i": instance, "s": system.astype(np.int64), "v": score * spec.sign[task]}
    )


def _arrow_codes(column: Any, vocabulary: tuple[str, ...]) -> np.ndarray | None:
    """Codes of a string (or dictionary-of-string) Arrow column in ``vocabulary``; −1 = unknown
    or null. ``None`` when the column is not made of strings (the pandas path handles it)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(column.type):
        # Map the (small) dictionary once, then gather by the indices: no per-row string work.
        lookup = _arrow_codes(column.dictionary, vocabulary)
        if lookup is None:
            return None
        indices = column.indices.fill_null(0).to_numpy(zero_copy_only=False)
        codes = np.append(lookup, -1)[np.where(column.is_null().to_numpy(False), -1, indices)]
        return codes.astype(np.int64)
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        return None
    found = pc.index_in(column, value_set=pa.array(vocabulary, column.type))
    return found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def _unique_names(column: Any) -> list[str]:
    """Distinct values of an Arrow column as strings, in order of first appearance (as
    ``pd.unique(series.astype(str))``; strings and dictionaries are handled in Arrow)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = _read.keys_as_text(column)
    kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        unique = pc.unique(column.drop_null())
        if pa.types.is_dictionary(unique.type):
            unique = unique.dictionary.take(unique.indices)
        return [str(v) for v in unique.to_pylist()]
    series = column.to_pandas()
    return [str(v) for v in pd.unique(series.astype(str))]


def _batch_scores(column: Any, spec: _Spec) -> np.ndarray:
    """Float scores of a batch: numbers as they are (infinities are refused by the caller,
    naming the row); text through the parser of :func:`rankstats.read_scores`."""
    import pyarrow as pa

    if pa.types.is_floating(column.type) or pa.types.is_integer(column.type):
        return column.cast(pa.float64()).to_numpy(zero_copy_only=False)
    try:
        return _read.scores_as_float(column, spec.na_values)[0]
    except _read.BadCells as bad:  # refused with file lines by the scan_scores pass already
        message = _read.cells_message(
            bad, spec.columns["score"], lambda rows: [f"batch row {r + 1}" for r in rows]
        )
        raise InvalidScoresError(message) from None


def _normalise_batch(batch: Any, spec: _Spec) -> pd.DataFrame:
    """:func:`_normalise` on an Arrow record batch, without converting strings row by row.

    Keys are text, as in :func:`rankstats.read_scores` (:func:`rankstats._read.keys_as_text`:
    strings unchanged, other types cast by Arrow); system and task names are matched to the
    vocabularies in Arrow (``index_in``; for dictionary-encoded columns only the dictionary is
    matched). A batch with an unknown key or an infinite score goes through the pandas path,
    which names the offending row.
    """
    c = spec.columns
    system_col = _read.keys_as_text(batch.column(c["system"]))
    task_col = _read.keys_as_text(batch.column(c["task"]))
    instance_col = batch.column(c["instance"])
    if spec.instance_text:
        instance_col = _read.keys_as_text(instance_col)
    system = _arrow_codes(system_col, spec.systems)
    task = _arrow_codes(task_col, spec.tasks)
    score = _batch_scores(batch.column(c["score"]), spec)
    instance = instance_col.to_pandas()
    bad = (system < 0) | (task < 0) | np.isinf(score) | instance.isna().to_numpy()
    if bad.any():  # the pandas path names the offending row
        frame = pd.DataFrame(
            {
                c["system"]: system_col.to_pandas(),
                c["task"]: task_col.to_pandas(),
                c["instance"]: instance,
                c["score"]: score,
            }
        )
        return _normalise(frame, spec)
    return pd.DataFrame({"t": task, "i": instance, "s": system, "v": score * spec.sign[task]})


def _plain(value: object) -> object:
    """A NumPy scalar as the Python value (for error messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _hash_keys(task: np.ndarray, instance: pd.Series) -> np.ndarray:
    """64-bit hashes of (task code, instance) keys, equal in every process (pandas' SipHash)."""
    h = pd.util.hash_pandas_object(instance.reset_index(drop=True), index=False).to_numpy()
    return pd.util.hash_array(h ^ (task.astype(np.uint64) * _GOLDEN))


class _Stream:
    """The batch loop: feed normalised rows in input order, collect additive statistics.

    The last instance of every fed frame is carried over to the next one. ``closed`` holds the
    sorted hashes of the instances already reduced: an instance that reappears is refused. With
    ``split_edges`` (a work unit of the distributed path) the first and the last instance are not
    reduced but kept as rows (``head``, ``tail``): they may continue in the neighbouring units.
    """

    def __init__(self, spec: _Spec, split_edges: bool = False) -> None:
        self.spec = spec
        self.split_edges = split_edges
        self.total = StreamStatistics.empty(spec.systems, len(spec.tasks))
        self.carry: pd.DataFrame | None = None
        self.closed = np.empty(0, dtype=np.uint64)
        self.head: pd.DataFrame | None = None
        self.head_hash: np.uint64 | None = None
        self.tail: pd.DataFrame | None = None
        self.tail_hash: np.uint64 | None = None
        self.rows = 0

    def _refuse(self, task_code: int, instance: object) -> InvalidScoresError:
        return InvalidScoresError(
            f"the rows of (task, instance) ({self.spec.tasks[task_code]!r}, {_plain(instance)!r}) "
            f"are not contiguous: {_UNGROUPED_HINT}"
        )

    def _close(self, hashes: np.ndarray, task: np.ndarray, instance: pd.Series) -> None:
        """Record newly completed instances; refuse one seen before (in this frame or earlier)."""
        order = np.argsort(hashes, kind="stable")
        ordered = hashes[order]
        repeat = np.flatnonzero(ordered[1:] == ordered[:-1])
        pos = np.searchsorted(self.closed, hashes)
        seen = np.zeros(len(hashes), dtype=bool)
        inside = pos < len(self.closed)
        seen[inside] = self.closed[pos[inside]] == hashes[inside]
        if len(repeat) or seen.any():
            at = order[repeat[0] + 1] if len(repeat) else np.flatnonzero(seen)[0]
            raise self._refuse(task[at], instance.iloc[at])
        # Two sorted runs: the stable sort (timsort) merges them in linear time.
        self.closed = np.sort(np.concatenate([self.closed, ordered]), kind="stable")

    def _reduce_rows(self, frame: pd.DataFrame, key: np.ndarray) -> None:
        score = frame["v"].to_numpy()
        valid = ~np.isnan(score)
        if not valid.any():
            return
        self.total = self.total + _reduce(
            frame["t"].to_numpy()[valid],
            key[valid],
            frame["s"].to_numpy()[valid],
            score[valid],
            len(self.spec.tasks),
            self.spec.systems,
            self.spec.tasks,
            frame["i"].to_numpy()[valid],
        )

    def feed(self, rows: pd.DataFrame) -> None:
        """Reduce every instance of ``carry + rows`` but the last (carried over)."""
        frame = rows if self.carry is None else pd.concat([self.carry, rows], ignore_index=True)
        if not len(frame):
            return
        task = frame["t"].to_numpy()
        codes, uniques = pd.factorize(frame["i"])
        key = task * (len(uniques) + 1) + codes
        change = np.r_[True, key[1:] != key[:-1]]
        starts = np.flatnonzero(change)
        last = starts[-1]
        self.carry = frame.iloc[last:].reset_index(drop=True)
        if last == 0:
            return
        done = starts[:-1]
        instances = frame["i"].iloc[done]
        hashes = _hash_keys(task[done], instances)
        self._close(hashes, task[done], instances)
        begin = 0
        if self.split_edges and self.head is None:
            begin = starts[1]
            self.head = frame.iloc[:begin].reset_index(drop=True)
            self.head_hash = hashes[0]
        if begin < last:
            self._reduce_rows(frame.iloc[begin:last], key[begin:last])

    def finish(self) -> None:
        """The last instance: reduced, or kept as the tail (head) of a work unit."""
        carry, self.carry = self.carry, None
        if carry is None or not len(carry):
            return
        task = carry["t"].to_numpy()
        h = _hash_keys(task[:1], carry["i"].iloc[:1])
        self._close(h, task[:1], carry["i"].iloc[:1])
        if not self.split_edges:
            self._reduce_rows(carry, np.zeros(len(carry), dtype=np.int64))
        elif self.head is None:
            self.head, self.head_hash = carry, h[0]
        else:
            self.tail, self.tail_hash = carry, h[0]

    @property
    def interior_keys(self) -> np.ndarray:
        """Hashes of the instances reduced here (``closed`` without the set-aside edges)."""
        edges = [h for h in (self.head_hash, self.tail_hash) if h is not None]
        return self.closed[~np.isin(self.closed, np.asarray(edges, dtype=np.uint64))]


class _Progress:
    """``\\r``-updated line on stderr: rows read and rows per second (at most 5 updates/s)."""

    def __init__(self, enabled: bool, label: str = "scan") -> None:
        self.enabled, self.label = enabled, label
        self.start = self.shown = time.perf_counter()
        self.rows = 0

    def add(self, rows: int, force: bool = False) -> None:
        self.rows += rows
        now = time.perf_counter()
        if self.enabled and (force or now - self.shown >= 0.2):
            self.shown = now
            rate = self.rows / max(now - self.start, 1e-9)
            sys.stderr.write(f"\r{self.label}: {self.rows:,} rows read, {rate:,.0f} rows/s")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            self.add(0, force=True)
            sys.stderr.write("\n")


STREAMED_METHODS = ("mean", "borda", "borda2", "bt")

_UNGROUPED_HINT = (
    "sort the input by task and instance (rankstats simulate writes it so), or scan it as a "
    "dask DataFrame, rs.scan_scores(dask.dataframe.read_parquet(...)), which shuffles the rows "
    "by (task, instance) first"
)

_READAHEAD = 1  # record batches decoded ahead of the one being reduced

Unit = tuple[str, int | None]  # (file, Parquet row group or None for the whole file)


def _batches(units: Sequence[Unit], spec: _Spec) -> Iterator[Any]:
    """Record batches of the units, in order: a text file through the parser of
    :func:`rankstats.read_scores` (keys and scores read as text), a Parquet row group with
    Arrow's dataset reader."""
    import pyarrow.dataset as ds

    for path, group in units:
        source = spec.sources.get(path)
        if source is not None and source.kind == "csv":
            keys = [spec.columns[k] for k in ("system", "task", "instance")]
            yield from _read.batches(source, spec.read_columns, spec.batch_rows, keys)
            continue
        dataset = ds.dataset(path, format="parquet", schema=spec.schema)
        fragment = next(iter(dataset.get_fragments()))
        if group is not None:
            fragment = fragment.subset(row_group_ids=[group])
        # Little read-ahead: memory stays near one batch (the defaults buffer 16 batches, over
        # 1 GB on the 131 M-score benchmark) while decoding still overlaps.
        yield from fragment.to_batches(
            columns=spec.read_columns,
            batch_size=spec.batch_rows,
            schema=dataset.schema,
            batch_readahead=_READAHEAD,
        )


def _scan_units(
    units: Sequence[Unit],
    spec: _Spec,
    split_edges: bool = False,
    progress: _Progress | None = None,
) -> _Stream:
    """Run the batch loop over ``units`` (files / row groups) in order: shared by all drivers."""
    stream = _Stream(spec, split_edges)
    for batch in _batches(units, spec):
        stream.feed(_normalise_batch(batch, spec))
        stream.rows += batch.num_rows
        if progress is not None:
            progress.add(batch.num_rows)
    stream.finish()
    return stream


# ---------------------------------------------------------------------------- Dask drivers
def _require_distributed() -> Any:
    try:
        import distributed
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the Dask path of rs.scan_scores needs dask and distributed: "
            'pip install "rankstats[dask]"'
        ) from err
    return distributed


@dataclass(frozen=True, eq=False)
class _UnitResult:
    stats: StreamStatistics
    keys: np.ndarray  # sorted hashes of the instances reduced in the unit
    head: pd.DataFrame | None
    tail: pd.DataFrame | None
    rows: int


class _RepeatedKey(Exception):
    """A (task, instance) hash reduced in two work units (named afterwards by the driver)."""


def _unit_task(unit: Unit, spec: _Spec) -> _UnitResult:
    stream = _scan_units([unit], spec, split_edges=True)
    return _UnitResult(stream.total, stream.interior_keys, stream.head, stream.tail, stream.rows)


def _unit_edges(result: _UnitResult) -> tuple[pd.DataFrame | None, pd.DataFrame | None, int]:
    return result.head, result.tail, result.rows


def _unit_core(result: _UnitResult) -> tuple[StreamStatistics, np.ndarray]:
    return result.stats, result.keys


def _merge_cores(
    a: tuple[StreamStatistics, np.ndarray], b: tuple[StreamStatistics, np.ndarray]
) -> tuple[StreamStatistics, np.ndarray]:
    """One node of the tree reduction: add the statistics, refuse an instance seen on both sides."""
    common = np.intersect1d(a[1], b[1], assume_unique=True)
    if len(common):
        raise _RepeatedKey(int(common[0]))
    return a[0] + b[0], np.sort(np.concatenate([a[1], b[1]]), kind="stable")


def _first(core: tuple[StreamStatistics, np.ndarray]) -> StreamStatistics:
    return core[0]


def _locate(unit: Unit, spec: _Spec, wanted: int) -> list[tuple[str, object]]:
    """The (task, instance) keys of a unit whose hash is ``wanted`` (error path only)."""
    found = []
    for batch in _batches([unit], spec):
        rows = _normalise_batch(batch, spec)
        hit = _hash_keys(rows["t"].to_numpy(), rows["i"]) == np.uint64(wanted)
        if hit.any():
            at = np.flatnonzero(hit)[0]
            found.append((spec.tasks[rows["t"].iloc[at]], _plain(rows["i"].iloc[at])))
    return found


def _tree_reduce(client: Any, leaves: list, combine: Any) -> Any:
    """Pairwise reduction of futures on the cluster, keeping their order (depth log2 n)."""
    while len(leaves) > 1:
        pairs = [
            client.submit(combine, a, b, pure=False)
            for a, b in zip(leaves[::2], leaves[1::2], strict=False)
        ]
        leaves = pairs + ([leaves[-1]] if len(leaves) % 2 else [])
    return leaves[0]


def _describe(unit: Unit) -> str:
    path, group = unit
    return path if group is None else f"{path} (row group {group})"


def _edge_stream(edges: Iterable[tuple[pd.DataFrame | None, ...]], spec: _Spec) -> _Stream:
    """The first / last instances set aside by the work units, reduced in unit order: an instance
    cut between units k and k + 1 is contiguous here and counts once."""
    pieces = [p for pair in edges for p in pair if p is not None]
    stream = _Stream(spec)
    if pieces:
        stream.feed(pd.concat(pieces, ignore_index=True))
    stream.finish()
    return stream


def _not_contiguous(where: list[tuple[Unit, tuple[str, object]]]) -> InvalidScoresError:
    """The error for an instance key reduced in two work units, naming it and its units."""
    task, instance = where[0][1] if where else ("?", "?")
    return InvalidScoresError(
        f"the rows of (task, instance) ({task!r}, {instance!r}) are not contiguous: they "
        f"occur in {', '.join(_describe(u) for u, _ in where[:3])} ({_UNGROUPED_HINT})"
    )


def _distributed_file_statistics(
    scanned: ScannedScores, client: Any, progress: bool
) -> StreamStatistics:
    """Files on a cluster: one unit per CSV file / Parquet row group, edges merged on the driver."""
    distributed = _require_distributed()
    spec = scanned._spec()
    units = scanned._units()
    results = client.map(_unit_task, units, spec=spec, pure=False)
    edge_futures = client.map(_unit_edges, results, pure=False)
    cores = client.map(_unit_core, results, pure=False)
    meter = _Progress(progress, "scan (cluster)")
    edges: dict[int, tuple] = {}
    position = {f.key: i for i, f in enumerate(edge_futures)}
    for future, (head, tail, rows) in distributed.as_completed(edge_futures, with_results=True):
        edges[position[future.key]] = (head, tail)
        meter.add(rows)
    meter.close()
    del results
    stream = _edge_stream((edges[i] for i in range(len(units))), spec)
    edge_part = client.scatter([(stream.total, stream.closed)])[0]  # one future, the pair
    leaves = [edge_part, *cores]
    root = _tree_reduce(client, leaves, _merge_cores)
    try:
        return client.submit(_first, root, pure=False).result()
    except _RepeatedKey as err:
        wanted = err.args[0]
        hits = client.gather(client.map(_locate, units, spec=spec, wanted=wanted, pure=False))
        where = [(units[i], key) for i, found in enumerate(hits) for key in found]
        if not where:  # pragma: no cover - cannot happen: the hash came from these units
            raise
        raise _not_contiguous(where) from None


def _merge_unit_results(
    results: list[_UnitResult], units: Sequence[Unit], spec: _Spec
) -> StreamStatistics:
    """Driver side of a split scan: edges in unit order, then a check that no instance key was
    reduced twice (input not grouped by instance), then the sum of the unit statistics."""
    stream = _edge_stream(((r.head, r.tail) for r in results), spec)
    keys = np.sort(np.concatenate([stream.closed, *(r.keys for r in results)]))
    repeated = keys[1:][keys[1:] == keys[:-1]]
    if len(repeated):
        raise _not_contiguous(
            [(unit, key) for unit in units for key in _locate(unit, spec, int(repeated[0]))]
        )
    total = stream.total
    for r in results:
        total = total + r.stats
    return total


def _local_parallel_statistics(
    scanned: ScannedScores, workers: int, progress: bool
) -> StreamStatistics:
    """Files reduced by ``workers`` local processes, one Parquet row group / CSV file at a time.

    The same split as on a cluster (:func:`_unit_task`: the first and last instance of a unit are
    returned as rows and merged here), with ``concurrent.futures`` instead of Dask. Processes are
    started with ``spawn`` (Arrow's reader threads make ``fork`` unsafe) and with one BLAS / OpenMP
    thread each unless the caller set those variables: two processes with multi-threaded BLAS on
    two cores ran 3.4 times slower than one process (82 s against 24 s on the 131 M-score
    benchmark), with one thread each 1.9 times faster. Ctrl-C cancels the units not yet started.
    """
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor

    spec = scanned._spec()
    units = scanned._units()
    meter = _Progress(progress, f"scan ({workers} processes)")
    context = multiprocessing.get_context("spawn")
    results: list[_UnitResult] = []
    single = {k: "1" for k in _THREAD_VARIABLES if k not in os.environ}
    os.environ.update(single)  # inherited by the spawned workers only: restored below
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            try:
                for result in pool.map(_unit_task, units, [spec] * len(units)):
                    results.append(result)
                    meter.add(result.rows)
            except KeyboardInterrupt:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    finally:
        for key in single:
            os.environ.pop(key, None)
    meter.close()
    return _merge_unit_results(results, units, spec)


_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _partition_statistics(frame: pd.DataFrame, spec: _Spec) -> StreamStatistics:
    """One partition of a shuffled dask DataFrame: group its instances, then the batch loop."""
    rows = _normalise(frame, spec)
    group = rows.groupby(["t", "i"], sort=False).ngroup().to_numpy()
    rows = rows.iloc[np.argsort(group, kind="stable")].reset_index(drop=True)
    stream = _Stream(spec)
    for start in range(0, len(rows), spec.batch_rows):
        stream.feed(rows.iloc[start : start + spec.batch_rows])
    stream.finish()
    return stream.total


def _frame_statistics(
    scanned: ScannedScores, client: Any, progress: bool = False
) -> StreamStatistics:
    """A dask DataFrame: shuffle by (task, instance), one stream per partition, tree reduction.

    ``progress``: Dask's own progress bar, counting tasks, not rows (``distributed.progress`` on
    stdout on a cluster — the given or the default Client —, ``dask.diagnostics.ProgressBar`` on
    stderr with the local scheduler).
    """
    import dask

    c = scanned.columns
    frame = scanned.frame[[c["system"], c["task"], c["instance"], c["score"]]]
    shuffled = frame.shuffle(on=[c["task"], c["instance"]])
    spec = scanned._spec()
    leaves = [dask.delayed(_partition_statistics)(p, spec) for p in shuffled.to_delayed()]
    while len(leaves) > 1:
        pairs = [
            dask.delayed(operator.add)(a, b)
            for a, b in zip(leaves[::2], leaves[1::2], strict=False)
        ]
        leaves = pairs + ([leaves[-1]] if len(leaves) % 2 else [])
    if client is None:
        # dask.compute runs on a default distributed Client when one exists: report on it.
        try:
            from distributed import default_client

            client = default_client()
        except (ImportError, ValueError):
            client = None
    if client is not None:
        future = client.compute(leaves[0])
        if progress:
            from distributed import progress as show

            show(future)
        return future.result()
    if progress:
        from dask.diagnostics import ProgressBar

        with ProgressBar(out=sys.stderr):
            return dask.compute(leaves[0])[0]
    return dask.compute(leaves[0])[0]


def _is_dask_frame(data: object) -> bool:
    return type(data).__module__.startswith("dask") and hasattr(data, "map_partitions")


# ---------------------------------------------------------------------------- public API
@dataclass(frozen=True, eq=False, repr=False)
class ScannedScores:
    """A score table on disk (or a dask DataFrame), read in batches (see :func:`scan_scores`)."""

    _streamed = True  # recognised by rs.aggregate and rs.pairwise

    paths: tuple[str, ...]
    columns: dict
    systems: tuple[str, ...]
    tasks: tuple[str, ...]
    higher_is_better: dict
    batch_rows: int
    format: str
    schema: Any = None
    frame: Any = None  # a dask.dataframe.DataFrame instead of files
    client: Any = None  # a dask.distributed.Client, used by rs.aggregate / rs.pairwise
    workers: int = 1  # local worker processes for file input
    sources: tuple = ()  # _read.Source of each file: its kind and how to parse it
    na_values: tuple[str, ...] | None = None
    instance_text: bool = False

    def _spec(self) -> _Spec:
        sign = np.array([1.0 if self.higher_is_better[t] else -1.0 for t in self.tasks])
        return _Spec(
            self.columns,
            self.systems,
            self.tasks,
            sign,
            self.batch_rows,
            self.format,
            self.schema,
            sources={s.path: s for s in self.sources},
            na_values=self.na_values,
            instance_text=self.instance_text,
        )

    def _units(self) -> list[Unit]:
        """Work units: each text file, each row group of each Parquet file (in file order)."""
        import pyarrow.parquet as pq

        kinds = {s.path: s.kind for s in self.sources}
        units: list[Unit] = []
        for p in self.paths:
            if kinds.get(p, self.format) == "csv":
                units.append((p, None))
            else:
                units += [(p, g) for g in range(pq.ParquetFile(p).num_row_groups)]
        return units

    def statistics(self, client: Any = None, progress: bool = False) -> StreamStatistics:
        """One pass over the data: the additive statistics of every (task, instance) ranking.

        Parameters
        ----------
        client : dask.distributed.Client, optional
            Run on this cluster (default: the client given to :func:`scan_scores`; without one,
            files are read in this process and a dask DataFrame is computed with Dask's default
            scheduler). Files must be readable at the same paths on every worker.
        progress : bool
            Write rows read and rows/s to stderr (file input), or Dask's progress bar (a dask
            DataFrame).

        Returns
        -------
        StreamStatistics
            ``pairwise`` (:class:`~rankstats.Pairwise`), and per (task, system) Borda sums,
            evaluation counts, score sums and score counts.

        Notes
        -----
        On a cluster each work unit (a CSV file or a Parquet row group) is reduced by the same
        batch loop as in one process, except that its first and last instance are returned as
        rows: they may be cut by the unit boundary. The driver concatenates these few rows in
        unit order and reduces them, so an instance cut between two units is *merged* (counted
        once), and the unit statistics are added by a tree reduction on the cluster (``+``). Each
        unit also returns the 64-bit hashes of its instance keys; the reduction refuses a key
        reduced in two units (input not grouped by instance) with an error naming the (task,
        instance) and the files.
        """
        client = client if client is not None else self.client
        if client is not None and not hasattr(client, "submit"):
            raise TypeError(f"client must be a dask.distributed.Client, not {type(client)}")
        if self.frame is not None:
            return _frame_statistics(self, client, progress)
        if client is not None:
            return _distributed_file_statistics(self, client, progress)
        if self.workers > 1 and len(self._units()) > 1:
            return _local_parallel_statistics(self, self.workers, progress)
        meter = _Progress(progress)
        # Row group by row group: the dataset-wide scanner reads several row groups ahead on
        # its own threads (≈ 650 MB of Arrow buffers on the 131 M-score benchmark).
        stream = _scan_units(self._units(), self._spec(), progress=meter)
        meter.close()
        return stream.total

    def aggregate(
        self, method: str = "borda", statistics: StreamStatistics | None = None
    ) -> Aggregate:
        """σ^μ (``mean``), σ^l (``borda``), σ^2l (``borda2``) or Bradley–Terry (``bt``) from one
        streaming pass.

        ``bt`` is the maximum-likelihood Bradley–Terry fit to the pairwise win counts of all
        (task, instance) rankings (``Pairwise.wins_observed``: full rank-breaking, a tie half a
        win each way) — the same as ``rs.aggregate(rs.pairwise(rankings), "bt")`` in memory; the
        counts are additive, so they stream. Its MLE does not exist when the comparison graph is
        not strongly connected (an error says so).
        """
        if method not in STREAMED_METHODS:
            raise ValueError(
                f"streamed aggregation supports {', '.join(STREAMED_METHODS)}; not {method!r}"
            )
        st = statistics or self.statistics()
        if method == "bt":
            from rankstats.aggregate import aggregate

            return aggregate(st.pairwise, method="bt")
        if method == "borda":
            return Aggregate(
                "borda", st.pairwise.borda(), "instance", {"n_rankings": st.pairwise.n_rankings}
            )
        if method == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                task_mean = st.instance_sum / st.instance_count
            means = pd.DataFrame(task_mean.T, index=list(self.systems)).mean(axis=1, skipna=True)
            return Aggregate("mean", means.rename("mean"), "task")
        task_scores = np.where(st.task_seen > 0, st.task_borda, np.nan)
        task_scores = task_scores[(st.task_seen > 0).sum(axis=1) >= 2]
        second = Rankings(
            average_ranks(snap_ties(task_scores)), self.systems, pd.RangeIndex(len(task_scores))
        )
        from rankstats.pairwise import pairwise

        return Aggregate("borda2", pairwise(second).borda().rename("borda2"), "instance")

    def __repr__(self) -> str:
        where = "a dask DataFrame" if self.frame is not None else f"{len(self.paths)} file(s)"
        on = ", on a Dask cluster" if self.client is not None else ""
        return (
            f"ScannedScores({where}, {len(self.systems)} systems × {len(self.tasks)} tasks, "
            f"read in batches of {self.batch_rows:,} rows{on})"
        )


def scan_scores(
    paths: str | Path | Sequence[str | Path] | Any,
    system: str = "system",
    task: str = "task",
    instance: str = "instance",
    score: str = "score",
    higher_is_better: Direction = True,
    batch_rows: int = 2_000_000,
    client: Any = None,
    workers: int = 1,
    na_values: Sequence[str] | None = None,
    sep: str | None = None,
    encoding: str = "utf-8",
) -> ScannedScores:
    """Lazy view of instance-level scores: Parquet / CSV files, or a dask DataFrame.

    A first pass reads only the system and task columns (the vocabularies); the statistics are
    computed by :meth:`ScannedScores.statistics` / :meth:`ScannedScores.aggregate`, or by
    ``rs.aggregate(scanned, method)`` and ``rs.pairwise(scanned)``. Every statistic behind σ^μ,
    σ^l, σ^2l and the Hoeffding intervals is a sum over (task, instance) rankings, so chunks are
    reduced separately and added: the result equals the in-memory one up to rounding.

    Parameters
    ----------
    paths : str, Path, list of them, or dask.dataframe.DataFrame
        A file, a directory or a list. A directory is read whole: every ``.parquet``, ``.pq``,
        ``.csv``, ``.tsv``, ``.tab``, ``.txt`` file below it (the text ones also ``.gz``,
        ``.bz2``, ``.xz``); names starting with ``.`` or ``_`` and the sidecars
        ``truth.json``, ``*.truth.json``, ``rankstats-manifest.json`` are ignored, and any other
        file is refused by name rather than skipped. A ``rankstats simulate`` output (a
        directory with ``truth.json``) must be complete: its ``rankstats-manifest.json`` (written
        last) must list exactly the data files, with the row count they hold. Files are
        parsed as by :func:`rankstats.read_scores` (keys as text, the same missing-value rules,
        content-detected compression and delimiter). The rows of one (task, instance) must be
        contiguous in file input. A dask DataFrame is shuffled by (task, instance) instead, so
        its rows may come in any order.
    system, task, instance, score : str
        Column names.
    higher_is_better : bool or dict
        Direction of every task, or per task (``{task: False}`` for lower-is-better ones).
    batch_rows : int
        Rows per record batch: the memory bound of one process (or of one worker).
    client : dask.distributed.Client, optional
        Compute on this cluster (e.g. ``Client("tcp://host:8786")``). Stored in the result, so
        ``rs.aggregate(scanned, ...)`` and ``rs.pairwise(scanned)`` use it transparently. Needs
        ``pip install "rankstats[dask]"``; files must be visible to the workers at the same paths.
    workers : int
        Local worker processes for file input (default 1: this process). With ``workers > 1``
        the Parquet row groups (CSV files) are reduced in parallel and merged as on a cluster —
        the same statistics, up to the order of floating-point additions; memory is one batch per
        worker.
    na_values, sep, encoding
        As in :func:`rankstats.read_scores`: score words read as "not evaluated" (refused by
        default, with their file lines; a :class:`DataWarning` counts them when accepted), the
        delimiter of text files (default: sniffed per file) and their encoding.

    Returns
    -------
    ScannedScores

    Notes
    -----
    Instances are recognised by a 64-bit hash of (task, instance) — 8 bytes per instance read,
    how an instance whose rows reappear after other instances is refused instead of counted
    twice. Two different keys share a hash with probability about :math:`K^2 / 2^{65}` for
    :math:`K` instances (≈ 1e-6 at 6.6 million); such a collision raises a false "not contiguous"
    error, never a wrong number.

    Examples
    --------
    >>> import tempfile, rankstats as rs
    >>> sim = rs.simulate.gumbel(6, 3, 20, seed=0, missing=0.2)
    >>> path = sim.to_parquet(tempfile.mkdtemp() + "/bench.parquet")[0]
    >>> scanned = rs.scan_scores(path, batch_rows=37)
    >>> rs.aggregate(scanned, "borda").order == rs.aggregate(sim, "borda").order
    True
    """
    columns = {"system": system, "task": task, "instance": instance, "score": score}
    if _is_dask_frame(paths):
        return _scan_frame(paths, columns, higher_is_better, batch_rows, client)
    if workers < 1:
        raise ValueError(f"workers must be ≥ 1, not {workers}")
    na = tuple(str(w) for w in na_values) if na_values else None
    files, promised = _collect_files(paths)
    sources = [_read.inspect(f, sep=sep, encoding=encoding) for f in files]
    schemas = _check_columns(sources, columns)
    vocabulary = _vocabulary(sources, schemas, columns, batch_rows, na)
    for directory, rows, listed in promised:
        held = sum(vocabulary.rows[str(f)] for f in listed)
        if held != rows:
            raise UnreadableFileError(
                f"{directory}: {_read.MANIFEST} promises {rows:,} rows but the files hold "
                f"{held:,}: a file was cut short or changed; run the simulation again"
            )
    if vocabulary.missing:
        warnings.warn(
            _read.na_warning(f"{len(sources)} file(s)", vocabulary.missing, na or ()),
            DataWarning,
            stacklevel=2,
        )
    if client is not None:
        _require_distributed()
    parquet = [s.path for s in sources if s.kind == "parquet"]
    kinds = {s.kind for s in sources}
    instance_kinds = {_is_text(schemas[s.path].field(instance).type) for s in sources}
    import pyarrow.dataset as ds

    return ScannedScores(
        tuple(s.path for s in sources),
        columns,
        tuple(vocabulary.systems),
        tuple(vocabulary.tasks),
        parse_directions(vocabulary.tasks, higher_is_better),
        batch_rows,
        kinds.pop() if len(kinds) == 1 else "mixed",
        schema=ds.dataset(parquet, format="parquet").schema if parquet else None,
        client=client,
        workers=workers,
        sources=tuple(sources),
        na_values=na,
        # Text and numeric instance keys in one scan: compare them as text (as read_scores).
        instance_text=len(instance_kinds) > 1,
    )


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _collect_files(
    paths: str | Path | Sequence[str | Path],
) -> tuple[list[Path], list[tuple[Path, int, list[Path]]]]:
    """The files to read (directories expanded by :func:`rankstats._read.directory_files`) and
    the row counts promised by the manifests of ``rankstats simulate`` outputs."""
    if isinstance(paths, str | Path):
        paths = [paths]
    files: list[Path] = []
    promised = []
    for p in map(Path, paths):
        if p.is_dir():
            found, rows = _read.directory_files(p)
            files += found
            if rows is not None:
                promised.append((p, rows, found))
        elif p.exists():
            files.append(p)
        else:
            raise FileNotFoundError(f"no such score file or directory: {p}")
    if not files:
        raise FileNotFoundError("no score file given")
    return files, promised


def _check_columns(sources: list[_read.Source], columns: dict) -> dict[str, Any]:
    """Every file has the four columns, and a score column that can hold numbers; returns the
    Arrow schema of each file (text files: all columns text)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schemas = {}
    for source in sources:
        missing = [c for c in dict.fromkeys(columns.values()) if c not in source.columns]
        if missing:
            raise InvalidScoresError(
                f"{source.path}: column(s) {preview(map(repr, missing))} not found; its columns "
                f"are: {preview(map(repr, source.columns), 20)} (name them with system=, task=, "
                "instance=, score=; CLI: --system, --task, --instance, --score)"
            )
        if source.kind == "parquet":
            schema = pq.read_schema(source.path)
        else:
            schema = pa.schema([(c, pa.string()) for c in source.columns])
        problem = _read.score_type_problem(schema.field(columns["score"]).type)
        if problem:
            raise InvalidScoresError(
                f"{source.path}: column {columns['score']!r} is {problem}; choose the score "
                "column with score= (CLI: --score)"
            )
        schemas[source.path] = schema
    return schemas


@dataclass
class _Vocabulary:
    systems: dict[str, None] = field(default_factory=dict)
    tasks: dict[str, None] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)  # rows of each file
    missing: int = 0  # score cells read as missing through na_values


def _vocabulary(
    sources: list[_read.Source],
    schemas: dict[str, Any],
    columns: dict,
    batch_rows: int,
    na_values: tuple[str, ...] | None,
) -> _Vocabulary:
    """The first pass: system and task names (keys as text), in order of appearance. A text
    file is read whole here, so that blank keys, rows of the wrong length and bad score cells
    are refused now with their lines — as :func:`rankstats.read_scores` refuses them."""
    c = columns
    found = _Vocabulary()
    for source in sources:
        text = source.kind == "csv"
        text_score = _is_text(schemas[source.path].field(c["score"]).type)
        wanted = [c["system"], c["task"]]
        wanted += [c["instance"], c["score"]] if text else [c["score"]] if text_score else []
        offset = 0
        keys = [c["system"], c["task"], c["instance"]]
        for batch in _read.batches(source, list(dict.fromkeys(wanted)), batch_rows, keys):
            system_col = _read.keys_as_text(batch.column(c["system"]))
            task_col = _read.keys_as_text(batch.column(c["task"]))
            if text:
                for key in ("system", "task", "instance"):
                    _read.check_keys(source, batch.column(c[key]), c[key], offset)
            if text_score:
                found.missing += _read.score_column(
                    source, batch.column(c["score"]), c["score"], na_values, offset
                )[1]
            found.systems.update(dict.fromkeys(_unique_names(system_col)))
            found.tasks.update(dict.fromkeys(_unique_names(task_col)))
            offset += batch.num_rows
        found.rows[source.path] = offset
    if not sum(found.rows.values()):
        raise UnreadableFileError(
            f"{preview(s.path for s in sources)}: the file(s) have a header but no rows"
        )
    for kind, names in (("system", found.systems), ("task", found.tasks)):
        blank = [n for n in names if not n.strip()]
        if blank:
            raise InvalidScoresError(f"a {kind} key is empty or blank ({blank[0]!r}) in the files")
    return found


def _scan_frame(
    frame: Any, columns: dict, higher_is_better: bool | dict, batch_rows: int, client: Any
) -> ScannedScores:
    """``scan_scores`` of a dask DataFrame: vocabularies now, statistics on demand."""
    import dask

    missing = [col for col in columns.values() if col not in frame.columns]
    if missing:
        raise InvalidScoresError(
            f"column(s) {missing} not found; the frame has {list(frame.columns)}"
        )
    vocab = [frame[columns[k]].astype(str).unique() for k in ("system", "task")]
    systems, tasks = client.compute(vocab, sync=True) if client else dask.compute(*vocab)
    systems, tasks = tuple(sorted(systems)), tuple(sorted(tasks))
    return ScannedScores(
        (),
        columns,
        systems,
        tasks,
        parse_directions(tasks, higher_is_better),
        batch_rows,
        "dask",
        frame=frame,
        client=client,
    )
