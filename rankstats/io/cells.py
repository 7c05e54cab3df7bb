"""Cells of a score file: keys as text and scores as floats, refusing what is not written as such.

Keys (system, task, instance) are text; a null, empty or blank key is refused with its lines. A
score cell is a plain decimal number or blank ("not evaluated"); a missing-value word (``NA``,
``n/a``, ``-``, ...) is refused unless listed in ``na_values``; other text and infinities are
refused, counted and shown with up to five examples and what to do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankstats._util.advice import AdviceScoresError, escape, keywords
from rankstats.errors import InvalidScoresError, preview
from rankstats.io.file_bytes import first_line
from rankstats.io.sources import Source
from rankstats.io.tables import locate

#: Cell texts (case-insensitive, stripped) that mean "missing" in common exports. A score cell
#: holding one is refused unless the word is listed in ``na_values``: reading it as "not
#: evaluated" changes the ranking, so the user decides.
MISSING_WORDS = frozenset(
    {"na", "n/a", "n.a.", "nan", "null", "none", "nil", "missing", "-", "--", "?", "#n/a", "#na"}
)


# A plain decimal number (what a score cell must hold); used on the error path only, to find
# the cells Arrow's cast refused.
_NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"


# ---------------------------------------------------------------------------- cells
def keys_as_text(column: Any) -> Any:
    """A key column as Arrow text: strings (or dictionaries of strings) unchanged, any other
    type cast with Arrow (an integer 7 is ``"7"``, ``True`` is ``"true"``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_dictionary(kind):
        if pa.types.is_string(kind.value_type) or pa.types.is_large_string(kind.value_type):
            return column
        column = pc.cast(column, kind.value_type)
        kind = column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return column
    try:
        return pc.cast(column, pa.string())
    except pa.ArrowException as err:
        raise InvalidScoresError(
            f"a key column of type {kind} cannot be read as names ({first_line(err)})"
        ) from None


def blank_keys(column: Any) -> np.ndarray:
    """Positions of null, empty or whitespace-only keys (a key column as text). For dictionary
    columns only the dictionaries are inspected on the way to a clean result."""
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    found, offset = [], 0
    for chunk in chunks:
        if pa.types.is_dictionary(chunk.type):
            words = _numpy_bool(pc.equal(pc.utf8_trim_whitespace(chunk.dictionary), ""))
            if chunk.null_count or words.any():
                indices = chunk.indices.fill_null(0).to_numpy(zero_copy_only=False)
                mask = np.isin(indices, np.flatnonzero(words)) | _numpy_bool(chunk.is_null())
                found.append(np.flatnonzero(mask) + offset)
        else:
            blank = pc.or_kleene(pc.equal(pc.utf8_trim_whitespace(chunk), ""), chunk.is_null())
            found.append(np.flatnonzero(_numpy_bool(blank)) + offset)
        offset += len(chunk)
    return np.concatenate(found) if found else np.empty(0, dtype=np.int64)


def _numpy_bool(values: Any) -> np.ndarray:
    import pyarrow.compute as pc

    return np.asarray(pc.fill_null(values, False).to_numpy(zero_copy_only=False), dtype=bool)


def score_type_problem(kind: Any) -> str | None:
    """Why an Arrow type cannot hold scores, or ``None`` (numbers, text, all-null)."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if (
        pa.types.is_integer(kind)
        or pa.types.is_floating(kind)
        or pa.types.is_decimal(kind)
        or pa.types.is_null(kind)
        or pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
    ):
        return None
    if pa.types.is_boolean(kind):
        return "boolean (true/false), not numbers; convert it to 0/1 if that is meant"
    return f"of type {kind}, not numbers"


@dataclass
class BadCells(Exception):
    """Score cells that are not numbers: positions in the column and their text."""

    rows: np.ndarray
    values: list[str] = field(default_factory=list)


def scores_as_float(column: Any, na_values: Sequence[str] | None = None) -> tuple[np.ndarray, int]:
    """Float scores of an Arrow column (NaN = not evaluated) and the number of cells read as
    missing because they hold one of ``na_values``.

    Numbers: nulls are missing. Text: stripped; empty = missing; a word of ``na_values``
    (exact, after stripping) = missing; anything else must be a plain decimal number. Missing-value
    words not in ``na_values``, other text and infinities raise :class:`BadCells`.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_dictionary(kind):
        column = pc.cast(column, kind.value_type)
        kind = column.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        values = np.asarray(
            pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64
        )
        infinite = np.isinf(values)
        if infinite.any():
            rows = np.flatnonzero(infinite)
            raise BadCells(rows, [repr(float(v)) for v in values[rows]])
        return values, 0
    try:  # fast path: every cell a number (or null); no empty cell, word or space
        values = np.asarray(
            pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64
        )
    except pa.ArrowInvalid:
        values = None
    if values is not None and not np.isinf(values).any():
        if not np.isnan(values).any() or np.isnan(values).sum() == column.null_count:
            return values, 0
    text = pc.utf8_trim_whitespace(column)
    drop = pc.or_kleene(pc.is_null(text), pc.equal(text, ""))
    n_na = 0
    if na_values:
        words = pa.array(sorted({str(w).strip() for w in na_values}), pa.string())
        na = pc.is_in(text, value_set=words)
        n_na = int(pc.sum(na).as_py() or 0)
        drop = pc.or_kleene(drop, na)
    cleaned = pc.if_else(drop, pa.scalar(None, pa.string()), text)
    try:
        numbers = pc.cast(cleaned, pa.float64())
    except pa.ArrowInvalid:
        numbers = None
    if numbers is not None:
        values = np.asarray(numbers.to_numpy(zero_copy_only=False), dtype=np.float64)
        # Arrow reads "nan", "inf", "Infinity" as numbers: they are words here.
        odd = ~np.isfinite(values) & ~_numpy_bool(pc.is_null(numbers))
        if not odd.any():
            return values, n_na
    else:  # error path: which cells are not plain numbers
        number = _numpy_bool(pc.match_substring_regex(cleaned, _NUMBER))
        odd = ~number & ~_numpy_bool(pc.is_null(cleaned))
        if not odd.any():  # Arrow refused a plain number: let its message speak
            pc.cast(cleaned, pa.float64())
    rows = np.flatnonzero(odd)
    raw = text.take(pa.array(rows)).to_pylist()
    raise BadCells(rows, [str(v) for v in raw])


def check_keys(source: Source, column: Any, key: str, offset: int = 0) -> None:
    """Refuse null, empty or blank keys of a text column, naming their lines (``offset``: rows
    of the file before this batch)."""
    blank = blank_keys(column)
    if len(blank):
        lines = ", ".join(locate(source, blank[:5] + offset))
        more = f", ... ({len(blank) - 5} more)" if len(blank) > 5 else ""
        raise InvalidScoresError(
            f"{source.path}: {len(blank)} row(s) with an empty {key!r} key ({lines}{more}): "
            f"every row needs a {key} name"
        )


def score_column(
    source: Source,
    column: Any,
    name: str,
    na_values: Sequence[str] | None,
    offset: int = 0,
    where: Callable[[np.ndarray], list[str]] | None = None,
    choose: str = "; choose the score column with {score}",
) -> tuple[np.ndarray, int]:
    """:func:`scores_as_float` of a file's column, with the errors of both readers: a type that
    cannot hold scores, and bad cells named by their lines (``offset``: rows of the file before
    this batch; ``where`` overrides the naming, e.g. to add the system of a wide table).
    ``choose``: the remedy, a template whose fields are options named alone
    (:mod:`rankstats._util.advice`)."""
    alone = keywords(*(key for key in ("score", "tasks") if "{" + key + "}" in choose))
    problem = score_type_problem(column.type)
    if problem:
        head = escape(f"{source.path}: column {name!r} is {problem}")
        raise AdviceScoresError(head + choose, **alone)
    try:
        return scores_as_float(column, na_values)
    except BadCells as bad:
        if where is None:

            def where(rows: np.ndarray) -> list[str]:
                return locate(source, rows + offset)

        hint = choose if "{tasks}" in choose else ""
        template, options = cells_message(bad, name, where, hint)
        options.update(alone if hint else {})
        raise AdviceScoresError(escape(f"{source.path}: ") + template, **options) from None


def cell_kind(value: str) -> str:
    """``"missing"`` (a missing-value word), ``"infinite"`` or ``"text"``."""
    word = value.strip().casefold()
    if word in MISSING_WORDS:
        return "missing"
    if word.lstrip("+-") in ("inf", "infinity"):
        return "infinite"
    return "text"


def cells_message(
    bad: BadCells, column: str, where: Callable[[np.ndarray], list[str]], hint: str = ""
) -> tuple[str, dict]:
    """One line per kind of bad cell (missing-value words, text, infinities): count, up to five
    examples named by ``where`` (e.g. file lines), what to do; as ``(template, options)`` of an
    :class:`~rankstats._util.advice.AdviceScoresError` (``hint``: a template too)."""
    options: dict = {}
    kinds = np.array([cell_kind(v) for v in bad.values])
    parts = []
    for kind in ("missing", "text", "infinite"):
        picked = np.flatnonzero(kinds == kind)
        if not len(picked):
            continue
        labels = where(bad.rows[picked[:5]])
        examples = ", ".join(
            f"{label}: {bad.values[k]!r}" for label, k in zip(labels, picked[:5], strict=True)
        )
        if len(picked) > 5:
            examples += f", ... ({len(picked) - 5} more)"
        n = len(picked)
        if kind == "missing":
            options["na_values"] = list(dict.fromkeys(bad.values[k].strip() for k in picked))
            parts.append(
                escape(
                    f"{n} score cell(s) of column {column!r} hold missing-value words, refused by "
                    f"default ({examples}); to read them as 'not evaluated' pass "
                )
                + "{na_values}, or leave the cells empty"
            )
        elif kind == "text":
            parts.append(
                escape(
                    f"{n} non-numeric score(s) in column {column!r} ({examples}): scores must be "
                    "plain numbers with a decimal point"
                )
                + hint
            )
        else:
            parts.append(
                escape(
                    f"{n} infinite score(s) in column {column!r} ({examples}): use an empty cell "
                    "for 'not evaluated'"
                )
            )
    return "; ".join(parts), options


def na_warning(path: str, count: int, na_values: Sequence[str]) -> str:
    """The text of the DataWarning for score cells read as missing through ``na_values``."""
    return (
        f"{path}: read {count} score cell(s) holding {preview(sorted(set(na_values)))} as "
        "missing (not evaluated), as na_values asks"
    )
