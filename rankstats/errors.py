"""Exceptions and warnings raised by rankstats.

Every error names what is wrong *and where* (system, task, instance or row number), so that a
user can fix the input table without reading the source.
"""

from __future__ import annotations

from collections.abc import Iterable


class InvalidScoresError(ValueError):
    """A score table cannot be used as given (non-numeric, infinite, duplicated, ...)."""


class InvalidRankingsError(ValueError):
    """A ranking matrix or list of orderings is malformed."""


class DataWarning(UserWarning):
    """Part of the input carries no information and was set aside (and reported)."""


def preview(items: Iterable[object], limit: int = 8) -> str:
    """Comma-separated list of the first ``limit`` items, with a count of the rest."""
    items = list(items)
    shown = ", ".join(str(i) for i in items[:limit])
    if len(items) > limit:
        shown += f", ... ({len(items) - limit} more)"
    return shown


class OutputError(OSError):
    """An output path cannot be written (an existing file, a foreign directory, no permission)."""


class ResourceError(MemoryError):
    """The input is too large for this machine (memory estimated from its shape, up front)."""


class UnreadableFileError(InvalidScoresError):
    """A score file cannot be read at all (empty, binary, wrong encoding, truncated, not the format
    its name says, a directory, an interrupted multi-file output); the message says what to do."""
