"""The delimiter of a text file: ``sep=`` (with its aliases, ``"tab"``), or sniffed from the
header and the first row among ``,``, tab, ``;`` and ``|``, and its name in messages.
"""

from __future__ import annotations

import csv

#: The delimiters a text file is sniffed for, in order of preference on a tie.
DELIMITERS = (",", "\t", ";", "|")
_SEP_ALIASES = {"\\t": "\t", "tab": "\t", "TAB": "\t", "comma": ",", "semicolon": ";"}


def parse_sep(sep: str) -> str:
    """The one-character delimiter that ``sep=`` names (``"tab"``, ``"\\t"``, ``"comma"`` and
    ``"semicolon"`` are aliases); anything longer is refused."""
    sep = _SEP_ALIASES.get(sep, sep)
    if len(sep) != 1:
        raise ValueError(f"sep must be one character (e.g. ',', ';', '\\t'), not {sep!r}")
    return sep


def _fields(line: str, delimiter: str) -> int:
    return len(next(csv.reader([line], delimiter=delimiter)))


def sniff_delimiter(header: str, first: str | None, default: str) -> str:
    """The delimiter among ``,`` tab ``;`` ``|`` that splits the header (and the first row into
    as many fields); the extension's default wins a tie, then the most fields."""
    counts = {d: _fields(header, d) for d in DELIMITERS}
    candidates = [d for d in DELIMITERS if counts[d] > 1]
    if not candidates:
        return default
    if first is not None:
        consistent = [d for d in candidates if _fields(first, d) == counts[d]]
        candidates = consistent or candidates
    if default in candidates:
        return default
    return max(candidates, key=lambda d: counts[d])


def delimiter_name(delimiter: str) -> str:
    """The delimiter as a word in messages: ``"comma"``, ``"tab"``, ``"semicolon"``, ``"pipe"``
    (any other, quoted)."""
    return {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}.get(
        delimiter, repr(delimiter)
    )
