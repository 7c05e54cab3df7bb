"""Names of systems and tasks: keys made of several columns, and spellings that differ only by
surrounding whitespace.

- **Several key columns** (open_clip's models are named by ``name`` and ``pretrained``) are
  joined into one readable name, ``"RN50 / openai"`` (:data:`JOIN`). Joining must keep distinct
  keys distinct: ``("a / b", "c")`` and ``("a", "b / c")`` would both read ``"a / b / c"``, and
  are refused.
- **Surrounding whitespace**: ``"gpt-4"`` and ``"gpt-4 "`` are two keys that print alike. Names
  that become equal once surrounding whitespace is stripped are refused, naming both spellings
  and a row of each; a name with surrounding whitespace that collides with nothing is kept as
  written (keys are never changed silently).
- **One integer spelled two ways**: ``"2"`` and ``"2.0"`` (a model id column written once as
  integers, once as floats, e.g. by pandas after a missing value) would split one model in
  two; they are refused the same way, by the same check. They are not united even when the
  whole column is numeric: ``"2.0"`` may be a version, and the file says which spelling is
  meant nowhere. Other numbers are never compared (``"3.1"`` / ``"3.10"``, ``"007"`` / ``"7"``
  stay two names).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from rankstats._util.advice import AdviceScoresError, Spelled, escape
from rankstats.errors import InvalidScoresError, preview

#: The separator of the parts of a key made of several columns.
JOIN = " / "


def key_columns(system: str | Sequence[str]) -> list[str]:
    """The system column(s) as a list: one name, or several (``["name", "pretrained"]``).

    Raises
    ------
    ValueError
        An empty list, a column named twice, or something that is not column names.
    """
    if isinstance(system, str):
        return [system]
    columns = list(system)
    if not columns or not all(isinstance(c, str) for c in columns):
        raise ValueError(f"system= takes a column name or a list of column names, not {system!r}")
    if len(set(columns)) != len(columns):
        raise ValueError(f"system= names a column twice: {columns!r}")
    return columns


def key_label(columns: Sequence[str]) -> str:
    """The name of the joined key column: ``"name / pretrained"``."""
    return JOIN.join(columns)


def join_keys(
    frame: pd.DataFrame,
    columns: Sequence[str],
    where: Callable[[np.ndarray], Sequence[str]],
) -> pd.Series:
    """The key columns of ``frame`` (text) joined row by row with :data:`JOIN`.

    ``where(positions)`` names rows in errors (file lines or DataFrame index labels).

    Raises
    ------
    InvalidScoresError
        A missing part of a key, or two distinct keys that read the same once joined.
    """
    parts = []
    for column in columns:
        values = frame[column]
        missing = values.isna().to_numpy()
        if missing.any():
            rows = np.flatnonzero(missing)[:5]
            raise InvalidScoresError(
                f"{int(missing.sum())} row(s) with no {column!r} value ({', '.join(where(rows))}): "
                "every part of a key made of several columns needs a value"
            )
        part = values.astype(str)
        # A part spelled with and without surrounding spaces makes two keys that print alike.
        refuse_whitespace_variants("system", part, first_rows_of(part, where))
        parts.append(part.to_numpy(dtype=object))
    joined = parts[0]
    for part in parts[1:]:
        joined = joined + JOIN + part
    joined = pd.Series(joined, index=frame.index, dtype=object)
    key_code = pd.factorize(pd.MultiIndex.from_arrays([frame[c].astype(str) for c in columns]))[0]
    name_code = pd.factorize(joined)[0]
    if key_code.max(initial=-1) != name_code.max(initial=-1):
        pairs = pd.DataFrame({"key": key_code, "name": name_code}).drop_duplicates()
        clash = pairs[pairs["name"].duplicated(keep=False)]
        name = clash["name"].iloc[0]
        first = [int(np.argmax(key_code == k)) for k in clash.loc[clash["name"] == name, "key"][:2]]
        shown = "; ".join(
            f"{label}: " + ", ".join(f"{c}={frame[c].iloc[p]!r}" for c in columns)
            for label, p in zip(where(np.array(first)), first, strict=True)
        )
        raise InvalidScoresError(
            f"two different keys read the same once their columns {', '.join(map(repr, columns))} "
            f"are joined with {JOIN!r}: {joined.iloc[first[0]]!r} ({shown}): rename the values "
            f"that hold {JOIN.strip()!r}"
        )
    return joined


#: Up to this many names, :func:`whitespace_groups` of plain strings runs in Python.
_FEW_NAMES = 10_000


def whitespace_groups(names: Sequence[str]) -> list[list[str]]:
    """Groups of distinct names that are equal once surrounding whitespace is stripped, in order
    of first appearance (empty when there are none)."""
    names = list(names)
    if len(names) <= _FEW_NAMES and all(type(name) is str for name in names):
        # A few plain strings (the systems, tasks or models of a table): one pass in Python,
        # the same groups as below without building four pandas objects.
        by_key: dict[str, list[str]] = {}
        for name in dict.fromkeys(names):
            by_key.setdefault(name.strip(), []).append(name)
        return [group for group in by_key.values() if len(group) > 1]
    unique = pd.Series(pd.unique(pd.Series(names, dtype=object)), dtype=object)
    if unique.empty:
        return []
    stripped = unique.astype(str).str.strip()
    clash = stripped.duplicated(keep=False).to_numpy()
    if not clash.any():
        return []
    found = pd.DataFrame({"name": unique[clash].to_numpy(), "key": stripped[clash].to_numpy()})
    return [list(group["name"]) for _, group in found.groupby("key", sort=False)]


#: An integer written with a zero decimal part (``2.0``, ``-3.00``): a float column written out.
_ZERO_DECIMALS = re.compile(r"\s*([+-]?\d+)\.0+\s*")
_INTEGER = re.compile(r"\s*([+-]?\d+)\s*")


def integer_spelling_groups(names: Sequence[str]) -> list[list[str]]:
    """Groups of distinct names that spell one integer, with and without a zero decimal part
    (``"2"`` and ``"2.0"``: ids of a column that a tool wrote once as integers, once as floats),
    in order of first appearance. Other numbers are left alone: ``"3.1"`` and ``"3.10"`` may
    well be two versions, and leading zeros (``"007"``) are part of many ids."""
    unique = list(dict.fromkeys(map(str, names)))
    # Few names hold a "." and fewer end in zeros: one cheap pass finds them.
    decimals = {}
    for name in unique:
        if "." in name and (match := _ZERO_DECIMALS.fullmatch(name)):
            decimals[name] = match.group(1).lstrip("+")
    if not decimals:
        return []
    wanted = set(decimals.values())
    by_key: dict[str, list[str]] = {}
    for name in unique:
        key = decimals.get(name)
        if key is None and (match := _INTEGER.fullmatch(name)):
            key = match.group(1).lstrip("+")
        if key in wanted:
            by_key.setdefault(key, []).append(name)
    return [group for group in by_key.values() if len(group) > 1]


def refuse_whitespace_variants(
    kind: str,
    names: Sequence[str],
    first_seen: Callable[[Sequence[str]], Sequence[str | None]],
    prefix: str = "",
) -> None:
    """Refuse ``kind`` names (``"system"``, ``"task"``) that differ only by surrounding
    whitespace, naming both spellings and where each is first seen (``first_seen(spellings)``:
    one label per spelling, e.g. ``"line 4"``, or ``None``).

    Raises
    ------
    InvalidScoresError
    """
    groups = whitespace_groups(names)
    if not groups:
        _refuse_integer_spellings(kind, names, first_seen, prefix)
        return
    shown, more = _spellings_shown(groups, first_seen)
    raise InvalidScoresError(
        f"{prefix}{kind} names that differ only by surrounding whitespace: {'; '.join(shown)}"
        f"{more}: they would be two {kind}s printed alike; correct the spelling so that each "
        f"{kind} is written one way"
    )


def _spellings_shown(
    groups: Sequence[Sequence[str]], first_seen: Callable[[Sequence[str]], Sequence[str | None]]
) -> tuple[list[str], str]:
    """The first three groups of spellings, each with where it is first seen, and how many
    more groups there are: the body of both refusals above and below."""
    shown = [
        " and ".join(
            f"{name!r}" + (f" ({place})" if place else "")
            for name, place in zip(group, first_seen(group), strict=True)
        )
        for group in groups[:3]
    ]
    more = f"; {len(groups) - 3} more such group(s)" if len(groups) > 3 else ""
    return shown, more


def _refuse_integer_spellings(
    kind: str,
    names: Sequence[str],
    first_seen: Callable[[Sequence[str]], Sequence[str | None]],
    prefix: str,
) -> None:
    """Refuse names that spell one integer two ways (:func:`integer_spelling_groups`), naming
    both spellings and where each is first seen. Refused, not united: which spelling is the
    name cannot be told, and a key is never rewritten silently."""
    groups = integer_spelling_groups(names)
    if not groups:
        return
    shown, more = _spellings_shown(groups, first_seen)
    raise InvalidScoresError(
        f"{prefix}{kind} names that spell one number two ways: {'; '.join(shown)}{more}: they "
        f"would be two {kind}s (an id column written once as integers, once as floats?); write "
        f"each {kind} one way"
    )


def text_columns(frame: pd.DataFrame, exclude: Sequence[object] = ()) -> list[object]:
    """Columns of ``frame`` (other than ``exclude``) holding at least one non-empty cell that is
    not a number: the columns that can name rows."""
    found = []
    for column in frame.columns:
        if column in exclude:
            continue
        text = frame[column].astype("string").str.strip()
        filled = (text.notna() & text.ne("")).to_numpy(dtype=bool)
        numeric = pd.to_numeric(text.where(filled), errors="coerce").notna().to_numpy()
        if (filled & ~numeric).any():
            found.append(column)
    return found


def unique_key_suggestion(
    frame: pd.DataFrame, keys: Sequence[str], exclude: Sequence[object] = ()
) -> list[str] | None:
    """The fewest extra text columns (one, else two; see :func:`text_columns`) that, with
    ``keys``, make every row of ``frame`` unique: the key columns to suggest when a wide table
    repeats a system. ``None`` when no such columns exist."""
    keys = list(keys)
    candidates = text_columns(frame, [*keys, *exclude])
    for size in (1, 2):
        for extra in combinations(candidates, size):
            columns = [*keys, *extra]
            if not frame[columns].astype(str).duplicated().any():
                return columns
    return None


def first_rows(
    names: Sequence[str], code: np.ndarray, where: Callable[[np.ndarray], Sequence[str | None]]
) -> Callable[[Sequence[str]], Sequence[str | None]]:
    """Where each of some ``names`` (labels of the factorised ``code``) is first seen."""

    def first_seen(spellings: Sequence[str]) -> Sequence[str | None]:
        position = {n: k for k, n in enumerate(names)}
        wanted = np.array([position[s] for s in spellings])
        rows = np.array([int(np.argmax(code == k)) for k in wanted])
        return where(rows)

    return first_seen


def first_rows_of(
    names: pd.Series, where: Callable[[np.ndarray], Sequence[str | None]]
) -> Callable[[Sequence[str]], Sequence[str]]:
    """Where each of some values of ``names`` (one per row) is first seen."""

    def first_seen(spellings: Sequence[str]) -> Sequence[str]:
        values = names.to_numpy()
        return where(np.array([int(np.argmax(values == s)) for s in spellings]))

    return first_seen


def refuse_repeated_systems(
    table: pd.DataFrame,
    names: pd.Series,
    keys: Sequence[str],
    where: Callable[[np.ndarray], Sequence[str | None]],
    tasks: Sequence[object] | None = None,
    prefix: str = "",
    long_hint: str = "",
    **hint_options: object,
) -> None:
    """Refuse a wide table in which a system is on several rows, naming the system and its rows,
    and the key columns that would make the rows unique when ``table`` has them (``keys``: the
    system column(s) given). ``long_hint``: the advice when the table looks like a long one
    (fewer than two numeric columns, or no key columns to suggest), a template whose options
    are ``hint_options`` (:mod:`rankstats._util.advice`)."""
    repeated = names.duplicated(keep=False).to_numpy()
    if not repeated.any():
        return
    values = names.to_numpy()
    shown = []
    for value in pd.unique(values[repeated])[:3]:
        at = np.flatnonzero(values == value)
        shown.append(f"{value!r} on {len(at)} rows ({', '.join(where(at[:5]))})")
    n = len(pd.unique(values[repeated]))
    more = f" and {n - 3} more repeated systems" if n > 3 else ""
    text = escape(f"{prefix}a system is repeated in this wide table: {'; '.join(shown)}{more}")
    suggestion = unique_key_suggestion(table, keys, exclude=list(tasks or ()))
    named = text_columns(table, keys)
    if long_hint and (suggestion is None or len(table.columns) - len(keys) - len(named) < 2):
        raise AdviceScoresError(f"{text}; {long_hint}", **hint_options)
    if suggestion:
        listed = escape(", ".join(map(repr, suggestion)))
        raise AdviceScoresError(
            f"{text}; the columns {listed} together identify every row: pass {{system}}",
            system=list(map(str, suggestion)),
        )
    raise AdviceScoresError(
        f"{text}; each system must be on one row: remove the repeated rows, or name the key "
        "columns that identify a row with {system}",
        system=Spelled("system=[...]", "--system COLUMN COLUMN"),
    )


def joined_system(
    df: pd.DataFrame, system: Sequence[str], where: Callable[[np.ndarray], Sequence[str | None]]
) -> tuple[pd.DataFrame, str]:
    """The table with its key columns ``system`` joined into one column (``"name / pretrained"``)
    in their place, and that column's name."""
    columns = key_columns(system)
    absent = [c for c in columns if c not in df.columns]
    if absent:
        raise InvalidScoresError(
            f"system column(s) {preview(map(repr, absent))} not found; the table has: "
            f"{preview(map(repr, df.columns), 20)}"
        )
    label = key_label(columns)
    joined = join_keys(df, columns, where)
    rest = df.drop(columns=columns)
    if label in rest.columns:
        raise InvalidScoresError(
            f"the joined key column {label!r} would replace a column of the same name: rename it"
        )
    return pd.concat([pd.DataFrame({label: joined}), rest], axis=1), label
