"""Rankings and paired preferences read from files, by the one reader (:mod:`rankstats.io.sources`):
the same encodings, compression (gzip / bz2 / xz from the content), delimiters and refusals as
:func:`rankstats.read_scores`, and every error names the file's line.

Formats
-------
``soc``, ``soi``, ``toc``, ``toi`` (PrefLib, :mod:`rankstats.io.preflib`)
    ``count: order`` lines under a ``#`` header that names the alternatives. A count of ``c``
    becomes ``c`` identical rankings (:class:`~rankstats.Rankings` has no weights), labelled by
    the order's line and the voter's number within it. Incomplete orders (``soi``, ``toi``) are
    read as **sub-rankings**: an alternative an order does not list is "not evaluated" (NaN),
    nothing is assumed about where it stands. PrefLib does not say whether such orders are
    sub-rankings or top-k lists (voters who stopped after their favourites; PrefLib's own
    "imbued" ``.toc`` files put the unlisted alternatives tied at the bottom): for top-k data
    fit with ``kind="top_k"`` (CLI: ``--kind top_k``), which makes every listed alternative beat
    every unlisted one.
``rank-matrix``
    A CSV: one row per ranker, one column per system, a cell holds the system's rank (1 = best;
    equal ranks are ties; only the order within a row matters) or is empty (not ranked).
``orderings``
    A CSV: one ranking per row, best first, a cell holds a system name; a row ends at its first
    empty cell (a sub-ranking). No ties (use a rank matrix or ``.toi`` for ties).

In both CSV formats a column named ``ranker`` (or the column given as ``ranker=``) labels the
rows; it is not a system.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats._util.advice import AdviceError, AdviceRankingsError, escape
from rankstats._util.resources import rankings_bytes, require_memory
from rankstats.core import keys as _keys
from rankstats.core.rankings import Rankings
from rankstats.errors import DataWarning, InvalidRankingsError, InvalidScoresError, preview
from rankstats.io import cells as _cells
from rankstats.io import preflib as _preflib
from rankstats.io import sources as _read
from rankstats.io import tables as _tables

#: ``format=`` values of :func:`read_rankings` (``preflib``: the type from the file).
FORMATS = ("auto", "preflib", *_preflib.TYPES, "rank-matrix", "orderings")
_CSV_ADVICE = (
    "{matrix} (one row per ranker, one column per system, cells = ranks) or {orderings} (one "
    "ranking per row, best first, cells = system names)"
)


def rankings_format(path: str | Path, format: str = "auto") -> str:
    """The format :func:`read_rankings` reads ``path`` in: ``format`` itself, or for ``"auto"``
    the PrefLib type of a ``.soc`` / ``.soi`` / ``.toc`` / ``.toi`` suffix (optionally
    compressed, ``.toc.gz``).

    Raises
    ------
    ValueError
        An unknown format, or ``"auto"`` for a file whose suffix does not say it (a CSV holds a
        rank matrix or orderings: a guess could read one as the other).
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(map(repr, FORMATS))}, not {format!r}")
    if format == "preflib":
        found = _preflib.suffix_type(path, _read.COMPRESSED_SUFFIXES)
        return found or "preflib"
    if format != "auto":
        return format
    found = _preflib.suffix_type(path, _read.COMPRESSED_SUFFIXES)
    if found:
        return found
    raise AdviceError(
        escape(f"{path}: ")
        + "the name does not say how this file holds rankings (PrefLib files end in .soc, "
        ".soi, .toc or .toi); for a CSV pass " + _CSV_ADVICE,
        matrix=("format", "rank-matrix"),
        orderings=("format", "orderings"),
    )


def read_rankings(
    path: str | Path,
    format: str = "auto",
    *,
    ranker: str | None = None,
    sep: str | None = None,
    encoding: str = "utf-8",
    na_values: Sequence[str] | None = None,
    several_per_ranker: bool = False,
) -> Rankings:
    """Read rankings from a PrefLib file, a rank-matrix CSV or an orderings CSV.

    Parameters
    ----------
    path : str or Path
        The file (optionally gzip, bz2 or xz compressed, detected from its content).
    format : {"auto", "preflib", "soc", "soi", "toc", "toi", "rank-matrix", "orderings"}
        ``auto``: the PrefLib type from the suffix (``.soc``, ``.soi``, ``.toc``, ``.toi``, also
        ``.toc.gz``); a CSV must say which it holds (``rank-matrix`` or ``orderings``).
        ``preflib``: the type from the file's ``# DATA TYPE`` line (or its suffix).
    ranker : str, optional
        CSV formats: the column labelling the rows (default: a column named ``ranker``, if any).
    sep, encoding : str
        As in :func:`rankstats.read_scores`.
    na_values : sequence of str, optional
        Rank matrix: words read as "not ranked" (by default only an empty cell is).
    several_per_ranker : bool
        CSV formats: a label of the ``ranker`` column may label several rows (several rankings
        by one ranker, e.g. a farmer's four in PlackettLuce's ``beans``, for
        :func:`rankstats.models.rank_tree`, which takes the ranker as its unit). Default: each
        row is one ranker, and a repeated label is refused.

    Returns
    -------
    Rankings
        Rank 1 = best, ties averaged, NaN = not ranked. PrefLib: one row per voter (an order
        given by ``c`` voters is ``c`` rows, labelled ``(line, voter)``); CSV: one row per data
        row, labelled by the ``ranker`` column or numbered from 1.

    Raises
    ------
    FileNotFoundError, UnreadableFileError
        As :func:`rankstats.read_scores` (empty, binary, truncated, wrongly encoded files).
    InvalidRankingsError
        A malformed line, naming it (see :mod:`rankstats.io.preflib` for PrefLib's rules); a cell
        of a rank matrix that is not a number; a gap or a repeated system in an ordering; names
        that differ only by surrounding whitespace.

    Notes
    -----
    Incomplete PrefLib orders (``soi``, ``toi``) and short orderings are sub-rankings: nothing
    is assumed about the systems they leave out. If they are top-k lists, fit with
    ``kind="top_k"`` (CLI: ``rankstats fit --kind top_k``).

    Examples
    --------
    >>> import pathlib, tempfile, rankstats as rs
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "votes.toc"
    >>> _ = path.write_text(
    ...     "# DATA TYPE: toc\\n# NUMBER ALTERNATIVES: 3\\n# ALTERNATIVE NAME 1: a\\n"
    ...     "# ALTERNATIVE NAME 2: b\\n# ALTERNATIVE NAME 3: c\\n2: 1,{2,3}\\n1: 3,2,1\\n"
    ... )
    >>> rs.read_rankings(path).ranks.tolist()
    [[1.0, 2.5, 2.5], [1.0, 2.5, 2.5], [3.0, 2.0, 1.0]]
    """
    kind = rankings_format(path, format)
    if kind in (*_preflib.TYPES, "preflib"):
        return _read_preflib(path, None if kind == "preflib" else kind, encoding)
    source = _read.inspect(path, sep=sep, encoding=encoding)
    if kind == "rank-matrix":
        return _read_rank_matrix(source, ranker, na_values, several_per_ranker)
    return _read_orderings(source, ranker, several_per_ranker)


def read_paired_comparisons(
    path: str | Path,
    preferred: str = "preferred",
    other: str = "other",
    *,
    sep: str | None = None,
    encoding: str = "utf-8",
) -> pd.DataFrame:
    """Read stated pairwise preferences (one row per preference: ``preferred`` was preferred to
    ``other``) as the paired counts the Bradley–Terry model is fitted to.

    Other columns (an assessor, a question id) are ignored: every row is one comparison.

    Returns
    -------
    pandas.DataFrame
        ``item1, item2, wins1, wins2``: one row per unordered pair of systems (in order of first
        appearance), ``wins1`` = the rows preferring ``item1`` to ``item2``; the input of
        ``rs.models.BradleyTerry().fit`` and of ``rankstats fit FILE --format pairwise``.

    Raises
    ------
    InvalidRankingsError
        A missing column, an empty name, a system preferred to itself, names that differ only
        by surrounding whitespace (each naming the lines).

    Examples
    --------
    >>> import pathlib, tempfile, rankstats as rs
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "prefs.csv"
    >>> _ = path.write_text("assessor,preferred,other\\n1,a,b\\n1,b,c\\n2,b,a\\n2,a,b\\n")
    >>> rs.read_paired_comparisons(path)
      item1 item2  wins1  wins2
    0     a     b      2      1
    1     b     c      1      0
    """
    source, (a, b) = stated_preferences(
        path, {"preferred": preferred, "other": other}, sep=sep, encoding=encoding
    )
    both = pd.concat([a, b], ignore_index=True)
    codes, systems = pd.factorize(both)
    _refuse_variants(list(systems), codes, np.tile(np.arange(len(a)), 2), source)
    first, second = codes[: len(a)], codes[len(a) :]
    low, high = np.minimum(first, second), np.maximum(first, second)
    pair, inverse = np.unique(low * len(systems) + high, return_inverse=True)
    wins1 = np.bincount(inverse, weights=first == low, minlength=len(pair)).astype(np.int64)
    total = np.bincount(inverse, minlength=len(pair))
    item1, item2 = np.divmod(pair, len(systems))
    return pd.DataFrame(
        {
            "item1": np.asarray(systems, dtype=object)[item1],
            "item2": np.asarray(systems, dtype=object)[item2],
            "wins1": wins1,
            "wins2": total - wins1,
        }
    )


def stated_preferences(
    path: str | Path,
    columns: dict[str, str],
    *,
    sep: str | None = None,
    encoding: str = "utf-8",
) -> tuple[_read.Source, list[pd.Series]]:
    """The columns of a file of stated preferences (``columns``: option → column name, the
    preferred and the other system last), as text, after the refusals every such file shares:
    a missing column (named with its option), no rows, an empty name, a system preferred to
    itself (each naming the lines)."""
    source = _read.inspect(path, sep=sep, encoding=encoding)
    absent = [
        (option, column) for option, column in columns.items() if column not in source.columns
    ]
    if absent:
        raise AdviceRankingsError(
            escape(f"{source.path}: ")
            + "; ".join(
                escape(f"no column {column!r} for ") + "{" + option + "}"
                for option, column in absent
            )
            + escape(
                f"; the columns are: {preview(map(repr, source.columns), 20)}: name the "
                "columns of a preference"
            ),
            **{option: (option, column) for option, column in absent},
        )
    names = list(columns.values())
    table = _tables.read_table(source, names, keys=names)
    _refuse_no_rows(source, table)
    values = [_names(source, table, column) for column in names]
    a, b = values[-2:]
    same = np.flatnonzero(a.to_numpy() == b.to_numpy())
    if len(same):
        raise InvalidRankingsError(
            f"{source.path}: {len(same)} row(s) prefer a system to itself "
            f"({_at(source, same, a)}): a comparison needs two different systems"
        )
    return source, values


# ---------------------------------------------------------------------------- PrefLib
def _read_preflib(path: str | Path, kind: str | None, encoding: str) -> Rankings:
    text = _read.read_text(path, encoding=encoding, what="PrefLib file")
    orders = _preflib.parse(
        text, str(path), kind or _preflib.suffix_type(path, _read.COMPRESSED_SUFFIXES)
    )
    counts = orders.counts
    # One row per voter: the (voters × alternatives) matrix is checked before it is built.
    n_voters = int(counts.sum())
    require_memory(
        rankings_bytes(len(orders.names), n_voters),
        f"reading {Path(path).name}",
        n_systems=len(orders.names),
        n_rankings=n_voters,
    )
    rows = np.repeat(np.arange(len(counts)), counts)
    # The voter's number within its order line: 1 .. count.
    voter = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts) + 1
    labels = pd.MultiIndex.from_arrays([orders.lines[rows], voter], names=["line", "voter"])
    frame = pd.DataFrame(orders.ranks[rows], index=labels, columns=list(orders.names))
    return Rankings.from_rank_matrix(frame)


# ---------------------------------------------------------------------------- CSV formats
def _refuse_no_rows(source: _read.Source, table: object) -> None:
    if table.num_rows == 0:  # type: ignore[attr-defined]
        raise InvalidRankingsError(f"{source.path} has a header but no rows: it holds no rankings")


def _names(source: _read.Source, table: object, column: str) -> pd.Series:
    """A column of names as text; empty names refused with their lines."""
    values = _cells.keys_as_text(table.column(column))  # type: ignore[attr-defined]
    try:
        _cells.check_keys(source, values, column)
    except InvalidScoresError as err:
        raise InvalidRankingsError(str(err)) from None
    return pd.Series(values.to_pandas(), dtype=object).astype(str)


def _at(source: _read.Source, rows: np.ndarray, names: pd.Series | None = None) -> str:
    lines = _tables.locate(source, rows[:5])
    shown = [
        f"{line}: {names.iloc[r]!r}" if names is not None else line
        for line, r in zip(lines, rows[:5], strict=True)
    ]
    return ", ".join(shown) + (f", ... ({len(rows) - 5} more)" if len(rows) > 5 else "")


def _refuse_variants(
    names: list[str], codes: np.ndarray, rows: np.ndarray, source: _read.Source
) -> None:
    """Names that differ only by surrounding whitespace, with the line each is first seen on
    (``codes``: the name of each cell, ``rows``: the data row of each cell)."""

    def first_seen(spellings: Sequence[str]) -> list[str]:
        position = {n: k for k, n in enumerate(names)}
        cells = [int(np.argmax(codes == position[s])) for s in spellings]
        return _tables.locate(source, rows[cells])

    try:
        _keys.refuse_whitespace_variants("system", names, first_seen, prefix=f"{source.path}: ")
    except InvalidScoresError as err:
        raise InvalidRankingsError(str(err)) from None


def _ranker(source: _read.Source, ranker: str | None) -> str | None:
    if ranker is not None and ranker not in source.columns:
        raise AdviceRankingsError(
            escape(f"{source.path}: no column {ranker!r} for ")
            + "{ranker}"
            + escape(f"; the columns are: {preview(map(repr, source.columns), 20)}"),
            ranker=ranker,
        )
    return ranker if ranker is not None else ("ranker" if "ranker" in source.columns else None)


def _labels(
    source: _read.Source, table: object, label: str | None, n: int, several: bool
) -> pd.Index:
    if label is None:
        return pd.RangeIndex(1, n + 1, name="row")
    names = _names(source, table, label)
    repeated = np.flatnonzero(names.duplicated(keep=False).to_numpy())
    if len(repeated) and not several:
        raise InvalidRankingsError(
            f"{source.path}: the {label!r} column repeats a label ({_at(source, repeated, names)})"
            ": each row is one ranker"
        )
    return pd.Index(names.to_numpy(), name=label)


def _read_rank_matrix(
    source: _read.Source, ranker: str | None, na_values: Sequence[str] | None, several: bool
) -> Rankings:
    label = _ranker(source, ranker)
    systems = [c for c in source.columns if c != label]
    blank = [k for k, c in enumerate(source.columns, 1) if c in systems and not c.strip()]
    if blank:
        raise InvalidRankingsError(
            f"{source.path}: column(s) {preview(blank)} have no name in the header: every "
            "column of a rank matrix is a system"
        )
    try:
        _keys.refuse_whitespace_variants(
            "system",
            systems,
            lambda spellings: [f"column {source.columns.index(c) + 1}" for c in spellings],
            prefix=f"{source.path}: ",
        )
    except InvalidScoresError as err:
        raise InvalidRankingsError(str(err)) from None
    table = _tables.read_table(source, keys=[label] if label else [])
    _refuse_no_rows(source, table)
    matrix = np.empty((table.num_rows, len(systems)))
    for k, column in enumerate(systems):
        try:
            matrix[:, k], _ = _cells.scores_as_float(table.column(column), na_values)
        except _cells.BadCells as bad:
            first = k == 0 and label is None
            raise _not_ranks(source, column, bad, first) from None
    labels = _labels(source, table, label, table.num_rows, several)
    return Rankings.from_rank_matrix(pd.DataFrame(matrix, index=labels, columns=systems))


def _not_ranks(
    source: _read.Source, column: str, bad: _cells.BadCells, first: bool
) -> InvalidRankingsError:
    shown = ", ".join(
        f"{line}: {value!r}"
        for line, value in zip(_tables.locate(source, bad.rows[:5]), bad.values[:5], strict=True)
    )
    more = f", ... ({len(bad.rows) - 5} more)" if len(bad.rows) > 5 else ""
    hint, options = "", {}
    if first:
        hint = escape(f"; if column {column!r} labels the rankers, pass ") + "{ranker}"
        options["ranker"] = column
    words = list(dict.fromkeys(v.strip() for v in bad.values if _cells.cell_kind(v) == "missing"))
    if words:
        hint += escape(f"; to read {preview(map(repr, words), 3)} as 'not ranked' pass ")
        hint += "{na_values}"
        options["na_values"] = words
    return AdviceRankingsError(
        escape(
            f"{source.path}: {len(bad.rows)} cell(s) of column {column!r} are not ranks ({shown}"
            f"{more}): a cell of a rank matrix holds a rank (a number, 1 = best) or is empty (not "
            "ranked)"
        )
        + hint,
        **options,
    )


def _warn_apart(
    source: _read.Source, places: list[str], cells: np.ndarray, filled: np.ndarray
) -> None:
    """Warn about a column that shares no name with the other columns (PlackettLuce's beans
    orderings carry a ``kind`` column, "trio" / "vs_local"): read as a place, its words become
    systems that are only ever ranked there. A label or attribute column, far more likely."""
    if len(places) < 3:
        return
    names = [set(cells[filled[:, k], k]) for k in range(len(places))]
    for k, column in enumerate(places):
        others = set().union(*(names[j] for j in range(len(places)) if j != k))
        if names[k] and others and not names[k] & others:
            warnings.warn(
                f"{source.path}: column {column!r} shares no name with the other columns: its "
                f"{len(names[k])} name(s) ({preview(map(repr, sorted(names[k])), 3)}) are read as "
                f"systems ranked only at place {k + 1}; if it is not a place of the orderings, "
                "remove it from the file (every column but the ranker's is a place)",
                DataWarning,
                stacklevel=4,
            )


def _read_orderings(source: _read.Source, ranker: str | None, several: bool) -> Rankings:
    label = _ranker(source, ranker)
    places = [c for c in source.columns if c != label]
    table = _tables.read_table(source)
    _refuse_no_rows(source, table)
    cells = np.column_stack(
        [
            np.asarray(_cells.keys_as_text(table.column(c)).to_pandas().fillna(""), dtype=object)
            for c in places
        ]
    )
    filled = pd.DataFrame(cells).apply(lambda col: col.str.strip().ne("")).to_numpy(dtype=bool)
    gap = np.flatnonzero((~filled[:, :-1] & filled[:, 1:]).any(axis=1))
    if len(gap):
        raise InvalidRankingsError(
            f"{source.path}: an ordering with an empty cell before a name ({_at(source, gap)}): "
            "a row lists systems best first and ends at its first empty cell (for ties, use a "
            "rank matrix or a PrefLib .toi file)"
        )
    _warn_apart(source, places, cells, filled)
    codes, systems = pd.factorize(pd.Series(cells[filled], dtype=object))
    code = np.full(cells.shape, -1, dtype=np.int64)
    code[filled] = codes
    ordered = np.sort(code, axis=1)
    twice = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)
    rows = np.flatnonzero(twice.any(axis=1))
    if len(rows):
        r = rows[0]
        name = systems[ordered[r, 1:][twice[r]][0]]
        line = _tables.locate(source, [r])[0]
        more = f", and {len(rows) - 1} more rows" if len(rows) > 1 else ""
        raise InvalidRankingsError(
            f"{source.path}: {len(rows)} ordering(s) list a system twice ({line}: {name!r}"
            f"{more}): each system has one place in a ranking"
        )
    row_of = np.broadcast_to(np.arange(cells.shape[0])[:, None], cells.shape)[filled]
    _refuse_variants(list(systems), codes, row_of, source)
    ranks = np.full((cells.shape[0], len(systems)), np.nan)
    place = np.broadcast_to(np.arange(1.0, len(places) + 1.0), cells.shape)
    ranks[row_of, codes] = place[filled]
    labels = _labels(source, table, label, cells.shape[0], several)
    return Rankings.from_rank_matrix(
        pd.DataFrame(ranks, index=labels, columns=[str(s) for s in systems])
    )
