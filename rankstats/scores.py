"""Validated score tables.

A :class:`Scores` object is a long table ``system, task, [instance], score`` in which every score is
finite, every key is unique, and every score is oriented so that **higher is better** (tasks where
lower is better are negated once, here, and never again).  Rows with a missing score mean "not
evaluated": they are removed from :attr:`Scores.data` but the system stays in
:attr:`Scores.systems`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats.errors import DataWarning, InvalidScoresError, preview

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


def _row_report(df: pd.DataFrame, mask: np.ndarray, columns: list[str], limit: int = 5) -> str:
    rows = df.loc[mask, columns].head(limit)
    lines = [
        f"row {idx}: " + ", ".join(f"{c}={row[c]!r}" for c in columns)
        for idx, row in rows.iterrows()
    ]
    extra = int(mask.sum()) - len(rows)
    if extra > 0:
        lines.append(f"... and {extra} more rows")
    return "\n  " + "\n  ".join(lines)


def _numeric_scores(df: pd.DataFrame, score: str, keys: list[str]) -> np.ndarray:
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
                f"non-numeric scores in column {score!r}:" + _row_report(df, bad, [*keys, score])
            )
        values = coerced.to_numpy(dtype=np.float64, na_value=np.nan)
    inf = np.isinf(values)
    if inf.any():
        raise InvalidScoresError(
            f"infinite scores in column {score!r} (use NaN for 'not evaluated'):"
            + _row_report(df, inf, [*keys, score])
        )
    return values


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

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_long(
        cls,
        df: pd.DataFrame,
        system: str = "system",
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
            means task-level scores (one score per system and task).
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
        df = pd.DataFrame(df).reset_index(drop=True)
        if task is None:
            df = df.assign(task="score")
            task = "task"
        columns = [system, task] + ([instance] if instance else []) + [score]
        missing = [c for c in columns if c not in df.columns]
        if missing:
            raise InvalidScoresError(
                f"column(s) {preview(missing)} not found; the table has: {preview(df.columns, 20)}"
            )
        keys = columns[:-1]
        # Factorise each key once: validation, duplicates and categories all work on int codes
        # (turning millions of keys into Python strings would dominate time and memory).
        codes, labels = [], []
        for key in keys:
            code, uniques = pd.factorize(df[key])
            if (code < 0).any():
                raise InvalidScoresError(
                    f"missing {key!r} key:" + _row_report(df, code < 0, columns)
                )
            codes.append(code.astype(np.int64))
            labels.append(uniques)
        values = _numeric_scores(df, score, keys)

        combined = codes[0]
        for code, uniques in zip(codes[1:], labels[1:], strict=True):
            combined = combined * len(uniques) + code
        duplicated = pd.Series(combined).duplicated(keep=False).to_numpy()
        if duplicated.any():
            raise InvalidScoresError(
                f"duplicated ({', '.join(keys)}) keys; each must appear once:"
                + _row_report(df, duplicated, columns)
            )

        systems = tuple(str(u) for u in labels[0])
        all_tasks = tuple(str(u) for u in labels[1])
        for kind, names in (("system", systems), ("task", all_tasks)):
            if len(set(names)) != len(names):
                raise InvalidScoresError(
                    f"distinct {kind} keys become the same name as text (e.g. 1 and '1'): "
                    f"{preview(sorted({n for n in names if names.count(n) > 1}))}"
                )
        directions = parse_directions(all_tasks, higher_is_better)
        task_sign = np.array([1.0 if directions[t] else -1.0 for t in all_tasks])

        out = pd.DataFrame(
            {
                "system": pd.Categorical.from_codes(codes[0], categories=list(systems)),
                "task": pd.Categorical.from_codes(codes[1], categories=list(all_tasks)),
            }
        )
        if instance:
            out["instance"] = df[instance].to_numpy()
        out["score"] = values * task_sign[codes[1]]
        out = out[~np.isnan(values)]
        return cls._finish(out, systems, all_tasks, directions, name)

    @classmethod
    def from_wide(
        cls,
        df: pd.DataFrame,
        system: str | None = "system",
        higher_is_better: Direction = True,
        tasks: Sequence[str] | None = None,
        name: str = "",
    ) -> Scores:
        """Validate a wide table: one row per system, one column per task (a leaderboard).

        Parameters
        ----------
        df : pandas.DataFrame
            The table; empty cells (NaN) mean "not evaluated".
        system : str or None
            Column holding the system names; ``None`` uses the index.
        higher_is_better : bool or dict
            As in :meth:`from_long`.
        tasks : sequence of str, optional
            Task columns to use (default: every other column).
        name : str
            Label for reports.

        Examples
        --------
        >>> import pandas as pd, rankstats as rs
        >>> df = pd.DataFrame({"system": ["a", "b", "c"], "t1": [1, 2, 3], "t2": [3, None, 1]})
        >>> rs.Scores.from_wide(df).data.shape
        (5, 3)
        """
        df = pd.DataFrame(df)
        if system is None:
            df = df.rename_axis("system").reset_index()
            system = "system"
        if system not in df.columns:
            raise InvalidScoresError(
                f"system column {system!r} not found; the table has: {preview(df.columns, 20)}"
            )
        if df[system].duplicated().any():
            dup = df[system][df[system].duplicated()].tolist()
            raise InvalidScoresError(f"duplicated systems in a wide table: {preview(dup)}")
        task_cols = list(tasks) if tasks is not None else [c for c in df.columns if c != system]
        if not task_cols:
            raise InvalidScoresError("the wide table has no task columns")
        long = df.melt(id_vars=[system], value_vars=task_cols, var_name="task", value_name="score")
        long = long.rename(columns={system: "system"})
        return cls.from_long(long, "system", "task", None, "score", higher_is_better, name)

    @classmethod
    def _finish(
        cls,
        data: pd.DataFrame,
        systems: tuple[str, ...],
        all_tasks: tuple[str, ...],
        directions: dict[str, bool],
        name: str,
    ) -> Scores:
        """Set aside tasks / instances with fewer than two evaluated systems, warn, build."""
        has_instances = "instance" in data.columns
        per_task = data.groupby("task", observed=False)["system"].nunique()
        skipped = tuple(t for t in all_tasks if per_task.get(t, 0) < 2)
        if skipped:
            warnings.warn(
                f"task(s) with fewer than two evaluated systems carry no ranking information "
                f"and were skipped: {preview(skipped)}",
                DataWarning,
                stacklevel=3,
            )
            data = data[~data["task"].isin(skipped)]
        tasks = tuple(t for t in all_tasks if t not in skipped)
        data = data.assign(task=data["task"].cat.set_categories(list(tasks)))

        skipped_instances = pd.DataFrame(columns=["task", "instance"])
        if has_instances and len(data):
            inst_codes, inst_uniques = pd.factorize(data["instance"])
            n_inst = max(len(inst_uniques), 1)
            pair = data["task"].cat.codes.to_numpy(np.int64) * n_inst + inst_codes
            codes, _uniq = pd.factorize(pair)
            counts = np.bincount(codes)
            lonely = counts[codes] < 2
            if lonely.any():
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
                    stacklevel=3,
                )
                data = data[~lonely]

        evaluated = set(data["system"].unique())
        nowhere = [s for s in systems if s not in evaluated]
        if nowhere:
            warnings.warn(
                f"system(s) evaluated on no task are kept but carry no information: "
                f"{preview(nowhere)}",
                DataWarning,
                stacklevel=3,
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
    system: str = "system",
    task: str | None = "task",
    instance: str | None = None,
    score: str = "score",
    higher_is_better: Direction = True,
    layout: str = "auto",
    sep: str | None = None,
) -> Scores:
    """Read a score table from CSV, TSV or Parquet.

    Parameters
    ----------
    path : str or Path
        ``.csv``, ``.tsv``/``.tab`` (or ``.gz`` versions of these), or ``.parquet``/``.pq``.
    system, task, instance, score : str
        Column names (see :meth:`Scores.from_long`).
    higher_is_better : bool or dict
        Direction of the tasks.
    layout : {"auto", "long", "wide"}
        ``long``: one row per score; ``wide``: one row per system, one column per task.
        ``auto`` chooses long when the ``task`` and ``score`` columns exist, else wide.
    sep : str, optional
        Field separator for text files (default: ``,`` or tab from the extension).

    Returns
    -------
    Scores
    """
    path = Path(path)
    suffixes = [s.lower() for s in path.suffixes]
    if not path.exists():
        raise FileNotFoundError(f"no such score file: {path}")
    if suffixes and suffixes[-1] in (".parquet", ".pq"):
        df = pd.read_parquet(path)
    else:
        stem = [s for s in suffixes if s not in (".gz", ".bz2", ".xz", ".zip")]
        if sep is None:
            sep = "\t" if stem and stem[-1] in (".tsv", ".tab") else ","
        df = pd.read_csv(path, sep=sep)
    if layout not in ("auto", "long", "wide"):
        raise ValueError(f"layout must be 'auto', 'long' or 'wide', not {layout!r}")
    if layout == "auto":
        layout = "long" if (task is None or task in df.columns) and score in df.columns else "wide"
    name = path.name.split(".")[0]
    if layout == "wide":
        return Scores.from_wide(df, system=system, higher_is_better=higher_is_better, name=name)
    return Scores.from_long(df, system, task, instance, score, higher_is_better, name=name)
