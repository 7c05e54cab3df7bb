"""Validated score tables.

A :class:`Scores` object is a long table ``system, task, [instance], score`` in which every score is
finite, every key is unique, and every score is oriented so that **higher is better** (tasks where
lower is better are negated once, here, and never again).  Rows with a missing score mean "not
evaluated": they are removed from :attr:`Scores.data` but the system stays in
:attr:`Scores.systems`.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats.core import keys as _keys
from rankstats.core import wide_columns as _columns
from rankstats.errors import DataWarning, InvalidScoresError, UnreadableFileError, preview
from rankstats.io import sources as _read

Direction = bool | Mapping[str, bool | str]

_DIRECTION_WORDS = {
    "higher": True,
    "higher_is_better": True,
    "max": True,
    "lower": False,
    "lower_is_better": False,
    "min": False,
}


def _parse_direction(value: object, task: str) -> bool:
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, str) and value.lower() in _DIRECTION_WORDS:
        return _DIRECTION_WORDS[value.lower()]
    raise InvalidScoresError(
        f"unknown direction {value!r} for task {task!r}: use True/False or 'higher'/'lower'"
    )


def parse_directions(tasks: Sequence[str], higher_is_better: Direction) -> dict[str, bool]:
    """``{task: True if higher is better}`` from a bool, or a dict of bools / words.

    The one parser of directions: in-memory tables (:class:`Scores`), streamed files
    (:func:`rankstats.scan_scores`) and the CLI's ``--lower-is-better`` all go through it.
    Words: ``"higher"``, ``"higher_is_better"``, ``"max"`` / ``"lower"``, ``"lower_is_better"``,
    ``"min"`` (any case). Anything else, and a task not in ``tasks``, is refused.
    """
    tasks = list(tasks)
    if isinstance(higher_is_better, Mapping):
        unknown = [t for t in higher_is_better if t not in set(tasks)]
        if unknown:
            raise InvalidScoresError(
                f"higher_is_better names tasks that are not in the table: {preview(unknown)}; "
                f"tasks are: {preview(tasks)}"
            )
        return {t: _parse_direction(higher_is_better.get(t, True), t) for t in tasks}
    direction = _parse_direction(higher_is_better, "<all tasks>")
    return {t: direction for t in tasks}


Where = Callable[[np.ndarray], Sequence["str | None"]]


def _user_level() -> int:
    """``stacklevel`` of the first caller outside rankstats, for the function calling this: a
    warning points at the user's line whichever constructor or reader led to it."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


_PACKAGE = str(Path(__file__).resolve().parent)


def _row_report(
    df: pd.DataFrame,
    mask: np.ndarray,
    columns: list[str],
    limit: int = 5,
    where: Where | None = None,
) -> str:
    """Up to ``limit`` offending rows, each named by ``where(positions)`` (default: the
    DataFrame's index labels; a file reader names file lines) and shown with ``columns``."""
    positions = np.flatnonzero(mask)[:limit]
    labels = where(positions) if where else [f"row {df.index[p]}" for p in positions]
    rows = df.iloc[positions]
    lines = [
        (f"{label}: " if label else "") + ", ".join(f"{c}={row[c]!r}" for c in columns)
        for label, (_, row) in zip(labels, rows.iterrows(), strict=True)
    ]
    extra = int(mask.sum()) - len(rows)
    if extra > 0:
        lines.append(f"... and {extra} more rows")
    return "\n  " + "\n  ".join(lines)


def _numeric_scores(
    df: pd.DataFrame, score: str, keys: list[str], where: Where | None = None
) -> np.ndarray:
    raw = df[score]
    if pd.api.types.is_bool_dtype(raw):
        raise InvalidScoresError(f"score column {score!r} is boolean; scores must be numbers")
    if pd.api.types.is_numeric_dtype(raw):
        values = raw.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        coerced = pd.to_numeric(raw, errors="coerce")
        bad = (coerced.isna() & raw.notna()).to_numpy()
        # An empty or blank string in a text column is a missing score, not a malformed one.
        blank = raw.astype("string").str.strip().eq("").fillna(False).to_numpy(dtype=bool)
        bad = bad & ~blank
        if bad.any():
            raise InvalidScoresError(
                f"non-numeric scores in column {score!r}:"
                + _row_report(df, bad, [*keys, score], where=where)
            )
        values = coerced.to_numpy(dtype=np.float64, na_value=np.nan)
    inf = np.isinf(values)
    if inf.any():
        raise InvalidScoresError(
            f"infinite scores in column {score!r} (use NaN for 'not evaluated'):"
            + _row_report(df, inf, [*keys, score], where=where)
        )
    return values


# A direct-address table (one cell per possible key) replaces a hash table when it has at most
# this many cells per row, plus a floor: filling and reading it is a few linear passes, while
# hashing millions of distinct keys misses the cache on nearly every row (8 M rows: 0.1 s against
# 1.0 s for ``Series.duplicated``).
_TABLE_CELLS_PER_ROW = 4
_TABLE_MIN_CELLS = 1 << 22


def _small_table(span: int, n_rows: int) -> bool:
    return span <= _TABLE_CELLS_PER_ROW * n_rows + _TABLE_MIN_CELLS


def _integer_offsets(column: pd.Series) -> tuple[np.ndarray, np.integer, int] | None:
    """``(value − min, min, max − min + 1)`` of a NumPy integer column whose range is compact
    (see :func:`_small_table`), else ``None``: such a column is its own code, no hash table."""
    if not (isinstance(column.dtype, np.dtype) and column.dtype.kind in "iu" and len(column)):
        return None
    values = column.to_numpy()
    low, high = values.min(), values.max()
    span = int(high) - int(low) + 1
    if not _small_table(span, len(values)):
        return None
    if values.dtype.kind == "u":  # values ≥ low: no wrap-around
        return (values - low).astype(np.int64), low, span
    return np.subtract(values, np.int64(low), dtype=np.int64), low, span


def _instance_codes(column: pd.Series) -> tuple[np.ndarray, int]:
    """Codes of an instance column (equal codes for equal values, ``-1`` for a missing key) and
    their range."""
    offsets = _integer_offsets(column)
    if offsets is not None:
        return offsets[0], offsets[2]
    code, uniques = pd.factorize(column)
    return code, len(uniques)


def dense_codes(key: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(key, sort=True)`` for integers ``key`` in ``[0, span)``: codes
    ``0 .. k − 1`` in increasing order of value (int64) and the ``k`` distinct values, from a
    table of ``span`` flags when that is small (no hash table), else by ``pd.factorize``."""
    if _small_table(span, len(key)):
        present = np.zeros(span, dtype=bool)
        present[key] = True
        rank = np.cumsum(present, dtype=np.int32 if len(key) < 2**31 else np.int64)
        return (rank[key] - 1).astype(np.int64), np.flatnonzero(present)
    code, uniques = pd.factorize(key, sort=True)
    return code.astype(np.int64, copy=False), np.asarray(uniques, dtype=np.int64)


def sorted_codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(column, sort=True)`` as (int64 codes, labels as an array), without a hash
    table for a NumPy integer column of compact range: codes are then ``value − min`` and the
    labels ``min .. max`` (values absent from the column included; ``labels[codes]`` is the
    column either way)."""
    offsets = _integer_offsets(column)
    if offsets is not None:
        code, low, span = offsets
        if column.dtype.kind == "u":
            return code, low + np.arange(span, dtype=column.dtype)
        return code, (np.arange(span, dtype=np.int64) + np.int64(low)).astype(column.dtype)
    code, uniques = pd.factorize(column, sort=True)
    return code.astype(np.int64, copy=False), np.asarray(uniques)


def _duplicated(key: np.ndarray, span: int) -> np.ndarray | None:
    """``None`` when the integers ``key`` (in ``[0, span)``) are distinct, else the mask of every
    row whose key appears more than once (``Series.duplicated(keep=False)``)."""
    if _small_table(span, len(key)):
        present = np.zeros(span, dtype=bool)
        present[key] = True
        if np.count_nonzero(present) == len(key):
            return None
        return np.bincount(key, minlength=span)[key] > 1
    ordered = np.sort(key)
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    return pd.Series(key).duplicated(keep=False).to_numpy()


def _row_codes(data: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    """``(system, task, ranking, n_rankings)`` codes of a validated long table's rows."""
    system_code = data["system"].cat.codes.to_numpy(np.int64)
    task_code = data["task"].cat.codes.to_numpy(np.int64)
    if "instance" not in data.columns:
        return system_code, task_code, None, len(data["task"].cat.categories)
    inst_code, n_inst = _instance_codes(data["instance"])
    n_tasks = len(data["task"].cat.categories)
    ranking, distinct = dense_codes(task_code * n_inst + inst_code, n_tasks * n_inst)
    return system_code, task_code, ranking, len(distinct)


@dataclass(frozen=True, eq=False, repr=False)
class Scores:
    """A validated long table of scores, higher = better.

    Build it with :meth:`from_long`, :meth:`from_wide`, :func:`read_scores` or
    :func:`rankstats.load_dataset`; do not call the constructor directly.

    Attributes
    ----------
    data : pandas.DataFrame
        Columns ``system``, ``task``, [``instance``], ``score`` (categorical keys, float scores),
        only evaluated rows, scores already oriented so that higher is better.
    systems : tuple of str
        Every system of the input, including systems that were evaluated nowhere.
    tasks : tuple of str
        The tasks kept (tasks with fewer than two evaluated systems are in ``skipped_tasks``).
    higher_is_better : dict
        The original direction of each task (``False`` tasks were negated in ``data``).
    skipped_tasks : tuple of str
        Tasks set aside because fewer than two systems were evaluated on them.
    skipped_instances : pandas.DataFrame
        (task, instance) pairs set aside because fewer than two systems were evaluated on them.
    name : str
        A label used in reports (the data set or file name).
    """

    data: pd.DataFrame
    systems: tuple[str, ...]
    tasks: tuple[str, ...]
    higher_is_better: dict[str, bool]
    skipped_tasks: tuple[str, ...] = ()
    skipped_instances: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=["task", "instance"])
    )
    name: str = ""
    # Rankings derived from this table, built once per level (Rankings.from_scores). A Scores
    # object is treated as immutable: editing ``data`` in place is not supported.
    _derived: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_long(
        cls,
        df: pd.DataFrame,
        system: str | Sequence[str] = "system",
        task: str | None = "task",
        instance: str | None = None,
        score: str = "score",
        higher_is_better: Direction = True,
        name: str = "",
    ) -> Scores:
        """Validate a long table with one row per (system, task[, instance]).

        Parameters
        ----------
        df : pandas.DataFrame
            The table. Extra columns are ignored.
        system, task, instance, score : str
            Column names. ``task=None`` means a single task called ``"score"``; ``instance=None``
            means task-level scores (one score per system and task). ``system`` may be a list of
            columns that name a system together (``["name", "pretrained"]``): their values are
            joined as ``"RN50 / openai"``; keys that would read the same once joined are refused.
            System or task names that differ only by surrounding whitespace are refused.
        higher_is_better : bool or dict
            Direction of every task, or a ``{task: bool}`` dict (tasks not listed are
            higher-is-better; ``"higher"`` / ``"lower"`` are accepted too).
        name : str
            Label for reports.

        Raises
        ------
        InvalidScoresError
            Missing columns, missing keys, non-numeric or infinite scores, duplicated keys,
            unknown tasks or directions in ``higher_is_better``. The message names the rows.

        Examples
        --------
        >>> import pandas as pd, rankstats as rs
        >>> df = pd.DataFrame({"system": ["a", "b", "a", "b"], "task": ["t1", "t1", "t2", "t2"],
        ...                    "score": [0.9, 0.8, 3.0, 2.0]})
        >>> rs.Scores.from_long(df, higher_is_better={"t2": False}).data.score.tolist()
        [0.9, 0.8, -3.0, -2.0]
        """
        return cls._from_long(df, system, task, instance, score, higher_is_better, name)

    @classmethod
    def _from_long(
        cls,
        df: pd.DataFrame,
        system: str | Sequence[str] = "system",
        task: str | None = "task",
        instance: str | None = None,
        score: str = "score",
        higher_is_better: Direction = True,
        name: str = "",
        where: Where | None = None,
    ) -> Scores:
        """:meth:`from_long`; ``where(positions)`` names offending rows in errors (a file reader
        names its lines; default: the DataFrame's index labels)."""
        df = pd.DataFrame(df)
        if where is None:
            index = df.index

            def where(positions: np.ndarray) -> list[str]:
                return [f"row {index[p]}" for p in positions]

        df = df.reset_index(drop=True)
        if task is None:
            df = df.assign(task="score")
            task = "task"
        if not isinstance(system, str):
            df, system = _keys.joined_system(df, system, where)
        columns = [system, task] + ([instance] if instance else []) + [score]
        missing = [c for c in columns if c not in df.columns]
        if missing:
            raise InvalidScoresError(
                f"column(s) {preview(missing)} not found; the table has: {preview(df.columns, 20)}"
            )
        keys = columns[:-1]
        # Factorise each key once: validation, duplicates and categories all work on int codes
        # (turning millions of keys into Python strings would dominate time and memory).
        codes, sizes, labels = [], [], []
        for position, key in enumerate(keys):
            if position == 2:  # instances: only their equality matters, not their labels
                code, size = _instance_codes(df[key])
                uniques = None
            else:
                code, uniques = pd.factorize(df[key])
                size = len(uniques)
            if (code < 0).any():
                raise InvalidScoresError(
                    f"missing {key!r} key:" + _row_report(df, code < 0, columns, where=where)
                )
            codes.append(code.astype(np.int64, copy=False))
            sizes.append(size)
            labels.append(uniques)
        values = _numeric_scores(df, score, keys, where)

        # One code per ranking: (task, instance) pairs, or tasks; then one per (ranking, system).
        if instance:
            ranking, distinct = dense_codes(codes[1] * sizes[2] + codes[2], sizes[1] * sizes[2])
            n_rankings = len(distinct)
        else:
            ranking, n_rankings = codes[1], sizes[1]
        duplicated = _duplicated(ranking * sizes[0] + codes[0], n_rankings * sizes[0])
        if duplicated is not None:
            raise InvalidScoresError(
                f"duplicated ({', '.join(keys)}) keys; each must appear once:"
                + _row_report(df, duplicated, columns, where=where)
            )

        systems = tuple(str(u) for u in labels[0])
        all_tasks = tuple(str(u) for u in labels[1])
        for kind, names, code in (("system", systems, codes[0]), ("task", all_tasks, codes[1])):
            if len(set(names)) != len(names):
                raise InvalidScoresError(
                    f"distinct {kind} keys become the same name as text (e.g. 1 and '1'): "
                    f"{preview(sorted({n for n in names if names.count(n) > 1}))}"
                )
            _keys.refuse_whitespace_variants(kind, names, _keys.first_rows(names, code, where))
        directions = parse_directions(all_tasks, higher_is_better)
        task_sign = np.array([1.0 if directions[t] else -1.0 for t in all_tasks])

        # Only evaluated rows are kept: select each column once, before building the frame.
        evaluated = ~np.isnan(values)
        every = bool(evaluated.all())

        def kept(array: np.ndarray) -> np.ndarray:
            return array if every else array[evaluated]

        system_code, task_code = kept(codes[0]), kept(codes[1])
        columns_out = {
            "system": pd.Categorical.from_codes(
                system_code, categories=list(systems), validate=False
            ),
            "task": pd.Categorical.from_codes(
                task_code, categories=list(all_tasks), validate=False
            ),
        }
        if instance:
            # A copy of the caller's column, its dtype inferred from all its rows (as before the
            # unevaluated rows are dropped: an object column stays object).
            column = pd.Series(df[instance].to_numpy(), copy=True)
            if not every:
                column = column[evaluated].reset_index(drop=True)
            columns_out["instance"] = column
        columns_out["score"] = kept(values) * task_sign[task_code]
        out = pd.DataFrame(columns_out, copy=False)
        return cls._finish(
            out,
            systems,
            all_tasks,
            directions,
            name,
            codes=(system_code, task_code, kept(ranking) if instance else None, n_rankings),
        )

    @classmethod
    def from_wide(
        cls,
        df: pd.DataFrame,
        system: str | Sequence[str] | None = "system",
        higher_is_better: Direction = True,
        tasks: Sequence[str] | None = None,
        name: str = "",
        drop_columns: Sequence[str] | None = None,
    ) -> Scores:
        """Validate a wide table: one row per system, one column per task (a leaderboard).

        Parameters
        ----------
        df : pandas.DataFrame
            The table; empty cells (NaN) mean "not evaluated".
        system : str, list of str, or None
            Column holding the system names; ``None`` uses the index; a list: columns that name
            a system together, joined as ``"RN50 / openai"``. A system on two rows is refused,
            naming its rows and the columns that would identify every row.
        higher_is_better : bool or dict
            As in :meth:`from_long`.
        tasks : sequence of str, optional
            Task columns to use (default: every other column).
        name : str
            Label for reports.
        drop_columns : sequence of str, optional
            Columns that are neither keys nor tasks (an average, parameter counts), left out;
            the other columns are the tasks.

        Examples
        --------
        >>> import pandas as pd, rankstats as rs
        >>> df = pd.DataFrame({"system": ["a", "b", "c"], "t1": [1, 2, 3], "t2": [3, None, 1]})
        >>> rs.Scores.from_wide(df).data.shape
        (5, 3)

        A column that equals the row mean, median or sum of the others, or is named like an
        aggregate (``Average``, ``Avg``, ``Overall``, ``Total``, ``rank``, ...) or like metadata
        (``params``, ``FLOPs``, ``release date``, ...) is refused, naming each column and why,
        unless ``tasks`` or ``drop_columns`` says what to do: ranking it as a task would count
        the other tasks twice or rank systems by size.

        >>> df["Average"] = df[["t1", "t2"]].mean(axis=1)
        >>> rs.Scores.from_wide(df, tasks=["t1", "t2"]).tasks
        ('t1', 't2')
        >>> rs.Scores.from_wide(df, drop_columns=["Average"]).tasks
        ('t1', 't2')
        """
        df = pd.DataFrame(df)
        if system is None:
            df = df.rename_axis("system").reset_index()
            system = "system"
        index = df.index

        def rows(positions: np.ndarray) -> list[str]:
            return [f"row {index[p]}" for p in positions]

        original, keys = df, [system] if isinstance(system, str) else list(system)
        if not isinstance(system, str):
            df, system = _keys.joined_system(df.reset_index(drop=True), system, rows)
        if system not in df.columns:
            raise InvalidScoresError(
                f"system column {system!r} not found; the table has: {preview(df.columns, 20)}"
            )
        names = df[system]
        _keys.refuse_repeated_systems(original, names, keys, rows, tasks)
        _keys.refuse_whitespace_variants(
            "system", names.astype(str), _keys.first_rows_of(names.astype(str), rows)
        )
        if tasks is not None:
            if drop_columns:
                raise ValueError("give tasks= or drop_columns=, not both")
            task_cols = list(tasks)
            absent = [t for t in task_cols if t not in df.columns or t == system]
            if absent:
                raise InvalidScoresError(
                    f"task column(s) {preview(map(repr, absent))} not found; the table has: "
                    f"{preview(map(repr, df.columns), 20)}"
                )
        else:
            task_cols = _columns.drop([c for c in df.columns if c != system], drop_columns)
            _columns.refuse(df, task_cols, declared=higher_is_better)
        if not task_cols:
            raise InvalidScoresError("the wide table has no task columns")
        # Stacked column by column (as melt, which refuses a task column named "score").
        long = pd.DataFrame(
            {
                "system": np.tile(df[system].to_numpy(), len(task_cols)),
                "task": np.repeat(np.array(task_cols, dtype=object), len(df)),
                "score": pd.concat([df[c] for c in task_cols], ignore_index=True),
            }
        )
        # Errors name the system and the task (shown with each row), not the row of the
        # melted long table, which the user never saw.
        return cls._from_long(
            long,
            "system",
            "task",
            None,
            "score",
            higher_is_better,
            name,
            where=lambda positions: [None] * len(positions),
        )

    @classmethod
    def _finish(
        cls,
        data: pd.DataFrame,
        systems: tuple[str, ...],
        all_tasks: tuple[str, ...],
        directions: dict[str, bool],
        name: str,
        codes: tuple[np.ndarray, np.ndarray, np.ndarray | None, int] | None = None,
    ) -> Scores:
        """Set aside tasks / instances with fewer than two evaluated systems, warn, build.

        ``codes``: ``(system, task, ranking, n_rankings)`` codes of the rows of ``data``, as
        :meth:`_from_long` computed them (``ranking``: the (task, instance) pair, ``None``
        at task level); recomputed from ``data`` when not given.
        """
        has_instances = "instance" in data.columns
        if codes is None:
            codes = _row_codes(data)
        system_code, task_code, ranking, n_rankings = codes
        n_sys = len(systems)
        # Distinct evaluated systems per task, from a (task, system) presence table.
        seen = np.zeros(len(all_tasks) * n_sys, dtype=bool)
        seen[task_code * n_sys + system_code] = True
        per_task = seen.reshape(len(all_tasks), n_sys).sum(axis=1)
        skipped = tuple(t for t, count in zip(all_tasks, per_task, strict=True) if count < 2)
        if skipped:
            warnings.warn(
                f"task(s) with fewer than two evaluated systems carry no ranking information "
                f"and were skipped: {preview(skipped)}",
                DataWarning,
                stacklevel=_user_level(),
            )
            rows = per_task[task_code] >= 2
            data, system_code, task_code = data[rows], system_code[rows], task_code[rows]
            ranking = ranking[rows] if ranking is not None else None
        tasks = tuple(t for t in all_tasks if t not in skipped)
        data = data.assign(task=data["task"].cat.set_categories(list(tasks)))

        skipped_instances = pd.DataFrame(columns=["task", "instance"])
        if has_instances and len(data):
            per_ranking = np.bincount(ranking, minlength=n_rankings)
            lonely = per_ranking[ranking] < 2 if (per_ranking == 1).any() else None
            if lonely is not None:
                skipped_instances = (
                    data.loc[lonely, ["task", "instance"]]
                    .astype({"task": str})
                    .reset_index(drop=True)
                )
                warnings.warn(
                    f"{len(skipped_instances)} (task, instance) ranking(s) with fewer than two "
                    f"evaluated systems carry no information and were skipped, e.g. "
                    f"{preview(map(tuple, skipped_instances.head(3).to_numpy()), 3)}",
                    DataWarning,
                    stacklevel=_user_level(),
                )
                data, system_code = data[~lonely], system_code[~lonely]
                # A task all of whose instances were set aside ranks nothing: skip it too, or
                # σ^2l would count it as an all-unobserved ranking (the streamed path does not).
                left = set(data["task"].unique())
                emptied = tuple(t for t in tasks if t not in left)
                if emptied:
                    warnings.warn(
                        f"task(s) in which no (task, instance) ranking has two evaluated systems "
                        f"carry no ranking information and were skipped: {preview(emptied)}",
                        DataWarning,
                        stacklevel=_user_level(),
                    )
                    skipped += emptied
                    tasks = tuple(t for t in tasks if t not in emptied)
                    data = data.assign(task=data["task"].cat.set_categories(list(tasks)))

        evaluated = np.bincount(system_code, minlength=n_sys) > 0
        nowhere = [s for s, seen_s in zip(systems, evaluated, strict=True) if not seen_s]
        if nowhere:
            warnings.warn(
                f"system(s) evaluated on no task are kept but carry no information: "
                f"{preview(nowhere)}",
                DataWarning,
                stacklevel=_user_level(),
            )
        data = data.reset_index(drop=True)
        return cls(
            data=data,
            systems=systems,
            tasks=tasks,
            higher_is_better=directions,
            skipped_tasks=skipped,
            skipped_instances=skipped_instances,
            name=name,
        )

    # ------------------------------------------------------------------ views
    def cached(self, key: object, build: Callable[[], object]) -> object:
        """``build()`` once per ``key``, then the same object (results derived from this
        immutable object, such as its rankings or pairwise statistics, are computed once)."""
        if key not in self._derived:
            self._derived[key] = build()
        return self._derived[key]

    @property
    def has_instances(self) -> bool:
        """Whether the table holds instance-level scores."""
        return "instance" in self.data.columns

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @property
    def n_tasks(self) -> int:
        return len(self.tasks)

    @property
    def unevaluated_systems(self) -> tuple[str, ...]:
        """Systems with no score at all (kept, reported)."""
        seen = set(self.data["system"].unique())
        return tuple(s for s in self.systems if s not in seen)

    def to_task_level(self) -> Scores:
        """Mean over instances of each (system, task): the papers' instance-level aggregation.

        Returns ``self`` when the table is already task level.
        """
        if not self.has_instances:
            return self
        n_sys = len(self.systems)
        code = self.data["task"].cat.codes.to_numpy(np.int64) * n_sys + self.data[
            "system"
        ].cat.codes.to_numpy(np.int64)
        size = len(self.tasks) * n_sys
        sums = np.bincount(code, weights=self.data["score"].to_numpy(), minlength=size)
        counts = np.bincount(code, minlength=size)
        keep = np.flatnonzero(counts)
        task_idx, sys_idx = np.divmod(keep, n_sys)
        data = pd.DataFrame(
            {
                "system": pd.Categorical.from_codes(sys_idx, categories=list(self.systems)),
                "task": pd.Categorical.from_codes(task_idx, categories=list(self.tasks)),
                "score": sums[keep] / counts[keep],
            }
        )
        return Scores(
            data=data,
            systems=self.systems,
            tasks=self.tasks,
            higher_is_better=self.higher_is_better,
            skipped_tasks=self.skipped_tasks,
            name=self.name,
        )

    def to_wide(self) -> pd.DataFrame:
        """Systems × tasks table of (task-level, oriented) scores; NaN = not evaluated."""
        task_level = self.to_task_level().data
        wide = task_level.pivot(index="system", columns="task", values="score")
        return wide.reindex(index=list(self.systems), columns=list(self.tasks))

    def select(self, tasks: Sequence[str]) -> Scores:
        """The same table restricted to some tasks."""
        unknown = [t for t in tasks if t not in self.tasks]
        if unknown:
            raise KeyError(f"unknown task(s) {preview(unknown)}; tasks are {preview(self.tasks)}")
        data = self.data[self.data["task"].isin(list(tasks))].copy()
        data["task"] = data["task"].cat.set_categories(list(tasks))
        return Scores(
            data=data.reset_index(drop=True),
            systems=self.systems,
            tasks=tuple(tasks),
            higher_is_better={t: self.higher_is_better[t] for t in tasks},
            name=self.name,
        )

    def __repr__(self) -> str:
        level = "instance" if self.has_instances else "task"
        n_inst = ""
        if self.has_instances:
            n_rank = self.data.groupby(["task", "instance"], observed=True).ngroups
            n_inst = f", {n_rank} (task, instance) rankings"
        lower = [t for t, h in self.higher_is_better.items() if not h and t in self.tasks]
        cells = len(self.systems) * len(self.tasks)
        missing = ""
        if not self.has_instances and cells:
            missing = f", {1 - len(self.data) / cells:.1%} missing"
        parts = [
            f"Scores({self.name + ': ' if self.name else ''}{len(self.systems)} systems × "
            f"{len(self.tasks)} tasks, {level} level{n_inst}, {len(self.data)} scores{missing}"
        ]
        if lower:
            parts.append(f"lower-is-better (negated): {preview(lower, 4)}")
        if self.skipped_tasks:
            parts.append(f"skipped tasks: {preview(self.skipped_tasks, 4)}")
        if self.unevaluated_systems:
            parts.append(f"never evaluated: {preview(self.unevaluated_systems, 4)}")
        return "; ".join(parts) + ")"


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
    present = set(source.columns)
    absent = []
    system_columns = _keys.key_columns(system)
    if any(c not in present for c in system_columns):
        absent.append(f"system={system!r}")
    for option, column, default in (("task", task, "task"), ("score", score, "score")):
        # A default name that is absent only means "not a long table"; a chosen one is a typo.
        if column is not None and column != default and column not in present:
            absent.append(f"{option}={column!r}")
    if isinstance(instance, str) and instance not in present:
        absent.append(f"instance={instance!r}")
    absent += [f"tasks=[{t!r}]" for t in tasks or () if t not in present]
    absent += [f"drop_columns=[{t!r}]" for t in drop_columns or () if t not in present]
    if absent:
        raise InvalidScoresError(
            f"{source.path}: no column named as {', '.join(absent)} asks (CLI: --system, --task, "
            f"--score, --instance, --tasks, --drop-columns); the columns are: "
            f"{preview(map(repr, source.columns), 20)}{_single_column_hint(source)}"
        )
    chosen = layout
    if layout == "auto":
        chosen = "long" if (task is None or task in present) and score in present else "wide"
    name = Path(path).name.split(".")[0]
    if chosen == "wide":
        if isinstance(instance, str):
            raise ValueError("instance= applies to long tables (one row per score)")
        if tasks is not None and drop_columns:
            raise ValueError(
                "give tasks= or drop_columns= (CLI: --tasks or --drop-columns), not both"
            )
        return _read_wide(
            source, system, higher_is_better, tasks, na_values, name, layout, drop_columns
        )
    if drop_columns:
        raise ValueError(
            "drop_columns= (CLI: --drop-columns) leaves columns out of a wide table; select "
            "tasks of a long table with Scores.select"
        )
    if tasks is not None:
        raise ValueError(
            "tasks= chooses the task columns of a wide table; select tasks of a long table "
            "with Scores.select"
        )
    needed = [c for c in (task, score) if c is not None and c not in present]
    if needed:
        raise InvalidScoresError(
            f"{source.path}: a long table needs the column(s) {preview(map(repr, needed))}; the "
            f"columns are: {preview(map(repr, source.columns), 20)} (name them with task= and "
            "score=, CLI: --task / --score)"
        )
    if instance is None:
        instance = "instance" if "instance" in present else None
    elif instance is False:
        instance = None
    return _read_long(source, system, task, instance, score, higher_is_better, na_values, name)


def _single_column_hint(source: _read.Source) -> str:
    if source.kind == "csv" and len(source.columns) == 1:
        return (
            f" (the header has no {_read._delimiter_name(source.delimiter)}: if the file is "
            "separated by another character, pass sep=, CLI: --sep)"
        )
    return ""


def _where(source: _read.Source, named: bool = False) -> Where:
    """File lines (``line 7``) of rows given by position; ``named``: with the file name, for
    messages that do not begin with the path."""

    def where(positions: np.ndarray) -> list[str]:
        prefix = f"{source.name} " if named else ""
        return [prefix + label for label in _read.locate(source, positions)]

    return where


def _refuse_empty(source: _read.Source, table: object) -> None:
    if table.num_rows == 0:  # type: ignore[attr-defined]
        raise UnreadableFileError(f"{source.path} has a header but no rows: it holds no scores")


def _text_keys(source: _read.Source, table: object, key: str) -> pd.Series:
    """A key column as text (a pandas Categorical); blank keys refused with their lines."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        column = _read.keys_as_text(table.column(key))  # type: ignore[attr-defined]
    except InvalidScoresError as err:
        raise InvalidScoresError(f"{source.path}: column {key!r}: {err}") from None
    _read.check_keys(source, column, key)
    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)
    return pd.Series(column.to_pandas(), name=key)


_NOT_A_TASK = "; if it is not a task, choose the task columns with tasks= (CLI: --tasks)"


def _warn_na(source: _read.Source, count: int, na_values: Sequence[str] | None) -> None:
    if count and na_values:
        warnings.warn(
            _read.na_warning(source.path, count, na_values), DataWarning, stacklevel=_user_level()
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
    table = _read.read_table(source, [*keys, score], keys=keys)
    _refuse_empty(source, table)
    frame = {key: _text_keys(source, table, key) for key in keys}
    if len(system_columns) > 1:
        system = _keys.key_label(system_columns)
        joined = _keys.join_keys(pd.DataFrame(frame), system_columns, _where(source))
        frame = {system: joined, **{k: v for k, v in frame.items() if k not in system_columns}}
    values, n_na = _read.score_column(source, table.column(score), score, na_values)
    frame[score] = pd.Series(values)
    _warn_na(source, n_na, na_values)
    return Scores._from_long(
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
        raise InvalidScoresError(
            f"{source.path}: column(s) {preview(unnamed)} have no name in the header of this wide "
            "table: name them, or choose the task columns with tasks= (CLI: --tasks)"
        )
    _keys.refuse_whitespace_variants(
        "task",
        task_cols,
        lambda spellings: [f"column {source.columns.index(c) + 1}" for c in spellings],
        prefix=f"{source.path}: ",
    )
    table = _read.read_table(source, [*system_columns, *task_cols], keys=system_columns)
    _refuse_empty(source, table)
    keys = pd.DataFrame({c: _text_keys(source, table, c).astype(str) for c in system_columns})
    if len(system_columns) > 1:
        system = _keys.key_label(system_columns)
        names = _keys.join_keys(keys, system_columns, _where(source)).rename(system)
    else:
        names = keys[system].rename(system)
    if names.duplicated().any():
        full = _read.read_table(source).to_pandas()
        long_hint = (
            f"if this is not a wide table (one row per system) but a long one whose task and "
            f"score columns are not named 'task' and 'score' (the columns are: "
            f"{preview(map(repr, source.columns), 20)}), name them with task= and score= "
            "(CLI: --task NAME --score NAME)"
        )
        _keys.refuse_repeated_systems(
            full,
            names,
            system_columns,
            _where(source),
            tasks,
            prefix=f"{source.path}: ",
            long_hint=long_hint if layout == "auto" else "",
        )
    _keys.refuse_whitespace_variants(
        "system", names, _keys.first_rows_of(names, _where(source)), prefix=f"{source.path}: "
    )

    def where(positions: np.ndarray) -> list[str]:
        lines = _read.locate(source, positions)
        return [
            f"{line} (system {names.iloc[p]!r})" for line, p in zip(lines, positions, strict=True)
        ]

    frame: dict[str, object] = {system: names}
    missing = 0
    for column in task_cols:
        values, n_na = _read.score_column(
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
