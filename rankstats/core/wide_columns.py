"""Wide-table columns that are not tasks: aggregates of the other columns, and metadata.

A leaderboard often carries, beside its task columns, a column that summarises them
(``Average perf. on 38 datasets``, ``Overall``, ``Avg. rank``) and columns that describe the
systems (``params (M)``, ``FLOPs (B)``, ``year``). Ranked as higher-is-better tasks they count
the other tasks twice or rank models by size. Two detectors, both refusing only until the user
says what to do (``tasks=`` / ``drop_columns=``, CLI ``--tasks`` / ``--drop-columns``):

- **by value**: a column ``x_j`` that equals the row mean, median or sum of the other numeric
  columns ``R`` (the columns not flagged by name) within a small fraction of its own spread,

  .. math:: \\max_i |x_{ij} - \\operatorname{agg}_{r \\in R \\setminus j} x_{ir}|
            \\le 0.01 \\cdot \\operatorname{sd}_i(x_{ij}),

  over the rows where ``x_j`` and at least two reference cells are present (empty cells are
  skipped, as ``nanmean``; rounding of a printed average to 4 decimals stays far below the
  bound). Sums, means and medians leave ``x_j`` out exactly (the medians from one sort of each
  row). The reference ``R`` leaves out columns flagged by name,
  columns found in an earlier round, and columns whose median absolute value differs from the
  typical column's by a factor 5 or more (a sum, parameter counts).
- **by name**: words of aggregates (``average``, ``avg``, ``overall``, ``total``, ``rank``, a
  name starting with ``mean`` or ``sum`` that is not a metric such as *mean reciprocal rank*)
  and of metadata (``params``, ``#params``, ``parameters``, ``flops``, ``macs``, ``latency``,
  ``throughput``, ``runtime``; ``size``, ``year``, ``date``, ... with only units or fillers
  beside them: ``model size (GB)``, ``release date``, but not ``Date Understanding``).

This module sits below :mod:`rankstats.core.scores` (NumPy and pandas only); the data check
(:mod:`rankstats.datacheck`) reports the same findings without refusing.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankstats._util.advice import (
    Advice,
    AdviceScoresError,
    Spelled,
    escape,
    keywords,
    shell_word,
)
from rankstats.errors import InvalidScoresError, preview

#: Whole names (after stripping spaces, any case) that aggregate the other columns.
AGGREGATE_NAMES = frozenset(
    {"average", "avg", "mean", "overall", "total", "score", "sum", "macro avg", "micro avg", "all"}
)
#: A word anywhere in the name marks an aggregate.
AGGREGATE_WORDS = frozenset(
    {"average", "avg", "averaged", "overall", "aggregate", "rank", "ranking", "total"}
)
#: A first word that marks an aggregate unless a metric word follows (mean reciprocal rank).
AGGREGATE_FIRST = frozenset({"mean", "sum", "median", "summary"})
#: Words of metrics whose names start with an aggregate word.
METRIC_WORDS = frozenset(
    {"reciprocal", "precision", "ap", "iou", "squared", "absolute", "error", "opinion", "recall"}
)
#: A word anywhere in the name marks metadata about the systems, not a task.
METADATA_WORDS = frozenset(
    {"params", "param", "parameters", "nparams", "flops", "gflops", "tflops", "macs", "gmacs",
     "latency", "throughput", "runtime"}
)  # fmt: skip
#: Words that mark metadata only with units or fillers beside them (``release date``,
#: ``size (GB)``), not in a task's name (``Date Understanding``).
METADATA_ALONE = frozenset(
    {"size", "year", "date", "release", "released", "duration", "seconds", "cost", "price",
     "license", "url", "gpus", "gpu", "footprint", "memory", "time"}
)  # fmt: skip
_FILLERS = frozenset(
    {"model", "publication", "n", "num", "number", "of", "in", "m", "b", "k", "g", "gb", "mb",
     "kb", "ms", "s", "sec", "usd", "h", "hours", "per", "sample", "token", "tokens", "disk",
     "inference", "training", "train", "wall", "clock"}
)  # fmt: skip
#: Relative bound of the value test: max deviation ≤ TOLERANCE × the column's standard deviation.
TOLERANCE = 0.01
#: A column whose typical size differs from the columns' typical size by this factor is left
#: out of the reference (a sum of the tasks, parameter counts).
SCALE = 5.0
#: Fewest rows compared before the value test may fire.
MIN_ROWS = 3


@dataclass(frozen=True)
class ColumnFinding:
    """A wide-table column that looks like no task.

    Attributes
    ----------
    column : str
        The column.
    kind : {"aggregate", "metadata"}
        What it looks like.
    reason : str
        Why, in words (``"equals the row mean of the 38 task columns to 5e-05"``).
    statistic : str or None
        ``"mean"``, ``"median"`` or ``"sum"`` when found by value, else None.
    deviation : float
        The largest absolute deviation from that statistic (NaN when found by name only).
    """

    column: str
    kind: str
    reason: str
    statistic: str | None = None
    deviation: float = float("nan")


def _words(name: object) -> list[str]:
    return re.findall(r"#?[0-9a-z]+", str(name).casefold())


def name_kind(name: object) -> tuple[str, str] | None:
    """``("aggregate" | "metadata", word)`` when the column's name says so, else None."""
    text = str(name).strip().casefold()
    if text in AGGREGATE_NAMES:
        return "aggregate", text
    words = _words(name)
    bare = [w.lstrip("#") for w in words]
    for word in bare:
        if word in METADATA_WORDS:
            return "metadata", word
    alone = [w for w in bare if w in METADATA_ALONE]
    if alone and all(w in METADATA_ALONE or w in _FILLERS for w in bare):
        return "metadata", alone[0]
    if METRIC_WORDS.intersection(words):  # mean reciprocal rank, average precision
        return None
    for word in words:
        if word in AGGREGATE_WORDS:
            return "aggregate", word
    if words and words[0] in AGGREGATE_FIRST and text.startswith(words[0]):
        return "aggregate", words[0]
    return None


def _numeric(frame: pd.DataFrame, columns: Sequence[object]) -> np.ndarray:
    """The columns as floats (cells that are not numbers become NaN)."""
    values = np.full((len(frame), len(columns)), np.nan)
    for k, column in enumerate(columns):  # a loop over columns, each vectorised over rows
        values[:, k] = pd.to_numeric(frame[column], errors="coerce").to_numpy(np.float64)
    return values


def _medians_without(reference: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Row medians of ``reference`` (n × k) without each of its columns in turn (n × k).

    Each row is sorted once (empty cells last); leaving out the entry of rank ``r`` among the
    ``m`` present ones, the ``i``-th of the remaining ``m − 1`` is the ``i``-th sorted entry
    when ``i < r``, else the ``(i + 1)``-th.
    """
    n, k = reference.shape
    order = np.argsort(reference, axis=1, kind="stable")  # NaN sorts last
    ordered = np.take_along_axis(reference, order, axis=1)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.broadcast_to(np.arange(k), (n, k)), axis=1)
    left = np.maximum(count[:, None] - 1, 1)  # entries left once one is removed

    def entry(i: np.ndarray) -> np.ndarray:
        index = np.clip(np.where(i < rank, i, i + 1), 0, k - 1)
        return np.take_along_axis(ordered, index, axis=1)

    low, high = entry((left - 1) // 2), entry(left // 2)
    return np.where(left % 2 == 1, low, (low + high) / 2)


def _by_value(x: np.ndarray, reference: np.ndarray, in_reference: np.ndarray) -> list[tuple]:
    """``(column, statistic, deviation, n_others)`` of columns equal to a row statistic."""
    present = ~np.isnan(reference)
    count = present.sum(axis=1)
    total = np.where(present, reference, 0.0).sum(axis=1)
    median = np.full(len(x), np.nan)
    some = count > 0
    if some.any():
        median[some] = np.nanmedian(reference[some], axis=1)
    # the median of the others: without x_j when x_j is one of them
    medians = np.repeat(median[:, None], x.shape[1], axis=1)
    medians[:, in_reference] = _medians_without(reference, count)
    found = []
    observed = ~np.isnan(x)
    x0 = np.where(observed, x, 0.0)
    # sum and mean of the others: the reference without x_j when x_j is one of them
    sums = total[:, None] - np.where(in_reference[None, :], x0, 0.0)
    others = count[:, None] - (in_reference[None, :] & observed)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / np.where(others > 0, others, np.nan)
    rows = observed & (others >= 2)
    n_rows = rows.sum(axis=0)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a column with no row compared
        spread = np.nanstd(np.where(rows, x, np.nan), axis=0)
    for name, target in (("mean", means), ("median", medians), ("sum", sums)):
        gap = np.where(rows, np.abs(x0 - target), 0.0)
        gap = np.where(np.isnan(gap), np.inf, gap)
        deviation = gap.max(axis=0, initial=0.0)
        hit = (n_rows >= MIN_ROWS) & (spread > 0) & (deviation <= TOLERANCE * spread)
        for j in np.flatnonzero(hit):
            n_other = int(reference.shape[1] - in_reference[j])
            found.append((j, name, float(deviation[j]), n_other))
    return found


def find(
    frame: pd.DataFrame, columns: Sequence[object], declared: object = None
) -> list[ColumnFinding]:
    """The columns among ``columns`` of a wide table that look like aggregates or metadata.

    Parameters
    ----------
    frame : pandas.DataFrame
        The wide table (one row per system).
    columns : sequence
        The candidate task columns (the key columns left out).
    declared : mapping, optional
        The ``higher_is_better`` argument: a column given a direction there is declared a
        task, and its name is not held against it (``latency`` ranked lower-is-better).

    Returns
    -------
    list of ColumnFinding
        In the order of ``columns``; empty when fewer than two columns are given.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"t1": [0.1, 0.5, 0.9, 0.3], "t2": [0.2, 0.2, 0.7, 0.8]})
    >>> df["Avg"] = (df["t1"] + df["t2"]) / 2
    >>> df["MyColumn"] = df["Avg"].round(4)
    >>> [f.column for f in find(df, ["t1", "t2", "Avg", "MyColumn"])]
    ['Avg', 'MyColumn']
    """
    columns = list(columns)
    if len(columns) < 2:  # one column aggregates nothing
        return []
    tasks = set(declared) if isinstance(declared, Mapping) else set()
    named = {c: None if c in tasks else name_kind(c) for c in columns}
    flagged = {c for c, kind in named.items() if kind is not None}
    x = _numeric(frame, columns)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an empty column
        size = np.nanmedian(np.abs(x), axis=0)
    typical = np.nanmedian(size) if np.isfinite(size).any() else np.nan
    # columns far larger or smaller than the typical one (a sum, parameter counts) stay out
    # of the reference of the others, and are still tested themselves
    outlier = ~((size <= SCALE * typical) & (size * SCALE >= typical))
    by_value: dict[object, tuple] = {}
    while True:  # a column found by value leaves the reference; at most a few rounds
        in_reference = ~outlier & np.array(
            [c not in flagged and c not in by_value for c in columns]
        )
        if in_reference.sum() < 2:
            break
        found = [
            hit
            for hit in _by_value(x, x[:, in_reference], in_reference)
            if columns[hit[0]] not in by_value
        ]
        if not found:
            break
        for j, statistic, deviation, n_other in found:
            by_value.setdefault(columns[j], (statistic, deviation, n_other))
    findings = []
    for c in columns:
        kind = named[c]
        if c in by_value:
            statistic, deviation, n_other = by_value[c]
            within = "exactly" if deviation < 1e-12 else f"to {deviation:.1g}"
            reason = f"equals the row {statistic} of the {n_other} other task columns {within}"
            if kind is not None:
                reason += f" (and its name says {kind[1]!r})"
            findings.append(ColumnFinding(str(c), "aggregate", reason, statistic, deviation))
        elif kind is not None:
            reason = f"is named like {'an aggregate' if kind[0] == 'aggregate' else 'metadata'}"
            findings.append(ColumnFinding(str(c), kind[0], f"{reason} ({kind[1]!r})"))
    return findings


class NotTaskColumnsError(Advice, InvalidScoresError):
    """Columns of a wide table that look like aggregates or metadata, not tasks.

    ``findings`` holds one :class:`ColumnFinding` per column; the message names the options
    (:mod:`rankstats._util.advice`: ``drop_columns=[...]``, ``--drop-columns`` by ``.cli()``).
    """

    def __init__(self, template: str, findings: Sequence[ColumnFinding] = (), **options: object):
        super().__init__(template, **options)
        self.findings = tuple(findings)

    def __reduce__(self):
        return _rebuild_not_tasks, (self.template, self.findings, self.options)


def _rebuild_not_tasks(template: str, findings: tuple, options: dict) -> NotTaskColumnsError:
    return NotTaskColumnsError(template, findings, **options)


def refuse(
    frame: pd.DataFrame, columns: Sequence[object], where: str = "", declared: object = None
) -> None:
    """Raise :class:`NotTaskColumnsError` naming each suspicious column and why."""
    findings = find(frame, columns, declared)
    if not findings:
        return
    names = [f.column for f in findings]
    why = "; ".join(f"{f.column!r} {f.reason}" for f in findings)
    kept = [str(c) for c in columns if str(c) not in names]
    tasks_flag = " ".join(map(shell_word, kept[:4])) + (
        f" ... ({len(kept) - 4} more)" if len(kept) > 4 else ""
    )
    raise NotTaskColumnsError(
        escape(
            f"{where}column(s) {', '.join(map(repr, names))} of the wide table look like an "
            f"aggregate of the other tasks or metadata, not tasks ({why}): ranking them as tasks "
            "would count the other tasks twice or rank systems by size; leave them out with "
        )
        + "{drop_columns}, or choose the task columns with {tasks} and list a column there to "
        "rank it as a task",
        findings,
        drop_columns=names,
        tasks=Spelled(f"tasks=[{preview(map(repr, kept), 4)}]", f"--tasks {tasks_flag}"),
    )


def drop(columns: Sequence[object], dropped: Sequence[str] | None, where: str = "") -> list:
    """``columns`` without ``dropped``; a dropped name that is not a column is an error."""
    if not dropped:
        return list(columns)
    absent = [d for d in dropped if d not in columns]
    if absent:
        raise AdviceScoresError(
            escape(where)
            + "{drop_columns} names column(s) "
            + escape(
                f"{preview(map(repr, absent))} that the wide table does not have; its columns "
                f"are: {preview(map(repr, columns), 20)}"
            ),
            **keywords("drop_columns"),
        )
    return [c for c in columns if c not in set(dropped)]
