"""Covariate tables read from files: one row per unit (a system, a ranker, a task), its key in
one column, one column per covariate.

Two readers share one parser (:func:`read_covariate_table`): :func:`read_system_covariates`
(numeric covariates of systems; an empty cell: the covariate is missing for that system, which
then keeps a log-worth of its own, :mod:`rankstats.models.system_covariates`) and the rank
tree's covariates of rankers or tasks (numeric or categorical,
:func:`rankstats.models.rank_tree`).  CSV (comma, semicolon or tab, sniffed) or Parquet.  Every
refusal is one line naming the file, the line and the column.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats._util.advice import AdviceScoresError, escape, keywords
from rankstats.core.keys import first_rows_of, refuse_whitespace_variants
from rankstats.errors import InvalidScoresError


def read_covariate_table(
    path: str | os.PathLike,
    key: str | None = None,
    columns: Sequence[str] | None = None,
    categorical: Sequence[str] = (),
    columns_option: str = "columns",
    *,
    detect_text: bool = False,
) -> pd.DataFrame:
    """Read a covariate table.

    Parameters
    ----------
    path : str or path
        A CSV file (a header line, then one row per unit) or a ``.parquet`` file.
    key : str, optional
        The column naming the units (default: the first column); read as text.
    columns : sequence of str, optional
        The covariate columns to keep (default: every column but the key).
    categorical : sequence of str
        Columns read as text (categories) whatever they hold.
    columns_option : str
        The caller's name of ``columns`` in the messages (``covariate_columns=`` in Python,
        ``--covariate-columns`` on the command line).
    detect_text : bool
        Also read as categories the columns in which no cell is a number (``"Ap - 15"``,
        ``"yes"``), in addition to ``categorical``.  A column in which some cells are numbers
        and others are not is refused either way, naming those cells: it is a numeric covariate
        with a typo (or a missing-value word) far more often than categories, and reading it as
        categories would change its test silently; declare it in ``categorical`` if it is one.

    Returns
    -------
    pandas.DataFrame
        Indexed by the key (text), numeric columns as float (NaN: empty cell), categorical ones
        as text (None: empty cell).

    Raises
    ------
    InvalidScoresError
        No such file, not a table, no covariate column, an unknown column, an empty or repeated
        key, a cell that is not a number in a numeric column (or in a column of numbers read
        with ``detect_text``), an infinite value (``inf``) outside a categorical column.
    """
    name = str(path)
    frame = _text_table(Path(path))
    if frame.shape[1] < 2:
        raise InvalidScoresError(
            f"{name}: needs a key column and at least one covariate column (found "
            f"{frame.shape[1]} column(s); is the separator a comma, semicolon or tab?)"
        )
    key = str(frame.columns[0]) if key is None else key
    if key not in frame.columns:
        raise AdviceScoresError(
            escape(f"{name}: no column {key!r} for ")
            + "{key}"
            + escape(f"; its columns: {_list(frame)}"),
            **keywords("key"),
        )
    lines = np.arange(len(frame)) + 2  # the header is line 1
    raw = frame[key].fillna("")
    try:  # "gpt-4" and "gpt-4 ": two spellings, refused before the keys are stripped
        refuse_whitespace_variants(
            key, raw, first_rows_of(raw, lambda rows: [f"line {lines[r]}" for r in rows])
        )
    except InvalidScoresError as err:
        raise InvalidScoresError(f"{name}: {err}") from None
    units = raw.str.strip()
    blank = np.flatnonzero(units.to_numpy() == "")
    if len(blank):
        raise InvalidScoresError(f"{name}: line {lines[blank[0]]} has no {key!r}")
    repeated = units.duplicated(keep=False).to_numpy()
    if repeated.any():
        first = units[repeated].iloc[0]
        where = ", ".join(str(v) for v in lines[units.to_numpy() == first])
        raise InvalidScoresError(f"{name}: {key} {first!r} has several rows (lines {where})")
    available = [c for c in frame.columns if c != key]
    chosen = list(columns) if columns is not None else available
    named = [categorical] if isinstance(categorical, str) else list(categorical)
    asked = [(c, columns_option) for c in chosen] + [(c, "categorical") for c in named]
    for column, option in asked:
        if column not in available:
            raise AdviceScoresError(
                escape(f"{name}: no covariate column {column!r} (")
                + "{"
                + option
                + "}"
                + escape(f"); its covariate columns: {', '.join(available)}"),
                **keywords(option),
            )
    if not chosen:
        raise InvalidScoresError(f"{name}: no covariate column chosen")
    out = {}
    for column in chosen:
        text = frame[column].fillna("").str.strip()
        values = pd.to_numeric(text.replace("", np.nan), errors="coerce").to_numpy(np.float64)
        filled = text.to_numpy() != ""
        words = np.isnan(values) & filled
        if column in named or (detect_text and filled.any() and words[filled].all()):
            out[column] = text.replace("", None).astype(object).to_numpy()
            continue
        cells = _Cells(name, key, column, lines, units, frame[column], int(filled.sum()))
        bad = words | np.isinf(values)
        if bad.any():
            raise cells.refused(bad, detect_text, named)
        out[column] = values
    return pd.DataFrame(out, index=pd.Index(units.to_numpy(), name=key))


def read_system_covariates(
    path: str | os.PathLike, covariate_columns: Sequence[str] | None = None
) -> pd.DataFrame:
    """Numeric system covariates (:func:`read_covariate_table` with the system names in the
    first column and every covariate numeric; ``covariate_columns``: its ``columns``)."""
    return read_covariate_table(path, columns=covariate_columns, columns_option="covariate_columns")


def _text_table(path: Path) -> pd.DataFrame:
    """Every cell as text (None when empty)."""
    name = str(path)
    if not path.is_file():
        raise InvalidScoresError(f"{name}: no such file")
    if path.suffix.lower() != ".parquet" and not _has_text(path):
        raise InvalidScoresError(f"file {name} is empty: a covariate table needs a header line")
    try:
        if path.suffix.lower() == ".parquet":
            frame = pd.read_parquet(path)
            return (
                frame.astype(object)
                .where(frame.notna(), None)
                .map(lambda v: v if v is None else str(v))
            )
        return pd.read_csv(
            path, dtype=str, keep_default_na=False, sep=None, engine="python", skipinitialspace=True
        )
    except (ValueError, OSError, UnicodeDecodeError, pd.errors.ParserError, csv.Error) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InvalidScoresError(f"{name}: not a readable covariate table ({first})") from None


class _Cells:
    """The cells of one column, for a message that names the bad ones (line, key, value)."""

    def __init__(self, name, key, column, lines, units, raw, n_filled):
        self.name, self.key, self.column = name, key, column
        self.lines, self.units, self.raw, self.n_filled = lines, units, raw, n_filled

    def refused(self, bad: np.ndarray, detect_text: bool, named: list) -> AdviceScoresError:
        rows = np.flatnonzero(bad)
        shown = ", ".join(
            f"line {self.lines[k]} ({self.key} {self.units.iloc[k]!r}): {self.raw.iloc[k]!r}"
            for k in rows[:3]
        )
        more = f", and {len(rows) - 3} more" if len(rows) > 3 else ""
        numbers = "holds numbers, but " if len(rows) < self.n_filled else ""
        head = escape(
            f"{self.name}: column {self.column!r} {numbers}{len(rows)} cell(s) are not finite "
            f"numbers ({shown}{more}): correct them (leave a cell empty when the covariate is "
            "missing)"
        )
        if not detect_text:
            return AdviceScoresError(head)
        return AdviceScoresError(
            head + escape(", or if the column is categorical declare it with ") + "{categorical}",
            categorical=[*named, self.column],
        )


def _has_text(path: Path) -> bool:
    """The file holds something besides whitespace (read in blocks: no whole-file read)."""
    with path.open("rb") as handle:
        while block := handle.read(1 << 16):
            if block.strip():
                return True
    return False


def _list(frame: pd.DataFrame) -> str:
    return ", ".join(map(str, frame.columns))
