"""Score files read into :class:`~rankstats.core.scores.Scores`: :func:`read_scores` (long or
wide tables) and :func:`read_score_columns` (one column per system).

The file is inspected and read by the one reader (:mod:`rankstats.io.sources`); keys are text,
scores go through the one cell parser; errors name the file's lines. The table is then validated
by :meth:`Scores.from_long <rankstats.core.scores.Scores.from_long>` (or ``from_wide``), as an
in-memory table is.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats._util.advice import AdviceError, AdviceScoresError, Spelled, escape, keywords
from rankstats._util.user_frame import user_stacklevel
from rankstats.core import keys as _keys
from rankstats.core import wide_columns as _columns
from rankstats.core.directions import Direction
from rankstats.core.score_values import Where
from rankstats.core.scores import Scores
from rankstats.errors import DataWarning, InvalidScoresError, UnreadableFileError, preview
from rankstats.io import cells as _cells
from rankstats.io import csv_dialect as _dialect
from rankstats.io import sources as _read
from rankstats.io import tables as _tables
from rankstats.io.cells import na_warning, score_column
from rankstats.io.sources import inspect
from rankstats.io.tables import read_table


def read_scores(
    path: str | Path,
    system: str | Sequence[str] = "system",
    task: str | None = "task",
    instance: str | bool | None = None,
    score: str = "score",
    higher_is_better: Direction = True,
    layout: str = "auto",
    sep: str | None = None,
    na_values: Sequence[str] | None = None,
    encoding: str = "utf-8",
    tasks: Sequence[str] | None = None,
    drop_columns: Sequence[str] | None = None,
) -> Scores:
    """Read a score table from CSV, TSV or Parquet, refusing what it cannot read as written.

    Every cell of a text file is read as text first: keys stay text (``007``, ``7``, ``NA``,
    ``None``, ``01`` and ``true`` are distinct system names), only an empty cell is "not
    evaluated", and the errors name the file's line numbers (line 1 = the header). The rules,
    and the options that override them, are listed in the user guide ("Messy files").

    Parameters
    ----------
    path : str or Path
        A CSV / TSV / other delimited text file (optionally gzip, bz2 or xz compressed: detected
        from the content, whatever the extension) or a Parquet file.
    system, task, score : str
        Column names (see :meth:`Scores.from_long`). A name other than the default that is not
        in the file is an error listing the columns. ``system`` may be a list of columns that
        name a system together (``["name", "pretrained"]``, CLI ``--system name pretrained``).
    instance : str, None or False
        Instance column of a long table. ``None`` (default): a column literally named
        ``instance`` is used when there is one (instance-level scores), else task level.
        ``False``: no instance column, even if one is named ``instance``.
    higher_is_better : bool or dict
        Direction of the tasks.
    layout : {"auto", "long", "wide"}
        ``long``: one row per score; ``wide``: one row per system, one column per task.
        ``auto`` chooses long when the ``task`` and ``score`` columns exist, else wide; it
        refuses a "wide" table whose system column repeats values (a long table whose task and
        score columns were not named).
    sep : str, optional
        Field separator of a text file (``","``, ``";"``, ``"\\t"``, ``"|"``; ``"tab"`` works
        too). Default: a ``sep=;`` first line (as Excel writes), else sniffed from the header
        among those four, preferring tab for ``.tsv`` / ``.tab`` files.
    na_values : sequence of str, optional
        Words that mean "not evaluated" in score cells (e.g. ``["NA", "n/a"]``), matched exactly
        after stripping spaces. By default a score cell holding a missing-value word (``NA``,
        ``n/a``, ``null``, ``None``, ``nan``, ``-``, ``?``, ``#N/A``, ...) is refused; with
        ``na_values`` those words are read as missing and a :class:`DataWarning` says how many
        cells were. Keys are never affected.
    encoding : str
        Text encoding (default ``"utf-8"``; a byte-order mark is skipped). Bytes that are not
        valid are refused, naming the byte offset and line.
    tasks : sequence of str, optional
        Task columns of a wide table (default: every column but ``system``, refusing one named
        like an aggregate, such as ``Average``; list it here to rank it as a task).
    drop_columns : sequence of str, optional
        Columns of a wide table that are neither keys nor tasks, left out (CLI:
        ``--drop-columns``). Without ``tasks`` or ``drop_columns`` a column that equals the row
        mean, median or sum of the others, or is named like an aggregate or like metadata
        (``params``, ``FLOPs``), is refused with the reason.

    Returns
    -------
    Scores

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    UnreadableFileError
        An empty, header-only, binary, zip, truncated or wrongly encoded file, a ``.parquet``
        that is not Parquet, a directory, duplicated column names.
    InvalidScoresError
        Rows with more or fewer fields than the header, missing-value words or other text in
        score cells, non-numeric score columns (timestamps, booleans), blank keys, duplicated
        keys, a column option naming a column that does not exist, ambiguous layouts, aggregate
        columns in a wide table.

    Examples
    --------
    >>> import tempfile, pathlib, rankstats as rs
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "board.csv"
    >>> _ = path.write_text("system;t1;t2\\n007;0.9;\\n7;0.8;0.3\\nNA;0.7;0.4\\n")
    >>> scores = rs.read_scores(path)  # semicolons sniffed; the empty cell is not evaluated
    >>> scores.systems, len(scores.data)
    (('007', '7', 'NA'), 5)
    """
    if layout not in ("auto", "long", "wide"):
        raise ValueError(f"layout must be 'auto', 'long' or 'wide', not {layout!r}")
    source = _read.inspect(path, sep=sep, encoding=encoding)
    _refuse_preflib(source)
    present = set(source.columns)
    absent: list[tuple[str, object]] = []  # (option, value) naming an absent column
    system_columns = _keys.key_columns(system)
    if any(c not in present for c in system_columns):
        absent.append(("system", system))
    for option, column, default in (("task", task, "task"), ("score", score, "score")):
        # A default name that is absent only means "not a long table"; a chosen one is a typo.
        if column is not None and column != default and column not in present:
            absent.append((option, column))
    if isinstance(instance, str) and instance not in present:
        absent.append(("instance", instance))
    absent += [("tasks", [t]) for t in tasks or () if t not in present]
    absent += [("drop_columns", [t]) for t in drop_columns or () if t not in present]
    if absent:
        fields = ", ".join(f"{{absent{k}}}" for k in range(len(absent)))
        raise AdviceScoresError(
            escape(f"{source.path}: ")
            + f"no column named as {fields} asks; the columns are: "
            + escape(preview(map(repr, source.columns), 20))
            + _single_column_hint(source),
            **keywords("sep"),
            **{f"absent{k}": pair for k, pair in enumerate(absent)},
        )
    chosen = layout
    if layout == "auto":
        chosen = "long" if (task is None or task in present) and score in present else "wide"
    name = Path(path).name.split(".")[0]
    if chosen == "wide":
        if isinstance(instance, str):
            raise ValueError("instance= applies to long tables (one row per score)")
        if tasks is not None and drop_columns:
            raise AdviceError(
                "give {tasks} or {drop_columns}, not both", **keywords("tasks", "drop_columns")
            )
        return _read_wide(
            source, system, higher_is_better, tasks, na_values, name, layout, drop_columns
        )
    if drop_columns:
        raise AdviceError(
            "{drop_columns} leaves columns out of a wide table; select tasks of a long table "
            "with Scores.select",
            **keywords("drop_columns"),
        )
    if tasks is not None:
        raise ValueError(
            "tasks= chooses the task columns of a wide table; select tasks of a long table "
            "with Scores.select"
        )
    needed = [c for c in (task, score) if c is not None and c not in present]
    if needed:
        raise AdviceScoresError(
            escape(
                f"{source.path}: a long table needs the column(s) {preview(map(repr, needed))}; "
                f"the columns are: {preview(map(repr, source.columns), 20)}"
            )
            + " (name them with {task} and {score})",
            **keywords("task", "score"),
        )
    if instance is None:
        instance = "instance" if "instance" in present else None
    elif instance is False:
        instance = None
    return _read_long(source, system, task, instance, score, higher_is_better, na_values, name)


#: The first line of a PrefLib file (its metadata block: ``# FILE NAME: ...``).
_PREFLIB_HEADER = re.compile(r"^#\s*(FILE NAME|TITLE|DATA TYPE)\s*:", re.IGNORECASE)


def _refuse_preflib(source: _read.Source) -> None:
    """A PrefLib rankings file whose name does not say so (not ``.soc`` / ``.soi`` / ``.toc`` /
    ``.toi``) is not a score table: say how to read it, rather than blame its columns."""
    first = str(source.columns[0]) if len(source.columns) else ""
    if len(source.columns) != 1 or not _PREFLIB_HEADER.match(first):
        return
    raise AdviceScoresError(
        escape(
            f"{source.path}: its first line {first!r} opens a PrefLib rankings file, not a "
            "score table, and its name does not end in .soc, .soi, .toc or .toi: rename it, "
            "or read it with "
        )
        + "{format}",
        format=Spelled(
            "rs.read_rankings(path, format='preflib')", "--format preflib (rankstats fit, report)"
        ),
    )


def _single_column_hint(source: _read.Source) -> str:
    """A template (its field ``{sep}`` is given by the caller)."""
    if source.kind == "csv" and len(source.columns) == 1:
        return (
            " (the header has no "
            + escape(_dialect.delimiter_name(source.delimiter))
            + ": if the file is separated by another character, pass {sep})"
        )
    return ""


def _where(source: _read.Source, named: bool = False) -> Where:
    """File lines (``line 7``) of rows given by position; ``named``: with the file name, for
    messages that do not begin with the path."""

    def where(positions: np.ndarray) -> list[str]:
        prefix = f"{source.name} " if named else ""
        return [prefix + label for label in _tables.locate(source, positions)]

    return where


def _refuse_empty(source: _read.Source, table: object) -> None:
    if table.num_rows == 0:  # type: ignore[attr-defined]
        raise UnreadableFileError(f"{source.path} has a header but no rows: it holds no scores")


def _text_keys(source: _read.Source, table: object, key: str) -> pd.Series:
    """A key column as text (a pandas Categorical); blank keys refused with their lines."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        column = _cells.keys_as_text(table.column(key))  # type: ignore[attr-defined]
    except InvalidScoresError as err:
        raise InvalidScoresError(f"{source.path}: column {key!r}: {err}") from None
    _cells.check_keys(source, column, key)
    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)
    return pd.Series(column.to_pandas(), name=key)


_NOT_A_TASK = "; if it is not a task, choose the task columns with {tasks}"


def _warn_na(source: _read.Source, count: int, na_values: Sequence[str] | None) -> None:
    if count and na_values:
        warnings.warn(
            _cells.na_warning(source.path, count, na_values),
            DataWarning,
            stacklevel=user_stacklevel(),
        )


def _read_long(
    source: _read.Source,
    system: str,
    task: str | None,
    instance: str | None,
    score: str,
    higher_is_better: Direction,
    na_values: Sequence[str] | None,
    name: str,
) -> Scores:
    system_columns = _keys.key_columns(system)
    keys = list(dict.fromkeys(c for c in (*system_columns, task, instance) if c is not None))
    table = _tables.read_table(source, [*keys, score], keys=keys)
    _refuse_empty(source, table)
    frame = {key: _text_keys(source, table, key) for key in keys}
    if len(system_columns) > 1:
        system = _keys.key_label(system_columns)
        joined = _keys.join_keys(pd.DataFrame(frame), system_columns, _where(source))
        frame = {system: joined, **{k: v for k, v in frame.items() if k not in system_columns}}
    values, n_na = _cells.score_column(source, table.column(score), score, na_values)
    frame[score] = pd.Series(values)
    _warn_na(source, n_na, na_values)
    return Scores.from_long(
        pd.DataFrame(frame),
        system,
        task,
        instance,
        score,
        higher_is_better,
        name,
        where=_where(source, named=True),
    )


def _read_wide(
    source: _read.Source,
    system: str | Sequence[str],
    higher_is_better: Direction,
    tasks: Sequence[str] | None,
    na_values: Sequence[str] | None,
    name: str,
    layout: str,
    drop_columns: Sequence[str] | None = None,
) -> Scores:
    system_columns = _keys.key_columns(system)
    task_cols = (
        list(tasks)
        if tasks is not None
        else _columns.drop([c for c in source.columns if c not in system_columns], drop_columns)
    )
    unnamed = [k for k, c in enumerate(source.columns, 1) if c in task_cols and not c.strip()]
    if unnamed:
        raise AdviceScoresError(
            escape(
                f"{source.path}: column(s) {preview(unnamed)} have no name in the header of this "
                "wide table: name them, or choose the task columns with "
            )
            + "{tasks}",
            **keywords("tasks"),
        )
    _keys.refuse_whitespace_variants(
        "task",
        task_cols,
        lambda spellings: [f"column {source.columns.index(c) + 1}" for c in spellings],
        prefix=f"{source.path}: ",
    )
    table = _tables.read_table(source, [*system_columns, *task_cols], keys=system_columns)
    _refuse_empty(source, table)
    keys = pd.DataFrame({c: _text_keys(source, table, c).astype(str) for c in system_columns})
    if len(system_columns) > 1:
        system = _keys.key_label(system_columns)
        names = _keys.join_keys(keys, system_columns, _where(source)).rename(system)
    else:
        names = keys[system].rename(system)
    if names.duplicated().any():
        full = _tables.read_table(source).to_pandas()
        long_hint = (
            escape(
                f"if this is not a wide table (one row per system) but a long one whose task and "
                f"score columns are not named 'task' and 'score' (the columns are: "
                f"{preview(map(repr, source.columns), 20)}), name them with "
            )
            + "{long_columns}"
        )
        _keys.refuse_repeated_systems(
            full,
            names,
            system_columns,
            _where(source),
            tasks,
            prefix=f"{source.path}: ",
            long_hint=long_hint if layout == "auto" else "",
            long_columns=Spelled("task= and score=", "--task NAME --score NAME"),
        )
    _keys.refuse_whitespace_variants(
        "system", names, _keys.first_rows_of(names, _where(source)), prefix=f"{source.path}: "
    )

    def where(positions: np.ndarray) -> list[str]:
        lines = _tables.locate(source, positions)
        return [
            f"{line} (system {names.iloc[p]!r})" for line, p in zip(lines, positions, strict=True)
        ]

    frame: dict[str, object] = {system: names}
    missing = 0
    for column in task_cols:
        values, n_na = _cells.score_column(
            source, table.column(column), column, na_values, where=where, choose=_NOT_A_TASK
        )
        frame[column] = values
        missing += n_na
    _warn_na(source, missing, na_values)
    if tasks is None:  # aggregates and metadata, by name and by value
        _columns.refuse(pd.DataFrame(frame), task_cols, f"{source.path}: ", higher_is_better)
    return Scores.from_wide(
        pd.DataFrame(frame),
        system=system,
        higher_is_better=higher_is_better,
        tasks=task_cols,
        name=name,
    )


def read_score_columns(
    path: str | Path,
    sep: str | None = None,
    encoding: str = "utf-8",
    na_values: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Every column of a file as scores: the layout of paired files (pairformance), one row per
    instance and one column per system.

    The same rules as :func:`rankstats.read_scores`: unreadable files, duplicated columns and
    ragged rows are refused; a blank cell is missing; missing-value words are refused unless
    listed in ``na_values`` (then a ``DataWarning`` counts them); other text is refused with its
    line numbers.

    Returns
    -------
    pandas.DataFrame
        Float columns named as in the file (NaN = not evaluated).
    """
    source = inspect(path, sep, encoding)
    table = read_table(source)
    columns, n_na = {}, 0
    for name in table.column_names:
        values, count = score_column(source, table.column(name), name, na_values, choose="")
        columns[name] = values
        n_na += count
    if n_na:
        warnings.warn(na_warning(source.path, n_na, na_values or ()), DataWarning, stacklevel=2)
    return pd.DataFrame(columns)
