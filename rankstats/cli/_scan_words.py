"""The messages of ``rs.scan_scores`` in the words of ``rankstats rank --stream``.

The library names its Python arguments (``order='any'``, ``na_values=[...]``, ``score=``) and
often the flag beside them (``(CLI: --score)``); on the command line only the flag is shown:
``--order any``, ``--na-values NA``, ``--score``. :func:`stream_words` rewrites the errors and
warnings raised inside it (errors as one :class:`UsageError` line, exit code 2).
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Iterator

from rankstats.cli.usage import UsageError
from rankstats.errors import InvalidScoresError, OutputError, ResourceError, UnreadableFileError

_HINT_CLI = (
    "rerun with --order any (rankstats partitions the rows by (task, instance) on disk), or "
    "sort the input by task and instance (rankstats simulate writes it so)"
)
_CLUSTER_CLI = (
    "--order any partitions the rows on this machine's disk, not on a Dask cluster: leave out "
    "--scheduler, or sort the files by task and instance and use --order grouped"
)

_RULES = (
    (re.compile(r"pass na_values=\[[^\]]*\] \(CLI: ([^)]*)\)"), r"pass \1"),
    (
        re.compile(r"\(name them with system=, task=, instance=, score=; CLI: ([^)]*)\)"),
        r"(name them with \1)",
    ),
    (re.compile(r"with (\w+)= \(CLI: (--[\w-]+)\)"), r"with \2"),
    (re.compile(r"\(CLI: (--[^)]*)\)"), r"(\1)"),
    (re.compile(r"\border='(\w+)'"), r"--order \1"),
    (re.compile(r"\bbatch_rows\b"), "--batch-rows"),
    (
        re.compile(r"since rs\.scan_scores read it; scan the files again"),
        "while rankstats read it; run the command again",
    ),
)


def cli_words(text: str) -> str:
    """``text`` with the Python spellings of ``rs.scan_scores`` replaced by the CLI's flags.

    >>> cli_words("sort it, or scan it with order='any'")
    'sort it, or scan it with --order any'
    """
    from rankstats.scan.reader import UNGROUPED_HINT
    from rankstats.scan.scanned import CLUSTER_ANY

    text = text.replace(UNGROUPED_HINT, _HINT_CLI).replace(CLUSTER_ANY, _CLUSTER_CLI)
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text


@contextlib.contextmanager
def stream_words() -> Iterator[None]:
    """Errors and warnings of a streamed scan, reworded by :func:`cli_words` (the warnings are
    shown when the block ends, before its error if any)."""
    errors = (InvalidScoresError, UnreadableFileError, OutputError, ResourceError, ValueError)
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as recorded:
            warnings.simplefilter("always")
            try:
                yield
            finally:
                caught = list(recorded)
    except errors as err:
        text = str(err)
        worded = cli_words(text)
        if worded == text:
            raise
        raise UsageError(worded) from None
    finally:
        for item in caught:
            warnings.warn(cli_words(str(item.message)), item.category, stacklevel=1)
