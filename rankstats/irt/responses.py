"""Item responses: a systems × items matrix of scored answers, missing cells kept as missing.

Instance-level benchmark results are item responses: system ``s`` answered item ``i`` right (1),
wrong (0), or in one of the ordered categories ``0, 1, ..., K_i − 1`` of a graded item. A system
that was not run on an item has no response there: the cell is missing, never wrong, and every
statistic of :mod:`rankstats.irt` sums over the observed cells only (a 0/1 mask).

Two layouts are read: a **long** table, one row per (system, item, response), and a **wide**
matrix, one row per system and one column per item, empty cells missing. Errors name the
offending row, system or item.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rankstats.errors import InvalidScoresError, preview

BINARY = "binary"
GRADED = "graded"


@dataclass(frozen=True, repr=False)
class Responses:
    """A validated systems × items response matrix.

    Attributes
    ----------
    values : numpy.ndarray
        ``(S × I)`` float array of responses; ``NaN`` = not observed.
    systems, items : tuple of str
        Row and column names.
    n_categories : numpy.ndarray
        Categories of each item (2 for a binary item).
    """

    values: np.ndarray
    systems: tuple[str, ...]
    items: tuple[str, ...]
    n_categories: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        values = np.asarray(self.values, dtype=np.float64)
        if values.ndim != 2 or values.shape != (len(self.systems), len(self.items)):
            raise InvalidScoresError(
                f"responses of shape {values.shape} do not match {len(self.systems)} systems × "
                f"{len(self.items)} items"
            )
        object.__setattr__(self, "values", values)
        if self.n_categories is None:
            top = np.where(np.isnan(values), -1.0, values).max(axis=0, initial=-1.0)
            object.__setattr__(self, "n_categories", np.maximum(top + 1, 2).astype(np.int64))

    @property
    def mask(self) -> np.ndarray:
        """``(S × I)`` 1.0 where a response was observed, 0.0 where it is missing."""
        return (~np.isnan(self.values)).astype(np.float64)

    @property
    def binary(self) -> bool:
        """Every item has two categories (0 = wrong, 1 = right)."""
        return bool((self.n_categories == 2).all())

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape

    def indicators(self, category: int) -> np.ndarray:
        """``(S × I)`` 1.0 where the response is ``category`` (0.0 also where missing)."""
        return (self.values == category).astype(np.float64)

    def to_frame(self) -> pd.DataFrame:
        """The wide matrix as a labelled DataFrame (systems × items)."""
        return pd.DataFrame(self.values, index=list(self.systems), columns=list(self.items))

    def __repr__(self) -> str:
        observed = int(self.mask.sum())
        kind = "binary" if self.binary else f"graded (up to {int(self.n_categories.max())})"
        return (
            f"Responses({len(self.systems)} systems × {len(self.items)} items, {kind}, "
            f"{observed} of {self.values.size} cells observed)"
        )


def _check_values(values: np.ndarray, systems: Sequence[str], items: Sequence[str], kind: str):
    """Refuse non-integer, negative, or (binary) out-of-{0, 1} responses, naming the first cell;
    for graded items, refuse a category that no system used below the item's largest one."""
    observed = ~np.isnan(values)
    finite = np.where(observed, values, 0.0)
    if np.isinf(finite).any():
        s, i = np.argwhere(np.isinf(finite))[0]
        raise InvalidScoresError(f"infinite response of system {systems[s]!r} on item {items[i]!r}")
    allowed = (finite == np.round(finite)) & (finite >= 0)
    if kind == BINARY:
        allowed &= finite <= 1
    if not allowed.all():
        s, i = np.argwhere(~allowed)[0]
        need = "0 or 1" if kind == BINARY else "an integer category 0, 1, 2, ..."
        raise InvalidScoresError(
            f"response {values[s, i]:g} of system {systems[s]!r} on item {items[i]!r} is not "
            f"{need} ({int((~allowed).sum())} such cells)"
        )
    if kind == GRADED:
        top = np.where(observed, values, -1).max(axis=0)
        for i in np.flatnonzero(top >= 1):
            used = np.unique(values[observed[:, i], i]).astype(int)
            gaps = sorted(set(range(int(top[i]) + 1)) - set(used.tolist()))
            if gaps:
                raise InvalidScoresError(
                    f"item {items[i]!r} uses categories {preview(used.tolist())} but never "
                    f"{preview(gaps)}: graded categories must be consecutive integers from 0 "
                    "(recode the item)"
                )


def _names(labels: Sequence[object], what: str) -> tuple[str, ...]:
    names = tuple(str(x) for x in labels)
    if len(set(names)) != len(names):
        seen: set[str] = set()
        twice = [n for n in names if n in seen or seen.add(n)]  # type: ignore[func-returns-value]
        raise InvalidScoresError(f"{what} named twice: {preview(sorted(set(twice)))}")
    return names


def responses_from_wide(
    table: pd.DataFrame | np.ndarray,
    *,
    kind: str = BINARY,
    systems: Sequence[str] | None = None,
    items: Sequence[str] | None = None,
) -> Responses:
    """Responses from a wide matrix: one row per system, one column per item, NaN = missing.

    Parameters
    ----------
    table : pandas.DataFrame or numpy.ndarray
        Systems (index) × items (columns). A missing cell means the system was not run on the
        item; it is never counted as wrong.
    kind : {"binary", "graded"}
        ``"binary"``: every response is 0 or 1; ``"graded"``: each item's responses are the
        consecutive integer categories ``0, 1, ..., K_i − 1``.
    systems, items : sequence of str, optional
        Names for an array (default ``s0, s1, ...`` and ``i0, i1, ...``).

    Returns
    -------
    Responses

    Raises
    ------
    InvalidScoresError
        A response outside the allowed values (naming the system and the item), a name used
        twice, a graded item with a category gap.

    Examples
    --------
    >>> import numpy as np
    >>> responses_from_wide(np.array([[1, 0, np.nan], [1, 1, 0]]))
    Responses(2 systems × 3 items, binary, 5 of 6 cells observed)
    """
    if kind not in (BINARY, GRADED):
        raise ValueError(f"kind must be 'binary' or 'graded', not {kind!r}")
    if isinstance(table, pd.DataFrame):
        try:
            values = table.apply(pd.to_numeric, errors="raise").to_numpy(dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise InvalidScoresError(f"the response matrix holds non-numbers: {error}") from error
        systems = table.index if systems is None else systems
        items = table.columns if items is None else items
    else:
        values = np.asarray(table, dtype=np.float64)
        if values.ndim != 2:
            raise InvalidScoresError(f"a response matrix has two dimensions, not {values.ndim}")
        systems = [f"s{k}" for k in range(values.shape[0])] if systems is None else systems
        items = [f"i{k}" for k in range(values.shape[1])] if items is None else items
    systems, items = _names(systems, "system"), _names(items, "item")
    _check_values(values, systems, items, kind)
    return Responses(values, systems, items)


def responses_from_long(
    df: pd.DataFrame,
    *,
    system: str = "system",
    item: str = "item",
    response: str = "response",
    kind: str = BINARY,
) -> Responses:
    """Responses from a long table: one row per (system, item) with its response.

    Pairs absent from the table are missing (not wrong). A row with an empty response is refused
    (leave the row out instead), and so is a (system, item) pair on two rows.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"system": ["a", "a", "b"], "item": ["q1", "q2", "q1"],
    ...                    "response": [1, 0, 1]})
    >>> responses_from_long(df)
    Responses(2 systems × 2 items, binary, 3 of 4 cells observed)
    """
    missing = [c for c in (system, item, response) if c not in df.columns]
    if missing:
        raise InvalidScoresError(
            f"column(s) {preview(repr(c) for c in missing)} not in the table (columns: "
            f"{preview(list(df.columns))})"
        )
    values = pd.to_numeric(df[response], errors="coerce")
    bad = values.isna().to_numpy()
    if bad.any():
        row = int(np.argmax(bad))
        raise InvalidScoresError(
            f"row {row + 1}: response {df[response].iloc[row]!r} of system "
            f"{df[system].iloc[row]!r} on item {df[item].iloc[row]!r} is empty or not a number "
            f"({int(bad.sum())} such rows; leave unobserved pairs out of the table)"
        )
    keys = df[[system, item]].astype(str)
    twice = keys.duplicated(keep="first").to_numpy()
    if twice.any():
        row = int(np.argmax(twice))
        raise InvalidScoresError(
            f"row {row + 1}: system {keys.iloc[row, 0]!r} on item {keys.iloc[row, 1]!r} appears "
            f"on more than one row ({int(twice.sum())} repeated pairs)"
        )
    s_codes, s_names = pd.factorize(keys[system], sort=True)
    i_codes, i_names = pd.factorize(keys[item], sort=False)
    matrix = np.full((len(s_names), len(i_names)), np.nan)
    matrix[s_codes, i_codes] = values.to_numpy(dtype=np.float64)
    return responses_from_wide(matrix, kind=kind, systems=list(s_names), items=list(i_names))


def responses_from_scores(scores, *, kind: str = BINARY) -> Responses:
    """Responses from a :class:`~rankstats.core.scores.Scores` table: with instances, each
    (task, instance) is an item, named ``instance`` (``task/instance`` when there are several
    tasks); without, each task is an item (a wide systems × items matrix read as a leaderboard).
    Each score is a response; cells the table lacks (or holds as NaN) are missing.

    The scores are read as oriented by ``Scores`` (a lower-is-better task is negated, and its
    0/1 answers would then be refused: give correctness as higher-is-better).
    """
    data = scores.data.dropna(subset=["score"])
    if "instance" not in data.columns:
        data = data.assign(instance=data["task"], task="items")
    several = data["task"].nunique() > 1
    item = data["task"].astype(str) + "/" + data["instance"].astype(str) if several else None
    long = pd.DataFrame(
        {
            "system": data["system"].astype(str).to_numpy(),
            "item": (item if several else data["instance"].astype(str)).to_numpy(),
            "response": data["score"].to_numpy(),
        }
    )
    return responses_from_long(long, kind=kind)


def expand_patterns(patterns: pd.DataFrame, count: str) -> pd.DataFrame:
    """One row per respondent from a table of response patterns and their counts (R's
    ``mirt::expand.table``), rows named ``r1, r2, ...``."""
    counts = patterns[count].to_numpy()
    if (counts < 0).any() or (counts != np.round(counts)).any():
        raise InvalidScoresError(f"column {count!r} must hold non-negative integer counts")
    wide = patterns.drop(columns=[count]).loc[patterns.index.repeat(counts.astype(np.int64))]
    wide.index = [f"r{k + 1}" for k in range(len(wide))]
    return wide
