"""Score cells of an in-memory long table as floats, and the rows named in errors.

Booleans, text that is not a number and infinities are refused (a blank text cell is a missing
score, "not evaluated"); each error shows up to five offending rows, named by the caller's
``where`` (DataFrame index labels, or a file's lines).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from rankstats.core.codes import dense_codes, duplicated_keys, instance_codes
from rankstats.errors import InvalidScoresError

Where = Callable[[np.ndarray], Sequence["str | None"]]


def row_report(
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


def numeric_scores(
    df: pd.DataFrame,
    score: str,
    keys: list[str],
    where: Where | None = None,
    what: str = "scores",
    error: type[InvalidScoresError] = InvalidScoresError,
) -> np.ndarray:
    """The column ``score`` as floats (NaN: missing); ``what`` names the values in errors
    (``"scores"``, ``"covariate values"``) and ``error`` is the exception raised."""
    raw = df[score]
    if pd.api.types.is_bool_dtype(raw):
        raise error(f"column {score!r} is boolean; {what} must be numbers")
    if pd.api.types.is_numeric_dtype(raw):
        values = raw.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        coerced = pd.to_numeric(raw, errors="coerce")
        bad = (coerced.isna() & raw.notna()).to_numpy()
        # An empty or blank string in a text column is a missing score, not a malformed one.
        blank = raw.astype("string").str.strip().eq("").fillna(False).to_numpy(dtype=bool)
        bad = bad & ~blank
        if bad.any():
            raise error(
                f"non-numeric {what} in column {score!r}:"
                + row_report(df, bad, [*keys, score], where=where)
            )
        values = coerced.to_numpy(dtype=np.float64, na_value=np.nan)
    inf = np.isinf(values)
    if inf.any():
        raise error(
            f"infinite {what} in column {score!r} (use NaN for 'not evaluated'):"
            + row_report(df, inf, [*keys, score], where=where)
        )
    return values


def key_codes(
    df: pd.DataFrame, keys: list[str], columns: list[str], where: Where
) -> tuple[list[np.ndarray], list[int], list[np.ndarray | None]]:
    """Codes, number of distinct values and labels of the key columns (system, task[,
    instance]); a missing key is refused.  Each key is factorised once (turning millions of
    keys into Python strings would dominate time and memory); instances get no labels, only
    their equality matters."""
    codes, sizes, labels = [], [], []
    for position, key in enumerate(keys):
        if position == 2:
            code, size = instance_codes(df[key])
            uniques = None
        else:
            code, uniques = pd.factorize(df[key])
            size = len(uniques)
        if (code < 0).any():
            raise InvalidScoresError(
                f"missing {key!r} key:" + row_report(df, code < 0, columns, where=where)
            )
        codes.append(code.astype(np.int64, copy=False))
        sizes.append(size)
        labels.append(uniques)
    return codes, sizes, labels


def ranking_codes(
    df: pd.DataFrame,
    codes: list[np.ndarray],
    sizes: list[int],
    columns: list[str],
    where: Where,
) -> tuple[np.ndarray, int]:
    """One code per ranking, (task, instance) pairs or tasks, and their number; a (ranking,
    system) key on two rows is refused."""
    if len(codes) == 3:
        ranking, distinct = dense_codes(codes[1] * sizes[2] + codes[2], sizes[1] * sizes[2])
        n_rankings = len(distinct)
    else:
        ranking, n_rankings = codes[1], sizes[1]
    duplicated = duplicated_keys(ranking * sizes[0] + codes[0], n_rankings * sizes[0])
    if duplicated is not None:
        raise InvalidScoresError(
            f"duplicated ({', '.join(columns[:-1])}) keys; each must appear once:"
            + row_report(df, duplicated, columns, where=where)
        )
    return ranking, n_rankings
