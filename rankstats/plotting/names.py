"""System names as figures draw them: literal text, unique abbreviations and their key.

Every system name reaches a figure through :func:`labels` (unique abbreviations of names longer
than :data:`NAME_WIDTH`, the key :func:`name_key`), ``$`` escaped (a name is never parsed as
mathtext) and control / bidirectional characters shown as escapes.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from rankstats._util.text import abbreviation_key, abbreviations, mpl_text, shorten


def label(name: object, width: int = 28) -> str:
    """One name as matplotlib text: cut to ``width``, shown literally. Figures draw system
    names with :func:`labels` instead, so that two long names never read the same.

    >>> label("$x^2$"), label("a" * 30, width=5)
    ('\\\\$x^2\\\\$', 'aaaa…')
    """
    return mpl_text(shorten(name, width))


#: Longest system name shown in full on a heat map's axes (longer ones get unique labels).
NAME_WIDTH = 28


#: Smallest font of a heat map's names, points: the figure grows instead of the font shrinking.
MIN_NAME_FONT = 6.0


#: The note of a figure whose names were shortened.
SHORTENED_NOTE = "… marks a shortened name; labels.csv (rs.plotting.name_key) has the full names"


def labels(names: Iterable[object], width: int = NAME_WIDTH) -> list[str]:
    """The names as matplotlib text, shortened to unique labels of at most ``width``
    characters (:func:`rankstats._util.text.abbreviations`: two long names never get one label).

    >>> labels(["model-alpha-one", "model-alpha-two"], width=12)
    ['model-a…-one', 'model-a…-two']
    """
    names = list(names)
    short = abbreviations(names, width)
    return [mpl_text(short[str(n)]) for n in names]


def name_key(names: Iterable[object], width: int = NAME_WIDTH) -> pd.DataFrame:
    """The key of the shortened names of a figure: columns ``label`` (as drawn) and ``name``,
    one row per shortened name (empty when every name fits). Outputs write it as
    ``labels.csv``."""
    return abbreviation_key(names, width)


def shortened_note(names: Iterable[object], width: int = NAME_WIDTH) -> str:
    """:data:`SHORTENED_NOTE` when :func:`labels` shortens some of ``names``, else ``""``: the
    line a figure adds to its title (the key is :func:`name_key` of the same names and width).

    >>> shortened_note(["a", "b"]), shortened_note(["x" * 40]) == SHORTENED_NOTE
    ('', True)
    """
    return "" if name_key(names, width).empty else SHORTENED_NOTE
