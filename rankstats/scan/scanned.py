"""``rs.scan_scores``: a lazy view of score files (or a dask DataFrame) and its first pass.

:func:`scan_scores` reads only the system and task columns (the vocabularies; text files are
validated whole, as by :func:`rankstats.read_scores`). :meth:`ScannedScores.statistics` then runs
one of the drivers of :mod:`rankstats.scan.drivers`; :meth:`ScannedScores.aggregate` hands the
statistics to the estimators shared with the in-memory path
(:func:`rankstats.aggregation.aggregators.estimate`).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rankstats._util.advice import (
    AdviceError,
    AdviceFileError,
    AdviceScoresError,
    AdviceWarning,
    Spelled,
    escape,
    keywords,
)
from rankstats._util.arguments import count
from rankstats._util.parallel import resolve_n_jobs
from rankstats._util.renamed import renamed_parameters
from rankstats._util.user_frame import user_stacklevel
from rankstats.aggregation.aggregators import Aggregate, aggregate_source
from rankstats.core.directions import Direction, parse_directions
from rankstats.core.keys import refuse_whitespace_variants
from rankstats.core.reduction import BenchmarkStatistics
from rankstats.core.sufficient import StatisticsSource
from rankstats.errors import DataWarning, InvalidScoresError, UnreadableFileError, preview
from rankstats.io import cells as _cells
from rankstats.io import directories as _dirs
from rankstats.io import sources as _read
from rankstats.io import tables as _tables
from rankstats.scan.drivers import (
    cluster_statistics,
    frame_statistics,
    is_dask_frame,
    local_statistics,
    require_distributed,
    single_process_statistics,
)
from rankstats.scan.locate import duplicate_error, not_grouped_error
from rankstats.scan.partition import partition_statistics
from rankstats.scan.reader import DuplicateKeyError, NotGroupedError, Spec, Unit, unique_names


@renamed_parameters(workers="n_jobs")
@dataclass(frozen=True, eq=False, repr=False)
class ScannedScores(StatisticsSource):
    """A score table on disk (or a dask DataFrame), read in batches (see :func:`scan_scores`).

    A :class:`~rankstats.core.sufficient.StatisticsSource`: ``rs.aggregate(scanned, method)`` and
    ``rs.pairwise(scanned)`` call :meth:`statistics` (one pass) and the shared estimators.
    """

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
    n_jobs: int = 1  # local worker processes for file input
    sources: tuple = ()  # _read.Source of each file: its kind and how to parse it
    na_values: tuple[str, ...] | None = None
    instance_text: bool = False
    order: str = "auto"  # "auto", "grouped" or "any" (see scan_scores)
    file_rows: dict = field(default_factory=dict)  # path -> rows (the vocabulary pass)
    stamps: tuple = ()  # (path, size, mtime_ns) of every file when scanned
    # The statistics of the passes made, per driver ("local", "cluster"): one pass serves
    # every rs.aggregate / rs.pairwise call.
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def _spec(self) -> Spec:
        sign = np.array([1.0 if self.higher_is_better[t] else -1.0 for t in self.tasks])
        return Spec(
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

    def statistics(self, client: Any = None, progress: bool = False) -> BenchmarkStatistics:
        """One pass over the data: the additive statistics of every (task, instance) ranking.

        The result is kept: later calls (``rs.aggregate(scanned, ...)`` with any method,
        ``rs.pairwise(scanned)``) return it without reading the files again, as long as no
        file changed since :func:`scan_scores` (size and modification time; a changed file
        raises :class:`~rankstats.errors.UnreadableFileError`: scan it again, since its
        systems and tasks may have changed too). One result is kept per driver (this machine,
        a cluster); they are equal up to the order of floating-point additions.

        Parameters
        ----------
        client : dask.distributed.Client, optional
            Run on this cluster (default: the client given to :func:`scan_scores`; without one,
            files are read in this process and a dask DataFrame is computed with Dask's default
            scheduler). Files must be readable at the same paths on every worker.
        progress : bool
            File input: a progress bar on stderr when it is a terminal (nothing off a terminal
            or with ``RANKSTATS_QUIET=1``): the rows read against the rows in the Parquet
            footers, with an ETA; with text files, the files done (several) or the rows read
            and rows/s (one). Rows in any order: two bars, the partition pass (rows) and the
            reduction (partitions). A dask DataFrame: Dask's own progress bar (tasks done).

        Returns
        -------
        StreamStatistics
            The :class:`~rankstats.core.reduction.BenchmarkStatistics`: ``pairwise``
            (:class:`~rankstats.Pairwise`), and per (task, system) Borda sums, evaluation
            counts, score sums and score counts.

        Notes
        -----
        On a cluster each work unit (a CSV file or a Parquet row group) is reduced by the same
        batch loop as in one process, except that its first and last instance are returned as
        rows: they may be cut by the unit boundary. The driver concatenates these few rows in
        unit order and reduces them, so an instance cut between two units is *merged* (counted
        once), and the unit statistics are added by a tree reduction on the cluster (``+``). Each
        unit also returns the 64-bit hashes of its instance keys; the reduction refuses a key
        reduced in two units (input not grouped by instance) with an error naming the (task,
        instance) and the files. Files on a cluster must be grouped (``order="any"`` spills to
        this machine's disk; scan a dask DataFrame instead, which is shuffled).
        """
        client = client if client is not None else self.client
        if client is not None and not hasattr(client, "submit"):
            raise TypeError(f"client must be a dask.distributed.Client, not {type(client)}")
        self._check_unchanged()
        driver = "cluster" if client is not None else "local"
        if driver not in self._cache:
            try:
                self._cache[driver] = self._pass(client, progress)
            except DuplicateKeyError as err:
                if self.frame is not None or err.key is None:
                    raise
                # Outside the worker: read the units again to name the files and lines.
                key = err.key
            else:
                return self._cache[driver]
            raise duplicate_error(self._units(), self._spec(), key)
        return self._cache[driver]

    def _check_unchanged(self) -> None:
        for path, size, mtime in self.stamps:
            try:
                now = Path(path).stat()
            except OSError:
                now = None
            if now is None or (now.st_size, now.st_mtime_ns) != (size, mtime):
                raise AdviceFileError(
                    escape(f"{path} changed (or was removed) ") + "{again} (its systems, tasks "
                    "and rows may have changed)",
                    again=Spelled(
                        "since rs.scan_scores read it; scan the files again",
                        "while rankstats read it; run the command again",
                    ),
                )

    def _pass(self, client: Any, progress: bool) -> BenchmarkStatistics:
        """One pass by the driver that fits: cluster, local processes, one process; rows in
        any order are partitioned on disk (``order``)."""
        if self.frame is not None:
            return frame_statistics(self.frame, self._spec(), client, progress)
        units = self._units()
        if client is not None:
            if self.order == "any":
                raise AdviceError("{message}", message=CLUSTER_ANY)
            return cluster_statistics(units, self._spec(), client, progress)
        if self.order == "any":
            return self._partitioned(units, progress)
        try:
            if self.n_jobs > 1 and len(units) > 1:
                return local_statistics(units, self._spec(), self.n_jobs, progress)
            return single_process_statistics(units, self._spec(), progress)
        except NotGroupedError as err:
            if self.order == "grouped":
                raise not_grouped_error(units, self._spec(), err) from None
            key = err.key
        # Outside the except block: the traceback (and the batch it holds) is released first.
        task, instance = key or ("?", "?")
        warnings.warn(
            AdviceWarning(
                escape(
                    "the rows of the score files are not grouped by (task, instance) (the rows "
                    f"of ({task!r}, {instance!r}) are apart): rankstats partitions them by "
                    "(task, instance) on disk and reads them again; "
                )
                + "{any} skips this first attempt",
                any=("order", "any"),
            ),
            stacklevel=user_stacklevel(),
        )
        return self._partitioned(units, progress)

    def _partitioned(self, units: list[Unit], progress: bool) -> BenchmarkStatistics:
        rows = sum(self.file_rows.values()) or _estimated_rows(self.paths)
        return partition_statistics(units, self._spec(), rows, progress, self.n_jobs)

    def aggregate(
        self, method: str = "borda", statistics: BenchmarkStatistics | None = None
    ) -> Aggregate:
        """σ^μ (``mean``), σ^l (``borda``), σ^2l (``borda2``) or Bradley–Terry (``bt``) from one
        streaming pass.

        ``bt`` is the maximum-likelihood Bradley–Terry fit to the pairwise win counts of all
        (task, instance) rankings (``Pairwise.wins_observed``: full rank-breaking, a tie half a
        win each way) — the same as ``rs.aggregate(rs.pairwise(rankings), "bt")`` in memory; the
        counts are additive, so they stream. Its MLE does not exist when the comparison graph is
        not strongly connected (an error says so).

        The estimates are those of the in-memory path, from the same code
        (:func:`rankstats.aggregation.aggregators.estimate`); ``statistics`` reuses a pass already
        made.
        """
        return aggregate_source(self, method, statistics)

    def __repr__(self) -> str:
        where = "a dask DataFrame" if self.frame is not None else f"{len(self.paths)} file(s)"
        on = ", on a Dask cluster" if self.client is not None else ""
        return (
            f"ScannedScores({where}, {len(self.systems)} systems × {len(self.tasks)} tasks, "
            f"read in batches of {self.batch_rows:,} rows{on})"
        )


@renamed_parameters(workers="n_jobs")
def scan_scores(
    paths: str | Path | Sequence[str | Path] | Any,
    system: str = "system",
    task: str = "task",
    instance: str = "instance",
    score: str = "score",
    higher_is_better: Direction = True,
    batch_rows: int = 2_000_000,
    client: Any = None,
    n_jobs: int = 1,
    na_values: Sequence[str] | None = None,
    sep: str | None = None,
    encoding: str = "utf-8",
    order: str = "auto",
) -> ScannedScores:
    """Lazy view of instance-level scores: Parquet / CSV files, or a dask DataFrame.

    A first pass reads only the system and task columns (the vocabularies); the statistics are
    computed by :meth:`ScannedScores.statistics` / :meth:`ScannedScores.aggregate`, or by
    ``rs.aggregate(scanned, method)`` and ``rs.pairwise(scanned)``. Every statistic behind σ^μ,
    σ^l, σ^2l and the Hoeffding intervals is a sum over (task, instance) rankings, so chunks are
    reduced separately and added: the result equals the in-memory one up to rounding. The
    rows may come in any order (``order``); the first pass is kept, so every later estimate
    of the same object (``rs.aggregate`` with any streamed method, ``rs.pairwise``) is served
    without reading the files again.

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
        content-detected compression and delimiter). File rows may come in any order (see
        ``order``). A dask DataFrame is shuffled by (task, instance), so its rows may come in
        any order too (``order`` does not apply).
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
    n_jobs : int
        Local worker processes for file input (default 1: this process; -1: all cores).
        With ``n_jobs > 1`` the Parquet row groups (CSV files) are reduced in parallel and
        merged as on a cluster —
        the same statistics, up to the order of floating-point additions; memory is one batch per
        worker.
    na_values, sep, encoding
        As in :func:`rankstats.read_scores`: score words read as "not evaluated" (refused by
        default, with their file lines; a :class:`DataWarning` counts them when accepted), the
        delimiter of text files (default: sniffed per file) and their encoding.
    order : {"auto", "grouped", "any"}
        How the rows of one (task, instance) are laid out in the files.

        - ``"grouped"``: together (a table sorted by task and instance, as ``rankstats
          simulate`` writes it; they may be cut by batch, row-group and file boundaries). Read
          in one pass; rows of an instance that reappear after other instances raise an error
          naming the (task, instance).
        - ``"any"``: in any order (e.g. one file per task, system after system, as evaluation
          harnesses write them). The rows are hash-partitioned by (task, instance) into about
          ``rows / batch_rows`` Arrow files in a temporary directory (``TMPDIR``; about 12 bytes
          per row plus the instance key; removed at the end, also on an error), then each
          partition is read back and reduced whole: two reads of the data and one write,
          1.5–2 times the time of a grouped pass, memory about one partition (``batch_rows``
          rows). Not on a cluster (``client=``): scan a dask DataFrame there.
        - ``"auto"`` (default): as grouped; at the first instance found apart, a
          :class:`DataWarning` says so and the scan restarts with ``"any"``. The work done
          before is discarded: usually one batch (an ungrouped file is noticed at once), at
          most one grouped pass when only the last rows are out of place; ``order="any"``
          skips this first attempt. With ``client=`` it behaves as ``"grouped"``.

    Returns
    -------
    ScannedScores

    Notes
    -----
    Instances are recognised by a 64-bit hash of (task, instance) — 8 bytes per instance read,
    how an instance whose rows reappear after other instances is refused instead of counted
    twice. Two different keys share a hash with probability about :math:`K^2 / 2^{65}` for
    :math:`K` instances (≈ 1e-6 at 6.6 million); such a collision raises a false "not contiguous"
    error, never a wrong number. With ``order="any"`` the hash only chooses the partition; the
    instances are grouped by their keys. A (system, task, instance) given twice is refused in
    every order, naming it.

    The statistics of the first pass are kept on the returned object, with the size and
    modification time of every file: a file changed since the scan raises
    :class:`~rankstats.errors.UnreadableFileError` (its systems and tasks may have changed:
    scan again) instead of mixing old and new data.

    Examples
    --------
    >>> import tempfile, rankstats as rs
    >>> sim = rs.simulate.gumbel(6, 3, 20, seed=0, missing=0.2)
    >>> path = sim.to_parquet(tempfile.mkdtemp() + "/bench.parquet")[0]
    >>> scanned = rs.scan_scores(path, batch_rows=37)
    >>> rs.aggregate(scanned, "borda").order == rs.aggregate(sim, "borda").order
    True
    """
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(map(repr, ORDERS))}, not {order!r}")
    count("batch_rows", batch_rows, 1)
    n_jobs = resolve_n_jobs(n_jobs)
    if order == "any" and client is not None:
        raise AdviceError("{message}", message=CLUSTER_ANY)
    columns = {"system": system, "task": task, "instance": instance, "score": score}
    if is_dask_frame(paths):
        return _scan_frame(paths, columns, higher_is_better, batch_rows, client)
    na = tuple(str(w) for w in na_values) if na_values else None
    files, promised = _collect_files(paths)
    stamps = tuple((str(f), *_stamp(f)) for f in files)
    sources = [_read.inspect(f, sep=sep, encoding=encoding) for f in files]
    schemas = _check_columns(sources, columns)
    vocabulary = _vocabulary(sources, schemas, columns, batch_rows, na)
    for directory, rows, listed in promised:
        held = sum(vocabulary.rows[str(f)] for f in listed)
        if held != rows:
            raise UnreadableFileError(
                f"{directory}: {_dirs.MANIFEST} promises {rows:,} rows but the files hold "
                f"{held:,}: a file was cut short or changed; run the simulation again"
            )
    if vocabulary.missing:
        warnings.warn(
            _cells.na_warning(f"{len(sources)} file(s)", vocabulary.missing, na or ()),
            DataWarning,
            stacklevel=user_stacklevel(),
        )
    if client is not None:
        require_distributed()
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
        n_jobs=n_jobs,
        sources=tuple(sources),
        na_values=na,
        # Text and numeric instance keys in one scan: compare them as text (as read_scores).
        instance_text=len(instance_kinds) > 1,
        order=order,
        file_rows=dict(vocabulary.rows),
        stamps=stamps,
    )


ORDERS = ("auto", "grouped", "any")
#: Why ``order="any"`` has no cluster, in Python and on the command line.
CLUSTER_ANY = Spelled(
    "order='any' partitions the rows on this machine's disk, not on a cluster: scan the files "
    "as a dask DataFrame, rs.scan_scores(dask.dataframe.read_parquet(...), client=client), "
    "which shuffles the rows by (task, instance), or sort them by task and instance",
    "--order any partitions the rows on this machine's disk, not on a Dask cluster: leave out "
    "--scheduler, or sort the files by task and instance and use --order grouped",
)


def _stamp(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


def _estimated_rows(paths: Sequence[str]) -> int:
    """Rows of the files when not counted: Parquet footers; text ≥ 12 bytes a row."""
    import pyarrow.parquet as pq

    rows = 0
    for path in paths:
        try:
            rows += pq.read_metadata(path).num_rows
        except Exception:  # text (compressed text: up to 5 times its size)
            rows += 5 * Path(path).stat().st_size // 12
    return rows


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _collect_files(
    paths: str | Path | Sequence[str | Path],
) -> tuple[list[Path], list[tuple[Path, int, list[Path]]]]:
    """The files to read (directories expanded by
    :func:`rankstats.io.directories.directory_files`) and the row counts promised by the manifests
    of ``rankstats simulate`` outputs."""
    if isinstance(paths, str | Path):
        paths = [paths]
    files: list[Path] = []
    promised = []
    for p in map(Path, paths):
        if p.is_dir():
            found, rows = _dirs.directory_files(p)
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
            raise AdviceScoresError(
                escape(
                    f"{source.path}: column(s) {preview(map(repr, missing))} not found; its "
                    f"columns are: {preview(map(repr, source.columns), 20)}"
                )
                + " (name them with {system}, {task}, {instance}, {score})",
                **keywords("system", "task", "instance", "score"),
            )
        if source.kind == "parquet":
            schema = pq.read_schema(source.path)
        else:
            schema = pa.schema([(c, pa.string()) for c in source.columns])
        problem = _cells.score_type_problem(schema.field(columns["score"]).type)
        if problem:
            raise AdviceScoresError(
                escape(f"{source.path}: column {columns['score']!r} is {problem}")
                + "; choose the score column with {score}",
                **keywords("score"),
            )
        schemas[source.path] = schema
    return schemas


@dataclass
class _Vocabulary:
    systems: dict[str, str] = field(default_factory=dict)  # name -> first file holding it
    tasks: dict[str, str] = field(default_factory=dict)
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
        for batch in _tables.batches(source, list(dict.fromkeys(wanted)), batch_rows, keys):
            system_col = _cells.keys_as_text(batch.column(c["system"]))
            task_col = _cells.keys_as_text(batch.column(c["task"]))
            if text:
                for key in ("system", "task", "instance"):
                    _cells.check_keys(source, batch.column(c[key]), c[key], offset)
            if text_score:
                found.missing += _cells.score_column(
                    source, batch.column(c["score"]), c["score"], na_values, offset
                )[1]
            for name in unique_names(system_col):
                found.systems.setdefault(name, source.path)  # where each name is first seen
            for name in unique_names(task_col):
                found.tasks.setdefault(name, source.path)
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
        refuse_whitespace_variants(
            kind, list(names), lambda group, names=names: [f"in {names[n]}" for n in group]
        )
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
