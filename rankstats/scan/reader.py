"""The batch reader of ``rs.scan_scores``: record batches in, sufficient statistics out.

- :func:`batches`: the record batches of work units (a text file through the parser of
  :func:`rankstats.read_scores`, a Parquet row group through Arrow's dataset reader);
- :func:`normalise_batch` / :func:`normalise`: validated rows with integer task / system codes
  and oriented scores;
- :class:`Stream`: the batch loop. It carries the last, possibly incomplete instance of a batch
  over to the next one, refuses an instance that reappears after others (64-bit hashes of the
  keys already closed), and, for a work unit of a parallel scan, sets aside the first and last
  instance (the *edges*, possibly cut by the unit boundary);
- complete instances are reduced by :func:`rankstats.core.reduction.reduce_scores`, the reduction
shared
  with the in-memory path and the simulations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rankstats._util.advice import Advice, AdviceScoresError, Spelled, escape
from rankstats.core.reduction import BenchmarkStatistics, reduce_scores
from rankstats.errors import InvalidScoresError
from rankstats.io import cells as _cells
from rankstats.io import tables as _tables

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # odd 64-bit constant that spreads the task code

_READAHEAD = 1  # record batches decoded ahead of the one being reduced

#: The remedy for rows of one instance that are apart, the option ``{hint}`` of a
#: :class:`NotGroupedError` (:mod:`rankstats._util.advice`): in Python and on the command line.
UNGROUPED_HINT = Spelled(
    "scan it with order='any' (rankstats partitions the rows by (task, instance) on disk), sort "
    "the input by task and instance (rankstats simulate writes it so), or scan it as a dask "
    "DataFrame, rs.scan_scores(dask.dataframe.read_parquet(...)), which shuffles the rows by "
    "(task, instance) first",
    "rerun with --order any (rankstats partitions the rows by (task, instance) on disk), or "
    "sort the input by task and instance (rankstats simulate writes it so)",
)


class NotGroupedError(Advice, InvalidScoresError):
    """The rows of one (task, instance) are not contiguous in the input (``order="grouped"``);
    ``order="auto"`` catches it and partitions the rows instead. ``key``: (task, instance); the
    message is a template whose ``{hint}`` is :data:`UNGROUPED_HINT`."""

    def __init__(
        self, template: str, key: tuple[object, object] | None = None, **options: object
    ) -> None:
        super().__init__(template, **options)
        self.key = key

    def __reduce__(self) -> tuple[Any, tuple[object, ...]]:
        # Raised in a worker process: keep the key and the template.
        return (_not_grouped, (self.template, self.key, self.options))


def _not_grouped(template: str, key: tuple[object, object] | None, options: dict):
    return NotGroupedError(template, key, **options)


class DuplicateKeyError(InvalidScoresError):
    """A (system, task, instance) key met twice; ``key`` holds the names, and the scan driver
    names the files and lines (:func:`rankstats.scan.locate.duplicate_error`)."""

    def __init__(self, message: str, key: tuple[str, str, object] | None = None) -> None:
        super().__init__(message)
        self.key = key

    def __reduce__(self) -> tuple[Any, tuple[str, tuple[str, str, object] | None]]:
        return (type(self), (str(self), self.key))  # raised in a worker process: keep the key


Unit = tuple[str, int | None]  # (file, Parquet row group or None for the whole file)


@dataclass(frozen=True, eq=False, repr=False)
class Spec:
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


# ---------------------------------------------------------------------------- normalisation
def normalise(frame: pd.DataFrame, spec: Spec) -> pd.DataFrame:
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
            f"instance {plain(frame[c['instance']].iloc[where])!r}"
        )
    task = pd.Categorical(frame[c["task"]].astype(str), categories=spec.tasks).codes
    system = pd.Categorical(frame[c["system"]].astype(str), categories=spec.systems).codes
    instance = frame[c["instance"]].reset_index(drop=True)
    if (task < 0).any() or (system < 0).any() or instance.isna().any():
        where = np.flatnonzero((task < 0) | (system < 0) | instance.isna().to_numpy())[0]
        raise InvalidScoresError(
            f"missing or unknown system / task / instance in row (system "
            f"{frame[c['system']].iloc[where]!r}, task {frame[c['task']].iloc[where]!r}, "
            f"instance {plain(instance.iloc[where])!r})"
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


def unique_names(column: Any) -> list[str]:
    """Distinct values of an Arrow column as strings, in order of first appearance (as
    ``pd.unique(series.astype(str))``; strings and dictionaries are handled in Arrow)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = _cells.keys_as_text(column)
    kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        unique = pc.unique(column.drop_null())
        if pa.types.is_dictionary(unique.type):
            unique = unique.dictionary.take(unique.indices)
        return [str(v) for v in unique.to_pylist()]
    series = column.to_pandas()
    return [str(v) for v in pd.unique(series.astype(str))]


def _batch_scores(column: Any, spec: Spec) -> np.ndarray:
    """Float scores of a batch: numbers as they are (infinities are refused by the caller,
    naming the row); text through the parser of :func:`rankstats.read_scores`."""
    import pyarrow as pa

    if pa.types.is_floating(column.type) or pa.types.is_integer(column.type):
        return column.cast(pa.float64()).to_numpy(zero_copy_only=False)
    try:
        return _cells.scores_as_float(column, spec.na_values)[0]
    except _cells.BadCells as bad:  # refused with file lines by the scan_scores pass already
        template, options = _cells.cells_message(
            bad, spec.columns["score"], lambda rows: [f"batch row {r + 1}" for r in rows]
        )
        raise AdviceScoresError(template, **options) from None


def normalise_batch(batch: Any, spec: Spec) -> pd.DataFrame:
    """:func:`normalise` on an Arrow record batch, without converting strings row by row.

    Keys are text, as in :func:`rankstats.read_scores` (:func:`rankstats.io.cells.keys_as_text`:
    strings unchanged, other types cast by Arrow); system and task names are matched to the
    vocabularies in Arrow (``index_in``; for dictionary-encoded columns only the dictionary is
    matched). A batch with an unknown key or an infinite score goes through the pandas path,
    which names the offending row.
    """
    c = spec.columns
    system_col = _cells.keys_as_text(batch.column(c["system"]))
    task_col = _cells.keys_as_text(batch.column(c["task"]))
    instance_col = batch.column(c["instance"])
    if spec.instance_text:
        instance_col = _cells.keys_as_text(instance_col)
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
        return normalise(frame, spec)
    return pd.DataFrame({"t": task, "i": instance, "s": system, "v": score * spec.sign[task]})


def plain(value: object) -> object:
    """A NumPy scalar as the Python value (for error messages)."""
    return value.item() if isinstance(value, np.generic) else value


def hash_keys(task: np.ndarray, instance: pd.Series) -> np.ndarray:
    """64-bit hashes of (task code, instance) keys, equal in every process (pandas' SipHash)."""
    h = pd.util.hash_pandas_object(instance.reset_index(drop=True), index=False).to_numpy()
    return pd.util.hash_array(h ^ (task.astype(np.uint64) * _GOLDEN))


# ---------------------------------------------------------------------------- the batch loop
def reduce_rows(frame: pd.DataFrame, key: np.ndarray, spec: Spec) -> BenchmarkStatistics:
    """Statistics of complete instances: normalised rows (t, i, s, v) in which the rows of each
    (task, instance) ``key`` are contiguous; a score of NaN is not evaluated."""
    score = frame["v"].to_numpy()
    valid = ~np.isnan(score)
    task, key = frame["t"].to_numpy()[valid], key[valid]
    system, score = frame["s"].to_numpy()[valid], score[valid]
    n = len(spec.systems)
    change = np.r_[True, key[1:] != key[:-1]]
    row = np.cumsum(change) - 1
    matrix = np.full((int(change.sum()), n), np.nan)
    matrix[row, system] = score
    # The scores are not NaN, so a duplicated (instance, system) key leaves fewer cells filled.
    if np.count_nonzero(~np.isnan(matrix)) != len(score):
        first = np.flatnonzero(pd.Series(row * n + system).duplicated().to_numpy())[0]
        instance = plain(frame["i"].to_numpy()[valid][first])
        key = (spec.systems[system[first]], spec.tasks[task[first]], instance)
        raise DuplicateKeyError(
            "duplicated (system, task, instance) keys in the input: system "
            f"{key[0]!r}, task {key[1]!r}, instance {instance!r}",
            key,
        )
    return reduce_scores(matrix, task[change], len(spec.tasks), spec.systems, spec.tasks)


class Stream:
    """The batch loop: feed normalised rows in input order, collect additive statistics.

    The last instance of every fed frame is carried over to the next one. ``closed`` holds the
    sorted hashes of the instances already reduced: an instance that reappears is refused. With
    ``split_edges`` (a work unit of a parallel scan) the first and the last instance are not
    reduced but kept as rows (``head``, ``tail``): they may continue in the neighbouring units.
    """

    def __init__(self, spec: Spec, split_edges: bool = False) -> None:
        self.spec = spec
        self.split_edges = split_edges
        self.total = BenchmarkStatistics.empty(spec.systems, len(spec.tasks), spec.tasks)
        self.carry: pd.DataFrame | None = None
        self.closed = np.empty(0, dtype=np.uint64)
        self.head: pd.DataFrame | None = None
        self.head_hash: np.uint64 | None = None
        self.tail: pd.DataFrame | None = None
        self.tail_hash: np.uint64 | None = None
        self.rows = 0

    def _refuse(self, task_code: int, instance: object) -> NotGroupedError:
        key = (self.spec.tasks[task_code], plain(instance))
        return NotGroupedError(
            escape(f"the rows of (task, instance) ({key[0]!r}, {key[1]!r}) are not contiguous: ")
            + "{hint}",
            key,
            hint=UNGROUPED_HINT,
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

    def _reduce(self, frame: pd.DataFrame, key: np.ndarray) -> None:
        if not np.isnan(frame["v"].to_numpy()).all():
            self.total = self.total + reduce_rows(frame, key, self.spec)

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
        hashes = hash_keys(task[done], instances)
        self._close(hashes, task[done], instances)
        begin = 0
        if self.split_edges and self.head is None:
            begin = starts[1]
            self.head = frame.iloc[:begin].reset_index(drop=True)
            self.head_hash = hashes[0]
        if begin < last:
            self._reduce(frame.iloc[begin:last], key[begin:last])

    def finish(self) -> None:
        """The last instance: reduced, or kept as the tail (head) of a work unit."""
        carry, self.carry = self.carry, None
        if carry is None or not len(carry):
            return
        task = carry["t"].to_numpy()
        h = hash_keys(task[:1], carry["i"].iloc[:1])
        self._close(h, task[:1], carry["i"].iloc[:1])
        if not self.split_edges:
            self._reduce(carry, np.zeros(len(carry), dtype=np.int64))
        elif self.head is None:
            self.head, self.head_hash = carry, h[0]
        else:
            self.tail, self.tail_hash = carry, h[0]

    @property
    def interior_keys(self) -> np.ndarray:
        """Hashes of the instances reduced here (``closed`` without the set-aside edges)."""
        edges = [h for h in (self.head_hash, self.tail_hash) if h is not None]
        return self.closed[~np.isin(self.closed, np.asarray(edges, dtype=np.uint64))]


def edge_stream(edges: Iterable[tuple[pd.DataFrame | None, ...]], spec: Spec) -> Stream:
    """The first / last instances set aside by the work units, reduced in unit order: an instance
    cut between units k and k + 1 is contiguous here and counts once."""
    pieces = [p for pair in edges for p in pair if p is not None]
    stream = Stream(spec)
    if pieces:
        stream.feed(pd.concat(pieces, ignore_index=True))
    stream.finish()
    return stream


# ---------------------------------------------------------------------------- record batches
def batches(units: Sequence[Unit], spec: Spec) -> Iterator[Any]:
    """Record batches of the units, in order: a text file through the parser of
    :func:`rankstats.read_scores` (keys and scores read as text), a Parquet row group with
    Arrow's dataset reader."""
    import pyarrow.dataset as ds

    for path, group in units:
        source = spec.sources.get(path)
        if source is not None and source.kind == "csv":
            keys = [spec.columns[k] for k in ("system", "task", "instance")]
            yield from _tables.batches(source, spec.read_columns, spec.batch_rows, keys)
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


def scan_units(
    units: Sequence[Unit],
    spec: Spec,
    split_edges: bool = False,
    on_rows: Callable[[int], None] | None = None,
    on_unit: Callable[[], None] | None = None,
) -> Stream:
    """Run the batch loop over ``units`` (files / row groups) in order: shared by all drivers.
    ``on_rows`` is told the number of rows of every batch read, ``on_unit`` called after each
    unit (progress)."""
    stream = Stream(spec, split_edges)
    for unit in units:
        for batch in batches([unit], spec):
            stream.feed(normalise_batch(batch, spec))
            stream.rows += batch.num_rows
            if on_rows is not None:
                on_rows(batch.num_rows)
        if on_unit is not None:
            on_unit()
    stream.finish()
    return stream


def unit_rows(units: Sequence[Unit], spec: Spec) -> int | None:
    """Rows of all ``units`` from the Parquet metadata (footers only), or ``None`` when a unit
    is a text file (its rows are known only once read)."""
    import pyarrow.parquet as pq

    total = 0
    files: dict[str, Any] = {}
    for path, group in units:
        source = spec.sources.get(path)
        if group is None or (source is not None and source.kind == "csv"):
            return None
        if path not in files:
            files[path] = pq.read_metadata(path)
        total += files[path].row_group(group).num_rows
    return total


def locate(unit: Unit, spec: Spec, wanted: int) -> list[tuple[str, object]]:
    """The (task, instance) keys of a unit whose hash is ``wanted`` (error path only)."""
    found = []
    for batch in batches([unit], spec):
        rows = normalise_batch(batch, spec)
        hit = hash_keys(rows["t"].to_numpy(), rows["i"]) == np.uint64(wanted)
        if hit.any():
            at = np.flatnonzero(hit)[0]
            found.append((spec.tasks[rows["t"].iloc[at]], plain(rows["i"].iloc[at])))
    return found
