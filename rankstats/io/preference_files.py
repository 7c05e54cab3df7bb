"""Each assessor's stated pairwise preferences read from a file, as
:class:`~rankstats.core.preferences.AssessorPreferences` — the input of a Mallows model fitted to
preferences (BayesMallows' ``assessor, bottom_item, top_item`` tables among them).

The file is read by the one reader of rankings and paired comparisons
(:func:`rankstats.io.ranking_files.stated_preferences`: encodings, compression, delimiters, and
every refusal naming the file's lines); each assessor's preferences are then closed under
transitivity, and an assessor whose preferences form a cycle is refused with the cycle named.
"""

from __future__ import annotations

from pathlib import Path

from rankstats._util.advice import Advice, escape
from rankstats.core.preferences import AssessorPreferences, build_preferences
from rankstats.errors import InvalidRankingsError
from rankstats.io import tables as _tables
from rankstats.io.ranking_files import stated_preferences


def read_preferences(
    path: str | Path,
    assessor: str = "assessor",
    preferred: str = "preferred",
    other: str = "other",
    *,
    cycles: str = "refuse",
    sep: str | None = None,
    encoding: str = "utf-8",
) -> AssessorPreferences:
    """Read each assessor's stated preferences, one per row: ``assessor`` preferred
    ``preferred`` to ``other``.

    Parameters
    ----------
    path : str or Path
        A CSV (or TSV, compressed or not) with the three columns; other columns are ignored.
    assessor, preferred, other : str
        The column names (BayesMallows' files: ``preferred="top_item", other="bottom_item"``).
    cycles : {"refuse", "keep"}
        An assessor whose preferences form a cycle: refused (default), or kept for the
        Bernoulli error model (:meth:`AssessorPreferences.from_table`).
    sep, encoding
        As :func:`rankstats.read_scores`.

    Returns
    -------
    AssessorPreferences
        The transitive closure of every assessor's preferences.

    Raises
    ------
    InvalidRankingsError
        A missing column, no rows, an empty name, a system preferred to itself, names that
        differ only by surrounding whitespace (each naming the lines), an assessor whose
        preferences form a cycle (naming the assessor and the cycle).

    Examples
    --------
    >>> import pathlib, tempfile, rankstats as rs
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "prefs.csv"
    >>> _ = path.write_text("assessor,preferred,other\\n1,a,b\\n1,b,c\\n2,c,a\\n")
    >>> rs.read_preferences(path)
    AssessorPreferences(2 assessors, 3 systems, 3 stated preferences, 1 implied)
    """
    columns = {"assessor": assessor, "preferred": preferred, "other": other}
    source, (who, a, b) = stated_preferences(
        path,
        columns,
        sep=sep,
        encoding=encoding,
    )
    try:  # every check of the table's rows, naming the file's lines
        return build_preferences(
            who, a, b, cycles, lambda rows: _tables.locate(source, rows), tuple(columns)
        )
    except InvalidRankingsError as err:  # say in which file
        if isinstance(err, Advice):
            raise type(err)(escape(f"{source.path}: ") + err.template, **err.options) from None
        raise InvalidRankingsError(f"{source.path}: {err}") from None
