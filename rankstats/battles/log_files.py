"""Reading the columns of a battle log as text, and the names of its models.

Keys are text, as for scores (:mod:`rankstats.io.sources`): CSV / TSV and Parquet go through the one
reader (every cell of a text file is text; a Parquet integer ``7`` is ``"7"``).  JSON lines
(``.jsonl`` / ``.ndjson``) and JSON arrays (``.json``) are parsed with every number kept as the
text it is written with (``1`` is ``"1"``, ``2.0`` is ``"2.0"``), so the model ``1`` is one model
in every row — pandas would turn a column holding ``1`` and ``2.0`` into floats, and the same
model ``1`` into ``"1.0"`` in one column and ``"1"`` in the other.

Names are checked once for the whole log (both model columns together):

- distinct values that read the same as text (``1`` and ``"1"`` in a DataFrame) are refused, as
  :meth:`rankstats.Scores.from_long` refuses them;
- names that differ only by surrounding whitespace (``"gpt-4"`` / ``"gpt-4 "``) are refused,
  naming both spellings and a row of each (:func:`rankstats.core.keys.refuse_whitespace_variants`,
  the rule of the scores reader), and so are ids that spell one integer two ways (``2`` and
  ``2.0`` in a text file: one model split in two, then a disconnected graph).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rankstats._util.advice import Advice, escape, keywords
from rankstats.errors import InvalidScoresError, preview

JSON_SUFFIXES = (".jsonl", ".ndjson", ".json")

Where = Callable[[Sequence[int]], list[str]]


class InvalidBattlesError(InvalidScoresError):
    """A battle log cannot be used as given (unknown winner, missing cell, self-play)."""


class AdviceBattlesError(Advice, InvalidBattlesError):
    """An :class:`InvalidBattlesError` whose remedy names options (:mod:`rankstats._util.advice`:
    ``model_a=`` in Python, ``--model-a`` on the command line)."""


def check_columns(present: list[Any], columns: dict[str, str], what: str) -> None:
    """Refuse a log without the named columns (listing the columns it has)."""
    roles = {"model_a": "model shown first", "model_b": "model shown second"}
    missing = [
        f"{name!r} ({roles.get(key, key)})" for key, name in columns.items() if name not in present
    ]
    if missing:
        raise AdviceBattlesError(
            escape(
                f"{what} has no column {', '.join(missing)}; its columns are "
                f"{preview(map(repr, present))}"
            )
            + " (name them with {model_a}, {model_b}, {winner}, {cluster})",
            **keywords("model_a", "model_b", "winner", "cluster"),
        )


def read_file(
    path: Path, columns: dict[str, str], sep: str | None, encoding: str
) -> tuple[pd.DataFrame, Where]:
    """The named columns of a file as a DataFrame of text (``None`` = missing), and a function
    naming rows by file line."""
    from rankstats.io import cells as _cells
    from rankstats.io import sources as _read
    from rankstats.io import tables as _tables

    if not path.exists():
        raise FileNotFoundError(f"no such battle file: {path}")
    names = list(dict.fromkeys(columns.values()))
    if path.suffix.lower() in JSON_SUFFIXES:
        return _read_json(path, columns, names, encoding)
    source = _read.inspect(path, sep=sep, encoding=encoding)
    check_columns(list(source.columns), columns, str(path))
    table = _tables.read_table(source, columns=names, keys=names)
    frame = pd.DataFrame(
        {name: _cells.keys_as_text(table.column(name)).to_pandas() for name in names}
    )
    return frame, (lambda rows: _tables.locate(source, rows))


def _json_text(value: Any) -> Any:
    """A parsed JSON value as key text: strings and numbers (already text) unchanged, ``true`` /
    ``false`` as written, ``null`` missing; objects and arrays are refused by the caller."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return value  # dict or list: not a key


def _read_json(
    path: Path, columns: dict[str, str], names: list[str], encoding: str
) -> tuple[pd.DataFrame, Where]:
    lines = path.suffix.lower() != ".json"
    unit = "line" if lines else "record"
    options = {"parse_int": str, "parse_float": str, "parse_constant": str}
    try:
        text = path.read_text(encoding=encoding)
    except UnicodeDecodeError as err:
        raise AdviceBattlesError(
            escape(f"{path} is not {encoding} text ({err.reason} at byte {err.start}); give its ")
            + "encoding ({encoding})",
            **keywords("encoding"),
        ) from None
    numbers: list[int] = []
    try:
        if lines:
            records = []
            for number, line in enumerate(text.splitlines(), 1):
                if line.strip():
                    records.append(json.loads(line, **options))
                    numbers.append(number)
        else:
            records = json.loads(text, **options)
            if not isinstance(records, list):
                raise InvalidBattlesError(
                    f"{path}: a .json battle log is an array of records [{{...}}, ...]; "
                    "JSON lines (one record per line) go in a .jsonl file"
                )
            numbers = list(range(1, len(records) + 1))
    except json.JSONDecodeError as err:
        where = f"line {number}" if lines else f"line {err.lineno}"
        raise InvalidBattlesError(f"{path} is not readable as JSON: {where}: {err.msg}") from None
    bad = [k for k, r in enumerate(records) if not isinstance(r, dict)]
    if bad:
        raise InvalidBattlesError(
            f"{path}: {unit} {numbers[bad[0]]} is not a record {{...}} but "
            f"{json.dumps(records[bad[0]])[:40]}"
        )
    present = list(dict.fromkeys(key for record in records for key in record))
    if records:
        check_columns(present, columns, str(path))
    frame = pd.DataFrame(
        {name: [_json_text(r.get(name)) for r in records] for name in names}, dtype=object
    )
    for name in names:
        nested = np.flatnonzero([isinstance(v, (dict, list)) for v in frame[name]])
        if len(nested):
            raise InvalidBattlesError(
                f"{path}: {unit} {numbers[nested[0]]}: column {name!r} holds "
                f"{json.dumps(frame[name].iloc[nested[0]])[:40]}, not a name"
            )
    return frame, (lambda rows: [f"{unit} {numbers[r]}" for r in rows])


def factorize(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Codes (−1 = missing) and the distinct values (as given; a categorical's codes reused)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = np.asarray(column.cat.codes, dtype=np.int64)
        values = np.asarray(column.cat.categories, dtype=object)
        used = np.bincount(codes[codes >= 0], minlength=len(values)) > 0
        if not used.all():  # unused categories are no models
            remap = np.cumsum(used) - 1
            codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], -1)
            values = values[used]
    else:
        codes, values = pd.factorize(column, use_na_sentinel=True)
        values = np.asarray(values, dtype=object)
    return codes.astype(np.int64, copy=False), values


def model_names(
    a_codes: np.ndarray,
    a_values: np.ndarray,
    b_codes: np.ndarray,
    b_values: np.ndarray,
    where: Callable[[int], str],
    source: str,
) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """One set of model names (text) for both model columns: ``(names, ia, ib)``.

    Distinct values are first united as values (``1`` and ``1.0`` are one value), then written
    as text; values that differ but read alike (``1`` and ``"1"``) and names that differ only by
    surrounding whitespace are refused.  ``where(position)`` names a row.
    """
    from rankstats.core.keys import refuse_whitespace_variants

    union = pd.Index(pd.unique(np.concatenate([a_values, b_values]).astype(object)))
    text = np.array([str(v) for v in union], dtype=object)
    ia = union.get_indexer(a_values)[a_codes]
    ib = union.get_indexer(b_values)[b_codes]
    if len(set(text)) != len(text):
        seen = pd.Series(text).duplicated(keep=False).to_numpy()
        shown = [f"{v!r} ({type(v).__name__})" for v in union[seen][:4]]
        raise InvalidBattlesError(
            f"{source}: distinct model keys become the same name as text (e.g. 1 and '1'): "
            f"{', '.join(shown)}; write each model one way"
        )

    def first_seen(spellings: Sequence[str]) -> list[str | None]:
        first = _first_rows(len(text), ia, ib)  # only when there is something to report
        position = {name: k for k, name in enumerate(text)}
        return [where(int(first[position[s]])) for s in spellings]

    try:
        refuse_whitespace_variants("model", list(text), first_seen, prefix=f"{source}: ")
    except InvalidScoresError as err:
        raise InvalidBattlesError(str(err)) from None
    return tuple(text), ia, ib


def _first_rows(n: int, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """The first row in which each of ``n`` models appears (either column)."""
    rows = np.concatenate([np.arange(len(ia)), np.arange(len(ib))])
    codes = np.concatenate([ia, ib])
    first = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, codes, rows)
    return first


# ---------------------------------------------------------------------------- covariates
def covariate_spec(covariates: object) -> dict[str, tuple[str, ...]]:
    """Covariate name → its column, or its two columns (model a's, model b's).

    ``covariates`` is a column name, a list of them (each taken as is: a value per battle,
    oriented model a − model b), or a mapping name → column or ``(column_a, column_b)``.
    """
    if covariates is None:
        return {}
    if isinstance(covariates, str):
        covariates = [covariates]
    if not isinstance(covariates, (Mapping, list, tuple)):
        raise TypeError(
            "covariates must be a column name, a list of column names or a mapping name → "
            f"column or (column_a, column_b), not {type(covariates).__name__} {covariates!r}"
        )
    items = covariates.items() if isinstance(covariates, Mapping) else ((c, c) for c in covariates)
    spec: dict[str, tuple[str, ...]] = {}
    for name, columns in items:
        columns = (columns,) if isinstance(columns, str) else tuple(columns)
        if not (1 <= len(columns) <= 2 and all(isinstance(c, str) for c in columns)):
            raise ValueError(
                f"covariate {name!r} must name one column, or two (model a's, model b's), "
                f"not {columns!r}"
            )
        spec[str(name)] = columns
    if not spec:
        raise ValueError("covariates must name at least one column")
    return spec


def covariate_matrix(
    frame: pd.DataFrame,
    spec: dict[str, tuple[str, ...]],
    keys: list[str],
    where: Where | None,
    row: Callable[[np.ndarray], str],
    source: str,
) -> np.ndarray:
    r"""The covariates of every battle, ``(battles, K)``.

    One column is taken as is; two columns :math:`x_a, x_b` (e.g. the answers' lengths, their
    counts of headers, lists, bold words) give the normalised difference
    :math:`(x_a - x_b) / (x_a + x_b)` (0 when both are 0), LMSYS's style-control features (Li et
    al. 2024, "Does style matter?"), which needs values ≥ 0.  A value that is missing, not a
    number or infinite is an error naming the row.
    """
    from rankstats.core.score_values import numeric_scores

    out = np.empty((len(frame), len(spec)))
    for k, (name, columns) in enumerate(spec.items()):
        values = []
        for column in columns:
            v = numeric_scores(frame, column, keys, where, "covariate values", InvalidBattlesError)
            missing = np.flatnonzero(np.isnan(v))
            if len(missing):
                raise InvalidBattlesError(
                    f"{source}: {row(missing)}: missing value in covariate column {column!r}; "
                    "every battle needs its covariates (remove or complete such rows first)"
                )
            values.append(v)
        if len(values) == 1:
            out[:, k] = values[0]
            continue
        a, b = values
        negative = np.flatnonzero((a < 0) | (b < 0))
        if len(negative):
            raise InvalidBattlesError(
                f"{source}: {row(negative)}: covariate {name!r} compares {columns[0]!r} with "
                f"{columns[1]!r} as (a − b) / (a + b), which needs values ≥ 0 (lengths, "
                "counts); give a single column of differences instead"
            )
        total = a + b
        out[:, k] = np.where(total > 0, (a - b) / np.where(total > 0, total, 1.0), 0.0)
    return out
