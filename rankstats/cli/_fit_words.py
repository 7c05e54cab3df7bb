"""``rankstats fit`` in the command's language: the library's errors and warnings name Python
arguments (``method='map'``, ``prior_scale``, ``draws=``); on the command line they name the
flags (``--method map``, ``--prior-scale``, ``--draws``).  Used by :mod:`rankstats.cli.fit` and
:mod:`rankstats.cli._fit_compare`.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Iterator

from rankstats.cli.usage import UsageError

#: Whole phrases first (they hold the shorter patterns below).
_PHRASES = (
    (
        "Remove them (e.g. Rankings.from_orderings(..., systems=[...]) without them); "
        "aggregate(..., method='pl'|'bt') does this for you and reports them as NaN.",
        "Remove their rows from the input (or give them scores).",
    ),
    ("Use method='map' or method='nuts'", "Use --method map or --method nuts"),
    ("(draws=, tune=, max_draws=)", "(--draws, --tune, --max-draws)"),
    ("(draws=, tune=)", "(--draws, --tune)"),
    ("raise max_draws= or tune=", "raise --max-draws or --tune"),
    ("(smaller prior_scale)", "(smaller --prior-scale)"),
    ("(ic='kfold')", "(--kfold K)"),
    ("kind='subset'", "--kind subset"),
    ("kind='top_k'", "--kind top_k"),
)
_METHOD = re.compile(r"method\s*=\s*['\"](\w+)['\"]")
_ARGUMENT = re.compile(r"\b(max_draws|prior_scale|target_accept|draws|tune|chains)=")


def cli_words(text: str) -> str:
    """``text`` with the Python spellings of ``fit``'s options replaced by its flags."""
    for python, flag in _PHRASES:
        text = text.replace(python, flag)
    text = _METHOD.sub(lambda m: f"--method {m.group(1)}", text)
    return _ARGUMENT.sub(lambda m: "--" + m.group(1).replace("_", "-") + " ", text)


@contextlib.contextmanager
def in_cli_words(notes: list[str] | None = None, record: bool = True) -> Iterator[None]:
    """Re-raise a user error (``ValueError``, :class:`~rankstats.errors.InvalidRankingsError`)
    as a :class:`UsageError` in the command's words, and re-issue every
    :class:`~rankstats.errors.DataWarning` so worded (printed by the CLI as ``rankstats fit:
    warning: …``); their texts are also appended to ``notes`` (for the JSON).  With
    ``record=False`` only the errors are reworded (warnings print as they come)."""
    from rankstats.errors import DataWarning

    if not record:
        try:
            yield
        except UsageError:
            raise
        except ValueError as err:
            raise UsageError(cli_words(str(err))) from None
        return
    failure: Exception | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DataWarning)
        try:
            yield
        except UsageError as err:
            failure = err
        except ValueError as err:
            failure = UsageError(cli_words(str(err)))
            failure.__suppress_context__ = True
    for w in caught:
        if not issubclass(w.category, DataWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            continue
        text = cli_words(str(w.message))
        if notes is not None:
            notes.append(text)
        warnings.warn(text, DataWarning, stacklevel=3)
    if failure is not None:
        raise failure
